/* impact.c: the single place where synth calls the impact solver (solver/impact.h,
 * the exact impulse-integration method, Wang ch. 2 / Stronge) with the scenario's
 * restitution law, mu_s, mu_k and e_n. synth never solves an impact itself. In planar
 * (one-camera) mode the spatial solver still runs: a planar state stays planar. */
#include <stdio.h>

#include "solver/impact.h"
#include "synth/synth.h"

int synth_impact_solve(const synth_scenario *sc, const synth_state *pre, icv_vec3 contact_body, synth_impact *out,
                       icv_err *err)
{
    impact_case c;
    impact_case_init(&c);
    c.mass = sc->body.mass;
    c.inertia = sc->body.inertia;
    c.R = pre->R;
    c.inertia_is_world = 0;
    c.r = icv_m3_apply(pre->R, contact_body);
    c.v = pre->v;
    c.omega = pre->omega;
    c.mu_s = sc->mu_s;
    c.mu_k = sc->mu_k;
    c.e_n = sc->e_n;
    c.law = sc->restitution;
    c.method = IMPACT_EXACT;
    c.planar = 0;
    impact_result res;
    int rc = impact_solve(&c, &res, err);
    if (rc)
        return icv_err_prefix(err, "solver (exact)");
    out->pre = *pre;
    out->post = *pre;
    out->post.v = res.v;
    out->post.omega = res.omega;
    out->impulse = res.impulse;
    snprintf(out->case_name, sizeof out->case_name, "%s", res.case_label);
    return 0;
}
