/* tracker.c: multi-target tracking of markers in one camera. Each marker has a
 * constant-acceleration Kalman filter (kalman.c) that predicts where to look; the
 * detections of a frame are given to the tracks by one global minimum-cost
 * assignment (hungarian.c) over Mahalanobis-gated costs d^2 + ln|S| with a cost of
 * non-assignment (the gate), the usual global-nearest-neighbour tracker (Blackman &
 * Popoli, "Design and Analysis of Modern Tracking Systems", sec. 6.5). Written
 * positions are the measured centroids; the filter only associates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "track/detect_internal.h"
#include "track/kalman_internal.h"
#include "track/track.h"

#define MAX_DETS 256
#define BIG 1e12
#define MAX_PENDING 3 /* detections kept before confirmation: confirm_hits <= 4 */

typedef struct {
    track_kalman kf;
    track_kalman alt; /* the filter without its last measurement: that measurement a blip (a
                         marker half hidden, merged for a frame), the flight as before */
    int alt_on;       /* alt holds that state (the last frame was measured and updated) */
    track_kalman kf_prev; /* the filter before this frame's prediction */
    int repeated;     /* 1: the last frame repeated the picture before it (not fed to kf) */
    int id;          /* identity once confirmed, -1 before */
    int hits;        /* detections so far */
    int misses;      /* frames since the last detection */
    double area;     /* px: last blob area */
    double sigma;    /* px: last centroid sigma */
    double last_u, last_v; /* px: last measured position */
    double last_speed; /* px/frame: the filter's speed at the last measurement */
    double cfg_u, cfg_v; /* px: where the body's configuration puts it in the last frame: its
                            blob when measured, else carried by the similarity of the tracks
                            measured (the prior of a lost track) */
    double umin, umax, vmin, vmax; /* px: extent of its measured positions (a still glint) */
    track_point pending[MAX_PENDING]; /* detections before confirmation, oldest first */
    int n_pending;
} trk;

/* A 2D similarity q = [a -b; b a] p + t (scale sqrt(a^2 + b^2), rotation atan2(b, a)):
 * how a rigid body's markers move in the image between two frames (exact in the image
 * plane; a turn out of it, or towards the camera, is a small error between frames). */
typedef struct {
    double a, b, tu, tv;
} sim2;

/* Reacquisition's hypotheses draw on each track's CAND_MAX nearest blobs and stop after
 * HYP_BUDGET evaluations a frame: a cluttered frame (dozens of blobs, many tracks) cost
 * tens of millions of distance tests a frame without them, 0.7 s at 6000 fps. */
enum { CAND_MAX = 8, HYP_BUDGET = 20000 };

/* Detections a track needs before the opposite look is searched for it: its filter has
 * a flight to gate with (a young track's gate spans its initial velocity sigma) */
enum { OPP_MIN_HITS = 4 };

struct track_tracker_ws {
    trk tracks[TRACK_MAX_TRACKS];
    track_blob blobs[MAX_DETS];
    track_window windows[TRACK_MAX_TRACKS];
    double cost[TRACK_MAX_TRACKS * (MAX_DETS + TRACK_MAX_TRACKS)];
    double hwork[(TRACK_MAX_TRACKS + 1) + 5 * (MAX_DETS + TRACK_MAX_TRACKS + 1) +
                 TRACK_MAX_TRACKS * (MAX_DETS + TRACK_MAX_TRACKS) + MAX_DETS + TRACK_MAX_TRACKS + 1];
    int assign[TRACK_MAX_TRACKS];
    int nearest[TRACK_MAX_TRACKS]; /* lowest-cost gated blob of each track */
    int det_used[MAX_DETS];      /* 1 assigned, 2 merged */
    unsigned trk_flags[TRACK_MAX_TRACKS];
    double pred_u[TRACK_MAX_TRACKS], pred_v[TRACK_MAX_TRACKS];
    double alt_u[TRACK_MAX_TRACKS], alt_v[TRACK_MAX_TRACKS]; /* alt's prediction (alt_on) */
    int alt_used[TRACK_MAX_TRACKS]; /* this frame gates track i round alt's prediction */
    double reach[TRACK_MAX_TRACKS]; /* px: how far a blob may be from the prediction or the
                                       last position and be this track's (INFINITY: anywhere) */
    double reach_last[TRACK_MAX_TRACKS]; /* px: of every track, how far from its last position
                                            the marker can be: its speed and gravity over the
                                            frames since (a bounce turns the flight back, and
                                            restitution only slows it); at least reach. A track
                                            seen last frame gets it too (a bounce between two
                                            pictures); only a lost one's window grows by it */
    int body[TRACK_MAX_TRACKS];     /* tracks in the configuration this frame */
    int hyp[TRACK_MAX_TRACKS], best_hyp[TRACK_MAX_TRACKS]; /* blob per body track */
    double su[TRACK_MAX_TRACKS], sv[TRACK_MAX_TRACKS], du[TRACK_MAX_TRACKS], dv[TRACK_MAX_TRACKS];
    double qu[TRACK_MAX_TRACKS], qv[TRACK_MAX_TRACKS];
    int cand[TRACK_MAX_TRACKS][CAND_MAX]; /* blobs near each body track, nearest first */
    int n_cand[TRACK_MAX_TRACKS];
    int nd; /* blobs this frame */
    track_blob oblobs[MAX_DETS]; /* the opposite look's blobs in one track's gate */
    track_static_model statics_saved; /* the detector's static blobs while the opposite runs */
    /* independent markers: where track i's disc meets another's on the way to their
       predictions (NaN: it meets none), and how far it would have gone on, px */
    double stop_u[TRACK_MAX_TRACKS], stop_v[TRACK_MAX_TRACKS], stop_rest[TRACK_MAX_TRACKS];
};

track_tracker *track_tracker_alloc(icv_err *err)
{
    track_tracker *t = calloc(1, sizeof *t);
    struct track_tracker_ws *w = calloc(1, sizeof *w);
    if (!t || !w) {
        free(t);
        free(w);
        icv_err_set(err, ICV_ENOMEM, "track tracker: out of memory");
        return NULL;
    }
    t->ws = w;
    t->n_allocs = 2;
    t->n_expected = 0;
    t->gate_chi2 = 13.8;
    t->accel_noise = 0.5;
    t->gravity_u = t->gravity_v = 0;
    t->init_vel_sigma = 20;
    t->init_acc_sigma = 2;
    t->max_coast = 6;
    t->lost_grow_px = 4;
    t->lost_window_frames = 10;
    t->confirm_hits = 2;
    t->window_min_px = 12;
    t->window_sigmas = 4;
    t->merge_area_ratio = 1.5;
    t->exposure_frac = 1;
    t->full_scan_every = 0;
    t->reacquire_px = 30;
    t->sigma_floor_px = 0.1;
    t->last_lost_marker = -1;
    return t;
}

