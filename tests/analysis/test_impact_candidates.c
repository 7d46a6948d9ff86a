/* test_impact_candidates.c: the contact candidates of analysis_impacts_measure when the body
 * moves by less than the track noise per frame near the surface (issue #18: seeds
 * 1020 and 1036 of the scene study, 3000 and 6000 fps, found their impact 23 and 27
 * frames late or not at all). The box scenario of impact_scenario.h sampled at
 * 3000 fps with 0.4 mm of noise per marker: after the impact the box leaves the
 * surface at ~0.2 mm a frame, so the noisy gap has a minimum every few frames along
 * the contact. */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/analysis.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

TEST(test_impact_at_3000_fps_with_noise_above_the_motion_per_frame_is_found_once)
{
    scenario s;
    make_scenario(&s, 0);
    s.v_pre = icv_v3(0.3, -1.2, 0.1); /* a slow drop: 0.4 mm a frame before, ~0.2 after */
    s.w_pre = icv_v3(1.0, -0.5, 1.5);
    s.e = 0.3;
    scenario_finish(&s);
    const double fps = 3000, sigma = 4e-4;
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = sigma;
    int found = 0, n_seeds = 10;
    double worst_dt = 0, worst_de = 0;
    for (int seed = 1; seed <= n_seeds; seed++) {
        analysis_tracks tr;
        sample_at(&s, s.t_star - 40 / fps, s.t_star + 40 / fps, fps, sigma, (unsigned long)seed, &tr);
        analysis_result res;
        icv_err err = {0};
        int rc = analysis_impacts_measure(&tr, &s.body, &G, &prm, &res, &err);
        analysis_tracks_free(&tr);
        if (rc) {
            printf("    seed %d: %s\n", seed, err.msg);
            continue;
        }
        printf("    seed %d: %d impact(s), t - t* = %+.2f frames, e %.3f +- %.3f (true %.3f)\n", seed, res.n_impacts,
               (res.impacts[0].t - s.t_star) * fps, res.impacts[0].e_kinematic, res.impacts[0].sd.e_kinematic, s.e);
        found += res.n_impacts == 1;
        worst_dt = fmax(worst_dt, fabs(res.impacts[0].t - s.t_star) * fps);
        worst_de = fmax(worst_de, fabs(res.impacts[0].e_kinematic - s.e));
    }
    ASSERT_EQ_INT(found, n_seeds);
    /* the instant from the pre-impact flight: its centre's noise (0.2 mm, four markers)
       over the approach speed (1.2 m/s) is 0.5 frame at 3000 fps; 2 frames is 4 sigma */
    ASSERT_NEAR(worst_dt, 0, 2.0);
    /* e's own sigma is 0.01-0.06 on these seeds with 20-40 frames a side; a window cut
       to a few frames by a noise candidate was 0.09-0.15 off */
    ASSERT_NEAR(worst_de, 0, 0.08);
}

/* A rod leaving the surface slowly (Newton ratio 0.1) filmed at 3000 fps: its lowest
 * point stays within the noise of the surface for tens of frames after the impact, and
 * the noise makes gap minima there; one contact, one impact. */
