/* impact_solve.c: checks an impact case, builds the contact problem u = u0 + K P
 * (spec sec. 0: K = E/m - [r]x I^-1 [r]x, n = +y of the surface frame), runs the chosen
 * model in contact space (impact_contact_solve, shared with two bodies and the chain)
 * and recovers v' = v + P/m, w' = w + I^-1 (r x P) and the energies (sec. 1.6). */
#include <math.h>
#include <string.h>

#include "solver/impact_internal.h"

void impact_case_init(impact_case *c)
{
    memset(c, 0, sizeof *c);
    c->mass = 1;
    c->inertia = icv_m3_identity();
    c->R = icv_m3_identity();
    c->law = ICV_RESTITUTION_STRONGE;
    c->method = IMPACT_EXACT;
}

const char *impact_method_name(impact_method m) { return m == IMPACT_ALGEBRAIC ? "algebraic" : "exact"; }

int impact_method_parse(const char *s, impact_method *m)
{
    if (s && !strcmp(s, "exact"))
        *m = IMPACT_EXACT;
    else if (s && !strcmp(s, "algebraic"))
        *m = IMPACT_ALGEBRAIC;
    else
        return ICV_EINVAL;
    return 0;
}

int impact_law_parse(const char *s, icv_restitution *law)
{
    if (s && !strcmp(s, "newton"))
        *law = ICV_RESTITUTION_NEWTON;
    else if (s && !strcmp(s, "poisson"))
        *law = ICV_RESTITUTION_POISSON;
    else if (s && !strcmp(s, "stronge"))
        *law = ICV_RESTITUTION_STRONGE;
    else
        return ICV_EINVAL;
    return 0;
}

double impact_kinetic_energy(double mass, icv_mat3 inertia_world, icv_vec3 v, icv_vec3 omega)
{
    return 0.5 * mass * icv_v3_dot(v, v) + 0.5 * icv_v3_dot(omega, icv_m3_apply(inertia_world, omega));
}

icv_mat3 impact_contact_matrix(double mass, icv_mat3 inertia_world, icv_vec3 r)
{
    icv_mat3 inv;
    if (icv_m3_inverse(inertia_world, &inv) < 0)
        inv = icv_m3_diag(0, 0, 0);
    icv_mat3 rx = icv_m3_skew(r);
    icv_mat3 k = icv_m3_scale(icv_m3_mul(icv_m3_mul(rx, inv), rx), -1);
    for (int i = 0; i < 3; i++)
        k.m[i][i] += 1 / mass;
    /* symmetric by construction; remove rounding asymmetry */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            k.m[i][j] = k.m[j][i] = 0.5 * (k.m[i][j] + k.m[j][i]);
    return k;
}

