/* unposed_impact.c: where an impact probably lies in frames without a pose, said
 * and never measured. A stretch of frames where too few markers were seen has no
 * pose; an impact inside it leaves no evidence in the poses (no side on one of its
 * sides), so the finder cannot measure it. The free flight beside the stretch,
 * carried on with gravity (the side's own ballistic and rotation fit), tells where
 * the body's lowest point would reach the surface: when that falls inside the
 * stretch, an impact there is probable and is reported, with its extrapolated
 * instant, as not measured. */
#include <math.h>
#include <stdio.h>

#include "analysis/analysis_internal.h"

/* The instant where the side's extrapolated gap first reaches 0 going from t_from to
 * t_to (either direction): steps of `step` s find the first bracket (the first
 * crossing, not any root in [t_from, t_to]), Brent's method (GSL, through
 * analysis_contact_instant, to 1e-10 s) the root in it; NAN when it does not cross
 * within [t_from, t_to] or the gap at t_from is not above 0. */
static double first_crossing(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t_from,
                             double t_to, double step)
{
    double dir = t_to >= t_from ? 1 : -1, a = t_from;
    if (!(analysis_contact_gap(b, s, g, a) > 0))
        return NAN;
    for (int k = 0; k < 100000; k++) {
        double c = a + dir * step;
        if (dir * (c - t_to) > 0)
            c = t_to;
        if (!(analysis_contact_gap(b, s, g, c) > 0)) /* gap(a) > 0 >= gap(c) */
            return analysis_contact_instant(b, s, g, a, fmin(a, c), fmax(a, c));
        if (c == t_to)
            break;
        a = c;
    }
    return NAN;
}

/* One side's flight beside the stretch: the posed frames nearest it (at most
 * max_side, in flight: a contact frame ends it, so does a cut; none past a measured
 * impact), fitted
 * and carried towards the stretch. Fills *t and *t_sd when it meets the surface
 * within [lo, hi] widened by 3 of its sigmas; 0 when it does. */
static int side_meets(const posed_frame *pf, int n, const unsigned char *contact, const unsigned char *cut, int edge,
                      int post, double t_bound,
                      const analysis_body *b, const icv_vec3 *g, double com_sigma, double band, int min_side,
                      int max_side, double lo, double hi, int lo_hard, int hi_hard, double period, double *t,
                      double *t_sd)
{
    int a = edge, z = edge, cnt = 0;
    /* a body within the contact band at the side's edge may be resting, rocking or
       sliding there: no flight to carry on */
    if (!(pf[edge].gap > band))
        return -1;
    for (int i = edge; i >= 0 && i < n && cnt < max_side; i += post ? 1 : -1) {
        if (contact[i] || (post ? pf[i].t >= t_bound : pf[i].t <= t_bound))
            break;
        /* a cut begins a flight at pf[i]: the frames before it are another one's */
        if (post && i != edge && cut && cut[i])
            break;
        z = i;
        cnt++;
        if (!post && cut && cut[i])
            break;
    }
    if (cnt < min_side)
        return -1;
    int first = post ? a : z, last = post ? z : a;
    side_fit s = {0};
    icv_err e = {0};
    if (analysis_side_fit(pf, first, last, pf[edge].t, g, b, com_sigma, post, &s, &e))
        return -1;
    /* the search runs over the stretch and well past it: a crossing beyond the
       widened bounds is reported as none */
    double span = hi - lo + 4 * period;
    double tc = post ? first_crossing(b, &s, g, pf[edge].t, lo - span, 0.25 * period)
                     : first_crossing(b, &s, g, pf[edge].t, hi + span, 0.25 * period);
    if (isnan(tc))
        return -1;
    /* the extrapolated height's 1-sigma: the centre's height and vertical velocity
       carried over the lever (their correlation left out: wider, not narrower), and
       the attitude's through the lowest point */
    double dt = tc - s.t_ref;
    double h_sd = hypot(hypot(s.p_sd.y, s.v_sd.y * dt), analysis_contact_gap_attitude_sd(b, &s, g, tc));
    double rate = fabs(analysis_contact_rate(b, &s, g, tc, 1e-3 * period));
    double sd = rate > 0 ? h_sd / rate : INFINITY;
    /* an instant whose 3 sigmas span more than the frames it may lie in does not
       say that it lies in them */
    if (!(3 * sd <= hi - lo) || !(tc >= lo - (lo_hard ? 0 : 3 * sd) && tc <= hi + (hi_hard ? 0 : 3 * sd)))
        return -1;
    *t = tc;
    *t_sd = sd;
    return 0;
}

