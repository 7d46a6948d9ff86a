/* impact_instant.c: the impact instant from the flights on each side. Two estimates: where the pre-impact flight brings the contact point onto
 * the surface (needs the surface: a line drawn a few pixels off moves it), and where
 * the two flights meet (the centre of mass does not jump in an impact: needs only
 * the flights, at any frame rate, whether or not a frame shows the body near the
 * surface). The surface line's is kept while they agree (its sigma is the smaller
 * at high frame rates); beyond 3 combined sigmas the meeting is used, and so it is
 * when the flight crosses the surface outside the frames between the windows: the
 * frames themselves then say the surface is off (the body seen below it before the
 * impact, or above it after). When the line is kept, the part of its distance from
 * the meeting that neither sigma explains is its height error (offset_sd): the
 * reported instant's sigma takes it in. */
#include <math.h>

#include "analysis/analysis_internal.h"

/* Whether the approaching pre-impact flight misses the surface between lo and hi by
 * more than noise_m (m): already below it at lo, or still above it at hi and
 * descending. Then *t_cross is where it crosses, searched over span s beyond the
 * bracket (left as it is when it does not cross there), by the contact instant's
 * root solve on the bracket where the gap changes sign. */
static int crosses_outside(const analysis_body *b, const side_fit *pre, const icv_vec3 *g, double lo, double hi,
                           double span, double noise_m, double *t_cross)
{
    double glo = analysis_contact_gap(b, pre, g, lo), ghi = analysis_contact_gap(b, pre, g, hi);
    if ((glo > 0) != (ghi > 0))
        return 0;
    if (glo < -noise_m) {
        if (analysis_contact_gap(b, pre, g, lo - span) > 0)
            *t_cross = analysis_contact_instant(b, pre, g, lo, lo - span, lo);
        return 1;
    }
    double h = 1e-3 * fmax(hi - lo, 1e-6);
    if (ghi > noise_m && analysis_contact_rate(b, pre, g, hi, h) < 0) {
        if (analysis_contact_gap(b, pre, g, hi + span) < 0)
            *t_cross = analysis_contact_instant(b, pre, g, hi, hi, hi + span);
        return 1;
    }
    return 0;
}

void analysis_impact_instant(const analysis_body *b, const side_fit *pre, const side_fit *post, const icv_vec3 *g,
                             double t_guess, double lo, double hi, double margin, double offset_sd,
                             impact_instant *out)
{
    out->t_line = analysis_contact_instant(b, pre, g, t_guess, lo, hi);
    out->t = out->t_line;
    double noise = 3 * hypot(pre->p_sd.y, offset_sd);
    int line_off = crosses_outside(b, pre, g, lo, hi, fmax(lo - pre->t_first, hi - lo), noise, &out->t_line);
    double h = 1e-3 * fmax(hi - lo, 1e-6);
    double rate = fabs(analysis_contact_rate(b, pre, g, out->t_line, h));
    /* the contact point's height error: the centre's, the surface's, and the
     * attitude's through the lowest point's lever (a rod's end 0.1 m out) */
    double att_sd = analysis_contact_gap_attitude_sd(b, pre, g, out->t_line);
    double drift_sd = sqrt(pre->drift_v_var.y) * (out->t_line - pre->t_mid); /* the markers' drift's */
    double h_sd = hypot(hypot(hypot(pre->p_sd.y, offset_sd), att_sd), drift_sd);
    out->t_line_sd = rate > 0 ? h_sd / rate : INFINITY;
    double lever_sd = hypot(hypot(offset_sd, att_sd), drift_sd);
    out->t_line_lever_sd = rate > 0 ? lever_sd / rate : INFINITY;
    icv_debug("instant: line sd parts: centre %.4g surface %.4g attitude %.4g drift %.4g m, rate %.4g m/s",
              pre->p_sd.y, offset_sd, att_sd, drift_sd, rate);
    out->from_meet = 0;
    out->offset_sd = 0;
    out->meet_ok = analysis_flights_meet(pre, post, g, out->t_line, &out->t_meet, &out->t_meet_sd) == 0;
    out->line_gap = out->meet_ok ? analysis_contact_gap(b, pre, g, out->t_meet) : NAN;
    if (!out->meet_ok)
        return;
    out->line_gap_sd = hypot(rate * out->t_meet_sd, h_sd);
    double lim = 3 * hypot(out->t_line_sd, out->t_meet_sd);
    int inside = out->t_meet > lo - margin - 3 * out->t_meet_sd && out->t_meet < hi + margin + 3 * out->t_meet_sd;
    if (inside && (line_off || !(fabs(out->t_meet - out->t_line) <= lim))) {
        out->t = out->t_meet;
        out->from_meet = 1;
    } else if (inside) {
        /* the line kept: what the meeting says of its height beyond both sigmas is
           an error of the line's that no residual shows (a bias, not a guess) */
        out->offset_sd = analysis_unexplained_sd(out->t_line - out->t_meet, out->t_line_sd, out->t_meet_sd);
    }
}

double analysis_unexplained_sd(double d, double sd_a, double sd_b)
{
    double excess = d * d - sd_a * sd_a - sd_b * sd_b;
    return excess > 0 ? sqrt(excess) : 0;
}

double analysis_impact_instant_sd(const impact_instant *in, double measured_sd, int g_estimated)
{
    /* the line's instant: the Monte Carlo draws the flight's noise as the joint
       model sees it, but not the height error the side fit's own residuals and
       the lowest point's lever show; the reported sigma is not below the line's.
       With g estimated the centre's part is left out: there the Monte Carlo's
       noise and g are the flights' own, and the centre's stated sigma (one
       camera's is a 0.3 mm default, not a measurement) only doubled a ball's
       sigma (docs/analysis.md, session 32) */
    double floor = g_estimated ? in->t_line_lever_sd : in->t_line_sd;
    if (in->from_meet || !(floor < INFINITY))
        return measured_sd;
    return fmax(measured_sd, floor);
}
