/* disc_split.c: k touching discs of a known diameter seen as one blob (balls in a row,
 * a cradle's, lit alike, one bright area) split into k blobs. The blob is k discs when
 * its area is about k discs' (k >= 2), it is elongated, and after splitting each part is
 * about a disc's area and every boundary between two parts is a waist: the blob's
 * chord along it (the pixels above the level within half a pixel of it) is under
 * WAIST_FRACTION of the diameter. A single marker streaked by its motion is a disc swept
 * along its path, as wide where the parts would meet as anywhere: no waist, not split.
 *
 * The parts: Lloyd's k-means on the pixels of the blob's box grown by the centroid
 * margin, within a disc's radius and that margin of a centre, weighted by I - background, started at k points evenly along the major axis;
 * each pixel goes to its nearest centre (the boundary between two equal touching discs
 * is the bisector of their centres, through their contact point, so each cell holds
 * one disc and the light each leaks across mirrors what it receives: no bias). Each
 * part's sigma is the first-order propagation of the pixel noise through its centroid,
 * as blob_measure.c's static term, and the cut's own error in quadrature. No allocation: the parts go to the caller's array. */
#include <math.h>
#include <string.h>

#include "track/detect_internal.h"

/* a boundary whose chord is under this fraction of the diameter is a waist: two touching
   discs meet in a point (rendered and blurred, a few pixels: 0.2-0.35 of the diameter
   for 10-40 px discs); a streak's stadium is a full diameter wide there */
#define WAIST_FRACTION 0.6
#define LLOYD_ITERATIONS 30
/* px: the cut between two touching discs' light, added in quadrature to each part's
   noise sigma: 2-4 touching discs of 14 and 34 px at read noise 2 (test_disc_split.c)
   sit 0.005-0.06 px from their centres (one 0.16; RMS 0.02 px per axis), the noise
   term alone 0.01 px */
#define SPLIT_SIGMA_PX 0.02