int analysis_unposed_impacts(const analysis_tracks *tr, const analysis_body *b, const posed_frame *pf, int n,
                             const unsigned char *contact, const unsigned char *cut, const unsigned char *posed_row,
                             const analysis_result *res, double sigma, double com_sigma, int min_side, int max_side, double period,
                             unposed_impact *out, int max)
{
    int k = 0;
    for (int r = 0; r < tr->n_frames && k < max;) {
        if (posed_row[r]) {
            r++;
            continue;
        }
        int r0 = r;
        while (r < tr->n_frames && !posed_row[r])
            r++;
        int r1 = r - 1;
        if (tr->frame[r1] - tr->frame[r0] + 1 < UNPOSED_MIN_FRAMES)
            continue;
        /* the posed frames of the fits beside the stretch: the last before, the first
           after, each within UNPOSED_MIN_FRAMES frames of it (further, the frames
           between were posed but left out: held, outliers, and the flight fitted is
           not the one beside the stretch) */
        int ib = -1, ia = -1;
        for (int i = 0; i < n; i++) {
            if (pf[i].row < r0)
                ib = i;
            if (pf[i].row > r1 && ia < 0)
                ia = i;
        }
        if (ib >= 0 && tr->frame[r0] - tr->frame[pf[ib].row] > UNPOSED_MIN_FRAMES)
            ib = -1;
        if (ia >= 0 && tr->frame[pf[ia].row] - tr->frame[r1] > UNPOSED_MIN_FRAMES)
            ia = -1;
        /* where the impact may lie: between the posed frames around the stretch (an
           impact just past its edge frame is still unseen), widened by 3 of the
           instant's sigmas; at the clip's first or last frame, no wider: an impact
           outside the clip is none of its */
        int lo_hard = r0 == 0, hi_hard = r1 == tr->n_frames - 1;
        double lo = lo_hard ? tr->t[0] : tr->t[r0 - 1], hi = hi_hard ? tr->t[r1] : tr->t[r1 + 1];
        double before = -INFINITY, after = INFINITY; /* the measured impacts around it */
        int measured_inside = 0;
        for (int i = 0; i < res->n_impacts; i++) {
            double ti = res->impacts[i].t;
            if (ti > lo - period && ti < hi + period)
                measured_inside = 1;
            else if (ti <= lo)
                before = fmax(before, ti);
            else
                after = fmin(after, ti);
        }
        if (measured_inside)
            continue;
        unposed_impact u = {tr->frame[r0], tr->frame[r1], tr->t[r0], tr->t[r1], NAN, NAN, NAN, NAN};
        if (ib >= 0)
            side_meets(pf, n, contact, cut, ib, 0, before, b, &res->g, com_sigma, 5 * sigma, min_side, max_side, lo, hi,
                       lo_hard, hi_hard, period, &u.t_pre, &u.t_pre_sd);
        if (ia >= 0)
            side_meets(pf, n, contact, cut, ia, 1, after, b, &res->g, com_sigma, 5 * sigma, min_side, max_side, lo, hi,
                       lo_hard, hi_hard, period, &u.t_post, &u.t_post_sd);
        if (!isnan(u.t_pre) || !isnan(u.t_post))
            out[k++] = u;
    }
    return k;
}

/* The sigma printed is the side fit's own: the model's error carried over the unposed
 * frames is not in it, and a short side at a low rate can miss by several of them
 * (docs/analysis.md) */
#define FIT_SIGMA_ONLY "the fit's own sigma, without the model's error over the unposed frames"

size_t analysis_unposed_describe(const unposed_impact *u, char *buf, size_t cap)
{
    int len = snprintf(buf, cap, "the body is not posed in frames %ld-%ld (t = %.4f-%.4f s), and its flight ",
                       u->frame_first, u->frame_last, u->t_first, u->t_last);
    if (!isnan(u->t_pre) && len >= 0 && (size_t)len < cap)
        len += snprintf(buf + len, cap - (size_t)len,
                        "before them, carried on, meets the surface near t = %.5f +- %.5f s (%s)%s", u->t_pre,
                        u->t_pre_sd, FIT_SIGMA_ONLY, isnan(u->t_post) ? "" : ", and its flight ");
    if (!isnan(u->t_post) && len >= 0 && (size_t)len < cap)
        len += snprintf(buf + len, cap - (size_t)len, "after them, carried back, meets the surface near t = %.5f +- "
                        "%.5f s (%s)", u->t_post, u->t_post_sd, FIT_SIGMA_ONLY);
    return len < 0 ? 0 : (size_t)len >= cap ? cap - 1 : (size_t)len;
}
