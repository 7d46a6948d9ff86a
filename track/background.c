/* background.c: the background level and noise of a frame (median and 1.4826 x MAD
 * of a sparse sample: robust to the few marker pixels) or of a window (its darkest
 * side), and the automatic threshold above that background. */
#include <math.h>
#include <string.h>

#include "track/detect_internal.h"

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

double track_auto_threshold(const track_detector *d, double noise, double headroom)
{
    /* one gray level (the quantum) is the floor of the noise: a noiseless frame still
     * needs a threshold above its rounding */
    double t = d->threshold_k_sigma * fmax(noise, 1.0);
    /* a marker cannot rise above saturation: over a background lifted towards it (the
     * flash), the peak to expect is at most the headroom left. Without this the flash
     * frame of sample 02 (background 228, markers at 255) was thresholded at 348 and
     * lost every marker */
    if (d->ws->peak_ref > 0)
        t = fmax(t, d->threshold_fraction * fmin(d->ws->peak_ref, headroom));
    return t;
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

