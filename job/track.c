/* track.c: `impactcv track` as one call (job_track_run): the stages in order, each in
 * a file of its own sharing one context (job_track_internal.h): the experiment,
 * calibration and cameras (track_open.c) -> every camera's video decoded once, detector
 * + Kalman tracker per camera (track_2d.c) -> sync (track_sync.c) -> undistort,
 * associate across cameras, triangulate or meet the motion plane, scales, template and
 * identity (track_3d.c) -> files, written only when every stage has succeeded
 * (track_write.c). */
#include <stdlib.h>
#include <string.h>

#include "job/job_track_internal.h"

void job_track_options_default(job_track_options *o)
{
    memset(o, 0, sizeof *o);
    o->refine_offset = 1;
    o->refine_range = 5;
    o->epipolar_max_px = 6;
    o->template_tol_m = TRACK_TEMPLATE_TOL_M;
    o->template_tol_rel = TRACK_TEMPLATE_TOL_REL;
    o->max_coast_error = 1;
    o->blob_excess = 8;
    o->sigma_floor_px = 0.03;
    o->extrapolate_frames = 1;
    o->band_correction = 1;
    o->ray_pose = 1;
    o->carry_labels = 1;
    o->band_coverage = 0;
    o->debug_frames = 0;
}

static void job_track_free(job_track *j)
{
    for (int c = 0; c < ICV_MAX_CAMERAS; c++)
        job_track_camera_free(&j->cams[c]);
    track_identity_free(j->ident);
    free(j->cand);
    free(j->cand_n);
    free(j->rays);
    free(j->rays_n);
    free(j->rays_extra);
    free(j->qrows);
    free(j->fr3);
    free(j->t3);
    free(j->xyz);
    free(j->axes);
    free(j);
}

/* The looks to try after auto's (first, read as the white top-hat when first_tophat). */
typedef struct {
    track_look first, look[JOB_TRACK_MAX_RETRY];
    int first_tophat, tophat[JOB_TRACK_MAX_RETRY], n;
    const char *why; /* what auto's look's points did wrong, for the warning */
} retry_plan;

/* One try of the whole stage; look_forced as job_track's, tophat_forced its white
 * top-hat. After a template misfit, a crowded look, no position labelled in any frame
 * (a look that never shows enough of the markers together, e.g. one bright blob a frame
 * of four markers), labelled points standing still or a camera tracking only still
 * things, with track.markers auto and one look (bright or dark) for every camera, auto's
 * look and the looks to try instead (job_track_retry_looks) into *plan; else plan->n 0.
 * *cal_keep (when given): the calibration as read, for the retries. */
static int track_once(const char *experiment_path, const char *out_dir, const job_track_options *opt_in,
                      int look_forced, int tophat_forced, int no_early, double t_start, job_track_result *res_out,
                      retry_plan *plan, track_calibration **cal_keep, icv_err *err)
{
    plan->n = 0;
    job_track *j = calloc(1, sizeof *j);
    if (!j) {
        int rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        if (res_out) {
            memset(res_out, 0, sizeof *res_out);
            res_out->seconds = icv_now() - t_start;
        }
        return rc;
    }
    j->t_start = t_start;
    j->look_forced = look_forced;
    j->tophat_forced = tophat_forced;
    j->no_early = no_early;
    if (opt_in)
        j->opt = *opt_in;
    else
        job_track_options_default(&j->opt);
    int rc = job_track_open(j, experiment_path, err);
    /* a retry reads the same calibration: kept as read (the 3D pass changes its one-camera
       scales and surface later), not found again from the board images (seconds a try) */
    if ((!rc || rc == JOB_TRACK_AGAIN) && cal_keep && !j->opt.calibration &&
        (*cal_keep = malloc(sizeof **cal_keep)) != NULL)
        **cal_keep = j->cal;
    if (!rc)
        rc = job_track_pass_2d(j, err);
    if (!rc)
        rc = job_track_sync(j, err);
    if (!rc)
        rc = job_track_pass_3d(j, err);
    /* the other look, which auto weighed lower, only where it is not crowded: in a
       frame of clutter (a board's squares in the dark look, eighteen points a frame for
       three markers) three points at the template's distances come by chance */
    for (int c = 0; !rc && look_forced >= 0 && c < j->exp.n_cameras; c++)
        if ((double)j->cams[c].n_raw > 2.0 * j->exp.n_markers * (double)j->cams[c].frames)
            rc = icv_err_set(err, ICV_EINVAL, "camera '%s': the %s%s look keeps %.1f points a frame for %d markers",
                             j->exp.cameras[c].id, track_look_name((track_look)look_forced),
                             tophat_forced ? " top-hat" : "",
                             (double)j->cams[c].n_raw / (double)(j->cams[c].frames ? j->cams[c].frames : 1),
                             j->exp.n_markers);
    if (!rc)
        rc = job_track_write(j, out_dir, err);
    if (rc && (j->template_misfit || j->look_crowded || j->none_labelled || j->labels_still || j->tracks_still) &&
        look_forced < 0 &&
        j->exp.track.markers < 0) {
        track_look l = j->cams[0].det->look;
        int th = l == TRACK_LOOK_BRIGHT && j->cams[0].det->bright_tophat;
        int one = l == TRACK_LOOK_BRIGHT || l == TRACK_LOOK_DARK, usable = 1;
        for (int c = 0; c < j->exp.n_cameras; c++) {
            one &= j->cams[c].det->look == l && (l != TRACK_LOOK_BRIGHT || !j->cams[c].det->bright_tophat == !th);
            usable &= track_detector_tophat_usable(j->cams[c].det);
        }
        if (one) {
            plan->first = l;
            plan->first_tophat = th;
            plan->why = j->template_misfit ? "do not fit body.markers"
                        : j->look_crowded  ? "are too many"
                        : j->labels_still || j->tracks_still ? "stand still as clutter does"
                                           : "are never enough together to be labelled";
            plan->n = job_track_retry_looks(l, th, usable, plan->look, plan->tophat);
        }
    }
    j->res.seconds = icv_now() - t_start;
    if (res_out)
        *res_out = j->res;
    job_track_free(j);
    return rc;
}

