/* stereo_uncertainty.c: standard errors of the joint stereo solution.
 *
 * OpenCV's stereoCalibrate returns no covariance, so it is computed here the way
 * Bouguet's toolbox and MATLAB do: the reprojection residuals of both cameras over
 * every used pair, as functions of p = (intrinsics of camera 1 and 2, the relative
 * pose om, T, and each board's pose in camera 1), linearised at the solution:
 * cov(p) = sigma^2 (J^T J)^-1 with sigma^2 = SSR / (m - dim p) (Hartley-Zisserman
 * sec. 5.1.3). J is by central differences of calib_project (OpenCV's model).
 * The board poses are first refined (Gauss-Newton, both cameras, other parameters
 * fixed) so that J is taken at the joint optimum. The baseline's variance is
 * g^T cov(T) g with g = T/|T| (first-order propagation of |T|). */
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"
#include "calib/cv_bridge_internal.h"

typedef struct {
    calib_intrinsics in[2];
    double om[3], T[3];
    double pose[6]; /* rvec, tvec of the current view */
    int n_intr;     /* 8 (k3 fixed) or 9 */
} model;

/* Pointer to global parameter j: intrinsics of camera 1, of camera 2, om, T. */
static double *gparam(model *m, int j)
{
    int c = j / m->n_intr, k = j % m->n_intr;
    if (j < 2 * m->n_intr) {
        calib_intrinsics *in = &m->in[c];
        double *p[9] = {&in->fx, &in->fy, &in->cx, &in->cy, &in->dist[0], &in->dist[1],
                        &in->dist[2], &in->dist[3], &in->dist[4]};
        return p[k];
    }
    j -= 2 * m->n_intr;
    return j < 3 ? &m->om[j] : &m->T[j - 3];
}

/* Residuals of one view: camera 1's (u, v) for every corner, then camera 2's. */
static void residuals(const model *m, const icv_vec3 *X, const calib_pt2 *uv1, const calib_pt2 *uv2, int np,
                      double *r)
{
    icv_mat3 Rb = icv_rot_from_axis_angle(icv_v3(m->pose[0], m->pose[1], m->pose[2]));
    icv_mat3 Rs = icv_rot_from_axis_angle(icv_v3_from_array(m->om));
    icv_vec3 tb = icv_v3(m->pose[3], m->pose[4], m->pose[5]), T = icv_v3_from_array(m->T);
    for (int i = 0; i < np; i++) {
        icv_vec3 x1 = icv_v3_add(icv_m3_apply(Rb, X[i]), tb);
        icv_vec3 x2 = icv_v3_add(icv_m3_apply(Rs, x1), T);
        calib_pt2 p1, p2;
        calib_project(&m->in[0], &x1, 1, &p1);
        calib_project(&m->in[1], &x2, 1, &p2);
        r[2 * i] = p1.u - uv1[i].u;
        r[2 * i + 1] = p1.v - uv1[i].v;
        r[2 * (np + i)] = p2.u - uv2[i].u;
        r[2 * (np + i) + 1] = p2.v - uv2[i].v;
    }
}

/* Step for a central difference: ~1e-6 relative, with a floor per kind. */
static double step_of(double x, double floor) { return 1e-6 * (fabs(x) > floor ? fabs(x) : floor); }

/* Jacobian of one view's residuals: columns 0..ng-1 global, ng..ng+5 the pose. */
static void jacobian(model *m, const icv_vec3 *X, const calib_pt2 *uv1, const calib_pt2 *uv2, int np, int ng,
                     int only_pose, double *J, double *rp, double *rm)
{
    int nr = 4 * np, nc = ng + 6;
    for (int j = only_pose ? ng : 0; j < nc; j++) {
        double *p = j < ng ? gparam(m, j) : &m->pose[j - ng];
        double floor = j < ng ? (j < 2 * m->n_intr ? ((j % m->n_intr) < 4 ? 100.0 : 0.1) : 0.1) : 0.1;
        double h = step_of(*p, floor), x0 = *p;
        *p = x0 + h;
        residuals(m, X, uv1, uv2, np, rp);
        *p = x0 - h;
        residuals(m, X, uv1, uv2, np, rm);
        *p = x0;
        for (int i = 0; i < nr; i++)
            J[(size_t)i * nc + j] = (rp[i] - rm[i]) / (2 * h);
    }
}

