/* job.h: the jobs impactcv runs. Each runs the stages of the libraries upstream of it
 * (track, analysis, solver, report) in order, owns the output folders and the stage
 * cache, and is the only place besides capture/ where videos are opened for a run.
 * The CLI calls one job per subcommand. */
#ifndef ICV_JOB_H
#define ICV_JOB_H

#include "analysis/bodies.h"
#include "analysis/coefficients.h"
#include "report/report.h"
#include "track/track_3d.h"

/* ---- impactcv track (track.c and its stages: track_open.c, track_2d.c, track_sync.c,
 * track_3d.c, track_write.c) ---------------------------------------------------
 *
 * experiment.yaml -> calibration and surface frame (calib/) -> every camera's video
 * decoded once (capture/) with its per-frame brightness for the flash -> detector +
 * tracker per camera (track.h) -> sync (flash, sync.offsets or none, then the sub-frame
 * refinement) -> undistortion, epipolar association, interpolation of the other camera
 * inside one flight segment, triangulation, the surface frame -> marker identity from
 * body.markers -> DIR/tracks2d_<camera>.csv, DIR/tracks3d.csv, DIR/tracks3d_quality.csv,
 * all written only once the whole job has succeeded (docs/pipeline.md). Frames, units:
 * docs/conventions.md. */

/* Options are data: job_track_options_default, then change what you need. */
typedef struct {
    long max_frames;        /* frames per camera to read; 0 = all */
    int refine_offset;      /* 1 (default): refine the sub-frame offset of two cameras from the
                               motion when sync is flash or none (sync.offsets are used as
                               given) */
    double refine_range;    /* frames: each pair of tracks' own offset is searched within
                               this of the flash (or zero) offset. Default 5 (at least 5
                               with sync none) */
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
    double sigma_floor_px;  /* px: added in quadrature to each centroid's sigma before
                               triangulation: the error the detector's sigma (pixel noise,
                               Savin & Doyle) does not hold: the band model's residual, the
                               coding of the marker's edges. Default 0.03: the value that
                               keeps the 3D error / sigma near 1 on the stereo samples
                               (docs/pipeline.md, "The stage's settings, measured") */
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
    int carry_labels;       /* 1 (default): a point the identity left unlabelled whose 2D
                               tracks carry one marker in the frames it labelled is that
                               marker, when the frame then keeps the template's distances
                               (track_3d.c, carry_labels); 0 off */
    int band_correction;    /* 1 (default): markers on the axis of a capsule or cylinder are
                               bands round it; their centroids are moved back to the axis
                               (track_3d.c, band markers) */
    int band_coverage;      /* 1: with band markers, the detector's coverage centroid
                               (track.h centroid_coverage): the box centroid of a band on
                               its black rod in front of the lit plate moves with the box's
                               integer edges; 0 (default): under motion blur (a rod spinning
                               ~10 rad/s) its background model breaks and omega's errors
                               grow (docs/pipeline.md, "The stage's settings, measured") */
    int debug_frames;       /* 1: at debug level (-v), one line per frame and camera: the
                               detector's statistics and the cross-camera matches.
                               Default 0 */
    const track_calibration *calibration; /* the experiment's calibration and surface frame
                               already loaded (job_track_calibration_load; the caller still owns
                               it), or NULL (default): loaded here */
} job_track_options;

void job_track_options_default(job_track_options *o);

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
} job_track_result;

/* Runs `impactcv track EXPERIMENT -o OUT_DIR`. Writes OUT_DIR/tracks2d_<camera>.csv per
 * camera, OUT_DIR/tracks3d.csv and OUT_DIR/tracks3d_quality.csv, only when the whole job
 * succeeded (each file atomically; a failure leaves none of them). opt may be NULL
 * (defaults), res may be NULL. Shows a progress bar on a terminal. Fails with one line
 * naming the file, camera or frame. */
int job_track_run(const char *experiment_path, const char *out_dir, const job_track_options *opt, job_track_result *res,
                  icv_err *err);

/* ---- impactcv analyze (analyze.c) ------------------------------------------ */

typedef struct {
    const char *experiment_path;
    const char *tracks_path;  /* NULL: <out_dir>/tracks3d.csv */
    const char *out_dir;      /* results.json and fits.csv go here */
    int method;               /* ANALYSIS_FIT | ANALYSIS_HOUBOLT */
    const char *truth_path;   /* NULL, or a synth truth.json to compare with (after
                                 the outputs are written; a disagreement fails) */
    FILE *truth_table;        /* where the comparison table goes (NULL: nowhere) */
    const char *const *stage_warnings; /* several bodies: the earlier stages' warnings
                                 ("stage: message"), listed on report.html; may be NULL */
    int n_stage_warnings;
} job_analyze_options;

