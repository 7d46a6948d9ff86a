/* test_still_run.c: analysis_run_moves, the still rule's second look at a run of
 * frames at the clip's end, on the centre alone (posed frames built directly). A
 * rest with Gaussian noise is still, whatever the noise; a hop clear of that noise
 * moves, however small against the 0.3 mm default the still rule otherwise assumes. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "tests/harness.h"

enum { FRAMES = 42 };

/* FRAMES posed frames at fps from t = 0, each axis with Gaussian noise sigma (m):
   at rest at (0, 0, 0) (hop 0), or rising from there at v_up (m/s) under g */
static void hop_frames(posed_frame *pf, double fps, int hop, double v_up, double sigma, gsl_rng *rng)
{
    for (int i = 0; i < FRAMES; i++) {
        double t = i / fps, y = hop ? v_up * t - 0.5 * 9.81 * t * t : 0;
        pf[i] = (posed_frame){0};
        pf[i].row = i;
        pf[i].t = t;
        pf[i].pose.p = icv_v3(gsl_ran_gaussian(rng, sigma), y + gsl_ran_gaussian(rng, sigma),
                              gsl_ran_gaussian(rng, sigma));
    }
}

TEST(test_still_run_a_noisy_rest_is_still_and_a_low_hop_moves)
{
    /* 42 frames at 3000 fps (14 ms). At rest with 20 um or 300 um of noise per axis:
     * still in all of 1000 noise draws each (the F test's false alarm is 1e-6 a run,
     * and the travel test adds its own margin: a rest called moving would be a bounce
     * invented in it). Hopping at 0.08 m/s (0.33 mm up in 8 ms, 16 times the 20 um
     * noise; the tuning scene 1045's second bounce, 0.078 m/s): moving in every one
     * of 1000 draws. The same hop at 300 um of noise: still in most draws (the rule
     * does not call motion the noise hides; at most 100 of 1000 called moving). */
    const double fps = 3000;
    posed_frame pf[FRAMES];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    int rest_moves = 0, noisy_rest_moves = 0, hop_still = 0, hidden_moves = 0;
    for (int k = 0; k < 1000; k++) {
        hop_frames(pf, fps, 0, 0, 2e-5, rng);
        rest_moves += analysis_run_moves(pf, 0, FRAMES - 1);
        hop_frames(pf, fps, 0, 0, 3e-4, rng);
        noisy_rest_moves += analysis_run_moves(pf, 0, FRAMES - 1);
        hop_frames(pf, fps, 1, 0.08, 2e-5, rng);
        hop_still += !analysis_run_moves(pf, 0, FRAMES - 1);
        hop_frames(pf, fps, 1, 0.08, 3e-4, rng);
        hidden_moves += analysis_run_moves(pf, 0, FRAMES - 1);
    }
    gsl_rng_free(rng);
    printf("  of 1000: rests called moving %d (20 um) and %d (300 um), the hop called still %d (20 um), "
           "moving %d (300 um)\n",
           rest_moves, noisy_rest_moves, hop_still, hidden_moves);
    ASSERT(rest_moves == 0 && noisy_rest_moves == 0, "%d and %d of 1000 rests called moving", rest_moves,
           noisy_rest_moves);
    ASSERT(hop_still == 0, "%d of 1000 hops of 0.33 mm at 20 um noise called still", hop_still);
    ASSERT(hidden_moves <= 100, "%d of 1000 hops of 0.33 mm at 300 um noise called moving", hidden_moves);
}

TEST(test_still_run_too_few_frames_or_no_span_is_still)
{
    /* fewer than 8 frames say too little of their noise: still, as is a run with no
       time span (one instant repeated) */
    posed_frame pf[FRAMES];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 3);
    hop_frames(pf, 3000, 1, 0.5, 2e-5, rng);
    gsl_rng_free(rng);
    ASSERT(analysis_run_moves(pf, 0, FRAMES - 1) == 1, "a 0.5 m/s hop over 42 frames not called moving");
    ASSERT(analysis_run_moves(pf, 0, 6) == 0, "7 frames called moving");
    for (int i = 0; i < FRAMES; i++)
        pf[i].t = 0;
    ASSERT(analysis_run_moves(pf, 0, FRAMES - 1) == 0, "frames at one instant called moving");
}
