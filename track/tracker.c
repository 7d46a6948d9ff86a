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

#include "track/kalman.h"
#include "track/track.h"

#define MAX_DETS 256
#define BIG 1e12
#define MAX_PENDING 3 /* detections kept before confirmation: confirm_hits <= 4 */

typedef struct {
    track_kalman kf;
    int id;          /* identity once confirmed, -1 before */
    int hits;        /* detections so far */
    int misses;      /* frames since the last detection */
    double area;     /* px: last blob area */
    double sigma;    /* px: last centroid sigma */
    double last_u, last_v; /* px: last measured position */
    track_point pending[MAX_PENDING]; /* detections before confirmation, oldest first */
    int n_pending;
} trk;

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

/* The free blob nearest to (u, v) within tol, or -1. */
static int nearest_free(const struct track_tracker_ws *w, int nd, double u, double v, double tol, double *dist)
{
    int best = -1;
    double bd = tol;
    for (int j = 0; j < nd; j++) {
        if (w->det_used[j])
            continue;
        double d = hypot(w->blobs[j].u - u, w->blobs[j].v - v);
        if (d < bd) {
            bd = d;
            best = j;
        }
    }
    *dist = bd;
    return best;
}

/* Reacquisition after an impact. An impact turns a marker within one frame, far
 * outside its gate, and it turns every marker of the body at once: so the confirmed
 * tracks the gate left out are matched to free blobs by one common displacement T,
 * found by trying T = blob - prediction for each (lost track, blob) pair within
 * reacquire_px and keeping the T that most lost tracks agree with (within tol, a
 * quarter of the closest spacing between predictions; ties: the smaller |T|). A T
 * only one track supports must also be shorter than half the way to another track's
 * prediction, so a lone track never takes a neighbour's blob. The tracks taken keep
 * their identity and restart their filter at rest. */
static void reacquire(track_tracker *t, int nt, int nd)
{
    struct track_tracker_ws *w = t->ws;
    int lost[TRACK_MAX_TRACKS], nl = 0;
    for (int i = 0; i < nt; i++)
        if (w->assign[i] < 0 && w->tracks[i].id >= 0 && !(w->trk_flags[i] & TRACK_FLAG_MERGED))
            lost[nl++] = i;
    if (nl == 0)
        return;
    double dmin = INFINITY;
    for (int i = 0; i < nt; i++)
        for (int k = i + 1; k < nt; k++)
            dmin = fmin(dmin, hypot(w->pred_u[k] - w->pred_u[i], w->pred_v[k] - w->pred_v[i]));
    double tol = isfinite(dmin) ? fmin(fmax(2.0, 0.25 * dmin), 0.5 * dmin) : 2.0;
    int best_n = 0;
    double best_tu = 0, best_tv = 0, best_len = INFINITY;
    for (int a = 0; a < nl; a++) {
        int i = lost[a];
        double near_other = INFINITY;
        for (int k = 0; k < nt; k++)
            if (k != i)
                near_other = fmin(near_other, hypot(w->pred_u[k] - w->pred_u[i], w->pred_v[k] - w->pred_v[i]));
        for (int j = 0; j < nd; j++) {
            if (w->det_used[j])
                continue;
            double tu = w->blobs[j].u - w->pred_u[i], tv = w->blobs[j].v - w->pred_v[i], len = hypot(tu, tv);
            if (len > t->reacquire_px)
                continue;
            int n_in = 0;
            for (int b = 0; b < nl; b++) {
                double d;
                n_in += nearest_free(w, nd, w->pred_u[lost[b]] + tu, w->pred_v[lost[b]] + tv, tol, &d) >= 0;
            }
            if (n_in < 2 && !(len < 0.5 * near_other))
                continue;
            if (n_in > best_n || (n_in == best_n && len < best_len)) {
                best_n = n_in;
                best_tu = tu;
                best_tv = tv;
                best_len = len;
            }
        }
    }
    if (best_n == 0)
        return;
    for (int a = 0; a < nl; a++) {
        int i = lost[a];
        double d;
        int j = nearest_free(w, nd, w->pred_u[i] + best_tu, w->pred_v[i] + best_tv, tol, &d);
        if (j < 0)
            continue;
        trk *k = &w->tracks[i];
        /* The impact happened somewhere inside the last frame: neither the old velocity
         * nor the last step's displacement is the new one. Restart at rest with a
         * velocity sigma of the speed before (restitution only lowers it), so that the
         * next frame's gates reach as far as the marker can have gone, no farther. */
        double speed = hypot(k->kf.xu[1], k->kf.xv[1]);
        track_kalman_init(&k->kf, w->blobs[j].u, w->blobs[j].v, fmax(tol, 1), fmax(2, speed), t->gravity_u,
                          t->gravity_v, t->init_acc_sigma);
        w->assign[i] = j;
        w->det_used[j] = 1;
    }
}

