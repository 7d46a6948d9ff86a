/* bodies_pendulum.c: a body hung on a string of known length (a cradle's ball).
 * Between impacts its centre moves on a sphere about a fixed pivot under gravity,
 * neither in free flight nor at a constant acceleration: at 30 fps a side of six
 * frames spans a quarter of a swing, where a quadratic's slope is off by 10% or more
 * (docs/analysis.md "A row of bodies at once"). The pivot is fitted once from all the
 * body's poses (the point the centres keep the string's length from); each side then
 * fits the pendulum's equation, theta'' = -(|g| / l) sin theta, to the swing angles
 * about two horizontal axes (a spherical pendulum taken as two planar ones: exact
 * for a swing in one plane, as a cradle's), by Gauss-Newton on the angle and the
 * angular rate at the impact instant, with their sensitivities integrated alongside
 * (RK4). Sigmas from the fit's residuals. */
#include <stdlib.h>
#include <string.h>

#include "analysis/bodies_internal.h"

#define PIVOT_ITERATIONS 50
#define SWING_ITERATIONS 30
#define RK4_STEP_S 5e-4
#define PIVOT_PRIOR 0.05 /* of the length: the prior's sigma on the pivot */

static double sq(double x) { return x * x; }

/* up (against g) and two horizontal axes: the surface's x turned horizontal, or z */
static void pendulum_axes(icv_vec3 g, icv_vec3 *u, icv_vec3 *h1, icv_vec3 *h2)
{
    *u = icv_v3_scale(g, -1 / icv_v3_norm(g));
    icv_vec3 x = icv_v3(1, 0, 0);
    if (fabs(icv_v3_dot(x, *u)) > 0.9)
        x = icv_v3(0, 0, 1);
    *h1 = icv_v3_unit(icv_v3_axpy(-icv_v3_dot(x, *u), *u, x));
    *h2 = icv_v3_cross(*u, *h1);
}

