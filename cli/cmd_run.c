/* cmd_run.c: `impactcv run`. Not built yet: the pipeline, issue #10. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv run EXPERIMENT.yaml -o DIR [--from STAGE]\n"
    "\n"
    "Calibration, capture and sync, tracking, analysis and the report in one command.\n"
    "Not implemented yet (the pipeline, issue #10).\n";

int cmd_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("run", "the pipeline, issue #10");
}
