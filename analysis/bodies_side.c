/* bodies_side.c: one body's fits on one side of an impact, for the several-body
 * analysis: its poses (analysis_pose_fit_frame), its centre (analysis_ballistic_fit:
 * the g given in free flight, the side's own acceleration on a table or at a
 * joint) and its rotation (analysis_rotation_fit in free flight; on a table or at
 * a joint the rotation vector from a reference attitude fitted like the centre,
 * with the same fit: a constant angular acceleration). States at the impact
 * instant; sigmas from the residuals (each axis its own), grown by their lag-1
 * correlation as the one-body sides' are, and a round body's v and omega sigmas by a bound for
 * its half-hidden beads (analysis_bead_step_sd, bead_bound.c). */
#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bodies_internal.h"

#define SIDE_MAX 256

/* a pose whose markers sit this many times farther from the template than the body's
   median frame does is a frame with a wrong point (a marker merged with the other
   body's at contact) that no marker can be dropped from: three markers, one off */
#define POSE_RMS_OUTLIER 5.0

/* a pose this many times farther off its side's fitted flight than the side's
   median pose (and than the points' sigma) is a wrong point's pose: a clean pose of
   Gaussian noise is that far out with probability ~1e-6 per frame (the 3D miss's
   median is 1.54 sigma); a half-hidden bead's step (up to ~3 median misses,
   docs/analysis.md session 31) stays in */
#define OFF_FLIGHT 8.0

/* ok[i] cleared for the poses (of n, rms[i] their fits' RMS, m) that fit POSE_RMS_OUTLIER
 * times worse than the median and beyond 3 sigma (m); needs 5 poses to judge. */
static void drop_misfits(const double *rms, int *ok, int n, double sigma)
{
    double *r = malloc(sizeof *r * ((size_t)n + 1));
    int m = 0;
    for (int i = 0; i < n && r; i++)
        if (ok[i] && isfinite(rms[i]))
            r[m++] = rms[i];
    if (r && m >= 5) {
        double med = analysis_median(r, m);
        for (int i = 0; i < n; i++)
            if (ok[i] && rms[i] > POSE_RMS_OUTLIER * med && rms[i] > 3 * sigma)
                ok[i] = 0;
    }
    free(r);
}

void bodies_poses(const analysis_body_track *bt, const analysis_params *prm, body_pose *out)
{
    const analysis_tracks *tr = bt->tracks;
    double *rms = malloc(sizeof *rms * ((size_t)tr->n_frames + 1));
    int *ok = malloc(sizeof *ok * ((size_t)tr->n_frames + 1));
    for (int i = 0; i < tr->n_frames; i++) {
        analysis_pose_params pp = {5.0};
        analysis_pose pose;
        out[i].ok = analysis_pose_fit_frame(tr, i, &bt->body->tmpl, prm->pos_sigma, &pp, &pose, NULL) == 0;
        out[i].R = out[i].ok ? pose.R : icv_m3_identity();
        out[i].p = out[i].ok ? pose.p : icv_v3(NAN, NAN, NAN);
        out[i].rms = out[i].ok && pose.n_used >= 3 ? pose.rms : NAN;
    }
    if (rms && ok) {
        for (int i = 0; i < tr->n_frames; i++)
            rms[i] = out[i].rms, ok[i] = out[i].ok;
        drop_misfits(rms, ok, tr->n_frames, prm->pos_sigma);
        for (int i = 0; i < tr->n_frames; i++)
            if (out[i].ok && !ok[i]) {
                out[i].ok = 0;
                out[i].p = icv_v3(NAN, NAN, NAN);
            }
    }
    free(rms);
    free(ok);
}

double bodies_kinetic(const analysis_body *b, icv_mat3 R, icv_vec3 v, icv_vec3 w)
{
    icv_mat3 Iw = icv_m3_rotate_tensor(R, b->inertia);
    return 0.5 * b->mass * icv_v3_dot(v, v) + 0.5 * icv_v3_dot(w, icv_m3_apply(Iw, w));
}

