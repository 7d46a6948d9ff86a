/* test_ballistic_fit.c: the free-flight fit of the centre of mass
 * (analysis/ballistic_fit.c) against parabolas chosen by the test. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
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

TEST(test_gravity_covariance_follows_anisotropic_correlated_noise)
{
    /* Two flight phases at 240 fps, the sample sigma given isotropic (1e-4 m, as
     * the track stage reports it), while the noise is 2e-4 m and correlated 0.3
     * from frame to frame along d1 = (1, -1, 0)/sqrt 2, 0.5e-4 m white along d2 =
     * (1, 1, 0)/sqrt 2 and 1e-4 m white along z (a stereo rig's depth is worse than
     * its other axes). g's covariance as gravity auto makes it
     * (analysis_gravity_from_flight: the sandwich of g's weights under the noise
     * its residuals show, flight_noise.c): the RMS pull of g along each direction
     * within 0.8-1.25 over 300 seeds (the sample RMS scatters by ~4%); and every
     * direction nearer 1 than with the isotropic sigma (the sigma given, inflated
     * by the correlation pooled over the axes: 2.52, 0.42, 0.80). Before the
     * sandwich (design factor times the inflated residual scatter) the pulls were
     * 1.24, 0.96, 0.90 (now 1.13, 0.89, 0.84): the residuals' own scatter and lag-1 correlation
     * understate correlated noise. */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 5);
    const double s0 = 1e-4, sd1 = 2e-4, sd2 = 0.5e-4, sdz = 1e-4, rho = 0.3;
    const icv_vec3 d[3] = {{M_SQRT1_2, -M_SQRT1_2, 0}, {M_SQRT1_2, M_SQRT1_2, 0}, {0, 0, 1}};
    icv_vec3 g = icv_v3(0, -9.81, 0);
    double t1[N], t2[N], s[N];
    icv_vec3 c1[N], c2[N], p1[N], p2[N], r[2 * N];
    parabola(0.0, 1.0 / 240, icv_v3(0, 0.3, 0), icv_v3(0.5, -1.0, 0.1), g, 0.2, t1, c1);
    parabola(0.25, 1.0 / 240, icv_v3(0.1, 0.0, 0.02), icv_v3(0.4, 0.8, 0.1), g, 0.25, t2, c2);
    for (int i = 0; i < N; i++)
        s[i] = s0;
    /* the posed frames: phase 1, three frames round a contact candidate (left out
     * of the gravity fit), phase 2 */
    enum { NP = 2 * N + 3 };
    posed_frame pf[NP];
    memset(pf, 0, sizeof pf);
    int cand[1] = {N + 1};
    int trials = th_sanitized() ? 60 : 300;
    double z2[3] = {0}, z2_iso[3] = {0};
    for (int k = 0; k < trials; k++) {
        double a1 = gsl_ran_gaussian(rng, sd1); /* AR(1) along d1, stationary start */
        for (int i = 0; i < 2 * N; i++) {
            if (i)
                a1 = rho * a1 + gsl_ran_gaussian(rng, sd1 * sqrt(1 - rho * rho));
            icv_vec3 e = icv_v3_add(icv_v3_add(icv_v3_scale(d[0], a1), icv_v3_scale(d[1], gsl_ran_gaussian(rng, sd2))),
                                    icv_v3_scale(d[2], gsl_ran_gaussian(rng, sdz)));
            if (i < N)
                p1[i] = icv_v3_add(c1[i], e);
            else
                p2[i - N] = icv_v3_add(c2[i - N], e);
        }
        for (int i = 0; i < NP; i++) {
            int j = i < N ? i : i < N + 3 ? -1 : i - N - 3;
            pf[i].t = i < N ? t1[i] : j < 0 ? t1[N - 1] + (t2[0] - t1[N - 1]) * (i - N + 1) / 4 : t2[j];
            pf[i].pose.p = i < N ? p1[i] : j < 0 ? c1[N - 1] : p2[j];
            pf[i].pose.R = icv_m3_identity();
        }
        icv_vec3 gh, gsd;
        double gcov[3][3];
        icv_err err = {0};
        ASSERT(analysis_gravity_from_flight(pf, NP, cand, 1, s0, &gh, &gsd, gcov, NULL, &err) == 0, "%s", err.msg);
        /* the isotropic sigma, for comparison: the joint fit's over every frame,
         * inflated (gravity auto may leave out an end frame off the fit) */
        analysis_flight ph[2] = {{N, t1, p1, s, 0.2}, {N, t2, p2, s, 0.25}};
        analysis_ballistic fit;
        ASSERT(analysis_ballistic_fit(ph, 2, NULL, &fit, &err) == 0, "%s", err.msg);
        for (int q = 0; q < 2; q++)
            for (int i = 0; i < N; i++) {
                double tau = ph[q].t[i] - ph[q].t_ref;
                r[q * N + i] = icv_v3_sub(ph[q].p[i], icv_v3_add(icv_v3_add(fit.p0[q], icv_v3_scale(fit.v[q], tau)),
                                                                  icv_v3_scale(fit.g, 0.5 * tau * tau)));
            }
        double iso = fit.g_sd.x * fit.g_sd.x * analysis_correlation_inflation(r, 2 * N);
        icv_vec3 dg = icv_v3_sub(gh, g);
        for (int q = 0; q < 3; q++) {
            icv_vec3 Cd = icv_v3(icv_v3_dot(icv_v3(gcov[0][0], gcov[0][1], gcov[0][2]), d[q]),
                                 icv_v3_dot(icv_v3(gcov[1][0], gcov[1][1], gcov[1][2]), d[q]),
                                 icv_v3_dot(icv_v3(gcov[2][0], gcov[2][1], gcov[2][2]), d[q]));
            double e = icv_v3_dot(dg, d[q]);
            z2[q] += e * e / icv_v3_dot(d[q], Cd);
            z2_iso[q] += e * e / iso;
        }
    }
    gsl_rng_free(rng);
    const char *name[3] = {"d1 (correlated, 2e-4)", "d2 (white, 0.5e-4)", "z (white, 1e-4)"};
    double rms[3];
    for (int q = 0; q < 3; q++) {
        rms[q] = sqrt(z2[q] / trials);
        printf("     g's RMS pull along %-22s %.2f (isotropic sigma: %.2f)\n", name[q], rms[q], sqrt(z2_iso[q] / trials));
    }
    for (int q = 0; q < 3; q++) {
        double hi = 1.25 + (th_sanitized() ? 0.15 : 0); /* 60 seeds: ~9% */
        ASSERT(rms[q] > (th_sanitized() ? 0.7 : 0.8) && rms[q] < hi, "along %s: RMS pull %.2f", name[q], rms[q]);
        ASSERT(fabs(log(rms[q])) < fabs(log(sqrt(z2_iso[q] / trials))), "along %s: RMS pull %.2f, isotropic %.2f",
               name[q], rms[q], sqrt(z2_iso[q] / trials));
    }
}
