/* rigid_motion.c: torque-free rotation of a rigid body (geom.h), shared by synth
 * (flight between impacts) and analysis (fitting rotation to measured poses).
 * Two integrators, each for its job, both conserving L = R I R^T w exactly:
 * - icv_rigid_step, one Munthe-Kaas RK4 step on SO(3): synth's fixed small steps
 *   (its checkpoint grid; the committed samples were made with it);
 * - icv_rigid_rotate_steps, adaptive RK4 on the unit quaternion: stays stable at
 *   the coarse steps the analysis fits use (0.02 rad) even for a slender rod whose
 *   axial inertia is nearly zero, where a Munthe-Kaas step of that size diverges
 *   (|omega| 10 -> 3225 rad/s measured; its stages turn the transverse angular
 *   momentum into the near-singular axial direction). */
#include "core/geom.h"

static icv_quat qmul(icv_quat a, icv_quat b)
{
    return (icv_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

static icv_quat qaxpy(double s, icv_quat a, icv_quat b)
{
    return (icv_quat){s * a.w + b.w, s * a.x + b.x, s * a.y + b.y, s * a.z + b.z};
}

/* v rotated by unit q (sign = +1) or by its inverse (sign = -1):
 * v + 2w (u x v) + 2 u x (u x v) with q = (w, u); cheaper than forming R */
static icv_vec3 qrot(icv_quat q, icv_vec3 v, double sign)
{
    icv_vec3 u = icv_v3(sign * q.x, sign * q.y, sign * q.z);
    icv_vec3 c = icv_v3_cross(u, v);
    return icv_v3_add(v, icv_v3_add(icv_v3_scale(c, 2 * q.w), icv_v3_scale(icv_v3_cross(u, c), 2)));
}

/* omega (surface) for attitude q: R I^-1 R^T L (q need not be exactly unit
 * inside an RK4 stage; its norm is within 1e-6 of 1 there) */
static icv_vec3 omega_of(icv_quat q, icv_mat3 inv_body, icv_vec3 L)
{
    double n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z, s = 1 / sqrt(n2);
    icv_quat u = {q.w * s, q.x * s, q.y * s, q.z * s};
    return qrot(u, icv_m3_apply(inv_body, qrot(u, L, -1)), 1);
}

/* dq/dt = 0.5 (0, omega) q for omega in the surface (space) frame */
static icv_quat qdot(icv_quat q, icv_mat3 inv_body, icv_vec3 L)
{
    icv_vec3 w = omega_of(q, inv_body, L);
    icv_quat wq = {0, w.x, w.y, w.z};
    icv_quat d = qmul(wq, q);
    return (icv_quat){0.5 * d.w, 0.5 * d.x, 0.5 * d.y, 0.5 * d.z};
}

/* theta' = dexpinv_{-theta}(w) = w + 1/2 theta x w + 1/12 theta x (theta x w), enough
 * for order 4 since theta = O(h) (Bernoulli series, Acta Numerica 2000 eq. 2.47). */
static icv_vec3 dexpinv(icv_vec3 th, icv_vec3 w)
{
    icv_vec3 c = icv_v3_cross(th, w);
    return icv_v3_add(w, icv_v3_add(icv_v3_scale(c, 0.5), icv_v3_scale(icv_v3_cross(th, c), 1.0 / 12.0)));
}

/* body angular velocity at R0 exp(theta): I^-1 exp(theta)^T M0, M0 = R0^T L */
static icv_vec3 body_omega(const icv_mat3 *Iinv, icv_vec3 M0, icv_vec3 th)
{
    icv_mat3 E = icv_rot_from_axis_angle(th);
    return icv_m3_apply(*Iinv, icv_m3_apply(icv_m3_transpose(E), M0));
}

void icv_rigid_step(icv_mat3 R0, icv_vec3 omega0, icv_mat3 I, icv_mat3 Iinv, double h, icv_mat3 *R_out,
                    icv_vec3 *omega_out)
{
    icv_mat3 Rt = icv_m3_transpose(R0);
    icv_vec3 Om0 = icv_m3_apply(Rt, omega0);
    icv_vec3 M0 = icv_m3_apply(I, Om0); /* body-frame angular momentum at t0 */
    icv_vec3 k1 = Om0;
    icv_vec3 th2 = icv_v3_scale(k1, 0.5 * h);
    icv_vec3 k2 = dexpinv(th2, body_omega(&Iinv, M0, th2));
    icv_vec3 th3 = icv_v3_scale(k2, 0.5 * h);
    icv_vec3 k3 = dexpinv(th3, body_omega(&Iinv, M0, th3));
    icv_vec3 th4 = icv_v3_scale(k3, h);
    icv_vec3 k4 = dexpinv(th4, body_omega(&Iinv, M0, th4));
    icv_vec3 th = icv_v3_scale(icv_v3_add(icv_v3_add(k1, k4), icv_v3_scale(icv_v3_add(k2, k3), 2.0)), h / 6.0);
    icv_mat3 E = icv_rot_from_axis_angle(th);
    icv_mat3 R = icv_rot_orthonormalize(icv_m3_mul(R0, E)); /* no drift off SO(3) over many steps */
    /* omega = R I^-1 R^T L with L = R0 M0 conserved */
    icv_vec3 L = icv_m3_apply(R0, M0);
    *omega_out = icv_m3_apply(R, icv_m3_apply(Iinv, icv_m3_apply(icv_m3_transpose(R), L)));
    *R_out = R;
}

int icv_rigid_rotate(icv_mat3 R0, icv_vec3 omega0, icv_mat3 inertia_body, double dt, icv_mat3 *R, icv_vec3 *omega)
{
    return icv_rigid_rotate_steps(R0, omega0, inertia_body, dt, 2e-3, R, omega);
}

/* A symmetric body (diagonal inertia with two equal moments, the rods and bars
 * this project films) has a closed form: with I_p the equal moment, e3 the third
 * axis (body frame) and L constant, dR/dt = [L/I_p]x R + R [kappa e3]x with kappa =
 * (1/I3 - 1/I_p)(L . R e3) constant (L . R e3 is conserved), so
 * R(t) = exp(t [L/I_p]x) R0 exp(t kappa [e3]x): exact, in O(1). Returns 0 when the
 * body is not symmetric. */
static int symmetric_top(icv_mat3 R0, icv_vec3 omega0, icv_mat3 I, double dt, icv_mat3 *R, icv_vec3 *omega)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (i != j && I.m[i][j] != 0)
                return 0;
    double d[3] = {I.m[0][0], I.m[1][1], I.m[2][2]};
    int axis = -1;
    for (int k = 0; k < 3; k++) {
        double a = d[(k + 1) % 3], b = d[(k + 2) % 3];
        if (fabs(a - b) <= 1e-12 * fmax(a, b))
            axis = k; /* the other two are equal: k is the symmetry axis */
    }
    if (axis < 0)
        return 0;
    double Ip = d[(axis + 1) % 3], I3 = d[axis];
    icv_vec3 e3 = icv_v3(axis == 0, axis == 1, axis == 2);
    icv_vec3 L = icv_m3_apply(icv_m3_rotate_tensor(R0, I), omega0);
    double kappa = (1 / I3 - 1 / Ip) * icv_v3_dot(L, icv_m3_apply(R0, e3));
    icv_mat3 Rt = icv_m3_mul(icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(L, dt / Ip)), R0),
                             icv_rot_from_axis_angle(icv_v3_scale(e3, kappa * dt)));
    icv_mat3 inv = icv_m3_diag(1 / d[0], 1 / d[1], 1 / d[2]);
    *R = Rt;
    *omega = icv_m3_apply(Rt, icv_m3_apply(inv, icv_m3_apply(icv_m3_transpose(Rt), L)));
    return 1;
}

