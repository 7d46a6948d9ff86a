/* impact_candidate.c: one contact candidate of analysis_impacts_measure measured: each
 * side's flight fitted over a window that leaves out the frames whose exposure overlaps
 * the impact (the instant and the windows found together, a few times over), the
 * velocity jump confirmed, and the impact measured at the instant where the flights
 * bring the contact point onto the surface or meet. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "analysis/impact_pass.h"

size_t analysis_appendf(char *buf, size_t cap, size_t len, const char *fmt, ...)
{
    if (len + 1 >= cap)
        return len;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
    return k < 0 ? len : len + (size_t)k >= cap ? cap - 1 : len + (size_t)k;
}

/* One side of an impact that has too few posed frames, for the error: "only 2 posed
 * frames after it (frames 41-42; markers 1, 2 missing in 7 frames 43-49: marker 1 in 7,
 * 2 in 3)". The frames of that side (t in (t_lo, t_hi), before or after t_star) without
 * a pose, and which markers they miss (how many of those frames each, when not all: a
 * marker hidden for good reads apart from others dropping out now and then); none
 * missing: the frames were left out (held, outliers). A side that posed every frame up to
 * the clip's start or end says "the clip ends there": the clip is short, not the tracks. */
size_t analysis_side_describe(const analysis_tracks *tr, const posed_frame *pf, int n, int npost, int first, int last,
                                double t_star, double t_lo, double t_hi, int post, char *buf, size_t cap, size_t len)
{
    int f0 = -1, f1 = -1, n_un = 0, miss[64] = {0};
    int nm = tr->n_markers < 64 ? tr->n_markers : 64, any = 0;
    for (int r = 0; r < tr->n_frames; r++) {
        double t = tr->t[r];
        if (t <= t_lo || t >= t_hi || (post ? t <= t_star : t >= t_star))
            continue;
        int posed = 0;
        for (int i = 0; i < n && !posed; i++)
            posed = pf[i].row == r;
        if (posed)
            continue;
        if (f0 < 0)
            f0 = tr->frame[r];
        f1 = tr->frame[r];
        n_un++;
        for (int k = 0; k < nm; k++)
            miss[k] += !tr->seen[r * tr->n_markers + k];
    }
    int uneven = 0;
    for (int k = 0; k < nm; k++) {
        any |= miss[k] > 0;
        uneven |= miss[k] > 0 && miss[k] < n_un;
    }
    len = analysis_appendf(buf, cap, len, "only %d posed frame%s %s it", npost, npost == 1 ? "" : "s",
                  post ? "after" : "before");
    if (npost > 0)
        len = analysis_appendf(buf, cap, len, " (frames %d-%d", tr->frame[pf[first].row], tr->frame[pf[last].row]);
    if (n_un > 0) {
        len = analysis_appendf(buf, cap, len, "%s", npost > 0 ? "; " : " (");
        if (!any) /* every marker seen: the frames were left out */
            len = analysis_appendf(buf, cap, len, "%d frame%s %d-%d left out: held or outliers", n_un, n_un == 1 ? "" : "s",
                          f0, f1);
        else {
            const char *sep = "markers ";
            for (int k = 0; k < nm; k++)
                if (miss[k]) {
                    len = analysis_appendf(buf, cap, len, "%s%d", sep, k);
                    sep = ", ";
                }
            len = analysis_appendf(buf, cap, len, " missing in %d frame%s %d-%d", n_un, n_un == 1 ? "" : "s", f0, f1);
            sep = ": marker ";
            for (int k = 0; k < nm && uneven; k++)
                if (miss[k]) {
                    len = analysis_appendf(buf, cap, len, "%s%d in %d", sep, k, miss[k]);
                    sep = ", ";
                }
        }
    }
    int clip_end = (post ? isinf(t_hi) : isinf(t_lo)) && n_un == 0 && tr->n_frames > 0;
    if (clip_end)
        len = analysis_appendf(buf, cap, len, "%sthe clip %s there", npost > 0 ? "; " : " (", post ? "ends" : "starts");
    if (npost > 0 || n_un > 0 || clip_end)
        len = analysis_appendf(buf, cap, len, ")");
    return len;
}

