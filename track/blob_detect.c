/* blob_detect.c: the detector object and its per-frame driver. A frame (or each
 * search window) is thresholded above its background (background.c), labelled into
 * components (label_runs.c), each component measured (blob_measure.c) and filtered by
 * area, edge, mask, shape and the static-blob model (static_model.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "track/detect_internal.h"

/* A fresh detector's settings (calloc'd: every other field 0) */
static void detector_defaults(track_detector *d)
{
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
    d->marker_aspect = 1;
    d->marker_fill = 1;
    d->blurred_px = 2;
    d->saturation_level = 0;
    d->gain = 0;
    d->noise_floor = 0;
    d->static_frames = 50;
    d->static_radius_px = 0.5;
    d->max_blobs = 256;
    d->debug = 0;
    d->debug_dir = ".";
    d->look = TRACK_LOOK_BRIGHT;
    d->background_tile_px = 32;
    d->split_components = 1;
    d->color_tolerance = 60;
}

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
    detector_defaults(d);
    d->n_allocs = 19;
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
    /* tiles down to 8 px (the smallest background_tile_px used) */
    w->max_tiles = ((width + 7) / 8) * ((height + 7) / 8);
    w->tile_level = malloc(sizeof(double) * (size_t)w->max_tiles);
    w->tile_t = malloc(sizeof(int) * (size_t)w->max_tiles);
    w->tile_lit = malloc((size_t)w->max_tiles);
    w->col_max = malloc((size_t)width * 2);
    w->tile_noise = malloc(sizeof(double) * 2 * (size_t)w->max_tiles); /* + scratch */
    w->samp = malloc(sizeof(int) * TRACK_SPLIT_SAMPLES);
    w->binned = malloc((size_t)(width / 2 + 1) * (size_t)(height / 2 + 1) * 2);
    w->binned_tophat = malloc((size_t)(width / 2 + 1) * (size_t)(height / 2 + 1) * 2);
    w->morph_pitch = width + 2 * TRACK_TOPHAT_MAX_R;
    /* the frame-sized planes (the look's plane, 16-bit at most, the still background,
       the top-hat's two) in one block, of 2 MiB pages (MADV_HUGEPAGE) when it spans
       one: a full scan touches them whole, and a fresh 4 KiB page's first touch costs
       10-12 us on the VMs measured (docs/track.md, "Session 30") */
    size_t frame = ((size_t)width * (size_t)height * 2 + 63) / 64 * 64;
    size_t morph = sizeof(uint16_t) * (size_t)w->morph_pitch * (size_t)(height + 2 * TRACK_TOPHAT_MAX_R);
    morph = (morph + 63) / 64 * 64;
    size_t bytes = 2 * frame + 2 * morph, huge = (size_t)2 << 20;
    int big = bytes >= huge;
    if (big)
        bytes = (bytes + huge - 1) / huge * huge;
    if (posix_memalign(&w->planes, big ? huge : 64, bytes) == 0) {
        if (big)
            madvise(w->planes, bytes, MADV_HUGEPAGE);
        w->plane = w->planes;
        w->still = (char *)w->planes + frame;
        w->morph_a = (char *)w->planes + 2 * frame;
        w->morph_b = (char *)w->planes + 2 * frame + morph;
    }
    w->morph_rows = malloc(sizeof(uint16_t) * (size_t)w->morph_pitch * TRACK_TOPHAT_ROWS);
    w->bin = 1;
    if (!w->runs || !w->parent || !w->label || !w->comps || !w->hist || !w->cov_class || !w->cov_near ||
        !w->cov_grad || !w->tile_level || !w->tile_t || !w->tile_lit || !w->col_max || !w->tile_noise || !w->samp ||
        !w->planes || !w->binned || !w->binned_tophat || !w->morph_rows) {
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
        free(d->ws->tile_level);
        free(d->ws->tile_t);
        free(d->ws->tile_lit);
        free(d->ws->col_max);
        free(d->ws->tile_noise);
        free(d->ws->samp);
        free(d->ws->binned);
        free(d->ws->binned_tophat);
        free(d->ws->planes);
        free(d->ws->morph_rows);
        free(d->ws->look_memo);
        track_detector_free(d->ws->look_trial);
        free(d->ws);
    }
    free(d);
}

/* track_detector_renew: detect_internal.h. Every field as track_detector_alloc sets it;
 * the buffers' pointers kept (their contents are scratch, written before read). */
void track_detector_renew(track_detector *d)
{
    struct track_detector_ws *w = d->ws, b = *w;
    free(w->look_memo);
    track_detector_free(w->look_trial);
    memset(d, 0, sizeof *d);
    d->ws = w;
    detector_defaults(d);
    d->n_allocs = 19;
    memset(w, 0, sizeof *w);
    w->width = b.width, w->height = b.height, w->max_runs = b.max_runs, w->max_tiles = b.max_tiles;
    w->morph_pitch = b.morph_pitch, w->bin = 1;
    w->runs = b.runs, w->parent = b.parent, w->label = b.label, w->comps = b.comps, w->hist = b.hist;
    w->cov_class = b.cov_class, w->cov_near = b.cov_near, w->cov_grad = b.cov_grad;
    w->tile_level = b.tile_level, w->tile_t = b.tile_t, w->tile_lit = b.tile_lit, w->col_max = b.col_max;
    w->tile_noise = b.tile_noise, w->samp = b.samp, w->plane = b.plane, w->still = b.still;
    w->binned = b.binned, w->binned_tophat = b.binned_tophat;
    w->morph_a = b.morph_a, w->morph_b = b.morph_b, w->morph_rows = b.morph_rows, w->planes = b.planes;
}

void track_detector_reset(track_detector *d)
{
    d->ws->statics.n = 0;
    d->ws->peak_ref = 0;
    d->ws->tile_learnt = 0;
    d->ws->noise = 0;
    d->ws->n_full_scans = 0;
    d->ws->bin_raw = (track_bin_state){0};
    d->ws->bin_th = (track_bin_state){0};
    memset(&d->stats, 0, sizeof d->stats);
}

/* ---- one region (a window or the whole frame) ------------------------------ */

/* A component sent to be thresholded again inside its own box: too large for a marker,
 * or not standing out from its surroundings (a marker fused to a lit plate or a bright
 * edge, or the plate's part of a tile the plate's edge crosses). */
typedef struct {
    comp c;
    double t;   /* gray levels: the threshold that made it */
    int *count; /* the rejection it counts as when no part of it is kept */
} split_item;
enum { SPLIT_MAX = 16 };
/* More parts than this from one component is a pattern (a board, a texture): no part is
 * kept. A body's markers fused to one lit plate are at most a few. */
