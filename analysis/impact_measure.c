/* impact_measure.c: each side's flight fitted and carried to the impact instant,
 * and the measured quantities of the contract's results.json:
 * contact velocities, impulse m dv, Newton's ratio at the contact point, the
 * impulse ratio (friction used), energies. Their 1-sigma comes from Monte Carlo
 * draws of the fitted states with the fits' covariances (seeded: reproducible). */
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

int analysis_side_fit(const posed_frame *pf, int first, int last, double t_ref, const icv_vec3 *g,
                      const analysis_body *b, double com_sigma, int post, side_fit *out, icv_err *err)
{
    int n = last - first + 1;
    double t[ANALYSIS_SIDE_MAX_FRAMES], s[ANALYSIS_SIDE_MAX_FRAMES];
    icv_vec3 p[ANALYSIS_SIDE_MAX_FRAMES];
    icv_mat3 R[ANALYSIS_SIDE_MAX_FRAMES];
    if (n > ANALYSIS_SIDE_MAX_FRAMES) { /* keep the frames nearest the impact */
        if (post)
            last = first + ANALYSIS_SIDE_MAX_FRAMES - 1;
        else
            first = last - ANALYSIS_SIDE_MAX_FRAMES + 1;
        n = ANALYSIS_SIDE_MAX_FRAMES;
    }
    analysis_ballistic bf;
    const int first0 = first, last0 = last, n0 = n;
    int whole = 0; /* 1: the whole window again, the misfit not at its far end */
    for (;;) {
        for (int i = 0; i < n; i++) {
            t[i] = pf[first + i].t;
            p[i] = pf[first + i].pose.p;
            s[i] = com_sigma;
            R[i] = pf[first + i].pose.R;
        }
        analysis_flight ph = {n, t, p, s, t_ref};
        int rc = analysis_ballistic_fit(&ph, 1, g, &bf, err);
        if (rc)
            return rc;
        double dof = 3.0 * (n - 2);
        if (whole || n <= 4 || bf.chi2_dof <= 1 + 3 * sqrt(2 / dof))
            break;
        /* model error (drag, a touch, a wrong g) grows with the window: shorten it
         * from the far end. A misfit still there at half the window is not the far
         * end's: the noise is above com_sigma all along (the track's sigma too
         * small), and shortening further only throws frames away (a synth video
         * seed's post-impact window went from 19 frames to 6, e off by 0.024) */
        if (2 * (n - 1) < n0) {
            first = first0;
            last = last0;
            n = n0;
            whole = 1;
            continue;
        }
        if (post)
            last--;
        else
            first++;
        n--;
    }
    /* marker errors that persist over frames (a detection bias that changes
     * slowly with the pose in the image) leave fewer independent frames than the
     * fit assumes: its sigmas grow with the residuals' lag-1 correlation (these
     * sigmas decide whether a contact is an impact; the measured quantities'
     * sigmas come from the joint model, flight_noise.c) */
    {
        icv_vec3 r[ANALYSIS_SIDE_MAX_FRAMES];
        for (int i = 0; i < n; i++) {
            double tau = t[i] - t_ref;
            r[i] = icv_v3_sub(p[i], icv_v3_add(icv_v3_add(bf.p0[0], icv_v3_scale(bf.v[0], tau)),
                                               icv_v3_scale(bf.g, 0.5 * tau * tau)));
        }
        double f = sqrt(analysis_correlation_inflation(r, n));
        bf.v_sd[0] = icv_v3_scale(bf.v_sd[0], f);
        bf.p0_sd[0] = icv_v3_scale(bf.p0_sd[0], f);
    }
    { /* the lever of an error in the given acceleration: the fit of p + v tau to the
         unmodelled tau^2 / 2 over the window (equal weights, as the fit's) */
        double s0 = n, s1 = 0, s2 = 0, b0 = 0, b1 = 0;
        for (int i = 0; i < n; i++) {
            double tau = t[i] - t_ref;
            s1 += tau, s2 += tau * tau, b0 += 0.5 * tau * tau, b1 += 0.5 * tau * tau * tau;
        }
        double det = s0 * s2 - s1 * s1;
        out->g_lever_p = det > 0 ? (s2 * b0 - s1 * b1) / det : 0;
        out->g_lever_v = det > 0 ? (s0 * b1 - s1 * b0) / det : 0;
    }
    out->first = first;
    out->last = last;
    out->t_first = pf[first].t;
    out->t_last = pf[last].t;
    out->t_ref = t_ref;
    out->p = bf.p0[0];
    out->v = bf.v[0];
    out->v_sd = bf.v_sd[0];
    out->p_sd = bf.p0_sd[0];
    out->chi2_dof = bf.chi2_dof;
    double dv[3], tm = 0;
    analysis_marker_drift_var(pf, first, last, dv);
    out->drift_v_var = icv_v3(dv[0], dv[1], dv[2]);
    for (int i = 0; i < n; i++)
        tm += t[i];
    out->t_mid = tm / n;
    if (out->rot_valid && out->rot_first == first && out->rot_last == last)
        return 0;
    if (b->tmpl.point) { /* a ball with one marker: no rotation measured */
        out->rot_valid = 1;
        out->rot_first = first;
        out->rot_last = last;
        out->t_rot = t_ref;
        out->R = icv_m3_identity();
        out->omega = out->omega_sd = icv_v3(0, 0, 0);
        memset(out->cov_rot, 0, sizeof out->cov_rot);
        out->spin_observable = 0;
        return 0;
    }
    analysis_rotation rot;
    int rc = analysis_rotation_fit(t, R, n, t_ref, b->inertia, b->tmpl.collinear, b->tmpl.axis, -1, &rot, err);
    if (rc)
        return rc;
    out->rot_valid = 1;
    out->rot_first = first;
    out->rot_last = last;
    out->t_rot = t_ref;
    out->R = rot.R;
    out->omega = rot.omega;
    out->omega_sd = rot.omega_sd;
    memcpy(out->cov_rot, rot.cov, sizeof out->cov_rot);
    out->spin_observable = rot.spin_observable;
    return 0;
}

