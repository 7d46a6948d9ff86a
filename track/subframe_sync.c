/* subframe_sync.c: the sub-frame time offset between two cameras from the motion
 * itself. A flash gives the offset to a fraction of a frame at best; a moving marker
 * seen by camera a at time t lies on the epipolar line of camera b's view of it at the
 * same t, so the offset that minimises the epipolar distances between a's points and
 * b's track interpolated to a's times is the true one (the residual grows with the
 * speed across the epipolar lines times the time error). Interpolation stays inside
 * one flight segment: never across a gap or an impact (a kink of the 2D track). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "track/consensus_internal.h"
#include "track/track_3d.h"

static const track_sync_point *find_point(const track_sync_camera *c, long f, int id)
{
    if (f < 0 || f >= c->frames)
        return NULL;
    for (long i = c->frame_start[f]; i < c->frame_start[f + 1]; i++)
        if (c->pts[i].id == id)
            return &c->pts[i];
    return NULL;
}

static int usable(const track_sync_point *p)
{
    return p && !(p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED | TRACK_FLAG_OUTLIER));
}

/* px/frame^2: the largest second difference of track id measured at frames k and k + 1
 * (each from its two neighbours), 0 when neither is measured. A chord between frames k
 * and k + 1 misses the curve by w (1 - w) a / 2 at the fraction w. */
static double track_curvature(const track_sync_camera *c, int id, long k)
{
    double a = 0;
    for (long g = k; g <= k + 1; g++) {
        const track_sync_point *pm = find_point(c, g - 1, id), *p = find_point(c, g, id),
                               *pn = find_point(c, g + 1, id);
        if (usable(pm) && usable(p) && usable(pn))
            a = fmax(a, hypot(pn->u - 2 * p->u + pm->u, pn->v - 2 * p->v + pm->v));
    }
    return a;
}

/* The point of track id at the fraction w of the way from frame k to k + 1 (w < 0 or
 * w > 1: extrapolated), linear, with the noise of both points and the chord's error
 * for the track's curvature added in quadrature. */
static void chord_at(const track_sync_camera *c, int id, long k, const track_sync_point *p0, const track_sync_point *p1,
                     double w, double *u, double *v, double *sigma)
{
    *u = (1 - w) * p0->u + w * p1->u;
    *v = (1 - w) * p0->v + w * p1->v;
    double model = 0.5 * fabs(w * (1 - w)) * track_curvature(c, id, k);
    *sigma = sqrt((1 - w) * (1 - w) * p0->sigma * p0->sigma + w * w * p1->sigma * p1->sigma + model * model);
}

int track_sync_interpolate(const track_sync_camera *c, int id, double tc, double *u, double *v, double *sigma,
                           int *interpolated)
{
    const double *t = c->cam_time_s;
    if (c->frames < 1 || tc < t[0] || tc > t[c->frames - 1])
        return -1;
    /* first frame k with t[k] > tc, minus one (times ascend) */
    long lo = 0, hi = c->frames - 1;
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        if (t[mid] <= tc)
            lo = mid;
        else
            hi = mid;
    }
    long k = t[hi] <= tc ? hi : lo;
    double dt_frame = 1.0 / c->fps;
    const track_sync_point *p0 = find_point(c, k, id);
    if (fabs(tc - t[k]) < 1e-6 * dt_frame) { /* on the frame itself */
        if (!usable(p0))
            return -1;
        *u = p0->u;
        *v = p0->v;
        *sigma = p0->sigma;
        *interpolated = 0;
        return 0;
    }
    const track_sync_point *p1 = find_point(c, k + 1, id);
    if (!usable(p0) || !usable(p1) || p0->seg_break)
        return -1;
    double span = t[k + 1] - t[k];
    if (span > 1.5 * dt_frame) /* a dropped frame between: a gap */
        return -1;
    chord_at(c, id, k, p0, p1, (tc - t[k]) / span, u, v, sigma);
    *interpolated = 1;
    return 0;
}

