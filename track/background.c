/* background.c: the background level and noise of a frame (median and 1.4826 x MAD
 * of a sparse sample: robust to the few marker pixels) or of a window (its darkest
 * side), and the automatic threshold above that background. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "track/detect_internal.h"

/* Median (*bg) and 1.4826 MAD (*noise) of the n samples counted in h[0..nb). */
static void hist_median_mad(const unsigned *h, int nb, long n, double *bg, double *noise)
{
    /* Integer levels: bin v holds [v - 0.5, v + 0.5), and the median and the MAD are
     * interpolated inside their bins, or a noise of 2 levels would read as 1.48 or
     * 2.97 (1.4826 x an integer). */
    double half = 0.5 * n, acc = 0;
    int med = 0;
    for (; med < nb - 1; med++) {
        if (acc + h[med] >= half)
            break;
        acc += h[med];
    }
    *bg = med - 0.5 + (h[med] > 0 ? (half - acc) / h[med] : 0.5);
    /* MAD: grow a band of whole bins around the median until it holds half of the
     * samples, then interpolate within the last ring of bins added */
    double in = h[med];
    int r = 0;
    if (in >= half) {
        *noise = 1.4826 * 0.5 * half / in;
        return;
    }
    while (r < nb) {
        r++;
        double ring = (med - r >= 0 ? h[med - r] : 0) + (med + r < nb ? h[med + r] : 0);
        if (in + ring >= half) {
            *noise = 1.4826 * (r - 0.5 + (ring > 0 ? (half - in) / ring : 0));
            return;
        }
        in += ring;
    }
    *noise = 1.4826 * r;
}

void track_frame_background(struct track_detector_ws *w, const track_frame *f, double *bg, double *noise)
{
    unsigned *h = w->hist;
    int nb = f->depth == 8 ? 256 : 65536;
    memset(h, 0, sizeof(unsigned) * (size_t)nb);
    long n = 0;
    for (int y = 1; y < f->height; y += 4)
        for (int x = 1; x < f->width; x += 4) {
            h[(int)pix(f, x, y)]++;
            n++;
        }
    hist_median_mad(h, nb, n, bg, noise);
}

