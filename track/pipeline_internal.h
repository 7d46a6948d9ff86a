/* pipeline_internal.h: types and helpers shared by pipeline.c and band_marker.c (private
 * to track/): the calibration a job uses, one triangulated candidate point, and the band
 * model of markers round a rod (band_marker.c). Frames: docs/conventions.md. */
#ifndef ICV_TRACK_PIPELINE_INTERNAL_H
#define ICV_TRACK_PIPELINE_INTERNAL_H

#include "calib/calib.h"
#include "capture/capture.h"
#include "core/core.h"
#include "track/track.h"
#include "track/track_pipeline.h"

#define PL_QUALITY_MAX 65536 /* bytes: ~250 views with their names; more are left out */

/* One camera with motion_plane.scale: gravity (gravity_scale.c): the scale the free
 * flight gave the motion plane. */
typedef struct {
    int found;         /* 1: the plane was scaled from gravity */
    double factor;     /* the provisional plane's depth and every position were multiplied by it */
    double factor_sd;  /* its 1-sigma, from the parabola fit */
    double depth_m;    /* m: the motion plane's distance from the camera then */
    double g_used;     /* m/s^2: the in-plane |g| the flight was made to fall at */
    int n_phases;      /* flight phases fitted */
    long n_frames;     /* frames in them */
    double rms_m;      /* m: RMS residual of the marker centroid about its parabolas */
    double dir[2];     /* the acceleration's direction, unit, surface frame x and y */
} pl_gravity_scale;

/* The plane of motion from the ball's apparent size (size_plane.c): w = R / z fitted as
 * a + b x + c y over the frames used, (x, y) normalised image coordinates of the ball's
 * centre; the plane's normal is along (b, c, a) in the camera frame, its distance R /
 * |(b, c, a)|. Angles in radians. */
typedef struct {
    int fitted;              /* 1: the fit was made (enough frames, not degenerate) */
    int significant;         /* 1: a slope is kept: the plane is tilted to the camera */
    int free_b, free_c;      /* 1: that slope kept (fitted); 0: held at 0 (not measured) */
    double a, b, c;          /* R / z at the image centre, and its slopes per normalised unit
                                (the slopes not kept 0) */
    double cov[3][3];        /* their covariance (a, b, c) */
    double resid_sd;         /* one frame's residual 1-sigma (n - 3 degrees of freedom) */
    double resid_mad;        /* its robust (MAD) estimate */
    double tilt, tilt_sd;    /* rad: the normal's angle to the optical axis */
    double pitch, pitch_sd;  /* rad: about the camera's x (looking down at the plane > 0) */
    double yaw, yaw_sd;      /* rad: about the camera's y (the image's right side further > 0) */
    long n_used;             /* frames in the fit (after the robust pass) */
} pl_size_plane;

/* Fits w[i] = a + b x[i] + c y[i] over n frames (size_plane.c). work: 3 n doubles.
 * 0, or -1 when there are fewer than 6 frames or the fit is degenerate (out->fitted 0). */
int pl_size_plane_fit(const double *x, const double *y, const double *w, long n, double *work, pl_size_plane *out);

/* One camera with motion_plane.scale: size (scale_size.c): the scale the ball's own
 * apparent diameter gave the motion plane. */
typedef struct {
    int tilted;        /* 1: the plane was turned to the tilt fitted (plane below); the
                          candidates must be met with it again */
    pl_size_plane plane; /* the tilt's fit from the sizes (plane.fitted 0: too few frames) */
    int found;         /* 1: the plane was scaled from the ball's size */
    double factor;     /* the provisional plane's depth and every position were multiplied by it */
    double factor_sd;  /* its 1-sigma: the spread of the per-frame depths over the frames used */
    double depth_m;    /* m: the ball's centre plane's distance from the camera */
    double diameter_m; /* m: the ball's diameter given */
    double diameter_px;/* px: its median apparent diameter over the frames used */
    double fit_rms_px; /* px: median RMS residual of the outline's circle fit */
    long n_frames;     /* frames used (sharp enough: blur under a quarter of the diameter) */
    long n_fitted;     /* frames whose outline was fitted */
} pl_size_scale;

/* m: the provisional depth of a motion plane scaled from gravity (any value: the scale
 * found replaces it; 1 m keeps the provisional positions near metres) */
