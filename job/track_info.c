/* track_info.c: what the report needs from the track stage, left in DIR beside the
 * tracks (docs/pipeline.md, "track_info.json"), so that a report made later from the
 * folder shows the sync, timing and calibration sections of a real run:
 *  - per camera: the video's timing (capture rate and where it came from, VFR,
 *    dropped, lost and duplicated frames, mains flicker), the mean brightness around
 *    the flash, the flash, the offset (whole frame from the flash or as given, and the
 *    one used), the camera model the tracks were made with (intrinsics, the surface
 *    frame's pose in the camera);
 *  - the sub-frame offset refined from the motion with its 1-sigma;
 *  - the calibration's quality (per-view errors, coverage map, verdict; for a
 *    calibration file, what the file holds);
 *  - DIR/predicted2d_<camera>.csv: the tracker's predicted position of every point.
 * Everything comes from what the job already has (no second decoding pass: the
 * duplicated frames too were found in the job's one pass, track_2d.c). One call from
 * track_write.c once the contract's files are written; the quality of a calibration
 * made from board images is kept on the way (job_track_info_keep_*), as JSON, in the
 * job's track_calibration. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job/job_track_internal.h"

#define JSON_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *nums(const double *x, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, num(x[i]));
    return a;
}

static json_t *longs(const long *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(x[i]));
    return a;
}

static json_t *mat3(const double m[3][3])
{
    json_t *a = json_array();
    for (int i = 0; i < 3; i++)
        json_array_append_new(a, nums(m[i], 3));
    return a;
}

/* a verdict's lines as an array of strings */
static json_t *lines(const char *v)
{
    json_t *a = json_array();
    while (v && *v) {
        size_t n = strcspn(v, "\n");
        char line[CALIB_VERDICT_MAX];
        snprintf(line, sizeof line, "%.*s", (int)n, v);
        if (n > 0)
            json_array_append_new(a, json_string(line));
        v += n + (v[n] == '\n');
    }
    return a;
}

static json_t *verdict_ok(int ok) { return ok < 0 ? json_null() : json_boolean(ok); }

/* ---- calibration quality --------------------------------------------------- */

static json_t *camera_quality(const calib_camera *c, int with_views)
{
    json_t *o = json_object();
    json_object_set_new(o, "rms_px", num(c->rms));
    json_object_set_new(o, "n_views", json_integer(c->n_views));
    json_object_set_new(o, "n_used", json_integer(c->n_used));
    json_object_set_new(o, "coverage", num(c->coverage));
    if (isfinite(c->coverage)) {
        json_t *m = json_array();
        for (int j = 0; j < CALIB_COV_ROWS; j++) {
            json_t *row = json_array();
            for (int i = 0; i < CALIB_COV_COLS; i++)
                json_array_append_new(row, json_integer(c->coverage_map[j][i]));
            json_array_append_new(m, row);
        }
        json_object_set_new(o, "coverage_map", m);
    }
    json_object_set_new(o, "verdict_ok", verdict_ok(c->verdict_ok));
    json_object_set_new(o, "verdict", lines(c->verdict));
    json_t *v = json_array();
    for (int i = 0; with_views && i < c->n_views; i++)
        json_array_append_new(v, json_pack("{s:s, s:s, s:o}", "name", c->views[i].name, "status",
                                           calib_view_status_name(c->views[i].status), "rms_px",
                                           num(c->views[i].rms)));
    json_object_set_new(o, "views", v);
    if (!with_views && c->n_views > 0)
        json_object_set_new(o, "views_left_out", json_true());
    return o;
}

