/* cmd_probe.c: `impactcv probe`. Not built yet: capture/, issue #4. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv probe [--json] [--capture-fps F] VIDEO\n"
    "\n"
    "Frames, rates, timestamps, timing faults (VFR, duplicates, drops, flicker) and flash.\n"
    "Not implemented yet (capture/, issue #4).\n";

int cmd_probe(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("probe", "capture/, issue #4");
}
