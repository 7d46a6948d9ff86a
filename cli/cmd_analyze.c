/* cmd_analyze.c: `impactcv analyze`. Not built yet: analysis/, issue #9. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv analyze EXPERIMENT.yaml [...] -o DIR [--tracks tracks3d.csv] [--method fit|houbolt]\n"
    "\n"
    "Impacts, measured coefficients and results.json from the tracks.\n"
    "Not implemented yet (analysis/, issue #9).\n";

int cmd_analyze(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("analyze", "analysis/, issue #9");
}
