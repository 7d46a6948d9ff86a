/* test_flight_noise.c: the joint covariance of the estimated g and both sides'
 * fitted states (analysis/flight_noise.c) against a Monte Carlo of the fits
 * themselves (issue #9 item 5: "check the propagation by Monte Carlo"): a ball's
 * flight before and after a bounce, its centre's errors correlated from frame to
 * frame (AR(1), rho 0.6) and anisotropic, as a stereo rig's tracks are. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "tests/harness.h"

#define NF 80
#define TRIALS 400

/* the truth: a drop at 240 fps bouncing at frame 40 (t_c), e 0.6 */
static void truth_at(double t, double t_c, icv_vec3 g, icv_vec3 *p)
{
    icv_vec3 p_c = icv_v3(0, 0.02, 0), v_in = icv_v3(0.4, -2.0, 0.1), v_out = icv_v3(0.3, 1.2, 0.08);
    double tau = t - t_c;
    icv_vec3 v = tau < 0 ? v_in : v_out;
    *p = icv_v3_add(icv_v3_add(p_c, icv_v3_scale(v, tau)), icv_v3_scale(g, 0.5 * tau * tau));
}

TEST(test_flight_covariance_matches_the_fits_monte_carlo)
{
    const double dt = 1.0 / 240, t_c = 40 * dt, rho = 0.6;
    const icv_vec3 g = icv_v3(0.5, -9.79, 0.3);
    /* noise: 0.2 mm along d1 (a depth direction), 0.05 mm along d2, 0.1 mm along z */
    const icv_vec3 d1 = icv_v3_unit(icv_v3(0.6, 0.8, 0)), d2 = icv_v3(-0.8, 0.6, 0), d3 = icv_v3(0, 0, 1);
    const double s1 = 2e-4, s2 = 0.5e-4, s3 = 1e-4;
    analysis_body body;
    memset(&body, 0, sizeof body);
    body.tmpl.point = 1; /* a ball's single marker: no rotation fitted */
    body.tmpl.n_markers = 1;
    body.mass = 0.05;
    posed_frame pf[NF];
    memset(pf, 0, sizeof pf);
    int cand[1] = {40};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    /* x = (g, v_pre, v_post, v_pre.y - v_post.y): what e and the loss follow */
    enum { NQ = 10 };
    double sum[NQ] = {0}, sum2[NQ][NQ] = {{0}}, pred[NQ][NQ] = {{0}}, pull2[NQ] = {0};
    analysis_flight_noise nz;
    ASSERT(analysis_flight_noise_alloc(&nz, NF) == 0, "out of memory");
    icv_err err = {0};
    for (int k = 0; k < TRIALS; k++) {
        double e[3] = {0};
        for (int i = 0; i < NF; i++) {
            for (int a = 0; a < 3; a++) /* AR(1) with unit variance per direction */
                e[a] = rho * e[a] + sqrt(1 - rho * rho) * gsl_ran_gaussian_ziggurat(rng, 1.0);
            pf[i].t = i * dt;
            truth_at(pf[i].t, t_c, g, &pf[i].pose.p);
            pf[i].pose.p = icv_v3_add(pf[i].pose.p, icv_v3_add(icv_v3_scale(d1, s1 * e[0]),
                                                               icv_v3_add(icv_v3_scale(d2, s2 * e[1]),
                                                                          icv_v3_scale(d3, s3 * e[2]))));
            pf[i].pose.R = icv_m3_identity();
        }
        icv_vec3 gh, gsd;
        double gcov[3][3];
        ASSERT(analysis_gravity_from_flight_noise(pf, NF, NULL, cand, 1, 1e-4, &gh, &gsd, gcov, NULL, &nz, &err) == 0, "%s",
               err.msg);
        side_fit pre = {0}, post = {0};
        /* the sides' window test against 0.3 mm (above the largest sigma): the
         * windows stay as given, so that every trial fits the same frames */
        ASSERT(analysis_side_fit(pf, 10, 38, t_c, &gh, &body, 3e-4, 0, &pre, &err) == 0, "%s", err.msg);
        ASSERT(analysis_side_fit(pf, 42, 70, t_c, &gh, &body, 3e-4, 1, &post, &err) == 0, "%s", err.msg);
        ASSERT(pre.first == 10 && post.last == 70, "the windows were shortened: %d-%d, %d-%d", pre.first, pre.last,
               post.first, post.last);
        double cov[15][15];
        ASSERT(analysis_flight_covariance(pf, &nz, &pre, &post, cov) == 0, "out of memory");
        double x[NQ] = {gh.x, gh.y, gh.z, pre.v.x, pre.v.y, pre.v.z, post.v.x, post.v.y, post.v.z, pre.v.y - post.v.y};
        int ix[NQ] = {0, 1, 2, 6, 7, 8, 12, 13, 14, -1}; /* rows in cov */
        icv_vec3 vin = icv_v3(0.4, -2.0, 0.1), vout = icv_v3(0.3, 1.2, 0.08);
        double tx[NQ] = {g.x, g.y, g.z, vin.x, vin.y, vin.z, vout.x, vout.y, vout.z, vin.y - vout.y};
        for (int a = 0; a < NQ; a++) { /* the pulls with the noise as estimated from this trial's residuals */
            double c = ix[a] >= 0 ? cov[ix[a]][ix[a]] : cov[7][7] + cov[13][13] - 2 * cov[7][13];
            pull2[a] += (x[a] - tx[a]) * (x[a] - tx[a]) / c / TRIALS;
        }
        /* the sandwich itself, with the true noise */
        for (int sg = 0; sg < nz.n_seg; sg++) {
            nz.mode[sg][0] = (analysis_noise_mode){d1, s1 * s1, rho};
            nz.mode[sg][1] = (analysis_noise_mode){d2, s2 * s2, rho};
            nz.mode[sg][2] = (analysis_noise_mode){d3, s3 * s3, rho};
        }
        ASSERT(analysis_flight_covariance(pf, &nz, &pre, &post, cov) == 0, "out of memory");
        for (int a = 0; a < NQ; a++) {
            sum[a] += x[a];
            for (int b = 0; b < NQ; b++) {
                sum2[a][b] += x[a] * x[b];
                double c;
                if (ix[a] >= 0 && ix[b] >= 0)
                    c = cov[ix[a]][ix[b]];
                else if (ix[a] < 0 && ix[b] < 0)
                    c = cov[7][7] + cov[13][13] - 2 * cov[7][13];
                else {
                    int j = ix[a] < 0 ? ix[b] : ix[a];
                    c = cov[7][j] - cov[13][j];
                }
                pred[a][b] += c / TRIALS;
            }
        }
    }
    analysis_flight_noise_free(&nz);
    gsl_rng_free(rng);
    const char *name[NQ] = {"g.x", "g.y", "g.z", "v_pre.x", "v_pre.y", "v_pre.z", "v_post.x", "v_post.y", "v_post.z",
                            "v_pre.y - v_post.y"};
    printf("     %d trials, AR(1) rho %.1f: measured sd, the sandwich's with the true noise, their ratio;\n"
           "     the RMS pull with the noise estimated from each trial's residuals\n", TRIALS, rho);
    double worst = 1, worst_pull = 1;
    for (int a = 0; a < NQ; a++) {
        double m = sum[a] / TRIALS, var = sum2[a][a] / TRIALS - m * m, ratio = sqrt(var / pred[a][a]);
        double pull = sqrt(pull2[a]);
        printf("     %-20s %.3e  %.3e  %.2f   RMS pull %.2f\n", name[a], sqrt(var), sqrt(pred[a][a]), ratio, pull);
        if (fabs(log(ratio)) > fabs(log(worst)))
            worst = ratio;
        if (fabs(log(pull)) > fabs(log(worst_pull)))
            worst_pull = pull;
    }
    /* g's and the sides' errors correlate (the sides' fits take g_hat): the
     * measured correlation of g.y with v_pre.y and v_post.y against the predicted */
    for (int j = 4; j <= 7; j += 3) {
        double mg = sum[1] / TRIALS, mv = sum[j] / TRIALS;
        double c = (sum2[1][j] / TRIALS - mg * mv) / sqrt((sum2[1][1] / TRIALS - mg * mg) * (sum2[j][j] / TRIALS - mv * mv));
        double cp = pred[1][j] / sqrt(pred[1][1] * pred[j][j]);
        printf("     correlation of g.y with %s: measured %+.2f, predicted %+.2f\n", name[j], c, cp);
        /* 400 trials: a correlation's sampling sd ~0.05 at most; 0.15 is 3 of them */
        ASSERT(fabs(c - cp) < 0.15, "correlation of g.y with %s: measured %.2f, predicted %.2f", name[j], c, cp);
    }
    /* the sandwich is exact for its noise: 400 trials, a sd's sampling error 3.5%,
     * so within 0.9-1.1 (measured 0.97-1.04) */
    ASSERT(worst > 0.9 && worst < 1.1, "measured/predicted sd %.2f outside 0.9-1.1", worst);
    /* with the noise estimated per trial from ~30 residuals (its variance and
     * correlation corrected for what the fit takes up: measured 0.93-1.07; the
     * plain residual scatter and lag-1 correlation gave sds 20-35% small): RMS
     * pull within 0.85-1.15 */
    ASSERT(worst_pull > 0.85 && worst_pull < 1.15, "RMS pull %.2f outside 0.85-1.15", worst_pull);
}