double bodies_frame_period(const analysis_tracks *tr)
{
    int n = tr->n_frames - 1;
    if (n < 1)
        return 0;
    double *d = malloc(sizeof *d * (size_t)n);
    if (!d)
        return (tr->t[n] - tr->t[0]) / n;
    for (int i = 0; i < n; i++)
        d[i] = tr->t[i + 1] - tr->t[i];
    double m = analysis_median(d, n);
    free(d);
    return m;
}

int bodies_window(const analysis_tracks *tr, double t_star, double excl, int lo_row, int hi_row, int post,
                  int max_frames, int *first, int *last)
{
    int a = -1, b = -1;
    for (int i = lo_row + 1; i < hi_row && i < tr->n_frames; i++) {
        if (i < 0)
            continue;
        if (post ? tr->t[i] < t_star + excl : tr->t[i] > t_star - excl)
            continue;
        if (a < 0)
            a = i;
        b = i;
    }
    if (a < 0)
        return 0;
    analysis_window_nearest(post, max_frames, &a, &b);
    *first = a;
    *last = b;
    return b - a + 1;
}

/* SO(3)'s left Jacobian: the spatial angular velocity of exp(phi(t)) R0 is
 * J(phi) phi' */
static icv_mat3 left_jacobian(icv_vec3 phi)
{
    double th = icv_v3_norm(phi), a, b;
    if (th < 1e-4) {
        a = 0.5 - th * th / 24;
        b = 1.0 / 6 - th * th / 120;
    } else {
        a = (1 - cos(th)) / (th * th);
        b = (th - sin(th)) / (th * th * th);
    }
    icv_mat3 K = icv_m3_skew(phi);
    return icv_m3_add(icv_m3_identity(), icv_m3_add(icv_m3_scale(K, a), icv_m3_scale(icv_m3_mul(K, K), b)));
}

/* residuals of a one-phase fit, its variance growth for their lag-1 correlation */
static double inflation(const analysis_ballistic *bf, const double *t, const icv_vec3 *p, int n, double t_ref)
{
    icv_vec3 r[SIDE_MAX];
    for (int i = 0; i < n; i++) {
        double tau = t[i] - t_ref;
        r[i] = icv_v3_sub(p[i], icv_v3_add(icv_v3_add(bf->p0[0], icv_v3_scale(bf->v[0], tau)),
                                           icv_v3_scale(bf->g, 0.5 * tau * tau)));
    }
    return analysis_correlation_inflation(r, n);
}

/* cov = J diag(d) J^T, d per axis */
static void sandwich_diag(icv_mat3 J, const double d[3], double out[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            double s = 0;
            for (int a = 0; a < 3; a++)
                s += J.m[i][a] * d[a] * J.m[k][a];
            out[i][k] = s;
        }
}

/* Whether a side's rotation is a spin about the surface normal (y) alone: the free
 * fit's rates and accelerations of the rotation vector about x and z, against their
 * sigmas (residual-inflated by f), within chi^2's 99% point on 4 degrees of freedom */
static int flat_spin(const analysis_ballistic *bf, double f)
{
    static const int tilt[2] = {0, 2};
    double chi2 = 0;
    for (int j = 0; j < 2; j++) {
        int k = tilt[j];
        double sv = icv_v3_get(bf->v_sd[0], k), sg = icv_v3_get(bf->g_sd, k);
        if (!(sv > 0) || !(sg > 0))
            return 0;
        chi2 += pow(icv_v3_get(bf->v[0], k), 2) / (f * sv * sv) + pow(icv_v3_get(bf->g, k), 2) / (f * sg * sg);
    }
    return chi2 < 13.28;
}

/* a face's normal this close to the surface normal is a body lying on that face: a
   face's measured tilt is pose noise (mrad), a box on an edge or a cylinder on its
   side is 45-90 deg off */
#define FACE_DOWN_COS 0.985 /* cos 10 deg */

/* Whether a body at attitude R (body -> surface) lies on a flat face of its shape: a
 * cylinder on an end, a box on any face. Sliding on that face with its height steady,
 * the contact holds the face in the surface's plane, so it can turn about the surface
 * normal (y) only: its tilt rates are 0 by kinematics, not a question for the tracks
 * (whose slow errors make the tilt rates of coplanar markers look significant: docs/
 * analysis.md, session 32). A ball, a capsule or a cylinder on its side can roll. */