static json_t *stereo_quality(const calib_stereo *s, int with_views)
{
    json_t *o = json_object();
    json_object_set_new(o, "rms_px", num(s->rms));
    json_object_set_new(o, "epipolar_px", num(s->epipolar));
    json_object_set_new(o, "baseline_m", num(s->baseline));
    json_object_set_new(o, "baseline_sd_m", num(s->baseline_std));
    json_object_set_new(o, "n_pairs", json_integer(s->n_pairs));
    json_object_set_new(o, "n_used", json_integer(s->n_used));
    json_object_set_new(o, "verdict_ok", verdict_ok(s->verdict_ok));
    json_object_set_new(o, "verdict", lines(s->verdict));
    json_t *p = json_array();
    for (int i = 0; with_views && i < s->n_pairs; i++) {
        const calib_pair *q = &s->pairs[i];
        json_array_append_new(p, json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "name1", q->name1, "name2", q->name2,
                                           "status", calib_view_status_name(q->status), "rms1_px", num(q->rms1),
                                           "rms2_px", num(q->rms2), "epipolar_px", num(q->epipolar)));
    }
    json_object_set_new(o, "pairs", p);
    if (!with_views && s->n_pairs > 0)
        json_object_set_new(o, "views_left_out", json_true());
    json_object_set_new(o, "cameras", json_pack("[o, o]", camera_quality(&s->cam[0], with_views),
                                                  camera_quality(&s->cam[1], with_views)));
    return o;
}

/* {"mono": q} or {"stereo": q}: with every view when that fits in cal->quality_json,
 * else without the views (marked views_left_out) */
static void keep(track_calibration *cal, const calib_camera *cam, const calib_stereo *st)
{
    cal->quality_json[0] = 0;
    for (int with = 1; with >= 0; with--) {
        json_t *o = json_object();
        json_object_set_new(o, st ? "stereo" : "mono", st ? stereo_quality(st, with) : camera_quality(cam, with));
        char *t = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        json_decref(o);
        int fits = t && strlen(t) < sizeof cal->quality_json;
        if (fits)
            snprintf(cal->quality_json, sizeof cal->quality_json, "%s", t);
        free(t);
        if (fits)
            return;
    }
}

void job_track_info_keep_camera(track_calibration *cal, const calib_camera *cam) { keep(cal, cam, NULL); }

void job_track_info_keep_stereo(track_calibration *cal, const calib_stereo *st) { keep(cal, NULL, st); }

/* The calibration section: source, and the quality kept from board images or read
 * from the calibration file (what it holds). */
static int calibration_json(const icv_experiment *exp, const track_calibration *cal, json_t *root, json_t *warn,
                            icv_err *err)
{
    json_t *o = json_object(), *q = NULL;
    json_object_set_new(root, "calibration", o);
    int from_file = exp->calib_file[0] != 0;
    json_object_set_new(o, "source", json_string(from_file ? "file" : "board images"));
    json_object_set_new(o, "file", from_file ? json_string(exp->calib_file) : json_null());
    if (from_file) {
        calib_stereo st;
        calib_camera cam;
        int rc = exp->n_cameras >= 2 ? calib_stereo_file_read(exp->calib_file, &st, err)
                                     : calib_camera_file_read(exp->calib_file, &cam, err);
        if (rc)
            return icv_err_prefix(err, "calibration quality: ");
        q = json_object();
        if (exp->n_cameras >= 2) {
            json_object_set_new(q, "stereo", stereo_quality(&st, 1));
            calib_stereo_free(&st);
        } else {
            json_object_set_new(q, "mono", camera_quality(&cam, 1));
            calib_camera_free(&cam);
        }
    } else if (cal->quality_json[0]) {
        json_error_t je;
        q = json_loads(cal->quality_json, 0, &je);
    }
    json_t *mono = q ? json_object_get(q, "mono") : NULL, *stereo = q ? json_object_get(q, "stereo") : NULL;
    json_object_set(o, "mono", mono ? mono : json_null());
    json_object_set(o, "stereo", stereo ? stereo : json_null());
    /* the surface frame's own uncertainty as calib gives it (the board's corners'
       scatter about their plane, stereo only): analysis propagates it (calib_sd.c) */
    const char *surf_from = exp->surface_kind == ICV_SURFACE_IMAGES  ? "board images"
                            : exp->surface_kind == ICV_SURFACE_PLANE ? "plane"
                            : exp->surface_kind == ICV_SURFACE_LINE_PX ? "line_px"
                                                                       : "file";
    const double *tsd = cal->surf.turn_sd;
    json_object_set_new(o, "surface",
                        json_pack("{s:s, s:o, s:i, s:o, s:o}", "from", surf_from, "plane_rms_m",
                                  cal->surf.plane_rms > 0 ? num(cal->surf.plane_rms) : json_null(), "n_points",
                                  cal->surf.n_points, "turn_sd_rad",
                                  tsd[0] > 0 ? json_pack("[fff]", tsd[0], tsd[1], tsd[2]) : json_null(), "offset_sd_m",
                                  cal->surf.offset_sd > 0 ? num(cal->surf.offset_sd) : json_null()));
    json_t *main = stereo ? stereo : mono;
    if (main && json_is_false(json_object_get(main, "verdict_ok"))) {
        /* the summary line, then why: every line that judges something bad (a
           camera's coverage, its RMS), which is what the user acts on */
        json_t *v = json_object_get(main, "verdict");
        const char *first = json_string_value(json_array_get(v, 0));
        char w[1500];
        int m = snprintf(w, sizeof w, "calibration%s: judged not usable (%s)", stereo ? " (stereo)" : "",
                         first ? first : "see the verdict");
        for (size_t k = 1; k < json_array_size(v) && m > 0 && m < (int)sizeof w; k++) {
            const char *line = json_string_value(json_array_get(v, k));
            if (line && strstr(line, "bad:"))
                m += snprintf(w + m, sizeof w - (size_t)m, "; %s", line);
        }
        json_array_append_new(warn, json_string(w));
    }
    json_decref(q);
    return 0;
}

