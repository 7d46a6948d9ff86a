/* bodies_summary.c: the console lines of several bodies' analysis (analyze, run). */
#include <stdlib.h>

#include "cli/cli.h"

/* 1 when the experiment names several bodies (bodies:); a file that does not load is
 * left to the job, which says why */
int cli_several_bodies(const char *path)
{
    icv_experiment *e = malloc(sizeof *e);
    icv_err err = {0};
    int several = e && icv_experiment_load(path, e, &err) == 0 && e->n_bodies > 1;
    free(e);
    return several;
}

void cli_bodies_summary(const job_bodies_result *r)
{
    const icv_experiment *e = &r->exp;
    if (r->res.n_chain)
        cli_summary("%s: %d bodies pinned into a chain, %d impact%s with the surface\n", e->name, e->n_bodies,
                    r->res.n_chain, r->res.n_chain == 1 ? "" : "s");
    else
        cli_summary("%s: %d bodies, %d body-body impact%s, %d with the surface\n", e->name, e->n_bodies,
                    r->res.n_impacts, r->res.n_impacts == 1 ? "" : "s", r->res.n_surface);
    for (int k = 0; k < r->n_joints; k++)
        cli_summary("  joint %d ('%s'-'%s'): %.2f mm apart on the tracks (RMS; noise alone %.2f mm)\n", k,
                    e->bodies[e->joints[k].body[0]].name, e->bodies[e->joints[k].body[1]].name,
                    1e3 * r->joint[k].rms, 1e3 * r->joint[k].expected_rms);
    for (int i = 0; i < r->res.n_chain; i++) {
        const analysis_chain_impact *c = &r->res.chain[i];
        const int *l = r->res.chain_links;
        cli_summary("  chain ('%s'-'%s') hits the surface with '%s' at t = %.5f s (+- %.1e): Akhan's e = %.3f +- %.3f "
                    "(links %.3f +- %.3f, %.3f +- %.3f), kinetic energy %.4f -> %.4f J\n",
                    e->bodies[l[0]].name, e->bodies[l[1]].name, e->bodies[l[c->link_hit]].name, c->t,
                    c->t_sd, c->e_chain, c->e_chain_sd, c->e_link[0], c->e_link_sd[0], c->e_link[1], c->e_link_sd[1],
                    c->energy_pre, c->energy_post);
    }
    for (int i = 0; i < r->res.n_impacts; i++) {
        const analysis_body_impact *im = &r->res.impacts[i];
        icv_vec3 dp = icv_v3_sub(im->momentum_post, im->momentum_pre);
        cli_summary("  impact %d, '%s' and '%s', at t = %.4f s (+- %.1e): e = %.3f +- %.3f, impulse ratio = %.3f "
                    "+- %.3f, energy lost %.1f%% +- %.1f%%, momentum change %.2g N s (impulse mismatch "
                    "chi2 %.1f on 3 dof)\n",
                    i, e->bodies[im->body[0]].name, e->bodies[im->body[1]].name, im->t, im->t_sd, im->e_newton,
                    im->e_newton_sd, im->impulse_ratio, im->impulse_ratio_sd, 100 * im->loss_fraction,
                    100 * im->loss_fraction_sd, icv_v3_norm(dp), im->impulse_mismatch_chi2);
    }
    for (int i = 0; i < r->res.n_surface; i++) {
        const analysis_surface_impact *s = &r->res.surface[i];
        cli_summary("  '%s' hits the surface at t = %.4f s (+- %.1e): e = %.3f +- %.3f, impulse ratio = %.3f +- %.3f, "
                    "energy lost %.1f%% +- %.1f%%%s%s\n",
                    e->bodies[s->body].name, s->im.t, s->im.t_sd, s->im.e_kinematic, s->im.sd.e_kinematic,
                    s->im.impulse_ratio, s->im.sd.impulse_ratio, 100 * s->im.loss_fraction,
                    100 * s->im.sd.loss_fraction, s->im.implausible[0] ? ": IMPLAUSIBLE: " : "",
                    s->im.implausible);
    }
}
