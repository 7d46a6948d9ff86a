/* test_slide_incline_cov.c: a slide's incline and |g| from one flight's g with its
 * full covariance (issue #11): theta's, |g|'s and mu_k's first-order sigmas
 * (analysis_coefficient_slide_after) against g drawn from that covariance. */
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/coefficients.h"
#include "tests/harness.h"

TEST(test_slide_incline_sigma_from_full_gravity_covariance)
{
    /* a 20 deg incline whose downhill direction is 0.4 rad off the surface's x axis
       (all three of g's components enter theta), mu_k 0.25; one marker sliding from
       0.3 m/s at t = 0 for 0.5 s at 120 fps, 0.1 mm of noise */
    const double th = 20 * M_PI / 180, phi = 0.4, mu = 0.25, G = 9.81;
    icv_vec3 d = icv_v3(cos(phi), 0, sin(phi));
    icv_vec3 g = icv_v3(G * sin(th) * d.x, -G * cos(th), G * sin(th) * d.z);
    double a = G * (sin(th) - mu * cos(th));
    analysis_body b = {0};
    icv_err err = {0};
    const icv_vec3 mk = {0, 0, 0};
    ASSERT(analysis_template_init(&b.tmpl, &mk, 1, &err) == 0, "%s", err.msg);
    analysis_tracks tr;
    int n = 61;
    ASSERT(analysis_tracks_alloc(&tr, n, 1, 0, &err) == 0, "%s", err.msg);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 3);
    for (int i = 0; i < n; i++) {
        double t = i / 120.0, s = 0.3 * t + 0.5 * a * t * t;
        tr.frame[i] = i;
        tr.t[i] = t;
        tr.pos[i] = icv_v3(s * d.x + gsl_ran_gaussian(rng, 1e-4), 0.02 + gsl_ran_gaussian(rng, 1e-4),
                           s * d.z + gsl_ran_gaussian(rng, 1e-4));
        tr.seen[i] = 1;
    }
    /* g's covariance as one flight gives it: axes strongly correlated (the fit's
       error follows the track errors, larger along a camera's line of sight); the
       correlations -0.8 (x, y), 0.5 (x, z), -0.4 (y, z) */
    const double sd[3] = {0.02, 0.015, 0.01}, r[3][3] = {{1, -0.8, 0.5}, {-0.8, 1, -0.4}, {0.5, -0.4, 1}};
    double cov[3][3];
    gsl_matrix *L = gsl_matrix_alloc(3, 3);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            gsl_matrix_set(L, (size_t)i, (size_t)j, cov[i][j] = r[i][j] * sd[i] * sd[j]);
    analysis_coefficient c;
    int rc = analysis_coefficient_slide_after(&tr, &b, g, (const double(*)[3])cov, 2e-4, 0, &c, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_NEAR(c.value, mu, 0.01); /* the fit itself: 0.1 mm of noise over 60 frames */
    /* g drawn from its covariance, a held at the fitted value: theta, |g| and mu_k
       scatter as the first order says (N = 40000 draws: each sd's sampling error
       0.35%; the second-order terms, (sigma_g / g)^2 ~ 4e-6, far below; 2%) */
    ASSERT(gsl_linalg_cholesky_decomp1(L) == 0, "covariance not positive definite");
    enum { N = 40000 };
    static double thv[N], gv[N], muv[N];
    gsl_vector *mean = gsl_vector_alloc(3), *x = gsl_vector_alloc(3);
    gsl_vector_set(mean, 0, g.x), gsl_vector_set(mean, 1, g.y), gsl_vector_set(mean, 2, g.z);
    for (int i = 0; i < N; i++) {
        gsl_ran_multivariate_gaussian(rng, mean, L, x);
        double gx = gsl_vector_get(x, 0), gy = gsl_vector_get(x, 1), gz = gsl_vector_get(x, 2);
        thv[i] = atan2(hypot(gx, gz), -gy);
        gv[i] = sqrt(gx * gx + gy * gy + gz * gz);
        muv[i] = tan(thv[i]) - c.a / (gv[i] * cos(thv[i]));
    }
    gsl_vector_free(mean);
    gsl_vector_free(x);
    gsl_matrix_free(L);
    gsl_rng_free(rng);
    double sth = gsl_stats_sd(thv, 1, N), sg = gsl_stats_sd(gv, 1, N), smu = gsl_stats_sd(muv, 1, N);
    /* mu_k's sigma without a's part (a's: the slide's own frames, independent) */
    double a_part = c.a_sd / (G * cos(c.theta)), smu_g = sqrt(c.sd * c.sd - a_part * a_part);
    /* what the diagonal alone gave (the covariance between axes left out) */
    double gt = hypot(g.x, g.z), sgt = hypot(g.x * sd[0], g.z * sd[2]) / gt;
    double th_diag = hypot(g.y * sgt, gt * sd[1]) / (G * G);
    printf("     theta sd %.3e (drawn %.3e; diagonal only %.3e), |g| sd %.4f (drawn %.4f), mu_k's from g %.3e "
           "(drawn %.3e)\n",
           c.theta_sd, sth, th_diag, c.g_norm_sd, sg, smu_g, smu);
    ASSERT_NEAR(c.theta_sd, sth, 0.02 * sth);
    ASSERT_NEAR(c.g_norm_sd, sg, 0.02 * sg);
    ASSERT_NEAR(smu_g, smu, 0.02 * smu);
}