int track_sync_extrapolate(const track_sync_camera *c, int id, double tc, double max_frames, double *u, double *v,
                           double *sigma)
{
    const double *t = c->cam_time_s;
    long n = c->frames;
    if (n < 3 || max_frames <= 0)
        return -1;
    double dt_frame = 1.0 / c->fps;
    long k; /* the chord from frame k to k + 1, and the frame beyond it (k - 1 or k + 2) */
    if (tc < t[0] && t[0] - tc <= max_frames * dt_frame)
        k = 0;
    else if (tc > t[n - 1] && tc - t[n - 1] <= max_frames * dt_frame)
        k = n - 2;
    else
        return -1;
    long beyond = k == 0 ? 2 : n - 3;
    const track_sync_point *p0 = find_point(c, k, id), *p1 = find_point(c, k + 1, id), *pb = find_point(c, beyond, id);
    /* three measured points of one flight phase: no kink between them (seg_break is
       marked from the second differences; the last frame's is never set) */
    if (!usable(p0) || !usable(p1) || !usable(pb) || p0->seg_break || (k == 0 ? p1 : pb)->seg_break)
        return -1;
    double span = t[k + 1] - t[k], span_b = k == 0 ? t[2] - t[1] : t[n - 2] - t[n - 3];
    if (span > 1.5 * dt_frame || span_b > 1.5 * dt_frame) /* a dropped frame: a gap */
        return -1;
    chord_at(c, id, k, p0, p1, (tc - t[k]) / span, u, v, sigma);
    return 0;
}

void track_sync_mark_breaks(track_sync_point *pts, long n_pts, const long *frame_start, long frames, double kink_px)
{
    track_sync_camera c = {.pts = pts, .n_pts = n_pts, .frame_start = frame_start, .frames = frames};
    for (long i = 0; i < n_pts; i++)
        pts[i].seg_break = 0;
    /* second difference at frame f of track id, or -1 when not all three are measured */
    for (long f = 0; f + 1 < frames; f++) {
        for (long i = frame_start[f]; i < frame_start[f + 1]; i++) {
            track_sync_point *p = &pts[i];
            if (!usable(p))
                continue;
            const track_sync_point *pm = find_point(&c, f - 1, p->id), *pn = find_point(&c, f + 1, p->id),
                                   *pnn = find_point(&c, f + 2, p->id);
            if (!usable(pn)) {
                continue; /* no interpolation to f + 1 anyway */
            }
            double lim = kink_px + 6 * p->sigma;
            int k0 = 0, k1 = 0, have0 = 0, have1 = 0;
            if (usable(pm)) {
                have0 = 1;
                k0 = hypot(pn->u - 2 * p->u + pm->u, pn->v - 2 * p->v + pm->v) > lim;
            }
            if (usable(pnn)) {
                have1 = 1;
                k1 = hypot(pnn->u - 2 * pn->u + p->u, pnn->v - 2 * pn->v + p->v) > lim;
            }
            /* an impact inside (f, f+1) bends both; one only bent: the impact is at a frame
               (or next to a track's end: be safe when the one known bend is large) */
            if ((have0 && have1 && k0 && k1) || (!have0 && k1) || (!have1 && k0))
                p->seg_break = 1;
        }
    }
}

/* one matched pair of track identities */
typedef struct {
    int ia, ib;
} id_pair;

#define SS_MAX_PAIRS 32

static void view_at(const track_view *v, double u, double vv, double s, track_view *out)
{
    *out = *v;
    out->u = u;
    out->v = vv;
    out->sigma = s;
}


static double signed_distance(icv_mat3 F, double ua, double va, double ub, double vb)
{
    icv_vec3 l = icv_m3_apply(F, icv_v3(ua, va, 1));
    double nrm = hypot(l.x, l.y);
    return nrm > 0 ? (l.x * ub + l.y * vb + l.z) / nrm : INFINITY;
}

/* Cost at offset off (and, with rho, the lag-1 correlation of the residuals of each
 * pair of tracks): over a's usable points, the signed epipolar distance to b's
 * interpolated point, less its mean over the pair of tracks (a constant offset of the
 * centroids between the views does not depend on time), squared and capped at cap^2
 * (robust to an impact's frames). only >= 0: that pair alone. pair_ss, pair_n (NULL or
 * n_pairs entries): each pair's sum and count. d is scratch of a->n_pts entries. */
