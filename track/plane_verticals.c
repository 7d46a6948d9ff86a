/* plane_verticals.c: the vertical plane of motion from image lines that are vertical
 * in the world (a poster's edges, a door frame, a plumb line). Their images meet at
 * the vertical's vanishing point; with the camera's intrinsics that is the world's
 * down in the camera frame. A phone held above a bounce looks down at the plane: one
 * px-to-m scale then shortens the fall by ~cos a - y sin a at normalised height y,
 * which the ball's sizes alone may not show in a few sharp frames (docs/experiment.md,
 * the green ball). */
#include <gsl/gsl_eigen.h>
#include <math.h>

#include "track/track_3d.h"

/* the unit direction d minimising sum (l_k . d)^2 over the segments' lines l_k (each
   through its two undistorted endpoints, unit): the smallest eigenvector; d.y >= 0 */
static int vanishing_direction(const calib_pt2 *p, int n, icv_vec3 *d)
{
    double A[9] = {0}, vals[3], vecs[9];
    for (int k = 0; k < n; k++) {
        icv_vec3 l = icv_v3_cross(icv_v3(p[2 * k].u, p[2 * k].v, 1), icv_v3(p[2 * k + 1].u, p[2 * k + 1].v, 1));
        double len = icv_v3_norm(l);
        if (!(len > 0))
            return -1;
        double v[3] = {l.x / len, l.y / len, l.z / len};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                A[3 * i + j] += v[i] * v[j];
    }
    gsl_matrix_view m = gsl_matrix_view_array(A, 3, 3);
    gsl_vector_view ev = gsl_vector_view_array(vals, 3);
    gsl_matrix_view evec = gsl_matrix_view_array(vecs, 3, 3);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(3);
    if (!ws)
        return -1;
    int rc = gsl_eigen_symmv(&m.matrix, &ev.vector, &evec.matrix, ws);
    gsl_eigen_symmv_free(ws);
    if (rc)
        return -1;
    gsl_eigen_symmv_sort(&ev.vector, &evec.matrix, GSL_EIGEN_SORT_VAL_ASC);
    double s = vecs[3] < 0 ? -1 : 1; /* column 0: (vecs[0], vecs[3], vecs[6]) */
    *d = icv_v3(s * vecs[0], s * vecs[3], s * vecs[6]);
    return 0;
}

/* the plane holding the vertical d that faces the camera: its normal, away from the
   camera; and the optical axis's angle below the horizontal (the camera's pitch,
   whatever its roll) */
static icv_vec3 facing_normal(icv_vec3 d, double *pitch)
{
    icv_vec3 n = icv_v3_unit(icv_v3_axpy(-d.z, d, icv_v3(0, 0, 1)));
    *pitch = asin(fmax(-1, fmin(1, d.z)));
    return n;
}

int track_plane_from_verticals(const calib_intrinsics *in, const double (*seg)[2][2], int n, double endpoint_sd_px,
                               icv_vec3 *normal, double *pitch, double *pitch_sd, icv_err *err)
{
    calib_pt2 uv[2 * ICV_MAX_VERTICALS], p[2 * ICV_MAX_VERTICALS];
    if (n < 2 || n > ICV_MAX_VERTICALS)
        return icv_err_set(err, ICV_EINVAL, "motion_plane.verticals_px: %d segments (2 to %d needed)", n,
                           ICV_MAX_VERTICALS);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 2; i++)
            uv[2 * k + i] = (calib_pt2){seg[k][i][0], seg[k][i][1]};
    icv_vec3 d;
    if (calib_undistort_points(in, uv, 2 * n, 1, p, err) || vanishing_direction(p, n, &d))
        return icv_err_set(err, ICV_EINVAL, "motion_plane.verticals_px: the segments give no vanishing point");
    if (!(d.y > 0.5))
        return icv_err_set(err, ICV_EINVAL,
                           "motion_plane.verticals_px: the lines meet %.0f degrees from the image's vertical: "
                           "they are not vertical lines seen by an upright camera",
                           acos(fmin(1, fabs(d.y))) * 180 / M_PI);
    *normal = facing_normal(d, pitch);
    /* the pitch's sigma: each endpoint coordinate moved by its sigma in turn */
    double var = 0;
    for (int j = 0; j < 4 * n; j++) {
        calib_pt2 q[2 * ICV_MAX_VERTICALS];
        for (int i = 0; i < 2 * n; i++)
            q[i] = uv[i];
        if (j % 2)
            q[j / 2].v += endpoint_sd_px;
        else
            q[j / 2].u += endpoint_sd_px;
        icv_vec3 dj;
        double pj;
        icv_err e2;
        if (calib_undistort_points(in, q, 2 * n, 1, p, &e2) || vanishing_direction(p, n, &dj))
            continue;
        facing_normal(dj, &pj);
        var += (pj - *pitch) * (pj - *pitch);
    }
    *pitch_sd = sqrt(var);
    return 0;
}
