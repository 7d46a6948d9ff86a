/* rotation_fit.c: the attitude and angular velocity at the impact instant from
 * the poses of one flight phase, by fitting torque-free rotation (Euler's
 * equations with the body's inertia, core's closed form icv_free_rotation) rather
 * than differencing poses: exact for any body, not only for symmetric ones where
 * omega is constant.
 *
 * Parameters: a small rotation d (rad, surface axes) and u (rad/s, surface
 * axes); the model attitude at t_i is exp([d]x) F(t_i - t_ref; R_0, u), F the free
 * motion from attitude R_0 with angular velocity u. Turning a whole motion turns
 * its angular velocity with it (F(t; Q R_0, Q u) = Q F(t; R_0, u)), so this is the
 * motion from exp([d]x) R_0 with omega = exp([d]x) u, and the Jacobian's attitude
 * columns need no new motion: only u's columns do (3 motions per Jacobian instead
 * of GSL's 6 finite differences, the fit's cost). Residuals: log(R_meas^T R_model)
 * per pose (3 per pose), or for a collinear rod the difference of the rod's
 * direction (3 per pose, of which 2 are independent).
 *
 * Poses off the motion (a rod's end markers swapped for a run of frames flips its
 * direction; a wrong label turns it) are left out, not fitted: the start is the pose
 * near t_ref most others agree with, each widening of the window leaves out what the
 * fit so far predicts more than ROT_OUTLIER_K of its median residual off (at least
 * ROT_OUTLIER_FLOOR), and the last fit is checked the same way. A widening that does
 * not converge falls back to the last window that did. */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"

/* A pose is off the motion beyond this many of the fit's median residual norm
 * (~9 sigma of Gaussian attitude noise), and never within ROT_OUTLIER_FLOOR (rad:
 * above any pose noise a fit here is used with, below a label's or flip's error of
 * tenths of a radian). The start's agreement is looser (ROT_AGREE, rad, plus half
 * the turn): it carries the mean rate over up to ROT_AGREE_SPAN poses, not a
 * fitted motion. */
#define ROT_OUTLIER_K 6.0
#define ROT_OUTLIER_FLOOR 0.02
#define ROT_AGREE 0.3
#define ROT_AGREE_SPAN 15

typedef struct {
    const double *t;
    const icv_mat3 *R_meas;
    unsigned char *keep; /* 0: the pose is left out (its residuals 0) */
    int n;
    double t_ref;
    icv_mat3 inertia;
    int collinear;
    icv_vec3 axis;     /* body frame */
    icv_mat3 R0;       /* linearisation point of the attitude */
    double w;          /* residual weight 1/sigma */
    icv_mat3 *F;       /* n motion attitudes F(t_i; R0, u) for u = F_u (allocated once per fit) */
    icv_mat3 *F2;      /* n, for the Jacobian's finite differences */
    icv_vec3 F_u;
    int F_valid;
    icv_vec3 e1, e2;   /* collinear: a basis perpendicular to the rod at t_ref */
} rot_problem;

/* Parameters to (d, u). A collinear rod has 4: both along e1, e2 only, since
 * turning about the rod changes nothing measured. */
static void unpack(const rot_problem *p, const gsl_vector *x, icv_vec3 *d, icv_vec3 *u)
{
    if (p->collinear) {
        *d = icv_v3_add(icv_v3_scale(p->e1, gsl_vector_get(x, 0)), icv_v3_scale(p->e2, gsl_vector_get(x, 1)));
        *u = icv_v3_add(icv_v3_scale(p->e1, gsl_vector_get(x, 2)), icv_v3_scale(p->e2, gsl_vector_get(x, 3)));
    } else {
        *d = icv_v3(gsl_vector_get(x, 0), gsl_vector_get(x, 1), gsl_vector_get(x, 2));
        *u = icv_v3(gsl_vector_get(x, 3), gsl_vector_get(x, 4), gsl_vector_get(x, 5));
    }
}

