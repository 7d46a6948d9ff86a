/* calib.h: camera calibration from checkerboard shots.
 *
 * Board detection (OpenCV's findChessboardCornersSB, then the classic detector),
 * mono calibration with OpenCV's 5-parameter distortion model, standard errors of
 * every intrinsic, outlier-view rejection, a coverage map and a verdict; stereo
 * calibration (R, T, E, F, baseline with its standard error); the surface frame
 * from a board lying on the surface; OpenCV FileStorage YAML out, its YAML or XML in;
 * undistortion of points and images.
 *
 * Frames and units (docs/conventions.md): pixels with the top-left pixel's centre at
 * (0, 0); camera frame x right, y down, z forward; metres. A board pose maps board
 * to camera, x_cam = R X_board + t; the board frame has X along the detector's
 * first row of inner corners, Y along its columns, Z = 0 on the board.
 * Stereo: x_2 = R x_1 + T (second camera from the first). */
#ifndef ICV_CALIB_H
#define ICV_CALIB_H

#include "core/core.h"

/* An 8-bit gray image; pixel (u, v) is data[v * stride + u], pixel centres at
 * integer coordinates (OpenCV's convention). */
typedef struct {
    int width, height, stride; /* pixels */
    unsigned char *data;       /* owned by the image; free with calib_image_free */
} calib_image;

/* Reads PNG, JPEG, TIFF, ... as gray (colour converted with OpenCV's luma). */
int calib_image_read_gray(const char *path, calib_image *img, icv_err *err);
void calib_image_free(calib_image *img);

/* OpenCV's version, for --version. */
const char *calib_opencv_version(void);
/* libxml2's, as linked ("2.9.14"; it reads XML calibration files), for --version. */
const char *calib_libxml2_version(void);

/* ---- the board ---------------------------------------------------------- */

typedef struct {
    int cols, rows; /* inner corners along a row, along a column */
    double square;  /* m, side of one square */
} calib_board;

/* Parses the CLI's "COLSxROWS@SQUARE" (e.g. "9x6@0.023", square in metres). */
int calib_board_parse(const char *spec, calib_board *b, icv_err *err);
/* The board's inner corners in the board frame, in the detector's order:
 * point i = (col * square, row * square, 0) with i = row * cols + col. m. */
void calib_board_points(const calib_board *b, icv_vec3 *pts);

typedef struct {
    double u, v; /* px */
} calib_pt2;

/* ---- detection ---------------------------------------------------------- */

typedef enum { CALIB_DETECT_NONE = 0, CALIB_DETECT_SB = 1, CALIB_DETECT_CLASSIC = 2 } calib_detect_method;

/* Detector settings; calib_detector_defaults fills them. */
typedef struct {
    int use_sb;          /* 1: findChessboardCornersSB first (default 1) */
    int search_max_dim;  /* px: the board is looked for first on a copy scaled to at
                          * most this (default 640), its corners then refined on the
                          * full image; when it is not found there, the detectors below
                          * run as before. 0: no such first look */
    int classic_max_dim; /* px: both detectors run on a copy scaled to at most this
                          * (default 800; corners are then refined on the full image);
                          * bounds their time on large images */
    int subpix_half;     /* px: cornerSubPix's winSize (a half-width: the window is
                          * 2*half+1 wide). Default 5, the data README's "5x5" reference
                          * run (OpenCV's winSize=(5,5)); winSize (11,11) drags corners by
                          * up to 6 px on the Bouguet set. Shrunk to 0.3 x the smallest
                          * square (px) so the window never holds two corners. */
    double max_sharpness;/* px: views whose board edges are wider than this
                          * (estimateChessboardSharpness) are rejected as blurred (default 5) */
    int refine_symmetry; /* 1: after cornerSubPix, move each corner to its centre of
                          * point symmetry (corner_symmetry.c; default 1). Rendered tilted
                          * boards: 0.054 -> 0.008 px rms. 0: cornerSubPix only */
    int threads;         /* images of a list detected at once (calib_camera_from_images,
                          * calib_stereo_from_images): 0 (default) one per core this
                          * process may run on; 1 one after another. The corners do not
                          * depend on it */
    int foreshortened;   /* 1: when the board is not found, look again on copies of the
                          * image warped so that its two strongest edge directions are
                          * square (a board lying on the surface seen from low down, or
                          * turned far from the camera: SB misses squares much narrower
                          * one way than the other). Up to 9 more SB runs (0.1-0.6 s each),
                          * so for one image known to hold the board (default 0) */
} calib_detector;

