/* cmd_synth.c: `impactcv synth SCENARIO.yaml -o DIR` or `impactcv synth --random SEED
 * -o DIR`: a synthetic experiment folder with its ground truth (synth/). Parses
 * arguments, calls synth_scenario_random / synth_experiment_write, prints. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "synth/synth.h"

static const char help[] =
    "usage: impactcv synth SCENARIO.yaml [--crf N] -o DIR\n"
    "       impactcv synth --random SEED [--cameras 1|2] [--crf N] -o DIR\n"
    "\n"
    "Writes a synthetic experiment folder with its ground truth: experiment.yaml (paths\n"
    "relative), one video per camera, calib/ board shots, the surface (or motion-plane)\n"
    "board image, truth.json (schema impactcv-truth-1) and a copy of the scenario.\n"
    "Deterministic for the scenario's seed. Every scenario key and its default: docs/synth.md.\n"
    "\n"
    "  -o DIR         the output folder (created)\n"
    "  --random SEED  a whole random scene drawn from the seed (body, markers, lighting,\n"
    "                 cameras, frame rate, blur, noise, clutter: docs/synth.md, \"Random\n"
    "                 scenes\"); the same as a scenario file holding `random: SEED`\n"
    "  --cameras N    with --random: one camera (planar) or two (default: drawn)\n"
    "  --crf N        the H.264 crf instead of the scenario's or the draw's (0..51; 0 is\n"
    "                 lossless): the same scene on other frames (a study's control)\n";

int cmd_synth(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    const char *scenario = NULL, *out = NULL, *random = NULL;
    synth_random_opts ro = {0};
    int crf = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--random")) {
            if (++i >= argc)
                return cli_usage_error("synth", "--random needs a seed");
            random = argv[i];
        } else if (!strcmp(argv[i], "--cameras")) {
            if (++i >= argc || (strcmp(argv[i], "1") && strcmp(argv[i], "2")))
                return cli_usage_error("synth", "--cameras needs 1 or 2");
            ro.cameras = atoi(argv[i]);
        } else if (!strcmp(argv[i], "--crf")) {
            char *end;
            long v = ++i < argc ? strtol(argv[i], &end, 10) : -1;
            if (i >= argc || end == argv[i] || *end || v < 0 || v > 51)
                return cli_usage_error("synth", "--crf needs an integer 0..51");
            crf = (int)v;
        } else if (!strcmp(argv[i], "-o")) {
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
    if (!scenario && !random)
        return cli_usage_error("synth", "missing SCENARIO.yaml (or --random SEED)");
    if (scenario && random)
        return cli_usage_error("synth", "a scenario or --random, not both");
    if (ro.cameras && !random)
        return cli_usage_error("synth", "--cameras goes with --random");
    if (!out)
        return cli_usage_error("synth", "missing -o DIR");
    icv_err err = {0};
    static synth_scenario sc;
    if (random) {
        char *end;
        errno = 0;
        unsigned long seed = strtoul(random, &end, 10);
        if (errno || end == random || *end || random[0] == '-')
            return cli_usage_error("synth", "--random: '%s' is not a seed (an integer >= 0)", random);
        if (synth_scenario_random(seed, &ro, &sc, &err))
            return cli_fail(&err);
        cli_summary("random scene %lu: %s\n", seed, sc.random_desc);
    } else if (synth_scenario_load(scenario, &sc, &err)) {
        return cli_fail(&err);
    }
    if (crf >= 0) {
        /* after the draw: every other choice, and so every frame before compression, is
         * the scene's own; the description keeps the drawn crf and says so */
        size_t n = strlen(sc.random_desc);
        if (random)
            snprintf(sc.random_desc + n, sizeof sc.random_desc - n, " (encoded at crf %d: --crf)", crf);
        sc.crf = crf;
    }
    if (synth_experiment_write(&sc, out, &err))
        return cli_fail(&err);
    cli_summary("%s: %d camera%s, truth.json written\n", out, sc.n_cameras, sc.n_cameras > 1 ? "s" : "");
    return CLI_OK;
}