/* parameter j's direction in surface axes (j < 3, or < 2 for a rod: attitude) */
static icv_vec3 direction(const rot_problem *p, int j)
{
    if (p->collinear)
        return j % 2 == 0 ? p->e1 : p->e2;
    return icv_v3(j % 3 == 0, j % 3 == 1, j % 3 == 2);
}

/* the free motion's attitudes from (R0, u) at every t_i */
static void motion(const rot_problem *p, icv_vec3 u, icv_mat3 *F)
{
    icv_free_rotation fr;
    icv_free_rotation_init(&fr, p->R0, u, p->inertia);
    for (int i = 0; i < p->n; i++)
        icv_free_rotation_at(&fr, p->t[i] - p->t_ref, &F[i], NULL);
}

static void cached_motion(rot_problem *p, icv_vec3 u)
{
    if (!p->F_valid || p->F_u.x != u.x || p->F_u.y != u.y || p->F_u.z != u.z) {
        motion(p, u, p->F);
        p->F_u = u;
        p->F_valid = 1;
    }
}

/* a model attitude's residual against a measured one (rad, unweighted) */
static icv_vec3 pose_residual(int collinear, icv_vec3 axis, icv_mat3 R_meas, icv_mat3 R_model)
{
    if (collinear)
        return icv_v3_sub(icv_m3_apply(R_model, axis), icv_m3_apply(R_meas, axis));
    return icv_rot_to_axis_angle(icv_m3_mul(icv_m3_transpose(R_meas), R_model));
}

/* the weighted residuals of model attitudes E F[i] */
static void residuals_of(const rot_problem *p, icv_mat3 E, const icv_mat3 *F, gsl_vector *f)
{
    for (int i = 0; i < p->n; i++) {
        icv_vec3 r = icv_v3(0, 0, 0);
        if (p->keep[i])
            r = pose_residual(p->collinear, p->axis, p->R_meas[i], icv_m3_mul(E, F[i]));
        gsl_vector_set(f, (size_t)(3 * i), p->w * r.x);
        gsl_vector_set(f, (size_t)(3 * i + 1), p->w * r.y);
        gsl_vector_set(f, (size_t)(3 * i + 2), p->w * r.z);
    }
}

static int residuals(const gsl_vector *x, void *data, gsl_vector *f)
{
    rot_problem *p = data;
    icv_vec3 d, u;
    unpack(p, x, &d, &u);
    cached_motion(p, u);
    residuals_of(p, icv_rot_from_axis_angle(d), p->F, f);
    return GSL_SUCCESS;
}

/* Forward differences (steps of sqrt(eps) relative, as GSL's own): the attitude
 * columns from the cached motion turned, u's from a new motion each. */
