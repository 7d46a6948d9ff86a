/* test_impact_any_rate.c: impacts from the flights on each side at any frame rate
 * (issue #19 item 3): a one-camera ball at 30-240 fps whose bounce falls between two
 * frames, with the surface where it is, or drawn 26 mm below it (no frame then shows
 * the body near the surface: "no impact found: the smallest gap ... is 26.4 mm"
 * before) or 15 mm above it (the instant from the surface 0.15 frame early at 30 fps,
 * 1.2 frames at 240, e off by 0.03). */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "tests/analysis/ball_bounce.h"
#include "tests/harness.h"

typedef struct {
    double sum2[4]; /* squared pulls: t, e, v_pre.x, v_pre.y */
    int n, within;  /* measured; within the issue's tolerances */
    double worst_t, worst_e, worst_v; /* frames, -, relative */
} rate_stats;

/* One seed: analysed with gravity auto; 0 when measured, with its errors in st. */
static int one_ball(double fps, double line_off, unsigned long seed, rate_stats *st, char *msg, size_t cap)
{
    ball_bounce s;
    analysis_tracks tr;
    analysis_body b;
    ball_bounce_make(&s, fps, 3e-4, seed, line_off, &tr, &b);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &b, NULL, NULL, &res, &err);
    analysis_tracks_free(&tr);
    if (rc || res.n_impacts != 1) {
        snprintf(msg, cap, "%.0f fps, surface off %+.0f mm, seed %lu: %s (%d impacts)", fps, line_off * 1e3, seed,
                 rc ? err.msg : "", res.n_impacts);
        return -1;
    }
    const analysis_impact *im = &res.impacts[0];
    double dt = (im->t - s.t_imp) * fps, de = im->e_kinematic - s.e;
    double dv = icv_v3_norm(im->pre.v) / icv_v3_norm(s.v_pre) - 1;
    /* the launch: the first flight's speed at its first frame */
    if (res.n_flights < 1) {
        snprintf(msg, cap, "%.0f fps, surface off %+.0f mm, seed %lu: no flight listed", fps, line_off * 1e3, seed);
        return -1;
    }
    const analysis_flight_summary *f = &res.flights[0];
    double launch = icv_v3_norm(icv_v3(s.v_launch.x, s.v_launch.y - 9.81 * f->t_start, 0));
    dv = fabs(dv) > fabs(f->speed / launch - 1) ? dv : f->speed / launch - 1;
    double pulls[4] = {(im->t - s.t_imp) / im->t_sd, de / im->sd.e_kinematic,
                       (im->pre.v.x - s.v_pre.x) / im->pre.v_sd.x, (im->pre.v.y - s.v_pre.y) / im->pre.v_sd.y};
    for (int k = 0; k < 4; k++)
        st->sum2[k] += pulls[k] * pulls[k];
    st->n++;
    st->within += fabs(dt) <= 0.2 && fabs(de) <= 0.02 && fabs(dv) <= 0.01;
    st->worst_t = fmax(st->worst_t, fabs(dt));
    st->worst_e = fmax(st->worst_e, fabs(de));
    st->worst_v = fmax(st->worst_v, fabs(dv));
    return 0;
}

TEST(test_impact_any_rate_ball_meets_the_issue_tolerances_at_30_to_240_fps)
{
    /* Issue #19: e within 0.02, the speed at impact and the launch speed (the first
     * flight's at its first frame) within 1%, the instant within 0.2 frame, with
     * the surface right, 26 mm low or 15 mm high; sigmas honest (RMS error / sigma
     * 0.7-1.5) over 48 seeds per rate and surface under ICV_ACCURACY (make test: 4 per
     * rate and surface, the tolerances only: 4 seeds do not measure a spread). */
    const double rates[] = {30, 60, 120, 240}, offs[] = {0, 0.026, -0.015};
    int seeds = th_accuracy() ? 48 : 4;
    char msg[ICV_ERR_MSG_MAX + 128];
    for (int k = 0; k < 4; k++) {
        rate_stats st = {0};
        for (int o = 0; o < 3; o++) {
            rate_stats so = {0};
            for (int sd = 1; sd <= seeds; sd++) {
                ASSERT(one_ball(rates[k], offs[o], (unsigned long)(100 * k + sd), &so, msg, sizeof msg) == 0, "%s",
                       msg);
            }
            if (getenv("ICV_VERBOSE"))
                printf("       off %+.3f: RMS pull t %.2f e %.2f v_pre.x %.2f v_pre.y %.2f\n", offs[o],
                       sqrt(so.sum2[0] / so.n), sqrt(so.sum2[1] / so.n), sqrt(so.sum2[2] / so.n),
                       sqrt(so.sum2[3] / so.n));
            for (int q = 0; q < 4; q++)
                st.sum2[q] += so.sum2[q];
            st.n += so.n;
            st.within += so.within;
            st.worst_t = fmax(st.worst_t, so.worst_t);
            st.worst_e = fmax(st.worst_e, so.worst_e);
            st.worst_v = fmax(st.worst_v, so.worst_v);
        }
        double rms[4];
        for (int q = 0; q < 4; q++)
            rms[q] = sqrt(st.sum2[q] / st.n);
        printf("     %3.0f fps: %d of %d within tolerance (worst: instant %.3f frame, e %.4f, speed %.2f%%); RMS "
               "pull t %.2f e %.2f v_pre.x %.2f v_pre.y %.2f\n",
               rates[k], st.within, st.n, st.worst_t, st.worst_e, 100 * st.worst_v, rms[0], rms[1], rms[2], rms[3]);
        ASSERT_EQ_INT(st.within, st.n);
        if (th_accuracy() && !getenv("ICV_VERBOSE"))
            for (int q = 0; q < 4; q++)
                ASSERT(rms[q] >= 0.7 && rms[q] <= 1.5, "%.0f fps: RMS pull %d is %.2f (target 0.7-1.5)", rates[k], q,
                       rms[q]);
    }
}

