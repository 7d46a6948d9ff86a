/* track_bodies.c: the 3D pass of several bodies. The candidates are made once for
 * every body's markers; each body of two or more markers then takes its own with its
 * template (the one-body identity and labelling, track_3d.c) from the candidates the
 * bodies before it left, bodies of more markers first (a larger template rejects a
 * stranger more surely); the one-marker bodies (pucks, a cradle's balls) take theirs
 * by the continuity of their 2D tracks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_track_internal.h"

typedef struct {
    track_candidate *cand; /* the pass's candidates, TRACK_MAX_CAND per frame */
    int *cand_n;
    unsigned char *taken;  /* per candidate: a body took it */
    track_candidate *left; /* the candidates no body took yet, compacted */
    int *left_n;
    int *left_of;          /* per compacted candidate: its index in cand */
    int *lab;              /* per compacted candidate: the body's marker, -1 none */
} bodies_work;

static void work_free(bodies_work *w)
{
    free(w->taken);
    free(w->left);
    free(w->left_n);
    free(w->left_of);
    free(w->lab);
}

static int work_alloc(bodies_work *w, const job_track *j, icv_err *err)
{
    size_t n = (size_t)j->F * TRACK_MAX_CAND + 1;
    w->cand = j->cand;
    w->cand_n = j->cand_n;
    w->taken = calloc(n, 1);
    w->left = malloc(sizeof *w->left * n);
    w->left_n = calloc((size_t)j->F + 1, sizeof *w->left_n);
    w->left_of = malloc(sizeof *w->left_of * n);
    w->lab = malloc(sizeof *w->lab * n);
    if (!w->taken || !w->left || !w->left_n || !w->left_of || !w->lab)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    return 0;
}

/* The candidates no body took, into w->left; with owner (per reference-camera 2D
 * track: the body it belongs to, -1 not known), only those on body k's tracks or on
 * tracks of no known body. */
static void compact_left(bodies_work *w, long F, const int *owner, int n_ids, int k_body)
{
    for (long f = 0; f < F; f++) {
        int n = 0;
        for (int i = 0; i < w->cand_n[f]; i++) {
            long k = f * TRACK_MAX_CAND + i;
            int id = w->cand[k].id[0];
            if (w->taken[k] || (owner && id >= 0 && id < n_ids && owner[id] >= 0 && owner[id] != k_body))
                continue;
            w->left[f * TRACK_MAX_CAND + n] = w->cand[k];
            w->left_of[f * TRACK_MAX_CAND + n] = i;
            w->lab[f * TRACK_MAX_CAND + n] = -1;
            n++;
        }
        w->left_n[f] = n;
    }
}

/* Body k of two or more markers: its template checked and its markers labelled on the
 * candidates left (j->exp its view; owner: see compact_left); the ones it took are
 * marked taken. votes (n_ids, or NULL): per reference-camera 2D track, its frames
 * labelled this body's, each weighted by the share of the template labelled in it,
 * added; then nothing is taken and the template not checked. */
static int label_template_body(job_track *j, bodies_work *w, int k, const int *owner, double *votes, icv_err *err)
{
    icv_experiment *exp = &j->exp;
    int n_ids = j->cams[0].n_ids;
    compact_left(w, j->F, owner, n_ids, k);
    icv_experiment_use_body(exp, k);
    j->marker_offset = icv_experiment_first_marker(exp, k);
    j->cand = w->left;
    j->cand_n = w->left_n;
    j->cand_lab = w->lab;
    long before = j->res.points3d;
    int rc = job_track_3d_label_body(j, votes == NULL, err);
    track_identity_free(j->ident);
    j->ident = NULL;
    j->cand = w->cand;
    j->cand_n = w->cand_n;
    j->cand_lab = NULL;
    if (rc)
        return icv_err_prefix(err, "bodies[%d] ('%s'): ", k, exp->bodies[k].name);
    icv_debug("bodies: '%s' (%s): %ld points labelled", exp->bodies[k].name, votes ? "votes" : "labels",
              j->res.points3d - before);
    if (votes) { /* a frame's vote: the share of the template it labelled */
        for (long f = 0; f < j->F; f++) {
            int count = 0;
            for (int i = 0; i < w->left_n[f]; i++)
                count += w->lab[f * TRACK_MAX_CAND + i] >= 0;
            for (int i = 0; i < w->left_n[f]; i++) {
                int id = w->left[f * TRACK_MAX_CAND + i].id[0];
                if (w->lab[f * TRACK_MAX_CAND + i] >= 0 && id >= 0 && id < n_ids)
                    votes[id] += (double)count / exp->n_markers;
            }
        }
        return 0;
    }
    if (j->res.points3d == before)
        return icv_err_set(err, ICV_ENOTFOUND,
                           "%s: bodies[%d] ('%s'): none of its %d markers could be labelled in any frame (the "
                           "bodies before it took %s; check that all markers are detected)",
                           exp->path, k, exp->bodies[k].name, exp->bodies[k].n_markers,
                           k ? "the points that fit their templates" : "none");
    for (long f = 0; f < j->F; f++)
        for (int i = 0; i < w->left_n[f]; i++)
            if (w->lab[f * TRACK_MAX_CAND + i] >= 0)
                w->taken[f * TRACK_MAX_CAND + w->left_of[f * TRACK_MAX_CAND + i]] = 1;
    return 0;
}