/* Pre- or post-impact window around t_star, between the neighbouring impacts, in
 * flight: not past a frame in contact, nor across a cut (cut[i]: a flight begins at
 * frame i; impact_pass.h). */
static int side_window(const posed_frame *pf, int n, const unsigned char *contact, const unsigned char *cut,
                       double t_star, double excl, double t_lo, double t_hi, int post, int max_frames, int *first,
                       int *last)
{
    int a = -1, b = -1;
    for (int i = 0; i < n; i++) {
        if (pf[i].t <= t_lo || pf[i].t >= t_hi)
            continue;
        if (post ? pf[i].t < t_star + excl : pf[i].t > t_star - excl)
            continue;
        if (a < 0)
            a = i;
        b = i;
    }
    if (a < 0)
        return 0;
    /* flight only: the frames nearest the impact up to the first in contact */
    if (post) {
        int k = a;
        while (k <= b && !contact[k] && !(k > a && cut[k]))
            k++;
        b = k - 1;
    } else {
        int k = b;
        while (k >= a && !contact[k] && !(k < b && cut[k + 1]))
            k--;
        a = k + 1;
    }
    if (b < a) {
        *first = *last = post ? a : b;
        return 0;
    }
    analysis_window_nearest(post, max_frames, &a, &b);
    *first = a;
    *last = b;
    return b - a + 1;
}

/* 1 when the body is in contact with the surface just after t_star (its first
 * frame after the impact, or the first beyond the exposure's overlap): it landed
 * and stayed, nothing to measure after it */
static int landed_for_good(const posed_frame *pf, int n, const unsigned char *contact, double t_star, double excl)
{
    for (int i = 0; i < n; i++)
        if (pf[i].t > t_star)
            return contact[i] || (i + 1 < n && pf[i].t < t_star + excl && contact[i + 1]);
    return 0;
}

/* A candidate whose normal velocity jumps by less than prm.jump_sigmas but more
 * than WEAK_JUMP_SIGMAS of its sigma is an impact when its two flights say so
 * themselves: they meet between its windows (within a frame and 3 of the
 * meeting's sigmas), with the contact point at the surface there (within
 * OFF_SURFACE_M and 5 sigmas), and no impact measured lies within two frames or 3
 * combined sigmas of it. Noisy sparse tracks (2.5 mm, a side of 6 frames) put
 * a real bounce at 5-6 sigma; a jump of the tracks mid-flight meets elsewhere or
 * off the surface. */
#define WEAK_JUMP_SIGMAS 5.0

/* 1 when the two flights meet between their windows (within a frame and 3 of the
 * meeting's sigmas): the centre of mass does not jump, so a real impact's flights
 * cross after the last frame of the one and before the first of the other. */
static int flights_meet_between(const impact_instant *in, const side_fit *pre, const side_fit *post, double period)
{
    double m = period + 3 * in->t_meet_sd;
    return in->meet_ok && in->t_meet > pre->t_last - m && in->t_meet < post->t_first + m;
}

static int weak_jump_consistent(const impact_instant *in, const side_fit *pre, const side_fit *post, double period)
{
    return flights_meet_between(in, pre, post, period) && isfinite(in->line_gap) &&
           fabs(in->line_gap) <= OFF_SURFACE_M + 5 * in->line_gap_sd;
}

/* What fitting a candidate's two sides came to. */
typedef enum {
    SIDES_FITTED,  /* both sides fitted, the instant found */
    SIDES_UNFIT,   /* a side its frames cannot fit: not measured (counted in n_unfit) */
    SIDES_SHORT,   /* too few frames on a side (said in short_msg) */
    SIDES_LANDED,  /* the body stays on the surface after it (said in landed_msg) */
    SIDES_OUTLIER, /* a frame beside it is an outlier, left out: every impact again */
} sides_outcome;

/* A side's frame nearest the impact off that side's flight (analysis_near_end_outlier)
 * left out of ps->pf: 1 when one was. */
