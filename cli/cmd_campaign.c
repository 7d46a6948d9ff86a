/* cmd_campaign.c: `impactcv campaign`. Not built yet: the pipeline, issue #10. Until it is, the command says
 * so and exits with status 2; it never pretends to work. */
#include <stdio.h>

#include "cli/cli.h"

static const char help[] =
    "usage: impactcv campaign CAMPAIGN.yaml -o DIR [-j N]\n"
    "\n"
    "Many experiments, one validation table.\n"
    "Not implemented yet (the pipeline, issue #10).\n";

int cmd_campaign(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    return cli_not_implemented("campaign", "the pipeline, issue #10");
}
