/* coefficients_tilt.c: mu_s from a tilt filmed (Han Sun eq. 4.32 read the
 * angle off a ruler). From the plate's angle and the body's displacement down the
 * plate per frame (job_tilt_run): the noise of the displacement from its
 * frame-to-frame differences while at rest; the onset first as the frame after which
 * the displacement leaves the rest line (the plate's parallax drift: a line) by 5
 * sigma for 3 frames running, then to a fraction of a frame by fitting
 * b0 + b1 t + a (t - t0)_+^2 / 2 with t0 scanned (the chi^2 profile gives its sigma);
 * the angle at t0 from a line fitted to the angles within 0.5 s of it. */
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/coefficients_internal.h"

#define REST_MIN 8     /* frames at rest before an onset can be found */
#define AFTER 12       /* frames after the coarse onset in the fine fit */
#define REST_WINDOW 30 /* frames of the local rest line (a drift is a line over it) */
#define PERSIST 6      /* frames in a row beyond 5 sigma: the onset for good */

/* The plate's angle near time tc: a line c0 + c1 (t - tc) through the angles within
 * 0.5 s (the plate is raised evenly), c0's variance (GSL's, scaled by the residuals)
 * and the residuals' scatter (one view's angle noise). 0 when at least 5 angles. */
static int angle_line(const double *t, const double *angle, long n, double tc, double *tw, double *aw, double *c0,
                      double *c1, double *c0_var, double *frame_sd)
{
    int k = 0;
    for (long i = 0; i < n; i++)
        if (isfinite(angle[i]) && fabs(t[i] - tc) <= 0.5)
            tw[k] = t[i] - tc, aw[k] = angle[i], k++;
    if (k < 5)
        return -1;
    double c01, c11, sumsq;
    if (gsl_fit_linear(tw, 1, aw, 1, (size_t)k, c0, c1, c0_var, &c01, &c11, &sumsq) || !isfinite(*c1))
        return -1; /* every angle at one instant */
    *frame_sd = sqrt(sumsq / (k - 2));
    return 0;
}

/* The displacement's model about an onset t0, linear in (b0, b1, a):
 * s = b0 + b1 (t - t0) + a (tau^2/2 - k1 tau^3/6) + k2 tau^3/6 for tau = t - t0 > 0.
 * The plate goes on rising while the body slides, so its acceleration grows: with
 * theta = theta_s + w tau, s'' = g (sin theta - mu_k cos theta) has the slope
 * w (g / cos theta_s - a tan theta_s) at the onset (mu_k eliminated by a); k1 =
 * w tan theta_s, k2 = w g / cos theta_s. A constant a instead put the onset 1.3-1.6 ms
 * late on the exact motion at 0.05 rad/s (the rest of a frame's lag seen on video). */
typedef struct {
    double k1, k2; /* 1/s, m/s^3 */
} onset_model;

/* The fit of the model over the measured samples [i0, i1) for onset t0, generalised
 * least squares for noise correlated between neighbouring frames as AR(1) with rho
 * (the plate's pose is smoothed over 17 frames, and coded video leaves neighbours
 * alike): each row less rho times the one before (Prais-Winsten; the first of a run
 * of consecutive frames times sqrt(1 - rho^2)). Returns the whitened residuals' sum of
 * squares; *accel the fitted a; resid (may be NULL) the plain residuals, with gaps as
 * NaN, for estimating rho. */
