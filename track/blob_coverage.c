/* blob_coverage.c: the area centroid of a flat marker (a band on a rod, a disc) seen
 * against a background that differs round it: a band's black rod above and below it,
 * the lit plate or the dark backdrop beside it. A pixel that the marker covers by a
 * fraction a (of its area, and of the exposure) reads I = a M + (1 - a) N, with M the
 * marker's level and N what lies behind that pixel. Its coverage is then
 *   a = (I - N) / (M - N)
 * and the centroid sum(a x) / sum(a) is the centroid of the area drawn, blur included
 * (what synth's markers_2d_centroid is). The box centroid instead weighs I - b with one
 * b for the whole box (the ring's mean): each pixel of the box whose N is not b adds
 * (N - b) at its place, so the rod's and the plate's pixels in the box, which the
 * box's integer edges take in or leave out as the marker moves, pulled it by up to
 * 0.15 px from frame to frame, the same way on every noise seed (the video study:
 * the rod's spin 0.011 rad/s off, docs/track.md).
 *
 * N per pixel: the pixels above the threshold (the component), their rim (8-neighbours
 * of the component) and the outer ring (8-neighbours of the rim): the rim holds the
 * marker's edge below threshold, the outer ring is what lies behind it; each pixel of
 * the component and rim takes the N of its nearest outer pixel (within COV_REACH px;
 * farther inside the marker the ring's mean b, where a ~ 1 whatever N). M: the mean of
 * the component's pixels within a tenth of (peak - b) of the peak (the plateau).
 *
 * 1-sigma by first-order propagation: u = sum(a_i x_i) / A,
 *   du/dI_i = (x_i - u) / (A (M - N_i)),
 *   du/dN_j = -sum_{i: N_i = N_j} (1 - a_i) (x_i - u) / (A (M - N_i)),
 * each pixel with variance s^2 (+ gain (I - N) for shot noise); M's error moves every
 * a by the same factor to first order where N is uniform and is left out. s is the
 * frame's pixel noise, not the ring's spread (round a band that is the rod's and the
 * plate's contrast: too conservative, docs/track.md "Figures behind the code"); the
 * coding error of the edges is the pipeline's sigma_floor_px. */
#include <math.h>
#include <string.h>

#include "track/detect_internal.h"

enum { COV_REACH = 3 };
enum { CLS_NONE = 0, CLS_COMP = 1, CLS_RIM = 2, CLS_OUTER = 3 };

/* 1 when pixel (x, y) of the patch's classes cls (pw x ph) has a neighbour of
   class want */
static int has_neighbour(const unsigned char *cls, int pw, int ph, int x, int y, unsigned char want)
{
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx, yy = y + dy;
            if ((dx || dy) && xx >= 0 && yy >= 0 && xx < pw && yy < ph && cls[yy * pw + xx] == want)
                return 1;
        }
    return 0;
}

int track_blob_coverage(const track_detector *d, const track_frame *f, const comp *c, double t, double bg,
                        double noise, double *u, double *v, double *varx, double *vary)
{
    struct track_detector_ws *w = d->ws;
    int px0 = c->x0 - 2, py0 = c->y0 - 2, pw = c->x1 - c->x0 + 5, ph = c->y1 - c->y0 + 5;
    if (px0 < 0 || py0 < 0 || px0 + pw > f->width || py0 + ph > f->height || pw * ph > TRACK_COV_MAX_PX)
        return -1;
    unsigned char *cls = w->cov_class;
    int *near = w->cov_near;
    double *g = w->cov_grad;
    memset(cls, CLS_NONE, (size_t)(pw * ph));
    double peak = -INFINITY;
    for (int y = 2; y < ph - 2; y++)
        for (int x = 2; x < pw - 2; x++) {
            double p = pix(f, px0 + x, py0 + y);
            if (p > t) {
                cls[y * pw + x] = CLS_COMP;
                peak = fmax(peak, p);
            }
        }
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++)
            if (cls[y * pw + x] == CLS_NONE && has_neighbour(cls, pw, ph, x, y, CLS_COMP))
                cls[y * pw + x] = CLS_RIM;
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++)
            if (cls[y * pw + x] == CLS_NONE && has_neighbour(cls, pw, ph, x, y, CLS_RIM))
                cls[y * pw + x] = CLS_OUTER;
    /* the plateau */
    double ms = 0;
    int mn = 0;
    for (int y = 2; y < ph - 2; y++)
        for (int x = 2; x < pw - 2; x++)
            if (cls[y * pw + x] == CLS_COMP) {
                double p = pix(f, px0 + x, py0 + y);
                if (p >= peak - 0.1 * (peak - bg))
                    ms += p, mn++;
            }
    if (mn == 0)
        return -1;
    double M = ms / mn;
    /* a marker not much brighter than what lies behind it (the frame's robust pixel
       noise, one gray level at least): no coverage (before the pixels' search) */
    if (!(M - bg > 6 * fmax(w->noise, 1.0)))
        return -1;
    /* each pixel's background: its nearest outer pixel's value (index), or -1: b */
    double A = 0, Sx = 0, Sy = 0;
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            int i = y * pw + x;
            near[i] = -1;
            if (cls[i] != CLS_COMP && cls[i] != CLS_RIM)
                continue;
            int best = COV_REACH * COV_REACH + 1;
            for (int dy = -COV_REACH; dy <= COV_REACH; dy++)
                for (int dx = -COV_REACH; dx <= COV_REACH; dx++) {
                    int xx = x + dx, yy = y + dy, r2 = dx * dx + dy * dy;
                    if (xx >= 0 && yy >= 0 && xx < pw && yy < ph && r2 < best && cls[yy * pw + xx] == CLS_OUTER)
                        best = r2, near[i] = yy * pw + xx;
                }
            double N = near[i] >= 0 ? pix(f, px0 + near[i] % pw, py0 + near[i] / pw) : bg;
            if (!(M - N > 1e-9))
                return -1;
            double a = (pix(f, px0 + x, py0 + y) - N) / (M - N);
            A += a;
            Sx += a * x;
            Sy += a * y;
        }
    if (!(A > 0))
        return -1;
    double cx = Sx / A, cy = Sy / A;
    /* propagation: the direct terms, and each outer pixel's (summed over its users) */
    for (int i = 0; i < pw * ph; i++)
        g[2 * i] = g[2 * i + 1] = 0;
    double s2 = noise * noise, vx = 0, vy = 0;
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            int i = y * pw + x;
            if (cls[i] != CLS_COMP && cls[i] != CLS_RIM)
                continue;
            double N = near[i] >= 0 ? pix(f, px0 + near[i] % pw, py0 + near[i] / pw) : bg;
            double p = pix(f, px0 + x, py0 + y), k = 1 / (A * (M - N)), a = (p - N) / (M - N);
            double si2 = s2 + d->gain * fmax(p - N, 0);
            vx += si2 * (x - cx) * (x - cx) * k * k;
            vy += si2 * (y - cy) * (y - cy) * k * k;
            if (near[i] >= 0) {
                g[2 * near[i]] -= (1 - a) * (x - cx) * k;
                g[2 * near[i] + 1] -= (1 - a) * (y - cy) * k;
            }
        }
    for (int i = 0; i < pw * ph; i++)
        if (cls[i] == CLS_OUTER) {
            vx += s2 * g[2 * i] * g[2 * i];
            vy += s2 * g[2 * i + 1] * g[2 * i + 1];
        }
    *u = px0 + cx;
    *v = py0 + cy;
    *varx = vx;
    *vary = vy;
    return 0;
}