static int lies_on_face(const analysis_body *b, icv_mat3 R)
{
    icv_vec3 ax[3];
    int n = 0;
    if (b->shape.type == ICV_SHAPE_CYLINDER)
        ax[n++] = b->shape.axis;
    else if (b->shape.type == ICV_SHAPE_BOX)
        ax[n++] = icv_v3(1, 0, 0), ax[n++] = icv_v3(0, 1, 0), ax[n++] = icv_v3(0, 0, 1);
    for (int i = 0; i < n; i++) {
        double c = icv_m3_apply(R, ax[i]).y, a = icv_v3_norm(ax[i]);
        if (a > 0 && fabs(c) >= FACE_DOWN_COS * a)
            return 1;
    }
    return 0;
}

/* the rotation as a quadratic rotation vector about the attitude of frame `ref` */
static int poly_rotation(const analysis_body *b, const double *t, const icv_mat3 *R, int n, int ref, double t_ref,
                         int on_surface, analysis_body_state *out, icv_err *err)
{
    icv_vec3 phi[SIDE_MAX];
    icv_mat3 Rt = icv_m3_transpose(R[ref]);
    for (int i = 0; i < n; i++)
        phi[i] = icv_rot_to_axis_angle(icv_m3_mul(R[i], Rt));
    /* unwrap: a turn near pi flips the axis; keep each vector near the previous */
    for (int i = 1; i < n; i++) {
        double th = icv_v3_norm(phi[i]);
        if (th > 1e-9) {
            icv_vec3 alt = icv_v3_scale(phi[i], (th - 2 * M_PI) / th);
            if (icv_v3_norm(icv_v3_sub(alt, phi[i - 1])) < icv_v3_norm(icv_v3_sub(phi[i], phi[i - 1])))
                phi[i] = alt;
        }
    }
    analysis_flight ph = {n, t, phi, NULL, t_ref};
    analysis_ballistic bf;
    int rc = analysis_ballistic_fit(&ph, 1, NULL, &bf, err);
    if (rc)
        return rc;
    double f = inflation(&bf, t, phi, n, t_ref);
    icv_vec3 ph0 = bf.p0[0];
    icv_mat3 J = left_jacobian(ph0);
    out->R = icv_m3_mul(icv_rot_from_axis_angle(ph0), R[ref]);
    out->omega = icv_m3_apply(J, bf.v[0]);
    out->alpha = icv_m3_apply(J, bf.g);
    double da[3], dw[3], daw[3], caa[3][3], cww[3][3], caw[3][3];
    for (int k = 0; k < 3; k++) {
        da[k] = f * icv_v3_get(bf.p0_sd[0], k) * icv_v3_get(bf.p0_sd[0], k);
        dw[k] = f * icv_v3_get(bf.v_sd[0], k) * icv_v3_get(bf.v_sd[0], k);
        daw[k] = f * bf.cov_pv[0][k];
    }
    sandwich_diag(J, da, caa);
    sandwich_diag(J, dw, cww);
    sandwich_diag(J, daw, caw);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            out->cov_rot[i][k] = caa[i][k];
            out->cov_rot[3 + i][3 + k] = cww[i][k];
            out->cov_rot[i][3 + k] = out->cov_rot[3 + k][i] = caw[i][k];
        }
    out->spin_observable = !b->tmpl.collinear;
    if (on_surface && !b->tmpl.collinear && (lies_on_face(b, out->R) || flat_spin(&bf, f))) {
        /* a body sliding flat on the surface: its tilt rates are the noise of
           coplanar markers' depth, so omega and alpha are taken about the normal
           alone, the tilt rates 0 with no variance (the per-axis fit gives the spin
           the same variance as the free one) */
        icv_vec3 n = icv_v3(0, 1, 0);
        out->omega = icv_v3_scale(n, icv_v3_dot(n, out->omega));
        out->alpha = icv_v3_scale(n, icv_v3_dot(n, out->alpha));
        for (int i = 0; i < 6; i++)
            out->cov_rot[3][i] = out->cov_rot[i][3] = out->cov_rot[5][i] = out->cov_rot[i][5] = 0;
        out->spin_about_normal = 1;
    }
    if (b->tmpl.collinear) { /* the spin about the line is the fit's convention, not seen */
        icv_vec3 a = icv_m3_apply(out->R, b->tmpl.axis);
        out->omega = icv_v3_axpy(-icv_v3_dot(a, out->omega), a, out->omega);
        out->alpha = icv_v3_axpy(-icv_v3_dot(a, out->alpha), a, out->alpha);
    }
    return 0;
}

