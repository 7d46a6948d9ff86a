/* test_flight_slow_error.c: the slow track error in gravity's noise model
 * (analysis/flight_slow_error.c). A ball's two flights of 150 frames at 1000 fps
 * around a bounce, g estimated from both, each side fitted over its whole flight
 * given that g (a grown window): their centres carry white noise and, per flight
 * and axis, a smooth error sum_k a_k P_k(x) of Legendre orders 0-6 (x over the
 * flight in [-1, 1]), a_k drawn with one sd. Its orders 0-2 are in g and the
 * sides' v and in no residual. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "tests/harness.h"

#define NF 302
#define CAND 151
#define TRIALS 300

static const icv_vec3 V_IN = {0.4, -2.0, 0.1}, V_OUT = {0.3, 1.2, 0.08};

static void truth_at(double t, double t_c, icv_vec3 g, icv_vec3 *p)
{
    double tau = t - t_c;
    icv_vec3 v = tau < 0 ? V_IN : V_OUT;
    *p = icv_v3_add(icv_v3_add(icv_v3(0, 0.02, 0), icv_v3_scale(v, tau)), icv_v3_scale(g, 0.5 * tau * tau));
}

static double legendre(int k, double x)
{
    double p0 = 1, p1 = x;
    if (k == 0)
        return 1;
    for (int j = 1; j < k; j++) {
        double p2 = ((2 * j + 1) * x * p1 - j * p0) / (j + 1);
        p0 = p1;
        p1 = p2;
    }
    return p1;
}

/* frames lo..hi: white noise of sd `white` per axis, and a slow error of Legendre
 * amplitude sd `slow` per order 0-6 and axis */
static void add_errors(gsl_rng *rng, posed_frame *pf, int lo, int hi, double white, double slow)
{
    double a[7][3];
    for (int k = 0; k < 7; k++)
        for (int c = 0; c < 3; c++)
            a[k][c] = gsl_ran_gaussian(rng, slow);
    double tm = 0.5 * (pf[lo].t + pf[hi].t), h = 0.5 * (pf[hi].t - pf[lo].t);
    for (int i = lo; i <= hi; i++) {
        double x = (pf[i].t - tm) / h, e[3] = {0, 0, 0};
        for (int k = 0; k < 7; k++)
            for (int c = 0; c < 3; c++)
                e[c] += a[k][c] * legendre(k, x);
        pf[i].pose.p = icv_v3_add(pf[i].pose.p, icv_v3(e[0] + gsl_ran_gaussian(rng, white),
                                                       e[1] + gsl_ran_gaussian(rng, white),
                                                       e[2] + gsl_ran_gaussian(rng, white)));
    }
}

/* The RMS pulls of g (3), v_pre and v_post (3 each) over TRIALS draws with the
 * slow error of sd `slow`, with the model's slow term (rms_with) and without it
 * (rms_without); *fired: the share of flights in which the slow term was found */