TEST(test_flight_noise_short_phases_take_their_pooled_scatter_not_the_sigma_given)
{
    /* One camera at 30 pictures/s (issue #19's phone ball): 17 frames, a bounce
     * between frames 8 and 9, gravity's phases 7 frames each (4 degrees of freedom
     * per axis: too few for modes of their own), the centres' errors white, 0.05 mm
     * in the motion plane (the video's), the sigma given the 0.3 mm default. The
     * phases' pooled scatter, not the sigma given, is their noise: the RMS error /
     * sigma of g and both velocities is 1 (Student's t of 8 degrees of freedom,
     * scaled by sqrt(6 / 8): 400 trials, its sampling sd ~0.05, so 0.85-1.15;
     * measured 0.91: the phases are counted 3 parameters each, while they share
     * g, 6% conservative). Before: the sigma given, RMS pull 0.17 (the phone
     * study's 30 fps sigmas 3 times its errors). */
    enum { N30 = 17, T30 = 400 };
    const double dt = 1.0 / 30, t_c = 8.4 * dt, s = 5e-5;
    const icv_vec3 g = icv_v3(0, -9.81, 0);
    analysis_body body;
    memset(&body, 0, sizeof body);
    body.tmpl.point = 1;
    body.tmpl.n_markers = 1;
    body.mass = 0.05;
    posed_frame pf[N30];
    memset(pf, 0, sizeof pf);
    int cand[1] = {8};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    analysis_flight_noise nz;
    ASSERT(analysis_flight_noise_alloc(&nz, N30) == 0, "out of memory");
    icv_err err = {0};
    double pull2[3] = {0};
    for (int k = 0; k < T30; k++) {
        for (int i = 0; i < N30; i++) {
            pf[i].t = i * dt;
            truth_at(pf[i].t, t_c, g, &pf[i].pose.p);
            pf[i].pose.p.x += s * gsl_ran_gaussian_ziggurat(rng, 1.0);
            pf[i].pose.p.y += s * gsl_ran_gaussian_ziggurat(rng, 1.0);
            pf[i].pose.p.z = 0; /* one camera: the motion plane */
            pf[i].pose.R = icv_m3_identity();
        }
        icv_vec3 gh, gsd;
        double gcov[3][3];
        ASSERT(analysis_gravity_from_flight_noise(pf, N30, NULL, cand, 1, 3e-4, &gh, &gsd, gcov, NULL, &nz, &err) == 0,
               "%s", err.msg);
        side_fit pre = {0}, post = {0};
        ASSERT(analysis_side_fit(pf, 0, 8, t_c, &gh, &body, 3e-4, 0, &pre, &err) == 0, "%s", err.msg);
        ASSERT(analysis_side_fit(pf, 9, 16, t_c, &gh, &body, 3e-4, 1, &post, &err) == 0, "%s", err.msg);
        double cov[15][15];
        ASSERT(analysis_flight_covariance(pf, &nz, &pre, &post, cov) == 0, "out of memory");
        double d[3] = {gh.y - g.y, pre.v.y - -2.0, post.v.y - 1.2};
        int ix[3] = {1, 7, 13};
        for (int a = 0; a < 3; a++)
            pull2[a] += d[a] * d[a] / cov[ix[a]][ix[a]] / T30;
    }
    analysis_flight_noise_free(&nz);
    gsl_rng_free(rng);
    const char *name[3] = {"g.y", "v_pre.y", "v_post.y"};
    for (int a = 0; a < 3; a++) {
        printf("     30 fps, 7-frame phases, 0.05 mm white noise, 0.3 mm given: %-8s RMS pull %.2f\n", name[a],
               sqrt(pull2[a]));
        ASSERT(sqrt(pull2[a]) > 0.85 && sqrt(pull2[a]) < 1.15, "%s: RMS pull %.2f outside 0.85-1.15", name[a],
               sqrt(pull2[a]));
    }
}