/* ---- per camera --------------------------------------------------------------- */

static const char *rate_from(capture_rate_source s)
{
    switch (s) {
    case CAPTURE_RATE_METADATA: return "metadata";
    case CAPTURE_RATE_USER: return "user";
    case CAPTURE_RATE_ASSUMED: return "assumed";
    default: return "nominal";
    }
}

static void warnf(json_t *warn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(json_t *warn, const char *fmt, ...)
{
    char w[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w, sizeof w, fmt, ap);
    va_end(ap);
    json_array_append_new(warn, json_string(w));
}

const char *job_track_gap_why(job_track_gap_kind k)
{
    switch (k) {
    case JOB_TRACK_GAP_OCCLUDED: return "occluded (others seen nearby)";
    case JOB_TRACK_GAP_OUT_OF_IMAGE: return "out of the image";
    case JOB_TRACK_GAP_MERGED: return "merged with another marker's blob";
    default: return "not found";
    }
}

const char *job_track_gap_format(const char *camera_id, const job_track_gap *g, char *buf, size_t n)
{
    long len = g->last - g->first + 1;
    snprintf(buf, n, "camera '%s': marker %d missing in frame%s %ld%s%.0ld (%ld frame%s%s): %s", camera_id, g->marker,
             len > 1 ? "s" : "", g->first, len > 1 ? "-" : "", len > 1 ? g->last : 0L, len, len > 1 ? "s" : "",
             g->to_end ? ", to the clip's end" : ", found again with its identity", job_track_gap_why(g->kind));
    return buf;
}

/* "3, 17, 40" (the first few) */
static void frame_list(const long *v, size_t n, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (size_t i = 0; i < n && len + 24 < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%ld", i ? ", " : "", v[i]);
    if (n > 0 && len + 24 >= cap)
        snprintf(out + len, cap - len, ", ...");
}

/* the camera model the tracks were made with: x_cam = R x_surface + t */
static void camera_model_json(const track_calibration *cal, int c, json_t *o)
{
    const calib_intrinsics *in = &cal->in[c];
    json_object_set_new(o, "intrinsics",
                        json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o}", "width", in->width, "height", in->height, "fx",
                                  num(in->fx), "fy", num(in->fy), "cx", num(in->cx), "cy", num(in->cy), "dist",
                                  nums(in->dist, 5)));
    icv_mat3 R = cal->surf.R;
    icv_vec3 t = cal->surf.t;
    if (c >= 1) { /* x_c = R_c x_1 + T_c */
        icv_mat3 Rc;
        memcpy(Rc.m, cal->R[c], sizeof Rc.m);
        R = icv_m3_mul(Rc, cal->surf.R);
        t = icv_v3_add(icv_m3_apply(Rc, cal->surf.t), icv_v3_from_array(cal->T[c]));
    }
    double ta[3];
    icv_v3_to_array(t, ta);
    json_object_set_new(o, "pose", json_pack("{s:o, s:o}", "R", mat3(R.m), "t", nums(ta, 3)));
}

