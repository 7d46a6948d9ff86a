/* flash_sync.c: camera sync from a flash (Han Sun 2017, sec. 4.3: a flash before the
 * release marks the same instant in every camera). Per camera: the flash onset to a
 * fraction of a frame, from the brightness of the first, partly exposed flash frame
 * (exposed fraction r = (b - baseline) / (plateau - baseline)); between cameras: the
 * offsets of the onsets, in each camera's frames and in seconds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"

#define FLASH_CONTEXT 10      /* frames of baseline before / plateau after the onset */
#define FLASH_NOISE_SIGMAS 12 /* a flash rises this many robust sigmas of frame-to-frame change */
#define FLASH_MIN_REL 0.05    /* ... and at least 5 % of the baseline brightness */
/* ... or, when flicker swells those sigmas, rises this many times the full range of the
   other frames round it (a pulse of light over any flicker: 6.9-8.9 times in the scene
   study's failures; 20 frames of Gaussian noise span ~3.7 sigmas) */
#define FLASH_OUTSTAND 4.0
#define FLASH_OUTSTAND_MIN_FRAMES 6

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of the finite values of v[lo, hi) (NaN when there are none). */
static double median_range(const double *v, long lo, long hi, double *work)
{
    long k = 0;
    for (long i = lo; i < hi; i++)
        if (isfinite(v[i]))
            work[k++] = v[i];
    if (!k)
        return NAN;
    qsort(work, (size_t)k, sizeof *work, cmp_double);
    return k % 2 ? work[k / 2] : 0.5 * (work[k / 2 - 1] + work[k / 2]);
}

/* Whether frame m's rise stands FLASH_OUTSTAND times above the full range of the frames
 * within FLASH_CONTEXT of it, its two neighbours left out (partly lit). Flicker near
 * half or a quarter of the frame rate (120 Hz at 240 or 500 fps) changes every frame by
 * a sizeable share of its depth, so the frame-to-frame sigma hides a flash that stands
 * out of every other frame; a flash held for frames makes the range after it large,
 * and the sigma test alone judges it. */
static int outstanding(const double *b, long n, long m, double rise)
{
    long lo = m - FLASH_CONTEXT > 0 ? m - FLASH_CONTEXT : 0, hi = m + 2 + FLASH_CONTEXT < n ? m + 2 + FLASH_CONTEXT : n;
    double vmin = INFINITY, vmax = -INFINITY;
    int k = 0;
    for (long i = lo; i < hi; i++)
        if ((i < m - 1 || i > m + 1) && isfinite(b[i])) {
            vmin = fmin(vmin, b[i]);
            vmax = fmax(vmax, b[i]);
            k++;
        }
    return k >= FLASH_OUTSTAND_MIN_FRAMES && rise > FLASH_OUTSTAND * (vmax - vmin);
}

int capture_flash_detect(const double *b, const double *t, long n, double exposure_s, capture_flash *out)
{
    memset(out, 0, sizeof *out);
    if (n < 3)
        return 0;
    double *work = malloc((size_t)n * sizeof *work);
    if (!work)
        return 0;
    /* robust noise of the frame-to-frame change (one flash step barely moves the MAD).
     * Light flicker slow against the frame rate (100 Hz at 1000 fps: +-12 grey levels
     * over 10 frames) is no noise to a step, yet it swells this first-difference MAD
     * past the flash; the second differences' MAD (scaled to the same white-noise
     * sigma: Var(d2) = 3/2 Var(d1)) sees it much less, and flicker near the Nyquist
     * rate the other way round: the smaller of the two. */
    double sigma = 0, sigma2 = 0;
    long k = 0;
    for (long i = 1; i < n; i++)
        if (isfinite(b[i]) && isfinite(b[i - 1]))
            work[k++] = fabs(b[i] - b[i - 1]);
    if (k) {
        qsort(work, (size_t)k, sizeof *work, cmp_double);
        sigma = 1.4826 * work[k / 2];
    }
    k = 0;
    for (long i = 2; i < n; i++)
        if (isfinite(b[i]) && isfinite(b[i - 1]) && isfinite(b[i - 2]))
            work[k++] = fabs(b[i] - 2 * b[i - 1] + b[i - 2]);
    if (k >= 8) {
        qsort(work, (size_t)k, sizeof *work, cmp_double);
        sigma2 = 1.4826 * work[k / 2] / sqrt(1.5);
        sigma = fmin(sigma, sigma2);
    }
    double period = n > 1 ? (t[n - 1] - t[0]) / (double)(n - 1) : 0;
    int found = 0;
    for (long m = 1; m < n && !found; m++) {
        if (!isfinite(b[m]))
            continue;
        long lo = m - FLASH_CONTEXT > 0 ? m - FLASH_CONTEXT : 0;
        double base = median_range(b, lo, m, work);
        if (!isfinite(base))
            continue;
        double rise = b[m] - base;
        if (rise <= FLASH_MIN_REL * fabs(base) || rise <= 0)
            continue;
        if (rise <= FLASH_NOISE_SIGMAS * sigma && !outstanding(b, n, m, rise))
            continue;
        /* m is the first frame clearly lit. The frame before may hold a small lit fraction:
         * take the baseline from the frames before it. */
        long first = m;
        if (m >= 2) {
            long lo2 = m - 1 - FLASH_CONTEXT > 0 ? m - 1 - FLASH_CONTEXT : 0;
            base = median_range(b, lo2, m - 1, work);
        }
        long hi = m + 1 + FLASH_CONTEXT < n ? m + 1 + FLASH_CONTEXT : n;
        double plateau = m + 1 < n ? median_range(b, m + 1, hi, work) : NAN;
        /* a pulse shorter than two frames: no plateau; then the brightest frame is full */
        if (!isfinite(plateau) || plateau - base < 0.5 * (b[m] - base))
            plateau = b[m];
        double full = plateau - base;
        if (m >= 2 && isfinite(b[m - 1]) && b[m - 1] - base > 3.0 * sigma + 1e-12 &&
            (b[m - 1] - base) / full > 0.0)
            first = m - 1;
        double r = (b[first] - base) / full;
        if (r > 1)
            r = 1;
        if (r < 0)
            r = 0;
        /* the first flash frame's exposure is [t - e/2, t + e/2]; the light was on for the
         * last r e of it */
        double e = exposure_s > 0 ? exposure_s : period;
        out->frame = first;
        out->ratio = r;
        out->baseline = base;
        out->plateau = plateau;
        out->onset_s = t[first] + e / 2.0 - r * e;
        /* fully lit within the noise (3 sigmas of frame-to-frame change) */
        int full_lit = r >= 1.0 - 3.0 * sigma / full;
        if (full_lit && first > 0 && t[first] - t[first - 1] > e) {
            /* fully lit: the light came on while the shutter was closed, between the two
             * exposures; the middle of that gap halves the worst error */
            out->onset_s = 0.5 * ((t[first - 1] + e / 2.0) + (t[first] - e / 2.0));
        }
        out->onset_frame = (double)first + (period > 0 ? (out->onset_s - t[first]) / period : 0.0);
        found = 1;
    }
    free(work);
    return found;
}