/* a side's motion: its fitted flight set up once, evaluated at any time */
typedef struct {
    const analysis_body *b;
    const side_fit *s;
    icv_vec3 g;
    icv_free_rotation fr;
} side_motion;

static void side_motion_init(side_motion *m, const analysis_body *b, const side_fit *s, const icv_vec3 *g)
{
    m->b = b;
    m->s = s;
    m->g = *g;
    if (!s->fixed)
        icv_free_rotation_init(&m->fr, s->R, s->omega, b->inertia);
}

/* the side's pose at time t */
static void side_pose(const side_motion *m, double t, icv_mat3 *R, icv_vec3 *p, icv_vec3 *v, icv_vec3 *w)
{
    const side_fit *s = m->s;
    if (s->fixed) {
        *p = s->p;
        *v = s->v;
        *R = s->R;
        *w = s->omega;
        return;
    }
    double tau = t - s->t_ref;
    *p = icv_v3_add(icv_v3_add(s->p, icv_v3_scale(s->v, tau)), icv_v3_scale(m->g, 0.5 * tau * tau));
    *v = icv_v3_axpy(tau, m->g, s->v);
    icv_free_rotation_at(&m->fr, t - s->t_rot, R, w);
}

static double gap_of(double t, void *data)
{
    const side_motion *m = data;
    icv_mat3 R;
    icv_vec3 p, v, w;
    side_pose(m, t, &R, &p, &v, &w);
    return analysis_gap_at(m->b, R, p);
}

double analysis_contact_instant(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t_guess,
                                double lo, double hi)
{
    side_motion m;
    side_motion_init(&m, b, s, g);
    return analysis_root_or_min(gap_of, &m, lo, hi, 1e-10, t_guess);
}

