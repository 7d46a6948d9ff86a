/* blob_detect.c: bright-marker detection on a gray frame. Pixels above a threshold
 * are gathered into runs, runs into 8-connected components in one pass with a
 * union-find over runs (the run-based labelling of Rosenfeld & Pfaltz 1966, as in
 * He et al. 2017's review), then each component gets an intensity-weighted centroid
 * with the local background subtracted, its second moments, and a 1-sigma error by
 * first-order propagation of pixel noise (Savin & Doyle 2005, Biophys. J. 88:623,
 * "static error"). A blob-level background model learns still bright objects. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "track/static_model.h"
#include "track/track.h"

typedef struct {
    int y, x0, x1; /* px, inclusive */
} run;


typedef struct {
    int area;
    int x0, y0, x1, y1;
} comp;

struct track_detector_ws {
    int width, height;
    int max_runs;
    run *runs;
    int *parent; /* union-find over runs */
    int *label;  /* component of each run */
    comp *comps;
    unsigned *hist; /* 65536 bins */
    track_static_model statics;
    int rects[TRACK_MAX_TRACKS][4]; /* px: the regions searched this frame */
    double peak_ref;     /* gray levels above background: the markers' typical peak */
    double noise;        /* gray levels: last full-scan noise estimate (0 = none yet) */
    long n_full_scans;
    int rx0, ry0, rx1, ry1; /* px: the frame clipped to the roi, this frame */
};

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
    d->min_area_px = 4;
    d->max_area_px = 2000;
    d->min_circularity = 0.4;
    d->max_streak_px = 40;
    d->blurred_px = 2;
    d->saturation_level = 0;
    d->gain = 0;
    d->static_frames = 50;
    d->static_radius_px = 0.5;
    d->max_blobs = 256;
    d->debug = 0;
    d->debug_dir = ".";

    w->width = width;
    w->height = height;
    /* Runs: a real frame has a few per marker row; noise at a too-low threshold is
     * what fills this, and then the frame is reported (n_overflow), not grown into. */
    w->max_runs = 65536;
    w->runs = malloc(sizeof(run) * (size_t)w->max_runs);
    w->parent = malloc(sizeof(int) * (size_t)w->max_runs);
    w->label = malloc(sizeof(int) * (size_t)w->max_runs);
    w->comps = malloc(sizeof(comp) * (size_t)w->max_runs);
    w->hist = malloc(sizeof(unsigned) * 65536);
    d->n_allocs = 7;
    if (!w->runs || !w->parent || !w->label || !w->comps || !w->hist) {
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

/* ---- pixels ------------------------------------------------------------- */

static inline double pix(const track_frame *f, int x, int y)
{
    const unsigned char *row = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
    return f->depth == 8 ? row[x] : ((const uint16_t *)(const void *)row)[x];
}

/* Appends the runs of pixels > t (an integer level) in row y, columns [x0, x1].
 * The 8-bit path tests 8 pixels at once ("hasmore", Anderson's Bit Twiddling Hacks)
 * since almost every pixel of a frame is background. */
static int row_runs(const track_frame *f, int y, int x0, int x1, int t, run *runs, int n, int cap, int *overflow)
{
    const unsigned char *row = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
    int x = x0, in = 0, start = 0;
    if (f->depth == 8) {
        if (t >= 255)
            return n;
        const uint64_t ones = ~0ULL / 255, highs = ones * 128;
        while (x <= x1) {
            if (!in && x + 8 <= x1 + 1) {
                uint64_t w;
                memcpy(&w, row + x, 8);
                uint64_t any = t < 128 ? (((w + ones * (uint64_t)(127 - t)) | w) & highs) : (w & highs);
                if (!any) {
                    x += 8;
                    continue;
                }
            }
            int above = row[x] > t;
            if (above && !in) {
                in = 1;
                start = x;
            } else if (!above && in) {
                in = 0;
                if (n >= cap) {
                    (*overflow)++;
                    return n;
                }
                runs[n++] = (run){y, start, x - 1};
            }
            x++;
        }
    } else {
        const uint16_t *r16 = (const uint16_t *)(const void *)row;
        for (; x <= x1; x++) {
            int above = r16[x] > t;
            if (above && !in) {
                in = 1;
                start = x;
            } else if (!above && in) {
                in = 0;
                if (n >= cap) {
                    (*overflow)++;
                    return n;
                }
                runs[n++] = (run){y, start, x - 1};
            }
        }
    }
    if (in) {
        if (n >= cap) {
            (*overflow)++;
            return n;
        }
        runs[n++] = (run){y, start, x1};
    }
    return n;
}

static int uf_find(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]]; /* path halving */
        i = parent[i];
    }
    return i;
}

