/* surface_uncertainty.c: the stereo surface frame's standard errors from its
 * board's corners. The frame is the board pose minimising the reprojection error
 * in both cameras (surface_frame.c), so its covariance is, to first order,
 * s^2 (J^T J)^-1 with J the reprojections' Jacobian with respect to the frame's
 * six parameters (a small turn about its own x, y, z axes, a small move of its
 * origin along them) and s^2 = SSR / (4N - 6) the corners' own scatter
 * (Hartley-Zisserman sec. 5.2). J by central differences of calib_project.
 * The stereo calibration's part (calib_surface_add_calibration_sd) is its
 * covariance propagated, to first order, into the frame as the tracks see it. */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"
#include "calib/cv_bridge_internal.h"

/* the 4N reprojection residuals of corners Xs (surface frame) through the frame
 * (Rs, ts) moved by d = (turn x y z, move x y z) in its own axes */
static void residuals(const calib_intrinsics *in1, const calib_intrinsics *in2, icv_mat3 R12, icv_vec3 T12,
                      icv_mat3 Rs, icv_vec3 ts, const double d[6], const icv_vec3 *Xs, const calib_pt2 *uv1,
                      const calib_pt2 *uv2, int np, double *r)
{
    icv_mat3 R = icv_m3_mul(Rs, icv_rot_from_axis_angle(icv_v3(d[0], d[1], d[2])));
    icv_vec3 t = icv_v3_add(ts, icv_m3_apply(Rs, icv_v3(d[3], d[4], d[5])));
    for (int i = 0; i < np; i++) {
        icv_vec3 x1 = icv_v3_add(icv_m3_apply(R, Xs[i]), t), x2 = icv_v3_add(icv_m3_apply(R12, x1), T12);
        calib_pt2 p1, p2;
        calib_project(in1, &x1, 1, &p1);
        calib_project(in2, &x2, 1, &p2);
        r[4 * i] = p1.u - uv1[i].u, r[4 * i + 1] = p1.v - uv1[i].v;
        r[4 * i + 2] = p2.u - uv2[i].u, r[4 * i + 3] = p2.v - uv2[i].v;
    }
}

int calib_surface_sd_stereo(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                            const double T[3], const icv_vec3 *Xs, const calib_pt2 *uv1, const calib_pt2 *uv2, int np,
                            calib_surface *s)
{
    int m = 4 * np;
    if (m <= 6)
        return -1;
    icv_mat3 R12;
    memcpy(R12.m, R, sizeof R12.m);
    icv_vec3 T12 = icv_v3_from_array(T);
    double *r = malloc(sizeof(double) * 3 * (size_t)m), *rp = r + m, *rm = r + 2 * m;
    gsl_matrix *A = gsl_matrix_calloc(6, 6), *J = gsl_matrix_alloc((size_t)m, 6);
    int rc = -1;
    if (!r || !A || !J)
        goto out;
    const double zero[6] = {0};
    residuals(in1, in2, R12, T12, s->R, s->t, zero, Xs, uv1, uv2, np, r);
    double ssr = 0;
    for (int i = 0; i < m; i++)
        ssr += r[i] * r[i];
    /* steps: 1e-6 rad, 1 um: far above rounding, far below the curvature's reach */
    for (int k = 0; k < 6; k++) {
        double d[6] = {0}, h = 1e-6;
        d[k] = h;
        residuals(in1, in2, R12, T12, s->R, s->t, d, Xs, uv1, uv2, np, rp);
        d[k] = -h;
        residuals(in1, in2, R12, T12, s->R, s->t, d, Xs, uv1, uv2, np, rm);
        for (int i = 0; i < m; i++)
            gsl_matrix_set(J, (size_t)i, (size_t)k, (rp[i] - rm[i]) / (2 * h));
    }
    gsl_blas_dsyrk(CblasLower, CblasTrans, 1.0, J, 0.0, A);
    if (gsl_linalg_cholesky_decomp1(A) || gsl_linalg_cholesky_invert(A))
        goto out;
    double s2 = ssr / (m - 6);
    for (int k = 0; k < 3; k++)
        s->turn_sd[k] = sqrt(s2 * gsl_matrix_get(A, (size_t)k, (size_t)k));
    s->offset_sd = sqrt(s2 * gsl_matrix_get(A, 4, 4));
    rc = 0;
out:
    free(r);
    gsl_matrix_free(A), gsl_matrix_free(J);
    return rc;
}