/* timing from the index and the decoder: "timing" in o, its warnings */
static void camera_timing_json(const icv_camera_spec *spec, const job_track_info_camera *pc, long n, long *dropped,
                               json_t *o, json_t *warn)
{
    capture_timing tm;
    capture_timing_analyze(capture_source_pts(pc->src), n, capture_source_tick(pc->src), dropped, &tm);
    const long *lost;
    size_t n_lost;
    capture_source_lost(pc->src, &lost, &n_lost);
    json_t *tj = json_object();
    json_object_set_new(o, "timing", tj);
    json_object_set_new(tj, "median_dt_s", num(tm.median_dt_s));
    json_object_set_new(tj, "min_dt_s", num(tm.min_dt_s));
    json_object_set_new(tj, "max_dt_s", num(tm.max_dt_s));
    json_object_set_new(tj, "vfr", json_boolean(tm.vfr));
    json_object_set_new(tj, "dropped_frames", longs(tm.dropped, tm.n_dropped));
    json_object_set_new(tj, "missing", json_integer(tm.missing));
    json_object_set_new(tj, "lost_frames", longs(lost, n_lost));
    char list[200];
    if (tm.vfr)
        warnf(warn, "camera '%s': variable frame rate (intervals %.3f to %.3f ms)", spec->id, 1e3 * tm.min_dt_s,
              1e3 * tm.max_dt_s);
    if (tm.n_dropped) {
        frame_list(tm.dropped, tm.n_dropped, list, sizeof list);
        warnf(warn, "camera '%s': %ld frame(s) missing from the timestamps (gaps before frame %s)", spec->id,
              tm.missing, list);
    }
    if (n_lost) {
        frame_list(lost, n_lost, list, sizeof list);
        warnf(warn, "camera '%s': %zu frame(s) could not be decoded (%s)", spec->id, n_lost, list);
    }
}

/* From each frame's brightness (pc->bright, kept for a flash sync): the duplicated
 * frames into the timing object tj, the flicker, the flash and the brightness round it
 * into o; nulls without it */
