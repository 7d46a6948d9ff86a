/* blob_detect.c: the detector object and its per-frame driver. A frame (or each
 * search window) is thresholded above its background (background.c), labelled into
 * components (label_runs.c), each component measured (blob_measure.c) and filtered by
 * area, edge, mask, shape and the static-blob model (static_model.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "track/detect_internal.h"

track_detector *track_detector_alloc(int width, int height, icv_err *err)
{
    if (width <= 0 || height <= 0) {
        icv_err_set(err, ICV_EINVAL, "track detector: frame size %dx%d must be positive", width, height);
        return NULL;
    }
    track_detector *d = calloc(1, sizeof *d);
    struct track_detector_ws *w = calloc(1, sizeof *w);
    if (!d || !w) {
        free(d);
        free(w);
        icv_err_set(err, ICV_ENOMEM, "track detector: out of memory");
        return NULL;
    }
    d->ws = w;
    d->threshold_mode = TRACK_THRESHOLD_AUTO;
    d->threshold_level = 128;
    d->threshold_k_sigma = 6;
    d->threshold_fraction = 0.25;
    d->centroid_margin_px = 2;
    d->centroid_window = 1;
    d->centroid_coverage = 0;
    d->min_area_px = 4;
    d->max_area_px = 2000;
    d->min_circularity = 0.4;
    d->max_streak_px = 40;
    d->blurred_px = 2;
    d->saturation_level = 0;
    d->gain = 0;
    d->noise_floor = 0;
    d->static_frames = 50;
    d->static_radius_px = 0.5;
    d->max_blobs = 256;
    d->debug = 0;
    d->debug_dir = ".";

    w->width = width;
    w->height = height;
    /* Runs: sized to the frame's worst case (every other pixel lit: ceil(w/2) runs a
     * row), so no threshold can overflow it; 40 bytes a run, 18 MB at 1280x720, only
     * touched as far as a frame needs. */
    w->max_runs = (width + 1) / 2 * height;
    w->runs = malloc(sizeof(run) * (size_t)w->max_runs);
    w->parent = malloc(sizeof(int) * (size_t)w->max_runs);
    w->label = malloc(sizeof(int) * (size_t)w->max_runs);
    w->comps = malloc(sizeof(comp) * (size_t)w->max_runs);
    w->hist = malloc(sizeof(unsigned) * 65536);
    w->cov_class = malloc(TRACK_COV_MAX_PX);
    w->cov_near = malloc(sizeof(int) * TRACK_COV_MAX_PX);
    w->cov_grad = malloc(sizeof(double) * 2 * TRACK_COV_MAX_PX);
    d->n_allocs = 10;
    if (!w->runs || !w->parent || !w->label || !w->comps || !w->hist || !w->cov_class || !w->cov_near ||
        !w->cov_grad) {
        track_detector_free(d);
        icv_err_set(err, ICV_ENOMEM, "track detector: out of memory for a %dx%d workspace", width, height);
        return NULL;
    }
    return d;
}

void track_detector_free(track_detector *d)
{
    if (!d)
        return;
    if (d->ws) {
        free(d->ws->runs);
        free(d->ws->parent);
        free(d->ws->label);
        free(d->ws->comps);
        free(d->ws->hist);
        free(d->ws->cov_class);
        free(d->ws->cov_near);
        free(d->ws->cov_grad);
        free(d->ws);
    }
    free(d);
}

void track_detector_reset(track_detector *d)
{
    d->ws->statics.n = 0;
    d->ws->peak_ref = 0;
    d->ws->noise = 0;
    d->ws->n_full_scans = 0;
    memset(&d->stats, 0, sizeof d->stats);
}

/* ---- one region (a window or the whole frame) ------------------------------ */

