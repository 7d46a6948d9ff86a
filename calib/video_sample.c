/* video_sample.c: calibration views sampled from a video (one camera) or from two
 * synchronised videos (stereo: frame n pairs with frame n + offset). The board is
 * looked for in every k-th frame (at most max_examined: bounded time), views whose
 * board edges are wider than the sharpness limit are rejected as motion-blurred
 * (estimateChessboardSharpness, board_detect.c), and up to max_views views are
 * kept by greedy farthest-point selection (Gonzalez 1985) on the RMS distance
 * between corner sets, from the sharpest view on, never closer than min_change:
 * distinct poses and no duplicates. Frames come from the caller's calib_clip (the
 * job decodes them with capture/): calib/ never opens a video. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "calib/calib_internal.h"

int calib_input_is_video(const char *arg)
{
    static const char *const still[] = {"png", "jpg", "jpeg", "tif", "tiff", "bmp", "pgm", "ppm", "pnm",
                                        "pbm", "webp", "jp2", "exr", "hdr", "sr",  "ras"};
    struct stat st;
    if (!arg || stat(arg, &st) || !S_ISREG(st.st_mode))
        return 0;
    const char *dot = strrchr(calib_basename(arg), '.');
    if (dot)
        for (size_t i = 0; i < sizeof still / sizeof *still; i++)
            if (!strcasecmp(dot + 1, still[i]))
                return 0;
    return 1;
}

/* Frame n of a clip as a gray image: 0, or 1 when it cannot be decoded (it is then
 * skipped, as the decoder skips it). */
static int clip_frame(const calib_clip *c, long n, calib_image *img)
{
    icv_err e = {0};
    int rc = c->frame(c->ctx, n, img, &e);
    if (rc) {
        icv_debug("%s: frame %ld skipped: %s", c->name, n, e.msg[0] ? e.msg : "not decodable");
        return 1;
    }
    return 0;
}

/* The candidates: frames (pairs) whose board was found whole and sharp. */
typedef struct {
    int n_cams, np, width, height;
    const calib_clip *cam[2];
    long lo, hi, step;           /* camera 1's frames lo, lo + step, ... < hi are examined */
    long off;                    /* camera 2's frame = camera 1's + off */
    int n, cap;
    long *frame;                 /* n: camera 1's frame number */
    calib_pt2 *uv[2];            /* n * np per camera */
    double *sharp[2];            /* n: px */
    int *method[2];
    int *keep;                   /* n: selected */
    int any_found[2];            /* the board was seen whole in this camera's clip */
    calib_sampling st;
} vsample;

static void vsample_free(vsample *vs)
{
    for (int c = 0; c < 2; c++) {
        free(vs->uv[c]);
        free(vs->sharp[c]);
        free(vs->method[c]);
    }
    free(vs->frame);
    free(vs->keep);
}

static double corner_distance(const vsample *vs, int a, int b)
{
    double s = 0;
    for (int c = 0; c < vs->n_cams; c++) {
        const calib_pt2 *p = vs->uv[c] + (size_t)a * vs->np, *q = vs->uv[c] + (size_t)b * vs->np;
        for (int i = 0; i < vs->np; i++)
            s += (p[i].u - q[i].u) * (p[i].u - q[i].u) + (p[i].v - q[i].v) * (p[i].v - q[i].v);
    }
    return sqrt(s / (vs->np * vs->n_cams));
}

/* Greedy farthest-point selection from the sharpest candidate. */
static int select_views(vsample *vs, const calib_video_options *vo, icv_err *err)
{
    int n = vs->n;
    if (n == 0)
        return 0;
    double *dmin = malloc(sizeof *dmin * (size_t)n);
    if (!dmin)
        return icv_err_set(err, ICV_ENOMEM, "out of memory selecting views");
    double lim = vo->min_change * hypot(vs->width, vs->height);
    int cur = 0;
    for (int i = 0; i < n; i++) {
        dmin[i] = INFINITY;
        double si = fmax(vs->sharp[0][i], vs->n_cams > 1 ? vs->sharp[1][i] : 0);
        double sc = fmax(vs->sharp[0][cur], vs->n_cams > 1 ? vs->sharp[1][cur] : 0);
        if (si < sc)
            cur = i;
    }
    int kept = 0;
    while (cur >= 0) {
        vs->keep[cur] = 1;
        kept++;
        double best = -1;
        int next = -1;
        for (int i = 0; i < n; i++) {
            if (vs->keep[i])
                continue;
            dmin[i] = fmin(dmin[i], corner_distance(vs, i, cur));
            if (dmin[i] >= lim && dmin[i] > best)
                best = dmin[i], next = i;
        }
        cur = kept < vo->max_views ? next : -1;
    }
    vs->st.kept = kept;
    for (int i = 0; i < n; i++)
        if (!vs->keep[i]) {
            vs->st.similar += dmin[i] < lim;
            vs->st.surplus += dmin[i] >= lim;
        }
    free(dmin);
    return 0;
}

