/* run_overlays.c: the overlay images of a run (report.h, docs/report.md): per camera
 * the frames before, at and after each impact, decoded by seek, with what the track
 * stage saw drawn over them: the detections of tracks2d_<camera>.csv in their
 * marker's colour, the tracker's predictions (predicted2d_<camera>.csv) and the body's
 * outline at the fitted pose of that frame's time, projected through the camera model
 * the tracks were made with (track_info.json); each image is the part of the frame
 * round the body (index.json gives where), so the markers are seen at full size. The images and their index.json are
 * made in a working folder beside DIR/overlays that replaces it when all are made.
 * The cameras are decoded concurrently, one thread each. */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report_internal.h"

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

/* Everything one camera's images need. */
typedef struct {
    const icv_experiment *exp;
    const analysis_result *res;
    const analysis_body *body;
    const analysis_tracks *tracks; /* NULL: no fallback pose */
    const report_track_info *ti;
    int k;                         /* the camera's index in ti */
    const report_row2d *det, *pred;
    long n_det, n_pred;
} scene;

/* The body's pose at experiment time t near impact i: its side's fitted flight, or
 * (the side's position unknown, no fits.csv) the template fitted to the tracks3d row
 * within half a frame of t. 0 found, -1 none. */
static int body_pose(const scene *s, int i, double t, icv_mat3 *R, icv_vec3 *p)
{
    icv_vec3 v, w;
    report_side_state(s->res, i, t >= s->res->impacts[i].t, s->body, t, p, &v, R, &w);
    if (isfinite(p->x) && isfinite(p->y) && isfinite(p->z))
        return 0;
    const analysis_tracks *tr = s->tracks;
    if (!tr || tr->n_frames < 2)
        return -1;
    int best = 0;
    for (int r = 1; r < tr->n_frames; r++)
        if (fabs(tr->t[r] - t) < fabs(tr->t[best] - t))
            best = r;
    double half = 0.5 * fabs(tr->t[1] - tr->t[0]);
    analysis_pose ps;
    if (fabs(tr->t[best] - t) > half * 1.01 || analysis_pose_fit_frame(tr, best, &s->body->tmpl, 0, NULL, &ps, NULL))
        return -1;
    *R = ps.R;
    *p = ps.p;
    return 0;
}

/* grows box b (x0, y0, x1, y1) to hold (u, v) when it lies on the w x h image */
static void box_add(double b[4], double u, double v, int w, int h)
{
    if (!isfinite(u) || !isfinite(v) || u < 0 || v < 0 || u > w - 1 || v > h - 1)
        return;
    b[0] = fmin(b[0], u), b[1] = fmin(b[1], v), b[2] = fmax(b[2], u), b[3] = fmax(b[3], v);
}

/* The part of the frame an image shows: the body (its outline, detections and
 * predictions) with a margin of 40 px plus 15% of its size, at least 240 px a
 * side, inside the frame; the whole frame when nothing is drawn. */
static void crop_box(const report_point2d *pts, int np, const report_polyline *lines, int nl, int w, int h, int c[4])
{
    double b[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < np; i++)
        box_add(b, pts[i].u, pts[i].v, w, h);
    for (int l = 0; l < nl; l++)
        for (int i = 0; i < lines[l].n; i++)
            box_add(b, lines[l].uv[2 * i], lines[l].uv[2 * i + 1], w, h);
    if (!(b[2] >= b[0])) {
        c[0] = c[1] = 0, c[2] = w, c[3] = h;
        return;
    }
    double m = 40 + 0.15 * fmax(b[2] - b[0], b[3] - b[1]);
    int lim[2] = {w, h};
    for (int a = 0; a < 2; a++) {
        double lo = b[a] - m, hi = b[a + 2] + m, need = 240 - (hi - lo);
        if (need > 0)
            lo -= need / 2, hi += need / 2;
        if (lo < 0)
            hi -= lo, lo = 0;
        if (hi > lim[a] - 1)
            lo -= hi - (lim[a] - 1), hi = lim[a] - 1;
        c[a] = lo < 0 ? 0 : (int)floor(lo);
        c[a + 2] = (int)ceil(hi) + 1 - c[a]; /* width, height */
    }
}

/* One image: the part of the frame round the body with the detections,
 * predictions and outline; crop[4] = x0, y0, width, height (px of the frame). */
