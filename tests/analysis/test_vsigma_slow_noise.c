/* test_vsigma_slow_noise.c: v's sigma with g given when the track error is slow.
 * A fast camera's marker centroids err alike over tens of frames (the same blur,
 * the same pixel phase): over a side's window of at most max_side_frames (40) the
 * straight-line fit takes that slow error up into v, and the window's own
 * residuals do not show it. The noise is therefore read from the whole flight on
 * each side. Here the box of impact_scenario.h at 1000 fps (0.45 s: 253 frames
 * before the impact, 197 after), each frame's markers all moved by one AR(1)
 * error (0.05 mm, correlation 0.95 per frame: a 20-frame memory) plus white
 * noise (0.03 mm): over 40 seeds the RMS pull of each v component before and
 * after lies within 0.7-1.5 (a sample RMS over 40 seeds scatters by ~11%; 0.7-1.5
 * is ~3 of those from 1). With the noise from the 40-frame windows alone the
 * pulls were 1.8-2.5. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

enum { SEEDS = 40 };

/* the scenario's markers at fps from 0 to t_end: white noise sw per coordinate,
 * plus a slow error common to the body's markers, AR(1) with correlation rho per
 * frame and stationary sd ss per axis */
static void sample_slow(const scenario *s, double t_end, double fps, double sw, double ss, double rho,
                        unsigned long seed, analysis_tracks *tr)
{
    sample_at(s, 0, t_end, fps, sw, seed, tr);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed + 7919);
    double k = ss * sqrt(1 - rho * rho);
    icv_vec3 e = icv_v3(gsl_ran_gaussian(rng, ss), gsl_ran_gaussian(rng, ss), gsl_ran_gaussian(rng, ss));
    for (int i = 0; i < tr->n_frames; i++) {
        if (i)
            e = icv_v3_add(icv_v3_scale(e, rho),
                           icv_v3(gsl_ran_gaussian(rng, k), gsl_ran_gaussian(rng, k), gsl_ran_gaussian(rng, k)));
        for (int m = 0; m < s->n_markers; m++)
            tr->pos[i * s->n_markers + m] = icv_v3_add(tr->pos[i * s->n_markers + m], e);
    }
    gsl_rng_free(rng);
}

TEST(test_vsigma_slow_track_error_g_given)
{
    scenario s;
    make_scenario(&s, 0);
    double p2[2][3] = {{0}};
    for (int seed = 0; seed < SEEDS; seed++) {
        analysis_tracks tr;
        sample_slow(&s, 0.45, 1000.0, 3e-5, 5e-5, 0.95, 900 + (unsigned long)seed, &tr);
        double pulls[2][3];
        icv_err err = {0};
        int rc = measure_v_pulls(&s, &tr, pulls, &err);
        ASSERT(rc == 0, "seed %d: %s", seed, err.msg);
        if (rc)
            return;
        for (int side = 0; side < 2; side++)
            for (int a = 0; a < 3; a++) {
                double pull = pulls[side][a];
                p2[side][a] += pull * pull;
            }
    }
    printf("     RMS pull of v over %d seeds: before %.2f %.2f %.2f, after %.2f %.2f %.2f\n", SEEDS,
           sqrt(p2[0][0] / SEEDS), sqrt(p2[0][1] / SEEDS), sqrt(p2[0][2] / SEEDS), sqrt(p2[1][0] / SEEDS),
           sqrt(p2[1][1] / SEEDS), sqrt(p2[1][2] / SEEDS));
    for (int side = 0; side < 2; side++)
        for (int a = 0; a < 3; a++) {
            double rms = sqrt(p2[side][a] / SEEDS);
            ASSERT(rms >= 0.7 && rms <= 1.5, "v %s axis %d: RMS pull %.2f outside 0.7-1.5", side ? "after" : "before",
                   a, rms);
        }
}