/* `impactcv analyze` of several bodies (`bodies:`): tracked by the track stage
 * (cameras; tracks_path NULL: out_dir/tracks3d.csv, every body's markers body after
 * body) or by another system (no cameras; tracks_path a C3D, TRC or tracks3d.csv file
 * from which each body takes its markers by its marker_labels): each body's poses, every body-body impact measured
 * (analysis/bodies.h; a body on the table, or any body when gravity is auto, fitted
 * with its own constant acceleration on each side), each joint's residual on the
 * tracks, and for two bodies pinned by one joint (a chain) its impact with the
 * surface (analysis_chain_impacts_measure, into res.chain[]; not the links' with each
 * other: they always touch at the pin); results.json and report.html
 * (report_bodies_write) into out_dir (nothing written on failure but a report.html
 * that fails after results.json). */
typedef struct {
    icv_experiment exp;
    analysis_bodies_result res;
    int n_joints;
    analysis_joint_residual joint[ICV_MAX_BODIES];
} job_bodies_result;

int job_analyze_bodies(const job_analyze_options *job, job_bodies_result *out, icv_err *err);

/* Reads the experiment and the tracks, checks the template, finds and measures the
 * impacts, checks gravity, compares with the model, and writes results.json and
 * fits.csv into out_dir (created if needed; nothing is written on failure). */
int job_analyze(const job_analyze_options *job, analysis_experiment_result *out, icv_err *err);
/* The same with the calibration's uncertainty given (a caller that calibrated, e.g.
 * from images, and knows it); NULL: what the experiment's calibration file says
 * (analysis_calib_sd_from_experiment), which job_analyze uses. */
int job_analyze_sd(const job_analyze_options *job, const analysis_calib_sd *calib_sd,
                   analysis_experiment_result *out, icv_err *err);

/* ---- impactcv calib on videos (calibration_video.c) --------------------------- */

/* Mono calibration from a video (anything capture/ opens): its frames handed to
 * calib_camera_from_clip (which says how views are sampled). Fails with one line on
 * an unreadable video too. */
int job_calib_camera_from_video(const char *path, const calib_board *b, const calib_options *opt, calib_camera *cam,
                                icv_err *err);
/* Stereo from two synchronised videos (calib_stereo_from_clips; opt->video.offset
 * pairs frame n of the first with n + offset of the second). */
int job_calib_stereo_from_videos(const char *path1, const char *path2, const calib_board *b, const calib_options *opt,
                                 calib_stereo *st, icv_err *err);

/* ---- impactcv coefficients (coefficients.c) ---------------------------------- */

/* `impactcv coefficients`: each experiment (its `experiment:` kind: tilt, slide or
 * drop) measured, repeats of one kind combined, coefficients.json written into
 * out_dir. Tracks: tracks_path (one experiment), else <out_dir>/tracks3d.csv (one)
 * or <out_dir>/<name>/tracks3d.csv (several). reps holds n entries. */
int job_coefficients_run(const char *const *experiments, int n, const char *tracks_path, const char *out_dir,
                         analysis_coefficient *result, analysis_coefficient *reps, icv_err *err);

/* ---- the run's pictures and page (overlays.c, report_page.c) --------------- */

/* DIR/overlays/<camera>_<frame>.png: per camera, the frames before, at and after
 * each impact (the frame nearest the impact instant from DIR/results.json, placed on
 * the camera's clock by its offset) with the detections of DIR/tracks2d_<camera>.csv
 * in their marker's colour, the tracker's predicted positions
 * (DIR/predicted2d_<camera>.csv) as magenta crosses and the fitted body outline
 * (the side's ballistic and torque-free fit at that frame's time; DIR/fits.csv gives
 * its position) drawn over the decoded video frame, projected through the camera
 * model of DIR/track_info.json. Each image is the part of the frame round the body
 * (at least 240 px a side); DIR/overlays/index.json lists them with that crop
 * (crop_px: x0, y0, width, height in the frame's pixels), the frame's time, the
 * impact and the role (before, at, after). The only step after tracking that decodes video
 * (a few frames by seek): `impactcv run` caches it as its own stage, keyed by the
 * videos, the tracks and the impact frames. The folder is replaced whole, only when
 * every image is made. A run with no impact writes none (and removes an older
 * folder). Errors name the camera, the file and the frame. */
