/* flicker.c: mains flicker in the per-frame mean brightness. Lamps on 50/60 Hz mains
 * flicker at 100/120 Hz; sampled at fs the oscillation appears at the alias
 * |F - round(F / fs) fs| (sampling theorem). The brightness, detrended by a running median
 * and with outliers (a flash) clipped, is searched with a non-uniform discrete Fourier
 * amplitude spectrum (frame times may be irregular); the highest peak must stand far
 * above the spectrum's median and sit at the alias of 100 or 120 Hz. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"

#define FLICKER_MAX_SAMPLES 2048 /* enough for the frequency resolution; bounds the cost */
#define FLICKER_WINDOW 41        /* running-median width (frames): keeps periods <= 20 frames */
#define FLICKER_SNR_MIN 6.0      /* max/median of noise-only spectra is ~3 for 2000 bins */
/* and the peak at least this many gray levels of the samples: a still clip's frames
 * alternate by 1e-5 levels where the encoder alternates its frame types (an even/odd
 * pattern sits at fs / 2, the alias of 120 Hz at 240 fps); a lamp's flicker is
 * tenths of a level and more */
#define FLICKER_MIN_LEVELS 0.05

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double alias_of(double f, double fs)
{
    return fabs(f - round(f / fs) * fs);
}

void capture_flicker_detect(const double *t_s, const double *b, long n, double fs, capture_flicker *out)
{
    memset(out, 0, sizeof *out);
    if (n < 32 || fs <= 0)
        return;
    long m = 0;
    double *t = malloc((size_t)n * sizeof *t), *r = malloc((size_t)n * sizeof *r),
           *x = malloc((size_t)n * sizeof *x), *w = malloc(FLICKER_WINDOW * sizeof *w);
    if (!t || !r || !x || !w)
        goto done;
    for (long i = 0; i < n && m < FLICKER_MAX_SAMPLES; i++)
        if (isfinite(b[i])) {
            t[m] = t_s[i];
            x[m] = b[i];
            m++;
        }
    if (m < 32)
        goto done;
    /* detrend: residual from a running median (robust to a flash step) */
    for (long i = 0; i < m; i++) {
        long lo = i - FLICKER_WINDOW / 2, hi = i + FLICKER_WINDOW / 2;
        if (lo < 0)
            lo = 0;
        if (hi > m - 1)
            hi = m - 1;
        long k = 0;
        for (long j = lo; j <= hi; j++)
            w[k++] = x[j];
        r[i] = x[i] - median_of(w, k);
    }
    /* clip outliers at 6 robust sigmas (frames at a flash edge) */
    memcpy(x, r, (size_t)m * sizeof *x);
    for (long i = 0; i < m; i++)
        x[i] = fabs(x[i]);
    double mad = median_of(x, m) * 1.4826;
    for (long i = 0; i < m; i++)
        if (mad > 0 && fabs(r[i]) > 6 * mad)
            r[i] = 0.0;

    /* amplitude spectrum from fs / 20 (periods <= 20 frames survive the detrend) to fs / 2,
     * oversampled 4x */
    double span = t[m - 1] - t[0];
    if (span <= 0)
        goto done;
    double df = 1.0 / (4.0 * span), f0 = fs / 20.0;
    long nf = (long)((fs / 2.0 - f0) / df) + 1;
    if (nf < 8)
        goto done;
    double *amp = malloc((size_t)nf * sizeof *amp);
    if (!amp)
        goto done;
    double best = 0, fbest = 0;
    for (long k = 0; k < nf; k++) {
        double f = f0 + (double)k * df, re = 0, im = 0;
        for (long i = 0; i < m; i++) {
            double ph = 2.0 * M_PI * f * (t[i] - t[0]);
            re += r[i] * cos(ph);
            im -= r[i] * sin(ph);
        }
        amp[k] = 2.0 * sqrt(re * re + im * im) / (double)m;
        if (amp[k] > best) {
            best = amp[k];
            fbest = f;
        }
    }
    double med = median_of(amp, nf);
    free(amp);
    out->alias_hz = fbest;
    out->amplitude = best;
    out->snr = med > 0 ? best / med : 0.0;
    if (out->snr < FLICKER_SNR_MIN || best < FLICKER_MIN_LEVELS)
        goto done;
    /* the peak must be at a mains alias, within the spectral resolution 1 / span */
    double tol = 1.5 / span, d100 = fabs(alias_of(100.0, fs) - fbest), d120 = fabs(alias_of(120.0, fs) - fbest);
    if (d100 <= tol || d120 <= tol)
        out->hz = d100 <= d120 ? 100.0 : 120.0;
done:
    free(t);
    free(r);
    free(x);
    free(w);
}
