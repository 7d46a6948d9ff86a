/* cmd_track.c: `impactcv track`. Not built yet: track/, issue #8. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv track EXPERIMENT.yaml -o DIR\n"
    "\n"
    "2D marker tracks per camera (tracks2d_<camera>.csv), then 3D tracks (tracks3d.csv).\n"
    "Not implemented yet (track/, issue #8).\n";

int cmd_track(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("track", "track/, issue #8");
}
