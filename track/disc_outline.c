/* disc_outline.c: the centre of a ball partly hidden, from the arc of its outline.
 * A ball behind its own body's edge or its post shows a disc with a segment cut away;
 * the centroid is the visible part's, off the centre towards the uncut side by up to
 * a third of the radius (tuning scene 1104: 30 mm balls half behind their black box,
 * 2.5 px at 19 px across, 7.7 mm on a pair of markers against a tolerance of 6.6). The
 * arc that still shows lies on the ball's circle: rays from the centroid meet the
 * outline there at the ball's radius from its centre, and at the hiding edge inside it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "track/detect_internal.h"

#define N_RAYS 72
#define MIN_RADIUS_PX 7.5   /* px: on a smaller disc the outline's few pixels fit wrong
                               circles that pass every test below (tuning scene 1148:
                               13 px stickers, 2.6-3 px off) */
#define RAY_STEP 0.25       /* px along a ray */
#define CUT_PX 1.0          /* px: an outline point farther than this from the circle is
                               not the arc (inside: the hiding edge; outside: the post) */
#define MAX_RMS_PX 0.35     /* px: the arc's points about the circle, a disc's outline
                               sampled at the half height (a whole ball: 0.07-0.11) */
#define MAX_EDGE_RMS_PX 0.4 /* px: the hiding edge's points about their line, its
                               ends (rounded over a pixel by the blur) left out */
#define MAX_CENTROID_PX 0.3 /* px: the cut disc's centroid from the blob's */
#define CUT_AREA 0.85       /* a blob under this part of the disc's area has lost a piece */

static double bilinear(const track_frame *f, double x, double y)
{
    if (x < 0 || y < 0 || x > f->width - 1.001 || y > f->height - 1.001)
        return NAN;
    int x0 = (int)x, y0 = (int)y;
    double fx = x - x0, fy = y - y0;
    return (1 - fx) * (1 - fy) * pix(f, x0, y0) + fx * (1 - fy) * pix(f, x0 + 1, y0) +
           (1 - fx) * fy * pix(f, x0, y0 + 1) + fx * fy * pix(f, x0 + 1, y0 + 1);
}

/* The centre (cu, cv) of radius R nearest, in the least squares of |p - c| - R, the
 * points kept (keep[i]); Gauss-Newton from (cu, cv). Returns 0, or -1 when singular. */
static int fit_centre(const double *x, const double *y, const int *keep, int n, double R, double *cu, double *cv)
{
    for (int it = 0; it < 8; it++) {
        double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
        for (int i = 0; i < n; i++) {
            if (!keep[i])
                continue;
            double dx = x[i] - *cu, dy = y[i] - *cv, d = hypot(dx, dy);
            if (d <= 0)
                return -1;
            double jx = -dx / d, jy = -dy / d, r = d - R;
            a11 += jx * jx, a12 += jx * jy, a22 += jy * jy, b1 += jx * r, b2 += jy * r;
        }
        double det = a11 * a22 - a12 * a12;
        if (!(det > 1e-9))
            return -1;
        double du = (a22 * b1 - a12 * b2) / det, dv = (a11 * b2 - a12 * b1) / det;
        *cu -= du, *cv -= dv;
        if (hypot(du, dv) < 1e-4)
            break;
    }
    return 0;
}

/* The line of the run of rays from first (ok, not kept): a point of it (*mx, *my) and
 * its unit normal (*nx, *ny); returns the points' RMS distance to it, the run's first
 * and last two left out (rounded by the blur), or INFINITY with under 3 points left. */
static double edge_line(const double *x, const double *y, const int *ok, const int *keep, int first, double *mx,
                        double *my, double *nx, double *ny)
{
    int idx[N_RAYS], n = 0;
    for (int k = first; n < N_RAYS; k = (k + 1) % N_RAYS) {
        if (!ok[k] || keep[k])
            break;
        idx[n++] = k;
    }
    if (n - 4 < 3)
        return INFINITY;
    *mx = 0, *my = 0;
    for (int i = 2; i < n - 2; i++)
        *mx += x[idx[i]], *my += y[idx[i]];
    *mx /= n - 4, *my /= n - 4;
    double sxx = 0, sxy = 0, syy = 0;
    for (int i = 2; i < n - 2; i++) {
        double dx = x[idx[i]] - *mx, dy = y[idx[i]] - *my;
        sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
    }
    /* the least eigenvalue of the scatter (the sum of squares across the line) and its
       eigenvector, the normal */
    double tr = sxx + syy, det = sxx * syy - sxy * sxy, l2 = 0.5 * tr - sqrt(fmax(0.25 * tr * tr - det, 0));
    double ax = sxy, ay = l2 - sxx, bx = l2 - syy, by = sxy;
    if (hypot(bx, by) > hypot(ax, ay))
        ax = bx, ay = by;
    double na = hypot(ax, ay);
    if (!(na > 0))
        return INFINITY;
    *nx = ax / na, *ny = ay / na;
    return sqrt(fmax(l2, 0) / (n - 4));
}