/* Gauss-Newton on the board pose (m->pose) alone, residuals of both cameras. */
static void pose_refine(model *m, const icv_vec3 *X, const calib_pt2 *uv1, const calib_pt2 *uv2, int np, int ng,
                        double *J, double *r, gsl_matrix *A6, gsl_vector *b6, gsl_vector *x6)
{
    int nr = 4 * np, nc = ng + 6;
    double *rp = r + nr, *rm = r + 2 * nr;
    for (int it = 0; it < 8; it++) {
        jacobian(m, X, uv1, uv2, np, ng, 1, J, rp, rm);
        residuals(m, X, uv1, uv2, np, r);
        gsl_matrix_set_zero(A6);
        gsl_vector_set_zero(b6);
        for (int i = 0; i < nr; i++)
            for (int a = 0; a < 6; a++) {
                double ja = J[(size_t)i * nc + ng + a];
                *gsl_vector_ptr(b6, (size_t)a) -= ja * r[i];
                for (int c = 0; c < 6; c++)
                    *gsl_matrix_ptr(A6, (size_t)a, (size_t)c) += ja * J[(size_t)i * nc + ng + c];
            }
        if (gsl_linalg_cholesky_decomp1(A6) || gsl_linalg_cholesky_solve(A6, b6, x6))
            break;
        double step = 0;
        for (int a = 0; a < 6; a++) {
            m->pose[a] += gsl_vector_get(x6, (size_t)a);
            step = fmax(step, fabs(gsl_vector_get(x6, (size_t)a)));
        }
        if (step < 1e-12)
            break;
    }
}

int calib_board_pose_stereo(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                            const double T[3], const icv_vec3 *X, const calib_pt2 *uv1, const calib_pt2 *uv2, int np,
                            double pose[6], icv_err *err)
{
    model m;
    memset(&m, 0, sizeof m);
    m.in[0] = *in1;
    m.in[1] = *in2;
    m.n_intr = 8;
    icv_mat3 Rm;
    memcpy(Rm.m, R, sizeof Rm.m);
    icv_v3_to_array(icv_rot_to_axis_angle(Rm), m.om);
    memcpy(m.T, T, sizeof m.T);
    memcpy(m.pose, pose, sizeof m.pose);
    int ng = 2 * m.n_intr + 6, nr = 4 * np;
    double *J = malloc(sizeof(double) * (size_t)nr * (ng + 6)), *r = malloc(sizeof(double) * 3 * (size_t)nr);
    gsl_matrix *A6 = gsl_matrix_alloc(6, 6);
    gsl_vector *b6 = gsl_vector_alloc(6), *x6 = gsl_vector_alloc(6);
    int rc = 0;
    if (!J || !r || !A6 || !b6 || !x6)
        rc = icv_err_set(err, ICV_ENOMEM, "board pose: out of memory");
    else {
        pose_refine(&m, X, uv1, uv2, np, ng, J, r, A6, b6, x6);
        memcpy(pose, m.pose, sizeof m.pose);
    }
    free(J), free(r);
    if (A6)
        gsl_matrix_free(A6);
    if (b6)
        gsl_vector_free(b6);
    if (x6)
        gsl_vector_free(x6);
    return rc;
}

