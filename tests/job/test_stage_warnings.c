/* test_stage_warnings.c: a stage's warnings are teed from the log into
 * DIR/.impactcv/warnings_<stage>.txt and read back in stage order, for the report's
 * summary (issue #19 item 7). */
#include <stdlib.h>
#include <string.h>

#include "job/job_internal.h"
#include "tests/harness.h"

static int n_seen;
static void count_sink(icv_log_level level, const char *line, void *user)
{
    (void)level, (void)line, (void)user;
    n_seen++;
}

TEST(test_stage_warnings_are_kept_in_stage_order)
{
    job_stage_warnings *w = malloc(sizeof *w);
    ASSERT(w, "out of memory");
    icv_err err = {0};
    n_seen = 0;
    icv_log_set_sink(count_sink, NULL);
    /* written in the opposite order: read back track first */
    job_stage_warnings_begin(w);
    icv_warn("free flight falls at |g| = %.2f m/s^2", 10.7);
    icv_info("not a warning");
    int rc = job_stage_warnings_end(w, th_tmpdir(), "analyze", &err);
    if (!rc) {
        job_stage_warnings_begin(w);
        icv_warn("camera 'left': marker 2 hidden in frames 40-44\nsecond line");
        rc = job_stage_warnings_end(w, th_tmpdir(), "track", &err);
    }
    free(w);
    icv_log_sink s;
    void *u;
    icv_log_get_sink(&s, &u);
    icv_log_set_sink(NULL, NULL);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT(s == count_sink, "the sink before the stage was not put back");
    ASSERT_EQ_INT(n_seen, 3); /* teed: the sink before still got every message */
    char **lines = NULL;
    int n = 0;
    rc = job_stage_warnings_read(th_tmpdir(), &lines, &n, &err);
    int ok = rc == 0 && n == 2 && !strcmp(lines[0], "track: camera 'left': marker 2 hidden in frames 40-44 second line") &&
             !strcmp(lines[1], "analyze: free flight falls at |g| = 10.70 m/s^2");
    char first[700] = "";
    if (n > 0)
        snprintf(first, sizeof first, "%s", lines[0]);
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    ASSERT(ok, "rc %d, %d lines, first '%s'", rc, n, first);
}

