/* test_plane_verticals.c: the camera's pitch to a vertical plane from image segments
 * of world-vertical lines (track/plane_verticals.c), against a pinhole placed by hand. */
#include <math.h>
#include <stdio.h>

#include "tests/harness.h"
#include "track/track_3d.h"

/* the image (px) of world point X seen by a camera pitched down by a and rolled by r
   (rad) at the origin, the world's y up and the camera looking along world +z */
static void project(const calib_intrinsics *in, double a, double r, const double X[3], double uv[2])
{
    /* camera axes in the world: x right, y down the image, z forward */
    double ca = cos(a), sa = sin(a), cr = cos(r), sr = sin(r);
    double x0[3] = {1, 0, 0}, y0[3] = {0, -ca, -sa}, z0[3] = {0, -sa, ca}; /* pitched */
    double xa[3], ya[3];
    for (int i = 0; i < 3; i++) /* rolled about z */
        xa[i] = cr * x0[i] + sr * y0[i], ya[i] = -sr * x0[i] + cr * y0[i];
    double xc = xa[0] * X[0] + xa[1] * X[1] + xa[2] * X[2], yc = ya[0] * X[0] + ya[1] * X[1] + ya[2] * X[2],
           zc = z0[0] * X[0] + z0[1] * X[1] + z0[2] * X[2];
    uv[0] = in->fx * xc / zc + in->cx, uv[1] = in->fy * yc / zc + in->cy;
}

TEST(test_plane_verticals_give_the_pitch_of_a_pinhole_placed_by_hand)
{
    /* 1920x1080, fx 1920, looking down 11 degrees (the green ball's phone), rolled 0
       and 3 degrees; three vertical lines 1.5 m away. Exact segments: the pitch within
       1e-9 rad (rounding). Its sigma for 0.5 px ends: under 0.5 degree and above 0. */
    calib_intrinsics in = {1920, 1080, 1920, 1920, 959.5, 539.5, {0}};
    for (int k = 0; k < 2; k++) {
        double a = 11 * M_PI / 180, r = k * 3 * M_PI / 180, seg[3][2][2];
        for (int l = 0; l < 3; l++)
            for (int e = 0; e < 2; e++) {
                double X[3] = {-0.4 + 0.4 * l, e ? -0.2 : 0.5, 1.5};
                project(&in, a, r, X, seg[l][e]);
            }
        icv_vec3 n;
        double pitch, sd;
        icv_err err;
        ASSERT(track_plane_from_verticals(&in, (const double(*)[2][2])seg, 3, 0.5, &n, &pitch, &sd, &err) == 0, "%s",
               err.msg);
        printf("  roll %.0f deg: pitch %.9f deg +- %.3f, normal (%.4f, %.4f, %.4f)\n", k * 3.0, pitch * 180 / M_PI,
               sd * 180 / M_PI, n.x, n.y, n.z);
        ASSERT_NEAR(pitch, a, 1e-9);
        ASSERT(sd > 0 && sd < 0.5 * M_PI / 180, "sigma %.3f deg", sd * 180 / M_PI);
        ASSERT(n.z > 0 && fabs(icv_v3_norm(n) - 1) < 1e-12, "normal (%g, %g, %g)", n.x, n.y, n.z);
    }
    /* two horizontal lines: no vertical seen by an upright camera */
    double flat[2][2][2] = {{{100, 300}, {1800, 310}}, {{100, 700}, {1800, 690}}};
    icv_vec3 n;
    double pitch, sd;
    icv_err err;
    ASSERT(track_plane_from_verticals(&in, (const double(*)[2][2])flat, 2, 0.5, &n, &pitch, &sd, &err) == ICV_EINVAL,
           "horizontal lines taken for verticals");
    ASSERT_STR_CONTAINS(err.msg, "not vertical lines");
}

TEST(test_plane_verticals_parallel_in_the_image_give_pitch_0)
{
    /* a level camera: the verticals' images are parallel (their vanishing point at
       infinity), upright or rolled 3 degrees. The pitch is 0 and the plane faces the
       camera: within 1e-12 (rounding; no angle is left to fit) */
    calib_intrinsics in = {1920, 1080, 1920, 1920, 959.5, 539.5, {0}};
    for (int k = 0; k < 2; k++) {
        double r = k * 3 * M_PI / 180, seg[2][2][2];
        for (int l = 0; l < 2; l++)
            for (int e = 0; e < 2; e++) {
                double X[3] = {-0.5 + l, e ? -0.3 : 0.4, 2.0};
                project(&in, 0, r, X, seg[l][e]);
            }
        ASSERT_NEAR(seg[0][1][0] - seg[0][0][0], seg[1][1][0] - seg[1][0][0], 1e-9); /* parallel indeed */
        icv_vec3 n;
        double pitch, sd;
        icv_err err;
        ASSERT(track_plane_from_verticals(&in, (const double(*)[2][2])seg, 2, 0.5, &n, &pitch, &sd, &err) == 0, "%s",
               err.msg);
        ASSERT_NEAR(pitch, 0, 1e-12);
        ASSERT_NEAR(n.x, 0, 1e-12);
        ASSERT_NEAR(n.y, 0, 1e-12);
        ASSERT_NEAR(n.z, 1, 1e-12);
    }
}
