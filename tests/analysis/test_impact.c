/* test_impact.c: analysis_impacts_measure on 3D tracks generated from a known impact: a
 * free flight into the surface, a momentum exchange with a chosen Newton ratio at
 * the contact point and a chosen impulse ratio, a free flight away; markers
 * sampled at 120 fps with the impact at a fractional frame, Gaussian noise. The
 * tolerances are issue #9's, measured there on synth experiments. */
#include <stdlib.h>

#include "analysis/analysis.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

static void check_impact(const scenario *s, const analysis_result *res)
{
    ASSERT_EQ_INT(res->n_impacts, 1);
    const analysis_impact *im = &res->impacts[0];
    /* issue #9: the impact instant within 0.2 frame */
    ASSERT_NEAR(im->t, s->t_star, 0.2 / 120);
    /* velocity components within 0.5% of the impact speed */
    double speed = icv_v3_norm(s->v_pre);
    for (int a = 0; a < 3; a++) {
        ASSERT_NEAR(icv_v3_get(im->pre.v, a), icv_v3_get(s->v_pre, a), 0.005 * speed);
        ASSERT_NEAR(icv_v3_get(im->post.v, a), icv_v3_get(s->v_post, a), 0.005 * speed);
    }
    /* omega within 2% of |omega| or 0.1 rad/s (perpendicular part for a rod) */
    icv_vec3 wp = s->w_pre, wq = s->w_post;
    if (!im->spin_observable) {
        icv_vec3 a = icv_m3_apply(s->R, s->body.tmpl.axis);
        wp = icv_v3_sub(wp, icv_v3_scale(a, icv_v3_dot(wp, a)));
        wq = icv_v3_sub(wq, icv_v3_scale(a, icv_v3_dot(wq, a)));
    }
    double tol_w = fmax(0.02 * icv_v3_norm(wp), 0.1);
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(im->pre.omega, wp)), 0, tol_w);
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(im->post.omega, wq)), 0, fmax(0.02 * icv_v3_norm(wq), 0.1));
    /* e, impulse ratio and loss fraction within 0.01 */
    ASSERT_NEAR(im->e_kinematic, s->e, 0.01);
    ASSERT_NEAR(im->impulse_ratio, s->ratio, 0.01);
    /* euler213 within 0.2 degree */
    icv_vec3 e;
    icv_euler213_from_matrix(s->R, &e);
    if (im->spin_observable) {
        ASSERT_NEAR(im->pre.euler213.x, e.x, 0.2 * M_PI / 180);
        ASSERT_NEAR(im->pre.euler213.y, e.y, 0.2 * M_PI / 180);
        ASSERT_NEAR(im->pre.euler213.z, e.z, 0.2 * M_PI / 180);
    }
    ASSERT(im->sd.e_kinematic > 0 && im->sd.e_kinematic < 0.05, "sd of e: %g", im->sd.e_kinematic);
}

TEST(test_impact_found_and_measured_on_a_box_with_given_gravity)
{
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample(&s, 0.45, 2e-4, 1, &tr);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    check_impact(&s, &res);
}

TEST(test_impact_with_gravity_from_free_flight)
{
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample(&s, 0.45, 2e-4, 2, &tr);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, NULL, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(res.g_estimated, 1);
    ASSERT_NEAR(icv_v3_norm(res.g), 9.81, 0.005 * 9.81); /* issue #9: |g| within 0.5% */
    check_impact(&s, &res);
}

TEST(test_impact_of_a_rod_reports_no_spin)
{
    scenario s;
    make_scenario(&s, 1);
    analysis_tracks tr;
    sample(&s, 0.35, 2e-4, 3, &tr); /* the rod's far end lands again at 0.36 s */
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(res.impacts[0].spin_observable, 0);
    check_impact(&s, &res);
}

TEST(test_no_impact_names_the_smallest_gap)
{
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample(&s, 0.20, 2e-4, 4, &tr); /* ends before the impact */
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT_EQ_INT(rc, ICV_ENOTFOUND);
    ASSERT_STR_CONTAINS(err.msg, "no impact found: the smallest gap");
    ASSERT_STR_CONTAINS(err.msg, "t = 0.2000 s");
}