static double cost_at(const track_sync_camera *a, const track_sync_camera *b, icv_mat3 F, const id_pair *pairs,
                      int n_pairs, int only, double off, double cap, long *n_used, double *d, int *which, double *rho,
                      double *pair_ss, long *pair_n)
{
    long n = 0;
    double sum[SS_MAX_PAIRS] = {0};
    long cnt[SS_MAX_PAIRS] = {0};
    for (long f = 0; f < a->frames; f++) {
        double tc = a->cam_time_s[f] + off / b->fps;
        for (long i = a->frame_start[f]; i < a->frame_start[f + 1]; i++) {
            const track_sync_point *p = &a->pts[i];
            if (!usable(p))
                continue;
            for (int k = 0; k < n_pairs; k++) {
                if (pairs[k].ia != p->id)
                    continue;
                if (only >= 0 && k != only)
                    break;
                double u, v, s;
                int interp;
                if (track_sync_interpolate(b, pairs[k].ib, tc, &u, &v, &s, &interp) != 0)
                    break;
                double x = signed_distance(F, p->u, p->v, u, v);
                if (!isfinite(x))
                    break;
                d[n] = x;
                which[n++] = k;
                sum[k] += x;
                cnt[k]++;
                break;
            }
        }
    }
    double ss = 0, lag = 0, ss_all = 0, pss[SS_MAX_PAIRS] = {0};
    long prev[SS_MAX_PAIRS];
    for (int k = 0; k < n_pairs; k++)
        prev[k] = -1;
    for (long i = 0; i < n; i++) {
        int k = which[i];
        double e = d[i] - sum[k] / cnt[k], e2 = fabs(e) < cap ? e * e : cap * cap;
        ss += e2;
        pss[k] += e2;
        if (rho && fabs(e) < cap) { /* lag-1 products of the same pair of tracks */
            ss_all += e * e;
            if (prev[k] >= 0) {
                double ep = d[prev[k]] - sum[k] / cnt[k];
                if (fabs(ep) < cap)
                    lag += e * ep;
            }
            prev[k] = i;
        }
    }
    if (rho)
        *rho = ss_all > 0 ? lag / ss_all : 0;
    for (int k = 0; k < n_pairs && pair_ss; k++) {
        pair_ss[k] = pss[k];
        pair_n[k] = cnt[k] > 0 ? cnt[k] - 1 : 0; /* the pair's mean took one */
    }
    /* each pair's mean takes one degree of freedom */
    long dof = n;
    for (int k = 0; k < n_pairs; k++)
        dof -= cnt[k] > 0;
    if (n_used)
        *n_used = dof > 0 ? dof : 0;
    return ss;
}

/* 1. pairs of identities: votes of per-frame epipolar matches at the center offset,
 * greedy on the vote table (the strongest pair first, at least 5 frames agreeing) */
static int match_pairs(const track_sync_camera *a, const track_sync_camera *b, double center, double max_px,
                       id_pair *pairs)
{
    enum { NI = 64 };
    int votes[NI][NI];
    memset(votes, 0, sizeof votes);
    for (long f = 0; f < a->frames; f++) {
        double tc = a->cam_time_s[f] + center / b->fps;
        track_view va[TRACK_MAX_TRACKS], vb[TRACK_MAX_TRACKS];
        int ida[TRACK_MAX_TRACKS], idb[TRACK_MAX_TRACKS], na = 0, nb = 0, match[TRACK_MAX_TRACKS];
        for (long i = a->frame_start[f]; i < a->frame_start[f + 1] && na < TRACK_MAX_TRACKS; i++) {
            const track_sync_point *p = &a->pts[i];
            if (!usable(p) || p->id >= NI)
                continue;
            view_at(&a->view, p->u, p->v, p->sigma, &va[na]);
            ida[na++] = p->id;
        }
        /* b's identities alive near tc */
        long fb = (long)floor((tc - b->cam_time_s[0]) * b->fps);
        for (long g = fb; g <= fb + 1; g++) {
            if (g < 0 || g >= b->frames)
                continue;
            for (long i = b->frame_start[g]; i < b->frame_start[g + 1] && nb < TRACK_MAX_TRACKS; i++) {
                int id = b->pts[i].id, dup = 0;
                for (int k = 0; k < nb; k++)
                    dup |= idb[k] == id;
                if (dup || id >= NI)
                    continue;
                double u, v, s;
                int interp;
                if (track_sync_interpolate(b, id, tc, &u, &v, &s, &interp) != 0)
                    continue;
                view_at(&b->view, u, v, s, &vb[nb]);
                idb[nb++] = id;
            }
        }
        if (na == 0 || nb == 0)
            continue;
        /* wider than max_px: the center offset may be a frame off */
        if (track_epipolar_match(va, na, vb, nb, 4 * max_px, match, NULL) != 0)
            continue;
        for (int i = 0; i < na; i++)
            if (match[i] >= 0)
                votes[ida[i]][idb[match[i]]]++;
    }
    int n_pairs = 0;
    for (;;) {
        int bi = -1, bj = -1, bv = 4;
        for (int i = 0; i < NI; i++)
            for (int j = 0; j < NI; j++)
                if (votes[i][j] > bv) {
                    bv = votes[i][j];
                    bi = i;
                    bj = j;
                }
        if (bi < 0 || n_pairs == SS_MAX_PAIRS)
            break;
        pairs[n_pairs++] = (id_pair){bi, bj};
        for (int k = 0; k < NI; k++)
            votes[bi][k] = votes[k][bj] = 0;
    }
    return n_pairs;
}

