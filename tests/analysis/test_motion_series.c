/* test_motion_series.c: the measured motion the report plots (analysis_motion_series):
 * on noise-free tracks of a tumbling box in free flight, the finite-difference
 * velocity of a ballistic flight is exact at the midpoint, the angular velocity is
 * the true one to second order in the frame step, and the lowest point's height is
 * the truth's. */
#include "analysis/analysis.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

TEST(test_motion_series_of_a_free_flight_matches_the_truth)
{
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample_at(&s, 0.0, 0.2, 120.0, 0.0, 1, &tr); /* before the impact at 0.253 s */
    analysis_motion_series m;
    icv_err err = {0};
    int rc = analysis_motion_series_measure(&tr, &s.body, &m, &err);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(m.n, tr.n_frames);
    double worst_v = 0, worst_w = 0, worst_h = 0, w_max = 0;
    for (int j = 0; j + 1 < m.n; j++) {
        double tau = m.tm[j] - s.t_star;
        icv_vec3 v = icv_v3_add(s.v_pre, icv_v3_scale(G, tau)), w;
        icv_mat3 R;
        icv_rigid_rotate(s.R, s.w_pre, s.body.inertia, tau, &R, &w);
        double vv[3] = {v.x, v.y, v.z}, wv[3] = {w.x, w.y, w.z};
        for (int k = 0; k < 3; k++) {
            worst_v = fmax(worst_v, fabs(m.v[k][j] - vv[k]));
            worst_w = fmax(worst_w, fabs(m.w[k][j] - wv[k]));
        }
        w_max = fmax(w_max, icv_v3_norm(w));
    }
    for (int j = 0; j < m.n; j++) {
        double tau = m.t[j] - s.t_star;
        icv_vec3 p = icv_v3_add(icv_v3_add(s.p, icv_v3_scale(s.v_pre, tau)), icv_v3_scale(G, 0.5 * tau * tau)), w;
        icv_mat3 R;
        icv_rigid_rotate(s.R, s.w_pre, s.body.inertia, tau, &R, &w);
        worst_h = fmax(worst_h, fabs(m.h[j] - icv_shape_lowest_point(&s.body.shape, R, p, icv_v3(0, 1, 0)).y));
    }
    analysis_motion_series_free(&m);
    analysis_tracks_free(&tr);
    /* a quadratic's chord slope is its derivative at the midpoint: round-off only */
    printf("    velocity off by %.3g m/s, angular velocity by %.3g rad/s (|omega| up to %.3g), height by %.3g m\n",
           worst_v, worst_w, w_max, worst_h);
    ASSERT(worst_v < 1e-9, "velocity off by %.3g m/s", worst_v);
    /* the rotation's chord: second order in the turn per frame, (|omega| dt)^2 / 24 =
       1e-4 of |omega| here (0.05 rad a frame) */
    ASSERT(worst_w < 1e-4 * w_max, "angular velocity off by %.3g rad/s (|omega| up to %.3g)", worst_w, w_max);
    ASSERT(worst_h < 1e-9, "lowest point off by %.3g m", worst_h);
}
