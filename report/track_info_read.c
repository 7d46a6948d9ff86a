/* track_info_read.c: DIR/track_info.json (job/track_info.c, docs/pipeline.md) read
 * back into the structs the report's sections take (capture_probe, capture_sync,
 * calib_camera / calib_stereo), so the calibration, sync and timing sections of a
 * report made from a folder show what the track stage found. What the file marks
 * unknown (null) stays unknown: NaN, verdict_ok -1, NULL brightness. */
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void str(json_t *o, const char *k, char *out, size_t n)
{
    const char *s = json_string_value(json_object_get(o, k));
    snprintf(out, n, "%s", s ? s : "");
}

static int verdict_ok(json_t *o)
{
    json_t *v = json_object_get(o, "verdict_ok");
    return json_is_boolean(v) ? json_is_true(v) : -1;
}

static void verdict(json_t *o, char *out, size_t n)
{
    size_t len = 0;
    json_t *a = json_object_get(o, "verdict"), *l;
    size_t i;
    out[0] = 0;
    json_array_foreach(a, i, l)
    {
        const char *s = json_string_value(l);
        if (s && len < n)
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? "\n" : "", s);
    }
}

/* a long array into a malloc'd copy (n entries); NULL for an empty or absent one */
static long *long_array(json_t *a, size_t *n)
{
    *n = json_array_size(a);
    if (*n == 0)
        return NULL;
    long *v = malloc(sizeof *v * *n);
    if (!v) {
        *n = 0;
        return NULL;
    }
    for (size_t i = 0; i < *n; i++)
        v[i] = (long)json_integer_value(json_array_get(a, i));
    return v;
}

static int camera_quality(json_t *o, calib_camera *c)
{
    memset(c, 0, sizeof *c);
    c->rms = num(o, "rms_px");
    c->n_used = (int)json_integer_value(json_object_get(o, "n_used"));
    c->coverage = num(o, "coverage");
    json_t *m = json_object_get(o, "coverage_map");
    for (int j = 0; j < CALIB_COV_ROWS; j++) {
        json_t *row = json_array_get(m, (size_t)j);
        for (int i = 0; i < CALIB_COV_COLS; i++)
            c->coverage_map[j][i] = (unsigned short)json_integer_value(json_array_get(row, (size_t)i));
    }
    if (!json_is_array(m))
        c->coverage = NAN; /* no map: not shown */
    c->verdict_ok = verdict_ok(o);
    verdict(o, c->verdict, sizeof c->verdict);
    json_t *v = json_object_get(o, "views"), *e;
    size_t n = json_array_size(v), i;
    if (n > 0 && !(c->views = calloc(n, sizeof *c->views)))
        return -1;
    json_array_foreach(v, i, e)
    {
        calib_view *w = &c->views[c->n_views++];
        str(e, "name", w->name, sizeof w->name);
        int st = calib_view_status_parse(json_string_value(json_object_get(e, "status")));
        w->status = st >= 0 ? (calib_view_status)st : CALIB_VIEW_NO_BOARD;
        w->rms = num(e, "rms_px");
    }
    if (n == 0) /* views left out (too many to keep) or none in the file: the count only */
        c->n_views = (int)json_integer_value(json_object_get(o, "n_views"));
    return 0;
}

static int stereo_quality(json_t *o, calib_stereo *s)
{
    memset(s, 0, sizeof *s);
    s->rms = num(o, "rms_px");
    s->epipolar = num(o, "epipolar_px");
    s->baseline = num(o, "baseline_m");
    s->baseline_std = num(o, "baseline_sd_m");
    s->n_pairs = (int)json_integer_value(json_object_get(o, "n_pairs"));
    s->n_used = (int)json_integer_value(json_object_get(o, "n_used"));
    s->verdict_ok = verdict_ok(o);
    verdict(o, s->verdict, sizeof s->verdict);
    json_t *cams = json_object_get(o, "cameras");
    for (int c = 0; c < 2; c++)
        if (camera_quality(json_array_get(cams, (size_t)c), &s->cam[c]))
            return -1;
    /* pairs: the report shows the cameras' per-view bars (the pairs' views) */
    return 0;
}

