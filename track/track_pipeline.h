/* track_pipeline.h: `impactcv track` as one library call, and the pieces it is made of
 * that tests use on their own: body-template identity (identity.c) and the sub-frame
 * offset between two cameras from the motion (subframe_sync.c).
 *
 * The job (pipeline.c): experiment.yaml -> calibration and surface frame (calib/) ->
 * every camera's video decoded once (capture/) with its per-frame brightness for the
 * flash -> detector + tracker per camera (track.h) -> sync (flash, sync.offsets or
 * none, then the sub-frame refinement) -> undistortion, epipolar association,
 * interpolation of the other camera inside one flight segment, triangulation, the
 * surface frame -> marker identity from body.markers -> DIR/tracks2d_<camera>.csv,
 * DIR/tracks3d.csv, DIR/tracks3d_quality.csv, all written only once the whole job
 * has succeeded (docs/pipeline.md). Frames, units: docs/conventions.md. */
#ifndef ICV_TRACK_PIPELINE_H
#define ICV_TRACK_PIPELINE_H

#include "core/core.h"
#include "track/track.h"

/* Options are data: track_pipeline_options_default, then change what you need. */
typedef struct {
    long max_frames;        /* frames per camera to read; 0 = all */
    int refine_offset;      /* 1 (default): refine the sub-frame offset of two cameras from the
                               motion when sync is flash or none (sync.offsets are used as
                               given) */
    double refine_range;    /* frames: the refined offset is searched within this of the
                               flash (or zero) offset. Default 1.5 (flash: 5 with sync none) */
    double epipolar_max_px; /* px: largest epipolar distance of two detections of one
                               marker. Default 6 */
    double template_tol_m;  /* m: largest difference of a measured inter-marker distance from
                               body.markers' before the template is said not to fit, plus
                               template_tol_rel of the distance. Default 0.003 */
    double template_tol_rel;/* default 0.03 */
    int max_coast_error;    /* ignored, kept for old callers: a marker the tracker loses is
                               searched for until the clip ends, and its missing frames are a
                               gap (track_info.json cameras[].gaps, a warning), never a
                               failure */
    double blob_excess;     /* a camera whose every frame's full scan holds more than this
                               times the markers' number of blobs fails (suggest roi or
                               threshold). Default 8 */
    double threshold_fraction; /* the detector's auto threshold at this fraction of the
                               markers' peak above the background. Default 0.5 (the
                               detector's own 0.25 joins a band marker to a lit plate
                               behind the rod) */
    double min_circularity; /* the detector's shape test. Default 0.01: a band round a rod
                               is ~2:1 seen from the side (minor^2/major^2 ~0.25) and a thin
                               crescent seen from above the rod's end (3D positions written
                               of 228 on sample_videos/01_rod_slope45_stereo: 0.15 210,
                               0.04 213, 0.01 218) */
    int centroid_margin_px; /* px: the detector's centroid box margin. Default 1: the
                               detector's 2 takes in the black rod and the lit plate round
                               a band (weights I - b of both signs), which lost the left
                               camera's bottom band of sample 02 for good at frame 72 (its
                               moments failed the shape test) and put 2D points 0.70 px
                               from the truth of sample 01 (0.44 px with 1) */
    double sigma_floor_px;  /* px: added in quadrature to each centroid's sigma before
                               triangulation: the error the detector's sigma (pixel noise,
                               Savin & Doyle) does not hold: the band model's residual, the
                               coding of the marker's edges. Default 0.03, measured against
                               synth truth: the 3D error / sigma per surface axis is
                               0.77-1.11 (sample 01) and 0.97-1.24 (sample 02) with it, all
                               below 1 with 0.1 px (0.44-0.63) and up to 1.64 with none */
    double extrapolate_frames; /* frames: a reference frame up to this far outside the other
                               camera's clip (its start or end) gets that camera's view
                               extrapolated from its two end frames (flag extrapolated).
                               Default 1: with any sub-frame offset, the one reference
                               frame at each end that no pair of the other camera's frames
                               brackets; 0 turns it off */
    int ray_pose;           /* 1 (default): a frame whose triangulated markers do not fix the
                               body's pose gets the markers one camera alone sees from the
                               pose fitted to its points and those rays (ray_pose.c; flag
                               one_view in tracks3d_quality.csv); 0 off */
    int band_correction;    /* 1 (default): markers on the axis of a capsule or cylinder are
                               bands round it; their centroids are moved back to the axis
                               (pipeline.c, band markers) */
    int band_coverage;      /* 1: with band markers, the detector's coverage centroid
                               (track.h centroid_coverage): the box centroid of a band on
                               its black rod in front of the lit plate moved 0.05-0.15 px
                               with the box's integer edges, the same on every noise seed,
                               and turned the rod's fitted spin 0.011 rad/s (the video
                               study); 0 (default): under motion blur (a rod spinning
                               ~10 rad/s) its background model breaks and omega's errors
                               grow (docs/pipeline.md) */
    int debug_frames;       /* 1: at debug level (-v), one line per frame and camera: the
                               detector's statistics and the cross-camera matches.
                               Default 0 */
    const struct pl_calib *calibration; /* the experiment's calibration and surface frame
                               already loaded (track_calibration_load; the caller still owns
                               it), or NULL (default): loaded here */
} track_pipeline_options;