static int slow_error_pulls(double slow, double rms_with[9], double rms_without[9], double *fired)
{
    const double dt = 1e-3, t_c = CAND * dt, white = 5e-5;
    const icv_vec3 g = icv_v3(0.3, -9.79, 0.2);
    analysis_body body = {.mass = 0.05, .tmpl = {.point = 1, .n_markers = 1}}; /* a ball: no rotation fitted */
    static posed_frame pf[NF];
    memset(pf, 0, sizeof pf);
    int cand[1] = {CAND}, n_fired = 0;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    analysis_flight_noise nz;
    if (!rng || analysis_flight_noise_alloc(&nz, NF)) {
        gsl_rng_free(rng);
        return -1;
    }
    double s_with[9] = {0}, s_without[9] = {0};
    icv_err err = {0};
    int rc = 0;
    for (int k = 0; k < TRIALS && rc == 0; k++) {
        for (int i = 0; i < NF; i++) {
            pf[i].t = (i + 0.5) * dt;
            truth_at(pf[i].t, t_c, g, &pf[i].pose.p);
            pf[i].pose.R = icv_m3_identity();
        }
        add_errors(rng, pf, 0, CAND - 1, white, slow);
        add_errors(rng, pf, CAND, NF - 1, white, slow);
        icv_vec3 gh, gsd;
        double gcov[3][3];
        side_fit pre = {0}, post = {0};
        /* the sides' window test against 1 mm: every trial fits the whole flights */
        if ((rc = analysis_gravity_from_flight_noise(pf, NF, NULL, cand, 1, white, &gh, &gsd, gcov, NULL, &nz, &err)) ||
            (rc = analysis_side_fit(pf, 0, CAND - 2, t_c, &gh, &body, 1e-3, 0, &pre, &err)) ||
            (rc = analysis_side_fit(pf, CAND + 1, NF - 1, t_c, &gh, &body, 1e-3, 1, &post, &err)))
            break;
        for (int sg = 0; sg < nz.n_seg; sg++)
            n_fired += nz.slow_var[sg][0] > 0;
        double x[9] = {gh.x - g.x, gh.y - g.y, gh.z - g.z, pre.v.x - V_IN.x, pre.v.y - V_IN.y,
                       pre.v.z - V_IN.z, post.v.x - V_OUT.x, post.v.y - V_OUT.y, post.v.z - V_OUT.z};
        int ix[9] = {0, 1, 2, 6, 7, 8, 12, 13, 14};
        double cov[15][15];
        for (int with = 1; with >= 0 && rc == 0; with--) {
            if (!with)
                memset(nz.slow_var, 0, sizeof nz.slow_var);
            rc = analysis_flight_covariance(pf, &nz, &pre, &post, cov);
            for (int q = 0; q < 9 && rc == 0; q++)
                (with ? s_with : s_without)[q] += x[q] * x[q] / cov[ix[q]][ix[q]] / TRIALS;
        }
    }
    for (int q = 0; q < 9; q++)
        rms_with[q] = sqrt(s_with[q]), rms_without[q] = sqrt(s_without[q]);
    *fired = (double)n_fired / (2.0 * TRIALS);
    analysis_flight_noise_free(&nz);
    gsl_rng_free(rng);
    return rc;
}

static const char *const NAME[9] = {"g.x", "g.y", "g.z", "v_pre.x", "v_pre.y", "v_pre.z",
                                    "v_post.x", "v_post.y", "v_post.z"};

/* A slow error of 30 um per order against 50 um of white noise per frame: its
 * orders 0-2 move g by ~0.05 m/s^2 and a whole flight's v by ~1.5 mm/s, 5-10
 * times what the white noise gives. Without the slow term the pulls' RMS is
 * several times 1 (asserted above 2); with it, within 0.75-1.35 on every one of
 * the 9 quantities (its variance estimated per flight from 12 coefficients, so
 * the pulls are Student-like, and a sample RMS over 300 trials scatters by ~5%). */
TEST(test_flight_slow_error_keeps_g_and_whole_flight_pulls_honest)
{
    double with[9], without[9], fired;
    int rc = slow_error_pulls(3e-5, with, without, &fired);
    ASSERT(rc == 0, "the fits failed or out of memory");
    if (rc)
        return;
    printf("     slow error 30 um per order, white 50 um: found in %.0f%% of the flights\n", 100 * fired);
    double lo = INFINITY, hi = 0, worst_without = 0;
    for (int q = 0; q < 9; q++) {
        printf("     %-9s RMS pull %.2f with the slow term, %.2f without\n", NAME[q], with[q], without[q]);
        lo = fmin(lo, with[q]);
        hi = fmax(hi, with[q]);
        worst_without = fmax(worst_without, without[q]);
    }
    ASSERT(worst_without > 2, "without the slow term the worst RMS pull is %.2f: the test shows nothing",
           worst_without);
    ASSERT(lo >= 0.75 && hi <= 1.35, "RMS pulls with the slow term %.2f-%.2f outside 0.75-1.35", lo, hi);
}

/* On white noise alone the slow term stays out (its chi-square test at 99% on
 * each of 3 axes: ~3% of the flights; asserted at most 6%) and the pulls are
 * those of the AR(1) modes (within 0.85-1.15 on every quantity). */
TEST(test_flight_slow_error_stays_out_of_white_noise)
{
    double with[9], without[9], fired;
    int rc = slow_error_pulls(0, with, without, &fired);
    ASSERT(rc == 0, "the fits failed or out of memory");
    if (rc)
        return;
    double lo = INFINITY, hi = 0;
    for (int q = 0; q < 9; q++)
        lo = fmin(lo, with[q]), hi = fmax(hi, with[q]);
    printf("     white noise only: slow term found in %.1f%% of the flights; RMS pulls %.2f-%.2f\n", 100 * fired, lo, hi);
    ASSERT(fired <= 0.06, "the slow term found in %.1f%% of white noise's flights", 100 * fired);
    ASSERT(lo >= 0.85 && hi <= 1.15, "RMS pulls on white noise %.2f-%.2f outside 0.85-1.15", lo, hi);
}
