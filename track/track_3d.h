/* track_3d.h: the pieces of the track stage that work on points, not videos:
 * body-template identity (identity.c), the pose from points and rays (ray_pose.c), the
 * template check, and the sub-frame offset between two cameras from the motion
 * (subframe_sync.c). The stage itself, which opens the videos, is job/'s
 * (job_track_run in job/job.h). Frames, units: docs/conventions.md. */
#ifndef ICV_TRACK_3D_H
#define ICV_TRACK_3D_H

#include "calib/calib.h"
#include "core/core.h"
#include "track/track.h"

/* ---- the 3D pass's calibration, candidate points and scales ------------------ */

#define TRACK_QUALITY_MAX 65536 /* bytes: ~250 views with their names; more are left out */

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
} track_gravity_scale;

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
} track_size_plane;

/* The vertical plane of motion from n (2..ICV_MAX_VERTICALS) image segments of lines
 * vertical in the world (seg[k][i] = endpoint i, px, camera `in`; plane_verticals.c):
 * their vanishing point is the world's down in the camera frame; the plane holding it
 * that faces the camera has *normal (unit, camera frame, away from the camera: z > 0);
 * *pitch (rad) the optical axis lies below the horizontal (looking down at the plane,
 * whatever the camera's roll), *pitch_sd from endpoint_sd_px on every
 * endpoint (the focal length's error not in it). 0, or ICV_EINVAL when the lines meet
 * nowhere near the image's vertical. */
int track_plane_from_verticals(const calib_intrinsics *in, const double (*seg)[2][2], int n, double endpoint_sd_px,
                               icv_vec3 *normal, double *pitch, double *pitch_sd, icv_err *err);
/* The size fit with the plane's normal known (unit, camera frame, z > 0; from
 * track_plane_from_verticals): w[i] = k (n.z + n.x x[i] + n.y y[i]), k the median of
 * the frames' ratios; a, b, c from it; the pitch (rad) and the sigmas given, the yaw
 * and tilt from the normal (size_plane.c). work: 2 n doubles. 0, or -1 with no frame. */
int track_size_plane_with_normal(const double *x, const double *y, const double *w, long n, icv_vec3 normal,
                                 double pitch, double pitch_sd, double yaw_sd, double *work, track_size_plane *out);
/* Fits w[i] = a + b x[i] + c y[i] over n frames (size_plane.c). work: 3 n doubles.
 * 0, or -1 when there are fewer than 6 frames or the fit is degenerate (out->fitted 0). */
int track_size_plane_fit(const double *x, const double *y, const double *w, long n, double *work,
                         track_size_plane *out);

/* One camera with motion_plane.scale: size (job/track_size_scale.c): the scale the ball's own
 * apparent diameter gave the motion plane. */
typedef struct {
    int tilted;        /* 1: the plane was turned to the tilt fitted (plane below); the
                          candidates must be met with it again */
    track_size_plane plane; /* the tilt's fit from the sizes (plane.fitted 0: too few frames) */
    int from_verticals;/* 1: the plane's normal from motion_plane.verticals_px, the sizes
                          giving its distance alone; its yaw held at 0 (facing the camera) */
    int found;         /* 1: the plane was scaled from the ball's size */
    double factor;     /* the provisional plane's depth and every position were multiplied by it */
    double factor_sd;  /* its 1-sigma: the spread of the per-frame depths over the frames used,
                          and focal_rel_sd's part */
    double focal_rel_sd; /* the scale's relative 1-sigma from a nominal focal length (the
                            verticals' pitch; 0 with a calibration or without verticals) */
    double depth_m;    /* m: the ball's centre plane's distance from the camera */
    double diameter_m; /* m: the ball's diameter given */
    double diameter_px;/* px: its median apparent diameter over the frames used */
    double fit_rms_px; /* px: median RMS residual of the outline's circle fit */
    long n_frames;     /* frames used (sharp enough: blur under a quarter of the diameter) */
    long n_fitted;     /* frames whose outline was fitted */
} track_size_scale;

