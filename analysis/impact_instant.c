/* impact_instant.c: the impact instant from the flights on each side (issue #19
 * item 3). Two estimates: where the pre-impact flight brings the contact point onto
 * the surface (needs the surface: a line drawn a few pixels off moves it), and where
 * the two flights meet (the centre of mass does not jump in an impact: needs only
 * the flights, at any frame rate, whether or not a frame shows the body near the
 * surface). The surface line's is kept while they agree (its sigma is the smaller
 * at high frame rates); beyond 3 combined sigmas the meeting is used. */
#include <math.h>

#include "analysis/analysis_internal.h"

void analysis_impact_instant(const analysis_body *b, const side_fit *pre, const side_fit *post, const icv_vec3 *g,
                             double t_guess, double lo, double hi, double margin, double offset_sd,
                             impact_instant *out)
{
    out->t_line = analysis_contact_instant(b, pre, g, t_guess, lo, hi);
    double h = 1e-3 * fmax(hi - lo, 1e-6);
    double rate = fabs(analysis_contact_rate(b, pre, g, out->t_line, h));
    out->t_line_sd = rate > 0 ? hypot(pre->p_sd.y, offset_sd) / rate : INFINITY;
    out->t = out->t_line;
    out->from_meet = 0;
    out->meet_ok = analysis_flights_meet(pre, post, g, out->t_line, &out->t_meet, &out->t_meet_sd) == 0;
    out->line_gap = out->meet_ok ? analysis_contact_gap(b, pre, g, out->t_meet) : NAN;
    if (!out->meet_ok)
        return;
    double lim = 3 * hypot(out->t_line_sd, out->t_meet_sd);
    int inside = out->t_meet > lo - margin - 3 * out->t_meet_sd && out->t_meet < hi + margin + 3 * out->t_meet_sd;
    if (inside && !(fabs(out->t_meet - out->t_line) <= lim)) {
        out->t = out->t_meet;
        out->from_meet = 1;
    }
}
