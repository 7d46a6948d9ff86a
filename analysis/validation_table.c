/* validation_table.c: one (mu, e_n) for several experiments and the table that
 * compares each measured impact with the model (Han Sun Tables 4.6 and 4.9:
 * experiment, measured post v and omega, model post v and omega, case, energy
 * dissipation measured and model, and their difference), as CSV and Markdown. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"

static void case_of(const analysis_experiment_result *j, const analysis_impact *im, impact_case *c)
{
    impact_case_init(c);
    c->mass = j->body.mass;
    c->inertia = j->body.inertia;
    c->R = im->pre.R;
    c->r = icv_v3_sub(im->contact_point, im->pre.p);
    c->v = im->pre.v;
    c->omega = im->pre.omega;
    c->law = j->model.law;
    c->method = j->model.method;
}

int analysis_validation_write(const char *dir, analysis_experiment_result *const *jobs, int n_jobs,
                              impact_fit_result *fit, icv_err *err)
{
    int n = 0;
    for (int j = 0; j < n_jobs; j++)
        n += jobs[j]->res.n_impacts;
    if (n == 0)
        return icv_err_set(err, ICV_ENOTFOUND, "validation: no impacts in the %d experiments", n_jobs);
    impact_observation *obs = calloc((size_t)n, sizeof *obs);
    if (!obs)
        return icv_err_set(err, ICV_ENOMEM, "validation: out of memory");
    int k = 0;
    double r0 = 0, e0 = 0;
    for (int j = 0; j < n_jobs; j++)
        for (int i = 0; i < jobs[j]->res.n_impacts; i++, k++) {
            const analysis_impact *im = &jobs[j]->res.impacts[i];
            case_of(jobs[j], im, &obs[k].pre);
            obs[k].v_post = im->post.v;
            obs[k].omega_post = im->post.omega;
            if (!im->spin_observable && !jobs[j]->body.tmpl.point) /* the rod's spin is not in the data */
                obs[k].omega_unseen = icv_m3_apply(im->pre.R, jobs[j]->body.tmpl.axis);
            obs[k].omega_unmeasured = jobs[j]->body.tmpl.point; /* a ball's omega: 0, not measured */
            r0 += isfinite(im->impulse_ratio) ? im->impulse_ratio : 0.3;
            e0 += isfinite(im->e_kinematic) ? im->e_kinematic : 0.5;
        }
    int rc = impact_fit(obs, (size_t)n, fmin(fmax(r0 / n, 0.05), 1.0), fmin(fmax(e0 / n, 0.05), 0.95), fit, err);
    if (rc) {
        free(obs);
        return rc;
    }
    char csv_path[ICV_PATH_MAX], md_path[ICV_PATH_MAX];
    icv_atomic_file csv, md;
    if ((rc = icv_mkdirs(dir, err)) || (rc = icv_path_join(csv_path, sizeof csv_path, dir, "validation.csv", err)) ||
        (rc = icv_path_join(md_path, sizeof md_path, dir, "validation.md", err)) ||
        (rc = icv_atomic_open(&csv, csv_path, err))) {
        free(obs);
        return rc;
    }
    if ((rc = icv_atomic_open(&md, md_path, err))) {
        icv_atomic_abort(&csv);
        free(obs);
        return rc;
    }
    fprintf(csv.fp, "experiment,impact,vx_post,vy_post,vz_post,wx_post,wy_post,wz_post,model_vx,model_vy,model_vz,"
                    "model_wx,model_wy,model_wz,case,loss_measured,loss_model,loss_difference\n");
    fprintf(md.fp, "# Validation: one mu = %.3f +- %.3f and e_n = %.3f +- %.3f (%s restitution) for %d impacts\n\n",
            fit->mu, fit->mu_se, fit->e_n, fit->e_n_se, icv_restitution_name(jobs[0]->model.law), n);
    if (!fit->mu_identifiable)
        fprintf(md.fp, "mu is not identifiable from these impacts (they stick): it is at least %.3f.\n\n",
                fit->mu_lower_bound);
    fprintf(md.fp, "| experiment | # | measured v' (m/s) | measured w' (rad/s) | model v' (m/s) | model w' (rad/s) "
                   "| case | dissipation measured | model | difference |\n");
    fprintf(md.fp, "|---|---|---|---|---|---|---|---|---|---|\n");
    k = 0;
    for (int j = 0; j < n_jobs; j++)
        for (int i = 0; i < jobs[j]->res.n_impacts; i++, k++) {
            const analysis_impact *im = &jobs[j]->res.impacts[i];
            impact_case c = obs[k].pre;
            c.mu_s = c.mu_k = fit->mu;
            c.e_n = fit->e_n;
            impact_result r;
            icv_err serr;
            int ok = impact_solve(&c, &r, &serr) == 0;
            icv_vec3 mv = ok ? r.v : icv_v3(NAN, NAN, NAN), mw = ok ? r.omega : icv_v3(NAN, NAN, NAN);
            double ml = ok ? analysis_model_loss_scoped(&jobs[j]->body, im, &r) : NAN; /* like the measured */
            const char *name = jobs[j]->exp.name;
            fprintf(csv.fp, "%s,%d,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%.5g,%s,%.4f,%.4f,%.4f\n", name,
                    i, im->post.v.x, im->post.v.y, im->post.v.z, im->post.omega.x, im->post.omega.y, im->post.omega.z,
                    mv.x, mv.y, mv.z, mw.x, mw.y, mw.z, ok ? r.case_label : "none", im->loss_fraction, ml,
                    ml - im->loss_fraction);
            fprintf(md.fp,
                    "| %s | %d | (%.3f, %.3f, %.3f) | (%.2f, %.2f, %.2f) | (%.3f, %.3f, %.3f) | (%.2f, %.2f, %.2f) | %s "
                    "| %.1f%% | %.1f%% | %+.1f%% |\n",
                    name, i, im->post.v.x, im->post.v.y, im->post.v.z, im->post.omega.x, im->post.omega.y,
                    im->post.omega.z, mv.x, mv.y, mv.z, mw.x, mw.y, mw.z, ok ? r.case_label : "none",
                    100 * im->loss_fraction, 100 * ml, 100 * (ml - im->loss_fraction));
        }
    free(obs);
    rc = icv_atomic_commit(&csv, err);
    if (rc) {
        icv_atomic_abort(&md);
        return rc;
    }
    return icv_atomic_commit(&md, err);
}
