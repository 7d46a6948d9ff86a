/* job_track_internal.h: the track stage's private parts (job/track*.c): one context
 * struct the stages share (job/track.c runs them in order: track_open.c, the
 * experiment, calibration and cameras; track_2d.c, every camera's frames once;
 * track_sync.c; track_3d.c, candidates, scales, template and identity; track_write.c,
 * the files), like FFmpeg's fftools (demux, decode, filter, encode, mux); and the video
 * parts of the coefficient experiments. Frames, units: docs/conventions.md. */
#ifndef ICV_JOB_TRACK_INTERNAL_H
#define ICV_JOB_TRACK_INTERNAL_H

#include <jansson.h>
#include <stdatomic.h>

#include "calib/calib.h"
#include "capture/capture.h"
#include "core/core.h"
#include "job/job.h"
#include "track/track.h"
#include "track/track_3d.h"

/* ---- what the stages share ---------------------------------------------------- */

/* The calibration and surface frame of an experiment, as the job loads them
 * (track_open.c; also used by level_gravity.c and tilt_track.c). */
int job_track_calibration_read(const icv_experiment *exp, track_calibration *cal, icv_err *err);

/* track_size_scale.c: one camera, motion_plane.scale: size. The ball's outline is fitted with
 * a circle at sub-pixel level in every frame where it is the one candidate (the video
 * decoded again, luma), its depth R sqrt(1 + 1 / r^2) from the normalised radius r and
 * the diameter 2R given; the median over the frames whose blur is under a quarter of
 * the diameter scales the provisional plane (track_plane_scale) and is kept in cal->size.
 * When the sizes show the plane tilted to the camera (size_plane.c) and the surface
 * comes from pixels (surface.line_px, or the lowest point reached), the plane is turned
 * to the fit instead and the surface frame found again on it; cal->size.tilted is then
 * 1 and the caller meets every candidate's ray with the new plane.
 * Fails naming exp->path when the body is not one marker or too few outlines fit. */
int job_track_size_scale_apply(const icv_experiment *exp, track_calibration *cal, track_candidate *cand,
                               const int *cand_n, long F, icv_err *err);
/* Adds "scale_from_size" to track_info.json. */
void job_track_size_scale_json(const track_calibration *cal, json_t *root);

/* A gap in one marker's 2D track: frames first..last where the tracker had no blob
 * for it (it kept the identity and found it again, or the clip ended). Why, from where
 * it should have been (interpolated between the measurements either side, or the
 * tracker's prediction at the clip's end): */
typedef enum {
    JOB_TRACK_GAP_OCCLUDED,     /* another marker was measured near there: hidden behind the body */
    JOB_TRACK_GAP_OUT_OF_IMAGE, /* within 10 px of the image's edge or beyond it */
    JOB_TRACK_GAP_MERGED,       /* its blob touched another marker's in every frame of the gap */
    JOB_TRACK_GAP_NOT_FOUND,    /* none of these: not seen (lighting, threshold, a marker off) */
} job_track_gap_kind;

/* gaps warned one by one per camera; the rest are counted in one warning */
#define JOB_TRACK_GAPS_WARNED 8
/* bins of a camera's readings of the weight beside a bead's rod (0-1 by 0.05) */
#define JOB_BESIDE_BINS 21
/* bytes per camera: the frames the look's trials decode, kept for the 2D pass
 * (capture_options.keep_bytes), so that it decodes none of them again; 128 MiB holds 145
 * frames of 1280x720, 64 of 1920x1080 (8-bit luma). Past it they are decoded again. */
#define JOB_TRACK_KEEP_BYTES ((size_t)128 << 20)

typedef struct {
    int track;           /* 2D track identity (the tracker's) */
    int marker;          /* the marker column of tracks2d (the body marker once labelled) */
    long first, last;    /* frames of this camera, inclusive */
    int to_end;          /* 1: not found again before the clip's end */
    job_track_gap_kind kind;
} job_track_gap;

/* "occluded (others seen nearby)", ... (track_info.c) */
const char *job_track_gap_why(job_track_gap_kind k);
/* "camera 'a': marker 1 missing in frames 12-23 (to the clip's end): not found" into
 * buf (track_info.c; the warning's text, logged and in track_info.json). */
const char *job_track_gap_format(const char *camera_id, const job_track_gap *g, char *buf, size_t n);

