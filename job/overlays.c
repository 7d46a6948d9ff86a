/* overlays.c: the overlay images of a run (job.h, docs/report.md): per camera the
 * frames before, at and after each impact, decoded by seek, with what the track stage
 * saw drawn over them by report_overlay_frame_png (the detections of
 * tracks2d_<camera>.csv, the predictions of predicted2d_<camera>.csv, the body's
 * outline through the camera model of track_info.json). The images and their
 * index.json are made in a working folder beside DIR/overlays that replaces it when
 * all are made. The cameras are decoded concurrently, one thread each. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job/job_internal.h"

/* removes a folder of plain files (what this file makes); quiet when absent */
static void remove_folder(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    char p[ICV_PATH_MAX];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            snprintf(p, sizeof p, "%s/%s", path, e->d_name) < (int)sizeof p)
            unlink(p);
    closedir(d);
    rmdir(path);
}

/* the experiment-clock time of frame k of a camera whose offset is off_s */
static double frame_time(capture_source *src, long k, double off_s) { return capture_source_time(src, k) - off_s; }

/* the frame whose experiment time is nearest t (times increase with the frame) */
static long nearest_frame(capture_source *src, long n, double off_s, double t)
{
    long lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        if (frame_time(src, mid, off_s) <= t)
            lo = mid;
        else
            hi = mid;
    }
    return fabs(frame_time(src, hi, off_s) - t) < fabs(frame_time(src, lo, off_s) - t) ? hi : lo;
}

typedef struct {
    long frame;
    int impact;
    int role; /* -1 before, 0 at, +1 after the impact */
} shot;

static int cmp_shot(const void *a, const void *b)
{
    const shot *x = a, *y = b;
    return (x->frame > y->frame) - (x->frame < y->frame);
}

static const char *const role_name[3] = {"before", "at", "after"};

/* What the images of a run draw: one body's scene or several bodies', and the
 * instants whose frames they show (results.json's impacts, in its order). */
typedef struct {
    report_overlay_scene one;             /* one body; its exp and ti serve both */
    report_overlay_bodies_scene several;  /* several bodies (is_several) */
    int is_several;
    const double *t_impact;               /* s, experiment clock */
    int n_impacts;
} overlay_src;

