/* test_planar_scale_sd.c: the one-camera scale's uncertainty carried into the results
 * (issue #9 items 5 and 7): with `motion_plane: {scale: gravity}` every length, hence
 * every speed, is off by the scale's error, common to all frames, so the fits'
 * covariances do not hold it; the analysis takes it from track_info.json's
 * scale_from_gravity (factor_sd / factor) and propagates it (calib_sd.c). Checked on
 * synth's ball bounce (tests/analysis/ball_gravity_clip.h) against its truth: the
 * pre-impact velocity's error against the reported sigma (the pull). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>
#include <math.h>

#include "analysis/analysis.h"
#include "tests/analysis/ball_gravity_clip.h"
#include "tests/harness.h"

typedef struct {
    double scale_rel, scale_rel_reported; /* track_info's factor_sd / factor; results.json's */
    double scale_pull;                    /* the factor's error over factor_sd */
    double v[2], v_truth[2], v_sd[2];     /* m/s: pre-impact centre velocity x, y and its sigma */
    double v_sd_scale[2];                 /* m/s: the calibration part of that sigma (the scale's) */
    double launch_err;                    /* relative: the launch speed's error */
    double e, e_sd, e_sd_scale, e_truth;
} scale_run;

static double jnum_at(json_t *a, size_t i) { return json_number_value(json_array_get(a, i)); }

/* The ball thrown at (1.0, 0.8) m/s with noise seed `seed`, tracked and analysed
 * through the CLI with scale: gravity and no calibration. */
static int run_seed(int seed, scale_run *r, char *msg, size_t n)
{
    char sub[1100];
    snprintf(sub, sizeof sub, "%s/s%d", th_tmpdir(), seed);
    icv_err err = {0};
    if (icv_mkdirs(sub, &err) != 0)
        return snprintf(msg, n, "%s", err.msg), -1;
    ball_clip c;
    if (ball_clip_run(sub, seed, 1.0, 0.8, &c, msg, n) != 0)
        return -1;
    double k = json_number_value(json_object_get(c.gs, "factor"));
    double k_sd = json_number_value(json_object_get(c.gs, "factor_sd"));
    r->scale_rel = k_sd / k;
    /* the factor's truth: the plane's depth through the nominal pinhole (focal length
       the video's larger side, 640 px) that the true camera (fx 800 px, 1 m) gives:
       1 m x 640 / 800 */
    r->scale_pull = (k - 640.0 / 800) / k_sd;
    json_t *ps = json_object_get(json_object_get(c.res, "calibration"), "propagated_sd");
    r->scale_rel_reported = json_number_value(json_object_get(ps, "scale_rel"));
    json_t *tv = json_object_get(json_object_get(c.ti, "pre"), "v");
    json_t *rv = json_object_get(json_object_get(c.ri, "pre"), "v");
    json_t *u = json_object_get(c.ri, "uncertainty");
    json_t *sd = json_object_get(u, "v_pre");
    json_t *sdc = json_object_get(json_object_get(u, "calibration_part"), "v_pre");
    for (int i = 0; i < 2; i++) {
        r->v[i] = jnum_at(rv, (size_t)i);
        r->v_truth[i] = jnum_at(tv, (size_t)i);
        r->v_sd[i] = jnum_at(sd, (size_t)i);
        r->v_sd_scale[i] = jnum_at(sdc, (size_t)i);
    }
    /* the launch speed: the pre-impact flight taken back to the release (t = 0) */
    json_t *g = json_object_get(c.res, "gravity");
    double t_imp = json_number_value(json_object_get(c.ri, "time_s"));
    double launch = hypot(r->v[0] - jnum_at(g, 0) * t_imp, r->v[1] - jnum_at(g, 1) * t_imp);
    r->launch_err = launch / hypot(1.0, 0.8) - 1;
    r->e = json_number_value(json_object_get(c.ri, "e_kinematic"));
    r->e_sd = json_number_value(json_object_get(u, "e_kinematic"));
    r->e_sd_scale = json_number_value(json_object_get(json_object_get(u, "calibration_part"), "e_kinematic"));
    r->e_truth = json_number_value(json_object_get(c.ti, "e_kinematic"));
    ball_clip_free(&c);
    return 0;
}