/* One 2D track of the reference camera among the candidates left. */
typedef struct {
    long first, last, n; /* frames */
    int body;            /* the one-marker body it belongs to, -1 none */
} point_track;

/* Candidate i of frame f as body k's one marker: tracks3d, the quality row, the 2D
 * tracks' labels. */
static void put_point(job_track *j, int k, long f, const track_candidate *c)
{
    int m = icv_experiment_first_marker(&j->exp, k);
    double *o = j->xyz + ((size_t)f * (size_t)j->xyz_stride + (size_t)m) * 3;
    o[0] = c->X.x, o[1] = c->X.y, o[2] = c->X.z;
    double t = j->t3[f];
    for (int w = 0; w < c->nv; w++) {
        job_track_camera *cm = &j->cams[c->cam[w]];
        long g = f;
        if (c->cam[w] >= 1)
            g = lround((t + cm->off_s - cm->tcam[0]) * cm->pc.fps);
        if (c->id[w] >= 0 && c->id[w] < cm->n_ids && g >= 0 && g < cm->frames)
            cm->label[g * cm->n_ids + c->id[w]] = m;
    }
    track_quality3d *q = &j->qrows[j->nq++];
    *q = (track_quality3d){.frame = f, .time_s = t, .marker = m, .residual_px = c->residual, .flags = c->flags};
    memcpy(q->cov, c->cov, sizeof q->cov);
    j->res.points3d++;
    j->res.points3d_by_views[c->nv < ICV_MAX_CAMERAS ? c->nv : ICV_MAX_CAMERAS]++;
}

/* tracks3d_quality.csv's rows in frame order, each frame's by marker */
static int cmp_quality(const void *a, const void *b)
{
    const track_quality3d *x = a, *y = b;
    if (x->frame != y->frame)
        return (x->frame > y->frame) - (x->frame < y->frame);
    return (x->marker > y->marker) - (x->marker < y->marker);
}

void job_track_sort_quality(job_track *j)
{
    qsort(j->qrows, (size_t)j->nq, sizeof *j->qrows, cmp_quality);
}

