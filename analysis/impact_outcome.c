/* impact_outcome.c: what the final pass of analysis_impacts_measure measured and left
 * out, said once (a pass measures every impact again), the flights fitted, and the
 * error when nothing stands for the result: why no impact was measured. */
#include <stdio.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "analysis/impact_pass.h"

/* The warnings of the measured impacts and of the frames left out of them. */
static void say_measured(const impact_pass *ps)
{
    const analysis_result *res = ps->res;
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
        icv_warn("impact at frame %d (t = %.4f s): the body stays on the surface after it (see the contact frames): "
                 "not measured",
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
        icv_warn("no impact found (the smallest gap between the body and the surface is %.1f mm at t = %.4f "
                 "s): measured as free flight, %d flight%s",
                 res->min_gap * 1e3, res->min_gap_t, res->n_flights, res->n_flights == 1 ? "" : "s");
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

int analysis_impacts_outcome(impact_pass *ps, icv_err *err)
{
    const analysis_params *prm = &ps->prm;
    analysis_result *res = ps->res;
    int rc = 0;
    /* impacts the poses cannot show: said, never measured */
    unposed_impact unp[ANALYSIS_MAX_IMPACTS];
    int n_unp = analysis_unposed_impacts(ps->tr, ps->b, ps->pf, ps->n, ps->contact, ps->posed_row, res, ps->sigma,
                                         ps->com_sigma, prm->min_side_frames, prm->max_side_frames, ps->period, unp,
                                         ANALYSIS_MAX_IMPACTS);
    say_measured(ps);
    int short_frames = 0, n_short = analysis_flights_fit(ps->pf, ps->n, ps->contact, ps->tr, ps->com_sigma, ps->excl,
                                                         prm->min_side_frames, res, &short_frames);
    if (n_short < 0)
        return icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
    if (ps->n_apart > 0)
        icv_warn("%s: not measured%s", ps->apart_msg, ps->n_apart > 1 ? ", nor other candidates like it" : "");
    if (ps->n_unfit > 0 && res->n_impacts > 0)
        icv_warn("%s: not measured%s", ps->unfit_msg, ps->n_unfit > 1 ? ", nor other candidates like it" : "");
    if (res->n_impacts == 0)
        rc = no_impact_error(ps, unp, &n_unp, short_frames, err);
    else if (ps->have_short)
        icv_warn("%s: skipped", ps->short_msg);
    for (int i = 0; i < n_unp; i++) {
        char msg[ICV_ERR_MSG_MAX];
        analysis_unposed_describe(&unp[i], msg, sizeof msg);
        icv_warn("%s: probably an impact there, not measured (an impact needs poses on both sides)", msg);
    }
    return rc;
}
