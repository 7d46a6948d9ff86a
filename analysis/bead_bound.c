/* bead_bound.c: the bound on a rate's sigma for markers half hidden behind their
 * body's limb, shared by the several-body side fits (bodies_side.c) and the one-body
 * sides (impact_candidate.c, analysis_bead_v_var). */

#include "analysis/analysis_internal.h"

/* A bead half hidden behind its own ball's limb (or the other body) is off by 1-4 mm
 * for many frames and moves the posed centre and attitude by a step or a slow drift
 * that the fits' residuals hardly show, their lag-1 growth missing it (docs/analysis.md,
 * "Session 31: two-body sigmas"). The pose's template misfit (rms, m, 3D, over nu
 * markers) shows it. The markers' white noise (per axis, w2 = their variance) is the
 * window's lower quartile of rms^2 nu / (3 nu - 6); a frame misfits beyond it when its
 * own such variance exceeds BEAD_MISFIT^2 w2 (white noise so far out: chi^2 on 6 dof
 * beyond 21, 0.2% of four-marker frames). Its bead's pull, per axis: the centre's move
 * (or the attitude's turn, rad, surface axes) when the pose is refitted without its
 * worst marker (shift[i], four markers or more), else the misfit's excess over the
 * white part, its per-axis share (times lever: 1 for the centre, 1 / the markers' rms
 * radius for the attitude). The bound on the rate (v, or omega from the rotation
 * vector's fit, each axis): those frames off by h_i, all one way, the others clean: the
 * sum of |c_i| h_i, c_i the weights that make the rate from the frames (the fit's rate
 * row of (X^T X)^-1 X^T; X's columns 1, tau and, the acceleration fitted, tau^2 / 2; the
 * torque-free rotation of a round body is near that line). Beads on a flat face (a
 * puck's, a bar's stickers) have no limb to go behind: their misfit is the markers' noise
 * the residuals hold, so the callers take round bodies only (the one-body sides also
 * a marker on a post: analysis_markers_can_hide). */
#define BEAD_MISFIT 2.5

/* a frame's misfit variance per axis (m^2) from its pose's rms over nu markers */
static double misfit_var(double rms, int nu)
{
    return nu >= 3 && isfinite(rms) ? rms * rms * nu / (3.0 * nu - 6) : NAN;
}

void analysis_bead_find_misfits(const double *rms, const int *nu, int n, analysis_bead_misfits *m)
{
    double q[ANALYSIS_SIDE_MAX_FRAMES];
    int nq = 0;
    m->n_flagged = 0;
    m->w2 = NAN;
    for (int i = 0; i < n; i++) {
        m->flag[i] = 0;
        double v2 = misfit_var(rms[i], nu[i]);
        if (isfinite(v2))
            q[nq++] = v2;
    }
    if (nq < 4)
        return;
    analysis_median(q, nq); /* sorts */
    m->w2 = q[nq / 4];
    for (int i = 0; i < n; i++)
        if (misfit_var(rms[i], nu[i]) > BEAD_MISFIT * BEAD_MISFIT * m->w2)
            m->flag[i] = 1, m->n_flagged++;
}

icv_vec3 analysis_bead_step_sd(const analysis_bead_misfits *m, const double *t, const double *rms, const int *nu,
                               const icv_vec3 *shift, int n, double t_ref, int fit_a, double lever)
{
    icv_vec3 h[ANALYSIS_SIDE_MAX_FRAMES], out = {0, 0, 0};
    if (!m->n_flagged)
        return out;
    for (int i = 0; i < n; i++) {
        h[i] = icv_v3(0, 0, 0);
        if (!m->flag[i])
            continue;
        if (nu[i] >= 4 && isfinite(shift[i].x))
            h[i] = icv_v3(fabs(shift[i].x), fabs(shift[i].y), fabs(shift[i].z));
        else {
            double ex = lever * sqrt(fmax(0, rms[i] * rms[i] - m->w2 * (3.0 * nu[i] - 6) / nu[i]) / 3);
            h[i] = icv_v3(ex, ex, ex);
        }
    }
    icv_mat3 N = {{{0}}}, Ni;
    for (int i = 0; i < n; i++) {
        double tau = t[i] - t_ref, x[3] = {1, tau, fit_a ? 0.5 * tau * tau : 0};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                N.m[a][b] += x[a] * x[b];
    }
    if (!fit_a) /* two unknowns: the third row and column stand apart */
        N.m[2][2] = 1;
    if (icv_m3_inverse(N, &Ni))
        return out;
    for (int i = 0; i < n; i++) {
        double tau = t[i] - t_ref, x[3] = {1, tau, fit_a ? 0.5 * tau * tau : 0}, c = 0;
        for (int b = 0; b < 3; b++)
            c += Ni.m[1][b] * x[b];
        out = icv_v3_axpy(fabs(c), h[i], out);
    }
    return out;
}

