/* board_render.h: test helper: a chessboard rendered through a pinhole camera
 * (no distortion), 3x3 supersampled, written as a binary PGM that OpenCV reads.
 * Inner corner (c, r) is at board point (c*square, r*square, 0); a white margin of
 * one square surrounds the (cols+1) x (rows+1) squares; the background is gray. */
#ifndef ICV_TEST_BOARD_RENDER_H
#define ICV_TEST_BOARD_RENDER_H

#include "calib/calib.h"

/* Board pose x_cam = R(rvec) X + t. Returns 0 or -1. */
int board_render_pgm(const char *path, int w, int h, double f, const calib_board *b, const double rvec[3],
                     const double t[3]);
/* The same on a background of the given gray (0-255), with Gaussian noise of
 * noise_sd gray levels (a pixel's own draw, from seed) added to every pixel. */
int board_render_pgm_on(const char *path, int w, int h, double f, const calib_board *b, const double rvec[3],
                        const double t[3], double background, double noise_sd, unsigned long seed);
/* A board lying dist_m in front of the camera, its middle on the optical axis: board
 * y away from the camera, tilted until the line of sight grazes it at elevation_deg,
 * turned yaw_deg about its normal and the image rolled roll_deg (a slope). Its pose
 * for the renderers (rvec, t) and its corners' true image points truth[rows * cols]
 * (px; focal f px, the principal point at the centre of a w x h image). */
void board_pose_lying(const calib_board *b, double dist_m, double elevation_deg, double yaw_deg, double roll_deg,
                      int w, int h, double f, double rvec[3], double t[3], calib_pt2 *truth);
/* A board-less image (a smooth gradient with a few blobs). */
int blank_render_pgm(const char *path, int w, int h);

#endif