void track_tracker_free(track_tracker *t)
{
    if (!t)
        return;
    free(t->ws);
    free(t);
}

static double meas_var(const track_tracker *t, double sigma)
{
    double s = fmax(sigma, t->sigma_floor_px);
    return s * s;
}

static double sq(double x)
{
    return x * x;
}

/* Normalised squared distance of (u, v) from track i's prediction, or from its
 * alternative (the last measurement a blip) when this frame has no blob in the
 * prediction's gate (w->alt_used[i]); *S its innovation variance. A filter settled on
 * sigma_floor_px predicts to ~0.5 px and derives velocity and acceleration from its
 * last few points: one centroid pulled aside for a frame (a ball half behind its post)
 * sends the next prediction outside the gate, and the marker would become a new
 * track. Only a fallback: taken whenever nearer, it lets clutter into a second gate
 * round every track (docs/track.md "Figures behind the code"). */
static double gate_d2(const track_tracker *t, const trk *k, int i, double u, double v, double sigma, double *S)
{
    const struct track_tracker_ws *w = t->ws;
    double r = meas_var(t, sigma);
    if (w->alt_used[i]) {
        *S = track_kalman_innovation_var(&k->alt, r);
        return (sq(u - w->alt_u[i]) + sq(v - w->alt_v[i])) / *S;
    }
    *S = track_kalman_innovation_var(&k->kf, r);
    return (sq(u - w->pred_u[i]) + sq(v - w->pred_v[i])) / *S;
}

/* Independent markers that are bodies of their own (a cradle's balls): two discs seen
 * apart last frame whose predictions overlap by more than a fifth of a diameter cannot
 * both fly on; they meet on the way. Each such track's prediction is replaced by where
 * its disc first touches the other's, both moving on at their predicted steps
 * (stop_u, stop_v), with the rest of the faster one's step (stop_rest; either may
 * leave with it) as the spread of where the collision leaves it. A ball stopped by the
 * row had been predicted on into its neighbour's place and took that blob, the
 * neighbour a new track. */
static void contact_stops(const track_tracker *t, int nt)
{
    struct track_tracker_ws *w = t->ws;
    for (int i = 0; i < nt; i++)
        w->stop_u[i] = w->stop_v[i] = NAN, w->stop_rest[i] = 0;
    if (!t->independent_markers)
        return;
    for (int i = 0; i < nt; i++)
        for (int j = i + 1; j < nt; j++) {
            const trk *ki = &w->tracks[i], *kj = &w->tracks[j];
            if (ki->id < 0 || kj->id < 0 || ki->misses > 0 || kj->misses > 0)
                continue;
            double D = sqrt(ki->area / M_PI) + sqrt(kj->area / M_PI);
            double au = ki->last_u - kj->last_u, av = ki->last_v - kj->last_v;
            double bu = (w->pred_u[i] - ki->last_u) - (w->pred_u[j] - kj->last_u);
            double bv = (w->pred_v[i] - ki->last_v) - (w->pred_v[j] - kj->last_v);
            if (hypot(au, av) < 0.9 * D || hypot(au + bu, av + bv) >= 0.8 * D)
                continue;
            /* |a + s b| = D, the first root in (0, 1) */
            double A = bu * bu + bv * bv, B = 2 * (au * bu + av * bv), C = au * au + av * av - D * D;
            double disc = B * B - 4 * A * C;
            if (A <= 0 || disc < 0)
                continue;
            double sc = fmin(fmax((-B - sqrt(disc)) / (2 * A), 0), 1);
            /* either may leave with up to the faster one's rest of step (an exchange) */
            int pair[2] = {i, j};
            double rest = (1 - sc) * fmax(hypot(w->pred_u[i] - ki->last_u, w->pred_v[i] - ki->last_v),
                                          hypot(w->pred_u[j] - kj->last_u, w->pred_v[j] - kj->last_v));
            for (int q = 0; q < 2; q++) {
                int m = pair[q];
                const trk *k = &w->tracks[m];
                double su = k->last_u + sc * (w->pred_u[m] - k->last_u);
                double sv = k->last_v + sc * (w->pred_v[m] - k->last_v);
                if (isnan(w->stop_u[m]) || rest > w->stop_rest[m])
                    w->stop_u[m] = su, w->stop_v[m] = sv, w->stop_rest[m] = rest;
            }
        }
}

/* Grows overlapping windows into their union until none overlap. */
static int merge_windows(track_window *w, int n)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n && !changed; i++)
            for (int j = i + 1; j < n; j++) {
                if (w[i].x1 < w[j].x0 || w[j].x1 < w[i].x0 || w[i].y1 < w[j].y0 || w[j].y1 < w[i].y0)
                    continue;
                w[i].x0 = w[i].x0 < w[j].x0 ? w[i].x0 : w[j].x0;
                w[i].y0 = w[i].y0 < w[j].y0 ? w[i].y0 : w[j].y0;
                w[i].x1 = w[i].x1 > w[j].x1 ? w[i].x1 : w[j].x1;
                w[i].y1 = w[i].y1 > w[j].y1 ? w[i].y1 : w[j].y1;
                w[i].blur_px = fmax(w[i].blur_px, w[j].blur_px);
                w[j] = w[--n];
                changed = 1;
                break;
            }
    }
    return n;
}

static void remove_track(track_tracker *t, int i)
{
    struct track_tracker_ws *w = t->ws;
    w->tracks[i] = w->tracks[--t->n_tracks];
}

static void sim_apply(const sim2 *s, double u, double v, double *ou, double *ov)
{
    *ou = s->a * u - s->b * v + s->tu;
    *ov = s->b * u + s->a * v + s->tv;
}