/* m: the provisional depth of a motion plane scaled from gravity (any value: the scale
 * found replaces it; 1 m keeps the provisional positions near metres) */
#define TRACK_GRAVITY_DEPTH0 1.0

/* The calibration and surface frame the 3D pass uses (the track stage loads it: job/). */
typedef struct track_calibration {
    calib_intrinsics in[ICV_MAX_CAMERAS];
    double R[ICV_MAX_CAMERAS][3][3], T[ICV_MAX_CAMERAS][3]; /* camera k from the reference:
                                                              x_k = R[k] x_0 + T[k] (m);
                                                              k = 0 the identity */
    calib_surface surf;        /* surface frame in the reference camera's frame */
    calib_surface plane;       /* one-camera mode: the motion plane (y its normal) */
    char source[ICV_PATH_MAX]; /* the calibration file, or "board images" */
    track_gravity_scale gravity;       /* one camera, motion_plane.scale: gravity; found 0 otherwise */
    track_gravity_scale gravity_check; /* one camera, scale: size: the free flight's factor measured
                                          after the size scale was applied (~1 when both agree) */
    track_size_scale size;             /* one camera, motion_plane.scale: size; found 0 otherwise */
    int surface_lowest;                /* one camera, no surface key: the surface frame is provisional
                                          until placed at the lowest point reached (surface_lowest.c) */
    calib_stereo_cov cov;              /* the stereo pair's parameter covariance (n 0: unknown): the
                                          surface frame's sigma takes the calibration's part from it */
    char quality_json[TRACK_QUALITY_MAX]; /* the calibration's quality made from board images, as
                                             DIR/track_info.json holds it (job/track_info.c); "" none */
} track_calibration;

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
} track_candidate;

#define TRACK_MAX_CAND 16

typedef struct {
    int on;                        /* the body has band markers */
    double r;                      /* m: rod radius */
    double s[ICV_MAX_MARKERS];     /* m: marker position along the axis (body frame) */
    int band[ICV_MAX_MARKERS];     /* 1: marker k is on the axis (a band, or a bead) */
    int sphere;                    /* 1: the axis markers are beads (body.marker_shape) */
    double rho;                    /* the rod's diameter over the marker's, 2 r / d */
    double beside[ICV_MAX_CAMERAS]; /* per camera: the weight the detector gives a bead's
                                      disc beside the rod's image (track_bead_factor) */
    icv_vec3 axis;                 /* unit, reference camera frame, last known */
    double t_axis;                 /* s: when it was known; -inf never */
} track_band;

/* to the surface frame (to_surface.c): x_s = Rs^T (x_cam - ts), cov_s = Rs^T cov Rs */
void track_to_surface(const calib_surface *s, const double X[3], const double cov[3][3], track_candidate *out);

/* gravity_scale.c: one camera, motion_plane.scale: gravity. From the candidates of F
 * frames (provisional units: the plane at TRACK_GRAVITY_DEPTH0), the factor that makes the
 * body's marker centroid fall at the experiment's in-plane |g| (9.81 with gravity: auto)
 * over its free-flight phases; multiplies the plane's depth, the surface frame's origin
 * (cal) and every candidate (position, covariance) by it and keeps it in cal->gravity.
 * t_frame: s, experiment time of each frame. Fails naming exp->path when no free flight
 * of 6 frames or more is seen, or it does not fall measurably. */
int track_gravity_scale_apply(const icv_experiment *exp, track_calibration *cal, track_candidate *cand,
                              const int *cand_n, long F, const double *t_frame, icv_err *err);
/* The same free-flight fit as track_gravity_scale_apply without applying it: into
 * cal->gravity_check (a second scale source beside scale: size). */
int track_gravity_scale_check(const icv_experiment *exp, track_calibration *cal, track_candidate *cand,
                              const int *cand_n, long F, const double *t_frame, icv_err *err);