static void study(int n_seeds)
{
    double z2 = 0, zs2 = 0;
    int nz = 0;
    printf("     seed  scale sd (pull)   v_pre.x err / sd (scale part)     pull   "
           "v_pre.y err / sd (scale part)     pull   launch err   e err / sd (scale part)\n");
    for (int i = 0; i < n_seeds; i++) {
        scale_run r;
        char msg[1200];
        int seed = 41 + i;
        ASSERT(run_seed(seed, &r, msg, sizeof msg) == 0, "seed %d: %s", seed, msg);
        zs2 += r.scale_pull * r.scale_pull;
        double pull[2];
        for (int k = 0; k < 2; k++)
            pull[k] = (r.v[k] - r.v_truth[k]) / r.v_sd[k];
        printf("     %4d  %7.4f%% (%+5.2f)  %+.5f / %.5f (%.5f)  %+6.2f   %+.5f / %.5f (%.5f)  %+6.2f   %+7.3f%%   "
               "%+.4f / %.4f (%.1e)\n",
               seed, 100 * r.scale_rel, r.scale_pull, r.v[0] - r.v_truth[0], r.v_sd[0], r.v_sd_scale[0], pull[0],
               r.v[1] - r.v_truth[1], r.v_sd[1], r.v_sd_scale[1], pull[1], 100 * r.launch_err, r.e - r.e_truth,
               r.e_sd, r.e_sd_scale);
        /* the scale's sigma reached the results, and through them the speeds: the
           calibration part of v_pre's sigma is the scale's alone (one camera: no
           surface board), scale_rel |v| per component to first order (5%: the
           propagation refits the windows, whose v differs from v at the instant) */
        ASSERT_NEAR(r.scale_rel_reported, r.scale_rel, 1e-9 + 1e-6 * r.scale_rel);
        for (int k = 0; k < 2; k++) {
            ASSERT_NEAR(r.v_sd_scale[k], r.scale_rel * fabs(r.v[k]), 0.05 * r.scale_rel * fabs(r.v[k]) + 1e-6);
            ASSERT(fabs(pull[k]) <= 3, "seed %d: v_pre[%d] error %+.5f is %.2f sigma (%.5f)", seed, k,
                   r.v[k] - r.v_truth[k], pull[k], r.v_sd[k]);
            z2 += pull[k] * pull[k], nz++;
        }
    }
    double rms = sqrt(z2 / nz);
    printf("     RMS pull of v_pre over %d seeds (x and y): %.2f; of the scale itself: %.2f\n", n_seeds, rms,
           sqrt(zs2 / n_seeds));
    /* issue #11's target for an honest sigma (measured 1.12 over 8 seeds) */
    ASSERT(n_seeds == 1 || (rms >= 0.7 && rms <= 1.5), "RMS pull of v_pre %.2f over %d seeds, outside the target 0.7-1.5",
           rms, n_seeds);
}

TEST(test_planar_scale_sd_gravity_scale_reaches_v_pre_sigma)
{
    /* one seed in `make test`, the pull's RMS over eight under `make accuracy` */
    study(th_accuracy() ? 8 : 1);
}

TEST(test_planar_scale_sd_ruler_click_sigma)
{
    /* a ruler of L px clicked at both ends, each click off by 0.5 px per axis: the
       scale distance / L' scatters by sqrt(2) 0.5 / L relatively (first order); checked
       by drawing the clicks (20000 draws: the scatter's own sampling error is 0.5%,
       the second-order terms (0.5 / L)^2 ~ 1e-5 relative) */
    icv_experiment e;
    memset(&e, 0, sizeof e);
    e.n_cameras = 1;
    e.scale_kind = ICV_SCALE_POINTS;
    const double p[2][2] = {{100, 200}, {400, 240}};
    memcpy(e.scale_points_px, p, sizeof p);
    e.scale_distance = 0.3;
    analysis_calib_sd c;
    icv_err err = {0};
    ASSERT(analysis_calib_sd_from_experiment(&e, &c, &err) == 0, "%s", err.msg);
    double L = hypot(300, 40);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    double s1 = 0, s2 = 0;
    const int N = 20000;
    for (int i = 0; i < N; i++) {
        double du = 300 + gsl_ran_gaussian(rng, 0.5) - gsl_ran_gaussian(rng, 0.5);
        double dv = 40 + gsl_ran_gaussian(rng, 0.5) - gsl_ran_gaussian(rng, 0.5);
        double rel = L / hypot(du, dv) - 1; /* the scale's relative error */
        s1 += rel, s2 += rel * rel;
    }
    gsl_rng_free(rng);
    double sd = sqrt(s2 / N - (s1 / N) * (s1 / N));
    printf("     ruler %.1f px: scale_rel %.6f, clicks drawn %.6f\n", L, c.scale_rel, sd);
    ASSERT_NEAR(c.scale_rel, sd, 0.02 * sd);
    /* two cameras or a scale from gravity: not the ruler's */
    e.n_cameras = 2;
    ASSERT(analysis_calib_sd_from_experiment(&e, &c, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(c.scale_rel, 0, 0);
}