int track_tracker_step(track_tracker *t, track_detector *det, const track_frame *frame, track_point *out,
                       int max_out, int *n_out, icv_err *err)
{
    struct track_tracker_ws *w = t->ws;
    *n_out = 0;
    int nt = t->n_tracks;

    /* 1. predict */
    int n_confirmed = 0;
    for (int i = 0; i < nt; i++) {
        track_kalman_predict(&w->tracks[i].kf, t->accel_noise);
        w->pred_u[i] = w->tracks[i].kf.xu[0];
        w->pred_v[i] = w->tracks[i].kf.xv[0];
        w->trk_flags[i] = 0;
        n_confirmed += w->tracks[i].id >= 0;
    }

    /* 2. detect: the whole frame while acquiring, else windows round the predictions */
    int full = t->n_expected <= 0 || n_confirmed < t->n_expected || nt == 0 ||
               (t->full_scan_every > 0 && t->n_frames % t->full_scan_every == 0);
    int nw = 0;
    if (!full) {
        for (int i = 0; i < nt; i++) {
            const trk *k = &w->tracks[i];
            double s = sqrt(track_kalman_innovation_var(&k->kf, meas_var(t, k->sigma)));
            double blur = hypot(k->kf.xu[1], k->kf.xv[1]) * t->exposure_frac;
            double r = fmax(t->window_min_px, t->window_sigmas * s + sqrt(k->area / M_PI) + 0.5 * blur +
                                                  det->centroid_margin_px + 2);
            if (k->misses > 0) /* a coasting or lost track also looks where reacquisition may */
                r = fmax(r, t->reacquire_px + sqrt(k->area / M_PI) + 0.5 * blur);
            w->windows[nw++] = (track_window){(int)floor(w->pred_u[i] - r), (int)floor(w->pred_v[i] - r),
                                              (int)ceil(w->pred_u[i] + r), (int)ceil(w->pred_v[i] + r), blur};
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

    /* 3. gated costs, one dummy column per track for "not assigned" */
    int nc = nd + nt;
    for (int i = 0; i < nt; i++) {
        const trk *k = &w->tracks[i];
        double S = track_kalman_innovation_var(&k->kf, meas_var(t, k->sigma)), lndet = 2 * log(S);
        for (int j = 0; j < nd; j++) {
            double du = w->blobs[j].u - w->pred_u[i], dv = w->blobs[j].v - w->pred_v[i];
            double d2 = (du * du + dv * dv) / S;
            w->cost[i * nc + j] = d2 < t->gate_chi2 ? d2 + lndet : BIG;
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

    /* 5. reacquisition of confirmed tracks the gate left out (an impact) */
    reacquire(t, nt, nd);

    /* 6. update, coast, output */
    int confirm = t->confirm_hits < 1 ? 1 : t->confirm_hits > MAX_PENDING + 1 ? MAX_PENDING + 1 : t->confirm_hits;
    for (int i = 0; i < nt; i++) {
        trk *k = &w->tracks[i];
        int j = w->assign[i];
        track_point cur = {0};
        cur.pred_u = w->pred_u[i];
        cur.pred_v = w->pred_v[i];
        if (j >= 0) {
            const track_blob *b = &w->blobs[j];
            track_kalman_update(&k->kf, b->u, b->v, meas_var(t, b->sigma));
            k->hits++;
            k->misses = 0;
            k->area = b->area;
            k->sigma = b->sigma;
            k->last_u = b->u;
            k->last_v = b->v;
            cur.u = b->u;
            cur.v = b->v;
            cur.sigma = b->sigma;
            cur.area = b->area;
            cur.flags = b->flags | w->trk_flags[i];
        } else {
            k->misses++;
            cur.u = w->pred_u[i];
            cur.v = w->pred_v[i];
            cur.sigma = sqrt(k->kf.P[0][0]);
            cur.area = 0;
            cur.flags = (w->trk_flags[i] & TRACK_FLAG_MERGED) ? TRACK_FLAG_MERGED : TRACK_FLAG_COASTED;
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
    /* 7. end tracks: tentative ones at their first miss, confirmed ones after max_coast */
    for (int i = t->n_tracks - 1; i >= 0; i--) {
        const trk *k = &w->tracks[i];
        if (k->id >= 0 && k->misses > t->max_coast) {
            t->n_lost++;
            t->last_lost_marker = k->id;
            t->last_lost_frame = t->n_frames - k->misses;
        }
        if ((k->id < 0 && k->misses > 0) || k->misses > t->max_coast)
            remove_track(t, i);
    }
    /* 8. births from the blobs no track took (not merged ones). Not capped at
     * n_expected: a glint confirmed as a track before the static model learns it must
     * not keep a real marker out. */
    for (int j = 0; j < nd && t->n_tracks < TRACK_MAX_TRACKS; j++) {
        if (w->det_used[j])
            continue;
        trk *k = &w->tracks[t->n_tracks++];
        track_kalman_init(&k->kf, w->blobs[j].u, w->blobs[j].v, fmax(w->blobs[j].sigma, t->sigma_floor_px),
                          t->init_vel_sigma, t->gravity_u, t->gravity_v, t->init_acc_sigma);
        k->id = -1;
        k->hits = 1;
        k->misses = 0;
        k->area = w->blobs[j].area;
        k->sigma = w->blobs[j].sigma;
        k->last_u = w->blobs[j].u;
        k->last_v = w->blobs[j].v;
        const track_blob *b = &w->blobs[j];
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
