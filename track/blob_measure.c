/* blob_measure.c: what a component is: intensity-weighted centroid with the local
 * background subtracted, second moments (elongation, direction, streak length), peak,
 * saturation, and the centroid's 1-sigma by first-order propagation of the pixel noise
 * (Savin & Doyle 2005, Biophys. J. 88:623, "static error"); and the shape test. */
#include <math.h>
#include <string.h>

#include "track/detect_internal.h"

/* Measures component c: background and noise from the ring just outside its box grown
 * by the margin, then sums over the grown box of w = I - b:
 *   u = sum(w x) / W,  W = sum(w)
 * and, to first order in independent pixel errors e_i (variance s_i^2) and an error
 * e_b of the background (variance s_n^2 / N_ring, the mean of the ring),
 *   var(u) = [sum(s_i^2 (x_i - u)^2) + (s_n^2 / N_ring) (sum(x_i - u))^2] / W^2
 * with s_i^2 = s_n^2 + gain * max(w_i, 0): Savin & Doyle's static error (their eq. for
 * the centroid estimator) written for our weights; the sums run over the pixels used.
 * A pixel darker than b by more than DARK_K noise sigmas is not the marker's faint rim
 * nor background noise but a darker object inside the box (a band's black rod): it is
 * left out (weight 0). With weights I - b of both signs the rod's corners of the box,
 * which a tilted rod fills unevenly, pulled a band's centroid 0.1-0.2 px along the rod
 * (sample_videos/01, even on lossless frames). Returns 0, or -1 for W <= 0. */
#define DARK_K 3.0
double track_saturation_level(const track_detector *d, const track_frame *f)
{
    return d->saturation_level > 0 ? d->saturation_level : f->depth == 8 ? 255 : 65535;
}

/* The background under a blob whose surround is uneven (a ball over a plate's far
 * edge: the dark wall above, the lit plate below). The ring's mean is then neither
 * side's level: the margin's plate pixels count as marker and the rim over the plate
 * keeps the plate's level, both on the plate's side, and the centroid came 0.25-1.2 mm
 * (0.1-0.5 px) towards the plate within 1.5 diameters of it (docs/track.md). There
 * the background is the Coons patch of the ring: b(x, y) interpolates its four sides
 * (bilinear blending of the left and right columns and the top and bottom rows, less
 * the corners' bilinear), exact for a straight step or a ramp across the box. */
typedef struct {
    int on;             /* 0: the ring's mean, `mean`, everywhere */
    int X0, Y0, X1, Y1; /* the grown box; the ring is one pixel outside it */
    double mean, c00, c10, c01, c11;
} ring_bg;

static double ring_bg_at(const track_frame *f, const ring_bg *r, int x, int y)
{
    if (!r->on)
        return r->mean;
    int xl = r->X0 - 1, xr = r->X1 + 1, yt = r->Y0 - 1, yb = r->Y1 + 1;
    x = x < xl ? xl : x > xr ? xr : x;
    y = y < yt ? yt : y > yb ? yb : y;
    double s = (double)(x - xl) / (xr - xl), t = (double)(y - yt) / (yb - yt);
    return (1 - s) * pix(f, xl, y) + s * pix(f, xr, y) + (1 - t) * pix(f, x, yt) + t * pix(f, x, yb) -
           ((1 - s) * (1 - t) * r->c00 + s * (1 - t) * r->c10 + (1 - s) * t * r->c01 + s * t * r->c11);
}

/* Whether the ring's opposite sides differ beyond their noise (frame noise s, from
 * the full scan): beyond 4 sigma of the difference of two means, a step or a ramp
 * across the box rather than noise about one level. All of the ring must lie in the
 * frame and at or below the threshold (another object's pixels are not background). */