static int jacobian(const gsl_vector *x, void *data, gsl_matrix *J)
{
    rot_problem *p = data;
    icv_vec3 d, u;
    unpack(p, x, &d, &u);
    cached_motion(p, u);
    size_t m = (size_t)(3 * p->n), P = p->collinear ? 4 : 6, half = P / 2;
    gsl_vector *f0 = gsl_vector_alloc(m), *f1 = gsl_vector_alloc(m);
    if (!f0 || !f1) {
        gsl_vector_free(f0);
        gsl_vector_free(f1);
        return GSL_ENOMEM;
    }
    icv_mat3 E = icv_rot_from_axis_angle(d);
    residuals_of(p, E, p->F, f0);
    for (size_t j = 0; j < P; j++) {
        double h = GSL_SQRT_DBL_EPSILON * fmax(fabs(gsl_vector_get(x, j)), 1.0);
        icv_vec3 dir = icv_v3_scale(direction(p, (int)j), h);
        if (j < half) {
            residuals_of(p, icv_rot_from_axis_angle(icv_v3_add(d, dir)), p->F, f1);
        } else {
            motion(p, icv_v3_add(u, dir), p->F2);
            residuals_of(p, E, p->F2, f1);
        }
        for (size_t i = 0; i < m; i++)
            gsl_matrix_set(J, i, j, (gsl_vector_get(f1, i) - gsl_vector_get(f0, i)) / h);
    }
    gsl_vector_free(f0);
    gsl_vector_free(f1);
    return GSL_SUCCESS;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the median of v[0..n) (reordered) */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A start for omega: the per-axis median of the frame-to-frame rotation rates,
 * unambiguous as long as the body turns less than pi per frame (the first-to-last
 * rotation would wrap after half a turn); the median, as a pose off the motion
 * makes two rates of tens of rad/s. work: 3 (n - 1) doubles. */
static icv_vec3 omega_guess(const double *t, const icv_mat3 *R, int n, double *work)
{
    double *c[3] = {work, work + (n - 1), work + 2 * (n - 1)};
    for (int i = 0; i + 1 < n; i++) {
        icv_vec3 aa = icv_rot_to_axis_angle(icv_m3_mul(R[i + 1], icv_m3_transpose(R[i])));
        for (int a = 0; a < 3; a++)
            c[a][i] = icv_v3_get(aa, a) / (t[i + 1] - t[i]);
    }
    return icv_v3(median_of(c[0], n - 1), median_of(c[1], n - 1), median_of(c[2], n - 1));
}

/* the window of m poses about pose near, inside [0, n) */
static int window_lo(int near, int m, int n)
{
    int lo = near - m / 2;
    if (lo < 0)
        lo = 0;
    if (lo + m > n)
        lo = n - m;
    return lo;
}

/* rate w0 without its part along pose j's rod (not in the data) */
static icv_vec3 rate_for(int collinear, icv_vec3 axis, icv_mat3 Rj, icv_vec3 w0)
{
    if (!collinear)
        return w0;
    icv_vec3 a = icv_m3_apply(Rj, axis);
    return icv_v3_sub(w0, icv_v3_scale(a, icv_v3_dot(w0, a)));
}

/* Whether pose i agrees with the motion fr from pose j: within ROT_AGREE, and half
 * of the turn between them (the mean rate is not the rate of a tumbling body). */
static int agrees(const icv_free_rotation *fr, const double *t, const icv_mat3 *R, int i, int j, double w0n,
                  int collinear, icv_vec3 axis)
{
    icv_mat3 Ri;
    icv_free_rotation_at(fr, t[i] - t[j], &Ri, NULL);
    return icv_v3_norm(pose_residual(collinear, axis, R[i], Ri)) <= ROT_AGREE + 0.5 * w0n * fabs(t[i] - t[j]);
}

/* The pose to start from: of the span poses about pose near, the one that the
 * most of them agree with when rate w0 carries it to their times, the nearest
 * t_ref among equals; agree[i] for i in the span: pose i agrees with it. */
static int agreed_start(const double *t, const icv_mat3 *R, int n, int span, int near, double t_ref, icv_vec3 w0,
                        icv_mat3 inertia, int collinear, icv_vec3 axis, unsigned char *agree)
{
    int m = n < span ? n : span, lo = window_lo(near, m, n), best = near, best_count = -1;
    for (int j = lo; j < lo + m; j++) {
        icv_free_rotation fr;
        icv_free_rotation_init(&fr, R[j], rate_for(collinear, axis, R[j], w0), inertia);
        int count = 0;
        for (int i = lo; i < lo + m; i++)
            count += agrees(&fr, t, R, i, j, icv_v3_norm(w0), collinear, axis);
        if (count > best_count || (count == best_count && fabs(t[j] - t_ref) < fabs(t[best] - t_ref))) {
            best = j;
            best_count = count;
        }
    }
    icv_free_rotation fr;
    icv_free_rotation_init(&fr, R[best], rate_for(collinear, axis, R[best], w0), inertia);
    for (int i = lo; i < lo + m; i++)
        agree[i] = agrees(&fr, t, R, i, best, icv_v3_norm(w0), collinear, axis);
    return best;
}

/* each pose's residual norm (rad) under parameters x, kept or not */
static void pose_norms(rot_problem *p, const gsl_vector *x, double *r)
{
    icv_vec3 d, u;
    unpack(p, x, &d, &u);
    cached_motion(p, u);
    icv_mat3 E = icv_rot_from_axis_angle(d);
    for (int i = 0; i < p->n; i++)
        r[i] = icv_v3_norm(pose_residual(p->collinear, p->axis, p->R_meas[i], icv_m3_mul(E, p->F[i])));
}

/* the median residual norm of the kept poses (work: n doubles) */
static double kept_median(const rot_problem *p, const double *r, double *work)
{
    int k = 0;
    for (int i = 0; i < p->n; i++)
        if (p->keep[i])
            work[k++] = r[i];
    return k ? median_of(work, k) : 0;
}

static int count_kept(const unsigned char *keep, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += keep[i] != 0;
    return k;
}

/* The window's poses within thr of the motion x kept, the others left out, unless
 * fewer than need would remain (then the flags stay); whether any flag changed.
 * norms: the window's length. */
static int trim(rot_problem *p, const gsl_vector *x, double thr, int need, double *norms)
{
    pose_norms(p, x, norms);
    int k = 0, changed = 0;
    for (int i = 0; i < p->n; i++)
        k += norms[i] <= thr;
    if (k < need)
        return 0;
    for (int i = 0; i < p->n; i++)
        if ((norms[i] <= thr) != p->keep[i]) {
            p->keep[i] = norms[i] <= thr;
            changed = 1;
        }
    return changed;
}

/* one stage's fit from xv over the window p describes (its keep flags set) */
static int fit_stage(rot_problem *p, gsl_multifit_nlinear_fdf *fdf, gsl_multifit_nlinear_workspace **ws,
                     gsl_vector *xv, size_t P)
{
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    p->F_valid = 0;
    fdf->n = (size_t)(3 * p->n);
    gsl_multifit_nlinear_free(*ws);
    *ws = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, fdf->n, P);
    if (!*ws)
        return GSL_ENOMEM;
    int info, status = gsl_multifit_nlinear_init(xv, fdf, *ws);
    /* xtol 1e-6: GSL's test |dx| <= xtol (|x| + xtol) is near xtol^2 for the
     * attitude perturbation, which sits at 0; 1e-6 of omega is far below noise */
    if (!status)
        status = gsl_multifit_nlinear_driver(200, 1e-6, 1e-9, 0, NULL, NULL, &info, *ws);
    return status;
}

