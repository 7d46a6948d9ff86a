/* rotation_fit.c: the attitude and angular velocity at the impact instant from
 * the poses of one flight phase, by fitting torque-free rotation (Euler's
 * equations with the body's inertia, core's closed form icv_free_rotation) rather than
 * differencing poses: exact for any body, not only for symmetric ones where omega
 * is constant (issue #9 item 4). Parameters: a small rotation d (rad, surface
 * axes) applied to the initial attitude, R_ref = exp([d]x) R_0, and omega at t_ref.
 * Residuals: log(R_meas^T R_model) per pose (3 per pose), or for a collinear rod
 * the difference of the rod's direction (3 per pose, of which 2 are independent). */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"

typedef struct {
    const double *t;
    const icv_mat3 *R_meas;
    int n;
    double t_ref;
    icv_mat3 inertia;
    int collinear;
    icv_vec3 axis;     /* body frame */
    icv_mat3 R0;       /* linearisation point of the attitude */
    double w;          /* residual weight 1/sigma */
    icv_mat3 *scratch; /* n model attitudes, allocated once per fit */
    icv_vec3 e1, e2;   /* collinear: a basis perpendicular to the rod at t_ref */
} rot_problem;

/* Parameters to (attitude perturbation d, omega). A collinear rod has 4: both
 * along e1, e2 only, since turning about the rod changes nothing measured. */
static void unpack(const rot_problem *p, const gsl_vector *x, icv_vec3 *d, icv_vec3 *w)
{
    if (p->collinear) {
        *d = icv_v3_add(icv_v3_scale(p->e1, gsl_vector_get(x, 0)), icv_v3_scale(p->e2, gsl_vector_get(x, 1)));
        *w = icv_v3_add(icv_v3_scale(p->e1, gsl_vector_get(x, 2)), icv_v3_scale(p->e2, gsl_vector_get(x, 3)));
    } else {
        *d = icv_v3(gsl_vector_get(x, 0), gsl_vector_get(x, 1), gsl_vector_get(x, 2));
        *w = icv_v3(gsl_vector_get(x, 3), gsl_vector_get(x, 4), gsl_vector_get(x, 5));
    }
}

/* Model attitude at t_i for parameters x: the torque-free motion from the state at
 * t_ref, in closed form at every t_i (core's icv_free_rotation). */
static void model_attitudes(const rot_problem *p, const gsl_vector *x, icv_mat3 *R_out)
{
    icv_vec3 d, w;
    unpack(p, x, &d, &w);
    icv_free_rotation fr;
    icv_free_rotation_init(&fr, icv_m3_mul(icv_rot_from_axis_angle(d), p->R0), w, p->inertia);
    for (int i = 0; i < p->n; i++)
        icv_free_rotation_at(&fr, p->t[i] - p->t_ref, &R_out[i], NULL);
}

static int residuals(const gsl_vector *x, void *data, gsl_vector *f)
{
    const rot_problem *p = data;
    icv_mat3 *R = p->scratch;
    model_attitudes(p, x, R);
    for (int i = 0; i < p->n; i++) {
        icv_vec3 r;
        if (p->collinear)
            r = icv_v3_sub(icv_m3_apply(R[i], p->axis), icv_m3_apply(p->R_meas[i], p->axis));
        else
            r = icv_rot_to_axis_angle(icv_m3_mul(icv_m3_transpose(p->R_meas[i]), R[i]));
        gsl_vector_set(f, (size_t)(3 * i), p->w * r.x);
        gsl_vector_set(f, (size_t)(3 * i + 1), p->w * r.y);
        gsl_vector_set(f, (size_t)(3 * i + 2), p->w * r.z);
    }
    return GSL_SUCCESS;
}

/* A start for omega: the mean of the frame-to-frame rotation rates, which is
 * unambiguous as long as the body turns less than pi per frame (the first-to-last
 * rotation would wrap after half a turn). */