/* Multiplies the plane's depth, the surface frame's origin and every candidate
 * (position, covariance) of F frames by K (gravity_scale.c). */
void track_plane_scale(track_calibration *cal, track_candidate *cand, const int *cand_n, long F, double K);
struct json_t;
/* Logs the free flight's |g| at another source's scale (cal->gravity_check, measured after
 * that scale was applied) and warns, naming `causes`, when the two disagree beyond 3
 * sigma or 10% (source_rel_sd: the other source's relative 1-sigma). gravity_scale.c. */
void track_gravity_scale_compare(const icv_experiment *exp, const track_calibration *cal, const char *source,
                                 double source_rel_sd, const char *causes);
/* surface_lowest.c: one camera with no surface key (cal->surface_lowest): the surface
 * frame placed at the lowest point the body reaches. Up is against the free flight's
 * acceleration (cal->gravity, or cal->gravity_check) when it was measured, else the
 * image's up; the origin is that far below the lowest marker centroid of the frames
 * showing every marker, less the sphere's radius for a ball. Moves cal->surf and every
 * candidate (position, covariance) of F frames to the new frame. Fails naming exp->path
 * when no frame shows every marker. */
int track_surface_lowest_apply(const icv_experiment *exp, track_calibration *cal, track_candidate *cand,
                               const int *cand_n, long F, icv_err *err);
/* Adds "scale_from_gravity" to track_info.json's root when cal->gravity.found, and
 * "scale_check_gravity" when cal->gravity_check.found. */
void track_gravity_scale_json(const track_calibration *cal, struct json_t *root);

/* band_marker.c: the axis markers' shifts, a band's, or a bead's (body.marker_shape) */
void track_band_init(const icv_experiment *exp, track_band *b);
/* bead_marker.c: a bead's centroid shift over a band's (the band's pi r / 4 towards the
 * camera, perpendicular to the axis) for a sphere threaded on a rod, rho the rod's
 * diameter over the sphere's and cos_view the cosine between the axis and the view: its
 * visible disc, orthographic, the part of it beside the rod's image (|y| >= rho)
 * weighed by beside (0-1: the detector's weight there over that on the rod; 1: the disc
 * as drawn). 1 for rho >= 1 (no wider than the rod: a band). */
double track_bead_factor(double rho, double cos_view, double beside);
/* Moves a labelled band's candidate from the band's visible halves to the rod's axis
 * (axis: unit, reference camera frame) and triangulates again from its c->nv views (or
 * meets the motion plane again with one camera, nc 1). */
void track_band_correct(const track_band *b, const track_calibration *cal, int nc, icv_vec3 axis, track_candidate *c);
/* Shifts an undistorted pixel (u, v) of marker j seen at experiment time t (s) by the
 * image of its band offset, from the labelled 3D positions xyz (surface frame, F frames
 * of nm markers) and axes of the nearest reference frame; cam, the view's camera index
 * (a bead's weight beside the rod, b->beside). */
void track_band_shift_2d(const track_band *b, int cam, const track_calibration *cal, const track_view *view,
                         const double *t0cam, double off0, double fps0, long F, const double *xyz, const icv_vec3 *axes,
                         int nm, int j, double t, double *u, double *v);
/* The rod's axis (unit, reference camera frame) from a frame's labelled bands. */
int track_band_axis(const track_band *b, const track_calibration *cal, const track_candidate *cf, const int *lab, int n,
                    icv_vec3 *axis);

/* one 2D point as the tracker gave it (distorted pixels) */
typedef struct {
    long frame;
    int id;
    double u, v, sigma, area;
    unsigned flags;
    double pred_u, pred_v; /* px: the filter's prediction for this frame (track_point) */
} track_raw_point;

/* Of a camera's duplicated frames dup[0..n_dup) (pixels equal to the frame before),
 * those while the scene moves: the tracks, by their median, more than min_px (px)
 * apart between the frames either side, a move within 6 sigma of a track's own noise
 * counting as none (raw: the tracker's points sorted by frame). Into out (n_dup room); how
 * many. A still scene's equal frames are H.264's skipped blocks, no timing fault.
 * duplicate_motion.c. */