static int cmp_u(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* m: how far a new 2D track may start from where a body of marker diameter d was
 * heading, dt s after it was last seen moving at speed v: two diameters and the
 * distance its speed carries it (a track ends where the tracker lost the body: a
 * collision, a merge with another blob) */
static double hand_off_gate(double d, double v, double dt) { return 2 * d + fabs(v) * dt; }

/* The one-marker bodies (idx[0..nb)) on the candidates left: each follows one 2D track
 * of the reference camera; the tracks are given out at the first frame where nb of
 * them are seen (the longest ones there, from left to right in the image, in the
 * order of bodies:); a body whose track ended takes the next new track that starts
 * near where it was heading. */
static int label_point_bodies(job_track *j, bodies_work *w, const int *idx, int nb, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    long F = j->F;
    int n_ids = j->cams[0].n_ids;
    compact_left(w, F, NULL, 0, -1);
    point_track *tr = calloc((size_t)n_ids + 1, sizeof *tr);
    if (!tr)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    for (int id = 0; id < n_ids; id++)
        tr[id] = (point_track){-1, -1, 0, -1};
    for (long f = 0; f < F; f++)
        for (int i = 0; i < w->left_n[f]; i++) {
            int id = w->left[f * TRACK_MAX_CAND + i].id[0];
            if (id < 0 || id >= n_ids)
                continue;
            if (tr[id].first < 0)
                tr[id].first = f;
            tr[id].last = f;
            tr[id].n++;
        }
    /* the first frame where nb tracks are seen together */
    long f0 = -1;
    int most = 0;
    for (long f = 0; f < F && f0 < 0; f++) {
        most = w->left_n[f] > most ? w->left_n[f] : most;
        if (w->left_n[f] >= nb)
            f0 = f;
    }
    if (f0 < 0) {
        free(tr);
        return icv_err_set(err, ICV_ENOTFOUND,
                           "%s: the %d one-marker bodies ('%s', ..) are never seen together: at most %d points in a "
                           "frame besides the other bodies' markers (check that every body is detected: track.markers, "
                           "marker_diameter, the lighting)",
                           exp->path, nb, exp->bodies[idx[0]].name, most);
    }
    /* of the tracks at f0, the nb longest, given out from left to right */
    double pick[TRACK_MAX_CAND][2];
    int np = 0;
    for (int i = 0; i < w->left_n[f0]; i++) {
        const track_candidate *c = &w->left[f0 * TRACK_MAX_CAND + i];
        if (c->id[0] >= 0 && c->id[0] < n_ids)
            pick[np][0] = (double)tr[c->id[0]].n, pick[np][1] = i, np++;
    }
    for (int a = 0; a < np; a++) /* longest first (np is small) */
        for (int b = a + 1; b < np; b++)
            if (pick[b][0] > pick[a][0]) {
                double t0 = pick[a][0], t1 = pick[a][1];
                pick[a][0] = pick[b][0], pick[a][1] = pick[b][1];
                pick[b][0] = t0, pick[b][1] = t1;
            }
    if (np < nb) {
        free(tr);
        return icv_err_set(err, ICV_ENOTFOUND, "%s: frame %ld: %d of the %d one-marker bodies on a 2D track", exp->path,
                           f0, np, nb);
    }
    double order[TRACK_MAX_CAND][2];
    for (int a = 0; a < nb; a++) {
        const track_candidate *c = &w->left[f0 * TRACK_MAX_CAND + (int)pick[a][1]];
        order[a][0] = c->v[0].u, order[a][1] = c->id[0];
    }
    qsort(order, (size_t)nb, sizeof order[0], cmp_u);
    int cur[ICV_MAX_BODIES];
    for (int b = 0; b < nb; b++) {
        cur[b] = (int)order[b][1];
        tr[cur[b]].body = b;
        icv_info("%s: body '%s' is the point at u = %.0f px in frame %ld (one-marker bodies are given out from left "
                 "to right in the order of bodies:)",
                 exp->path, exp->bodies[idx[b]].name, order[b][0], f0);
    }
    /* hand-offs, frame by frame: a body whose track has ended takes a new track */
    icv_vec3 last[ICV_MAX_BODIES], vel[ICV_MAX_BODIES];
    double t_last[ICV_MAX_BODIES];
    for (int b = 0; b < nb; b++)
        last[b] = vel[b] = icv_v3(NAN, NAN, NAN), t_last[b] = NAN;
    for (long f = 0; f < F; f++) {
        double t = j->t3[f];
        for (int i = 0; i < w->left_n[f]; i++) {
            const track_candidate *c = &w->left[f * TRACK_MAX_CAND + i];
            int id = c->id[0];
            if (id < 0 || id >= n_ids)
                continue;
            if (tr[id].body < 0 && tr[id].first == f && f > f0) {
                int best = -1;
                double bd = INFINITY;
                for (int b = 0; b < nb; b++) {
                    if (tr[cur[b]].last >= f || !isfinite(last[b].x))
                        continue;
                    double dt = t - t_last[b];
                    icv_vec3 p = isfinite(vel[b].x) ? icv_v3_axpy(dt, vel[b], last[b]) : last[b];
                    double d = icv_v3_norm(icv_v3_sub(c->X, p));
                    double diam = fmax(exp->bodies[idx[b]].marker_diameter, 2 * exp->bodies[idx[b]].shape.radius);
                    if (d < hand_off_gate(diam, isfinite(vel[b].x) ? icv_v3_norm(vel[b]) : 0, dt) && d < bd)
                        bd = d, best = b;
                }
                if (best >= 0) {
                    icv_info("%s: body '%s': its 2D track ended at frame %ld; it goes on as the track starting at "
                             "frame %ld, %.1f mm from where it was heading",
                             exp->path, exp->bodies[idx[best]].name, tr[cur[best]].last, f, 1e3 * bd);
                    tr[id].body = best;
                    cur[best] = id;
                }
            }
            int b = tr[id].body;
            if (b < 0)
                continue;
            put_point(j, idx[b], f, c);
            w->taken[f * TRACK_MAX_CAND + w->left_of[f * TRACK_MAX_CAND + i]] = 1;
            if (isfinite(t_last[b]) && t > t_last[b])
                vel[b] = icv_v3_scale(icv_v3_sub(c->X, last[b]), 1 / (t - t_last[b]));
            last[b] = c->X;
            t_last[b] = t;
        }
    }
    free(tr);
    return 0;
}

/* Which body each reference-camera 2D track belongs to, for two bodies or more of
 * several markers: each labelled on every candidate, the track given to the body that
 * labelled it in the most frames, each frame weighted by the share of its template
 * labelled there. A body seen in part (a marker hidden behind it) can fit a pair of
 * another body's points to a pair of its own markers (two beads 42 mm apart on one
 * ball, 44 mm on the other); that body labels them with all of its markers. The labels, points and counts of these passes are then cleared. */
static int tracks_owned(job_track *j, bodies_work *w, const int *order, int n_order, int **owner_out, icv_err *err)
{
    int n_ids = j->cams[0].n_ids;
    double *votes = calloc((size_t)n_order * (size_t)(n_ids + 1), sizeof *votes);
    int *owner = malloc(sizeof *owner * (size_t)(n_ids + 1));
    if (!votes || !owner) {
        free(votes);
        free(owner);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    int rc = 0;
    for (int q = 0; q < n_order && !rc; q++)
        rc = label_template_body(j, w, order[q], NULL, votes + (size_t)q * (size_t)(n_ids + 1), err);
    for (int id = 0; id < n_ids; id++) {
        double best = 0;
        owner[id] = -1;
        for (int q = 0; q < n_order; q++)
            if (votes[(size_t)q * (size_t)(n_ids + 1) + id] > best)
                best = votes[(size_t)q * (size_t)(n_ids + 1) + id], owner[id] = order[q];
    }
    for (int id = 0; id < n_ids; id++)
        icv_debug("bodies: 2D track %d: votes %.1f (first body) %.1f (second), owner %d", id, votes[id],
                  votes[n_ids + 1 + id], owner[id]);
    free(votes);
    /* the passes' outputs cleared */
    for (int c = 0; c < j->exp.n_cameras; c++)
        for (long i = 0; i < j->cams[c].frames * (j->cams[c].n_ids ? j->cams[c].n_ids : 1); i++)
            j->cams[c].label[i] = -1;
    for (long i = 0; i < j->F * (long)j->xyz_stride * 3; i++)
        j->xyz[i] = NAN;
    j->nq = 0;
    job_track_result *res = &j->res;
    res->points3d = res->interpolated3d = res->extrapolated3d = res->swaps_repaired = res->one_view3d = 0;
    memset(res->points3d_by_views, 0, sizeof res->points3d_by_views);
    if (rc) {
        free(owner);
        return rc;
    }
    *owner_out = owner;
    return 0;
}

int job_track_bodies_3d(job_track *j, icv_err *err)
{
    icv_experiment *exp = &j->exp;
    int nb = exp->n_bodies, rc;
    if ((rc = job_track_3d_candidates(j, 0, err)) != 0)
        return rc;
    for (long f = 0; f < j->F; f++) {
        j->fr3[f] = f;
        j->t3[f] = j->cams[0].tcam[f] - j->cams[0].off_s;
        for (long i = 0; i < (long)j->xyz_stride * 3; i++)
            j->xyz[f * j->xyz_stride * 3 + i] = NAN;
    }
    bodies_work w = {0};
    if ((rc = work_alloc(&w, j, err)) != 0) {
        work_free(&w);
        return rc;
    }
    int order[ICV_MAX_BODIES], n_order = 0, points[ICV_MAX_BODIES], n_points = 0;
    for (int size = ICV_MAX_MARKERS; size >= 2; size--)
        for (int k = 0; k < nb; k++)
            if (exp->bodies[k].n_markers == size)
                order[n_order++] = k;
    for (int k = 0; k < nb; k++)
        if (exp->bodies[k].n_markers == 1)
            points[n_points++] = k;
    int *owner = NULL;
    if (n_order >= 2 && (rc = tracks_owned(j, &w, order, n_order, &owner, err)) != 0) {
        work_free(&w);
        return rc;
    }
    for (int q = 0; q < n_order && !rc; q++)
        rc = label_template_body(j, &w, order[q], owner, NULL, err);
    free(owner);
    icv_experiment_use_all_bodies(exp);
    j->marker_offset = 0;
    if (!rc && n_points > 0)
        rc = label_point_bodies(j, &w, points, n_points, err);
    work_free(&w);
    if (rc)
        return rc;
    job_track_sort_quality(j);
    double rss = 0;
    long n_rss = 0;
    for (long i = 0; i < j->nq; i++)
        if (!(j->qrows[i].flags & TRACK_FLAG_ONE_VIEW))
            rss += j->qrows[i].residual_px * j->qrows[i].residual_px, n_rss++;
    j->res.rows3d = j->F;
    j->res.residual_rms_px = n_rss ? sqrt(rss / n_rss) : 0;
    return 0;
}