static double onset_fit(const double *t, const double *s, const int *ok, int i0, int i1, double t0,
                        const onset_model *om, double rho, double *accel, double *resid, gsl_matrix *X,
                        gsl_vector *y, gsl_vector *c, gsl_matrix *cov, gsl_multifit_linear_workspace *w)
{
    int m = 0, prev = -2;
    double xp[3] = {0, 0, 0}, yp = 0, f0 = sqrt(1 - rho * rho);
    for (int i = i0; i < i1; i++) {
        if (!ok[i])
            continue;
        double tau = t[i] - t0, q = tau > 0 ? tau * tau : 0, cube = tau > 0 ? q * tau / 6 : 0;
        double x[3] = {1, tau, 0.5 * q - om->k1 * cube}, yi = s[i] - om->k2 * cube;
        int run = prev == i - 1; /* follows the sample before: whitened against it */
        for (int k = 0; k < 3; k++)
            gsl_matrix_set(X, (size_t)m, (size_t)k, run ? x[k] - rho * xp[k] : f0 * x[k]);
        gsl_vector_set(y, (size_t)m, run ? yi - rho * yp : f0 * yi);
        memcpy(xp, x, sizeof xp);
        yp = yi;
        prev = i;
        m++;
    }
    gsl_matrix_view Xv = gsl_matrix_submatrix(X, 0, 0, (size_t)m, 3);
    gsl_vector_view yv = gsl_vector_subvector(y, 0, (size_t)m);
    double chisq;
    if (gsl_multifit_linear(&Xv.matrix, &yv.vector, c, cov, &chisq, w)) { /* w sized for [i0, i1) */
        *accel = NAN;
        return NAN; /* never the best onset */
    }
    *accel = gsl_vector_get(c, 2);
    for (int i = i0; resid && i < i1; i++) {
        double tau = t[i] - t0, q = tau > 0 ? tau * tau : 0, cube = tau > 0 ? q * tau / 6 : 0;
        resid[i - i0] = ok[i] ? s[i] - om->k2 * cube - gsl_vector_get(c, 0) - gsl_vector_get(c, 1) * tau -
                                    *accel * (0.5 * q - om->k1 * cube)
                              : NAN;
    }
    return chisq;
}

/* The displacement's noise (m): each displacement from a line through its 31
 * neighbours (the rest line's own scale, slow wiggles of the plate's pose included),
 * robust (the sliding frames are the few the median leaves out); at least a
 * micrometre (noise-free synthetic data). d: room for n values. */
static double displacement_noise(const double *t, const double *s, const int *ok, long n, double *d)
{
    int nd = 0;
    for (long i = 0; i < n; i++) {
        if (!ok[i])
            continue;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int k = 0;
        for (long j = i - 15; j <= i + 15; j++)
            if (j >= 0 && j < n && j != i && ok[j])
                sx += t[j], sy += s[j], sxx += t[j] * t[j], sxy += t[j] * s[j], k++;
        double det = k * sxx - sx * sx;
        if (k < 10 || !(det > 0))
            continue;
        double b1 = (k * sxy - sx * sy) / det, b0 = (sy - b1 * sx) / k;
        d[nd++] = fabs(s[i] - b0 - b1 * t[i]);
    }
    gsl_sort(d, 1, (size_t)nd);
    double sigma = nd ? 1.4826 * gsl_stats_median_from_sorted_data(d, 1, (size_t)nd) : 0;
    return fmax(sigma, 1e-6);
}

/* The coarse onset: the first frame i where, against the rest line fitted to the
 * frames before i, the next PERSIST measured frames all lie beyond 5 sigma (plus the
 * line's own uncertainty) and still move away; -1 when none does. */
static long coarse_onset(const double *t, const double *s, const int *ok, long n, double sigma)
{
    long i_on = -1;
    for (long i = 0; i + 3 < n && i_on < 0; i++) {
        /* the rest line through the last REST_WINDOW measured frames before i */
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int k = 0;
        for (long j = i - 1; j >= 0 && k < REST_WINDOW; j--)
            if (ok[j])
                sx += t[j], sy += s[j], sxx += t[j] * t[j], sxy += t[j] * s[j], k++;
        if (k < REST_MIN)
            continue;
        double det = k * sxx - sx * sx, b1 = (k * sxy - sx * sy) / det, b0 = (sy - b1 * sx) / k;
        /* beyond 5 sigma for PERSIST frames running, and still moving away (a wiggle
         * of the plate's pose comes back; a slide goes on) */
        int above = 0, seen = 0;
        double first = 0, last = 0;
        for (long j = i; j < n && seen < PERSIST; j++) {
            if (!ok[j])
                continue;
            double ex = s[j] - (b0 + b1 * t[j]);
            if (seen == 0)
                first = ex;
            last = ex;
            seen++;
            above += ex > 5 * sigma * sqrt(1 + 4.0 / k);
        }
        if (seen == PERSIST && above == PERSIST && last > 2 * first)
            i_on = i;
    }
    return i_on;
}