/* Least-squares similarity taking p to q over n >= 1 points (one point: a translation). */
static sim2 sim_fit(const double *pu, const double *pv, const double *qu, const double *qv, int n)
{
    double mpu = 0, mpv = 0, mqu = 0, mqv = 0;
    for (int i = 0; i < n; i++)
        mpu += pu[i], mpv += pv[i], mqu += qu[i], mqv += qv[i];
    mpu /= n, mpv /= n, mqu /= n, mqv /= n;
    double sa = 0, sb = 0, pp = 0;
    for (int i = 0; i < n; i++) {
        double x = pu[i] - mpu, y = pv[i] - mpv, X = qu[i] - mqu, Y = qv[i] - mqv;
        sa += x * X + y * Y;
        sb += x * Y - y * X;
        pp += x * x + y * y;
    }
    sim2 s = {1, 0, 0, 0};
    if (n >= 2 && pp > 1e-9)
        s.a = sa / pp, s.b = sb / pp;
    s.tu = mqu - (s.a * mpu - s.b * mpv);
    s.tv = mqv - (s.b * mpu + s.a * mpv);
    return s;
}

/* A rigid body's motion between two frames: its image scales by less than 25% (it
 * moves along the optical axis by less than a fifth of its distance) and turns by less
 * than 1.3 rad (75 deg; beyond, a rod's two ends could be either: 60 rad/s is 0.25 rad
 * per frame at 240 fps, 1 rad at 60 fps). */
static int sim_plausible(const sim2 *s)
{
    double sc = hypot(s->a, s->b);
    return sc > 0.8 && sc < 1.25 && fabs(atan2(s->b, s->a)) < 1.3;
}

/* A picture stored twice (a phone's "60 fps" file of 30 pictures/s): the markers where
 * they were while their flights move them on. Fed to the filters, the stop-and-go
 * halved their velocities and predictions, and a ball turned by a bounce between two
 * pictures fell outside its window and was lost (the phone study's 30 fps
 * seed 9). For confirmed track i measured last frame and assigned blob j: 1 when it
 * stands still (within 3 sigma, 0.5 px at least) while predicted to move by 4 times
 * that (2 px at least), -1 when it moved, 0 when it cannot tell (a new or lost track,
 * a slow one, or one whose last frame was already taken for a repeat: standing still
 * the next frame too is a stop). */
static int repeat_candidate(const track_tracker *t, int i, int j)
{
    const struct track_tracker_ws *w = t->ws;
    const trk *k = &w->tracks[i];
    const track_blob *b = &w->blobs[j];
    if (k->id < 0 || k->misses > 0 || k->hits < 3)
        return 0;
    double still = fmax(0.5, 3 * b->sigma), moved = hypot(b->u - k->last_u, b->v - k->last_v);
    if (moved >= still)
        return -1;
    double step = hypot(w->pred_u[i] - k->last_u, w->pred_v[i] - k->last_v);
    return !k->repeated && step > fmax(2.0, 4 * still);
}

/* Blob j is near enough to track i to be it: within its reach of the prediction (the
 * flight continued) or of its last position (the flight stopped at a surface, or turned
 * back by it: reach_last). */
static int near_track(const struct track_tracker_ws *w, const trk *k, int i, int j)
{
    const track_blob *b = &w->blobs[j];
    double r2 = w->reach[i] * w->reach[i], du = b->u - w->pred_u[i], dv = b->v - w->pred_v[i];
    double rl2 = w->reach_last[i] * w->reach_last[i], lu = b->u - k->last_u, lv = b->v - k->last_v;
    return du * du + dv * dv <= r2 || lu * lu + lv * lv <= rl2;
}

/* One hypothesis of where the body's tracks are (qu, qv per body track): each takes the
 * nearest usable blob within tol (a blob once). Returns the tracks explained; *score:
 * their misfit in tol^2 plus their distance from prediction (or last position) in
 * reach^2, lower is likelier. */
static int hyp_eval(const track_tracker *t, int nb, const double *qu, const double *qv, double tol, int *blob,
                    double *score)
{
    const struct track_tracker_ws *w = t->ws;
    int n_in = 0;
    *score = 0;
    for (int a = 0; a < nb; a++) {
        int i = w->body[a];
        const trk *k = &w->tracks[i];
        blob[a] = -1;
        double bd2 = tol * tol;
        for (int m = 0; m < w->n_cand[a]; m++) {
            int j = w->cand[a][m];
            double du = w->blobs[j].u - qu[a], dv = w->blobs[j].v - qv[a], d2 = du * du + dv * dv;
            if (d2 >= bd2)
                continue;
            int taken = 0;
            for (int c = 0; c < a && !taken; c++)
                taken = blob[c] == j;
            if (taken)
                continue;
            bd2 = d2;
            blob[a] = j;
        }
        if (blob[a] < 0)
            continue;
        double bd = sqrt(bd2);
        const track_blob *b = &w->blobs[blob[a]];
        double dp = fmin(hypot(b->u - w->pred_u[i], b->v - w->pred_v[i]), hypot(b->u - k->last_u, b->v - k->last_v));
        double R = isfinite(w->reach[i]) ? fmax(w->reach[i], 1) : 1e4;
        *score += (bd * bd) / (tol * tol) + (dp * dp) / (R * R);
        n_in++;
    }
    return n_in;
}

/* Reacquisition by the body's configuration. Each confirmed track (seen last frame or
 * lost, not merged) is a body track; a hypothesis places all of them at once: one
 * displacement T from a (track, blob) pair applied to every prediction (or to every
 * last position: the body stopped), or the similarity taking two tracks' configuration
 * positions (cfg, last frame) to two blobs, applied to every track's. It is scored by
 * the tracks it explains (a blob within tol, a quarter of the closest spacing, 2 px at
 * least), then by misfit and distance from the predictions, and replaces the gated
 * assignment when it explains more tracks, or as many where that assignment breaks the
 * configuration (its own best similarity leaves some out: a swap). A hypothesis one track
 * supports must be shorter than half the way to another track's prediction, so a lone
 * track never takes a neighbour's blob. Returns 1 when it changed the assignment. */