/* the window [lo, lo + m) into p */
static void set_window(rot_problem *p, const double *t, const icv_mat3 *R, unsigned char *keep, int lo, int m)
{
    p->t = t + lo;
    p->R_meas = R + lo;
    p->keep = keep + lo;
    p->n = m;
    p->F_valid = 0;
}

/* The fit's start: the pose near t_ref (pose `near`) that most others agree with
 * (those that do not left out of keep, unless no more than `need` would remain in the
 * first window of m_first poses: which are off is not known then), carried to t_ref
 * at the mean rate w0: p->R0, the rod's basis, and x0 (d = 0, u). */
static void fit_start(rot_problem *p, const double *t, const icv_mat3 *R_meas, int n, int near, int need, int m_first,
                      icv_vec3 w0, unsigned char *keep, double x0[6])
{
    int start = agreed_start(t, R_meas, n, m_first == n ? n : ROT_AGREE_SPAN, near, p->t_ref, w0, p->inertia,
                             p->collinear, p->axis, keep);
    if (count_kept(keep + window_lo(near, m_first, n), m_first) <= need)
        memset(keep, 1, (size_t)n);
    w0 = rate_for(p->collinear, p->axis, R_meas[start], w0); /* the spin about the rod's line is not in the data */
    {
        icv_free_rotation fr;
        icv_free_rotation_init(&fr, R_meas[start], w0, p->inertia);
        icv_free_rotation_at(&fr, p->t_ref - t[start], &p->R0, &w0);
    }
    if (p->collinear) { /* basis perpendicular to the rod at t_ref */
        icv_vec3 a = icv_m3_apply(p->R0, p->axis);
        icv_vec3 helper = fabs(a.x) < 0.9 ? icv_v3(1, 0, 0) : icv_v3(0, 1, 0);
        p->e1 = icv_v3_unit(icv_v3_cross(a, helper));
        p->e2 = icv_v3_cross(a, p->e1);
    }
    x0[0] = x0[1] = x0[2] = 0;
    x0[3] = w0.x;
    x0[4] = w0.y;
    x0[5] = w0.z;
    if (p->collinear) {
        x0[2] = icv_v3_dot(w0, p->e1);
        x0[3] = icv_v3_dot(w0, p->e2);
    }
}

