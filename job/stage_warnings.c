/* stage_warnings.c: every warning a stage of `impactcv run` prints, kept for the report.
 * While a stage runs, a log sink tees its warnings (they still reach the console, or
 * whatever sink was set) into a list; after it, the list goes to
 * DIR/.impactcv/warnings_<stage>.txt, one per line, a file of that stage: the cache keeps
 * and reuses it with the stage's other files, so a re-run that reuses the analysis still
 * shows the analysis's warnings. The report reads them all back in stage order. */
#include <stdlib.h>
#include <string.h>

#include "job/job_internal.h"

static void tee(icv_log_level level, const char *line, void *user)
{
    job_stage_warnings *w = user;
    if (level == ICV_LOG_WARN && w->n < JOB_MAX_STAGE_WARNINGS) {
        snprintf(w->line[w->n], sizeof w->line[0], "%s", line);
        /* one line each in the file */
        for (char *p = w->line[w->n]; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        w->n++;
    }
    if (w->prev)
        w->prev(level, line, w->prev_user);
    else
        icv_log_default_sink(level, line, NULL);
}

void job_stage_warnings_begin(job_stage_warnings *w)
{
    w->n = 0;
    icv_log_get_sink(&w->prev, &w->prev_user);
    icv_log_set_sink(tee, w);
}

int job_stage_warnings_end(job_stage_warnings *w, const char *dir, const char *stage, icv_err *err)
{
    icv_log_set_sink(w->prev, w->prev_user);
    if (w->n == 0)
        return 0;
    char sub[ICV_PATH_MAX], name[64], path[ICV_PATH_MAX];
    snprintf(name, sizeof name, "warnings_%s.txt", stage);
    int rc = icv_path_join(sub, sizeof sub, dir, JOB_CACHE_DIR, err);
    if (!rc)
        rc = icv_mkdirs(sub, err);
    if (!rc)
        rc = icv_path_join(path, sizeof path, sub, name, err);
    if (rc)
        return rc;
    icv_atomic_file af;
    if ((rc = icv_atomic_open(&af, path, err)))
        return rc;
    for (int i = 0; i < w->n; i++)
        fprintf(af.fp, "%s\n", w->line[i]);
    return icv_atomic_commit(&af, err);
}

int job_stage_warnings_read(const char *dir, char ***lines, int *n, icv_err *err)
{
    static const char *const stages[] = {"track", "analyze", "model", "overlays"};
    *lines = NULL;
    *n = 0;
    int cap = 0;
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; s++) {
        char path[ICV_PATH_MAX], rel[64];
        snprintf(rel, sizeof rel, "%s/warnings_%s.txt", JOB_CACHE_DIR, stages[s]);
        int rc = icv_path_join(path, sizeof path, dir, rel, err);
        if (rc)
            return rc;
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* the stage warned of nothing */
        char buf[1200];
        while (fgets(buf, sizeof buf, f)) {
            buf[strcspn(buf, "\n")] = 0;
            if (!buf[0])
                continue;
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                char **nl = realloc(*lines, sizeof *nl * (size_t)cap);
                if (!nl) {
                    fclose(f);
                    return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
                }
                *lines = nl;
            }
            size_t len = strlen(stages[s]) + strlen(buf) + 3;
            char *l = malloc(len);
            if (!l) {
                fclose(f);
                return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
            }
            snprintf(l, len, "%s: %s", stages[s], buf);
            (*lines)[(*n)++] = l;
        }
        fclose(f);
    }
    return 0;
}
