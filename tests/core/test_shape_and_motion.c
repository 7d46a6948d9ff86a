/* test_shape_and_motion.c: the lowest point of each contract shape against hand
 * geometry, and torque-free rotation against the analytic solutions (spin about a
 * principal axis; the symmetric top's body-frame precession) and its invariants. */
#include "core/core.h"
#include "tests/harness.h"

static double vdist(icv_vec3 a, icv_vec3 b) { return icv_v3_norm(icv_v3_sub(a, b)); }

TEST(test_lowest_point_of_each_shape)
{
    icv_vec3 up = icv_v3(0, 1, 0), p = icv_v3(0.1, 0.5, -0.2);
    icv_shape s = {0};
    s.type = ICV_SHAPE_SPHERE;
    s.radius = 0.02;
    ASSERT_NEAR(vdist(icv_shape_lowest_point(&s, icv_m3_identity(), p, up), icv_v3(0.1, 0.48, -0.2)), 0, 1e-15);

    /* the contract's rod: a capsule along body y, length 0.3048, radius 0.009525,
     * tilted 30 deg about z: the lower end's centre is 0.1429 m from the middle */
    s.type = ICV_SHAPE_CAPSULE;
    s.axis = icv_v3(0, 1, 0);
    s.length = 0.3048;
    s.radius = 0.009525;
    double a = M_PI / 6, half = 0.5 * 0.3048 - 0.009525;
    icv_vec3 got = icv_shape_lowest_point(&s, icv_rot_z(a), p, up);
    icv_vec3 want = icv_v3(0.1 + half * sin(a), 0.5 - half * cos(a) - 0.009525, -0.2);
    ASSERT_NEAR(vdist(got, want), 0, 1e-15);

    /* a cylinder of the same size touches with its rim, not the cap centre: the
     * lower cap's disk spans (cos a, sin a, 0) and z, so its lowest point is
     * r (cos a, sin a, 0) below the cap centre */
    s.type = ICV_SHAPE_CYLINDER;
    got = icv_shape_lowest_point(&s, icv_rot_z(a), p, up);
    double h2 = 0.5 * 0.3048;
    want = icv_v3(0.1 + h2 * sin(a) - 0.009525 * cos(a), 0.5 - h2 * cos(a) - 0.009525 * sin(a), -0.2);
    ASSERT_NEAR(vdist(got, want), 0, 1e-15);
    /* upright: the whole cap is lowest; its centre is returned */
    got = icv_shape_lowest_point(&s, icv_m3_identity(), p, up);
    ASSERT_NEAR(vdist(got, icv_v3(0.1, 0.5 - h2, -0.2)), 0, 1e-15);

    /* a box on an edge: rotated 45 deg about x, the lowest set is the bottom edge
     * along x, whose centre is at depth (b + c)/2 / sqrt(2) */
    s.type = ICV_SHAPE_BOX;
    s.size = icv_v3(0.2, 0.04, 0.06);
    got = icv_shape_lowest_point(&s, icv_rot_x(M_PI / 4), icv_v3(0, 0, 0), up);
    ASSERT_NEAR(got.x, 0, 1e-15);
    ASSERT_NEAR(got.y, -(0.02 + 0.03) / sqrt(2.0), 1e-15);

    s.type = ICV_SHAPE_POINTS;
    s.n_points = 3;
    s.points[0] = icv_v3(0, 0.1, 0);
    s.points[1] = icv_v3(0, 0, 0);
    s.points[2] = icv_v3(0.05, -0.1, 0);
    got = icv_shape_lowest_point(&s, icv_m3_identity(), icv_v3(0, 1, 0), up);
    ASSERT_NEAR(vdist(got, icv_v3(0.05, 0.9, 0)), 0, 1e-15);
}

TEST(test_rigid_rotate_spin_about_a_principal_axis_is_uniform)
{
    icv_mat3 I = icv_m3_diag(1.312e-3, 3.8e-9, 1.312e-3), R;
    icv_vec3 w;
    icv_mat3 R0 = icv_euler213_to_matrix(icv_v3(0.2, 0.1, -0.4));
    icv_vec3 axis = icv_m3_apply(R0, icv_v3(1, 0, 0)), w0 = icv_v3_scale(axis, 12.0);
    icv_rigid_rotate(R0, w0, I, 0.5, &R, &w);
    icv_mat3 want = icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(axis, 6.0)), R0);
    double d = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            d = fmax(d, fabs(R.m[i][j] - want.m[i][j]));
    /* RK4's truncation over 6 rad is ~1e-14, but this rod's inertia ratio of 3.5e5
     * amplifies rounding in R I^-1 R^T L: 5e-10 rad measured; 1e-8 rad is still
     * far below anything a camera sees */
    ASSERT_NEAR(d, 0, 1e-8);
    ASSERT_NEAR(vdist(w, w0), 0, 1e-7); /* same rounding: 3e-9 rad/s measured of 12 */
}

TEST(test_rigid_rotate_symmetric_top_precesses_at_the_analytic_rate)
{
    /* I1 = I2 != I3: in the body frame omega turns about axis 3 at
     * Omega = (I3 - I1) w3 / I1, with w3 constant (Goldstein sec. 5.6). */
    double I1 = 2e-3, I3 = 5e-4, w3 = 20, a = 3, t = 0.37;
    icv_mat3 I = icv_m3_diag(I1, I1, I3), R;
    icv_vec3 w;
    icv_mat3 R0 = icv_euler213_to_matrix(icv_v3(-0.3, 0.5, 0.9));
    icv_rigid_rotate(R0, icv_m3_apply(R0, icv_v3(a, 0, w3)), I, t, &R, &w);
    icv_vec3 wb = icv_m3_apply(icv_m3_transpose(R), w);
    double Om = (I3 - I1) * w3 / I1;
    ASSERT_NEAR(wb.z, w3, 1e-9);
    ASSERT_NEAR(wb.x, a * cos(Om * t), 1e-9);
    ASSERT_NEAR(wb.y, a * sin(Om * t), 1e-9);
}

TEST(test_rigid_rotate_conserves_energy_and_momentum_and_reverses)
{
    /* a tumble near the intermediate axis, the hardest case for an integrator */
    icv_mat3 I = icv_m3_diag(1e-3, 2e-3, 3e-3), R, R2;
    icv_vec3 w, w2, w0 = icv_v3(0.1, 15, 0.2);
    icv_mat3 R0 = icv_m3_identity();
    icv_rigid_rotate(R0, w0, I, 1.0, &R, &w);
    double e0 = 0.5 * icv_v3_dot(w0, icv_m3_apply(I, w0));
    icv_mat3 Iw = icv_m3_rotate_tensor(R, I);
    double e1 = 0.5 * icv_v3_dot(w, icv_m3_apply(Iw, w));
    ASSERT_NEAR(e1 / e0, 1.0, 1e-9); /* synth's flight target (issue #5): 1e-9 */
    icv_vec3 L0 = icv_m3_apply(I, w0), L1 = icv_m3_apply(Iw, w);
    ASSERT_NEAR(vdist(L0, L1) / icv_v3_norm(L0), 0, 1e-12);
    /* and back */
    icv_rigid_rotate(R, w, I, -1.0, &R2, &w2);
    ASSERT_NEAR(vdist(w2, w0), 0, 1e-8);
    ASSERT_NEAR(icv_v3_norm(icv_rot_to_axis_angle(icv_m3_mul(icv_m3_transpose(R2), R0))), 0, 1e-9);
}
