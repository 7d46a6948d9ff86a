/* cmd_check.c: `impactcv check experiment.yaml`: load and validate an experiment
 * file and the files it names, print a summary. */
#include <stdio.h>
#include <stdlib.h>

#include "calib/calib.h"
#include "capture/capture.h"
#include "cli/cli.h"

static const char help[] =
    "usage: impactcv check EXPERIMENT.yaml\n"
    "\n"
    "Validates an experiment file (keys, types, values: see docs/experiment.md),\n"
    "that every file it names exists, that a calibration file reads (in metres), and\n"
    "that every video opens with its first and last frames decodable, its size the\n"
    "calibration's; then prints a summary. Exits 1 with one line naming the file,\n"
    "line and key on the first problem.\n";

int cmd_check(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    if (argc != 2)
        return cli_usage_error("check", "expected one experiment file");
    icv_experiment *exp = calloc(1, sizeof *exp);
    icv_err err = {0};
    if (!exp) {
        icv_err_set(&err, ICV_ENOMEM, "out of memory");
        return cli_fail(&err);
    }
    int rc = icv_experiment_load(argv[1], exp, &err);
    if (!rc)
        rc = icv_experiment_check_files(exp, &err);
    int cal_w[ICV_MAX_CAMERAS] = {0}, cal_h[ICV_MAX_CAMERAS] = {0};
    /* the calibration file as track and run will read it (cli/calibration_check.c) */
    if (!rc && (rc = cli_calibration_check(exp, &cal_w[0], &cal_h[0], &err)) == 0) {
        cal_w[1] = cal_w[0];
        cal_h[1] = cal_h[0];
    }
    /* every video opened, its first and last frames decoded, its size the calibration's */
    for (int c = 0; !rc && c < exp->n_cameras; c++) {
        const icv_camera_spec *cs = &exp->cameras[c];
        capture_options opt = {0};
        opt.capture_fps = cs->capture_fps;
        capture_info info;
        rc = capture_video_check(cs->video, &opt, &info, &err);
        if (rc)
            icv_err_prefix(&err, "camera %s: ", cs->id);
        else if (cal_w[c] > 0 && (info.width != cal_w[c] || info.height != cal_h[c]))
            rc = icv_err_set(&err, ICV_EINVAL, "camera %s: %s is %dx%d px, the calibration %s is for %dx%d px", cs->id,
                             cs->video, info.width, info.height, exp->calib_file, cal_w[c], cal_h[c]);
        else if (cs->has_roi && (cs->roi[0] + cs->roi[2] > info.width || cs->roi[1] + cs->roi[3] > info.height))
            rc = icv_err_set(&err, ICV_EINVAL, "camera %s: cameras[%d].roi [%d, %d, %d, %d] runs past the %dx%d px frame",
                             cs->id, c, cs->roi[0], cs->roi[1], cs->roi[2], cs->roi[3], info.width, info.height);
    }
    if (rc) {
        free(exp);
        return cli_fail(&err);
    }
    if (cli_summary_stream())
        icv_experiment_summary(exp, stdout);
    cli_summary("ok\n");
    free(exp);
    return CLI_OK;
}
