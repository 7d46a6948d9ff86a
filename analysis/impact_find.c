/* impact_find.c: from 3D tracks to impacts. Poses per frame,
 * the gap between the body's shape and the surface (y = 0 of the surface frame),
 * candidate contacts at the gap's minima, gravity from every free-flight phase
 * at once, then per candidate: fit each side's flight (ballistic centre of mass,
 * torque-free rotation) over a window that leaves out the frames whose exposure
 * overlaps the impact, confirm the velocity jump, and place the impact instant
 * where the pre-impact flight brings the contact point onto the surface
 * (impact_candidate.c); what was measured and left out said (impact_outcome.c). */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "analysis/impact_pass.h"

void analysis_params_default(analysis_params *p)
{
    p->pos_sigma = 3e-4;
    p->exposure_s = 0; /* 0: one frame period */
    p->min_side_frames = 4;
    p->max_side_frames = 40;
    p->extend_windows = 1;
    p->jump_sigmas = 10;
    p->mc_samples = 400;
    p->method = ANALYSIS_FIT;
    p->keep_outlier_frames = 0;
    memset(&p->calib, 0, sizeof p->calib);
}

static const icv_vec3 UP = {0, 1, 0};

void analysis_note_outlier_frames(const analysis_tracks *tr, analysis_result *res, const int *rows, int k,
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

int analysis_gap_at_surface(const posed_frame *pf, int n, double sigma, int i)
{
    if (i <= 0 || i + 1 >= n)
        return 0;
    double step = fmax(fabs(pf[i].gap - pf[i - 1].gap), fabs(pf[i + 1].gap - pf[i].gap));
    /* the frame's travel is measured between frames, the speed at the surface is
       higher: gravity bends a step of dt by up to g dt^2 (11 mm at 30 fps, and more
       where a frame is missing beside the minimum) */
    double dt = fmax(pf[i].t - pf[i - 1].t, pf[i + 1].t - pf[i].t);
    return pf[i].gap <= 5 * sigma + step + ANALYSIS_G_STANDARD * dt * dt;
}

static int near_contact(const posed_frame *pf, int n, double sigma, int i)
{
    double gl = i > 0 ? pf[i - 1].gap : INFINITY, gr = i + 1 < n ? pf[i + 1].gap : INFINITY;
    if (!(pf[i].gap <= gl && pf[i].gap < gr) || i == 0 || i + 1 == n)
        return 0;
    if (analysis_gap_at_surface(pf, n, sigma, i))
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

/* The index of the worst impact of res found off the surface (OFF_SURFACE_M,
 * impact_pass.h), its contact point's gap sigmas gap_sd (m), or -1; *ref: the
 * best-placed one's. */
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
    return analysis_gravity_from_flight_cut(pf, n, contact, NULL, cand, nc, sigma, g, g_sd, g_cov, info, noise, err);
}

int analysis_gravity_from_flight_cut(const posed_frame *pf, int n, const unsigned char *contact,
                                     const unsigned char *cut, const int *cand, int nc, double sigma, icv_vec3 *g,
                                     icv_vec3 *g_sd, double g_cov[3][3], analysis_gravity_info *info,
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
           contact with the surface and before a cut (a flight begins there) */
        int lo0 = c == 0 ? 0 : cand[c - 1] + 2, hi0 = c == nc ? n - 1 : cand[c] - 2;
        for (int lo = lo0, hi; lo <= hi0 && nph < ANALYSIS_MAX_PHASES; lo = hi + 1) {
            hi = lo;
            if (contact && contact[lo])
                continue;
            while (hi + 1 <= hi0 && !(contact && contact[hi + 1]) && !(cut && cut[hi + 1]))
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
        info->first_untrimmed = lo_of[0];
        info->last_untrimmed = lo_of[nph - 1] + (used - start_of[nph - 1]) - 1;
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

/* The posed frames of ps: every frame with enough markers for a pose, less a hold at
 * the clip's start or a rest at its end and the outlier frames; the tracks' noise
 * (ps->sigma, com_sigma), the frame period and the exposure's half left out beside an
 * impact. 0 or an error code. */
static int posed_frames_prepare(impact_pass *ps, icv_err *err)
{
    const analysis_tracks *tr = ps->tr;
    const analysis_body *b = ps->b;
    const analysis_params *prm = &ps->prm;
    analysis_result *res = ps->res;
    ps->pf = malloc(sizeof *ps->pf * (size_t)tr->n_frames);
    ps->contact = malloc((size_t)tr->n_frames);
    ps->cut = calloc((size_t)tr->n_frames, 1);
    ps->posed_row = calloc((size_t)tr->n_frames, 1);
    if (!ps->pf || !ps->contact || !ps->cut || !ps->posed_row)
        return icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
    posed_frame *pf = ps->pf;
    int n = 0;
    analysis_pose_frames(tr, b, prm, pf, &n);
    res->n_poses = n;
    for (int i = 0; i < n; i++) /* before held and outlier frames leave pf: they were posed */
        ps->posed_row[pf[i].row] = 1;
    {
        /* A body held before release, or at rest after the last landing, is not in
         * free flight: runs of 3 or more frames at the clip's start or end whose
         * centre moves less than 4 sigma per frame are left out (the frame where the
         * motion starts is still at rest: the release comes after it). */
        double sig = prm->pos_sigma / sqrt((double)b->tmpl.n_markers);
        int lo, hi;
        analysis_still_ends(pf, n, sig, &lo, &hi);
        if (hi < n - 1) {
            /* a rest is still at the tracks' own noise too: a hop lower than the
               limit is not (the run from its lowest frame on: a bounce's landing
               in it is a kink no smooth path fits) */
            int k = hi;
            for (int i = hi; i < n; i++)
                if (pf[i].gap < pf[k].gap)
                    k = i;
            if (analysis_run_moves(pf, k, n - 1))
                hi = n - 1;
        }
        if (hi < n - 1 && fabs(pf[n - 1].gap) <= 5 * prm->pos_sigma) { /* at rest on the surface: a contact */
            ps->rest_end = (analysis_contact){tr->frame[pf[hi + 1].row], tr->frame[pf[n - 1].row], pf[hi + 1].t,
                                              pf[n - 1].t, 0};
            ps->have_rest_end = 1;
        }
        if (lo > 0 || hi < n - 1) {
            memmove(pf, pf + lo, sizeof *pf * (size_t)(hi - lo + 1));
            n = hi - lo + 1;
            res->held_frames = tr->n_frames > 0 ? res->n_poses - n : 0;
        }
    }
    double sigma = prm->pos_sigma;
    if (tr->sigma) { /* the mean marker sigma of the tracks */
        sigma = 0;
        int cnt = 0;
        for (int i = 0; i < tr->n_frames * tr->n_markers; i++)
            if (tr->seen[i]) {
                sigma += tr->sigma[i];
                cnt++;
            }
        sigma = cnt ? sigma / cnt : prm->pos_sigma;
    }
    /* the centre of mass is the mean of several markers: its sigma is smaller */
    double com_sigma = sigma / sqrt((double)b->tmpl.n_markers);
    ps->sigma = sigma;
    ps->com_sigma = com_sigma;
    ps->n = n;
    if (!prm->keep_outlier_frames) {
        int rows[ANALYSIS_MAX_OUTLIER_FRAMES];
        int k = analysis_outlier_frames(pf, &ps->n, b, com_sigma, 5 * sigma, rows, ANALYSIS_MAX_OUTLIER_FRAMES);
        if (k < 0)
            return icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
        analysis_note_outlier_frames(tr, res, rows, k, "off the motion the frames beside it agree on");
    }
    n = ps->n;
    if (n < prm->min_side_frames)
        return icv_err_set(err, ICV_EINVAL, "tracks: only %d of %d frames have enough markers for a pose", n,
                           tr->n_frames);
    res->min_gap = INFINITY;
    for (int i = 0; i < n; i++)
        if (pf[i].gap < res->min_gap) {
            res->min_gap = pf[i].gap;
            res->min_gap_t = pf[i].t;
        }
    ps->period = (pf[n - 1].t - pf[0].t) / (tr->frame[pf[n - 1].row] - tr->frame[pf[0].row]);
    ps->excl = 0.5 * (prm->exposure_s > 0 ? prm->exposure_s : ps->period);
    return 0;
}

/* A pass's start: what it counts cleared, the contacts and candidates found again on
 * the posed frames as they are now (candidates found off the surface left out), and
 * gravity, given or fitted on the flights between them. 0 or an error code. */
static int pass_begin(impact_pass *ps, icv_err *err)
{
    analysis_result *res = ps->res;
    const posed_frame *pf = ps->pf;
    int n = ps->n;
    ps->n_weak = 0;
    ps->unfit_msg[0] = 0;
    ps->n_unfit = 0;
    ps->apart_msg[0] = 0;
    ps->n_apart = 0;
    ps->have_short = 0;
    ps->short_msg[0] = 0;
    ps->n_short = 0;
    ps->n_landed = 0;
    ps->landed_msg[0] = 0;
    ps->t_prev = -INFINITY;
    analysis_contact_find(pf, n, ps->sigma, ps->com_sigma, ps->tr, ps->contact, res);
    for (int i = 0; i < n; i++) {
        ps->cut[i] = 0;
        for (int k = 0; k < ps->n_cut; k++)
            ps->cut[i] |= pf[i].row == ps->cut_row[k];
    }
    if (ps->have_rest_end && res->n_contacts < ANALYSIS_MAX_CONTACTS) {
        /* the rest trimmed off the clip's end, after any stretch before it (a
           slide coming to rest: two stretches, moving then resting) */
        res->contacts[res->n_contacts++] = ps->rest_end;
    }
    int nc = find_candidates(pf, n, ps->sigma, 2 * ps->prm.min_side_frames, ps->cand);
    nc = candidates_at_landings(n, ps->contact, ps->cand, nc);
    int m = 0;
    for (int c = 0; c < nc; c++) {
        int off = 0;
        for (int k = 0; k < ps->n_off; k++)
            off |= pf[ps->cand[c]].row == ps->off_row[k];
        if (!off)
            ps->cand[m++] = ps->cand[c];
    }
    ps->nc = m;
    analysis_flight_noise_free(&ps->noise);
    res->n_impacts = 0;
    res->g_estimated = 0;
    if (analysis_flight_noise_alloc(&ps->noise, n))
        return icv_err_set(err, ICV_ENOMEM, "analysis: out of memory");
    ps->g_trim = (analysis_gravity_info){0, n - 1, 0, n - 1};
    if (ps->gravity) {
        res->g = *ps->gravity;
        return 0;
    }
    analysis_gravity_info gi;
    int rc = analysis_gravity_from_flight_cut(pf, n, ps->contact, ps->cut, ps->cand, ps->nc, ps->com_sigma, &res->g,
                                              &res->g_sd, res->g_cov, &gi, &ps->noise, err);
    if (!rc) {
        res->g_estimated = 1;
        ps->g_trim = gi;
    }
    return rc;
}

/* The worst impact of the pass found off the surface (off_surface_impact) kept out of
 * every pass after, the first said: 1 when one was (another pass). */
static int drop_off_surface_impact(impact_pass *ps)
{
    const analysis_result *res = ps->res;
    if (ps->n_off >= ANALYSIS_MAX_IMPACTS)
        return 0;
    int ref, k = off_surface_impact(res, ps->imp_gap_sd, &ref);
    if (k < 0)
        return 0;
    const analysis_impact *im = &res->impacts[k];
    if (ps->n_off == 0)
        snprintf(ps->off_msg, sizeof ps->off_msg,
                 "impact candidate at frame %d (t = %.5f s): its flights meet with the contact point %.1f mm "
                 "%s the surface, where another impact meets it %.1f mm from it: not a contact with the "
                 "surface (the tracks jumping there?): not measured",
                 ps->tr->frame[ps->imp_row[k]], im->t, fabs(im->meet_gap) * 1e3, im->meet_gap < 0 ? "below" : "above",
                 fabs(res->impacts[ref].meet_gap) * 1e3);
    ps->off_row[ps->n_off++] = ps->imp_row[k];
    return 1;
}

/* The weak jumps of the pass with no impact measured near them accepted in every pass
 * after: 1 when one was (another pass). */
static int accept_weak_jumps(impact_pass *ps)
{
    const analysis_result *res = ps->res;
    int added = 0;
    for (int w = 0; w < ps->n_weak && ps->n_ok < ANALYSIS_MAX_IMPACTS; w++) {
        int near = 0;
        for (int i = 0; i < res->n_impacts; i++)
            near |= fabs(res->impacts[i].t - ps->weak_t[w]) <=
                    fmax(2 * ps->period, 3 * hypot(res->impacts[i].t_sd, ps->weak_sd[w]));
        if (!near) {
            ps->ok_row[ps->n_ok++] = ps->weak_row[w];
            added = 1;
        }
    }
    return added;
}

/* One pass: every candidate measured (impact_candidate.c). *again: 1 when another
 * pass is needed, every impact measured again: a frame beside an impact turned out an
 * outlier (it was in the gaps and gravity's fit too), an impact was found off the
 * surface, or a weak jump was accepted. 0 or an error code. */
static int impacts_pass(impact_pass *ps, int *again, icv_err *err)
{
    int rc = pass_begin(ps, err);
    *again = 0;
    for (int c = 0; !rc && c < ps->nc && ps->res->n_impacts < ANALYSIS_MAX_IMPACTS; c++)
        if ((rc = analysis_impact_candidate(ps, c, again, err)) || *again)
            return rc;
    if (!rc)
        *again = drop_off_surface_impact(ps) || accept_weak_jumps(ps);
    return rc;
}

/* After a pass: every stretch without a pose that probably holds an impact
 * (analysis_unposed_impacts) and that a flight spans, posed frames on both of its
 * sides, cut: the first posed frame after it begins a flight. A flight fitted across
 * an impact bends to it: on a 240 fps clip whose tracks were lost over both bounces,
 * one "flight" over 12 frames before the first bounce and 1 after it fell at
 * 2.0 m/s^2. 1 when a cut was added (another pass). */
static int cut_at_unposed_impacts(impact_pass *ps)
{
    unposed_impact unp[ANALYSIS_MAX_IMPACTS];
    const analysis_params *prm = &ps->prm;
    int n_unp = analysis_unposed_impacts(ps->tr, ps->b, ps->pf, ps->n, ps->contact, ps->cut, ps->posed_row, ps->res, ps->sigma,
                                         ps->com_sigma, prm->min_side_frames, prm->max_side_frames, ps->period, unp,
                                         ANALYSIS_MAX_IMPACTS),
        added = 0;
    for (int u = 0; u < n_unp && ps->n_cut < ANALYSIS_MAX_IMPACTS; u++) {
        int after = -1;
        for (int i = 1; i < ps->n && after < 0; i++)
            if (ps->pf[i].t > unp[u].t_last && ps->pf[i - 1].t < unp[u].t_first)
                after = i;
        if (after < 0 || ps->cut[after])
            continue;
        ps->cut_row[ps->n_cut++] = ps->pf[after].row;
        added = 1;
    }
    return added;
}

int analysis_impacts_measure(const analysis_tracks *tr, const analysis_body *b, const icv_vec3 *gravity,
                             const analysis_params *params, analysis_result *res, icv_err *err)
{
    impact_pass pass = {.tr = tr, .b = b, .gravity = gravity, .res = res}, *ps = &pass;
    if (params)
        ps->prm = *params;
    else
        analysis_params_default(&ps->prm);
    memset(res, 0, sizeof *res);
    res->calib = ps->prm.calib;
    int rc;
    if (tr->n_frames < ps->prm.min_side_frames)
        rc = icv_err_set(err, ICV_EINVAL,
                         "tracks: %d frame%s, too few to fit a flight (%d needed) or find an impact (%d needed)",
                         tr->n_frames, tr->n_frames == 1 ? "" : "s", ps->prm.min_side_frames,
                         2 * ps->prm.min_side_frames + 1);
    else
        rc = posed_frames_prepare(ps, err);
    for (int again = 1; !rc && again;) {
        rc = impacts_pass(ps, &again, err);
        if (!rc && !again)
            again = cut_at_unposed_impacts(ps);
    }
    if (!rc)
        rc = analysis_impacts_outcome(ps, err);
    if (!rc && gravity)
        gravity_flight_fit(ps->pf, ps->n, ps->contact, ps->cand, ps->nc, ps->com_sigma, res);
    analysis_flight_noise_free(&ps->noise);
    free(ps->pf);
    free(ps->contact);
    free(ps->cut);
    free(ps->posed_row);
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
