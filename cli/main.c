/* main.c: `impactcv [-q|-v] COMMAND ...`: global options, then one subcommand. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "analysis/analysis.h"
#include "cli/cli.h"

static const cli_command commands[] = {
    {"calib", "mono or stereo calibration from checkerboard images", cmd_calib},
    {"check", "validate an experiment file and the files it names; print a summary", cmd_check},
    {"probe", "frames, rates, timestamps, timing faults and flash of a video", cmd_probe},
    {"track", "2D marker tracks per camera, then 3D tracks", cmd_track},
    {"analyze", "impacts and results.json from the tracks", cmd_analyze},
    {"solve", "the impact solver on one case, result as JSON", cmd_solve},
    {"run", "the whole pipeline and the report", cmd_run},
    {"synth", "a synthetic experiment folder with its ground truth", cmd_synth},
    {"sweep", "the solver over one or two parameters: CSV and an SVG plot", cmd_sweep},
    {"undistort", "an undistorted image, for looking", cmd_undistort},
    {"campaign", "many experiments, one validation table", cmd_campaign},
    {"coefficients", "mu_s, mu_k or e_n from their own experiment", cmd_coefficients},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out,
            "usage: impactcv [-q | -v] COMMAND [ARGS]\n"
            "\n"
            "Turns lab video of impact experiments into measured physics.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-13s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "options:\n"
            "  -q, --quiet    only warnings and errors\n"
            "  -v, --verbose  debugging detail\n"
            "  -h, --help     this help; `impactcv COMMAND --help` for a command\n"
            "  --version      version and library versions\n"
            "\n"
            "Units are SI and frames are those of the contract (docs/conventions.md).\n");
}

/* What went to stdout must have arrived: a full disk (or a closed pipe) is an
 * error naming its cause, not a silent exit 0 with the output lost. */
static int finish(int status)
{
    int bad = ferror(stdout), saved = 0;
    errno = 0;
    if (fflush(stdout) != 0) {
        bad = 1;
        saved = errno;
    } else if (bad) { /* the failed write's errno is gone: ask the stream again */
        errno = 0;
        if (write(fileno(stdout), "\n", 1) < 0)
            saved = errno;
    }
    if (!bad)
        return status;
    fprintf(stderr, "impactcv: standard output: write failed%s%s\n", saved ? ": " : "", saved ? strerror(saved) : "");
    return status == CLI_OK ? CLI_FAIL : status;
}

int main(int argc, char **argv)
{
    /* GSL's policy, once for the program: a GSL error is a status every caller checks
       and turns into an icv_err; the default handler would abort */
    gsl_set_error_handler_off();
    icv_cleanup_signals_install(); /* Ctrl-C removes a job's working folder */
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
            icv_log_set_level(ICV_LOG_WARN);
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
            icv_log_set_level(ICV_LOG_DEBUG);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return finish(CLI_OK);
        } else if (!strcmp(a, "--version")) {
            const char *names[ANALYSIS_N_VERSIONS], *versions[ANALYSIS_N_VERSIONS];
            int n = analysis_program_versions(names, versions);
            printf("%s %s (", names[0], versions[0]);
            for (int k = 1; k < n; k++)
                printf("%s%s %s", k > 1 ? ", " : "", names[k], versions[k]);
            printf(")\n");
            return finish(CLI_OK);
        } else {
            fprintf(stderr, "impactcv: unknown option '%s' (see impactcv --help)\n", a);
            return CLI_USAGE;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return CLI_USAGE;
    }
    for (size_t c = 0; c < N_COMMANDS; c++)
        if (!strcmp(argv[i], commands[c].name))
            return finish(commands[c].run(argc - i, argv + i));
    fprintf(stderr, "impactcv: unknown command '%s' (see impactcv --help)\n", argv[i]);
    return CLI_USAGE;
}
