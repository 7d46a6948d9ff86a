/* test_vsigma_marker_drift.c: v's sigma when the markers drift slowly
 * (marker_drift.c). A centroid bias that changes with the body's attitude and
 * place in the image is a slope over a side's window: in its v, in no residual of
 * the centre. The markers drift unlike each other, and the pose fit's residuals
 * keep that difference: their slopes beyond their noise are the drift's size. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/analysis_internal.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

/* Four markers whose residuals are exact lines in x (2, -1, 3, -4 mm/s), white
 * noise in y (0.05 mm) and nothing in z, over 200 frames at 1000 fps, marker 3
 * out of the fit in every fifth frame: x's variance is the mean slope squared,
 * 7.5e-6 m^2/s^2 (the lines leave no scatter: to rounding, 1e-12 relative); y's
 * is what white noise's slopes leave beyond their own variance, below the
 * variance of one marker's slope (1.9e-3 m/s)^2: the noise alone adds little; z's
 * is 0. */
TEST(test_marker_drift_var_is_the_markers_slopes_beyond_their_noise)
{
    enum { N = 200 };
    static posed_frame pf[N];
    const double slope[4] = {0.002, -0.001, 0.003, -0.004}, sd = 5e-5;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 41);
    memset(pf, 0, sizeof pf);
    double mt = 0.5 * (N - 1) / 1000.0, sxx = 0;
    for (int i = 0; i < N; i++) {
        pf[i].t = i / 1000.0;
        sxx += (pf[i].t - mt) * (pf[i].t - mt);
        for (int k = 0; k < 4; k++) {
            pf[i].pose.used[k] = !(k == 3 && i % 5 == 0);
            pf[i].pose.residual_v[k] = icv_v3(slope[k] * (pf[i].t - 0.1), gsl_ran_gaussian(rng, sd), 0);
        }
    }
    gsl_rng_free(rng);
    double var[3];
    analysis_marker_drift_var(pf, 0, N - 1, var);
    printf("     drift v sd %.4g %.4g %.4g m/s (x: %.4g exact)\n", sqrt(var[0]), sqrt(var[1]), sqrt(var[2]),
           sqrt(7.5e-6));
    ASSERT_NEAR(var[0], 7.5e-6, 7.5e-18);
    ASSERT(var[1] >= 0 && var[1] < sd * sd / sxx, "y: %.3g m^2/s^2, one slope's noise %.3g", var[1], sd * sd / sxx);
    ASSERT(var[2] == 0, "z: %.3g", var[2]);
    analysis_marker_drift_var(pf, 10, 13, var); /* 4 frames: no slope to speak of */
    ASSERT(var[0] == 0 && var[1] == 0 && var[2] == 0, "4 frames: %.3g %.3g %.3g", var[0], var[1], var[2]);
}

/* The box of impact_scenario.h at 1000 fps, 0.2 s each side of the impact, g
 * given, white noise 0.02 mm; each marker drifts along a line in time through
 * the whole clip, a part common to the markers and one of its own, each axis's
 * slope drawn per seed (sd 3 mm/s each; 0.6 mm over the clip). The sides' v errors
 * are the common slope plus the mean of the own ones (fitted as the centre's);
 * the window's residuals do not show them, its v against the whole flight's is
 * the same line. Over 20 seeds at most 10% of the 120 v components beyond 3
 * sigma and a median |pull| of 0.45-1.0 (0.67 for honest Gaussian sigmas): 9
 * of 120 and 0.63 measured (RMS 1.60: four markers' slopes are a rough measure,
 * and the residuals keep 3/4 of the own drift's variance where the centre takes
 * 5/4); without the markers' drift 20 of 120, 0.92 and RMS 4.68: the test fails
 * there. */
TEST(test_vsigma_markers_drifting_slowly_widens_v_sigma_g_given)
{
    enum { SEEDS = 20 };
    scenario s;
    make_scenario(&s, 0);
    const double slope_sd = 0.003; /* m/s */
    int beyond = 0, n = 0;
    double p2 = 0, ap[6 * SEEDS];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    for (int seed = 0; seed < SEEDS; seed++) {
        analysis_tracks tr;
        sample_at(&s, s.t_star - 0.2, s.t_star + 0.2, 1000.0, 2e-5, 2100 + (unsigned long)seed, &tr);
        gsl_rng_set(rng, 8100 + (unsigned long)seed);
        icv_vec3 common = icv_v3(gsl_ran_gaussian(rng, slope_sd), gsl_ran_gaussian(rng, slope_sd),
                                 gsl_ran_gaussian(rng, slope_sd));
        for (int m = 0; m < s.n_markers; m++) {
            icv_vec3 own = icv_v3(gsl_ran_gaussian(rng, slope_sd), gsl_ran_gaussian(rng, slope_sd),
                                  gsl_ran_gaussian(rng, slope_sd));
            icv_vec3 b = icv_v3_add(common, own);
            for (int i = 0; i < tr.n_frames; i++)
                tr.pos[i * s.n_markers + m] =
                    icv_v3_add(tr.pos[i * s.n_markers + m], icv_v3_scale(b, tr.t[i] - tr.t[0]));
        }
        double pulls[2][3];
        icv_err err = {0};
        int rc = measure_v_pulls(&s, &tr, pulls, &err);
        ASSERT(rc == 0, "seed %d: %s", seed, err.msg);
        if (rc)
            break;
        for (int c = 0; c < 6; c++) { /* both sides, every axis */
            double pull = pulls[c / 3][c % 3];
            beyond += fabs(pull) > 3;
            p2 += pull * pull;
            ap[n++] = fabs(pull);
        }
    }
    gsl_rng_free(rng);
    gsl_sort(ap, 1, (size_t)n);
    double med = n ? gsl_stats_median_from_sorted_data(ap, 1, (size_t)n) : 0;
    printf("     v over %d seeds: %d of %d components beyond 3 sigma, median |pull| %.2f, RMS %.2f\n", SEEDS, beyond,
           n, med, n ? sqrt(p2 / n) : 0);
    ASSERT(n == 6 * SEEDS && beyond <= n / 10, "%d of %d v components beyond 3 sigma (at most %d)", beyond, n, n / 10);
    ASSERT(med >= 0.45 && med <= 1.0, "median |pull| %.2f outside 0.45-1.0", med);
}