/* Camera c's images into tmp, their entries into index. */
static int camera_overlays(overlay_src *os, int c, const char *dir, const char *tmp, json_t *index, icv_err *err)
{
    report_overlay_scene *s = &os->one;
    const icv_camera_spec *spec = &s->exp->cameras[c];
    char path[ICV_PATH_MAX], name[ICV_ID_MAX + 32];
    s->k = -1;
    for (int k = 0; k < s->ti->n_cameras; k++)
        if (!strcmp(s->ti->camera[k], spec->id))
            s->k = k;
    if (s->k < 0)
        return icv_err_set(err, ICV_ENOTFOUND, "%s/track_info.json: no camera '%s' (made from another experiment?)",
                           dir, spec->id);
    report_row2d *det = NULL, *pred = NULL;
    capture_source *src = NULL;
    capture_frame f = {0};
    shot shots[3 * ANALYSIS_MAX_IMPACTS];
    int ns = 0, rc;
    snprintf(name, sizeof name, "tracks2d_%s.csv", spec->id);
    if ((rc = icv_path_join(path, sizeof path, dir, name, err)) ||
        (rc = report_rows2d_read(path, 0, &det, &s->n_det, err)))
        goto out;
    snprintf(name, sizeof name, "predicted2d_%s.csv", spec->id);
    if ((rc = icv_path_join(path, sizeof path, dir, name, err)))
        goto out;
    s->n_pred = 0;
    if (icv_file_exists(path) && (rc = report_rows2d_read(path, 1, &pred, &s->n_pred, err)))
        goto out;
    s->det = det;
    s->pred = pred;
    os->several.k = s->k;
    os->several.det = det, os->several.n_det = s->n_det;
    os->several.pred = pred, os->several.n_pred = s->n_pred;
    capture_options co = {.capture_fps = spec->capture_fps, .want_8bit = 1};
    if ((rc = capture_source_open(&src, spec->video, &co, err))) {
        icv_err_prefix(err, "camera '%s': ", spec->id);
        goto out;
    }
    const capture_info *info = capture_source_info(src);
    double off_s = s->ti->sync[s->k].offset_s;
    for (int i = 0; i < os->n_impacts; i++) {
        long k = nearest_frame(src, info->frames, off_s, os->t_impact[i]);
        for (int r = -1; r <= 1; r++) {
            int dup = 0;
            for (int j = 0; j < ns; j++)
                dup |= shots[j].frame == k + r;
            if (k + r >= 0 && k + r < info->frames && !dup)
                shots[ns++] = (shot){k + r, i, r};
        }
    }
    qsort(shots, (size_t)ns, sizeof *shots, cmp_shot);
    if ((rc = capture_frame_alloc(&f, info, err)))
        goto out;
    long next = -1; /* the frame the next read gives without a seek */
    const shot *sh = NULL;
    for (int j = 0; j < ns && !rc; j++) {
        sh = &shots[j];
        if (sh->frame != next && (rc = capture_source_seek(src, sh->frame, err)))
            break;
        rc = capture_source_read(src, &f, err);
        if (rc == CAPTURE_EOF || (!rc && f.index != sh->frame))
            rc = icv_err_set(err, ICV_EFORMAT, "frame %ld could not be decoded", sh->frame);
        if (rc)
            break;
        next = f.index + 1;
        double t = frame_time(src, sh->frame, off_s);
        unsigned char *png = NULL;
        size_t len = 0;
        int crop[4];
        snprintf(name, sizeof name, "%s_%ld.png", spec->id, sh->frame);
        if (!(rc = os->is_several
                       ? report_overlay_bodies_frame_png(&os->several, (const unsigned char *)f.data, f.width, f.height,
                                                         (int)f.stride, sh->frame, sh->impact, t, &png, &len, crop,
                                                         err)
                       : report_overlay_frame_png(s, (const unsigned char *)f.data, f.width, f.height, (int)f.stride,
                                                  sh->frame, sh->impact, t, &png, &len, crop, err)) &&
            !(rc = icv_path_join(path, sizeof path, tmp, name, err)))
            rc = icv_atomic_write(path, png, len, err);
        free(png);
        if (!rc)
            json_array_append_new(index, json_pack("{s:s, s:s, s:I, s:f, s:i, s:s, s:[i, i, i, i]}", "file", name,
                                                   "camera", spec->id, "frame", (json_int_t)sh->frame, "time_s", t,
                                                   "impact", sh->impact, "role", role_name[sh->role + 1], "crop_px",
                                                   crop[0], crop[1], crop[2], crop[3]));
    }
    if (rc && sh)
        icv_err_prefix(err, "camera '%s' (%s): frame %ld: ", spec->id, spec->video, sh->frame);
out:
    capture_frame_free(&f);
    if (src)
        capture_source_close(src);
    free(det);
    free(pred);
    return rc;
}

/* One camera's images, on a thread of its own. */
typedef struct {
    overlay_src sc;
    int c;
    const char *dir, *tmp;
    json_t *index;
    icv_err err;
    int rc;
} camera_job;

static void *camera_job_run(void *arg)
{
    camera_job *j = arg;
    j->rc = camera_overlays(&j->sc, j->c, j->dir, j->tmp, j->index, &j->err);
    return NULL;
}

/* Every camera's images into tmp, their entries into index in camera order. The
 * cameras run concurrently: each decodes its own video from the keyframe before its
 * frames, which is most of this stage's time. The first camera's error in camera
 * order is the one reported. */
static int all_cameras(const overlay_src *proto, const char *dir, const char *tmp, json_t *index, icv_err *err)
{
    int n = proto->one.exp->n_cameras, rc = 0;
    camera_job *jobs = calloc((size_t)n, sizeof *jobs);
    if (!jobs) {
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", dir);
        goto out;
    }
    for (int c = 0; c < n; c++) {
        jobs[c] = (camera_job){*proto, c, dir, tmp, json_array(), {0}, 0};
        if (!jobs[c].index) {
            rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", dir);
            goto out;
        }
    }
    icv_run_each(camera_job_run, jobs, sizeof *jobs, n);
    for (int c = 0; c < n && !rc; c++) {
        if (jobs[c].rc) {
            *err = jobs[c].err;
            rc = jobs[c].rc;
        } else {
            json_array_extend(index, jobs[c].index);
        }
    }
out:
    for (int c = 0; jobs && c < n; c++)
        json_decref(jobs[c].index);
    free(jobs);
    return rc;
}