static int camera_brightness_json(const icv_camera_spec *spec, const capture_info *info,
                                  const job_track_info_camera *pc, long n, const double *tcam, json_t *o, json_t *tj,
                                  json_t *warn, icv_err *err)
{
    if (!pc->bright) {
        json_object_set_new(tj, "duplicate_frames", json_null());
        json_object_set_new(tj, "duplicate_frames_in_motion", json_null());
        json_object_set_new(tj, "duplicates_checked",
                            json_string("not checked: the track stage keeps each frame's brightness only for "
                                        "a flash sync of two cameras (impactcv probe VIDEO checks them)"));
        json_object_set_new(o, "flicker", json_null());
        json_object_set_new(o, "flash", json_null());
        json_object_set_new(o, "brightness", json_null());
        return 0;
    }
    json_object_set_new(tj, "duplicate_frames", longs(pc->dup, pc->n_dup));
    json_object_set_new(tj, "duplicates_checked",
                        json_string("frames with the brightness of their predecessor, compared pixel by pixel"));
    /* a warning only for those while the markers move: a still scene's equal frames
     * are the encoder's skipped blocks (duplicate_motion.c) */
    long *moving = malloc(sizeof *moving * (pc->n_dup + 1));
    if (!moving)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    size_t n_moving = track_duplicates_in_motion(pc->raw, pc->n_raw, pc->dup, pc->n_dup, 1.0, moving);
    json_object_set_new(tj, "duplicate_frames_in_motion", longs(moving, n_moving));
    if (n_moving) {
        char list[200];
        frame_list(moving, n_moving, list, sizeof list);
        warnf(warn,
              "camera '%s': %zu duplicated frame(s) while the markers move (%s): the video repeats them; their "
              "times are wrong",
              spec->id, n_moving, list);
    }
    free(moving);

    capture_flicker fl;
    capture_flicker_detect(tcam, pc->bright, n, info->capture_fps, &fl);
    json_object_set_new(o, "flicker", json_pack("{s:o, s:o, s:o, s:o}", "hz", num(fl.hz), "alias_hz",
                                                num(fl.alias_hz), "amplitude", num(fl.amplitude), "snr", num(fl.snr)));
    if (fl.hz > 0)
        warnf(warn, "camera '%s': mains flicker at %.0f Hz (%.1f gray levels)", spec->id, fl.hz, fl.amplitude);

    capture_flash fa; /* as track_sync.c found it: the same series, the same call */
    if (capture_flash_detect(pc->bright, tcam, n, 0, &fa)) {
        json_object_set_new(o, "flash", json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "frame", (json_int_t)fa.frame,
                                                  "onset_frame", num(fa.onset_frame), "onset_s", num(fa.onset_s),
                                                  "ratio", num(fa.ratio), "baseline", num(fa.baseline), "plateau",
                                                  num(fa.plateau)));
        long k0 = fa.frame - 20 > 0 ? fa.frame - 20 : 0, k1 = fa.frame + 20 < n - 1 ? fa.frame + 20 : n - 1;
        json_object_set_new(o, "brightness", json_pack("{s:I, s:o}", "first_frame", (json_int_t)k0, "mean_gray",
                                                       nums(pc->bright + k0, (int)(k1 - k0 + 1))));
    } else {
        json_object_set_new(o, "flash", json_null());
        json_object_set_new(o, "brightness", json_null());
    }
    return 0;
}

/* pictures stored again (re-encoded copies: found from the tracks), dropped */
static void camera_repeats_json(const icv_camera_spec *spec, const capture_info *info,
                                const job_track_info_camera *pc, json_t *o, json_t *warn)
{
    json_object_set_new(o, "repeated_pictures", longs(pc->repeat, pc->n_repeat));
    json_object_set_new(o, "stored_times", num(pc->stored_times));
    if (!pc->n_repeat)
        return;
    char list[512];
    frame_list(pc->repeat, pc->n_repeat, list, sizeof list);
    if (pc->stored_times >= 1.75)
        warnf(warn,
              "camera '%s': every picture is stored %.0f times while the markers move: the real rate is %.4g "
              "pictures/s, not %.4g; the %zu repeats (frames %s) are left out of the tracks",
              spec->id, round(pc->stored_times), info->capture_fps / round(pc->stored_times), info->capture_fps,
              pc->n_repeat, list);
    else
        warnf(warn,
              "camera '%s': %zu frame(s) repeat the picture before them while the markers move (%s): left out "
              "of the tracks (their times would be a frame late)",
              spec->id, pc->n_repeat, list);
}

/* the markers' gaps: each listed, the first few warned (the rest counted) */
static void camera_gaps_json(const icv_camera_spec *spec, const job_track_info_camera *pc, json_t *o, json_t *warn)
{
    json_t *gj = json_array();
    long more_frames = 0;
    for (size_t i = 0; i < pc->n_gaps; i++) {
        const job_track_gap *g = &pc->gaps[i];
        json_array_append_new(gj, json_pack("{s:i, s:i, s:I, s:I, s:I, s:b, s:s}", "marker", g->marker, "track",
                                            g->track, "first_frame", (json_int_t)g->first, "last_frame",
                                            (json_int_t)g->last, "frames", (json_int_t)(g->last - g->first + 1),
                                            "to_end", g->to_end, "why", job_track_gap_why(g->kind)));
        char line[512];
        if (i < JOB_TRACK_GAPS_WARNED)
            warnf(warn, "%s", job_track_gap_format(spec->id, g, line, sizeof line));
        else
            more_frames += g->last - g->first + 1;
    }
    if (pc->n_gaps > JOB_TRACK_GAPS_WARNED)
        warnf(warn, "camera '%s': %zu more gaps in the markers' tracks (%ld frames; track_info.json cameras[].gaps "
                    "lists each)",
              spec->id, pc->n_gaps - JOB_TRACK_GAPS_WARNED, more_frames);
    json_object_set_new(o, "gaps", gj);
}