static int draw(const scene *s, const capture_frame *f, const shot *sh, double t, unsigned char **png, size_t *len,
                int crop[4], icv_err *err)
{
    long n = 0;
    for (long i = 0; i < s->n_det; i++)
        n += s->det[i].frame == sh->frame;
    for (long i = 0; i < s->n_pred; i++)
        n += s->pred[i].frame == sh->frame;
    report_point2d *pts = malloc(sizeof *pts * (size_t)(n + 1));
    if (!pts)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    int np = 0;
    for (long i = 0; i < s->n_pred; i++)
        if (s->pred[i].frame == sh->frame)
            pts[np++] = (report_point2d){s->pred[i].u, s->pred[i].v, -1, 1};
    for (long i = 0; i < s->n_det; i++)
        if (s->det[i].frame == sh->frame) /* a 2D track no 3D point labelled: white */
            pts[np++] = (report_point2d){s->det[i].u, s->det[i].v,
                                         s->det[i].id < s->exp->n_markers ? s->det[i].id : -1, 0};
    double uv[2 * REPORT_OUTLINE_MAX_PTS];
    report_polyline lines[REPORT_OUTLINE_MAX_LINES];
    int nl = 0;
    icv_mat3 R;
    icv_vec3 p;
    if (body_pose(s, sh->impact, t, &R, &p) == 0) {
        report_outline o;
        report_outline_of_shape(&s->exp->shape, R, p, &o);
        nl = report_outline_project(&o, &s->ti->in[s->k], s->ti->R[s->k], s->ti->t[s->k], uv, lines);
    }
    crop_box(pts, np, lines, nl, f->width, f->height, crop);
    for (int i = 0; i < np; i++)
        pts[i].u -= crop[0], pts[i].v -= crop[1];
    for (int l = 0; l < nl; l++) /* the lines point into uv */
        for (long i = lines[l].uv - uv; i < lines[l].uv - uv + 2 * lines[l].n; i += 2)
            uv[i] -= crop[0], uv[i + 1] -= crop[1];
    /* px: a ring round a marker's blob; 8 at 1280 px wide */
    double radius = f->width / 160.0 > 5 ? f->width / 160.0 : 5;
    const unsigned char *gray = (const unsigned char *)f->data + (size_t)crop[1] * f->stride + (size_t)crop[0];
    int rc = report_overlay_png(gray, crop[2], crop[3], (int)f->stride, pts, np, lines, nl, radius, png, len, err);
    free(pts);
    return rc;
}

static const char *const role_name[3] = {"before", "at", "after"};

/* Camera c's images into tmp, their entries into index. */
static int camera_overlays(scene *s, int c, const char *dir, const char *tmp, json_t *index, icv_err *err)
{
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
    capture_options co = {.capture_fps = spec->capture_fps, .want_8bit = 1};
    if ((rc = capture_source_open(&src, spec->video, &co, err))) {
        icv_err_prefix(err, "camera '%s': ", spec->id);
        goto out;
    }
    const capture_info *info = capture_source_info(src);
    double off_s = s->ti->sync[s->k].offset_s;
    for (int i = 0; i < s->res->n_impacts; i++) {
        long k = nearest_frame(src, info->frames, off_s, s->res->impacts[i].t);
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
        if (!(rc = draw(s, &f, sh, t, &png, &len, crop, err)) &&
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
    scene sc;
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
static int all_cameras(const scene *proto, const char *dir, const char *tmp, json_t *index, icv_err *err)
{
    int n = proto->exp->n_cameras, rc = 0;
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

int report_overlays_write(const char *dir, const icv_experiment *exp, icv_err *err)
{
    char path[ICV_PATH_MAX], final[ICV_PATH_MAX], tmp[ICV_PATH_MAX] = "";
    analysis_result *res = malloc(sizeof *res);
    report_track_info *ti = calloc(1, sizeof *ti);
    report_fit_row *fits = NULL;
    analysis_tracks tr;
    memset(&tr, 0, sizeof tr);
    int nfits = 0, rc = 0, have_tracks = 0, have_ti = 0;
    json_t *index = json_array();
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
    if ((rc = icv_path_join(path, sizeof path, dir, "track_info.json", err)))
        goto out;
    if (!icv_file_exists(path)) {
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "%s: not found: the overlays need the camera models and offsets the track stage leaves "
                         "there (run impactcv track or impactcv run again)",
                         path);
        goto out;
    }
    if ((rc = report_track_info_read(path, ti, err)))
        goto out;
    have_ti = 1;
    analysis_body body;
    if ((rc = analysis_body_from_experiment(exp, &body, err)))
        goto out;
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", final) >= (int)sizeof tmp || !mkdtemp(tmp)) {
        rc = icv_err_set(err, ICV_EIO, "%s: cannot make a working folder beside it", final);
        tmp[0] = 0;
        goto out;
    }
    rc = all_cameras(&(scene){exp, res, &body, have_tracks ? &tr : NULL, ti, 0, NULL, NULL, 0, 0}, dir, tmp, index,
                     err);
    if (!rc) {
        json_t *root = json_pack("{s:s, s:O}", "schema", "impactcv-overlays-1", "overlays", index);
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
out:
    if (tmp[0])
        remove_folder(tmp);
    json_decref(index);
    if (have_ti)
        report_track_info_free(ti);
    if (have_tracks)
        analysis_tracks_free(&tr);
    free(ti);
    free(fits);
    free(res);
    return rc;
}