void calib_detector_defaults(calib_detector *d);

/* Refines n corners (px) in place to their centres of point symmetry within
 * +-half_window_px (at most 4); corners near the image edge or that would move more
 * than 1 px are left as they are. Returns how many moved. */
int calib_corners_refine_symmetry(const calib_image *img, calib_pt2 *uv, int n, double half_window_px);
/* The same with its scratch allocated once (a board followed in every frame of a
 * video allocates nothing per frame: job/tilt_track.c). NULL from _alloc when out
 * of memory or half_window_px < 2 (then nothing is refined). */
typedef struct calib_symmetry_ws calib_symmetry_ws;
calib_symmetry_ws *calib_symmetry_ws_alloc(double half_window_px);
void calib_symmetry_ws_free(calib_symmetry_ws *ws);
int calib_corners_refine_symmetry_ws(calib_symmetry_ws *ws, const calib_image *img, calib_pt2 *uv, int n);

/* Repairs corners the detector misplaced (by more than cornerSubPix's small window
 * can pull back): each corner is compared with the position its grid neighbours
 * predict; the worst that disagrees by more than max(0.5 px, 5% of the spacing) is re-found from that
 * prediction by point symmetry and replaced when the image is clearly more
 * symmetric there (so a good corner is never moved). cols x rows corners, row by
 * row. Returns how many were replaced. */
int calib_corners_repair(const calib_image *img, calib_pt2 *uv, int cols, int rows, double half_window_px);

typedef struct {
    int found;                  /* 1 the full board was found */
    calib_detect_method method;
    double sharpness;           /* px, mean edge width (smaller is sharper); 0 if not found */
    double seconds;             /* s, wall time of the detection */
    int probe_cols, probe_rows; /* when not found: size of a board that was seen, else 0 */
} calib_detection;

/* Finds the board's cols*rows inner corners (uv, px, detector order: row by row,
 * corner 0 at the end of the board nearer the image's top-left). Never
 * fails: an image without the board gives info->found = 0. When probe is set and
 * the board is not found, looks for a board of any size (info->probe_*). */
void calib_board_detect(const calib_detector *d, const calib_image *img, const calib_board *b, int probe,
                        calib_pt2 *uv, calib_detection *info);

/* ---- the camera model --------------------------------------------------- */

/* OpenCV's pinhole model with k1 k2 p1 p2 k3 (Brown-Conrady). */
typedef struct {
    int width, height;      /* px */
    double fx, fy, cx, cy;  /* px */
    double dist[5];         /* k1 k2 p1 p2 k3 (dimensionless) */
} calib_intrinsics;

/* Projects camera-frame points (m) to pixels with the distortion model. */
void calib_project(const calib_intrinsics *in, const icv_vec3 *x_cam, int n, calib_pt2 *uv);
/* Board points through a pose (x_cam = R(rvec) X + t, rvec axis-angle rad, t m). */
void calib_project_pose(const calib_intrinsics *in, const double rvec[3], const double t[3], const icv_vec3 *X,
                        int n, calib_pt2 *uv);
/* Removes distortion: pixels in, undistorted pixels of the same K out (or
 * normalised x/z, y/z when normalized is set). */
int calib_undistort_points(const calib_intrinsics *in, const calib_pt2 *uv, int n, int normalized, calib_pt2 *out,
                           icv_err *err);