size_t track_duplicates_in_motion(const track_raw_point *raw, long n_raw, const long *dup, size_t n_dup, double min_px,
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
int track_repeated_pictures(const track_raw_point *raw, long n_raw, long frames, double min_px, long *out,
                            size_t *n_out, double *stored_times, icv_err *err);

/* *moves = 1 when some track's measured point lies more than min_px (px) and 6 of
 * their sigmas from the track's first one, else 0 (nothing tracked moves over the
 * clip: a still picture stored as a video). 0, or ICV_ENOMEM. */
int track_anything_moves(const track_raw_point *raw, long n_raw, double min_px, int *moves, icv_err *err);

/* ---- identity from the body template (identity.c) ----------------------- */

/* Labels 3D points with the body's markers by inter-marker distances, frame after
 * frame, keeping the labelling continuous (a symmetric template, e.g. a rod's three
 * collinear markers, is resolved by continuity with the previous frames; at first
 * sight the marker with the larger body-frame y gets the point higher along the
 * surface y). Workspace sized once; labelling allocates nothing. */
typedef struct track_identity track_identity;

/* The template's tolerance of the track stage (tol_m, m, and tol_rel of
 * track_identity_alloc below; job_track_options' defaults), which analysis's template
 * check honours too. */
#define TRACK_TEMPLATE_TOL_M 0.003
#define TRACK_TEMPLATE_TOL_REL 0.03

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

/* As track_identity_label (X), or _per_marker (Xm, X NULL), with hint[i] for point i
 * and cov[i], its covariance (m^2, the frame of X; NULL: none; a non-finite or zero one:
 * not known, as for a point coasted, extrapolated or merged, whose error the covariance
 * does not hold). With covariances, of the labellings with the most markers (three or
 * more) each within the tolerance, one whose distance residuals' chi-square exceeds the
 * least by 16 (times the least's chi-square per pair, where over 1: the covariances then
 * understate the frame's errors) is not taken (congruent triangles of a many-marker
 * body); a labelling of three is judged without its worst point's pairs; a pair with a
 * point not known adds nothing to it. Unused with Xm.
 * Hints: a one-marker body's point is the one on the track it was labelled on last, else the
 * one track that moves (farther than tol_m, 3x any other point's track); a point on a
 * still track (travel <= tol_m) is never labelled for it. hint NULL: as without.
 * rays (n_rays, the first TRACK_IDENTITY_MAX_RAYS used; NULL none): where a partial set
 * fits as well another way round and no prediction tells, the labelling whose unseen
 * markers the most rays can be (within the template's tolerance) is taken, when no
 * other explains as many, every point is in it and there are no more rays than its
 * unseen markers (a spare point or ray can fit by chance). */
int track_identity_label_tracks(track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, const double (*cov)[3][3],
                                int n, double t, const track_identity_hint *hint, const track_identity_ray *rays,
                                int n_rays, int *label);

/* The best labelling of n points by the template's distances alone (no continuity, no
 * gate): for the template-fit check. Returns the RMS misfit (m), label as above. */
/* The one marker not labelled in lab (X[i] labelled lab[i], two markers at least) that
 * ray r can be: some point on it at the template's distances from every labelled one,
 * within the tolerance. -1 when none or more than one can. */
int track_identity_ray_marker(const track_identity *id, const icv_vec3 *X, const int *lab, int n,
                              const track_identity_ray *r);

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
    long n_gated;       /* of them, frames where three markers or more (all of them when
                           fewer) fit together, the pair among them */
    double steady;      /* share of those within tol of their own median: near 1 for a rigid
                           pair (a wrong template or scale when it does not fit), low when
                           other points were labelled in place of a marker not found */
    double travel;      /* m: the diagonal of the box of the pair's midpoints: a pair that
                           stays still while the body falls is two still things (clutter) */
    int fits;
} track_template_result;