/* The fine onset: t0 scanned from 3 frames (dt) before the coarse onset i_on to one
 * after, in STEPS steps, over the frames [i0, i1); the plate's angle near the onset
 * c0 + c1 (t - tc). Twice: plain least squares for the residuals' lag-1 correlation
 * at the best onset, then with it. *t_best, *a_best: the onset and the acceleration
 * after it; *t0_sd: where chi^2, in units of the whitened residuals' variance, rises
 * by 1 on either side. d, fi: room for n values. 0 or an error code. */
static int fine_onset(const double *t, const double *s, const int *ok, long i_on, long i0, long i1, double dt,
                      double c0, double c1, double tc, double *d, int *fi, double *t_best_out, double *a_best_out,
                      double *t0_sd_out, icv_err *err)
{
    int rc = 0;
    gsl_matrix *X = gsl_matrix_alloc((size_t)(i1 - i0), 3), *cov = gsl_matrix_alloc(3, 3);
    gsl_vector *y = gsl_vector_alloc((size_t)(i1 - i0)), *c = gsl_vector_alloc(3);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc((size_t)(i1 - i0), 3);
    enum { STEPS = 1200 };
    double chi[STEPS + 1];
    if (!X || !cov || !y || !c || !w) {
        rc = icv_err_set(err, ICV_ENOMEM, "tilt: out of memory");
    } else {
        double best = INFINITY, t_best = t[i_on], a_best = 0, rho = 0;
        double ta = t[i_on] - 3 * dt, tb = t[i_on] + dt;
        for (int pass = 0; pass < 2; pass++) {
            double t_prev = t_best;
            if (pass == 1) { /* X: the plain design, d: the residuals (NaN: not measured) */
                double th = c0 + c1 * (t_prev - tc), a;
                onset_model om = {c1 * tan(th), c1 * ANALYSIS_G_STANDARD / cos(th)};
                onset_fit(t, s, ok, (int)i0, (int)i1, t_prev, &om, 0, &a, d, X, y, c, cov, w);
                int m = 0;
                for (long i = i0; i < i1; i++)
                    if (ok[i])
                        d[m] = d[i - i0], fi[m++] = (int)i;
                gsl_matrix_view Xv = gsl_matrix_submatrix(X, 0, 0, (size_t)m, 3);
                coef_noise nz;
                rho = analysis_coef_ar1_noise(&Xv.matrix, d, fi, m, 0.9, NULL, &nz) == 0 ? nz.rho : 0;
            }
            best = INFINITY;
            for (int k = 0; k <= STEPS; k++) {
                double t0 = ta + (tb - ta) * k / STEPS, a, th = c0 + c1 * (t0 - tc);
                onset_model om = {c1 * tan(th), c1 * ANALYSIS_G_STANDARD / cos(th)};
                chi[k] = onset_fit(t, s, ok, (int)i0, (int)i1, t0, &om, rho, &a, NULL, X, y, c, cov, w);
                if (chi[k] < best)
                    best = chi[k], t_best = t0, a_best = a;
            }
        }
        int dof = 0;
        for (long i = i0; i < i1; i++)
            dof += ok[i];
        dof -= 4;
        double scale = best / (dof > 0 ? dof : 1), lo = ta, hi = tb;
        for (int k = 0; k <= STEPS; k++) {
            double t0 = ta + (tb - ta) * k / STEPS;
            if ((chi[k] - best) / scale <= 1) {
                lo = fmin(lo == ta ? t0 : lo, t0);
                hi = t0;
            }
        }
        *t0_sd_out = fmax(0.5 * (hi - lo), (tb - ta) / STEPS);
        *t_best_out = t_best;
        *a_best_out = a_best;
        if (!isfinite(best))
            rc = icv_err_set(err, ICV_ENUMERIC, "tilt: the slide's fit failed at every onset tried (%.3f-%.3f s)",
                             ta, tb);
    }
    gsl_multifit_linear_free(w);
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(y);
    gsl_vector_free(c);
    return rc;
}

