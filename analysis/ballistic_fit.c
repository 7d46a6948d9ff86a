/* ballistic_fit.c: the centre of mass in free flight, p0 + v tau + g tau^2 / 2
 * (tau = t - t_ref), fitted to several flight phases at once so that they share
 * one gravity vector. Weighted linear least squares per
 * axis (GSL gsl_multifit_wlinear); the covariance is (X^T W X)^-1 when the sample
 * sigmas are given, and that scaled by chi^2/dof when they are not. */
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_multifit.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

int analysis_ballistic_fit(const analysis_flight *ph, int n_phases, const icv_vec3 *g_given, analysis_ballistic *out,
                           icv_err *err)
{
    memset(out, 0, sizeof *out);
    if (n_phases < 1 || n_phases > ANALYSIS_MAX_PHASES)
        return icv_err_set(err, ICV_EINVAL, "ballistic fit: 1 to %d flight phases, got %d", ANALYSIS_MAX_PHASES,
                           n_phases);
    int fit_g = g_given == NULL;
    int n_obs = 0, have_sigma = ph[0].sigma != NULL;
    for (int k = 0; k < n_phases; k++) {
        if (ph[k].n < 2)
            return icv_err_set(err, ICV_EINVAL, "ballistic fit: flight phase %d has %d samples, needs at least 2", k,
                               ph[k].n);
        if ((ph[k].sigma != NULL) != have_sigma)
            return icv_err_set(err, ICV_EINVAL, "ballistic fit: give sigma for every phase or for none");
        n_obs += ph[k].n;
    }
    int n_par = 2 * n_phases + fit_g;
    if (n_obs <= n_par)
        return icv_err_set(err, ICV_EINVAL,
                           "ballistic fit: %d samples for %d unknowns per axis: needs at least %d samples", n_obs,
                           n_par, n_par + 1);

    gsl_matrix *X = gsl_matrix_calloc((size_t)n_obs, (size_t)n_par);
    gsl_matrix *cov = gsl_matrix_alloc((size_t)n_par, (size_t)n_par);
    gsl_vector *w = gsl_vector_alloc((size_t)n_obs), *y = gsl_vector_alloc((size_t)n_obs);
    gsl_vector *c = gsl_vector_alloc((size_t)n_par);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)n_obs, (size_t)n_par);
    int rc = 0;
    if (!X || !cov || !w || !y || !c || !ws) {
        rc = icv_err_set(err, ICV_ENOMEM, "ballistic fit: out of memory");
        goto done;
    }
    for (int k = 0, row = 0; k < n_phases; k++)
        for (int i = 0; i < ph[k].n; i++, row++) {
            double tau = ph[k].t[i] - ph[k].t_ref;
            gsl_matrix_set(X, (size_t)row, (size_t)(2 * k), 1.0);
            gsl_matrix_set(X, (size_t)row, (size_t)(2 * k + 1), tau);
            if (fit_g)
                gsl_matrix_set(X, (size_t)row, (size_t)(n_par - 1), 0.5 * tau * tau);
            double s = have_sigma ? ph[k].sigma[i] : 1.0;
            if (!(s > 0)) {
                rc = icv_err_set(err, ICV_EINVAL, "ballistic fit: phase %d sample %d: sigma must be > 0, got %g", k, i,
                                 s);
                goto done;
            }
            gsl_vector_set(w, (size_t)row, 1.0 / (s * s));
        }

    double ss_total = 0, chi2_total = 0;
    for (int axis = 0; axis < 3; axis++) {
        double g_axis = fit_g ? 0 : icv_v3_get(*g_given, axis);
        for (int k = 0, row = 0; k < n_phases; k++)
            for (int i = 0; i < ph[k].n; i++, row++) {
                double tau = ph[k].t[i] - ph[k].t_ref;
                gsl_vector_set(y, (size_t)row, icv_v3_get(ph[k].p[i], axis) - 0.5 * g_axis * tau * tau);
            }
        double chisq;
        size_t rank = 0;
        /* GSL's SVD solves a rank-deficient problem without an error status (the
           minimum-norm solution: v = 0 for samples all at one instant): the rank, with
           singular values below 1e-12 of the largest dropped, must be full */
        if (gsl_multifit_wlinear_tsvd(X, w, y, 1e-12, c, cov, &chisq, &rank, ws) != 0 || rank < (size_t)n_par) {
            rc = icv_err_set(err, ICV_ENUMERIC, "ballistic fit: the least-squares problem is singular "
                                                "(rank %zu of %d: are all the sample times equal?)",
                             rank, n_par);
            goto done;
        }
        double dof = n_obs - n_par;
        double scale = have_sigma ? 1.0 : chisq / dof;
        chi2_total += chisq;
        for (int k = 0, row = 0; k < n_phases; k++) {
            double p0 = gsl_vector_get(c, (size_t)(2 * k)), v = gsl_vector_get(c, (size_t)(2 * k + 1));
            double sp = sqrt(scale * gsl_matrix_get(cov, (size_t)(2 * k), (size_t)(2 * k)));
            double sv = sqrt(scale * gsl_matrix_get(cov, (size_t)(2 * k + 1), (size_t)(2 * k + 1)));
            icv_v3_set(&out->p0[k], axis, p0);
            icv_v3_set(&out->v[k], axis, v);
            icv_v3_set(&out->p0_sd[k], axis, sp);
            icv_v3_set(&out->v_sd[k], axis, sv);
            out->cov_pv[k][axis] = scale * gsl_matrix_get(cov, (size_t)(2 * k), (size_t)(2 * k + 1));
            for (int i = 0; i < ph[k].n; i++, row++) {
                double tau = ph[k].t[i] - ph[k].t_ref;
                double g_a = fit_g ? gsl_vector_get(c, (size_t)(n_par - 1)) : g_axis;
                double r = icv_v3_get(ph[k].p[i], axis) - (p0 + v * tau + 0.5 * g_a * tau * tau);
                ss_total += r * r;
            }
        }
        icv_v3_set(&out->g, axis, fit_g ? gsl_vector_get(c, (size_t)(n_par - 1)) : g_axis);
        icv_v3_set(&out->g_sd, axis,
                   fit_g ? sqrt(scale * gsl_matrix_get(cov, (size_t)(n_par - 1), (size_t)(n_par - 1))) : 0);
    }
    out->chi2_dof = chi2_total / (3.0 * (n_obs - n_par));
    out->rms = sqrt(ss_total / (3.0 * n_obs));

