/* run.c: `impactcv run`, the stages one after the other in a temporary folder
 * that replaces DIR only when all succeeded (issue #10 items 1 and 6). Not yet:
 * the cache by content of the inputs and --from (the stages always run). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "track/track_pipeline.h"

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(path);
}

static void rm_tree(const char *path) { nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* dir becomes the contents of tmp; the old dir, if any, is removed after */
static int swap_into_place(const char *tmp, const char *dir, icv_err *err)
{
    char old[ICV_PATH_MAX];
    struct stat st;
    int had = stat(dir, &st) == 0;
    if (had) {
        snprintf(old, sizeof old, "%s.old.%ld", dir, (long)getpid());
        if (rename(dir, old) != 0)
            return icv_err_set(err, ICV_EIO, "%s: cannot move the previous results aside: %s", dir, strerror(errno));
    }
    if (rename(tmp, dir) != 0) {
        int e = errno;
        if (had)
            rename(old, dir);
        return icv_err_set(err, ICV_EIO, "%s: cannot move the new results into place: %s", dir, strerror(e));
    }
    if (had)
        rm_tree(old);
    return 0;
}

int report_run(const report_run_options *o, report_run_result *r, icv_err *err)
{
    memset(r, 0, sizeof *r);
    double t0 = icv_now();
    char tmp[ICV_PATH_MAX], parent[ICV_PATH_MAX];
    icv_path_dirname(parent, sizeof parent, o->out_dir);
    int rc = icv_mkdirs(parent, err);
    if (rc)
        return rc;
    if (snprintf(tmp, sizeof tmp, "%s.run.XXXXXX", o->out_dir) >= (int)sizeof tmp || !mkdtemp(tmp))
        return icv_err_set(err, ICV_EIO, "%s: cannot make a working folder beside it: %s", o->out_dir,
                           strerror(errno));
    track_pipeline_result tres;
    rc = track_pipeline_run(o->experiment_path, tmp, NULL, &tres, err);
    if (rc)
        icv_err_prefix(err, "track: ");
    if (!rc) {
        analysis_job job = {o->experiment_path, NULL, tmp, ANALYSIS_FIT, o->truth_path, o->truth_table};
        if ((rc = analysis_job_run(&job, &r->job, err)))
            icv_err_prefix(err, "analyze: ");
    }
    if (!rc && (rc = report_from_dir(tmp, &r->job.exp, err)))
        icv_err_prefix(err, "report: ");
    if (!rc) {
        char tracks[ICV_PATH_MAX], exports[ICV_PATH_MAX];
        analysis_tracks tr;
        if (!(rc = icv_path_join(tracks, sizeof tracks, tmp, "tracks3d.csv", err)) &&
            !(rc = icv_path_join(exports, sizeof exports, tmp, "exports", err)) && !(rc = icv_mkdirs(exports, err)) &&
            !(rc = analysis_tracks_read_csv(tracks, &tr, err))) {
            rc = report_exports_write(exports, &tr, &r->job.body, err);
            analysis_tracks_free(&tr);
        }
        if (rc)
            icv_err_prefix(err, "exports: ");
    }
    if (!rc)
        rc = swap_into_place(tmp, o->out_dir, err);
    if (rc) {
        rm_tree(tmp);
        return rc;
    }
    icv_path_join(r->report_path, sizeof r->report_path, o->out_dir, "report.html", NULL);
    r->seconds = icv_now() - t0;
    return 0;
}