/* One line for "no board": names the clip and says when a board of another size
 * is in it (three frames spread over the clip are probed). */
static int fail_no_board(vsample *vs, int c, const calib_board *b, icv_err *err)
{
    const calib_clip *k = vs->cam[c];
    for (int q = 1; q <= 3; q++) {
        long n = vs->lo + (vs->hi - vs->lo) * q / 4 + (c ? vs->off : 0);
        calib_image img;
        if (clip_frame(k, n, &img))
            continue;
        calib_pt2 *tmp = calloc((size_t)b->cols * b->rows, sizeof *tmp);
        calib_detection info = {0};
        if (tmp)
            calib_board_detect(NULL, &img, b, 1, tmp, &info);
        free(tmp);
        if ((info.probe_cols >= info.probe_rows) != (b->cols >= b->rows)) { /* in the user's order */
            int t = info.probe_cols;
            info.probe_cols = info.probe_rows;
            info.probe_rows = t;
        }
        if (info.probe_cols > 0 && (info.probe_cols != b->cols || info.probe_rows != b->rows))
            return icv_err_set(err, ICV_ENOTFOUND,
                               "%s: no %dx%d board found in any of %d frames examined (every %ld of %ld); frame %ld "
                               "shows a board of %dx%d inner corners: check --board (inner corners, not squares)",
                               k->name, b->cols, b->rows, vs->st.examined, vs->step, k->frames, n,
                               info.probe_cols, info.probe_rows);
    }
    return icv_err_set(err, ICV_ENOTFOUND, "%s: no %dx%d board found in any of %d frames examined (every %ld of %ld)",
                       k->name, b->cols, b->rows, vs->st.examined, vs->step, k->frames);
}