static int reacquire(track_tracker *t, int nt, int nd)
{
    struct track_tracker_ws *w = t->ws;
    w->nd = nd;
    int nb = 0;
    for (int i = 0; i < nt; i++)
        if (w->tracks[i].id >= 0 && !(w->trk_flags[i] & TRACK_FLAG_MERGED))
            w->body[nb++] = i;
    if (nb == 0 || nd == 0)
        return 0;
    for (int a = 0; a < nb; a++) { /* each track's nearest usable blobs (to its prediction) */
        int i = w->body[a], n = 0;
        double d2s[CAND_MAX];
        for (int j = 0; j < nd; j++) {
            if (w->det_used[j] == 2 || !near_track(w, &w->tracks[i], i, j))
                continue;
            double du = w->blobs[j].u - w->pred_u[i], dv = w->blobs[j].v - w->pred_v[i], d2 = du * du + dv * dv;
            int at = n < CAND_MAX ? n++ : CAND_MAX;
            while (at > 0 && d2s[at - 1] > d2) {
                if (at < CAND_MAX)
                    d2s[at] = d2s[at - 1], w->cand[a][at] = w->cand[a][at - 1];
                at--;
            }
            if (at < CAND_MAX)
                d2s[at] = d2, w->cand[a][at] = j;
        }
        w->n_cand[a] = n;
    }
    long budget = HYP_BUDGET;
    double dmin = INFINITY;
    for (int a = 0; a < nb; a++)
        for (int c = a + 1; c < nb; c++)
            dmin = fmin(dmin, hypot(w->pred_u[w->body[c]] - w->pred_u[w->body[a]],
                                    w->pred_v[w->body[c]] - w->pred_v[w->body[a]]));
    double tol = isfinite(dmin) ? fmin(fmax(2.0, 0.25 * dmin), fmax(0.5 * dmin, 0.5)) : 2.0;

    /* the gated assignment, judged the same way: its own similarity's inliers */
    int n_asg = 0;
    for (int a = 0; a < nb; a++) {
        int i = w->body[a], j = w->assign[i];
        if (j < 0)
            continue;
        w->su[n_asg] = w->tracks[i].cfg_u, w->sv[n_asg] = w->tracks[i].cfg_v;
        w->du[n_asg] = w->blobs[j].u, w->dv[n_asg] = w->blobs[j].v;
        n_asg++;
    }
    int cur_in = 0;
    if (n_asg > 0) {
        sim2 S = sim_fit(w->su, w->sv, w->du, w->dv, n_asg);
        cur_in = n_asg;
        if (n_asg >= 2 && sim_plausible(&S)) {
            cur_in = 0;
            for (int a = 0; a < nb; a++) {
                int i = w->body[a], j = w->assign[i];
                double qu, qv;
                sim_apply(&S, w->tracks[i].cfg_u, w->tracks[i].cfg_v, &qu, &qv);
                cur_in += j >= 0 && hypot(w->blobs[j].u - qu, w->blobs[j].v - qv) < tol;
            }
        } else if (n_asg >= 2) {
            cur_in = 1; /* no rigid motion takes the configuration there */
        }
        if (cur_in == nb)
            return 0; /* every track assigned, in its configuration: nothing to do */
    }
    int best_n = 0;
    double best_score = INFINITY;
    for (int a = 0; a < nb; a++)
        w->best_hyp[a] = -1;
    /* hypotheses from one (track, blob) pair: one displacement of the predictions or of
       the last positions */
    for (int a = 0; a < nb; a++) {
        int i = w->body[a];
        const trk *k = &w->tracks[i];
        double near_other = INFINITY;
        for (int c = 0; c < nb; c++)
            if (c != a)
                near_other = fmin(near_other, hypot(w->pred_u[w->body[c]] - w->pred_u[i],
                                                    w->pred_v[w->body[c]] - w->pred_v[i]));
        if (!isfinite(w->reach[i]) && nd > 24)
            continue; /* a blob anywhere in a crowded frame proposes nothing */
        for (int m = 0; m < w->n_cand[a] && budget > 0; m++) {
            int j = w->cand[a][m];
            for (int from = 0; from < 2; from++) {
                double bu = from ? k->last_u : w->pred_u[i], bv = from ? k->last_v : w->pred_v[i];
                double tu = w->blobs[j].u - bu, tv = w->blobs[j].v - bv;
                for (int c = 0; c < nb; c++) {
                    int ic = w->body[c];
                    w->qu[c] = (from ? w->tracks[ic].last_u : w->pred_u[ic]) + tu;
                    w->qv[c] = (from ? w->tracks[ic].last_v : w->pred_v[ic]) + tv;
                }
                double score;
                int n_in = hyp_eval(t, nb, w->qu, w->qv, tol, w->hyp, &score);
                budget--;
                if (n_in < 2 && !(hypot(tu, tv) < 0.5 * near_other))
                    continue;
                if (n_in > best_n || (n_in == best_n && score < best_score)) {
                    best_n = n_in;
                    best_score = score;
                    memcpy(w->best_hyp, w->hyp, sizeof(int) * (size_t)nb);
                }
            }
        }
    }
    /* hypotheses from two (track, blob) pairs: the similarity of the configuration */
    for (int a = 0; a < nb; a++) {
        const trk *ka = &w->tracks[w->body[a]];
        for (int c = 0; c < nb; c++) {
            if (c == a)
                continue;
            const trk *kc = &w->tracks[w->body[c]];
            if (hypot(kc->cfg_u - ka->cfg_u, kc->cfg_v - ka->cfg_v) < 2 * tol)
                continue; /* too close to fix a rotation */
            if (!isfinite(w->reach[w->body[a]]) && !isfinite(w->reach[w->body[c]]) && nd > 24)
                continue;
            for (int ma = 0; ma < w->n_cand[a] && budget > 0; ma++) {
                int ja = w->cand[a][ma];
                for (int mc = 0; mc < w->n_cand[c] && budget > 0; mc++) {
                    int jc = w->cand[c][mc];
                    if (jc == ja)
                        continue;
                    double pu[2] = {ka->cfg_u, kc->cfg_u}, pv[2] = {ka->cfg_v, kc->cfg_v};
                    double qu[2] = {w->blobs[ja].u, w->blobs[jc].u}, qv[2] = {w->blobs[ja].v, w->blobs[jc].v};
                    sim2 S = sim_fit(pu, pv, qu, qv, 2);
                    if (!sim_plausible(&S))
                        continue;
                    for (int e = 0; e < nb; e++)
                        sim_apply(&S, w->tracks[w->body[e]].cfg_u, w->tracks[w->body[e]].cfg_v, &w->qu[e], &w->qv[e]);
                    double score;
                    int n_in = hyp_eval(t, nb, w->qu, w->qv, tol, w->hyp, &score);
                    budget--;
                    if (n_in > best_n || (n_in == best_n && score < best_score)) {
                        best_n = n_in;
                        best_score = score;
                        memcpy(w->best_hyp, w->hyp, sizeof(int) * (size_t)nb);
                    }
                }
            }
        }
    }
    if (best_n == 0 || best_n < cur_in || (best_n == cur_in && cur_in == n_asg))
        return 0; /* no more tracks explained, and the assignment kept the configuration */
    /* adopt: the blobs the hypothesis gives are taken from whoever held them */
    int changed = 0;
    for (int a = 0; a < nb; a++) {
        int j = w->best_hyp[a], i = w->body[a];
        if (j < 0 || w->assign[i] == j)
            continue;
        for (int q = 0; q < nt; q++)
            if (w->assign[q] == j)
                w->assign[q] = -1;
        if (w->assign[i] >= 0)
            w->det_used[w->assign[i]] = 0;
        w->assign[i] = j;
        w->det_used[j] = 1;
        changed = 1;
    }
    /* a blob an old assignment held that no track holds now is free again */
    for (int j = 0; j < nd; j++)
        if (w->det_used[j] == 1) {
            int held = 0;
            for (int q = 0; q < nt && !held; q++)
                held = w->assign[q] == j;
            if (!held)
                w->det_used[j] = 0;
        }
    return changed;
}

