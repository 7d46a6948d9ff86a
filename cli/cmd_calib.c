/* cmd_calib.c: `impactcv calib`. Not built yet: calib/, issue #6. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv calib --board COLSxROWS@SQUARE [--stereo] -o OUT.yaml 'IMAGES' ['IMAGES2']\n"
    "\n"
    "Mono (one pattern) or stereo (--stereo, two patterns, pairs by sorted name) calibration.\n"
    "Not implemented yet (calib/, issue #6).\n";

int cmd_calib(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("calib", "calib/, issue #6");
}
