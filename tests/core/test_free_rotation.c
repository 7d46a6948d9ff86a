/* test_free_rotation.c: the closed-form torque-free motion (core/rigid_motion.c,
 * icv_free_rotation: Jacobi elliptic functions and the elliptic integral of the
 * third kind) against numerical integration of Euler's equations
 * (icv_rigid_rotate_steps, RK4 on the attitude quaternion) over random bodies and
 * states, both kinds of polhode, states near the separatrix on either side, near
 * pure spins about the major and minor axes, nearly symmetric bodies and inertia
 * tensors that are not diagonal in the body frame.
 *
 * Tolerance: 1e-8 rad in attitude and 1e-8 of |omega|. The RK4 reference at 1e-3
 * rad per step is good to ~1e-10 rad over the tens of radians turned here
 * (measured: halving its step changes it by less than that), and the closed form
 * rounds at ~1e-11; 1e-8 is far above both and 1e4 times below the attitude noise
 * of camera data (1e-4 rad). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/core.h"
#include "tests/harness.h"

#define STEP 1e-3

typedef struct {
    double att, omega; /* worst attitude (rad) and omega (relative) differences */
    int kind[4];
    int major, minor;  /* elliptic cases whose polhode circles the major / the minor axis */
} tally;

/* the closed form against RK4 after t seconds; updates the tally */
static void compare(icv_mat3 I, icv_mat3 R0, icv_vec3 w0, double t, tally *ty)
{
    icv_free_rotation f;
    icv_free_rotation_init(&f, R0, w0, I);
    ty->kind[f.kind]++;
    if (f.kind == ICV_FREE_ELLIPTIC) { /* axis 3 circled, 2 the intermediate */
        ty->major += f.I3 > f.I2;
        ty->minor += f.I3 < f.I2;
    }
    icv_mat3 Ra, Rb;
    icv_vec3 wa, wb;
    icv_free_rotation_at(&f, t, &Ra, &wa);
    icv_rigid_rotate_steps(R0, w0, I, t, STEP, &Rb, &wb);
    double att = icv_v3_norm(icv_rot_to_axis_angle(icv_m3_mul(icv_m3_transpose(Ra), Rb)));
    double om = icv_v3_norm(icv_v3_sub(wa, wb)) / fmax(icv_v3_norm(w0), 1e-300);
    ty->att = fmax(ty->att, att);
    ty->omega = fmax(ty->omega, om);
}

static icv_vec3 gauss3(gsl_rng *r, double s)
{
    return icv_v3(gsl_ran_gaussian(r, s), gsl_ran_gaussian(r, s), gsl_ran_gaussian(r, s));
}

TEST(test_free_rotation_matches_euler_integration_over_random_bodies)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 9);
    tally ty = {0};
    int cases = th_sanitized() ? 40 : 150;
    for (int c = 0; c < cases; c++) {
        icv_mat3 I = icv_m3_diag(0.2 + gsl_rng_uniform(r), 0.2 + gsl_rng_uniform(r), 0.2 + gsl_rng_uniform(r));
        if (c % 3 == 1) /* a body frame that is not principal */
            I = icv_m3_rotate_tensor(icv_rot_from_axis_angle(gauss3(r, 1)), I);
        icv_mat3 R0 = icv_rot_from_axis_angle(gauss3(r, 1));
        double t = (gsl_rng_uniform(r) - 0.3) * 3; /* backwards too */
        compare(I, R0, gauss3(r, 5), t, &ty);
    }
    gsl_rng_free(r);
    printf("     %d random states: worst attitude %.2e rad, omega %.2e of |omega|; polhode about the major axis %d, "
           "the minor %d\n",
           cases, ty.att, ty.omega, ty.major, ty.minor);
    ASSERT_EQ_INT(ty.kind[ICV_FREE_ELLIPTIC], cases);
    ASSERT(ty.major > cases / 10 && ty.minor > cases / 10, "both polhodes must be tried: %d, %d", ty.major,
           ty.minor);
    ASSERT_NEAR(ty.att, 0, 1e-8);
    ASSERT_NEAR(ty.omega, 0, 1e-8);
}