/* What track_info.c reads of one camera of the job. */
typedef struct {
    capture_source *src;   /* the camera's video, still open (index, timing, lost frames) */
    const double *bright;  /* per frame: mean gray level when the flash was looked for, else NULL */
    const track_raw_point *raw;  /* the tracker's points, by frame then identity */
    long n_raw;
    const long *dup;       /* frames whose pixels equal their predecessor's, ascending, found in the
                              job's decoding pass (only with bright; track_info.c decodes nothing) */
    size_t n_dup;
    const job_track_gap *gaps;    /* the markers' gaps, by track then frame */
    size_t n_gaps;
    const long *repeat;    /* frames repeating the picture before them (dropped from the tracks) */
    size_t n_repeat;
    double stored_times;   /* pictures per new picture while the scene moves */
} job_track_info_camera;

/* Keeps the quality of a calibration made from board images in cal->quality_json. */
void job_track_info_keep_camera(track_calibration *cal, const calib_camera *cam);
void job_track_info_keep_stereo(track_calibration *cal, const calib_stereo *st);

/* Writes DIR/predicted2d_<camera>.csv per camera, then DIR/track_info.json (docs/pipeline.md),
 * each atomically; on failure removes those it wrote. cams: exp->n_cameras entries. */
int job_track_info_write(const char *out_dir, const icv_experiment *exp, const track_calibration *cal,
                         const job_track_result *res, const job_track_info_camera *cams, icv_err *err);

typedef struct {
    const icv_camera_spec *spec;
    capture_source *src;
    const capture_info *info;
    track_detector *det;
    track_tracker *tr;
    uint8_t *mask;
    track_raw_point *raw;
    long n_raw, cap_raw;
    track_sync_point *pts;
    long *frame_start;
    long frames;
    long first;         /* cameras[].frames' first: the frames before it are not read */
    double *tcam;       /* s, camera clock */
    double *bright;     /* gray levels per frame */
    long *dup;          /* frames whose pixels equal their predecessor's (found with the brightness) */
    size_t n_dup;
    long *repeat;       /* frames repeating the picture before them, dropped from the tracks */
    size_t n_repeat;
    double stored_times; /* pictures per new picture while the scene moves (1: none repeats) */
    int moves;           /* some track moved over the clip (beyond noise) */
    double off_s;       /* s: this camera's sync offset (capture convention) */
    calib_intrinsics in;
    track_sync_camera pc;
    int *label;         /* frames x n_ids: body marker of (frame, 2D id), -1 none */
    job_track_gap *gaps;       /* the markers' gaps (camera_check) */
    size_t n_gaps, cap_gaps;
    int n_ids;
    /* detection statistics over all frames, for error messages */
    long full_scans, crowded_scans;
    double brightest, last_threshold;
    int max_components;
    double blob_limit;  /* components per full scan beyond which a frame is crowded */
    double t_mean, t_step; /* s: brightness and detect+track, for -v */
    double t_decode;       /* s: reading frames (capture_source_read) */
    int want_brightness;   /* sync by flash: the per-frame brightness is needed */
    int primed;            /* the detector has seen the first frame once */
    int debug_frames;      /* log the detector's line for every frame (-v) */
    double dpx;            /* px: the markers' expected image diameter, 0 unknown */
    int want_beside;       /* beads on a rod: read the detector's weight beside the rod */
    unsigned beside_hist[JOB_BESIDE_BINS]; /* that weight's readings, 0-1 in bins */
    /* track.markers auto's line, logged once every camera is open (they open
       concurrently; the lines in the cameras' order) */
    char look_note[768];
    icv_log_level look_note_level;
    /* the 2D pass begun in the camera's setup thread once its look was set
       (job_track_pass_early): its result, for job_track_pass_2d */
    int passed, pass_rc;
    icv_err pass_err;
    /* the look camera_open set (det->look, det->bright_tophat; final unless auto's joint
       look changes it), read by the other cameras' setup threads once look_set is 1 (the
       pass itself turns det->look for a while: the tracker's opposite look) */
    track_look set_look;
    int set_tophat;
    atomic_int look_set;
} job_track_camera;

/* The median of a camera's beside_hist: the weight its detector gives a bead's disc
 * beside the rod (track_detector_bead_beside); 1 with too few readings. */
double job_track_beside(const job_track_camera *c);

/* The track stage's state from the experiment to the files: each stage reads what the
 * ones before it left (job_track_run). */
