/* impact_fit.c: the inverse problem: (mu, e_n) from measured pre/post states, for one
 * impact or jointly for a set, by nonlinear least squares on the post-impact velocities
 * (GSL multifit_nlinear, trust region, finite-difference Jacobian: the models are only
 * piecewise smooth in mu). Standard errors from s^2 (J^T J)^-1; a parameter whose
 * Jacobian column vanishes is reported not identifiable (e.g. mu of a sticking impact:
 * any mu above the needed impulse ratio fits, so only that lower bound is known). */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <string.h>

#include "solver/impact.h"

typedef struct {
    const impact_observation *obs;
    size_t n;
    int failures;
} fit_data;

/* the length that turns an angular velocity into m/s: the radius of gyration */
static double gyration(const impact_case *c)
{
    icv_mat3 iw = c->inertia_is_world ? c->inertia : icv_m3_rotate_tensor(c->R, c->inertia);
    double I = c->planar ? iw.m[2][2] : (iw.m[0][0] + iw.m[1][1] + iw.m[2][2]) / 3;
    return sqrt(I / c->mass);
}

int impact_observation_residual(const impact_observation *o, double mu, double e_n, double res[6],
                                impact_result *r, icv_err *err)
{
    impact_case c = o->pre;
    c.mu_s = c.mu_k = mu;
    c.e_n = e_n;
    int rc = impact_solve(&c, r, err);
    if (rc < 0)
        return rc;
    double L = gyration(&c);
    icv_vec3 dw = icv_v3_sub(r->omega, o->omega_post);
    if (icv_v3_norm(o->omega_unseen) > 0) { /* not measured about this axis: not compared */
        icv_vec3 a = icv_v3_unit(o->omega_unseen);
        dw = icv_v3_sub(dw, icv_v3_scale(a, icv_v3_dot(dw, a)));
    }
    if (o->omega_unmeasured)
        dw = icv_v3(0, 0, 0);
    res[0] = r->v.x - o->v_post.x;
    res[1] = r->v.y - o->v_post.y;
    res[2] = r->v.z - o->v_post.z;
    res[3] = L * dw.x;
    res[4] = L * dw.y;
    res[5] = L * dw.z;
    return 0;
}

static int residuals(const gsl_vector *x, void *par, gsl_vector *f)
{
    fit_data *d = par;
    /* mu >= 0 and e_n in [0, 1] by folding (the trust region is unconstrained) */
    double mu = fabs(gsl_vector_get(x, 0)), e = fmin(fabs(gsl_vector_get(x, 1)), 1);
    d->failures = 0;
    for (size_t i = 0; i < d->n; i++) {
        double r[6];
        impact_result res;
        icv_err err;
        if (impact_observation_residual(&d->obs[i], mu, e, r, &res, &err) < 0) {
            /* no solution (Painleve-type) at these parameters: a large, smooth penalty */
            for (int k = 0; k < 6; k++)
                r[k] = 10 * (icv_v3_norm(d->obs[i].pre.v) + 1);
            d->failures++;
        }
        for (int k = 0; k < 6; k++)
            gsl_vector_set(f, 6 * i + k, r[k]);
    }
    return GSL_SUCCESS;
}

int impact_fit(const impact_observation *obs, size_t n, double mu0, double e0, impact_fit_result *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return icv_err_set(err, ICV_EINVAL, "impact fit: no observations");
    fit_data d = {obs, n, 0};
    size_t nr = 6 * n;
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    par.h_df = 1e-6; /* forward-difference step: the models are piecewise smooth in mu */
    gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, nr, 2);
    gsl_matrix *cov = gsl_matrix_alloc(2, 2);
    if (!w || !cov) {
        if (w)
            gsl_multifit_nlinear_free(w);
        if (cov)
            gsl_matrix_free(cov);
        return icv_err_set(err, ICV_ENOMEM, "impact fit: out of memory");
    }
    gsl_multifit_nlinear_fdf fdf = {.f = residuals, .df = NULL, .fvv = NULL, .n = nr, .p = 2, .params = &d};
    double x0[2] = {mu0, e0};
    gsl_vector_view xv = gsl_vector_view_array(x0, 2);
    int info = 0, rc = 0;
    int status = gsl_multifit_nlinear_init(&xv.vector, &fdf, w);
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-12, NULL, NULL, &info, w);
    const gsl_vector *x = gsl_multifit_nlinear_position(w);
    out->mu = fabs(gsl_vector_get(x, 0));
    out->e_n = fmin(fabs(gsl_vector_get(x, 1)), 1);
    out->iterations = (int)gsl_multifit_nlinear_niter(w);
    out->converged = status == GSL_SUCCESS;
    /* the residual and Jacobian at the solution */
    const gsl_vector *f = gsl_multifit_nlinear_residual(w);
    double chi = gsl_blas_dnrm2(f);
    gsl_vector *ftmp = gsl_vector_alloc(nr);
    if (ftmp) {
        residuals(x, &d, ftmp); /* counts the observations without a solution at the fit */
        gsl_vector_free(ftmp);
    }
    out->n_obs = (int)n;
    out->n_failed = d.failures;
    out->rms = chi / sqrt((double)nr);
    const gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    double cn[2];
    for (int j = 0; j < 2; j++) {
        gsl_vector_const_view col = gsl_matrix_const_column(J, j);
        cn[j] = gsl_blas_dnrm2(&col.vector);
    }
    double scale = fmax(cn[0], cn[1]);
    /* a column below 1e-8 of the other: the residual does not depend on the parameter
     * (finite differences of step 1e-6 resolve relative changes far below that) */
    out->mu_identifiable = cn[0] > 1e-8 * scale && scale > 0;
    out->e_n_identifiable = cn[1] > 1e-8 * scale && scale > 0;
    int cov_ok = gsl_multifit_nlinear_covar(J, 1e-12, cov) == GSL_SUCCESS; /* else the sigmas are unknown */
    double dof = nr > 2 ? (double)(nr - 2) : 1;
    double s2 = chi * chi / dof;
    out->mu_se = out->mu_identifiable && cov_ok ? sqrt(s2 * gsl_matrix_get(cov, 0, 0)) : NAN;
    out->e_n_se = out->e_n_identifiable && cov_ok ? sqrt(s2 * gsl_matrix_get(cov, 1, 1)) : NAN;
    /* what the data do say about mu: the largest impulse ratio |P_t|/P_n the fit needs */
    out->mu_lower_bound = 0;
    for (size_t i = 0; i < n; i++) {
        double r[6];
        impact_result res;
        icv_err e2;
        if (impact_observation_residual(&obs[i], out->mu, out->e_n, r, &res, &e2) == 0 && res.impulse.y > 0)
            out->mu_lower_bound = fmax(out->mu_lower_bound, hypot(res.impulse.x, res.impulse.z) / res.impulse.y);
    }
    if (!out->converged && out->iterations == 0)
        rc = icv_err_set(err, ICV_ENUMERIC, "impact fit: %s", gsl_strerror(status));
    gsl_matrix_free(cov);
    gsl_multifit_nlinear_free(w);
    return rc;
}