/* Writes an undistorted copy of an image file (format from out's extension). */
int calib_undistort_image_file(const calib_intrinsics *in, const char *image, const char *out, icv_err *err);

/* ---- the surface frame ---------------------------------------------------- */

/* The surface frame in the reference camera's frame: x_cam = R x_surface + t
 * (contract: origin at the first inner corner as the detector orders them, x along
 * the first row, y the normal towards the cameras, z = x cross y). */
typedef struct {
    icv_mat3 R;              /* columns: surface x, y, z axes in camera coordinates */
    icv_vec3 t;              /* m, the origin in camera coordinates */
    double plane_rms;        /* m, RMS distance of the board's corners to the fitted plane
                              * (stereo: triangulated corners; mono: 0, the board is the model) */
    double reproj_rms;       /* px, board model reprojected through the frame */
    int n_points;
    /* stereo: 1-sigma of the frame from its corners' scatter (the board pose's
     * covariance s^2 (J^T J)^-1, surface_uncertainty.c), with the calibration's
     * part when sd_with_calibration; 0 when unknown */
    double turn_sd[3];       /* rad, of a turn about the frame's x (tilt), y (heading), z (tilt) */
    double offset_sd;        /* m, of the origin along y (the normal) */
    int sd_with_calibration; /* 1: turn_sd, offset_sd include the stereo calibration's
                              * part (calib_surface_add_calibration_sd) */
} calib_surface;

/* (its type: stereo calibration, below) */
typedef struct calib_stereo_cov calib_stereo_cov;

/* Mono: solvePnP of the board seen by one calibrated camera. */
int calib_surface_from_view(const calib_intrinsics *in, const calib_board *b, const calib_pt2 *uv,
                            calib_surface *s, icv_err *err);
/* The same with the board's points X (calib_board_points, m) given: a caller posing
 * the board in every frame makes them once (OpenCV's solvePnP still allocates inside). */
int calib_surface_from_view_points(const calib_intrinsics *in, const calib_board *b, const icv_vec3 *X,
                                   const calib_pt2 *uv, calib_surface *s, icv_err *err);
/* Stereo: triangulates every corner, fits the plane (least squares, SVD) and the
 * board's in-plane axes (Kabsch), in camera 1's frame; turn_sd and offset_sd from
 * the corners' reprojection scatter. */
int calib_surface_from_stereo(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                              const double T[3], const calib_board *b, const calib_pt2 *uv1,
                              const calib_pt2 *uv2, calib_surface *s, icv_err *err);
/* The stereo calibration's part of the surface frame's sigmas, added in
 * quadrature to s->turn_sd and s->offset_sd (which hold the corners' part, from
 * calib_surface_from_stereo): how far the frame, found again from the same board
 * with the rig moved along the calibration's covariance, turns and moves against
 * points triangulated with that rig in the space a body flies through above the
 * board (the tracks are triangulated with the same rig, so most of a rig error
 * moves both alike and cancels; docs/calib.md). Sets s->sd_with_calibration. */
int calib_surface_add_calibration_sd(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                                     const double T[3], const calib_stereo_cov *cov, const calib_board *b,
                                     calib_surface *s, icv_err *err);
/* From images of the board lying on the surface (one per camera; uv2 may be NULL). */
int calib_surface_from_images(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                              const double T[3], const calib_board *b, const char *img1, const char *img2,
                              calib_surface *s, icv_err *err);
/* From the experiment's `surface.plane` (point, normal in the reference camera
 * frame, m): origin at point, y the normal turned towards the camera, x the camera's
 * x axis projected into the plane (the contract leaves x free here), z = x cross y. */
int calib_surface_from_plane(icv_vec3 point, icv_vec3 normal, calib_surface *s, icv_err *err);

