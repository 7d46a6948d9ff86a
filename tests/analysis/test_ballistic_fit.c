/* test_ballistic_fit.c: the free-flight fit of the centre of mass
 * (analysis/ballistic_fit.c) against parabolas chosen by the test. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/analysis.h"
#include "tests/harness.h"

#define N 40

static void parabola(double t0, double dt, icv_vec3 p0, icv_vec3 v, icv_vec3 g, double t_ref, double *t, icv_vec3 *p)
{
    for (int i = 0; i < N; i++) {
        t[i] = t0 + i * dt;
        double tau = t[i] - t_ref;
        p[i] = icv_v3_add(icv_v3_add(p0, icv_v3_scale(v, tau)), icv_v3_scale(g, 0.5 * tau * tau));
    }
}

TEST(test_ballistic_fit_exact_on_a_noiseless_parabola_with_given_g)
{
    double t[N];
    icv_vec3 p[N], g = icv_v3(0, -9.81 * cos(0.7854), -9.81 * sin(0.7854)); /* a 45 deg slope */
    icv_vec3 p0 = icv_v3(0.01, 0.2, -0.03), v = icv_v3(0.3, -1.9, 0.05);
    parabola(0.0, 1.0 / 120, p0, v, g, 0.3, t, p);
    analysis_flight ph = {N, t, p, NULL, 0.3};
    analysis_ballistic fit;
    icv_err err = {0};
    ASSERT(analysis_ballistic_fit(&ph, 1, &g, &fit, &err) == 0, "%s", err.msg);
    /* rounding of a 40-row least-squares problem: 1e-10 */
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(fit.p0[0], p0)), 0, 1e-10);
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(fit.v[0], v)), 0, 1e-10);
    ASSERT_NEAR(fit.g.y, g.y, 0);
}

TEST(test_ballistic_fit_shares_gravity_between_flight_phases)
{
    double t1[N], t2[N];
    icv_vec3 p1[N], p2[N], g = icv_v3(0.4, -9.79, 0.2);
    parabola(0.0, 1.0 / 240, icv_v3(0, 0.3, 0), icv_v3(0.5, -1.0, 0.1), g, 0.2, t1, p1);
    parabola(0.25, 1.0 / 240, icv_v3(0.1, 0.0, 0.02), icv_v3(0.4, 0.8, 0.1), g, 0.25, t2, p2);
    analysis_flight ph[2] = {{N, t1, p1, NULL, 0.2}, {N, t2, p2, NULL, 0.25}};
    analysis_ballistic fit;
    icv_err err = {0};
    ASSERT(analysis_ballistic_fit(ph, 2, NULL, &fit, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(fit.g, g)), 0, 1e-8); /* rounding, amplified by 1/tau^2 */
    ASSERT_NEAR(fit.v[1].y, 0.8, 1e-9);
    ASSERT_NEAR(fit.p0[0].y, 0.3, 1e-10);
}

TEST(test_ballistic_fit_reported_sigma_matches_the_scatter)
{
    /* Monte Carlo: over 400 noisy repeats, the spread of the fitted v_y must agree
     * with the reported v_sd (the standard deviation of a sd estimate from 400
     * samples is 1/sqrt(800) = 3.5%; 12% is over 3 of those), and chi^2/dof with 1. */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    const double sigma = 3e-4;
    double t[N], s[N];
    icv_vec3 p[N], clean[N], g = icv_v3(0, -9.81, 0);
    parabola(0, 1.0 / 120, icv_v3(0, 0.2, 0), icv_v3(0.2, -2, 0), g, 0.33, t, clean);
    for (int i = 0; i < N; i++)
        s[i] = sigma;
    int trials = th_sanitized() ? 150 : 400;
    double sum = 0, sum2 = 0, reported = 0, chi = 0;
    for (int k = 0; k < trials; k++) {
        for (int i = 0; i < N; i++)
            p[i] = icv_v3_add(clean[i], icv_v3(gsl_ran_gaussian(rng, sigma), gsl_ran_gaussian(rng, sigma),
                                               gsl_ran_gaussian(rng, sigma)));
        analysis_flight ph = {N, t, p, s, 0.33};
        analysis_ballistic fit;
        icv_err err = {0};
        ASSERT(analysis_ballistic_fit(&ph, 1, NULL, &fit, &err) == 0, "%s", err.msg);
        sum += fit.v[0].y;
        sum2 += fit.v[0].y * fit.v[0].y;
        reported = fit.v_sd[0].y;
        chi += fit.chi2_dof;
    }
    gsl_rng_free(rng);
    double mean = sum / trials, sd = sqrt(sum2 / trials - mean * mean);
    ASSERT_NEAR(mean, -2.0, 4 * reported / sqrt(trials)); /* unbiased */
    ASSERT_NEAR(sd / reported, 1.0, th_sanitized() ? 0.2 : 0.12);
    ASSERT_NEAR(chi / trials, 1.0, 0.05); /* mean of 400 reduced chi^2 with 111 dof */
}

TEST(test_ballistic_fit_refuses_too_few_samples)
{
    double t[2] = {0, 0.01};
    icv_vec3 p[2] = {{0, 0, 0}, {0, -0.01, 0}};
    analysis_flight ph = {2, t, p, NULL, 0};
    analysis_ballistic fit;
    icv_err err = {0};
    ASSERT(analysis_ballistic_fit(&ph, 1, NULL, &fit, &err) == ICV_EINVAL, "accepted 2 samples for 3 unknowns");
    ASSERT_STR_CONTAINS(err.msg, "needs at least 4 samples");
}
