/* identity.c: which body marker each triangulated point is. The body is rigid, so the
 * distances between its markers are those of body.markers; a labelling is a choice of
 * point per marker whose pairwise distances match the template (every pair within
 * tol_m + tol_rel * d), preferring more markers labelled, then the smallest misfit
 * plus the distance to each marker's position predicted from the previous frames
 * (constant velocity), so a symmetric template (collinear, evenly spaced markers) is
 * resolved by continuity and a swap of two 2D tracks is never written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "track/track_3d.h"

#define ID_MAX_ENUM 8      /* markers labelled by enumeration */
#define ID_MAX_POINTS 16   /* points considered per frame */
#define ID_FRESH 3.0 /* a prediction over up to 3 times the interval it was made from is fresh */
#define ID_SWAP_MIN_M 0.03 /* m: how far a point may stray from a marker's prediction and
                              still be that marker (as a single point's label is kept) */
#define ID_MARGIN 4.0 /* misfit (squared tolerances) by which the best labelling of a partial
                         set must beat every other before it is taken */
#define ID_EVIDENCE_FRAMES 3 /* frames of the same tracks whose margins add up, at least */
#define ID_EVIDENCE_MIN (ID_MARGIN / 16) /* the least margin a frame adds: less is what noise
                                            and a steady bias make of a symmetric template */
#define ID_EVIDENCE_GAP_S 0.1 /* s: the longest pause in such a run (as for continuity) */
#define ID_CHI2_MIN_MARKERS 3 /* markers a labelling needs before its chi-square decides */
#define ID_CHI2_MARGIN 16.0 /* chi-square of the distance residuals (the points' own covariance) by
                               which a labelling fitting worse than the best one loses: 4 sigma
                               on one pair, beyond chance and the continuity's pull */

struct track_identity {
    int n;
    icv_vec3 M[ICV_MAX_MARKERS];
    double D[ICV_MAX_MARKERS][ICV_MAX_MARKERS]; /* m: template distances */
    double tol_m, tol_rel;
    /* continuity: the last two labelled positions of each marker */
    int have[ICV_MAX_MARKERS];        /* 0, 1 or 2 positions known */
    icv_vec3 last[ICV_MAX_MARKERS][2];
    double t_last[ICV_MAX_MARKERS][2];
    int started;
    int last_track[ICV_MAX_MARKERS]; /* the 2D track each marker was labelled on last; -1 none */
    /* search state */
    const icv_vec3 *X;
    const icv_vec3 *Xm; /* NULL, or point p as marker j at Xm[p * n + j] (one camera) */
    const double (*C)[3][3]; /* NULL, or each point's covariance (m^2; a non-finite one: unknown) */
    double chi2_cap;    /* labellings whose chi-square exceeds it are not candidates */
    double key_chi2;    /* the least chi-square (one point's pairs out) of a labelling with best_key */
    int key_pairs;      /* the pairs of known covariance it sums */
    double pt_chi2[ID_MAX_ENUM]; /* the current labelling's chi-square per marker: its pairs' */
    int pt_pairs[ID_MAX_ENUM];
    int np;
    int gated;
    icv_vec3 pred[ICV_MAX_MARKERS];
    int has_pred[ICV_MAX_MARKERS];
    int fresh[ICV_MAX_MARKERS]; /* predicted from the last two labellings, the last no more
                                   than ID_FRESH of their interval ago */
    int cur[ID_MAX_ENUM], best[ID_MAX_ENUM];
    int used[ID_MAX_POINTS];
    int best_count;
    int best_key;       /* best_count, or with rays: best_count * 64 + rays it explains */
    const track_identity_ray *rays;
    int n_rays;         /* > 0: the labellings are ranked by the rays they explain too */
    double best_cost;
    double best_tie;
    double second_cost; /* the best other labelling with as many markers */
    /* evidence over frames for a partial set no single frame tells apart: the 2D track
       of each marker in the best labelling (-1: none), the margins summed over the run
       of frames that labelling was best in, their count and the last one's time */
    int ev_track[ID_MAX_ENUM];
    double ev_sum;
    int ev_frames;
    double ev_t;
};

track_identity *track_identity_alloc(int n_markers, const icv_vec3 *markers, double tol_m, double tol_rel,
                                     icv_err *err)
{
    if (n_markers < 1 || n_markers > ID_MAX_ENUM) {
        icv_err_set(err, ICV_EINVAL, "body.markers: %d markers (identity by template supports 1 to %d)", n_markers,
                    ID_MAX_ENUM);
        return NULL;
    }
    track_identity *id = calloc(1, sizeof *id);
    if (!id) {
        icv_err_set(err, ICV_ENOMEM, "identity: out of memory");
        return NULL;
    }
    id->n = n_markers;
    for (int i = 0; i < n_markers; i++)
        id->M[i] = markers[i];
    for (int i = 0; i < n_markers; i++)
        for (int j = 0; j < n_markers; j++)
            id->D[i][j] = icv_v3_norm(icv_v3_sub(markers[i], markers[j]));
    id->tol_m = tol_m;
    id->tol_rel = tol_rel;
    for (int j = 0; j < ICV_MAX_MARKERS; j++)
        id->last_track[j] = -1;
    for (int j = 0; j < ID_MAX_ENUM; j++)
        id->ev_track[j] = -1;
    return id;
}

void track_identity_free(track_identity *id) { free(id); }

/* Point p's position if it is marker j: in one-camera mode its ray meets the plane of
 * that marker's body z, so the position depends on the marker. */
static icv_vec3 pos(const track_identity *id, int p, int j) { return id->Xm ? id->Xm[p * id->n + j] : id->X[p]; }

/* The tie-break at first sight: points higher along the surface y go to markers with a
 * larger body y (x, z weakly), so the labelling of a symmetric template is stated. */
static double tie_score(const track_identity *id, const int *sel)
{
    double s = 0;
    for (int j = 0; j < id->n; j++) {
        if (sel[j] < 0)
            continue;
        icv_vec3 x = pos(id, sel[j], j), m = id->M[j];
        s += x.y * m.y + 1e-3 * x.x * m.x + 1e-6 * x.z * m.z;
    }
    return s;
}

/* Whether ray r (a point one camera alone sees) can be marker m of labelling sel: some
 * point on it lies at the template's distance from every labelled marker, within the
 * tolerance. Closed form on the first labelled marker's sphere, checked on the others. */
static int ray_fits(const track_identity *id, const int *sel, int m, const track_identity_ray *r)
{
    int j0 = -1;
    for (int j = 0; j < id->n && j0 < 0; j++)
        if (sel[j] >= 0)
            j0 = j;
    if (j0 < 0)
        return 0;
    icv_vec3 w = icv_v3_sub(pos(id, sel[j0], j0), r->o);
    double s0 = icv_v3_dot(r->d, w), perp2 = icv_v3_dot(w, w) - s0 * s0, D0 = id->D[m][j0];
    double sv[3] = {s0, s0, s0};
    if (D0 * D0 >= perp2) {
        sv[1] = s0 - sqrt(D0 * D0 - perp2);
        sv[2] = s0 + sqrt(D0 * D0 - perp2);
    }
    for (int k = 0; k < 3; k++) {
        if (sv[k] <= 0) /* behind the camera */
            continue;
        icv_vec3 Y = icv_v3_axpy(sv[k], r->d, r->o);
        int ok = 1;
        for (int j = 0; j < id->n && ok; j++) {
            if (sel[j] < 0)
                continue;
            double D = id->D[m][j], e = icv_v3_norm(icv_v3_sub(Y, pos(id, sel[j], j))) - D;
            ok = fabs(e) <= id->tol_m + id->tol_rel * D;
        }
        if (ok)
            return 1;
    }
    return 0;
}

/* How many of the labelling's unlabelled markers a ray each can be (a ray once). */
static int rays_explained(const track_identity *id, const int *sel)
{
    int used[TRACK_IDENTITY_MAX_RAYS] = {0}, x = 0;
    for (int m = 0; m < id->n; m++) {
        if (sel[m] >= 0)
            continue;
        for (int r = 0; r < id->n_rays; r++)
            if (!used[r] && ray_fits(id, sel, m, &id->rays[r])) {
                used[r] = 1;
                x++;
                break;
            }
    }
    return x;
}

/* Whether the rays explain every marker labelling lab (np points) leaves out, each by
 * its own ray, where lab labels two markers or more (a ray against one point fits a
 * whole sphere). */
static int rays_complete(const track_identity *fid, const int *lab, int np, const track_identity_ray *rays,
                         int n_rays)
{
    if (!rays || n_rays <= 0)
        return 0;
    track_identity id = *fid;
    id.rays = rays;
    id.n_rays = n_rays < TRACK_IDENTITY_MAX_RAYS ? n_rays : TRACK_IDENTITY_MAX_RAYS;
    int sel[ID_MAX_ENUM], have = 0;
    for (int j = 0; j < id.n; j++)
        sel[j] = -1;
    for (int i = 0; i < np; i++)
        if (lab[i] >= 0) {
            sel[lab[i]] = i;
            have++;
        }
    return have >= 2 && have < id.n && rays_explained(&id, sel) == id.n - have;
}

/* Whether point p, dp from marker j's prediction (INFINITY: none), is where another
 * marker k was freshly predicted instead: within what a prediction misses by
 * (ID_SWAP_MIN_M) of k's prediction and half as far as from j's. Labelling it j is a swap of
 * the two, which a labelling with one marker more, or a template fit a centimetre off,
 * must not buy (a rod's end markers fit the template either way round when one middle
 * point is off). Only k's fresh prediction counts: after a gap a stale one, or one a
 * wrong labelling made, must not keep the template from putting the labels right. */
static int swapped_in(const track_identity *id, int p, int j, double dp)
{
    if (dp <= ID_SWAP_MIN_M)
        return 0;
    for (int k = 0; k < id->n; k++) {
        double dk = k != j && id->fresh[k] ? icv_v3_norm(icv_v3_sub(pos(id, p, k), id->pred[k])) : INFINITY;
        if (2 * dk < dp && dk <= ID_SWAP_MIN_M)
            return 1;
    }
    return 0;
}

/* Distance residual e (m) of points p and q squared over its variance along their
 * direction u, from the points' covariances; NAN where either is not known, so such a
 * pair never decides (the misfit against the tolerance ranks them, as without). */
static double pair_chi2(const track_identity *id, int p, int q, icv_vec3 u, double e)
{
    double var = 0;
    const double(*cp)[3] = id->C[p], (*cq)[3] = id->C[q];
    double uv[3] = {u.x, u.y, u.z};
    int known = cp[0][0] + cp[1][1] + cp[2][2] > 0 && cq[0][0] + cq[1][1] + cq[2][2] > 0;
    for (int a = 0; a < 3 && known; a++)
        for (int b = 0; b < 3; b++)
            var += uv[a] * (cp[a][b] + cq[a][b]) * uv[b];
    return known && var > 0 && isfinite(var) ? e * e / var : NAN;
}

/* The chi-square of markers 0..j-1's labelling, and the pairs it sums; where three are
 * labelled, without its worst point's pairs. Of three points one is in two of the three
 * pairs: a point off by more than its covariance holds (a bead's blob grown by a
 * neighbour's sliver, none of it flagged) would put the right labelling out by itself,
 * and a chance fit of the other beads in. With more, the margin's scale takes it
 * (run_search_cov). */
static double chi2_without_worst(const track_identity *id, int j, int count, double chi2, int pairs, int *left)
{
    int w = -1;
    for (int k = 0; k < j && count == 3; k++)
        if (id->cur[k] >= 0 && (w < 0 || id->pt_chi2[k] > id->pt_chi2[w]))
            w = k;
    *left = w < 0 ? pairs : pairs - id->pt_pairs[w];
    return w < 0 ? chi2 : chi2 - id->pt_chi2[w];
}

static void search(track_identity *id, int j, int count, double cost, double chi2, int pairs)
{
    int left = pairs;
    double robust = id->C ? chi2_without_worst(id, j, count, chi2, pairs, &left) : chi2;
    if (robust > id->chi2_cap && (count > 3 || j == id->n)) /* below four, a point yet to come can lower it */
        return;
    if (j == id->n) {
        int key = id->n_rays > 0 ? count * 64 + (count < id->n ? rays_explained(id, id->cur) : 0) : count;
        int better = key > id->best_key || (key == id->best_key && cost < id->best_cost - 1e-12);
        if (!better && key == id->best_key && fabs(cost - id->best_cost) <= 1e-12 * (1 + cost) &&
            tie_score(id, id->cur) > id->best_tie)
            better = 1;
        if (key > id->best_key || (key == id->best_key && robust < id->key_chi2)) {
            id->key_chi2 = robust;
            id->key_pairs = left;
        }
        if (better) {
            id->second_cost = key == id->best_key ? id->best_cost : INFINITY;
            id->best_key = key;
            id->best_count = count;
            id->best_cost = cost;
            id->best_tie = tie_score(id, id->cur);
            memcpy(id->best, id->cur, sizeof id->best);
        } else if (key == id->best_key && cost < id->second_cost) {
            id->second_cost = cost;
        }
        return;
    }
    /* bound: even labelling every remaining marker cannot beat the best count */
    if (count + (id->n - j) < id->best_count)
        return;
    for (int p = -1; p < id->np; p++) {
        double c = cost, x2 = chi2, pc_k[ID_MAX_ENUM];
        int n2 = pairs;
        id->pt_chi2[j] = 0;
        id->pt_pairs[j] = 0;
        if (p >= 0) {
            if (id->used[p])
                continue;
            for (int k = 0; k < j; k++)
                pc_k[k] = NAN;
            int ok = 1;
            for (int k = 0; k < j && ok; k++) {
                if (id->cur[k] < 0)
                    continue;
                icv_vec3 dx = icv_v3_sub(pos(id, p, j), pos(id, id->cur[k], k));
                double d = icv_v3_norm(dx);
                double e = d - id->D[j][k], tol = id->tol_m + id->tol_rel * id->D[j][k];
                if (id->gated && fabs(e) > tol)
                    ok = 0;
                c += (e / tol) * (e / tol);
                double pc = id->C && d > 0 ? pair_chi2(id, p, id->cur[k], icv_v3_scale(dx, 1.0 / d), e) : NAN;
                pc_k[k] = pc;
                if (isfinite(pc)) {
                    x2 += pc;
                    n2++;
                }
            }
            if (!ok)
                continue;
            double dp = id->has_pred[j] ? icv_v3_norm(icv_v3_sub(pos(id, p, j), id->pred[j])) : INFINITY;
            if (id->gated && swapped_in(id, p, j, dp))
                continue;
            if (id->gated && id->has_pred[j]) {
                double s = 0.01; /* m: a marker's position error from constant velocity over
                                    a frame through an impact (2 m/s change at 240 fps) */
                c += (dp / s) * (dp / s);
            }
            id->used[p] = 1;
        }
        id->cur[j] = p;
        for (int k = 0; k < j && p >= 0; k++) /* each pair counts for both its points */
            if (id->cur[k] >= 0 && isfinite(pc_k[k])) {
                id->pt_chi2[k] += pc_k[k], id->pt_pairs[k]++;
                id->pt_chi2[j] += pc_k[k], id->pt_pairs[j]++;
            }
        search(id, j + 1, count + (p >= 0), c, x2, n2);
        for (int k = 0; k < j && p >= 0; k++)
            if (id->cur[k] >= 0 && isfinite(pc_k[k]))
                id->pt_chi2[k] -= pc_k[k], id->pt_pairs[k]--;
        if (p >= 0)
            id->used[p] = 0;
    }
}

static void run_search_capped(track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, int n, int gated,
                              double chi2_cap)
{
    id->X = X;
    id->Xm = Xm;
    id->chi2_cap = chi2_cap;
    id->key_chi2 = INFINITY;
    id->key_pairs = 0;
    id->np = n < ID_MAX_POINTS ? n : ID_MAX_POINTS;
    id->gated = gated;
    id->best_count = -1;
    id->best_key = -1;
    id->best_cost = INFINITY;
    id->best_tie = -INFINITY;
    id->second_cost = INFINITY;
    memset(id->used, 0, sizeof id->used);
    for (int j = 0; j < ID_MAX_ENUM; j++)
        id->best[j] = -1;
    search(id, 0, 0, 0.0, 0.0, 0);
}

/* The search by the template's tolerance alone (C NULL) */
static void run_search(track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, int n, int gated)
{
    id->C = NULL;
    run_search_capped(id, X, Xm, n, gated, INFINITY);
}

/* With the points' covariances C: the labellings with the most markers are found first;
 * where they label three markers or more, those whose chi-square exceeds the least by
 * ID_CHI2_MARGIN are then left out, and the rest ranked as without (misfit, continuity,
 * tie-break); the margin is scaled as below, and a labelling of three is judged without
 * its worst point's pairs. Two congruent triangles of a many-marker body both fit the tolerance,
 * which is set for a scene's worst points; the points' own noise tells them apart. A
 * pair is one distance, which a bias of its points half a millimetre off (a band's
 * centroid off the rod's axis) decides wrongly: two markers are left to the rule
 * without. */
static void run_search_cov(track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, const double (*C)[3][3], int n,
                           int gated)
{
    id->C = Xm ? NULL : C; /* one camera's per-marker positions have no covariance here */
    run_search_capped(id, X, Xm, n, gated, INFINITY);
    if (id->C && id->best_count >= ID_CHI2_MIN_MARKERS && isfinite(id->key_chi2) && id->key_pairs > 0) {
        /* the best fit's chi-square per pair above 1 says by how much the covariances
           understate this frame's errors (a bead's blob grown by a neighbour's sliver,
           none of it flagged): the margin grows by as much, so such a point does not
           put the right labelling out */
        double understated = fmax(1.0, id->key_chi2 / id->key_pairs);
        run_search_capped(id, X, Xm, n, gated, id->key_chi2 + ID_CHI2_MARGIN * understated);
    }
    id->C = NULL;
}

/* One marker (a ball): its distances to nothing tell no point from another, so what the
 * tracks do decides. The point on the 2D track the marker was labelled on last; else the
 * one track that moves: farther than the template's tolerance (less is centroid noise
 * the template allows) and 3x farther than any other point's track, so a still thing
 * (the reference cylinder, a glint, a board square) never wins. -1: no such point. */
static int one_marker_by_tracks(const track_identity *id, int n, const track_identity_hint *h)
{
    if (id->last_track[0] >= 0)
        for (int p = 0; p < n; p++)
            if (h[p].track == id->last_track[0])
                return p;
    int best = -1;
    for (int p = 0; p < n; p++)
        if (best < 0 || h[p].travel > h[best].travel)
            best = p;
    double other = 0;
    for (int p = 0; p < n; p++)
        if (p != best)
            other = fmax(other, h[p].travel);
    if (best < 0 || !(h[best].travel > id->tol_m) || h[best].travel < 3 * other)
        return -1;
    return best;
}

/* Whether the best labelling of this frame's partial set, which another fits nearly as
 * well, has been best on the same 2D tracks in enough frames: each frame's margin (the
 * other's misfit less the best's) is added over the run of frames the same tracks were
 * labelled so, and the labelling is taken once the sum reaches ID_MARGIN; a frame whose
 * margin is under ID_EVIDENCE_MIN ends the run (the template hardly tells the two
 * labellings apart, as a rod's evenly spaced markers: noise or a steady bias would
 * add up, not the template's difference). A marker pair
 * of the template nearly as far from the others as each other (a bar's middle sticker
 * and a side one) is then told by the points' accuracy, which is finer than the
 * template's tolerance, yet no single frame's chance misfit decides. Only where every
 * point is in the labelling and on a 2D track: a spare point (clutter) is no evidence. */
static int evidence_settles(track_identity *id, int n, int count, double t, const track_identity_hint *hint)
{
    int key[ID_MAX_ENUM], same = 1;
    if (!hint || n != count || !(id->second_cost - id->best_cost >= 0))
        return 0;
    for (int j = 0; j < id->n; j++) {
        key[j] = id->best[j] >= 0 ? hint[id->best[j]].track : -1;
        if (id->best[j] >= 0 && key[j] < 0)
            return 0;
        same &= key[j] == id->ev_track[j];
    }
    double margin = id->second_cost - id->best_cost;
    if (!same || !(t - id->ev_t <= ID_EVIDENCE_GAP_S) || !(t > id->ev_t) || margin < ID_EVIDENCE_MIN) {
        memcpy(id->ev_track, key, sizeof key);
        id->ev_sum = 0;
        id->ev_frames = 0;
    }
    if (margin < ID_EVIDENCE_MIN)
        return 0;
    id->ev_sum += margin;
    id->ev_frames++;
    id->ev_t = t;
    return id->ev_frames >= ID_EVIDENCE_FRAMES && id->ev_sum >= ID_MARGIN;
}

static int label_points(track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, const double (*C)[3][3], int n,
                        double t, const track_identity_hint *hint, const track_identity_ray *rays, int n_rays,
                        int *label)
{
    id->n_rays = 0;
    for (int i = 0; i < n; i++)
        label[i] = -1;
    for (int j = 0; j < id->n; j++) {
        id->has_pred[j] = id->fresh[j] = 0;
        if (id->have[j] == 0)
            continue;
        id->has_pred[j] = 1;
        id->pred[j] = id->last[j][0];
        double dt0 = t - id->t_last[j][0];
        if (dt0 > 0.1) { /* s: too long unseen for continuity to mean anything */
            id->has_pred[j] = 0;
            continue;
        }
        if (id->have[j] == 2) {
            double dt = id->t_last[j][0] - id->t_last[j][1];
            if (dt > 0) {
                icv_vec3 v = icv_v3_scale(icv_v3_sub(id->last[j][0], id->last[j][1]), 1.0 / dt);
                id->pred[j] = icv_v3_axpy(dt0, v, id->last[j][0]);
                id->fresh[j] = dt0 <= ID_FRESH * dt;
            }
        }
    }
    run_search_cov(id, X, Xm, C, n, 1);
    int count = 0;
    for (int j = 0; j < id->n; j++)
        count += id->best[j] >= 0;
    int by_tracks = 0;
    if (id->n == 1 && hint) {
        int p = one_marker_by_tracks(id, id->np, hint);
        if (p < 0 && id->has_pred[0] && id->best[0] >= 0 && hint[id->best[0]].travel > id->tol_m)
            p = id->best[0]; /* a new moving track nearest the prediction: the ball found again */
        /* the tracker's own continuity needs no gate (a bounce at 30 fps moves the ball
           farther from a constant-velocity prediction); a jump to another track does */
        if (p >= 0 && (id->last_track[0] < 0 || hint[p].track != id->last_track[0]) && id->has_pred[0] &&
            icv_v3_norm(icv_v3_sub(pos(id, p, 0), id->pred[0])) > 0.03)
            p = -1;
        if (p < 0)
            return 0;
        id->best[0] = p;
        count = by_tracks = 1;
    }
    /* a single point with no prediction cannot be told apart by distances: leave it
       (unless it is the one point of a one-marker body: a ball) */
    if (count == 1 && !by_tracks) {
        int j = 0;
        while (id->best[j] < 0)
            j++;
        int alone = id->n == 1 && n == 1;
        if (id->has_pred[j] ? icv_v3_norm(icv_v3_sub(pos(id, id->best[j], j), id->pred[j])) > 0.03 : !alone)
            return 0;
    }
    if (count == 0)
        return 0;
    /* a partial set that another labelling fits as well, with nothing to tell them apart
       (no prediction of the markers chosen): two of a rod's three evenly spaced markers
       are m0-m1 or m1-m2. Left unlabelled rather than guessed. (All markers seen: the
       template's symmetry is resolved by the stated tie-break.) */
    if (count < id->n && id->second_cost - id->best_cost < ID_MARGIN) {
        int predicted = 1;
        for (int j = 0; j < id->n; j++)
            if (id->best[j] >= 0 && !id->has_pred[j])
                predicted = 0;
        if (!predicted && !evidence_settles(id, n, count, t, hint)) {
            /* a marker one camera alone sees can tell them apart (random scene 1103: m2
               unseen by the left camera, m0-m1 fits either way round): the labellings
               again, ranked by the rays their unlabelled markers can be; one explaining
               more than every other (and no cheaper one as many) is taken, only where
               every point is in it and the rays are no more than its unseen markers */
            if (n_rays <= 0 || !rays || n > count || n_rays > id->n - count)
                return 0; /* spare points or rays: one of them can fit by chance (scene 1021's
                             first frames: 13 clutter points, a ray ordered m1-m2 wrongly) */
            id->rays = rays;
            id->n_rays = n_rays < TRACK_IDENTITY_MAX_RAYS ? n_rays : TRACK_IDENTITY_MAX_RAYS;
            run_search_cov(id, X, Xm, C, n, 1);
            id->n_rays = 0;
            if (id->best_key % 64 == 0 || id->second_cost - id->best_cost < ID_MARGIN)
                return 0;
            count = 0;
            for (int j = 0; j < id->n; j++)
                count += id->best[j] >= 0;
        }
    }
    for (int j = 0; j < id->n; j++) {
        int p = id->best[j];
        if (p < 0)
            continue;
        label[p] = j;
        id->last_track[j] = hint ? hint[p].track : -1;
        id->last[j][1] = id->last[j][0];
        id->t_last[j][1] = id->t_last[j][0];
        id->last[j][0] = pos(id, p, j);
        id->t_last[j][0] = t;
        if (id->have[j] < 2)
            id->have[j]++;
    }
    return count;
}

int track_identity_label(track_identity *id, const icv_vec3 *X, int n, double t, int *label)
{
    return label_points(id, X, NULL, NULL, n, t, NULL, NULL, 0, label);
}

int track_identity_label_per_marker(track_identity *id, const icv_vec3 *Xm, int n, double t, int *label)
{
    return label_points(id, NULL, Xm, NULL, n, t, NULL, NULL, 0, label);
}

int track_identity_label_tracks(track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, const double (*cov)[3][3],
                                int n, double t, const track_identity_hint *hint, const track_identity_ray *rays,
                                int n_rays, int *label)
{
    return label_points(id, Xm ? NULL : X, Xm, cov, n, t, hint, rays, n_rays, label);
}

static double fit_points(const track_identity *cid, const icv_vec3 *X, const icv_vec3 *Xm, int n, int *label)
{
    track_identity id = *cid; /* search state is scratch: work on a copy */
    for (int j = 0; j < id.n; j++)
        id.has_pred[j] = id.fresh[j] = 0;
    run_search(&id, X, Xm, n, 0);
    for (int i = 0; i < n; i++)
        label[i] = -1;
    double ss = 0;
    int np = 0;
    for (int j = 0; j < id.n; j++) {
        if (id.best[j] < 0)
            continue;
        label[id.best[j]] = j;
        for (int k = 0; k < j; k++) {
            if (id.best[k] < 0)
                continue;
            double e = icv_v3_norm(icv_v3_sub(pos(&id, id.best[j], j), pos(&id, id.best[k], k))) - id.D[j][k];
            ss += e * e;
            np++;
        }
    }
    return np ? sqrt(ss / np) : 0.0;
}

/* The labelling with the most markers whose every pair fits the template (no
 * prediction); how many it labels. */
static int gated_points(const track_identity *cid, const icv_vec3 *X, const icv_vec3 *Xm, int n, int *label)
{
    track_identity id = *cid;
    for (int j = 0; j < id.n; j++)
        id.has_pred[j] = id.fresh[j] = 0;
    run_search(&id, X, Xm, n, 1);
    int count = 0;
    for (int i = 0; i < n; i++)
        label[i] = -1;
    for (int j = 0; j < id.n; j++)
        if (id.best[j] >= 0) {
            label[id.best[j]] = j;
            count++;
        }
    return count;
}

double track_identity_fit(const track_identity *id, const icv_vec3 *X, int n, int *label)
{
    return fit_points(id, X, NULL, n, label);
}

double track_identity_fit_per_marker(const track_identity *id, const icv_vec3 *Xm, int n, int *label)
{
    return fit_points(id, NULL, Xm, n, label);
}

int track_template_pair(double *d, long n, double D, double tol, double *dist)
{
    /* median by insertion sort: n is a clip's frames */
    for (long a = 1; a < n; a++)
        for (long b = a; b > 0 && d[b] < d[b - 1]; b--) {
            double tmp = d[b];
            d[b] = d[b - 1];
            d[b - 1] = tmp;
        }
    *dist = n ? d[n / 2] : NAN;
    if (n == 0 || fabs(*dist - D) <= tol)
        return n > 0;
    /* Where a marker is missing the fit labels another point in its place (a glint, the
       board's corner), so the distances mix the pair's own, gathered within the
       tolerance of D, with scattered ones. A wrong template or scale leaves none near D;
       clutter puts a sixth or less there by chance. */
    long lo = 0, hi = 0;
    while (lo < n && d[lo] < D - tol)
        lo++;
    hi = lo;
    while (hi < n && d[hi] <= D + tol)
        hi++;
    if (hi - lo >= 3 && 3 * (hi - lo) >= n) {
        *dist = d[(lo + hi) / 2];
        return 1;
    }
    return 0;
}

int track_template_check(const track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, const int *n, long F,
                         int stride, track_template_result *pairs, unsigned char *posed, icv_err *err)
{
    return track_template_check_rays(id, X, Xm, n, F, stride, NULL, NULL, 0, pairs, posed, err);
}

int track_template_check_rays(const track_identity *id, const icv_vec3 *X, const icv_vec3 *Xm, const int *n, long F,
                              int stride, const track_identity_ray *rays, const int *n_rays, int ray_stride,
                              track_template_result *pairs, unsigned char *posed, icv_err *err)
{
    if (posed)
        memset(posed, 0, (size_t)F);
    int nm = id->n, npair = nm * (nm - 1) / 2;
    double *dist = malloc(sizeof *dist * (size_t)(2 * F * npair + 1)); /* every frame's, then the gated ones' */
    if (!dist)
        return icv_err_set(err, ICV_ENOMEM, "template check: out of memory");
    double *dist_g = dist + F * npair;
    double box[ID_MAX_ENUM * (ID_MAX_ENUM - 1) / 2][2][3]; /* per pair: the box of its midpoints */
    for (int j = 0, q = 0; j < nm; j++)
        for (int k = j + 1; k < nm; k++, q++) {
            track_template_result *r = &pairs[q];
            memset(r, 0, sizeof *r);
            r->j = j;
            r->k = k;
            r->D = id->D[j][k];
            r->tol = id->tol_m + id->tol_rel * r->D;
            r->measured = NAN;
        }
    for (long f = 0; f < F; f++) {
        int np = n[f] < ID_MAX_POINTS ? n[f] : ID_MAX_POINTS;
        if (np < 2)
            continue;
        track_identity tmp = *id; /* for pos(): the frame's points */
        tmp.X = X ? X + f * stride : NULL;
        tmp.Xm = Xm ? Xm + f * stride * nm : NULL;
        int lab[ID_MAX_POINTS], at[ICV_MAX_MARKERS];
        /* three markers or more whose every pair fits are the body, not chance (a pair
           of clutter points at a template distance is common in a crowded frame, a
           triangle is not): their distances are the frame's. Else the ungated fit, which
           labels clutter where a marker is missing but shows a wrong template or scale */
        int n_gated = gated_points(id, tmp.X, tmp.Xm, np, lab);
        int gated = n_gated >= (nm < 3 ? nm : 3);
        /* two markers fitting and a ray of one camera for each marker left out, at the
           template's distances from both: the body too (a marker only one camera sees) */
        int by_rays = 0;
        if (!gated && rays && nm >= 3 && n_gated >= 2)
            gated = by_rays = rays_complete(&tmp, lab, np, rays + f * ray_stride, n_rays[f]);
        if (!gated)
            fit_points(id, tmp.X, tmp.Xm, np, lab);
        else if (posed)
            posed[f] = by_rays ? 2 : 1;
        for (int j = 0; j < nm; j++)
            at[j] = -1;
        for (int i = 0; i < np; i++)
            if (lab[i] >= 0)
                at[lab[i]] = i;
        for (int q = 0; q < npair; q++) {
            int j = pairs[q].j, k = pairs[q].k;
            if (at[j] < 0 || at[k] < 0)
                continue;
            icv_vec3 a = pos(&tmp, at[j], j), b = pos(&tmp, at[k], k);
            icv_vec3 mid = icv_v3_scale(icv_v3_add(a, b), 0.5);
            for (int c = 0; c < 3; c++) {
                double v = icv_v3_get(mid, c);
                if (pairs[q].n == 0 || v < box[q][0][c])
                    box[q][0][c] = v;
                if (pairs[q].n == 0 || v > box[q][1][c])
                    box[q][1][c] = v;
            }
            dist[(long)q * F + pairs[q].n++] = icv_v3_norm(icv_v3_sub(a, b));
            if (gated)
                dist_g[(long)q * F + pairs[q].n_gated++] = dist[(long)q * F + pairs[q].n - 1];
        }
    }
    int bad = 0;
    for (int q = 0; q < npair; q++) {
        track_template_result *r = &pairs[q];
        if (r->n == 0)
            continue;
        double *d = dist + (long)q * F;
        /* three frames or more in which the pair is part of three markers fitting
           together are the pair's own distance: the other frames' ungated labelling may
           have put clutter in place of a marker not seen (a post, a glint, a merged blob)
           and is not evidence against a template those frames confirm */
        if (r->n_gated >= 3) {
            double tmp_med;
            r->fits = track_template_pair(dist_g + (long)q * F, r->n_gated, r->D, r->tol, &tmp_med);
            track_template_pair(d, r->n, r->D, r->tol, &r->measured);
            if (r->fits)
                r->measured = tmp_med;
        } else {
            r->fits = track_template_pair(d, r->n, r->D, r->tol, &r->measured);
        }
        /* d is sorted now: the share within the tolerance of the pair's own median */
        double m = d[r->n / 2];
        long lo = 0, hi = 0;
        while (lo < r->n && d[lo] < m - r->tol)
            lo++;
        hi = lo;
        while (hi < r->n && d[hi] <= m + r->tol)
            hi++;
        r->steady = (double)(hi - lo) / (double)r->n;
        r->travel = 0;
        for (int c = 0; c < 3; c++)
            r->travel += (box[q][1][c] - box[q][0][c]) * (box[q][1][c] - box[q][0][c]);
        r->travel = sqrt(r->travel);
        bad += !r->fits;
    }
    free(dist);
    return bad;
}

int track_template_verdict(const track_template_result *pairs, int npair, long n_posed, unsigned *stood_in)
{
    long n_max = 0;
    int bad = 0, rigid = 0;
    *stood_in = 0;
    for (int q = 0; q < npair; q++)
        n_max = pairs[q].n > n_max ? pairs[q].n : n_max;
    for (int q = 0; q < npair; q++) {
        const track_template_result *r = &pairs[q];
        if (r->fits || r->n == 0)
            continue;
        bad++;
        /* steady, travelling with the body, and measured about as often as the pair
           measured most: a marker that is there, at another distance */
        if (r->steady >= 0.5 && r->travel >= 3 * r->tol && 2 * r->n >= n_max)
            rigid++;
        else
            *stood_in |= 1u << r->j | 1u << r->k;
    }
    if (!bad)
        return TRACK_TEMPLATE_FITS;
    if (rigid)
        return TRACK_TEMPLATE_WRONG;
    return n_posed >= TRACK_TEMPLATE_MIN_POSED ? TRACK_TEMPLATE_STOOD_IN : TRACK_TEMPLATE_TOO_FEW_POSED;
}

int track_template_one_scale(const track_template_result *pairs, int npair, double *scale, double *lo,
                             double *hi)
{
    double ratio[ID_MAX_ENUM * (ID_MAX_ENUM - 1) / 2];
    int n = 0;
    *scale = *lo = *hi = NAN;
    for (int q = 0; q < npair && n < (int)(sizeof ratio / sizeof *ratio); q++)
        if (pairs[q].n > 0 && pairs[q].D > 0 && isfinite(pairs[q].measured))
            ratio[n++] = pairs[q].measured / pairs[q].D;
    if (n < 3)
        return -1;
    for (int a = 1; a < n; a++) /* a few pairs: insertion sort */
        for (int b = a; b > 0 && ratio[b] < ratio[b - 1]; b--) {
            double t = ratio[b];
            ratio[b] = ratio[b - 1];
            ratio[b - 1] = t;
        }
    *scale = ratio[n / 2];
    *lo = ratio[0];
    *hi = ratio[n - 1];
    for (int q = 0; q < npair; q++)
        if (pairs[q].n > 0 && pairs[q].D > 0 && isfinite(pairs[q].measured) &&
            fabs(pairs[q].measured - *scale * pairs[q].D) > pairs[q].tol)
            return 0;
    return 1;
}

int track_identity_ray_marker(const track_identity *fid, const icv_vec3 *X, const int *lab, int n,
                              const track_identity_ray *r)
{
    track_identity id = *fid;
    id.X = X;
    id.Xm = NULL;
    int sel[ID_MAX_ENUM], have = 0, found = -1;
    for (int j = 0; j < id.n; j++)
        sel[j] = -1;
    for (int i = 0; i < n && i < ID_MAX_POINTS; i++)
        if (lab[i] >= 0 && lab[i] < id.n) {
            sel[lab[i]] = i;
            have++;
        }
    if (have < 2)
        return -1;
    for (int m = 0; m < id.n; m++) {
        if (sel[m] >= 0 || !ray_fits(&id, sel, m, r))
            continue;
        if (found >= 0)
            return -1;
        found = m;
    }
    return found;
}