/* One-camera mode. The motion plane from a board held in it (its pose, as above),
 * then the surface line from two pixels on it (`surface.line_px`): rays through
 * them meet the motion plane at P1, P2; x = (P2 - P1)/|P2 - P1|, z the motion
 * plane's normal chosen so that y = z cross x points to the image's top side of
 * the line (where the body falls from in an upright camera), origin P1. */
int calib_motion_plane_from_view(const calib_intrinsics *in, const calib_board *b, const calib_pt2 *uv,
                                 calib_surface *plane, icv_err *err);
int calib_surface_from_line_px(const calib_intrinsics *in, const calib_surface *motion_plane,
                               const double line_px[2][2], calib_surface *s, icv_err *err);

/* ---- mono calibration --------------------------------------------------- */

/* Observations of one board in several views. */
typedef struct {
    int n_points;               /* corners per view */
    const icv_vec3 *board;      /* n_points board points, board frame, m (z = 0); or
                                 * n_views * n_points when board_per_view */
    int n_views;
    const calib_pt2 *uv;        /* n_views * n_points, px */
    const char *const *names;   /* n_views view names (may be NULL) */
    int width, height;          /* px */
    int board_per_view;         /* 1: each view has its own labelling of the board points
                                 * (other tools' corner files) */
} calib_observations;

/* The board points of view v. */
static inline const icv_vec3 *calib_obs_board(const calib_observations *o, int v)
{
    return o->board + (o->board_per_view ? (size_t)v * o->n_points : 0);
}

/* How calibration views are sampled from a video (calib_camera_from_clip,
 * calib_stereo_from_clips). */
typedef struct {
    int max_examined;      /* frames (pairs) the board is looked for in, at most: every k-th
                            * frame with k = ceil(frames / max_examined), which bounds the
                            * time (detection is 0.01-0.03 s a 1280x720 frame with the
                            * board, 0.06 s without; default 150) */
    int max_views;         /* views kept, at most (default 25) */
    double min_change;     /* a sharp view is kept only when its corners lie at least this
                            * fraction of the image diagonal (RMS over the corners) from those
                            * of every view kept already; duplicates and a board held still
                            * are not kept twice (default 0.02: 29 px at 1280x720) */
    long offset;           /* stereo: frame n of camera 1 pairs with frame n + offset of
                            * camera 2 (frames; default 0) */
} calib_video_options;

typedef struct {
    int fix_k3;            /* 1 (default): k3 = 0, as phone lenses need (k3 is poorly
                            * determined from a few views and over-fits the edges) */
    double outlier_factor; /* a view whose RMS exceeds factor x the median view RMS
                            * (and 0.1 px above it) is dropped and the camera re-calibrated
                            * (default 3) */
    int min_views;         /* fewer usable views is an error (default 4 mono, 5 stereo pairs) */
    calib_detector detector;
    calib_video_options video; /* video input only */
} calib_options;

void calib_options_defaults(calib_options *o);

#define CALIB_NAME_MAX 256
#define CALIB_COV_COLS 16
#define CALIB_COV_ROWS 12
#define CALIB_VERDICT_MAX 2048

typedef enum {
    CALIB_VIEW_USED = 0,     /* in the final solution */
    CALIB_VIEW_OUTLIER = 1,  /* dropped: reprojection error far above the median */
    CALIB_VIEW_NO_BOARD = 2, /* the full board was not found */
    CALIB_VIEW_BLURRED = 3,  /* board edges wider than detector.max_sharpness */
    CALIB_VIEW_UNPAIRED = 4, /* stereo: the other camera's view of the pair lacks the board */
} calib_view_status;

typedef struct {
    char name[CALIB_NAME_MAX];
    calib_view_status status;
    double rms;             /* px, reprojection RMS in this view (0 when not solved) */
    double rvec[3], tvec[3];/* board pose: x_cam = R(rvec) X + tvec; rad, m */
    double sharpness;       /* px (see calib_detection) */
    calib_detect_method method;
    long frame;             /* video input: the view's frame number (camera 1's), from 0 */
} calib_view;