static void probe(json_t *o, capture_probe *p, int *dup_checked, int *flicker_checked)
{
    memset(p, 0, sizeof *p);
    capture_info *in = &p->info;
    str(o, "video", in->path, sizeof in->path);
    str(o, "codec", in->codec, sizeof in->codec);
    in->width = (int)json_integer_value(json_object_get(o, "width"));
    in->height = (int)json_integer_value(json_object_get(o, "height"));
    in->frames = (long)json_integer_value(json_object_get(o, "frames"));
    p->frames_decoded = (long)json_integer_value(json_object_get(o, "frames_tracked"));
    in->nominal_fps = num(o, "nominal_fps");
    in->capture_fps = num(o, "capture_fps");
    const char *from = json_string_value(json_object_get(o, "capture_fps_from"));
    in->capture_fps_from = !from                      ? CAPTURE_RATE_NOMINAL
                           : !strcmp(from, "metadata") ? CAPTURE_RATE_METADATA
                           : !strcmp(from, "user")     ? CAPTURE_RATE_USER
                           : !strcmp(from, "assumed")  ? CAPTURE_RATE_ASSUMED
                                                       : CAPTURE_RATE_NOMINAL;
    str(o, "capture_fps_key", in->capture_fps_key, sizeof in->capture_fps_key);
    json_t *t = json_object_get(o, "timing");
    p->timing.median_dt_s = num(t, "median_dt_s");
    p->timing.min_dt_s = num(t, "min_dt_s");
    p->timing.max_dt_s = num(t, "max_dt_s");
    p->timing.vfr = json_is_true(json_object_get(t, "vfr"));
    p->timing.dropped = long_array(json_object_get(t, "dropped_frames"), &p->timing.n_dropped);
    p->timing.missing = (long)json_integer_value(json_object_get(t, "missing"));
    p->lost = long_array(json_object_get(t, "lost_frames"), &p->n_lost);
    json_t *d = json_object_get(t, "duplicate_frames");
    *dup_checked = json_is_array(d);
    p->duplicates = long_array(d, &p->n_duplicates);
    json_t *fl = json_object_get(o, "flicker");
    *flicker_checked = json_is_object(fl);
    p->flicker.hz = *flicker_checked ? num(fl, "hz") : 0;
    p->flicker.alias_hz = num(fl, "alias_hz");
    p->flicker.amplitude = num(fl, "amplitude");
    p->flicker.snr = num(fl, "snr");
    json_t *fa = json_object_get(o, "flash");
    if (json_is_object(fa)) {
        p->has_flash = 1;
        p->flash.frame = (long)json_integer_value(json_object_get(fa, "frame"));
        p->flash.onset_frame = num(fa, "onset_frame");
        p->flash.onset_s = num(fa, "onset_s");
        p->flash.ratio = num(fa, "ratio");
        p->flash.baseline = num(fa, "baseline");
        p->flash.plateau = num(fa, "plateau");
    }
    /* the file keeps a window (the flash's 41 frames): the series is that window, not
     * frames_tracked long (a damaged file may state 1e8) */
    json_t *b = json_object_get(o, "brightness");
    json_t *v = json_object_get(b, "mean_gray");
    long k0 = (long)json_integer_value(json_object_get(b, "first_frame"));
    long n = (long)json_array_size(v);
    if (k0 + n > p->frames_decoded)
        n = p->frames_decoded - k0;
    if (json_is_object(b) && n > 0 && (p->brightness = malloc(sizeof *p->brightness * (size_t)n))) {
        p->brightness_first = k0;
        p->n_brightness = n;
        for (long k = 0; k < n; k++) {
            json_t *e = json_array_get(v, (size_t)k);
            p->brightness[k] = json_is_number(e) ? json_number_value(e) : NAN;
        }
    }
}

static void pose(json_t *o, icv_mat3 *R, icv_vec3 *t)
{
    json_t *r = json_object_get(o, "R"), *v = json_object_get(o, "t");
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            R->m[i][j] = json_number_value(json_array_get(json_array_get(r, (size_t)i), (size_t)j));
        icv_v3_set(t, i, json_number_value(json_array_get(v, (size_t)i)));
    }
}

static void intrinsics(json_t *o, calib_intrinsics *in)
{
    in->width = (int)json_integer_value(json_object_get(o, "width"));
    in->height = (int)json_integer_value(json_object_get(o, "height"));
    in->fx = num(o, "fx");
    in->fy = num(o, "fy");
    in->cx = num(o, "cx");
    in->cy = num(o, "cy");
    json_t *d = json_object_get(o, "dist");
    for (int k = 0; k < 5; k++)
        in->dist[k] = json_number_value(json_array_get(d, (size_t)k));
}

/* The frame numbers that size the brightness series or enter frame arithmetic (the
 * report's flash window): absent, or whole numbers in [0, ICV_MAX_FRAME_NUMBER]; the
 * name of the first that is not, else NULL. A damaged file asked for 8e15 bytes. */
static const char *bad_frame_number(json_t *cam)
{
    json_t *fa = json_object_get(cam, "flash"), *b = json_object_get(cam, "brightness");
    const struct {
        const char *name;
        json_t *v;
    } f[] = {{"frames", json_object_get(cam, "frames")},
             {"frames_tracked", json_object_get(cam, "frames_tracked")},
             {"flash.frame", json_object_get(fa, "frame")},
             {"brightness.first_frame", json_object_get(b, "first_frame")}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v && (!json_is_integer(f[i].v) || json_integer_value(f[i].v) < 0 ||
                       json_integer_value(f[i].v) > ICV_MAX_FRAME_NUMBER))
            return f[i].name;
    return NULL;
}

