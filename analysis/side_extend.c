/* side_extend.c: a side's window grown over its flight as far as the fit holds.
 *
 * The window nearest the impact (max_side_frames) holds a few ms of flight at
 * thousands of frames a second, and its v's sigma then stays above the
 * tolerance the flight as a whole would meet. So the window doubles, toward
 * the whole flight, while the ballistic fit over the longer window stays
 * consistent with the tracks' noise (analysis_side_fit shortens a window whose
 * residuals the noise does not explain: a drag, a touch, a wrong g; then the
 * growth stops there).
 *
 * A slow track error whose slope does not change along the flight bends no
 * residual: it is in the near window's v as much as in the longer one's, but
 * the longer window's noise sigma is smaller. The markers' drift measured over
 * the near window (marker_drift.c) is the part of that error the data show, so
 * the grown side keeps the largest drift variance of its windows. Comparing the
 * longer window's v with the shorter's (tried) stopped the growth where the
 * near window was the one off and made the pulls no better (docs/analysis.md,
 * "Session 27"). */
#include <math.h>

#include "analysis/analysis_internal.h"

int analysis_side_extend(const posed_frame *pf, int flight_first, int flight_last, const icv_vec3 *g,
                         const analysis_body *b, double com_sigma, int post, side_fit *s, icv_err *err)
{
    const int first0 = s->first, last0 = s->last;
    for (;;) {
        int n = s->last - s->first + 1;
        int avail = post ? flight_last - s->first + 1 : s->last - flight_first + 1;
        if (avail <= n || n >= ANALYSIS_SIDE_MAX_FRAMES)
            break;
        int m = 2 * n < avail ? 2 * n : avail;
        if (m > ANALYSIS_SIDE_MAX_FRAMES)
            m = ANALYSIS_SIDE_MAX_FRAMES;
        int first = post ? s->first : s->last - m + 1, last = post ? s->first + m - 1 : s->last;
        side_fit t = *s;
        /* the rotation is fitted once, over the final window: marked as fitted
           over this one meanwhile */
        t.rot_valid = 1;
        t.rot_first = first;
        t.rot_last = last;
        icv_err fe = {0};
        if (analysis_side_fit(pf, first, last, s->t_ref, g, b, com_sigma, post, &t, &fe)) {
            if (fe.code != ICV_ENUMERIC)
                return icv_err_set(err, fe.code, "%s", fe.msg);
            break; /* the longer window does not fit: the shorter stays */
        }
        int len = t.last - t.first + 1;
        if (len <= n)
            break;
        t.drift_v_var = icv_v3(fmax(t.drift_v_var.x, s->drift_v_var.x), fmax(t.drift_v_var.y, s->drift_v_var.y),
                               fmax(t.drift_v_var.z, s->drift_v_var.z));
        t.rot_first = s->rot_first;
        t.rot_last = s->rot_last;
        *s = t;
        if (len < m) /* its far end off the flight */
            break;
    }
    if (s->first == first0 && s->last == last0)
        return 0;
    icv_debug("side %d's window grown from frames %d-%d to %d-%d (flight %d-%d)", post, first0, last0, s->first,
              s->last, flight_first, flight_last);
    /* the rotation over the grown window: analysis_side_fit refits it there */
    side_fit t = *s;
    icv_err fe = {0};
    if (analysis_side_fit(pf, s->first, s->last, s->t_ref, g, b, com_sigma, post, &t, &fe) == 0 &&
        t.first == s->first && t.last == s->last) {
        t.drift_v_var = s->drift_v_var;
        *s = t;
        return 0;
    }
    if (fe.code && fe.code != ICV_ENUMERIC)
        return icv_err_set(err, fe.code, "%s", fe.msg);
    return 0; /* the rotation does not fit the grown window: the near one's stays */
}