static int ring_uneven(const track_frame *f, int X0, int Y0, int X1, int Y1, double t, double s)
{
    if (X0 < 1 || Y0 < 1 || X1 > f->width - 2 || Y1 > f->height - 2)
        return 0;
    double top = 0, bot = 0, left = 0, right = 0;
    for (int x = X0 - 1; x <= X1 + 1; x++) {
        double a = pix(f, x, Y0 - 1), b = pix(f, x, Y1 + 1);
        if (a > t || b > t)
            return 0;
        top += a, bot += b;
    }
    for (int y = Y0 - 1; y <= Y1 + 1; y++) {
        double a = pix(f, X0 - 1, y), b = pix(f, X1 + 1, y);
        if (a > t || b > t)
            return 0;
        left += a, right += b;
    }
    int nx = X1 - X0 + 3, ny = Y1 - Y0 + 3;
    return fabs(top - bot) / nx > 4 * s * sqrt(2.0 / nx) || fabs(left - right) / ny > 4 * s * sqrt(2.0 / ny);
}

/* The variance of the box centroid's u from the patch's ring pixels (each of variance
 * s2), first order over the whole box: u moves by -sum_i (db_i / dr_k)(x_i - u) / W for
 * ring pixel r_k. Along x: each of the h rows' left and right ring pixels weighs
 * S0 = sum_x (1 - s)(x - u) and S1 = sum_x s (x - u); the top and bottom rows' pixel
 * above and below column x weigh (x - u) T0 and (x - u) T1, T0 = sum_y (1 - t),
 * T1 = sum_y t; the corners -S0 T0 and the like. u is box-relative (from X0). */
static double ring_bg_var(int n_along, int n_across, double u, double s2, double W)
{
    double S0 = 0, S1 = 0, Q = 0, T0 = 0, T1 = 0;
    for (int i = 0; i < n_along; i++) {
        double sx = (i + 1.0) / (n_along + 1), d = i - u;
        S0 += (1 - sx) * d;
        S1 += sx * d;
        Q += d * d;
    }
    for (int j = 0; j < n_across; j++) {
        double ty = (j + 1.0) / (n_across + 1);
        T0 += 1 - ty;
        T1 += ty;
    }
    double a = S0 * S0 + S1 * S1, b = T0 * T0 + T1 * T1;
    return s2 * (n_across * a + b * Q + a * b) / (W * W);
}

/* The area centroid of a flat blob (a disc, a ball's outline: a plateau at level M)
 * over the patch's background N_i: a pixel covered by a fraction a reads
 * I = a M + (1 - a) N, so a = (I - N) / (M - N) and u = sum(a x) / sum(a), whatever
 * lies behind each pixel (blob_coverage.c's model, with N from the patch; the weights
 * I - N instead would weigh the ball's half over the dark wall more than its half over
 * the plate: 0.9 px away from the plate on a 17 px ball, seen). M: the mean of the
 * component's pixels within a tenth of (peak - b) of the peak. Pixels darker than N by
 * more than `dark`, and above t outside the component's box, are left out as in the
 * box centroid. 1-sigma, first order: du/dI_i = (x_i - u) / (A (M - N_i)) with
 * variance s2 + gain (I - N)+ each, and the patch's ring pixels through N
 * (du/dN_i = -(1 - a_i)(x_i - u) / (A (M - N_i)), taken with 1 - a_i <= 1 and M - N_i
 * ~ M - b: ring_bg_var with W = A (M - b), an upper bound). Returns 0, or -1 (the box
 * centroid kept) without a plateau 6 noise sigmas above every N. */