int icv_rigid_rotate_steps(icv_mat3 R0, icv_vec3 omega0, icv_mat3 inertia_body, double dt, double max_turn,
                           icv_mat3 *R, icv_vec3 *omega)
{
    if (symmetric_top(R0, omega0, inertia_body, dt, R, omega))
        return 1;
    icv_mat3 inv_body;
    if (icv_m3_inverse(inertia_body, &inv_body) != 0) {
        *R = R0;
        *omega = omega0;
        return 0;
    }
    icv_vec3 L = icv_m3_apply(icv_m3_rotate_tensor(R0, inertia_body), omega0);
    /* Each step turns the body by at most max_turn rad, sized from the current
     * |omega| (which changes smoothly; a fixed bound from |L| and I^-1 would be
     * absurd for a slender rod, whose axial inertia is nearly zero). */
    const double MAX_TURN = max_turn > 0 ? max_turn : 2e-3;
    icv_quat q = icv_quat_from_matrix(R0);
    double left = fabs(dt), dir = dt < 0 ? -1.0 : 1.0;
    int steps = 0;
    icv_vec3 w = omega0;
    while (left > 0) {
        double rate = icv_v3_norm(w);
        double hh = rate * left > MAX_TURN ? MAX_TURN / rate : left;
        if (left - hh < 1e-15 * fabs(dt))
            hh = left;
        double h = dir * hh;
        icv_quat k1 = qdot(q, inv_body, L);
        icv_quat k2 = qdot(qaxpy(0.5 * h, k1, q), inv_body, L);
        icv_quat k3 = qdot(qaxpy(0.5 * h, k2, q), inv_body, L);
        icv_quat k4 = qdot(qaxpy(h, k3, q), inv_body, L);
        q = (icv_quat){q.w + h / 6 * (k1.w + 2 * k2.w + 2 * k3.w + k4.w),
                       q.x + h / 6 * (k1.x + 2 * k2.x + 2 * k3.x + k4.x),
                       q.y + h / 6 * (k1.y + 2 * k2.y + 2 * k3.y + k4.y),
                       q.z + h / 6 * (k1.z + 2 * k2.z + 2 * k3.z + k4.z)};
        double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
        q = (icv_quat){q.w / n, q.x / n, q.y / n, q.z / n};
        w = omega_of(q, inv_body, L);
        left -= hh;
        steps++;
    }
    *R = icv_quat_to_matrix(q);
    *omega = omega_of(q, inv_body, L);
    return steps;
}
