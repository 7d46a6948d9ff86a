/* impact.c: the single place where synth calls the impact solver (solver/impact.h,
 * the exact impulse-integration method with the scenario's restitution law, mu and
 * e_n). synth never solves an impact itself. */
#include "synth/synth.h"

int synth_impact_solve(const synth_scenario *sc, const synth_state *pre, icv_vec3 contact_body, synth_impact *out,
                       icv_err *err)
{
    (void)sc;
    (void)pre;
    (void)contact_body;
    (void)out;
    return icv_err_set(err, ICV_ENOTIMPL,
                       "the impact solver (solver/, issue #3) is not available yet: set max_impacts: 0");
}