/* How the views were sampled from a video (all 0 for image input). */
typedef struct {
    int from_video;         /* 1: the views are frames of a video */
    long frames;            /* frames (stereo: pairs of frames) in the clip */
    long step;              /* every step-th frame was examined */
    int examined;           /* frames (pairs) the board was looked for in */
    int found;              /* the full board found (in both views) */
    int blurred;            /* found but rejected as motion-blurred (either view) */
    int similar;            /* sharp but closer than min_change to a kept view */
    int surplus;            /* sharp and distinct, left out by max_views */
    int kept;               /* views given to the calibration */
} calib_sampling;

typedef struct {
    calib_board board;      /* the board's size (from the observations) */
    calib_intrinsics in;
    calib_intrinsics std;   /* one standard error of each intrinsic (width, height = 0);
                             * from J^T J at the solution, sigma^2 = SSR/(2N - p) */
    double rms;             /* px, over the used views */
    int n_views;            /* views given */
    int n_used;
    calib_view *views;      /* n_views, owned; free with calib_camera_free */
    /* coverage: which cells of a CALIB_COV_COLS x CALIB_COV_ROWS grid over the
     * image hold at least one corner of a used view */
    unsigned short coverage_map[CALIB_COV_ROWS][CALIB_COV_COLS]; /* corners per cell */
    double coverage;        /* fraction of cells hit, 0..1 */
    int verdict_ok;         /* 1 good enough to measure with */
    char verdict[CALIB_VERDICT_MAX]; /* one reason per line */
    int has_surface;        /* 1: surface holds the surface frame (written to the file) */
    calib_surface surface;
    calib_sampling sampling;/* video input: how the views were chosen */
} calib_camera;

/* Calibrates from observations: calibrateCamera, then drops outlier views and
 * re-calibrates, then fills standard errors, coverage and the verdict. */
int calib_camera_calibrate(const calib_observations *obs, const calib_options *opt, calib_camera *cam,
                           icv_err *err);
/* Reads the images, detects the board, calibrates. Fails with one line on an
 * unreadable image, images of different sizes, no board anywhere (listing the
 * images and saying when a board of another size was seen), or too few views. */
int calib_camera_from_images(char *const *paths, size_t n, const calib_board *b, const calib_options *opt,
                             calib_camera *cam, icv_err *err);
void calib_camera_free(calib_camera *cam);

/* ---- stereo calibration ------------------------------------------------- */

/* The joint stereo solution's parameter covariance (stereo_uncertainty.c), in the
 * order fx fy cx cy k1 k2 p1 p2 [k3] of camera 1 (px, px, px, px, 1...), the same
 * of camera 2, om (rad, R's axis-angle vector), T (m): n = 22 (k3 fixed) or 24;
 * 0 unknown. Written to the file as params_cov. */
#define CALIB_STEREO_NCOV 24
struct calib_stereo_cov {
    int n;
    double c[CALIB_STEREO_NCOV][CALIB_STEREO_NCOV];
};

typedef struct {
    char name1[CALIB_NAME_MAX], name2[CALIB_NAME_MAX];
    calib_view_status status;
    double rms1, rms2;      /* px, reprojection RMS in each camera (joint solution) */
    double epipolar;        /* px, mean distance of undistorted points to their epipolar lines */
} calib_pair;

typedef struct {
    calib_camera cam[2];    /* intrinsics after the joint refinement; views are the pairs' */
    double R[3][3], T[3];   /* x_2 = R x_1 + T, m */
    double E[3][3], F[3][3];/* essential, fundamental (pixels of the distorted-free images) */
    double om_std[3];       /* rad, standard error of R's axis-angle vector */
    double T_std[3];        /* m */
    double baseline, baseline_std; /* m, |T| and its standard error */
    calib_stereo_cov cov;   /* the parameters' covariance (above) */
    double rms;             /* px, over both cameras and the used pairs */
    double epipolar;        /* px, mean over used pairs */
    int n_pairs, n_used;
    calib_pair *pairs;      /* n_pairs, owned */
    int verdict_ok;
    char verdict[CALIB_VERDICT_MAX];
    int has_surface;        /* 1: surface holds the surface frame, camera 1's frame */
    calib_surface surface;
    calib_sampling sampling;/* video input: how the pairs were chosen */
} calib_stereo;