/* Carries the configuration positions of the tracks not measured by the similarity the
 * measured ones moved with (their cfg to their blob), a lost marker's prior. The
 * similarity is refitted without its worst track while that misses by more than tol (a
 * glint confirmed as a track does not move with the body). */
static void carry_config(track_tracker *t, int nt, double tol)
{
    struct track_tracker_ws *w = t->ws;
    int n = 0, idx[TRACK_MAX_TRACKS];
    for (int i = 0; i < nt; i++) {
        const trk *k = &w->tracks[i];
        int j = w->assign[i];
        if (k->id < 0 || j < 0)
            continue;
        w->su[n] = k->cfg_u, w->sv[n] = k->cfg_v, w->du[n] = w->blobs[j].u, w->dv[n] = w->blobs[j].v;
        idx[n++] = i;
    }
    sim2 S = {1, 0, 0, 0};
    int ok = n > 0;
    while (ok) {
        S = sim_fit(w->su, w->sv, w->du, w->dv, n);
        int worst = -1;
        double wd = tol;
        for (int a = 0; a < n; a++) {
            double qu, qv;
            sim_apply(&S, w->su[a], w->sv[a], &qu, &qv);
            double d = hypot(qu - w->du[a], qv - w->dv[a]);
            if (d > wd)
                wd = d, worst = a;
        }
        if (worst < 0 || n <= 2)
            break;
        w->su[worst] = w->su[n - 1], w->sv[worst] = w->sv[n - 1];
        w->du[worst] = w->du[n - 1], w->dv[worst] = w->dv[n - 1];
        idx[worst] = idx[n - 1];
        n--;
    }
    if (ok && n >= 2 && !sim_plausible(&S))
        ok = 0;
    for (int i = 0; i < nt; i++) {
        trk *k = &w->tracks[i];
        int j = w->assign[i];
        if (j >= 0) {
            k->cfg_u = w->blobs[j].u;
            k->cfg_v = w->blobs[j].v;
        } else if (k->id >= 0) {
            if (ok)
                sim_apply(&S, k->cfg_u, k->cfg_v, &k->cfg_u, &k->cfg_v);
            else if (k->misses == 0) /* nothing measured: the flight's own prediction */
                k->cfg_u = w->pred_u[i], k->cfg_v = w->pred_v[i];
        }
    }
}

/* Track i left without a blob this frame: its marker looked for in the opposite look
 * (bright read as dark, dark as bright) within its gate round the prediction, its
 * window no wider than reacquire_px plus a diameter, a blob of half to twice the track's
 * last area, taken by no other track. The detector's learnt state (peak, noise, static
 * blobs, statistics) is put back after, so that the look's own detection goes on as if
 * this had not run. Appends the blob to w->blobs and returns its index, -1 none. */
static int opposite_find(track_tracker *t, track_detector *det, const track_frame *frame, int i, int *nd)
{
    icv_err err = {0};
    struct track_tracker_ws *w = t->ws;
    const trk *k = &w->tracks[i];
    if (*nd >= MAX_DETS || (det->look != TRACK_LOOK_BRIGHT && det->look != TRACK_LOOK_DARK) || !(k->area > 0) ||
        k->hits < OPP_MIN_HITS)
        return -1;
    double s = sqrt(track_kalman_innovation_var(&k->kf, meas_var(t, k->sigma)));
    double blur = hypot(k->kf.xu[1], k->kf.xv[1]) * t->exposure_frac;
    double rad = sqrt(k->area / M_PI);
    double r = fmax(t->window_min_px, t->window_sigmas * s + rad + 0.5 * blur + det->centroid_margin_px + 2);
    r = fmin(r, fmax(t->window_min_px, 4 * rad)); /* two of its diameters: a size like the track's */
    track_window win = {(int)floor(w->pred_u[i] - r), (int)floor(w->pred_v[i] - r), (int)ceil(w->pred_u[i] + r),
                        (int)ceil(w->pred_v[i] + r), blur};
    struct track_detector_ws *dw = det->ws;
    w->statics_saved = dw->statics;
    track_detect_stats stats = det->stats;
    track_bin_state bin_raw = dw->bin_raw, bin_th = dw->bin_th;
    double peak_ref = dw->peak_ref, noise = dw->noise;
    int tile_learnt = dw->tile_learnt, tophat = det->bright_tophat;
    long n_full = dw->n_full_scans;
    track_look look = det->look;
    det->look = look == TRACK_LOOK_BRIGHT ? TRACK_LOOK_DARK : TRACK_LOOK_BRIGHT;
    det->bright_tophat = 0;
    int no = 0;
    int rc = track_detector_detect(det, frame, &win, 1, w->oblobs, MAX_DETS, &no, &err);
    det->look = look;
    det->bright_tophat = tophat;
    dw->statics = w->statics_saved;
    det->stats = stats;
    dw->bin_raw = bin_raw, dw->bin_th = bin_th;
    dw->peak_ref = peak_ref, dw->noise = noise;
    dw->tile_learnt = tile_learnt;
    dw->n_full_scans = n_full;
    if (rc != 0)
        return -1; /* a second search only: the frame stands as the look found it */
    /* the filter's own prediction gates it (alt stands for a blip of the look's blob) */
    int alt_used = w->alt_used[i];
    w->alt_used[i] = 0;
    int best = -1;
    double best_d2 = t->gate_chi2, S;
    for (int q = 0; q < no; q++) {
        const track_blob *b = &w->oblobs[q];
        if (b->area < 0.5 * k->area || b->area > 2 * k->area || hypot(b->u - w->pred_u[i], b->v - w->pred_v[i]) > r)
            continue;
        int taken = 0; /* another track's blob there: that marker, not this one */
        for (int m = 0; m < *nd && !taken; m++)
            taken = w->det_used[m] && hypot(b->u - w->blobs[m].u, b->v - w->blobs[m].v) < 2 * rad;
        if (taken)
            continue;
        double d2 = gate_d2(t, k, i, b->u, b->v, b->sigma, &S);
        if (d2 < best_d2)
            best_d2 = d2, best = q;
    }
    if (best < 0) {
        w->alt_used[i] = alt_used;
        return -1;
    }
    w->blobs[*nd] = w->oblobs[best];
    w->det_used[*nd] = 1;
    return (*nd)++;
}

