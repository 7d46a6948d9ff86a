/* track_sync.c: the track stage's sync: each camera's offset from the flash,
 * sync.offsets or none (capture_sync_offsets), then each other camera's sub-frame
 * offset refined from the motion against the reference (track_subframe_offset). */
#include <math.h>
#include <string.h>

#include "capture/capture.h"
#include "job/job_track_internal.h"

/* frames: the flash's offset as a measurement. Its onset is known to the frame in each
 * camera when the exposure is not given (a lit frame's light may have come on anywhere
 * in the gap before it): two uniform errors of a frame, sqrt(2 / 12). */
#define FLASH_OFFSET_SIGMA_FRAMES 0.41

int job_track_refine_offset(job_track *j, int k, double *offset, double *sigma, double *rms_px, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    int flash = exp->sync == ICV_SYNC_FLASH;
    double range = flash ? j->opt.refine_range : fmax(j->opt.refine_range, 5.0);
    return track_subframe_offset(&j->cams[0].pc, &j->cams[k].pc, j->res.offset_initial_frames[k], range,
                                 flash ? FLASH_OFFSET_SIGMA_FRAMES : 0, j->opt.epipolar_max_px, offset, sigma, rms_px,
                                 err);
}

int job_track_sync(job_track *j, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    const job_track_options *opt = &j->opt;
    job_track_result *res = &j->res;
    job_track_camera *cams = j->cams;
    int nc = exp->n_cameras, rc;
    j->t_sync = icv_now();
    for (int c = 0; c < nc; c++)
        j->fps[c] = cams[c].pc.fps;
    capture_sync sync[ICV_MAX_CAMERAS];
    memset(sync, 0, sizeof sync);
    if (exp->sync == ICV_SYNC_FLASH && nc >= 2) {
        capture_flash fl[ICV_MAX_CAMERAS];
        for (int c = 0; c < nc; c++) {
            /* cameras[].exposure places the onset inside its first lit frame */
            res->has_flash[c] = capture_flash_detect(cams[c].bright, cams[c].tcam, cams[c].frames,
                                                     exp->cameras[c].exposure_s, &fl[c]);
            if (!res->has_flash[c])
                return icv_err_set(err, ICV_ENOTFOUND,
                                   "%s: camera '%s' (%s): no flash found for sync (set sync.offsets or sync: none)",
                                   exp->path, exp->cameras[c].id, exp->cameras[c].video);
        }
        if ((rc = capture_sync_offsets(nc, fl, j->fps, NULL, sync, err)) != 0)
            return rc;
    } else if (exp->sync == ICV_SYNC_OFFSETS) {
        if ((rc = capture_sync_offsets(nc, NULL, j->fps, exp->sync_offsets, sync, err)) != 0)
            return rc;
    }
    snprintf(res->sync_source, sizeof res->sync_source, "%s",
             exp->sync == ICV_SYNC_FLASH ? "flash" : exp->sync == ICV_SYNC_OFFSETS ? "sync.offsets" : "none");
    for (int c = 0; c < nc; c++) {
        cams[c].off_s = sync[c].offset_s;
        res->offset_initial_frames[c] = res->offset_frames[c] = sync[c].offset_frames;
    }
    /* each other camera's sub-frame offset from the motion against the reference */
    for (int k = 1; k < nc && opt->refine_offset && exp->sync != ICV_SYNC_OFFSETS; k++) {
        double off, sig, rms;
        icv_err e2;
        if (job_track_refine_offset(j, k, &off, &sig, &rms, &e2) == 0) {
            res->offset_refined_each[k] = 1;
            res->offset_frames[k] = off;
            res->offset_sigma_each[k] = sig;
            res->offset_residual_each_px[k] = rms;
            cams[k].off_s = off / j->fps[k];
        } else {
            icv_warn("%s: camera '%s': sub-frame offset not refined (%s); using %.3f frames", exp->path,
                     exp->cameras[k].id, e2.msg, sync[k].offset_frames);
        }
    }
    res->offset_refined = res->offset_refined_each[1];
    res->offset_sigma_frames = res->offset_sigma_each[1];
    res->offset_residual_px = res->offset_residual_each_px[1];

    for (int c = 0; c < nc; c++)
        icv_debug("camera '%s': %ld frames, %ld points, %d identities, offset %.4f frames (%.6f s)",
                  exp->cameras[c].id, cams[c].frames, cams[c].n_raw, cams[c].n_ids, res->offset_frames[c],
                  cams[c].off_s);
    icv_debug("timing: sync %.3f s", icv_now() - j->t_sync);
    return 0;
}