/* F frames of n[f] points, frame f's at X + f * stride (or, one camera, Xm + f * stride *
 * n_markers, as for track_identity_fit_per_marker; the other NULL): each frame labelled
 * with the most markers whose every pair fits, when three or more do (every marker when
 * the template has fewer): the body *posed* there; else by track_identity_fit (a wrong
 * template or scale shows there, and clutter put in a missing marker's place). Each pair
 * is judged by track_template_pair: on its posed frames alone when it is in three or
 * more of them (those frames confirm the template), else on every frame it was measured
 * in. pairs: n_markers (n_markers - 1) / 2 of them. posed (F entries, or NULL): 1 where
 * the body was posed. Returns the number of pairs that do not fit, or a negative ICV_E*
 * code. */
int track_template_check(const track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, const int *n, long F,
                         int stride, track_template_result *pairs, unsigned char *posed, icv_err *err);
/* The same, where a frame with two markers fitting and, for each marker left out, a ray
 * of one camera at the template's distances from them (rays + f * ray_stride, n_rays[f]
 * of them; track_identity_ray) is posed too (posed[f] = 2): a marker one camera alone
 * sees. */
int track_template_check_rays(const track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, const int *n, long F,
                              int stride, const track_identity_ray *rays, const int *n_rays, int ray_stride,
                              track_template_result *pairs, unsigned char *posed, icv_err *err);

/* What the check's pairs mean for the run. A failing pair whose distances are steady
 * (half or more within tolerance of their median), travel with the body (midpoints over
 * 3 tolerances apart) and are measured in half as many frames as the best-measured pair
 * or more is a rigid distance unlike the template's: TRACK_TEMPLATE_WRONG (wrong markers
 * or scale). Other failing pairs are points standing in for a marker not detected (they
 * scatter, stand still or come in few frames): TRACK_TEMPLATE_STOOD_IN when the body was
 * posed (track_template_check's posed) in TRACK_TEMPLATE_MIN_POSED frames or more, the
 * labelling to go on there; else TRACK_TEMPLATE_TOO_FEW_POSED. *stood_in: bit m set for
 * each marker m of such a pair. TRACK_TEMPLATE_FITS when no pair fails. */
enum { TRACK_TEMPLATE_FITS, TRACK_TEMPLATE_STOOD_IN, TRACK_TEMPLATE_TOO_FEW_POSED, TRACK_TEMPLATE_WRONG };
#define TRACK_TEMPLATE_MIN_POSED 6
int track_template_verdict(const track_template_result *pairs, int npair, long n_posed, unsigned *stood_in);

/* How the points labelled as a body's markers move over a clip. */
typedef struct {
    long points, still_points; /* labelled positions; of them, within r of their marker's median */
    long frames;               /* frames with a position labelled */
    long first, last;          /* the first and last such frame (-1: none) */
    double share;              /* still_points / points */
    double share_first, share_last; /* the still share of the points of the first and last
                                       tenth of those frames (three frames at least) */
} track_labels_still_result;

#define TRACK_LABELS_STILL_MIN_FRAMES 10 /* fewer frames labelled tell nothing of the motion */
#define TRACK_LABELS_STILL_SHARE 0.75    /* a body resting after its impact stayed within
                                            5 mm for 0.745 of its points (tuning scene 1045) */

/* xyz: F frames of nm markers' positions (m; frame f's marker m at (f * stride + m) * 3,
 * NaN: not labelled). Whether the labelled points stand still, as clutter does: in
 * TRACK_LABELS_STILL_MIN_FRAMES labelled frames or more, TRACK_LABELS_STILL_SHARE of the
 * points or more within r of their marker's median position, and half or more of the
 * points of the frames at both ends of the labelled span (a body dropped may rest before its
 * release or after its impact, not at both ends at the same place). Returns 1 still, 0
 * not, or a negative ICV_E* code (out of memory). */
int track_labels_still(const double *xyz, long F, int stride, int nm, double r, track_labels_still_result *out,
                       icv_err *err);