#define PL_GRAVITY_DEPTH0 1.0

typedef struct pl_calib { /* track_calibration in track_pipeline.h */
    calib_intrinsics in[ICV_MAX_CAMERAS];
    double R[ICV_MAX_CAMERAS][3][3], T[ICV_MAX_CAMERAS][3]; /* camera k from the reference:
                                                              x_k = R[k] x_0 + T[k] (m);
                                                              k = 0 the identity */
    calib_surface surf;    /* surface frame in the reference camera's frame */
    calib_surface plane;   /* one-camera mode: the motion plane (y its normal) */
    char source[ICV_PATH_MAX]; /* the calibration file, or "board images" */
    pl_gravity_scale gravity; /* one camera, motion_plane.scale: gravity; found 0 otherwise */
    pl_gravity_scale gravity_check; /* one camera, scale: size: the free flight's factor measured
                                       after the size scale was applied (~1 when both agree) */
    pl_size_scale size;       /* one camera, motion_plane.scale: size; found 0 otherwise */
    int surface_lowest;       /* one camera, no surface key: the surface frame is provisional
                                 until placed at the lowest point reached (surface_lowest.c) */
    calib_stereo_cov cov;       /* the stereo pair's parameter covariance (n 0: unknown): the surface
                                   frame's sigma takes the calibration's part from it */
    char quality_json[PL_QUALITY_MAX]; /* the calibration's quality made from board images, as
                                          DIR/track_info.json holds it (run_info.c); "" none */
} pl_calib;

typedef struct {
    icv_vec3 X;        /* m, surface frame */
    double cov[3][3];  /* m^2, surface frame */
    double residual;   /* px */
    double chi2;       /* of the triangulation, with the sigmas given */
    unsigned flags;
    int nv;                        /* views: 1 in one-camera mode, else >= 2 */
    int cam[ICV_MAX_CAMERAS];      /* camera of each view; view 0 is the reference camera's */
    int id[ICV_MAX_CAMERAS];       /* 2D track identity of each view */
    track_view v[ICV_MAX_CAMERAS]; /* the undistorted views it came from */
} pl_cand;

#define PL_MAX_CAND 16

typedef struct {
    int on;                        /* the body has band markers */
    double r;                      /* m: rod radius */
    double s[ICV_MAX_MARKERS];     /* m: marker position along the axis (body frame) */
    int band[ICV_MAX_MARKERS];     /* 1: marker k is a band */
    icv_vec3 axis;                 /* unit, reference camera frame, last known */
    double t_axis;                 /* s: when it was known; -inf never */
} pl_band;

/* The calibration and surface frame of an experiment, as the job loads them
 * (pipeline.c; also used by level_ref.c and plate_track.c). */
int pl_load_calibration(const icv_experiment *exp, pl_calib *cal, icv_err *err);

/* to the surface frame (pipeline.c): x_s = Rs^T (x_cam - ts), cov_s = Rs^T cov Rs */
void pl_to_surface(const calib_surface *s, const double X[3], const double cov[3][3], pl_cand *out);

/* gravity_scale.c: one camera, motion_plane.scale: gravity. From the candidates of F
 * frames (provisional units: the plane at PL_GRAVITY_DEPTH0), the factor that makes the
 * body's marker centroid fall at the experiment's in-plane |g| (9.81 with gravity: auto)
 * over its free-flight phases; multiplies the plane's depth, the surface frame's origin
 * (cal) and every candidate (position, covariance) by it and keeps it in cal->gravity.
 * t_frame: s, experiment time of each frame. Fails naming exp->path when no free flight
 * of 6 frames or more is seen, or it does not fall measurably. */
int pl_gravity_scale_apply(const icv_experiment *exp, pl_calib *cal, pl_cand *cand, const int *cand_n, long F,
                           const double *t_frame, icv_err *err);
/* The same free-flight fit as pl_gravity_scale_apply without applying it: into
 * cal->gravity_check (a second scale source beside scale: size). */
int pl_gravity_scale_check(const icv_experiment *exp, pl_calib *cal, pl_cand *cand, const int *cand_n, long F,
                           const double *t_frame, icv_err *err);
/* Multiplies the plane's depth, the surface frame's origin and every candidate
 * (position, covariance) of F frames by K (gravity_scale.c). */
