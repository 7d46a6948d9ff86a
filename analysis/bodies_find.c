/* bodies_find.c: every body-body impact in the tracks. Per pair, the gap between
 * the shapes in every frame where both bodies have a pose; a candidate at each of
 * its minima within 5 position sigmas plus the gap's larger rate of change to the
 * nearest posed frames times the frames to them (a fast pair may be seen a whole
 * frame's travel apart on either side of the contact, or more where the poses
 * stop as the bodies meet), one per run of such frames; an impact when the
 * relative normal velocity jumps by more than jump_sigmas of its sigma (else a
 * near miss). Each measured between the neighbouring candidates of either body. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bodies_internal.h"

typedef struct {
    int a, b, row;
    double gap;
} candidate;

static int by_row(const void *x, const void *y)
{
    const candidate *p = x, *q = y;
    return (p->row > q->row) - (p->row < q->row);
}

int analysis_body_impacts_measure(const analysis_body_track *bodies, int n_bodies, const icv_vec3 *g,
                                  const analysis_params *prm, analysis_bodies_result *res, icv_err *err)
{
    memset(res, 0, sizeof *res);
    res->min_gap = INFINITY;
    res->min_gap_t = NAN;
    if (n_bodies < 2 || n_bodies > ANALYSIS_MAX_BODIES)
        return icv_err_set(err, ICV_EINVAL, "body impacts: 2 to %d bodies, got %d", ANALYSIS_MAX_BODIES, n_bodies);
    int nf = bodies[0].tracks->n_frames;
    for (int k = 1; k < n_bodies; k++)
        if (bodies[k].tracks->n_frames != nf)
            return icv_err_set(err, ICV_EINVAL,
                               "body impacts: body %s has %d frames, %s %d: the tracks must share rows",
                               bodies[k].name ? bodies[k].name : "?", bodies[k].tracks->n_frames,
                               bodies[0].name ? bodies[0].name : "?", nf);
    body_pose *pose = malloc(sizeof *pose * (size_t)nf * (size_t)n_bodies);
    double *gap = malloc(sizeof *gap * (size_t)nf);
    candidate *cand = malloc(sizeof *cand * (size_t)nf);
    if (!pose || !gap || !cand) {
        free(pose), free(gap), free(cand);
        return icv_err_set(err, ICV_ENOMEM, "body impacts: out of memory for %d frames", nf);
    }
    for (int k = 0; k < n_bodies; k++) {
        bodies_poses(&bodies[k], prm, pose + (size_t)k * nf);
        int seen = 0;
        for (int i = 0; i < nf && !seen; i++)
            seen = pose[(size_t)k * nf + i].ok;
        if (!seen) {
            free(pose), free(gap), free(cand);
            return icv_err_set(err, ICV_ENOTFOUND,
                               "body %s is never seen: no frame of %d has the %d markers a pose needs",
                               bodies[k].name ? bodies[k].name : "?", nf,
                               bodies[k].body->tmpl.collinear || bodies[k].body->tmpl.point ? 2 : 3);
        }
    }
    int nc = 0;
    double sigma = prm->pos_sigma > 0 ? prm->pos_sigma : 3e-4;
    for (int a = 0; a < n_bodies; a++)
        for (int b = a + 1; b < n_bodies; b++) {
            const body_pose *pa = pose + (size_t)a * nf, *pb = pose + (size_t)b * nf;
            for (int i = 0; i < nf; i++) {
                gap[i] = NAN;
                if (!pa[i].ok || !pb[i].ok)
                    continue;
                analysis_shapes_gap sg;
                analysis_shapes_gap_at(&bodies[a].body->shape, pa[i].R, pa[i].p, &bodies[b].body->shape, pb[i].R,
                                       pb[i].p, &sg);
                gap[i] = sg.gap;
                if (sg.gap < res->min_gap) {
                    res->min_gap = sg.gap;
                    res->min_gap_t = bodies[0].tracks->t[i];
                }
            }
            /* runs of frames within reach; the smallest gap of each run */
            int best = -1;
            for (int i = 0; i <= nf; i++) {
                if (i < nf && !isfinite(gap[i]))
                    continue; /* a frame with no pose neither ends nor extends a run */
                int within = 0;
                if (i < nf && isfinite(gap[i])) {
                    /* the gap's rate to the nearest posed frames, times the frames to
                       them: one frame's travel, or as many as have no pose (markers
                       hidden as the bodies meet) */
                    int p = i - 1, q = i + 1;
                    while (p >= 0 && !isfinite(gap[p]))
                        p--;
                    while (q < nf && !isfinite(gap[q]))
                        q++;
                    double rate = 0;
                    int reach = 1;
                    if (p >= 0)
                        rate = fmax(rate, fabs(gap[i] - gap[p]) / (i - p)), reach = i - p > reach ? i - p : reach;
                    if (q < nf)
                        rate = fmax(rate, fabs(gap[q] - gap[i]) / (q - i)), reach = q - i > reach ? q - i : reach;
                    within = gap[i] < 5 * sigma + rate * reach;
                }
                if (within) {
                    if (best < 0 || gap[i] < gap[best])
                        best = i;
                } else if (best >= 0) {
                    if (nc < nf)
                        cand[nc++] = (candidate){a, b, best, gap[best]};
                    best = -1;
                }
            }
        }
    qsort(cand, (size_t)nc, sizeof *cand, by_row);
    int rc = 0, n_failed = 0;
    icv_err first_fail = {0};
    for (int c = 0; c < nc && res->n_impacts < ANALYSIS_MAX_IMPACTS; c++) {
        /* the neighbouring candidates of either body bound the windows */
        int lo = -1, hi = nf;
        for (int d = 0; d < nc; d++) {
            if (d == c)
                continue;
            int shares = cand[d].a == cand[c].a || cand[d].a == cand[c].b || cand[d].b == cand[c].a ||
                         cand[d].b == cand[c].b;
            if (!shares)
                continue;
            if (cand[d].row < cand[c].row && cand[d].row > lo)
                lo = cand[d].row;
            if (cand[d].row > cand[c].row && cand[d].row < hi)
                hi = cand[d].row;
        }
        analysis_body_impact im;
        icv_err e1 = {0};
        if (analysis_body_impact_measure(bodies, n_bodies, cand[c].a, cand[c].b, cand[c].row, lo, hi, g, prm, &im,
                                         &e1)) {
            icv_debug("body impacts: frame %d: bodies %d and %d: %s", bodies[0].tracks->frame[cand[c].row], cand[c].a,
                      cand[c].b, e1.msg);
            if (!n_failed++)
                first_fail = e1;
            res->n_unmeasured++;
            continue;
        }
        if (!(im.normal_jump > prm->jump_sigmas * im.normal_jump_sd)) {
            icv_debug("body impacts: frame %d: bodies %d and %d %.1f mm apart, a near miss: the normal velocity "
                      "changes by %.4g m/s +- %.2g",
                      bodies[0].tracks->frame[cand[c].row], cand[c].a, cand[c].b, 1e3 * cand[c].gap, im.normal_jump,
                      im.normal_jump_sd);
            res->n_near_misses++;
            continue;
        }
        res->impacts[res->n_impacts++] = im;
    }
    if (res->n_impacts == 0) {
        if (n_failed)
            rc = icv_err_set(err, first_fail.code ? first_fail.code : ICV_EINVAL, "%s", first_fail.msg);
        else
            rc = icv_err_set(err, ICV_ENOTFOUND,
                             "no body-body impact found: the smallest gap between two bodies is %.1f mm at t = %.6g s",
                             1e3 * res->min_gap, res->min_gap_t);
    }
    free(pose), free(gap), free(cand);
    return rc;
}