static int patch_coverage(const track_detector *d, const track_frame *f, const comp *c, const ring_bg *rb, double t,
                          double dark, double s2, double *u, double *v, double *varx, double *vary)
{
    double peak = -INFINITY;
    for (int y = c->y0; y <= c->y1; y++)
        for (int x = c->x0; x <= c->x1; x++)
            peak = fmax(peak, pix(f, x, y));
    /* the plateau: the pixels within a tenth of (peak - b) below the mean of those
       within a tenth of the peak, twice (the peak alone is a noise spike's: the phone
       study's plateau at 235-240 with peaks of 255 held 20-40% of the ball) */
    double ms = 0, mn = 0, M = peak;
    for (int pass = 0; pass < 2; pass++) {
        double lv = M - 0.1 * (peak - rb->mean);
        ms = mn = 0;
        for (int y = c->y0; y <= c->y1; y++)
            for (int x = c->x0; x <= c->x1; x++)
                if (pix(f, x, y) >= lv)
                    ms += pix(f, x, y), mn++;
        M = ms / mn;
    }
    double nmax = fmax(fmax(rb->c00, rb->c10), fmax(rb->c01, rb->c11));
    for (int x = rb->X0; x <= rb->X1; x++)
        nmax = fmax(nmax, fmax(pix(f, x, rb->Y0 - 1), pix(f, x, rb->Y1 + 1)));
    for (int y = rb->Y0; y <= rb->Y1; y++)
        nmax = fmax(nmax, fmax(pix(f, rb->X0 - 1, y), pix(f, rb->X1 + 1, y)));
    /* the model needs the interior covered through the whole exposure (a = 1 whatever N
       is behind it): the plateau is to hold 70% of a sharp disc's of the blob's area
       (its pixels over 1 px inside the edge, (1 - 1 / r)^2 of it), a disc blurred by
       under about a third of its radius. A shaded body (the real green ball, 85 px: its
       plateau 33-59% of the blob, a sharp disc's 96%) or a streak has none, and I - N
       over its interior varies with N (the green ball's centres moved by up to 1.4 px,
       |g|'s sigma tripled); the phone study's 17 px ball: 64-87%, a sharp disc's 78% */
    double r = sqrt(c->area / M_PI), sharp = r > 1 ? (1 - 1 / r) * (1 - 1 / r) : 0;
    if (!(M - nmax > 6 * sqrt(s2)) || mn < 0.7 * sharp * c->area)
        return -1;
    /* one pass: the coverage's moments, and those of each pixel's variance weight k
       for the centroid's variance about (cx, cy) (box-relative coordinates: small) */
    double A = 0, Ax = 0, Ay = 0, K = 0, Kx = 0, Ky = 0, Kxx = 0, Kyy = 0;
    for (int y = rb->Y0; y <= rb->Y1; y++)
        for (int x = rb->X0; x <= rb->X1; x++) {
            double p = pix(f, x, y), n = fmin(ring_bg_at(f, rb, x, y), nmax); /* a blend can overshoot */
            if (p - n < dark || (p > t && (x < c->x0 || x > c->x1 || y < c->y0 || y > c->y1)))
                continue;
            double a = (p - n) / (M - n), k = (s2 + d->gain * fmax(p - n, 0)) / ((M - n) * (M - n));
            double xr = x - rb->X0, yr = y - rb->Y0;
            A += a, Ax += a * xr, Ay += a * yr;
            K += k, Kx += k * xr, Ky += k * yr, Kxx += k * xr * xr, Kyy += k * yr * yr;
        }
    if (!(A > 0))
        return -1;
    double cx = Ax / A, cy = Ay / A;
    double vx = fmax(Kxx - 2 * cx * Kx + cx * cx * K, 0), vy = fmax(Kyy - 2 * cy * Ky + cy * cy * K, 0);
    int nx = rb->X1 - rb->X0 + 1, ny = rb->Y1 - rb->Y0 + 1;
    *u = rb->X0 + cx;
    *v = rb->Y0 + cy;
    *varx = vx / (A * A) + ring_bg_var(nx, ny, cx, s2, A * (M - rb->mean));
    *vary = vy / (A * A) + ring_bg_var(ny, nx, cy, s2, A * (M - rb->mean));
    return 0;
}

/* Gaussian-windowed centroid: the fixed point of sum w_i g_i (x_i - u) = 0 with the window
 * g_i = exp(-|x_i - u|^2 / (2 sw^2)) centred on the estimate (the matched filter of a
 * Gaussian spot of RMS radius sw). Any blob symmetric about its centre is a fixed point,
 * so it stays unbiased, while the window gives little weight to the pixels far from the
 * centre, where a video codec's block noise and ringing are (H.264 CRF 18, spots of
 * sigma 1.5 px: 0.066 -> 0.041 px per axis). Iterated from the box centroid (u, v) in
 * frame pixels; weights w = I - bg, pixels below `dark` left out as in the box sum. The
 * variance by first-order propagation at the fixed point (implicit function):
 *   var(u) = [s^2 sum g^2 (x - u)^2 + gain sum max(w, 0) g^2 (x - u)^2
 *             + (s^2 / n_ring) (sum g (x - u))^2] / D^2,  D = sum w g (1 - (x - u)^2 / sw^2).
 * Returns 0, or -1 (the estimate kept) when it does not converge inside the blob. */
