/* probe.c: one pass over a video that gathers everything capture knows about it:
 * frame count and rates, per-frame times and mean brightness, timing faults (VFR,
 * duplicates, drops, lost frames), mains flicker and the flash. Writes the contract's
 * probe object (../shared/spec/contract.md, "probe --json") and a human summary. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"

void capture_probe_free(capture_probe *p)
{
    free(p->pts_s);
    free(p->time_s);
    free(p->brightness);
    free(p->timing.dropped);
    free(p->duplicates);
    free(p->lost);
    memset(p, 0, sizeof *p);
}

/* The near-duplicates joined to the exact ones (ascending, once each). */
static void merge_near_duplicates(capture_probe *p, const double *chg_max, const double *chg_tail, long n, long *near)
{
    size_t nn =
        capture_near_duplicates(chg_max, chg_tail, n, near, &p->change_threshold, &p->stored_times, &p->still);
    long *all = malloc(sizeof *all * (p->n_duplicates + nn + 1));
    if (!all)
        return;
    size_t a = 0, b = 0, k = 0, added = 0;
    while (a < p->n_duplicates || b < nn) {
        long x = b >= nn || (a < p->n_duplicates && p->duplicates[a] <= near[b]) ? p->duplicates[a] : near[b];
        int from_exact = a < p->n_duplicates && p->duplicates[a] == x;
        if (from_exact)
            a++;
        while (b < nn && near[b] == x)
            b++, added += !from_exact;
        all[k++] = x;
    }
    memcpy(p->duplicates, all, k * sizeof *all);
    p->n_duplicates = k;
    p->n_near_duplicates = added;
    free(all);
}

