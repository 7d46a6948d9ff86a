/* track_carry_labels.c: after the identity's pass, the labels a 2D track carries from
 * the frames the identity labelled it into the frames it left unlabelled (the identity
 * labels a partial set only once the frames before settle it), checked against the
 * template's distances or, with rays, by the ray pose. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_track_internal.h"

/* The one label each 2D track carries over the frames the identity labelled it:
 * carried[base[c] + id], -1 when none or more than one (a track that changed marker
 * lends nothing). */
static void carried_labels(const job_track *j, const int *base, int *carried)
{
    for (int c = 0; c < j->exp.n_cameras; c++) {
        const job_track_camera *cm = &j->cams[c];
        int *cr = carried + base[c];
        for (int id = 0; id < cm->n_ids; id++)
            cr[id] = -2; /* not labelled yet */
        for (long g = 0; g < cm->frames; g++)
            for (int id = 0; id < cm->n_ids; id++) {
                int l = cm->label[g * cm->n_ids + id];
                if (l >= 0)
                    cr[id] = cr[id] == -2 || cr[id] == l ? l : -3;
            }
        for (int id = 0; id < cm->n_ids; id++)
            cr[id] = cr[id] == -2 ? -1 : cr[id] == -3 ? -2 : cr[id];
    }
}

/* The marker candidate c's 2D tracks all carry, -1 when one of them carries none or
 * they disagree. */
static int candidate_carried(const track_candidate *c, const int *base, const int *carried, int nm)
{
    int l = -1;
    for (int w = 0; w < c->nv; w++) {
        if (c->id[w] < 0)
            continue;
        int k = carried[base[c->cam[w]] + c->id[w]];
        if (k < 0 || (l >= 0 && k != l))
            return -1;
        l = k;
    }
    return l < nm ? l : -1;
}

/* The one marker candidate i of frame f can be (not otherwise in the frame) at the
 * template's distances from the frame's points that are labelled or carry a label
 * (lab_any), one at least; -1 none or more than one, -2 no such point. */
static int candidate_fits_one(const job_track *j, long f, int i, const int *lab_any)
{
    const icv_experiment *exp = &j->exp;
    const track_candidate *cf = j->cand + f * TRACK_MAX_CAND;
    int present[ICV_MAX_MARKERS] = {0}, n_ref = 0, found = -1;
    for (int k = 0; k < j->cand_n[f]; k++)
        if (lab_any[k] >= 0)
            present[lab_any[k]] = 1, n_ref++;
    if (!n_ref)
        return -2;
    for (int m = 0; m < exp->n_markers; m++) {
        if (present[m])
            continue;
        int ok = 1;
        for (int k = 0; k < j->cand_n[f] && ok; k++) {
            if (lab_any[k] < 0)
                continue;
            double D = icv_v3_norm(icv_v3_sub(exp->markers[m], exp->markers[lab_any[k]]));
            double d = icv_v3_norm(icv_v3_sub(cf[i].X, cf[k].X));
            ok = fabs(d - D) <= j->opt.template_tol_m + j->opt.template_tol_rel * D;
        }
        if (ok && found >= 0)
            return -1;
        if (ok)
            found = m;
    }
    return found;
}

/* A 2D track never labelled (carried -1) whose points, in the frames beside labelled
 * ones, sit where one marker alone of the template can be, in CARRY_VOTE_SHARE of
 * those frames and CARRY_VOTE_MIN of them at least, carries that marker: a marker the
 * identity never labelled because too few of its frames had enough points (its track
 * is followed into frames where the template then checks it). */
#define CARRY_VOTE_MIN 3
#define CARRY_VOTE_SHARE 0.8
static void carried_by_template(const job_track *j, const int *base, int *carried, const int *cand_lab, int *votes)
{
    int nm = j->exp.n_markers, n_tr = base[j->exp.n_cameras];
    for (long i = 0; i < (long)n_tr * (nm + 1); i++)
        votes[i] = 0;
    int lab_any[TRACK_MAX_CAND];
    for (long f = 0; f < j->F; f++) {
        const track_candidate *cf = j->cand + f * TRACK_MAX_CAND;
        const int *lab = cand_lab + f * TRACK_MAX_CAND;
        for (int i = 0; i < j->cand_n[f]; i++)
            lab_any[i] = lab[i] >= 0 ? lab[i] : candidate_carried(&cf[i], base, carried, nm);
        for (int i = 0; i < j->cand_n[f]; i++) {
            if (lab_any[i] >= 0)
                continue;
            int m = candidate_fits_one(j, f, i, lab_any);
            if (m == -2)
                continue;
            for (int w = 0; w < cf[i].nv; w++) {
                int t = cf[i].id[w] >= 0 ? base[cf[i].cam[w]] + cf[i].id[w] : -1;
                if (t >= 0 && carried[t] == -1)
                    votes[(long)t * (nm + 1) + (m >= 0 ? m : nm)]++;
            }
        }
    }
    for (int t = 0; t < n_tr; t++) {
        const int *v = votes + (long)t * (nm + 1);
        int sum = 0, best = 0;
        for (int m = 0; m <= nm; m++)
            sum += v[m];
        for (int m = 1; m < nm; m++)
            best = v[m] > v[best] ? m : best;
        if (carried[t] == -1 && v[best] >= CARRY_VOTE_MIN && v[best] >= CARRY_VOTE_SHARE * sum)
            carried[t] = best;
    }
}