/* Stereo from observations of the same board in both cameras (view i of o1 and
 * o2 is one pair): mono intrinsics, stereoCalibrate with them fixed, then the
 * joint refinement; standard errors from the joint Jacobian. */
int calib_stereo_calibrate(const calib_observations *o1, const calib_observations *o2, const calib_options *opt,
                           calib_stereo *st, icv_err *err);
/* From two image lists paired by sorted order; pairs where either view lacks the
 * board are skipped and listed (status CALIB_VIEW_NO_BOARD / UNPAIRED). */
int calib_stereo_from_images(char *const *p1, size_t n1, char *const *p2, size_t n2, const calib_board *b,
                             const calib_options *opt, calib_stereo *st, icv_err *err);
void calib_stereo_free(calib_stereo *st);

/* ---- video input ---------------------------------------------------------- */

/* 1 when a calibration input names a video: an existing regular file whose
 * extension is not a still image's (png jpg jpeg tif tiff bmp pgm ppm pnm pbm webp
 * jp2 exr hdr sr ras); globs, folders and image files give 0. */
int calib_input_is_video(const char *arg);

/* A clip's frames, handed in by the caller (job/ decodes videos with capture/;
 * calib/ never opens one). */
typedef struct {
    const char *name;   /* for messages and view names ("NAME frame N"): the file */
    int width, height;  /* px */
    long frames;        /* frames 0 .. frames - 1 may be asked for */
    void *ctx;
    /* Frame n as 8-bit gray into *img (valid until the next call): 0, or non-zero
     * when it cannot be decoded (err says why; the frame is skipped). */
    int (*frame)(void *ctx, long n, calib_image *img, icv_err *err);
} calib_clip;

/* Mono calibration from a clip: the board is looked for in every k-th frame
 * (opt->video.max_examined at most), views whose board edges are wider than
 * detector.max_sharpness are rejected as motion-blurred, and up to video.max_views
 * views are kept by greedy farthest-point selection on the RMS distance between
 * corner sets (the sharpest first), never closer than video.min_change; then
 * calib_camera_calibrate. cam->views holds the kept views (names "CLIP frame N",
 * frame set), cam->sampling the counts. Fails with one line on no board in any
 * examined frame (saying when a board of another size was seen), or too few
 * distinct sharp views. */
int calib_camera_from_clip(const calib_clip *clip, const calib_board *b, const calib_options *opt, calib_camera *cam,
                           icv_err *err);
/* Stereo from two synchronised clips: frame n of the first pairs with frame n +
 * opt->video.offset of the second; a pair is a candidate when both views show the
 * whole board sharply; distance between pairs is the RMS of both cameras'. */
int calib_stereo_from_clips(const calib_clip *clip1, const calib_clip *clip2, const calib_board *b,
                            const calib_options *opt, calib_stereo *st, icv_err *err);

/* ---- files (OpenCV FileStorage YAML, the contract's names) -------------- */

/* Mono: image_width, image_height, camera_matrix, distortion_coefficients, rms,
 * per_view_errors, camera_matrix_std, distortion_coefficients_std, plus extras.
 * Written atomically. */
int calib_camera_write(const calib_camera *cam, const char *path, icv_err *err);
/* Stereo: image_width, image_height, M1, D1, M2, D2, R, T, E, F, rms, *_std,
 * baseline, per-pair errors. Written atomically. */
int calib_stereo_write(const calib_stereo *st, const char *path, icv_err *err);

