/* synth_views.h: image-level synthetic calibration data for tests. synth/ renders
 * a 9x6 board (23 mm squares) in its calibration poses through known cameras
 * (1280x720, a phone lens's distortion) with Gaussian noise of 2 gray levels
 * (issue #6's synthetic setting), and the board lying on the surface; the truth
 * (intrinsics, rig, surface frame) comes from the same scenario. */
#ifndef ICV_TEST_SYNTH_VIEWS_H
#define ICV_TEST_SYNTH_VIEWS_H

#include <stdint.h>

#include "calib/calib.h"
#include "synth/synth.h"

#define SV_MAX_VIEWS 40

typedef struct {
    synth_scenario *sc;
    int n_cams, W, H, n_views;
    calib_board board;
    synth_board_pose pose[SV_MAX_VIEWS]; /* board in the surface frame */
    uint8_t *img[2];                     /* per camera n_views x W x H, 8-bit gray */
    uint8_t *surf[2];                    /* the board lying on the surface, W x H */
    calib_intrinsics in[2];              /* truth */
    double R[3][3], T[3];                /* truth rig: x2 = R x1 + T, m */
    icv_mat3 surf_R;                     /* truth surface frame in camera 1: x_cam1 = R x_s + t */
    icv_vec3 surf_t;                     /* m */
} sv_set;

/* Renders n_views views (each showing the whole board, 8 px inside every camera's
 * image) for 1 (mono) or 2 (stereo) cameras; board poses from synth's layout for
 * `seed`, noise noise_gray gray levels rms (0 = none), seeded by seed too. The
 * stereo rig: two cameras 0.4 m apart, 0.9 m from the board on the surface. */
int sv_render(sv_set *s, int n_cams, int n_views, double noise_gray, unsigned long seed, icv_err *err);
void sv_free(sv_set *s);

/* The scenario the set uses (one or two cameras, the noise), for renders of other
 * board poses (e.g. a calibration video). */
void sv_scenario(synth_scenario *sc, int n_cams, double noise_gray, unsigned long seed);

/* Detects the board in view v of camera c (v = -1: the surface image) with calib's
 * default detector. Returns 1 when found and sharp. */
int sv_detect(const sv_set *s, int c, int v, calib_pt2 *uv, calib_detection *info);

/* Detects the board in every view of every camera (uv: n_cams x n_views x 54,
 * camera-major); keep[v] = 1 when it was found sharp in every camera. Returns the
 * number of views kept. */
int sv_detect_all(const sv_set *s, calib_pt2 *uv, int *keep);
/* Observations of camera c over the kept views: uv_out holds the kept
 * views' corners (n_views x 54), X the board's 54 points. */
void sv_observations(const sv_set *s, int c, const calib_pt2 *uv, const int *keep, calib_pt2 *uv_out, icv_vec3 *X,
                     calib_observations *o);

/* Worst projection error (px) over the whole image of the estimated distortion:
 * rays of the true model on a 17 x 10 grid spanning the image, projected through
 * the true camera matrix with the estimated and the true distortion. */
double sv_distortion_error(const calib_intrinsics *truth, const calib_intrinsics *est);

#endif
