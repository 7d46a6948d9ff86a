/* near_duplicates.c: pictures a file stores more than once, re-encoded so the copies
 * differ by compression noise (a phone's "60 fps" file of a 30 fps capture). Exact
 * comparison misses them. Each frame is reduced to the means of 8x8-pixel cells, which
 * averages the noise down; a pair of consecutive frames then "changes" where some cell
 * moved by more than the clip's own noise allows. That noise is measured on the still
 * parts: the 99th percentile of each pair's cell differences (a moving body covers
 * under 1% of the cells of most clips; encoders skip still blocks, so a median is often
 * exactly 0), taken at the clip's quiet pairs (the lower quartile over pairs). A frame is a near-duplicate when it does not
 * change from its predecessor while the clip moves on both sides of it (a still run of
 * at most MAX_REPEAT pairs between changing pairs, each changing under a quarter of
 * what those do): a still scene at rest is not a repeated picture, and nothing is lost
 * by keeping its frames. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"

enum { CELL = 8, MAX_REPEAT = 3 };
/* a change: a cell beyond this many times the quiet pairs' 99th percentile (2.6 sigma
 * of Gaussian noise: the threshold is ~13 sigma; the largest of ~10^4 noise cells stays
 * under ~4.5 sigma, a re-encoded copy's under ~4 times the percentile, measured) */
#define CHANGE_TIMES_P99 5.0
/* and at least this many gray levels (8-bit scale): noise-free synthetic clips have a
 * sigma of 0 */
#define CHANGE_MIN_LEVELS 1.5
/* a repeat changes at most this fraction of the changes on both sides of it */
#define REPEAT_RATIO 0.25
/* for the stored-k-times pattern, a change under this fraction of both neighbours' is a
 * repeat's dip */
#define DIP_RATIO 0.4
/* and only clear changes count there, this many times the threshold: a slow phase's
 * weak changes beside the noise would make spacings of 1 */
#define PATTERN_TIMES_THRESHOLD 4.0

int capture_change_init(capture_change_meter *m, const capture_info *info, icv_err *err)
{
    memset(m, 0, sizeof *m);
    m->cols = info->width / CELL;
    m->rows = info->height / CELL;
    if (m->cols < 1 || m->rows < 1)
        return icv_err_set(err, ICV_EINVAL, "%s: %dx%d frames are too small to compare", info->path, info->width,
                           info->height);
    size_t n = (size_t)m->cols * (size_t)m->rows;
    m->prev = malloc(n * sizeof *m->prev);
    m->cur = malloc(n * sizeof *m->cur);
    m->diff = malloc(n * sizeof *m->diff);
    if (!m->prev || !m->cur || !m->diff) {
        capture_change_free(m);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", info->path);
    }
    return 0;
}

void capture_change_free(capture_change_meter *m)
{
    free(m->prev);
    free(m->cur);
    free(m->diff);
    m->prev = m->cur = m->diff = NULL;
}

void capture_change_reset(capture_change_meter *m) { m->have_prev = 0; }

/* the k-th smallest of a[0..n-1] (reorders a): Hoare's selection, linear on average */
static float select_kth(float *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        float pivot = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return a[k];
}

