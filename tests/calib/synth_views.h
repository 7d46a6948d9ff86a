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
    int n_cams, W, H;
    calib_board board;
    int n_cand;                          /* whole-board poses of synth's layout (<= SV_MAX_VIEWS) */
    int n_views;                         /* views used: the first candidates whose board was found */
    int n_missed;                        /* candidates before them whose board was not found */
    synth_board_pose pose[SV_MAX_VIEWS]; /* board in the surface frame; the used views first */
    calib_pt2 *uv[2];                    /* per camera n_views x 54 corners found, px */
    uint8_t *surf[2];                    /* the board lying on the surface, W x H, 8-bit gray */
    calib_intrinsics in[2];              /* truth */
    double R[3][3], T[3];                /* truth rig: x2 = R x1 + T, m */
    icv_mat3 surf_R;                     /* truth surface frame in camera 1: x_cam1 = R x_s + t */
    icv_vec3 surf_t;                     /* m */
} sv_set;

/* Renders synth's calibration views that show the whole board 8 px inside every
 * camera's image, for 1 (mono) or 2 (stereo) cameras at 1280x720, and finds the
 * board in them with calib's default detector until n_views views have it in every
 * camera (as a user takes shots until enough are good; n_missed counts the rest).
 * Board poses from synth's layout for `seed`; noise noise_gray gray levels rms (0 =
 * none), seeded by seed too. The stereo rig: two cameras 0.4 m apart, 0.93 m from
 * the board lying on the surface (rendered too: surf). */
int sv_render(sv_set *s, int n_cams, int n_views, double noise_gray, unsigned long seed, icv_err *err);
void sv_free(sv_set *s);

/* Calibration videos (H.264, CRF 18, 30 fps, one per camera at paths[c]) of n_poses
 * whole-board poses at width x (width 9/16) px, noise 2 gray levels, seed 1: `lead`
 * board-less frames (camera 2: lead + offset, so that its frame n + offset is
 * camera 1's frame n), then per pose a sharp frame, the same frame again (a
 * duplicated frame) and, when blur_px > 0, one frame with the board moving blur_px across the
 * image during the exposure. blurred[p] gets camera 1's number of pose p's blurred frame. s gets the
 * truth and the poses (no corners). */
int sv_video(sv_set *s, int n_cams, int width, int n_poses, int lead, int offset, double blur_px,
             const char *const *paths, long *blurred, icv_err *err);

/* The scenario the set uses (one or two cameras 16:9 of the given width, the same
 * lens scaled, the noise). */
void sv_scenario(synth_scenario *sc, int n_cams, int width, double noise_gray, unsigned long seed);

/* Detects the board in an image of camera c with calib's default detector. Returns
 * 1 when found and sharp. */
int sv_detect(const sv_set *s, int c, const uint8_t *img, calib_pt2 *uv, calib_detection *info);

/* Observations of camera c over the used views (X: the board's 54 points). */
void sv_observations(const sv_set *s, int c, icv_vec3 *X, calib_observations *o);

/* Worst projection error (px) over the whole image of the estimated distortion:
 * rays of the true model on a 17 x 10 grid spanning the image, projected through
 * the true camera matrix with the estimated and the true distortion. */
double sv_distortion_error(const calib_intrinsics *truth, const calib_intrinsics *est);

#endif