int job_track_retry_looks(track_look look, int tophat, int tophat_usable, track_look *looks, int *tophats)
{
    int n = 0;
    if (look != TRACK_LOOK_BRIGHT && look != TRACK_LOOK_DARK)
        return 0;
    looks[n] = look == TRACK_LOOK_BRIGHT ? TRACK_LOOK_DARK : TRACK_LOOK_BRIGHT;
    tophats[n++] = 0;
    /* light markers on a dark body over a light plate: plain bright makes the plate and
       the markers one region, dark finds the body's pieces between them; the top-hat
       keeps what is light and marker-sized */
    if (tophat_usable && !(look == TRACK_LOOK_BRIGHT && tophat)) {
        looks[n] = TRACK_LOOK_BRIGHT;
        tophats[n++] = 1;
    }
    return n;
}

int job_track_run(const char *experiment_path, const char *out_dir, const job_track_options *opt_in,
                  job_track_result *res_out, icv_err *err)
{
    double t_start = icv_now();
    retry_plan plan;
    track_calibration *cal = NULL; /* the first try's, for the retries */
    int rc = track_once(experiment_path, out_dir, opt_in, -1, 0, 0, t_start, res_out, &plan, &cal, err);
    job_track_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        job_track_options_default(&opt);
    if (cal)
        opt.calibration = cal;
    if (rc == JOB_TRACK_AGAIN) /* auto's joint look after early passes: again without them */
        rc = track_once(experiment_path, out_dir, &opt, -1, 0, 1, t_start, res_out, &plan, NULL, err);
    if (rc == 0 || plan.n == 0) {
        job_track_calibration_free(cal);
        return rc;
    }
    /* auto weighs the looks on a few frames by how marker-like their blobs are; the
       template over the whole clip is the stronger sign: a light rod's pieces between
       dark bands, or a dark body's gaps between bright markers, are steady points at
       the wrong distances (docs/track.md, "auto's look against the template") */
    char tried[160] = "";
    size_t len = 0;
    for (int k = 0; k < plan.n; k++) {
        icv_err e2;
        job_track_result r2;
        retry_plan none;
        const char *th = plan.tophat[k] ? " top-hat" : "";
        if (track_once(experiment_path, out_dir, &opt, plan.look[k], plan.tophat[k], 0, t_start, &r2, &none, NULL,
                       &e2) != 0) {
            icv_info("%s: track.markers auto: the %s%s look tried too: %s", experiment_path,
                     track_look_name(plan.look[k]), th, e2.msg);
            if (len < sizeof tried)
                len += (size_t)snprintf(tried + len, sizeof tried - len, "%s%s%s", len ? ", " : "",
                                        track_look_name(plan.look[k]), th);
            continue;
        }
        icv_warn("%s: track.markers auto: the %s%s look's points %s (%s)%s%s%s; the %s%s look's "
                 "do: %s%s kept (set track.markers to say which)",
                 experiment_path, track_look_name(plan.first), plan.first_tophat ? " top-hat" : "",
                 plan.why, err ? err->msg : "", len ? "; nor did the " : "", len ? tried : "", len ? " look's" : "",
                 track_look_name(plan.look[k]), th, track_look_name(plan.look[k]), th);
        if (res_out)
            *res_out = r2;
        job_track_calibration_free(cal);
        return 0;
    }
    job_track_calibration_free(cal);
    /* the first look's reason stands, and what else was tried */
    if (err && len) {
        char first[ICV_ERR_MSG_MAX];
        snprintf(first, sizeof first, "%s", err->msg);
        icv_err_set(err, rc, "%s; track.markers auto tried the %s look%s too, which did no better", first, tried,
                    plan.n > 1 ? "s" : "");
    }
    return rc;
}