static int drop_near_end_outlier(impact_pass *ps, int npre, int a0, int a1, int npost, int b0, int b1)
{
    const analysis_params *prm = &ps->prm;
    int k = -1;
    if (npre > prm->min_side_frames &&
        analysis_near_end_outlier(ps->pf, a0, a1, 0, &ps->res->g, ps->b, ps->com_sigma))
        k = a1;
    else if (npost > prm->min_side_frames &&
             analysis_near_end_outlier(ps->pf, b0, b1, 1, &ps->res->g, ps->b, ps->com_sigma))
        k = b0;
    if (k < 0)
        return 0;
    analysis_note_outlier_frames(ps->tr, ps->res, &ps->pf[k].row, 1,
                                 k == a1 ? "off its flight, the last before an impact"
                                         : "off its flight, the first after an impact");
    memmove(ps->pf + k, ps->pf + k + 1, sizeof *ps->pf * (size_t)(ps->n - k - 1));
    ps->n--;
    return 1;
}

/* 1 when a side too short to fit (frames pf[s0..s1]) stands above
 * the other side's flight (pf[l0..l1], fitted with g given, carried on) by more than
 * 5 of that fit's residual scale (its sigma com_sigma, grown by sqrt(chi^2/dof) above
 * 1): the surface pushed the body up there, a bounce seen and not measurable. A gap
 * minimum of the noise near the clip's end or a dropout, its few frames on the same
 * flight or off it in any direction (a bad pose beside a dropout), is none (on the
 * tuning scenes most candidates short of frames were such minima). */
#define SHORT_SIDE_KINK_SIGMAS 5.0
static int short_side_kinks(const posed_frame *pf, int l0, int l1, int s0, int s1, const icv_vec3 *g,
                            double com_sigma)
{
    enum { MAX_SIDE = 64 };
    double t[MAX_SIDE], sg[MAX_SIDE];
    icv_vec3 p[MAX_SIDE];
    int m = 0;
    for (int i = l1; i >= l0 && m < MAX_SIDE; i--, m++) /* the frames nearest the impact, if more */
        t[m] = pf[i].t, p[m] = pf[i].pose.p, sg[m] = com_sigma;
    if (m < 3)
        return 0;
    analysis_flight ph = {m, t, p, sg, t[0]};
    analysis_ballistic fit;
    icv_err e = {0};
    if (analysis_ballistic_fit(&ph, 1, g, &fit, &e))
        return 0;
    double scale = com_sigma * sqrt(fmax(1.0, fit.chi2_dof));
    for (int i = s0; i <= s1; i++) {
        double tau = pf[i].t - ph.t_ref;
        icv_vec3 q =
            icv_v3_add(icv_v3_add(fit.p0[0], icv_v3_scale(fit.v[0], tau)), icv_v3_scale(fit.g, 0.5 * tau * tau));
        if (pf[i].pose.p.y - q.y > SHORT_SIDE_KINK_SIGMAS * scale)
            return 1;
    }
    return 0;
}

/* The candidate at `frame` (t_star) has too few frames on a side (the pre-impact
 * window npre frames a0..a1, the post-impact npost frames b0..b1): why, in short_msg. */
static void say_too_few_frames(impact_pass *ps, int frame, double t_star, double t_next, int npre, int a0, int a1,
                               int npost, int b0, int b1)
{
    const analysis_tracks *tr = ps->tr;
    int min = ps->prm.min_side_frames;
    char *msg = ps->short_msg;
    size_t cap = sizeof ps->short_msg,
           len = analysis_appendf(msg, cap, 0, "impact at frame %d (t = %.4f s): ", frame, t_star);
    if (npre < min)
        len = analysis_side_describe(tr, ps->pf, ps->n, npre, a0, a1, t_star, ps->t_prev, t_star, 0, msg, cap, len);
    if (npre < min && npost < min)
        len = analysis_appendf(msg, cap, len, " and ");
    if (npost < min)
        len = analysis_side_describe(tr, ps->pf, ps->n, npost, b0, b1, t_star, t_star, t_next, 1, msg, cap, len);
    analysis_appendf(msg, cap, len, ", %d needed on each side to fit", min);
}