/* Continuation: fit the frames nearest t_ref first (where the mean rate is a good
 * start; m_first of them), then double the window. A tumbling asymmetric body's omega
 * changes too much over a long window for one start to reach the right minimum. Each
 * widening leaves out what the fit so far predicts far off; the last window that
 * converged is kept, its own poses checked against it. x0 (P parameters): the start
 * in, the fit out; *ws its workspace. GSL's status: 0 when it converged. */
static int fit_continued(rot_problem *p, gsl_multifit_nlinear_fdf *fdf, gsl_multifit_nlinear_workspace **ws,
                         size_t P, const double *t, const icv_mat3 *R_meas, int n, int near, int need, int m_first,
                         unsigned char *keep, unsigned char *keep_best, double *norms, double x0[6])
{
    double *work = norms + n, xbest[6], scale = 0;
    gsl_vector_view xv = gsl_vector_view_array(x0, P);
    int status = 0, have = 0, best_lo = 0, best_m = 0;
    for (int m = m_first;; m = 2 * m < n ? 2 * m : n) {
        int lo = window_lo(near, m, n);
        set_window(p, t, R_meas, keep, lo, m);
        if (have) /* leave out what the fit so far predicts far off; take back the rest */
            trim(p, &xv.vector, fmax(ROT_OUTLIER_K * scale, ROT_OUTLIER_FLOOR), need, norms);
        status = fit_stage(p, fdf, ws, &xv.vector, P);
        if (status == GSL_ENOMEM)
            return status;
        if (status)
            break;
        gsl_vector_memcpy(&xv.vector, gsl_multifit_nlinear_position(*ws));
        pose_norms(p, &xv.vector, norms);
        scale = kept_median(p, norms, work);
        have = 1;
        memcpy(xbest, x0, sizeof xbest);
        memcpy(keep_best, keep, (size_t)n);
        best_lo = lo;
        best_m = m;
        if (m == n)
            break;
    }
    if (!have)
        return status;
    /* the last window that converged; then its own poses checked against it */
    int changed = status != 0;
    memcpy(keep, keep_best, (size_t)n);
    set_window(p, t, R_meas, keep, best_lo, best_m);
    memcpy(x0, xbest, sizeof xbest);
    changed |= trim(p, &xv.vector, fmax(ROT_OUTLIER_K * scale, ROT_OUTLIER_FLOOR), need, norms);
    status = changed ? fit_stage(p, fdf, ws, &xv.vector, P) : 0;
    if (status && status != GSL_ENOMEM) { /* the check's refit failed: the window as it converged */
        set_window(p, t, R_meas, keep_best, best_lo, best_m);
        memcpy(x0, xbest, sizeof xbest);
        status = fit_stage(p, fdf, ws, &xv.vector, P);
    }
    return status;
}

