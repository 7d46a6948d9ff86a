/* project.c: OpenCV's camera model in C (pinhole, radial k1 k2 k3, tangential
 * p1 p2; Brown-Conrady as in OpenCV's calib3d documentation), and undistortion of
 * points and images through the bridge (images read and encoded by capture/). The C projection serves the synthetic
 * tests and the stereo Jacobian (stereo_uncertainty.c). */
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"
#include "calib/cv_bridge_internal.h"
#include "capture/capture.h"

void calib_project(const calib_intrinsics *in, const icv_vec3 *x_cam, int n, calib_pt2 *uv)
{
    const double *k = in->dist;
    for (int i = 0; i < n; i++) {
        double x = x_cam[i].x / x_cam[i].z, y = x_cam[i].y / x_cam[i].z;
        double r2 = x * x + y * y;
        double rad = 1 + r2 * (k[0] + r2 * (k[1] + r2 * k[4]));
        double xd = x * rad + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x);
        double yd = y * rad + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y;
        uv[i].u = in->fx * xd + in->cx;
        uv[i].v = in->fy * yd + in->cy;
    }
}

void calib_project_pose(const calib_intrinsics *in, const double rvec[3], const double t[3], const icv_vec3 *X,
                        int n, calib_pt2 *uv)
{
    icv_mat3 R = icv_rot_from_axis_angle(icv_v3_from_array(rvec));
    icv_vec3 tv = icv_v3_from_array(t);
    for (int i = 0; i < n; i++) {
        icv_vec3 xc = icv_v3_add(icv_m3_apply(R, X[i]), tv);
        calib_project(in, &xc, 1, &uv[i]);
    }
}

int calib_undistort_points(const calib_intrinsics *in, const calib_pt2 *uv, int n, int normalized, calib_pt2 *out,
                           icv_err *err)
{
    double K[9];
    char msg[256];
    calib_intrinsics_to_k(in, K);
    if (n <= 0)
        return 0;
    if (cvb_undistort_points(n, (const double *)uv, K, in->dist, !normalized, (double *)out, msg, sizeof msg))
        return icv_err_set(err, ICV_ENUMERIC, "undistorting %d points: %s", n, msg);
    return 0;
}

int calib_undistort_image_encoded(const double K[9], const double dist[5], const char *image, const char *ext,
                                  unsigned char **buf, size_t *len, icv_err *err)
{
    char msg[256];
    unsigned char *px = NULL, *out = NULL;
    int w, h;
    int rc = capture_image_read(image, 3, &px, &w, &h, err);
    if (rc)
        return rc;
    if (!(out = malloc((size_t)w * h * 3)))
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", image);
    else if (cvb_undistort_pixels(px, w, h, 3, K, dist, out, msg, sizeof msg))
        rc = icv_err_set(err, ICV_ENUMERIC, "%s: undistorting: %s", image, msg);
    else
        rc = capture_image_encode(out, w, h, 3, ext, buf, len, err);
    free(px);
    free(out);
    return rc;
}

int calib_undistort_image_file(const calib_intrinsics *in, const char *image, const char *out, icv_err *err)
{
    double K[9];
    calib_intrinsics_to_k(in, K);
    const char *dot = strrchr(out, '.');
    const char *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash))
        return icv_err_set(err, ICV_EINVAL, "%s: output needs an image extension (.png, .jpg, .tif)", out);
    unsigned char *buf;
    size_t len;
    int rc = calib_undistort_image_encoded(K, in->dist, image, dot, &buf, &len, err);
    if (rc)
        return icv_err_prefix(err, "%s: ", out);
    rc = icv_atomic_write(out, buf, len, err);
    free(buf);
    return rc;
}