TEST(test_impact_any_rate_ball_below_the_stated_sigma_keeps_an_honest_instant_sigma)
{
    /* The phone study's case (test_impact_any_rate_phone.c): a one-camera ball whose
     * centroid noise, 0.1 mm, is a third of the tracks' stated sigma (the 0.3 mm
     * default, as one camera's tracks state none), gravity auto. The instant's
     * sigma is the Monte Carlo's from the flights' own noise: RMS error / sigma
     * 0.7-1.5 at each rate over 24 seeds (the RMS's own sigma 1/sqrt(48) = 0.14).
     * With the line's sigma from the stated 0.3 mm as its floor it was 0.48 at 30
     * fps (the phone study's 0.45-0.65). */
    const double rates[] = {30, 60, 120, 240};
    char msg[ICV_ERR_MSG_MAX + 128];
    for (int k = 0; k < 4; k++) {
        double sum2 = 0;
        int n = 0;
        for (unsigned long sd = 1; sd <= 24; sd++) {
            ball_bounce s;
            analysis_tracks tr;
            analysis_body b;
            ball_bounce_make(&s, rates[k], 1e-4, 1000 + 100 * (unsigned long)k + sd, 0, &tr, &b);
            analysis_result res;
            icv_err err = {0};
            int rc = analysis_impacts_measure(&tr, &b, NULL, NULL, &res, &err);
            analysis_tracks_free(&tr);
            snprintf(msg, sizeof msg, "%.0f fps seed %lu: %s (%d impacts)", rates[k], sd, rc ? err.msg : "",
                     res.n_impacts);
            ASSERT(rc == 0 && res.n_impacts == 1 && res.g_estimated, "%s", msg);
            double p = (res.impacts[0].t - s.t_imp) / res.impacts[0].t_sd;
            sum2 += p * p;
            n++;
        }
        double rms = sqrt(sum2 / n);
        if (getenv("ICV_VERBOSE"))
            printf("     %3.0f fps: RMS error/sigma of the instant %.2f over %d seeds\n", rates[k], rms, n);
        ASSERT(rms >= 0.7 && rms <= 1.5, "%.0f fps: the instant's RMS error/sigma %.2f (target 0.7-1.5)", rates[k],
               rms);
    }
}

TEST(test_impact_any_rate_surface_26mm_low_at_30_fps_uses_where_the_flights_meet)
{
    /* The issue's ping-pong bounce at 30 fps: the surface line 26 mm below the true
     * one, so no frame is near it ("no impact found: the smallest gap ... is 26.4
     * mm" before). The flights meet where the ball bounced: the instant within 0.2
     * frame, e within 0.02, and the instant says where it came from, with the
     * surface's instant (nearest approach: the ball never reaches the line) kept
     * beside it. */
    ball_bounce s;
    analysis_tracks tr;
    analysis_body b;
    ball_bounce_make(&s, 30, 3e-4, 7, 0.026, &tr, &b);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &b, NULL, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(res.n_impacts, 1);
    const analysis_impact *im = &res.impacts[0];
    ASSERT_EQ_INT(im->t_from_meet, 1);
    ASSERT_NEAR(im->t, s.t_imp, 0.2 / 30);
    ASSERT_NEAR(im->t_meet, im->t, 1e-12);
    ASSERT(fabs(im->t_line - im->t_meet) > 3 * hypot(im->t_line_sd, im->t_meet_sd), "the two instants agree");
    ASSERT_NEAR(im->e_kinematic, s.e, 0.02);
    ASSERT_EQ_INT(im->implausible[0], 0);
}

