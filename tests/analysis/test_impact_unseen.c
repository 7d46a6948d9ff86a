/* test_impact_unseen.c: an impact in frames where no marker was seen has no pose
 * on one side; it cannot be measured, and is said with where the flight beside
 * the unposed frames, carried on with gravity, meets the surface
 * (unposed_impact.c): in the "no impact found" error, or as a warning beside the
 * impacts that were measured. Never when the clip has no unposed stretch. */
#include <stdio.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

static char unseen_line[1024];
static int unseen_lines;

static void unseen_sink(icv_log_level level, const char *line, void *user)
{
    (void)level;
    (void)user;
    if (strstr(line, "not posed in frames")) {
        if (unseen_lines++ == 0)
            snprintf(unseen_line, sizeof unseen_line, "%s", line);
    }
}

/* analysis_impacts_measure with the unposed-stretch warnings caught */
static int measure_caught(const analysis_tracks *tr, const scenario *s, analysis_result *res, icv_err *err)
{
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = 3e-4;
    icv_log_sink sink0;
    void *user0;
    icv_log_get_sink(&sink0, &user0);
    unseen_line[0] = 0;
    unseen_lines = 0;
    icv_log_set_sink(unseen_sink, NULL);
    int rc = analysis_impacts_measure(tr, &s->body, &G, &prm, res, err);
    icv_log_set_sink(sink0, user0);
    return rc;
}

/* every marker unseen in the rows whose t lies in [t0, t1] */
static void unsee(analysis_tracks *tr, double t0, double t1, int *f0, int *f1)
{
    *f0 = *f1 = -1;
    for (int i = 0; i < tr->n_frames; i++)
        if (tr->t[i] >= t0 && tr->t[i] <= t1) {
            for (int k = 0; k < tr->n_markers; k++)
                tr->seen[i * tr->n_markers + k] = 0;
            if (*f0 < 0)
                *f0 = tr->frame[i];
            *f1 = tr->frame[i];
        }
}

/* the true instant the scenario's post-impact flight lands again (its lowest
 * point back on the surface), s: steps of 0.1 ms then bisection to 1e-12 s */
static double second_landing(const scenario *s)
{
    double a = 0.01, b = 0;
    for (double tau = 0.01; tau < 2; tau += 1e-4) {
        icv_mat3 R;
        icv_vec3 w, p = icv_v3_add(icv_v3_add(s->p, icv_v3_scale(s->v_post, tau)), icv_v3_scale(G, 0.5 * tau * tau));
        icv_rigid_rotate(s->R, s->w_post, s->body.inertia, tau, &R, &w);
        if (analysis_gap_at(&s->body, R, p) <= 0) {
            b = tau;
            break;
        }
        a = tau;
    }
    while (b - a > 1e-12) {
        double m = 0.5 * (a + b);
        icv_mat3 R;
        icv_vec3 w, p = icv_v3_add(icv_v3_add(s->p, icv_v3_scale(s->v_post, m)), icv_v3_scale(G, 0.5 * m * m));
        icv_rigid_rotate(s->R, s->w_post, s->body.inertia, m, &R, &w);
        if (analysis_gap_at(&s->body, R, p) <= 0)
            b = m;
        else
            a = m;
    }
    return s->t_star + 0.5 * (a + b);
}

TEST(test_impact_unseen_an_impact_before_the_first_pose_is_said_in_the_error)
{
    /* The box of impact_scenario.h at 120 fps, 0.3 mm noise: no marker seen from
     * the clip's start to 60 ms after its impact (frames 0-37, the impact at
     * frame 30.37). No impact in the posed frames; the flight after them, carried
     * back, meets the surface at the true instant within 3 of its stated sigmas
     * and 0.1 frame (the flight is exact physics: only the noise carried over 7
     * frames errs), and the error names the frames. Measured: off by 0.005-0.02 frame,
     * sigma 0.004-0.01 frame. */
    scenario s;
    make_scenario(&s, 0);
    const double period = 1 / 120.0;
    for (unsigned long seed = 1; seed <= 4; seed++) {
        analysis_tracks tr;
        sample(&s, 0.45, 3e-4, seed, &tr);
        int f0, f1;
        unsee(&tr, 0, s.t_star + 0.06, &f0, &f1);
        analysis_result res;
        icv_err err = {0};
        int rc = measure_caught(&tr, &s, &res, &err);
        analysis_tracks_free(&tr);
        printf("  seed %lu: %s\n", seed, err.msg);
        ASSERT(rc == ICV_ENOTFOUND, "seed %lu: rc %d, expected no impact found: %s", seed, rc, err.msg);
        char want[64];
        snprintf(want, sizeof want, "not posed in frames %d-%d", f0, f1);
        ASSERT_STR_CONTAINS(err.msg, want);
        ASSERT_STR_CONTAINS(err.msg, "cannot be measured");
        const char *p = strstr(err.msg, "carried back, meets the surface near t = ");
        double t, sd;
        ASSERT(p && sscanf(p, "carried back, meets the surface near t = %lf +- %lf", &t, &sd) == 2,
               "seed %lu: no instant in \"%s\"", seed, err.msg);
        double dt = t - s.t_star;
        /* the message rounds to 0.01 ms */
        ASSERT(fabs(dt) <= 3 * sd + 1e-5 && fabs(dt) <= 0.1 * period, "seed %lu: off by %.3f frame, sigma %.3f",
               seed, dt / period, sd / period);
    }
}

