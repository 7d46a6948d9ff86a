/* triangulate.c: a 3D point from its undistorted pixels in n >= 2 calibrated views.
 * Linear DLT in normalized coordinates, rows weighted by 1/sigma (Hartley &
 * Zisserman, "Multiple View Geometry", 2nd ed., sec. 12.2), then Gauss-Newton on the
 * sigma-weighted pixel reprojection error, the maximum-likelihood estimate for
 * Gaussian centroid errors (H&Z sec. 12.5; pixel and normalized errors differ only by
 * the focal scale, which the weights carry), and the covariance (J^T W J)^-1 at the
 * optimum (H&Z sec. 5.2.3, first-order propagation). */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "track/track.h"

/* Pixel projection of X through view w, with d(u,v)/dX in J (2 x 3). Returns the
 * depth z of X in the camera. */
static double project(const track_view *w, const double X[3], double *u, double *v, double J[2][3])
{
    double c[3];
    for (int i = 0; i < 3; i++)
        c[i] = w->R[i][0] * X[0] + w->R[i][1] * X[1] + w->R[i][2] * X[2] + w->t[i];
    double z = c[2], x = c[0] / z, y = c[1] / z;
    double fx = w->K[0][0], s = w->K[0][1], cx = w->K[0][2], fy = w->K[1][1], cy = w->K[1][2];
    *u = fx * x + s * y + cx;
    *v = fy * y + cy;
    /* d(x, y)/dc = [[1/z, 0, -x/z], [0, 1/z, -y/z]], dc/dX = R */
    double dxdc[3] = {1 / z, 0, -x / z}, dydc[3] = {0, 1 / z, -y / z};
    for (int k = 0; k < 3; k++) {
        double dx = 0, dy = 0;
        for (int i = 0; i < 3; i++) {
            dx += dxdc[i] * w->R[i][k];
            dy += dydc[i] * w->R[i][k];
        }
        J[0][k] = fx * dx + s * dy;
        J[1][k] = fy * dy;
    }
    return z;
}

static int dlt(const track_view *views, int n, double X[3], icv_err *err)
{
    double A[2 * TRACK_MAX_VIEWS * 4], Q[16], S[4];
    for (int i = 0; i < n; i++) {
        const track_view *w = &views[i];
        double fx = w->K[0][0], s = w->K[0][1], cx = w->K[0][2], fy = w->K[1][1], cy = w->K[1][2];
        double y = (w->v - cy) / fy, x = (w->u - cx - s * y) / fx;
        double wt = sqrt(fx * fy) / (w->sigma > 0 ? w->sigma : 1); /* 1 / normalized sigma */
        double P[3][4];
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++)
                P[r][c] = w->R[r][c];
            P[r][3] = w->t[r];
        }
        for (int c = 0; c < 4; c++) {
            A[(2 * i) * 4 + c] = wt * (x * P[2][c] - P[0][c]);
            A[(2 * i + 1) * 4 + c] = wt * (y * P[2][c] - P[1][c]);
        }
    }
    int rows = 2 * n;
    gsl_matrix_view Av = gsl_matrix_view_array(A, (size_t)rows, 4);
    gsl_matrix_view Qv = gsl_matrix_view_array(Q, 4, 4);
    gsl_vector_view Sv = gsl_vector_view_array(S, 4);
    if (gsl_linalg_SV_decomp_jacobi(&Av.matrix, &Qv.matrix, &Sv.vector) != 0)
        return icv_err_set(err, ICV_ENUMERIC, "triangulate: SVD of the DLT system failed");
    /* the right singular vector of the smallest singular value */
    int k = 0;
    for (int i = 1; i < 4; i++)
        if (S[i] < S[k])
            k = i;
    double h[4] = {Q[0 * 4 + k], Q[1 * 4 + k], Q[2 * 4 + k], Q[3 * 4 + k]};
    if (fabs(h[3]) < 1e-12 * sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]))
        return icv_err_set(err, ICV_ENUMERIC, "triangulate: the point is at infinity (parallel rays)");
    for (int i = 0; i < 3; i++)
        X[i] = h[i] / h[3];
    return 0;
}

/* Rays nearly parallel make the normal matrix nearly singular: det far below the
 * cube of its mean eigenvalue (1e-12: a condition number beyond ~1e6 per axis). */
static int ill_conditioned(icv_mat3 H)
{
    double tr = (H.m[0][0] + H.m[1][1] + H.m[2][2]) / 3;
    return !(icv_m3_det(H) > 1e-12 * tr * tr * tr);
}