/* the "noise: side" debug lines of analysis_flight_covariance, kept for the sink */
static char side_line[2][400];
static void side_sink(icv_log_level level, const char *line, void *user)
{
    (void)user;
    int k;
    if (level == ICV_LOG_DEBUG && sscanf(line, "noise: side %d ", &k) == 1 && k >= 0 && k < 2)
        snprintf(side_line[k], sizeof side_line[k], "%s", line);
}

TEST(test_flight_covariance_says_each_sides_window_flight_and_sigmas)
{
    /* g given, 1000 fps: a drop to frame 100 and a bounce to frame 200, the
     * windows 40 frames each (the default cap) inside the whole flights; white
     * noise 0.02 mm, and over the 20 frames after the bounce a bias ramping at
     * 0.01 m/s in x (a reflection merging with the marker), so the post window's
     * v and its flight's differ and the window excess is added to v_post.x's
     * variance */
    enum { N = 201 };
    const double dt = 1e-3, t_c = 100.5 * dt;
    const icv_vec3 g = icv_v3(0, -9.81, 0);
    posed_frame pf[N];
    memset(pf, 0, sizeof pf);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 3);
    for (int i = 0; i < N; i++) {
        pf[i].t = i * dt;
        truth_at(pf[i].t, t_c, g, &pf[i].pose.p);
        for (int a = 0; a < 3; a++)
            icv_v3_set(&pf[i].pose.p, a, icv_v3_get(pf[i].pose.p, a) + gsl_ran_gaussian_ziggurat(rng, 2e-5));
        if (i > 100) /* a centroid bias ramping over the 20 frames after the bounce */
            pf[i].pose.p.x += 0.01 * ((i < 120 ? i : 120) - 100) * dt;
        pf[i].pose.R = icv_m3_identity();
    }
    gsl_rng_free(rng);
    analysis_body body;
    memset(&body, 0, sizeof body);
    body.tmpl.point = 1;
    body.tmpl.n_markers = 1;
    body.mass = 0.05;
    icv_err err = {0};
    side_fit pre = {0}, post = {0};
    ASSERT(analysis_side_fit(pf, 60, 99, t_c, &g, &body, 3e-4, 0, &pre, &err) == 0, "%s", err.msg);
    ASSERT(analysis_side_fit(pf, 101, 140, t_c, &g, &body, 3e-4, 1, &post, &err) == 0, "%s", err.msg);
    analysis_flight_noise nz;
    ASSERT(analysis_flight_noise_alloc(&nz, N) == 0, "out of memory");
    int lo[2] = {0, 101}, hi[2] = {99, 200};
    ASSERT(analysis_flight_noise_from_sides(pf, lo, hi, &g, 3e-4, &nz) == 0, "out of memory");
    icv_log_sink sink0;
    void *user0;
    icv_log_get_sink(&sink0, &user0);
    icv_log_level level0 = icv_log_get_level();
    side_line[0][0] = side_line[1][0] = 0;
    icv_log_set_sink(side_sink, NULL);
    icv_log_set_level(ICV_LOG_DEBUG);
    double cov[15][15];
    int rc = analysis_flight_covariance(pf, &nz, &pre, &post, cov);
    icv_log_set_level(level0);
    icv_log_set_sink(sink0, user0);
    analysis_flight_noise_free(&nz);
    ASSERT(rc == 0, "out of memory");
    for (int k = 0; k < 2; k++) {
        int w0, w1, nw, f0, f1;
        double sd[3], sx[3], t0, t1, ft0, ft1;
        int n = sscanf(side_line[k],
                       "noise: side %*d window %d-%d (%d frames, %lf-%lf s) flight %d-%d (%lf-%lf s) v sd %lf %lf %lf "
                       "m/s, with the window excess %lf %lf %lf",
                       &w0, &w1, &nw, &t0, &t1, &f0, &f1, &ft0, &ft1, &sd[0], &sd[1], &sd[2], &sx[0], &sx[1], &sx[2]);
        printf("     %s\n", side_line[k]);
        ASSERT(n == 15, "side %d: the line did not parse (%d fields): '%s'", k, n, side_line[k]);
        const side_fit *s = k ? &post : &pre;
        ASSERT(w0 == s->first && w1 == s->last && nw == 40, "side %d: window %d-%d (%d frames) said, %d-%d fitted", k, w0,
               w1, nw, s->first, s->last);
        ASSERT(f0 == lo[k] && f1 == hi[k], "side %d: flight %d-%d said, %d-%d given", k, f0, f1, lo[k], hi[k]);
        /* the sigmas said are cov's, printed to 4 digits: within 0.1% */
        for (int a = 0; a < 3; a++) {
            double c = sqrt(cov[6 + 6 * k + a][6 + 6 * k + a]);
            ASSERT(fabs(sx[a] / c - 1) < 1e-3, "side %d axis %d: %.4g said with the excess, cov's %.4g", k, a, sx[a], c);
            ASSERT(sx[a] >= sd[a] * (1 - 1e-3), "side %d axis %d: the excess lowered the sigma (%.4g -> %.4g)", k, a,
                   sd[a], sx[a]);
        }
    }
    /* the ramp: v_post.x's sigma grows by the excess (measured 0.00156 -> 0.00411
     * m/s, the window's v.x 0.0038 m/s beyond its flight's; the ramp puts 0.005
     * m/s into the window's slope), the pre side's, without a ramp, does not */
    double sdp[3], sxp[3], sdq[3], sxq[3];
    sscanf(strstr(side_line[1], "v sd"), "v sd %lf %lf %lf m/s, with the window excess %lf %lf %lf", &sdp[0], &sdp[1],
           &sdp[2], &sxp[0], &sxp[1], &sxp[2]);
    sscanf(strstr(side_line[0], "v sd"), "v sd %lf %lf %lf m/s, with the window excess %lf %lf %lf", &sdq[0], &sdq[1],
           &sdq[2], &sxq[0], &sxq[1], &sxq[2]);
    ASSERT(sxp[0] > 2 * sdp[0], "v_post.x: %.4g -> %.4g m/s, the excess not added", sdp[0], sxp[0]);
    ASSERT(sxq[0] == sdq[0], "v_pre.x: %.4g -> %.4g m/s, an excess added without a drift", sdq[0], sxq[0]);
}
