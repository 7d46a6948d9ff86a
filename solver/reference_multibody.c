/* reference_multibody.c: the source documents' cases with several bodies (Wang ch. 3's
 * Newton's cradle, Akhan's two-link chain), as adapters to impact_row_solve and
 * impact_chain_solve; reference_cases.c lists their published values. */
#include <math.h>
#include <string.h>

#include "solver/impact_internal.h"

/* Wang Table 3.1: five equal balls, e = 0.95, equal stiffness, ball 1 released from
 * 5 pi/36 on a string of l = 0.129 m (g = 9.81: v0 = theta0 sqrt(g l), her small-angle
 * pendulum, 0.4908 m/s). exponent 1: her linear spring (3.5); 1.5: Hertz. */
int impact_reference_cradle(double exponent, double v[5], icv_err *err)
{
    impact_row_case c;
    impact_row_case_init(&c, 5);
    for (int i = 0; i < 4; i++)
        c.e[i] = 0.95;
    c.exponent = exponent;
    c.v[0] = impact_row_pendulum_speed(0.129, 5 * M_PI / 36, 9.81);
    impact_row_result r;
    int rc = impact_row_solve(&c, &r, err);
    for (int i = 0; i < 5; i++)
        v[i] = r.v[i];
    return rc;
}

/* Akhan's test cases 1-3 (sec. 4.1-4.3): v_Ty = 1.2 m/s, v_Tx = 0, theta = 50, 55, 60
 * deg, beta = 0, nylon links L = 0.1524 m with a tip of radius R = 0.00762 m, m =
 * 0.0357 kg (from his pre-impact 0.0257 J per link), mu = 0.18. His link cross-section is
 * not given: slender links, I = m L^2 / 12. His frame has y down, ours y up: link 0
 * rises from O at theta, the pin is L further, link 1 lies horizontal beyond it (his
 * eqs. 2.2-2.4). As printed, O = T + R j lies R *below* the contact T in his y-down
 * frame (as_printed = 1, what his simulation was built from); a rounded tip has it R
 * above (as_printed = 0). */
impact_chain_case impact_reference_akhan_chain(int case_no, double e_n, int as_printed)
{
    const double m = 0.0357, L = 0.1524, R = 0.00762, vy = 1.2;
    double th = (case_no == 1 ? 50 : case_no == 2 ? 55 : 60) * M_PI / 180;
    impact_chain_case c;
    memset(&c, 0, sizeof c);
    icv_vec3 O = icv_v3(0, as_printed ? -R : R, 0), u = icv_v3(cos(th), sin(th), 0);
    c.contact = icv_v3(0, 0, 0);
    c.centre[0] = icv_v3_add(O, icv_v3_scale(u, L / 2));
    c.joint = icv_v3_add(O, icv_v3_scale(u, L));
    c.centre[1] = icv_v3_add(c.joint, icv_v3(L / 2, 0, 0));
    for (int i = 0; i < 2; i++) {
        c.mass[i] = m;
        c.inertia[i] = m * L * L / 12;
        c.v[i] = icv_v3(0, -vy, 0);
    }
    c.mu_s = c.mu_k = 0.18;
    c.e_n = e_n;
    c.law = ICV_RESTITUTION_STRONGE;
    return c;
}

/* Akhan's outputs in his frame (y down, angles positive as his figures): v_Ty', v_Tx',
 * omega_1, v_C2y', v_C2x', omega_2, KE1', KE2', e_sys */
void impact_reference_akhan_outputs(const impact_chain_result *r, double out[9])
{
    out[0] = -r->contact.contact_velocity.y;
    out[1] = r->contact.contact_velocity.x;
    out[2] = -r->omega[0];
    out[3] = -r->v[1].y;
    out[4] = r->v[1].x;
    out[5] = -r->omega[1];
    out[6] = r->energy_post[0];
    out[7] = r->energy_post[1];
    out[8] = r->e_energetic[2];
}

/* the Stronge e_n at which the rigid chain's tip leaves at his simulated v_Ty' */
int impact_reference_akhan_fit_e(int case_no, int as_printed, double vty_after, double *e_n, icv_err *err)
{
    double lo = 0, hi = 1;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi), out[9];
        impact_chain_case c = impact_reference_akhan_chain(case_no, mid, as_printed);
        impact_chain_result r;
        int rc = impact_chain_solve(&c, &r, err);
        if (rc < 0)
            return rc;
        impact_reference_akhan_outputs(&r, out);
        if (out[0] > vty_after) /* rebounds slower than his (his v_Ty' < 0 is upwards) */
            lo = mid;
        else
            hi = mid;
    }
    *e_n = 0.5 * (lo + hi);
    return 0;
}