void pl_scale_plane(pl_calib *cal, pl_cand *cand, const int *cand_n, long F, double K);
/* scale_size.c: one camera, motion_plane.scale: size. The ball's outline is fitted with
 * a circle at sub-pixel level in every frame where it is the one candidate (the video
 * decoded again, luma), its depth R sqrt(1 + 1 / r^2) from the normalised radius r and
 * the diameter 2R given; the median over the frames whose blur is under a quarter of
 * the diameter scales the provisional plane (pl_scale_plane) and is kept in cal->size.
 * When the sizes show the plane tilted to the camera (size_plane.c) and the surface
 * comes from pixels (surface.line_px, or the lowest point reached), the plane is turned
 * to the fit instead and the surface frame found again on it; cal->size.tilted is then
 * 1 and the caller meets every candidate's ray with the new plane.
 * Fails naming exp->path when the body is not one marker or too few outlines fit. */
int pl_size_scale_apply(const icv_experiment *exp, pl_calib *cal, pl_cand *cand, const int *cand_n, long F,
                        icv_err *err);
struct json_t;
/* Logs the free flight's |g| at another source's scale (cal->gravity_check, measured after
 * that scale was applied) and warns, naming `causes`, when the two disagree beyond 3
 * sigma or 10% (source_rel_sd: the other source's relative 1-sigma). gravity_scale.c. */
void pl_gravity_scale_compare(const icv_experiment *exp, const pl_calib *cal, const char *source, double source_rel_sd,
                              const char *causes);
/* surface_lowest.c: one camera with no surface key (cal->surface_lowest): the surface
 * frame placed at the lowest point the body reaches. Up is against the free flight's
 * acceleration (cal->gravity, or cal->gravity_check) when it was measured, else the
 * image's up; the origin is that far below the lowest marker centroid of the frames
 * showing every marker, less the sphere's radius for a ball. Moves cal->surf and every
 * candidate (position, covariance) of F frames to the new frame. Fails naming exp->path
 * when no frame shows every marker. */
int pl_surface_lowest_apply(const icv_experiment *exp, pl_calib *cal, pl_cand *cand, const int *cand_n, long F,
                            icv_err *err);
/* Adds "scale_from_size" to track_info.json. */
void pl_size_scale_json(const pl_calib *cal, struct json_t *root);
/* Adds "scale_from_gravity" to track_info.json's root when cal->gravity.found, and
 * "scale_check_gravity" when cal->gravity_check.found. */
void pl_gravity_scale_json(const pl_calib *cal, struct json_t *root);

/* band_marker.c */
void pl_band_init(const icv_experiment *exp, pl_band *b);
/* Moves a labelled band's candidate from the band's visible halves to the rod's axis
 * (axis: unit, reference camera frame) and triangulates again from its c->nv views (or
 * meets the motion plane again with one camera, nc 1). */
void pl_band_correct(const pl_band *b, const pl_calib *cal, int nc, icv_vec3 axis, pl_cand *c);
/* Shifts an undistorted pixel (u, v) of marker j seen at experiment time t (s) by the
 * image of its band offset, from the labelled 3D positions xyz (surface frame, F frames
 * of nm markers) and axes of the nearest reference frame. */
void pl_band_shift_2d(const pl_band *b, const pl_calib *cal, const track_view *view, const double *t0cam, double off0,
                      double fps0, long F, const double *xyz, const icv_vec3 *axes, int nm, int j, double t, double *u,
                      double *v);
/* The rod's axis (unit, reference camera frame) from a frame's labelled bands. */
int pl_band_axis(const pl_band *b, const pl_calib *cal, const pl_cand *cf, const int *lab, int n, icv_vec3 *axis);

/* ---- the report's sidecar (run_info.c) ------------------------------------ */

/* one 2D point as the tracker gave it (distorted pixels) */
typedef struct {
    long frame;
    int id;
    double u, v, sigma, area;
    unsigned flags;
    double pred_u, pred_v; /* px: the filter's prediction for this frame (track_point) */
} raw_point;

/* Of a camera's duplicated frames dup[0..n_dup) (pixels equal to the frame before),
 * those while the scene moves: the tracks, by their median, more than min_px (px)
 * apart between the frames either side, a move within 6 sigma of a track's own noise
 * counting as none (raw: the tracker's points sorted by frame). Into out (n_dup room); how
 * many. A still scene's equal frames are H.264's skipped blocks, no timing fault.
 * duplicate_motion.c. */