enum { SPLIT_PATTERN_PARTS = 6 };

/* The fraction of the one-pixel ring round c's box grown by margin that is above lv. */
static double ring_fraction(const track_frame *f, const comp *c, int margin, double lv)
{
    int X0 = c->x0 - margin - 1, Y0 = c->y0 - margin - 1, X1 = c->x1 + margin + 1, Y1 = c->y1 + margin + 1;
    int n = 0, a = 0;
    for (int x = X0; x <= X1; x++) {
        if (x < 0 || x >= f->width)
            continue;
        if (Y0 >= 0)
            a += pix(f, x, Y0) > lv, n++;
        if (Y1 < f->height)
            a += pix(f, x, Y1) > lv, n++;
    }
    for (int y = Y0 + 1; y < Y1; y++) {
        if (y < 0 || y >= f->height)
            continue;
        if (X0 >= 0)
            a += pix(f, X0, y) > lv, n++;
        if (X1 < f->width)
            a += pix(f, X1, y) > lv, n++;
    }
    return n > 0 ? (double)a / n : 0;
}

/* out full: b replaces the weakest of out[0..n) (height over its background) when it
 * stands out more. Kept in raster order, a crowded frame (a textured plate above the
 * body) filled out with what lies above the markers, and the markers' peak was learnt
 * from the texture. Only at the first depth: a split's parts are taken back as a whole. */
static void keep_if_stronger(track_blob *out, int n, const track_blob *b)
{
    int weakest = -1;
    double h = b->peak - b->background;
    for (int k = 0; k < n; k++)
        if (out[k].peak - out[k].background < h) {
            h = out[k].peak - out[k].background;
            weakest = k;
        }
    if (weakest >= 0)
        out[weakest] = *b;
}

/* a component under the marker's area that is as wide as a marker one way: a flat
 * marker seen edge-on, or a ball's sliver beside the body */
static int slender_marker(const track_detector *d, const comp *c)
{
    double extent = hypot(c->x1 - c->x0 + 1, c->y1 - c->y0 + 1);
    return d->slender_extent_px > 0 && c->area >= d->slender_min_area_px && extent >= d->slender_extent_px &&
           extent <= 1.625 * d->slender_extent_px;
}

/* Labels [x0, x1] x [y0, y1] (the tile map when tiled, else the level t), then filters
 * and measures the components; rx0..ry1 is the region searched (a window: a blob
 * touching its edge is clipped), depth the split depth. */
