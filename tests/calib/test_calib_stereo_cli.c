/* test_calib_stereo_cli.c: `impactcv calib --stereo` end to end on a rendered rig
 * (tests/calib/board_render.c), with a pair whose second view lacks the board:
 * it is skipped and listed, the rest calibrate; and the surface frame from a real
 * stereo pair of the Bouguet set. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "tests/calib/board_render.h"
#include "tests/harness.h"

TEST(test_calib_cli_stereo_skips_pairs_without_board_and_lists_them)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    calib_board b = {9, 6, 0.025};
    /* rig: camera 2 is 100 mm to the right (x_2 = x_1 + T, T = (-0.1, 0, 0)) */
    double rv[7][3] = {{0.3, -0.2, 0.05}, {-0.25, 0.3, -0.1}, {0.1, 0.35, 0.2}, {-0.35, -0.15, 0.0},
                       {0.2, 0.1, -0.25}, {-0.1, -0.3, 0.15}, {0.25, 0.25, 0.1}};
    double t[7][3] = {{-0.07, -0.06, 0.55}, {-0.09, -0.07, 0.6}, {-0.06, -0.05, 0.52}, {-0.08, -0.08, 0.57},
                      {-0.07, -0.06, 0.5}, {-0.07, -0.05, 0.58}, {-0.08, -0.06, 0.56}};
    for (int k = 0; k < 7; k++) {
        char n1[32], n2[32];
        snprintf(n1, sizeof n1, "l%d.pgm", k);
        snprintf(n2, sizeof n2, "r%d.pgm", k);
        double t2[3] = {t[k][0] - 0.1, t[k][1], t[k][2]};
        ASSERT_EQ_INT(board_render_pgm(th_tmp(n1), 640, 480, 600, &b, rv[k], t[k]), 0);
        if (k == 3)
            ASSERT_EQ_INT(blank_render_pgm(th_tmp(n2), 640, 480), 0);
        else
            ASSERT_EQ_INT(board_render_pgm(th_tmp(n2), 640, 480, 600, &b, rv[k], t2), 0);
    }
    th_proc p;
    int st = th_run_cli(&p,
                        "calib --board 9x6@0.025 --stereo --surface '%s/l0.pgm' --surface '%s/r0.pgm' "
                        "-o '%s/stereo.yaml' '%s/l*.pgm' '%s/r*.pgm'",
                        dir, dir, dir, dir, dir);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "6 of 7 pairs used");
    ASSERT_STR_CONTAINS(p.out, "l3.pgm               r3.pgm               skipped  (no full board)");
    ASSERT_STR_CONTAINS(p.out, "1 of 7 pairs skipped (no full board in one or both views): l3.pgm");
    calib_intrinsics a, c;
    double R[3][3], T[3];
    icv_err err = {0};
    ASSERT(calib_stereo_read(th_tmp("stereo.yaml"), &a, &c, R, T, &err) == 0, "%s", err.msg);
    /* rendered exactly (no distortion, 3x3 supersampling), 6 pairs: 1% of 100 mm */
    ASSERT_NEAR(T[0], -0.1, 0.001);
    ASSERT_NEAR(T[1], 0, 0.001);
    ASSERT_NEAR(a.fx, 600, 6);
    /* the surface frame from pair 0 (the board "on the surface"): its pose is
     * known; origin within 2 mm at 0.55 m (the 6-pair rig's own error dominates),
     * y = the board normal towards the cameras */
    calib_surface sf;
    ASSERT(calib_surface_read(th_tmp("stereo.yaml"), &sf, &err) == 0, "%s", err.msg);
    ASSERT_STR_CONTAINS(p.out, "surface frame (camera 1): origin");
    icv_mat3 Rb = icv_rot_from_axis_angle(icv_v3_from_array(rv[0]));
    /* corner 0 is the board end nearer the image's top-left (calib_board_detect) */
    icv_vec3 o = icv_v3_from_array(t[0]), far = icv_v3_add(icv_m3_apply(Rb, icv_v3(0.2, 0.125, 0)), o);
    if (600 * (o.x + o.y) / o.z > 600 * (far.x + far.y) / far.z)
        o = far;
    ASSERT(icv_v3_norm(icv_v3_sub(sf.t, o)) < 2e-3, "origin off by %.2f mm", 1e3 * icv_v3_norm(icv_v3_sub(sf.t, o)));
    icv_vec3 n = icv_v3(Rb.m[0][2], Rb.m[1][2], Rb.m[2][2]), y = icv_v3(sf.R.m[0][1], sf.R.m[1][1], sf.R.m[2][1]);
    ASSERT(fabs(icv_v3_dot(n, y)) > cos(0.5 * M_PI / 180), "normal off by more than 0.5 deg");
    ASSERT(icv_v3_dot(y, sf.t) < 0, "y points away from the cameras");
    /* a mono file has no surface frame unless asked */
    ASSERT(calib_surface_read(th_tmp("absent.yaml"), &sf, &err) == ICV_ENOTFOUND, "absent file");
}