TEST(test_impact_too_near_the_end_says_how_many_frames)
{
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample(&s, s.t_star + 2.5 / 120, 2e-4, 5, &tr); /* two frames after the impact */
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
    analysis_tracks_free(&tr);
    printf("    %s\n", err.msg);
    ASSERT_EQ_INT(rc, ICV_EINVAL);
    ASSERT_STR_CONTAINS(err.msg, "only 2 posed frames after it (frames ");
    ASSERT_STR_CONTAINS(err.msg, "; the clip ends there), 4 needed on each side to fit");
}

/* Issue #18: a marker hidden for good after the impact and another dropping out now and
 * then are told apart (the message listed both as missing in every frame), and a side
 * that has unposed frames does not blame the clip's length. */
TEST(test_impact_short_of_poses_counts_each_missing_markers_frames)
{
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample(&s, s.t_star + 12.5 / 120, 2e-4, 5, &tr); /* twelve frames after the impact */
    int first_after = -1;
    for (int r = 0; r < tr.n_frames && first_after < 0; r++)
        if (tr.t[r] > s.t_star)
            first_after = r;
    ASSERT_TRUE(first_after > 0);
    /* markers 2 and 3 hidden from the third frame after the impact on (two markers
       of four: no pose), marker 1 also in the first 3 of those frames */
    for (int r = first_after + 2; r < tr.n_frames; r++) {
        tr.seen[r * tr.n_markers + 2] = 0;
        tr.seen[r * tr.n_markers + 3] = 0;
    }
    for (int r = first_after + 2; r < first_after + 5; r++)
        tr.seen[r * tr.n_markers + 1] = 0;
    char want[200];
    snprintf(want, sizeof want, "markers 1, 2, 3 missing in %d frames %d-%d: marker 1 in 3, 2 in %d, 3 in %d)",
             tr.n_frames - first_after - 2, tr.frame[first_after + 2], tr.frame[tr.n_frames - 1],
             tr.n_frames - first_after - 2, tr.n_frames - first_after - 2);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
    analysis_tracks_free(&tr);
    printf("    %s\n", err.msg);
    ASSERT_EQ_INT(rc, ICV_EINVAL);
    ASSERT_STR_CONTAINS(err.msg, want);
}

TEST(test_impact_with_markers_missing_after_it_names_the_frames_and_markers)
{
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample(&s, s.t_star + 12.5 / 120, 2e-4, 5, &tr); /* twelve frames after the impact */
    /* markers 1 and 2 lost from the third frame after the impact on: too few for a pose */
    int first_after = -1;
    for (int r = 0; r < tr.n_frames && first_after < 0; r++)
        if (tr.t[r] > s.t_star)
            first_after = r;
    ASSERT_TRUE(first_after > 0);
    for (int r = first_after + 2; r < tr.n_frames; r++)
        for (int k = 1; k < tr.n_markers && k <= 2; k++)
            tr.seen[r * tr.n_markers + k] = 0;
    char want[200];
    snprintf(want, sizeof want, "only 2 posed frames after it (frames %d-%d; markers 1, 2 missing in %d frames %d-%d)",
             tr.frame[first_after], tr.frame[first_after + 1], tr.n_frames - first_after - 2,
             tr.frame[first_after + 2], tr.frame[tr.n_frames - 1]);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
    analysis_tracks_free(&tr);
    printf("    %s\n", err.msg);
    ASSERT_EQ_INT(rc, ICV_EINVAL);
    ASSERT_STR_CONTAINS(err.msg, "impact at frame ");
    ASSERT_STR_CONTAINS(err.msg, want);
    ASSERT_STR_CONTAINS(err.msg, "4 needed on each side to fit");
}

