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
    o->refine_range = 1.5;
    o->epipolar_max_px = 6;
    o->template_tol_m = TRACK_TEMPLATE_TOL_M;
    o->template_tol_rel = TRACK_TEMPLATE_TOL_REL;
    o->max_coast_error = 1;
    o->blob_excess = 8;
    o->sigma_floor_px = 0.03;
    o->extrapolate_frames = 1;
    o->band_correction = 1;
    o->ray_pose = 1;
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

/* One try of the whole stage; look_forced as job_track's. *retry_look: after a
 * template misfit with track.markers auto and one look (bright or dark) for every
 * camera, the other look; else -1. */
static int track_once(const char *experiment_path, const char *out_dir, const job_track_options *opt_in,
                      int look_forced, double t_start, job_track_result *res_out, int *retry_look, icv_err *err)
{
    *retry_look = -1;
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
    if (opt_in)
        j->opt = *opt_in;
    else
        job_track_options_default(&j->opt);
    int rc = job_track_open(j, experiment_path, err);
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
            rc = icv_err_set(err, ICV_EINVAL, "camera '%s': the %s look keeps %.1f points a frame for %d markers",
                             j->exp.cameras[c].id, track_look_name((track_look)look_forced),
                             (double)j->cams[c].n_raw / (double)(j->cams[c].frames ? j->cams[c].frames : 1),
                             j->exp.n_markers);
    if (!rc)
        rc = job_track_write(j, out_dir, err);
    if (rc && j->template_misfit && look_forced < 0 && j->exp.track.markers < 0) {
        track_look l = j->cams[0].det->look;
        int one = l == TRACK_LOOK_BRIGHT || l == TRACK_LOOK_DARK;
        for (int c = 1; c < j->exp.n_cameras; c++)
            one &= j->cams[c].det->look == l;
        if (one)
            *retry_look = l == TRACK_LOOK_BRIGHT ? TRACK_LOOK_DARK : TRACK_LOOK_BRIGHT;
    }
    j->res.seconds = icv_now() - t_start;
    if (res_out)
        *res_out = j->res;
    job_track_free(j);
    return rc;
}

int job_track_run(const char *experiment_path, const char *out_dir, const job_track_options *opt_in,
                  job_track_result *res_out, icv_err *err)
{
    double t_start = icv_now();
    int retry = -1;
    int rc = track_once(experiment_path, out_dir, opt_in, -1, t_start, res_out, &retry, err);
    if (rc == 0 || retry < 0)
        return rc;
    /* auto weighs the looks on a few frames by how marker-like their blobs are; the
       template over the whole clip is the stronger sign: a light rod's pieces between
       dark bands, or a dark body's gaps between bright markers, are steady points at
       the wrong distances (docs/track.md, "auto's look against the template") */
    icv_err e2;
    job_track_result r2;
    int dummy;
    if (track_once(experiment_path, out_dir, opt_in, retry, t_start, &r2, &dummy, &e2) != 0) {
        icv_info("%s: track.markers auto: the %s look tried too: %s", experiment_path,
                 track_look_name((track_look)retry), e2.msg);
        return rc; /* the first look's reason stands */
    }
    icv_warn("%s: track.markers auto: the %s look's points do not fit body.markers (%s); the %s look's do: %s kept "
             "(set track.markers to say which)",
             experiment_path, track_look_name(retry == TRACK_LOOK_DARK ? TRACK_LOOK_BRIGHT : TRACK_LOOK_DARK),
             err ? err->msg : "", track_look_name((track_look)retry), track_look_name((track_look)retry));
    if (res_out)
        *res_out = r2;
    return 0;
}