static icv_vec3 omega_guess(const double *t, const icv_mat3 *R, int n)
{
    icv_vec3 sum = icv_v3(0, 0, 0);
    for (int i = 0; i + 1 < n; i++) {
        icv_vec3 aa = icv_rot_to_axis_angle(icv_m3_mul(R[i + 1], icv_m3_transpose(R[i])));
        sum = icv_v3_axpy(1.0 / (t[i + 1] - t[i]), aa, sum);
    }
    return icv_v3_scale(sum, 1.0 / (n - 1));
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
    /* start from the pose nearest t_ref */
    int near = 0;
    for (int i = 1; i < n; i++)
        if (fabs(t[i] - t_ref) < fabs(t[near] - t_ref))
            near = i;
    rot_problem p = {t, R_meas, n, t_ref, inertia_body, collinear, icv_v3_unit(axis_body), R_meas[near],
                     sigma_angle > 0 ? 1.0 / sigma_angle : 1.0, NULL, {0, 0, 0}, {0, 0, 0}};
    icv_vec3 w0 = omega_guess(t, R_meas, n);
    if (collinear) { /* the spin about the rod's line is not in the data */
        icv_vec3 a = icv_m3_apply(R_meas[near], p.axis);
        w0 = icv_v3_sub(w0, icv_v3_scale(a, icv_v3_dot(w0, a)));
    }
    /* move the start from t[near] to t_ref */
    {
        icv_free_rotation fr;
        icv_free_rotation_init(&fr, R_meas[near], w0, inertia_body);
        icv_free_rotation_at(&fr, t_ref - t[near], &p.R0, &w0);
    }
    /* Continuation: fit the frames nearest t_ref first (where the mean rate is a
     * good start), then double the window. A tumbling asymmetric body's omega
     * changes too much over a long window for one start to reach the right
     * minimum. */
    const size_t P = collinear ? 4 : 6;
    if (collinear) { /* basis perpendicular to the rod at t_ref */
        icv_vec3 a = icv_m3_apply(p.R0, p.axis);
        icv_vec3 helper = fabs(a.x) < 0.9 ? icv_v3(1, 0, 0) : icv_v3(0, 1, 0);
        p.e1 = icv_v3_unit(icv_v3_cross(a, helper));
        p.e2 = icv_v3_cross(a, p.e1);
    }
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *ws = NULL;
    gsl_matrix *cov = gsl_matrix_alloc(P, P);
    p.scratch = malloc(sizeof *p.scratch * (size_t)n);
    if (!cov || !p.scratch) {
        gsl_matrix_free(cov);
        free(p.scratch);
        return icv_err_set(err, ICV_ENOMEM, "rotation fit: out of memory");
    }
    double x0[6] = {0, 0, 0, w0.x, w0.y, w0.z};
    if (collinear) {
        x0[2] = icv_v3_dot(w0, p.e1);
        x0[3] = icv_v3_dot(w0, p.e2);
    }
    gsl_vector_view xv = gsl_vector_view_array(x0, P);
    gsl_multifit_nlinear_fdf fdf = {0};
    fdf.f = residuals;
    fdf.p = P;
    fdf.params = &p;
    int rc = 0, info, status = 0;
    /* one stage suffices when the window turns by less than a radian or so */
    double turn = icv_v3_norm(w0) * (t[n - 1] - t[0]);
    for (int m = n < 5 || turn < 1.5 ? n : 5;; m = 2 * m < n ? 2 * m : n) {
        int lo = near - m / 2;
        if (lo < 0)
            lo = 0;
        if (lo + m > n)
            lo = n - m;
        p.t = t + lo;
        p.R_meas = R_meas + lo;
        p.n = m;
        fdf.n = (size_t)(3 * m);
        gsl_multifit_nlinear_free(ws);
        ws = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, fdf.n, P);
        if (!ws) {
            rc = icv_err_set(err, ICV_ENOMEM, "rotation fit: out of memory");
            goto done;
        }
        status = gsl_multifit_nlinear_init(&xv.vector, &fdf, ws);
        /* xtol 1e-6: GSL's test |dx| <= xtol (|x| + xtol) is near xtol^2 for the
         * attitude perturbation, which sits at 0; 1e-6 of omega is far below noise */
        if (!status)
            status = gsl_multifit_nlinear_driver(200, 1e-6, 1e-9, 0, NULL, NULL, &info, ws);
        if (status)
            break;
        gsl_vector_memcpy(&xv.vector, gsl_multifit_nlinear_position(ws));
        if (m == n)
            break;
    }
    if (status) {
        rc = icv_err_set(err, ICV_ENUMERIC, "rotation fit did not converge: %s", gsl_strerror(status));
        goto done;
    }
    gsl_vector *x = gsl_multifit_nlinear_position(ws);
    gsl_vector *f = gsl_multifit_nlinear_residual(ws);
    gsl_matrix *J = gsl_multifit_nlinear_jac(ws);
    double chisq;
    gsl_blas_ddot(f, f, &chisq);
    /* a collinear rod gives 2 independent residuals per pose */
    int dof = (collinear ? 2 : 3) * n - (int)P;
    if (dof < 1)
        dof = 1;
    out->chi2_dof = chisq / dof;
    gsl_multifit_nlinear_covar(J, 1e-12, cov);
    double scale = sigma_angle > 0 ? 1.0 : out->chi2_dof;
    /* covariance of (d, omega) in surface axes: x = B y with B = I, or for a rod
     * B = [e1 e2] per block, so cov_x = B cov_y B^T */
    double B[6][6] = {{0}};
    if (collinear) {
        for (int blk = 0; blk < 2; blk++)
            for (int a = 0; a < 3; a++) {
                B[3 * blk + a][2 * blk] = icv_v3_get(p.e1, a);
                B[3 * blk + a][2 * blk + 1] = icv_v3_get(p.e2, a);
            }
    } else {
        for (int a = 0; a < 6; a++)
            B[a][a] = 1;
    }
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) {
            double acc = 0;
            for (size_t i2 = 0; i2 < P; i2++)
                for (size_t j2 = 0; j2 < P; j2++)
                    acc += B[r][i2] * gsl_matrix_get(cov, i2, j2) * B[c][j2];
            out->cov[r][c] = scale * acc;
        }
    icv_vec3 d, w;
    unpack(&p, x, &d, &w);
    out->R = icv_m3_mul(icv_rot_from_axis_angle(d), p.R0);
    out->omega = w;
    out->spin_observable = !collinear;
    if (collinear) { /* perpendicular to the fitted rod, not the starting one */
        icv_vec3 a = icv_m3_apply(out->R, p.axis);
        out->omega = icv_v3_sub(w, icv_v3_scale(a, icv_v3_dot(w, a)));
    }
    out->attitude_sd = icv_v3(sqrt(out->cov[0][0]), sqrt(out->cov[1][1]), sqrt(out->cov[2][2]));
    out->omega_sd = icv_v3(sqrt(out->cov[3][3]), sqrt(out->cov[4][4]), sqrt(out->cov[5][5]));
    out->rms = sqrt(chisq / (3.0 * n)) / p.w;
    out->iterations = (int)gsl_multifit_nlinear_niter(ws);
done:
    free(p.scratch);
    gsl_matrix_free(cov);
    gsl_multifit_nlinear_free(ws);
    return rc;
}