TEST(test_tracks3d_csv_reads_back_with_gaps)
{
    const char *csv = "frame,time_s,m0_x,m0_y,m0_z,m1_x,m1_y,m1_z\n"
                      "0,0.0,0.1,0.2,0.3,,,\n"
                      "1,0.00833,0.11,0.19,0.3,0.5,0.6,0.7\n";
    ASSERT_EQ_INT(th_write_file(th_tmp("tracks3d.csv"), csv), 0);
    analysis_tracks tr;
    icv_err err = {0};
    ASSERT(analysis_tracks_read_csv(th_tmp("tracks3d.csv"), &tr, &err) == 0, "%s", err.msg);
    int ok = tr.n_frames == 2 && tr.n_markers == 2 && tr.seen[0] && !tr.seen[1] && tr.seen[3] &&
             tr.pos[3].z == 0.7 && tr.t[1] == 0.00833;
    analysis_tracks_free(&tr);
    ASSERT(ok, "values read back wrong");
    ASSERT_EQ_INT(th_write_file(th_tmp("bad.csv"), "frame,time_s,m0_x,m0_y,m0_z\n0,0.0,0.1,abc,0.3\n"), 0);
    ASSERT(analysis_tracks_read_csv(th_tmp("bad.csv"), &tr, &err) == ICV_EFORMAT, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "bad.csv:2: m0_y: not a number: 'abc'");
}



TEST(test_impact_uncertainty_is_honest_over_seeds)
{
    /* Issue #9: over at least 20 noise seeds the truth lies within 2 reported
     * sigma for at least 90% of the quantities (a Gaussian gives 95.4%). The table
     * prints the coverage per quantity; `make accuracy` runs 100 seeds. */
    scenario s;
    make_scenario(&s, 0);
    enum { NQ = 16 };
    static const char *names[NQ] = {"v_pre.x", "v_pre.y", "v_pre.z", "v_post.x", "v_post.y", "v_post.z",
                                    "w_pre.x", "w_pre.y", "w_pre.z", "w_post.x", "w_post.y", "w_post.z",
                                    "e_kin",   "ratio",   "loss",    "t"};
    double truth[NQ] = {s.v_pre.x,  s.v_pre.y,  s.v_pre.z,  s.v_post.x, s.v_post.y, s.v_post.z,
                        s.w_pre.x,  s.w_pre.y,  s.w_pre.z,  s.w_post.x, s.w_post.y, s.w_post.z,
                        s.e,        s.ratio,    scenario_loss_fraction(&s), s.t_star};
    int inside[NQ] = {0}, seeds = th_accuracy() ? 100 : 20, total = 0, total_in = 0;
    for (int seed = 0; seed < seeds; seed++) {
        analysis_tracks tr;
        sample(&s, 0.45, 2e-4, 100 + (unsigned long)seed, &tr);
        analysis_result res;
        icv_err err = {0};
        int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
        analysis_tracks_free(&tr);
        ASSERT(rc == 0 && res.n_impacts == 1, "seed %d: %s", seed, err.msg);
        const analysis_impact *im = &res.impacts[0];
        double got[NQ] = {im->pre.v.x,      im->pre.v.y,      im->pre.v.z,      im->post.v.x,
                          im->post.v.y,     im->post.v.z,     im->pre.omega.x,  im->pre.omega.y,
                          im->pre.omega.z,  im->post.omega.x, im->post.omega.y, im->post.omega.z,
                          im->e_kinematic,  im->impulse_ratio, im->loss_fraction, im->t};
        double sd[NQ] = {im->pre.v_sd.x,      im->pre.v_sd.y,      im->pre.v_sd.z,      im->post.v_sd.x,
                         im->post.v_sd.y,     im->post.v_sd.z,     im->pre.omega_sd.x,  im->pre.omega_sd.y,
                         im->pre.omega_sd.z,  im->post.omega_sd.x, im->post.omega_sd.y, im->post.omega_sd.z,
                         im->sd.e_kinematic,  im->sd.impulse_ratio, im->sd.loss_fraction, im->t_sd};
        for (int q = 0; q < NQ; q++) {
            int in = fabs(got[q] - truth[q]) <= 2 * sd[q];
            inside[q] += in;
            total_in += in;
            total++;
        }
    }
    printf("     coverage of the truth within 2 sigma over %d seeds:\n     ", seeds);
    for (int q = 0; q < NQ; q++)
        printf("%s %.0f%%%s", names[q], 100.0 * inside[q] / seeds, q % 6 == 5 ? "\n     " : "  ");
    printf("\n     all: %.1f%%\n", 100.0 * total_in / total);
    ASSERT(total_in >= 0.9 * total, "truth within 2 sigma for %.1f%% of the quantities, needs 90%%",
           100.0 * total_in / total);
}

