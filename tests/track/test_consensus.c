/* test_consensus.c: estimates that each carry a systematic error of their own
 * (track/consensus.c), the sub-frame sync's pairs of tracks. */
#include <math.h>

#include "tests/harness.h"
#include "track/consensus_internal.h"

TEST(test_consensus_of_estimates_within_their_sigmas_is_their_median_with_the_mean_s_sigma)
{
    track_estimate e[3] = {{0.9, 0.1, 0}, {1.0, 0.1, 0}, {1.1, 0.1, 0}};
    double x, sigma, tau;
    /* Q = 2 = k - 1: no scatter beyond the sigmas, so tau = 0 and the sigma is the
       weighted mean's, 0.1 / sqrt(3); the median of three equal weights is the middle */
    ASSERT_EQ_INT(track_consensus(e, 3, 0, 0, &x, &sigma, &tau), 3);
    ASSERT_NEAR(x, 1.0, 1e-12);
    ASSERT_NEAR(tau, 0, 1e-6); /* Q - (k - 1) is 0 to rounding */
    ASSERT_NEAR(sigma, 0.1 / sqrt(3), 1e-12);
}

TEST(test_consensus_follows_the_agreeing_estimates_not_the_sharpest_one)
{
    /* three agree within 0.02; one claims 0.01 and is 2 away: a weighted mean gives 2.94 */
    track_estimate e[4] = {{1.0, 0.1, 0}, {1.02, 0.1, 0}, {0.98, 0.1, 0}, {3.0, 0.01, 0}};
    double x, sigma, tau;
    ASSERT(track_consensus(e, 4, 0, 0, &x, &sigma, &tau) >= 3, "estimates kept");
    /* the median lands on one of the three (their spread, 0.02) */
    ASSERT_NEAR(x, 1.0, 0.02 + 1e-12);
    /* DerSimonian-Laird: tau^2 = (Q - 3) / (S1 - S2 / S1) = 1.975 for these four, so every
       weight is ~1 / 1.98 and the sigma ~0.70 says the estimates disagree */
    ASSERT_NEAR(tau, sqrt(1.975), 0.01);
    ASSERT(sigma > 0.6 && sigma < 0.8, "sigma %g", sigma);
}

TEST(test_consensus_drops_an_estimate_beyond_three_sigmas_and_keeps_the_prior_s_weight)
{
    /* ten agreeing estimates and one 1 away at 0.05 (20 sigmas). With it, tau = 0.30 and
       3 sqrt(0.05^2 + tau^2) = 0.905 < 0.995: dropped (with seven or fewer estimates one
       outlier widens tau past its own distance: the median then does the work). The
       prior 0.3 +- 0.41 counts with its own weight, never widened by tau. */
    track_estimate e[11];
    double xs[10] = {-0.04, -0.03, -0.02, -0.01, 0, 0.005, 0.01, 0.02, 0.03, 0.04};
    for (int i = 0; i < 10; i++)
        e[i] = (track_estimate){xs[i], 0.05, 0};
    e[10] = (track_estimate){1.0, 0.05, 0};
    double x, sigma, tau;
    ASSERT_EQ_INT(track_consensus(e, 11, 0.3, 0.41, &x, &sigma, &tau), 10);
    ASSERT_EQ_INT(e[10].kept, 0);
    /* the weighted median: half the weight (2003 of 4006) is reached at 0.005 */
    ASSERT_NEAR(x, 0.005, 1e-12);
    ASSERT_NEAR(tau, 0, 1e-12); /* Q = 2.9 < 10 without it */
    ASSERT_NEAR(sigma, 1 / sqrt(10 / 0.0025 + 1 / (0.41 * 0.41)), 1e-12);
}

TEST(test_consensus_of_nothing_is_the_prior_or_an_error)
{
    double x, sigma, tau;
    ASSERT_EQ_INT(track_consensus(NULL, 0, 0, 0, &x, &sigma, &tau), -1);
    ASSERT_EQ_INT(track_consensus(NULL, 0, 0.25, 0.41, &x, &sigma, &tau), 0);
    ASSERT_NEAR(x, 0.25, 1e-12);
    ASSERT_NEAR(sigma, 0.41, 1e-12);
}