int calib_similarity_fit(const icv_vec3 *xt, const icv_vec3 *xs, size_t n, icv_vec3 *w, double *k, icv_vec3 *o)
{
    if (n < 3)
        return -1;
    gsl_matrix *A = gsl_matrix_alloc(3 * n, 7), *cv = gsl_matrix_alloc(7, 7);
    gsl_vector *y = gsl_vector_alloc(3 * n), *c = gsl_vector_alloc(7);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(3 * n, 7);
    int rc = -1;
    if (A && cv && y && c && ws) {
        for (size_t i = 0; i < n; i++) {
            double X[3] = {xt[i].x, xt[i].y, xt[i].z};
            double d[3] = {xs[i].x - xt[i].x, xs[i].y - xt[i].y, xs[i].z - xt[i].z};
            double cr[3][3] = {{0, X[2], -X[1]}, {-X[2], 0, X[0]}, {X[1], -X[0], 0}}; /* w x X = cr w */
            for (size_t r = 0; r < 3; r++) {
                for (size_t q = 0; q < 3; q++) {
                    gsl_matrix_set(A, 3 * i + r, q, cr[r][q]);
                    gsl_matrix_set(A, 3 * i + r, 4 + q, r == q);
                }
                gsl_matrix_set(A, 3 * i + r, 3, X[r]);
                gsl_vector_set(y, 3 * i + r, d[r]);
            }
        }
        double chi;
        if (!gsl_multifit_linear(A, y, c, cv, &chi, ws)) {
            *w = icv_v3(gsl_vector_get(c, 0), gsl_vector_get(c, 1), gsl_vector_get(c, 2));
            *k = gsl_vector_get(c, 3);
            *o = icv_v3(gsl_vector_get(c, 4), gsl_vector_get(c, 5), gsl_vector_get(c, 6));
            rc = 0;
        }
    }
    if (ws)
        gsl_multifit_linear_free(ws);
    gsl_matrix_free(A), gsl_matrix_free(cv), gsl_vector_free(y), gsl_vector_free(c);
    return rc;
}

int calib_stereo_cov_read(const char *path, calib_stereo_cov *cov, icv_err *err)
{
    memset(cov, 0, sizeof *cov);
    calib_store *fs;
    int rc = calib_file_open_reader(path, &fs, err);
    if (rc)
        return rc;
    double *buf = malloc(sizeof(double) * CALIB_STEREO_NCOV * CALIB_STEREO_NCOV);
    int r = 0, c = 0;
    if (!buf)
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    else if (calib_store_mat(fs, "params_cov", &r, &c, buf, CALIB_STEREO_NCOV * CALIB_STEREO_NCOV) || r != c ||
             (r != 22 && r != 24))
        rc = icv_err_set(err, ICV_ENOTFOUND, "%s: no params_cov (22x22 or 24x24)", path);
    else {
        cov->n = r;
        for (int i = 0; i < r; i++)
            for (int j = 0; j < r; j++)
                cov->c[i][j] = buf[i * r + j];
    }
    free(buf);
    calib_store_close(fs);
    return rc;
}

