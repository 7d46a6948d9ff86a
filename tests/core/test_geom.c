/* test_geom.c: rotations and euler213 against hand-derived values. Tolerances
 * are a few ulps of the arithmetic involved (1e-12 on unit-size quantities). */
#include "core/core.h"
#include "tests/harness.h"

static double mat_diff(icv_mat3 a, icv_mat3 b)
{
    double d = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            d = fmax(d, fabs(a.m[i][j] - b.m[i][j]));
    return d;
}

TEST(test_euler213_first_angle_turns_about_surface_y)
{
    /* t1 = 90 deg about y: body x goes to surface -z, body z to surface +x. */
    icv_mat3 r = icv_euler213_to_matrix(icv_v3(M_PI / 2, 0, 0));
    icv_vec3 bx = icv_m3_apply(r, icv_v3(1, 0, 0)), bz = icv_m3_apply(r, icv_v3(0, 0, 1));
    ASSERT_NEAR(bx.z, -1, 1e-12);
    ASSERT_NEAR(bz.x, 1, 1e-12);
}

TEST(test_euler213_is_y_then_new_x_then_new_z)
{
    /* Intrinsic rotations compose left to right: R = Ry Rx Rz (contract). */
    double a = 0.3, b = -0.7, c = 1.1;
    icv_mat3 want = icv_m3_mul(icv_m3_mul(icv_rot_y(a), icv_rot_x(b)), icv_rot_z(c));
    icv_mat3 got = icv_euler213_to_matrix(icv_v3(a, b, c));
    ASSERT_NEAR(mat_diff(got, want), 0, 1e-15);
    /* row 1 = [c2 s3, c2 c3, -s2] by hand */
    ASSERT_NEAR(got.m[1][0], cos(b) * sin(c), 1e-15);
    ASSERT_NEAR(got.m[1][2], -sin(b), 1e-15);
}

TEST(test_euler213_round_trip_over_random_attitudes)
{
    unsigned s = 12345;
    for (int k = 0; k < 10000; k++) {
        double v[3];
        for (int i = 0; i < 3; i++) {
            s = s * 1103515245u + 12345u;
            v[i] = ((s >> 8) / 16777216.0 - 0.5) * 2 * M_PI;
        }
        v[1] *= 0.49; /* t2 in (-pi/2, pi/2) */
        icv_vec3 e;
        ASSERT_EQ_INT(icv_euler213_from_matrix(icv_euler213_to_matrix(icv_v3_from_array(v)), &e), 0);
        ASSERT_NEAR(e.x, v[0], 1e-9);
        ASSERT_NEAR(e.y, v[1], 1e-9);
        ASSERT_NEAR(e.z, v[2], 1e-9);
    }
}

TEST(test_euler213_singular_attitude_is_reported_not_divided)
{
    icv_vec3 e;
    icv_mat3 r = icv_euler213_to_matrix(icv_v3(0.4, M_PI / 2, 0.25));
    ASSERT_EQ_INT(icv_euler213_from_matrix(r, &e), 1);
    ASSERT_TRUE(isfinite(e.x) && isfinite(e.y) && isfinite(e.z));
    ASSERT_NEAR(e.y, M_PI / 2, 1e-9);
    /* the returned angles still describe the same rotation */
    ASSERT_NEAR(mat_diff(icv_euler213_to_matrix(e), r), 0, 1e-9);
}

TEST(test_axis_angle_and_quaternion_round_trip)
{
    icv_vec3 aa = icv_v3(0.2, -1.3, 0.9);
    icv_mat3 r = icv_rot_from_axis_angle(aa);
    ASSERT_NEAR(icv_m3_det(r), 1, 1e-12);
    icv_vec3 back = icv_rot_to_axis_angle(r);
    ASSERT_NEAR(back.x, aa.x, 1e-12);
    ASSERT_NEAR(back.y, aa.y, 1e-12);
    ASSERT_NEAR(back.z, aa.z, 1e-12);
    ASSERT_NEAR(mat_diff(icv_quat_to_matrix(icv_quat_from_matrix(r)), r), 0, 1e-12);
    /* a half turn, where naive formulas lose the axis */
    icv_mat3 half = icv_rot_from_axis_angle(icv_v3(0, M_PI, 0));
    ASSERT_NEAR(mat_diff(icv_rot_from_axis_angle(icv_rot_to_axis_angle(half)), half), 0, 1e-12);
}

TEST(test_spd_check_rejects_indefinite_inertia)
{
    ASSERT_TRUE(icv_m3_is_spd(icv_m3_diag(1.312e-3, 3.8e-9, 1.312e-3), 1e-9));
    ASSERT_TRUE(!icv_m3_is_spd(icv_m3_diag(1, -1, 1), 1e-9));
    /* Titovich's printed rotated rod inertia (solver.md sec. 6.5) is indefinite:
     * the rod's diag(403/4800, 1/800, 403/4800) turned 45 deg about z has diagonal
     * (403/4800 + 1/800)/2 and off-diagonal printed 197/2400 (should be 397/9600);
     * its eigenvalues are -0.0395 and 0.1247 as the spec says. */
    double d = (403.0 / 4800 + 1.0 / 800) / 2;
    icv_mat3 tt = {{{d, 197.0 / 2400, 0}, {197.0 / 2400, d, 0}, {0, 0, 403.0 / 4800}}};
    icv_mat3 fixed = {{{d, 397.0 / 9600, 0}, {397.0 / 9600, d, 0}, {0, 0, 403.0 / 4800}}};
    ASSERT_TRUE(icv_m3_is_spd(fixed, 1e-9));
    ASSERT_TRUE(!icv_m3_is_spd(tt, 1e-9));
    icv_mat3 asym = {{{1, 0.5, 0}, {0, 1, 0}, {0, 0, 1}}};
    ASSERT_TRUE(!icv_m3_is_spd(asym, 1e-9));
}

TEST(test_inverse_times_matrix_is_identity)
{
    icv_mat3 a = {{{4, 1, 0.5}, {1, 3, -0.2}, {0.5, -0.2, 2}}}, ai;
    ASSERT_EQ_INT(icv_m3_inverse(a, &ai), 0);
    ASSERT_NEAR(mat_diff(icv_m3_mul(a, ai), icv_m3_identity()), 0, 1e-14);
    icv_mat3 z = icv_m3_diag(1, 0, 1);
    ASSERT_EQ_INT(icv_m3_inverse(z, &ai), -1);
}