void capture_change_measure(capture_change_meter *m, const capture_frame *f, double *max_levels, double *tail_levels)
{
    int bps = f->bytes_per_sample;
    /* 8-bit scale; RGB: the mean of the three */
    double scale = bps == 2 ? 1.0 / 256.0 : bps == 3 ? 1.0 / 3.0 : 1.0;
    size_t n = (size_t)m->cols * (size_t)m->rows;
    for (size_t i = 0; i < n; i++)
        m->cur[i] = 0;
    for (int y = 0; y < m->rows * CELL; y++) {
        const unsigned char *row = (const unsigned char *)f->data + (size_t)y * f->stride;
        float *cells = m->cur + (size_t)(y / CELL) * (size_t)m->cols;
        for (int x = 0; x < m->cols * CELL; x++) {
            double v;
            if (bps == 2) {
                uint16_t s;
                memcpy(&s, row + 2 * (size_t)x, 2);
                v = s;
            } else if (bps == 3)
                v = (double)row[3 * (size_t)x] + row[3 * (size_t)x + 1] + row[3 * (size_t)x + 2];
            else
                v = row[x];
            cells[x / CELL] += (float)v;
        }
    }
    float norm = (float)(scale / (CELL * CELL));
    for (size_t i = 0; i < n; i++)
        m->cur[i] *= norm;
    *max_levels = *tail_levels = NAN;
    if (m->have_prev) {
        double mx = 0;
        for (size_t i = 0; i < n; i++) {
            m->diff[i] = fabsf(m->cur[i] - m->prev[i]);
            if (m->diff[i] > mx)
                mx = m->diff[i];
        }
        *max_levels = mx;
        *tail_levels = select_kth(m->diff, n, (size_t)(0.99 * (double)(n - 1)));
    }
    float *t = m->prev;
    m->prev = m->cur;
    m->cur = t;
    m->have_prev = 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

size_t capture_near_duplicates(const double *max_levels, const double *tail_levels, long n, long *out,
                               double *threshold_levels, int *stored_times, int *still)
{
    double *tails = malloc(sizeof *tails * (size_t)(n > 0 ? n : 1));
    signed char *evidence = calloc((size_t)(n > 0 ? n : 1), 1);
    long nm = 0;
    for (long i = 0; tails && i < n; i++)
        if (isfinite(tail_levels[i]))
            tails[nm++] = tail_levels[i];
    double quiet = 0;
    if (nm > 0) {
        qsort(tails, (size_t)nm, sizeof *tails, cmp_double);
        quiet = tails[nm / 4];
    }
    free(tails);
    double thr = fmax(CHANGE_TIMES_P99 * quiet, CHANGE_MIN_LEVELS);
    if (threshold_levels)
        *threshold_levels = thr;
    if (still) {
        long measured = 0, changed = 0;
        for (long i = 1; i < n; i++)
            if (isfinite(max_levels[i]))
                measured++, changed += max_levels[i] > thr;
        *still = measured > 0 && changed == 0;
    }
    /* a new picture: a clear change that is not a dip between two larger ones
     * (a re-encoded copy beside a moving body changes more than the still parts do, at
     * the body's edges, but far less than the pictures around it); a repeat: no clear
     * change */
    for (long i = 0; evidence && i < n; i++) {
        if (!isfinite(max_levels[i]))
            continue;
        double before = i > 0 && isfinite(max_levels[i - 1]) ? max_levels[i - 1] : 0;
        double after = i + 1 < n && isfinite(max_levels[i + 1]) ? max_levels[i + 1] : 0;
        int changed = max_levels[i] > PATTERN_TIMES_THRESHOLD * thr && !(max_levels[i] < DIP_RATIO * fmin(before, after));
        evidence[i] = changed ? 1 : -1;
    }
    size_t nout = 0;
    int k = evidence ? capture_stored_times(evidence, n, out, &nout) : 0;
    free(evidence);
    if (stored_times)
        *stored_times = k;
    if (k >= 2)
        return nout;
    /* pair i = (frame i - 1, frame i); runs of still pairs between changing ones */
    long i = 1;
    while (i < n) {
        if (!isfinite(max_levels[i]) || max_levels[i] > thr) {
            i++;
            continue;
        }
        long j = i;
        while (j < n && isfinite(max_levels[j]) && max_levels[j] <= thr)
            j++;
        /* still pairs i..j-1: frames i..j-1 repeat frame i-1 */
        int changes_before = i >= 2 && isfinite(max_levels[i - 1]) && max_levels[i - 1] > thr;
        int changes_after = j < n && isfinite(max_levels[j]) && max_levels[j] > thr;
        double run_max = 0;
        for (long q = i; q < j; q++)
            run_max = fmax(run_max, max_levels[q]);
        /* and a step, not a slowing: a body near the top of its flight changes a little
         * less each frame, a repeated picture far less than the pictures around it */
        int step = changes_before && changes_after &&
                   run_max <= REPEAT_RATIO * fmin(max_levels[i - 1], max_levels[j]);
        if (step && j - i <= MAX_REPEAT)
            for (long q = i; q < j; q++)
                out[nout++] = q;
        i = j;
    }
    return nout;
}