enum { WIN_MAX_R = 12 };

static int window_refine(const track_detector *d, const track_frame *f, double bg, double dark, double s2, double sb2,
                         double sw, double *u, double *v, double *varx, double *vary)
{
    int R = (int)ceil(3 * sw);
    if (R > WIN_MAX_R)
        return -1;
    double u0 = *u, v0 = *v, cu = *u, cv = *v, k2 = 1 / (2 * sw * sw);
    double gx[2 * WIN_MAX_R + 2], gy[2 * WIN_MAX_R + 2];
    int x0 = 0, y0 = 0, x1 = -1, y1 = -1;
    for (int it = 0; it < 12; it++) {
        x0 = (int)floor(cu) - R, x1 = (int)ceil(cu) + R, y0 = (int)floor(cv) - R, y1 = (int)ceil(cv) + R;
        if (x0 < 0 || y0 < 0 || x1 >= f->width || y1 >= f->height)
            return -1;
        for (int x = x0; x <= x1; x++) /* separable: exp once per column and row */
            gx[x - x0] = exp(-(x - cu) * (x - cu) * k2);
        for (int y = y0; y <= y1; y++)
            gy[y - y0] = exp(-(y - cv) * (y - cv) * k2);
        double Sw = 0, Sx = 0, Sy = 0;
        for (int y = y0; y <= y1; y++) {
            double rw = 0, rx = 0;
            for (int x = x0; x <= x1; x++) {
                double w = pix(f, x, y) - bg;
                if (w < dark)
                    continue;
                double wg = w * gx[x - x0];
                rw += wg;
                rx += wg * (x - cu);
            }
            Sw += rw * gy[y - y0];
            Sx += rx * gy[y - y0];
            Sy += rw * gy[y - y0] * (y - cv);
        }
        if (!(Sw > 0))
            return -1;
        /* the windowed mean moves half way to a Gaussian spot's centre when the window
           matches it: a step of 2x converges in a few iterations */
        double du = 2 * Sx / Sw, dv = 2 * Sy / Sw;
        cu += du;
        cv += dv;
        if (hypot(cu - u0, cv - v0) > sw) /* wandered off: not a compact symmetric blob */
            return -1;
        if (fabs(du) < 1e-3 && fabs(dv) < 1e-3) /* px: a tenth of the accuracy sought */
            break;
    }
    /* propagation at the fixed point, on the window there */
    for (int x = x0; x <= x1; x++)
        gx[x - x0] = exp(-(x - cu) * (x - cu) * k2);
    for (int y = y0; y <= y1; y++)
        gy[y - y0] = exp(-(y - cv) * (y - cv) * k2);
    double Gx2 = 0, Gy2 = 0, Gx1 = 0, Gy1 = 0, Dx = 0, Dy = 0, Hx = 0, Hy = 0, isw2 = 1 / (sw * sw);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            double w = pix(f, x, y) - bg;
            if (w < dark)
                continue;
            double dxp = x - cu, dyp = y - cv, g = gx[x - x0] * gy[y - y0], g2 = g * g;
            Gx2 += g2 * dxp * dxp;
            Gy2 += g2 * dyp * dyp;
            Gx1 += g * dxp;
            Gy1 += g * dyp;
            Dx += w * g * (1 - dxp * dxp * isw2);
            Dy += w * g * (1 - dyp * dyp * isw2);
            if (w > 0) {
                Hx += w * g2 * dxp * dxp;
                Hy += w * g2 * dyp * dyp;
            }
        }
    if (!(Dx > 0 && Dy > 0))
        return -1;
    *varx = (s2 * Gx2 + d->gain * Hx + sb2 * Gx1 * Gx1) / (Dx * Dx);
    *vary = (s2 * Gy2 + d->gain * Hy + sb2 * Gy1 * Gy1) / (Dy * Dy);
    *u = cu;
    *v = cv;
    return 0;
}

