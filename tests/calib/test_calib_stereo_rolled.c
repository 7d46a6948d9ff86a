/* test_calib_stereo_rolled.c: a stereo rig whose second camera is rolled a quarter
 * turn about its optical axis (one camera held in portrait): a board's first row runs
 * across one image and down the other, so whether the detector numbered a pair's two
 * boards from the same end cannot be told from the row directions. The rig's geometry
 * tells (pairs_agree in stereo_calibrate.c; labels_agree in surface_frame.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "tests/calib/board_render.h"
#include "tests/calib/synth_points.h"
#include "tests/harness.h"

#define SIGMA 0.1 /* px, corner noise (as test_calib_synthetic.c) */

/* The detector's numbering: corner 0 is the end nearer the image's top-left.
 * Returns 1 when that turned the labels. */
static int number_like_the_detector(calib_pt2 *uv, int np)
{
    if (uv[0].u + uv[0].v <= uv[np - 1].u + uv[np - 1].v)
        return 0;
    for (int i = 0; i < np / 2; i++) {
        calib_pt2 t = uv[i];
        uv[i] = uv[np - 1 - i];
        uv[np - 1 - i] = t;
    }
    return 1;
}

/* The default rig with camera 2 rolled by roll_deg about its optical axis. */
static void rolled_rig(sp_data *d, double roll_deg)
{
    sp_default_rig(d);
    icv_mat3 Rz = icv_rot_z(roll_deg * M_PI / 180), R;
    memcpy(R.m, d->R, sizeof R.m);
    R = icv_m3_mul(Rz, R);
    memcpy(d->R, R.m, sizeof d->R);
    icv_v3_to_array(icv_m3_apply(Rz, icv_v3_from_array(d->T)), d->T);
}

TEST(test_calib_stereo_rolled_camera_pairs_labels_by_the_rig)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    rolled_rig(d, 90);
    sp_generate(d, 12, SIGMA, 71);
    int np = d->n_pts, cols = d->board.cols, mismatched = 0;
    for (int v = 0; v < d->n_views; v++) {
        calib_pt2 *a = d->uv[0] + v * np, *b = d->uv[1] + v * np;
        int apart = number_like_the_detector(a, np) != number_like_the_detector(b, np);
        /* the first-row rule (same direction in both images) turns camera 2's labels
         * when dot < 0: wrong when that disagrees with the truth */
        double dot = (a[cols - 1].u - a[0].u) * (b[cols - 1].u - b[0].u) +
                     (a[cols - 1].v - a[0].v) * (b[cols - 1].v - b[0].v);
        mismatched += (dot < 0) != apart;
    }
    calib_stereo st;
    icv_err err = {0};
    int rc = calib_stereo_calibrate(&d->obs[0], &d->obs[1], NULL, &st, &err);
    if (rc) {
        free(d);
        ASSERT(0, "stereo calibration of the rolled rig failed: %s", err.msg);
    }
    double bt = sqrt(d->T[0] * d->T[0] + d->T[1] * d->T[1] + d->T[2] * d->T[2]);
    icv_mat3 Rt, Re;
    memcpy(Rt.m, d->R, sizeof Rt.m);
    memcpy(Re.m, st.R, sizeof Re.m);
    double ang = icv_v3_norm(icv_rot_to_axis_angle(icv_m3_mul(Re, icv_m3_transpose(Rt)))) * 180 / M_PI;
    if (th_accuracy())
        printf("    rolled rig: the first-row rule pairs %d of %d wrongly; RMS %.4f px, baseline %.3f%% off, R %.4f "
               "deg off\n",
               mismatched, d->n_views, st.rms, 100 * fabs(st.baseline - bt) / bt, ang);
    double rms = st.rms, base_rel = fabs(st.baseline - bt) / bt;
    int used = st.n_used;
    calib_stereo_free(&st);
    free(d);
    /* the case is covered: the first-row rule would pair some wrongly */
    ASSERT(mismatched > 0, "the first-row rule pairs every pair right: the test does not cover the rolled case");
    ASSERT_EQ_INT(used, 12);
    /* corners with 0.1 px noise on each coordinate: a right pairing fits to ~0.14 px
     * (distances), 0.14 px measured; one pair paired end to end drives the joint fit
     * to pixels (6 of 6 pairs kept, 7.6 px, on a rendered rig like this) */
    ASSERT(rms < 0.2, "stereo RMS %.3f px (a pair paired end to end?)", rms);
    ASSERT(base_rel < 0.002, "baseline off by %.3f%% (issue #6: within 0.2%%)", 100 * base_rel);
    ASSERT(ang < 0.15, "relative rotation off by %.3f deg (0.055 measured)", ang);
}

#define SW 640
#define SH 480
#define SF 600.0

/* x_cam = R X + t through the test renderer's pinhole (board_render.h). */
static calib_pt2 pinhole(icv_mat3 R, icv_vec3 t, icv_vec3 X)
{
    icv_vec3 x = icv_v3_add(icv_m3_apply(R, X), t);
    return (calib_pt2){SF * x.x / x.z + (SW - 1) / 2.0, SF * x.y / x.z + (SH - 1) / 2.0};
}