int bodies_pendulum_pivot(const analysis_body_track *bt, const icv_vec3 *g, const analysis_params *prm,
                          bodies_pendulum *out, icv_err *err)
{
    const analysis_tracks *tr = bt->tracks;
    double l = bt->pendulum_length;
    const char *name = bt->name ? bt->name : "body";
    if (!(l > 0) || !g || !(icv_v3_norm(*g) > 0))
        return icv_err_set(err, ICV_EINVAL, "body %s: a pendulum needs its length and the gravity vector", name);
    body_pose *pose = malloc(sizeof *pose * ((size_t)tr->n_frames + 1));
    icv_vec3 *p = malloc(sizeof *p * ((size_t)tr->n_frames + 1));
    if (!pose || !p) {
        free(pose), free(p);
        return icv_err_set(err, ICV_ENOMEM, "body %s: out of memory for the pendulum's pivot", name);
    }
    bodies_poses(bt, prm, pose);
    icv_vec3 u, h1, h2;
    pendulum_axes(*g, &u, &h1, &h2);
    int n = 0, low = -1;
    for (int i = 0; i < tr->n_frames; i++)
        if (pose[i].ok) {
            p[n] = pose[i].p;
            if (low < 0 || icv_v3_dot(p[n], u) < icv_v3_dot(p[low], u))
                low = n;
            n++;
        }
    free(pose);
    if (n < 3) {
        free(p);
        return icv_err_set(err, ICV_EINVAL, "body %s: %d poses, a pendulum's pivot needs 3", name, n);
    }
    /* A ball that hardly swings shows no curvature above its noise: the pivot could
       then go anywhere l away, below it too (the angles then near pi). A prior holds
       it at the string's length above the lowest centre, over the middle of the
       travel, within PIVOT_PRIOR of l; a clear arc outweighs it. */
    icv_vec3 mean = {0};
    for (int i = 0; i < n; i++)
        mean = icv_v3_add(mean, p[i]);
    mean = icv_v3_scale(mean, 1.0 / n);
    icv_vec3 P0 = icv_v3_axpy(l + icv_v3_dot(icv_v3_sub(p[low], mean), u), u, mean), P = P0;
    double sigma = prm->pos_sigma > 0 ? prm->pos_sigma : 3e-4, w = sq(sigma / (PIVOT_PRIOR * l));
    double lambda = 1e-3;
    for (int it = 0; it < PIVOT_ITERATIONS; it++) {
        double A[3][3] = {{w, 0, 0}, {0, w, 0}, {0, 0, w}}, b[3] = {w * (P0.x - P.x), w * (P0.y - P.y), w * (P0.z - P.z)},
               ss = 0;
        for (int i = 0; i < n; i++) {
            icv_vec3 d = icv_v3_sub(p[i], P);
            double r = icv_v3_norm(d);
            if (!(r > 0))
                continue;
            double res = r - l, J[3] = {-d.x / r, -d.y / r, -d.z / r};
            ss += res * res;
            for (int a = 0; a < 3; a++) {
                b[a] -= J[a] * res;
                for (int c = 0; c < 3; c++)
                    A[a][c] += J[a] * J[c];
            }
        }
        double tr3 = A[0][0] + A[1][1] + A[2][2];
        icv_mat3 M;
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++)
                M.m[a][c] = A[a][c] + (a == c ? lambda * tr3 + 1e-30 : 0);
        icv_mat3 Mi;
        if (icv_m3_inverse(M, &Mi))
            break;
        icv_vec3 step = icv_m3_apply(Mi, icv_v3(b[0], b[1], b[2]));
        P = icv_v3_add(P, step);
        if (icv_v3_norm(step) < 1e-12 * l || !(ss > 0))
            break;
    }
    double above = icv_v3_dot(icv_v3_sub(P, p[low]), u);
    /* the centres' noise across the string (robust: the median absolute residual) */
    double *r = malloc(sizeof *r * (size_t)n), noise = sigma;
    if (r) {
        for (int i = 0; i < n; i++)
            r[i] = fabs(icv_v3_norm(icv_v3_sub(p[i], P)) - l);
        noise = 1.4826 * analysis_median(r, n);
        free(r);
    }
    /* the pivot's covariance: the data's at that noise and the prior's */
    double wn = sq(noise / (PIVOT_PRIOR * l));
    icv_mat3 A = icv_m3_scale(icv_m3_identity(), wn + 1e-30), C;
    for (int i = 0; i < n; i++) {
        icv_vec3 d = icv_v3_sub(p[i], P);
        double rr = icv_v3_norm(d);
        for (int a = 0; rr > 0 && a < 3; a++)
            for (int c = 0; c < 3; c++)
                A.m[a][c] += icv_v3_get(d, a) * icv_v3_get(d, c) / (rr * rr);
    }
    free(p);
    if (!isfinite(P.x) || !isfinite(P.y) || !isfinite(P.z) || !(above > 0.5 * l) || icv_m3_inverse(A, &C))
        return icv_err_set(err, ICV_EINVAL,
                           "body %s: no pivot %.4g m above its centres fits them (%.4g m above the lowest): "
                           "check pendulum.length and the gravity vector",
                           name, l, above);
    out->pivot = P;
    out->noise = noise;
    out->lateral_sd[0] = noise * sqrt(fmax(0, icv_v3_dot(h1, icv_m3_apply(C, h1))));
    out->lateral_sd[1] = noise * sqrt(fmax(0, icv_v3_dot(h2, icv_m3_apply(C, h2))));
    return 0;
}

/* theta, omega and their sensitivities to (theta0, omega0, theta_eq), carried dt:
   theta'' = -k sin(theta - theta_eq) */
static void swing_propagate(double k, const double x[3], double dt, double out[8])
{
    double s[8] = {x[0], x[1], 1, 0, 0, 1, 0, 0};
    int nstep = (int)ceil(fabs(dt) / RK4_STEP_S);
    double h = nstep ? dt / nstep : 0, eq = x[2];
    for (int i = 0; i < nstep; i++) {
        double k1[8], k2[8], k3[8], k4[8], y[8];
#define DERIV(y, d)                                                                                                    \
    do {                                                                                                               \
        double c_ = -k * cos((y)[0] - eq);                                                                             \
        (d)[0] = (y)[1];                                                                                               \
        (d)[1] = -k * sin((y)[0] - eq);                                                                                \
        (d)[2] = (y)[3];                                                                                               \
        (d)[3] = c_ * (y)[2];                                                                                          \
        (d)[4] = (y)[5];                                                                                               \
        (d)[5] = c_ * (y)[4];                                                                                          \
        (d)[6] = (y)[7];                                                                                               \
        (d)[7] = c_ * ((y)[6] - 1);                                                                                    \
    } while (0)
        DERIV(s, k1);
        for (int j = 0; j < 8; j++)
            y[j] = s[j] + 0.5 * h * k1[j];
        DERIV(y, k2);
        for (int j = 0; j < 8; j++)
            y[j] = s[j] + 0.5 * h * k2[j];
        DERIV(y, k3);
        for (int j = 0; j < 8; j++)
            y[j] = s[j] + h * k3[j];
        DERIV(y, k4);
#undef DERIV
        for (int j = 0; j < 8; j++)
            s[j] += h / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    }
    memcpy(out, s, sizeof s);
}