/* the sides' centres apart (pre - post) at t, and their velocities' difference */
static icv_vec3 sides_apart(const side_fit *pre, const side_fit *post, const icv_vec3 *g, double t, icv_vec3 *dv)
{
    double ta = t - pre->t_ref, tb = t - post->t_ref;
    icv_vec3 pa = icv_v3_add(icv_v3_add(pre->p, icv_v3_scale(pre->v, ta)), icv_v3_scale(*g, 0.5 * ta * ta));
    icv_vec3 pb = icv_v3_add(icv_v3_add(post->p, icv_v3_scale(post->v, tb)), icv_v3_scale(*g, 0.5 * tb * tb));
    *dv = icv_v3_sub(icv_v3_axpy(ta, *g, pre->v), icv_v3_axpy(tb, *g, post->v));
    return icv_v3_sub(pa, pb);
}

int analysis_flights_meet(const side_fit *pre, const side_fit *post, const icv_vec3 *g, double t_guess, double *t,
                          double *t_sd)
{
    /* with one g the distance is linear in t (one step; a second for different
     * reference instants' rounding) */
    double tt = t_guess;
    icv_vec3 dv;
    for (int it = 0; it < 3; it++) {
        icv_vec3 d = sides_apart(pre, post, g, tt, &dv);
        double w2 = icv_v3_dot(dv, dv);
        if (!(w2 > 0))
            return -1;
        tt -= icv_v3_dot(d, dv) / w2;
    }
    sides_apart(pre, post, g, tt, &dv);
    double w = icv_v3_norm(dv);
    icv_vec3 u = icv_v3_scale(dv, 1 / w), sa = pre->p_sd, sb = post->p_sd;
    double var = u.x * u.x * (sa.x * sa.x + sb.x * sb.x) + u.y * u.y * (sa.y * sa.y + sb.y * sb.y) +
                 u.z * u.z * (sa.z * sa.z + sb.z * sb.z);
    *t = tt;
    *t_sd = sqrt(var) / w;
    return 0;
}

double analysis_contact_rate(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t, double h)
{
    side_motion m;
    side_motion_init(&m, b, s, g);
    return (gap_of(t + h, &m) - gap_of(t - h, &m)) / (2 * h);
}

double analysis_contact_gap_attitude_sd(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t)
{
    if (s->fixed)
        return 0;
    side_motion m;
    side_motion_init(&m, b, s, g);
    icv_mat3 R;
    icv_vec3 p, v, w;
    side_pose(&m, t, &R, &p, &v, &w);
    /* the lowest point's height turned by a small rotation d about the centre (the
     * attitude perturbation of cov_rot, surface axes): its gradient by central
     * differences of 1 mrad (the height is smooth in d to second order there) */
    const double h = 1e-3;
    double grad[3];
    for (int a = 0; a < 3; a++) {
        icv_vec3 d = icv_v3(a == 0, a == 1, a == 2);
        double up = analysis_gap_at(b, icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(d, h)), R), p);
        double dn = analysis_gap_at(b, icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(d, -h)), R), p);
        grad[a] = (up - dn) / (2 * h);
    }
    double var = 0;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++)
            var += grad[a] * s->cov_rot[a][c] * grad[c];
    return var > 0 ? sqrt(var) : 0;
}

double analysis_contact_gap(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t)
{
    side_motion m;
    side_motion_init(&m, b, s, g);
    return gap_of(t, &m);
}