int track_triangulate(const track_view *views, int n, track_point3d *out, icv_err *err)
{
    if (n < 2 || n > TRACK_MAX_VIEWS)
        return icv_err_set(err, ICV_EINVAL, "triangulate: %d views (need 2 to %d)", n, TRACK_MAX_VIEWS);
    for (int i = 0; i < n; i++)
        if (!(views[i].sigma > 0) || !(views[i].K[0][0] > 0) || !(views[i].K[1][1] > 0))
            return icv_err_set(err, ICV_EINVAL, "triangulate: view %d: sigma and focal lengths must be > 0", i);
    memset(out, 0, sizeof *out);
    double X[3];
    int rc = dlt(views, n, X, err);
    if (rc != 0)
        return rc;

    icv_mat3 H = {{{0}}};
    int it = 0;
    for (; it < 30; it++) {
        double g[3] = {0, 0, 0};
        memset(&H, 0, sizeof H);
        for (int i = 0; i < n; i++) {
            double u, v, J[2][3];
            if (project(&views[i], X, &u, &v, J) <= 0)
                return icv_err_set(err, ICV_ENUMERIC, "triangulate: the point is behind camera %d", i);
            double w = 1 / (views[i].sigma * views[i].sigma), r[2] = {views[i].u - u, views[i].v - v};
            for (int a = 0; a < 3; a++) {
                g[a] += w * (J[0][a] * r[0] + J[1][a] * r[1]);
                for (int b = 0; b < 3; b++)
                    H.m[a][b] += w * (J[0][a] * J[0][b] + J[1][a] * J[1][b]);
            }
        }
        icv_mat3 Hi;
        if (ill_conditioned(H) || icv_m3_inverse(H, &Hi) != 0)
            return icv_err_set(err, ICV_ENUMERIC, "triangulate: degenerate geometry (rays nearly parallel)");
        icv_vec3 dx = icv_m3_apply(Hi, icv_v3(g[0], g[1], g[2]));
        X[0] += dx.x;
        X[1] += dx.y;
        X[2] += dx.z;
        if (icv_v3_norm(dx) <= 1e-13 * (1 + sqrt(X[0] * X[0] + X[1] * X[1] + X[2] * X[2])))
            break;
    }
    /* covariance and residuals at the optimum */
    memset(&H, 0, sizeof H);
    double ss = 0, chi2 = 0;
    for (int i = 0; i < n; i++) {
        double u, v, J[2][3];
        if (project(&views[i], X, &u, &v, J) <= 0)
            return icv_err_set(err, ICV_ENUMERIC, "triangulate: the point is behind camera %d", i);
        double w = 1 / (views[i].sigma * views[i].sigma);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                H.m[a][b] += w * (J[0][a] * J[0][b] + J[1][a] * J[1][b]);
        out->residual[i] = hypot(views[i].u - u, views[i].v - v);
        ss += out->residual[i] * out->residual[i];
        chi2 += w * out->residual[i] * out->residual[i];
    }
    icv_mat3 C;
    if (icv_m3_inverse(H, &C) != 0)
        return icv_err_set(err, ICV_ENUMERIC, "triangulate: degenerate geometry (rays nearly parallel)");
    memcpy(out->X, X, sizeof X);
    memcpy(out->cov, C.m, sizeof C.m);
    out->residual_px = sqrt(ss / n);
    out->chi2 = chi2;
    out->iterations = it + 1;
    return 0;
}

double track_chi2_limit(int dof)
{
    return gsl_cdf_chisq_Pinv(0.999, dof > 0 ? dof : 1);
}

double track_chi2_median(int dof)
{
    return gsl_cdf_chisq_Pinv(0.5, dof > 0 ? dof : 1);
}

int track_gravity_px(const track_view *view, const double X[3], const double g[3], double fps, double *gu,
                     double *gv, icv_err *err)
{
    double u, v, J[2][3];
    if (!(fps > 0))
        return icv_err_set(err, ICV_EINVAL, "gravity in the image: frame rate %g must be > 0", fps);
    if (project(view, X, &u, &v, J) <= 0)
        return icv_err_set(err, ICV_ENUMERIC, "gravity in the image: the point is behind the camera");
    /* d^2 x/dt^2 = J a + (terms in the velocity squared, zero for a point at rest) */
    *gu = (J[0][0] * g[0] + J[0][1] * g[1] + J[0][2] * g[2]) / (fps * fps);
    *gv = (J[1][0] * g[0] + J[1][1] * g[1] + J[1][2] * g[2]) / (fps * fps);
    return 0;
}
