/* report_page.c: DIR/report.html from the files the stages left in DIR (results.json,
 * fits.csv, tracks3d.csv, track_info.json, overlays/), read with report's readers and
 * handed to report_write with the stages' warnings. */
#include <stdlib.h>
#include <string.h>

#include "job/job.h"

int job_report_write(const char *dir, const icv_experiment *exp, const char *const *stage_warns,
                     int n_stage_warns, icv_err *err)
{
    char p[ICV_PATH_MAX];
    analysis_result *res = malloc(sizeof *res);
    report_track_info *ti = calloc(1, sizeof *ti);
    if (!res || !ti) {
        free(res);
        free(ti);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", dir);
    }
    report_fit_row *rows = NULL;
    report_overlay *ov = NULL;
    unsigned char **pngs = NULL;
    const char **warns = NULL;
    int nrows = 0, n_ov = 0, rc, have_ti = 0;
    analysis_tracks tr;
    memset(&tr, 0, sizeof tr);
    int have_tracks = 0;
    if ((rc = icv_path_join(p, sizeof p, dir, "results.json", err)) || (rc = report_results_read(p, res, err)))
        goto out;
    if ((rc = icv_path_join(p, sizeof p, dir, "fits.csv", err)) || (rc = report_fits_read(p, &rows, &nrows, err)))
        goto out;
    report_fits_apply(rows, nrows, res);
    if ((rc = icv_path_join(p, sizeof p, dir, "tracks3d.csv", err)) || (rc = analysis_tracks_read_csv(p, &tr, err)))
        goto out;
    have_tracks = 1;
    report_inputs in = {.exp = exp, .result = res, .tracks = &tr, .fits = rows, .n_fits = nrows};
    /* the track stage's sidecar: calibration, sync, timing, its warnings */
    if ((rc = icv_path_join(p, sizeof p, dir, "track_info.json", err)))
        goto out;
    if (icv_file_exists(p)) {
        if ((rc = report_track_info_read(p, ti, err)))
            goto out;
        have_ti = 1;
        in.track = ti;
        in.probes = ti->probe;
        in.n_probes = ti->n_cameras;
        in.sync = ti->sync;
        in.n_sync = ti->n_cameras;
        if (ti->has_stereo)
            in.calib_stereo = &ti->stereo;
        else if (ti->has_mono) {
            in.calib_cameras = &ti->mono;
            in.n_calib_cameras = 1;
        }
    }
    /* every stage's warnings, then the track stage's sidecar's that the log did not
     * carry (a folder made by `impactcv track` alone) */
    int n_ti = have_ti ? ti->n_warnings : 0;
    if (!(warns = malloc(sizeof *warns * (size_t)(n_stage_warns + n_ti + 1)))) {
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", dir);
        goto out;
    }
    int nw = 0;
    for (int i = 0; i < n_stage_warns; i++)
        warns[nw++] = stage_warns[i];
    for (int i = 0; i < n_ti; i++) {
        int seen = 0;
        size_t lt = strlen(ti->warnings[i]);
        for (int k = 0; k < n_stage_warns && !seen; k++) { /* the log's line may carry a file prefix */
            size_t ls = strlen(stage_warns[k]);
            seen = !strncmp(stage_warns[k], "track: ", 7) && ls >= lt + 7 &&
                   !strcmp(stage_warns[k] + ls - lt, ti->warnings[i]);
        }
        if (!seen)
            warns[nw++] = ti->warnings[i];
    }
    in.warnings = warns;
    in.n_warnings = nw;
    if ((rc = icv_path_join(p, sizeof p, dir, "overlays", err)) ||
        (rc = report_overlays_index_read(p, &ov, &pngs, &n_ov, err)))
        goto out;
    in.overlays = ov;
    in.n_overlays = n_ov;
    if (!(rc = icv_path_join(p, sizeof p, dir, "report.html", err)))
        rc = report_write(&in, p, err);
out:
    if (have_tracks)
        analysis_tracks_free(&tr);
    if (have_ti)
        report_track_info_free(ti);
    for (int i = 0; pngs && i < n_ov; i++)
        free(pngs[i]);
    free(pngs);
    free(ov);
    free(warns);
    free(rows);
    free(res);
    free(ti);
    return rc;
}