/* Reads one camera from an OpenCV YAML/XML file, ours or another tool's:
 * camera_matrix / cameraMatrix / K / M1 (camera 1) or M2 (camera 2) with
 * distortion_coefficients / distCoeffs / dist_coeffs / D / D1 / D2 (4, 5, 8, 12 or
 * 14 values; any beyond k3 must be 0). which: 0 = mono or first camera, 1 = second. */
int calib_intrinsics_read(const char *path, int which, calib_intrinsics *in, calib_intrinsics *std, icv_err *err);
/* The surface frame a calibration file carries (surface_R, surface_t,
 * surface_plane_rms, surface_reproj_rms; written when has_surface is set):
 * 0, ICV_ENOTFOUND when the file has none. */
int calib_surface_read(const char *path, calib_surface *s, icv_err *err);
/* A stereo file's params_cov: 0, ICV_ENOTFOUND when it has none (cov->n = 0). */
int calib_stereo_cov_read(const char *path, calib_stereo_cov *cov, icv_err *err);
/* A stereo calibration's unit from its T: a baseline over CALIB_MAX_BASELINE_M, or
 * over 5000 of the board's squares (square_m > 0: the experiment's
 * calibration.board.square; 0: unknown), is refused, said to be millimetres when
 * it is plausible divided by 1000 (a board square given in mm when calibrating). */
#define CALIB_MAX_BASELINE_M 20.0
int calib_units_check(const char *path, const double T[3], double square_m, icv_err *err);
/* Reads a stereo file (M1 D1 M2 D2 R T, image size): intrinsics and R, T; T must be
 * in metres (calib_units_check). */
int calib_stereo_read(const char *path, calib_intrinsics *in1, calib_intrinsics *in2, double R[3][3],
                      double T[3], icv_err *err);

/* ---- for people ---------------------------------------------------------- */

/* A plain-text summary: parameters with standard errors, per-view errors, verdict. */
void calib_camera_summary(const calib_camera *cam, FILE *out);
void calib_stereo_summary(const calib_stereo *st, FILE *out);
/* calib_report.html: a self-contained page (inline SVG, embedded images) with the
 * per-view error bar chart, the coverage map, the board poses seen from above, an
 * undistorted example (the first used image of paths) and the verdict. Atomic. */
int calib_report_write_camera(const calib_camera *cam, char *const *paths, size_t n, const char *path,
                              icv_err *err);
int calib_report_write_stereo(const calib_stereo *st, char *const *paths1, size_t n, const char *path,
                              icv_err *err);

/* ---- what a calibration file says of its quality (file_quality.c) -------- */

/* A view's status as calibration files name it ("used", "outlier", "no board",
 * "blurred", "unpaired"), and back (-1: not a status name). */
const char *calib_view_status_name(calib_view_status s);
int calib_view_status_parse(const char *name);

/* A mono calibration file read back with what it holds of its quality: intrinsics
 * and their standard errors, rms, the used views' per_view_errors (named by `views`
 * when the file has it, else "view00", ...), the views_not_used with their status,
 * coverage_map and coverage, verdict_ok and verdict. What the file lacks is marked
 * unknown, not invented: rms and coverage NaN, no views, verdict_ok -1 (another
 * tool's file often holds rms and per_view_errors only). Free with calib_camera_free. */
int calib_camera_file_read(const char *path, calib_camera *cam, icv_err *err);
/* A stereo file likewise: intrinsics, R, T, rms, epipolar_error, baseline (|T| when
 * absent) and baseline_std, per_pair_errors (rms1, rms2, epipolar of each used pair,
 * named "pair 00", ...), verdict_ok and verdict. A stereo file holds no per-camera
 * views or coverage: cam[c].rms and coverage are NaN, verdict_ok -1. Free with
 * calib_stereo_free. */
int calib_stereo_file_read(const char *path, calib_stereo *st, icv_err *err);

#endif