int report_track_info_read(const char *path, report_track_info *ti, icv_err *err)
{
    memset(ti, 0, sizeof *ti);
    json_t *root;
    int rc = report_json_load(path, "impactcv-track-info-1", "cameras", &root, err);
    if (rc)
        return rc;
    json_t *cams = json_object_get(root, "cameras");
    size_t nc = json_array_size(cams);
    ti->n_cameras = nc < ICV_MAX_CAMERAS ? (int)nc : ICV_MAX_CAMERAS;
    for (int c = 0; c < ti->n_cameras; c++) {
        const char *bad = bad_frame_number(json_array_get(cams, (size_t)c));
        if (bad) {
            json_decref(root);
            memset(ti, 0, sizeof *ti);
            return icv_err_set(err, ICV_EFORMAT, "%s: camera %d: %s not a frame number in [0, %d]", path, c, bad,
                               ICV_MAX_FRAME_NUMBER);
        }
    }
    for (int c = 0; c < ti->n_cameras; c++) {
        json_t *o = json_array_get(cams, (size_t)c);
        str(o, "id", ti->camera[c], sizeof ti->camera[c]);
        intrinsics(json_object_get(o, "intrinsics"), &ti->in[c]);
        pose(json_object_get(o, "pose"), &ti->R[c], &ti->t[c]);
        json_t *mv = json_object_get(json_object_get(o, "timing"), "duplicate_frames_in_motion");
        ti->duplicates_moving[c] = json_is_array(mv) ? (long)json_array_size(mv) : -1;
        probe(o, &ti->probe[c], &ti->duplicates_checked[c], &ti->flicker_checked[c]);
        json_t *off = json_object_get(o, "offset");
        ti->offset_initial_frames[c] = num(off, "initial_frames");
        ti->sync[c].offset_frames = num(off, "frames");
        ti->sync[c].offset_s = num(off, "s");
    }
    json_t *sy = json_object_get(root, "sync");
    str(sy, "source", ti->sync_source, sizeof ti->sync_source);
    ti->offset_refined = json_is_true(json_object_get(sy, "refined"));
    ti->offset_sigma_frames = num(sy, "offset_sigma_frames");
    ti->offset_residual_px = num(sy, "residual_px");
    for (int c = 0; c < ti->n_cameras; c++)
        ti->sync[c].manual = !strcmp(ti->sync_source, "sync.offsets");
    json_t *cal = json_object_get(root, "calibration");
    const char *file = json_string_value(json_object_get(cal, "file"));
    snprintf(ti->calib_source, sizeof ti->calib_source, "%s", file ? file : "board images");
    json_t *mono = json_object_get(cal, "mono"), *st = json_object_get(cal, "stereo");
    if (json_is_object(st)) {
        ti->has_stereo = 1;
        rc = stereo_quality(st, &ti->stereo);
    } else if (json_is_object(mono)) {
        ti->has_mono = 1;
        rc = camera_quality(mono, &ti->mono);
    }
    json_t *gs = json_object_get(root, "scale_from_gravity");
    ti->gravity_scale = json_is_object(gs) ? num(gs, "factor") : NAN;
    ti->gravity_scale_sd = json_is_object(gs) ? num(gs, "factor_sd") : NAN;
    json_t *ss = json_object_get(root, "scale_from_size");
    ti->size_scale = json_is_object(ss) ? num(ss, "factor") : NAN;
    ti->size_scale_sd = json_is_object(ss) ? num(ss, "factor_sd") : NAN;
    ti->size_diameter_px = json_is_object(ss) ? num(ss, "diameter_px") : NAN;
    json_t *tl = json_object_get(ss, "tilted");
    ti->size_tilt_fitted = json_is_boolean(tl);
    ti->size_tilted = json_is_true(tl);
    ti->size_tilt_deg = ti->size_tilt_fitted ? num(ss, "tilt_deg") : NAN;
    ti->size_tilt_sd_deg = ti->size_tilt_fitted ? num(ss, "tilt_sd_deg") : NAN;
    ti->size_pitch_deg = ti->size_tilt_fitted ? num(ss, "pitch_deg") : NAN;
    ti->size_pitch_sd_deg = ti->size_tilt_fitted ? num(ss, "pitch_sd_deg") : NAN;
    const char *from = json_string_value(json_object_get(ss, "tilt_from"));
    ti->size_tilt_from_verticals = from && !strcmp(from, "verticals_px");
    ti->size_focal_rel_sd = ti->size_tilt_fitted ? num(ss, "focal_rel_sd") : NAN;
    json_t *w = json_object_get(root, "warnings"), *e;
    size_t i;
    if (!rc && json_array_size(w) > 0 && !(ti->warnings = calloc(json_array_size(w), sizeof *ti->warnings)))
        rc = -1;
    json_array_foreach(w, i, e) if (!rc && json_is_string(e))
        snprintf(ti->warnings[ti->n_warnings++], sizeof ti->warnings[0], "%s", json_string_value(e));
    json_decref(root);
    if (rc) {
        report_track_info_free(ti);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    return 0;
}

void report_track_info_free(report_track_info *ti)
{
    for (int c = 0; c < ICV_MAX_CAMERAS; c++)
        capture_probe_free(&ti->probe[c]);
    calib_camera_free(&ti->mono);
    calib_stereo_free(&ti->stereo);
    free(ti->warnings);
    memset(ti, 0, sizeof *ti);
}
