/* calibration_check.c: what `check`, `track` and `run` say of a calibration file
 * before any video is read, so that the three agree (an intrinsics-only file
 * once passed `check` and failed in `run`). One camera needs only intrinsics (its
 * pose comes from the motion plane): a mono file, or a stereo file's first camera.
 * Two cameras need a stereo file (M1, D1, M2, D2, R, T) in metres. More than two are
 * calibrated from images. */
#include <stdlib.h>

#include "calib/calib.h"
#include "cli/cli.h"

int cli_calibration_check(const icv_experiment *e, int *width, int *height, icv_err *err)
{
    *width = *height = 0;
    if (!e->calib_file[0])
        return 0;
    if (e->n_cameras > 2)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: calibration.file holds at most two cameras (a stereo file) for %d cameras: give "
                           "calibration.images, from which each camera is calibrated with the reference",
                           e->path, e->n_cameras);
    calib_intrinsics in1, in2;
    if (e->n_cameras == 1) {
        int rc = calib_intrinsics_read(e->calib_file, 0, &in1, NULL, err);
        *width = in1.width;
        *height = in1.height;
        return rc;
    }
    double R[3][3], T[3];
    icv_err e2 = {0};
    if (calib_stereo_read(e->calib_file, &in1, &in2, R, T, &e2) == 0) {
        *width = in1.width;
        *height = in1.height;
        /* in metres: a millimetre file is found here from T and the board's square,
           not later as a lost marker track */
        return calib_units_check(e->calib_file, T, e->board_square, err);
    }
    icv_err e3 = {0};
    if (calib_intrinsics_read(e->calib_file, 0, &in1, NULL, &e3) == 0 &&
        calib_intrinsics_read(e->calib_file, 1, &in2, NULL, &e3) != 0)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: holds one camera's intrinsics, not a stereo calibration: %d cameras need M1, D1, M2, "
                           "D2, R and T (impactcv calib --stereo)",
                           e->calib_file, e->n_cameras);
    *err = e2;
    return e2.code ? e2.code : ICV_EFORMAT;
}

int cli_calibration_check_path(const char *experiment_path)
{
    icv_experiment *e = calloc(1, sizeof *e);
    icv_err err = {0};
    int w, h, rc = 0;
    /* a file that does not load is the command's own to report */
    if (e && icv_experiment_load(experiment_path, e, &err) == 0)
        rc = cli_calibration_check(e, &w, &h, &err);
    free(e);
    return rc ? cli_fail(&err) : 0;
}