int calib_stereo_uncertainty(const calib_observations *o1, const calib_observations *o2, const int *use,
                             int fix_k3, calib_stereo *st, icv_err *err)
{
    int np = o1->n_points, nv = o1->n_views, nu = 0;
    for (int v = 0; v < nv; v++)
        nu += use[v] != 0;
    model m;
    memset(&m, 0, sizeof m);
    m.in[0] = st->cam[0].in;
    m.in[1] = st->cam[1].in;
    m.n_intr = fix_k3 ? 8 : 9;
    icv_mat3 Rm;
    memcpy(Rm.m, st->R, sizeof Rm.m);
    icv_vec3 om = icv_rot_to_axis_angle(Rm);
    icv_v3_to_array(om, m.om);
    memcpy(m.T, st->T, sizeof m.T);
    int ng = 2 * m.n_intr + 6, nc = ng + 6, nr = 4 * np, P = ng + 6 * nu;
    double *J = malloc(sizeof(double) * (size_t)nr * nc), *r = malloc(sizeof(double) * 3 * (size_t)nr);
    double *poses = malloc(sizeof(double) * 6 * (size_t)nu);
    gsl_matrix *A = gsl_matrix_calloc((size_t)P, (size_t)P);
    gsl_matrix *A6 = gsl_matrix_alloc(6, 6);
    gsl_vector *b6 = gsl_vector_alloc(6), *x6 = gsl_vector_alloc(6);
    int rc = 0;
    if (!J || !r || !poses || !A || !A6 || !b6 || !x6) {
        rc = icv_err_set(err, ICV_ENOMEM, "stereo uncertainty: out of memory");
        goto out;
    }
    double *rp = r + nr, *rm = r + 2 * nr, ssr = 0;
    double K1[9];
    calib_intrinsics_to_k(&m.in[0], K1);
    for (int v = 0, k = 0; v < nv; v++) {
        if (!use[v])
            continue;
        const calib_pt2 *uv1 = o1->uv + (size_t)v * np, *uv2 = o2->uv + (size_t)v * np;
        char msg[200];
        if (cvb_solve_pnp(np, (const double *)o1->board, (const double *)uv1, K1, m.in[0].dist, m.pose, m.pose + 3,
                          msg, sizeof msg)) {
            rc = icv_err_set(err, ICV_ENUMERIC, "stereo uncertainty: pair %d: %s", v + 1, msg);
            goto out;
        }
        /* Gauss-Newton on this board's pose with both cameras. */
        pose_refine(&m, o1->board, uv1, uv2, np, ng, J, r, A6, b6, x6);
        memcpy(poses + 6 * k, m.pose, sizeof m.pose);
        /* accumulate J^T J over the global columns and this view's pose block */
        jacobian(&m, o1->board, uv1, uv2, np, ng, 0, J, rp, rm);
        residuals(&m, o1->board, uv1, uv2, np, r);
        int off = ng + 6 * k;
        for (int i = 0; i < nr; i++) {
            ssr += r[i] * r[i];
            const double *row = J + (size_t)i * nc;
            for (int a = 0; a < nc; a++) {
                if (row[a] == 0)
                    continue;
                int ia = a < ng ? a : off + (a - ng);
                for (int c = 0; c < nc; c++) {
                    int ic = c < ng ? c : off + (c - ng);
                    *gsl_matrix_ptr(A, (size_t)ia, (size_t)ic) += row[a] * row[c];
                }
            }
        }
        k++;
    }
    long m_res = (long)nr * nu;
    if (m_res <= P) {
        rc = icv_err_set(err, ICV_ENUMERIC, "stereo uncertainty: %ld residuals for %d parameters", m_res, P);
        goto out;
    }
    double sigma2 = ssr / (double)(m_res - P);
    if (gsl_linalg_cholesky_decomp1(A) || gsl_linalg_cholesky_invert(A)) {
        rc = icv_err_set(err, ICV_ENUMERIC,
                         "stereo uncertainty: the joint problem is singular (boards all parallel, or too few pairs)");
        goto out;
    }
    for (int c = 0; c < 2; c++) {
        calib_intrinsics *s = &st->cam[c].std;
        memset(s, 0, sizeof *s);
        double *p[9] = {&s->fx, &s->fy, &s->cx, &s->cy, &s->dist[0], &s->dist[1], &s->dist[2], &s->dist[3],
                        &s->dist[4]};
        for (int k = 0; k < m.n_intr; k++) {
            size_t j = (size_t)(c * m.n_intr + k);
            *p[k] = sqrt(sigma2 * gsl_matrix_get(A, j, j));
        }
    }
    st->cov.n = ng; /* the global block: what the surface frame's sigma needs */
    for (int a = 0; a < ng; a++)
        for (int c = 0; c < ng; c++)
            st->cov.c[a][c] = sigma2 * gsl_matrix_get(A, (size_t)a, (size_t)c);
    size_t o = (size_t)(2 * m.n_intr);
    for (int k = 0; k < 3; k++) {
        st->om_std[k] = sqrt(sigma2 * gsl_matrix_get(A, o + k, o + k));
        st->T_std[k] = sqrt(sigma2 * gsl_matrix_get(A, o + 3 + k, o + 3 + k));
    }
    double var = 0;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++)
            var += st->T[a] / st->baseline * st->T[c] / st->baseline * gsl_matrix_get(A, o + 3 + a, o + 3 + c);
    st->baseline_std = sqrt(sigma2 * var);
out:
    free(J), free(r), free(poses);
    if (A)
        gsl_matrix_free(A);
    if (A6)
        gsl_matrix_free(A6);
    if (b6)
        gsl_vector_free(b6);
    if (x6)
        gsl_vector_free(x6);
    return rc;
}