int track_blob_measure(const track_detector *d, const track_frame *f, const comp *c, int crowded, double frame_bg,
                       double t, double ring_level, track_blob *b, double *ring_above, int *box_above)
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
            if (p > t) /* another object's, not the background round this one */
                continue;
            rs += p;
            rs2 += p * p;
            rn++;
        }
        if (Y1 + 1 < f->height) {
            double p = pix(f, x, Y1 + 1);
            if (p > t) /* another object's, not the background round this one */
                continue;
            rs += p;
            rs2 += p * p;
            rn++;
        }
    }
    for (int y = Y0; y <= Y1; y++) {
        if (X0 - 1 >= 0) {
            double p = pix(f, X0 - 1, y);
            if (p > t) /* another object's, not the background round this one */
                continue;
            rs += p;
            rs2 += p * p;
            rn++;
        }
        if (X1 + 1 < f->width) {
            double p = pix(f, X1 + 1, y);
            if (p > t) /* another object's, not the background round this one */
                continue;
            rs += p;
            rs2 += p * p;
            rn++;
        }
    }
    double sat = track_saturation_level(d, f);
    double bg = frame_bg, noise = d->ws->noise;
    if (rn >= 8 && !crowded) {
        bg = rs / rn;
        noise = sqrt(fmax(rs2 / rn - bg * bg, 0) * rn / (rn - 1.0));
    }
    double pn = fmax(fmax(d->ws->noise, 1.0), d->noise_floor); /* the frame's pixel noise */
    ring_bg rb = {!crowded && rn >= 8 && ring_uneven(f, X0, Y0, X1, Y1, t, pn), X0, Y0, X1, Y1, bg, 0, 0, 0, 0};
    if (rb.on) {
        rb.c00 = pix(f, X0 - 1, Y0 - 1), rb.c10 = pix(f, X1 + 1, Y0 - 1);
        rb.c01 = pix(f, X0 - 1, Y1 + 1), rb.c11 = pix(f, X1 + 1, Y1 + 1);
    }
    /* sums relative to the box origin keep the moments well conditioned */
    double W = 0, Sx = 0, Sy = 0, Sxx = 0, Syy = 0, Sxy = 0, peak = -1;
    double Wp = 0, Wpx = 0, Wpy = 0, Wpxx = 0, Wpyy = 0; /* positive weights, for shot noise */
    double N = 0, Px = 0, Py = 0, Pxx = 0, Pyy = 0;        /* geometry of the pixels used */
    /* the frame's noise (full scan, robust), not the ring's spread: a ring that crosses a
       dark rod and a lit plate spreads by tens of gray levels */
    double dark = -DARK_K * fmax(d->ws->noise, 1.0); /* 1 gray level: noiseless frames */
    int nsat = 0, nabove = 0;
    for (int y = Y0; y <= Y1; y++) {
        double yy = y - Y0;
        for (int x = X0; x <= X1; x++) {
            double p = pix(f, x, y), w = p - bg, xx = x - X0;
            if (x >= c->x0 && x <= c->x1 && y >= c->y0 && y <= c->y1) {
                nabove += p > t;
                if (p > peak)
                    peak = p;
                if (p >= sat)
                    nsat++;
            }
            if (w < dark)
                continue;
            /* above the threshold outside the component's box: another object (a plate
               the marker touches), not this one's rim, which lies below it */
            if (p > t && (x < c->x0 || x > c->x1 || y < c->y0 || y > c->y1))
                continue;
            N += 1;
            Px += xx;
            Py += yy;
            Pxx += xx * xx;
            Pyy += yy * yy;
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
    if (box_above)
        *box_above = nabove;
    if (!(W > 0))
        return -1;
    double cx = Sx / W, cy = Sy / W;
    double mxx = Sxx / W - cx * cx, myy = Syy / W - cy * cy, mxy = Sxy / W - cx * cy;

    double dx2 = Pxx - 2 * cx * Px + N * cx * cx, dy2 = Pyy - 2 * cy * Py + N * cy * cy; /* sum (x_i - u)^2 */
    double dx1 = Px - N * cx, dy1 = Py - N * cy;                                        /* sum (x_i - u) */
    noise = fmax(noise, d->noise_floor); /* coded video: the ring is cleaner than the edges */
    double s2 = noise * noise, sb2 = rn > 0 ? s2 / rn : s2;
    double shot_x = d->gain * (Wpxx - 2 * cx * Wpx + cx * cx * Wp);
    double shot_y = d->gain * (Wpyy - 2 * cy * Wpy + cy * cy * Wp);
    double varx = (s2 * dx2 + shot_x + sb2 * dx1 * dx1) / (W * W);
    double vary = (s2 * dy2 + shot_y + sb2 * dy1 * dy1) / (W * W);

    double tr = mxx + myy, det = mxx * myy - mxy * mxy, disc = sqrt(fmax(tr * tr / 4 - det, 0));
    double l1 = tr / 2 + disc, l2 = fmax(tr / 2 - disc, 0);
    double streak = sqrt(12 * fmax(l1 - l2, 0));
    double u = X0 + cx, v = Y0 + cy;
    /* flat markers against an uneven background (a band on its rod): the area centroid
       from each pixel's coverage (blob_coverage.c); the moments stay the box's */
    if (d->centroid_coverage && !crowded) {
        double cu, cv, cvx, cvy;
        /* the frame's pixel noise (full scan, robust; one gray level at least, and
           noise_floor): the ring's spread round a band is the rod and the plate */
        if (track_blob_coverage(d, f, c, t, bg, pn, &cu, &cv, &cvx, &cvy) == 0)
            u = cu, v = cv, varx = cvx, vary = cvy;
    }
    /* A peaked blob (a Gaussian-like spot: its mass over (peak - b) 2 pi M2 is ~1, a flat
       disc's 2), round within 2:1 in variance, gets the windowed centroid; flat discs and
       long streaks keep the box centroid (their position is in their edges, which a window
       would weigh down: 12 px discs after H.264 0.038 -> 0.045 px, 15 px streaks 0.076 ->
       0.101 px). */
    double m2 = 0.5 * tr, flat = peak > bg && m2 > 0 ? W / ((peak - bg) * 2 * M_PI * m2) : INFINITY;
    /* a flat blob over an uneven surround (the ring's sides differ beyond noise): its
       area centroid over the ring's patch */
    if (rb.on && !d->centroid_coverage && flat >= 1.5) {
        double pu, pv, pvx, pvy;
        if (patch_coverage(d, f, c, &rb, t, dark, pn * pn, &pu, &pv, &pvx, &pvy) == 0)
            u = pu, v = pv, varx = pvx, vary = pvy;
    }
    if (d->centroid_window && !crowded && flat < 1.5 && l2 >= 0.5 * l1) {
        double wu = u, wv = v, wvx, wvy;
        if (window_refine(d, f, bg, dark, s2, sb2, sqrt(m2), &wu, &wv, &wvx, &wvy) == 0) {
            u = wu, v = wv, varx = wvx, vary = wvy;
        }
    }

    if (ring_above) {
        double lv = ring_level;
        int ra = 0, rk = 0;
        for (int x = X0 - 1; x <= X1 + 1; x++) {
            if (x < 0 || x >= f->width)
                continue;
            if (Y0 - 1 >= 0)
                ra += pix(f, x, Y0 - 1) > lv, rk++;
            if (Y1 + 1 < f->height)
                ra += pix(f, x, Y1 + 1) > lv, rk++;
        }
        for (int y = Y0; y <= Y1; y++) {
            if (X0 - 1 >= 0)
                ra += pix(f, X0 - 1, y) > lv, rk++;
            if (X1 + 1 < f->width)
                ra += pix(f, X1 + 1, y) > lv, rk++;
        }
        *ring_above = rk > 0 ? (double)ra / rk : 0;
    }
    memset(b, 0, sizeof *b);
    b->u = u;
    b->v = v;
    b->sigma = sqrt(0.5 * (varx + vary));
    b->area = c->area;
    b->mass = W;
    b->peak = peak;
    b->background = bg;
    b->mxx = mxx;
    b->myy = myy;
    b->mxy = mxy;
    b->major = sqrt(fmax(l1, 0));
    b->minor = sqrt(l2);
    b->angle = 0.5 * atan2(2 * mxy, mxx - myy);
    b->streak_px = streak;
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
int track_blob_shape_ok(const track_detector *d, const track_blob *b, double blur_px)
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