typedef struct {
    job_track_options opt;
    job_track_result res;
    icv_experiment exp;
    track_calibration cal;
    job_track_camera cams[ICV_MAX_CAMERAS];
    long total;                 /* frames over the cameras (the progress bar) */
    double fps[ICV_MAX_CAMERAS];/* Hz: each camera's capture rate */
    /* the 3D pass: per reference frame (F of them) */
    long F;
    track_identity *ident;
    track_candidate *cand;              /* TRACK_MAX_CAND per frame */
    int *cand_n;
    track_identity_ray *rays;   /* TRACK_IDENTITY_MAX_RAYS per frame: the views no candidate took */
    int *rays_n;
    int *rays_extra;            /* rays after those: the views of outliers */
    track_quality3d *qrows;
    long nq;
    long *fr3;
    double *t3, *xyz;           /* s; m, surface frame, F x n_markers x 3 (NaN: not seen) */
    icv_vec3 *axes;             /* the rod's axis (camera frame), x = NaN unknown */
    track_band band;
    /* several bodies: the 3D pass labels one body at a time (track_bodies.c); xyz holds
       every body's markers (xyz_stride per frame), this body's from marker_offset on;
       cand_lab, when set, receives each candidate's marker of this body (-1 none).
       One body: stride n_markers, offset 0, cand_lab NULL. */
    int xyz_stride, marker_offset;
    int *cand_lab;
    int corrected;              /* the band markers' centroids were moved to the axis */
    /* m: one camera, a ball that is its own marker: its radius, so that its image's
       centre is taken back to its centre's projection (track_ray_plane_sphere) once
       the motion plane is in metres; 0 otherwise */
    double sphere_r;
    /* s: when the job and each phase began (the -v timing lines) */
    double t_start, t_2d, t_sync, t_3d;
    /* track.markers auto: -1, or the look every camera is given instead of auto's
       choice (job_track_run's second try, when auto's look gave points that do not fit
       body.markers) */
    int look_forced;
    int tophat_forced;   /* with look_forced bright: read as the white top-hat */
    int template_misfit; /* 1: the template check refused the points (template_check) */
    int look_crowded;    /* 1: a camera's look kept too many marker-sized blobs in every full scan
                            (camera_check) */
    int none_labelled;   /* 1: no position was labelled in any frame (job_track_3d_nothing_labelled) */
    int labels_still;    /* 1: the labelled points stand still over the clip (clutter) */
    int tracks_still;    /* 1: a camera tracked only still things (camera_check_motion), its
                            frames not all one picture as far as known */
    int no_early;        /* 1: every camera's 2D pass after all are set up (job_track_pass_early) */
    atomic_int early_stop; /* a camera's setup or early pass failed: the early passes stop */
} job_track;

/* job_track_open's answer when a camera's pass began early and auto's joint look is to
 * weigh the cameras' differing looks: the stage is run again without early passes. */
#define JOB_TRACK_AGAIN 1

/* Camera c's 2D pass (job_track_pass_2d's, without the progress bar) in its setup
 * thread, as soon as its look is set: its decoding overlaps the other cameras' look
 * trials (docs/track.md, "Session 31"). The result is kept in c (passed, pass_rc). */
void job_track_pass_early(job_track *j, job_track_camera *c);

/* After track.markers auto gave every camera `look` (bright read as the white top-hat
 * when tophat) and the template refused its points, the looks to run the stage with
 * instead, in order: the other of bright and dark, then bright read as the white top-hat
 * when every camera's detector can (tophat_usable) and auto did not give it. looks[i]
 * with tophats[i] (1: the top-hat); returns how many, at most JOB_TRACK_MAX_RETRY (0 for
 * another look). */
#define JOB_TRACK_MAX_RETRY 2
int job_track_retry_looks(track_look look, int tophat, int tophat_usable, track_look *looks, int *tophats);

/* The stages, in order; each fails with one line naming the file, camera or frame. */
int job_track_open(job_track *j, const char *experiment_path, icv_err *err);
int job_track_pass_2d(job_track *j, icv_err *err);
int job_track_sync(job_track *j, icv_err *err);
/* Camera k's sub-frame offset from the motion against the reference camera, searched
 * about the flash's (or zero) offset and combined with the flash's as a prior
 * (track_subframe_offset); the same for the first refinement and the band pass's. */
int job_track_refine_offset(job_track *j, int k, double *offset, double *sigma, double *rms_px, icv_err *err);
int job_track_pass_3d(job_track *j, icv_err *err);
/* After the labelling of one body of up to 6 markers: the permutation of its markers
 * whose positions fit body.markers' distances best over the clip, when it fits better
 * in 75% of the frames where the two differ (10 at least), relabels xyz, the quality
 * rows and the 2D labels (logged): a nearly symmetric template's first frames decide
 * its orientation by their noise (track_orient.c). */
void job_track_orient_template(job_track *j);
int job_track_write(job_track *j, const char *out_dir, icv_err *err);

