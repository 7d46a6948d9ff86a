/* background.c: the background level and noise of a frame (median and 1.4826 x MAD
 * of a sparse sample: robust to the few marker pixels) or of a window (its darkest
 * side), and the automatic threshold above that background. */
#include <limits.h>
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

/* The k-th smallest (from 0) of the n values v[] >= 0, bit by bit from the highest the
 * largest value has: the answer is the largest r with fewer than k + 1 values below it.
 * Each bit is one pass counting the values below a candidate, without a branch on the
 * data: a tile's samples are noise, so quickselect's comparisons were a coin toss for
 * the branch predictor, and its two selections per tile took 37% of a 1280x720 full
 * scan (docs/track.md, session 23). A flat floor's samples need a few bits only. */
static int select_kth_bitwise(const int *v, int n, int k)
{
    int top = 0;
    for (int i = 0; i < n; i++)
        top |= v[i];
    int r = 0;
    for (int b = 30; b >= 0; b--) {
        if (!(top >> b))
            continue;
        int t = r | 1 << b, below[8] = {0}, c = 0, i = 0;
        for (; i + 8 <= n; i += 8) /* fixed length: compilers count 8 at once */
            for (int j = 0; j < 8; j++)
                below[j] += v[i + j] < t;
        for (; i < n; i++)
            c += v[i] < t;
        for (int j = 0; j < 8; j++)
            c += below[j];
        if (c <= k)
            r = t;
    }
    return r;
}

/* Sorts v[0..16) ascending with Batcher's odd-even merge network (63 compare-exchanges,
 * each a min and a max, no branch on the data): the 16 samples of a 32 px tile in a
 * third fewer instructions than select_kth_bitwise's passes. */
static void sort16(int *v)
{
#define SORT_PAIR(i, j)                                                 \
    {                                                                   \
        int a_ = v[i], b_ = v[j];                                       \
        v[i] = a_ < b_ ? a_ : b_;                                       \
        v[j] = a_ < b_ ? b_ : a_;                                       \
    }
    SORT_PAIR(0, 1) SORT_PAIR(2, 3) SORT_PAIR(4, 5) SORT_PAIR(6, 7)
    SORT_PAIR(8, 9) SORT_PAIR(10, 11) SORT_PAIR(12, 13) SORT_PAIR(14, 15)
    SORT_PAIR(0, 2) SORT_PAIR(1, 3) SORT_PAIR(4, 6) SORT_PAIR(5, 7)
    SORT_PAIR(8, 10) SORT_PAIR(9, 11) SORT_PAIR(12, 14) SORT_PAIR(13, 15)
    SORT_PAIR(1, 2) SORT_PAIR(5, 6) SORT_PAIR(9, 10) SORT_PAIR(13, 14)
    SORT_PAIR(0, 4) SORT_PAIR(1, 5) SORT_PAIR(2, 6) SORT_PAIR(3, 7)
    SORT_PAIR(8, 12) SORT_PAIR(9, 13) SORT_PAIR(10, 14) SORT_PAIR(11, 15)
    SORT_PAIR(2, 4) SORT_PAIR(3, 5) SORT_PAIR(10, 12) SORT_PAIR(11, 13)
    SORT_PAIR(1, 2) SORT_PAIR(3, 4) SORT_PAIR(5, 6) SORT_PAIR(9, 10) SORT_PAIR(11, 12) SORT_PAIR(13, 14)
    SORT_PAIR(0, 8) SORT_PAIR(1, 9) SORT_PAIR(2, 10) SORT_PAIR(3, 11)
    SORT_PAIR(4, 12) SORT_PAIR(5, 13) SORT_PAIR(6, 14) SORT_PAIR(7, 15)
    SORT_PAIR(4, 8) SORT_PAIR(5, 9) SORT_PAIR(6, 10) SORT_PAIR(7, 11)
    SORT_PAIR(2, 4) SORT_PAIR(3, 5) SORT_PAIR(6, 8) SORT_PAIR(7, 9) SORT_PAIR(10, 12) SORT_PAIR(11, 13)
    SORT_PAIR(1, 2) SORT_PAIR(3, 4) SORT_PAIR(5, 6) SORT_PAIR(7, 8)
    SORT_PAIR(9, 10) SORT_PAIR(11, 12) SORT_PAIR(13, 14)
#undef SORT_PAIR
}

/* track_sample_median_mad for n <= 16: sorted, then the MAD read off the sorted samples */
static void median_mad16(const int *v, int n, int want_mad, int *med, int *mad)
{
    int s[16]; /* padded with the largest int, which sorts past the n samples */
    for (int i = 0; i < 16; i++)
        s[i] = i < n ? v[i] : INT_MAX;
    sort16(s);
    int m = n / 2;
    *med = s[m];
    if (!want_mad)
        return;
    /* |s - med| is two sorted lists, med - s[m - 1 - i] and s[m + j] - med: their
       merge's m-th, by a walk of m steps, each taking the smaller head */
    int i = 0, j = 0, lo = 0, hi = 0;
    for (int step = 0; step <= m; step++) {
        lo = i < m ? *med - s[m - 1 - i] : INT_MAX;
        hi = m + j < n ? s[m + j] - *med : INT_MAX;
        int take_lo = lo < hi;
        i += take_lo;
        j += !take_lo;
    }
    *mad = lo < hi ? lo : hi;
}

void track_sample_median_mad(const int *v, int n, int want_mad, int *med, int *mad)
{
    if (n <= 16) {
        median_mad16(v, n, want_mad, med, mad);
        return;
    }
    *med = select_kth_bitwise(v, n, n / 2);
    if (!want_mad)
        return;
    int dev[TRACK_TILE_SAMPLES];
    for (int i = 0; i < n; i++)
        dev[i] = abs(v[i] - *med);
    *mad = select_kth_bitwise(dev, n, n / 2);
}

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
    int buf[TRACK_TILE_SAMPLES];
    long n = 0;
    for (int ty = 0; ty < w->nty; ty++)
        for (int tx = 0; tx < w->ntx; tx++) {
            int x0 = tx * T, y0 = ty * T, x1 = x0 + T, y1 = y0 + T, k = 0;
            if (x1 > f->width)
                x1 = f->width;
            if (y1 > f->height)
                y1 = f->height;
            for (int y = y0 + 2; y < y1; y += TRACK_TILE_STEP)
                for (int x = x0 + 2; x < x1; x += TRACK_TILE_STEP)
                    buf[k++] = (int)pix(f, x, y);
            int med = 0, mad = 0;
            if (k > 0) {
                track_sample_median_mad(buf, k, k >= 4, &med, &mad);
            } else { /* a sliver of a tile at the frame's edge: its neighbour's level */
                med = tx > 0 ? (int)w->tile_level[ty * w->ntx + tx - 1]
                             : ty > 0 ? (int)w->tile_level[(ty - 1) * w->ntx] : 0;
            }
            w->tile_level[ty * w->ntx + tx] = med;
            /* the tile's own spread (1.4826 MAD, integer): texture raises it where it is */
            w->tile_noise[ty * w->ntx + tx] = k >= 4 ? 1.4826 * mad : 0;
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
                    if (i >= 0 && j >= 0 && i < w->ntx && j < w->nty && w->tile_noise[j * w->ntx + i] < m)
                        m = w->tile_noise[j * w->ntx + i]; /* fmin's result (no NaN): not its call */
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

