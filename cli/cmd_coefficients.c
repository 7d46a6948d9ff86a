/* cmd_coefficients.c: `impactcv coefficients EXPERIMENT.yaml [...] -o DIR
 * [--tracks F]`: mu_s (tilt), mu_k (incline slide) or e_n (drop) from its own
 * experiment, repeats combined (analysis/coefficients*.c; docs/coefficients.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/coefficients.h"
#include "cli/cli.h"
#include "job/job.h"

static const char help[] =
    "usage: impactcv coefficients EXPERIMENT.yaml [MORE.yaml ...] -o DIR [--tracks tracks3d.csv]\n"
    "\n"
    "Measures the coefficient an experiment is for (experiment.yaml `experiment:`):\n"
    "  slide  mu_k from a body sliding down the inclined surface (the incline from gravity\n"
    "         given, or from coefficients.level_images: a board on a level reference)\n"
    "  tilt   mu_s = tan(angle at which sliding began): coefficients.angle_deg (ruler), or\n"
    "         from the video with coefficients.level_images (the plate's board tracked,\n"
    "         the onset of sliding found; DIR/tilt_track.csv)\n"
    "  drop   e_n from a vertical drop\n"
    "Slides and drops read DIR/tracks3d.csv (or --tracks), or DIR/<name>/tracks3d.csv for\n"
    "several experiments, tracking the videos first (impactcv track) when it is absent.\n"
    "Several experiments are combined (weighted mean, standard error, and a test of their\n"
    "consistency). Writes DIR/coefficients.json, which experiment.yaml can name:\n"
    "  model: {mu_k: {from: coeffs/coefficients.json}}\n";

int cmd_coefficients(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    const char *out = NULL, *tracks = NULL;
    const char *exps[64];
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--tracks") && i + 1 < argc)
            tracks = argv[++i];
        else if (argv[i][0] == '-')
            return cli_usage_error("coefficients", "unknown option '%s'", argv[i]);
        else if (n < 64)
            exps[n++] = argv[i];
        else
            return cli_usage_error("coefficients", "at most 64 experiments");
    }
    if (!out)
        return cli_usage_error("coefficients", "-o DIR is required");
    if (n == 0)
        return cli_usage_error("coefficients", "expected an experiment file");
    if (tracks && n > 1)
        return cli_usage_error("coefficients", "--tracks goes with one experiment");
    for (int i = 0; i < n && !tracks; i++)
        if (cli_need_cameras(exps[i]))
            return CLI_FAIL;
    analysis_coefficient res, *reps = calloc((size_t)n, sizeof *reps);
    icv_err err = {0};
    if (!reps) {
        icv_err_set(&err, ICV_ENOMEM, "out of memory");
        return cli_fail(&err);
    }
    int rc = job_coefficients_run(exps, n, tracks, out, &res, reps, &err);
    if (!rc) {
        for (int i = 0; n > 1 && i < n; i++)
            cli_summary("  %s: %s = %.4f +- %.4f\n", exps[i], reps[i].coefficient, reps[i].value, reps[i].sd);
        cli_summary("%s = %.4f +- %.4f (%s)\n", res.coefficient, res.value, res.sd, res.method);
        for (int i = 0; i < res.n_warnings; i++)
            fprintf(stderr, "impactcv: warning: %s\n", res.warnings[i]);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < reps[r].n_warnings; i++)
                fprintf(stderr, "impactcv: warning: %s: %s\n", exps[r], reps[r].warnings[i]);
        cli_summary("written %s/coefficients.json\n", out);
    }
    free(reps);
    return rc ? cli_fail(&err) : CLI_OK;
}
