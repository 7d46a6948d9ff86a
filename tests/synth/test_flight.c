/* test_flight.c: the torque-free flight (synth/flight.c) against its invariants and
 * the closed-form motion of a symmetric top; contact times against a ballistic
 * closed form (synth/contact.c). */
#include "synth/synth.h"
#include "tests/harness.h"

static synth_body box_body(void)
{
    synth_body b = {0};
    b.mass = 0.5;
    b.inertia = icv_m3_diag(1e-3, 2e-3, 3e-3); /* all different: the tumbling case */
    b.shape.type = ICV_SHAPE_BOX;
    b.shape.size = icv_v3(0.1, 0.06, 0.03);
    return b;
}

TEST(test_flight_conserves_energy_to_1e_9_and_angular_momentum)
{
    synth_body b = box_body();
    icv_mat3 Iinv;
    ASSERT_TRUE(icv_m3_inverse(b.inertia, &Iinv) == 0);
    synth_state s = {icv_euler213_to_matrix(icv_v3(0.3, -0.4, 1.1)), icv_v3(0, 1, 0), icv_v3(0.5, 2, -0.3),
                     icv_v3(3, -5, 10)};
    /* rotational energy alone: the translation is exact and would hide the rotation's drift */
    synth_state s0 = s;
    s0.v = icv_v3(0, 0, 0);
    double E0 = synth_state_energy(&b, &s0);
    icv_vec3 L0 = synth_state_angular_momentum(&b, &s);
    icv_vec3 g = icv_v3(0, -9.81, 0);
    double h = 2e-3 / icv_v3_norm(s.omega); /* the checkpoint spacing flight.c uses */
    int n = (int)(1.0 / h);
    for (int i = 0; i < n; i++) {
        synth_state o;
        synth_flight_step(&b.inertia, &Iinv, g, &s, h, &o);
        s = o;
    }
    synth_state s1 = s;
    s1.v = icv_v3(0, 0, 0);
    double E1 = synth_state_energy(&b, &s1);
    icv_vec3 L1 = synth_state_angular_momentum(&b, &s);
    if (th_accuracy())
        printf("    1 s tumbling flight: energy %.2e relative, |dL|/|L| %.2e\n", E1 / E0 - 1,
               icv_v3_norm(icv_v3_sub(L1, L0)) / icv_v3_norm(L0));
    /* issue #5: energy conserved in flight to 1e-9 relative (1 s of tumbling at 12 rad/s) */
    ASSERT_NEAR(E1 / E0, 1.0, 1e-9);
    /* L is carried exactly by the method: only rounding over ~6000 steps (1e-12 relative) */
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(L1, L0)) / icv_v3_norm(L0), 0.0, 1e-12);
    /* R stays a rotation (each step multiplies by an exact exponential): rounding only */
    ASSERT_NEAR(icv_m3_det(s.R), 1.0, 1e-12);
    /* the centre of mass is exactly ballistic: p0 + v0 t + g t^2 / 2 */
    double t = n * h;
    ASSERT_NEAR(s.p.y, 1 + 2 * t - 0.5 * 9.81 * t * t, 1e-12);
    ASSERT_NEAR(s.v.x, 0.5, 1e-15);
}

TEST(test_flight_matches_the_symmetric_top_in_closed_form)
{
    /* I1 = I2 != I3: R(t) = exp(t [L/I1]x) R0 exp(t (1 - I3/I1) W3 [e3]x) (torque-free
     * symmetric top; derived from R^T R' = [R^T L / I1 + (1 - I3/I1) W3 e3]x = [W]x) */
    double I1 = 2e-3, I3 = 0.5e-3;
    icv_mat3 I = icv_m3_diag(I1, I1, I3), Iinv = icv_m3_diag(1 / I1, 1 / I1, 1 / I3);
    icv_mat3 R0 = icv_euler213_to_matrix(icv_v3(0.2, 0.5, -0.7));
    icv_vec3 W0 = icv_v3(4, -2, 15); /* body frame, rad/s */
    synth_state s = {R0, icv_v3(0, 0, 0), icv_v3(0, 0, 0), icv_m3_apply(R0, W0)};
    icv_vec3 L = icv_m3_apply(R0, icv_m3_apply(I, W0));
    double h = 2e-3 / icv_v3_norm(W0), t = 0;
    for (int i = 0; i < 4000; i++) {
        synth_state o;
        synth_flight_step(&I, &Iinv, icv_v3(0, 0, 0), &s, h, &o);
        s = o;
        t += h;
    }
    icv_mat3 Rt = icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(L, t / I1)),
                             icv_m3_mul(R0, icv_rot_z(t * (1 - I3 / I1) * W0.z)));
    double worst = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            worst = fmax(worst, fabs(Rt.m[i][j] - s.R.m[i][j]));
    /* RK4 global error ~ (|w| h)^4 x steps ~ 1.6e-11 x 4000; 1e-8 leaves room */
    ASSERT_NEAR(worst, 0.0, 1e-8);
}

