/* job.h: the jobs impactcv runs. Each runs the stages of the libraries upstream of it
 * (track, analysis, solver, report) in order, owns the output folders and the stage
 * cache, and is the only place besides capture/ where videos are opened for a run.
 * The CLI calls one job per subcommand. */
#ifndef ICV_JOB_H
#define ICV_JOB_H

#include "analysis/coefficients.h"
#include "report/report.h"

/* ---- impactcv analyze (analyze.c) ------------------------------------------ */

typedef struct {
    const char *experiment_path;
    const char *tracks_path;  /* NULL: <out_dir>/tracks3d.csv */
    const char *out_dir;      /* results.json and fits.csv go here */
    int method;               /* ANALYSIS_FIT | ANALYSIS_HOUBOLT */
    const char *truth_path;   /* NULL, or a synth truth.json to compare with (after
                                 the outputs are written; a disagreement fails) */
    FILE *truth_table;        /* where the comparison table goes (NULL: nowhere) */
} job_analyze_options;

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
 * (DIR/parameters_angle.svg, DIR/parameters_slip.svg, inline in campaign.html). */

typedef struct {
    const char *campaign_path;
    const char *out_dir;
    int jobs;                    /* experiments run at once (-j N); < 1 means 1 */
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