typedef struct {
    const track_sync_camera *a, *b;
    icv_mat3 F;
    const id_pair *pairs;
    int n_pairs;
    double cap;
    double *d;
    int *which;
} sync_ctx;

/* pair k's cost per degree of freedom at off (INFINITY with none) */
static double pair_cost(const sync_ctx *s, int k, double off, long *n, double *rho)
{
    double ss[SS_MAX_PAIRS];
    long cnt[SS_MAX_PAIRS];
    cost_at(s->a, s->b, s->F, s->pairs, s->n_pairs, k, off, s->cap, NULL, s->d, s->which, rho, ss, cnt);
    *n = cnt[k];
    return cnt[k] > 0 ? ss[k] / cnt[k] : INFINITY;
}

#define SS_MIN_POINTS 10     /* a pair's points for a minimum of its own */
#define SS_SHAPE_FRAMES 0.5  /* the cost's curvature over +-this: its shape, not a chord's cusp */
#define SS_SIGMA_FLOOR 0.01  /* frames: no pair claims less */

/* Pair k's own minimum over the grid (cost per degree of freedom c[g], counts n[g]),
 * refined by golden section within a step of it, and its sigma from the cost's shape.
 * -1 when the minimum is at the grid's edge (the cost still falling: none inside). */
static int pair_minimum(const sync_ctx *s, int k, const double *c, const long *n, int n_grid, double lo, double step,
                        track_estimate *out)
{
    int best = -1;
    for (int g = 0; g < n_grid; g++)
        if (n[g] >= SS_MIN_POINTS && (best < 0 || c[g] < c[best]))
            best = g;
    if (best <= 0 || best >= n_grid - 1)
        return -1;
    double a = lo + (best - 1) * step, bnd = lo + (best + 1) * step;
    const double gr = 0.5 * (sqrt(5.0) - 1);
    double x1 = bnd - gr * (bnd - a), x2 = a + gr * (bnd - a);
    long m;
    double f1 = pair_cost(s, k, x1, &m, NULL), f2 = pair_cost(s, k, x2, &m, NULL);
    for (int it = 0; it < 30 && bnd - a > 1e-5; it++) {
        if (f1 < f2) {
            bnd = x2;
            x2 = x1;
            f2 = f1;
            x1 = bnd - gr * (bnd - a);
            f1 = pair_cost(s, k, x1, &m, NULL);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + gr * (bnd - a);
            f2 = pair_cost(s, k, x2, &m, NULL);
        }
    }
    double xo = 0.5 * (a + bnd), rho = 0;
    long n0;
    double c0 = pair_cost(s, k, xo, &n0, &rho);
    double h = SS_SHAPE_FRAMES, cm = pair_cost(s, k, xo - h, &m, NULL), cp = pair_cost(s, k, xo + h, &m, NULL);
    if (n0 < SS_MIN_POINTS || !isfinite(cm) || !isfinite(cp))
        return -1;
    /* c(x) ~ c0 + q (x - xo)^2 per degree of freedom: chi2 = n0 c / s2 rises by one at
       sigma^2 = s2 / (n0 q), s2 = c0 the residual's variance; residuals correlated from
       frame to frame carry fewer independent points, (1 + rho) / (1 - rho) for an AR(1) */
    double q = (cp + cm - 2 * c0) / (2 * h * h), s2 = c0;
    if (rho > 0)
        s2 *= (1 + fmin(rho, 0.95)) / (1 - fmin(rho, 0.95));
    out->x = xo;
    out->sigma = q > 0 ? fmax(sqrt(s2 / (n0 * q)), SS_SIGMA_FLOOR) : INFINITY;
    return 0;
}

