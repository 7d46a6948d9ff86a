/* cmd_sweep.c: `impactcv sweep`. Not built yet: solver/, issue #3. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv sweep CASE.yaml --param NAME=FROM:TO:N [--param ...] -o OUT\n"
    "\n"
    "The solver over one or two parameters: CSV and an SVG plot.\n"
    "Not implemented yet (solver/, issue #3).\n";

int cmd_sweep(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("sweep", "solver/, issue #3");
}