size_t pl_duplicates_in_motion(const raw_point *raw, long n_raw, const long *dup, size_t n_dup, double min_px,
                               long *out);

/* Frames that repeat the picture before them (a phone or converter stored each picture
 * again, re-encoded, so the copies differ by compression noise and no pixel test finds
 * them), from the tracks: a frame is seen to repeat when every track moving across the
 * frame stands still at it, within 3 of its sigmas, then jumps by about the step it made
 * into the picture before (more than min_px, px, and 10 sigmas); it shows a new picture
 * when the tracks moved by their median more than min_px. capture_stored_times tells
 * the pattern from that evidence. raw sorted by frame (duplicate_motion.c). Into out
 * (frames room), ascending, *n_out of them; *stored_times: k, or 1 when no pattern is
 * found (then 0 frames). */
int pl_repeated_pictures(const raw_point *raw, long n_raw, long frames, double min_px, long *out, size_t *n_out,
                         double *stored_times, icv_err *err);

/* *moves = 1 when some track's measured point lies more than min_px (px) and 6 of
 * their sigmas from the track's first one, else 0 (nothing tracked moves over the
 * clip: a still picture stored as a video). 0, or ICV_ENOMEM. */
int pl_anything_moves(const raw_point *raw, long n_raw, double min_px, int *moves, icv_err *err);

/* A gap in one marker's 2D track: frames first..last where the tracker had no blob
 * for it (it kept the identity and found it again, or the clip ended). Why, from where
 * it should have been (interpolated between the measurements either side, or the
 * tracker's prediction at the clip's end): */
typedef enum {
    PL_GAP_OCCLUDED,     /* another marker was measured near there: hidden behind the body */
    PL_GAP_OUT_OF_IMAGE, /* within 10 px of the image's edge or beyond it */
    PL_GAP_MERGED,       /* its blob touched another marker's in every frame of the gap */
    PL_GAP_NOT_FOUND,    /* none of these: not seen (lighting, threshold, a marker off) */
} pl_gap_kind;

typedef struct {
    int track;           /* 2D track identity (the tracker's) */
    int marker;          /* the marker column of tracks2d (the body marker once labelled) */
    long first, last;    /* frames of this camera, inclusive */
    int to_end;          /* 1: not found again before the clip's end */
    pl_gap_kind kind;
} pl_gap;

/* "occluded (others seen nearby)", ... (run_info.c) */
const char *pl_gap_why(pl_gap_kind k);
/* "camera 'a': marker 1 missing in frames 12-23 (to the clip's end): not found" into
 * buf (run_info.c; the warning's text, logged and in track_info.json). */
const char *pl_gap_format(const char *camera_id, const pl_gap *g, char *buf, size_t n);

/* What run_info.c reads of one camera of the job. */
typedef struct {
    capture_source *src;   /* the camera's video, still open (index, timing, lost frames) */
    const double *bright;  /* per frame: mean gray level when the flash was looked for, else NULL */
    const raw_point *raw;  /* the tracker's points, by frame then identity */
    long n_raw;
    const long *dup;       /* frames whose pixels equal their predecessor's, ascending, found in the
                              job's decoding pass (only with bright; run_info decodes nothing) */
    size_t n_dup;
    const pl_gap *gaps;    /* the markers' gaps, by track then frame */
    size_t n_gaps;
    const long *repeat;    /* frames repeating the picture before them (dropped from the tracks) */
    size_t n_repeat;
    double stored_times;   /* pictures per new picture while the scene moves */
} pl_info_camera;

/* Keeps the quality of a calibration made from board images in cal->quality_json. */
void pl_info_keep_camera(pl_calib *cal, const calib_camera *cam);
void pl_info_keep_stereo(pl_calib *cal, const calib_stereo *st);

/* Writes DIR/predicted2d_<camera>.csv per camera, then DIR/track_info.json (docs/pipeline.md),
 * each atomically; on failure removes those it wrote. cams: exp->n_cameras entries. */
int pl_info_write(const char *out_dir, const icv_experiment *exp, const pl_calib *cal,
                  const track_pipeline_result *res, const pl_info_camera *cams, icv_err *err);

#endif