TEST(test_impact_unseen_a_landing_after_the_last_pose_is_a_warning_beside_the_measured_impact)
{
    /* The same bounce, its post-impact flight landing again at t2 (no bounce drawn
     * there); no marker seen from 50 ms before t2 to the clip's end. The first
     * impact is measured as without the stretch; the landing is a warning naming
     * the frames, the flight before them carried on meeting the surface at t2
     * within 3 of its sigmas and 0.1 frame. */
    scenario s;
    make_scenario(&s, 0);
    const double period = 1 / 120.0, t2 = second_landing(&s);
    printf("  true second landing at t = %.5f s\n", t2);
    for (unsigned long seed = 1; seed <= 4; seed++) {
        analysis_tracks tr;
        sample(&s, t2 + 0.06, 3e-4, seed, &tr);
        int f0, f1;
        unsee(&tr, t2 - 0.05, 1e9, &f0, &f1);
        analysis_result res;
        icv_err err = {0};
        int rc = measure_caught(&tr, &s, &res, &err);
        analysis_tracks_free(&tr);
        printf("  seed %lu: %s\n", seed, unseen_line);
        ASSERT(rc == 0 && res.n_impacts == 1, "seed %lu: rc %d, %d impacts: %s", seed, rc, rc ? 0 : res.n_impacts,
               err.msg);
        ASSERT(fabs(res.impacts[0].t - s.t_star) <= 0.2 * period, "seed %lu: measured impact off by %.3f frame",
               seed, (res.impacts[0].t - s.t_star) / period);
        ASSERT_EQ_INT(unseen_lines, 1);
        char want[64];
        snprintf(want, sizeof want, "not posed in frames %d-%d", f0, f1);
        ASSERT_STR_CONTAINS(unseen_line, want);
        ASSERT_STR_CONTAINS(unseen_line, "not measured");
        const char *p = strstr(unseen_line, "carried on, meets the surface near t = ");
        double t, sd;
        ASSERT(p && sscanf(p, "carried on, meets the surface near t = %lf +- %lf", &t, &sd) == 2,
               "seed %lu: no instant in \"%s\"", seed, unseen_line);
        double dt = t - t2;
        ASSERT(fabs(dt) <= 3 * sd + 1e-5 && fabs(dt) <= 0.1 * period, "seed %lu: off by %.3f frame, sigma %.3f",
               seed, dt / period, sd / period);
    }
}

TEST(test_impact_unseen_a_clean_clip_or_a_short_dropout_says_nothing)
{
    /* The whole bounce posed: no warning. Then markers lost in 3 frames right at
     * the impact (29-31, fewer than UNPOSED_MIN_FRAMES): the impact is measured
     * across them, and nothing is said either. */
    scenario s;
    make_scenario(&s, 0);
    const double period = 1 / 120.0;
    for (int dropout = 0; dropout <= 1; dropout++) {
        analysis_tracks tr;
        sample(&s, 0.45, 3e-4, 1, &tr);
        int f0 = -1, f1 = -1;
        if (dropout)
            unsee(&tr, s.t_star - 1.5 * period, s.t_star + 1.0 * period, &f0, &f1);
        analysis_result res;
        icv_err err = {0};
        int rc = measure_caught(&tr, &s, &res, &err);
        analysis_tracks_free(&tr);
        ASSERT(rc == 0 && res.n_impacts == 1, "dropout %d: rc %d: %s", dropout, rc, err.msg);
        ASSERT(!dropout || f1 - f0 + 1 == 3, "dropout of frames %d-%d, expected 3", f0, f1);
        ASSERT(unseen_lines == 0, "dropout %d: said \"%s\"", dropout, unseen_line);
    }
}

