/* bodies_find.c: every body-body impact in the tracks. Per pair, the gap between
 * the shapes in every frame where both bodies have a pose; a candidate at each of
 * its minima within 5 position sigmas plus the gap's larger rate of change to the
 * nearest posed frames times the frames to them (a fast pair may be seen a whole
 * frame's travel apart on either side of the contact, or more where the poses
 * stop as the bodies meet), one per run of such frames; an impact when the
 * relative normal velocity jumps by more than jump_sigmas of its sigma (else a
 * near miss). A run in which the bodies stay in contact (three or more frames at
 * its smallest gap) is an arrival at its first such frame, and no impact when that
 * is the pair's first posed frame (at rest together from the start). A pair impact
 * where a third body in contact changes velocity too (a row of balls) is several
 * bodies' impact, not measured as a pair (bodies_group.c), and so is a pair whose
 * run of frames takes in another pair's contact of bodies touching it (one event,
 * contacts_events): the row is measured once per event. Each measured between the
 * neighbouring candidates (other events) of the bodies in contact with it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bodies_internal.h"

typedef struct {
    int a, b, row;
    double gap;
    unsigned group; /* the bodies in contact at the row (bodies_contact_group) */
    int run0, run1; /* the run of frames within reach of contact around row */
    double closing; /* m per frame: how fast the gap fell into the run */
    int n_at;       /* frames of the run within 5 sigma of its smallest gap */
    int event;      /* the candidate leading its event (contacts_events) */
} candidate;

/* a run with this many frames within 5 sigma of its smallest gap is a lasting
   contact (a bounce passes its smallest gap in one or two frames) */
#define CONTACT_FRAMES 3

static void skip_note(analysis_bodies_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void skip_note(analysis_bodies_result *res, const char *fmt, ...)
{
    if (res->n_skipped < ANALYSIS_MAX_IMPACTS) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(res->skipped[res->n_skipped], sizeof res->skipped[0], fmt, ap);
        va_end(ap);
    }
    res->n_skipped++;
}

/* a contact of bodies a and b at t (s) that changed, or may have changed, their
   velocities: where each one's flight is cut for its surface impacts */
static void note_event(analysis_bodies_result *res, int a, int b, double t)
{
    int k[2] = {a, b};
    for (int i = 0; i < 2; i++)
        if (k[i] >= 0 && k[i] < ANALYSIS_MAX_BODIES && res->n_body_events[k[i]] < ANALYSIS_MAX_IMPACTS)
            res->body_event_t[k[i]][res->n_body_events[k[i]]++] = t;
}

static int by_row(const void *x, const void *y)
{
    const candidate *p = x, *q = y;
    return (p->row > q->row) - (p->row < q->row);
}

/* How fast the gap fell into the run of frames r0..r1 (m per frame): its largest
 * fall between posed frames from the one before the run to the run's end. */
static double closing_rate(const double *gap, int r0, int r1)
{
    double fall = 0;
    int prev = -1;
    for (int i = r0 - 1 > 0 ? r0 - 1 : 0; i <= r1; i++) {
        if (!isfinite(gap[i]))
            continue;
        if (prev >= 0)
            fall = fmax(fall, (gap[prev] - gap[i]) / (i - prev));
        prev = i;
    }
    return fall;
}

/* A row's pairs meeting within the same frames are one event, which no side fit can
 * tell apart. A pair closing fast pins its instant down best; a slow pair comes within
 * reach frames before it touches (the run's first frame at its smallest gap is its
 * row) and stays there. A faster contact f of another pair, with bodies in contact in
 * common and its row within (or next to) c's run, takes c into its event when c's row
 * lies in f's run as well (mutual), or when c closes at under half f's speed (its row
 * is then not where it touched). By closing speed, fastest first, a contact with such
 * a faster one joins the nearest lead whose row lies in its run, or else that faster
 * one's event; the rest lead events of their own. cand[].event: the lead's index; the
 * event's group is the union of its members'. */
/* f is another pair's contact, with bodies in contact in common with c's, its row
 * within (or next to) c's run */
static int in_run(const candidate *c, const candidate *f)
{
    return (c->a != f->a || c->b != f->b) && (c->group & f->group) && f->row >= c->run0 - 1 && f->row <= c->run1 + 1;
}

static int joins(const candidate *c, const candidate *f)
{
    return in_run(c, f) && ((c->row >= f->run0 - 1 && c->row <= f->run1 + 1) || c->closing < 0.5 * f->closing);
}