TEST(test_calib_stereo_rolled_surface_pair_labels_by_the_rig)
{
    /* camera 2 0.25 m to the right, turned inwards to the board's centre and rolled a
     * quarter turn; the board lies 0.6 m in front of camera 1, tilted 50 deg back */
    icv_mat3 Rs = icv_m3_mul(icv_rot_z(M_PI / 2), icv_rot_y(atan2(0.15, 0.6)));
    icv_vec3 C2 = icv_v3(0.25, 0, 0), Ts = icv_v3_scale(icv_m3_apply(Rs, C2), -1);
    calib_board b = {7, 5, 0.03};
    icv_vec3 mid = icv_v3(3 * b.square, 2 * b.square, 0), centre = icv_v3(0.1, 0.02, 0.6);
    icv_mat3 Rb = icv_m3_identity();
    icv_vec3 tb = icv_v3(0, 0, 0);
    /* the first board yaw (in its plane, 10 deg steps) where the detector numbers the
     * two images from opposite ends and the first-row rule keeps them so: the case
     * this test is about */
    int yaw = -1;
    for (int y = 0; y < 360 && yaw < 0; y += 10) {
        Rb = icv_m3_mul(icv_rot_x(-50 * M_PI / 180), icv_rot_z(y * M_PI / 180));
        tb = icv_v3_sub(centre, icv_m3_apply(Rb, mid));
        calib_pt2 a0 = pinhole(Rb, tb, icv_v3(0, 0, 0)), an = pinhole(Rb, tb, icv_v3(6 * b.square, 4 * b.square, 0));
        calib_pt2 ar = pinhole(Rb, tb, icv_v3(6 * b.square, 0, 0));
        icv_mat3 R2 = icv_m3_mul(Rs, Rb);
        icv_vec3 t2 = icv_v3_add(icv_m3_apply(Rs, tb), Ts);
        calib_pt2 b0 = pinhole(R2, t2, icv_v3(0, 0, 0)), bn = pinhole(R2, t2, icv_v3(6 * b.square, 4 * b.square, 0));
        calib_pt2 br = pinhole(R2, t2, icv_v3(6 * b.square, 0, 0));
        /* the detector's numbering turns a board whose corner 0 is the farther from the top-left */
        int ta = a0.u + a0.v > an.u + an.v, tbn = b0.u + b0.v > bn.u + bn.v;
        double sa = ta ? -1 : 1, sb = tbn ? -1 : 1; /* the first row's direction as numbered */
        double dot = sa * sb * ((ar.u - a0.u) * (br.u - b0.u) + (ar.v - a0.v) * (br.v - b0.v));
        if (ta != tbn && dot >= 0) /* numbered from opposite ends, yet the rule keeps them */
            yaw = y;
    }
    ASSERT(yaw >= 0, "no board yaw where the first-row rule fails: the test does not cover the case");
    double rv[3], tv[3];
    icv_v3_to_array(icv_rot_to_axis_angle(Rb), rv);
    icv_v3_to_array(tb, tv);
    ASSERT_EQ_INT(board_render_pgm(th_tmp("s1.pgm"), SW, SH, SF, &b, rv, tv), 0);
    icv_v3_to_array(icv_rot_to_axis_angle(icv_m3_mul(Rs, Rb)), rv);
    icv_v3_to_array(icv_v3_add(icv_m3_apply(Rs, tb), Ts), tv);
    ASSERT_EQ_INT(board_render_pgm(th_tmp("s2.pgm"), SW, SH, SF, &b, rv, tv), 0);
    calib_intrinsics in = {SW, SH, SF, SF, (SW - 1) / 2.0, (SH - 1) / 2.0, {0, 0, 0, 0, 0}};
    double R[3][3], T[3];
    memcpy(R, Rs.m, sizeof R);
    icv_v3_to_array(Ts, T);
    calib_surface s;
    icv_err err = {0};
    char p1[1024], p2[1024]; /* th_tmp's answer lasts until its next call */
    snprintf(p1, sizeof p1, "%s", th_tmp("s1.pgm"));
    snprintf(p2, sizeof p2, "%s", th_tmp("s2.pgm"));
    ASSERT(calib_surface_from_images(&in, &in, R, T, &b, p1, p2, &s, &err) == 0,
           "board yaw %d deg: %s", yaw, err.msg);
    /* the origin is the first inner corner as camera 1 numbers it: one end or the other */
    icv_vec3 e0 = tb, e1 = icv_v3_add(icv_m3_apply(Rb, icv_v3(6 * b.square, 4 * b.square, 0)), tb);
    double off = fmin(icv_v3_norm(icv_v3_sub(s.t, e0)), icv_v3_norm(icv_v3_sub(s.t, e1)));
    icv_vec3 n_true = icv_v3(Rb.m[0][2], Rb.m[1][2], Rb.m[2][2]), n = icv_v3(s.R.m[0][1], s.R.m[1][1], s.R.m[2][1]);
    double tilt = acos(fmin(fabs(icv_v3_dot(n, n_true)), 1.0)) * 180 / M_PI;
    if (th_accuracy())
        printf("    rolled surface pair (board yaw %d deg): origin %.3f mm off, normal %.4f deg off, reprojection %.3f "
               "px\n",
               yaw, 1e3 * off, tilt, s.reproj_rms);
    /* noiseless 3x3-supersampled renderings: sub-pixel corners, so sub-millimetre
     * at 0.6 m; a pair numbered end to end triangulates to nothing board-like */
    ASSERT(off < 1e-3, "surface origin %.2f mm from either end corner", 1e3 * off);
    ASSERT(tilt < 0.2, "surface normal %.3f deg off", tilt);
    ASSERT(s.reproj_rms < 0.2, "reprojection %.3f px", s.reproj_rms);
}