TEST(test_free_rotation_near_the_separatrix_and_near_pure_spins)
{
    /* I = diag(1, 2, 3): M^2 - 2 E I2 = 3 w3^2 - w1^2 (w2 free) sets the side of the
     * separatrix; down to 1e-12 of it the elliptic period is still finite */
    icv_mat3 I = icv_m3_diag(1, 2, 3), R0 = icv_rot_from_axis_angle(icv_v3(0.3, -0.2, 0.5));
    tally ty = {0};
    const double eps[] = {1e-2, 1e-5, 1e-8, 1e-12, -1e-12, -1e-8, -1e-5, -1e-2};
    for (int i = 0; i < 8; i++) {
        double w1 = 1.0, w3 = sqrt((10 * eps[i] + w1 * w1) / 3.0);
        compare(I, R0, icv_m3_apply(R0, icv_v3(w1, 5, w3)), 2.0, &ty);
    }
    ASSERT_EQ_INT(ty.major, 4);
    ASSERT_EQ_INT(ty.minor, 4);
    /* exactly on it (w3 = w1 / sqrt(3) in exact arithmetic): the numerical fallback */
    compare(I, R0, icv_m3_apply(R0, icv_v3(0, 5, 0)), 1.0, &ty);
    /* pure spins and tiny wobbles about the minor (x) and major (z) axes */
    const double wob[] = {0, 1e-9, 1e-5, 1e-2};
    for (int i = 0; i < 4; i++) {
        compare(I, R0, icv_m3_apply(R0, icv_v3(7, wob[i], 0.5 * wob[i])), 1.7, &ty);
        compare(I, R0, icv_m3_apply(R0, icv_v3(wob[i], -0.7 * wob[i], 7)), 1.7, &ty);
    }
    /* nearly symmetric bodies (the symmetric top's closed form takes over at 1e-12) */
    const double ds[] = {1e-3, 1e-7, 1e-10};
    for (int i = 0; i < 3; i++) {
        compare(icv_m3_diag(1, 1 + ds[i], 3), R0, icv_v3(3, -4, 5), 2.3, &ty);
        compare(icv_m3_diag(1, 3 - ds[i], 3), R0, icv_v3(3, -4, 5), 2.3, &ty);
    }
    compare(icv_m3_diag(1, 1, 3), R0, icv_v3(3, -4, 5), 2.3, &ty);
    compare(I, R0, icv_v3(0, 0, 0), 1.0, &ty);
    printf("     separatrix, spins, near-symmetric: worst attitude %.2e rad, omega %.2e of |omega|\n", ty.att,
           ty.omega);
    ASSERT_EQ_INT(ty.kind[ICV_FREE_NUMERIC], 1);
    ASSERT_EQ_INT(ty.kind[ICV_FREE_SYMMETRIC], 1);
    ASSERT_EQ_INT(ty.kind[ICV_FREE_REST], 1);
    ASSERT_NEAR(ty.att, 0, 1e-8);
    ASSERT_NEAR(ty.omega, 0, 1e-8);
}

TEST(test_free_rotation_over_many_periods_conserves_energy_and_momentum)
{
    /* the analysis tests' box (200 x 40 x 60 mm, 0.5 kg) tumbling at 67 rad/s for
     * 10 s (~100 periods of its polhode): the closed form does not drift */
    double m = 0.5, a = 0.2, b = 0.04, c = 0.06;
    icv_mat3 I = icv_m3_diag(m / 12 * (b * b + c * c), m / 12 * (a * a + c * c), m / 12 * (a * a + b * b));
    icv_mat3 R0 = icv_rot_from_axis_angle(icv_v3(0.4, 0.1, -0.3)), R;
    icv_vec3 w0 = icv_v3(30, -40, 45), w;
    tally ty = {0};
    compare(I, R0, w0, 10.0, &ty);
    ASSERT_NEAR(ty.att, 0, 1e-8);
    icv_free_rotation f;
    icv_free_rotation_init(&f, R0, w0, I);
    icv_free_rotation_at(&f, 10.0, &R, &w);
    icv_mat3 I0 = icv_m3_rotate_tensor(R0, I), I1 = icv_m3_rotate_tensor(R, I);
    icv_vec3 L0 = icv_m3_apply(I0, w0), L1 = icv_m3_apply(I1, w);
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(L0, L1)) / icv_v3_norm(L0), 0, 1e-12); /* rounding */
    ASSERT_NEAR(icv_v3_dot(w, L1) / icv_v3_dot(w0, L0), 1, 1e-12);
}