void track_pipeline_options_default(track_pipeline_options *o);

/* What the job found, for the CLI to print and tests to check. */
typedef struct {
    int n_cameras;
    int n_markers;
    char camera_id[ICV_MAX_CAMERAS][ICV_ID_MAX];
    long frames[ICV_MAX_CAMERAS];          /* frames decoded per camera */
    long points2d[ICV_MAX_CAMERAS];        /* rows written to tracks2d per camera */
    int identities[ICV_MAX_CAMERAS];       /* 2D track identities the tracker gave */
    int has_flash[ICV_MAX_CAMERAS];
    double offset_frames[ICV_MAX_CAMERAS]; /* frames: each camera's offset used (capture
                                              convention: an event at experiment time t is
                                              at that camera's fractional frame
                                              t*fps + offset) */
    double offset_initial_frames[ICV_MAX_CAMERAS]; /* frames: from flash / sync.offsets / none */
    char sync_source[16];                  /* where offset_initial_frames came from: "flash",
                                              "sync.offsets" or "none" */
    int offset_refined;                    /* 1: camera 1's offset was refined from the motion */
    double offset_sigma_frames;            /* frames: 1-sigma of camera 1's refined offset */
    double offset_residual_px;             /* px: RMS epipolar distance at camera 1's refined offset */
    int offset_refined_each[ICV_MAX_CAMERAS];       /* 1: camera k's offset was refined against
                                                       the reference camera (k >= 1) */
    double offset_sigma_each[ICV_MAX_CAMERAS];      /* frames: 1-sigma of camera k's */
    double offset_residual_each_px[ICV_MAX_CAMERAS];/* px: RMS epipolar distance there */
    long rows3d;                           /* rows of tracks3d.csv */
    long points3d;                         /* marker positions written */
    long points3d_by_views[ICV_MAX_CAMERAS + 1]; /* of them, triangulated from n views
                                                    (index n; 1: one-camera mode) */
    long outliers3d;                       /* triangulated points flagged outlier (not written) */
    long interpolated3d;                   /* positions from an interpolated second view */
    long one_view3d;                       /* positions of markers one camera alone saw, on
                                              its ray at the pose the frame's other markers
                                              and rays fix (ray_pose) */
    long extrapolated3d;                   /* positions from a second view extrapolated past
                                              the end of that camera's clip */
    double residual_rms_px;                /* px: RMS reprojection residual of written points */
    double sigma_scale;                    /* the centroid sigmas' scale the triangulation
                                              residuals showed (>= 1; flag_outliers) */
    double surface_R[3][3], surface_t[3];  /* the surface frame used, in the reference camera's
                                              frame: x_cam = R x_surface + t (m) */
    long band_corrected;                   /* positions moved from a band's visible half to
                                              the rod's axis */
    long gaps[ICV_MAX_CAMERAS];            /* gaps in the markers' 2D tracks per camera (frames
                                              a confirmed track had no blob; track_info.json
                                              cameras[].gaps lists them with why) */
    long gap_frames[ICV_MAX_CAMERAS];      /* frames in them, summed over the markers */
    long swaps_repaired;                   /* frames where a 2D track's marker label changed
                                              and the template's labelling was kept */
    double template_rms_m;                 /* m: RMS of measured minus template distances */
    int planar;                            /* 1: one-camera mode (ray-plane) */
    double gravity_scale, gravity_scale_sd; /* one camera, motion_plane.scale: gravity: the factor
                                              (and its 1-sigma) the free flight gave the plane's
                                              provisional depth (docs/pipeline.md); 0 otherwise */
    double seconds;                        /* s: wall time of the job */
    double decode_seconds;                 /* s: reading frames (capture_source_read), summed over the
                                              cameras, which are read concurrently: may exceed seconds */
} track_pipeline_result;

