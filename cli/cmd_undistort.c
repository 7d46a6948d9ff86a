/* cmd_undistort.c: `impactcv undistort`. Not built yet: calib/, issue #6. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv undistort IMAGE --calib CAM.yaml -o OUT\n"
    "\n"
    "An undistorted image, for looking.\n"
    "Not implemented yet (calib/, issue #6).\n";

int cmd_undistort(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("undistort", "calib/, issue #6");
}
