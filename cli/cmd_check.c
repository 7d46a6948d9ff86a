/* cmd_check.c: `impactcv check experiment.yaml`: load and validate an experiment
 * file and the files it names, print a summary. */
#include <stdio.h>
#include <stdlib.h>

#include "calib/calib.h"
#include "cli/cli.h"

static const char help[] =
    "usage: impactcv check EXPERIMENT.yaml\n"
    "\n"
    "Validates an experiment file (keys, types, values: see docs/experiment.md) and\n"
    "that every file it names exists, then prints a summary. Exits 1 with one line\n"
    "naming the file, line and key on the first problem.\n";

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
    if (!rc && exp->calib_file[0] && exp->n_cameras >= 2) {
        /* the stereo file readable, and in metres: a millimetre file is found here
           from its T and the board's square, not later as a lost marker track */
        calib_intrinsics in1, in2;
        double R[3][3], T[3];
        rc = calib_stereo_read(exp->calib_file, &in1, &in2, R, T, &err);
        if (!rc)
            rc = calib_units_check(exp->calib_file, T, exp->board_square, &err);
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