/* The 3D pass's steps, for the pass of several bodies (track_bodies.c; track_3d.c):
 * every reference frame's candidates, this pass's outliers and (one camera, pass 0)
 * the plane's scale; then the body's template checked and its markers labelled
 * (j->exp the body's view, j->cand the candidates left to it; check 0: labelled
 * without the template check); the gaps named. */
int job_track_3d_candidates(job_track *j, int pass, icv_err *err);
int job_track_3d_label_body(job_track *j, int check, icv_err *err);
int job_track_3d_nothing_labelled(const job_track *j, icv_err *err);
void job_track_3d_gaps_name(job_track *j);
/* The 3D pass of several bodies (bodies:), j->exp every body's markers together
 * (icv_experiment_use_all_bodies): bodies of more markers first, each labelled on the
 * candidates the ones before it left; one-marker bodies (a puck, a cradle's ball) by
 * their 2D tracks' continuity, assigned at the first frame where all are seen in the
 * order of bodies: from left to right in the reference camera's image. */
int job_track_bodies_3d(job_track *j, icv_err *err);
/* The quality rows in frame order, then marker (track_bodies.c). */
void job_track_sort_quality(job_track *j);
/* One camera: candidate c's position on the plane parallel to the motion plane at
 * offset dz (metres, surface z) where a marker off the body's plane moves; z then 0
 * (track_3d.c). */
void job_track_planar_marker_plane(const track_calibration *cal, double dz, track_candidate *c);
/* The ray pose of frame f: markers one camera alone sees placed on their rays from the
 * pose of the labelled points (track_3d.c); returns the positions added. */
int job_track_ray_pose_frame(job_track_camera *cams, const track_identity *ident, const icv_vec3 *tmpl, int nm, int off,
                             const icv_vec3 *X, const track_candidate *cf, const int *lab, int n_cand, long f, double t,
                             const track_identity_ray *rays, int n_rays, double sigma_scale, track_pose *prior,
                             long *prior_f, double *xyz, track_quality3d *qrows, long *nq);
/* After the identity's pass of one body: the labels the 2D tracks carry into the
 * frames it left unlabelled (track_carry_labels.c); cand_lab the identity's labels
 * (F x TRACK_MAX_CAND), rss the squared residuals (px^2) summed. */
int job_track_carry_labels(job_track *j, const int *cand_lab, double *rss, icv_err *err);

void job_track_camera_free(job_track_camera *c);
/* The body marker of 2D point (frame f, id), -1 none: the label given at f, else at
 * the nearest frame within 3, else the one the track carries most often; a label lent
 * from other frames never one another track holds at f (track_labels.c). */
int job_track_label_2d(const job_track_camera *c, long f, int id);
/* The body marker of every raw point of c, in c->raw's order, into marker[n_raw]:
 * job_track_label_2d's, except that where several tracks would be lent one label in a
 * frame, only the nearest labelled frame's, else the most often labelled track keeps it:
 * each marker at most once per frame (track_labels.c). */
int job_track_labels_2d(const job_track_camera *c, int *marker, icv_err *err);

/* ---- the coefficient experiments' video parts ------------------------------ */

/* An experiment's calibration and surface frame as the track job loads them (from
 * calibration.file or by calibrating the board images: seconds), loaded once for a
 * job that needs them twice (a slide's level board, then its tracking);
 * track_calibration.c. */
int job_track_calibration_load(const icv_experiment *exp, track_calibration **out, icv_err *err);
void job_track_calibration_free(track_calibration *cal);

/* Gravity in the surface frame from the board lying on a level reference
 * (experiment.yaml coefficients.level_images; level_gravity.c): g = -g0 n, n the level
 * board's normal (up) in the surface frame; g0 in m/s^2. *incline_sd (rad): 1-sigma of
 * the angle between the two boards' normals, from each board's corner scatter about
 * its plane (stereo), or its reprojection residual (one camera; a lower bound). cal:
 * the experiment's calibration, or NULL: loaded here as the track job does. */
int job_level_gravity(const icv_experiment *exp, const track_calibration *cal, double g0, icv_vec3 *g,
                      double *incline_sd, icv_err *err);

/* The tilt from video (tilt_track.c): the reference camera's video, the board lying
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
} job_tilt;

int job_tilt_run(const char *experiment_path, job_tilt *out, icv_err *err);
/* The markers' height (marker_height) again from the frames before `upto` only (the
 * resting ones, once the onset is known), and s from it. */
int job_tilt_height(job_tilt *t, long upto, icv_err *err);
void job_tilt_free(job_tilt *t);
/* tilt_track.csv: frame,time_s,angle_rad,displacement_m (empty where not measured). */
int job_tilt_write(const char *path, const job_tilt *t, icv_err *err);

#endif
