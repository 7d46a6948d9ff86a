/* cmd_solve.c: `impactcv solve`. Not built yet: solver/, issue #3. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv solve CASE.yaml\n"
    "\n"
    "The impact solver on one case; the result as JSON on stdout.\n"
    "Not implemented yet (solver/, issue #3).\n";

int cmd_solve(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("solve", "solver/, issue #3");
}