TEST(test_impact_any_rate_surface_right_keeps_the_surface_instant)
{
    /* With the surface where it is the two instants agree within their sigmas and
     * the surface's is used (its sigma is the smaller at high rates): nothing
     * changes for the clips measured before. */
    ball_bounce s;
    analysis_tracks tr;
    analysis_body b;
    ball_bounce_make(&s, 240, 3e-4, 3, 0, &tr, &b);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &b, NULL, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    const analysis_impact *im = &res.impacts[0];
    ASSERT_EQ_INT(im->t_from_meet, 0);
    ASSERT_NEAR(im->t, im->t_line, 1e-12);
    ASSERT_NEAR(im->t_meet, s.t_imp, 3 * im->t_meet_sd);
}

TEST(test_impact_any_rate_e_above_1_is_flagged_implausible)
{
    /* A bounce that gains speed (e 1.15: what a wrong surface or duplicated frames
     * made of a real clip) is measured as it is and flagged, naming e. */
    ball_bounce s;
    analysis_tracks tr;
    analysis_body b;
    ball_bounce_make(&s, 120, 3e-4, 5, 0, &tr, &b);
    /* the same flight after the bounce at 1.15 times the speed of rebound */
    double vy = -1.15 * s.v_pre.y;
    for (int i = 0; i < tr.n_frames; i++)
        if (tr.t[i] > s.t_imp) {
            double tau = tr.t[i] - s.t_imp;
            icv_vec3 p = ball_bounce_at(&s, tr.t[i]);
            tr.pos[i].y += s.r + vy * tau - 0.5 * 9.81 * tau * tau - p.y;
        }
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &b, NULL, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    const analysis_impact *im = &res.impacts[0];
    ASSERT_NEAR(im->e_kinematic, 1.15, 0.02);
    ASSERT_STR_CONTAINS(im->implausible, "is above 1 by more than 2 sigma");
}

TEST(test_impact_any_rate_poses_ending_before_the_impact_say_so)
{
    /* Bad input (scene seeds 1069, 1127, 1177: markers lost just before the
     * impact): not "no impact found" but where the poses end, how far above the
     * surface, and which markers are missing after it. Gravity given: with gravity
     * auto the clip would be measured as a flight. */
    ball_bounce s;
    analysis_tracks tr;
    analysis_body b;
    ball_bounce_make(&s, 120, 3e-4, 2, 0, &tr, &b);
    int last = -1;
    for (int i = 0; i < tr.n_frames; i++)
        if (tr.t[i] > s.t_imp - 1.5 / 120)
            tr.seen[i] = 0;
        else
            last = i;
    analysis_result res;
    icv_err err = {0};
    const icv_vec3 g = {0, -9.81, 0};
    int rc = analysis_impacts_measure(&tr, &b, &g, NULL, &res, &err);
    int n = tr.n_frames;
    analysis_tracks_free(&tr);
    ASSERT(rc != 0, "an impact was measured with no pose after it");
    char want[128];
    snprintf(want, sizeof want, "the poses end at frame %d", last);
    ASSERT_STR_CONTAINS(err.msg, want);
    ASSERT_STR_CONTAINS(err.msg, "approaching it");
    snprintf(want, sizeof want, "markers 0 missing in %d frames %d-%d", n - 1 - last, last + 1, n - 1);
    ASSERT_STR_CONTAINS(err.msg, want);
}

TEST(test_impact_any_rate_surface_5mm_low_at_3000_fps_found_by_the_kink_over_frames)
{
    /* held-out scenes 5105 and 5133 (1000-3000 fps, one camera): the contact point
     * 3-4 mm above the surface line at the impact, no frame near it, and one frame's
     * kink (the velocity's jump times 0.33 ms, about a millimetre) under 6 sqrt(6) of
     * the noise: "no impact found". Over 8 frames a side the kink stands out. Five
     * draws; each bounce found at the flights' meeting within 0.2 frame, e within 0.02. */
    for (unsigned long seed = 1; seed <= 5; seed++) {
        ball_bounce s;
        analysis_tracks tr;
        analysis_body b;
        ball_bounce_make(&s, 3000, 3e-4, seed, 0.005, &tr, &b);
        analysis_result res;
        icv_err err = {0};
        int rc = analysis_impacts_measure(&tr, &b, NULL, NULL, &res, &err);
        analysis_tracks_free(&tr);
        ASSERT(rc == 0, "seed %lu: %s", seed, err.msg);
        ASSERT_EQ_INT(res.n_impacts, 1);
        ASSERT_NEAR(res.impacts[0].t, s.t_imp, 0.2 / 3000);
        ASSERT_NEAR(res.impacts[0].e_kinematic, s.e, 0.02);
    }
}