/* Both sides of candidate c fitted and its instant found, a few times over: the
 * windows leave out the frames within excl of the instant, which moves with them.
 * *t_star: the candidate's frame's time in, the instant out. 0 or an error code. */
static int fit_sides(impact_pass *ps, int c, double t_next, double *t_star_io, side_fit *pre, side_fit *post,
                     impact_instant *inst, sides_outcome *outcome, icv_err *err)
{
    const analysis_params *prm = &ps->prm;
    const posed_frame *pf = ps->pf;
    analysis_result *res = ps->res;
    int frame = ps->tr->frame[pf[ps->cand[c]].row];
    double t_star = *t_star_io;
    *outcome = SIDES_UNFIT;
    for (int iter = 0; iter < 4; iter++) {
        int a0 = 0, a1 = 0, b0 = 0, b1 = 0;
        int npre = side_window(pf, ps->n, ps->contact, ps->cut, t_star, ps->excl, ps->t_prev, t_star, 0,
                               prm->max_side_frames, &a0, &a1);
        int npost = side_window(pf, ps->n, ps->contact, ps->cut, t_star, ps->excl, t_star, t_next, 1,
                                prm->max_side_frames, &b0, &b1);
        if (!prm->keep_outlier_frames && drop_near_end_outlier(ps, npre, a0, a1, npost, b0, b1)) {
            *outcome = SIDES_OUTLIER;
            return 0;
        }
        if (npost < prm->min_side_frames && landed_for_good(pf, ps->n, ps->contact, t_star, ps->excl)) {
            /* the body stays on the surface after it: its last landing, not an
               impact to measure; said, never an error on its own */
            *outcome = SIDES_LANDED;
            snprintf(ps->landed_msg, sizeof ps->landed_msg,
                     "impact at frame %d (t = %.4f s): the body stays on the surface after it (see the contact "
                     "frames): not measured",
                     frame, t_star);
            break;
        }
        if (npre < prm->min_side_frames || npost < prm->min_side_frames) {
            *outcome = SIDES_SHORT;
            say_too_few_frames(ps, frame, t_star, t_next, npre, a0, a1, npost, b0, b1);
            /* named as a bounce when at the surface by its gap, with 2 frames or
               more on its short side standing above the other side's flight (one
               frame off a flight is no more than one bad pose: the first posed
               frame of a track, seed 1088) */
            ps->short_kinks = analysis_gap_at_surface(pf, ps->n, ps->sigma, ps->cand[c]) &&
                              (npre >= prm->min_side_frames
                                   ? npost >= 2 && short_side_kinks(pf, a0, a1, b0, b1, &res->g, ps->com_sigma)
                               : npost >= prm->min_side_frames
                                   ? npre >= 2 && short_side_kinks(pf, b0, b1, a0, a1, &res->g, ps->com_sigma)
                                   : 0);
            break;
        }
        icv_err fe = {0};
        if (analysis_side_fit(pf, a0, a1, t_star, &res->g, ps->b, ps->com_sigma, 0, pre, &fe) ||
            analysis_side_fit(pf, b0, b1, t_star, &res->g, ps->b, ps->com_sigma, 1, post, &fe)) {
            if (fe.code != ICV_ENUMERIC)
                return icv_err_set(err, fe.code, "%s", fe.msg);
            /* a candidate its frames cannot fit is not measured; the others are */
            if (ps->n_unfit++ == 0)
                snprintf(ps->unfit_msg, sizeof ps->unfit_msg, "impact candidate at frame %d (t = %.4f s): %s", frame,
                         t_star, fe.msg);
            *outcome = SIDES_UNFIT;
            break;
        }
        double lo = pf[a1].t, hi = pf[b0].t;
        if (prm->method == ANALYSIS_FIT)
            analysis_impact_instant(ps->b, pre, post, &res->g, t_star, lo, hi, ps->period, prm->calib.offset, inst);
        else
            *inst = (impact_instant){.t = analysis_contact_instant(ps->b, pre, &res->g, t_star, lo, hi)};
        double t_new = inst->t;
        *outcome = SIDES_FITTED;
        if (fabs(t_new - t_star) < 1e-7) {
            t_star = t_new;
            break;
        }
        t_star = t_new;
    }
    *t_star_io = t_star;
    return 0;
}

