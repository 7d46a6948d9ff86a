/* mb_impulse.c: the impulse between two rigid bodies: Newton's restitution on the
 * normal relative velocity and Coulomb friction, algebraic (the contact's inverse
 * mass matrix), sliding along the initial slip. A stand-in written before the solver
 * had a public two-body impact; `impact_pair_solve` should replace it (docs/synth.md). */
#include <math.h>

#include "synth/synth.h"

/* the world-frame inverse inertia of body b at rotation R */
static icv_mat3 inverse_inertia(const synth_body *b, icv_mat3 R)
{
    icv_mat3 Ii;
    if (icv_m3_inverse(b->inertia, &Ii))
        Ii = icv_m3_diag(0, 0, 0);
    return icv_m3_rotate_tensor(R, Ii);
}

/* K: the change of the relative contact velocity per unit impulse on b,
 * (1/ma + 1/mb) 1 - [ra] Ia^-1 [ra] - [rb] Ib^-1 [rb] */
static icv_mat3 contact_matrix(double ma, double mb, icv_mat3 Iia, icv_mat3 Iib, icv_vec3 ra, icv_vec3 rb)
{
    icv_mat3 Sa = icv_m3_skew(ra), Sb = icv_m3_skew(rb);
    icv_mat3 K = icv_m3_scale(icv_m3_identity(), 1 / ma + 1 / mb);
    K = icv_m3_add(K, icv_m3_scale(icv_m3_mul(Sa, icv_m3_mul(Iia, Sa)), -1));
    return icv_m3_add(K, icv_m3_scale(icv_m3_mul(Sb, icv_m3_mul(Iib, Sb)), -1));
}

int synth_mb_two_body_impulse(const synth_body *ba, const synth_body *bb, const synth_state *sa, const synth_state *sb,
                              icv_vec3 c, icv_vec3 n, double e, double mu, synth_state *pa, synth_state *pb,
                              icv_vec3 *impulse)
{
    icv_vec3 ra = icv_v3_sub(c, sa->p), rb = icv_v3_sub(c, sb->p);
    icv_mat3 Iia = inverse_inertia(ba, sa->R), Iib = inverse_inertia(bb, sb->R);
    icv_vec3 ua = icv_v3_add(sa->v, icv_v3_cross(sa->omega, ra)), ub = icv_v3_add(sb->v, icv_v3_cross(sb->omega, rb));
    icv_vec3 u = icv_v3_sub(ub, ua); /* b relative to a */
    double un = icv_v3_dot(u, n);
    if (!(un < 0))
        return -1;
    icv_mat3 K = contact_matrix(ba->mass, bb->mass, Iia, Iib, ra, rb), Ki;
    int stick = 0;
    icv_vec3 P = icv_v3(0, 0, 0);
    if (!icv_m3_inverse(K, &Ki)) {
        /* sticking: the whole relative velocity goes to -e un n */
        P = icv_m3_apply(Ki, icv_v3_sub(icv_v3_scale(n, -e * un), u));
        double Pn = icv_v3_dot(P, n);
        double Pt = icv_v3_norm(icv_v3_axpy(-Pn, n, P));
        stick = Pn > 0 && Pt <= mu * Pn;
    }
    if (!stick) {
        /* sliding against the initial slip s: P = Pn (n - mu s), Pn from Newton's law */
        icv_vec3 ut = icv_v3_axpy(-un, n, u);
        double uts = icv_v3_norm(ut);
        icv_vec3 d = uts > 1e-15 ? icv_v3_axpy(-mu / uts, ut, n) : n;
        double Pn = -(1 + e) * un / icv_v3_dot(n, icv_m3_apply(K, d));
        P = icv_v3_scale(d, Pn);
    }
    *pa = *sa;
    *pb = *sb;
    pa->v = icv_v3_axpy(-1 / ba->mass, P, sa->v);
    pb->v = icv_v3_axpy(1 / bb->mass, P, sb->v);
    pa->omega = icv_v3_sub(sa->omega, icv_m3_apply(Iia, icv_v3_cross(ra, P)));
    pb->omega = icv_v3_add(sb->omega, icv_m3_apply(Iib, icv_v3_cross(rb, P)));
    *impulse = P;
    return stick;
}