/* Examines every step-th frame (pair) of the clips, selects the views. */
static int vsample_run(const calib_clip *const *clips, int n_cams, const calib_board *b, const calib_options *opt,
                       vsample *vs, icv_err *err)
{
    memset(vs, 0, sizeof *vs);
    vs->n_cams = n_cams;
    vs->np = b->cols * b->rows;
    const calib_video_options *vo = &opt->video;
    if (vo->max_examined < 1 || vo->max_views < 1 || !(vo->min_change >= 0))
        return icv_err_set(err, ICV_EINVAL, "video sampling: max_examined and max_views must be >= 1, min_change >= 0");
    const char *paths[2];
    for (int c = 0; c < n_cams; c++) {
        vs->cam[c] = clips[c];
        paths[c] = clips[c]->name;
        if (!clips[c]->frame || clips[c]->width < 1 || clips[c]->height < 1)
            return icv_err_set(err, ICV_EINVAL, "%s: no frames to sample", paths[c]);
    }
    const calib_clip *i1 = clips[0], *i2 = n_cams > 1 ? clips[1] : NULL;
    vs->width = i1->width;
    vs->height = i1->height;
    long off = vs->off = n_cams > 1 ? vo->offset : 0;
    vs->lo = off < 0 ? -off : 0;
    vs->hi = i1->frames;
    if (i2) {
        if (i2->width != i1->width || i2->height != i1->height)
            return icv_err_set(err, ICV_EINVAL, "stereo: %s is %dx%d but %s is %dx%d: both cameras must have one size",
                               paths[0], i1->width, i1->height, paths[1], i2->width, i2->height);
        if (i2->frames - off < vs->hi)
            vs->hi = i2->frames - off;
        if (vs->hi <= vs->lo)
            return icv_err_set(err, ICV_EINVAL,
                               "stereo: with --offset %ld no frame of %s (%ld frames) has a partner in %s (%ld frames)",
                               off, paths[0], (long)i1->frames, paths[1], (long)i2->frames);
    }
    long range = vs->hi - vs->lo;
    vs->step = (range + vo->max_examined - 1) / vo->max_examined;
    if (vs->step < 1)
        vs->step = 1;
    vs->cap = (int)((range + vs->step - 1) / vs->step);
    vs->frame = malloc(sizeof *vs->frame * (size_t)vs->cap);
    vs->keep = calloc((size_t)vs->cap, sizeof *vs->keep);
    int oom = !vs->frame || !vs->keep;
    for (int c = 0; c < n_cams; c++) {
        vs->uv[c] = malloc(sizeof *vs->uv[c] * (size_t)vs->cap * vs->np);
        vs->sharp[c] = malloc(sizeof *vs->sharp[c] * (size_t)vs->cap);
        vs->method[c] = malloc(sizeof *vs->method[c] * (size_t)vs->cap);
        oom |= !vs->uv[c] || !vs->sharp[c] || !vs->method[c];
    }
    if (oom)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for %d candidate views", paths[0], vs->cap);
    vs->st.from_video = 1;
    vs->st.frames = range;
    vs->st.step = vs->step;
    icv_progress bar;
    icv_progress_begin(&bar, "sampling board views", vs->cap);
    for (long n = vs->lo; n < vs->hi; n += vs->step) {
        int k = vs->n, found = 1, sharp = 1, lost = 0;
        for (int c = 0; c < n_cams && found && !lost; c++) {
            calib_image img;
            if (clip_frame(vs->cam[c], n + (c ? off : 0), &img)) {
                lost = 1;
                break;
            }
            calib_detection info;
            calib_board_detect(&opt->detector, &img, b, 0, vs->uv[c] + (size_t)k * vs->np, &info);
            found = info.found;
            vs->any_found[c] |= found;
            sharp &= info.sharpness <= opt->detector.max_sharpness;
            vs->sharp[c][k] = info.sharpness;
            vs->method[c][k] = info.method;
        }
        icv_progress_update(&bar, ++vs->st.examined);
        if (lost || !found)
            continue;
        vs->st.found++;
        if (!sharp) {
            vs->st.blurred++;
            icv_debug("%s: frame %ld rejected as blurred (board edges %.1f px wide, limit %.1f px)", paths[0], n,
                      fmax(vs->sharp[0][k], n_cams > 1 ? vs->sharp[1][k] : 0), opt->detector.max_sharpness);
            continue;
        }
        vs->frame[vs->n++] = n;
    }
    icv_progress_end(&bar);
    for (int c = 0; c < n_cams; c++)
        if (!vs->any_found[c] && (c == 0 || vs->any_found[0]))
            return fail_no_board(vs, c, b, err);
    int need = n_cams > 1 && opt->min_views < 5 ? 5 : opt->min_views;
    int rc = select_views(vs, vo, err);
    if (!rc && vs->st.kept < need)
        rc = icv_err_set(err, ICV_EINVAL,
                         "%s: only %d distinct sharp %s of the %dx%d board in %d frames examined (need at least %d); "
                         "%d blurred, %d too similar to a kept view: show the board in more poses, moving slowly",
                         paths[0], vs->st.kept, n_cams > 1 ? "pairs" : "views", b->cols, b->rows, vs->st.examined,
                         need, vs->st.blurred, vs->st.similar);
    return rc;
}

/* The kept views' corners of camera c (in frame order), and their names. */
static int kept_views(const vsample *vs, int c, calib_pt2 *uv, char (*names)[CALIB_NAME_MAX], const char **np)
{
    int m = 0;
    for (int i = 0; i < vs->n; i++) {
        if (!vs->keep[i])
            continue;
        memcpy(uv + (size_t)m * vs->np, vs->uv[c] + (size_t)i * vs->np, sizeof *uv * vs->np);
        snprintf(names[m], CALIB_NAME_MAX, "%s frame %ld", calib_basename(vs->cam[c]->name),
                 vs->frame[i] + (c ? vs->off : 0));
        np[m] = names[m];
        m++;
    }
    return m;
}

