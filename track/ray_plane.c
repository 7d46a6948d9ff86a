/* ray_plane.c: one-camera (planar) mode. The ray of an undistorted pixel,
 * X(s) = C + s d with C = -R^T t the camera centre and d = R^T K^-1 [u v 1], meets the
 * plane n.(X - p0) = 0 at s = n.(p0 - C) / n.d; the covariance is J diag(sigma^2) J^T
 * with J = dX/d(u, v) = s (I - d n^T / n.d) R^T K^-1 [e1 e2] (first order). */
#include <math.h>
#include <string.h>

#include "track/track.h"

int track_ray_plane(const track_view *w, const double p0[3], const double nrm[3], track_point3d *out, icv_err *err)
{
    icv_mat3 K, Ki, R;
    memcpy(K.m, w->K, sizeof K.m);
    memcpy(R.m, w->R, sizeof R.m);
    if (icv_m3_inverse(K, &Ki) != 0)
        return icv_err_set(err, ICV_EINVAL, "ray-plane: the camera matrix is singular");
    icv_mat3 Rt = icv_m3_transpose(R), A = icv_m3_mul(Rt, Ki); /* pixel -> world direction */
    icv_vec3 C = icv_v3_scale(icv_m3_apply(Rt, icv_v3(w->t[0], w->t[1], w->t[2])), -1);
    icv_vec3 d = icv_m3_apply(A, icv_v3(w->u, w->v, 1));
    icv_vec3 n = icv_v3(nrm[0], nrm[1], nrm[2]), P0 = icv_v3(p0[0], p0[1], p0[2]);
    double nd = icv_v3_dot(n, d);
    if (fabs(nd) < 1e-12 * icv_v3_norm(n) * icv_v3_norm(d))
        return icv_err_set(err, ICV_ENUMERIC, "ray-plane: the ray is parallel to the plane");
    double s = icv_v3_dot(n, icv_v3_sub(P0, C)) / nd;
    if (!(s > 0))
        return icv_err_set(err, ICV_ENUMERIC, "ray-plane: the plane is behind the camera");
    icv_vec3 X = icv_v3_axpy(s, d, C);
    memset(out, 0, sizeof *out);
    out->X[0] = X.x;
    out->X[1] = X.y;
    out->X[2] = X.z;
    /* columns of J: s (I - d n^T / n.d) a_k, a_k the direction change per pixel */
    double J[3][2];
    for (int k = 0; k < 2; k++) {
        icv_vec3 a = icv_v3(A.m[0][k], A.m[1][k], A.m[2][k]);
        icv_vec3 col = icv_v3_scale(icv_v3_sub(a, icv_v3_scale(d, icv_v3_dot(n, a) / nd)), s);
        J[0][k] = col.x;
        J[1][k] = col.y;
        J[2][k] = col.z;
    }
    double s2 = w->sigma * w->sigma;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out->cov[i][j] = s2 * (J[i][0] * J[j][0] + J[i][1] * J[j][1]);
    out->iterations = 0;
    return 0;
}

int track_ray_plane_sphere(const track_view *w, const double p0[3], const double nrm[3], double r, track_point3d *out,
                           icv_err *err)
{
    int rc = track_ray_plane(w, p0, nrm, out, err);
    if (rc || !(r > 0))
        return rc;
    icv_mat3 K, Ki, R;
    memcpy(K.m, w->K, sizeof K.m);
    memcpy(R.m, w->R, sizeof R.m);
    if (icv_m3_inverse(K, &Ki) != 0)
        return icv_err_set(err, ICV_EINVAL, "ray-plane: the camera matrix is singular");
    icv_vec3 C = icv_v3_scale(icv_m3_apply(icv_m3_transpose(R), icv_v3(w->t[0], w->t[1], w->t[2])), -1);
    icv_vec3 m = icv_m3_apply(Ki, icv_v3(w->u, w->v, 1)); /* camera frame, z = 1: tan of the angle off the axis */
    double tm = hypot(m.x, m.y);
    track_view c = *w;
    for (int it = 0; it < 2 && tm > 0; it++) {
        double D = icv_v3_norm(icv_v3_sub(icv_v3(out->X[0], out->X[1], out->X[2]), C));
        if (!(D > r))
            return icv_err_set(err, ICV_ENUMERIC, "ray-plane: the sphere (radius %g m) holds the camera", r);
        /* tan theta = tan m (1 - s^2 (1 + tan^2 theta)), s = r / D: a contraction (s^2 ~ 1e-4) */
        double s2 = (r / D) * (r / D), tt = tm;
        for (int k = 0; k < 4; k++)
            tt = tm * (1 - s2 * (1 + tt * tt));
        icv_vec3 px = icv_m3_apply(K, icv_v3(m.x * tt / tm, m.y * tt / tm, 1));
        c.u = px.x / px.z;
        c.v = px.y / px.z;
        if ((rc = track_ray_plane(&c, p0, nrm, out, err)) != 0)
            return rc;
    }
    return 0;
}
