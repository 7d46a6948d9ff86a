/* impact_find.c: from 3D tracks to impacts. Poses per frame,
 * the gap between the body's shape and the surface (y = 0 of the surface frame),
 * candidate contacts at the gap's minima, gravity from every free-flight phase
 * at once, then per candidate: fit each side's flight (ballistic centre of mass,
 * torque-free rotation) over a window that leaves out the frames whose exposure
 * overlaps the impact, confirm the velocity jump, and place the impact instant
 * where the pre-impact flight brings the contact point onto the surface. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"

void analysis_params_default(analysis_params *p)
{
    p->pos_sigma = 3e-4;
    p->exposure_s = 0; /* 0: one frame period */
    p->min_side_frames = 4;
    p->max_side_frames = 40;
    p->jump_sigmas = 10;
    p->mc_samples = 400;
    p->method = ANALYSIS_FIT;
    p->keep_outlier_frames = 0;
    memset(&p->calib, 0, sizeof p->calib);
}

static const icv_vec3 UP = {0, 1, 0};

/* Keeps the frame numbers of frames left out as outliers (rows of tr) and says so. */
static void note_outlier_frames(const analysis_tracks *tr, analysis_result *res, const int *rows, int k,
                                const char *why)
{
    for (int i = 0; i < k; i++) {
        long f = tr->frame[rows[i]];
        if (res->n_outlier_frames < ANALYSIS_MAX_OUTLIER_FRAMES)
            res->outlier_frame[res->n_outlier_frames] = f;
        res->n_outlier_frames++;
        icv_warn("frame %ld (t = %.5f s) is %s: left out as an outlier", f, tr->t[rows[i]], why);
    }
}

double analysis_gap_at(const analysis_body *b, icv_mat3 R, icv_vec3 p)
{
    return icv_shape_lowest_point(&b->shape, R, p, UP).y;
}

int analysis_pose_frames(const analysis_tracks *tr, const analysis_body *b, const analysis_params *prm, posed_frame *pf,
                       int *n_out)
{
    int n = 0;
    for (int i = 0; i < tr->n_frames; i++) {
        analysis_pose_params pp = {5.0};
        if (analysis_pose_fit_frame(tr, i, &b->tmpl, prm->pos_sigma, &pp, &pf[n].pose, NULL))
            continue; /* too few markers: no pose in this frame */
        pf[n].row = i;
        pf[n].t = tr->t[i];
        pf[n].gap = analysis_gap_at(b, pf[n].pose.R, pf[n].pose.p);
        n++;
    }
    *n_out = n;
    return 0;
}

/* Gap minima that may be a contact: within five position sigmas plus the larger
 * gap change to a neighbour frame (a fast body may be seen a whole frame's travel
 * away from the surface on either side), or, wherever the surface is, a kink: the
 * centre of mass's height's second difference upwards by more than 6 of its noise
 * sigmas (sqrt(6) sigma), where free flight bends it downwards (the centre's, not
 * the gap's: a single frame turned 6 degrees moves a box's lowest point by
 * centimetres, and a candidate there cut its neighbour's window). A surface
 * drawn a few centimetres off (a line clicked on the wrong edge) left every bounce
 * beyond the first rule
 * ("no impact found: the smallest gap is 26.4 mm"), while the flights kink plainly
 * at any frame rate; the velocity jump decides (analysis_impacts_measure). The kink
 * is looked for over 1, 2, 4 and 8 frames a side (docs/analysis.md). */
#define KINK_MAX_FRAMES 8

static int near_contact(const posed_frame *pf, int n, double sigma, int i)
{
    double gl = i > 0 ? pf[i - 1].gap : INFINITY, gr = i + 1 < n ? pf[i + 1].gap : INFINITY;
    if (!(pf[i].gap <= gl && pf[i].gap < gr) || i == 0 || i + 1 == n)
        return 0;
    double step = fmax(fabs(pf[i].gap - gl), fabs(gr - pf[i].gap));
    /* the frame's travel is measured between frames, the speed at the surface is
       higher: gravity bends a step of dt by up to g dt^2 (11 mm at 30 fps, and more
       where a frame is missing beside the minimum) */
    double dt = fmax(pf[i].t - pf[i - 1].t, pf[i + 1].t - pf[i].t);
    if (pf[i].gap <= 5 * sigma + step + ANALYSIS_G_STANDARD * dt * dt)
        return 1;
    /* the kink over k frames a side, k = 1, 2, 4, 8: the velocity's jump times k dt
       against the same noise, so a bounce at 3000 fps, a fraction of a millimetre a
       frame, shows over several frames where one frame's kink is lost in the noise */
    for (int k = 1; k <= KINK_MAX_FRAMES && i - k >= 0 && i + k < n; k *= 2)
        if (pf[i - k].pose.p.y + pf[i + k].pose.p.y - 2 * pf[i].pose.p.y > 6 * sqrt(6.0) * sigma)
            return 1;
    return 0;
}

/* The contact candidates: minima near the surface that are also the lowest such
 * minimum within `radius` posed frames. While the body moves by less than the
 * noise per frame (high frame rates, a body pivoting on the surface after the
 * impact), the noise makes a minimum every few frames along the contact; each
 * bounded its neighbours' windows to a few frames, so none measured a jump (seed
 * 1020: 11 candidates in 36 frames; 1036: 9 in 32). Two impacts closer than
 * twice the frames a side needs cannot both be fitted anyway. */
/* 1 when the body flies between posed frames a and b: two frames or more between them
 * stand more than 3 sigma above both (one frame turned by noise lifts a box's lowest
 * point by centimetres, a flight lifts several). A ball at 30 fps bounces every 8
 * frames: the lowest-within-radius rule alone kept only the lowest of its bounces
 * (the real green ball's bounces at frames 102 and 116 were lost, and gravity was
 * fitted across them: 1.68 m/s^2). */
static int lifts_off_between(const posed_frame *pf, int a, int b, double sigma)
{
    int lo = a < b ? a : b, hi = a < b ? b : a, up = 0;
    double floor_gap = fmax(pf[a].gap, pf[b].gap) + 3 * sigma;
    for (int k = lo + 1; k < hi; k++)
        up += pf[k].gap > floor_gap;
    return up >= 2;
}

static int find_candidates(const posed_frame *pf, int n, double sigma, int radius, int *cand)
{
    int nc = 0;
    for (int i = 0; i < n && nc < ANALYSIS_MAX_IMPACTS * 2; i++) {
        if (!near_contact(pf, n, sigma, i))
            continue;
        int lowest = 1;
        for (int j = i - radius > 0 ? i - radius : 0; j < n && j <= i + radius && lowest; j++)
            if (j != i && near_contact(pf, n, sigma, j) && (pf[j].gap < pf[i].gap || (pf[j].gap == pf[i].gap && j < i)) &&
                !lifts_off_between(pf, i, j, sigma))
                lowest = 0;
        if (!lowest)
            continue;
        /* two minima with no lift-off beyond the noise between them are one contact:
         * the lower is kept (a body leaving the surface slowly at 3000 fps stays within
         * the noise for tens of frames, beyond the radius above) */
        if (nc > 0) {
            int p = cand[nc - 1];
            double top = -INFINITY;
            for (int k = p + 1; k < i; k++)
                top = fmax(top, pf[k].gap);
            if (top < fmax(pf[p].gap, pf[i].gap) + 3 * sigma) {
                if (pf[i].gap < pf[p].gap)
                    cand[nc - 1] = i;
                continue;
            }
        }
        cand[nc++] = i;
    }
    return nc;
}

