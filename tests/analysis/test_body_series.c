/* test_body_series.c: a body's motion row by row for the several-body report
 * (analysis_body_series_measure): a body of four markers falling and spinning up
 * about a fixed axis (constant acceleration and angular acceleration), kicked at one
 * instant to another such motion, no noise. A straight line's slope through equally
 * spaced samples of a quadratic is its derivative at their mean time, and the rotation
 * vector about a fixed axis is a quadratic too: every point's velocity, angular
 * velocity and kinetic energy must be the truth of its own side at its time tv to
 * rounding, beside the kick included (a fit reaching across it blends the two), and
 * the windows next to the kick and the clip's ends keep their full length. */
#include <math.h>
#include <string.h>

#include "analysis/bodies.h"
#include "tests/harness.h"

TEST(test_body_series_is_exact_on_each_side_of_a_kick)
{
    enum { N = 40, M = 4 };
    const double dt = 1.0 / 500, t_kick = 19.5 * dt, mass = 0.2;
    const icv_vec3 mk[M] = {{0.03, 0, 0}, {-0.03, 0, 0}, {0, 0.02, 0}, {0, 0, 0.025}};
    const icv_vec3 v[2] = {{1.5, -0.4, 0.2}, {-0.7, 0.9, 0.1}}, w[2] = {{0, 0, 6}, {0, 0, -9}};
    const icv_vec3 acc[2] = {{0, -9.81, 0}, {0.5, -9.81, 0.2}}, alpha[2] = {{0, 0, 40}, {0, 0, -25}};
    analysis_body b;
    memset(&b, 0, sizeof b);
    b.mass = mass;
    b.inertia = (icv_mat3){{{2e-4, 0, 0}, {0, 3e-4, 0}, {0, 0, 4e-4}}};
    icv_err err = {0};
    ASSERT(analysis_template_init(&b.tmpl, mk, M, &err) == 0, "%s", err.msg);
    analysis_tracks tr;
    ASSERT(analysis_tracks_alloc(&tr, N, M, 0, &err) == 0, "%s", err.msg);
    /* the pose at the kick, then each side's straight motion from it */
    icv_vec3 p_kick = icv_v3(0.1, 0.3, -0.05);
    for (int i = 0; i < N; i++) {
        double t = i * dt, tau = t - t_kick;
        int s = tau > 0;
        icv_vec3 p = icv_v3_add(p_kick, icv_v3_add(icv_v3_scale(v[s], tau), icv_v3_scale(acc[s], 0.5 * tau * tau)));
        icv_mat3 R = icv_rot_from_axis_angle(icv_v3_add(icv_v3_scale(w[s], tau), icv_v3_scale(alpha[s], 0.5 * tau * tau)));
        tr.frame[i] = i;
        tr.t[i] = t;
        for (int m = 0; m < M; m++) {
            tr.pos[i * M + m] = icv_v3_add(icv_m3_apply(R, mk[m]), p);
            tr.seen[i * M + m] = 1;
        }
    }
    analysis_body_track bt = {&b, &tr, "box", ANALYSIS_MOTION_POLY, 0, 0};
    analysis_params prm;
    analysis_params_default(&prm);
    analysis_body_series s;
    double brk[1] = {t_kick};
    ASSERT(analysis_body_series_measure(&bt, brk, 1, 3, &prm, &s, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(s.n, N);
    double worst_v = 0, worst_w = 0, worst_e = 0;
    int points = 0;
    for (int i = 0; i < N; i++) {
        if (!isfinite(s.tv[i])) /* the row before's window: its point is drawn already */
            continue;
        points++;
        int side = tr.t[i] > t_kick;
        ASSERT((s.tv[i] > t_kick) == side, "row %d's point at %.5f s is across the kick", i, s.tv[i]);
        double tau = s.tv[i] - t_kick;
        icv_vec3 vt = icv_v3_axpy(tau, acc[side], v[side]), wt = icv_v3_axpy(tau, alpha[side], w[side]);
        double T = 0.5 * mass * icv_v3_dot(vt, vt) + 0.5 * 4e-4 * wt.z * wt.z;
        for (int a = 0; a < 3; a++) {
            worst_v = fmax(worst_v, fabs(s.v[a][i] - icv_v3_get(vt, a)));
            worst_w = fmax(worst_w, fabs(s.w[a][i] - icv_v3_get(wt, a)));
        }
        worst_e = fmax(worst_e, fabs(s.energy[i] - T) / T);
    }
    analysis_body_series_free(&s);
    analysis_tracks_free(&tr);
    printf("    %d points; worst errors: v %.2g m/s, omega %.2g rad/s, energy %.2g (relative)\n", points, worst_v,
           worst_w, worst_e);
    /* 20 rows a side, 7-row windows moved off the kick and the ends: 20 - 6 each */
    ASSERT_EQ_INT(points, 2 * (20 - 6));
    /* exact but for rounding (the pose fit of exact markers to 1e-13 m) */
    ASSERT(worst_v < 1e-9, "v off by %.3g m/s", worst_v);
    ASSERT(worst_w < 1e-8, "omega off by %.3g rad/s", worst_w);
    ASSERT(worst_e < 1e-9, "energy off by %.3g", worst_e);
}