static int finite3(icv_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

/* the friction and restitution parameters shared by every entry point */
static int check_model(double mu_s, double mu_k, double e_n, icv_restitution law, icv_err *err)
{
    if (!(mu_k >= 0) || !isfinite(mu_k))
        return icv_err_set(err, ICV_EINVAL, "impact: mu_k = %g, must be >= 0", mu_k);
    if (!(mu_s >= mu_k) || !isfinite(mu_s))
        return icv_err_set(err, ICV_EINVAL, "impact: mu_s = %g, must be >= mu_k = %g", mu_s, mu_k);
    if (!(e_n >= 0 && e_n <= 1))
        return icv_err_set(err, ICV_EINVAL, "impact: e_n = %g, must be in [0, 1]", e_n);
    if (law != ICV_RESTITUTION_NEWTON && law != ICV_RESTITUTION_POISSON && law != ICV_RESTITUTION_STRONGE)
        return icv_err_set(err, ICV_EINVAL, "impact: unknown restitution law %d", (int)law);
    return 0;
}

static int check_case(const impact_case *c, icv_err *err)
{
    if (!(c->mass > 0) || !isfinite(c->mass))
        return icv_err_set(err, ICV_EINVAL, "impact: mass = %g kg, must be > 0", c->mass);
    if (!finite3(c->r) || !finite3(c->v) || !finite3(c->omega))
        return icv_err_set(err, ICV_EINVAL, "impact: contact point, v or omega is not finite");
    int rc = check_model(c->mu_s, c->mu_k, c->e_n, c->law, err);
    if (rc < 0)
        return rc;
    if (!icv_m3_is_spd(c->inertia, 1e-9))
        return icv_err_set(err, ICV_EINVAL, "impact: inertia is not symmetric positive definite");
    return 0;
}

icv_mat3 impact_planar_contact_matrix(double mass, double izz, icv_vec3 r)
{
    icv_mat3 k = icv_m3_diag(0, 0, 0);
    if (isinf(mass))
        return k; /* a fixed body adds nothing to W */
    k.m[0][0] = 1 / mass + r.y * r.y / izz;
    k.m[0][1] = k.m[1][0] = -r.x * r.y / izz;
    k.m[1][1] = 1 / mass + r.x * r.x / izz;
    return k;
}

/* The contact-space solve on a checked case into a zeroed res (the hot path of
 * impact_solve: no second check or clearing); leaves res->contact_velocity to the caller. */
static int contact_solve(const impact_contact_case *c, impact_result *res, icv_err *err)
{
    int rc;
    icv_vec3 u0 = c->u0;
    if (c->planar)
        u0.z = 0;
    res->contact_velocity_pre = u0;
    if (!(u0.y < 0))
        return icv_err_set(err, ICV_EINVAL,
                           "impact: normal contact velocity u_y = %g m/s: no approach (needs u_y < 0: check v, omega, contact)", u0.y);
    if (c->planar) {
        planar_problem pp = {
            .ktt = c->K.m[0][0], .ktn = c->K.m[0][1], .knn = c->K.m[1][1],
            .ut0 = u0.x, .un0 = u0.y,
            .mu_s = c->mu_s, .mu_k = c->mu_k, .e = c->e_n, .law = c->law,
        };
        planar_solution sol;
        rc = impact_planar_periods(&pp, &sol, err);
        if (rc < 0)
            return rc;
        res->impulse = icv_v3(sol.pt, sol.pn, 0);
        res->p_nc = sol.pnc;
        res->work_compression = sol.wc;
        res->work_restitution = sol.wr;
        res->work_friction = sol.wf;
        res->case_label[0] = (char)('0' + sol.case_no);
        res->case_label[1] = 0;
        res->n_periods = sol.n_periods;
        memcpy(res->periods, sol.periods, sizeof sol.periods);
    } else {
        const icv_mat3 *k = &c->K;
        contact_problem pr = {
            .B = {{k->m[0][0], k->m[0][2]}, {k->m[2][0], k->m[2][2]}},
            .d = {k->m[0][1], k->m[2][1]},
            .w = k->m[1][1],
            .ut0 = {u0.x, u0.z},
            .un0 = u0.y,
            .mu_s = c->mu_s,
            .mu_k = c->mu_k,
            .e = c->e_n,
            .law = c->law,
        };
        contact_state st;
        rc = c->method == IMPACT_ALGEBRAIC ? impact_sb_solve(&pr, &st, res, err)
                                           : impact_exact_solve(&pr, &st, res, err);
        if (rc < 0)
            return rc;
        res->impulse = icv_v3(st.pt[0], st.pn, st.pt[1]);
        res->p_nc = st.pnc;
        res->work_compression = st.wc;
        res->work_restitution = st.wr;
        res->work_friction = st.wf;
    }
    return 0;
}

int impact_contact_solve(const impact_contact_case *c, impact_result *res, icv_err *err)
{
    memset(res, 0, sizeof *res);
    int rc = check_model(c->mu_s, c->mu_k, c->e_n, c->law, err);
    if (rc < 0)
        return rc;
    if (!finite3(c->u0))
        return icv_err_set(err, ICV_EINVAL, "impact: contact velocity is not finite");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (!isfinite(c->K.m[i][j]) || fabs(c->K.m[i][j] - c->K.m[j][i]) > 1e-9 * (fabs(c->K.m[i][j]) + fabs(c->K.m[j][i])))
                return icv_err_set(err, ICV_EINVAL, "impact: contact matrix W[%d][%d] = %g is not finite or not symmetric",
                                   i, j, c->K.m[i][j]);
    if ((rc = contact_solve(c, res, err)) < 0)
        return rc;
    icv_mat3 k = c->K;
    icv_vec3 u0 = res->contact_velocity_pre;
    if (c->planar)
        k.m[0][2] = k.m[2][0] = k.m[1][2] = k.m[2][1] = k.m[2][2] = 0;
    res->contact_velocity = icv_v3_add(u0, icv_m3_apply(k, res->impulse));
    return 0;
}

int impact_solve(const impact_case *c, impact_result *res, icv_err *err)
{
    memset(res, 0, sizeof *res);
    int rc = check_case(c, err);
    if (rc < 0)
        return rc;
    icv_mat3 iw = c->inertia_is_world ? c->inertia : icv_m3_rotate_tensor(c->R, c->inertia);
    icv_vec3 r = c->r, v = c->v, om = c->omega;
    impact_contact_case cc = {.mu_s = c->mu_s, .mu_k = c->mu_k, .e_n = c->e_n, .law = c->law,
                              .method = c->method, .planar = c->planar};
    double izz = iw.m[2][2];
    if (c->planar) {
        /* motion in x-y, rotation about z with the surface-frame moment I_zz */
        r.z = 0;
        v.z = 0;
        om.x = om.y = 0;
        iw = icv_m3_diag(iw.m[0][0], iw.m[1][1], izz); /* energies use I_zz only (w = w_z) */
        cc.K = impact_planar_contact_matrix(c->mass, izz, r);
        cc.u0 = icv_v3(v.x - om.z * r.y, v.y + om.z * r.x, 0);
    } else {
        cc.K = impact_contact_matrix(c->mass, iw, r);
        cc.u0 = icv_v3_add(v, icv_v3_cross(om, r));
    }
    rc = contact_solve(&cc, res, err);
    if (rc < 0)
        return rc;
    icv_vec3 P = res->impulse;
    res->v = icv_v3_add(v, icv_v3_scale(P, 1 / c->mass));
    if (c->planar) {
        res->omega = icv_v3(0, 0, om.z + (r.x * P.y - r.y * P.x) / izz);
    } else {
        icv_mat3 inv;
        icv_m3_inverse(iw, &inv);
        res->omega = icv_v3_add(om, icv_m3_apply(inv, icv_v3_cross(r, P)));
    }
    res->contact_velocity = icv_v3_add(res->v, icv_v3_cross(res->omega, r));
    res->energy_pre = impact_kinetic_energy(c->mass, iw, v, om);
    res->energy_post = impact_kinetic_energy(c->mass, iw, res->v, res->omega);
    res->loss_fraction = res->energy_pre > 0 ? 1 - res->energy_post / res->energy_pre : 0;
    return 0;
}
