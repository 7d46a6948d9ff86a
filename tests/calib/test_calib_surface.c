/* test_calib_surface.c: the surface frame against known truth: a board lying on a
 * table 0.9 m from a known rig, seen obliquely, corners with 0.1 px noise; the
 * contract's axes (origin at the first corner, x along the first row, y the normal
 * towards the cameras, z = x cross y); surface.plane and the one-camera line. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "tests/calib/synth_points.h"
#include "tests/harness.h"

static double angle_deg(icv_vec3 a, icv_vec3 b)
{
    return acos(fmax(-1, fmin(1, icv_v3_dot(icv_v3_unit(a), icv_v3_unit(b))))) * 180 / M_PI;
}

static icv_vec3 col(icv_mat3 m, int c) { return icv_v3(m.m[0][c], m.m[1][c], m.m[2][c]); }

/* The table board: 1.1 m in front, 0.25 m below camera 1, tilted 55 deg back
 * (the cameras look down on it), turned 10 deg about its normal. */
static void table_pose(icv_mat3 *Rb, icv_vec3 *tb)
{
    *Rb = icv_m3_mul(icv_rot_x(-55 * M_PI / 180), icv_rot_z(10 * M_PI / 180));
    *tb = icv_v3(-0.15, 0.12, 0.9);
}

static void project_board(const sp_data *d, icv_mat3 Rb, icv_vec3 tb, double sigma, calib_pt2 *uv1, calib_pt2 *uv2)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    icv_mat3 Rs;
    memcpy(Rs.m, d->R, sizeof Rs.m);
    int np = d->board.cols * d->board.rows;
    for (int i = 0; i < np; i++) {
        icv_vec3 x1 = icv_v3_add(icv_m3_apply(Rb, d->X[i]), tb);
        icv_vec3 x2 = icv_v3_add(icv_m3_apply(Rs, x1), icv_v3_from_array(d->T));
        calib_project(&d->in[0], &x1, 1, &uv1[i]);
        calib_project(&d->in[1], &x2, 1, &uv2[i]);
        uv1[i].u += gsl_ran_gaussian(r, sigma), uv1[i].v += gsl_ran_gaussian(r, sigma);
        uv2[i].u += gsl_ran_gaussian(r, sigma), uv2[i].v += gsl_ran_gaussian(r, sigma);
    }
    gsl_rng_free(r);
}

TEST(test_calib_surface_stereo_normal_within_0_1_deg_origin_within_0_5_mm)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    calib_board_points(&d->board, d->X);
    icv_mat3 Rb;
    icv_vec3 tb;
    table_pose(&Rb, &tb);
    calib_pt2 uv1[54], uv2[54];
    project_board(d, Rb, tb, 0.1, uv1, uv2);
    calib_surface s;
    icv_err err = {0};
    int rc = calib_surface_from_stereo(&d->in[0], &d->in[1], d->R, d->T, &d->board, uv1, uv2, &s, &err);
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    /* truth: y is the board normal turned towards the cameras (col 2 of Rb points
     * away from them here: board z = x cross y with y along the columns, down) */
    icv_vec3 n = col(Rb, 2);
    if (icv_v3_dot(n, tb) > 0)
        n = icv_v3_scale(n, -1);
    ASSERT(angle_deg(col(s.R, 1), n) < 0.1, "normal off by %.4f deg (issue #6: 0.1 deg)", angle_deg(col(s.R, 1), n));
    ASSERT(icv_v3_norm(icv_v3_sub(s.t, tb)) < 0.5e-3, "origin off by %.3f mm (issue #6: 0.5 mm)",
           1e3 * icv_v3_norm(icv_v3_sub(s.t, tb)));
    ASSERT(angle_deg(col(s.R, 0), col(Rb, 0)) < 0.1, "x axis off by %.4f deg", angle_deg(col(s.R, 0), col(Rb, 0)));
    /* contract: y towards the cameras, z = x cross y, a rotation */
    ASSERT(icv_v3_dot(col(s.R, 1), s.t) < 0, "y points away from the cameras");
    ASSERT_NEAR(icv_m3_det(s.R), 1.0, 1e-9);
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(icv_v3_cross(col(s.R, 0), col(s.R, 1)), col(s.R, 2))), 0, 1e-9);
    /* residual of the plane fit: depth noise of triangulation z^2 sigma_d / (f b)
     * = 0.81 * 0.14 / (1050 * 0.12) ~ 0.9 mm along the rays; the plane-normal part
     * is smaller: between 0.2 and 1 mm */
    ASSERT(s.plane_rms > 0.2e-3 && s.plane_rms < 1e-3, "plane rms %.4f mm", 1e3 * s.plane_rms);
    ASSERT(s.reproj_rms < 0.3, "board reprojects at %.3f px with 0.1 px noise", s.reproj_rms);
}