/* Whether the pairs measured (n > 0) are one scale of the template, as a wrong
 * calibration scale or body.markers in other units make them: s, the median of measured
 * / D, and every pair within its tolerance of s D. A rigid misfit that is not one scale
 * is other points of the body than the markers' centres (a post's foot where its ball
 * does not show, a rod's light piece between dark bands, a marker partly hidden): some
 * pairs shorter than others, some fitting. *scale: s, *lo, *hi: the ratios' range (NaN
 * when fewer than 3 pairs are measured). Returns 1 one scale, 0 not, -1 too few pairs
 * to tell. */
int track_template_one_scale(const track_template_result *pairs, int npair, double *scale, double *lo, double *hi);

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
} track_sync_point;

typedef struct {
    const track_sync_point *pts;
    long n_pts;
    const long *frame_start;  /* frames + 1 entries: points of frame f are
                                 [frame_start[f], frame_start[f+1]) */
    long frames;
    const double *cam_time_s; /* frames entries: this camera's clock, s */
    double fps;               /* Hz */
    track_view view;          /* K, R, t (u, v, sigma unused) */
} track_sync_camera;

/* The point of track id of camera c at camera-clock time tc (s), interpolated linearly
 * between the two adjacent frames that bracket tc when both measured it and no
 * seg_break lies between (never across an impact or a gap). sigma (px): both points'
 * sigmas propagated, plus the chord's error w (1 - w) a / 2 for the track's second
 * difference a (px/frame^2) there, in quadrature. Returns 0 when found
 * (*interpolated = 1 unless tc is a frame's own time), -1 otherwise. */
int track_sync_interpolate(const track_sync_camera *c, int id, double tc, double *u, double *v, double *sigma,
                           int *interpolated);

/* The point of track id of camera c at camera-clock time tc (s) just outside the clip:
 * within max_frames frame periods before its first frame or after its last, extrapolated
 * linearly from the two end frames when they and the frame next to them were measured
 * inside one flight phase (no seg_break between the three, no dropped frame). The sigma
 * (px) grows with the lever arm: (1 - w)^2 s0^2 + w^2 s1^2 plus, in quadrature, the
 * chord's error w (1 - w) a / 2 for the track's second difference a (w < 0 or > 1, in
 * frames from the end frame). Returns 0 when found, -1 otherwise. An impact inside the
 * extrapolated fraction of a frame cannot be seen: the pipeline flags such points
 * `extrapolated`. The sigma of track_sync_interpolate carries the same chord term. */
int track_sync_extrapolate(const track_sync_camera *c, int id, double tc, double max_frames, double *u, double *v,
                           double *sigma);

/* Marks seg_break on points where the track's second difference says an impact lies
 * between this frame and the next (both the second differences around that interval
 * exceed kink_px + 6 sigma). */
void track_sync_mark_breaks(track_sync_point *pts, long n_pts, const long *frame_start, long frames, double kink_px);

/* The offset (frames of camera b, capture convention) at which camera a's points lie
 * on the epipolar lines of camera b's tracks interpolated to the same experiment time.
 * Pairs of track identities are those that match at the center offset; each pair's
 * own minimum of its robust sum of squared epipolar distances is searched within
 * [center - range, center + range] (none when at the edge), with its sigma from the
 * cost's shape over +-0.5 frame (scaled by the residual and its frame-to-frame
 * correlation). The pairs' minima and the prior (center +- prior_sigma, e.g. the
 * flash's; prior_sigma <= 0: none) are combined as estimates that each carry a
 * systematic error of their own (track/consensus_internal.h). Fills the offset, its
 * 1-sigma and the RMS distance there. Fails (ICV_ENOTFOUND) with too little motion or
 * when no pair has a minimum that agrees. */
int track_subframe_offset(const track_sync_camera *a, const track_sync_camera *b, double center, double range,
                          double prior_sigma, double max_px, double *offset, double *sigma, double *rms_px,
                          icv_err *err);

#endif