/* Whether the positions P of the markers mk (n of them) keep the template's distances
 * within the identity's tolerance, every pair with one of the new ones (is_new). */
static int carried_fit(const job_track *j, const icv_vec3 *P, const int *mk, const int *is_new, int n)
{
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (!is_new[a] && !is_new[b])
                continue;
            double D = icv_v3_norm(icv_v3_sub(j->exp.markers[mk[a]], j->exp.markers[mk[b]]));
            double d = icv_v3_norm(icv_v3_sub(P[a], P[b]));
            if (!(fabs(d - D) <= j->opt.template_tol_m + j->opt.template_tol_rel * D))
                return 0;
        }
    return 1;
}

/* Frame f's candidates the identity left unlabelled whose 2D tracks carry one marker
 * elsewhere in the clip (the identity labels a partial set only once the frames before
 * settle it, so a track's earlier frames stay unlabelled): lab[i] set to that marker
 * and is_new[i] to 1 when no other point of the frame is it and the frame's labelled
 * points then keep the template's distances. Returns the points labelled so; *n_lab
 * the frame's labelled points with them. */
static int carry_choose(job_track *j, long f, const int *base, const int *carried, int *lab, int *is_new, int *n_lab)
{
    const icv_experiment *exp = &j->exp;
    int nm = exp->n_markers, n_cand = j->cand_n[f];
    const track_candidate *cf = j->cand + f * TRACK_MAX_CAND;
    int claim[ICV_MAX_MARKERS] = {0}, carry[TRACK_MAX_CAND], n_new = 0;
    for (int i = 0; i < n_cand; i++) {
        is_new[i] = 0;
        if (lab[i] >= 0)
            claim[lab[i]] += 2; /* the identity's: never displaced */
    }
    for (int i = 0; i < n_cand; i++) {
        carry[i] = lab[i] >= 0 ? -1 : candidate_carried(&cf[i], base, carried, nm);
        if (carry[i] >= 0 && j->band.on && j->opt.band_correction && j->band.band[carry[i]])
            carry[i] = -1; /* a band's point needs the rod's axis of its time */
        if (carry[i] >= 0)
            claim[carry[i]]++, n_new++;
    }
    *n_lab = 0;
    if (!n_new)
        return 0;
    icv_vec3 P[TRACK_MAX_CAND];
    int mk[TRACK_MAX_CAND], fresh[TRACK_MAX_CAND], n = 0;
    n_new = 0;
    for (int i = 0; i < n_cand; i++) {
        int m = lab[i] >= 0 ? lab[i] : carry[i];
        if (m < 0 || (lab[i] < 0 && claim[m] != 1))
            continue;
        track_candidate c = cf[i];
        if (exp->n_cameras == 1 && lab[i] < 0 && exp->markers[m].z != 0)
            job_track_planar_marker_plane(&j->cal, exp->markers[m].z, &c);
        P[n] = c.X, mk[n] = m, fresh[n++] = lab[i] < 0;
        n_new += lab[i] < 0;
    }
    if (!n_new || !carried_fit(j, P, mk, fresh, n))
        return 0;
    for (int i = 0; i < n_cand; i++)
        if (lab[i] < 0 && carry[i] >= 0 && claim[carry[i]] == 1)
            lab[i] = carry[i], is_new[i] = 1;
    *n_lab = n;
    return n_new;
}

/* The points carry_choose labelled (is_new) into tracks3d's row, its quality rows and
 * their 2D tracks' labels. */