/* x = A^-1 b for a 3x3 normal matrix; 0 when singular */
static int solve3(const double A[3][3], const double b[3], double x[3], double Ai[3][3])
{
    icv_mat3 M, Mi;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            M.m[i][j] = A[i][j];
    if (icv_m3_inverse(M, &Mi))
        return 0;
    for (int i = 0; i < 3; i++) {
        x[i] = 0;
        for (int j = 0; j < 3; j++) {
            x[i] += Mi.m[i][j] * b[j];
            if (Ai)
                Ai[i][j] = Mi.m[i][j];
        }
    }
    return 1;
}

/* One planar swing: angle th[i] (rad) at tau[i] (s from the instant); fits the angle
   and rate at the instant and the angle of rest (the string's pivot need not sit
   exactly above where the ball rests: a ball that hardly swings does not show the
   pivot, and a pivot off by 1 mm sideways pulls a still ball at 0.6 m/s^2), and
   their covariance (residual-scaled, at least s2_min: a side of five poses has two
   degrees of freedom, and its residuals can be small by chance) */
static int swing_fit(double k, const double *tau, const double *th, int n, double s2_min, double x[3],
                     double cov[3][3])
{
    /* the small-angle solution, linear in the three, starts it:
       th = th0 cos W tau + w0 sin(W tau) / W + eq (1 - cos W tau) */
    double W = sqrt(k), S[3][3] = {{0}}, r[3] = {0};
    for (int i = 0; i < n; i++) {
        double f[3] = {cos(W * tau[i]), sin(W * tau[i]) / W, 1 - cos(W * tau[i])};
        for (int a = 0; a < 3; a++) {
            r[a] += f[a] * th[i];
            for (int c = 0; c < 3; c++)
                S[a][c] += f[a] * f[c];
        }
    }
    if (!solve3(S, r, x, NULL))
        return -1;
    double ss = 0, N[3][3], Ni[3][3];
    for (int it = 0; it < SWING_ITERATIONS; it++) {
        double b[3] = {0}, d[3];
        ss = 0;
        memset(N, 0, sizeof N);
        for (int i = 0; i < n; i++) {
            double s[8];
            swing_propagate(k, x, tau[i], s);
            double res = th[i] - s[0], J[3] = {s[2], s[4], s[6]};
            ss += res * res;
            for (int a = 0; a < 3; a++) {
                b[a] += J[a] * res;
                for (int c = 0; c < 3; c++)
                    N[a][c] += J[a] * J[c];
            }
        }
        if (!solve3(N, b, d, Ni))
            return -1;
        for (int a = 0; a < 3; a++)
            x[a] += d[a];
        if (fabs(d[0]) + fabs(d[2]) < 1e-13 && fabs(d[1]) < 1e-13 * (1 + fabs(x[1])))
            break;
    }
    double s2 = fmax(n > 3 ? ss / (n - 3) : 0, s2_min);
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++)
            cov[a][c] = s2 * Ni[a][c];
    return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) ? 0 : -1;
}

/* the centre and its velocity from the two swings' (theta, omega) */
static void swing_state(icv_vec3 P, double l, icv_vec3 u, icv_vec3 h1, icv_vec3 h2, const double q[4], icv_vec3 *p,
                        icv_vec3 *v)
{
    double s1 = sin(q[0]), s2 = sin(q[2]), c = sqrt(fmax(1e-12, 1 - s1 * s1 - s2 * s2));
    double ds1 = cos(q[0]) * q[1], ds2 = cos(q[2]) * q[3], dc = -(s1 * ds1 + s2 * ds2) / c;
    *p = icv_v3_add(P, icv_v3_scale(icv_v3_add(icv_v3_add(icv_v3_scale(h1, s1), icv_v3_scale(h2, s2)),
                                               icv_v3_scale(u, -c)),
                                    l));
    *v = icv_v3_scale(icv_v3_add(icv_v3_add(icv_v3_scale(h1, ds1), icv_v3_scale(h2, ds2)), icv_v3_scale(u, -dc)), l);
}