/* the rig (in[2], R, T) moved by h along parameter k of the covariance's order */
static void rig_moved(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                      const double T[3], int n_intr, int k, double h, calib_intrinsics in[2], double Rk[3][3],
                      double Tk[3])
{
    in[0] = *in1, in[1] = *in2;
    memcpy(Tk, T, 3 * sizeof *Tk);
    icv_mat3 Rm;
    memcpy(Rm.m, R, sizeof Rm.m);
    icv_vec3 om = icv_rot_to_axis_angle(Rm);
    if (k < 2 * n_intr) {
        calib_intrinsics *c = &in[k / n_intr];
        double *p[9] = {&c->fx, &c->fy, &c->cx, &c->cy, &c->dist[0], &c->dist[1], &c->dist[2], &c->dist[3], &c->dist[4]};
        *p[k % n_intr] += h;
    } else if (k < 2 * n_intr + 3) {
        double *o = &om.x;
        o[k - 2 * n_intr] += h;
    } else {
        Tk[k - 2 * n_intr - 3] += h;
    }
    Rm = icv_rot_from_axis_angle(om);
    memcpy(Rk, Rm.m, sizeof Rm.m);
}

#define NV 27 /* points where a body flies: 3 x 3 x 3 */

/* The frame found again with the moved rig from the board's pixels uv (the
 * nominal frame's), and the volume's pixels pv triangulated with it: the turn
 * (q[0..2], rad) and normal offset (q[3], m) of the similarity from the volume V. */
static int moved_frame(const calib_intrinsics in[2], const double R[3][3], const double T[3], const calib_board *b,
                       const calib_pt2 *uv1, const calib_pt2 *uv2, const icv_vec3 *V, const calib_pt2 (*pv)[2],
                       double q[4], icv_err *err)
{
    calib_surface s1;
    int rc = calib_surface_stereo_frame(&in[0], &in[1], R, T, b, uv1, uv2, 0, &s1, err);
    if (rc)
        return rc;
    icv_mat3 RsT = icv_m3_transpose(s1.R);
    icv_vec3 X[NV];
    for (int j = 0; j < NV; j++) {
        calib_pt2 n1, n2;
        if ((rc = calib_undistort_points(&in[0], &pv[j][0], 1, 1, &n1, err)) ||
            (rc = calib_undistort_points(&in[1], &pv[j][1], 1, 1, &n2, err)))
            return rc;
        icv_vec3 P;
        if (calib_triangulate_midpoint(R, T, n1, n2, &P))
            return icv_err_set(err, ICV_ENUMERIC, "surface: calibration's part: parallel rays");
        X[j] = icv_m3_apply(RsT, icv_v3_sub(P, s1.t));
    }
    icv_vec3 w, o;
    double k;
    if (calib_similarity_fit(V, X, NV, &w, &k, &o))
        return icv_err_set(err, ICV_ENUMERIC, "surface: calibration's part: the similarity fit failed");
    q[0] = w.x, q[1] = w.y, q[2] = w.z, q[3] = o.y;
    return 0;
}