/* 1 when candidate c (its sides fitted, instant t_star) is an impact: its normal
 * velocity jumps by more than prm.jump_sigmas of its sigma, with its flights meeting
 * between its windows, or by a weak jump (weak_jump_consistent) a pass before
 * accepted (ok_row); a weak jump not yet accepted is kept in weak_*, a jump whose
 * flights meet inside a side counted in n_apart. */
static int jumps_as_impact(impact_pass *ps, int c, double t_star, const side_fit *pre, const side_fit *post,
                           const impact_instant *inst)
{
    const analysis_params *prm = &ps->prm;
    int row = ps->pf[ps->cand[c]].row;
    /* a contact is an impact when the normal velocity jumps */
    double dv = post->v.y - pre->v.y;
    double sd = hypot(pre->v_sd.y, post->v_sd.y);
    if (dv > prm->jump_sigmas * sd && prm->method == ANALYSIS_FIT && inst->meet_ok &&
        !flights_meet_between(inst, pre, post, ps->period)) {
        /* a jump of the tracks, not of the motion: the flights cross inside
           one side's own frames, which that side's one flight fits (no change
           of motion there); a real impact's meet between the windows on every
           kept tuning scene (docs/analysis.md) */
        int in_pre = inst->t_meet < pre->t_last;
        if (ps->n_apart++ == 0)
            snprintf(ps->apart_msg, sizeof ps->apart_msg,
                     "impact candidate at frame %d (t = %.5f s): its normal velocity jumps by %.3f +- %.3f m/s, "
                     "but its flights meet at t = %.5f +- %.5f s, %.1f frames inside its %s-impact frames (the "
                     "centre of mass does not jump at an impact): a jump of the tracks, not an impact",
                     ps->tr->frame[row], t_star, dv, sd, inst->t_meet, inst->t_meet_sd,
                     (in_pre ? pre->t_last - inst->t_meet : inst->t_meet - post->t_first) / ps->period,
                     in_pre ? "pre" : "post");
        return 0;
    }
    if (!(dv > prm->jump_sigmas * sd)) {
        int weak = prm->method == ANALYSIS_FIT && dv > WEAK_JUMP_SIGMAS * sd &&
                   weak_jump_consistent(inst, pre, post, ps->period);
        int accepted = 0;
        for (int k = 0; k < ps->n_ok; k++)
            accepted |= ps->ok_row[k] == row;
        if (weak && !accepted && ps->n_weak < ANALYSIS_MAX_IMPACTS) {
            ps->weak_row[ps->n_weak] = row;
            ps->weak_t[ps->n_weak] = inst->t_meet;
            ps->weak_sd[ps->n_weak++] = inst->t_meet_sd;
        }
        if (!(weak && accepted))
            return 0;
    }
    return 1;
}

/* The instant's sigma as the near windows pre, post (the ones it was found from)
 * give it, under the noise model in ps->noise (g given). 0 or an error code. */
static int near_instant_sd(impact_pass *ps, const side_fit *pre, const side_fit *post, double t_star,
                           const impact_instant *inst, double *t_sd, icv_err *err)
{
    analysis_result *res = ps->res;
    double cov15[15][15];
    analysis_impact near;
    if (analysis_flight_covariance(ps->pf, &ps->noise, pre, post, cov15))
        return icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
    analysis_measure(ps->b, &res->g, pre, post, t_star, inst->from_meet, &ps->prm, (const double(*)[15])cov15, 0,
                     &near);
    near.t_from_meet = inst->from_meet; /* as the measured impact's, below */
    int rc = analysis_calib_propagate(ps->pf, ps->b, &res->g, NULL, 0, pre, post, ps->com_sigma, &ps->prm.calib, &near,
                                      err);
    *t_sd = near.t_sd;
    return rc;
}

