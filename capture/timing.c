/* timing.c: frame times. The nominal rate is the container's; the capture rate is the
 * rate the sensor ran at (a 240 fps slow-motion clip is often saved for 30 fps playback).
 * Experiment clock = presentation time * nominal / capture (docs/conventions.md, "Time").
 * Also the timestamp forensics: variable frame rate and gaps (dropped frames). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture_internal.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of the n-1 intervals of ascending times (0 when n < 2). Sorts a copy in work. */
static double median_interval(const double *t, long n, double *work)
{
    if (n < 2)
        return 0.0;
    for (long i = 1; i < n; i++)
        work[i - 1] = t[i] - t[i - 1];
    qsort(work, (size_t)(n - 1), sizeof *work, cmp_double);
    long m = n - 1;
    return m % 2 ? work[m / 2] : 0.5 * (work[m / 2 - 1] + work[m / 2]);
}

/* A metadata key that states a capture rate: Android's "com.android.capture.fps", and
 * any other "...capture...fps/framerate..." tag (Apple and camera vendors use variants). */
static int is_capture_rate_key(const char *key)
{
    char k[128];
    size_t i = 0;
    for (; key[i] && i < sizeof k - 1; i++)
        k[i] = (char)tolower((unsigned char)key[i]);
    k[i] = '\0';
    return strstr(k, "capture") && (strstr(k, "fps") || strstr(k, "framerate") || strstr(k, "frame-rate") ||
                                    strstr(k, "frame_rate") || strstr(k, "frame.rate"));
}

static int find_capture_tag(const AVDictionary *m, capture_info *info)
{
    const AVDictionaryEntry *e = NULL;
    while ((e = av_dict_get(m, "", e, AV_DICT_IGNORE_SUFFIX))) {
        if (!is_capture_rate_key(e->key))
            continue;
        char *end;
        double v = strtod(e->value, &end);
        if (end != e->value && isfinite(v) && v > 0 && v < 1e7) {
            info->capture_fps = v;
            info->capture_fps_from = CAPTURE_RATE_METADATA;
            snprintf(info->capture_fps_key, sizeof info->capture_fps_key, "%s", e->key);
            return 1;
        }
    }
    return 0;
}

/* A constant-rate video in a coarse time base (240 fps in Matroska's 1 ms: 4 or 5 ms
 * steps) holds each frame's time rounded to the tick. When every time lies within half
 * a tick of a whole number of nominal periods (gaps allowed), those are the times the
 * camera took the frames: use them, rather than an error of up to half a tick (0.5 ms,
 * an eighth of a frame at 240 fps). Anything else (VFR, jitter) is left as it is. */
static void snap_to_nominal_grid(capture_source *s)
{
    double period = 1.0 / s->info.nominal_fps, tick = s->tick_s;
    if (s->info.is_image_sequence || s->n < 2 || !(tick > 1e-6 * period) || tick >= period)
        return;
    double half = 0.5 * tick + 1e-9 * period;
    long prev = -1;
    for (long i = 0; i < s->n; i++) {
        long k = lround(s->pts_s[i] / period);
        if (k <= prev || fabs(s->pts_s[i] - (double)k * period) > half)
            return;
        prev = k;
    }
    for (long i = 0; i < s->n; i++)
        s->pts_s[i] = (double)lround(s->pts_s[i] / period) * period;
}

void capture_rate_resolve(capture_source *s, const AVDictionary *format_meta, const AVDictionary *stream_meta)
{
    capture_info *in = &s->info;
    double *work = malloc((size_t)(s->n > 1 ? s->n : 1) * sizeof *work);
    double med = work ? median_interval(s->pts_s, s->n, work) : 0.0;
    free(work);
    if (in->nominal_fps <= 0 && s->fmt) {
        AVStream *st = s->fmt->streams[s->stream];
        AVRational r = st->avg_frame_rate.num && st->avg_frame_rate.den ? st->avg_frame_rate : st->r_frame_rate;
        if (r.num > 0 && r.den > 0)
            in->nominal_fps = av_q2d(r);
    }
    if (in->nominal_fps <= 0 || !isfinite(in->nominal_fps))
        in->nominal_fps = med > 0 ? 1.0 / med : 25.0;
    snap_to_nominal_grid(s);

    if (s->opt.capture_fps > 0) {
        in->capture_fps = s->opt.capture_fps;
        in->capture_fps_from = CAPTURE_RATE_USER;
    } else if (!find_capture_tag(stream_meta, in) && !find_capture_tag(format_meta, in)) {
        in->capture_fps = in->nominal_fps;
        if (in->capture_fps_from != CAPTURE_RATE_ASSUMED)
            in->capture_fps_from = CAPTURE_RATE_NOMINAL;
    }
    in->time_scale = in->nominal_fps / in->capture_fps;
    if (in->capture_fps_from == CAPTURE_RATE_ASSUMED || in->is_image_sequence)
        in->time_scale = 1.0; /* image sequences are timed at the capture rate itself */
    in->frames = s->n;
    double period = med > 0 ? med : 1.0 / in->nominal_fps;
    in->duration_s = (s->pts_s[s->n - 1] + period) * in->time_scale;
}

void capture_timing_analyze(const double *t, long n, double tick_s, long *dropped, capture_timing *out)
{
    memset(out, 0, sizeof *out);
    out->dropped = dropped;
    if (n < 2)
        return;
    double *work = malloc((size_t)n * sizeof *work);
    if (!work)
        return;
    double med = median_interval(t, n, work);
    free(work);
    out->median_dt_s = med;
    out->min_dt_s = INFINITY;
    out->max_dt_s = 0.0;
    /* Regular: within 1.5 ticks (timestamps are rounded to the time base, e.g. 4 or 5 ms
     * for 240 fps in a 1 ms Matroska time base) plus 1 % of the interval (rate jitter a
     * player would not notice). */
    double tol = 1.5 * tick_s + 0.01 * med;
    for (long i = 1; i < n; i++) {
        double dt = t[i] - t[i - 1];
        if (dt < out->min_dt_s)
            out->min_dt_s = dt;
        if (dt > out->max_dt_s)
            out->max_dt_s = dt;
        if (med > 0 && dt > 1.5 * med + tol) {
            /* a gap: at least one frame period missing */
            dropped[out->n_dropped++] = i;
            long k = lround(dt / med) - 1;
            out->missing += k > 0 ? k : 1;
            /* a gap not a whole number of periods is also irregular timing */
            if (fabs(dt - (double)(k + 1) * med) > tol + 0.25 * med)
                out->vfr = 1;
        } else if (fabs(dt - med) > tol) {
            out->vfr = 1;
        }
    }
}