/* The centre's move (m) and the attitude's turn (*turn, rad, surface axes) when frame
 * row's pose is refitted without its worst marker (NaN when it has under four) */
icv_vec3 analysis_worst_left_out(const analysis_tracks *tr, int row, const analysis_template *tmpl, double sigma,
                                 const analysis_pose *pose, icv_vec3 *turn)
{
    int valid[ICV_MAX_MARKERS] = {0}, worst = -1;
    int nm = tr->n_markers < ICV_MAX_MARKERS ? tr->n_markers : ICV_MAX_MARKERS;
    double sig[ICV_MAX_MARKERS];
    for (int k = 0; k < nm; k++) {
        valid[k] = pose->used[k];
        sig[k] = tr->sigma ? tr->sigma[row * tr->n_markers + k] : sigma;
        if (valid[k] && (worst < 0 || pose->residual[k] > pose->residual[worst]))
            worst = k;
    }
    analysis_pose_params pp = {5.0};
    analysis_pose p2;
    *turn = icv_v3(NAN, NAN, NAN);
    if (pose->n_used < 4 || worst < 0)
        return icv_v3(NAN, NAN, NAN);
    valid[worst] = 0;
    if (analysis_pose_fit(tmpl, &tr->pos[row * tr->n_markers], valid, sigma > 0 ? sig : NULL, &pp, &p2, NULL))
        return icv_v3(NAN, NAN, NAN);
    *turn = icv_rot_to_axis_angle(icv_m3_mul(pose->R, icv_m3_transpose(p2.R)));
    return icv_v3_sub(pose->p, p2.p);
}

/* the template markers' rms distance from the centre (m) */
double analysis_template_radius(const analysis_template *tmpl)
{
    double s = 0;
    for (int k = 0; k < tmpl->n_markers; k++)
        s += icv_v3_dot(tmpl->markers[k], tmpl->markers[k]);
    return tmpl->n_markers ? sqrt(s / tmpl->n_markers) : 0;
}

void analysis_bead_v_var(const analysis_tracks *tr, const analysis_body *b, double sigma, const posed_frame *pf,
                         int first, int last, double var[3])
{
    double t[ANALYSIS_SIDE_MAX_FRAMES], rms[ANALYSIS_SIDE_MAX_FRAMES] = {0};
    int nu[ANALYSIS_SIDE_MAX_FRAMES] = {0}, n = 0;
    icv_vec3 shift[ANALYSIS_SIDE_MAX_FRAMES], turn;
    analysis_bead_misfits mis;
    var[0] = var[1] = var[2] = 0;
    if (b->tmpl.point || first < 0 || last - first + 1 > ANALYSIS_SIDE_MAX_FRAMES)
        return;
    for (int i = first; i <= last; i++, n++) {
        t[n] = pf[i].t;
        rms[n] = pf[i].pose.n_used >= 3 ? pf[i].pose.rms : NAN;
        nu[n] = pf[i].pose.n_used;
    }
    analysis_bead_find_misfits(rms, nu, n, &mis);
    for (int i = 0; i < n; i++) /* the refit only where the bound uses it */
        shift[i] = mis.flag[i] ? analysis_worst_left_out(tr, pf[first + i].row, &b->tmpl, sigma, &pf[first + i].pose, &turn)
                               : icv_v3(NAN, NAN, NAN);
    icv_vec3 sb = analysis_bead_step_sd(&mis, t, rms, nu, shift, n, t[0], 0, 1.0);
    var[0] = sb.x * sb.x, var[1] = sb.y * sb.y, var[2] = sb.z * sb.z;
    if (b->tmpl.planar) /* one camera: z is off the motion plane, not measured */
        var[2] = 0;
}

/* a marker this far (m) beyond the shape's surface stands off it (a ball on a post) */
#define MARKER_PROUD 2e-3

int analysis_markers_can_hide(const analysis_body *b)
{
    if (b->shape.type == ICV_SHAPE_SPHERE || b->shape.type == ICV_SHAPE_CAPSULE || b->shape.type == ICV_SHAPE_CYLINDER)
        return 1;
    for (int k = 0; k < b->tmpl.n_markers; k++) {
        icv_vec3 m = b->tmpl.markers[k];
        double r = sqrt(icv_v3_dot(m, m));
        if (r <= 0)
            continue;
        icv_vec3 u = icv_v3_scale(m, 1 / r); /* the shape's farthest point along u: its lowest along -u */
        icv_vec3 s = icv_shape_lowest_point(&b->shape, icv_m3_identity(), icv_v3(0, 0, 0), icv_v3_scale(u, -1));
        if (r - icv_v3_dot(s, u) > MARKER_PROUD)
            return 1;
    }
    return 0;
}