int analysis_coefficient_tilt_video(const double *t, const double *angle, const double *s, long n,
                                    double level_noise_ratio, analysis_coefficient *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->coefficient, sizeof out->coefficient, "mu_s");
    snprintf(out->kind, sizeof out->kind, "tilt");
    snprintf(out->method, sizeof out->method,
             "tilt from video: mu_s = tan(plate angle at the onset of sliding) (Han Sun eq. 4.32)");
    out->first_frame = out->last_frame = -1;
    size_t nn = (size_t)(n > 0 ? n : 1);
    int *ok = malloc(sizeof *ok * nn), *fi = malloc(sizeof *fi * nn);
    double *d = malloc(sizeof *d * nn), *tw = malloc(sizeof *tw * nn), *aw = malloc(sizeof *aw * nn);
    if (!ok || !fi || !d || !tw || !aw) {
        free(ok);
        free(fi);
        free(d);
        free(tw);
        free(aw);
        return icv_err_set(err, ICV_ENOMEM, "tilt: out of memory");
    }
    int m = 0;
    for (long i = 0; i < n; i++) {
        ok[i] = isfinite(s[i]) && isfinite(angle[i]);
        m += ok[i];
    }
    int rc = 0;
    double max_d = 0, max_angle = 0;
    for (long i = 0; i < n; i++) {
        if (ok[i])
            max_d = fmax(max_d, fabs(s[i])), max_angle = fmax(max_angle, angle[i]);
    }
    if (m < REST_MIN + AFTER) {
        rc = icv_err_set(err, ICV_ENOTFOUND, "tilt: the body and the plate were measured together in %d frames only",
                         m);
        goto done;
    }
    double sigma = displacement_noise(t, s, ok, n, d);
    long i_on = coarse_onset(t, s, ok, n, sigma);
    if (i_on < 0) {
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "tilt: the body never slides: it moved at most %.2f mm on the plate (noise %.3f mm) while the "
                         "plate rose to %.2f deg",
                         max_d * 1e3, sigma * 1e3, max_angle * 180 / M_PI);
        goto done;
    }
    /* the plate's angle and rate near the coarse onset, for the fine onset's model */
    double c0, c1, c0_var, frame_sd, tc = t[i_on];
    if (angle_line(t, angle, n, tc, tw, aw, &c0, &c1, &c0_var, &frame_sd)) {
        rc = icv_err_set(err, ICV_ENOTFOUND, "tilt: the plate's angle was measured in fewer than 5 frames within "
                                             "0.5 s of the onset (%.3f s)", tc);
        goto done;
    }
    /* the fine onset: t0 scanned over the frames before the coarse onset, in steps of
     * 1/50 frame; every frame from REST_WINDOW before to AFTER past the onset */
    long i1 = i_on + AFTER < n ? i_on + AFTER : n, i0 = i_on > REST_WINDOW ? i_on - REST_WINDOW : 0;
    double dt = (t[n - 1] - t[0]) / (double)(n - 1), t_best, a_best, t0_sd;
    if ((rc = fine_onset(t, s, ok, i_on, i0, i1, dt, c0, c1, tc, d, fi, &t_best, &a_best, &t0_sd, err)))
        goto done;
    if (angle_line(t, angle, n, t_best, tw, aw, &c0, &c1, &c0_var, &frame_sd)) {
        /* the angle at t0: the line through the angles within 0.5 s of it */
        rc = icv_err_set(err, ICV_ENOTFOUND, "tilt: the plate's angle was measured in fewer than 5 frames "
                                             "within 0.5 s of the onset (%.3f s), or all at one instant", t_best);
        goto done;
    }
    out->theta = c0;
    /* the angle's sigma: the line at t0, the onset's uncertainty along the line,
     * and the level board's own view: one frame's angle noise scaled by its
     * corners' noise relative to a frame's (a still image against coded video:
     * 0.012 against 0.033 px on synth's tilts, whose level errors were 0.3-0.4
     * of a frame's) */
    double level_sd = frame_sd * (level_noise_ratio > 0 ? level_noise_ratio : 1);
    out->theta_sd = sqrt(c0_var + c1 * c1 * t0_sd * t0_sd + level_sd * level_sd);
    out->value = tan(out->theta);
    out->sd = out->theta_sd / (cos(out->theta) * cos(out->theta));
    out->a = a_best;
    out->onset_s = t_best;
    out->onset_sd = t0_sd;
    out->first_frame = (int)i0;
    out->last_frame = (int)i1 - 1;
    if (!(a_best > 0))
        snprintf(out->warnings[out->n_warnings++], sizeof out->warnings[0],
                 "the motion after the onset does not accelerate down the plate (a = %.3g m/s^2)", a_best);
done:
    free(ok);
    free(fi);
    free(d);
    free(tw);
    free(aw);
    return rc;
}