int track_subframe_offset(const track_sync_camera *a, const track_sync_camera *b, double center, double range,
                          double prior_sigma, double max_px, double *offset, double *sigma, double *rms_px,
                          icv_err *err)
{
    id_pair pairs[SS_MAX_PAIRS];
    int n_pairs = match_pairs(a, b, center, max_px, pairs);
    if (n_pairs == 0)
        return icv_err_set(err, ICV_ENOTFOUND,
                           "sub-frame sync: no marker track is seen by both cameras in 5 frames or more");
    sync_ctx s = {.a = a, .b = b, .pairs = pairs, .n_pairs = n_pairs, .cap = max_px};
    if (track_fundamental(&a->view, &b->view, &s.F) != 0) /* the distance below is signed */
        return icv_err_set(err, ICV_EINVAL, "sub-frame sync: a camera matrix is singular");
    /* 2. each pair's cost over a grid of offsets, its own minimum and sigma */
    const double step = 0.02; /* frames */
    int n_grid = (int)ceil(2 * range / step) + 1;
    double lo = center - range;
    s.d = malloc(sizeof *s.d * ((size_t)a->n_pts + 1));
    s.which = malloc(sizeof *s.which * ((size_t)a->n_pts + 1));
    double *gc = malloc(sizeof *gc * (size_t)n_grid * (size_t)n_pairs);
    long *gn = malloc(sizeof *gn * (size_t)n_grid * (size_t)n_pairs);
    if (!s.d || !s.which || !gc || !gn) {
        free(s.d);
        free(s.which);
        free(gc);
        free(gn);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    for (int g = 0; g < n_grid; g++) {
        double ss[SS_MAX_PAIRS];
        long cnt[SS_MAX_PAIRS];
        cost_at(a, b, s.F, pairs, n_pairs, -1, lo + g * step, s.cap, NULL, s.d, s.which, NULL, ss, cnt);
        for (int k = 0; k < n_pairs; k++) {
            gc[(size_t)k * n_grid + g] = cnt[k] > 0 ? ss[k] / cnt[k] : INFINITY;
            gn[(size_t)k * n_grid + g] = cnt[k];
        }
    }
    track_estimate est[SS_MAX_PAIRS];
    int n_est = 0;
    for (int k = 0; k < n_pairs; k++)
        if (pair_minimum(&s, k, gc + (size_t)k * n_grid, gn + (size_t)k * n_grid, n_grid, lo, step, &est[n_est]) ==
            0)
            n_est++;
    free(gc);
    free(gn);
    /* 3. the pairs' consensus with the prior: each pair's minimum carries a slow error
       of its own (track/consensus.c) */
    double xo = center, sig = INFINITY, tau = 0;
    int kept = n_est ? track_consensus(est, n_est, center, prior_sigma, &xo, &sig, &tau) : 0;
    long n0 = 0;
    double c0 = cost_at(a, b, s.F, pairs, n_pairs, -1, xo, s.cap, &n0, s.d, s.which, NULL, NULL, NULL);
    free(s.d);
    free(s.which);
    if (kept <= 0)
        return icv_err_set(err, ICV_ENOTFOUND,
                           "sub-frame sync: no pair of tracks has a minimum of its epipolar distances within "
                           "%.1f frames of %.2f",
                           range, center);
    if (n0 < SS_MIN_POINTS)
        return icv_err_set(err, ICV_ENOTFOUND, "sub-frame sync: only %ld points seen by both cameras", n0);
    *offset = xo;
    *sigma = sig;
    *rms_px = n0 ? sqrt(c0 / n0) : 0;
    return 0;
}