/* Candidate c, an impact, measured at t_star from its sides and added to ps->res
 * (Houbolt: with 4 frames on each side, else said in short_msg). 0 or an error code. */
static int measure_impact(impact_pass *ps, int c, double t_star, double t_next, side_fit *pre, side_fit *post,
                          const impact_instant *inst, icv_err *err)
{
    const analysis_params *prm = &ps->prm;
    const posed_frame *pf = ps->pf;
    const analysis_body *b = ps->b;
    analysis_result *res = ps->res;
    int n = ps->n, rc;
    if (prm->method == ANALYSIS_HOUBOLT) {
        int a1 = pre->last, b0 = post->first;
        if (a1 < 3 || b0 + 3 >= n) {
            ps->have_short = 1;
            snprintf(ps->short_msg, sizeof ps->short_msg,
                     "impact near t = %.4f s: Houbolt needs 4 frames on each side", t_star);
            return 0;
        }
        analysis_houbolt_side(pf, a1, 0, ps->sigma, b, pre);
        analysis_houbolt_side(pf, b0, 1, ps->sigma, b, post);
    }
    /* the fit: g and both sides' states drawn jointly (they share frames), so
     * g's error is in the Monte Carlo and not added again below */
    double cov15[15][15];
    int joint = prm->method == ANALYSIS_FIT;
    int fl_lo[2] = {pre->first, post->first}, fl_hi[2] = {pre->last, post->last};
    if (joint && !res->g_estimated) { /* the noise from the whole flights the sides are part of */
        int a0, a1, b0, b1;
        if (side_window(pf, n, ps->contact, ps->cut, t_star, ps->excl, ps->t_prev, t_star, 0, INT_MAX, &a0, &a1) > 0 &&
            a0 <= pre->first && a1 >= pre->last)
            fl_lo[0] = a0, fl_hi[0] = a1;
        if (side_window(pf, n, ps->contact, ps->cut, t_star, ps->excl, t_star, t_next, 1, INT_MAX, &b0, &b1) > 0 &&
            b0 <= post->first && b1 >= post->last)
            fl_lo[1] = b0, fl_hi[1] = b1;
    }
    /* the velocities from windows as long as the flights support; the instant
       stays the near windows' */
    side_fit pre_near = *pre, post_near = *post;
    if (joint && !res->g_estimated && prm->extend_windows &&
        ((rc = analysis_side_extend(pf, fl_lo[0], fl_hi[0], &res->g, b, ps->com_sigma, 0, pre, err)) ||
         (rc = analysis_side_extend(pf, fl_lo[1], fl_hi[1], &res->g, b, ps->com_sigma, 1, post, err))))
        return rc;
    int extended = pre->first != pre_near.first || post->last != post_near.last;
    if (joint && !res->g_estimated &&
        analysis_flight_noise_from_sides(pf, fl_lo, fl_hi, &res->g, ps->com_sigma, &ps->noise))
        return icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
    double near_t_sd = 0;
    if (extended && (rc = near_instant_sd(ps, &pre_near, &post_near, t_star, inst, &near_t_sd, err)))
        return rc;
    if (joint && analysis_flight_covariance(pf, &ps->noise, pre, post, cov15))
        return icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
    if (joint && analysis_markers_can_hide(b)) /* half-hidden markers' slow error, in no residual */
        for (int k = 0; k < 2; k++) {
            const side_fit *sd = k ? post : pre;
            double bv[3];
            analysis_bead_v_var(ps->tr, b, prm->pos_sigma, pf, sd->first, sd->last, bv);
            icv_debug("noise: side %d's half-hidden markers: v sd %.4g %.4g %.4g m/s", k, sqrt(bv[0]), sqrt(bv[1]),
                      sqrt(bv[2]));
            for (int a = 0; a < 3; a++)
                cov15[6 + 6 * k + a][6 + 6 * k + a] += bv[a];
        }
    analysis_impact imp;
    analysis_measure(b, &res->g, pre, post, t_star, inst->from_meet, prm, joint ? (const double(*)[15])cov15 : NULL,
                     res->g_estimated ? ps->noise.g_spread : 0, &imp);
    imp.t_line = inst->t_line;
    imp.t_line_sd = inst->t_line_sd;
    imp.t_meet = inst->meet_ok ? inst->t_meet : NAN;
    imp.t_meet_sd = inst->meet_ok ? inst->t_meet_sd : NAN;
    imp.t_from_meet = inst->from_meet;
    imp.meet_gap = inst->meet_ok ? inst->line_gap : NAN;
    if ((rc = analysis_calib_propagate(pf, b, &res->g, joint ? NULL : (const double(*)[3])res->g_cov,
                                       res->g_estimated, pre, post, ps->com_sigma, &prm->calib, &imp, err)))
        return rc;
    if (extended)
        imp.t_sd = near_t_sd;
    if (inst->offset_sd > 0) {
        /* the line's height error the meeting reveals: in the instant, and in
           both sides' v, each carried to it along g */
        double o = inst->offset_sd;
        imp.t_sd = hypot(imp.t_sd, o);
        imp.pre.v_sd = icv_v3(hypot(imp.pre.v_sd.x, res->g.x * o), hypot(imp.pre.v_sd.y, res->g.y * o),
                              hypot(imp.pre.v_sd.z, res->g.z * o));
        imp.post.v_sd = icv_v3(hypot(imp.post.v_sd.x, res->g.x * o), hypot(imp.post.v_sd.y, res->g.y * o),
                               hypot(imp.post.v_sd.z, res->g.z * o));
    }
    icv_debug("instant: sd parts: measured %.4g s (near windows' %.4g), offset %.4g, line %.4g (lever %.4g), "
              "meeting %.4g; from the meeting %d",
              imp.t_sd, extended ? near_t_sd : NAN, inst->offset_sd, inst->t_line_sd, inst->t_line_lever_sd,
              inst->t_meet_sd, inst->from_meet);
    imp.t_sd = analysis_impact_instant_sd(inst, imp.t_sd, res->g_estimated);
    analysis_energy_scope(b, &imp);
    analysis_impact_plausibility(&imp, imp.implausible, sizeof imp.implausible);
    ps->imp_row[res->n_impacts] = pf[ps->cand[c]].row;
    ps->imp_gap_sd[res->n_impacts] = inst->meet_ok ? inst->line_gap_sd : INFINITY;
    res->impacts[res->n_impacts++] = imp;
    ps->t_prev = t_star + ps->excl;
    return 0;
}