int job_overlays_write(const char *dir, const icv_experiment *exp, icv_err *err);
/* The same for several bodies from their analysis in memory (res: the impacts, in
 * results.json's order: body-body, then the chain's surface impact): per camera the
 * frames before, at and after each, every body in its own colour
 * (report_overlay_bodies_frame_png); index.json adds "bodies": [{"name", "color":
 * [r, g, b]}] in the order of `bodies:`. DIR's tracks3d.csv and track_info.json
 * are read. */
int job_overlays_write_bodies(const char *dir, const icv_experiment *exp, const analysis_bodies_result *res,
                              icv_err *err);

/* DIR/report.html from DIR/results.json, DIR/fits.csv and DIR/tracks3d.csv (the
 * files `impactcv analyze` leaves), for the experiment exp; with DIR/track_info.json
 * (the track stage's sidecar) the calibration, sync and timing sections and the
 * track stage's warnings, with DIR/overlays/ (job_overlays_write) the overlays.
 * stage_warnings (n_stage_warnings, may be NULL and 0): the warnings the stages that
 * made DIR printed, "stage: message", shown first in the summary. A section whose file
 * is absent says why. */
int job_report_write(const char *dir, const icv_experiment *exp, const char *const *stage_warnings,
                     int n_stage_warnings, icv_err *err);

/* ---- impactcv run (run.c) ---------------------------------------------- */

/* The run's stages, in the order they run. Each is cached in DIR by the content of
 * what it reads (job/job_internal.h; docs/report.md, "The stage cache"):
 *   track     calibration, capture and sync, tracking, triangulation (tracks2d, tracks3d)
 *   analyze   impacts, fits, the measured quantities and their sigma (fits.csv), without
 *             the model
 *   model     the model compared with each impact (results.json)
 *   overlays  the pictures over the video (job_overlays_write)
 *   report    report.html
 *   exports   exports/ (TRC, C3D, pose CSV) */
enum {
    JOB_STAGE_TRACK,
    JOB_STAGE_ANALYZE,
    JOB_STAGE_MODEL,
    JOB_STAGE_OVERLAYS,
    JOB_STAGE_REPORT,
    JOB_STAGE_EXPORTS,
    JOB_N_STAGES
};

/* "track", "analyze", ... */
const char *job_stage_name(int stage);
/* A stage's index from its name, or -1. */
int job_stage_parse(const char *name);

typedef struct {
    const char *experiment_path;
    const char *out_dir;
    const char *truth_path;   /* NULL, or a synth truth.json to compare with */
    FILE *truth_table;        /* where the comparison table goes (NULL: nowhere) */
    const char *from;         /* NULL: every stage whose key matches DIR's manifest is
                                 reused; a stage's name: it and every stage after it run
                                 again */
    const icv_experiment *model; /* NULL, or the model settings that replace the
                                 experiment's model: (restitution, mu_s, mu_k, e_n, their
                                 *_measured and *_from; a campaign's shared model) */
    int force;                /* 1: DIR may be a folder (or file) that is not an earlier
                                 result (its files are kept); never one holding an input */
    const char *calibration_file; /* NULL, or a calibration file (`impactcv calib`'s format)
                                 that replaces the experiment's calibration (file or
                                 images) in the track stage: a campaign's shared calibration
                                 (campaign_calibration.c). Its bytes are in the track key. */
} job_run_options;

/* What the run measured, for the CLI's summary. */
typedef struct {
    analysis_experiment_result job;  /* the experiment, the body, the model, the impacts */
    char report_path[ICV_PATH_MAX];
    double seconds;           /* s, wall time of the whole run */
    int ran[JOB_N_STAGES]; /* 1: the stage ran; 0: its files were reused from DIR */
    double stage_seconds[JOB_N_STAGES]; /* s, wall time of each stage that ran */
    long decoded_frames;      /* video frames and images decoded during the run
                                 (capture_decoded_frames) */
    job_bodies_result bodies; /* several bodies (bodies:): their analysis (job is then
                                 the first body's, with no impacts) */
} job_run_result;