double capture_sync_experiment_time(const capture_sync *s, double camera_time_s)
{
    return camera_time_s - s->offset_s;
}

int capture_sync_offsets(int n, const capture_flash *flashes, const double *fps, const double *manual,
                         capture_sync *out, icv_err *err)
{
    for (int c = 0; c < n; c++) {
        if (!(fps[c] > 0))
            return icv_err_set(err, ICV_EINVAL, "sync: camera %d has no capture rate", c);
        out[c].manual = manual != NULL;
        if (manual) {
            out[c].offset_frames = manual[c];
            out[c].offset_s = manual[c] / fps[c];
        } else {
            out[c].offset_s = flashes[c].onset_s - flashes[0].onset_s;
            out[c].offset_frames = out[c].offset_s * fps[c];
        }
    }
    return 0;
}

int capture_sync_experiment(const icv_experiment *exp, long max_frames, capture_sync *out, capture_flash *flashes,
                            icv_err *err)
{
    int nc = exp->n_cameras;
    double fps[ICV_MAX_CAMERAS];
    capture_flash fl[ICV_MAX_CAMERAS];
    memset(fl, 0, sizeof fl);
    memset(out, 0, (size_t)nc * sizeof *out);
    for (int c = 0; c < nc; c++) {
        capture_options opt = {.capture_fps = exp->cameras[c].capture_fps, .exposure_s = exp->cameras[c].exposure_s};
        capture_source *src;
        int rc = capture_source_open(&src, exp->cameras[c].video, &opt, err);
        if (rc)
            return icv_err_prefix(err, "camera '%s': ", exp->cameras[c].id);
        const capture_info *in = capture_source_info(src);
        fps[c] = in->capture_fps;
        if (exp->sync == ICV_SYNC_FLASH) {
            long n = in->frames;
            if (max_frames > 0 && n > max_frames)
                n = max_frames;
            capture_frame f;
            double *b = malloc((size_t)n * sizeof *b), *t = malloc((size_t)n * sizeof *t);
            if (!b || !t || (rc = capture_frame_alloc(&f, in, err))) {
                free(b);
                free(t);
                capture_source_close(src);
                return rc ? rc : icv_err_set(err, ICV_ENOMEM, "%s: out of memory", exp->cameras[c].video);
            }
            for (long i = 0; i < n; i++) {
                b[i] = NAN;
                t[i] = capture_source_time(src, i);
            }
            while ((rc = capture_source_read(src, &f, err)) == 0 && f.index < n)
                b[f.index] = capture_frame_mean(&f);
            capture_frame_free(&f);
            capture_source_close(src);
            /* cameras[].exposure is on the capture clock, as capture_frame.time_s */
            int found = rc >= 0 && capture_flash_detect(b, t, n, exp->cameras[c].exposure_s, &fl[c]);
            free(b);
            free(t);
            if (rc < 0)
                return icv_err_prefix(err, "camera '%s': ", exp->cameras[c].id);
            if (!found)
                return icv_err_set(err, ICV_ENOTFOUND,
                                   "%s: camera '%s': no flash found for sync (set sync.offsets or sync: none)",
                                   exp->cameras[c].video, exp->cameras[c].id);
        } else {
            capture_source_close(src);
        }
    }
    if (flashes)
        memcpy(flashes, fl, (size_t)nc * sizeof *fl);
    if (exp->sync == ICV_SYNC_OFFSETS)
        return capture_sync_offsets(nc, fl, fps, exp->sync_offsets, out, err);
    if (exp->sync == ICV_SYNC_NONE) {
        double zero[ICV_MAX_CAMERAS] = {0};
        int rc = capture_sync_offsets(nc, fl, fps, zero, out, err);
        for (int c = 0; c < nc; c++)
            out[c].manual = 0;
        return rc;
    }
    return capture_sync_offsets(nc, fl, fps, NULL, out, err);
}