static void scan_box(track_detector *d, const track_frame *f, int x0, int y0, int x1, int y1, int rx0, int ry0,
                     int rx1, int ry1, int t, int tiled, int depth, double blur_px, double bg, track_blob *out,
                     int max_out, int *n_out, int first_out)
{
    struct track_detector_ws *w = d->ws;
    track_detect_stats *st = &d->stats;
    int nc = tiled ? track_label_region_tiled(w, f, x0, y0, x1, y1, &st->n_overflow)
                   : track_label_region(w, f, x0, y0, x1, y1, t, &st->n_overflow);
    if (depth == 0)
        st->n_components += nc;
    split_item sp[SPLIT_MAX];
    int nsp = 0, n_sized = 0, can_split = d->split_components && depth < TRACK_SPLIT_MAX_DEPTH;
    int m = d->centroid_margin_px;
    for (int i = 0; i < nc; i++) {
        const comp *c = &w->comps[i];
        double tc = t, contrast_h = d->threshold_mode == TRACK_THRESHOLD_AUTO ? t - bg : 0, cbg = bg;
        if (tiled) {
            int ti = ((c->y0 + c->y1) / 2 / w->tile) * w->ntx + (c->x0 + c->x1) / 2 / w->tile;
            tc = w->tile_t[ti];
            cbg = w->tile_level[ti];
            contrast_h = tc - cbg;
            if (c->area > d->max_area_px || c->x1 - c->x0 >= w->tile || c->y1 - c->y0 >= w->tile) {
                /* spread over tiles: the lowest threshold of them made it (a split
                   takes its level from the pixels above that) */
                for (int ty = c->y0 / w->tile; ty <= c->y1 / w->tile; ty++)
                    for (int tx = c->x0 / w->tile; tx <= c->x1 / w->tile; tx++)
                        tc = fmin(tc, w->tile_t[ty * w->ntx + tx]);
            }
        }
        if (c->area < d->min_area_px && !slender_marker(d, c)) {
            st->n_rejected_area++;
            continue;
        }
        if (c->area > d->max_area_px) {
            if (can_split && nsp < SPLIT_MAX)
                sp[nsp++] = (split_item){*c, tc, &st->n_rejected_area};
            else
                st->n_rejected_area++;
            continue;
        }
        /* the cap counts components of a marker's area only: capping in raster order
           let thousands of codec specks on a black backdrop (under min_area_px) use it
           up above the markers, which were never measured (random scenes 1017, 1046) */
        if (++n_sized > d->max_blobs) {
            st->n_overflow++;
            continue;
        }
        /* cut by the edge of the frame or the roi: a marker partly out of view is no
         * position; cut by a window's edge: biased, search wider (n_clipped) */
        if (c->x0 <= w->rx0 || c->y0 <= w->ry0 || c->x1 >= w->rx1 || c->y1 >= w->ry1) {
            st->n_rejected_edge++;
            continue;
        }
        if (c->x0 == rx0 || c->y0 == ry0 || c->x1 == rx1 || c->y1 == ry1) {
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
        double ring_above = 0;
        int box_above = 0;
        if (track_blob_measure(d, f, c, crowded, cbg, tc, tc + 0.5 * fmax(contrast_h, 1), &b, &ring_above,
                               &box_above) != 0)
            continue;
        /* a tenth of the ring clearly above the threshold (by half its height): the
           component was cut out of a larger bright area that goes on past its box (a
           marker fused to a lit plate, the plate's corner), it does not stand out */
        /* ... unless what rises in the ring stays below the component's own level (the
           median of its pixels): a marker touching a dimmer plate stands out from it */
        if (ring_above > 0.1 && can_split) {
            double lc = track_component_level(w, f, c, tc), h = fmax(contrast_h, 1);
            if (lc - 0.5 * h > tc + 0.5 * h)
                ring_above = ring_fraction(f, c, crowded ? 0 : m, lc - 0.5 * h);
        }
        if ((ring_above > 0.1 || (tiled && box_above > 1.25 * c->area)) && can_split) {
            /* or the box holds a brighter area the component rings (a tile's level rose
               inside a large bright object) */
            if (nsp < SPLIT_MAX)
                sp[nsp++] = (split_item){*c, tc, &st->n_rejected_contrast};
            continue;
        }
        /* a compact bump on a raised patch (texture, a blotch of a lit plate) crosses the
           tile's threshold but not by as much above its own ring: a marker stands out
           from what surrounds it by the height the threshold asks for */
        if (contrast_h > 0 && b.peak - b.background < contrast_h) {
            st->n_rejected_contrast++;
            continue;
        }
        if (depth > 0) { /* a split may find again a blob kept beside it: once only */
            int dup = 0;
            for (int k = first_out; k < *n_out && !dup; k++)
                dup = b.u >= out[k].x0 - 1 && b.u <= out[k].x1 + 1 && b.v >= out[k].y0 - 1 && b.v <= out[k].y1 + 1;
            if (dup)
                continue;
        }
        if (b.peak > st->brightest)
            st->brightest = b.peak;
        if (d->mask) {
            int mu = (int)floor(b.u + 0.5), mv = (int)floor(b.v + 0.5);
            if (!d->mask[(size_t)mv * (size_t)d->mask_stride + (size_t)mu]) {
                st->n_rejected_mask++;
                continue;
            }
        }
        st->n_candidates++;
        if (d->disc_split_px > 0) { /* touching discs of a known size: one blob each */
            track_blob parts[TRACK_DISC_SPLIT_MAX];
            int np = track_disc_split(d, f, c, tc, b.background, &b, parts, TRACK_DISC_SPLIT_MAX);
            if (np >= 2) {
                st->n_candidates += np - 1;
                for (int q = 0; q < np; q++) {
                    if (d->static_frames > 0 && track_static_observe(&w->statics, parts[q].u, parts[q].v,
                                                                     d->static_radius_px, d->static_frames)) {
                        st->n_rejected_static++;
                        continue;
                    }
                    if (*n_out < max_out)
                        out[(*n_out)++] = parts[q];
                }
                continue;
            }
        }
        if (!track_blob_shape_ok(d, &b, blur_px)) {
            if (can_split && c->area >= 4 * d->min_area_px && nsp < SPLIT_MAX) {
                st->n_candidates--; /* counted again if a part of it is kept */
                sp[nsp++] = (split_item){*c, tc, &st->n_rejected_shape};
            } else {
                st->n_rejected_shape++;
            }
            continue;
        }
        double cu, cv, cs;
        if (d->disc_outline_px > 0 && track_disc_outline_centre(f, &b, d->disc_outline_px, &cu, &cv)) {
            b.u = cu, b.v = cv;
            b.sigma = fmax(b.sigma, DISC_OUTLINE_SIGMA_PX);
        } else if (d->disc_outline_px > 0 && track_disc_whole_centre(f, &b, d->disc_outline_px, &cu, &cv, &cs)) {
            /* a whole ball whose box centroid clutter in its box (a glint) pulls off
               its outline's circle: that circle's centre */
            b.u = cu, b.v = cv;
            b.sigma = fmax(b.sigma, cs);
        }
        if (d->static_frames > 0 &&
            track_static_observe(&w->statics, b.u, b.v, d->static_radius_px, d->static_frames)) {
            st->n_rejected_static++;
            continue;
        }
        if (*n_out < max_out)
            out[(*n_out)++] = b;
        else if (depth == 0)
            keep_if_stronger(out, *n_out, &b);
    }
    /* each held component again inside its box, at a level between what it stands on
       (the median of its pixels: the plate) and its peaks */
    double sat = track_saturation_level(d, f);
    for (int i = 0; i < nsp; i++) {
        const comp *c = &sp[i].c;
        double level = track_component_level(w, f, c, sp[i].t);
        double ts = level + track_auto_threshold(d, w->noise, sat - level);
        if (ts < sp[i].t + 1)
            ts = sp[i].t + 1;
        int before = *n_out;
        /* the parts' rejections are not the frame's: the component counts once */
        track_detect_stats keep = *st;
        if (ts < sat) {
            st->n_split++;
            scan_box(d, f, c->x0, c->y0, c->x1, c->y1, rx0, ry0, rx1, ry1, (int)floor(ts), 0, depth + 1, blur_px,
                     level, out, max_out, n_out, first_out);
        }
        st->n_rejected_area = keep.n_rejected_area;
        st->n_rejected_shape = keep.n_rejected_shape;
        st->n_rejected_edge = keep.n_rejected_edge;
        st->n_rejected_mask = keep.n_rejected_mask;
        st->n_rejected_contrast = keep.n_rejected_contrast;
        st->n_clipped = keep.n_clipped;
        if (*n_out - before > SPLIT_PATTERN_PARTS) {
            /* a pattern, not markers fused to something: a chessboard's white area falls
               apart into its squares, a textured poster into its spots */
            st->n_candidates -= *n_out - before;
            *n_out = before;
        }
        if (*n_out == before)
            (*sp[i].count)++;
    }
}

static void detect_region(track_detector *d, const track_frame *f, int x0, int y0, int x1, int y1, double blur_px,
                          int full, double frame_bg, track_blob *out, int max_out, int *n_out)
{
    struct track_detector_ws *w = d->ws;
    track_detect_stats *st = &d->stats;
    double bg = full ? frame_bg : track_window_background(f, x0, y0, x1, y1);
    double sat = track_saturation_level(d, f);
    double t_abs;
    int tiled = 0;
    if (d->threshold_mode == TRACK_THRESHOLD_FIXED) {
        t_abs = d->threshold_level;
    } else {
        t_abs = bg + track_auto_threshold(d, w->noise, sat - bg);
        if (full && w->tile > 0) {
            /* each tile over its own level: the same height above it as a window's */
            int nt = w->ntx * w->nty;
            for (int i = 0; i < nt; i++) {
                /* the frame's noise, or the tile's own spread where texture makes it
                   larger (a textured floor's bumps are not markers) */
                double lv = w->tile_level[i], nz = fmax(w->noise, w->tile_noise[i]);
                w->tile_t[i] = (int)floor(lv + track_auto_threshold(d, nz, sat - lv));
            }
            tiled = 1;
        }
    }
    if (full)
        st->threshold = t_abs;
    st->n_pixels += (long)(x1 - x0 + 1) * (y1 - y0 + 1);
    scan_box(d, f, x0, y0, x1, y1, x0, y0, x1, y1, (int)floor(t_abs), tiled, 0, blur_px, bg, out, max_out, n_out,
             *n_out);
}

/* ---- looks: the gray plane the bright detector reads ----------------------- */

/* 1: the detector reads a plane made from the frame (every look but plain bright) */
static int uses_plane(const track_detector *d)
{
    return d->look != TRACK_LOOK_BRIGHT || (d->bright_tophat && d->ws->white_tophat_r > 0);
}

/* Fills the look's plane over [x0, x1] x [y0, y1] from the frame: dark markers
 * inverted (or the black top-hat), bright ones' white top-hat, a colour's closeness to
 * the key, or the difference from the still background. */
static void look_fill(const track_detector *d, const track_frame *f, int x0, int y0, int x1, int y1)
{
    struct track_detector_ws *w = d->ws;
    if (d->look == TRACK_LOOK_BRIGHT) { /* read as the white top-hat (uses_plane) */
        track_white_tophat(w, f, w->white_tophat_r, x0, y0, x1, y1, w->plane);
        return;
    }
    if (d->look == TRACK_LOOK_DARK && w->tophat_r > 0) {
        track_black_tophat(w, f, w->tophat_r, x0, y0, x1, y1);
        return;
    }
    int wide = f->depth == 16 && d->look != TRACK_LOOK_COLOR;
    for (int y = y0; y <= y1; y++) {
        const unsigned char *row = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
        if (wide) {
            const uint16_t *r16 = (const uint16_t *)(const void *)row;
            uint16_t *o = (uint16_t *)w->plane + (size_t)y * (size_t)f->width;
            if (d->look == TRACK_LOOK_DARK) {
                for (int x = x0; x <= x1; x++)
                    o[x] = (uint16_t)(65535 - r16[x]);
            } else {
                const uint16_t *b16 = (const uint16_t *)(const void *)((const unsigned char *)d->motion_background +
                                                                     (size_t)y * (size_t)d->motion_background_stride);
                for (int x = x0; x <= x1; x++)
                    o[x] = (uint16_t)abs((int)r16[x] - (int)b16[x]);
            }
            continue;
        }
        uint8_t *o = (uint8_t *)w->plane + (size_t)y * (size_t)f->width;
        if (d->look == TRACK_LOOK_DARK) {
            for (int x = x0; x <= x1; x++)
                o[x] = (uint8_t)(255 - row[x]);
        } else if (d->look == TRACK_LOOK_MOTION) {
            const uint8_t *bk = (const uint8_t *)d->motion_background + (size_t)y * (size_t)d->motion_background_stride;
            for (int x = x0; x <= x1; x++)
                o[x] = (uint8_t)abs((int)row[x] - (int)bk[x]);
        } else { /* colour: 255 at the key, 0 at tolerance and beyond */
            const double *k = w->key_ycc;
            double s = 255.0 / fmax(d->color_tolerance, 1);
            for (int x = x0; x <= x1; x++) {
                const unsigned char *p = row + 3 * x;
                double yy, cb, cr;
                track_rgb_to_ycc(p[0], p[1], p[2], &yy, &cb, &cr);
                double dist = sqrt(0.25 * (yy - k[0]) * (yy - k[0]) + (cb - k[1]) * (cb - k[1]) + (cr - k[2]) * (cr - k[2]));
                double v = 255 - dist * s;
                o[x] = (uint8_t)(v > 0 ? v + 0.5 : 0);
            }
        }
    }
}

double track_look_diff3(const track_detector *d, const track_frame *f, const track_frame *bg, int x, int y)
{
    int x0 = x - 1 < 0 ? 0 : x - 1, y0 = y - 1 < 0 ? 0 : y - 1;
    int x1 = x + 1 >= f->width ? f->width - 1 : x + 1, y1 = y + 1 >= f->height ? f->height - 1 : y + 1;
    if (x1 < x0 || y1 < y0)
        return 0;
    double v[9];
    int k = 0;
    const track_frame *src[2] = {f, bg};
    double sum = 0;
    for (int i = 0; i < 2; i++) {
        track_frame plane = *src[i];
        if (uses_plane(d)) {
            look_fill(d, src[i], x0, y0, x1, y1);
            int pd = f->depth == 16 && d->look != TRACK_LOOK_COLOR ? 16 : 8;
            plane = (track_frame){d->ws->plane, f->width, f->height, f->width * pd / 8, pd};
        }
        k = 0;
        for (int yy = y0; yy <= y1; yy++)
            for (int xx = x0; xx <= x1; xx++, k++)
                if (i == 0)
                    v[k] = pix(&plane, xx, yy);
                else
                    sum += fabs(v[k] - pix(&plane, xx, yy));
    }
    return sum / k;
}

/* px: how far past a window the plane is filled: the ring, the centroid's margin and
   the windowed centroid's reach (blob_measure.c) */
enum { LOOK_PAD = 16 };

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

/* Fills binned pixels [bx0, bx1] x [by0, by1] of the frame binned b x b (each the mean
 * of its block, rounded) into w->binned, a frame of (width / b) x (height / b). */
static void bin_fill(struct track_detector_ws *w, const track_frame *f, int b, int bx0, int by0, int bx1, int by1)
{
    int bw = f->width / b, bh = f->height / b, half = b * b / 2;
    bx0 = bx0 < 0 ? 0 : bx0, by0 = by0 < 0 ? 0 : by0;
    bx1 = bx1 >= bw ? bw - 1 : bx1, by1 = by1 >= bh ? bh - 1 : by1;
    for (int by = by0; by <= by1; by++)
        for (int bx = bx0; bx <= bx1; bx++) {
            unsigned sum = 0;
            for (int y = by * b; y < by * b + b; y++) {
                const unsigned char *row = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
                if (f->depth == 8)
                    for (int x = bx * b; x < bx * b + b; x++)
                        sum += row[x];
                else
                    for (int x = bx * b; x < bx * b + b; x++)
                        sum += ((const uint16_t *)(const void *)row)[x];
            }
            unsigned m = (sum + (unsigned)half) / (unsigned)(b * b);
            if (f->depth == 8)
                ((uint8_t *)w->binned)[(size_t)by * bw + bx] = (uint8_t)m;
            else
                ((uint16_t *)w->binned)[(size_t)by * bw + bx] = (uint16_t)m;
        }
}

/* The fraction of 64 points on the circle of radius r round (u, v) inside the frame
 * where the opening (the frame less its white top-hat th: what is larger than a
 * marker) lies above level. */
static double opening_fraction_above(const track_frame *f, const track_frame *th, double u, double v, double r,
                                     double level)
{
    int n = 0, a = 0;
    for (int i = 0; i < 64; i++) {
        int x = (int)floor(u + r * cos(i * M_PI / 32) + 0.5), y = (int)floor(v + r * sin(i * M_PI / 32) + 0.5);
        if (x < 0 || y < 0 || x >= f->width || y >= f->height)
            continue;
        n++;
        a += pix(f, x, y) - pix(th, x, y) > level;
    }
    return n > 0 ? (double)a / n : 0;
}

static double learn_markers(track_detector *d, const track_blob *out, int n_out);

/* One binned plane p (the binned frame, or its white top-hat th_of's: then raw is the
 * binned frame) through the detector with its own state st; each blob not found already
 * in out[0..*n_out) and standing min_height or more above its background is measured at
 * full resolution over its box scaled back and added. The plane's peak is learnt from
 * the blobs kept (and those found already), not from every blob its detector kept: a
 * plate's corners in the top-hat, cut out of the plate below, stood 140 levels high and
 * held the plane's threshold above a ball 27 levels deep (random scene 1062). */
static int binned_pass(track_detector *d, const track_frame *f, const track_frame *p, const track_frame *raw,
                       track_bin_state *st, const track_window *wb, int n_windows, double min_height,
                       track_blob *out, int max_out, int *n_out, icv_err *err)
{
    struct track_detector_ws *w = d->ws;
    int b = w->bin, bw = p->width, bh = p->height, n0 = *n_out;
    double b2 = (double)b * b;
    if (n0 >= max_out)
        return 0;
    /* the same detector in binned pixels */
    track_detector s = *d;
    s.look = TRACK_LOOK_BRIGHT; /* f is the look's plane already */
    s.bright_tophat = 0;
    s.min_area_px = fmax(1, d->min_area_px / b2);
    s.slender_min_area_px = d->slender_min_area_px / b2;
    s.slender_extent_px = d->slender_extent_px / b;
    s.max_area_px = d->max_area_px / b2;
    s.max_streak_px = d->max_streak_px / b;
    s.disc_split_px = d->disc_split_px / b;
    s.blurred_px = d->blurred_px / b;
    s.static_radius_px = d->static_radius_px / b;
    s.centroid_window = 0;
    s.centroid_coverage = 0;
    s.mask = NULL; /* tested at full resolution below */
    s.debug = 0;
    if (d->background_tile_px > 0) {
        int tile = 8 * (int)ceil((double)d->background_tile_px / b / 8);
        s.background_tile_px = tile > 8 ? tile : 8;
    }
    if (d->roi[2] > 0 && d->roi[3] > 0) { /* the bins wholly inside */
        int x0 = (d->roi[0] + b - 1) / b, y0 = (d->roi[1] + b - 1) / b;
        s.roi[0] = x0;
        s.roi[1] = y0;
        s.roi[2] = (d->roi[0] + d->roi[2]) / b - x0;
        s.roi[3] = (d->roi[1] + d->roi[3]) / b - y0;
    }
    /* the binned plane's own state in the workspace while it runs */
    track_static_model full_statics = w->statics;
    double full_noise = w->noise, full_peak = w->peak_ref;
    long full_scans = w->n_full_scans;
    int full_rx[4] = {w->rx0, w->ry0, w->rx1, w->ry1};
    w->statics = st->statics;
    w->noise = st->noise;
    /* in windows the binned frame's noise is its top-hat's when lower: the binned
       frame's tiles, 4 diameters wide in binned pixels, are crossed by a plate's edges
       or a backdrop's shading in most of them, and their spread read as noise put the
       windows' threshold above a ball 25 levels deep (random scenes 1062 and 1183: 6.5
       and 3.8 levels against 1.5-2.6 on the top-hat, the plate's own 1.4-2.9) */
    if (n_windows > 0 && !raw && w->bin_th.noise > 0)
        w->noise = fmin(w->noise, w->bin_th.noise);
    w->peak_ref = st->peak_ref;
    double peak_before = st->peak_ref;
    w->n_full_scans = st->full_scans;
    w->in_bin = 1;
    int nb = 0;
    track_blob *bo = out + n0;
    int rc = track_detector_detect(&s, p, n_windows > 0 ? wb : NULL, n_windows, bo, max_out - n0, &nb, err);
    w->in_bin = 0;
    st->statics = w->statics;
    st->noise = w->noise;
    st->peak_ref = w->peak_ref;
    st->full_scans = w->n_full_scans;
    w->statics = full_statics;
    w->peak_ref = full_peak;
    w->n_full_scans = full_scans;
    w->rx0 = full_rx[0], w->ry0 = full_rx[1], w->rx1 = full_rx[2], w->ry1 = full_rx[3];
    /* full resolution: the noise of one pixel, the binned one's times b (binning
       averaged it down by about b); the full frame's after a top-hat (its spread is
       not the frame's) */
    w->noise = raw && full_noise > 0 ? full_noise : w->noise * b;
    enum { NLEARN = 64 };
    track_blob learnt[NLEARN]; /* the binned blobs the plane's peak is learnt from */
    int k = n0, n_learn = 0;
    for (int i = 0; i < nb && !rc; i++) {
        track_blob o = bo[i];
        comp c = {(int)(o.area * b2), o.x0 * b, o.y0 * b, o.x1 * b + b - 1, o.y1 * b + b - 1};
        double cu = b * o.u + 0.5 * (b - 1), cv = b * o.v + 0.5 * (b - 1);
        int dup = 0; /* found at full resolution or in another plane already */
        for (int j = 0; j < n0 && !dup; j++)
            dup = (cu >= out[j].x0 - b && cu <= out[j].x1 + b && cv >= out[j].y0 - b && cv <= out[j].y1 + b) ||
                  (out[j].u >= c.x0 && out[j].u <= c.x1 && out[j].v >= c.y0 && out[j].v <= c.y1);
        if (dup) {
            if (n_learn < NLEARN)
                learnt[n_learn++] = o;
            continue;
        }
        if (o.peak - o.background < min_height) {
            d->stats.n_rejected_contrast++;
            continue;
        }
        if (raw) {
            /* the top-hat's levels back to the plane's: its opening at the blob's centre
               is what lies under it */
            int ob = (int)floor(o.u + 0.5), ov = (int)floor(o.v + 0.5);
            ob = ob < 0 ? 0 : ob >= bw ? bw - 1 : ob;
            ov = ov < 0 ? 0 : ov >= bh ? bh - 1 : ov;
            double under = pix(raw, ob, ov) - pix(p, ob, ov);
            o.peak += under;
            o.background += under;
            /* at most the plane's brightest pixel in the blob's box: the opening at the
               centre is not what lies under the peak where the blob is a corner of
               something larger (a plate's corner, whose tip the octagon does not reach:
               its opening there is low, at the centre the plate's), and a peak above the
               data put the half height above the plate, which then never counted as
               what the blob was cut from (random scene 1062) */
            double top = 0;
            for (int y = o.y0; y <= o.y1; y++)
                for (int x = o.x0; x <= o.x1; x++)
                    top = fmax(top, pix(raw, x, y));
            o.peak = fmin(o.peak, top);
            /* a tenth of a circle half a bin outside it where something larger than a
               marker stands at half its height or more: cut out of that (a ball
               touching a wall as light as it), whose centroid it is not; a marker
               touching another marker is not (the opening leaves neither) */
            if (opening_fraction_above(raw, p, o.u, o.v, sqrt(o.area / M_PI) + 0.5, 0.5 * (o.peak + o.background)) >
                0.1)
                continue;
        }
        /* above the blob's brightest bin by 3 pixel sigmas: another object's pixel */
        double t = o.peak + 3 * w->noise;
        track_blob m;
        if (track_blob_measure(d, f, &c, 0, o.background, t, t, &m, NULL, NULL) != 0) {
            m = o; /* no positive mass at full resolution: the binned measure, scaled */
            m.u = cu, m.v = cv, m.sigma = o.sigma * b, m.mass = o.mass * b2;
            m.mxx = o.mxx * b2, m.myy = o.myy * b2, m.mxy = o.mxy * b2;
            m.major = o.major * b, m.minor = o.minor * b, m.streak_px = o.streak_px * b;
            m.x0 = c.x0, m.y0 = c.y0, m.x1 = c.x1, m.y1 = c.y1;
        }
        m.area = o.area * b2;
        if (d->mask) {
            int mu = (int)floor(m.u + 0.5), mv = (int)floor(m.v + 0.5);
            if (mu < 0 || mv < 0 || mu >= f->width || mv >= f->height ||
                !d->mask[(size_t)mv * (size_t)d->mask_stride + (size_t)mu]) {
                d->stats.n_rejected_mask++;
                continue;
            }
        }
        if (n_learn < NLEARN)
            learnt[n_learn++] = o;
        out[k++] = m;
        d->stats.n_candidates++;
        if (m.peak > d->stats.brightest)
            d->stats.brightest = m.peak;
    }
    /* the plane's peak again, from the blobs kept: learn_markers in binned pixels */
    w->peak_ref = peak_before;
    w->in_bin = 1;
    learn_markers(&s, learnt, n_learn);
    w->in_bin = 0;
    st->peak_ref = w->peak_ref;
    w->peak_ref = full_peak;
    w->noise = full_noise;
    *n_out = k;
    d->stats.n_blobs = k;
    return rc;
}

/* Large markers, after the full-resolution scan: the detection again on the frame (or
 * look plane) f binned w->bin x w->bin, with the sizes, roi and windows scaled to it,
 * each blob not found at full resolution measured there (binned_pass). Blobs found at
 * full resolution are kept as they were: their centroids from the thresholded
 * component are the more precise (random scenes 1022-1054, balls 20-100 px: binned
 * boxes moved the 2D median by up to 0.1 px). A full scan then reads the binned
 * frame's white top-hat at the marker's size too: a tile's level there is that of
 * what is larger than a marker, where a wall or plate as light as the marker, filling
 * most of the tile, made it the marker's own (random scene 1064: a ball over a dark
 * floor below a light wall, lost in every full scan). A window's level is its own
 * surround's already. */
static int add_binned(track_detector *d, const track_frame *f, const track_window *windows, int n_windows,
                      double found_height, track_blob *out, int max_out, int *n_out, icv_err *err)
{
    struct track_detector_ws *w = d->ws;
    int b = w->bin, bw = f->width / b, bh = f->height / b;
    track_window wb[TRACK_MAX_TRACKS] = {{0}};
    if (n_windows > TRACK_MAX_TRACKS)
        n_windows = TRACK_MAX_TRACKS;
    if (n_windows <= 0) {
        bin_fill(w, f, b, 0, 0, bw - 1, bh - 1);
    } else {
        for (int i = 0; i < n_windows; i++) {
            wb[i] = (track_window){windows[i].x0 / b, windows[i].y0 / b, windows[i].x1 / b, windows[i].y1 / b,
                                   windows[i].blur_px / b};
            bin_fill(w, f, b, wb[i].x0 - LOOK_PAD, wb[i].y0 - LOOK_PAD, wb[i].x1 + LOOK_PAD, wb[i].y1 + LOOK_PAD);
        }
    }
    track_frame raw = {w->binned, bw, bh, bw * (f->depth / 8), f->depth};
    /* what the binned planes add stands the full-resolution threshold's fraction of the
       markers' height off its background: the larger of the learnt one and found_height,
       the median of the blobs found at full resolution in this frame. Each plane learns its
       own threshold from its own blobs, and a textured backdrop's patches the marker's
       size but 10-15 levels high were kept in every full scan next to a ball 195 levels
       high (random scene 5137: nine texture tracks for one ball) */
    double min_height = d->threshold_fraction * fmax(found_height, w->peak_ref);
    int rc = binned_pass(d, f, &raw, NULL, &w->bin_raw, wb, n_windows, min_height, out, max_out, n_out, err);
    if (rc || n_windows > 0)
        return rc;
    track_white_tophat(w, &raw, w->bin_tophat_r > 0 ? w->bin_tophat_r : 1, 0, 0, bw - 1, bh - 1, w->binned_tophat);
    track_frame th = raw;
    th.data = w->binned_tophat;
    return binned_pass(d, f, &th, &raw, &w->bin_th, NULL, 0, min_height, out, max_out, n_out, err);
}

/* px: the tile side for markers diameter_px across: a tile's level is its median, so a
   marker must cover far less than half of it (a ball 60 px across filled 32 px tiles and
   was its own background) */
static int tile_for_diameter(double diameter_px)
{
    int tile = 8 * (int)ceil(4 * diameter_px / 8);
    return tile < TRACK_TILE_MAX ? tile : TRACK_TILE_MAX;
}

/* The markers' peak above background, which the AUTO threshold takes its fraction of,
 * learnt from this frame's blobs and smoothed over frames (0.9 : 0.1). With the markers'
 * count n known it is the n-th strongest blob's: the dimmest marker's when every marker
 * is found and they stand out more than texture does (the median blob was the texture's
 * on a textured backdrop: random scenes 1002, 1175, 1180). A frame finding fewer than n
 * counts each missing marker at the height the threshold asked (it stood out less, or
 * it would have been found), so the peak decays towards what is found: learnt from the
 * survivors alone it ratcheted up, the brightest marker keeping the threshold above the
 * others (1015: 38 -> 91 gray levels in 18 frames). A frame finding none keeps the peak:
 * the markers out of view, hidden or looked for in the wrong look are no sign that they
 * stand out less, and decaying there brought the threshold down to what else is in view
 * (1140: a dark ball's bright probe found the frame's lit edge again in 3 of 6 frames
 * and kept the bright look). One marker, or an unknown count: the median blob (one
 * glare or flash blob does not lift it): the strongest blob of a frame is a ball's only
 * when nothing in view is brighter, and a ruler's bands in Tracker's ball toss set the
 * threshold above the ball (the toss's 2D test: "more than 8 bright blobs").
 * With no marker size given (track_detector_set_marker_size), the tiles grow to 4
 * diameters of a blob the peak is learnt from (the n strongest, or those at least as
 * strong as the median) that covers a quarter of a tile, never shrinking: a ball 33 px
 * across filled a 32 px tile, was that tile's level and was lost in 45 of 108 full
 * scans at half its peak (the video study's one-camera ball, whose depth and so size are not
 * known). Smaller blobs leave the tiles alone: a larger tile follows a plate's edge
 * less closely. Returns the median height of the frame's blobs above their background
 * (gray levels; 0 with none). */
static double learn_markers(track_detector *d, const track_blob *out, int n_out)
{
    struct track_detector_ws *w = d->ws;
    enum { NPK = 64 };
    double pk[NPK]; /* descending: the NPK strongest of all the blobs */
    int ix[NPK];    /* the blob of each */
    int n = n_out < NPK ? n_out : NPK;
    for (int i = 0; i < n_out; i++) {
        double p = out[i].peak - out[i].background;
        int j = i < NPK ? i - 1 : NPK - 1;
        if (i >= NPK && pk[j] >= p)
            continue;
        if (i >= NPK)
            j--; /* the weakest of the list drops out */
        for (; j >= 0 && pk[j] < p; j--)
            pk[j + 1] = pk[j], ix[j + 1] = ix[j];
        pk[j + 1] = p, ix[j + 1] = i;
    }
    double median = n == 0 ? 0 : n % 2 ? pk[n / 2] : 0.5 * (pk[n / 2 - 1] + pk[n / 2]);
    double v;
    int k; /* the strongest k blobs are taken for markers */
    if (d->n_markers >= 2) {
        k = n < d->n_markers ? n : d->n_markers;
        if (n >= d->n_markers && d->n_markers <= NPK)
            v = pk[d->n_markers - 1];
        else if (n == 0) /* none found: no sign they are dimmer, kept (below) */
            return median;
        else if (w->peak_ref > 0) /* a marker missing: at most the threshold's height */
            v = fmin(pk[n - 1], d->threshold_fraction * w->peak_ref);
        else
            v = pk[n - 1]; /* the first frame: what stands out least of what is found */
    } else {
        if (n == 0)
            return median;
        k = n / 2 + 1;
        v = median;
    }
    w->peak_ref = w->peak_ref > 0 ? 0.9 * w->peak_ref + 0.1 * v : v;
    if (w->size_given || w->in_bin || d->background_tile_px <= 0)
        return median;
    /* a marker lifts its tile's median when it covers about half of it; one covering a
       quarter is near that (blur, a position across tiles) */
    int tile = w->tile_learnt > d->background_tile_px ? w->tile_learnt : d->background_tile_px;
    for (int i = 0; i < k; i++) {
        double a = out[ix[i]].area;
        if (a > 0.25 * tile * tile)
            tile = tile_for_diameter(2 * sqrt(a / M_PI));
    }
    w->tile_learnt = tile;
    return median;
}

int track_detector_detect(track_detector *d, const track_frame *f, const track_window *windows, int n_windows,
                          track_blob *out, int max_out, int *n_out, icv_err *err)
{
    struct track_detector_ws *w = d->ws;
    *n_out = 0;
    if (!f || !f->data || (f->depth != 8 && f->depth != 16 && f->depth != 24) || f->width <= 0 || f->height <= 0 ||
        f->width > w->width || f->height > w->height || f->stride < f->width * (f->depth / 8))
        return icv_err_set(err, ICV_EINVAL,
                           "track detector: frame %dx%d depth %d stride %d does not fit the %dx%d workspace",
                           f ? f->width : 0, f ? f->height : 0, f ? f->depth : 0, f ? f->stride : 0, w->width,
                           w->height);
    if (d->look != TRACK_LOOK_BRIGHT) {
        const char *why = NULL;
        if (d->look == TRACK_LOOK_COLOR && f->depth != 24)
            why = "the colour look needs RGB frames (depth 24)";
        else if (d->look != TRACK_LOOK_COLOR && f->depth == 24)
            why = "RGB frames (depth 24) are for the colour look only";
        else if (d->look == TRACK_LOOK_MOTION && !d->motion_background)
            why = "the motion look needs motion_background (track_motion_background)";
        else if (d->look < TRACK_LOOK_BRIGHT || d->look > TRACK_LOOK_MOTION)
            why = "unknown look";
        if (why)
            return icv_err_set(err, ICV_EINVAL, "track detector: look %d on a %dx%d frame of depth %d: %s",
                               (int)d->look, f->width, f->height, f->depth, why);
    } else if (f->depth == 24) {
        return icv_err_set(err, ICV_EINVAL, "track detector: RGB frames (depth 24) are for the colour look only");
    }
    w->tile = d->background_tile_px;
    if (w->tile > 0 && w->tile_learnt > w->tile && !w->in_bin)
        w->tile = w->tile_learnt;
    if (w->tile > TRACK_TILE_MAX)
        w->tile = TRACK_TILE_MAX;
    if (w->tile > 0 && w->tile < 8)
        w->tile = 8;
    memset(&d->stats, 0, sizeof d->stats);
    track_detect_stats *st = &d->stats;
    int full = windows == NULL || n_windows <= 0;
    track_frame plane_frame;
    if (uses_plane(d)) {
        int pd = f->depth == 16 && d->look != TRACK_LOOK_COLOR ? 16 : 8;
        if (d->look == TRACK_LOOK_COLOR)
            track_rgb_to_ycc(d->color_rgb[0], d->color_rgb[1], d->color_rgb[2], &w->key_ycc[0], &w->key_ycc[1],
                             &w->key_ycc[2]);
        if (full) {
            look_fill(d, f, 0, 0, f->width - 1, f->height - 1);
        } else {
            /* binned, the ring and margin reach as many binned pixels out */
            int pad = LOOK_PAD * (w->bin > 1 && !w->in_bin ? w->bin : 1);
            for (int i = 0; i < n_windows; i++) {
                int ax = windows[i].x0 - pad, ay = windows[i].y0 - pad;
                int bx = windows[i].x1 + pad, by = windows[i].y1 + pad;
                look_fill(d, f, ax < 0 ? 0 : ax, ay < 0 ? 0 : ay, bx >= f->width ? f->width - 1 : bx,
                          by >= f->height ? f->height - 1 : by);
            }
        }
        plane_frame = (track_frame){w->plane, f->width, f->height, f->width * pd / 8, pd};
        f = &plane_frame;
    }
    st->full_scan = full;
    /* the region of interest, clipped to the frame */
    int rx0 = 0, ry0 = 0, rx1 = f->width - 1, ry1 = f->height - 1;
    if (d->roi[2] > 0 && d->roi[3] > 0) {
        rx0 = d->roi[0] > 0 ? d->roi[0] : 0;
        ry0 = d->roi[1] > 0 ? d->roi[1] : 0;
        long ex = (long)d->roi[0] + d->roi[2] - 1, ey = (long)d->roi[1] + d->roi[3] - 1; /* no int overflow */
        rx1 = ex < rx1 ? (int)ex : rx1;
        ry1 = ey < ry1 ? (int)ey : ry1;
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
        if (w->tile > 0)
            track_tile_background(w, f, &frame_bg, &noise);
        else
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
    double found_height = learn_markers(d, out, *n_out);
    st->n_blobs = *n_out;
    if (w->bin > 1 && !w->in_bin)
        return add_binned(d, f, windows, full ? 0 : n_windows, found_height, out, max_out, n_out, err);
    return 0;
}

void track_detector_set_scene_markers(track_detector *d)
{
    d->threshold_fraction = 0.5;
    d->min_circularity = 0.01;
    d->centroid_margin_px = 1;
}

int track_detector_tophat_usable(const track_detector *d)
{
    return d->ws->white_tophat_r > 0;
}

void track_detector_set_marker_size(track_detector *d, double diameter_px, double max_streak_px)
{
    double r = 0.5 * diameter_px, disc = M_PI * r * r, aspect = fmax(1, d->marker_aspect);
    d->min_area_px = fmax(1, 0.25 * disc * fmin(1, fmax(0.1, d->marker_fill)));
    d->slender_min_area_px = fmax(1, d->min_area_px / 3);
    /* under 12 px a blob 0.8 diameters long is a codec speck's size: random scene 1153's
       9.6 px stickers gained 200 such tracks */
    d->slender_extent_px = d->markers_round || diameter_px < 12 ? 0 : 0.8 * diameter_px;
    d->max_area_px = 3 * (disc + diameter_px * fmax(max_streak_px, 0));
    d->max_streak_px = max_streak_px;
    int tile = tile_for_diameter(aspect * diameter_px);
    if (d->background_tile_px > 0 && tile > d->background_tile_px)
        d->background_tile_px = tile;
    d->ws->size_given = 1;
    /* the dark look's top-hat octagon: radius d, wider than a marker seen up to twice
       its expected size (a band, a bead, a sticker, a streak's width), which it fills
       from the body round it. Markers found binned too (16 px or more: balls, most of
       them the whole body, seen against the plate) keep max - I: the closing reaches 2d
       (100 px and more) over the plate's glints and the body's other parts, which costs
       large balls |g| and v (docs/track.md "Figures behind the code") */
    int tr = (int)ceil(diameter_px);
    d->ws->tophat_r = diameter_px >= TRACK_BIN_MIN_DIAMETER ? 0 : tr < 1 ? 1 : tr;
    /* the bright look's white top-hat (read only where asked: bright_tophat) reaches
       binned beads and stickers too: light markers on a dark body over a light plate,
       one region with the plate in plain bright whatever their size. An opening, unlike
       the dark look's closing, never fills a ball from the plate round it; its octagon
       stays at most TRACK_TOPHAT_MAX_R, which still leaves a marker of
       TRACK_WHITE_TOPHAT_MAX_D whole */
    d->ws->white_tophat_r = diameter_px < TRACK_BIN_MIN_DIAMETER       ? d->ws->tophat_r
                            : diameter_px <= TRACK_WHITE_TOPHAT_MAX_D ? TRACK_TOPHAT_MAX_R
                                                                       : 0;
    int bin = diameter_px >= TRACK_BIN_MIN_DIAMETER ? (int)(diameter_px / 8) : 1;
    d->ws->bin = bin < TRACK_BIN_MAX ? bin : TRACK_BIN_MAX;
    d->ws->bin_tophat_r = (int)ceil(diameter_px / d->ws->bin);
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
             "%s%s%s, %s; %d components, %d kept; rejected: %d area [%.0f, %.0f] px, %d contrast, %d shape, %d "
             "static, %d mask, %d frame edge, %d window edge, %d overflow; %d split; brightest blob peak %.0f",
             s->full_scan ? "full scan" : "windows", uses_plane(d) ? ", look " : "",
             !uses_plane(d)                 ? ""
             : d->look == TRACK_LOOK_BRIGHT ? "bright top-hat"
                                            : track_look_name(d->look),
             thr, s->n_components, s->n_blobs,
             s->n_rejected_area, d->min_area_px, d->max_area_px, s->n_rejected_contrast, s->n_rejected_shape,
             s->n_rejected_static, s->n_rejected_mask, s->n_rejected_edge, s->n_clipped, s->n_overflow, s->n_split,
             s->brightest);
    return buf;
}

int track_detector_learn_background(track_detector *d, const track_frame *frames, int n, icv_err *err)
{
    if (n < 1 || frames[0].width > d->ws->width || frames[0].height > d->ws->height)
        return icv_err_set(err, ICV_EINVAL, "track detector: %d frames of %dx%d for a %dx%d workspace", n,
                           n > 0 ? frames[0].width : 0, n > 0 ? frames[0].height : 0, d->ws->width, d->ws->height);
    int stride = frames[0].width * (frames[0].depth / 8);
    int rc = track_motion_background(frames, n, d->ws->still, stride, err);
    if (rc)
        return rc;
    d->motion_background = d->ws->still;
    d->motion_background_stride = stride;
    return 0;
}