/* The attitude noise of posed markers is not the same about every axis: stereo
 * depth is the worst-measured direction, so the turns it makes (about the axes
 * across the line of sight; a flat template's tilts) are larger than those about it
 * (docs/analysis.md, session 32). A pooled chi-square gives every axis the mean, too
 * small for the noisy axes. Here cov (in: (J^T J)^-1, J weighted as f) becomes the
 * sandwich (J^T J)^-1 (sum_i J_i^T S_i J_i) (J^T J)^-1, S_i the residuals' 3x3
 * covariance in surface axes (scaled to the fit's degrees of freedom), turned into
 * pose i's body axes, where its residuals live. With isotropic residuals it is the
 * pooled chi2_dof (J^T J)^-1. 1 when cov was replaced, 0 (cov untouched) if not. */
static int sandwich_anisotropic(const rot_problem *p, const gsl_vector *f, size_t P, const gsl_matrix *J,
                                gsl_matrix *cov)
{
    double S[3][3] = {{0}};
    int k = 0;
    for (int i = 0; i < p->n; i++) {
        if (!p->keep[i])
            continue;
        icv_vec3 r = icv_m3_apply(p->R_meas[i], icv_v3(gsl_vector_get(f, (size_t)(3 * i)),
                                                       gsl_vector_get(f, (size_t)(3 * i + 1)),
                                                       gsl_vector_get(f, (size_t)(3 * i + 2))));
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                S[a][b] += icv_v3_get(r, a) * icv_v3_get(r, b);
        k++;
    }
    int dof = 3 * k - (int)P;
    if (!J || dof < 3 || P > 6)
        return 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            S[a][b] *= 3.0 / dof;
    /* M = sum_i J_i^T S_i J_i, then cov M cov */
    double m_data[36] = {0}, t_data[36], c_data[36];
    gsl_matrix_view M = gsl_matrix_view_array(m_data, P, P), T = gsl_matrix_view_array(t_data, P, P),
                    C = gsl_matrix_view_array(c_data, P, P);
    for (int i = 0; i < p->n; i++) {
        if (!p->keep[i])
            continue;
        icv_mat3 Rm = p->R_meas[i];
        double si_data[9], sj_data[18]; /* R^T S R: body axes, where pose i's residuals live */
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double acc = 0;
                for (int c = 0; c < 3; c++)
                    for (int d = 0; d < 3; d++)
                        acc += Rm.m[c][a] * S[c][d] * Rm.m[d][b];
                si_data[3 * a + b] = acc;
            }
        gsl_matrix_view Si = gsl_matrix_view_array(si_data, 3, 3), SJ = gsl_matrix_view_array(sj_data, 3, P);
        gsl_matrix_const_view Ji = gsl_matrix_const_submatrix(J, (size_t)(3 * i), 0, 3, P);
        gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &Si.matrix, &Ji.matrix, 0.0, &SJ.matrix);
        gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, &Ji.matrix, &SJ.matrix, 1.0, &M.matrix);
    }
    gsl_matrix_memcpy(&C.matrix, cov);
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &C.matrix, &M.matrix, 0.0, &T.matrix);
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &T.matrix, &C.matrix, 0.0, cov);
    return 1;
}

/* out->cov, attitude_sd and omega_sd: the covariance at the solution (out->R,
 * out->omega; E the fitted attitude perturbation, f the residuals of p's window),
 * scaled by the fit's chi-square when no sigma_angle was given and by the residuals'
 * correlation (rk: room for p->n vectors). Jc, cov: 3n x P and P x P. 0 or an error
 * code. */
