/* cmd_synth.c: `impactcv synth SCENARIO.yaml -o DIR`: a synthetic experiment folder with
 * its ground truth (synth/). Parses arguments, calls synth_experiment_write, prints. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "synth/synth.h"

static const char help[] =
    "usage: impactcv synth SCENARIO.yaml -o DIR\n"
    "\n"
    "Writes a synthetic experiment folder with its ground truth: experiment.yaml (paths\n"
    "relative), one video per camera, calib/ board shots, the surface (or motion-plane)\n"
    "board image, truth.json (schema impactcv-truth-1) and a copy of the scenario.\n"
    "Deterministic for the scenario's seed. Every scenario key and its default: docs/synth.md.\n"
    "\n"
    "  -o DIR   the output folder (created)\n";

int cmd_synth(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    const char *scenario = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            if (++i >= argc)
                return cli_usage_error("synth", "-o needs a folder");
            out = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("synth", "unknown option '%s'", argv[i]);
        } else if (!scenario) {
            scenario = argv[i];
        } else {
            return cli_usage_error("synth", "one scenario at a time ('%s' is extra)", argv[i]);
        }
    }
    if (!scenario)
        return cli_usage_error("synth", "missing SCENARIO.yaml");
    if (!out)
        return cli_usage_error("synth", "missing -o DIR");
    icv_err err = {0};
    static synth_scenario sc;
    if (synth_scenario_load(scenario, &sc, &err))
        return cli_fail(&err);
    if (synth_experiment_write(&sc, out, &err))
        return cli_fail(&err);
    printf("%s: %d camera%s, truth.json written\n", out, sc.n_cameras, sc.n_cameras > 1 ? "s" : "");
    return CLI_OK;
}
