/* common.c: the few things every subcommand shares: the one-line error, usage
 * errors, and the "not implemented yet" exit for commands not built yet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int cli_fail(const icv_err *err)
{
    fprintf(stderr, "impactcv: %s\n", err->msg[0] ? err->msg : icv_err_name(err->code));
    return CLI_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "impactcv %s: %s (see impactcv %s --help)\n", cmd, msg, cmd);
    return CLI_USAGE;
}

int cli_not_implemented(const char *cmd, const char *what)
{
    fprintf(stderr, "impactcv %s: not implemented yet (%s)\n", cmd, what);
    return CLI_USAGE;
}

FILE *cli_summary_stream(void) { return icv_log_get_level() < ICV_LOG_INFO ? NULL : stdout; }

void cli_summary(const char *fmt, ...)
{
    if (icv_log_get_level() < ICV_LOG_INFO)
        return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    }
    return 0;
}

int cli_need_cameras(const char *path)
{
    icv_experiment *e = calloc(1, sizeof *e);
    icv_err err = {0};
    /* a file that does not load is the command's own to report */
    int none = e && icv_experiment_load(path, e, &err) == 0 && e->n_cameras == 0;
    free(e);
    if (!none)
        return 0;
    icv_err_set(&err, ICV_EINVAL,
                "%s: has no cameras: only `impactcv analyze %s -o DIR --tracks FILE` reads it (3D tracks from "
                "another system)",
                path, path);
    return cli_fail(&err);
}