TEST(test_houbolt_method_is_worse_than_the_fit)
{
    /* solver.md sec. 5 and issue #9: the seeds' Houbolt differences over the
     * frames next to the impact are noisier (and not carried to the instant)
     * than the default fits. Over 10 seeds, the mean error in e_kinematic and in
     * the pre-impact velocity must be larger with Houbolt; both are printed. */
    scenario s;
    make_scenario(&s, 0);
    double err_fit_e = 0, err_h_e = 0, err_fit_v = 0, err_h_v = 0;
    int seeds = 10;
    for (int seed = 0; seed < seeds; seed++) {
        analysis_tracks tr;
        sample(&s, 0.45, 2e-4, 500 + (unsigned long)seed, &tr);
        analysis_params prm;
        analysis_params_default(&prm);
        analysis_result fit, hb;
        icv_err err = {0};
        int rc = analysis_impacts_measure(&tr, &s.body, &G, &prm, &fit, &err);
        prm.method = ANALYSIS_HOUBOLT;
        if (!rc)
            rc = analysis_impacts_measure(&tr, &s.body, &G, &prm, &hb, &err);
        analysis_tracks_free(&tr);
        ASSERT(rc == 0, "seed %d: %s", seed, err.msg);
        err_fit_e += fabs(fit.impacts[0].e_kinematic - s.e);
        err_h_e += fabs(hb.impacts[0].e_kinematic - s.e);
        err_fit_v += icv_v3_norm(icv_v3_sub(fit.impacts[0].pre.v, s.v_pre));
        err_h_v += icv_v3_norm(icv_v3_sub(hb.impacts[0].pre.v, s.v_pre));
    }
    printf("     mean |error| over %d seeds:   fit   e %.4f  v_pre %.4f m/s\n", seeds, err_fit_e / seeds,
           err_fit_v / seeds);
    printf("                               houbolt   e %.4f  v_pre %.4f m/s\n", err_h_e / seeds, err_h_v / seeds);
    ASSERT(err_h_e > err_fit_e, "Houbolt e error %.4f not above the fit's %.4f", err_h_e / seeds, err_fit_e / seeds);
    ASSERT(err_h_v > err_fit_v, "Houbolt v error %.4f not above the fit's %.4f", err_h_v / seeds, err_fit_v / seeds);
}

TEST(test_houbolt_is_exact_for_a_parabola_at_its_frame)
{
    /* solver.md sec. 5: eq. 4.9 is exact for cubics. On noise-free tracks the
     * Houbolt velocity at the last frame before the impact equals the flight's
     * velocity at that frame (not at the instant: the seeds do not extrapolate). */
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample(&s, 0.45, 0.0, 1, &tr);
    analysis_params prm;
    analysis_params_default(&prm);
    prm.method = ANALYSIS_HOUBOLT;
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, &prm, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    const analysis_impact *im = &res.impacts[0];
    ASSERT_NEAR(im->pre.t_last, 29 / 120.0, 1e-12); /* frame 30 is 0.37 frame before the impact: excluded */
    icv_vec3 want = icv_v3_axpy(im->pre.t_last - s.t_star, G, s.v_pre);
    /* rounding of differences of positions of order 0.1 m over 8 ms: 1e-9 m/s */
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(im->pre.v, want)), 0, 1e-9);
}