static void detect_region(track_detector *d, const track_frame *f, int x0, int y0, int x1, int y1, double blur_px,
                          int full, double frame_bg, track_blob *out, int max_out, int *n_out)
{
    struct track_detector_ws *w = d->ws;
    track_detect_stats *st = &d->stats;
    double bg = full ? frame_bg : track_window_background(f, x0, y0, x1, y1);
    double t_abs;
    if (d->threshold_mode == TRACK_THRESHOLD_FIXED) {
        t_abs = d->threshold_level;
    } else {
        t_abs = bg + track_auto_threshold(d, w->noise, track_saturation_level(d, f) - bg);
    }
    if (full)
        st->threshold = t_abs;
    int t = (int)floor(t_abs);
    st->n_pixels += (long)(x1 - x0 + 1) * (y1 - y0 + 1);

    int nc = track_label_region(w, f, x0, y0, x1, y1, t, &st->n_overflow);
    st->n_components += nc;
    if (nc > d->max_blobs) {
        st->n_overflow += nc - d->max_blobs;
        nc = d->max_blobs;
    }
    int m = d->centroid_margin_px;
    for (int i = 0; i < nc; i++) {
        const comp *c = &w->comps[i];
        if (c->area < d->min_area_px || c->area > d->max_area_px) {
            st->n_rejected_area++;
            continue;
        }
        /* cut by the edge of the frame or the roi: a marker partly out of view is no
         * position; cut by a window's edge: biased, search wider (n_clipped) */
        if (c->x0 <= w->rx0 || c->y0 <= w->ry0 || c->x1 >= w->rx1 || c->y1 >= w->ry1) {
            st->n_rejected_edge++;
            continue;
        }
        if (c->x0 == x0 || c->y0 == y0 || c->x1 == x1 || c->y1 == y1) {
            st->n_clipped++;
            continue;
        }
        /* another component inside the grown box: measure this one without margin */
        int crowded = 0;
        for (int j = 0; j < nc && !crowded; j++)
            if (j != i && w->comps[j].x1 >= c->x0 - m - 1 && w->comps[j].x0 <= c->x1 + m + 1 &&
                w->comps[j].y1 >= c->y0 - m - 1 && w->comps[j].y0 <= c->y1 + m + 1)
                crowded = 1;
        track_blob b;
        if (track_blob_measure(d, f, c, crowded, bg, t, &b) != 0)
            continue;
        if (b.peak > st->brightest)
            st->brightest = b.peak;
        if (d->mask) {
            int mu = (int)floor(b.u + 0.5), mv = (int)floor(b.v + 0.5);
            if (!d->mask[(size_t)mv * (size_t)d->mask_stride + (size_t)mu]) {
                st->n_rejected_mask++;
                continue;
            }
        }
        if (!track_blob_shape_ok(d, &b, blur_px)) {
            st->n_rejected_shape++;
            continue;
        }
        if (d->static_frames > 0 &&
            track_static_observe(&w->statics, b.u, b.v, d->static_radius_px, d->static_frames)) {
            st->n_rejected_static++;
            continue;
        }
        if (*n_out < max_out)
            out[(*n_out)++] = b;
    }
}

/* Writes the thresholded full frame as a PGM for a person (debug only). */
static void debug_write(const track_detector *d, const track_frame *f, double t_abs)
{
    char path[ICV_PATH_MAX];
    snprintf(path, sizeof path, "%s/track_threshold_%06ld.pgm", d->debug_dir ? d->debug_dir : ".",
             d->ws->n_full_scans);
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        icv_warn("track: cannot write debug image %s", path);
        return;
    }
    fprintf(fp, "P5\n%d %d\n255\n", f->width, f->height);
    for (int y = 0; y < f->height; y++)
        for (int x = 0; x < f->width; x++)
            fputc(pix(f, x, y) > t_abs ? 255 : 0, fp);
    fclose(fp);
}

