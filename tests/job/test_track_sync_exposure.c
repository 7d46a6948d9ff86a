/* test_track_sync_exposure.c: the track stage's flash offset reads cameras[].exposure.
 * A flash switched on and held, seen partly by each camera's first lit frame: the lit
 * fraction r places the onset r exposures before that exposure's end, so the exposure
 * must be the camera's, not a frame period. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_track_internal.h"
#include "tests/harness.h"

enum { NF = 30 };

/* gray levels per frame of a camera whose frame k (mid-exposure, its own clock k / fps)
 * sees experiment time k / fps - offset_s; a light of gain levels on from t_on held */
static void flash_series(double *b, double *t, double fps, double exposure, double offset_s, double t_on)
{
    for (int k = 0; k < NF; k++) {
        t[k] = k / fps;
        double mid = k / fps - offset_s, lo = mid - exposure / 2, hi = mid + exposure / 2;
        double lit = hi <= t_on ? 0 : lo >= t_on ? exposure : hi - t_on;
        b[k] = 50 + 100 * lit / exposure;
    }
}

TEST(test_track_sync_flash_offset_uses_the_cameras_exposure)
{
    job_track *j = calloc(1, sizeof *j);
    ASSERT(j != NULL, "out of memory");
    /* 240 fps, 2 ms exposures; camera 1 starts 0.37 frame late (offset -0.37 frame); the
       light on at 42.5 ms: camera 0's frame 10 sees 8% of its exposure lit, camera 1's
       frame 10 85% */
    double fps = 240, e = 0.002, truth = -0.37, b[2][NF], t[2][NF];
    for (int c = 0; c < 2; c++) {
        flash_series(b[c], t[c], fps, e, c ? truth / fps : 0, 0.0425);
        j->cams[c].bright = b[c];
        j->cams[c].tcam = t[c];
        j->cams[c].frames = NF;
        j->cams[c].pc.fps = fps;
        j->exp.cameras[c].exposure_s = e;
        snprintf(j->exp.cameras[c].id, sizeof j->exp.cameras[c].id, "%s", c ? "right" : "left");
    }
    j->exp.n_cameras = 2;
    j->exp.sync = ICV_SYNC_FLASH;
    j->opt.refine_offset = 0; /* the flash's offset alone */
    icv_err err;
    ASSERT(job_track_sync(j, &err) == 0, "%s", err.msg);
    /* exact for a noiseless step: 1e-9 frame */
    ASSERT_NEAR(j->res.offset_initial_frames[1], truth, 1e-9);
    /* a frame period taken for the exposure (4.17 ms) places camera 0's onset 0.9 ms
       late and camera 1's 0.8 ms early: -0.77 frame */
    for (int c = 0; c < 2; c++)
        j->exp.cameras[c].exposure_s = 0;
    ASSERT(job_track_sync(j, &err) == 0, "%s", err.msg);
    ASSERT(fabs(j->res.offset_initial_frames[1] - truth) > 0.3, "offset %g without the exposure",
           j->res.offset_initial_frames[1]);
    free(j);
}