int analysis_impact_candidate(impact_pass *ps, int c, int *restart, icv_err *err)
{
    double t_next = c + 1 < ps->nc ? ps->pf[ps->cand[c + 1]].t - ps->excl : INFINITY;
    double t_star = ps->pf[ps->cand[c]].t;
    side_fit pre = {0}, post = {0};
    impact_instant inst = {0};
    sides_outcome outcome;
    *restart = 0;
    int rc = fit_sides(ps, c, t_next, &t_star, &pre, &post, &inst, &outcome, err);
    if (rc)
        return rc;
    switch (outcome) {
    case SIDES_OUTLIER:
        *restart = 1;
        return 0;
    case SIDES_LANDED:
        if (ps->n_landed < ANALYSIS_MAX_IMPACTS)
            ps->landed_t[ps->n_landed] = t_star, ps->landed_frame[ps->n_landed] = ps->tr->frame[ps->pf[ps->cand[c]].row];
        ps->n_landed++;
        return 0;
    case SIDES_SHORT:
        ps->have_short = 1;
        if (ps->short_kinks && ps->n_short < ANALYSIS_MAX_IMPACTS) {
            ps->short_t[ps->n_short] = t_star;
            snprintf(ps->short_all[ps->n_short++], sizeof ps->short_all[0], "%s", ps->short_msg);
        }
        return 0;
    case SIDES_UNFIT:
        return 0;
    case SIDES_FITTED:
        break;
    }
    if (!jumps_as_impact(ps, c, t_star, &pre, &post, &inst))
        return 0;
    return measure_impact(ps, c, t_star, t_next, &pre, &post, &inst, err);
}
