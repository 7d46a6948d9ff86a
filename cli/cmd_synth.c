/* cmd_synth.c: `impactcv synth`. Not built yet: synth/, issue #5. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv synth SCENARIO.yaml -o DIR\n"
    "\n"
    "A synthetic experiment folder with its ground truth (truth.json).\n"
    "Not implemented yet (synth/, issue #5).\n";

int cmd_synth(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("synth", "synth/, issue #5");
}