TEST(test_impact_candidates_slow_lift_off_at_3000_fps_is_one_impact)
{
    int found = 0;
    for (unsigned long seed = 1; seed <= 4; seed++) {
        scenario s;
        make_scenario(&s, 1); /* the contract's rod, 15 degrees from vertical */
        s.t_star = 0.03 + 0.37 / 3000;
        s.e = 0.1;
        scenario_finish(&s);
        analysis_tracks tr;
        sample_at(&s, 0, 0.07, 3000, 2e-4, seed, &tr);
        analysis_result res;
        icv_err err = {0};
        int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
        analysis_tracks_free(&tr);
        ASSERT(rc == 0, "seed %lu: %s", seed, err.msg);
        ASSERT_EQ_INT(res.n_impacts, 1);
        const analysis_impact *im = &res.impacts[0];
        /* before: the noise's minima were contacts: each bounded the impact's
         * post-impact window (5-9 frames; e's sigma 0.020-0.057), the frames beside
         * them were dropped as outliers, a "contact" skipped for too few frames. One
         * contact: both windows grown over nearly all of their flights (90 frames
         * before, 120 after; a few near the impact left out), at most one frame
         * dropped (2 on each seed before; the minimum kept can be a frame or two
         * after the impact, and the frame before it, really after the impact, then
         * looks off its flight: seed 4) */
        ASSERT(im->pre.n_frames >= 80 && im->post.n_frames >= 110, "seed %lu: windows %d + %d frames", seed,
               im->pre.n_frames, im->post.n_frames);
        ASSERT(res.n_outlier_frames <= 1, "seed %lu: %d frames dropped", seed, res.n_outlier_frames);
        printf("     seed %lu: t - t* %+.3f frame (sd %.3f), e %.4f +- %.4f (truth %.2f), windows %d + %d\n", seed,
               (im->t - s.t_star) * 3000, im->t_sd * 3000, im->e_kinematic, im->sd.e_kinematic, s.e,
               im->pre.n_frames, im->post.n_frames);
        /* the impact, measured: its instant within 4 of its sigmas and e within 4 of
         * its sigmas (white noise, 4 seeds: an honest miss beyond 4 has 1e-4 odds) */
        ASSERT(fabs(im->t - s.t_star) < 4 * im->t_sd, "seed %lu: t off by %.3g s, sd %.3g", seed,
               im->t - s.t_star, im->t_sd);
        ASSERT(fabs(im->e_kinematic - s.e) < 4 * im->sd.e_kinematic, "seed %lu: e %.4f +- %.4f", seed,
               im->e_kinematic, im->sd.e_kinematic);
        found++;
    }
    ASSERT_EQ_INT(found, 4);
}

/* A fast bounce at 30 fps with the last frame before it missing (the marker not found,
 * or a repeated picture left out): the frames either side are a whole 67 ms apart and
 * the body decelerates away from the surface, so the lowest frame lies further from
 * the surface than a step between frames (gravity bends the gap by g dt^2 within a
 * step). The real clip: a ball at 30 pictures/s whose bounce at 0.738 s had no frame
 * from 0.700 to 0.767 (gap 43.1 mm, the old bound 42.5 mm): no candidate, and its
 * neighbour's post-impact window then ran across it. */
TEST(test_impact_at_30_fps_with_the_frame_before_it_missing_is_found)
{
    scenario s;
    make_scenario(&s, 0);
    s.v_pre = icv_v3(0.3, -2.6, 0.1);
    s.w_pre = icv_v3(0.5, -0.3, 0.8);
    s.e = 0.8;
    scenario_finish(&s);
    const double fps = 30, sigma = 3e-4;
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = sigma;
    int found = 0, phases = 10;
    for (int ph = 0; ph < phases; ph++) {
        analysis_tracks tr;
        double t0 = s.t_star - 0.3 - ph / (phases * fps);
        sample_at(&s, t0, s.t_star + 0.3, fps, sigma, (unsigned long)ph + 1, &tr);
        int last_pre = (int)floor((s.t_star - t0) * fps);
        for (int k = 0; k < s.n_markers; k++)
            tr.seen[last_pre * s.n_markers + k] = 0;
        analysis_result res;
        icv_err err = {0};
        int rc = analysis_impacts_measure(&tr, &s.body, &G, &prm, &res, &err);
        analysis_tracks_free(&tr);
        if (rc) {
            printf("    phase %d/%d: %s\n", ph, phases, err.msg);
            continue;
        }
        printf("    phase %d/%d: %d impact(s), t - t* = %+.3f frames, e %.3f +- %.3f (true %.3f)\n", ph, phases,
               res.n_impacts, (res.impacts[0].t - s.t_star) * fps, res.impacts[0].e_kinematic,
               res.impacts[0].sd.e_kinematic, s.e);
        /* found once, at the instant within issue #9's 0.2 frame; e within 3 of its own
           sigmas (0.04-0.06: the box's spin from 7 frames a side at 30 fps) */
        found += res.n_impacts == 1 &&
                 fabs(res.impacts[0].e_kinematic - s.e) < 3 * res.impacts[0].sd.e_kinematic &&
                 fabs(res.impacts[0].t - s.t_star) * fps < 0.2;
    }
    ASSERT_EQ_INT(found, phases);
}

