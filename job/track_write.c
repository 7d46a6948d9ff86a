/* track_write.c: the track stage's last step: DIR/tracks2d_<camera>.csv (a band's
 * points moved to the rod's axis), DIR/tracks3d.csv, DIR/tracks3d_quality.csv, then what
 * the report needs (track_info.c), written only now that every stage has succeeded; a
 * failure removes what was written. */
#include <stdlib.h>
#include <unistd.h>

#include "job/job_track_internal.h"

static void remove_written(char paths[][ICV_PATH_MAX], int n)
{
    for (int i = 0; i < n; i++)
        unlink(paths[i]);
}

int job_track_write(job_track *j, const char *out_dir, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    job_track_camera *cams = j->cams;
    int nc = exp->n_cameras, nm = exp->n_markers, rc;
    job_track_info_camera info_cams[ICV_MAX_CAMERAS];
    for (int c = 0; c < ICV_MAX_CAMERAS; c++)
        info_cams[c] = (job_track_info_camera){cams[c].src, cams[c].want_brightness ? cams[c].bright : NULL,
                                               cams[c].raw, cams[c].n_raw, cams[c].dup, cams[c].n_dup, cams[c].gaps,
                                               cams[c].n_gaps, cams[c].repeat, cams[c].n_repeat, cams[c].stored_times};
    if ((rc = icv_mkdirs(out_dir, err)) != 0)
        return rc;
    char written[ICV_MAX_CAMERAS + 2][ICV_PATH_MAX];
    int n_written = 0;
    track_row2d *rows2d = NULL;
    int *marker = NULL;
    for (int c = 0; c < nc && !rc; c++) {
        job_track_camera *cm = &cams[c];
        free(rows2d);
        free(marker);
        rows2d = malloc(sizeof *rows2d * ((size_t)cm->n_raw + 1));
        marker = malloc(sizeof *marker * ((size_t)cm->n_raw + 1));
        if (!rows2d || !marker) {
            rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
            break;
        }
        if ((rc = job_track_labels_2d(cm, marker, err)) != 0)
            break;
        for (long i = 0; i < cm->n_raw; i++) {
            const track_raw_point *p = &cm->raw[i];
            int l = marker[i];
            /* a 2D track no 3D point labelled (a glint, a marker one camera alone saw):
               written with an index past the body's markers */
            rows2d[i] = (track_row2d){p->frame, cm->tcam[p->frame] - cm->off_s, l >= 0 ? l : nm + p->id, p->u,
                                      p->v, p->area, p->flags};
            if (l >= 0 && j->band.on && j->opt.band_correction && j->band.band[l] &&
                !(p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED)))
                track_band_shift_2d(&j->band, c, &j->cal, &cm->pc.view, cams[0].tcam, cams[0].off_s, cams[0].pc.fps,
                                    j->F, j->xyz, j->axes, nm, l, rows2d[i].time_s, &rows2d[i].u_px, &rows2d[i].v_px);
        }
        j->res.points2d[c] = cm->n_raw;
        char name[ICV_ID_MAX + 32];
        snprintf(name, sizeof name, "tracks2d_%s.csv", exp->cameras[c].id);
        if ((rc = icv_path_join(written[n_written], ICV_PATH_MAX, out_dir, name, err)) != 0)
            break;
        if ((rc = track_tracks2d_write(written[n_written], rows2d, (size_t)cm->n_raw, err)) == 0)
            n_written++;
    }
    free(rows2d);
    free(marker);
    if (!rc && (rc = icv_path_join(written[n_written], ICV_PATH_MAX, out_dir, "tracks3d.csv", err)) == 0 &&
        (rc = track_tracks3d_write(written[n_written], nm, (size_t)j->F, j->fr3, j->t3, j->xyz, err)) == 0)
        n_written++;
    if (!rc && (rc = icv_path_join(written[n_written], ICV_PATH_MAX, out_dir, "tracks3d_quality.csv", err)) == 0 &&
        (rc = track_quality3d_write(written[n_written], j->qrows, (size_t)j->nq, err)) == 0)
        n_written++;
    if (!rc) /* what the report needs: DIR/track_info.json, DIR/predicted2d_<camera>.csv (track_info.c) */
        rc = job_track_info_write(out_dir, exp, &j->cal, &j->res, info_cams, err);
    if (rc)
        remove_written(written, n_written);
    return rc;
}
