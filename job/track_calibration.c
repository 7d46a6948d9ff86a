/* track_calibration.c: an experiment's calibration and surface frame loaded once and
 * handed to the jobs that need it (a slide measures the incline from its
 * level board, then tracks; calibrating the board images twice took half its time). */
#include <stdlib.h>

#include "job/job_track_internal.h"

int job_track_calibration_load(const icv_experiment *exp, track_calibration **out, icv_err *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    int rc = job_track_calibration_read(exp, *out, err);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

void job_track_calibration_free(track_calibration *cal) { free(cal); }
