/* camera.c: OpenCV's camera model, exactly (the calib3d documentation's projection:
 * x' = x/z, y' = y/z, r^2 = x'^2 + y'^2,
 * x'' = x'(1 + k1 r^2 + k2 r^4 + k3 r^6) + 2 p1 x'y' + p2 (r^2 + 2 x'^2),
 * y'' = y'(1 + k1 r^2 + k2 r^4 + k3 r^6) + p1 (r^2 + 2 y'^2) + 2 p2 x'y',
 * u = fx x'' + cx, v = fy y'' + cy), its inverse by Newton's method, and look-at poses. */
#include <math.h>

#include "synth/synth.h"

void synth_camera_distort(const synth_camera_model *c, double x, double y, double uv[2])
{
    const double *d = c->dist;
    double r2 = x * x + y * y;
    double radial = 1 + r2 * (d[0] + r2 * (d[1] + r2 * d[4]));
    double xd = x * radial + 2 * d[2] * x * y + d[3] * (r2 + 2 * x * x);
    double yd = y * radial + d[2] * (r2 + 2 * y * y) + 2 * d[3] * x * y;
    uv[0] = c->fx * xd + c->cx;
    uv[1] = c->fy * yd + c->cy;
}

int synth_camera_project(const synth_camera_model *c, icv_vec3 xs, double uv[2])
{
    icv_vec3 xc = icv_v3_add(icv_m3_apply(c->R, xs), c->t);
    if (!(xc.z > 1e-9))
        return -1;
    synth_camera_distort(c, xc.x / xc.z, xc.y / xc.z, uv);
    return 0;
}

int synth_camera_undistort(const synth_camera_model *c, double u, double v, double xn[2])
{
    const double *d = c->dist;
    double tx = (u - c->cx) / c->fx, ty = (v - c->cy) / c->fy; /* distorted normalised target */
    double x = tx, y = ty;
    for (int it = 0; it < 50; it++) {
        double r2 = x * x + y * y;
        double radial = 1 + r2 * (d[0] + r2 * (d[1] + r2 * d[4]));
        double drad = d[0] + r2 * (2 * d[1] + 3 * r2 * d[4]); /* d radial / d r2 */
        double fx = x * radial + 2 * d[2] * x * y + d[3] * (r2 + 2 * x * x) - tx;
        double fy = y * radial + d[2] * (r2 + 2 * y * y) + 2 * d[3] * x * y - ty;
        /* Jacobian of the distortion in (x, y) */
        double a = radial + x * drad * 2 * x + 2 * d[2] * y + d[3] * 6 * x;
        double b = x * drad * 2 * y + 2 * d[2] * x + d[3] * 2 * y;
        double cc = y * drad * 2 * x + d[2] * 2 * x + 2 * d[3] * y;
        double dd = radial + y * drad * 2 * y + d[2] * 6 * y + 2 * d[3] * x;
        double det = a * dd - b * cc;
        if (!(fabs(det) > 1e-12))
            return -1;
        double dx = (dd * fx - b * fy) / det, dy = (-cc * fx + a * fy) / det;
        x -= dx;
        y -= dy;
        if (fabs(dx) + fabs(dy) < 1e-15) {
            xn[0] = x;
            xn[1] = y;
            return 0;
        }
    }
    double r2 = x * x + y * y, radial = 1 + r2 * (d[0] + r2 * (d[1] + r2 * d[4]));
    double fx = x * radial + 2 * d[2] * x * y + d[3] * (r2 + 2 * x * x) - tx;
    double fy = y * radial + d[2] * (r2 + 2 * y * y) + 2 * d[3] * x * y - ty;
    xn[0] = x;
    xn[1] = y;
    return fabs(fx) + fabs(fy) < 1e-12 ? 0 : -1;
}

icv_vec3 synth_camera_center(const synth_camera_model *c)
{
    return icv_v3_scale(icv_m3_apply(icv_m3_transpose(c->R), c->t), -1.0);
}

int synth_camera_look_at(synth_camera_model *c, icv_vec3 eye, icv_vec3 target, icv_vec3 up, icv_err *err)
{
    icv_vec3 z = icv_v3_sub(target, eye);
    if (!(icv_v3_norm(z) > 1e-9))
        return icv_err_set(err, ICV_EINVAL, "camera look_at: the eye and the target are the same point");
    z = icv_v3_unit(z);
    icv_vec3 x = icv_v3_cross(icv_v3_scale(up, -1.0), z); /* x = y x z with image y along -up */
    if (!(icv_v3_norm(x) > 1e-9))
        return icv_err_set(err, ICV_EINVAL, "camera look_at: up is parallel to the viewing direction");
    x = icv_v3_unit(x);
    icv_vec3 y = icv_v3_cross(z, x);
    /* rows of R are the camera axes in surface coordinates */
    icv_mat3 R = {{{x.x, x.y, x.z}, {y.x, y.y, y.z}, {z.x, z.y, z.z}}};
    c->R = R;
    c->t = icv_v3_scale(icv_m3_apply(R, eye), -1.0);
    return 0;
}