void analysis_cholesky(const double *cov, int n, double *L)
{
    double a[225];
    double big = 0;
    for (int i = 0; i < n; i++)
        big = fmax(big, cov[n * i + i]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[n * i + j] = cov[n * i + j] + (i == j ? 1e-12 * big + 1e-300 : 0);
    gsl_matrix_view m = gsl_matrix_view_array(a, (size_t)n, (size_t)n);
    int bad = gsl_linalg_cholesky_decomp1(&m.matrix);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            L[n * i + j] = bad ? (i == j ? sqrt(fmax(cov[n * i + i], 0)) : 0) : (j <= i ? a[n * i + j] : 0);
}

/* a side's 6x6 (attitude, omega) or (p, v) covariance factored: a collinear rod's
 * spin rows are zero, which the diagonal load of analysis_cholesky tolerates */
static void chol6(const double cov[6][6], double L[6][6])
{
    analysis_cholesky(&cov[0][0], 6, &L[0][0]);
}

/* one draw of n / 3 vectors (n <= 15) from the lower-triangular factor L (n x n,
 * row-major) of their joint covariance */
static void draw_vectors(gsl_rng *rng, const double *L, int n, icv_vec3 *x)
{
    double z[15], y[15] = {0};
    for (int i = 0; i < n; i++)
        z[i] = gsl_ran_gaussian_ziggurat(rng, 1.0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++)
            y[i] += L[n * i + j] * z[j];
    for (int u = 0; u < n / 3; u++)
        x[u] = icv_v3(y[3 * u], y[3 * u + 1], y[3 * u + 2]);
}

/* one draw of (attitude perturbation, omega perturbation), or of (p, v) */
static void draw6(gsl_rng *rng, const double L[6][6], icv_vec3 *d, icv_vec3 *w)
{
    icv_vec3 x[2];
    draw_vectors(rng, &L[0][0], 6, x);
    *d = x[0];
    *w = x[1];
}

static double kinetic(const analysis_body *b, icv_mat3 R, icv_vec3 v, icv_vec3 w)
{
    icv_mat3 Iw = icv_m3_rotate_tensor(R, b->inertia);
    return 0.5 * b->mass * icv_v3_dot(v, v) + 0.5 * icv_v3_dot(w, icv_m3_apply(Iw, w));
}

typedef struct {
    double e, ratio, loss;
} derived;

static derived derive(const analysis_body *b, icv_mat3 Rpre, icv_mat3 Rpost, icv_vec3 r, icv_vec3 vp, icv_vec3 wp,
                      icv_vec3 vq, icv_vec3 wq, icv_vec3 *u_pre, icv_vec3 *u_post, icv_vec3 *J, double *e_pre,
                      double *e_post)
{
    derived d;
    *u_pre = icv_v3_add(vp, icv_v3_cross(wp, r));
    *u_post = icv_v3_add(vq, icv_v3_cross(wq, r));
    *J = icv_v3_scale(icv_v3_sub(vq, vp), b->mass);
    d.e = u_pre->y != 0 ? -u_post->y / u_pre->y : NAN;
    d.ratio = J->y != 0 ? hypot(J->x, J->z) / J->y : NAN;
    *e_pre = kinetic(b, Rpre, vp, wp);
    *e_post = kinetic(b, Rpost, vq, wq);
    d.loss = *e_pre > 0 ? 1 - *e_post / *e_pre : 0;
    return d;
}

static void fill_side(const side_motion *m, double t, icv_vec3 r, analysis_side *out)
{
    const side_fit *s = m->s;
    icv_vec3 p, v, w;
    icv_mat3 R;
    side_pose(m, t, &R, &p, &v, &w);
    out->p = p;
    out->v = v;
    out->v_sd = s->v_sd;
    out->omega = w;
    out->omega_sd = s->omega_sd;
    out->R = R;
    out->singular = icv_euler213_from_matrix(R, &out->euler213);
    out->contact_velocity = icv_v3_add(v, icv_v3_cross(w, r));
    out->n_frames = s->last - s->first + 1;
    out->t_first = s->t_first;
    out->t_last = s->t_last;
    out->chi2_dof = s->chi2_dof;
}

/* the measured values at t from the sides' motions (each made once: the asymmetric
 * torque-free motion's set-up costs more than evaluating it) */
static void measure_motions(const analysis_body *b, const side_motion *m_pre, const side_motion *m_post, double t,
                            analysis_impact *imp)
{
    const side_fit *pre = m_pre->s;
    const side_motion mpre = *m_pre, mpost = *m_post;
    memset(imp, 0, sizeof *imp);
    imp->t = t;
    fill_side(&mpre, t, icv_v3(0, 0, 0), &imp->pre);
    imp->contact_point = icv_shape_lowest_point(&b->shape, imp->pre.R, imp->pre.p, icv_v3(0, 1, 0));
    icv_vec3 r = icv_v3_sub(imp->contact_point, imp->pre.p);
    fill_side(&mpre, t, r, &imp->pre);
    fill_side(&mpost, t, r, &imp->post);
    icv_mat3 Rpre = imp->pre.R, Rpost = imp->post.R;
    icv_vec3 vpre = imp->pre.v, wpre = imp->pre.omega, vpost = imp->post.v, wpost = imp->post.omega;
    imp->spin_observable = pre->spin_observable;
    icv_vec3 up, uq, J;
    derived d = derive(b, Rpre, Rpost, r, vpre, wpre, vpost, wpost, &up, &uq, &J, &imp->energy_pre, &imp->energy_post);
    imp->impulse = J;
    imp->e_kinematic = d.e;
    imp->impulse_ratio = d.ratio;
    imp->loss_fraction = d.loss;
    /* the instant: the 1-sigma of the fitted height at t over the contact point's
     * approach speed */
    double un = fabs(up.y);
    imp->t_sd = un > 0 ? pre->p_sd.y / un : INFINITY;
}

/* A careful experimentalist's energy of a body whose spin the markers do not show:
 * the measured part only (a ball's translation; a rod's translation and its turn
 * across its line), said so. The spin the impact gives it is not unknowable: the
 * measured impulse at the contact point has a torque about the unmeasured axes
 * (the ball's friction impulse spins it: 5% of the energy on a synth ball), but
 * the spin before is, so the energy it adds is stated under the assumption of no
 * spin before, never counted. */
void analysis_energy_scope(const analysis_body *b, analysis_impact *imp)
{
    imp->energy_rotation = ANALYSIS_ROTATION_ALL;
    imp->spin_change_implied = icv_v3(0, 0, 0);
    imp->spin_energy_implied = 0;
    imp->energy_note[0] = 0;
    if (imp->spin_observable)
        return;
    icv_mat3 Iw = icv_m3_rotate_tensor(imp->pre.R, b->inertia), Iinv;
    icv_vec3 torque = icv_v3_cross(icv_v3_sub(imp->contact_point, imp->pre.p), imp->impulse), dw = icv_v3(0, 0, 0);
    if (b->tmpl.point) {
        imp->energy_rotation = ANALYSIS_ROTATION_NONE;
        if (icv_m3_inverse(Iw, &Iinv) == 0)
            dw = icv_m3_apply(Iinv, torque);
    } else {
        /* the line is a principal axis of a rod: its spin changes by the torque about
         * it over the inertia about it */
        imp->energy_rotation = ANALYSIS_ROTATION_ACROSS_LINE;
        icv_vec3 a = icv_m3_apply(imp->pre.R, b->tmpl.axis);
        double ia = icv_v3_dot(a, icv_m3_apply(Iw, a));
        if (ia > 0)
            dw = icv_v3_scale(a, icv_v3_dot(a, torque) / ia);
    }
    imp->spin_change_implied = dw;
    imp->spin_energy_implied = 0.5 * icv_v3_dot(dw, icv_m3_apply(Iw, dw));
    double share = imp->energy_pre > 0 ? 100 * imp->spin_energy_implied / imp->energy_pre : 0;
    snprintf(imp->energy_note, sizeof imp->energy_note,
             "energy and loss_fraction count %s (spin %s not measured); the impulse at the contact point turns "
             "that spin by %.3g rad/s: %.1f%% of the energy before if it had none before, not counted",
             b->tmpl.point ? "translation only" : "translation and the turn across the body's line",
             b->tmpl.point ? "of one marker" : "about the line", icv_v3_norm(dw), share);
}

void analysis_measure_values(const analysis_body *b, const icv_vec3 *g, const side_fit *pre, const side_fit *post,
                             double t, analysis_impact *imp)
{
    side_motion mpre, mpost;
    side_motion_init(&mpre, b, pre, g);
    side_motion_init(&mpost, b, post, g);
    measure_motions(b, &mpre, &mpost, t, imp);
}

/* the lower-triangular factor of a side's (p, v) covariance without the joint
 * model (Houbolt's differences, states at their frames): their velocity sigmas */
static void side_chol_pv(const side_fit *s, double L[6][6])
{
    double c[6][6] = {{0}};
    for (int a = 0; a < 3; a++)
        c[3 + a][3 + a] = icv_v3_get(s->v_sd, a) * icv_v3_get(s->v_sd, a);
    chol6(c, L);
}

/* A side's state at t as a function of its fitted perturbations, to first order:
 * (p, v) drawn at t_ref move by (dp + dv tau, dv) at t (exact: the flight is linear
 * in them); the rotation's (attitude, omega) drawn at t_rot become Phi (da, dw) at t.
 * Phi by central differences: the torque-free motion's set-up (elliptic integrals)
 * then runs 24 times per impact instead of twice per Monte Carlo draw. A fixed
 * (Houbolt) side's states are as they are: tau 0, Phi the identity. */
typedef struct {
    icv_mat3 R;       /* nominal attitude at t */
    icv_vec3 p, v, w; /* nominal centre of mass (m), velocity (m/s), omega (rad/s) at t */
    double tau;       /* s, t - t_ref */
    double phi[6][6];
} side_transport;

static void side_transport_init(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t,
                                side_transport *tr)
{
    side_motion m;
    side_motion_init(&m, b, s, g);
    side_pose(&m, t, &tr->R, &tr->p, &tr->v, &tr->w);
    memset(tr->phi, 0, sizeof tr->phi);
    tr->tau = s->fixed ? 0 : t - s->t_ref;
    if (s->fixed) {
        for (int i = 0; i < 6; i++)
            tr->phi[i][i] = 1;
        return;
    }
    double hw = 1e-6 * fmax(1.0, icv_v3_norm(s->omega));
    for (int j = 0; j < 6; j++) {
        double h = j < 3 ? 1e-6 : hw;
        icv_mat3 Rs[2];
        icv_vec3 ws[2];
        for (int k = 0; k < 2; k++) {
            side_fit q = *s;
            icv_vec3 d = icv_v3(0, 0, 0), p, v;
            icv_v3_set(&d, j % 3, k ? -h : h);
            if (j < 3)
                q.R = icv_m3_mul(icv_rot_from_axis_angle(d), s->R);
            else
                q.omega = icv_v3_add(s->omega, d);
            side_motion mq;
            side_motion_init(&mq, b, &q, g);
            side_pose(&mq, t, &Rs[k], &p, &v, &ws[k]);
        }
        icv_vec3 da = icv_rot_to_axis_angle(icv_m3_mul(Rs[0], icv_m3_transpose(Rs[1])));
        icv_vec3 dw = icv_v3_sub(ws[0], ws[1]);
        for (int i = 0; i < 3; i++) {
            tr->phi[i][j] = icv_v3_get(da, i) / (2 * h);
            tr->phi[3 + i][j] = icv_v3_get(dw, i) / (2 * h);
        }
    }
}

typedef struct {
    icv_mat3 R;
    icv_vec3 p, v, w;
} side_state;

/* one draw of a side's state at t: its (p, v) at t_ref off by (dp, dv) and g off
 * by dg (drawn by the caller: per side, or jointly), its rotation drawn here */
static void draw_state(gsl_rng *rng, const side_transport *tr, icv_vec3 dp, icv_vec3 dv, icv_vec3 dg,
                       const double Lrot[6][6], side_state *out)
{
    icv_vec3 da0, dw0;
    draw6(rng, Lrot, &da0, &dw0);
    double x0[6] = {da0.x, da0.y, da0.z, dw0.x, dw0.y, dw0.z}, x[6] = {0};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            x[i] += tr->phi[i][j] * x0[j];
    double tau = tr->tau;
    out->p = icv_v3_add(tr->p, icv_v3_add(icv_v3_add(dp, icv_v3_scale(dv, tau)), icv_v3_scale(dg, 0.5 * tau * tau)));
    out->v = icv_v3_add(tr->v, icv_v3_axpy(tau, dg, dv));
    out->R = icv_m3_mul(icv_rot_from_axis_angle(icv_v3(x[0], x[1], x[2])), tr->R);
    out->w = icv_v3_add(tr->w, icv_v3(x[3], x[4], x[5]));
}

/* a flying side's state dt later (dt a small fraction of a frame): the flight, the
 * attitude turned by omega dt, omega by Euler's equations (torque-free) */
static void advance_state(const analysis_body *b, const icv_vec3 *g, double dt, side_state *x)
{
    x->p = icv_v3_add(x->p, icv_v3_add(icv_v3_scale(x->v, dt), icv_v3_scale(*g, 0.5 * dt * dt)));
    x->v = icv_v3_axpy(dt, *g, x->v);
    icv_mat3 Iw = icv_m3_rotate_tensor(x->R, b->inertia), Iinv;
    if (icv_m3_inverse(Iw, &Iinv) == 0) {
        icv_vec3 wdot = icv_m3_apply(Iinv, icv_v3_cross(icv_m3_apply(Iw, x->w), x->w));
        x->w = icv_v3_axpy(dt, wdot, x->w);
    }
    x->R = icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(x->w, dt)), x->R);
}