int track_tracker_step(track_tracker *t, track_detector *det, const track_frame *frame, track_point *out,
                       int max_out, int *n_out, icv_err *err)
{
    struct track_tracker_ws *w = t->ws;
    *n_out = 0;
    int nt = t->n_tracks;

    /* 1. predict; a lost track from the similarity its body's tracks seen last frame make
       between their configuration positions and their predictions */
    int n_active = 0, long_lost = 0, n_seen = 0;
    for (int i = 0; i < nt; i++) {
        trk *k = &w->tracks[i];
        k->kf_prev = k->kf;
        track_kalman_predict(&k->kf, t->accel_noise);
        w->pred_u[i] = k->kf.xu[0];
        w->pred_v[i] = k->kf.xv[0];
        if (k->alt_on) {
            track_kalman_predict(&k->alt, t->accel_noise);
            w->alt_u[i] = k->alt.xu[0];
            w->alt_v[i] = k->alt.xv[0];
        }
        w->trk_flags[i] = 0;
        w->reach[i] = t->reacquire_px;
        if (k->id >= 0 && k->misses == 0) {
            w->su[n_seen] = k->cfg_u, w->sv[n_seen] = k->cfg_v;
            w->du[n_seen] = w->pred_u[i], w->dv[n_seen] = w->pred_v[i];
            n_seen++;
        }
    }
    sim2 Sp = n_seen ? sim_fit(w->su, w->sv, w->du, w->dv, n_seen) : (sim2){1, 0, 0, 0};
    int sp_ok = n_seen > 0 && (n_seen < 2 || sim_plausible(&Sp));
    for (int i = 0; i < nt; i++) {
        trk *k = &w->tracks[i];
        if (k->id < 0)
            continue;
        if (k->misses > 0) {
            /* one track seen gives only a translation: a short loss keeps its own flight
               (two markers crossing are no body) */
            if (sp_ok && (n_seen >= 2 || k->misses > t->max_coast))
                sim_apply(&Sp, k->cfg_u, k->cfg_v, &w->pred_u[i], &w->pred_v[i]);
            else if (k->misses > t->max_coast) /* nothing seen: where it was last placed */
                w->pred_u[i] = k->cfg_u, w->pred_v[i] = k->cfg_v;
            w->reach[i] = k->misses > t->lost_window_frames ? INFINITY
                                                              : t->reacquire_px + t->lost_grow_px * k->misses;
        }
        double m1 = k->misses + 1.0; /* frames since the last measurement */
        w->reach_last[i] = fmax(w->reach[i], t->reacquire_px + k->last_speed * m1 +
                                                 0.5 * hypot(t->gravity_u, t->gravity_v) * m1 * m1);
        int still = k->umax - k->umin < 2 && k->vmax - k->vmin < 2;
        n_active += k->misses <= t->lost_window_frames;
        long_lost |= k->misses > t->lost_window_frames && !still;
    }

    /* 2. detect: the whole frame while acquiring or for a track lost for long, else
       windows round the predictions (and the last positions: an impact may stop the
       flight at the surface within the frame) */
    int full = t->n_expected <= 0 || n_active < t->n_expected || nt == 0 || long_lost ||
               (t->full_scan_every > 0 && t->n_frames % t->full_scan_every == 0);
    int nw = 0;
    if (!full) {
        for (int i = 0; i < nt; i++) {
            const trk *k = &w->tracks[i];
            double s = sqrt(track_kalman_innovation_var(&k->kf, meas_var(t, k->sigma)));
            double blur = hypot(k->kf.xu[1], k->kf.xv[1]) * t->exposure_frac;
            double rad = sqrt(k->area / M_PI);
            double r = fmax(t->window_min_px, t->window_sigmas * s + rad + 0.5 * blur + det->centroid_margin_px + 2);
            if (k->misses > 0) { /* a lost track looks as far as its reacquisition may */
                r = fmax(r, w->reach[i] + rad + 0.5 * blur);
                if (r > 4 * (frame->width + frame->height))
                    r = 4 * (frame->width + frame->height);
            }
            /* the box r round the prediction, stretched to the last position when they
               stand apart */
            double x0 = w->pred_u[i] - r, y0 = w->pred_v[i] - r, x1 = w->pred_u[i] + r, y1 = w->pred_v[i] + r;
            if (k->id >= 0 && k->misses == 0 && hypot(k->last_u - w->pred_u[i], k->last_v - w->pred_v[i]) > 0.5 * r) {
                x0 = fmin(x0, k->last_u - r), x1 = fmax(x1, k->last_u + r);
                y0 = fmin(y0, k->last_v - r), y1 = fmax(y1, k->last_v + r);
            }
            /* a lost track's box also covers rl round its last position, where a bounce may
               have turned it back further than the reach round the prediction looks */
            if (k->id >= 0 && k->misses > 0 && isfinite(w->reach_last[i]) && w->reach_last[i] > w->reach[i]) {
                double rl = fmin(w->reach_last[i] + rad + 0.5 * blur, 4.0 * (frame->width + frame->height));
                x0 = fmin(x0, k->last_u - rl), x1 = fmax(x1, k->last_u + rl);
                y0 = fmin(y0, k->last_v - rl), y1 = fmax(y1, k->last_v + rl);
            }
            w->windows[nw++] = (track_window){(int)floor(x0), (int)floor(y0), (int)ceil(x1), (int)ceil(y1), blur};
        }
        nw = merge_windows(w->windows, nw);
    }
    int nd = 0;
    int rc = track_detector_detect(det, frame, full ? NULL : w->windows, nw, w->blobs, MAX_DETS, &nd, err);
    if (rc == 0 && !full && det->stats.n_clipped > 0) {
        /* a blob cut by a window (the marker left its prediction): search again wider */
        int g = (int)ceil(t->reacquire_px);
        for (int i = 0; i < nw; i++) {
            w->windows[i].x0 -= g;
            w->windows[i].y0 -= g;
            w->windows[i].x1 += g;
            w->windows[i].y1 += g;
        }
        nw = merge_windows(w->windows, nw);
        rc = track_detector_detect(det, frame, w->windows, nw, w->blobs, MAX_DETS, &nd, err);
    }
    if (rc != 0)
        return icv_err_prefix(err, "frame %ld: ", t->n_frames);

    /* 3. gated costs of the tracks seen last frame (a lost track is placed by the
       configuration, step 5), one dummy column per track for "not assigned" */
    int nc = nd + nt;
    contact_stops(t, nt);
    for (int i = 0; i < nt; i++) {
        const trk *k = &w->tracks[i];
        int lost = k->id >= 0 && k->misses > 0;
        double Sj;
        w->alt_used[i] = 0;
        int in_gate = 0;
        for (int j = 0; j < nd && !in_gate; j++)
            in_gate = gate_d2(t, k, i, w->blobs[j].u, w->blobs[j].v, k->sigma, &Sj) < t->gate_chi2;
        w->alt_used[i] = !in_gate && k->alt_on && k->misses == 0;
        double lndet = 2 * log(track_kalman_innovation_var(w->alt_used[i] ? &k->alt : &k->kf, meas_var(t, k->sigma)));
        for (int j = 0; j < nd; j++) {
            double d2 = gate_d2(t, k, i, w->blobs[j].u, w->blobs[j].v, k->sigma, &Sj);
            if (!isnan(w->stop_u[i])) { /* met another disc: where it stopped, not on */
                Sj += sq(0.5 * w->stop_rest[i]);
                d2 = (sq(w->blobs[j].u - w->stop_u[i]) + sq(w->blobs[j].v - w->stop_v[i])) / Sj;
            }
            w->cost[i * nc + j] = d2 < t->gate_chi2 && !lost ? d2 + 2 * log(Sj) : BIG;
        }
        for (int j = 0; j < nt; j++)
            w->cost[i * nc + nd + j] = j == i ? t->gate_chi2 + lndet : BIG;
    }
    track_hungarian_solve(w->cost, nt, nc, w->assign, w->hwork);
    for (int j = 0; j < nd; j++)
        w->det_used[j] = 0;
    for (int i = 0; i < nt; i++)
        if (w->assign[i] >= nd)
            w->assign[i] = -1;

    /* 4. merged blobs: the nearest gated blob of two confirmed tracks, larger than
     * their blobs were */
    for (int i = 0; i < nt; i++) {
        w->nearest[i] = -1;
        double best = BIG;
        for (int j = 0; j < nd; j++)
            if (w->cost[i * nc + j] < best) {
                best = w->cost[i * nc + j];
                w->nearest[i] = j;
            }
    }
    for (int j = 0; j < nd; j++) {
        int n_near = 0;
        double area_sum = 0;
        for (int i = 0; i < nt; i++)
            if (w->nearest[i] == j && w->tracks[i].id >= 0) {
                n_near++;
                area_sum += w->tracks[i].area;
            }
        if (n_near < 2 || w->blobs[j].area <= t->merge_area_ratio * area_sum / n_near)
            continue;
        w->det_used[j] = 2;
        for (int i = 0; i < nt; i++)
            if (w->nearest[i] == j && w->tracks[i].id >= 0) {
                w->trk_flags[i] |= TRACK_FLAG_MERGED;
                w->assign[i] = -1;
            }
    }
    for (int i = 0; i < nt; i++)
        if (w->assign[i] >= 0) {
            if (w->det_used[w->assign[i]] == 2)
                w->assign[i] = -1;
            else
                w->det_used[w->assign[i]] = 1;
        }

    /* 5. the body's configuration: lost tracks, tracks the gate left out (an impact),
       an assignment out of the configuration (a swap) */
    if (!t->independent_markers)
        t->n_config_matches += reacquire(t, nt, nd);
    if (t->opposite_look)
        for (int i = 0; i < nt; i++)
            if (w->tracks[i].id >= 0 && w->assign[i] < 0 && !(w->trk_flags[i] & TRACK_FLAG_MERGED) &&
                w->tracks[i].misses <= t->max_coast)
                w->assign[i] = opposite_find(t, det, frame, i, &nd);

    /* 6. update, coast, output. A track placed by the configuration far outside its
       gate, or back after a loss, restarts its filter: the impact happened somewhere
       inside the last frame (neither the old velocity nor the last step's displacement
       is the new one), or the track coasted. It starts with the mean velocity of the
       body's tracks measured on their own gates (at rest if none), with a velocity sigma
       of the speed before (restitution only lowers it), so that the next frame's gates
       reach as far as the marker can have gone, no farther. */
    double mvu = 0, mvv = 0;
    int n_mv = 0;
    for (int i = 0; i < nt; i++) {
        const trk *k = &w->tracks[i];
        int j = w->assign[i];
        if (k->id < 0 || k->misses > 0 || j < 0)
            continue;
        double S;
        if (gate_d2(t, k, i, w->blobs[j].u, w->blobs[j].v, w->blobs[j].sigma, &S) < t->gate_chi2) {
            const track_kalman *f = w->alt_used[i] ? &k->alt : &k->kf;
            mvu += f->xu[1], mvv += f->xv[1], n_mv++;
        }
    }
    if (n_mv)
        mvu /= n_mv, mvv /= n_mv;
    double tol_cfg = 2;
    {
        double dmin = INFINITY;
        for (int i = 0; i < nt; i++)
            for (int q = i + 1; q < nt; q++)
                if (w->tracks[i].id >= 0 && w->tracks[q].id >= 0)
                    dmin = fmin(dmin, hypot(w->tracks[q].cfg_u - w->tracks[i].cfg_u,
                                            w->tracks[q].cfg_v - w->tracks[i].cfg_v));
        if (isfinite(dmin))
            tol_cfg = fmax(2.0, 0.25 * dmin);
    }
    carry_config(t, nt, tol_cfg);
    int confirm = t->confirm_hits < 1 ? 1 : t->confirm_hits > MAX_PENDING + 1 ? MAX_PENDING + 1 : t->confirm_hits;
    /* a repeated picture: every confirmed track seen stands still, at least one while
       its flight moves it on */
    int n_still = 0, n_moved = 0;
    for (int i = 0; i < nt; i++) {
        int c = w->assign[i] >= 0 ? repeat_candidate(t, i, w->assign[i]) : 0;
        n_still += c == 1;
        n_moved += c == -1;
    }
    int frame_repeat = n_still > 0 && n_moved == 0;
    for (int i = 0; i < nt; i++) {
        trk *k = &w->tracks[i];
        int j = w->assign[i];
        track_point cur = {0};
        cur.pred_u = w->pred_u[i];
        cur.pred_v = w->pred_v[i];
        if (j >= 0) {
            const track_blob *b = &w->blobs[j];
            double S, d2 = gate_d2(t, k, i, b->u, b->v, b->sigma, &S);
            int use_alt = w->alt_used[i];
            int repeat = frame_repeat && repeat_candidate(t, i, j) == 1;
            int restart = !repeat && k->id >= 0 && (k->misses > 0 || d2 >= t->gate_chi2);
            k->alt_on = 0;
            k->repeated = repeat;
            if (repeat) {
                k->kf = k->kf_prev;
            } else if (restart) {
                double speed = k->misses > 0 && n_mv ? hypot(mvu, mvv) : hypot(k->kf.xu[1], k->kf.xv[1]);
                track_kalman_init(&k->kf, b->u, b->v, fmax(b->sigma, 1), fmax(2, speed), t->gravity_u, t->gravity_v,
                                  t->init_acc_sigma);
                if (k->misses > 0 && n_mv)
                    k->kf.xu[1] = mvu, k->kf.xv[1] = mvv;
                if (k->misses > t->max_coast)
                    t->n_recovered++;
            } else {
                if (use_alt) /* the last measurement was the blip: the flight before it goes on */
                    k->kf = k->alt;
                k->alt = k->kf;
                k->alt_on = k->hits >= 1 && !t->independent_markers;
                track_kalman_update(&k->kf, b->u, b->v, meas_var(t, b->sigma));
            }
            k->hits++;
            k->misses = 0;
            k->area = b->area;
            k->sigma = b->sigma;
            k->last_u = b->u;
            k->last_v = b->v;
            k->last_speed = hypot(k->kf.xu[1], k->kf.xv[1]);
            k->umin = fmin(k->umin, b->u), k->umax = fmax(k->umax, b->u);
            k->vmin = fmin(k->vmin, b->v), k->vmax = fmax(k->vmax, b->v);
            cur.u = b->u;
            cur.v = b->v;
            cur.sigma = b->sigma;
            cur.area = b->area;
            cur.flags = b->flags | w->trk_flags[i];
        } else {
            k->misses++;
            k->alt_on = 0;
            if (k->id >= 0 && k->misses == t->max_coast + 1) {
                t->n_lost++;
                t->last_lost_marker = k->id;
                t->last_lost_frame = t->n_frames - k->misses;
            }
            cur.u = w->pred_u[i];
            cur.v = w->pred_v[i];
            cur.sigma = k->misses > 1 ? w->reach[i] / sqrt(t->gate_chi2) : sqrt(k->kf.P[0][0]);
            cur.area = 0;
            cur.flags = (w->trk_flags[i] & TRACK_FLAG_MERGED) ? TRACK_FLAG_MERGED : TRACK_FLAG_COASTED;
            if (k->misses > t->max_coast)
                continue; /* lost: searched for, not reported frame by frame */
        }
        if (k->id < 0) {
            if (j < 0)
                continue; /* a tentative track ends at its first miss (step 7) */
            if (k->hits < confirm) {
                if (k->n_pending < MAX_PENDING)
                    k->pending[k->n_pending++] = cur;
                continue;
            }
            k->id = t->n_identities++;
            for (int q = 0; q < k->n_pending && *n_out < max_out; q++) {
                track_point *p = &out[(*n_out)++];
                *p = k->pending[q];
                p->marker = k->id;
                p->frame_offset = -(k->n_pending - q);
            }
            k->n_pending = 0;
        }
        if (*n_out >= max_out)
            continue;
        cur.marker = k->id;
        cur.frame_offset = 0;
        out[(*n_out)++] = cur;
    }
    /* 7. end tracks: tentative ones at their first miss; a confirmed one only when it
       never moved (a glint the static model learnt) and is unseen beyond max_coast */
    for (int i = t->n_tracks - 1; i >= 0; i--) {
        const trk *k = &w->tracks[i];
        int still = k->umax - k->umin < 2 && k->vmax - k->vmin < 2;
        if ((k->id < 0 && k->misses > 0) || (k->id >= 0 && still && k->misses > t->max_coast))
            remove_track(t, i);
    }
    /* 8. births from the blobs no track took (not merged ones). Not capped at
     * n_expected: a glint confirmed as a track before the static model learns it must
     * not keep a real marker out. With every slot taken, the track lost longest gives
     * its place. */
    for (int j = 0; j < nd; j++) {
        if (w->det_used[j])
            continue;
        if (t->n_tracks >= TRACK_MAX_TRACKS) {
            int worst = -1;
            for (int i = 0; i < t->n_tracks; i++)
                if (w->tracks[i].misses > t->max_coast &&
                    (worst < 0 || w->tracks[i].misses > w->tracks[worst].misses))
                    worst = i;
            if (worst < 0)
                break;
            remove_track(t, worst);
        }
        trk *k = &w->tracks[t->n_tracks++];
        const track_blob *b = &w->blobs[j];
        track_kalman_init(&k->kf, b->u, b->v, fmax(b->sigma, t->sigma_floor_px), t->init_vel_sigma, t->gravity_u,
                          t->gravity_v, t->init_acc_sigma);
        k->id = -1;
        k->hits = 1;
        k->misses = 0;
        k->alt_on = 0;
        k->repeated = 0;
        k->area = b->area;
        k->sigma = b->sigma;
        k->last_u = k->cfg_u = k->umin = k->umax = b->u;
        k->last_v = k->cfg_v = k->vmin = k->vmax = b->v;
        k->last_speed = 0;
        track_point p = {-1, b->u, b->v, b->sigma, b->area, b->u, b->v, b->flags, 0};
        k->n_pending = 0;
        if (confirm <= 1) {
            k->id = t->n_identities++;
            if (*n_out < max_out) {
                p.marker = k->id;
                out[(*n_out)++] = p;
            }
        } else {
            k->pending[k->n_pending++] = p;
        }
    }
    /* points by frame_offset, then identity (tracks move in the array as others end) */
    for (int a = 1; a < *n_out; a++) {
        track_point p = out[a];
        int b = a - 1;
        for (; b >= 0 && (out[b].frame_offset > p.frame_offset ||
                          (out[b].frame_offset == p.frame_offset && out[b].marker > p.marker));
             b--)
            out[b + 1] = out[b];
        out[b + 1] = p;
    }
    t->n_frames++;
    return 0;
}