static void carry_store(job_track *j, long f, const int *lab, const int *is_new, double *rss)
{
    const icv_experiment *exp = &j->exp;
    track_candidate *cf = j->cand + f * TRACK_MAX_CAND;
    double *xyz_f = j->xyz + (size_t)f * (size_t)j->xyz_stride * 3;
    double t = j->t3[f];
    for (int i = 0; i < j->cand_n[f]; i++) {
        if (!is_new[i])
            continue;
        int m = lab[i];
        if (exp->n_cameras == 1 && exp->markers[m].z != 0)
            job_track_planar_marker_plane(&j->cal, exp->markers[m].z, &cf[i]);
        for (int w = 0; w < cf[i].nv; w++) {
            job_track_camera *cm = &j->cams[cf[i].cam[w]];
            long g = f;
            if (cf[i].cam[w] >= 1)
                g = lround((t + cm->off_s - cm->tcam[0]) * cm->pc.fps);
            if (cf[i].id[w] >= 0 && g >= 0 && g < cm->frames)
                cm->label[g * cm->n_ids + cf[i].id[w]] = m;
        }
        double *o = xyz_f + (size_t)m * 3;
        o[0] = cf[i].X.x, o[1] = cf[i].X.y, o[2] = cf[i].X.z;
        track_quality3d *q = &j->qrows[j->nq++];
        q->frame = f;
        q->time_s = t;
        q->marker = m;
        q->residual_px = cf[i].residual;
        memcpy(q->cov, cf[i].cov, sizeof q->cov);
        q->flags = cf[i].flags;
        j->res.points3d++;
        j->res.points3d_by_views[cf[i].nv < ICV_MAX_CAMERAS ? cf[i].nv : ICV_MAX_CAMERAS]++;
        j->res.interpolated3d += (cf[i].flags & TRACK_FLAG_INTERPOLATED) != 0;
        j->res.extrapolated3d += (cf[i].flags & TRACK_FLAG_EXTRAPOLATED) != 0;
        *rss += cf[i].residual * cf[i].residual;
    }
}

/* The ray pose (job_track_ray_pose_frame) of frame f with its labels lab; returns the positions
 * it added. */
static int carry_ray_pose(job_track *j, long f, const int *lab)
{
    const icv_experiment *exp = &j->exp;
    track_pose prior;
    long prior_f = -10; /* frames labelled out of order: no previous pose */
    icv_vec3 X[TRACK_MAX_CAND];
    const track_candidate *cf = j->cand + f * TRACK_MAX_CAND;
    for (int i = 0; i < j->cand_n[f]; i++)
        X[i] = cf[i].X;
    double *xyz_f = j->xyz + (size_t)f * (size_t)j->xyz_stride * 3;
    int r = job_track_ray_pose_frame(j->cams, j->ident, exp->markers, exp->n_markers, 0, X, cf, lab, j->cand_n[f],
                                     f, j->t3[f], j->rays + f * TRACK_IDENTITY_MAX_RAYS,
                                     j->rays_n[f] + j->rays_extra[f], j->res.sigma_scale, &prior, &prior_f, xyz_f,
                                     j->qrows, &j->nq);
    j->res.one_view3d += r;
    j->res.points3d += r;
    return r;
}

/* After the identity's pass: the labels the 2D tracks carry (carry_choose). A frame
 * keeps them when two points at least are labelled, or, with rays, when the ray pose
 * then places a marker one camera alone sees (its fit is the check a lone point
 * lacks). One body only (marker offset 0). */
int job_track_carry_labels(job_track *j, const int *cand_lab, double *rss, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    int nc = exp->n_cameras, base[ICV_MAX_CAMERAS + 1];
    base[0] = 0;
    for (int c = 0; c < nc; c++)
        base[c + 1] = base[c] + j->cams[c].n_ids;
    int *carried = malloc(sizeof *carried * (size_t)(base[nc] ? base[nc] : 1));
    if (!carried)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    carried_labels(j, base, carried);
    int *votes = malloc(sizeof *votes * (size_t)(base[nc] + 1) * (size_t)(exp->n_markers + 1));
    if (!votes) {
        free(carried);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    carried_by_template(j, base, carried, cand_lab, votes);
    free(votes);
    long added = 0, by_rays = 0;
    int lab[TRACK_MAX_CAND], is_new[TRACK_MAX_CAND], n_lab;
    int rays = nc >= 2 && j->opt.ray_pose;
    for (long f = 0; f < j->F; f++) {
        memcpy(lab, cand_lab + f * TRACK_MAX_CAND, sizeof *lab * (size_t)j->cand_n[f]);
        int k = carry_choose(j, f, base, carried, lab, is_new, &n_lab);
        if (!k)
            continue;
        if (n_lab >= 2) {
            carry_store(j, f, lab, is_new, rss);
            added += k;
            if (rays)
                by_rays += carry_ray_pose(j, f, lab);
        } else if (rays) {
            int r = carry_ray_pose(j, f, lab);
            if (r > 0) {
                carry_store(j, f, lab, is_new, rss);
                added += k;
                by_rays += r;
            }
        }
    }
    free(carried);
    if (added) {
        job_track_sort_quality(j);
        icv_debug("3D: %ld positions labelled by the marker their 2D tracks carry, %ld more on rays", added, by_rays);
    }
    return 0;
}