int capture_probe_run(const char *path, const capture_options *opt, capture_probe *p, icv_err *err)
{
    memset(p, 0, sizeof *p);
    capture_source *src;
    int rc = capture_source_open(&src, path, opt, err);
    if (rc)
        return rc;
    p->info = *capture_source_info(src);
    long n = p->info.frames;
    capture_frame f = {0};
    capture_dup_detector dup = {0};
    long *dropped = malloc((size_t)n * sizeof *dropped);
    p->pts_s = malloc((size_t)n * sizeof *p->pts_s);
    p->time_s = malloc((size_t)n * sizeof *p->time_s);
    p->brightness = malloc((size_t)n * sizeof *p->brightness);
    p->n_brightness = p->brightness ? n : 0;
    p->duplicates = malloc((size_t)n * sizeof *p->duplicates);
    p->lost = malloc((size_t)n * sizeof *p->lost);
    if (!dropped || !p->pts_s || !p->time_s || !p->brightness || !p->duplicates || !p->lost) {
        free(dropped);
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    p->timing.dropped = dropped;
    double *chg_max = malloc(sizeof *chg_max * (size_t)(n + 1)), *chg_tail = malloc(sizeof *chg_tail * (size_t)(n + 1));
    long *near = malloc(sizeof *near * (size_t)(n + 1));
    capture_change_meter meter = {0};
    if (!chg_max || !chg_tail || !near) {
        free(chg_max), free(chg_tail), free(near);
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    if ((rc = capture_frame_alloc(&f, &p->info, err)) || (rc = capture_dup_init(&dup, &p->info, err)) ||
        (rc = capture_change_init(&meter, &p->info, err))) {
        free(chg_max), free(chg_tail), free(near);
        goto fail;
    }
    for (long i = 0; i < n; i++)
        chg_max[i] = chg_tail[i] = NAN;
    for (long i = 0; i < n; i++) {
        p->pts_s[i] = capture_source_pts(src)[i];
        p->time_s[i] = capture_source_time(src, i);
        p->brightness[i] = NAN;
    }
    icv_progress bar;
    icv_progress_begin(&bar, "probe", n);
    long last = -1;
    while ((rc = capture_source_read(src, &f, err)) == 0) {
        if (f.index != last + 1) { /* a lost frame between: not a duplicate */
            capture_dup_reset(&dup);
            capture_change_reset(&meter);
        }
        p->brightness[f.index] = capture_frame_mean(&f);
        capture_change_measure(&meter, &f, &chg_max[f.index], &chg_tail[f.index]);
        if (capture_dup_check(&dup, &f))
            p->duplicates[p->n_duplicates++] = f.index;
        p->frames_decoded++;
        last = f.index;
        icv_progress_update(&bar, f.index + 1);
    }
    icv_progress_end(&bar);
    if (rc >= 0)
        merge_near_duplicates(p, chg_max, chg_tail, n, near);
    free(chg_max), free(chg_tail), free(near);
    capture_change_free(&meter);
    if (rc < 0)
        goto fail;
    rc = 0;
    const long *lost;
    capture_source_lost(src, &lost, &p->n_lost);
    memcpy(p->lost, lost, p->n_lost * sizeof *lost);

    capture_timing_analyze(p->pts_s, n, capture_source_tick(src), dropped, &p->timing);
    capture_flicker_detect(p->time_s, p->brightness, n, p->info.capture_fps, &p->flicker);
    p->has_flash = capture_flash_detect(p->brightness, p->time_s, n, opt ? opt->exposure_s : 0.0, &p->flash);
    capture_frame_free(&f);
    capture_dup_free(&dup);
    capture_source_close(src);
    return 0;
fail:
    capture_frame_free(&f);
    capture_dup_free(&dup);
    capture_source_close(src);
    capture_probe_free(p);
    return rc;
}

/* "62-99" style list of frame numbers into buf. */
static void format_ranges(const long *v, size_t n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 32 < cap;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        int w = j > i ? snprintf(buf + used, cap - used, "%s%ld-%ld", used ? ", " : "", v[i], v[j])
                      : snprintf(buf + used, cap - used, "%s%ld", used ? ", " : "", v[i]);
        used += (size_t)w;
        i = j + 1;
        if (i < n && used + 32 >= cap)
            snprintf(buf + used, cap - used, ", ...");
    }
}

int capture_probe_check(const capture_probe *p, icv_err *err)
{
    if (!p->n_lost)
        return 0;
    char list[256];
    format_ranges(p->lost, p->n_lost, list, sizeof list);
    return icv_err_set(err, ICV_EFORMAT, "%s: truncated or corrupt stream: %zu of %ld frames lost (frames %s)",
                       p->info.path, p->n_lost, p->info.frames, list);
}

static json_t *long_array(const long *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

int capture_probe_write_json(const capture_probe *p, FILE *out, icv_err *err)
{
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(p->info.path));
    if (p->info.member[0])
        json_object_set_new(o, "archive_member", json_string(p->info.member));
    json_object_set_new(o, "codec", json_string(p->info.codec));
    json_object_set_new(o, "width", json_integer(p->info.width));
    json_object_set_new(o, "height", json_integer(p->info.height));
    json_object_set_new(o, "frames", json_integer(p->info.frames));
    json_object_set_new(o, "nominal_fps", json_real(p->info.nominal_fps));
    json_object_set_new(o, "capture_fps", json_real(p->info.capture_fps));
    json_object_set_new(o, "duration_s", json_real(p->info.duration_s));
    json_object_set_new(o, "vfr", json_boolean(p->timing.vfr));
    json_object_set_new(o, "duplicate_frames", long_array(p->duplicates, p->n_duplicates));
    json_object_set_new(o, "dropped_frames", long_array(p->timing.dropped, p->timing.n_dropped));
    json_object_set_new(o, "flicker_hz", p->flicker.hz > 0 ? json_real(p->flicker.hz) : json_null());
    if (p->has_flash)
        json_object_set_new(o, "flash", json_pack("{s:I, s:f}", "frame", (json_int_t)p->flash.frame, "time_s",
                                                  p->flash.onset_s));
    else
        json_object_set_new(o, "flash", json_null());
    int rc = json_dumpf(o, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(o);
    if (rc)
        return icv_err_set(err, ICV_EIO, "%s: cannot write the probe JSON", p->info.path);
    fputc('\n', out);
    return 0;
}

static const char *rate_source(const capture_info *in)
{
    switch (in->capture_fps_from) {
    case CAPTURE_RATE_USER: return "given";
    case CAPTURE_RATE_METADATA: return "container tag";
    case CAPTURE_RATE_ASSUMED: return "assumed: FFmpeg's image default; give --capture-fps";
    default: return "= nominal";
    }
}

void capture_probe_print(const capture_probe *p, FILE *out)
{
    const capture_info *in = &p->info;
    char list[256];
    fprintf(out, "file      %s%s%s%s\n", in->path, in->member[0] ? " (its video " : "", in->member,
            in->member[0] ? ")" : "");
    fprintf(out, "codec     %s (%s), %dx%d, %d-bit luma%s\n", in->codec, in->container, in->width, in->height,
            in->bits, in->luma_direct ? " (Y plane as is)" : " (converted to gray)");
    if (in->rotation_deg)
        fprintf(out, "rotation  the clip's rotation tag turns each picture %d degrees clockwise: %dx%d as stored, "
                     "%dx%d as tracked\n",
                in->rotation_deg, in->rotation_deg == 180 ? in->width : in->height,
                in->rotation_deg == 180 ? in->height : in->width, in->width, in->height);
    fprintf(out, "frames    %ld (%ld decoded)", in->frames, p->frames_decoded);
    if (in->container_frames && in->container_frames != in->frames)
        fprintf(out, "; the container's header says %ld", in->container_frames);
    fputc('\n', out);
    fprintf(out, "rate      nominal %.6g fps, capture %.6g fps (%s%s%s)\n", in->nominal_fps, in->capture_fps,
            rate_source(in), in->capture_fps_from == CAPTURE_RATE_METADATA ? ": " : "", in->capture_fps_key);
    fprintf(out, "duration  %.6f s on the capture clock\n", in->duration_s);
    fprintf(out, "timing    %s; interval median %.6g ms (min %.6g, max %.6g)\n",
            p->timing.vfr ? "VARIABLE frame rate" : "constant frame rate", p->timing.median_dt_s * 1e3,
            p->timing.min_dt_s * 1e3, p->timing.max_dt_s * 1e3);
    format_ranges(p->duplicates, p->n_duplicates, list, sizeof list);
    fprintf(out, "duplicates %zu%s%s\n", p->n_duplicates, p->n_duplicates ? ": frames " : "", list);
    if (p->n_near_duplicates)
        fprintf(out, "          %zu of them repeat the previous picture re-encoded (no cell changes by more than "
                     "%.2g gray levels, the clip's own noise)\n",
                p->n_near_duplicates, p->change_threshold);
    if (p->still || (in->frames > 1 && p->n_duplicates + 1 >= (size_t)in->frames))
        fprintf(out, "          every frame repeats the first picture (within the clip's own noise): the clip "
                     "holds one picture, nothing moves\n");
    if (p->stored_times >= 2)
        fprintf(out, "          every picture is stored %d times: the real rate is %.6g pictures/s, not %.6g\n",
                p->stored_times, in->capture_fps / p->stored_times, in->capture_fps);
    format_ranges(p->timing.dropped, p->timing.n_dropped, list, sizeof list);
    fprintf(out, "dropped   %ld frame(s) missing in %zu gap(s)%s%s\n", p->timing.missing, p->timing.n_dropped,
            p->timing.n_dropped ? " before frames " : "", list);
    format_ranges(p->lost, p->n_lost, list, sizeof list);
    fprintf(out, "lost      %zu undecodable%s%s\n", p->n_lost, p->n_lost ? ": frames " : "", list);
    if (p->flicker.hz > 0)
        fprintf(out, "flicker   %.0f Hz mains flicker, seen at %.3g Hz, amplitude %.3g gray levels\n", p->flicker.hz,
                p->flicker.alias_hz, p->flicker.amplitude);
    else
        fprintf(out, "flicker   none found\n");
    if (p->has_flash)
        fprintf(out, "flash     first lit frame %ld (%.0f %% exposed): onset at frame %.3f, t = %.6f s\n",
                p->flash.frame, 100.0 * p->flash.ratio, p->flash.onset_frame, p->flash.onset_s);
    else
        fprintf(out, "flash     none found\n");
}