/* The centroid of the disc (cu, cv, R) less its part beyond the line through (mx, my)
 * of unit normal (nx, ny) (pointing there), in (*gu, *gv); -1 when the line misses the
 * disc. The part beyond a chord h from the centre (h < 0: the centre cut away too) has
 * area R^2 acos(h/R) - h sqrt(R^2 - h^2) and its centroid 2/3 (R^2 - h^2)^1.5 / area
 * from the centre along the normal. */
static int cut_disc_centroid(double cu, double cv, double R, double mx, double my, double nx, double ny, double *gu,
                             double *gv)
{
    double h = (mx - cu) * nx + (my - cv) * ny;
    if (!(fabs(h) < R))
        return -1;
    double q = sqrt(R * R - h * h), as = R * R * acos(h / R) - h * q, ds = 2.0 / 3.0 * q * q * q / as;
    double left = M_PI * R * R - as;
    *gu = cu - nx * as * ds / left, *gv = cv - ny * as * ds / left;
    return 0;
}

/* The circle through the points kept nearest in the algebraic sense (Kasa's fit):
 * centre (*cu, *cv), radius *r. Returns 0, or -1 when singular. */
static int fit_circle(const double *x, const double *y, const int *keep, int n, double *cu, double *cv, double *r)
{
    double mx = 0, my = 0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (keep[i])
            mx += x[i], my += y[i], m++;
    if (m < 3)
        return -1;
    mx /= m, my /= m;
    double suu = 0, suv = 0, svv = 0, suuu = 0, svvv = 0, suvv = 0, svuu = 0;
    for (int i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        double u = x[i] - mx, v = y[i] - my;
        suu += u * u, suv += u * v, svv += v * v;
        suuu += u * u * u, svvv += v * v * v, suvv += u * v * v, svuu += v * u * u;
    }
    double det = suu * svv - suv * suv, b1 = 0.5 * (suuu + suvv), b2 = 0.5 * (svvv + svuu);
    if (!(det > 1e-9))
        return -1;
    double uc = (b1 * svv - b2 * suv) / det, vc = (suu * b2 - suv * b1) / det;
    *cu = mx + uc, *cv = my + vc, *r = sqrt(uc * uc + vc * vc + (suu + svv) / m);
    return 0;
}

/* The outline's point on the ray from (u, v) along (ca, sa): from distance s0 (the
   image prev there) in steps of `coarse` px to the first sample below level (or off
   the frame), then RAY_STEP steps over that last step, out to s_max; 0: none */
static int ray_crossing(const track_frame *f, double u, double v, double ca, double sa, double s0, double prev,
                        double coarse, double s_max, double level, double *x, double *y)
{
    double s;
    for (s = s0 + coarse; s <= s_max; s += coarse) {
        double val = bilinear(f, u + s * ca, v + s * sa);
        if (isnan(val) || val < level)
            break;
        prev = val;
    }
    if (s > s_max)
        return 0;
    for (double q = s - coarse + RAY_STEP; q <= s + 1e-9; q += RAY_STEP) {
        double val = bilinear(f, u + q * ca, v + q * sa);
        if (isnan(val))
            return 0;
        if (val < level) {
            double t = (prev - level) / (prev - val), r = q - RAY_STEP * (1 - t);
            *x = u + r * ca, *y = v + r * sa;
            return 1;
        }
        prev = val;
    }
    return 0;
}