static int rotation_covariance(rot_problem *p, icv_mat3 E, const gsl_vector *f, size_t P, double sigma_angle,
                               gsl_matrix *Jc, gsl_matrix *cov, icv_vec3 *rk, analysis_rotation *out, icv_err *err)
{
    /* The covariance at the solution re-centred (R0 the fitted attitude, d = 0,
     * u = omega; the same motion), where a change (dd, du) moves the attitude by
     * exp([dd]x) and omega by du - omega x dd to first order. */
    p->R0 = out->R;
    p->e1 = icv_m3_apply(E, p->e1);
    p->e2 = icv_m3_apply(E, p->e2);
    p->F_valid = 0;
    double xc[6] = {0, 0, 0, out->omega.x, out->omega.y, out->omega.z};
    if (p->collinear) {
        xc[2] = icv_v3_dot(out->omega, p->e1);
        xc[3] = icv_v3_dot(out->omega, p->e2);
    }
    gsl_vector_view xcv = gsl_vector_view_array(xc, P);
    gsl_matrix_view Jw = gsl_matrix_submatrix(Jc, 0, 0, (size_t)(3 * p->n), P);
    if (jacobian(&xcv.vector, p, &Jw.matrix) != GSL_SUCCESS)
        return icv_err_set(err, ICV_ENOMEM, "rotation fit: out of memory");
    if (gsl_multifit_nlinear_covar(&Jw.matrix, 1e-12, cov) != GSL_SUCCESS)
        return icv_err_set(err, ICV_ENUMERIC, "rotation fit: the covariance of the fitted rotation failed");
    double scale_cov = sigma_angle > 0 ? 1.0 : out->chi2_dof;
    if (!(sigma_angle > 0) && !p->collinear && sandwich_anisotropic(p, f, P, Jw.matrix.size1 ? &Jw.matrix : NULL, cov))
        scale_cov = 1.0; /* cov already carries the residuals' own (surface-axis) covariance */
    { /* residuals correlated from pose to pose: fewer independent poses */
        int k = 0;
        for (int i = 0; i < p->n; i++)
            if (p->keep[i])
                rk[k++] = icv_v3(gsl_vector_get(f, (size_t)(3 * i)), gsl_vector_get(f, (size_t)(3 * i + 1)),
                                 gsl_vector_get(f, (size_t)(3 * i + 2)));
        scale_cov *= analysis_correlation_inflation(rk, k);
    }
    /* covariance of (attitude perturbation, omega) in surface axes: = A B cov B^T A^T,
     * B the parameters' directions (I, or [e1 e2] per block for a rod), A =
     * [[I, 0], [-[omega]x, I]] */
    double AB[6][6] = {{0}};
    for (size_t j = 0; j < P; j++) {
        icv_vec3 dir = direction(p, (int)j);
        int blk = j < P / 2 ? 0 : 1;
        icv_vec3 dw = blk ? dir : icv_v3_scale(icv_v3_cross(out->omega, dir), -1.0);
        for (int a = 0; a < 3; a++) {
            if (!blk)
                AB[a][j] = icv_v3_get(dir, a);
            AB[3 + a][j] = icv_v3_get(dw, a);
        }
    }
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) {
            double acc = 0;
            for (size_t i2 = 0; i2 < P; i2++)
                for (size_t j2 = 0; j2 < P; j2++)
                    acc += AB[r][i2] * gsl_matrix_get(cov, i2, j2) * AB[c][j2];
            out->cov[r][c] = scale_cov * acc;
        }
    out->attitude_sd = icv_v3(sqrt(out->cov[0][0]), sqrt(out->cov[1][1]), sqrt(out->cov[2][2]));
    out->omega_sd = icv_v3(sqrt(out->cov[3][3]), sqrt(out->cov[4][4]), sqrt(out->cov[5][5]));
    return 0;
}

