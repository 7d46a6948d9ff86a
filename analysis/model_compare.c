/* model_compare.c: the solver on each measured pre-impact state (docs/analysis.md). The
 * contact lever arm comes from the shape's lowest point at the impact;
 * mu and e_n are the experiment's, or fitted to the impact by the solver's
 * inverse when the experiment says `measured`. */
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"

static void case_from(const analysis_body *b, const analysis_impact *im, const analysis_model *m, impact_case *c)
{
    impact_case_init(c);
    c->mass = b->mass;
    c->inertia = b->inertia;
    c->R = im->pre.R;
    c->r = icv_v3_sub(im->contact_point, im->pre.p);
    c->v = im->pre.v;
    c->omega = im->pre.omega;
    c->law = m->law;
    c->method = m->method;
    c->mu_s = m->mu_s;
    c->mu_k = m->mu_k;
    c->e_n = m->e_n;
}

/* The model's loss of the energy the measurement counts (energy_rotation): beside
 * the measured loss, a ball's predicted spin would count on one side only. */
double analysis_model_loss_scoped(const analysis_body *b, const analysis_impact *im, const impact_result *r)
{
    if (im->energy_rotation == ANALYSIS_ROTATION_ALL)
        return r->loss_fraction;
    icv_vec3 w0 = im->pre.omega, w1 = r->omega;
    if (im->energy_rotation == ANALYSIS_ROTATION_NONE) {
        w0 = w1 = icv_v3(0, 0, 0);
    } else {
        icv_vec3 a = icv_m3_apply(im->pre.R, b->tmpl.axis);
        w0 = icv_v3_sub(w0, icv_v3_scale(a, icv_v3_dot(w0, a)));
        w1 = icv_v3_sub(w1, icv_v3_scale(a, icv_v3_dot(w1, a)));
    }
    icv_mat3 Iw = icv_m3_rotate_tensor(im->pre.R, b->inertia);
    double e0 = 0.5 * b->mass * icv_v3_dot(im->pre.v, im->pre.v) + 0.5 * icv_v3_dot(w0, icv_m3_apply(Iw, w0));
    double e1 = 0.5 * b->mass * icv_v3_dot(r->v, r->v) + 0.5 * icv_v3_dot(w1, icv_m3_apply(Iw, w1));
    return e0 > 0 ? 1 - e1 / e0 : NAN;
}

int analysis_model_compare(const analysis_body *b, const analysis_model *m, analysis_result *res, icv_err *err)
{
    for (int i = 0; i < res->n_impacts; i++) {
        analysis_impact *im = &res->impacts[i];
        memset(&im->model, 0, sizeof im->model);
        im->model.law = m->law;
        impact_case c;
        case_from(b, im, m, &c);
        int fit_mu = m->mu_k < 0, fit_e = m->e_n < 0;
        if (fit_mu || fit_e) {
            impact_observation ob = {c, im->post.v, im->post.omega, icv_v3(0, 0, 0), 0};
            if (!im->spin_observable && !b->tmpl.point) /* the rod's spin is not in the data */
                ob.omega_unseen = icv_m3_apply(im->pre.R, b->tmpl.axis);
            /* a ball's omega is reported 0, not measured: compared, the spin its
             * friction impulse gives it counted as a misfit (7% of a synth ball's
             * impact speed) */
            ob.omega_unmeasured = b->tmpl.point;
            impact_fit_result fr;
            icv_err ferr = {0};
            double mu0 = fit_mu ? (isfinite(im->impulse_ratio) ? fmin(fmax(im->impulse_ratio, 0.05), 1.0) : 0.3)
                                : m->mu_k;
            double e0 = fit_e ? fmin(fmax(im->e_kinematic, 0.05), 0.95) : m->e_n;
            if (impact_fit(&ob, 1, mu0, e0, &fr, &ferr)) {
                snprintf(im->model.note, sizeof im->model.note, "fit of mu and e_n failed: %s", ferr.msg);
                im->model.mu_identifiable = 1; /* no bound known: the start value is shown, with the note */
                c.mu_s = c.mu_k = mu0;
                c.e_n = e0;
            } else {
                if (fit_mu)
                    c.mu_s = c.mu_k = fr.mu;
                if (fit_e)
                    c.e_n = fr.e_n;
                im->model.mu_identifiable = fr.mu_identifiable;
                im->model.mu_lower_bound = fr.mu_lower_bound;
                double speed = icv_v3_norm(im->pre.v);
                if (fr.rms > 0.05 * speed) /* the best (mu, e_n) still misses by more than 5% */
                    snprintf(im->model.note, sizeof im->model.note,
                             "the model does not fit this impact: its best mu and e_n miss the measured post-impact "
                             "velocities by %.3f m/s rms (%.0f%% of the impact speed)",
                             fr.rms, 100 * fr.rms / speed);
                else if (fit_mu && !fr.mu_identifiable)
                    snprintf(im->model.note, sizeof im->model.note,
                             "the contact sticks: mu is only known to be at least %.3f", fr.mu_lower_bound);
            }
            im->model.mu_fitted = fit_mu;
            im->model.e_n_fitted = fit_e;
        }
        im->model.mu = c.mu_k;
        im->model.e_n = c.e_n;
        impact_result r;
        icv_err serr = {0};
        if (impact_solve(&c, &r, &serr)) {
            snprintf(im->model.note, sizeof im->model.note, "the model has no solution: %s", serr.msg);
            continue;
        }
        im->model.done = 1;
        snprintf(im->model.case_label, sizeof im->model.case_label, "%s", r.case_label);
        im->model.v = r.v;
        im->model.omega = r.omega;
        im->model.loss_fraction = analysis_model_loss_scoped(b, im, &r);
        if (b->tmpl.point) { /* the model starts from the spin reported: 0, not measured */
            size_t k = strlen(im->model.note);
            snprintf(im->model.note + k, sizeof im->model.note - k, "%sthe ball's spin before is not measured: "
                     "the model takes it as 0", k ? "; " : "");
        }
    }
    (void)err;
    return 0;
}
