/* test_camera.c: synth's OpenCV camera model (synth/camera.c). */
#include "synth/synth.h"
#include "tests/harness.h"

static synth_camera_model cam(void)
{
    synth_camera_model c = {0};
    c.width = 1280;
    c.height = 720;
    c.fx = 1100;
    c.fy = 1090;
    c.cx = 640.5;
    c.cy = 355.2;
    double d[5] = {-0.21, 0.08, 0.0012, -0.0008, -0.01};
    for (int i = 0; i < 5; i++)
        c.dist[i] = d[i];
    c.R = icv_m3_identity();
    return c;
}

TEST(test_camera_distortion_is_opencvs_formula)
{
    synth_camera_model c = cam();
    double x = 0.3, y = -0.2, uv[2];
    synth_camera_distort(&c, x, y, uv);
    /* OpenCV calib3d documentation, evaluated by hand: r2 = 0.13 */
    double r2 = 0.13, rad = 1 - 0.21 * r2 + 0.08 * r2 * r2 - 0.01 * r2 * r2 * r2;
    double xd = x * rad + 2 * 0.0012 * x * y - 0.0008 * (r2 + 2 * x * x);
    double yd = y * rad + 0.0012 * (r2 + 2 * y * y) + 2 * -0.0008 * x * y;
    ASSERT_NEAR(uv[0], 1100 * xd + 640.5, 1e-9); /* the same arithmetic: rounding only */
    ASSERT_NEAR(uv[1], 1090 * yd + 355.2, 1e-9);
}

TEST(test_camera_undistort_inverts_distort_over_the_image)
{
    synth_camera_model c = cam();
    double worst = 0;
    for (int v = 0; v < 720; v += 37)
        for (int u = 0; u < 1280; u += 41) {
            double xn[2], uv[2];
            ASSERT(synth_camera_undistort(&c, u, v, xn) == 0, "no convergence at (%d, %d)", u, v);
            synth_camera_distort(&c, xn[0], xn[1], uv);
            worst = fmax(worst, hypot(uv[0] - u, uv[1] - v));
        }
    ASSERT_NEAR(worst, 0.0, 1e-9); /* Newton stops at 1e-15 in normalised units: ~1e-12 px */
}

TEST(test_camera_look_at_puts_the_target_on_the_principal_point)
{
    synth_camera_model c = cam();
    icv_err err;
    ASSERT_TRUE(synth_camera_look_at(&c, icv_v3(0.3, 0.5, 1.2), icv_v3(0, 0.1, 0), icv_v3(0, 1, 0), &err) == 0);
    double uv[2];
    ASSERT_TRUE(synth_camera_project(&c, icv_v3(0, 0.1, 0), uv) == 0);
    ASSERT_NEAR(uv[0], c.cx, 1e-9); /* on the optical axis: r = 0, no distortion */
    ASSERT_NEAR(uv[1], c.cy, 1e-9);
    double up[2];
    ASSERT_TRUE(synth_camera_project(&c, icv_v3(0, 0.2, 0), up) == 0);
    ASSERT(up[1] < uv[1], "a point above the target appears lower in the image (v %g >= %g)", up[1], uv[1]);
    icv_vec3 cc = synth_camera_center(&c);
    ASSERT_NEAR(cc.x, 0.3, 1e-12);
    ASSERT_NEAR(icv_m3_det(c.R), 1.0, 1e-12);
}