static int camera_json(const icv_experiment *exp, const track_calibration *cal, const job_track_result *res, int c,
                       const job_track_info_camera *pc, json_t *cams, json_t *warn, icv_err *err)
{
    const icv_camera_spec *spec = &exp->cameras[c];
    const capture_info *info = capture_source_info(pc->src);
    long n = res->frames[c];
    json_t *o = json_object();
    json_array_append_new(cams, o);
    json_object_set_new(o, "id", json_string(spec->id));
    json_object_set_new(o, "video", json_string(spec->video));
    json_object_set_new(o, "codec", json_string(info->codec));
    json_object_set_new(o, "width", json_integer(info->width));
    json_object_set_new(o, "height", json_integer(info->height));
    json_object_set_new(o, "frames", json_integer(info->frames));
    json_object_set_new(o, "frames_tracked", json_integer(n));
    json_object_set_new(o, "nominal_fps", num(info->nominal_fps));
    json_object_set_new(o, "capture_fps", num(info->capture_fps));
    json_object_set_new(o, "capture_fps_from", json_string(rate_from(info->capture_fps_from)));
    json_object_set_new(o, "capture_fps_key", json_string(info->capture_fps_key));
    if (info->capture_fps_from == CAPTURE_RATE_ASSUMED)
        warnf(warn, "camera '%s': capture rate assumed %.6g fps (an image sequence without a rate): set "
                    "cameras[].capture_fps",
              spec->id, info->capture_fps);
    camera_model_json(cal, c, o);

    long *dropped = malloc(sizeof *dropped * (size_t)(n + 1));
    double *tcam = malloc(sizeof *tcam * (size_t)(n + 1));
    int rc = 0;
    if (!dropped || !tcam) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto done;
    }
    for (long k = 0; k < n; k++)
        tcam[k] = capture_source_time(pc->src, k);
    camera_timing_json(spec, pc, n, dropped, o, warn);
    if ((rc = camera_brightness_json(spec, info, pc, n, tcam, o, json_object_get(o, "timing"), warn, err)))
        goto done;
    camera_repeats_json(spec, info, pc, o, warn);
    double off_s = res->offset_frames[c] / info->capture_fps;
    json_object_set_new(o, "offset", json_pack("{s:o, s:o, s:o}", "initial_frames", num(res->offset_initial_frames[c]),
                                               "frames", num(res->offset_frames[c]), "s", num(off_s)));
    camera_gaps_json(spec, pc, o, warn);
    json_object_set_new(o, "points2d", json_integer(res->points2d[c]));
    json_object_set_new(o, "identities", json_integer(res->identities[c]));
    char name[ICV_ID_MAX + 32];
    snprintf(name, sizeof name, "predicted2d_%s.csv", spec->id);
    json_object_set_new(o, "predicted2d", json_string(name));
done:
    free(dropped);
    free(tcam);
    return rc;
}

/* DIR/predicted2d_<camera>.csv: frame,track,u_px,v_px,pred_u_px,pred_v_px,flags; u, v
 * empty where nothing was measured (coasted, merged), as in tracks2d */
static int predicted_write(const char *path, const job_track_info_camera *pc, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc)
        return rc;
    fputs("frame,track,u_px,v_px,pred_u_px,pred_v_px,flags\n", af.fp);
    for (long i = 0; i < pc->n_raw; i++) {
        const track_raw_point *p = &pc->raw[i];
        char flags[128];
        track_flags_format(p->flags, flags, sizeof flags);
        if (p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED))
            fprintf(af.fp, "%ld,%d,,,%.4f,%.4f,%s\n", p->frame, p->id, p->pred_u, p->pred_v, flags);
        else
            fprintf(af.fp, "%ld,%d,%.4f,%.4f,%.4f,%.4f,%s\n", p->frame, p->id, p->u, p->v, p->pred_u, p->pred_v, flags);
    }
    if (ferror(af.fp)) {
        icv_atomic_abort(&af);
        return icv_err_set(err, ICV_EIO, "%s: write failed", path);
    }
    return icv_atomic_commit(&af, err);
}