/* Runs `impactcv track EXPERIMENT -o OUT_DIR`. Writes OUT_DIR/tracks2d_<camera>.csv per
 * camera, OUT_DIR/tracks3d.csv and OUT_DIR/tracks3d_quality.csv, only when the whole job
 * succeeded (each file atomically; a failure leaves none of them). opt may be NULL
 * (defaults), res may be NULL. Shows a progress bar on a terminal. Fails with one line
 * naming the file, camera or frame. */
int track_pipeline_run(const char *experiment_path, const char *out_dir, const track_pipeline_options *opt,
                       track_pipeline_result *res, icv_err *err);

/* ---- identity from the body template (identity.c) ----------------------- */

/* Labels 3D points with the body's markers by inter-marker distances, frame after
 * frame, keeping the labelling continuous (a symmetric template, e.g. a rod's three
 * collinear markers, is resolved by continuity with the previous frames; at first
 * sight the marker with the larger body-frame y gets the point higher along the
 * surface y). Workspace sized once; labelling allocates nothing. */
typedef struct track_identity track_identity;

/* n_markers (<= ICV_MAX_MARKERS; labelling by enumeration needs <= 8) template points
 * (m, body frame); tol_m + tol_rel * distance is the largest distance misfit accepted. */
track_identity *track_identity_alloc(int n_markers, const icv_vec3 *markers, double tol_m, double tol_rel,
                                     icv_err *err);
void track_identity_free(track_identity *id);

/* Labels n points X (m, surface frame) seen at time t (s): label[i] = marker index or
 * -1 (not a body marker, or not consistent). Returns the number labelled. */
int track_identity_label(track_identity *id, const icv_vec3 *X, int n, double t, int *label);

/* What a point's 2D track does, for the points the template cannot tell apart (a
 * one-marker body: a ball and a still glint are both a "template"): its track (the
 * reference camera's 2D identity) and that track's travel over the clip (m: the spread of
 * its positions, 10th to 90th percentile per axis). */
typedef struct {
    int track;
    double travel;
} track_identity_hint;

/* A point one camera alone sees (no 3D position): its ray, surface frame (d unit); the
 * camera, its 2D track, and the pixel's 1-sigma over the focal length (rad), for the
 * pose of a frame short of triangulated markers (ray_pose.c). */
typedef struct {
    icv_vec3 o, d;
    int cam, track;
    double sigma_rad, f_px; /* rad; px: the focal length */
} track_identity_ray;

#define TRACK_IDENTITY_MAX_RAYS 16