int analysis_rotation_fit(const double *t, const icv_mat3 *R_meas, int n, double t_ref, icv_mat3 inertia_body,
                          int collinear, icv_vec3 axis_body, double sigma_angle, analysis_rotation *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    int need = sigma_angle > 0 ? 3 : 4;
    if (n < need)
        return icv_err_set(err, ICV_EINVAL, "rotation fit: %d poses in the flight phase, needs at least %d", n, need);
    for (int i = 1; i < n; i++)
        if (!(t[i] > t[i - 1]))
            return icv_err_set(err, ICV_EINVAL, "rotation fit: pose times must increase (pose %d at %g s)", i, t[i]);
    int near = 0;
    for (int i = 1; i < n; i++)
        if (fabs(t[i] - t_ref) < fabs(t[near] - t_ref))
            near = i;
    const size_t P = collinear ? 4 : 6;
    rot_problem p = {0};
    p.t_ref = t_ref;
    p.inertia = inertia_body;
    p.collinear = collinear;
    p.axis = icv_v3_unit(axis_body);
    p.w = sigma_angle > 0 ? 1.0 / sigma_angle : 1.0;
    gsl_multifit_nlinear_workspace *ws = NULL;
    gsl_matrix *cov = gsl_matrix_alloc(P, P), *Jc = gsl_matrix_alloc((size_t)(3 * n), P);
    p.F = malloc(sizeof *p.F * (size_t)n);
    p.F2 = malloc(sizeof *p.F2 * (size_t)n);
    unsigned char *keep = malloc((size_t)n), *keep_best = malloc((size_t)n);
    double *norms = malloc(sizeof *norms * (size_t)(4 * n));
    icv_vec3 *rk = malloc(sizeof *rk * (size_t)n);
    int rc = 0;
    if (!cov || !Jc || !p.F || !p.F2 || !keep || !keep_best || !norms || !rk) {
        rc = icv_err_set(err, ICV_ENOMEM, "rotation fit: out of memory");
        goto done;
    }
    icv_vec3 w0 = omega_guess(t, R_meas, n, norms + n);
    memset(keep, 1, (size_t)n);
    /* One stage suffices when the window turns by less than a radian or so (the
     * mean rate then carries a pose over all of it): see fit_continued. */
    double turn = icv_v3_norm(w0) * (t[n - 1] - t[0]);
    int m_first = n < 5 || turn < 1.5 ? n : 5;
    double x0[6];
    fit_start(&p, t, R_meas, n, near, need, m_first, w0, keep, x0);
    gsl_multifit_nlinear_fdf fdf = {0};
    fdf.f = residuals;
    fdf.df = jacobian;
    fdf.p = P;
    fdf.params = &p;
    int status = fit_continued(&p, &fdf, &ws, P, t, R_meas, n, near, need, m_first, keep, keep_best, norms, x0);
    if (status == GSL_ENOMEM) {
        rc = icv_err_set(err, ICV_ENOMEM, "rotation fit: out of memory");
        goto done;
    }
    if (status) {
        rc = icv_err_set(err, ICV_ENUMERIC, "rotation fit did not converge: %s", gsl_strerror(status));
        goto done;
    }
    gsl_vector *x = gsl_multifit_nlinear_position(ws);
    gsl_vector *f = gsl_multifit_nlinear_residual(ws);
    double chisq;
    gsl_blas_ddot(f, f, &chisq);
    int used = count_kept(p.keep, p.n);
    out->n_used = used;
    out->n_left_out = n - used;
    /* a collinear rod gives 2 independent residuals per pose */
    int dof = (collinear ? 2 : 3) * used - (int)P;
    if (dof < 1)
        dof = 1;
    out->chi2_dof = chisq / dof;
    icv_vec3 d, u;
    unpack(&p, x, &d, &u);
    icv_mat3 E = icv_rot_from_axis_angle(d);
    out->R = icv_m3_mul(E, p.R0);
    out->omega = icv_m3_apply(E, u); /* for a rod: perpendicular to the fitted rod */
    out->spin_observable = !collinear;
    if ((rc = rotation_covariance(&p, E, f, P, sigma_angle, Jc, cov, rk, out, err)))
        goto done;
    out->rms = sqrt(chisq / (3.0 * used)) / p.w;
    out->iterations = (int)gsl_multifit_nlinear_niter(ws);
done:
    free(p.F);
    free(p.F2);
    free(keep);
    free(keep_best);
    free(norms);
    free(rk);
    gsl_matrix_free(cov);
    gsl_matrix_free(Jc);
    gsl_multifit_nlinear_free(ws);
    return rc;
}