int track_disc_outline_centre(const track_frame *f, const track_blob *b, double diameter_px, double *u, double *v)
{
    double R = 0.5 * diameter_px, level = b->background + 0.5 * (b->peak - b->background);
    if (!(R >= MIN_RADIUS_PX) || !(b->peak > b->background) || b->area >= CUT_AREA * M_PI * R * R)
        return 0;
    if (!(bilinear(f, b->u, b->v) >= level))
        return 0; /* the centroid off the blob: no disc */
    double x[N_RAYS], y[N_RAYS];
    int ok[N_RAYS], keep[N_RAYS], n_ok = 0;
    for (int k = 0; k < N_RAYS; k++) {
        double a = 2 * M_PI * k / N_RAYS;
        ok[k] = ray_crossing(f, b->u, b->v, cos(a), sin(a), 0, bilinear(f, b->u, b->v), RAY_STEP, 2 * R + 2, level,
                             &x[k], &y[k]);
        n_ok += ok[k];
    }
    if (n_ok < N_RAYS * 3 / 4)
        return 0;
    /* the arc: the points within CUT_PX of the circle, found again from each fit; first
       of any radius (the hiding edge's points, in the first fit, would pull a circle
       of the ball's radius towards them), then of the ball's */
    double cu, cv, rf;
    for (int k = 0; k < N_RAYS; k++)
        keep[k] = ok[k];
    for (int it = 0; it < 6; it++) {
        if (fit_circle(x, y, keep, N_RAYS, &cu, &cv, &rf))
            return 0;
        for (int k = 0; k < N_RAYS; k++)
            keep[k] = ok[k] && fabs(hypot(x[k] - cu, y[k] - cv) - rf) <= CUT_PX;
    }
    for (int it = 0; it < 6; it++) {
        if (fit_centre(x, y, keep, N_RAYS, R, &cu, &cv))
            return 0;
        for (int k = 0; k < N_RAYS; k++)
            keep[k] = ok[k] && fabs(hypot(x[k] - cu, y[k] - cv) - R) <= CUT_PX;
    }
    /* a disc cut once: the arc two fifths of the rays or more (they leave the centroid,
       off towards the arc: 41-51 of 72 on scene 1104), fitting the circle, and the
       points inside it one run of rays along a straight edge (a sticker's ellipse seen
       aslant, which a circle of its long axis touches on one side, leaves its other
       side inside: curved, 2 px from its chord at 0.7 of the width) */
    int n_keep = 0, runs = 0, first_in = -1;
    double ss = 0;
    for (int k = 0; k < N_RAYS; k++) {
        if (keep[k]) {
            double r = hypot(x[k] - cu, y[k] - cv) - R;
            ss += r * r, n_keep++;
        }
        int k1 = (k + 1) % N_RAYS;
        int in = ok[k] && !keep[k] && hypot(x[k] - cu, y[k] - cv) < R;
        int in1 = ok[k1] && !keep[k1] && hypot(x[k1] - cu, y[k1] - cv) < R;
        if (in1 && !in)
            first_in = k1;
        runs += in && !in1;
    }
    if (n_keep < N_RAYS * 2 / 5 || sqrt(ss / n_keep) > MAX_RMS_PX || runs != 1 || first_in < 0)
        return 0;
    double mx, my, nx, ny, gu, gv, au = 0, av = 0;
    if (edge_line(x, y, ok, keep, first_in, &mx, &my, &nx, &ny) > MAX_EDGE_RMS_PX)
        return 0;
    for (int k = 0; k < N_RAYS; k++)
        if (keep[k])
            au += x[k] / n_keep, av += y[k] / n_keep;
    if ((au - mx) * nx + (av - my) * ny > 0) /* the normal away from the arc */
        nx = -nx, ny = -ny;
    if (cut_disc_centroid(cu, cv, R, mx, my, nx, ny, &gu, &gv))
        return 0;
    /* the disc so cut must be the blob, its centroid where the blob's is: a circle
       through noise, or round a shape that is no cut disc, does not hold it (the fits
       kept on tuning scenes 1104 and 1037: 0.06-0.10 px at the median, 0.25 at most) */
    if (hypot(gu - b->u, gv - b->v) > MAX_CENTROID_PX)
        return 0;
    double moved = hypot(cu - b->u, cv - b->v);
    if (moved > 0.5 * R)
        return 0;
    *u = cu, *v = cv;
    return 1;
}

/* A whole ball's centre from its outline. Its box centroid weighs every pixel of the
 * box by I - b: a glint or a plate's bright speck that touches the ball joins its
 * component and pulls it, and on a light plate the ball stands out by only 40-70 gray
 * levels, so a few px of clutter at its rim move it by tenths of a px (docs/track.md
 * "Session 31"). The outline at half height is a circle (a disc blurred
 * along its motion: a shape symmetric about its centre, whose fitted circle keeps that
 * centre); the clutter moves only the rays that cross it, which leave the circle by more
 * than CUT_PX and are dropped. */
#define WHOLE_MIN_RADIUS_PX 15.0 /* px: balls 30 px across or more; on smaller discs a
                                    few px of clutter are a larger part of the rim */