TEST(test_calib_surface_from_real_stereo_pair_is_a_plane_and_agrees_with_mono)
{
    const char *d = th_shared("data/stereo_bouguet_opencv/original");
    if (!d)
        SKIP("../shared/data/stereo_bouguet_opencv is absent");
    char dir[1024], l[1100], r[1100];
    snprintf(dir, sizeof dir, "%s", d);
    char pat[2][1100];
    snprintf(pat[0], sizeof pat[0], "%s/left*.jpg", dir);
    snprintf(pat[1], sizeof pat[1], "%s/right*.jpg", dir);
    char **p1, **p2;
    size_t n1, n2;
    icv_err err = {0};
    ASSERT(icv_paths_expand(pat[0], &p1, &n1, &err) == 0 && n1 == 14, "left images");
    if (icv_paths_expand(pat[1], &p2, &n2, &err) || n2 != 14) {
        icv_paths_free(p1, n1);
        ASSERT(0, "right images");
    }
    calib_board b = {9, 6, 0.030};
    calib_stereo st;
    int rc = calib_stereo_from_images(p1, n1, p2, n2, &b, NULL, &st, &err);
    icv_paths_free(p1, n1);
    icv_paths_free(p2, n2);
    ASSERT(rc == 0, "%s", err.msg);
    /* pair 1 as if the board lay on the surface */
    snprintf(l, sizeof l, "%s/left01.jpg", dir);
    snprintf(r, sizeof r, "%s/right01.jpg", dir);
    calib_surface s2, s1;
    rc = calib_surface_from_images(&st.cam[0].in, &st.cam[1].in, st.R, st.T, &b, l, r, &s2, &err);
    if (!rc)
        rc = calib_surface_from_images(&st.cam[0].in, NULL, NULL, NULL, &b, l, NULL, &s1, &err);
    calib_stereo_free(&st);
    ASSERT(rc == 0, "%s", err.msg);
    if (th_accuracy())
        printf("    surface from left01/right01: origin [%.1f %.1f %.1f] mm, plane rms %.3f mm, reprojection %.3f px; "
               "mono origin [%.1f %.1f %.1f] mm\n",
               1e3 * s2.t.x, 1e3 * s2.t.y, 1e3 * s2.t.z, 1e3 * s2.plane_rms, s2.reproj_rms, 1e3 * s1.t.x,
               1e3 * s1.t.y, 1e3 * s1.t.z);
    /* a printed board is flat to ~0.1 mm; triangulation depth noise at z with a
     * b = 100 mm baseline and 0.2 px corners is z^2 * 0.2 / (533 b): ~1 mm at
     * 0.5 m along the rays, less across the plane: below 1.5 mm */
    ASSERT(s2.plane_rms < 1.5e-3, "plane rms %.3f mm", 1e3 * s2.plane_rms);
    ASSERT(s2.reproj_rms < 0.5, "board reprojects at %.3f px (calibration RMS 0.22 px)", s2.reproj_rms);
    /* mono PnP and stereo agree: within 1 deg and 3 mm (mono depth from the
     * board's apparent size: ~0.5% of ~0.5 m) */
    double dot = 0;
    for (int i = 0; i < 3; i++)
        dot += s1.R.m[i][1] * s2.R.m[i][1];
    ASSERT(acos(fmin(1, dot)) * 180 / M_PI < 1.0, "normals differ by %.3f deg", acos(fmin(1, dot)) * 180 / M_PI);
    ASSERT(icv_v3_norm(icv_v3_sub(s1.t, s2.t)) < 3e-3, "origins differ by %.2f mm",
           1e3 * icv_v3_norm(icv_v3_sub(s1.t, s2.t)));
    ASSERT(icv_v3_dot(icv_v3(s2.R.m[0][1], s2.R.m[1][1], s2.R.m[2][1]), s2.t) < 0, "y points away from the cameras");
}
