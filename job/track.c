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

int job_track_run(const char *experiment_path, const char *out_dir, const job_track_options *opt_in,
                  job_track_result *res_out, icv_err *err)
{
    double t_start = icv_now();
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
    if (!rc)
        rc = job_track_write(j, out_dir, err);
    j->res.seconds = icv_now() - t_start;
    if (res_out)
        *res_out = j->res;
    job_track_free(j);
    return rc;
}
