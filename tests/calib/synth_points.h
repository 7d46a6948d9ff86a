/* synth_points.h: point-level synthetic calibration data for tests: a known
 * camera (or rig) sees a board in random poses covering the image; corners are
 * projected with calib_project and Gaussian noise is added (GSL's RNG, seeded).
 * Image-level synthetic tests (rendered frames) wait for synth/ (issue #5). */
#ifndef ICV_TEST_SYNTH_POINTS_H
#define ICV_TEST_SYNTH_POINTS_H

#include "calib/calib.h"

#define SP_MAX_VIEWS 40
#define SP_MAX_PTS 200

typedef struct {
    calib_intrinsics in[2];
    double R[3][3], T[3];          /* rig: x2 = R x1 + T */
    calib_board board;
    int mono_only;                 /* 1: boards need only be inside camera 1's image */
    icv_vec3 X[SP_MAX_PTS];
    int n_views, n_pts;
    calib_pt2 uv[2][SP_MAX_VIEWS * SP_MAX_PTS];
    double rvec[SP_MAX_VIEWS][3], tvec[SP_MAX_VIEWS][3]; /* board in camera 1 */
    const char *names[SP_MAX_VIEWS];
    calib_observations obs[2];
} sp_data;

/* The reference camera of these tests: 1280x720, fx 1050, fy 1046, distortion of
 * a phone lens (k1 -0.12, k2 0.05, small p1 p2, k3 0). Camera 2 is a similar one
 * 120 mm to the right, turned 4 deg inwards. */
void sp_default_rig(sp_data *d);
/* n_views random poses (seeded), noise sigma px on every coordinate. */
void sp_generate(sp_data *d, int n_views, double sigma, unsigned long seed);

#endif