void analysis_measure(const analysis_body *b, const icv_vec3 *g, const side_fit *pre, const side_fit *post, double t,
                      int meet, const analysis_params *prm, const double (*cov15)[15], double g_spread,
                      analysis_impact *imp)
{
    analysis_measure_values(b, g, pre, post, t, imp);
    derived d = {imp->e_kinematic, imp->impulse_ratio, imp->loss_fraction};
    /* Monte Carlo over the fitted states carried to t (side_transport): with cov15,
     * g and both sides' (p, v) drawn jointly (flight_noise.c: they share frames),
     * else each side's from its own covariance; the rotations from theirs. The
     * instant found again from each drawn pre-impact flight, so that the two sides
     * share its error (both carried to it). The instant moves by a small fraction
     * of a frame: one Newton step on the drawn flight's gap with the measured
     * flight's gap rate finds it to second order. */
    int m = prm->mc_samples > 10 ? prm->mc_samples : 10;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        return;
    gsl_rng_set(rng, 12345);
    enum { NS = 10 }; /* e, ratio, loss, t, v_pre (3), v_post (3) */
    double s1[NS] = {0}, s2[NS] = {0};
    double Lpre[6][6], Lpost[6][6], Mpre[6][6], Mpost[6][6], L15[225];
    chol6(pre->cov_rot, Lpre);
    chol6(post->cov_rot, Lpost);
    side_chol_pv(pre, Mpre);
    side_chol_pv(post, Mpost);
    if (cov15)
        analysis_cholesky(&cov15[0][0], 15, L15);
    side_transport tpre, tpost;
    side_transport_init(b, pre, g, t, &tpre);
    side_transport_init(b, post, g, t, &tpost);
    double rate = 0;
    int move_instant = !pre->fixed && pre->t_last < post->t_first;
    if (move_instant) {
        side_motion nom;
        side_motion_init(&nom, b, pre, g);
        double h = 1e-3 * (post->t_first - pre->t_last);
        rate = (gap_of(t + h, &nom) - gap_of(t - h, &nom)) / (2 * h);
        move_instant = rate < 0 || meet; /* approaching: else a grazing contact, the instant kept */
    }
    int cnt = 0;
    for (int k = 0; k < m; k++) {
        side_state a, q;
        icv_vec3 x[5], zero = {0, 0, 0};
        if (cov15) {
            draw_vectors(rng, L15, 15, x); /* g, pre p, pre v, post p, post v */
        } else {
            x[0] = zero;
            draw6(rng, Mpre, &x[1], &x[2]);
            draw6(rng, Mpost, &x[3], &x[4]);
        }
        draw_state(rng, &tpre, x[1], x[2], pre->fixed ? zero : x[0], Lpre, &a);
        draw_state(rng, &tpost, x[3], x[4], post->fixed ? zero : x[0], Lpost, &q);
        if (g_spread > 0) { /* each side's own flight off the shared g along it, apart */
            double gn = icv_v3_norm(*g);
            icv_vec3 u = gn > 0 ? icv_v3_scale(*g, 1 / gn) : zero;
            side_state *st[2] = {&a, &q};
            const side_fit *sf[2] = {pre, post};
            const side_transport *tt[2] = {&tpre, &tpost};
            for (int sd = 0; sd < 2; sd++) {
                if (sf[sd]->fixed) /* Houbolt's states: no flight fitted with g */
                    continue;
                double d = gsl_ran_gaussian(rng, g_spread), tau = tt[sd]->tau;
                st[sd]->p = icv_v3_axpy(d * (sf[sd]->g_lever_p + sf[sd]->g_lever_v * tau - 0.5 * tau * tau), u,
                                        st[sd]->p);
                st[sd]->v = icv_v3_axpy(d * (sf[sd]->g_lever_v - tau), u, st[sd]->v);
            }
        }
        double dt = 0;
        if (move_instant) {
            icv_vec3 gd = icv_v3_add(*g, x[0]);
            if (meet) { /* the drawn flights' meeting: their distance is linear in t */
                icv_vec3 d = icv_v3_sub(a.p, q.p), w = icv_v3_sub(a.v, q.v);
                double w2 = icv_v3_dot(w, w);
                dt = w2 > 0 ? -icv_v3_dot(d, w) / w2 : 0;
            } else {
                dt = -analysis_gap_at(b, a.R, a.p) / rate;
            }
            advance_state(b, &gd, dt, &a);
            if (!post->fixed)
                advance_state(b, &gd, dt, &q);
        }
        icv_vec3 cp = icv_shape_lowest_point(&b->shape, a.R, a.p, icv_v3(0, 1, 0));
        icv_vec3 r = icv_v3_sub(cp, a.p), up, uq, J;
        double ep, eq;
        derived y = derive(b, a.R, q.R, r, a.v, a.w, q.v, q.w, &up, &uq, &J, &ep, &eq);
        if (!isfinite(y.e) || !isfinite(y.ratio))
            continue;
        icv_vec3 dvp = icv_v3_sub(a.v, imp->pre.v), dvq = icv_v3_sub(q.v, imp->post.v);
        double dx[NS] = {y.e - d.e, y.ratio - d.ratio, y.loss - d.loss, dt, dvp.x, dvp.y, dvp.z, dvq.x, dvq.y, dvq.z};
        for (int i = 0; i < NS; i++) {
            s1[i] += dx[i];
            s2[i] += dx[i] * dx[i];
        }
        cnt++;
    }
    gsl_rng_free(rng);
    if (cnt > 1) {
        double sd[NS];
        for (int i = 0; i < NS; i++)
            sd[i] = sqrt(fmax(0, s2[i] / cnt - (s1[i] / cnt) * (s1[i] / cnt)));
        imp->sd.e_kinematic = sd[0];
        imp->sd.impulse_ratio = sd[1];
        imp->sd.loss_fraction = sd[2];
        if (cov15) { /* the states at the instant as drawn: g's share and the instant's in them */
            imp->t_sd = sd[3];
            imp->pre.v_sd = icv_v3(sd[4], sd[5], sd[6]);
            imp->post.v_sd = icv_v3(sd[7], sd[8], sd[9]);
        }
    }
}