/* One observation of a body marker for track_ray_pose_fit: a triangulated point (X,
 * cov; surface frame, m and m^2) or a ray one camera alone gives (o, d unit, sigma_rad:
 * the pixel's 1-sigma over the focal length). */
typedef struct {
    int marker; /* index in the template */
    int is_ray;
    icv_vec3 X;
    double cov[3][3];
    icv_vec3 o, d;
    double sigma_rad;
} track_pose_obs;

#define TRACK_POSE_MAX_OBS 32

/* A body pose x = R b + p (surface frame) and its covariance over the fit's parameters
 * (a rotation increment, world frame: 3, or 2 perpendicular to the line for markers on
 * one line, whose roll is not measured; then the translation, m). */
typedef struct {
    icv_mat3 R;
    icv_vec3 p;          /* m */
    double chi2;         /* of the whitened residuals */
    int dof;             /* measured values less the pose's parameters */
    int n_par;           /* 6, or 5 for a line */
    int collinear;
    icv_vec3 axis_world; /* a line's direction, surface frame */
    double cov[6][6];
} track_pose;

/* The pose of a body with template tmpl (nm markers, body frame, m) from n observations
 * (at least one more measured value than the pose has parameters; a ray gives 2, a
 * point 3): maximum likelihood by Levenberg-Marquardt from the prior (the last frame's,
 * or NULL) and from the depths on each ray at which the template's distances to the
 * points hold. Fails (ICV_ENOTFOUND) when the best chi-square is beyond its 99.9%
 * limit, or when two distinct poses fit and the prior does not tell them apart.
 * Allocates nothing. */
int track_ray_pose_fit(const icv_vec3 *tmpl, int nm, const track_pose_obs *obs, int n, const track_pose *prior,
                       track_pose *out, icv_err *err);

/* Template point b (body frame, m) at the pose: Y (surface frame, m) and its covariance
 * from the pose's (m^2). */
void track_ray_pose_marker(const track_pose *pose, icv_vec3 b, icv_vec3 *Y, double cov[3][3]);

/* As track_identity_label (X), or _per_marker (Xm, X NULL), with hint[i] for point i:
 * a one-marker body's point is the one on the track it was labelled on last, else the
 * one track that moves (farther than tol_m, 3x any other point's track); a point on a
 * still track (travel <= tol_m) is never labelled for it. hint NULL: as without.
 * rays (n_rays, the first TRACK_IDENTITY_MAX_RAYS used; NULL none): where a partial set
 * fits as well another way round and no prediction tells, the labelling whose unseen
 * markers the most rays can be (within the template's tolerance) is taken, when no
 * other explains as many, every point is in it and there are no more rays than its
 * unseen markers (a spare point or ray can fit by chance). */
int track_identity_label_tracks(track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, int n, double t,
                                const track_identity_hint *hint, const track_identity_ray *rays, int n_rays,
                                int *label);

/* The best labelling of n points by the template's distances alone (no continuity, no
 * gate): for the template-fit check. Returns the RMS misfit (m), label as above. */
double track_identity_fit(const track_identity *id, const icv_vec3 *X, int n, int *label);

/* The same where a point's position depends on which marker it is: one camera, whose
 * ray meets the plane of each marker's body z (a bead off the rod's axis, a sticker on
 * a bar's front face) at a different place. Xm[i * n_markers + j] (m, surface frame):
 * point i as marker j; n points. */
int track_identity_label_per_marker(track_identity *id, const icv_vec3 *Xm, int n, double t, int *label);
double track_identity_fit_per_marker(const track_identity *id, const icv_vec3 *Xm, int n, int *label);

/* Does one template distance D (m) fit the n distances d measured between the two
 * markers the fit labelled (sorted in place)? Yes when their median is within tol of D,
 * or when a third of them (3 at least) are: a marker missing in a frame has another
 * point labelled in its place. *dist: the median, or that of the ones within tol when
 * they decide. Returns 1 fits, 0 not (or n = 0: nothing measured, *dist NaN). */
