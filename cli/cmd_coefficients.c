/* cmd_coefficients.c: `impactcv coefficients`. Not built yet: issue #11. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv coefficients EXPERIMENT.yaml -o DIR\n"
    "\n"
    "mu_s (tilt), mu_k (incline slide) or e_n (drop) from its own experiment.\n"
    "Not implemented yet (issue #11).\n";

int cmd_coefficients(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("coefficients", "issue #11");
}