TEST(test_calib_surface_mono_pnp_gives_contract_axes)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    calib_board_points(&d->board, d->X);
    icv_mat3 Rb;
    icv_vec3 tb;
    table_pose(&Rb, &tb);
    calib_pt2 uv1[54], uv2[54];
    project_board(d, Rb, tb, 0.1, uv1, uv2);
    calib_surface s;
    icv_err err = {0};
    int rc = calib_surface_from_view(&d->in[0], &d->board, uv1, &s, &err);
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    icv_vec3 n = col(Rb, 2);
    if (icv_v3_dot(n, tb) > 0)
        n = icv_v3_scale(n, -1);
    /* one camera: depth from the board's apparent size, so looser than stereo:
     * 0.1 px on a ~350 px board is ~3e-4 relative, ~0.3 mm at 0.9 m; angles ~0.1 deg */
    ASSERT(angle_deg(col(s.R, 1), n) < 0.3, "normal off by %.4f deg", angle_deg(col(s.R, 1), n));
    ASSERT(icv_v3_norm(icv_v3_sub(s.t, tb)) < 2e-3, "origin off by %.3f mm", 1e3 * icv_v3_norm(icv_v3_sub(s.t, tb)));
    ASSERT(icv_v3_dot(col(s.R, 1), s.t) < 0, "y points away from the camera");
    ASSERT_NEAR(icv_m3_det(s.R), 1.0, 1e-9);
}

TEST(test_calib_surface_plane_turns_normal_towards_camera)
{
    calib_surface s;
    icv_err err = {0};
    /* a floor 0.5 m below the camera (y down), normal given pointing down (away) */
    ASSERT_EQ_INT(calib_surface_from_plane(icv_v3(0, 0.5, 1.0), icv_v3(0, 2, 0), &s, &err), 0);
    ASSERT_NEAR(s.R.m[1][1], -1.0, 1e-12); /* y = (0,-1,0): up, towards the camera */
    ASSERT_NEAR(s.R.m[0][0], 1.0, 1e-12);  /* x: camera x projected into the plane */
    ASSERT_NEAR(icv_m3_det(s.R), 1.0, 1e-12);
    ASSERT_NEAR(s.t.y, 0.5, 0);
    ASSERT(calib_surface_from_plane(icv_v3(0, 0, 1), icv_v3(0, 0, 0), &s, &err) == ICV_EINVAL, "zero normal");
    ASSERT_STR_CONTAINS(err.msg, "surface.plane.normal");
}

TEST(test_calib_surface_line_px_in_motion_plane)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    calib_board_points(&d->board, d->X);
    calib_intrinsics in = d->in[0];
    /* motion plane: a board facing the camera 1 m away, turned 20 deg about y */
    icv_mat3 Rb = icv_rot_y(20 * M_PI / 180);
    icv_vec3 tb = icv_v3(-0.15, -0.1, 1.0);
    calib_pt2 uv[54];
    for (int i = 0; i < 54; i++) {
        icv_vec3 x = icv_v3_add(icv_m3_apply(Rb, d->X[i]), tb);
        calib_project(&in, &x, 1, &uv[i]);
    }
    free(d);
    calib_surface plane, s;
    icv_err err = {0};
    ASSERT(calib_motion_plane_from_view(&in, &(calib_board){9, 6, 0.04}, uv, &plane, &err) == 0, "%s", err.msg);
    /* the surface line: two points of the plane, 0.3 m apart along the board's x,
     * 0.15 m down its y (lower in the image) */
    icv_vec3 P1 = icv_v3_add(icv_m3_apply(Rb, icv_v3(0.0, 0.15, 0)), tb);
    icv_vec3 P2 = icv_v3_add(icv_m3_apply(Rb, icv_v3(0.3, 0.15, 0)), tb);
    calib_pt2 q[2];
    calib_project(&in, &P1, 1, &q[0]);
    calib_project(&in, &P2, 1, &q[1]);
    double line[2][2] = {{q[0].u, q[0].v}, {q[1].u, q[1].v}};
    ASSERT(calib_surface_from_line_px(&in, &plane, line, &s, &err) == 0, "%s", err.msg);
    /* exact data: only PnP's convergence (1e-9 m level) */
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(s.t, P1)), 0, 1e-6);
    ASSERT(angle_deg(col(s.R, 0), icv_v3_sub(P2, P1)) < 1e-4, "x not along the line");
    ASSERT(angle_deg(col(s.R, 2), col(Rb, 2)) < 1e-4 || angle_deg(col(s.R, 2), col(Rb, 2)) > 180 - 1e-4,
           "z not normal to the motion plane");
    /* y towards the image top (smaller v): the body falls from above */
    icv_vec3 up = icv_v3_axpy(0.05, col(s.R, 1), s.t);
    calib_pt2 pu;
    calib_project(&in, &up, 1, &pu);
    ASSERT(pu.v < q[0].v, "y points down the image (v %.1f -> %.1f)", q[0].v, pu.v);
    ASSERT_NEAR(icv_m3_det(s.R), 1.0, 1e-9);
}