done:
    gsl_multifit_linear_free(ws);
    gsl_vector_free(c);
    gsl_vector_free(y);
    gsl_vector_free(w);
    gsl_matrix_free(cov);
    gsl_matrix_free(X);
    return rc;
}

double analysis_lag1_correlation(const icv_vec3 *r, int n)
{
    double lag = 0, ss = 0;
    for (int i = 0; i < n; i++) {
        ss += icv_v3_dot(r[i], r[i]);
        if (i + 1 < n)
            lag += icv_v3_dot(r[i], r[i + 1]);
    }
    double rho = ss > 0 ? lag / ss : 0;
    return rho < 0 ? 0 : rho > 0.9 ? 0.9 : rho;
}

double analysis_correlation_inflation(const icv_vec3 *r, int n)
{
    double rho = analysis_lag1_correlation(r, n);
    return (1 + rho) / (1 - rho);
}

int analysis_residual_modes(const icv_vec3 *r, int n, int dof, int min_dof, analysis_noise_mode mode[3])
{
    if (dof < min_dof)
        return 0;
    double S[9] = {0}, lam[3], dk[9];
    for (int i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                S[3 * a + b] += icv_v3_get(r[i], a) * icv_v3_get(r[i], b) / dof;
    gsl_matrix_view Sm = gsl_matrix_view_array(S, 3, 3), V = gsl_matrix_view_array(dk, 3, 3);
    gsl_vector_view L = gsl_vector_view_array(lam, 3);
    gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(3);
    icv_vec3 *along = malloc(sizeof *along * (size_t)n);
    int ok = w && along && gsl_eigen_symmv(&Sm.matrix, &L.vector, &V.matrix, w) == 0;
    for (int k = 0; ok && k < 3; k++) {
        icv_vec3 d = icv_v3(dk[k], dk[3 + k], dk[6 + k]);
        for (int i = 0; i < n; i++)
            along[i] = icv_v3(icv_v3_dot(r[i], d), 0, 0);
        mode[k] = (analysis_noise_mode){d, fmax(lam[k], 0), analysis_lag1_correlation(along, n)};
    }
    gsl_eigen_symmv_free(w);
    free(along);
    return ok;
}