int track_disc_split(const track_detector *d, const track_frame *f, const comp *c, double level, double bg,
                     const track_blob *whole, track_blob *parts, int max_parts)
{
    double D = d->disc_split_px;
    if (!(D > 0) || max_parts < 2)
        return 0;
    double disc = M_PI * 0.25 * D * D, ratio = c->area / disc;
    int k = (int)floor(ratio + 0.5);
    if (ratio < 1.5 || k < 2 || k > max_parts || k > TRACK_DISC_SPLIT_MAX)
        return 0;
    /* elongated: two touching discs have major / minor = sqrt(5), k discs more */
    if (!(whole->major > 1.5 * whole->minor))
        return 0;
    int m = d->centroid_margin_px;
    int X0 = c->x0 - m, Y0 = c->y0 - m, X1 = c->x1 + m, Y1 = c->y1 + m;
    if (X0 < 0)
        X0 = 0;
    if (Y0 < 0)
        Y0 = 0;
    if (X1 >= f->width)
        X1 = f->width - 1;
    if (Y1 >= f->height)
        Y1 = f->height - 1;
    double ca = cos(whole->angle), sa = sin(whole->angle);
    double smin = INFINITY, smax = -INFINITY;
    for (int y = c->y0; y <= c->y1; y++)
        for (int x = c->x0; x <= c->x1; x++)
            if (pix(f, x, y) > level) {
                double s = (x - whole->u) * ca + (y - whole->v) * sa;
                smin = fmin(smin, s);
                smax = fmax(smax, s);
            }
    if (!(smax > smin))
        return 0;
    double cu[TRACK_DISC_SPLIT_MAX], cv[TRACK_DISC_SPLIT_MAX];
    for (int i = 0; i < k; i++) {
        double s = smin + (i + 0.5) * (smax - smin) / k;
        cu[i] = whole->u + s * ca;
        cv[i] = whole->v + s * sa;
    }
    /* px^2: a cell's pixels within a disc's radius and the margin of its centre (the
       box's corners, background only, would weigh in the background's error unevenly) */
    double reach = 0.5 * D + m + 0.5, reach2 = reach * reach;
    double sw[TRACK_DISC_SPLIT_MAX], su[TRACK_DISC_SPLIT_MAX], sv[TRACK_DISC_SPLIT_MAX];
    for (int it = 0; it < LLOYD_ITERATIONS; it++) {
        memset(sw, 0, sizeof sw);
        memset(su, 0, sizeof su);
        memset(sv, 0, sizeof sv);
        for (int y = Y0; y <= Y1; y++)
            for (int x = X0; x <= X1; x++) {
                double w = pix(f, x, y) - bg;
                int best = 0;
                double bd = INFINITY;
                for (int i = 0; i < k; i++) {
                    double dd = (x - cu[i]) * (x - cu[i]) + (y - cv[i]) * (y - cv[i]);
                    if (dd < bd)
                        bd = dd, best = i;
                }
                if (bd > reach2)
                    continue;
                sw[best] += w;
                su[best] += w * x;
                sv[best] += w * y;
            }
        double moved = 0;
        for (int i = 0; i < k; i++) {
            if (!(sw[i] > 0))
                return 0;
            double nu = su[i] / sw[i], nv = sv[i] / sw[i];
            moved = fmax(moved, fabs(nu - cu[i]) + fabs(nv - cv[i]));
            cu[i] = nu, cv[i] = nv;
        }
        if (moved < 1e-4)
            break;
    }
    /* the parts in order along the axis; each boundary a waist */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && (cu[j] - cu[j - 1]) * ca + (cv[j] - cv[j - 1]) * sa < 0; j--) {
            double t = cu[j];
            cu[j] = cu[j - 1], cu[j - 1] = t;
            t = cv[j];
            cv[j] = cv[j - 1], cv[j - 1] = t;
        }
    for (int i = 0; i + 1 < k; i++) {
        double nx = cu[i + 1] - cu[i], ny = cv[i + 1] - cv[i], len = hypot(nx, ny);
        if (!(len > 0.5 * D))
            return 0; /* two centres closer than two discs can be */
        nx /= len, ny /= len;
        double mx = 0.5 * (cu[i] + cu[i + 1]), my = 0.5 * (cv[i] + cv[i + 1]);
        int chord = 0;
        for (int y = c->y0; y <= c->y1; y++)
            for (int x = c->x0; x <= c->x1; x++)
                if (fabs((x - mx) * nx + (y - my) * ny) <= 0.5 && pix(f, x, y) > level)
                    chord++;
        if (chord >= WAIST_FRACTION * D)
            return 0;
    }
    /* each part measured: its pixels above the level (area, box, peak), its moments and
       its centroid's sigma over its cell */
    double noise = fmax(d->ws->noise, d->noise_floor);
    for (int i = 0; i < k; i++) {
        track_blob *p = &parts[i];
        *p = *whole;
        p->u = cu[i], p->v = cv[i];
        double mass = 0, mxx = 0, myy = 0, mxy = 0, vx = 0, vy = 0, peak = -INFINITY;
        int area = 0, bx0 = X1, by0 = Y1, bx1 = X0, by1 = Y0, nsat = 0;
        double sat = track_saturation_level(d, f);
        for (int y = Y0; y <= Y1; y++)
            for (int x = X0; x <= X1; x++) {
                int best = 0;
                double bd = INFINITY;
                for (int j = 0; j < k; j++) {
                    double dd = (x - cu[j]) * (x - cu[j]) + (y - cv[j]) * (y - cv[j]);
                    if (dd < bd)
                        bd = dd, best = j;
                }
                if (best != i || bd > reach2)
                    continue;
                double I = pix(f, x, y), w = I - bg, dx = x - cu[i], dy = y - cv[i];
                mass += w;
                mxx += w * dx * dx, myy += w * dy * dy, mxy += w * dx * dy;
                vx += dx * dx, vy += dy * dy;
                if (I > level && x >= c->x0 && x <= c->x1 && y >= c->y0 && y <= c->y1) {
                    area++;
                    peak = fmax(peak, I);
                    nsat += I >= sat;
                    bx0 = x < bx0 ? x : bx0, bx1 = x > bx1 ? x : bx1;
                    by0 = y < by0 ? y : by0, by1 = y > by1 ? y : by1;
                }
            }
        if (!(mass > 0) || area < 0.5 * disc || area > 1.5 * disc)
            return 0;
        p->mass = mass;
        p->area = area;
        p->peak = peak;
        p->n_saturated = nsat;
        p->x0 = bx0, p->y0 = by0, p->x1 = bx1, p->y1 = by1;
        p->mxx = mxx / mass, p->myy = myy / mass, p->mxy = mxy / mass;
        double tr = p->mxx + p->myy, det = p->mxx * p->myy - p->mxy * p->mxy;
        double disc_ = sqrt(fmax(0.25 * tr * tr - det, 0));
        double l1 = 0.5 * tr + disc_, l2 = fmax(0.5 * tr - disc_, 0);
        p->major = sqrt(l1);
        p->minor = sqrt(l2);
        p->angle = 0.5 * atan2(2 * p->mxy, p->mxx - p->myy);
        p->streak_px = sqrt(fmax(12 * (l1 - l2), 0));
        p->sigma = hypot(noise * sqrt(0.5 * (vx + vy)) / mass, SPLIT_SIGMA_PX);
        p->flags = whole->flags & ~(unsigned)TRACK_FLAG_BLURRED;
        if (nsat)
            p->flags |= TRACK_FLAG_SATURATED;
        if (p->streak_px > d->blurred_px)
            p->flags |= TRACK_FLAG_BLURRED;
    }
    return k;
}
