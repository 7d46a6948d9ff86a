/* log.c: leveled messages to stderr (or a sink the caller sets). The only way
 * library code speaks to the user; the CLI sets the level from -q and -v. */
#include <stdio.h>

#include "core/core.h"

static icv_log_level g_level = ICV_LOG_INFO;
static icv_log_sink g_sink = NULL;
static void *g_sink_user = NULL;

void icv_log_set_level(icv_log_level level) { g_level = level; }
icv_log_level icv_log_get_level(void) { return g_level; }

void icv_log_set_sink(icv_log_sink sink, void *user)
{
    g_sink = sink;
    g_sink_user = user;
}

void icv_log_get_sink(icv_log_sink *sink, void **user)
{
    *sink = g_sink;
    *user = g_sink_user;
}

void icv_log(icv_log_level level, const char *fmt, ...)
{
    if (level > g_level)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (g_sink)
        g_sink(level, line, g_sink_user);
    else
        icv_log_default_sink(level, line, NULL);
}

void icv_log_default_sink(icv_log_level level, const char *line, void *user)
{
    (void)user;
    static const char *const tag[] = {"error: ", "warning: ", "", ""};
    fprintf(stderr, "%s%s\n", tag[level], line);
}
