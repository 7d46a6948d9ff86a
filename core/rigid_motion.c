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
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_ellint.h>
#include <gsl/gsl_sf_elljac.h>
#include <string.h>

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

/* ---- closed form (icv_free_rotation) ------------------------------------- */

/* Principal moments d and axes (columns of V, a proper rotation) of a symmetric
 * body tensor: read off when it is diagonal, else GSL's symmetric eigensolver.
 * Returns -1 when it is not positive definite. */
static int principal_axes(icv_mat3 I, double d[3], icv_mat3 *V)
{
    int diagonal = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (i != j && I.m[i][j] != 0)
                diagonal = 0;
    if (diagonal) {
        *V = icv_m3_identity();
        for (int i = 0; i < 3; i++)
            d[i] = I.m[i][i];
    } else {
        double a[9], ev[9], val[3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                a[3 * i + j] = 0.5 * (I.m[i][j] + I.m[j][i]);
        gsl_matrix_view am = gsl_matrix_view_array(a, 3, 3), evm = gsl_matrix_view_array(ev, 3, 3);
        gsl_vector_view vv = gsl_vector_view_array(val, 3);
        gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(3);
        int bad = !ws || gsl_eigen_symmv(&am.matrix, &vv.vector, &evm.matrix, ws) != GSL_SUCCESS;
        gsl_eigen_symmv_free(ws);
        if (bad)
            return -1;
        for (int i = 0; i < 3; i++) {
            d[i] = val[i];
            for (int j = 0; j < 3; j++)
                V->m[i][j] = ev[3 * i + j];
        }
        if (icv_m3_det(*V) < 0)
            for (int i = 0; i < 3; i++)
                V->m[i][2] = -V->m[i][2];
    }
    return d[0] > 0 && d[1] > 0 && d[2] > 0 ? 0 : -1;
}

static icv_vec3 column(icv_mat3 a, int j) { return icv_v3(a.m[0][j], a.m[1][j], a.m[2][j]); }

static icv_mat3 from_columns(icv_vec3 a, icv_vec3 b, icv_vec3 c)
{
    return (icv_mat3){{{a.x, b.x, c.x}, {a.y, b.y, c.y}, {a.z, b.z, c.z}}};
}

/* The rotation G = Rx(theta) Rz(psi) that takes the unit angular momentum in the
 * principal frame, m = (sin theta sin psi, sin theta cos psi, cos theta), onto e_z,
 * from the elliptic functions at tau (L&L eq. 37.12's angles) */
static icv_mat3 nutation(const icv_free_rotation *f, double sn, double cn, double dn)
{
    double cp = f->s2 * sn, sp = f->s1 * cn, h = hypot(cp, sp);
    cp /= h;
    sp /= h;
    double m12 = sqrt(f->q1 * cn * cn + f->q2 * sn * sn), m3 = f->I3 * f->A3 * dn, hm = hypot(m12, m3);
    double st = m12 / hm, ct = m3 / hm;
    /* Rx(theta) Rz(psi) written out */
    return (icv_mat3){{{cp, -sp, 0}, {ct * sp, ct * cp, -st}, {st * sp, st * cp, ct}}};
}

/* sn, cn, dn and the unwrapped amplitude's P(am tau, k, n) at tau: tau is reduced by
 * whole half periods 2K, over which sn and cn change sign and P grows by 2 Pi_c */
static int elliptic_at(const icv_free_rotation *f, double tau, double *sn, double *cn, double *dn, double *Pi)
{
    double j = nearbyint(tau / (2 * f->K)), tr = tau - 2 * f->K * j;
    if (gsl_sf_elljac_e(tr, f->m, sn, cn, dn) != GSL_SUCCESS)
        return -1;
    gsl_sf_result r;
    if (gsl_sf_ellint_P_e(atan2(*sn, *cn), sqrt(f->m), f->n_gsl, GSL_PREC_DOUBLE, &r) != GSL_SUCCESS)
        return -1;
    *Pi = r.val + 2 * j * f->Pi_c;
    if (fmod(fabs(j), 2.0) == 1.0) {
        *sn = -*sn;
        *cn = -*cn;
    }
    return 0;
}

void icv_free_rotation_init(icv_free_rotation *f, icv_mat3 R0, icv_vec3 omega0, icv_mat3 I)
{
    memset(f, 0, sizeof *f);
    f->R0 = R0;
    f->omega0 = omega0;
    f->inertia = I;
    f->kind = ICV_FREE_NUMERIC;
    double d[3];
    icv_mat3 V;
    if (principal_axes(I, d, &V))
        return;
    f->L = icv_m3_apply(icv_m3_rotate_tensor(R0, I), omega0);
    if (!(icv_v3_norm(omega0) > 0)) {
        f->kind = ICV_FREE_REST;
        return;
    }
    for (int k = 0; k < 3; k++) {
        double a = d[(k + 1) % 3], b = d[(k + 2) % 3];
        if (fabs(a - b) <= 1e-12 * fmax(a, b)) { /* the other two are equal: k is the symmetry axis */
            f->kind = ICV_FREE_SYMMETRIC;
            f->Ip = a;
            f->e3 = column(V, k);
            f->kappa = (1 / d[k] - 1 / a) * icv_v3_dot(f->L, icv_m3_apply(R0, f->e3));
            return;
        }
    }
    /* order the axes: 3 is the one the polhode circles (the major axis when
     * M^2 > 2 E I_mid, else the minor), 2 the intermediate, 1 = 2 x 3 */
    int lo = 0, hi = 0;
    for (int k = 1; k < 3; k++) {
        if (d[k] < d[lo])
            lo = k;
        if (d[k] > d[hi])
            hi = k;
    }
    int mid = 3 - lo - hi;
    icv_vec3 Wb = icv_m3_apply(icv_m3_transpose(icv_m3_mul(R0, V)), omega0); /* principal components */
    double w[3] = {Wb.x, Wb.y, Wb.z};
    /* M^2 - 2 E I_mid as a sum without cancellation */
    double sep = 0;
    for (int k = 0; k < 3; k++)
        sep += d[k] * w[k] * w[k] * (d[k] - d[mid]);
    int a3 = sep >= 0 ? hi : lo, a1 = sep >= 0 ? lo : hi;
    icv_vec3 e3 = column(V, a3), e2 = column(V, mid);
    f->P = from_columns(icv_v3_cross(e2, e3), e2, e3);
    double I1 = d[a1], I2 = d[mid], I3 = d[a3];
    icv_vec3 Om = icv_m3_apply(icv_m3_transpose(icv_m3_mul(R0, f->P)), omega0);
    double O1 = Om.x, O2 = Om.y, O3 = Om.z;
    /* 2 E I3 - M^2 and M^2 - 2 E I1, written so that neither cancels (both have the
     * sign of I3 - I1) */
    double Q3 = I1 * O1 * O1 * (I3 - I1) + I2 * O2 * O2 * (I3 - I2);
    double Q1 = I2 * O2 * O2 * (I2 - I1) + I3 * O3 * O3 * (I3 - I1);
    double m = (I2 - I1) * Q3 / ((I3 - I2) * Q1);
    if (!(O3 != 0) || !(m >= 0) || !(m < 1 - 1e-13) || !isfinite(m))
        return; /* on (or numerically at) the separatrix: numerical */
    f->I1 = I1;
    f->I2 = I2;
    f->I3 = I3;
    f->m = m;
    f->A1 = sqrt(Q3 / (I1 * (I3 - I1)));
    f->A2 = sqrt(Q3 / (I2 * (I3 - I2)));
    f->A3 = copysign(sqrt(Q1 / (I3 * (I3 - I1))), O3);
    f->lambda = copysign(sqrt((I3 - I2) * Q1 / (I1 * I2 * I3)), O3 * (I3 - I2));
    f->n_gsl = -I3 * (I1 - I2) / (I1 * (I3 - I2)); /* L&L's 1 - n sn^2 is GSL's 1 + n sin^2 */
    f->s1 = sqrt(I1 / fabs(I3 - I1));
    f->s2 = sqrt(I2 / fabs(I3 - I2));
    f->q1 = fabs(Q3) * I1 / fabs(I3 - I1);
    f->q2 = fabs(Q3) * I2 / fabs(I3 - I2);
    double k = sqrt(m);
    double am0 = atan2(O2 * sqrt(I2 * fabs(I3 - I2)), O1 * sqrt(I1 * fabs(I3 - I1)));
    gsl_sf_result K, Pc, F0, P0;
    if (gsl_sf_ellint_Kcomp_e(k, GSL_PREC_DOUBLE, &K) || gsl_sf_ellint_Pcomp_e(k, f->n_gsl, GSL_PREC_DOUBLE, &Pc) ||
        gsl_sf_ellint_F_e(am0, k, GSL_PREC_DOUBLE, &F0) || gsl_sf_ellint_P_e(am0, k, f->n_gsl, GSL_PREC_DOUBLE, &P0))
        return;
    f->K = K.val;
    f->Pi_c = Pc.val;
    f->tau0 = F0.val;
    f->Pi0 = P0.val;
    /* phi' = |M| (1/I3 + (I3 - I1)/(I1 I3) / (1 - n sn^2)) (from L&L eq. 37.16) */
    double M = icv_v3_norm(f->L);
    f->rate = M / I3;
    f->c_phi = M * (I3 - I1) / (I1 * I3 * f->lambda);
    double sn, cn, dn, Pi;
    if (elliptic_at(f, f->tau0, &sn, &cn, &dn, &Pi))
        return;
    /* S = R0 P G(0)^T, so that W(0) = R0 P */
    f->S = icv_m3_mul(icv_m3_mul(R0, f->P), icv_m3_transpose(nutation(f, sn, cn, dn)));
    f->Pi0 = Pi; /* P at tau0 as elliptic_at computes it, so that phi(0) = 0 exactly */
    f->kind = ICV_FREE_ELLIPTIC;
}

void icv_free_rotation_at(const icv_free_rotation *f, double t, icv_mat3 *R, icv_vec3 *omega)
{
    icv_mat3 Rt = f->R0;
    icv_vec3 wt = f->omega0;
    double sn, cn, dn, Pi;
    if (f->kind == ICV_FREE_SYMMETRIC) {
        Rt = icv_m3_mul(icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(f->L, t / f->Ip)), f->R0),
                        icv_rot_from_axis_angle(icv_v3_scale(f->e3, f->kappa * t)));
        /* omega = R I^-1 R^T L = L/Ip + kappa (R e3), since L . R e3 is conserved */
        wt = icv_v3_add(icv_v3_scale(f->L, 1 / f->Ip), icv_v3_scale(icv_m3_apply(Rt, f->e3), f->kappa));
    } else if (f->kind == ICV_FREE_ELLIPTIC && elliptic_at(f, f->tau0 + f->lambda * t, &sn, &cn, &dn, &Pi) == 0) {
        double phi = f->rate * t + f->c_phi * (Pi - f->Pi0);
        icv_mat3 W = icv_m3_mul(icv_m3_mul(f->S, icv_rot_z(phi)), nutation(f, sn, cn, dn));
        Rt = icv_m3_mul(W, icv_m3_transpose(f->P));
        wt = icv_m3_apply(W, icv_v3(f->A1 * cn, f->A2 * sn, f->A3 * dn));
    } else if (f->kind != ICV_FREE_REST) { /* the separatrix, or GSL failed (not seen) */
        icv_rigid_rotate_steps(f->R0, f->omega0, f->inertia, t, 2e-3, &Rt, &wt);
    }
    if (R)
        *R = Rt;
    if (omega)
        *omega = wt;
}
