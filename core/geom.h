/* geom.h: small vector, matrix and rotation maths shared by every module.
 *
 * Values are passed by value (3 doubles, 9 doubles): cheap and readable. Frames are
 * the contract's (docs/conventions.md): a rotation R maps body to surface
 * coordinates, x_surface = R x_body + p, so R's columns are the body axes in
 * surface coordinates. euler213 = [t1, t2, t3]: starting from the surface axes,
 * rotate by t1 about y, then t2 about the new x, then t3 about the new z, so
 * R = Ry(t1) Rx(t2) Rz(t3) (Han Sun eq. 4.19 gives R's transpose row by row). */
#ifndef ICV_GEOM_H
#define ICV_GEOM_H

#include <math.h>

typedef struct {
    double x, y, z;
} icv_vec3;

typedef struct {
    double m[3][3]; /* m[row][col] */
} icv_mat3;

/* unit quaternion w + xi + yj + zk, same rotation as the matrix it came from */
typedef struct {
    double w, x, y, z;
} icv_quat;

static inline icv_vec3 icv_v3(double x, double y, double z) { return (icv_vec3){x, y, z}; }
static inline icv_vec3 icv_v3_add(icv_vec3 a, icv_vec3 b) { return icv_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline icv_vec3 icv_v3_sub(icv_vec3 a, icv_vec3 b) { return icv_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline icv_vec3 icv_v3_scale(icv_vec3 a, double s) { return icv_v3(a.x * s, a.y * s, a.z * s); }
static inline icv_vec3 icv_v3_axpy(double s, icv_vec3 a, icv_vec3 b) { return icv_v3(s * a.x + b.x, s * a.y + b.y, s * a.z + b.z); }
static inline double icv_v3_dot(icv_vec3 a, icv_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline icv_vec3 icv_v3_cross(icv_vec3 a, icv_vec3 b)
{
    return icv_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double icv_v3_norm(icv_vec3 a) { return sqrt(icv_v3_dot(a, a)); }
/* a / |a|; the zero vector stays zero */
static inline icv_vec3 icv_v3_unit(icv_vec3 a)
{
    double n = icv_v3_norm(a);
    return n > 0 ? icv_v3_scale(a, 1.0 / n) : a;
}
static inline double icv_v3_get(icv_vec3 a, int i) { return i == 0 ? a.x : i == 1 ? a.y : a.z; }
static inline void icv_v3_set(icv_vec3 *a, int i, double v)
{
    if (i == 0)
        a->x = v;
    else if (i == 1)
        a->y = v;
    else
        a->z = v;
}
static inline void icv_v3_to_array(icv_vec3 a, double out[3]) { out[0] = a.x; out[1] = a.y; out[2] = a.z; }
static inline icv_vec3 icv_v3_from_array(const double a[3]) { return icv_v3(a[0], a[1], a[2]); }

/* 3x3 arithmetic inline: the flight integrator and the fits call it per step */
static inline icv_mat3 icv_m3_diag(double a, double b, double c)
{
    icv_mat3 r = {{{a, 0, 0}, {0, b, 0}, {0, 0, c}}};
    return r;
}
static inline icv_mat3 icv_m3_identity(void) { return icv_m3_diag(1, 1, 1); }
static inline icv_mat3 icv_m3_mul(icv_mat3 a, icv_mat3 b)
{
    icv_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    return r;
}
static inline icv_mat3 icv_m3_transpose(icv_mat3 a)
{
    icv_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = a.m[j][i];
    return r;
}
static inline icv_mat3 icv_m3_add(icv_mat3 a, icv_mat3 b)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            a.m[i][j] += b.m[i][j];
    return a;
}
static inline icv_mat3 icv_m3_scale(icv_mat3 a, double s)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            a.m[i][j] *= s;
    return a;
}
static inline icv_vec3 icv_m3_apply(icv_mat3 a, icv_vec3 v)
{
    return icv_v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                  a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                  a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}
/* [a]x: the matrix with [a]x b = a x b */
static inline icv_mat3 icv_m3_skew(icv_vec3 a)
{
    icv_mat3 r = {{{0, -a.z, a.y}, {a.z, 0, -a.x}, {-a.y, a.x, 0}}};
    return r;
}
double icv_m3_det(icv_mat3 a);
/* Inverse; returns 0, or -1 when |det| is below 1e-300 (out untouched). */
int icv_m3_inverse(icv_mat3 a, icv_mat3 *out);
/* Symmetric within rel_tol of its largest entry, and positive definite (all
 * leading principal minors > 0, Sylvester's criterion). */
int icv_m3_is_spd(icv_mat3 a, double rel_tol);
/* R A R^T: a body-frame tensor in the frame R maps into. */
icv_mat3 icv_m3_rotate_tensor(icv_mat3 r, icv_mat3 a);

/* Elementary rotations (right-handed, angle in rad). */
icv_mat3 icv_rot_x(double a);
icv_mat3 icv_rot_y(double a);
icv_mat3 icv_rot_z(double a);
/* Rotation by |axis_angle| rad about axis_angle/|axis_angle| (Rodrigues). */
icv_mat3 icv_rot_from_axis_angle(icv_vec3 axis_angle);
/* The inverse of icv_rot_from_axis_angle, angle in [0, pi]. */
icv_vec3 icv_rot_to_axis_angle(icv_mat3 r);
/* Nearest rotation to a (polar decomposition by SVD-free iteration), det +1. */
icv_mat3 icv_rot_orthonormalize(icv_mat3 a);

/* euler213 [t1, t2, t3] (rad) to R = Ry(t1) Rx(t2) Rz(t3). */
icv_mat3 icv_euler213_to_matrix(icv_vec3 e);
/* R to euler213, t1, t3 in (-pi, pi], t2 in [-pi/2, pi/2]. Returns 1 when the
 * attitude is singular (|cos t2| < 1e-9: t3 is then set to 0 and t1 carries the
 * rotation), else 0. Never divides by cos t2. */
int icv_euler213_from_matrix(icv_mat3 r, icv_vec3 *e);

icv_quat icv_quat_from_matrix(icv_mat3 r);
icv_mat3 icv_quat_to_matrix(icv_quat q);

/* ---- torque-free rigid-body rotation (rigid_motion.c) ------------------ */

/* One step of h seconds of torque-free rotation by Munthe-Kaas RK4 on SO(3)
 * (Iserles et al., "Lie-group methods", Acta Numerica 2000, sec. 5): R(t0 + s) =
 * R0 exp(theta(s)), theta' = dexpinv(body omega); the angular momentum L =
 * R I R^T omega is conserved to rounding and R stays a rotation. inertia and its
 * inverse in the body frame; omega in the surface frame (rad/s). Accurate when
 * |omega| h is small (2e-3 rad: energy drift below 1e-10 over 1e4 steps). */
void icv_rigid_step(icv_mat3 R0, icv_vec3 omega0, icv_mat3 inertia_body, icv_mat3 inertia_body_inv, double h,
                    icv_mat3 *R, icv_vec3 *omega);

/* Turns a free rigid body for dt seconds (dt may be negative): R0 body->surface,
 * omega0 (rad/s, surface frame) at the start, inertia (kg m^2, body frame, about
 * the centre of mass). Euler's equations are integrated on the rotation group:
 * the angular momentum L = R I R^T omega is constant in the surface frame, and the
 * attitude quaternion follows dq/dt = (omega/2) q with omega = R I^-1 R^T L, by
 * classical RK4 with steps of at most 2e-3 rad of rotation, renormalised each
 * step (tests/core/test_rigid_motion.c measures the error). Fills R and
 * omega (surface frame) at t0 + dt. Returns the number of steps taken. */
int icv_rigid_rotate(icv_mat3 R0, icv_vec3 omega0, icv_mat3 inertia_body, double dt, icv_mat3 *R,
                     icv_vec3 *omega);
/* The same with a chosen step bound max_turn (rad of rotation per step); the
 * attitude error grows like max_turn^4 per radian turned (2e-2 rad: ~1e-9 rad per
 * radian, plenty for fitting camera data; icv_rigid_rotate uses 2e-3). */
int icv_rigid_rotate_steps(icv_mat3 R0, icv_vec3 omega0, icv_mat3 inertia_body, double dt, double max_turn,
                           icv_mat3 *R, icv_vec3 *omega);

/* Torque-free rotation in closed form, set up once from one state and evaluated
 * at any time in O(1) (rigid_motion.c): what the analysis fits need, since they
 * evaluate one motion at every frame of a window many times over.
 * - an asymmetric body: Euler's equations solved by Jacobi's elliptic functions
 *   (GSL gsl_sf_elljac_e) and the angle about the angular momentum by the
 *   incomplete elliptic integral of the third kind (gsl_sf_ellint_P_e): Landau &
 *   Lifshitz, Mechanics, sec. 37, for either kind of polhode (omega circling the
 *   major or the minor axis);
 * - a symmetric body (two principal moments equal within 1e-12): the symmetric
 *   top's rotations (exact);
 * - at rest, or within 1e-13 (relative) of the separatrix where the elliptic
 *   period diverges: icv_rigid_rotate_steps (RK4, 2e-3 rad per step).
 * The inertia may be any symmetric positive definite body-frame tensor (its
 * principal axes by GSL's gsl_eigen_symmv). tests/core/test_free_rotation.c
 * checks it against RK4 integration of Euler's equations. */
typedef struct {
    int kind;                /* ICV_FREE_* */
    icv_mat3 R0, inertia;    /* the state it was set up from (for the fallback) */
    icv_vec3 omega0;         /* rad/s, surface frame */
    icv_vec3 L;              /* kg m^2/s, angular momentum, surface frame */
    /* symmetric top */
    double Ip, kappa;        /* kg m^2 (the equal moment), rad/s (spin rate about e3) */
    icv_vec3 e3;             /* symmetry axis, body frame */
    /* asymmetric body: principal frame P (body coordinates of the axes 1, 2, 3; axis 3
     * is the one the polhode circles, 2 the intermediate), W(t) = S Rz(phi) G(t) maps
     * principal to surface coordinates, R(t) = W(t) P^T */
    icv_mat3 P, S;
    double I1, I2, I3;       /* kg m^2, moments about axes 1, 2, 3 */
    double A1, A2, A3;       /* rad/s: Omega = (A1 cn, A2 sn, A3 dn) */
    double lambda, m;        /* 1/s: tau = tau0 + lambda t; m = k^2 */
    double tau0, K;          /* elliptic argument at t = 0; quarter period K(k) */
    double n_gsl, Pi_c, Pi0; /* GSL's n of P(phi, k, n); complete P; P(am tau0) */
    double rate, c_phi;      /* phi(t) = rate t + c_phi (P(am tau) - Pi0) */
    double s1, s2;           /* psi: (cos, sin) proportional to (s2 sn, s1 cn) */
    double q1, q2;           /* |M_12| = sqrt(q1 cn^2 + q2 sn^2) (kg m^2/s) */
} icv_free_rotation;

enum { ICV_FREE_REST = 0, ICV_FREE_SYMMETRIC = 1, ICV_FREE_ELLIPTIC = 2, ICV_FREE_NUMERIC = 3 };

/* Sets up the motion from R0 (body -> surface) and omega0 (rad/s, surface frame) at
 * t = 0 with the body-frame inertia (kg m^2, about the centre of mass). */
void icv_free_rotation_init(icv_free_rotation *f, icv_mat3 R0, icv_vec3 omega0, icv_mat3 inertia_body);
/* The attitude R (body -> surface) and omega (rad/s, surface frame) at time t (s,
 * may be negative). Either pointer may be NULL. */
void icv_free_rotation_at(const icv_free_rotation *f, double t, icv_mat3 *R, icv_vec3 *omega);

#endif