static void sampling_note(const calib_sampling *s, char *verdict)
{
    size_t len = strlen(verdict);
    snprintf(verdict + len, CALIB_VERDICT_MAX - len,
             "note: %d views sampled from the video: every %ld of %ld frames examined (%d), board in %d, %d blurred, "
             "%d too similar, %d more left out (max views)\n",
             s->kept, s->step, s->frames, s->examined, s->found, s->blurred, s->similar, s->surplus);
}

int calib_camera_from_clip(const calib_clip *clip, const calib_board *b, const calib_options *opt, calib_camera *cam,
                           icv_err *err)
{
    calib_options def;
    if (!opt) {
        calib_options_defaults(&def);
        opt = &def;
    }
    memset(cam, 0, sizeof *cam);
    vsample vs;
    int rc = vsample_run(&clip, 1, b, opt, &vs, err);
    if (rc) {
        vsample_free(&vs);
        return rc;
    }
    int k = vs.st.kept;
    calib_pt2 *uv = malloc(sizeof *uv * (size_t)k * vs.np);
    char(*names)[CALIB_NAME_MAX] = malloc(sizeof *names * (size_t)k);
    const char **np = malloc(sizeof *np * (size_t)k);
    icv_vec3 *X = malloc(sizeof *X * (size_t)vs.np);
    if (!uv || !names || !np || !X) {
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", clip->name);
        goto out;
    }
    kept_views(&vs, 0, uv, names, np);
    calib_board_points(b, X);
    calib_observations obs = {vs.np, X, k, uv, np, vs.width, vs.height, 0};
    rc = calib_camera_calibrate(&obs, opt, cam, err);
    if (rc)
        goto out;
    for (int i = 0, m = 0; i < vs.n; i++)
        if (vs.keep[i]) {
            cam->views[m].frame = vs.frame[i];
            cam->views[m].sharpness = vs.sharp[0][i];
            cam->views[m++].method = (calib_detect_method)vs.method[0][i];
        }
    cam->sampling = vs.st;
    sampling_note(&vs.st, cam->verdict);
out:
    free(uv), free(names), free(np), free(X);
    vsample_free(&vs);
    return rc;
}

int calib_stereo_from_clips(const calib_clip *clip1, const calib_clip *clip2, const calib_board *b,
                            const calib_options *opt, calib_stereo *st, icv_err *err)
{
    calib_options def;
    if (!opt) {
        calib_options_defaults(&def);
        opt = &def;
    }
    memset(st, 0, sizeof *st);
    const calib_clip *clips[2] = {clip1, clip2};
    vsample vs;
    int rc = vsample_run(clips, 2, b, opt, &vs, err);
    if (rc) {
        vsample_free(&vs);
        return rc;
    }
    int k = vs.st.kept;
    calib_pt2 *uv = malloc(sizeof *uv * (size_t)k * vs.np * 2);
    char(*names)[CALIB_NAME_MAX] = malloc(sizeof *names * (size_t)k * 2);
    const char **np = malloc(sizeof *np * (size_t)k * 2);
    icv_vec3 *X = malloc(sizeof *X * (size_t)vs.np);
    if (!uv || !names || !np || !X) {
        rc = icv_err_set(err, ICV_ENOMEM, "stereo: out of memory");
        goto out;
    }
    kept_views(&vs, 0, uv, names, np);
    kept_views(&vs, 1, uv + (size_t)k * vs.np, names + k, np + k);
    calib_board_points(b, X);
    calib_observations o1 = {vs.np, X, k, uv, np, vs.width, vs.height, 0};
    calib_observations o2 = {vs.np, X, k, uv + (size_t)k * vs.np, np + k, vs.width, vs.height, 0};
    rc = calib_stereo_calibrate(&o1, &o2, opt, st, err);
    if (rc)
        goto out;
    for (int c = 0; c < 2; c++) {
        for (int i = 0, m = 0; i < vs.n && m < st->cam[c].n_views; i++)
            if (vs.keep[i]) {
                st->cam[c].views[m].frame = vs.frame[i] + (c ? opt->video.offset : 0);
                st->cam[c].views[m].sharpness = vs.sharp[c][i];
                st->cam[c].views[m++].method = (calib_detect_method)vs.method[c][i];
            }
        st->cam[c].sampling = vs.st;
    }
    st->sampling = vs.st;
    sampling_note(&vs.st, st->verdict);
out:
    free(uv), free(names), free(np), free(X);
    vsample_free(&vs);
    return rc;
}