/* A ball bouncing on and on at 30 fps (e 0.7, dropped from 0.30 m): its later bounces
 * come 7-10 frames apart, within 2 x min_side_frames of each other, and the lowest-
 * within-radius rule kept only the lowest of them; gravity was then fitted across the
 * bounces it lost (the real green ball: 1.68 m/s^2). Every bounce is a flight apart
 * from the next, so each is a candidate. */
TEST(test_impact_candidates_a_ball_bouncing_every_8_frames_at_30_fps_keeps_every_bounce)
{
    const double g = 9.81, r = 0.03, e = 0.7, fps = 30, sigma = 2e-4;
    double t_imp[8], v = sqrt(2 * g * (0.30 - r)), t = sqrt(2 * (0.30 - r) / g);
    int n_true = 0;
    while (n_true < 6) { /* impacts until a flight lasts under 6 frames */
        t_imp[n_true++] = t;
        v *= e;
        if (2 * v / g < 6 / fps)
            break;
        t += 2 * v / g;
    }
    analysis_tracks tr;
    icv_err err = {0};
    int n = (int)(t_imp[n_true - 1] * fps) + 5; /* 4-5 frames of the last flight */
    ASSERT_EQ_INT(analysis_tracks_alloc(&tr, n, 1, 0, &err), 0);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 5);
    for (int i = 0; i < n; i++) {
        double ti = 0.013 + i / fps, y;
        int k = 0;
        while (k < n_true && ti > t_imp[k])
            k++;
        if (k == 0)
            y = 0.30 - 0.5 * g * ti * ti;
        else {
            double vk = sqrt(2 * g * (0.30 - r)) * pow(e, k), tau = ti - t_imp[k - 1];
            y = r + vk * tau - 0.5 * g * tau * tau;
        }
        tr.frame[i] = i;
        tr.t[i] = ti;
        tr.pos[i] = icv_v3(0.2 * ti + gsl_ran_gaussian(rng, sigma), y + gsl_ran_gaussian(rng, sigma), 0);
        tr.seen[i] = 1;
    }
    gsl_rng_free(rng);
    analysis_body b = {0};
    b.mass = 0.026;
    b.inertia = icv_m3_diag(9e-6, 9e-6, 9e-6);
    b.shape.type = ICV_SHAPE_SPHERE;
    b.shape.radius = r;
    const icv_vec3 mk = {0, 0, 0};
    analysis_template_init(&b.tmpl, &mk, 1, &err);
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = sigma;
    analysis_result res;
    int rc = analysis_impacts_measure(&tr, &b, NULL, &prm, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    printf("    %d bounces, %d impacts found, |g| %.3f\n", n_true, res.n_impacts, icv_v3_norm(res.g));
    ASSERT(res.n_impacts >= n_true - 1, "%d of %d bounces found", res.n_impacts, n_true); /* the last may lack its after */
    ASSERT_NEAR(icv_v3_norm(res.g), g, 0.01 * g); /* issue #9: |g| within 1% (its sigma here ~0.05%) */
    for (int k = 0; k < res.n_impacts; k++)
        ASSERT_NEAR(res.impacts[k].e_kinematic, e, 0.02); /* issue #19's 0.02 for balls */
}