/* A candidate within a contact stretch is its landing: moved to the stretch's first
 * frame (the minima along a slide are the noise's; merged, the lowest was kept, in
 * the middle of the slide), dropped when the clip starts in contact. */
static int candidates_at_landings(int n, const unsigned char *contact, int *cand, int nc)
{
    int m = 0;
    for (int c = 0; c < nc; c++) {
        int i = cand[c];
        while (i > 0 && contact[i] && contact[i - 1])
            i--;
        if (contact[i] && i == 0)
            continue;
        if (i >= n || (m > 0 && cand[m - 1] == i))
            continue;
        cand[m++] = i;
    }
    return m;
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

/* The surface is one plane for the whole clip, so its error is common to every
 * impact: an impact whose flights meet with the contact point further from the
 * surface than the clip's best-placed impact by more than OFF_SURFACE_M plus 5 of
 * their combined sigmas touched nothing there (a jump of the tracks centimetres
 * above the surface, taken as a kink; a surface drawn centimetres off moves every
 * impact alike and drops none). The margin is above the tracks' slow height errors
 * (a few millimetres, docs/analysis.md). The index of the worst such impact of
 * res (gap sigmas gap_sd, m), or -1; *ref: the best-placed one's. */
#define OFF_SURFACE_M 0.02

static int off_surface_impact(const analysis_result *res, const double *gap_sd, int *ref_out)
{
    int ref = -1;
    for (int i = 0; i < res->n_impacts; i++)
        if (isfinite(res->impacts[i].meet_gap) &&
            (ref < 0 || fabs(res->impacts[i].meet_gap) < fabs(res->impacts[ref].meet_gap)))
            ref = i;
    int worst = -1;
    double worst_d = 0;
    for (int i = 0; ref >= 0 && i < res->n_impacts; i++) {
        if (i == ref || !isfinite(res->impacts[i].meet_gap))
            continue;
        double d = fabs(res->impacts[i].meet_gap - res->impacts[ref].meet_gap);
        if (d > OFF_SURFACE_M + 5 * hypot(gap_sd[i], gap_sd[ref]) && d > worst_d)
            worst = i, worst_d = d;
    }
    *ref_out = ref;
    return worst;
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

/* |residual| / sigma of sample i of phase k under a joint fit */
static double misfit(const analysis_flight *ph, int k, int i, const analysis_ballistic *f)
{
    double tau = ph[k].t[i] - ph[k].t_ref;
    icv_vec3 m = icv_v3_add(icv_v3_add(f->p0[k], icv_v3_scale(f->v[k], tau)), icv_v3_scale(f->g, 0.5 * tau * tau));
    return icv_v3_norm(icv_v3_sub(ph[k].p[i], m)) / ph[k].sigma[i];
}

/* The free-flight frames between candidates (every frame not within one frame
 * of a candidate), fitted jointly for g. The clip's first and last frames may not
 * be free flight (a hold the rest test missed, e.g. when a marker is badly seen
 * there, or a landing): while the first or the last frame is off the fit by more
 * than 4 times the median misfit's scale (the median of a 3D Gaussian's |r|/sigma
 * is 1.54; the scale is never below the sigmas given), the worse of the two is left
 * out and the fit redone (a 3.3% error in g on a synth clip whose first 6 held
 * frames were kept). */
int analysis_gravity_from_flight(const posed_frame *pf, int n, const int *cand, int nc, double sigma, icv_vec3 *g,
                                 icv_vec3 *g_sd, double g_cov[3][3], analysis_gravity_info *info, icv_err *err)
{
    return analysis_gravity_from_flight_noise(pf, n, NULL, cand, nc, sigma, g, g_sd, g_cov, info, NULL, err);
}

/* g's weights h_g over the posed frames: the g row of (X^T X)^-1 X^T for the kept
 * phases' design (per phase 1 and tau, shared tau^2 / 2) */
static int gravity_weights(const analysis_flight *ph, int nph, const int *const *ix, double *h_g)
{
    int np = 2 * nph + 1;
    gsl_matrix *A = gsl_matrix_calloc((size_t)np, (size_t)np);
    gsl_vector *e = gsl_vector_calloc((size_t)np), *x = gsl_vector_alloc((size_t)np);
    int rc = !A || !e || !x;
    for (int k = 0; !rc && k < nph; k++)
        for (int i = 0; i < ph[k].n; i++) {
            double tau = ph[k].t[i] - ph[k].t_ref, row[3] = {1, tau, 0.5 * tau * tau};
            int col[3] = {2 * k, 2 * k + 1, np - 1};
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    *gsl_matrix_ptr(A, (size_t)col[a], (size_t)col[b]) += row[a] * row[b];
        }
    if (!rc) {
        gsl_vector_set(e, (size_t)(np - 1), 1);
        rc = gsl_linalg_cholesky_decomp1(A) || gsl_linalg_cholesky_solve(A, e, x);
    }
    for (int k = 0; !rc && k < nph; k++) /* (X^T X)^-1 symmetric: its g row is x */
        for (int i = 0; i < ph[k].n; i++) {
            double tau = ph[k].t[i] - ph[k].t_ref;
            h_g[ix[k][i]] = gsl_vector_get(x, (size_t)(2 * k)) + gsl_vector_get(x, (size_t)(2 * k + 1)) * tau +
                            gsl_vector_get(x, (size_t)(np - 1)) * 0.5 * tau * tau;
        }
    gsl_vector_free(x);
    gsl_vector_free(e);
    gsl_matrix_free(A);
    return rc;
}

/* The phases' own accelerations along g (each fitted alone, its sigma from the
 * sample sigmas, or from its residuals where they are larger) against the shared g:
 * their spread beyond their noise, DerSimonian-Laird's tau (m/s^2), when their
 * chi-square is over its 99% point; else 0. The green ball's flights (30 fps) fall at
 * 9.19 +- 0.02, 9.06 +- 0.06 and 8.94 +- 0.14 m/s^2 on their own (chi-square 13.5 on
 * 2 degrees of freedom: spread 0.14), while each side was extrapolated to its impact
 * with the shared g as if exact (docs/analysis.md, e's sigma). */
static double phases_g_spread(const analysis_flight *ph, int nph, icv_vec3 g)
{
    double gn = icv_v3_norm(g), gk[ANALYSIS_MAX_PHASES], wk[ANALYSIS_MAX_PHASES];
    int k_used = 0;
    if (nph < 2 || !(gn > 0))
        return 0;
    icv_vec3 u = icv_v3_scale(g, 1 / gn);
    for (int k = 0; k < nph; k++) {
        analysis_ballistic fk;
        icv_err e2;
        if (ph[k].n < 5 || analysis_ballistic_fit(&ph[k], 1, NULL, &fk, &e2))
            continue;
        /* with sample sigmas the fit's sd is theirs: the residuals' scatter where larger */
        double infl = ph[k].sigma ? fmax(1.0, fk.chi2_dof) : 1.0;
        double var = infl * (u.x * u.x * fk.g_sd.x * fk.g_sd.x + u.y * u.y * fk.g_sd.y * fk.g_sd.y +
                             u.z * u.z * fk.g_sd.z * fk.g_sd.z);
        if (!(var > 0))
            continue;
        gk[k_used] = icv_v3_dot(fk.g, u);
        wk[k_used++] = 1 / var;
    }
    if (k_used < 2)
        return 0;
    double sw = 0, sw2 = 0, swg = 0;
    for (int k = 0; k < k_used; k++)
        sw += wk[k], sw2 += wk[k] * wk[k], swg += wk[k] * gk[k];
    double mean = swg / sw, q = 0;
    for (int k = 0; k < k_used; k++)
        q += wk[k] * (gk[k] - mean) * (gk[k] - mean);
    /* only a spread the phases show beyond chance (chi-square over its 99% point): with
       two phases of white noise the estimate is above 0 a third of the time, and the
       synth balls' sigmas came out 20% too large (test_impact_any_rate.c) */
    double tau2 = q > gsl_cdf_chisq_Qinv(0.01, k_used - 1) ? (q - (k_used - 1)) / (sw - sw2 / sw) : 0;
    icv_debug("gravity: %d phases fall at their own rates with chi-square %.1f about %.4f m/s^2: spread %.3g",
              k_used, q, mean,
              tau2 > 0 ? sqrt(tau2) : 0);
    return tau2 > 0 ? sqrt(tau2) : 0;
}

int analysis_gravity_from_flight_noise(const posed_frame *pf, int n, const unsigned char *contact, const int *cand,
                                       int nc, double sigma,
                                       icv_vec3 *g, icv_vec3 *g_sd, double g_cov[3][3], analysis_gravity_info *info,
                                       analysis_flight_noise *noise, icv_err *err)
{
    analysis_flight ph[ANALYSIS_MAX_PHASES];
    double *t = malloc(sizeof *t * (size_t)n), *s = malloc(sizeof *s * (size_t)n);
    icv_vec3 *p = malloc(sizeof *p * (size_t)n);
    int *ix = malloc(sizeof *ix * (size_t)n), *ph_ix[ANALYSIS_MAX_PHASES];
    int rc = 0, nph = 0, used = 0, lo_of[ANALYSIS_MAX_PHASES], start_of[ANALYSIS_MAX_PHASES];
    if (!t || !s || !p || !ix) {
        rc = icv_err_set(err, ICV_ENOMEM, "gravity: out of memory");
        goto done;
    }
    int longest = 0;
    for (int c = 0; c <= nc && nph < ANALYSIS_MAX_PHASES; c++) {
        /* between candidates (one frame left out on each side), split at frames in
           contact with the surface */
        int lo0 = c == 0 ? 0 : cand[c - 1] + 2, hi0 = c == nc ? n - 1 : cand[c] - 2;
        for (int lo = lo0, hi; lo <= hi0 && nph < ANALYSIS_MAX_PHASES; lo = hi + 1) {
            hi = lo;
            if (contact && contact[lo])
                continue;
            while (hi + 1 <= hi0 && !(contact && contact[hi + 1]))
                hi++;
            longest = hi - lo + 1 > longest ? hi - lo + 1 : longest;
            if (hi - lo + 1 < 4)
                continue;
            int start = used;
            for (int i = lo; i <= hi; i++, used++) {
                ix[used] = i;
                t[used] = pf[i].t;
                p[used] = pf[i].pose.p;
                s[used] = sigma;
            }
            lo_of[nph] = lo;
            start_of[nph] = start;
            ph_ix[nph] = ix + start;
            ph[nph++] =
                (analysis_flight){used - start, t + start, p + start, s + start, 0.5 * (t[start] + t[used - 1])};
        }
    }
    if (nph == 0) {
        rc = icv_err_set(err, ICV_EINVAL,
                         "gravity auto: no free flight long enough to estimate it from: the longest has %d posed "
                         "frame%s, 4 needed",
                         longest, longest == 1 ? "" : "s");
        goto done;
    }
    analysis_ballistic fit;
    double *mis = malloc(sizeof *mis * (size_t)n);
    if (!mis) {
        rc = icv_err_set(err, ICV_ENOMEM, "gravity: out of memory");
        goto done;
    }
    for (;;) {
        if ((rc = analysis_ballistic_fit(ph, nph, NULL, &fit, err)))
            break;
        analysis_flight *a = &ph[0], *z = &ph[nph - 1];
        int can_a = a->n > 4, can_z = z->n > 4, total = 0;
        if (!can_a && !can_z)
            break;
        for (int k = 0; k < nph; k++)
            for (int i = 0; i < ph[k].n; i++)
                mis[total++] = misfit(ph, k, i, &fit);
        double ma = can_a ? mis[0] : -1, mz = can_z ? mis[total - 1] : -1;
        double scale = fmax(1.0, analysis_median(mis, total) / 1.54);
        if (fmax(ma, mz) <= 4 * scale)
            break;
        if (ma >= mz) {
            a->t++;
            a->p++;
            a->sigma++;
            a->n--;
            ph_ix[0]++;
        } else {
            z->n--;
        }
    }
    free(mis);
    if (rc)
        goto done;
    *g = fit.g;
    { /* residuals correlated from frame to frame: g is less certain (the phases'
       * residuals joined; each seam between phases counts as one lag) */
        icv_vec3 *r = malloc(sizeof *r * (size_t)n);
        if (!r) {
            rc = icv_err_set(err, ICV_ENOMEM, "gravity: out of memory");
            goto done;
        }
        int total = 0;
        for (int k = 0; k < nph; k++)
            for (int i = 0; i < ph[k].n; i++) {
                double tau = ph[k].t[i] - ph[k].t_ref;
                r[total++] = icv_v3_sub(ph[k].p[i], icv_v3_add(icv_v3_add(fit.p0[k], icv_v3_scale(fit.v[k], tau)),
                                                                icv_v3_scale(fit.g, 0.5 * tau * tau)));
            }
        /* g's error follows the track errors, neither isotropic nor equally
         * correlated on every axis: its covariance from the residuals' own
         * scatter, each principal direction an AR(1) series with its own lag-1
         * correlation, through g's exact weights (flight_noise.c). On the synth
         * video study the isotropic sigma (sigma given, correlation pooled over
         * the axes) was 2.2 times g's error along g (test_synth_video_study.c). */
        analysis_flight_noise local = {0}, *nz = noise ? noise : &local;
        if (!noise && analysis_flight_noise_alloc(&local, n)) {
            free(r);
            rc = icv_err_set(err, ICV_ENOMEM, "gravity: out of memory");
            goto done;
        }
        analysis_flight_noise_reset(nz);
        for (int k = 0, off = 0; k < nph; off += ph[k].n, k++)
            analysis_flight_noise_add(nz, ph_ix[k], ph[k].t, r + off, ph[k].n, 3, sigma);
        analysis_flight_noise_close(nz);
        memset(nz->h_g, 0, sizeof *nz->h_g * (size_t)nz->n);
        if (gravity_weights(ph, nph, (const int *const *)ph_ix, nz->h_g)) {
            memset(g_cov, 0, 9 * sizeof g_cov[0][0]); /* singular: cannot happen after the fit */
            for (int a = 0; a < 3; a++)
                g_cov[a][a] = fit.g_sd.x * fit.g_sd.x;
        } else if (analysis_flight_noise_g_cov(nz, g_cov)) {
            rc = icv_err_set(err, ICV_ENOMEM, "gravity: out of memory");
        }
        if (!rc)
            nz->g_spread = phases_g_spread(ph, nph, fit.g);
        analysis_flight_noise_free(&local);
        free(r);
        if (rc)
            goto done;
        fit.g_sd = icv_v3(sqrt(g_cov[0][0]), sqrt(g_cov[1][1]), sqrt(g_cov[2][2]));
    }
    *g_sd = fit.g_sd;
    if (info) { /* the posed frames the trimmed phases span: first of the first, last of the last */
        const analysis_flight *z = &ph[nph - 1];
        info->first = lo_of[0] + (int)(ph[0].t - t);
        info->last = lo_of[nph - 1] + (int)(z->t - (t + start_of[nph - 1])) + z->n - 1;
    }
done:
    free(t);
    free(s);
    free(p);
    free(ix);
    return rc;
}

void analysis_still_ends(const posed_frame *pf, int n, double com_sigma, int *lo_out, int *hi_out)
{
    /* still: within the noise of the run's first (last) frame, not of the frame before
     * it: at 3000 fps a body in flight moves less than the noise from one frame to the
     * next, and a step-by-step test called whole clips held */
    double lim = 4 * com_sigma * sqrt(2.0);
    int lo = 0, hi = n - 1;
    while (lo + 1 < n && icv_v3_norm(icv_v3_sub(pf[lo + 1].pose.p, pf[0].pose.p)) < lim)
        lo++;
    if (lo < 2)
        lo = 0; /* fewer than 3 still frames: not a hold */
    while (hi - 1 > lo && icv_v3_norm(icv_v3_sub(pf[hi - 1].pose.p, pf[n - 1].pose.p)) < lim)
        hi--;
    if (n - 1 - hi < 2)
        hi = n - 1;
    *lo_out = lo;
    *hi_out = hi;
}

/* Appends to buf (cap bytes, len used): the new length, at most cap - 1 (a message cut
 * short, never written past its buffer). */
static size_t appendf(char *buf, size_t cap, size_t len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t appendf(char *buf, size_t cap, size_t len, const char *fmt, ...)
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
static size_t side_describe(const analysis_tracks *tr, const posed_frame *pf, int n, int npost, int first, int last,
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
    len = appendf(buf, cap, len, "only %d posed frame%s %s it", npost, npost == 1 ? "" : "s",
                  post ? "after" : "before");
    if (npost > 0)
        len = appendf(buf, cap, len, " (frames %d-%d", tr->frame[pf[first].row], tr->frame[pf[last].row]);
    if (n_un > 0) {
        len = appendf(buf, cap, len, "%s", npost > 0 ? "; " : " (");
        if (!any) /* every marker seen: the frames were left out */
            len = appendf(buf, cap, len, "%d frame%s %d-%d left out: held or outliers", n_un, n_un == 1 ? "" : "s",
                          f0, f1);
        else {
            const char *sep = "markers ";
            for (int k = 0; k < nm; k++)
                if (miss[k]) {
                    len = appendf(buf, cap, len, "%s%d", sep, k);
                    sep = ", ";
                }
            len = appendf(buf, cap, len, " missing in %d frame%s %d-%d", n_un, n_un == 1 ? "" : "s", f0, f1);
            sep = ": marker ";
            for (int k = 0; k < nm && uneven; k++)
                if (miss[k]) {
                    len = appendf(buf, cap, len, "%s%d in %d", sep, k, miss[k]);
                    sep = ", ";
                }
        }
    }
    int clip_end = (post ? isinf(t_hi) : isinf(t_lo)) && n_un == 0 && tr->n_frames > 0;
    if (clip_end)
        len = appendf(buf, cap, len, "%sthe clip %s there", npost > 0 ? "; " : " (", post ? "ends" : "starts");
    if (npost > 0 || n_un > 0 || clip_end)
        len = appendf(buf, cap, len, ")");
    return len;
}

/* Pre- or post-impact window around t_star, between the neighbouring impacts. */
static int side_window(const posed_frame *pf, int n, const unsigned char *contact, double t_star, double excl,
                       double t_lo, double t_hi, int post, int max_frames, int *first, int *last)
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
        while (k <= b && !contact[k])
            k++;
        b = k - 1;
    } else {
        int k = b;
        while (k >= a && !contact[k])
            k--;
        a = k + 1;
    }
    if (b < a) {
        *first = *last = post ? a : b;
        return 0;
    }
    if (b - a + 1 > max_frames) {
        if (post)
            b = a + max_frames - 1;
        else
            a = b - max_frames + 1;
    }
    *first = a;
    *last = b;
    return b - a + 1;
}

/* g given: the free flights' own acceleration, fitted as gravity: auto would on the
 * same frames, kept beside the given g for analysis_gravity_flight_disagrees; no
 * check (g_flight_fit 0) without a flight long enough to fit */
static void gravity_flight_fit(const posed_frame *pf, int n, const unsigned char *contact, const int *cand, int nc,
                               double com_sigma, analysis_result *res)
{
    analysis_flight_noise nz = {0};
    double cov[3][3];
    icv_err e = {0};
    res->g_flight_fit = 0;
    if (analysis_flight_noise_alloc(&nz, n) == 0 &&
        analysis_gravity_from_flight_noise(pf, n, contact, cand, nc, com_sigma, &res->g_flight, &res->g_flight_sd,
                                           cov, NULL, &nz, &e) == 0) {
        res->g_flight_spread = nz.g_spread;
        /* the centre's systematic error (a marker seen off its centre, a pose bias
           that drifts with the attitude) bends a flight as noise does not: a bow of
           ANALYSIS_G_FLIGHT_BIAS_M over the longest flight T is 8 bias / T^2 of g */
        double T = 0;
        for (int i = 0; i < res->n_flights; i++)
            T = fmax(T, res->flights[i].t_end - res->flights[i].t_start);
        res->g_flight_sys = T > 0 ? 8 * ANALYSIS_G_FLIGHT_BIAS_M / (T * T) : INFINITY;
        res->g_flight_fit = 1;
    }
    analysis_flight_noise_free(&nz);
}

int analysis_impacts_measure(const analysis_tracks *tr, const analysis_body *b, const icv_vec3 *gravity,
                             const analysis_params *params, analysis_result *res, icv_err *err)
{
    analysis_params prm;
    if (params)
        prm = *params;
    else
        analysis_params_default(&prm);
    memset(res, 0, sizeof *res);
    res->calib = prm.calib;
    if (tr->n_frames < prm.min_side_frames)
        return icv_err_set(err, ICV_EINVAL,
                           "tracks: %d frame%s, too few to fit a flight (%d needed) or find an impact (%d needed)",
                           tr->n_frames, tr->n_frames == 1 ? "" : "s", prm.min_side_frames,
                           2 * prm.min_side_frames + 1);
    posed_frame *pf = malloc(sizeof *pf * (size_t)tr->n_frames);
    unsigned char *contact = malloc((size_t)tr->n_frames), *posed_row = calloc((size_t)tr->n_frames, 1);
    if (!pf || !contact || !posed_row) {
        free(pf);
        free(contact);
        free(posed_row);
        return icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
    }
    analysis_flight_noise noise = {0};
    int n = 0, rc = 0, have_rest_end = 0;
    analysis_contact rest_end = {0};
    analysis_pose_frames(tr, b, &prm, pf, &n);
    res->n_poses = n;
    for (int i = 0; i < n; i++) /* before held and outlier frames leave pf: they were posed */
        posed_row[pf[i].row] = 1;
    {
        /* A body held before release, or at rest after the last landing, is not in
         * free flight: runs of 3 or more frames at the clip's start or end whose
         * centre moves less than 4 sigma per frame are left out (the frame where the
         * motion starts is still at rest: the release comes after it). */
        double sig = prm.pos_sigma / sqrt((double)b->tmpl.n_markers);
        int lo, hi;
        analysis_still_ends(pf, n, sig, &lo, &hi);
        if (hi < n - 1 && fabs(pf[n - 1].gap) <= 5 * prm.pos_sigma) { /* at rest on the surface: a contact */
            rest_end = (analysis_contact){tr->frame[pf[hi + 1].row], tr->frame[pf[n - 1].row], pf[hi + 1].t,
                                          pf[n - 1].t, 0};
            have_rest_end = 1;
        }
        if (lo > 0 || hi < n - 1) {
            memmove(pf, pf + lo, sizeof *pf * (size_t)(hi - lo + 1));
            n = hi - lo + 1;
            res->held_frames = tr->n_frames > 0 ? res->n_poses - n : 0;
        }
    }
    double sigma = prm.pos_sigma;
    if (tr->sigma) { /* the mean marker sigma of the tracks */
        sigma = 0;
        int cnt = 0;
        for (int i = 0; i < tr->n_frames * tr->n_markers; i++)
            if (tr->seen[i]) {
                sigma += tr->sigma[i];
                cnt++;
            }
        sigma = cnt ? sigma / cnt : prm.pos_sigma;
    }
    /* the centre of mass is the mean of several markers: its sigma is smaller */
    double com_sigma = sigma / sqrt((double)b->tmpl.n_markers);
    if (!prm.keep_outlier_frames) {
        int rows[ANALYSIS_MAX_OUTLIER_FRAMES];
        int k = analysis_outlier_frames(pf, &n, b, com_sigma, 5 * sigma, rows, ANALYSIS_MAX_OUTLIER_FRAMES);
        if (k < 0) {
            rc = icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
            goto done;
        }
        note_outlier_frames(tr, res, rows, k, "off the motion the frames beside it agree on");
    }
    if (n < prm.min_side_frames) {
        rc = icv_err_set(err, ICV_EINVAL, "tracks: only %d of %d frames have enough markers for a pose", n,
                         tr->n_frames);
        goto done;
    }
    res->min_gap = INFINITY;
    for (int i = 0; i < n; i++)
        if (pf[i].gap < res->min_gap) {
            res->min_gap = pf[i].gap;
            res->min_gap_t = pf[i].t;
        }
    double period = (pf[n - 1].t - pf[0].t) / (tr->frame[pf[n - 1].row] - tr->frame[pf[0].row]);
    double excl = 0.5 * (prm.exposure_s > 0 ? prm.exposure_s : period);

    int cand[ANALYSIS_MAX_IMPACTS * 2];
    /* candidates whose side would not fit (a rotation fit that does not converge on a
       stretch of bad poses): the first one's reason, and how many */
    char unfit_msg[ICV_ERR_MSG_MAX];
    int n_unfit;
    /* candidates whose flights meet inside a side's frames (flights_meet_between):
       the first one's reason, and how many */
    char apart_msg[ICV_ERR_MSG_MAX];
    int n_apart;
    /* candidates found off the surface (off_surface_impact): their rows, kept
       out of every pass after, and what was said of the first */
    int off_row[ANALYSIS_MAX_IMPACTS], n_off = 0;
    char off_msg[ICV_ERR_MSG_MAX] = "";
    int imp_row[ANALYSIS_MAX_IMPACTS];
    double imp_gap_sd[ANALYSIS_MAX_IMPACTS];
    /* candidates of a weak jump (weak_jump_consistent): found in one pass
       (weak_*), accepted in every pass after when no impact lies at them (ok_row) */
    int ok_row[ANALYSIS_MAX_IMPACTS], n_ok = 0, n_weak;
    int weak_row[ANALYSIS_MAX_IMPACTS];
    double weak_t[ANALYSIS_MAX_IMPACTS], weak_sd[ANALYSIS_MAX_IMPACTS];
    /* back here, with every impact measured again, when a frame beside an impact
       turns out an outlier: it was in the gaps and gravity's fit too */
restart:;
    n_weak = 0;
    unfit_msg[0] = 0;
    n_unfit = 0;
    apart_msg[0] = 0;
    n_apart = 0;
    analysis_contact_find(pf, n, sigma, com_sigma, tr, contact, res);
    if (have_rest_end && res->n_contacts < ANALYSIS_MAX_CONTACTS) {
        /* the rest trimmed off the clip's end, after any stretch before it (a
           slide coming to rest: two stretches, moving then resting) */
        res->contacts[res->n_contacts++] = rest_end;
    }
    int nc = find_candidates(pf, n, sigma, 2 * prm.min_side_frames, cand);
    nc = candidates_at_landings(n, contact, cand, nc);
    {
        int m = 0;
        for (int c = 0; c < nc; c++) {
            int off = 0;
            for (int k = 0; k < n_off; k++)
                off |= pf[cand[c]].row == off_row[k];
            if (!off)
                cand[m++] = cand[c];
        }
        nc = m;
    }
    analysis_flight_noise_free(&noise);
    res->n_impacts = 0;
    res->g_estimated = 0;
    if (analysis_flight_noise_alloc(&noise, n)) {
        rc = icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
        goto done;
    }
    if (gravity) {
        res->g = *gravity;
    } else {
        if ((rc = analysis_gravity_from_flight_noise(pf, n, contact, cand, nc, com_sigma, &res->g, &res->g_sd,
                                                     res->g_cov, NULL, &noise, err)))
            goto done;
        res->g_estimated = 1;
    }

    /* measure each candidate; keep those with a real velocity jump */
    int have_short = 0, n_landed = 0, landed_frame[ANALYSIS_MAX_IMPACTS];
    double landed_t[ANALYSIS_MAX_IMPACTS];
    char short_msg[ICV_ERR_MSG_MAX] = "", landed_msg[ICV_ERR_MSG_MAX] = "";
    double t_prev = -INFINITY;
    for (int c = 0; c < nc && res->n_impacts < ANALYSIS_MAX_IMPACTS; c++) {
        double t_next = c + 1 < nc ? pf[cand[c + 1]].t - excl : INFINITY;
        double t_star = pf[cand[c]].t;
        analysis_impact imp;
        side_fit pre = {0}, post = {0};
        impact_instant inst = {0};
        int ok = 0, too_few = 0;
        for (int iter = 0; iter < 4; iter++) {
            int a0 = 0, a1 = 0, b0 = 0, b1 = 0;
            int npre = side_window(pf, n, contact, t_star, excl, t_prev, t_star, 0, prm.max_side_frames, &a0, &a1);
            int npost = side_window(pf, n, contact, t_star, excl, t_star, t_next, 1, prm.max_side_frames, &b0, &b1);
            if (!prm.keep_outlier_frames) {
                int k = -1;
                if (npre > prm.min_side_frames && analysis_near_end_outlier(pf, a0, a1, 0, &res->g, b, com_sigma))
                    k = a1;
                else if (npost > prm.min_side_frames &&
                         analysis_near_end_outlier(pf, b0, b1, 1, &res->g, b, com_sigma))
                    k = b0;
                if (k >= 0) {
                    note_outlier_frames(tr, res, &pf[k].row, 1,
                                        k == a1 ? "off its flight, the last before an impact"
                                                : "off its flight, the first after an impact");
                    memmove(pf + k, pf + k + 1, sizeof *pf * (size_t)(n - k - 1));
                    n--;
                    goto restart;
                }
            }
            if (npost < prm.min_side_frames && landed_for_good(pf, n, contact, t_star, excl)) {
                /* the body stays on the surface after it: its last landing, not an
                   impact to measure; said, never an error on its own */
                too_few = 2;
                snprintf(landed_msg, sizeof landed_msg,
                         "impact at frame %d (t = %.4f s): the body stays on the surface after it (see the contact "
                         "frames): not measured",
                         tr->frame[pf[cand[c]].row], t_star);
                break;
            }
            if (npre < prm.min_side_frames || npost < prm.min_side_frames) {
                too_few = 1;
                size_t cap = sizeof short_msg, len = appendf(short_msg, cap, 0, "impact at frame %d (t = %.4f s): ",
                                                              tr->frame[pf[cand[c]].row], t_star);
                if (npre < prm.min_side_frames)
                    len = side_describe(tr, pf, n, npre, a0, a1, t_star, t_prev, t_star, 0, short_msg, cap, len);
                if (npre < prm.min_side_frames && npost < prm.min_side_frames)
                    len = appendf(short_msg, cap, len, " and ");
                if (npost < prm.min_side_frames)
                    len = side_describe(tr, pf, n, npost, b0, b1, t_star, t_star, t_next, 1, short_msg, cap, len);
                appendf(short_msg, cap, len, ", %d needed on each side to fit", prm.min_side_frames);
                break;
            }
            icv_err fe = {0};
            if (analysis_side_fit(pf, a0, a1, t_star, &res->g, b, com_sigma, 0, &pre, &fe) ||
                analysis_side_fit(pf, b0, b1, t_star, &res->g, b, com_sigma, 1, &post, &fe)) {
                if (fe.code != ICV_ENUMERIC) {
                    rc = icv_err_set(err, fe.code, "%s", fe.msg);
                    goto done;
                }
                /* a candidate its frames cannot fit is not measured; the others are */
                if (n_unfit++ == 0)
                    snprintf(unfit_msg, sizeof unfit_msg, "impact candidate at frame %d (t = %.4f s): %s",
                             tr->frame[pf[cand[c]].row], t_star, fe.msg);
                ok = 0;
                break;
            }
            double lo = pf[a1].t, hi = pf[b0].t;
            if (prm.method == ANALYSIS_FIT)
                analysis_impact_instant(b, &pre, &post, &res->g, t_star, lo, hi, period, prm.calib.offset, &inst);
            else
                inst = (impact_instant){.t = analysis_contact_instant(b, &pre, &res->g, t_star, lo, hi)};
            double t_new = inst.t;
            ok = 1;
            if (fabs(t_new - t_star) < 1e-7) {
                t_star = t_new;
                break;
            }
            t_star = t_new;
        }
        if (too_few == 2) {
            if (n_landed < ANALYSIS_MAX_IMPACTS)
                landed_t[n_landed] = t_star, landed_frame[n_landed] = tr->frame[pf[cand[c]].row];
            n_landed++;
            continue;
        }
        if (too_few) {
            have_short = 1;
            continue;
        }
        if (!ok)
            continue;
        /* a contact is an impact when the normal velocity jumps */
        double dv = post.v.y - pre.v.y;
        double sd = hypot(pre.v_sd.y, post.v_sd.y);
        if (dv > prm.jump_sigmas * sd && prm.method == ANALYSIS_FIT && inst.meet_ok &&
            !flights_meet_between(&inst, &pre, &post, period)) {
            /* a jump of the tracks, not of the motion: the flights cross inside
               one side's own frames, which that side's one flight fits (no change
               of motion there); a real impact's meet between the windows on every
               kept tuning scene (docs/analysis.md) */
            int in_pre = inst.t_meet < pre.t_last;
            if (n_apart++ == 0)
                snprintf(apart_msg, sizeof apart_msg,
                         "impact candidate at frame %d (t = %.5f s): its normal velocity jumps by %.3f +- %.3f m/s, "
                         "but its flights meet at t = %.5f +- %.5f s, %.1f frames inside its %s-impact frames (the "
                         "centre of mass does not jump at an impact): a jump of the tracks, not an impact",
                         tr->frame[pf[cand[c]].row], t_star, dv, sd, inst.t_meet, inst.t_meet_sd,
                         (in_pre ? pre.t_last - inst.t_meet : inst.t_meet - post.t_first) / period,
                         in_pre ? "pre" : "post");
            continue;
        }
        if (!(dv > prm.jump_sigmas * sd)) {
            int weak = prm.method == ANALYSIS_FIT && dv > WEAK_JUMP_SIGMAS * sd &&
                       weak_jump_consistent(&inst, &pre, &post, period);
            int accepted = 0;
            for (int k = 0; k < n_ok; k++)
                accepted |= ok_row[k] == pf[cand[c]].row;
            if (weak && !accepted && n_weak < ANALYSIS_MAX_IMPACTS) {
                weak_row[n_weak] = pf[cand[c]].row;
                weak_t[n_weak] = inst.t_meet;
                weak_sd[n_weak++] = inst.t_meet_sd;
            }
            if (!(weak && accepted))
                continue;
        }
        if (prm.method == ANALYSIS_HOUBOLT) {
            int a1 = pre.last, b0 = post.first;
            if (a1 < 3 || b0 + 3 >= n) {
                have_short = 1;
                snprintf(short_msg, sizeof short_msg, "impact near t = %.4f s: Houbolt needs 4 frames on each side",
                         t_star);
                continue;
            }
            analysis_houbolt_side(pf, a1, 0, sigma, b, &pre);
            analysis_houbolt_side(pf, b0, 1, sigma, b, &post);
        }
        /* the fit: g and both sides' states drawn jointly (they share frames), so
         * g's error is in the Monte Carlo and not added again below */
        double cov15[15][15];
        int joint = prm.method == ANALYSIS_FIT;
        int fl_lo[2] = {pre.first, post.first}, fl_hi[2] = {pre.last, post.last};
        if (joint && !res->g_estimated) { /* the noise from the whole flights the sides are part of */
            int a0, a1, b0, b1;
            if (side_window(pf, n, contact, t_star, excl, t_prev, t_star, 0, INT_MAX, &a0, &a1) > 0 &&
                a0 <= pre.first && a1 >= pre.last)
                fl_lo[0] = a0, fl_hi[0] = a1;
            if (side_window(pf, n, contact, t_star, excl, t_star, t_next, 1, INT_MAX, &b0, &b1) > 0 &&
                b0 <= post.first && b1 >= post.last)
                fl_lo[1] = b0, fl_hi[1] = b1;
        }
        if (joint && ((!res->g_estimated &&
                       analysis_flight_noise_from_sides(pf, fl_lo, fl_hi, &res->g, com_sigma, &noise)) ||
                      analysis_flight_covariance(pf, &noise, &pre, &post, cov15))) {
            rc = icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
            goto done;
        }
        analysis_measure(b, &res->g, &pre, &post, t_star, inst.from_meet, &prm,
                         joint ? (const double(*)[15])cov15 : NULL, res->g_estimated ? noise.g_spread : 0, &imp);
        imp.t_line = inst.t_line;
        imp.t_line_sd = inst.t_line_sd;
        imp.t_meet = inst.meet_ok ? inst.t_meet : NAN;
        imp.t_meet_sd = inst.meet_ok ? inst.t_meet_sd : NAN;
        imp.t_from_meet = inst.from_meet;
        imp.meet_gap = inst.meet_ok ? inst.line_gap : NAN;
        if ((rc = analysis_calib_propagate(pf, b, &res->g, joint ? NULL : (const double(*)[3])res->g_cov,
                                           res->g_estimated, &pre, &post, com_sigma, &prm.calib, &imp, err)))
            goto done;
        if (inst.offset_sd > 0) {
            /* the line's height error the meeting reveals: in the instant, and in
               both sides' v, each carried to it along g */
            double o = inst.offset_sd;
            imp.t_sd = hypot(imp.t_sd, o);
            imp.pre.v_sd = icv_v3(hypot(imp.pre.v_sd.x, res->g.x * o), hypot(imp.pre.v_sd.y, res->g.y * o),
                                  hypot(imp.pre.v_sd.z, res->g.z * o));
            imp.post.v_sd = icv_v3(hypot(imp.post.v_sd.x, res->g.x * o), hypot(imp.post.v_sd.y, res->g.y * o),
                                   hypot(imp.post.v_sd.z, res->g.z * o));
        }
        analysis_energy_scope(b, &imp);
        analysis_impact_plausibility(&imp, imp.implausible, sizeof imp.implausible);
        imp_row[res->n_impacts] = pf[cand[c]].row;
        imp_gap_sd[res->n_impacts] = inst.meet_ok ? inst.line_gap_sd : INFINITY;
        res->impacts[res->n_impacts++] = imp;
        t_prev = t_star + excl;
    }
    if (n_off < ANALYSIS_MAX_IMPACTS) {
        int ref, k = off_surface_impact(res, imp_gap_sd, &ref);
        if (k >= 0) {
            const analysis_impact *im = &res->impacts[k];
            if (n_off == 0)
                snprintf(off_msg, sizeof off_msg,
                         "impact candidate at frame %d (t = %.5f s): its flights meet with the contact point %.1f mm "
                         "%s the surface, where another impact meets it %.1f mm from it: not a contact with the "
                         "surface (the tracks jumping there?): not measured",
                         tr->frame[imp_row[k]], im->t, fabs(im->meet_gap) * 1e3, im->meet_gap < 0 ? "below" : "above",
                         fabs(res->impacts[ref].meet_gap) * 1e3);
            off_row[n_off++] = imp_row[k];
            goto restart;
        }
    }
    {
        int added = 0;
        for (int w = 0; w < n_weak && n_ok < ANALYSIS_MAX_IMPACTS; w++) {
            int near = 0;
            for (int i = 0; i < res->n_impacts; i++)
                near |= fabs(res->impacts[i].t - weak_t[w]) <=
                        fmax(2 * period, 3 * hypot(res->impacts[i].t_sd, weak_sd[w]));
            if (!near) {
                ok_row[n_ok++] = weak_row[w];
                added = 1;
            }
        }
        if (added)
            goto restart;
    }
    /* impacts the poses cannot show: said, never measured */
    unposed_impact unp[ANALYSIS_MAX_IMPACTS];
    int n_unp = analysis_unposed_impacts(tr, b, pf, n, contact, posed_row, res, sigma, com_sigma, prm.min_side_frames,
                                         prm.max_side_frames, period, unp, ANALYSIS_MAX_IMPACTS);
    if (off_msg[0])
        icv_warn("%s%s", off_msg, n_off > 1 ? ", nor others like it" : "");
    /* what the final pass measured and left out, said once (a restart measures
       every impact again) */
    for (int i = 0; i < res->n_contacts; i++) {
        const analysis_contact *ct = &res->contacts[i];
        icv_warn("frames %ld-%ld (t = %.4f-%.4f s): the body is %s on the surface: left out of gravity and of every "
                 "flight's fit",
                 ct->frame_first, ct->frame_last, ct->t_first, ct->t_last,
                 ct->sliding ? "moving (sliding, rolling or rocking)" : "resting");
    }
    for (int i = 0; i < n_landed && i < ANALYSIS_MAX_IMPACTS; i++)
        icv_warn("impact at frame %d (t = %.4f s): the body stays on the surface after it (see the contact frames): "
                 "not measured",
                 landed_frame[i], landed_t[i]);
    for (int i = 0; i < res->n_impacts; i++) {
        const analysis_impact *im = &res->impacts[i];
        if (im->t_from_meet)
            icv_warn("impact at t = %.5f s: the flights on each side meet at t = %.5f +- %.5f s, %.2f frames from "
                     "where the pre-impact flight reaches the surface (t = %.5f +- %.5f s): the flights' meeting is "
                     "used, as it needs no surface; the contact point is %.1f mm %s the surface there: check "
                     "the surface (line_px, plane or board)",
                     im->t, im->t_meet, im->t_meet_sd, (im->t_meet - im->t_line) / period, im->t_line, im->t_line_sd,
                     fabs(im->meet_gap) * 1e3, im->meet_gap < 0 ? "below" : "above");
        if (im->implausible[0])
            icv_warn("impact at t = %.5f s is physically implausible: %s; likely causes: the surface (its line or "
                     "plane), the scale, duplicated frames, a wrong capture rate, or tracks of something other than "
                     "the body's markers",
                     im->t, im->implausible);
    }
    int short_frames = 0, n_short = analysis_flights_fit(pf, n, contact, tr, com_sigma, excl, prm.min_side_frames, res,
                                                                &short_frames);
    if (n_short < 0) {
        rc = icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
        goto done;
    }
    if (n_apart > 0)
        icv_warn("%s: not measured%s", apart_msg, n_apart > 1 ? ", nor other candidates like it" : "");
    if (n_unfit > 0 && res->n_impacts > 0)
        icv_warn("%s: not measured%s", unfit_msg, n_unfit > 1 ? ", nor other candidates like it" : "");
    if (res->n_impacts == 0 && n_unfit > 0)
        rc = icv_err_set(err, ICV_ENUMERIC, "%s, and no impact measured", unfit_msg);
    else if (res->n_impacts == 0 && n_landed > 0 && !have_short)
        rc = icv_err_set(err, ICV_EINVAL, "%s, and no other impact", landed_msg);
    else if (res->n_impacts == 0 && !have_short && !gravity) {
        /* a flight-only clip (a toss, a free fall): its flights are the result */
        if (res->n_flights == 0)
            rc = icv_err_set(err, ICV_EINVAL,
                             "no impact found, and the flight is too short to fit: %d frames, %d needed",
                             short_frames > 0 ? short_frames : n, prm.min_side_frames);
        else
            icv_warn("no impact found (the smallest gap between the body and the surface is %.1f mm at t = %.4f "
                     "s): measured as free flight, %d flight%s",
                     res->min_gap * 1e3, res->min_gap_t, res->n_flights, res->n_flights == 1 ? "" : "s");
    } else if (res->n_impacts == 0) {
        if (have_short) {
            rc = icv_err_set(err, ICV_EINVAL, "%s", short_msg);
        } else if (n >= 3 && pf[n - 1].gap < pf[n - 2].gap && pf[n - 2].gap < pf[n - 3].gap &&
                   pf[n - 1].row + 1 < tr->n_frames) {
            /* the poses end while the body still approaches, with frames after: the
               impact is in frames without a pose (markers lost), not absent */
            char msg[ICV_ERR_MSG_MAX];
            size_t len = appendf(msg, sizeof msg, 0,
                                 "no impact measured: the poses end at frame %d (t = %.4f s) with the body %.1f mm "
                                 "above the surface and approaching it: ",
                                 tr->frame[pf[n - 1].row], pf[n - 1].t, pf[n - 1].gap * 1e3);
            side_describe(tr, pf, n, 0, n - 1, n - 1, pf[n - 1].t, pf[n - 1].t, INFINITY, 1, msg, sizeof msg, len);
            rc = icv_err_set(err, ICV_ENOTFOUND, "%s", msg);
        } else if (n_unp > 0) {
            char msg[ICV_ERR_MSG_MAX];
            analysis_unposed_describe(&unp[0], msg, sizeof msg);
            rc = icv_err_set(err, ICV_ENOTFOUND,
                             "no impact found in the posed frames: %s: an impact there cannot be measured without "
                             "poses on both sides%s (the smallest gap in the posed frames is %.1f mm at t = %.4f s)",
                             msg, n_unp > 1 ? ", nor others like it" : "", res->min_gap * 1e3, res->min_gap_t);
            n_unp = 0; /* said in the error */
        } else {
            rc = icv_err_set(err, ICV_ENOTFOUND,
                             "no impact found: the smallest gap between the body and the surface is %.1f mm at "
                             "t = %.4f s",
                             res->min_gap * 1e3, res->min_gap_t);
        }
    } else if (have_short) {
        icv_warn("%s: skipped", short_msg);
    }
    for (int i = 0; i < n_unp; i++) {
        char msg[ICV_ERR_MSG_MAX];
        analysis_unposed_describe(&unp[i], msg, sizeof msg);
        icv_warn("%s: probably an impact there, not measured (an impact needs poses on both sides)", msg);
    }
    if (!rc && gravity)
        gravity_flight_fit(pf, n, contact, cand, nc, com_sigma, res);
done:
    analysis_flight_noise_free(&noise);
    free(pf);
    free(contact);
    free(posed_row);
    return rc;
}

int analysis_scale_from_gravity(const analysis_tracks *tr, const analysis_body *b, double *scale, double *sd,
                                icv_err *err)
{
    /* In unknown units the shape's gap means nothing: phases are split at the local
     * minima of the centre of mass's height (bounces), leaving out 2 frames on each
     * side, and fitted jointly with the noise scale taken from the residuals. */
    int n = tr->n_frames;
    double *t = malloc(sizeof *t * (size_t)(n ? n : 1));
    icv_vec3 *p = malloc(sizeof *p * (size_t)(n ? n : 1));
    int rc = 0, m = 0;
    if (!t || !p) {
        rc = icv_err_set(err, ICV_ENOMEM, "scale from gravity: out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        analysis_pose pose;
        if (analysis_pose_fit_frame(tr, i, &b->tmpl, 0, NULL, &pose, NULL))
            continue;
        t[m] = tr->t[i];
        p[m] = pose.p;
        m++;
    }
    analysis_flight ph[ANALYSIS_MAX_PHASES];
    int nph = 0, lo = 0;
    for (int i = 1; i <= m && nph < ANALYSIS_MAX_PHASES; i++) {
        int bounce = i < m - 1 && p[i].y < p[i - 1].y && p[i].y <= p[i + 1].y;
        if (!bounce && i < m)
            continue;
        int hi = i < m ? i - 2 : m - 1;
        if (hi - lo + 1 >= 5)
            ph[nph++] = (analysis_flight){hi - lo + 1, t + lo, p + lo, NULL, 0.5 * (t[lo] + t[hi])};
        lo = i + 2;
    }
    if (nph == 0) {
        rc = icv_err_set(err, ICV_EINVAL, "scale from gravity: no free flight of 5 frames or more to scale from");
        goto done;
    }
    analysis_ballistic fit;
    if ((rc = analysis_ballistic_fit(ph, nph, NULL, &fit, err))) {
        icv_err_prefix(err, "scale from gravity: ");
        goto done;
    }
    double gn = icv_v3_norm(fit.g);
    if (!(gn > 0)) {
        rc = icv_err_set(err, ICV_EINVAL, "scale from gravity: the tracks do not fall");
        goto done;
    }
    *scale = 9.81 / gn;
    /* first order: the sigma of |g| is that of g's component along g */
    icv_vec3 u = icv_v3_scale(fit.g, 1 / gn);
    double s_gn = sqrt(u.x * u.x * fit.g_sd.x * fit.g_sd.x + u.y * u.y * fit.g_sd.y * fit.g_sd.y +
                       u.z * u.z * fit.g_sd.z * fit.g_sd.z);
    *sd = *scale * s_gn / gn;
done:
    free(t);
    free(p);
    return rc;
}