typedef struct {
    const synth_flight *f;
    const icv_shape *shape;
} gap_user;

static double traj_gap(double t, void *u)
{
    gap_user *g = u;
    synth_state s;
    synth_flight_state_at(g->f, t, &s);
    return synth_contact_gap(g->shape, &s.R, s.p, NULL);
}

TEST(test_contact_time_of_a_dropped_sphere_within_1e_7_s)
{
    synth_scenario sc;
    synth_scenario_defaults(&sc);
    sc.body.shape.type = ICV_SHAPE_SPHERE;
    sc.body.shape.radius = 0.02;
    sc.release_time_s = 0.01;
    sc.release.p = icv_v3(0, 0.2, 0);
    sc.release.v = icv_v3(0.3, -0.5, 0);
    sc.release.omega = icv_v3(0, 0, 20);
    sc.max_impacts = 0;
    synth_flight *f;
    icv_err err;
    ASSERT(synth_flight_run(&sc, 0.5, &f, &err) == 0, "%s", err.msg);
    gap_user u = {f, &sc.body.shape};
    double tc;
    int found = synth_contact_find(traj_gap, &u, 0.01, 0.5, 1e-3, 1e-10, &tc, &err);
    /* closed form: 0.2 - 0.5 t - 9.81 t^2 / 2 = 0.02 */
    double a = 9.81 / 2, bq = 0.5, c = -0.18;
    double t_exact = 0.01 + (-bq + sqrt(bq * bq - 4 * a * c)) / (2 * a);
    synth_flight_free(f);
    ASSERT_EQ_INT(found, 1);
    if (th_accuracy())
        printf("    sphere drop: contact time off by %.2e s\n", tc - t_exact);
    ASSERT_NEAR(tc, t_exact, 1e-7); /* issue #5: contact time to 1e-7 s */
}

TEST(test_contact_time_of_a_tumbling_rod_brackets_the_zero_within_1e_7_s)
{
    synth_scenario sc;
    synth_scenario_defaults(&sc); /* the capsule rod */
    sc.release.p = icv_v3(0, 0.3, 0);
    sc.release.R = icv_euler213_to_matrix(icv_v3(0.4, 0.9, 0.3));
    sc.release.omega = icv_v3(2, 1, 9);
    sc.max_impacts = 0;
    synth_flight *f;
    icv_err err;
    ASSERT(synth_flight_run(&sc, 0.6, &f, &err) == 0, "%s", err.msg);
    gap_user u = {f, &sc.body.shape};
    double tc;
    int found = synth_contact_find(traj_gap, &u, sc.release_time_s, 0.6, 1e-4, 1e-10, &tc, &err);
    double before = traj_gap(tc - 1e-7, &u), after = traj_gap(tc + 1e-7, &u);
    synth_flight_free(f);
    ASSERT_EQ_INT(found, 1);
    /* the true zero lies within 1e-7 s of tc: the gap changes sign across it */
    ASSERT(before > 0 && after < 0, "gap %.3g m at tc - 1e-7 s, %.3g m at tc + 1e-7 s", before, after);
}

TEST(test_contact_gap_finds_the_lowest_point_of_each_shape)
{
    icv_mat3 R = icv_rot_z(0.5); /* tilted by 0.5 rad about z */
    icv_vec3 p = icv_v3(0, 1, 0), cb;
    icv_shape cap = {.type = ICV_SHAPE_CAPSULE, .axis = {0, 1, 0}, .length = 0.3, .radius = 0.01};
    /* capsule: the lower cap centre at 0.14 cos 0.5 below p, then the radius */
    ASSERT_NEAR(synth_contact_gap(&cap, &R, p, &cb), 1 - 0.14 * cos(0.5) - 0.01, 1e-15);
    icv_shape cyl = {.type = ICV_SHAPE_CYLINDER, .axis = {0, 1, 0}, .length = 0.3, .radius = 0.01};
    /* cylinder: the rim, 0.15 cos 0.5 + 0.01 sin 0.5 below the centre */
    ASSERT_NEAR(synth_contact_gap(&cyl, &R, p, &cb), 1 - 0.15 * cos(0.5) - 0.01 * sin(0.5), 1e-15);
    icv_shape box = {.type = ICV_SHAPE_BOX, .size = {0.2, 0.1, 0.05}};
    /* box: the corner, 0.1 sin 0.5 + 0.05 cos 0.5 below */
    ASSERT_NEAR(synth_contact_gap(&box, &R, p, &cb), 1 - 0.1 * sin(0.5) - 0.05 * cos(0.5), 1e-15);
    icv_shape sph = {.type = ICV_SHAPE_SPHERE, .radius = 0.03};
    ASSERT_NEAR(synth_contact_gap(&sph, &R, p, &cb), 0.97, 1e-15);
    ASSERT_NEAR(icv_m3_apply(R, cb).y, -0.03, 1e-15);
}