int track_detector_detect(track_detector *d, const track_frame *f, const track_window *windows, int n_windows,
                          track_blob *out, int max_out, int *n_out, icv_err *err)
{
    struct track_detector_ws *w = d->ws;
    *n_out = 0;
    if (!f || !f->data || (f->depth != 8 && f->depth != 16) || f->width <= 0 || f->height <= 0 ||
        f->width > w->width || f->height > w->height || f->stride < f->width * (f->depth / 8))
        return icv_err_set(err, ICV_EINVAL,
                           "track detector: frame %dx%d depth %d stride %d does not fit the %dx%d workspace",
                           f ? f->width : 0, f ? f->height : 0, f ? f->depth : 0, f ? f->stride : 0, w->width,
                           w->height);
    memset(&d->stats, 0, sizeof d->stats);
    track_detect_stats *st = &d->stats;
    int full = windows == NULL || n_windows <= 0;
    st->full_scan = full;
    /* the region of interest, clipped to the frame */
    int rx0 = 0, ry0 = 0, rx1 = f->width - 1, ry1 = f->height - 1;
    if (d->roi[2] > 0 && d->roi[3] > 0) {
        rx0 = d->roi[0] > 0 ? d->roi[0] : 0;
        ry0 = d->roi[1] > 0 ? d->roi[1] : 0;
        rx1 = d->roi[0] + d->roi[2] - 1 < rx1 ? d->roi[0] + d->roi[2] - 1 : rx1;
        ry1 = d->roi[1] + d->roi[3] - 1 < ry1 ? d->roi[1] + d->roi[3] - 1 : ry1;
        if (rx1 - rx0 < 2 || ry1 - ry0 < 2)
            return icv_err_set(err, ICV_EINVAL, "track detector: roi [%d, %d, %d, %d] is outside the %dx%d frame",
                               d->roi[0], d->roi[1], d->roi[2], d->roi[3], f->width, f->height);
    }
    w->rx0 = rx0;
    w->ry0 = ry0;
    w->rx1 = rx1;
    w->ry1 = ry1;
    double frame_bg = 0;
    if (full) {
        double noise;
        track_frame_background(w, f, &frame_bg, &noise);
        w->noise = noise;
        st->background = frame_bg;
        st->noise = noise;
        track_static_begin(&w->statics);
        detect_region(d, f, rx0, ry0, rx1, ry1, 0, 1, frame_bg, out, max_out, n_out);
        w->rects[0][0] = rx0;
        w->rects[0][1] = ry0;
        w->rects[0][2] = rx1;
        w->rects[0][3] = ry1;
        track_static_end(&w->statics, (const int(*)[4])w->rects, 1);
        if (d->debug)
            debug_write(d, f, st->threshold);
        w->n_full_scans++;
    } else {
        st->n_windows = n_windows;
        track_static_begin(&w->statics);
        int nr = 0;
        for (int i = 0; i < n_windows; i++) {
            const track_window *wi = &windows[i];
            int x0 = wi->x0 < rx0 ? rx0 : wi->x0, y0 = wi->y0 < ry0 ? ry0 : wi->y0;
            int x1 = wi->x1 > rx1 ? rx1 : wi->x1, y1 = wi->y1 > ry1 ? ry1 : wi->y1;
            if (x1 - x0 < 2 || y1 - y0 < 2)
                continue;
            detect_region(d, f, x0, y0, x1, y1, wi->blur_px, 0, 0, out, max_out, n_out);
            if (nr < TRACK_MAX_TRACKS) {
                w->rects[nr][0] = x0;
                w->rects[nr][1] = y0;
                w->rects[nr][2] = x1;
                w->rects[nr][3] = y1;
                nr++;
            }
        }
        track_static_end(&w->statics, (const int(*)[4])w->rects, nr);
    }
    /* the markers' typical peak above background, for the AUTO threshold: the median
     * of this frame's blobs (one glare or flash blob does not lift it), smoothed */
    if (*n_out > 0) {
        double pk[64];
        int n = *n_out < 64 ? *n_out : 64;
        for (int i = 0; i < n; i++) {
            double p = out[i].peak - out[i].background;
            int j = i - 1;
            for (; j >= 0 && pk[j] > p; j--)
                pk[j + 1] = pk[j];
            pk[j + 1] = p;
        }
        double med = n % 2 ? pk[n / 2] : 0.5 * (pk[n / 2 - 1] + pk[n / 2]);
        w->peak_ref = w->peak_ref > 0 ? 0.9 * w->peak_ref + 0.1 * med : med;
    }
    st->n_blobs = *n_out;
    return 0;
}

void track_detector_set_marker_size(track_detector *d, double diameter_px, double max_streak_px)
{
    double r = 0.5 * diameter_px, disc = M_PI * r * r;
    d->min_area_px = fmax(1, 0.25 * disc);
    d->max_area_px = 3 * (disc + diameter_px * fmax(max_streak_px, 0));
    d->max_streak_px = max_streak_px;
}

double track_marker_diameter_px(double diameter_m, double focal_px, double distance_m)
{
    return distance_m > 0 ? focal_px * diameter_m / distance_m : 0;
}

const char *track_detector_describe(const track_detector *d, char *buf, size_t n)
{
    const track_detect_stats *s = &d->stats;
    char thr[128];
    if (d->threshold_mode == TRACK_THRESHOLD_FIXED)
        snprintf(thr, sizeof thr, "threshold %.1f (fixed)", d->threshold_level);
    else if (s->full_scan)
        snprintf(thr, sizeof thr, "threshold %.1f (auto: background %.1f, noise %.2f)", s->threshold, s->background,
                 s->noise);
    else
        snprintf(thr, sizeof thr, "auto threshold per window");
    snprintf(buf, n,
             "%s, %s; %d components, %d kept; rejected: %d area [%.0f, %.0f] px, %d shape, %d static, %d mask, "
             "%d frame edge, %d window edge, %d overflow; brightest blob peak %.0f",
             s->full_scan ? "full scan" : "windows", thr, s->n_components, s->n_blobs, s->n_rejected_area,
             d->min_area_px, d->max_area_px, s->n_rejected_shape, s->n_rejected_static, s->n_rejected_mask,
             s->n_rejected_edge, s->n_clipped, s->n_overflow, s->brightest);
    return buf;
}