int bodies_pendulum_side(const analysis_body_track *bt, const bodies_pendulum *pend, const double *t,
                         const icv_vec3 *p, int n, double t_ref, const icv_vec3 *g, analysis_body_state *out,
                         icv_err *err)
{
    icv_vec3 pivot = pend->pivot;
    double l = bt->pendulum_length, k = icv_v3_norm(*g) / l;
    const char *name = bt->name ? bt->name : "body";
    icv_vec3 u, h1, h2;
    pendulum_axes(*g, &u, &h1, &h2);
    double *tau = malloc(sizeof *tau * 3 * ((size_t)n + 1)), *th1 = tau + n + 1, *th2 = th1 + n + 1;
    if (!tau)
        return icv_err_set(err, ICV_ENOMEM, "body %s: out of memory for its swing", name);
    for (int i = 0; i < n; i++) {
        icv_vec3 d = icv_v3_sub(p[i], pivot);
        tau[i] = t[i] - t_ref;
        th1[i] = atan2(icv_v3_dot(d, h1), -icv_v3_dot(d, u));
        th2[i] = atan2(icv_v3_dot(d, h2), -icv_v3_dot(d, u));
    }
    double x1[3], x2[3], c1[3][3], c2[3][3];
    double s2_min = sq(pend->noise / l);
    int bad = swing_fit(k, tau, th1, n, s2_min, x1, c1) || swing_fit(k, tau, th2, n, s2_min, x2, c2);
    /* the pivot's sideways uncertainty turns the angles together (the rest angle
       follows the data, the angle at the instant is measured from the pivot) */
    c1[0][0] += sq(pend->lateral_sd[0] / l);
    c2[0][0] += sq(pend->lateral_sd[1] / l);
    free(tau);
    if (bad)
        return icv_err_set(err, ICV_EINVAL, "body %s: its swing about the pivot could not be fitted (%d poses)", name,
                           n);
    double q[4] = {x1[0], x1[1], x2[0], x2[1]};
    swing_state(pivot, l, u, h1, h2, q, &out->p, &out->v);
    /* the acceleration: the velocity a moment either side */
    double h = 1e-4, qa[4], qb[4], s[8];
    swing_propagate(k, x1, h, s), qa[0] = s[0], qa[1] = s[1];
    swing_propagate(k, x2, h, s), qa[2] = s[0], qa[3] = s[1];
    swing_propagate(k, x1, -h, s), qb[0] = s[0], qb[1] = s[1];
    swing_propagate(k, x2, -h, s), qb[2] = s[0], qb[3] = s[1];
    icv_vec3 pa, va, pb, vb;
    swing_state(pivot, l, u, h1, h2, qa, &pa, &va);
    swing_state(pivot, l, u, h1, h2, qb, &pb, &vb);
    out->a = icv_v3_scale(icv_v3_sub(va, vb), 0.5 / h);
    out->a_sd = icv_v3(0, 0, 0);
    /* sigmas: the state's Jacobian in the angles and rates, the two swings independent */
    double Jp[3][4], Jv[3][4], C[4][4] = {{c1[0][0], c1[0][1], 0, 0}, {c1[1][0], c1[1][1], 0, 0},
                                          {0, 0, c2[0][0], c2[0][1]}, {0, 0, c2[1][0], c2[1][1]}};
    for (int j = 0; j < 4; j++) {
        double qq[4];
        memcpy(qq, q, sizeof qq);
        double d = 1e-7 * (1 + fabs(q[j]));
        qq[j] += d;
        icv_vec3 pp, vv;
        swing_state(pivot, l, u, h1, h2, qq, &pp, &vv);
        for (int a = 0; a < 3; a++) {
            Jp[a][j] = (icv_v3_get(pp, a) - icv_v3_get(out->p, a)) / d;
            Jv[a][j] = (icv_v3_get(vv, a) - icv_v3_get(out->v, a)) / d;
        }
    }
    for (int a = 0; a < 3; a++) {
        double spp = 0, svv = 0, spv = 0;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                spp += Jp[a][i] * C[i][j] * Jp[a][j];
                svv += Jv[a][i] * C[i][j] * Jv[a][j];
                spv += Jp[a][i] * C[i][j] * Jv[a][j];
            }
        icv_v3_set(&out->p_sd, a, sqrt(fmax(spp, 0)));
        icv_v3_set(&out->v_sd, a, sqrt(fmax(svv, 0)));
        out->cov_pv[a] = spv;
    }
    return 0;
}