#define WHOLE_MIN_ROUND 0.85     /* minor / major axis: a long streak is no circle */
#define WHOLE_MIN_KEEP (N_RAYS * 3 / 4)
#define WHOLE_MAX_MOVE_PX 1.5    /* px: the circle's centre from the box centroid */
#define WHOLE_SWITCH_PX 0.1      /* px: ... and at least this far from it to be taken (a
                                    glint's pull: 0.2-0.35 px) */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int track_disc_whole_centre(const track_frame *f, const track_blob *b, double diameter_px, double *u, double *v,
                            double *sigma)
{
    double R = 0.5 * diameter_px;
    if (!(R >= WHOLE_MIN_RADIUS_PX) || !(b->peak > b->background) || b->area < CUT_AREA * M_PI * R * R ||
        !(b->major > 0) || b->minor < WHOLE_MIN_ROUND * b->major)
        return 0;
    /* the ball's own level, the median of a ring half its radius out: not the blob's
       peak, which a saturated glint in its box sets (a gray ball's half height taken
       from a glint's 255 stood above the ball) */
    double r0 = 0.5 * sqrt(b->area / M_PI), ring[N_RAYS], ca[N_RAYS], sa[N_RAYS];
    double c1 = cos(2 * M_PI / N_RAYS), s1 = sin(2 * M_PI / N_RAYS);
    for (int k = 0; k < N_RAYS; k++) {
        /* the rays' directions by rotation: no sin and cos per ray */
        ca[k] = k ? ca[k - 1] * c1 - sa[k - 1] * s1 : 1, sa[k] = k ? sa[k - 1] * c1 + ca[k - 1] * s1 : 0;
        ring[k] = bilinear(f, b->u + r0 * ca[k], b->v + r0 * sa[k]);
        if (isnan(ring[k]))
            return 0;
    }
    double sorted[N_RAYS];
    memcpy(sorted, ring, sizeof sorted);
    qsort(sorted, N_RAYS, sizeof sorted[0], cmp_double);
    double plateau = 0.5 * (sorted[N_RAYS / 2 - 1] + sorted[N_RAYS / 2]);
    if (!(plateau > b->background))
        return 0;
    double level = b->background + 0.5 * (plateau - b->background);
    double x[N_RAYS], y[N_RAYS];
    int ok[N_RAYS], keep[N_RAYS], n_ok = 0;
    for (int k = 0; k < N_RAYS; k++) {
        ok[k] = 0;
        if (!(ring[k] >= level))
            continue; /* a dark spot on the ball, or no disc there */
        /* 1 px steps to the first sample below the level, then RAY_STEP steps over
           that last pixel: a fourth of the samples of RAY_STEP steps all along */
        ok[k] = ray_crossing(f, b->u, b->v, ca[k], sa[k], r0, ring[k], 1, 2 * R + 2, level, &x[k], &y[k]);
        n_ok += ok[k];
    }
    if (n_ok < WHOLE_MIN_KEEP)
        return 0;
    double cu, cv, rf;
    for (int k = 0; k < N_RAYS; k++)
        keep[k] = ok[k];
    for (int it = 0; it < 4; it++) {
        if (fit_circle(x, y, keep, N_RAYS, &cu, &cv, &rf))
            return 0;
        for (int k = 0; k < N_RAYS; k++)
            keep[k] = ok[k] && fabs(sqrt((x[k] - cu) * (x[k] - cu) + (y[k] - cv) * (y[k] - cv)) - rf) <= CUT_PX;
    }
    int n_keep = 0;
    double ss = 0;
    for (int k = 0; k < N_RAYS; k++)
        if (keep[k]) {
            double r = sqrt((x[k] - cu) * (x[k] - cu) + (y[k] - cv) * (y[k] - cv)) - rf;
            ss += r * r, n_keep++;
        }
    double moved = hypot(cu - b->u, cv - b->v);
    if (n_keep < WHOLE_MIN_KEEP || sqrt(ss / n_keep) > MAX_RMS_PX || fabs(rf - R) > 0.3 * R ||
        moved > WHOLE_MAX_MOVE_PX)
        return 0;
    /* a circle's centre from n points spread round it, each off by s along its radius:
       var = 2 s^2 / n per axis (the residuals' s, the fit's three parameters taken off) */
    double s_fit = sqrt(2 * ss / (n_keep - 3) / n_keep);
    /* only where the box centroid is off the circle beyond both their noises: clutter
       in the box. Elsewhere the box centroid stays: the velocity's sigma is read from
       the tracks' scatter, and a smoother track on a clean ball shrank it below the
       slow errors that remain (the video cradle's RMS v pull 0.96 -> 1.57) */
    if (moved <= fmax(WHOLE_SWITCH_PX, 3 * hypot(b->sigma, s_fit)))
        return 0;
    *u = cu, *v = cv, *sigma = s_fit;
    return 1;
}