/* The images of src into a working folder beside final (DIR/overlays) that replaces
 * it when all are made, with index.json (bodies: its "bodies" entry, or NULL). */
static int overlays_make(const char *dir, const char *final, const overlay_src *src, json_t *bodies, icv_err *err)
{
    char path[ICV_PATH_MAX], tmp[ICV_PATH_MAX];
    json_t *index = json_array();
    if (!index)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", dir);
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", final) >= (int)sizeof tmp || !mkdtemp(tmp)) {
        json_decref(index);
        return icv_err_set(err, ICV_EIO, "%s: cannot make a working folder beside it", final);
    }
    int rc = all_cameras(src, dir, tmp, index, err);
    if (!rc) {
        json_t *root = json_pack("{s:s, s:O}", "schema", "impactcv-overlays-1", "overlays", index);
        if (root && bodies)
            json_object_set(root, "bodies", bodies);
        char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
        json_decref(root);
        if (!text)
            rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", final);
        if (!rc && !(rc = icv_path_join(path, sizeof path, tmp, "index.json", err)))
            rc = icv_atomic_write(path, text, strlen(text), err);
        free(text);
    }
    if (!rc) { /* the new folder replaces the old one; the old one is removed after */
        char old[ICV_PATH_MAX];
        snprintf(old, sizeof old, "%s.old", tmp);
        int had = rename(final, old) == 0;
        if (rename(tmp, final) != 0) {
            rc = icv_err_set(err, ICV_EIO, "%s: cannot move the new images into place", final);
            if (had)
                rename(old, final);
        } else {
            tmp[0] = 0;
            if (had)
                remove_folder(old);
        }
    }
    if (tmp[0])
        remove_folder(tmp);
    json_decref(index);
    return rc;
}

/* DIR/track_info.json into ti (the camera models and offsets) */
static int track_info_of(const char *dir, report_track_info *ti, icv_err *err)
{
    char path[ICV_PATH_MAX];
    int rc = icv_path_join(path, sizeof path, dir, "track_info.json", err);
    if (!rc && !icv_file_exists(path))
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "%s: not found: the overlays need the camera models and offsets the track stage leaves "
                         "there (run impactcv track or impactcv run again)",
                         path);
    return rc ? rc : report_track_info_read(path, ti, err);
}

int job_overlays_write(const char *dir, const icv_experiment *exp, icv_err *err)
{
    char path[ICV_PATH_MAX], final[ICV_PATH_MAX];
    analysis_result *res = malloc(sizeof *res);
    report_track_info *ti = calloc(1, sizeof *ti);
    report_fit_row *fits = NULL;
    analysis_tracks tr;
    memset(&tr, 0, sizeof tr);
    int nfits = 0, rc = 0, have_tracks = 0, have_ti = 0;
    double t_impact[ANALYSIS_MAX_IMPACTS];
    if (!res || !ti) {
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", dir);
        goto out;
    }
    if ((rc = icv_path_join(final, sizeof final, dir, "overlays", err)) ||
        (rc = icv_path_join(path, sizeof path, dir, "results.json", err)) ||
        (rc = report_results_read(path, res, err)))
        goto out;
    if (res->n_impacts == 0) { /* nothing to show: no images, and none of an older run */
        remove_folder(final);
        goto out;
    }
    if ((rc = icv_path_join(path, sizeof path, dir, "fits.csv", err)))
        goto out;
    if (icv_file_exists(path)) { /* the sides' positions; without it, the tracks' poses */
        if ((rc = report_fits_read(path, &fits, &nfits, err)))
            goto out;
        report_fits_apply(fits, nfits, res);
    }
    if ((rc = icv_path_join(path, sizeof path, dir, "tracks3d.csv", err)))
        goto out;
    if (icv_file_exists(path) && analysis_tracks_read_csv(path, &tr, NULL) == 0)
        have_tracks = 1;
    if ((rc = track_info_of(dir, ti, err)))
        goto out;
    have_ti = 1;
    analysis_body body;
    if ((rc = analysis_body_from_experiment(exp, &body, err)))
        goto out;
    for (int i = 0; i < res->n_impacts; i++)
        t_impact[i] = res->impacts[i].t;
    overlay_src src = {{exp, res, &body, have_tracks ? &tr : NULL, ti, 0, NULL, NULL, 0, 0}, {0}, 0, t_impact,
                       res->n_impacts};
    rc = overlays_make(dir, final, &src, NULL, err);
out:
    if (have_ti)
        report_track_info_free(ti);
    if (have_tracks)
        analysis_tracks_free(&tr);
    free(ti);
    free(fits);
    free(res);
    return rc;
}