/* The k-th smallest of v[0..n) (Hoare's selection; v is reordered). */
static int select_kth(int *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (hi > lo) {
        int p = v[(lo + hi) / 2], i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i <= j) {
                int t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* px: the tiles' sample grid: 16 pixels of a 32 px tile. Selecting the median of 64
 * (a 4 px grid) cost 0.6 ms of a 1280x720 frame, twice the rest of the scan. */
#define TILE_STEP 8

/* Each tile's level is the median of its sample (one pixel in 64): a marker covers far less than half a tile, a plate or a lit board
 * more, so the level follows the plate and not the marker. The noise is the MAD of
 * the samples about their own tile's level, so the plate's edge or a gradient does not
 * read as noise (only the tiles the edge crosses spread, a minority). */
void track_tile_background(struct track_detector_ws *w, const track_frame *f, double *bg, double *noise)
{
    int T = w->tile;
    w->ntx = (f->width + T - 1) / T;
    w->nty = (f->height + T - 1) / T;
    unsigned *h = w->hist;
    const int off = 32768; /* residuals -32768..32767 into 65536 bins */
    int nb = f->depth == 8 ? 512 : 65536, base = f->depth == 8 ? 256 : off;
    memset(h, 0, sizeof(unsigned) * (size_t)(f->depth == 8 ? 768 : nb));
    int buf[(TRACK_TILE_MAX / TILE_STEP + 1) * (TRACK_TILE_MAX / TILE_STEP + 1)];
    int srt[(TRACK_TILE_MAX / TILE_STEP + 1) * (TRACK_TILE_MAX / TILE_STEP + 1)];
    long n = 0;
    for (int ty = 0; ty < w->nty; ty++)
        for (int tx = 0; tx < w->ntx; tx++) {
            int x0 = tx * T, y0 = ty * T, x1 = x0 + T, y1 = y0 + T, k = 0;
            if (x1 > f->width)
                x1 = f->width;
            if (y1 > f->height)
                y1 = f->height;
            for (int y = y0 + 2; y < y1; y += TILE_STEP)
                for (int x = x0 + 2; x < x1; x += TILE_STEP)
                    buf[k++] = (int)pix(f, x, y);
            int med = 0;
            if (k > 0) {
                memcpy(srt, buf, sizeof(int) * (size_t)k);
                med = select_kth(srt, k, k / 2);
            } else { /* a sliver of a tile at the frame's edge: its neighbour's level */
                med = tx > 0 ? (int)w->tile_level[ty * w->ntx + tx - 1]
                             : ty > 0 ? (int)w->tile_level[(ty - 1) * w->ntx] : 0;
            }
            w->tile_level[ty * w->ntx + tx] = med;
            /* the tile's own spread (1.4826 MAD, integer): texture raises it where it is */
            double tn = 0;
            if (k >= 4) {
                for (int i = 0; i < k; i++)
                    srt[i] = abs(buf[i] - med);
                tn = 1.4826 * select_kth(srt, k, k / 2);
            }
            w->tile_noise[ty * w->ntx + tx] = tn;
            for (int i = 0; i < k; i++) {
                int r = buf[i] - med + base;
                h[r < 0 ? 0 : r >= nb ? nb - 1 : r]++;
            }
            if (f->depth == 8)
                for (int i = 0; i < k; i++)
                    h[512 + buf[i]]++;
            n += k;
        }
    double rmed;
    hist_median_mad(h, nb, n, &rmed, noise);
    /* texture's spread: the lowest of each tile's and its 8 neighbours' (kept in
       tile_t's place until the threshold is made): a textured floor spreads over many
       tiles, a plate's edge only over those it crosses, which must not read as noise */
    int nt = w->ntx * w->nty;
    double *lo = (double *)(void *)w->tile_noise + nt; /* the second half of the array */
    for (int ty = 0; ty < w->nty; ty++)
        for (int tx = 0; tx < w->ntx; tx++) {
            double m = w->tile_noise[ty * w->ntx + tx];
            for (int j = ty - 1; j <= ty + 1; j++)
                for (int i = tx - 1; i <= tx + 1; i++)
                    if (i >= 0 && j >= 0 && i < w->ntx && j < w->nty)
                        m = fmin(m, w->tile_noise[j * w->ntx + i]);
            lo[ty * w->ntx + tx] = m;
        }
    memcpy(w->tile_noise, lo, sizeof(double) * (size_t)nt);
    if (f->depth == 8) { /* the frame's background: the median pixel, interpolated */
        double mad;
        hist_median_mad(h + 512, 256, n, bg, &mad);
        return;
    }
    /* 16-bit: the median tile level (a report, and the level of crowded blobs) */
    for (int i = 0; i < nt; i++)
        w->samp[i % TRACK_SPLIT_SAMPLES] = (int)w->tile_level[i];
    nt = nt < TRACK_SPLIT_SAMPLES ? nt : TRACK_SPLIT_SAMPLES;
    *bg = select_kth(w->samp, nt, nt / 2); /* qsort may allocate */
}

double track_component_level(struct track_detector_ws *w, const track_frame *f, const comp *c, double t)
{
    long area = (long)(c->x1 - c->x0 + 1) * (c->y1 - c->y0 + 1);
    int step = 1;
    while (area / ((long)step * step) > TRACK_SPLIT_SAMPLES)
        step++;
    int k = 0;
    for (int y = c->y0; y <= c->y1; y += step)
        for (int x = c->x0; x <= c->x1 && k < TRACK_SPLIT_SAMPLES; x += step) {
            double p = pix(f, x, y);
            if (p > t)
                w->samp[k++] = (int)p;
        }
    return k > 0 ? select_kth(w->samp, k, k / 2) : t;
}

double track_auto_threshold(const track_detector *d, double noise, double headroom)
{
    /* one gray level (the quantum) is the floor of the noise: a noiseless frame still
     * needs a threshold above its rounding */
    double t = d->threshold_k_sigma * fmax(noise, 1.0);
    /* a marker cannot rise above saturation: over a background lifted towards it (the
     * flash), the peak to expect is at most the headroom left, else a flash frame's
     * threshold lies above 255 and loses every marker (docs/track.md "Figures behind
     * the code") */
    if (d->ws->peak_ref > 0)
        t = fmax(t, d->threshold_fraction * fmin(d->ws->peak_ref, headroom));
    /* never above the data's range: a level no pixel can pass finds nothing and says
       nothing (a background of 245 with noise 8 asked for 293 on 8-bit video) */
    return fmax(fmin(t, headroom - 1), 0);
}

/* The lowest side: a bright object on one side does not lift it. */
double track_window_background(const track_frame *f, int x0, int y0, int x1, int y1)
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