int job_track_info_write(const char *out_dir, const icv_experiment *exp, const track_calibration *cal,
                         const job_track_result *res, const job_track_info_camera *cams, icv_err *err)
{
    double t0 = icv_now();
    char written[ICV_MAX_CAMERAS + 1][ICV_PATH_MAX];
    int n_written = 0, rc = 0, nc = exp->n_cameras;
    json_t *root = json_object(), *jc = json_array(), *warn = json_array();
    json_object_set_new(root, "schema", json_string("impactcv-track-info-1"));
    json_object_set_new(root, "experiment", json_string(exp->name));
    json_object_set_new(root, "planar", json_boolean(res->planar));
    track_gravity_scale_json(cal, root); /* one camera, scale: gravity (gravity_scale.c) */
    job_track_size_scale_json(cal, root);    /* one camera, scale: size (track_size_scale.c) */
    json_object_set_new(root, "cameras", jc);
    for (int c = 0; c < nc && !rc; c++) {
        char name[ICV_ID_MAX + 32];
        snprintf(name, sizeof name, "predicted2d_%s.csv", exp->cameras[c].id);
        if (!(rc = icv_path_join(written[n_written], ICV_PATH_MAX, out_dir, name, err)) &&
            !(rc = predicted_write(written[n_written], &cams[c], err)))
            n_written++;
        if (!rc)
            rc = camera_json(exp, cal, res, c, &cams[c], jc, warn, err);
    }
    json_object_set_new(root, "sync", json_pack("{s:s, s:b, s:o, s:o}", "source", res->sync_source, "refined",
                                                res->offset_refined, "offset_sigma_frames",
                                                res->offset_refined ? num(res->offset_sigma_frames) : json_null(),
                                                "residual_px",
                                                res->offset_refined ? num(res->offset_residual_px) : json_null()));
    for (int k = 1; k < nc; k++)
        if (!res->offset_refined_each[k] && strcmp(res->sync_source, "sync.offsets"))
            warnf(warn, "the sub-frame offset was not refined from the motion (too little of it seen by both "
                        "cameras): camera '%s' uses %.3f frames from %s",
                  exp->cameras[k].id, res->offset_frames[k], res->sync_source);
    if (!rc)
        rc = calibration_json(exp, cal, root, warn, err);
    json_object_set_new(root, "tracking",
                        json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:I, s:I, s:o}", "rows3d",
                                  (json_int_t)res->rows3d,
                                  "points3d", (json_int_t)res->points3d, "outliers3d", (json_int_t)res->outliers3d,
                                  "interpolated3d", (json_int_t)res->interpolated3d, "one_view3d",
                                  (json_int_t)res->one_view3d, "residual_rms_px",
                                  num(res->residual_rms_px), "sigma_scale", num(res->sigma_scale), "band_corrected",
                                  (json_int_t)res->band_corrected, "swaps_repaired", (json_int_t)res->swaps_repaired,
                                  "template_rms_m", num(res->template_rms_m)));
    json_object_set_new(root, "warnings", warn);
    if (!rc) {
        char *text = json_dumps(root, JSON_FLAGS);
        if (!text)
            rc = icv_err_set(err, ICV_ENOMEM, "track_info.json: out of memory");
        if (!rc && !(rc = icv_path_join(written[n_written], ICV_PATH_MAX, out_dir, "track_info.json", err)))
            rc = icv_atomic_write(written[n_written], text, strlen(text), err);
        free(text);
    }
    json_decref(root);
    if (rc)
        for (int i = 0; i < n_written; i++)
            unlink(written[i]);
    icv_debug("timing: track_info.json and predicted2d files %.3f s", icv_now() - t0);
    return rc;
}