int track_template_pair(double *d, long n, double D, double tol, double *dist);

/* The template check of a whole clip, one result per pair of markers (j < k, in order). */
typedef struct {
    int j, k;
    double D, tol;      /* m: template distance, the tolerance at it */
    double measured;    /* m: as track_template_pair gives it; NaN: never measured */
    long n;             /* frames the pair was measured in */
    double steady;      /* share of those within tol of their own median: near 1 for a rigid
                           pair (a wrong template or scale when it does not fit), low when
                           other points were labelled in place of a marker not found */
    double travel;      /* m: the diagonal of the box of the pair's midpoints: a pair that
                           stays still while the body falls is two still things (clutter) */
    int fits;
} track_template_result;

/* F frames of n[f] points, frame f's at X + f * stride (or, one camera, Xm + f * stride *
 * n_markers, as for track_identity_fit_per_marker; the other NULL): each frame labelled
 * by track_identity_fit, each pair judged by track_template_pair. pairs: n_markers
 * (n_markers - 1) / 2 of them. Returns the number of pairs that do not fit, or a negative
 * ICV_E* code. */
int track_template_check(const track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, const int *n, long F,
                         int stride, track_template_result *pairs, icv_err *err);

/* ---- sub-frame offset between two cameras (subframe_sync.c) -------------- */

/* One camera's 2D track points, undistorted, sorted by frame then identity. */
typedef struct {
    long frame;
    int id;          /* 2D track identity */
    double u, v;     /* px: undistorted */
    double sigma;    /* px */
    unsigned flags;  /* TRACK_FLAG_*; coasted or merged points are not positions */
    int seg_break;   /* 1: an impact (a kink) lies between this point and the same
                        track's point in the next frame: never interpolate across */
} track_pipe_point;

typedef struct {
    const track_pipe_point *pts;
    long n_pts;
    const long *frame_start;  /* frames + 1 entries: points of frame f are
                                 [frame_start[f], frame_start[f+1]) */
    long frames;
    const double *cam_time_s; /* frames entries: this camera's clock, s */
    double fps;               /* Hz */
    track_view view;          /* K, R, t (u, v, sigma unused) */
} track_pipe_camera;

/* The point of track id of camera c at camera-clock time tc (s), interpolated linearly
 * between the two adjacent frames that bracket tc when both measured it and no
 * seg_break lies between (never across an impact or a gap). sigma (px): both points'
 * sigmas propagated, plus the chord's error w (1 - w) a / 2 for the track's second
 * difference a (px/frame^2) there, in quadrature. Returns 0 when found
 * (*interpolated = 1 unless tc is a frame's own time), -1 otherwise. */
int track_pipe_interpolate(const track_pipe_camera *c, int id, double tc, double *u, double *v, double *sigma,
                           int *interpolated);

/* The point of track id of camera c at camera-clock time tc (s) just outside the clip:
 * within max_frames frame periods before its first frame or after its last, extrapolated
 * linearly from the two end frames when they and the frame next to them were measured
 * inside one flight phase (no seg_break between the three, no dropped frame). The sigma
 * (px) grows with the lever arm: (1 - w)^2 s0^2 + w^2 s1^2 plus, in quadrature, the
 * chord's error w (1 - w) a / 2 for the track's second difference a (w < 0 or > 1, in
 * frames from the end frame). Returns 0 when found, -1 otherwise. An impact inside the
 * extrapolated fraction of a frame cannot be seen: the pipeline flags such points
 * `extrapolated`. The sigma of track_pipe_interpolate carries the same chord term. */
int track_pipe_extrapolate(const track_pipe_camera *c, int id, double tc, double max_frames, double *u, double *v,
                           double *sigma);

/* Marks seg_break on points where the track's second difference says an impact lies
 * between this frame and the next (both the second differences around that interval
 * exceed kink_px + 6 sigma). */