static void contacts_events(candidate *cand, int nc)
{
    int *order = nc > 0 ? malloc(sizeof *order * (size_t)nc) : NULL;
    if (!order) { /* none, or out of memory: each its own event */
        for (int c = 0; c < nc; c++)
            cand[c].event = c;
        return;
    }
    for (int c = 0; c < nc; c++)
        order[c] = c;
    for (int i = 1; i < nc; i++) /* by closing speed, fastest first (insertion: few) */
        for (int j = i; j > 0 && cand[order[j]].closing > cand[order[j - 1]].closing; j--) {
            int t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    for (int i = 0; i < nc; i++) { /* the leads */
        candidate *c = &cand[order[i]];
        c->event = order[i];
        for (int k = 0; k < i && c->event == order[i]; k++)
            if (joins(c, &cand[order[k]]))
                c->event = -1;
    }
    for (int i = 0; i < nc; i++) {
        candidate *c = &cand[order[i]];
        if (c->event >= 0)
            continue;
        int lead = -1, faster = -1;
        for (int k = 0; k < nc; k++) {
            const candidate *l = &cand[k];
            if (l->event != k || !in_run(c, l))
                continue;
            if (lead < 0 || abs(l->row - c->row) < abs(cand[lead].row - c->row))
                lead = k;
        }
        for (int k = 0; k < i && faster < 0; k++)
            if (joins(c, &cand[order[k]]))
                faster = order[k];
        c->event = lead >= 0 ? lead : cand[faster].event;
    }
    free(order);
    for (int c = 0; c < nc; c++)
        if (cand[c].event != c)
            cand[cand[c].event].group |= cand[c].group;
    for (int c = 0; c < nc; c++)
        cand[c].group = cand[cand[c].event].group;
}

/* every body's poses, pose[k * nf + i]; an error naming a body never posed */
static int all_poses(const analysis_body_track *bodies, int n_bodies, int nf, const analysis_params *prm,
                     body_pose *pose, icv_err *err)
{
    for (int k = 0; k < n_bodies; k++) {
        bodies_poses(&bodies[k], prm, pose + (size_t)k * nf);
        int seen = 0;
        for (int i = 0; i < nf && !seen; i++)
            seen = pose[(size_t)k * nf + i].ok;
        if (!seen)
            return icv_err_set(err, ICV_ENOTFOUND,
                               "body %s is never seen: no frame of %d has the %d markers a pose needs",
                               bodies[k].name ? bodies[k].name : "?", nf,
                               bodies[k].body->tmpl.collinear || bodies[k].body->tmpl.point ? 2 : 3);
    }
    return 0;
}

/* Frame i (gap finite) within reach of contact: the gap's rate to the nearest posed
 * frames, times the frames to them: one frame's travel, or as many as have no pose
 * (markers hidden as the bodies meet). */
static int within_reach(const double *gap, int nf, int i, double sigma)
{
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
    return gap[i] < 5 * sigma + rate * reach;
}

/* One pair's gap in every frame both are posed (gap[], NAN elsewhere; the smallest into
 * res), its frames within reach (wi[]), and a candidate per run of them appended to
 * cand[*nc]: a bounce at the run's smallest gap, a lasting contact at its arrival, and
 * none for bodies touching from their first posed frame (at rest together). */
static void pair_candidates(const analysis_body_track *bodies, int a, int b, const body_pose *pa,
                            const body_pose *pb, int nf, double sigma, double *gap, unsigned char *wi, candidate *cand,
                            int *nc, analysis_bodies_result *res)
{
    int first_posed = -1;
    for (int i = 0; i < nf; i++) {
        gap[i] = NAN;
        if (!pa[i].ok || !pb[i].ok)
            continue;
        analysis_shapes_gap sg;
        analysis_shapes_gap_at(&bodies[a].body->shape, pa[i].R, pa[i].p, &bodies[b].body->shape, pb[i].R, pb[i].p,
                               &sg);
        gap[i] = sg.gap;
        if (first_posed < 0)
            first_posed = i;
        if (sg.gap < res->min_gap) {
            res->min_gap = sg.gap;
            res->min_gap_t = bodies[0].tracks->t[i];
        }
    }
    int best = -1, run0 = -1;
    for (int i = 0; i <= nf; i++) {
        if (i < nf && !isfinite(gap[i]))
            continue; /* a frame with no pose neither ends nor extends a run */
        int within = i < nf && within_reach(gap, nf, i, sigma);
        if (i < nf)
            wi[i] = (unsigned char)within;
        if (within) {
            if (best < 0)
                run0 = i;
            if (best < 0 || gap[i] < gap[best])
                best = i;
            continue;
        }
        if (best < 0)
            continue;
        int n_at = 0, arrive = -1;
        for (int k = run0; k < i; k++)
            if (isfinite(gap[k]) && gap[k] <= gap[best] + 5 * sigma) {
                n_at++;
                if (arrive < 0)
                    arrive = k;
            }
        double closing = closing_rate(gap, run0, i - 1);
        if (n_at >= CONTACT_FRAMES && arrive == first_posed) {
            icv_debug("body impacts: bodies %d and %d in contact from frame %d on: at rest together, not an impact", a,
                      b, bodies[0].tracks->frame[arrive]);
            res->n_resting++;
        } else if (n_at < CONTACT_FRAMES && !(closing > sigma)) {
            /* bodies that did not approach cannot collide: the gap dipped back within
               reach as they parted (noise after a bounce splits its run in two, and a
               candidate one frame after the bounce would cut its post side to a frame) */
            icv_debug("body impacts: bodies %d and %d within reach at frame %d, but the gap fell into it by %.3g mm a "
                      "frame at most (sigma %.3g mm): not approaching, no candidate",
                      a, b, bodies[0].tracks->frame[best], 1e3 * closing, 1e3 * sigma);
        } else if (*nc < nf) {
            int row = n_at >= CONTACT_FRAMES ? arrive : best;
            /* group and run: below, from the flags of every pair */
            cand[(*nc)++] =
                (candidate){.a = a, .b = b, .row = row, .gap = gap[row], .closing = closing, .n_at = n_at};
        }
        best = -1;
    }
}

/* each candidate's bodies in contact and its run of frames within reach */
static void candidates_runs(candidate *cand, int nc, const unsigned char *within_all, int n_bodies, int nf)
{
    for (int c = 0; c < nc; c++) {
        candidate *q = &cand[c];
        q->group = bodies_contact_group(within_all, n_bodies, nf, q->a, q->b, q->row);
        const unsigned char *w = within_all + (size_t)bodies_pair_index(q->a, q->b, n_bodies) * (size_t)nf;
        for (q->run0 = q->row; q->run0 > 0 && w[q->run0 - 1]; q->run0--) {
        }
        for (q->run1 = q->row; q->run1 + 1 < nf && w[q->run1 + 1]; q->run1++) {
        }
    }
}

/* the rows of the neighbouring candidates (other events) of the bodies in contact,
 * which bound candidate c's windows: lo -1 and hi nf where there are none */
static void candidate_bounds(const candidate *cand, int nc, int c, int nf, int *lo, int *hi)
{
    *lo = -1, *hi = nf;
    for (int d = 0; d < nc; d++) {
        if (cand[d].event == cand[c].event || !(cand[d].group & cand[c].group))
            continue;
        if (cand[d].row < cand[c].row && cand[d].row > *lo)
            *lo = cand[d].row;
        if (cand[d].row > cand[c].row && cand[d].row < *hi)
            *hi = cand[d].row;
    }
}

/* the window bounds lo, hi (rows, exclusive) also kept off each body in the group's
 * own instants (bounds: n[k] instants t[k][] per body k, s; NULL none) by one row
 * interval: a body's impact with the surface ends its flight as another body's does */
static void instant_bounds(const analysis_body_track *bodies, int n_bodies, const analysis_body_bounds *bounds,
                           unsigned group, int row, int *lo, int *hi)
{
    const analysis_tracks *tr = bodies[0].tracks;
    if (!bounds || tr->n_frames < 2)
        return;
    double guard = analysis_tracks_row_interval(tr), t0 = tr->t[row];
    for (int k = 0; k < n_bodies && k < ANALYSIS_MAX_BODIES; k++) {
        if (!(group & 1u << k))
            continue;
        for (int i = 0; i < bounds->n[k]; i++) {
            double tb = bounds->t[k][i];
            if (tb < t0)
                for (int r = row; r > *lo; r--)
                    if (tr->t[r] < tb + guard) {
                        *lo = r;
                        break;
                    }
            if (tb > t0)
                for (int r = row; r < *hi; r++)
                    if (tr->t[r] > tb - guard) {
                        *hi = r;
                        break;
                    }
        }
    }
}

static const char *body_name(const analysis_body_track *b)
{
    return b->name ? b->name : "?";
}

/* the third bodies in contact at candidate q whose velocity changes too (or cannot be
 * told): their names into part; their number */
static int third_bodies(const analysis_body_track *bodies, int n_bodies, const candidate *q, int lo, int hi,
                        const icv_vec3 *g, const analysis_params *prm, char *part, size_t n_part_buf)
{
    int n_part = 0;
    size_t used = 0;
    part[0] = 0;
    for (int x = 0; x < n_bodies; x++) {
        if (x == q->a || x == q->b || !(q->group & 1u << x))
            continue;
        double j, jsd; /* not reported: a swinging body's fits need not be its motion */
        int tp = bodies_takes_part(&bodies[x], q->row, lo, hi, g, prm, &j, &jsd);
        if (tp == 0)
            continue;
        n_part++;
        int w = snprintf(part + used, n_part_buf - used, "%s%s%s", used ? ", " : "", body_name(&bodies[x]),
                         tp > 0 ? "" : " (too few poses to tell)");
        if (w > 0 && (size_t)w < n_part_buf - used)
            used += (size_t)w;
    }
    return n_part;
}

/* Candidate c with more bodies in contact or more contacts in its event: the row's
 * momentum measured once per event at its lead's instant, and the pair skipped with
 * a note; 0 when c is a pair's impact alone. */
static int several_bodies(const analysis_body_track *bodies, int n_bodies, const candidate *cand, int nc, int c,
                          int lo, int hi, const icv_vec3 *g, const analysis_params *prm, analysis_bodies_result *res)
{
    char part[ICV_ERR_MSG_MAX / 2];
    int n_part = third_bodies(bodies, n_bodies, &cand[c], lo, hi, g, prm, part, sizeof part);
    int others = 0; /* another pair of the event: a body in contact with both */
    for (int d = 0; d < nc; d++)
        others += d != c && cand[d].event == cand[c].event && (cand[d].a != cand[c].a || cand[d].b != cand[c].b);
    if (!n_part && !others)
        return 0;
    const char *na = body_name(&bodies[cand[c].a]), *nb = body_name(&bodies[cand[c].b]);
    int fr = bodies[0].tracks->frame[cand[c].row];
    double tr = bodies[0].tracks->t[cand[c].row];
    res->n_several++;
    const candidate *ld = &cand[cand[c].event];
    int seen = 0;
    for (int d = 0; d < c; d++)
        seen |= cand[d].event == cand[c].event;
    icv_err e2 = {0};
    if (!seen && res->n_rows < ANALYSIS_MAX_ROWS &&
        analysis_row_impact_measure(bodies, n_bodies, ld->group, ld->a, ld->b, ld->row, lo, hi, g, prm,
                                    &res->rows[res->n_rows], &e2) == 0)
        res->n_rows++;
    else if (!seen)
        icv_debug("body impacts: frame %d: the row of %s-%s not measured: %s", fr, na, nb, e2.msg);
    if (n_part)
        skip_note(res,
                  "%s-%s at frame %d (t %.4g s): not measured as a pair: %d more bodies in contact change "
                  "velocity there too, %s; each body's momentum change is then the sum of its neighbours' "
                  "impulses, so the pair's Newton's ratio and impulse are not in the states before and after",
                  na, nb, fr, tr, n_part, part);
    else
        skip_note(res,
                  "%s-%s at frame %d (t %.4g s): not measured as a pair: %d more contacts of these bodies' "
                  "row fall within the same frames, so each body's momentum change there is the sum of "
                  "several impulses",
                  na, nb, fr, tr, others);
    return 1;
}

int analysis_body_impacts_measure(const analysis_body_track *bodies, int n_bodies, const icv_vec3 *g,
                                  const analysis_params *prm, analysis_bodies_result *res, icv_err *err)
{
    return analysis_body_impacts_measure_bounded(bodies, n_bodies, g, prm, NULL, res, err);
}

int analysis_body_impacts_measure_bounded(const analysis_body_track *bodies, int n_bodies, const icv_vec3 *g,
                                          const analysis_params *prm, const analysis_body_bounds *bounds,
                                          analysis_bodies_result *res, icv_err *err)
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
                               body_name(&bodies[k]), bodies[k].tracks->n_frames, body_name(&bodies[0]), nf);
    body_pose *pose = malloc(sizeof *pose * (size_t)nf * (size_t)n_bodies);
    double *gap = malloc(sizeof *gap * (size_t)nf);
    candidate *cand = malloc(sizeof *cand * (size_t)nf);
    int n_pairs = n_bodies * (n_bodies - 1) / 2;
    unsigned char *within_all = calloc((size_t)n_pairs * (size_t)nf, 1);
    int rc = 0;
    if (!pose || !gap || !cand || !within_all) {
        rc = icv_err_set(err, ICV_ENOMEM, "body impacts: out of memory for %d frames", nf);
        goto done;
    }
    if ((rc = all_poses(bodies, n_bodies, nf, prm, pose, err)))
        goto done;
    int nc = 0;
    double sigma = prm->pos_sigma > 0 ? prm->pos_sigma : 3e-4;
    for (int a = 0; a < n_bodies; a++)
        for (int b = a + 1; b < n_bodies; b++)
            pair_candidates(bodies, a, b, pose + (size_t)a * nf, pose + (size_t)b * nf, nf, sigma, gap,
                            within_all + (size_t)bodies_pair_index(a, b, n_bodies) * (size_t)nf, cand, &nc, res);
    qsort(cand, (size_t)nc, sizeof *cand, by_row);
    candidates_runs(cand, nc, within_all, n_bodies, nf);
    contacts_events(cand, nc);
    for (int c = 0; c < nc; c++)
        icv_debug("body impacts: contact %d-%d at frame %d (frames %d-%d within reach, %d at the smallest gap, closing "
                  "%.3g mm a frame): event of %d-%d at frame %d",
                  cand[c].a, cand[c].b, bodies[0].tracks->frame[cand[c].row], bodies[0].tracks->frame[cand[c].run0],
                  bodies[0].tracks->frame[cand[c].run1], cand[c].n_at, 1e3 * cand[c].closing, cand[cand[c].event].a,
                  cand[cand[c].event].b, bodies[0].tracks->frame[cand[cand[c].event].row]);
    int n_failed = 0;
    icv_err first_fail = {0};
    for (int c = 0; c < nc && res->n_impacts < ANALYSIS_MAX_IMPACTS; c++) {
        int lo, hi;
        candidate_bounds(cand, nc, c, nf, &lo, &hi);
        instant_bounds(bodies, n_bodies, bounds, cand[c].group | 1u << cand[c].a | 1u << cand[c].b, cand[c].row, &lo,
                       &hi);
        if (several_bodies(bodies, n_bodies, cand, nc, c, lo, hi, g, prm, res)) {
            note_event(res, cand[c].a, cand[c].b, bodies[0].tracks->t[cand[c].row]);
            continue;
        }
        int fr = bodies[0].tracks->frame[cand[c].row];
        analysis_body_impact im;
        icv_err e1 = {0};
        if (analysis_body_impact_measure(bodies, n_bodies, cand[c].a, cand[c].b, cand[c].row, lo, hi, g, prm, &im,
                                         &e1)) {
            icv_debug("body impacts: frame %d: bodies %d and %d: %s", fr, cand[c].a, cand[c].b, e1.msg);
            if (!n_failed++)
                first_fail = e1;
            res->n_unmeasured++;
            note_event(res, cand[c].a, cand[c].b, bodies[0].tracks->t[cand[c].row]);
            skip_note(res, "%s-%s at frame %d (t %.4g s): not measured: %s", body_name(&bodies[cand[c].a]),
                      body_name(&bodies[cand[c].b]), fr, bodies[0].tracks->t[cand[c].row], e1.msg);
            continue;
        }
        if (!(im.normal_jump > prm->jump_sigmas * im.normal_jump_sd)) {
            icv_debug("body impacts: frame %d: bodies %d and %d %.1f mm apart, a near miss: the normal velocity "
                      "changes by %.4g m/s +- %.2g",
                      fr, cand[c].a, cand[c].b, 1e3 * cand[c].gap, im.normal_jump, im.normal_jump_sd);
            res->n_near_misses++;
            continue;
        }
        note_event(res, cand[c].a, cand[c].b, im.t);
        res->impacts[res->n_impacts++] = im;
    }
    if (res->n_impacts == 0 && res->n_several == 0) {
        if (n_failed)
            rc = icv_err_set(err, first_fail.code ? first_fail.code : ICV_EINVAL, "%s", first_fail.msg);
        else
            rc = icv_err_set(err, ICV_ENOTFOUND,
                             "no body-body impact found: the smallest gap between two bodies is %.1f mm at t = %.6g s",
                             1e3 * res->min_gap, res->min_gap_t);
    }
done:
    free(pose), free(gap), free(cand), free(within_all);
    return rc;
}