int job_overlays_write_bodies(const char *dir, const icv_experiment *exp, const analysis_bodies_result *res,
                              icv_err *err)
{
    char path[ICV_PATH_MAX], final[ICV_PATH_MAX];
    int n = exp->n_bodies, n_taken = 0, have_all = 0, have_ti = 0, rc;
    double t_impact[ANALYSIS_MAX_IMPACTS + ANALYSIS_MAX_CHAIN_IMPACTS];
    int n_impacts = 0;
    for (int i = 0; i < res->n_impacts; i++)
        t_impact[n_impacts++] = res->impacts[i].t;
    for (int i = 0; i < res->n_chain; i++)
        t_impact[n_impacts++] = res->chain[i].t;
    if ((rc = icv_path_join(final, sizeof final, dir, "overlays", err)))
        return rc;
    if (n_impacts == 0) { /* bodies that never met: no images, and none of an older run */
        remove_folder(final);
        return 0;
    }
    report_track_info *ti = calloc(1, sizeof *ti);
    analysis_body *body = calloc((size_t)n, sizeof *body);
    analysis_tracks *tr = calloc((size_t)n, sizeof *tr), all;
    icv_experiment *ek = malloc(sizeof *ek);
    json_t *bodies = json_array();
    memset(&all, 0, sizeof all);
    if (!ti || !body || !tr || !ek || !bodies) {
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", dir);
        goto out;
    }
    if ((rc = icv_path_join(path, sizeof path, dir, "tracks3d.csv", err)) ||
        (rc = analysis_tracks_read_csv(path, &all, err)))
        goto out;
    have_all = 1;
    if (all.n_markers != icv_experiment_first_marker(exp, n)) {
        rc = icv_err_set(err, ICV_EINVAL, "%s: %d markers, but the %d bodies of %s have %d together", path,
                         all.n_markers, n, exp->path, icv_experiment_first_marker(exp, n));
        goto out;
    }
    for (int b = 0; b < n && !rc; b++) {
        *ek = *exp;
        icv_experiment_use_body(ek, b);
        if (!(rc = analysis_body_from_experiment(ek, &body[b], err)) &&
            !(rc = analysis_tracks_take(&all, icv_experiment_first_marker(exp, b), exp->bodies[b].n_markers, &tr[b], err)))
            n_taken++;
        unsigned char c[3];
        report_palette(b, c);
        json_array_append_new(bodies, json_pack("{s:s, s:[i, i, i]}", "name", exp->bodies[b].name, "color", c[0],
                                                c[1], c[2]));
    }
    if (rc || (rc = track_info_of(dir, ti, err)))
        goto out;
    have_ti = 1;
    overlay_src src = {{exp, NULL, NULL, NULL, ti, 0, NULL, NULL, 0, 0},
                       {exp, body, tr, res, ti, 0, NULL, NULL, 0, 0},
                       1,
                       t_impact,
                       n_impacts};
    rc = overlays_make(dir, final, &src, bodies, err);
out:
    if (have_ti)
        report_track_info_free(ti);
    if (have_all)
        analysis_tracks_free(&all);
    for (int b = 0; b < n_taken; b++)
        analysis_tracks_free(&tr[b]);
    json_decref(bodies);
    free(ek);
    free(tr);
    free(body);
    free(ti);
    return rc;
}