static void uf_union(int *parent, int a, int b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

/* ---- background and threshold -------------------------------------------- */

/* Median and robust sigma (1.4826 MAD) of a 1-in-16 sample of the frame. */
static void frame_background(track_detector *d, const track_frame *f, double *bg, double *noise)
{
    unsigned *h = d->ws->hist;
    int nb = f->depth == 8 ? 256 : 65536;
    memset(h, 0, sizeof(unsigned) * (size_t)nb);
    long n = 0;
    for (int y = 1; y < f->height; y += 4)
        for (int x = 1; x < f->width; x += 4) {
            h[(int)pix(f, x, y)]++;
            n++;
        }
    long half = (n + 1) / 2, acc = 0;
    int med = 0;
    for (; med < nb; med++) {
        acc += h[med];
        if (acc >= half)
            break;
    }
    /* MAD: grow a band around the median until it holds half of the samples. */
    acc = h[med];
    int r = 0;
    while (acc < half && r < nb) {
        r++;
        if (med - r >= 0)
            acc += h[med - r];
        if (med + r < nb)
            acc += h[med + r];
    }
    *bg = med;
    *noise = 1.4826 * r;
}

/* Threshold above background (gray levels) in AUTO mode. */
static double auto_rel_threshold(const track_detector *d, double noise, int depth)
{
    (void)depth;
    /* one gray level (the quantum) is the floor of the noise: a noiseless frame still
     * needs a threshold above its rounding */
    double t = d->threshold_k_sigma * fmax(noise, 1.0);
    if (d->ws->peak_ref > 0)
        t = fmax(t, d->threshold_fraction * d->ws->peak_ref);
    return t;
}

/* Background of a window: the lowest mean of its four sides (a bright object on one
 * side does not lift it). */
static double window_background(const track_frame *f, int x0, int y0, int x1, int y1)
{
    double s[4] = {0, 0, 0, 0};
    for (int x = x0; x <= x1; x++) {
        s[0] += pix(f, x, y0);
        s[1] += pix(f, x, y1);
    }
    for (int y = y0; y <= y1; y++) {
        s[2] += pix(f, x0, y);
        s[3] += pix(f, x1, y);
    }
    double nx = x1 - x0 + 1, ny = y1 - y0 + 1;
    return fmin(fmin(s[0] / nx, s[1] / nx), fmin(s[2] / ny, s[3] / ny));
}

/* ---- one component -------------------------------------------------------- */

/* Measures component c: background and noise from the ring just outside its box grown
 * by the margin, then sums over the grown box of w = I - b:
 *   u = sum(w x) / W,  W = sum(w)
 * and, to first order in independent pixel errors e_i (variance s_i^2) and an error
 * e_b of the background (variance s_n^2 / N_ring, the mean of the ring),
 *   var(u) = [sum(s_i^2 (x_i - u)^2) + (s_n^2 / N_ring) (sum(x_i - u))^2] / W^2
 * with s_i^2 = s_n^2 + gain * max(w_i, 0): Savin & Doyle's static error (their eq. for
 * the centroid estimator) written for our weights. Returns 0, or -1 for W <= 0. */
static int measure(const track_detector *d, const track_frame *f, const comp *c, int crowded, double frame_bg,
                   track_blob *b)
{
    int m = crowded ? 0 : d->centroid_margin_px;
    int X0 = c->x0 - m, Y0 = c->y0 - m, X1 = c->x1 + m, Y1 = c->y1 + m;
    if (X0 < 0) X0 = 0;
    if (Y0 < 0) Y0 = 0;
    if (X1 > f->width - 1) X1 = f->width - 1;
    if (Y1 > f->height - 1) Y1 = f->height - 1;

    /* ring: the one-pixel border just outside the box (inside the frame) */
    double rs = 0, rs2 = 0;
    int rn = 0;
    for (int x = X0 - 1; x <= X1 + 1; x++) {
        if (x < 0 || x >= f->width)
            continue;
        if (Y0 - 1 >= 0) {
            double p = pix(f, x, Y0 - 1);
            rs += p;
            rs2 += p * p;
            rn++;
        }
        if (Y1 + 1 < f->height) {
            double p = pix(f, x, Y1 + 1);
            rs += p;
            rs2 += p * p;
            rn++;
        }
    }
    for (int y = Y0; y <= Y1; y++) {
        if (X0 - 1 >= 0) {
            double p = pix(f, X0 - 1, y);
            rs += p;
            rs2 += p * p;
            rn++;
        }
        if (X1 + 1 < f->width) {
            double p = pix(f, X1 + 1, y);
            rs += p;
            rs2 += p * p;
            rn++;
        }
    }
    double sat = d->saturation_level > 0 ? d->saturation_level : f->depth == 8 ? 255 : 65535;
    double bg = frame_bg, noise = d->ws->noise;
    if (rn >= 8 && !crowded) {
        bg = rs / rn;
        noise = sqrt(fmax(rs2 / rn - bg * bg, 0) * rn / (rn - 1.0));
    }
    /* sums relative to the box origin keep the moments well conditioned */
    double W = 0, Sx = 0, Sy = 0, Sxx = 0, Syy = 0, Sxy = 0, peak = -1;
    double Wp = 0, Wpx = 0, Wpy = 0, Wpxx = 0, Wpyy = 0; /* positive weights, for shot noise */
    int nsat = 0;
    for (int y = Y0; y <= Y1; y++) {
        double yy = y - Y0;
        for (int x = X0; x <= X1; x++) {
            double p = pix(f, x, y), w = p - bg, xx = x - X0;
            if (x >= c->x0 && x <= c->x1 && y >= c->y0 && y <= c->y1) {
                if (p > peak)
                    peak = p;
                if (p >= sat)
                    nsat++;
            }
            W += w;
            Sx += w * xx;
            Sy += w * yy;
            Sxx += w * xx * xx;
            Syy += w * yy * yy;
            Sxy += w * xx * yy;
            if (w > 0) {
                Wp += w;
                Wpx += w * xx;
                Wpy += w * yy;
                Wpxx += w * xx * xx;
                Wpyy += w * yy * yy;
            }
        }
    }
    if (!(W > 0))
        return -1;
    double cx = Sx / W, cy = Sy / W;
    double mxx = Sxx / W - cx * cx, myy = Syy / W - cy * cy, mxy = Sxy / W - cx * cy;

    /* the box's own geometric sums (closed forms over 0..nx-1, 0..ny-1) */
    double nx = X1 - X0 + 1, ny = Y1 - Y0 + 1, N = nx * ny;
    double sx = ny * nx * (nx - 1) / 2, sxx = ny * (nx - 1) * nx * (2 * nx - 1) / 6;
    double sy = nx * ny * (ny - 1) / 2, syy = nx * (ny - 1) * ny * (2 * ny - 1) / 6;
    double dx2 = sxx - 2 * cx * sx + N * cx * cx, dy2 = syy - 2 * cy * sy + N * cy * cy; /* sum (x_i - u)^2 */
    double dx1 = sx - N * cx, dy1 = sy - N * cy;                                      /* sum (x_i - u) */
    double s2 = noise * noise, sb2 = rn > 0 ? s2 / rn : s2;
    double shot_x = d->gain * (Wpxx - 2 * cx * Wpx + cx * cx * Wp);
    double shot_y = d->gain * (Wpyy - 2 * cy * Wpy + cy * cy * Wp);
    double varx = (s2 * dx2 + shot_x + sb2 * dx1 * dx1) / (W * W);
    double vary = (s2 * dy2 + shot_y + sb2 * dy1 * dy1) / (W * W);

    memset(b, 0, sizeof *b);
    b->u = X0 + cx;
    b->v = Y0 + cy;
    b->sigma = sqrt(0.5 * (varx + vary));
    b->area = c->area;
    b->mass = W;
    b->peak = peak;
    b->background = bg;
    b->mxx = mxx;
    b->myy = myy;
    b->mxy = mxy;
    double tr = mxx + myy, det = mxx * myy - mxy * mxy, disc = sqrt(fmax(tr * tr / 4 - det, 0));
    double l1 = tr / 2 + disc, l2 = fmax(tr / 2 - disc, 0);
    b->major = sqrt(fmax(l1, 0));
    b->minor = sqrt(l2);
    b->angle = 0.5 * atan2(2 * mxy, mxx - myy);
    b->streak_px = sqrt(12 * fmax(l1 - l2, 0));
    b->n_saturated = nsat;
    b->x0 = c->x0;
    b->y0 = c->y0;
    b->x1 = c->x1;
    b->y1 = c->y1;
    if (nsat > 0)
        b->flags |= TRACK_FLAG_SATURATED;
    if (b->streak_px > d->blurred_px)
        b->flags |= TRACK_FLAG_BLURRED;
    return 0;
}

/* Circularity after removing the expected blur (blur_px > 0, a window's prediction),
 * or, in a full scan, a streak whose area fits a disc swept along its major axis. */
static int shape_ok(const track_detector *d, const track_blob *b, double blur_px)
{
    double l1 = b->major * b->major, l2 = b->minor * b->minor;
    if (l1 <= 0)
        return 1;
    double c = l2 / fmax(l1 - blur_px * blur_px / 12, l2);
    if (c >= d->min_circularity)
        return 1;
    if (blur_px > 0 || b->streak_px > d->max_streak_px)
        return 0;
    /* A disc of radius r (minor^2 = r^2/4) swept by L covers pi r^2 + 2 r L pixels. */
    double r = 2 * b->minor, want = M_PI * r * r + 2 * r * b->streak_px;
    return b->area > 0.5 * want && b->area < 1.5 * want;
}

/* ---- one region (a window or the whole frame) ------------------------------ */

static void detect_region(track_detector *d, const track_frame *f, int x0, int y0, int x1, int y1, double blur_px,
                          int full, double frame_bg, track_blob *out, int max_out, int *n_out)
{
    struct track_detector_ws *w = d->ws;
    track_detect_stats *st = &d->stats;
    double bg = full ? frame_bg : window_background(f, x0, y0, x1, y1);
    double t_abs;
    if (d->threshold_mode == TRACK_THRESHOLD_FIXED) {
        t_abs = d->threshold_level;
    } else {
        t_abs = bg + auto_rel_threshold(d, w->noise, f->depth);
    }
    if (full)
        st->threshold = t_abs;
    int t = (int)floor(t_abs);
    st->n_pixels += (long)(x1 - x0 + 1) * (y1 - y0 + 1);

    /* runs, linked to the previous row's runs as they are found */
    int n = 0, prev_a = 0, prev_b = 0;
    for (int y = y0; y <= y1; y++) {
        int cur = n;
        n = row_runs(f, y, x0, x1, t, w->runs, n, w->max_runs, &st->n_overflow);
        int q = prev_a;
        for (int r = cur; r < n; r++) {
            w->parent[r] = r;
            if (prev_b > prev_a && w->runs[prev_a].y != y - 1)
                continue;
            while (q < prev_b && w->runs[q].x1 < w->runs[r].x0 - 1)
                q++;
            for (int k = q; k < prev_b && w->runs[k].x0 <= w->runs[r].x1 + 1; k++)
                uf_union(w->parent, r, k);
        }
        prev_a = cur;
        prev_b = n;
    }
    /* components */
    int nc = 0;
    for (int r = 0; r < n; r++) {
        int root = uf_find(w->parent, r);
        if (root == r) {
            w->label[r] = nc;
            w->comps[nc++] = (comp){0, w->runs[r].x0, w->runs[r].y, w->runs[r].x1, w->runs[r].y};
        }
        comp *c = &w->comps[w->label[root]];
        const run *rr = &w->runs[r];
        c->area += rr->x1 - rr->x0 + 1;
        if (rr->x0 < c->x0) c->x0 = rr->x0;
        if (rr->x1 > c->x1) c->x1 = rr->x1;
        if (rr->y < c->y0) c->y0 = rr->y;
        if (rr->y > c->y1) c->y1 = rr->y;
        w->label[r] = w->label[root];
    }
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
        if (measure(d, f, c, crowded, bg, &b) != 0)
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
        if (!shape_ok(d, &b, blur_px)) {
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
        frame_background(d, f, &frame_bg, &noise);
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
    /* the markers' typical peak above background, for the AUTO threshold */
    if (*n_out > 0) {
        double best = 0;
        for (int i = 0; i < *n_out; i++)
            best = fmax(best, out[i].peak - out[i].background);
        w->peak_ref = w->peak_ref > 0 ? 0.9 * w->peak_ref + 0.1 * best : best;
    }
    st->n_blobs = *n_out;
    return 0;
}