int analysis_body_side_fit(const analysis_body_track *bt, int row_first, int row_last, double t_ref, const icv_vec3 *g,
                           const analysis_params *prm, analysis_body_state *out, icv_err *err)
{
    const analysis_body *b = bt->body;
    const analysis_tracks *tr = bt->tracks;
    double t[SIDE_MAX];
    icv_vec3 p[SIDE_MAX];
    icv_mat3 R[SIDE_MAX];
    int n = 0, need = prm->min_side_frames > 4 ? prm->min_side_frames : 4;
    memset(out, 0, sizeof *out);
    if (row_first < 0)
        row_first = 0;
    if (row_last >= tr->n_frames)
        row_last = tr->n_frames - 1;
    double rms[SIDE_MAX] = {0};
    int ok[SIDE_MAX] = {0}, nu[SIDE_MAX] = {0}, row[SIDE_MAX];
    int round = b->shape.type == ICV_SHAPE_SPHERE || b->shape.type == ICV_SHAPE_CAPSULE;
    icv_vec3 shift[SIDE_MAX], turn[SIDE_MAX];
    analysis_bead_misfits mis = {.n_flagged = 0}; /* found for a round body's flight */
    for (int i = row_first; i <= row_last && n < SIDE_MAX; i++) {
        analysis_pose_params pp = {5.0};
        analysis_pose pose;
        if (analysis_pose_fit_frame(tr, i, &b->tmpl, prm->pos_sigma, &pp, &pose, NULL))
            continue;
        t[n] = tr->t[i];
        p[n] = pose.p;
        R[n] = pose.R;
        rms[n] = pose.n_used >= 3 ? pose.rms : NAN;
        nu[n] = pose.n_used;
        row[n] = i;
        ok[n] = 1;
        n++;
    }
    drop_misfits(rms, ok, n, prm->pos_sigma);
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (ok[i])
            t[kept] = t[i], p[kept] = p[i], R[kept] = R[i], rms[kept] = rms[i], nu[kept] = nu[i], row[kept] = row[i],
            kept++;
    n = kept;
    const char *name = bt->name ? bt->name : "body";
    if (n < need)
        return icv_err_set(err, ICV_EINVAL, "body %s: %d poses in frames %d-%d (t %.6g-%.6g s), needs %d", name, n,
                           tr->frame[row_first < tr->n_frames ? row_first : 0],
                           tr->frame[row_last >= 0 ? row_last : 0], row_first < tr->n_frames ? tr->t[row_first] : 0,
                           row_last >= 0 ? tr->t[row_last] : 0, need);
    int hung = bt->motion == ANALYSIS_MOTION_PENDULUM, poly = bt->motion == ANALYSIS_MOTION_POLY || hung;
    if (!(poly && !hung) && !g)
        return icv_err_set(err, ICV_EINVAL, "body %s: %s needs the gravity vector", name,
                           hung ? "a pendulum" : "free flight");
    int rc;
    if (hung) {
        bodies_pendulum pend;
        if ((rc = bodies_pendulum_pivot(bt, g, prm, &pend, err)) ||
            (rc = bodies_pendulum_side(bt, &pend, t, p, n, t_ref, g, out, err)))
            return rc;
    } else {
        analysis_flight ph = {n, t, p, NULL, t_ref};
        analysis_ballistic bf;
        rc = analysis_ballistic_fit(&ph, 1, poly ? NULL : g, &bf, err);
        if (rc)
            return rc;
        /* a pose off the side's own flight: a wrong point in a frame of three or four
           markers fits the template within its misfit test (collision8's last frame
           before contact, 36 mm off at a 1.5 mm misfit, moved a's v by 0.15 m/s);
           the worst is left out while it stands OFF_FLIGHT times the median miss
           away, and the side refitted */
        while (n > need) {
            double d[SIDE_MAX], dm[SIDE_MAX];
            int worst = 0;
            for (int i = 0; i < n; i++) {
                double tau = t[i] - t_ref;
                icv_vec3 pr = icv_v3_add(icv_v3_add(bf.p0[0], icv_v3_scale(bf.v[0], tau)),
                                         icv_v3_scale(bf.g, 0.5 * tau * tau));
                dm[i] = d[i] = icv_v3_norm(icv_v3_sub(p[i], pr));
                if (d[i] > d[worst])
                    worst = i;
            }
            double med = analysis_median(dm, n);
            if (!(d[worst] > OFF_FLIGHT * med && d[worst] > OFF_FLIGHT * prm->pos_sigma))
                break;
            for (int i = worst; i < n - 1; i++)
                t[i] = t[i + 1], p[i] = p[i + 1], R[i] = R[i + 1], rms[i] = rms[i + 1], nu[i] = nu[i + 1],
                row[i] = row[i + 1];
            n--;
            ph.n = n;
            if ((rc = analysis_ballistic_fit(&ph, 1, poly ? NULL : g, &bf, err)))
                return rc;
        }
        if (round) { /* the half-hidden beads' refits, where the bound reads them */
            analysis_bead_find_misfits(rms, nu, n, &mis);
            for (int i = 0; i < n; i++) {
                analysis_pose_params pp = {5.0};
                analysis_pose pose;
                shift[i] = turn[i] = icv_v3(NAN, NAN, NAN);
                if (mis.flag[i] && !analysis_pose_fit_frame(tr, row[i], &b->tmpl, prm->pos_sigma, &pp, &pose, NULL))
                    shift[i] = analysis_worst_left_out(tr, row[i], &b->tmpl, prm->pos_sigma, &pose, &turn[i]);
            }
        }
        double f = inflation(&bf, t, p, n, t_ref), sf = sqrt(f);
        out->p = bf.p0[0];
        out->v = bf.v[0];
        out->a = bf.g;
        out->p_sd = icv_v3_scale(bf.p0_sd[0], sf);
        out->v_sd = icv_v3_scale(bf.v_sd[0], sf);
        if (round) { /* a half-hidden bead's slow error, which the residuals miss */
            icv_vec3 sb = analysis_bead_step_sd(&mis, t, rms, nu, shift, n, t_ref, poly, 1.0);
            out->v_sd = icv_v3(hypot(out->v_sd.x, sb.x), hypot(out->v_sd.y, sb.y), hypot(out->v_sd.z, sb.z));
        }
        out->a_sd = icv_v3_scale(bf.g_sd, sf);
        for (int k = 0; k < 3; k++)
            out->cov_pv[k] = f * bf.cov_pv[0][k];
        out->chi2_dof = bf.chi2_dof;
    }
    out->n_frames = n;
    out->t_first = t[0];
    out->t_last = t[n - 1];
    if (b->tmpl.point) { /* one marker: no rotation measured */
        out->R = icv_m3_identity();
        out->spin_observable = 0;
    } else if (poly) {
        int ref = fabs(t[0] - t_ref) < fabs(t[n - 1] - t_ref) ? 0 : n - 1;
        rc = poly_rotation(b, t, R, n, ref, t_ref, bt->on_surface && !hung, out, err);
        if (rc)
            return rc;
    } else {
        analysis_rotation rot;
        rc = analysis_rotation_fit(t, R, n, t_ref, b->inertia, b->tmpl.collinear, b->tmpl.axis, -1, &rot, err);
        if (rc)
            return rc;
        out->R = rot.R;
        out->omega = rot.omega;
        out->omega_sd = rot.omega_sd;
        memcpy(out->cov_rot, rot.cov, sizeof out->cov_rot);
        out->spin_observable = rot.spin_observable;
        icv_mat3 Iw = icv_m3_rotate_tensor(rot.R, b->inertia), Iinv;
        if (icv_m3_inverse(Iw, &Iinv) == 0) /* Euler's equations, torque-free */
            out->alpha = icv_m3_apply(Iinv, icv_v3_cross(icv_m3_apply(Iw, rot.omega), rot.omega));
    }
    double rad = analysis_template_radius(&b->tmpl);
    if (round && !hung && !b->tmpl.point && rad > 0) { /* the half-hidden bead's turn, as for v */
        icv_vec3 sb = analysis_bead_step_sd(&mis, t, rms, nu, turn, n, t_ref, poly, 1.0 / rad);
        for (int k = 0; k < 3; k++) /* an axis the fit holds at 0 (a flat spin's tilt) stays there */
            if (out->cov_rot[3 + k][3 + k] > 0)
                out->cov_rot[3 + k][3 + k] += icv_v3_get(sb, k) * icv_v3_get(sb, k);
        out->omega_sd = icv_v3(sqrt(out->cov_rot[3][3]), sqrt(out->cov_rot[4][4]), sqrt(out->cov_rot[5][5]));
    } else if (poly)
        out->omega_sd = icv_v3(sqrt(out->cov_rot[3][3]), sqrt(out->cov_rot[4][4]), sqrt(out->cov_rot[5][5]));
    out->energy = bodies_kinetic(b, out->R, out->v, out->omega);
    /* to first order: its gradient m v and I omega against the sides' sigmas */
    icv_vec3 Iw = icv_m3_apply(icv_m3_rotate_tensor(out->R, b->inertia), out->omega);
    double var = 0;
    for (int k = 0; k < 3; k++) {
        double gv = b->mass * icv_v3_get(out->v, k), gw = icv_v3_get(Iw, k);
        var += gv * gv * icv_v3_get(out->v_sd, k) * icv_v3_get(out->v_sd, k) + gw * gw * out->cov_rot[3 + k][3 + k];
    }
    out->energy_sd = sqrt(var);
    return 0;
}

