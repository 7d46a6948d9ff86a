/* two_body.c: the impact of two free rigid bodies (or a body and a fixed one) at one
 * point (Wang ch. 2; spec sec. 0): W = K_a + K_b, u = u_a - u_b at the contact, the
 * contact-space models of impact_contact_solve, then v', w' of each body from +-P. */
#include <math.h>
#include <string.h>

#include "solver/impact.h"

void impact_pair_case_init(impact_pair_case *c)
{
    impact_case one;
    impact_case_init(&one);
    *c = impact_pair_from_case(&one);
    c->b.mass = 1;
}

impact_pair_case impact_pair_from_case(const impact_case *c)
{
    impact_pair_case p;
    memset(&p, 0, sizeof p);
    p.a = (impact_body){.mass = c->mass, .inertia = c->inertia, .R = c->R, .inertia_is_world = c->inertia_is_world,
                        .r = c->r, .v = c->v, .omega = c->omega};
    p.b = (impact_body){.mass = INFINITY, .inertia = icv_m3_identity(), .R = icv_m3_identity()};
    p.mu_s = c->mu_s;
    p.mu_k = c->mu_k;
    p.e_n = c->e_n;
    p.law = c->law;
    p.method = c->method;
    p.planar = c->planar;
    return p;
}

static int finite3(icv_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

static int check_body(const impact_body *b, const char *name, icv_err *err)
{
    if (!(b->mass > 0))
        return icv_err_set(err, ICV_EINVAL, "impact: body %s: mass = %g kg, must be > 0 (or inf: fixed)", name, b->mass);
    if (!finite3(b->r) || !finite3(b->v) || !finite3(b->omega))
        return icv_err_set(err, ICV_EINVAL, "impact: body %s: contact point, v or omega is not finite", name);
    if (isfinite(b->mass) && !icv_m3_is_spd(b->inertia, 1e-9))
        return icv_err_set(err, ICV_EINVAL, "impact: body %s: inertia is not symmetric positive definite", name);
    return 0;
}

/* the body's inertia in the contact frame (planar: I_zz alone, as impact_solve) */
static icv_mat3 world_inertia(const impact_body *b, int planar)
{
    icv_mat3 iw = b->inertia_is_world ? b->inertia : icv_m3_rotate_tensor(b->R, b->inertia);
    return planar ? icv_m3_diag(iw.m[0][0], iw.m[1][1], iw.m[2][2]) : iw;
}

/* the body's state as the chosen model sees it (planar: x-y motion, rotation about z) */
static void model_state(const impact_body *b, int planar, icv_vec3 *r, icv_vec3 *v, icv_vec3 *om)
{
    *r = b->r;
    *v = b->v;
    *om = b->omega;
    if (planar) {
        r->z = 0;
        v->z = 0;
        om->x = om->y = 0;
    }
}

static icv_mat3 body_k(const impact_body *b, int planar)
{
    if (isinf(b->mass))
        return icv_m3_diag(0, 0, 0);
    icv_vec3 r, v, om;
    model_state(b, planar, &r, &v, &om);
    icv_mat3 iw = world_inertia(b, planar);
    return planar ? impact_planar_contact_matrix(b->mass, iw.m[2][2], r) : impact_contact_matrix(b->mass, iw, r);
}

icv_mat3 impact_pair_contact_matrix(const impact_body *a, const impact_body *b)
{
    return icv_m3_add(body_k(a, 0), body_k(b, 0));
}

/* v' and w' of a body receiving impulse P at r */
static void apply_impulse(const impact_body *b, int planar, icv_vec3 P, icv_vec3 *v1, icv_vec3 *om1)
{
    icv_vec3 r, v, om;
    model_state(b, planar, &r, &v, &om);
    if (isinf(b->mass)) {
        *v1 = v;
        *om1 = om;
        return;
    }
    icv_mat3 iw = world_inertia(b, planar);
    *v1 = icv_v3_add(v, icv_v3_scale(P, 1 / b->mass));
    if (planar) {
        *om1 = icv_v3(0, 0, om.z + (r.x * P.y - r.y * P.x) / iw.m[2][2]);
    } else {
        icv_mat3 inv;
        icv_m3_inverse(iw, &inv);
        *om1 = icv_v3_add(om, icv_m3_apply(inv, icv_v3_cross(r, P)));
    }
}

/* kinetic energy, momentum and angular momentum about the contact point of a body */
static void body_sums(const impact_body *b, int planar, icv_vec3 v, icv_vec3 om, double *e, icv_vec3 *p, icv_vec3 *l)
{
    if (isinf(b->mass)) {
        *e = 0;
        *p = *l = icv_v3(0, 0, 0);
        return;
    }
    icv_vec3 r = b->r;
    if (planar)
        r.z = 0;
    icv_mat3 iw = world_inertia(b, planar);
    *e = impact_kinetic_energy(b->mass, iw, v, om);
    *p = icv_v3_scale(v, b->mass);
    /* L_C = I w + m (G - C) x v with G - C = -r */
    *l = icv_v3_sub(icv_m3_apply(iw, om), icv_v3_scale(icv_v3_cross(r, v), b->mass));
}

int impact_pair_solve(const impact_pair_case *c, impact_pair_result *res, icv_err *err)
{
    memset(res, 0, sizeof *res);
    int rc;
    if ((rc = check_body(&c->a, "a", err)) < 0 || (rc = check_body(&c->b, "b", err)) < 0)
        return rc;
    if (isinf(c->a.mass) && isinf(c->b.mass))
        return icv_err_set(err, ICV_EINVAL, "impact: bodies a and b both have infinite mass: nothing can move");
    icv_vec3 ra, va, wa, rb, vb, wb;
    model_state(&c->a, c->planar, &ra, &va, &wa);
    model_state(&c->b, c->planar, &rb, &vb, &wb);
    impact_contact_case cc = {
        .K = icv_m3_add(body_k(&c->a, c->planar), body_k(&c->b, c->planar)),
        .u0 = icv_v3_sub(icv_v3_add(va, icv_v3_cross(wa, ra)), icv_v3_add(vb, icv_v3_cross(wb, rb))),
        .mu_s = c->mu_s, .mu_k = c->mu_k, .e_n = c->e_n, .law = c->law, .method = c->method, .planar = c->planar,
    };
    rc = impact_contact_solve(&cc, &res->contact, err);
    if (rc < 0)
        return rc;
    icv_vec3 P = res->contact.impulse;
    apply_impulse(&c->a, c->planar, P, &res->v[0], &res->omega[0]);
    apply_impulse(&c->b, c->planar, icv_v3_scale(P, -1), &res->v[1], &res->omega[1]);
    res->contact.v = res->v[0];
    res->contact.omega = res->omega[0];
    rb = c->b.r;
    if (c->planar)
        rb.z = 0;
    res->contact.contact_velocity = icv_v3_sub(icv_v3_add(res->v[0], icv_v3_cross(res->omega[0], ra)),
                                               icv_v3_add(res->v[1], icv_v3_cross(res->omega[1], rb)));
    icv_vec3 p, l;
    const impact_body *bodies[2] = {&c->a, &c->b};
    icv_vec3 v0[2] = {va, vb}, w0[2] = {wa, wb};
    for (int i = 0; i < 2; i++) {
        body_sums(bodies[i], c->planar, v0[i], w0[i], &res->energy_pre[i], &p, &l);
        res->momentum_pre = icv_v3_add(res->momentum_pre, p);
        res->angular_momentum_pre = icv_v3_add(res->angular_momentum_pre, l);
        body_sums(bodies[i], c->planar, res->v[i], res->omega[i], &res->energy_post[i], &p, &l);
        res->momentum_post = icv_v3_add(res->momentum_post, p);
        res->angular_momentum_post = icv_v3_add(res->angular_momentum_post, l);
    }
    res->contact.energy_pre = res->energy_pre[0] + res->energy_pre[1];
    res->contact.energy_post = res->energy_post[0] + res->energy_post[1];
    res->contact.loss_fraction =
        res->contact.energy_pre > 0 ? 1 - res->contact.energy_post / res->contact.energy_pre : 0;
    return 0;
}