void track_pipe_mark_breaks(track_pipe_point *pts, long n_pts, const long *frame_start, long frames,
                            double kink_px);

/* The offset (frames of camera b, capture convention) within [center - range,
 * center + range] that minimises the robust sum of squared epipolar distances between
 * camera a's points and camera b's track interpolated at the same experiment time;
 * pairs of track identities are those that match at the center offset. Fills the
 * offset, its 1-sigma (from the curvature of the chi-square, scaled by the residual)
 * and the RMS distance there. Fails (ICV_ENOTFOUND) with too little motion. */
int track_subframe_offset(const track_pipe_camera *a, const track_pipe_camera *b, double center, double range,
                          double max_px, double *offset, double *sigma, double *rms_px, icv_err *err);

/* ---- coefficient experiments: the vertical and the tilt ------ */

/* An experiment's calibration and surface frame as the track job loads them (from
 * calibration.file or by calibrating the board images: seconds), loaded once for a
 * job that needs them twice (a slide's level board, then its tracking). Opaque;
 * job_calibration.c. */
typedef struct pl_calib track_calibration;
int track_calibration_load(const icv_experiment *exp, track_calibration **out, icv_err *err);
void track_calibration_free(track_calibration *cal);

/* Gravity in the surface frame from the board lying on a level reference
 * (experiment.yaml coefficients.level_images; level_ref.c): g = -g0 n, n the level
 * board's normal (up) in the surface frame; g0 in m/s^2. *incline_sd (rad): 1-sigma of
 * the angle between the two boards' normals, from each board's corner scatter about
 * its plane (stereo), or its reprojection residual (one camera; a lower bound). cal:
 * the experiment's calibration, or NULL: loaded here as the track job does. */
int track_level_gravity(const icv_experiment *exp, const track_calibration *cal, double g0, icv_vec3 *g,
                        double *incline_sd, icv_err *err);

/* The tilt from video (plate_track.c): the reference camera's video, the board lying
 * on the plate found in the first frame and followed corner by corner (the plate
 * turns slowly; a full detection again when the pose's residual exceeds 0.5 px), the
 * plate's pose per frame by PnP, its angle from the level board's normal, and the
 * body's markers (the frame's blobs of a marker's size, as many as body.markers)
 * brought onto the plate's plane by their rays. */
typedef struct {
    long n;               /* frames of the reference camera */
    double *t;            /* s, experiment clock (that camera's) */
    double *angle;        /* rad: the plate's normal from the level's; NaN: board not found */
    double *s;            /* m: the body's displacement down the plate (plate frame, its
                             markers' mean on the plate's plane) since the first frame it
                             was seen; NaN where not seen. Each marker's ray is taken to the
                             plane at marker_height above the plate */
    double marker_height; /* m: the markers' height above the plate, found as the one at
                             which the resting body's position stays put while the plate
                             turns (at the plate's own plane the parallax drifted 5 mm
                             over 5 deg for markers 30 mm up at 0.7 m) */
    long n_board, n_body; /* frames with the plate's pose, with the body */
    long n_redetect;      /* full board detections after the first */
    double *A, *B;        /* m, m/m: where the markers' rays meet the plane at height h
                             above the plate, along downhill: A + B h (NaN: not seen) */
    double reproj_rms_px; /* px: mean PnP residual of the plate's board */
    double level_reproj_px; /* px: the level board's */
} track_tilt;

int track_tilt_run(const char *experiment_path, track_tilt *out, icv_err *err);
/* The markers' height (marker_height) again from the frames before `upto` only (the
 * resting ones, once the onset is known), and s from it. */
int track_tilt_height(track_tilt *t, long upto, icv_err *err);
void track_tilt_free(track_tilt *t);
/* tilt_track.csv: frame,time_s,angle_rad,displacement_m (empty where not measured). */
int track_tilt_write(const char *path, const track_tilt *t, icv_err *err);

#endif