void bodies_state_advance(analysis_body_state *s, double dt)
{
    s->p = icv_v3_add(s->p, icv_v3_add(icv_v3_scale(s->v, dt), icv_v3_scale(s->a, 0.5 * dt * dt)));
    s->v = icv_v3_axpy(dt, s->a, s->v);
    s->R = icv_m3_mul(icv_rot_from_axis_angle(icv_v3_axpy(0.5 * dt * dt, s->alpha, icv_v3_scale(s->omega, dt))), s->R);
    s->omega = icv_v3_axpy(dt, s->alpha, s->omega);
}

void bodies_state_draw(gsl_rng *rng, const analysis_body_state *s, const double L[6][6], analysis_body_state *out)
{
    *out = *s;
    for (int k = 0; k < 3; k++) {
        double sp = icv_v3_get(s->p_sd, k), sv = icv_v3_get(s->v_sd, k), c = s->cov_pv[k];
        double z1 = gsl_ran_gaussian_ziggurat(rng, 1.0), z2 = gsl_ran_gaussian_ziggurat(rng, 1.0);
        /* (p, v) from their 2x2 covariance's Cholesky factor */
        double l11 = sp, l21 = sp > 0 ? c / sp : 0, l22 = sqrt(fmax(sv * sv - l21 * l21, 0));
        icv_v3_set(&out->p, k, icv_v3_get(s->p, k) + l11 * z1);
        icv_v3_set(&out->v, k, icv_v3_get(s->v, k) + l21 * z1 + l22 * z2);
    }
    double z[6], x[6] = {0};
    for (int i = 0; i < 6; i++)
        z[i] = gsl_ran_gaussian_ziggurat(rng, 1.0);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j <= i; j++)
            x[i] += L[i][j] * z[j];
    out->R = icv_m3_mul(icv_rot_from_axis_angle(icv_v3(x[0], x[1], x[2])), s->R);
    out->omega = icv_v3_add(s->omega, icv_v3(x[3], x[4], x[5]));
}

void bodies_stats_add(bodies_stats *st, const double *x, const double *nominal, int k)
{
    for (int i = 0; i < k; i++) {
        double d = x[i] - nominal[i];
        st->s1[i] += d;
        st->s2[i] += d * d;
    }
    st->n++;
}

double bodies_stats_sd(const bodies_stats *st, int i)
{
    if (st->n < 2)
        return NAN;
    double m = st->s1[i] / st->n;
    return sqrt(fmax(0, st->s2[i] / st->n - m * m));
}
