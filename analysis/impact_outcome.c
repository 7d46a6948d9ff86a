/* impact_outcome.c: what the final pass of analysis_impacts_measure measured and left
 * out, said once (a pass measures every impact again), the flights fitted, and the
 * error when nothing stands for the result: why no impact was measured. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "analysis/impact_pass.h"

/* An impact seen and not measured: said as a warning and kept, named and why, in
 * res->not_measured (results.json's impacts_not_measured). */
static void not_measured(analysis_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void not_measured(analysis_result *res, const char *fmt, ...)
{
    char msg[ICV_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    icv_warn("%s", msg);
    if (res->n_not_measured < ANALYSIS_MAX_IMPACTS)
        snprintf(res->not_measured[res->n_not_measured], sizeof res->not_measured[0], "%s", msg);
    res->n_not_measured++;
}

/* The body comes down onto the surface at the clip's end and stays: the rest trimmed
 * off the end (analysis_still_ends) holds its landing, which no candidate can be (no
 * posed frame after it). A hop lower than the still rule's limit and not clear of
 * the tracks' own noise (analysis_run_moves), a fraction of a millimetre at 0.3 mm
 * tracks, is inside that rest too. Said when the last flight, ending at
 * the last posed frame, carried on brings its lowest point's height there (the gap)
 * to the surface before the rest ends (at 3000-6000 fps a body still approaching
 * moves less than the still rule's limit over the clip's last frames: no landing in
 * the clip), and no impact was measured or landed after it. */
static void say_landing_at_rest(impact_pass *ps)
{
    analysis_result *res = ps->res;
    const posed_frame *pf = ps->pf;
    int n = ps->n;
    if (!ps->have_rest_end || n < 1 || res->n_flights < 1)
        return;
    const analysis_flight_summary *f = &res->flights[res->n_flights - 1];
    /* the flight ends at the last posed frame, or where gravity's fit stopped short of
       it (the last frames bent by the landing) */
    int e = ps->g_trim.last < n - 1 && ps->g_trim.last_untrimmed == n - 1 ? ps->g_trim.last : n - 1;
    if (f->frame_last != ps->tr->frame[pf[e].row])
        return;
    /* the centre's normal velocity at the flight's end, and the time it takes to
       bring the gap there to 0 under g */
    double vy = f->v.y + res->g.y * (f->t_end - f->t_start), gy = res->g.y, h = pf[e].gap;
    double disc = vy * vy - 2 * gy * h, tau = INFINITY;
    if (h <= 0)
        tau = 0;
    else if (gy < 0 && disc >= 0)
        tau = (-vy - sqrt(disc)) / gy;
    if (!(pf[e].t + tau <= ps->rest_end.t_last))
        return;
    for (int i = 0; i < res->n_impacts; i++)
        if (res->impacts[i].t > pf[e].t - ps->excl)
            return;
    for (int i = 0; i < ps->n_landed && i < ANALYSIS_MAX_IMPACTS; i++)
        if (ps->landed_t[i] > pf[e].t - ps->excl)
            return;
    const analysis_contact *r = &ps->rest_end;
    double lim = 4 * sqrt(2.0) * ps->prm.pos_sigma / sqrt((double)ps->b->tmpl.n_markers);
    not_measured(res,
                 "impact at frames %ld-%ld (t = %.4f-%.4f s): the body comes down onto the surface (its gap %.1f mm "
                 "at frame %d; its flight, carried on, reaches it near t = %.4f s) and stays within %.2f mm of where "
                 "it ends, as at rest: a landing, or a bounce lower than that, not measured",
                 r->frame_first, r->frame_last, r->t_first, r->t_last, pf[e].gap * 1e3, ps->tr->frame[pf[e].row],
                 pf[e].t + tau, lim * 1e3);
}

/* The warnings of the measured impacts and of the frames left out of them. */
static void say_measured(const impact_pass *ps)
{
    analysis_result *res = ps->res;
    if (ps->off_msg[0])
        icv_warn("%s%s", ps->off_msg, ps->n_off > 1 ? ", nor others like it" : "");
    for (int i = 0; i < res->n_contacts; i++) {
        const analysis_contact *ct = &res->contacts[i];
        icv_warn("frames %ld-%ld (t = %.4f-%.4f s): the body is %s on the surface: left out of gravity and of every "
                 "flight's fit",
                 ct->frame_first, ct->frame_last, ct->t_first, ct->t_last,
                 ct->sliding ? "moving (sliding, rolling or rocking)" : "resting");
    }
    for (int i = 0; i < ps->n_landed && i < ANALYSIS_MAX_IMPACTS; i++)
        not_measured(res,
                     "impact at frame %d (t = %.4f s): the body stays on the surface after it (see the contact "
                     "frames): not measured",
                     ps->landed_frame[i], ps->landed_t[i]);
    for (int i = 0; i < res->n_impacts; i++) {
        const analysis_impact *im = &res->impacts[i];
        if (im->t_from_meet)
            icv_warn("impact at t = %.5f s: the flights on each side meet at t = %.5f +- %.5f s, %.2f frames from "
                     "where the pre-impact flight reaches the surface (t = %.5f +- %.5f s): the flights' meeting is "
                     "used, as it needs no surface; the contact point is %.1f mm %s the surface there: check "
                     "the surface (line_px, plane or board)",
                     im->t, im->t_meet, im->t_meet_sd, (im->t_meet - im->t_line) / ps->period, im->t_line,
                     im->t_line_sd, fabs(im->meet_gap) * 1e3, im->meet_gap < 0 ? "below" : "above");
        if (im->implausible[0])
            icv_warn("impact at t = %.5f s is physically implausible: %s; likely causes: the surface (its line or "
                     "plane), the scale, duplicated frames, a wrong capture rate, or tracks of something other than "
                     "the body's markers",
                     im->t, im->implausible);
    }
}

/* No impact measured: the error saying why, or 0 (a flight-only clip: its flights are
 * the result). short_frames: the longest flight's frames when none fitted. The first
 * unposed impact unp[0] is said in the error when it is the reason (*n_unp then 0). */
static int no_impact_error(const impact_pass *ps, const unposed_impact *unp, int *n_unp, int short_frames,
                           icv_err *err)
{
    const analysis_tracks *tr = ps->tr;
    const analysis_result *res = ps->res;
    const posed_frame *pf = ps->pf;
    int n = ps->n;
    if (ps->n_unfit > 0)
        return icv_err_set(err, ICV_ENUMERIC, "%s, and no impact measured", ps->unfit_msg);
    if (ps->n_landed > 0 && !ps->have_short)
        return icv_err_set(err, ICV_EINVAL, "%s, and no other impact", ps->landed_msg);
    if (!ps->have_short && !ps->gravity) {
        /* a flight-only clip (a toss, a free fall): its flights are the result */
        if (res->n_flights == 0)
            return icv_err_set(err, ICV_EINVAL,
                               "no impact found, and the flight is too short to fit: %d frames, %d needed",
                               short_frames > 0 ? short_frames : n, ps->prm.min_side_frames);
        /* the longest stretch without a pose: an impact there is not seen (a ball
           lost after 18 of its 120 frames, its two bounces after) */
        int r0 = -1, r1 = -1;
        for (int r = 0, a = -1; r <= tr->n_frames; r++) {
            if (r < tr->n_frames && !ps->posed_row[r]) {
                a = a < 0 ? r : a;
                continue;
            }
            if (a >= 0 && (r0 < 0 || r - a > r1 - r0 + 1))
                r0 = a, r1 = r - 1;
            a = -1;
        }
        char unposed[160] = "";
        if (r0 >= 0 && r1 - r0 + 1 >= UNPOSED_MIN_FRAMES)
            snprintf(unposed, sizeof unposed, "; frames %d-%d (%d of %d) have no pose: an impact there is not seen",
                     tr->frame[r0], tr->frame[r1], r1 - r0 + 1, tr->n_frames);
        icv_warn("no impact found (the smallest gap between the body and the surface is %.1f mm at t = %.4f "
                 "s): measured as free flight, %d flight%s%s",
                 res->min_gap * 1e3, res->min_gap_t, res->n_flights, res->n_flights == 1 ? "" : "s", unposed);
        return 0;
    }
    if (ps->have_short)
        return icv_err_set(err, ICV_EINVAL, "%s", ps->short_msg);
    if (n >= 3 && pf[n - 1].gap < pf[n - 2].gap && pf[n - 2].gap < pf[n - 3].gap && pf[n - 1].row + 1 < tr->n_frames) {
        /* the poses end while the body still approaches, with frames after: the
           impact is in frames without a pose (markers lost), not absent */
        char msg[ICV_ERR_MSG_MAX];
        size_t len = analysis_appendf(msg, sizeof msg, 0,
                                      "no impact measured: the poses end at frame %d (t = %.4f s) with the body %.1f "
                                      "mm above the surface and approaching it: ",
                                      tr->frame[pf[n - 1].row], pf[n - 1].t, pf[n - 1].gap * 1e3);
        analysis_side_describe(tr, pf, n, 0, n - 1, n - 1, pf[n - 1].t, pf[n - 1].t, INFINITY, 1, msg, sizeof msg,
                               len);
        return icv_err_set(err, ICV_ENOTFOUND, "%s", msg);
    }
    if (*n_unp > 0) {
        char msg[ICV_ERR_MSG_MAX];
        analysis_unposed_describe(&unp[0], msg, sizeof msg);
        int rc = icv_err_set(err, ICV_ENOTFOUND,
                             "no impact found in the posed frames: %s: an impact there cannot be measured without "
                             "poses on both sides%s (the smallest gap in the posed frames is %.1f mm at t = %.4f s)",
                             msg, *n_unp > 1 ? ", nor others like it" : "", res->min_gap * 1e3, res->min_gap_t);
        *n_unp = 0; /* said in the error */
        return rc;
    }
    return icv_err_set(err, ICV_ENOTFOUND,
                       "no impact found: the smallest gap between the body and the surface is %.1f mm at t = %.4f s",
                       res->min_gap * 1e3, res->min_gap_t);
}

/* The candidates seen and not measured (too few frames on a side and a short side
 * off the other's flight, landed) cut the flights as an impact does: the first posed
 * frame after each begins a flight. A flight run on through a bounce at the clip's
 * end bends to it. */
static void cut_at_unmeasured(impact_pass *ps)
{
    double t[2 * ANALYSIS_MAX_IMPACTS];
    int m = 0;
    for (int i = 0; i < ps->n_short && i < ANALYSIS_MAX_IMPACTS; i++)
        t[m++] = ps->short_t[i];
    for (int i = 0; i < ps->n_landed && i < ANALYSIS_MAX_IMPACTS; i++)
        t[m++] = ps->landed_t[i];
    for (int k = 0; k < m; k++)
        for (int i = 1; i < ps->n; i++)
            if (ps->pf[i].t > t[k]) {
                ps->cut[i] = 1;
                break;
            }
}

/* 1 when t (s) lies in an unposed stretch of unp[0..n-1] or at a posed frame beside
 * it: a candidate there with too few frames on a side is that stretch's impact,
 * named once, with the stretch */
static int beside_unposed(const impact_pass *ps, const unposed_impact *unp, int n, double t)
{
    for (int u = 0; u < n; u++)
        if (t > unp[u].t_first - 1.5 * ps->period && t < unp[u].t_last + 1.5 * ps->period)
            return 1;
    return 0;
}

/* The free flights (flights.c), without the frames gravity: auto's fit left out at the
 * clip's ends as off the flight (a hand's throw or catch), said when there are any;
 * analysis_flights_fit's return */
static int flights_fit(impact_pass *ps, int *short_frames)
{
    const analysis_gravity_info *gi = &ps->g_trim;
    unsigned char *not_flight = malloc((size_t)(ps->n > 0 ? ps->n : 1));
    if (!not_flight)
        return -1;
    for (int i = 0; i < ps->n; i++)
        not_flight[i] = ps->contact[i] || (i >= gi->first_untrimmed && i < gi->first) ||
                        (i > gi->last && i <= gi->last_untrimmed);
    int rc = analysis_flights_fit(ps->pf, ps->n, not_flight, ps->cut, ps->tr, ps->com_sigma, ps->excl,
                                  ps->prm.min_side_frames, ps->res, short_frames);
    free(not_flight);
    const int *fr = ps->tr->frame;
    if (gi->first > gi->first_untrimmed)
        icv_info("frames %d-%d, the first of the clip's flight, are off the parabola its other frames fit (a throw "
                 "or a release): left out of gravity and of the flight",
                 fr[ps->pf[gi->first_untrimmed].row], fr[ps->pf[gi->first - 1].row]);
    if (gi->last < gi->last_untrimmed)
        icv_info("frames %d-%d, the last of the clip's flight, are off the parabola its other frames fit (a catch): "
                 "left out of gravity and of the flight",
                 fr[ps->pf[gi->last + 1].row], fr[ps->pf[gi->last_untrimmed].row]);
    return rc;
}

int analysis_impacts_outcome(impact_pass *ps, icv_err *err)
{
    const analysis_params *prm = &ps->prm;
    analysis_result *res = ps->res;
    int rc = 0;
    /* impacts the poses cannot show: said, never measured */
    unposed_impact unp[ANALYSIS_MAX_IMPACTS];
    int n_unp = analysis_unposed_impacts(ps->tr, ps->b, ps->pf, ps->n, ps->contact, ps->cut, ps->posed_row, res, ps->sigma,
                                         ps->com_sigma, prm->min_side_frames, prm->max_side_frames, ps->period, unp,
                                         ANALYSIS_MAX_IMPACTS);
    say_measured(ps);
    cut_at_unmeasured(ps);
    int short_frames = 0, n_short = flights_fit(ps, &short_frames);
    if (n_short < 0)
        return icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
    if (ps->n_apart > 0)
        icv_warn("%s: not measured%s", ps->apart_msg, ps->n_apart > 1 ? ", nor other candidates like it" : "");
    if (ps->n_unfit > 0 && res->n_impacts > 0)
        not_measured(res, "%s: not measured%s", ps->unfit_msg, ps->n_unfit > 1 ? ", nor other candidates like it" : "");
    if (res->n_impacts == 0)
        rc = no_impact_error(ps, unp, &n_unp, short_frames, err);
    else if (ps->n_short > 0) {
        for (int i = 0; i < ps->n_short && i < ANALYSIS_MAX_IMPACTS; i++)
            if (!beside_unposed(ps, unp, n_unp, ps->short_t[i]))
                not_measured(res, "%s: skipped", ps->short_all[i]);
    } else if (ps->have_short) {
        icv_warn("%s: skipped", ps->short_msg); /* no sign of a bounce there: not named */
    }
    if (!rc)
        say_landing_at_rest(ps);
    for (int i = 0; i < n_unp; i++) {
        char msg[ICV_ERR_MSG_MAX];
        analysis_unposed_describe(&unp[i], msg, sizeof msg);
        not_measured(res, "%.400s: probably an impact there, not measured (an impact needs poses on both sides)", msg);
    }
    return rc;
}
