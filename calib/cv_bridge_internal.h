/* cv_bridge_internal.h: the C interface of calib/cv_bridge.cpp, the only C++ in calib/.
 * OpenCV's C++ API is reached through these functions alone. They take plain C
 * types and report failure as a negative return and a message in msg (core.h's
 * icv_err is wrapped around them in the C files). Private to calib/.
 *
 * Arrays: points are interleaved doubles (u0 v0 u1 v1 ... in pixels, or X Y Z for
 * board points); matrices are row-major; K is 3x3, dist is k1 k2 p1 p2 k3. */
#ifndef ICV_CALIB_CV_BRIDGE_INTERNAL_H
#define ICV_CALIB_CV_BRIDGE_INTERNAL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The OpenCV version string, e.g. "4.6.0". */
const char *cvb_version(void);

/* ---- board detection ---- */
enum { CVB_DET_NONE = 0, CVB_DET_SB = 1, CVB_DET_CLASSIC = 2 };

/* Finds the cols x rows inner corners of a chessboard: the classic detector on a
 * copy scaled to at most search_max_dim pixels (when the image is larger; 0: not),
 * else findChessboardCornersSB, then the classic detector with CALIB_CB_FAST_CHECK,
 * both on a copy scaled to at most classic_max_dim pixels (bounded time), then SB on
 * the full image when checkChessboard sees a board; refined on the full image with
 * cornerSubPix in a (2*subpix_half+1)^2 window. uv: 2*cols*rows doubles.
 * *method: CVB_DET_*; *sharpness: OpenCV's estimateChessboardSharpness (mean edge
 * width in px, smaller is sharper; 0 when not found). Returns 1 found, 0 not. */
int cvb_board_detect(const unsigned char *px, int w, int h, int stride, int cols, int rows, int use_sb,
                     int search_max_dim, int classic_max_dim, int subpix_half, double *uv, int *method,
                     double *sharpness);

/* findChessboardCornersSB on the image warped by the 2x2 matrix M (row-major, the
 * translation chosen to keep the whole image; scaled down to at most max_pixels
 * when larger, 0: no bound), the corners mapped back and refined on the image as
 * in cvb_board_detect. Returns 1 found, 0 not. */
int cvb_board_detect_warped(const unsigned char *px, int w, int h, int stride, int cols, int rows, const double M[4],
                            double max_pixels, int subpix_half, double *uv, double *sharpness);

/* When no cols x rows board is found: looks for any chessboard (findChessboardCornersSB
 * with CALIB_CB_LARGER from a 3x3 seed) and returns its inner-corner size, or 0. */
int cvb_board_probe_size(const unsigned char *px, int w, int h, int stride, int *cols, int *rows);

/* ---- calibration ---- */
/* calibrateCamera (the overload with stdDeviationsIntrinsics and perViewErrors).
 * obj: 3*n_pts (one board for every view), or 3*n_pts per view when obj_per_view; uv: n_views*n_pts*2.
 * fix_k3: CALIB_FIX_K3. Out: K, dist, std_intr (fx fy cx cy k1 k2 p1 p2 k3: 9),
 * per_view (rms px per view), rvecs, tvecs (3 per view), *rms. 0 or -1. */
int cvb_calibrate_camera(int n_views, int n_pts, const double *obj, int obj_per_view, const double *uv, int w, int h, int fix_k3,
                         double *K, double *dist, double *std_intr, double *per_view, double *rvecs, double *tvecs,
                         double *rms, char *msg, size_t msg_n);

enum { CVB_STEREO_FIX_INTRINSIC = 1, CVB_STEREO_JOINT = 2 };
/* stereoCalibrate: mode CVB_STEREO_FIX_INTRINSIC (CALIB_FIX_INTRINSIC) or
 * CVB_STEREO_JOINT (CALIB_USE_INTRINSIC_GUESS | CALIB_USE_EXTRINSIC_GUESS, R, T
 * in as the start); fix_k3 adds CALIB_FIX_K3. K1 D1 K2 D2 R T in/out; E F out;
 * per_view: 2 per view (rms of camera 1, camera 2). */
int cvb_stereo_calibrate(int n_views, int n_pts, const double *obj, const double *uv1, const double *uv2, int w,
                         int h, int mode, int fix_k3, double *K1, double *D1, double *K2, double *D2, double *R,
                         double *T, double *E, double *F, double *per_view, double *rms, char *msg, size_t msg_n);

/* solvePnP (iterative, from the planar homography start): the board pose
 * x_cam = R(rvec) X + tvec. */
int cvb_solve_pnp(int n, const double *obj, const double *uv, const double *K, const double *dist, double *rvec,
                  double *tvec, char *msg, size_t msg_n);

/* undistortPoints: pixels in, normalised coordinates (x/z, y/z) out, or pixels of
 * the same K without distortion when to_pixels. */
int cvb_undistort_points(int n, const double *uv, const double *K, const double *dist, int to_pixels, double *out,
                         char *msg, size_t msg_n);

/* Undistorts packed 8-bit pixels (channels 1 or 3, stride width * channels) with K,
 * dist into out (same size; the same K for the output). */
int cvb_undistort_pixels(const unsigned char *in, int width, int height, int channels, const double *K,
                         const double *dist, unsigned char *out, char *msg, size_t msg_n);

/* ---- FileStorage ---- */
/* A writer to memory (YAML); release returns the text (malloc'd, caller frees). */
void *cvb_fs_writer_open(char *msg, size_t msg_n);
int cvb_fs_write_mat(void *fs, const char *name, int rows, int cols, const double *data);
int cvb_fs_write_real(void *fs, const char *name, double v);
int cvb_fs_write_int(void *fs, const char *name, int v);
int cvb_fs_write_str(void *fs, const char *name, const char *v);
int cvb_fs_write_strs(void *fs, const char *name, int n, const char *const *v);
int cvb_fs_writer_release(void *fs, char **text, char *msg, size_t msg_n);


#ifdef __cplusplus
}
#endif

#endif
