/* coefficients_tilt.c: mu_s from a tilt filmed (issue #11; Han Sun eq. 4.32 read the
 * angle off a ruler). From the plate's angle and the body's displacement down the
 * plate per frame (track_tilt_run): the noise of the displacement from its
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

#include "analysis/analysis.h"

#define REST_MIN 8     /* frames at rest before an onset can be found */
#define AFTER 12       /* frames after the coarse onset in the fine fit */
#define REST_WINDOW 30 /* frames of the local rest line (a drift is a line over it) */
#define PERSIST 6      /* frames in a row beyond 5 sigma: the onset for good */

/* chi^2 of the best b0 + b1 (t - tc) + a (t - t0)_+^2 / 2 over samples [i0, i1) */
static double onset_chi2(const double *t, const double *s, const int *ok, int i0, int i1, double t0, double sigma,
                         double *accel, gsl_matrix *X, gsl_vector *y, gsl_vector *c, gsl_matrix *cov)
{
    int m = 0;
    for (int i = i0; i < i1; i++) {
        if (!ok[i])
            continue;
        double tau = t[i] - t0;
        gsl_matrix_set(X, (size_t)m, 0, 1);
        gsl_matrix_set(X, (size_t)m, 1, t[i] - t0);
        gsl_matrix_set(X, (size_t)m, 2, tau > 0 ? 0.5 * tau * tau : 0);
        gsl_vector_set(y, (size_t)m, s[i]);
        m++;
    }
    gsl_matrix_view Xv = gsl_matrix_submatrix(X, 0, 0, (size_t)m, 3);
    gsl_vector_view yv = gsl_vector_subvector(y, 0, (size_t)m);
    double chisq;
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc((size_t)m, 3);
    gsl_multifit_linear(&Xv.matrix, &yv.vector, c, cov, &chisq, w);
    gsl_multifit_linear_free(w);
    *accel = gsl_vector_get(c, 2);
    return chisq / (sigma * sigma);
}

int analysis_coefficient_tilt_video(const double *t, const double *angle, const double *s, long n,
                                    analysis_coefficient *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->coefficient, sizeof out->coefficient, "mu_s");
    snprintf(out->kind, sizeof out->kind, "tilt");
    snprintf(out->method, sizeof out->method,
             "tilt from video: mu_s = tan(plate angle at the onset of sliding) (Han Sun eq. 4.32)");
    out->first_frame = out->last_frame = -1;
    int *ok = malloc(sizeof *ok * (size_t)(n > 0 ? n : 1));
    double *d = malloc(sizeof *d * (size_t)(n > 0 ? n : 1));
    if (!ok || !d) {
        free(ok);
        free(d);
        return icv_err_set(err, ICV_ENOMEM, "tilt: out of memory");
    }
    int m = 0, nd = 0;
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
    /* the noise: each displacement from a line through its 31 neighbours (the rest
     * line's own scale, slow wiggles of the plate's pose included), robust (the sliding
     * frames are the few the median leaves out) */
    nd = 0;
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
    sigma = fmax(sigma, 1e-6); /* a micrometre: noise-free synthetic data */
    /* the coarse onset: the rest line fitted to the frames before i, and the next 3
     * all beyond 5 sigma (plus the line's own uncertainty) */
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
    if (i_on < 0) {
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "tilt: the body never slides: it moved at most %.2f mm on the plate (noise %.3f mm) while the "
                         "plate rose to %.2f deg",
                         max_d * 1e3, sigma * 1e3, max_angle * 180 / M_PI);
        goto done;
    }
    /* the fine onset: t0 scanned over the frames before the coarse onset, in steps of
     * 1/50 frame; every frame from the start to AFTER frames past the onset */
    long i1 = i_on + AFTER < n ? i_on + AFTER : n, i0 = i_on > REST_WINDOW ? i_on - REST_WINDOW : 0;
    double dt = (t[n - 1] - t[0]) / (double)(n - 1);
    gsl_matrix *X = gsl_matrix_alloc((size_t)i1, 3), *cov = gsl_matrix_alloc(3, 3);
    gsl_vector *y = gsl_vector_alloc((size_t)i1), *c = gsl_vector_alloc(3);
    if (!X || !cov || !y || !c) {
        rc = icv_err_set(err, ICV_ENOMEM, "tilt: out of memory");
    } else {
        int steps = 200;
        double best = INFINITY, t_best = t[i_on], a_best = 0;
        double *chi = malloc(sizeof(double) * (size_t)(steps + 1));
        double ta = t[i_on] - 3 * dt, tb = t[i_on] + dt;
        for (int k = 0; k <= steps && chi; k++) {
            double t0 = ta + (tb - ta) * k / steps, a;
            chi[k] = onset_chi2(t, s, ok, (int)i0, (int)i1, t0, sigma, &a, X, y, c, cov);
            if (chi[k] < best)
                best = chi[k], t_best = t0, a_best = a;
        }
        /* sigma of t0: where chi^2 (scaled to its dof when the residuals exceed sigma)
         * rises by 1 on either side */
        int dof = 0;
        for (long i = i0; i < i1; i++)
            dof += ok[i];
        dof -= 4;
        double scale = fmax(1.0, best / (dof > 0 ? dof : 1)), lo = ta, hi = tb;
        for (int k = 0; k <= steps && chi; k++) {
            double t0 = ta + (tb - ta) * k / steps;
            if ((chi[k] - best) / scale <= 1) {
                lo = fmin(lo == ta ? t0 : lo, t0);
                hi = t0;
            }
        }
        free(chi);
        /* plus a frame's quantisation, 1/sqrt(12) frame: coded video moves a marker that
         * starts to move late (skipped blocks; the first frames of a slide on H.264 CRF
         * 18 lagged by up to a frame in the tests) */
        double t0_sd = hypot(fmax(0.5 * (hi - lo), (tb - ta) / steps), dt / sqrt(12.0));
        /* the angle at t0: a line through the angles within 0.5 s */
        double *tw = malloc(sizeof(double) * (size_t)n), *aw = malloc(sizeof(double) * (size_t)n);
        int k = 0;
        for (long i = 0; tw && aw && i < n; i++)
            if (isfinite(angle[i]) && fabs(t[i] - t_best) <= 0.5)
                tw[k] = t[i] - t_best, aw[k] = angle[i], k++;
        if (k < 5) {
            rc = icv_err_set(err, ICV_ENOTFOUND, "tilt: the plate's angle was measured in %d frames near the onset",
                             k);
        } else {
            double c0, c1, c00, c01, c11, sumsq;
            gsl_fit_linear(tw, 1, aw, 1, (size_t)k, &c0, &c1, &c00, &c01, &c11, &sumsq);
            double frame_sd = sqrt(sumsq / (k - 2)); /* one view's angle noise */
            double fit_sd = sqrt(c00);               /* GSL scales it by the residuals' variance */
            out->theta = c0;
            /* the angle's sigma: the line at t0, the onset's uncertainty along the line,
             * and the level board's own view (taken as one frame's angle noise) */
            out->theta_sd = sqrt(fit_sd * fit_sd + c1 * c1 * t0_sd * t0_sd + frame_sd * frame_sd);
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
        }
        free(tw);
        free(aw);
    }
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(y);
    gsl_vector_free(c);
done:
    free(ok);
    free(d);
    return rc;
}