TEST(test_impact_unseen_the_extrapolated_landing_is_the_gaps_root_to_a_nanosecond)
{
    /* Noiseless markers of the post-impact flight alone, none seen from 50 ms before
     * its landing at t2: the flight carried on puts the lowest point on the surface
     * at t2 to within 1e-9 s (Brent's method to 1e-10 s on the fit's gap; the fit of
     * exact markers adds less). The former bisection to 1e-7 s was off by up to
     * 5e-8 s (3.6e-8 on the kept tuning scenes). */
    scenario s;
    make_scenario(&s, 0);
    const double period = 1 / 120.0, t2 = second_landing(&s);
    analysis_tracks tr;
    sample_at(&s, s.t_star + 0.02, t2 + 0.06, 120.0, 0, 1, &tr);
    int f0, f1;
    unsee(&tr, t2 - 0.05, 1e9, &f0, &f1);
    analysis_params prm;
    analysis_params_default(&prm);
    posed_frame *pf = malloc(sizeof *pf * (size_t)tr.n_frames);
    unsigned char *contact = calloc((size_t)tr.n_frames, 1), *posed_row = calloc((size_t)tr.n_frames, 1);
    ASSERT(pf && contact && posed_row, "out of memory");
    int n = 0;
    analysis_pose_frames(&tr, &s.body, &prm, pf, &n);
    for (int i = 0; i < n; i++)
        posed_row[pf[i].row] = 1;
    analysis_result res = {0};
    res.g = G;
    unposed_impact u;
    int k = analysis_unposed_impacts(&tr, &s.body, pf, n, contact, NULL, posed_row, &res, 3e-4, 3e-4,
                                     prm.min_side_frames, prm.max_side_frames, period, &u, 1);
    free(pf);
    free(contact);
    free(posed_row);
    analysis_tracks_free(&tr);
    ASSERT_EQ_INT(k, 1);
    printf("  frames %ld-%ld: carried on to t = %.12f s, true %.12f s: off by %.2g s\n", u.frame_first, u.frame_last,
           u.t_pre, t2, u.t_pre - t2);
    ASSERT(u.frame_first == f0 && u.frame_last == f1, "stretch %ld-%ld, expected %d-%d", u.frame_first, u.frame_last,
           f0, f1);
    ASSERT(fabs(u.t_pre - t2) <= 1e-9, "extrapolated landing off by %.3g s", u.t_pre - t2);
}

TEST(test_impact_unseen_a_side_stops_at_a_cut_and_takes_no_flight_before_it)
{
    /* Noiseless markers, 120 fps: none seen over the impact (5 frames round t_star),
     * then 5 posed frames, then none to the clip's end (the flight after the impact
     * lands again at t2 in there). The first posed frame after the impact begins a
     * flight (a cut). The side before the second stretch is those 5 frames alone:
     * carried on, they land at t2 within 1e-9 s (exact markers, as above). Across the
     * cut the side took the flight before the impact too, 27 frames of two flights
     * whose fit meets no surface: the landing went unnamed, or in a noisy clip was
     * named at the wrong instant. */
    scenario s;
    make_scenario(&s, 0);
    const double period = 1 / 120.0, t2 = second_landing(&s);
    analysis_tracks tr;
    sample_at(&s, s.t_star - 0.2, t2 + 0.06, 120.0, 0, 1, &tr);
    int a0, a1, b0, b1;
    unsee(&tr, s.t_star - 2.5 * period, s.t_star + 2.0 * period, &a0, &a1);
    unsee(&tr, s.t_star + 8.0 * period, 1e9, &b0, &b1);
    analysis_params prm;
    analysis_params_default(&prm);
    posed_frame *pf = malloc(sizeof *pf * (size_t)tr.n_frames);
    unsigned char *contact = calloc((size_t)tr.n_frames, 1), *posed_row = calloc((size_t)tr.n_frames, 1),
                  *cut = calloc((size_t)tr.n_frames, 1);
    ASSERT(pf && contact && posed_row && cut, "out of memory");
    int n = 0;
    analysis_pose_frames(&tr, &s.body, &prm, pf, &n);
    int after = -1, n_between = 0;
    for (int i = 0; i < n; i++) {
        posed_row[pf[i].row] = 1;
        if (after < 0 && tr.frame[pf[i].row] > a1)
            after = i;
        n_between += tr.frame[pf[i].row] > a1 && tr.frame[pf[i].row] < b0;
    }
    ASSERT(after > 0, "no posed frame after the impact");
    cut[after] = 1;
    analysis_result res = {0};
    res.g = G;
    unposed_impact u[2], w[2];
    int k = analysis_unposed_impacts(&tr, &s.body, pf, n, contact, cut, posed_row, &res, 3e-4, 3e-4,
                                     prm.min_side_frames, prm.max_side_frames, period, u, 2),
        k_across = analysis_unposed_impacts(&tr, &s.body, pf, n, contact, NULL, posed_row, &res, 3e-4, 3e-4,
                                            prm.min_side_frames, prm.max_side_frames, period, w, 2);
    free(pf);
    free(contact);
    free(posed_row);
    free(cut);
    analysis_tracks_free(&tr);
    const unposed_impact *second = NULL, *second_across = NULL;
    for (int i = 0; i < k; i++)
        second = u[i].frame_first == b0 ? &u[i] : second;
    for (int i = 0; i < k_across; i++)
        second_across = w[i].frame_first == b0 ? &w[i] : second_across;
    printf("  stretches %d-%d, %d-%d, %d posed frames between; the second's landing with the cut %.12f s, across "
           "it %.6f s; true %.12f s\n",
           a0, a1, b0, b1, n_between, second ? second->t_pre : NAN, second_across ? second_across->t_pre : NAN, t2);
    ASSERT(n_between >= prm.min_side_frames, "%d posed frames between, %d needed", n_between, prm.min_side_frames);
    ASSERT(second, "stretch %d-%d not named", b0, b1);
    ASSERT(fabs(second->t_pre - t2) <= 1e-9, "the second stretch's landing off by %.3g s", second->t_pre - t2);
}