int calib_surface_add_calibration_sd(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                                     const double T[3], const calib_stereo_cov *cov, const calib_board *b,
                                     calib_surface *s, icv_err *err)
{
    int n = cov->n, n_intr = (n - 6) / 2, np = b->cols * b->rows;
    if (n != 22 && n != 24)
        return icv_err_set(err, ICV_EINVAL, "surface: calibration's covariance has %d parameters (22 or 24)", n);
    icv_vec3 *X = malloc(sizeof *X * (size_t)np);
    calib_pt2 *uv = malloc(sizeof *uv * 2 * (size_t)np);
    double(*G)[CALIB_STEREO_NCOV] = calloc(4, sizeof *G);
    int rc = 0;
    if (!X || !uv || !G) {
        rc = icv_err_set(err, ICV_ENOMEM, "surface: out of memory");
        goto out;
    }
    icv_mat3 R12;
    memcpy(R12.m, R, sizeof R12.m);
    /* the board's corners in the surface frame: corner (c, r) at (c a, 0, +-r a),
     * the sign the one the frame reproduces (its z is the board's rows or their
     * opposite, as the normal was turned) */
    calib_board_points(b, X);
    calib_pt2 *uv1 = uv, *uv2 = uv + np;
    double sign = 1;
    for (int attempt = 0; attempt < 2; attempt++, sign = -1) {
        for (int i = 0; i < np; i++) {
            icv_vec3 xs = icv_v3(X[i].x, 0, sign * X[i].y);
            icv_vec3 x1 = icv_v3_add(icv_m3_apply(s->R, xs), s->t), x2 = icv_v3_add(icv_m3_apply(R12, x1), icv_v3_from_array(T));
            calib_project(in1, &x1, 1, &uv1[i]);
            calib_project(in2, &x2, 1, &uv2[i]);
        }
        calib_surface s0;
        if ((rc = calib_surface_stereo_frame(in1, in2, R, T, b, uv1, uv2, 0, &s0, err)))
            goto out;
        if (icv_v3_norm(icv_rot_to_axis_angle(icv_m3_mul(icv_m3_transpose(s->R), s0.R))) < 1e-6)
            break;
        if (attempt == 1) {
            rc = icv_err_set(err, ICV_ENUMERIC, "surface: the board found again does not give the same frame");
            goto out;
        }
    }
    /* the space a body flies through: over the board, from a quarter of its
     * length to its length above it. The calibration's part depends on it (a rig
     * error bends space: the further the tracks from the board, the more the frame
     * and they disagree); half the board's size further around and 1.25 lengths up
     * doubles it on tests/calib's rig, where this choice is the one checked */
    double L = (b->cols - 1) * b->square, W = sign * (b->rows - 1) * b->square;
    icv_vec3 V[NV];
    calib_pt2 pv[NV][2];
    for (int j = 0; j < NV; j++) {
        V[j] = icv_v3(L * 0.5 * (j % 3), L * (0.25 + 0.375 * (j / 3 % 3)), W * 0.5 * (j / 9));
        icv_vec3 x1 = icv_v3_add(icv_m3_apply(s->R, V[j]), s->t), x2 = icv_v3_add(icv_m3_apply(R12, x1), icv_v3_from_array(T));
        calib_project(in1, &x1, 1, &pv[j][0]);
        calib_project(in2, &x2, 1, &pv[j][1]);
    }
    /* central differences of (turn, offset) along each parameter, one sigma each
     * way (first order: the frame's errors are linear in the rig's over a sigma) */
    for (int k = 0; k < n; k++) {
        double h = sqrt(fmax(cov->c[k][k], 0)), qp[4], qm[4], Rk[3][3], Tk[3];
        calib_intrinsics in[2];
        if (!(h > 0))
            continue;
        rig_moved(in1, in2, R, T, n_intr, k, h, in, Rk, Tk);
        if ((rc = moved_frame(in, (const double(*)[3])Rk, Tk, b, uv1, uv2, V, (const calib_pt2(*)[2])pv, qp, err)))
            goto out;
        rig_moved(in1, in2, R, T, n_intr, k, -h, in, Rk, Tk);
        if ((rc = moved_frame(in, (const double(*)[3])Rk, Tk, b, uv1, uv2, V, (const calib_pt2(*)[2])pv, qm, err)))
            goto out;
        for (int a = 0; a < 4; a++)
            G[a][k] = (qp[a] - qm[a]) / (2 * h);
    }
    double var[4] = {0};
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < n; k++)
            for (int l = 0; l < n; l++)
                var[a] += G[a][k] * cov->c[k][l] * G[a][l];
    for (int a = 0; a < 3; a++)
        s->turn_sd[a] = sqrt(s->turn_sd[a] * s->turn_sd[a] + fmax(var[a], 0));
    s->offset_sd = sqrt(s->offset_sd * s->offset_sd + fmax(var[3], 0));
    s->sd_with_calibration = 1;
out:
    free(X), free(uv), free(G);
    return rc;
}
