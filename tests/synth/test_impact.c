/* test_impact.c: impacts in synthetic flights (synth/flight.c + synth/impact.c): the
 * solver's invariants hold at the exact contact instant, and synth's result is the
 * solver's own (exact method). */
#include "solver/impact.h"
#include "synth/synth.h"
#include "tests/harness.h"

static void tumbling_rod(synth_scenario *sc, icv_restitution law, double mu, double e_n)
{
    synth_scenario_defaults(sc);
    sc->release_time_s = 0;
    sc->release.p = icv_v3(0, 0.3, 0);
    sc->release.R = icv_euler213_to_matrix(icv_v3(0.4, 0.7, 0.2));
    sc->release.v = icv_v3(0.4, -0.2, 0.1);
    sc->release.omega = icv_v3(1, -2, 6);
    sc->restitution = law;
    sc->mu_s = sc->mu_k = mu;
    sc->e_n = e_n;
    sc->max_impacts = 1;
}

TEST(test_impact_obeys_the_solvers_invariants_at_the_contact_instant)
{
    const icv_restitution laws[3] = {ICV_RESTITUTION_NEWTON, ICV_RESTITUTION_POISSON, ICV_RESTITUTION_STRONGE};
    for (int li = 0; li < 3; li++) {
        synth_scenario sc;
        tumbling_rod(&sc, laws[li], 0.3, 0.6);
        synth_flight *f;
        icv_err err;
        ASSERT(synth_flight_run(&sc, 0.6, &f, &err) == 0, "%s", err.msg);
        ASSERT_EQ_INT(synth_flight_n_impacts(f), 1);
        synth_impact im = *synth_flight_impact(f, 0);
        const synth_body *b = &sc.body;
        /* the contact is at the surface: |gap| <= |v| x 1e-10 s (Brent's tolerance) */
        ASSERT_NEAR(im.contact_point.y, 0.0, 1e-9);
        icv_vec3 r = icv_v3_sub(im.contact_point, im.pre.p);
        icv_vec3 u0 = icv_v3_add(im.pre.v, icv_v3_cross(im.pre.omega, r));
        icv_vec3 u1 = icv_v3_add(im.post.v, icv_v3_cross(im.post.omega, r));
        ASSERT(u0.y < 0, "the contact approaches (u_y %g)", u0.y);
        ASSERT(u1.y >= -1e-9, "the contact separates after (u_y %g m/s)", u1.y); /* solver tolerance */
        ASSERT(im.impulse.y > 0, "the surface pushes (P_y %g)", im.impulse.y);
        /* friction cone: |P_t| <= mu P_n (1e-9 N s: the solver's integration tolerance) */
        ASSERT(hypot(im.impulse.x, im.impulse.z) <= sc.mu_s * im.impulse.y + 1e-9, "outside the friction cone");
        /* impulse = m (v_post - v_pre) and the angular impulse r x P (rounding only) */
        icv_vec3 dv = icv_v3_scale(icv_v3_sub(im.post.v, im.pre.v), b->mass);
        ASSERT_NEAR(icv_v3_norm(icv_v3_sub(dv, im.impulse)), 0.0, 1e-12);
        icv_mat3 Iw = icv_m3_rotate_tensor(im.pre.R, b->inertia);
        icv_vec3 dL = icv_m3_apply(Iw, icv_v3_sub(im.post.omega, im.pre.omega));
        ASSERT_NEAR(icv_v3_norm(icv_v3_sub(dL, icv_v3_cross(r, im.impulse))), 0.0, 1e-10);
        /* energy: Stronge's law (and the frictional work) never adds energy */
        if (laws[li] == ICV_RESTITUTION_STRONGE)
            ASSERT(synth_state_energy(b, &im.post) <= synth_state_energy(b, &im.pre) * (1 + 1e-12),
                   "Stronge impact created energy");
        /* the solver's own answer for the same case: synth passes it through unchanged */
        impact_case c;
        impact_case_init(&c);
        c.mass = b->mass;
        c.inertia = b->inertia;
        c.R = im.pre.R;
        c.r = r;
        c.v = im.pre.v;
        c.omega = im.pre.omega;
        c.mu_s = c.mu_k = 0.3;
        c.e_n = 0.6;
        c.law = laws[li];
        c.method = IMPACT_EXACT;
        impact_result res;
        ASSERT(impact_solve(&c, &res, &err) == 0, "%s", err.msg);
        ASSERT_NEAR(icv_v3_norm(icv_v3_sub(res.v, im.post.v)), 0.0, 1e-15);
        /* after the impact the flight resumes from the post-impact state */
        synth_state s;
        synth_flight_state_at(f, im.time_s + 1e-6, &s);
        ASSERT_NEAR(s.v.y, im.post.v.y - 9.81e-6, 1e-12);
        synth_flight_free(f);
    }
}

TEST(test_impact_further_bounces_are_found_in_order)
{
    synth_scenario sc;
    tumbling_rod(&sc, ICV_RESTITUTION_STRONGE, 0.2, 0.7);
    sc.max_impacts = 3;
    synth_flight *f;
    icv_err err;
    ASSERT(synth_flight_run(&sc, 1.5, &f, &err) == 0, "%s", err.msg);
    int n = synth_flight_n_impacts(f);
    double last = -1;
    for (int i = 0; i < n; i++) {
        const synth_impact *im = synth_flight_impact(f, i);
        ASSERT(im->time_s > last, "impact %d at %g s is not after %g s", i, im->time_s, last);
        ASSERT_NEAR(im->contact_point.y, 0.0, 1e-9);
        last = im->time_s;
    }
    synth_flight_free(f);
    ASSERT(n >= 2, "a bouncing rod (e_n 0.7) hits again within 1.5 s: %d impacts", n);
}