/* The whole pipeline in one call: `impactcv track` (calibration, sync,
 * tracking, triangulation), `impactcv analyze` (impacts, fits.csv), the model
 * (results.json; with truth_path, the comparison with the truth), the overlays,
 * report.html and the exports (DIR/exports/: TRC, C3D, pose CSV). A stage whose key
 * (the digest of the files and experiment.yaml keys it reads, and of the program)
 * matches DIR/.impactcv/manifest.json, and whose files in DIR are intact, is not run:
 * its files are reused. Everything is made in a temporary folder beside DIR and swapped
 * into place only when every stage succeeded (when no stage ran, DIR is left as it
 * is): a failed run leaves the previous complete results untouched. The error names
 * the stage. DIR must be new, empty or an earlier result (its manifest) unless
 * o->force, and may never be or hold one of the experiment's inputs
 * (icv_outdir_check); files in DIR that no stage wrote are the user's and are carried
 * into the new results. */
int job_run(const job_run_options *o, job_run_result *r, icv_err *err);

/* *up_to_date = 1 when DIR holds the complete results of this run: every stage's key
 * matches DIR's manifest and its files are intact (what a campaign's resume asks).
 * Reads, never writes. o->from is ignored. */
int job_run_up_to_date(const job_run_options *o, int *up_to_date, icv_err *err);

/* The analysis and model of the last complete run in out_dir (its
 * .impactcv/result.bin), with the experiment and body reloaded from experiment_path
 * and the model settings of `model` (NULL: the experiment's own). */
int job_run_load(const char *experiment_path, const icv_experiment *model, const char *out_dir,
                    analysis_experiment_result *job, icv_err *err);

/* ---- campaigns (campaign.c; the tables and plots: report/campaign_table.c, _plot.c)
 * `impactcv campaign CAMPAIGN.yaml -o DIR [-j N]` (campaign.yaml:
 * docs/campaign.md): every experiment run as `impactcv run` into DIR/<name>/ (in
 * parallel, each in a process of its own: PLplot is not thread-safe), the ones whose
 * results are up to date left alone, a failed one reported and the others carried
 * on; then the validation table (Han Sun Tables 4.6 and 4.9: DIR/validation.csv,
 * DIR/validation.md, DIR/campaign.html linking each report) and the parameter plot
 * (DIR/parameters_angle.svg, DIR/parameters_slip.svg, inline in campaign.html).
 * Experiments naming the same board images share one calibration, computed once into
 * DIR/calibration/<hash>/ (campaign_calibration.c). The slurm engine (campaign_slurm.c)
 * submits the runs as a Slurm job array and the tables as a job after it. */

enum { JOB_ENGINE_DEFAULT = 0, JOB_ENGINE_LOCAL = 1, JOB_ENGINE_SLURM = 2 };

/* What the slurm engine submitted (campaign_slurm.c), for the CLI to print. */
typedef struct {
    int submitted;               /* 1: jobs were submitted; 0: nothing to run (gathered here) */
    char array_id[32], gather_id[32]; /* Slurm's job ids */
    int n_tasks;
    char log_dir[ICV_PATH_MAX];  /* DIR/.slurm: the tasks' logs and results */
    int waited;                  /* 1: followed until the gather job ended (wait) */
    int status;                  /* waited: the campaign's exit status (0 all succeeded, 1 not) */
    char gather_log[ICV_PATH_MAX]; /* the gather job's output: its summary and failures */
} job_campaign_slurm_info;

typedef struct {
    const char *campaign_path;
    const char *out_dir;
    int jobs;                    /* experiments run at once (-j N); < 1 means 1 */
    int engine;                  /* JOB_ENGINE_*: DEFAULT is campaign.yaml's `engine:` (local
                                    when absent) */
    int wait;                    /* slurm: follow the jobs until the gather ends
                                    (campaign_slurm.c) and return the campaign's result */
    /* set by the slurm engine's own jobs (hidden options of `impactcv campaign`): */
    int task;                    /* 1: run the one experiment of $SLURM_ARRAY_TASK_ID */
    const char *gather;          /* non-NULL: the array job's id whose tasks are gathered */
    job_campaign_slurm_info *slurm; /* NULL, or filled with what the slurm engine submitted */
} job_campaign_options;

/* Runs a campaign. Returns 0 when the campaign itself went through (the tables are
 * written) even if experiments failed: r->n_failed says how many, each with its
 * error; fails (one line naming campaign.yaml's key, or the reason) when the campaign
 * file is wrong, no experiment succeeded, or the tables cannot be written. Progress
 * goes to icv_log (info: each experiment as it ends, up to date or not). r is filled
 * as far as the campaign got, also on failure; free it with
 * report_campaign_result_free. */
int job_campaign_run(const job_campaign_options *o, report_campaign_result *r, icv_err *err);


#endif
