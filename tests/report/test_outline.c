/* test_outline.c: the body outline for overlays: a box's outline has its 8
 * corners where the pose puts them and projects where calib_project puts them;
 * every point of a capsule's outline lies on its surface (radius r from the
 * axis segment, or from an end centre on the caps); points behind the camera are
 * NaN and drawing them is harmless. */
#include <stdlib.h>

#include "report/report.h"
#include "tests/harness.h"

static const calib_intrinsics cam = {640, 480, 800, 800, 320, 240, {0, 0, 0, 0, 0}};

TEST(test_outline_of_a_box_has_its_corners_and_projects_like_calib)
{
    icv_shape s = {.type = ICV_SHAPE_BOX, .size = {0.2, 0.04, 0.06}};
    icv_mat3 R = icv_euler213_to_matrix(icv_v3(0.3, 0.2, 1.2));
    icv_vec3 p = icv_v3(0.01, 0.05, -0.02);
    report_outline o;
    report_outline_of_shape(&s, R, p, &o);
    ASSERT_EQ_INT(o.n_lines, 6); /* two faces, four side edges */
    /* each point is a corner: |body coordinate| = half the size on every axis */
    int total = 0;
    for (int l = 0; l < o.n_lines; l++)
        total += o.len[l];
    double worst = 0;
    for (int i = 0; i < total; i++) {
        icv_vec3 xb = icv_m3_apply(icv_m3_transpose(R), icv_v3_sub(o.pts[i], p));
        worst = fmax(worst, fabs(fabs(xb.x) - 0.1) + fabs(fabs(xb.y) - 0.02) + fabs(fabs(xb.z) - 0.03));
    }
    ASSERT_NEAR(worst, 0, 1e-12); /* rotation round trip: rounding only */
    /* the surface 1 m in front of the camera, looking down its -y */
    icv_mat3 Rc = icv_rot_x(M_PI / 2);
    icv_vec3 tc = icv_v3(0, 0, 1.0);
    double uv[2 * REPORT_OUTLINE_MAX_PTS];
    report_polyline lines[REPORT_OUTLINE_MAX_LINES];
    ASSERT_EQ_INT(report_outline_project(&o, &cam, Rc, tc, uv, lines), 6);
    calib_pt2 q;
    icv_vec3 xc = icv_v3_add(icv_m3_apply(Rc, o.pts[5]), tc);
    calib_project(&cam, &xc, 1, &q);
    ASSERT_NEAR(uv[10], q.u, 1e-9); /* the same projection: equal to rounding */
    ASSERT_NEAR(uv[11], q.v, 1e-9);
    ASSERT(lines[1].uv == uv + 2 * o.len[0], "line 1 does not start after line 0");
}

TEST(test_outline_of_a_capsule_lies_on_its_surface)
{
    icv_shape s = {.type = ICV_SHAPE_CAPSULE, .axis = {0, 1, 0}, .length = 0.3048, .radius = 0.009525};
    report_outline o;
    report_outline_of_shape(&s, icv_m3_identity(), icv_v3(0, 0, 0), &o);
    ASSERT_EQ_INT(o.n_lines, 10); /* 2 circles, 4 lines, 4 cap arcs */
    double hl = 0.3048 / 2 - 0.009525, worst = 0, top = -1;
    int total = 0;
    for (int l = 0; l < o.n_lines; l++)
        total += o.len[l];
    for (int i = 0; i < total; i++) {
        icv_vec3 x = o.pts[i];
        double y = fmax(-hl, fmin(hl, x.y)); /* nearest point of the axis segment */
        worst = fmax(worst, fabs(icv_v3_norm(icv_v3_sub(x, icv_v3(0, y, 0))) - 0.009525));
        top = fmax(top, x.y);
    }
    ASSERT_NEAR(worst, 0, 1e-12);  /* rounding only */
    ASSERT_NEAR(top, 0.3048 / 2, 1e-12); /* the caps reach the capsule's ends */
}

TEST(test_outline_behind_the_camera_is_nan_and_draws_nothing)
{
    icv_shape s = {.type = ICV_SHAPE_SPHERE, .radius = 0.05};
    report_outline o;
    report_outline_of_shape(&s, icv_m3_identity(), icv_v3(0, 0, -2), &o); /* 2 m behind */
    double uv[2 * REPORT_OUTLINE_MAX_PTS];
    report_polyline lines[REPORT_OUTLINE_MAX_LINES];
    int n = report_outline_project(&o, &cam, icv_m3_identity(), icv_v3(0, 0, 0), uv, lines);
    ASSERT_EQ_INT(n, 3);
    ASSERT(isnan(uv[0]) && isnan(uv[1]), "a point behind the camera projected to (%g, %g)", uv[0], uv[1]);
    static unsigned char gray[64 * 48];
    memset(gray, 7, sizeof gray);
    unsigned char *png = NULL, *rgb = NULL;
    size_t len;
    int w, h;
    icv_err err = {0};
    int rc = report_overlay_png(gray, 64, 48, 64, NULL, 0, lines, n, 3, &png, &len, &err);
    if (!rc)
        rc = report_png_decode_rgb(png, len, &rgb, &w, &h, &err);
    int changed = 0;
    for (int i = 0; !rc && i < w * h * 3; i++)
        changed += rgb[i] != 7;
    free(png);
    free(rgb);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(changed, 0);
}
