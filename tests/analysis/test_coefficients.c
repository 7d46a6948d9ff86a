/* test_coefficients.c: mu_k, mu_s and e_n from their own experiments (issue #11)
 * against Han Sun's printed arithmetic and tracks of known motion. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/coefficients.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

TEST(test_han_sun_printed_coefficient_arithmetic)
{
    /* Han Sun sec. 4.4: S1 = 50 mm over dt1 = 0.084 s, S2 = 150 mm over dt2 = 0.233 s
     * give a = 0.652 m/s^2 (eq. 4.38, printed to 3 digits); with theta = 20 deg eq. 4.35
     * gives mu_k = 0.293, where the thesis prints 0.243 (solver.md sec. 5: 0.243 would
     * need theta = 17.4 deg). tan(14.1 deg) = 0.251 (4.33); 0.562 / 1.923 = 0.292 (4.44). */
    double S1 = 0.050, S2 = 0.150, dt1 = 0.084, dt2 = 0.233;
    double a = 2 * (S2 * dt1 - S1 * dt2) / (dt1 * dt2 * (dt2 - dt1));
    ASSERT_NEAR(a, 0.652, 5e-4);
    double th = 20 * M_PI / 180, mu_k = tan(th) - a / (9.81 * cos(th));
    ASSERT_NEAR(mu_k, 0.293, 5e-4);
    analysis_coefficient c;
    analysis_coefficient_tilt_angle(14.1, 0.2, &c);
    ASSERT_NEAR(c.value, 0.251, 5e-4);
    /* sigma from the ruler's 0.2 deg: sec^2(14.1 deg) * 0.2 pi/180 */
    ASSERT_NEAR(c.sd, 0.2 * M_PI / 180 / (cos(14.1 * M_PI / 180) * cos(14.1 * M_PI / 180)), 1e-12);
    ASSERT_NEAR(0.562 / 1.923, 0.292, 5e-4);
}

/* a body resting on a slope of angle th, released at t_rel, sliding with
 * a = g (sin th - mu cos th) along -x of the surface frame; 120 fps */
static double slide_jerk; /* m/s^3 added to the motion (speed-dependent friction) */
static double slide_rho;  /* the marker noise's correlation between neighbouring frames */
static double slide_toss; /* m/s: > 0: tossed off the plate along its normal at t_rel instead of
                             released at rest; it flies (free fall under g) until it is back at
                             y = 0.02, loses its normal velocity there (a plastic landing: no impact
                             physics) and slides on from the downhill speed the flight gave it */
static double slide_hold; /* m: > 0: held that far above the plate until t_rel, then dropped
                             (with slide_toss's normal speed) */

static void slide_tracks(double th, double mu, double t_rel, double t_end, double sigma, unsigned long seed,
                         const analysis_body *b, const icv_vec3 *mk, int nm, analysis_tracks *tr, icv_vec3 *g)
{
    *g = icv_v3(-9.81 * sin(th), -9.81 * cos(th), 0);
    double a = 9.81 * (sin(th) - mu * cos(th));
    int n = (int)(t_end * 120) + 1;
    icv_err err;
    analysis_tracks_alloc(tr, n, nm, 0, &err);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    icv_mat3 R = icv_rot_z(M_PI / 2); /* the bar lies along x */
    (void)b;
    icv_vec3 e[8] = {{0, 0, 0}};
    for (int i = 0; i < n; i++) {
        double t = i / 120.0, tau = t > t_rel ? t - t_rel : 0;
        icv_vec3 p = icv_v3(0.3 - 0.5 * a * tau * tau - slide_jerk * tau * tau * tau / 6, 0.02, 0);
        if (slide_toss > 0 || slide_hold > 0) {
            double gn = 9.81 * cos(th), v = slide_toss, h = slide_hold;
            double tl = (v + sqrt(v * v + 2 * gn * h)) / gn, u = tau - tl, vl = 9.81 * sin(th) * tl;
            p = tau < tl ? icv_v3_add(icv_v3(0.3, 0.02 + h + v * tau, 0), icv_v3_scale(*g, 0.5 * tau * tau))
                         : icv_v3(0.3 - 0.5 * 9.81 * sin(th) * tl * tl - vl * u - 0.5 * a * u * u, 0.02, 0);
        }
        tr->frame[i] = i;
        tr->t[i] = t;
        for (int k = 0; k < nm; k++) {
            /* AR(1) noise of 1-sigma sigma: rho of the last frame's plus the rest new */
            double fresh = i ? sqrt(1 - slide_rho * slide_rho) : 1;
            icv_vec3 w = icv_v3(gsl_ran_gaussian(rng, sigma), gsl_ran_gaussian(rng, sigma), gsl_ran_gaussian(rng, sigma));
            e[k] = icv_v3_add(icv_v3_scale(e[k], i ? slide_rho : 0), icv_v3_scale(w, fresh));
            tr->pos[i * nm + k] = icv_v3_add(icv_v3_add(icv_m3_apply(R, mk[k]), p), e[k]);
            tr->seen[i * nm + k] = 1;
        }
    }
    gsl_rng_free(rng);
}

/* 20 seeds of a 20 deg slide of mu_k = 0.25 (released at 0.2 s, 0.7 s at 120 fps)
 * with marker noise sigma correlated rho between frames, the expected noise given to
 * the fit being prior (m); the RMS of error / reported sigma */
static double slide_study(double sigma, double rho, double prior, double *worst, int *warned)
{
    const icv_vec3 mk[3] = {{0, 0.1, 0}, {0, 0, 0.01}, {0, -0.1, 0}};
    analysis_body b = {0};
    icv_err err = {0};
    b.mass = 0.3;
    b.inertia = icv_m3_diag(1e-3, 1e-5, 1e-3);
    analysis_template_init(&b.tmpl, mk, 3, &err);
    double z2 = 0;
    int seeds = 20;
    *worst = 0;
    *warned = 0;
    slide_rho = rho;
    for (int k = 0; k < seeds; k++) {
        analysis_tracks tr;
        icv_vec3 g;
        slide_tracks(20 * M_PI / 180, 0.25, 0.2, 0.7, sigma, 40 + (unsigned long)k, &b, mk, 3, &tr, &g);
        analysis_coefficient c;
        int rc = analysis_coefficient_slide(&tr, &b, g, prior, &c, &err);
        analysis_tracks_free(&tr);
        if (rc) {
            th_fail(__FILE__, __LINE__, "seed %d: %s", k, err.msg);
            break;
        }
        *warned += c.n_warnings > 0; /* the acceleration is constant: a jerk warning is false */
        *worst = fmax(*worst, fabs(c.value - 0.25));
        z2 += (c.value - 0.25) * (c.value - 0.25) / (c.sd * c.sd);
    }
    slide_rho = 0;
    return sqrt(z2 / seeds);
}

TEST(test_slide_gives_mu_k_within_0_01_with_an_honest_sigma)
{
    /* Issue #11: mu_k within 0.01 of the truth and the reported sigma honest over
     * seeds, whatever noise was expected beforehand (the fit takes its own from its
     * residuals): 0.2 mm marker noise, expected 0.2 mm, then 1 mm. 20 seeds: an honest
     * sigma gives an RMS of error / sigma in 0.68-1.31 (chi^2 with 20 degrees of
     * freedom, 95%); 0.6-1.5 asserted. */
    int warned;
    double worst, rms = slide_study(2e-4, 0, 2e-4, &worst, &warned);
    printf("     mu_k over 20 seeds, white noise: worst error %.5f, RMS error/sigma %.2f\n", worst, rms);
    ASSERT_NEAR(worst, 0, 0.01);
    ASSERT(rms > 0.6 && rms < 1.5, "RMS error/sigma %.2f", rms);
    ASSERT_EQ_INT(warned, 0);
    rms = slide_study(2e-4, 0, 1e-3, &worst, &warned);
    printf("     the same expecting 1 mm: RMS error/sigma %.2f\n", rms);
    ASSERT(rms > 0.6 && rms < 1.5, "RMS error/sigma %.2f with 1 mm expected", rms);
    ASSERT_EQ_INT(warned, 0);
}

TEST(test_slide_sigma_allows_for_noise_correlated_between_frames)
{
    /* marker noise correlated 0.7 between neighbouring frames (coded video, a pose
     * smoothed over frames): a fit that took the noise as white would report too small
     * a sigma; the residuals show rho and the sigma allows for it */
    int warned;
    double worst, rms = slide_study(2e-4, 0.7, 2e-4, &worst, &warned);
    printf("     mu_k over 20 seeds, noise correlated 0.7: worst error %.5f, RMS error/sigma %.2f, %d false jerk "
           "warnings\n",
           worst, rms, warned);
    ASSERT_NEAR(worst, 0, 0.01);
    ASSERT(rms > 0.6 && rms < 1.5, "RMS error/sigma %.2f", rms);
    /* slow noise can look like a jerk: rho from 57 residuals is uncertain by ~0.1 */
    ASSERT(warned <= 1, "%d of 20 seeds warned of a jerk", warned);
}

TEST(test_slide_without_motion_fails_saying_how_far_it_moved)
{
    const icv_vec3 mk[3] = {{0, 0.1, 0}, {0, 0, 0.01}, {0, -0.1, 0}};
    analysis_body b = {0};
    icv_err err = {0};
    analysis_template_init(&b.tmpl, mk, 3, &err);
    analysis_tracks tr;
    icv_vec3 g;
    slide_tracks(20 * M_PI / 180, 0.25, 5.0, 0.5, 2e-4, 1, &b, mk, 3, &tr, &g); /* released after the clip */
    analysis_coefficient c;
    int rc = analysis_coefficient_slide(&tr, &b, g, 2e-4, &c, &err);
    analysis_tracks_free(&tr);
    ASSERT_EQ_INT(rc, ICV_ENOTFOUND);
    ASSERT_STR_CONTAINS(err.msg, "no motion found along the slope");
}

TEST(test_drop_e_n_and_a_non_central_drop_is_refused)
{
    /* the box scenario with its impact: e from the measured impact; the tumbling box
     * is far from a central drop, which must be refused rather than reported */
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample(&s, 0.45, 2e-4, 3, &tr);
    analysis_result res;
    icv_err err = {0};
    ASSERT(analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err) == 0, "%s", err.msg);
    analysis_tracks_free(&tr);
    analysis_coefficient c;
    ASSERT_EQ_INT(analysis_coefficient_drop(&res, &c, &err), ICV_EINVAL);
    ASSERT_STR_CONTAINS(err.msg, "not a drop");
    /* a central drop: clear the rotation and the horizontal motion */
    res.impacts[0].pre.omega = res.impacts[0].post.omega = icv_v3(0, 0, 0);
    res.impacts[0].pre.v.x = res.impacts[0].pre.v.z = 0;
    ASSERT(analysis_coefficient_drop(&res, &c, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(c.value, s.e, 0.01);
    ASSERT_EQ_INT(c.n_warnings, 0);
}

TEST(test_repeats_combine_and_disagreement_is_flagged)
{
    analysis_coefficient r[3], m;
    double chi2, p;
    for (int i = 0; i < 3; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].sd = 0.01;
    }
    r[0].value = 0.250, r[1].value = 0.254, r[2].value = 0.246;
    analysis_coefficient_combine(r, 3, &m, &chi2, &p);
    ASSERT_NEAR(m.value, 0.250, 1e-12);
    ASSERT_NEAR(m.sd, 0.01 / sqrt(3.0), 1e-12); /* the standard error of 3 equal sigmas */
    ASSERT_EQ_INT(m.n_warnings, 0);
    r[2].value = 0.40; /* 15 sigma away */
    analysis_coefficient_combine(r, 3, &m, &chi2, &p);
    ASSERT(p < 0.01, "p = %g", p);
    ASSERT_STR_CONTAINS(m.warnings[0], "disagree beyond their sigmas");
}

TEST(test_slide_with_speed_dependent_friction_is_flagged)
{
    /* friction falling with speed: the acceleration grows by 2 m/s^3 (from 0.97 m/s^2
     * to 1.9 m/s^2 over the half second): the fit must say it is not constant */
    const icv_vec3 mk[3] = {{0, 0.1, 0}, {0, 0, 0.01}, {0, -0.1, 0}};
    analysis_body b = {0};
    icv_err err = {0};
    analysis_template_init(&b.tmpl, mk, 3, &err);
    analysis_tracks tr;
    icv_vec3 g;
    slide_jerk = 2.0;
    slide_tracks(20 * M_PI / 180, 0.25, 0.2, 0.7, 2e-4, 7, &b, mk, 3, &tr, &g);
    slide_jerk = 0;
    analysis_coefficient c;
    int rc = analysis_coefficient_slide(&tr, &b, g, 2e-4, &c, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(c.n_warnings, 1);
    ASSERT_STR_CONTAINS(c.warnings[0], "not constant");
    ASSERT_NEAR(c.jerk, 2.0, 4 * c.jerk_sd);
}

static const char slide_yaml[] =
    "name: %s\n"
    "experiment: slide\n"
    "cameras: [{id: left, video: left.mp4}, {id: right, video: right.mp4}]\n"
    "calibration: {file: stereo.yaml}\n"
    "surface: {plane: {point: [0, 0.1, 1.0], normal: [0, -1, 0]}}\n"
    "gravity: [%.10f, %.10f, 0]\n"
    "body: {mass: 0.3, inertia: [[1e-3,0,0],[0,1e-5,0],[0,0,1e-3]],\n"
    "       markers: [[0, 0.1, 0], [0, 0, 0.01], [0, -0.1, 0]]}\n";

/* a slide experiment folder dir/<name>/ with experiment.yaml and tracks3d.csv */
static void write_slide(const char *dir, const char *name, double mu, unsigned long seed, double t_rel)
{
    const icv_vec3 mk[3] = {{0, 0.1, 0}, {0, 0, 0.01}, {0, -0.1, 0}};
    analysis_body b = {0};
    icv_err err;
    analysis_template_init(&b.tmpl, mk, 3, &err);
    analysis_tracks tr;
    icv_vec3 g;
    slide_tracks(20 * M_PI / 180, mu, t_rel, 0.7, 2e-4, seed, &b, mk, 3, &tr, &g);
    char path[1024], text[2048];
    snprintf(path, sizeof path, "mkdir -p '%s/%s'", dir, name);
    if (system(path) != 0)
        return;
    snprintf(path, sizeof path, "%s/%s/tracks3d.csv", dir, name);
    write_tracks3d(&tr, path, 1, 1);
    analysis_tracks_free(&tr);
    snprintf(text, sizeof text, slide_yaml, name, g.x, g.y);
    snprintf(path, sizeof path, "%s/%s/experiment.yaml", dir, name);
    th_write_file(path, text);
}

TEST(test_coefficients_cli_slide_repeats_combine_and_feed_the_model)
{
    /* three slides of mu_k = 0.25 into one coefficients.json, which an impact
     * experiment then names as its mu_k (model: {mu_k: {from: ...}}) */
    const char *d = th_tmpdir();
    char args[2048] = "";
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "slide%d", i);
        write_slide(d, name, 0.25, 70 + (unsigned long)i, 0.2);
        size_t len = strlen(args);
        snprintf(args + len, sizeof args - len, " '%s/%s/experiment.yaml'", d, name);
    }
    th_proc p;
    int st = th_run_cli(&p, "coefficients%s -o '%s'", args, d);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "mu_k = 0.2");
    double v = 0;
    const char *m = strstr(p.out, "mu_k = ");
    ASSERT(m && sscanf(m, "mu_k = %lf", &v) == 1, "no value in: %s", p.out);
    ASSERT_NEAR(v, 0.25, 0.01); /* issue #11: within 0.01 */
    char path[1024];
    snprintf(path, sizeof path, "%s/coefficients.json", d);
    const char *json = th_read_file(path);
    ASSERT_STR_CONTAINS(json, "\"schema\": \"impactcv-coefficients-1\"");
    ASSERT_STR_CONTAINS(json, "\"repeats\"");
    /* an impact experiment takes mu_k from it */
    char text[4096];
    snprintf(text, sizeof text,
             "name: x\ncameras: [{id: a, video: a.mp4}]\nmotion_plane: {scale: gravity}\n"
             "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n"
             "model: {restitution: newton, mu_s: 0.3, mu_k: {from: coefficients.json}, e_n: 0.5}\n");
    snprintf(path, sizeof path, "%s/impact.yaml", d);
    th_write_file(path, text);
    icv_experiment *e = malloc(sizeof *e);
    icv_err err = {0};
    int rc = icv_experiment_load(path, e, &err);
    double mu_k = e->mu_k;
    int has_from = strstr(e->mu_k_from, "coefficients.json") != NULL;
    free(e);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_NEAR(mu_k, v, 1e-3); /* the value written, as printed to 4 digits */
    ASSERT_TRUE(has_from);
}

TEST(test_coefficients_cli_tilt_by_ruler_and_bad_inputs)
{
    const char *d = th_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/tilt.yaml", d);
    th_write_file(path, "name: tilt\nexperiment: tilt\ncoefficients: {angle_deg: 14.1, angle_sd_deg: 0.2}\n"
                        "cameras: [{id: a, video: a.mp4}]\nmotion_plane: {scale: gravity}\n"
                        "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n");
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s' -o '%s/out'", path, d), 0);
    ASSERT_STR_CONTAINS(p.out, "mu_s = 0.2512"); /* Han Sun eq. 4.33: 0.251 */
    /* a tilt with neither the ruler's angle nor a level board for its video */
    th_write_file(path, "name: tilt\nexperiment: tilt\n"
                        "cameras: [{id: a, video: a.mp4}]\nmotion_plane: {scale: gravity}\n"
                        "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n");
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s' -o '%s/out2'", path, d), 1);
    ASSERT_STR_CONTAINS(p.err, "a tilt needs coefficients.angle_deg");
    /* a slide whose body never moves */
    write_slide(d, "still", 0.25, 5, 5.0);
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s/still/experiment.yaml' -o '%s/still'", d, d), 1);
    ASSERT_STR_CONTAINS(p.err, "no motion found along the slope");
    /* an impact experiment is not a coefficient experiment */
    th_write_file(path, "name: imp\ncameras: [{id: a, video: a.mp4}]\nmotion_plane: {scale: gravity}\n"
                        "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n");
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s' -o '%s/out3'", path, d), 1);
    ASSERT_STR_CONTAINS(p.err, "not a coefficient experiment");
    snprintf(path, sizeof path, "%s/out3/coefficients.json", d);
    ASSERT(access(path, F_OK) != 0, "a file was written on failure");
}

/* a tilt's series as job_tilt_run gives them: 60 fps, the plate rising at 0.05 rad/s
 * from 0.29 rad at 0.2 s (1e-4 rad noise per frame, and the level board's error: one
 * offset of level_sd for the whole series), the body at rest with a parallax drift of
 * 1 mm/s until the angle reaches atan(mu_s), then sliding with mu_k = 0.25 while the
 * plate goes on rising (s'' = g (sin theta - mu_k cos theta), integrated in 0.1 ms
 * steps); 50 um of displacement noise correlated rho between frames */
static void tilt_series(double mu_s, double rho, double level_sd, unsigned long seed, double *t, double *ang,
                        double *s, int n)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    double t_on = 0.2 + (atan(mu_s) - 0.29) / 0.05, level = gsl_ran_gaussian(rng, level_sd);
    double pos = 0, vel = 0, tt = t_on, h = 1e-4, e = 0;
    for (int i = 0; i < n; i++) {
        t[i] = i / 60.0;
        for (; tt + h <= t[i]; tt += h) { /* midpoint steps of the slide */
            double th = 0.29 + 0.05 * (tt + h / 2 - 0.2), acc = 9.81 * (sin(th) - 0.25 * cos(th));
            pos += vel * h + 0.5 * acc * h * h;
            vel += acc * h;
        }
        double last = t[i] > t_on ? t[i] - fmax(tt, t_on) : 0; /* the part of a step to t[i] */
        double th = 0.29 + 0.05 * fmax(0, t[i] - 0.2), acc = 9.81 * (sin(th) - 0.25 * cos(th));
        ang[i] = th + level + gsl_ran_gaussian(rng, 1e-4);
        e = rho * e + sqrt(1 - rho * rho) * gsl_ran_gaussian(rng, 5e-5);
        s[i] = 1e-3 * t[i] + (t[i] > t_on ? pos + vel * last + 0.5 * acc * last * last : 0) + e;
    }
    gsl_rng_free(rng);
}

TEST(test_tilt_onset_and_mu_s_from_series)
{
    /* mu_s = 0.35: the angle at the onset within 0.01 in mu_s (issue #11); over 20
     * draws the onset and mu_s within their sigmas (RMS of error / sigma in 0.6-1.5: an
     * honest sigma gives 0.68-1.31, 95%); the level board's error 0.4 of a frame's,
     * displacement noise correlated 0.5. A plate that stops short is "never slides",
     * naming how far the body moved. */
    enum { N = 100, DRAWS = 20 };
    double t[N], ang[N], s[N];
    double worst = 0, z2 = 0, zt2 = 0, t_on = 0.2 + (atan(0.35) - 0.29) / 0.05;
    for (int k = 0; k < DRAWS; k++) {
        tilt_series(0.35, 0.5, 0.4e-4, 90 + (unsigned long)k, t, ang, s, N);
        analysis_coefficient c;
        icv_err err = {0};
        ASSERT(analysis_coefficient_tilt_video(t, ang, s, N, 0.4, &c, &err) == 0, "%s", err.msg);
        worst = fmax(worst, fabs(c.value - 0.35));
        z2 += (c.value - 0.35) * (c.value - 0.35) / (c.sd * c.sd);
        zt2 += (c.onset_s - t_on) * (c.onset_s - t_on) / (c.onset_sd * c.onset_sd);
    }
    double rms = sqrt(z2 / DRAWS), rms_t = sqrt(zt2 / DRAWS);
    printf("     mu_s over %d series: worst error %.5f, RMS error/sigma %.2f (onset %.2f)\n", DRAWS, worst, rms, rms_t);
    ASSERT_NEAR(worst, 0, 0.01);
    ASSERT(rms > 0.6 && rms < 1.5, "mu_s: errors %.2f times the sigmas", rms);
    ASSERT(rms_t > 0.6 && rms_t < 1.5, "onset: errors %.2f times the sigmas", rms_t);
    tilt_series(0.5, 0, 0, 7, t, ang, s, N); /* atan(0.5) = 0.46 rad: beyond the clip */
    analysis_coefficient c;
    icv_err err = {0};
    ASSERT_EQ_INT(analysis_coefficient_tilt_video(t, ang, s, N, 1, &c, &err), ICV_ENOTFOUND);
    ASSERT_STR_CONTAINS(err.msg, "the body never slides");
}

TEST(test_coefficients_cli_dir_replaced_whole_or_left_as_it_was)
{
    /* DIR holds the tracks: a success adds coefficients.json and keeps them (twice:
     * the second run reuses them); a refused slide leaves DIR as it was; nothing is
     * left beside DIR either way */
    const char *d = th_tmpdir();
    write_slide(d, "s1", 0.25, 71, 0.2);
    th_proc p;
    char path[1024];
    for (int run = 0; run < 2; run++) {
        ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s/s1/experiment.yaml' -o '%s/s1'", d, d), 0);
        snprintf(path, sizeof path, "%s/s1/coefficients.json", d);
        ASSERT_STR_CONTAINS(th_read_file(path), "\"mu_k\"");
        snprintf(path, sizeof path, "%s/s1/tracks3d.csv", d);
        ASSERT_STR_CONTAINS(th_read_file(path), "frame,time_s");
        ASSERT_EQ_INT(th_dir_count(d, "s1."), 0);
    }
    write_slide(d, "still", 0.25, 5, 5.0); /* released after the clip */
    snprintf(path, sizeof path, "%s/still/tracks3d.csv", d);
    char before[1 << 16];
    snprintf(before, sizeof before, "%s", th_read_file(path));
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s/still/experiment.yaml' -o '%s/still'", d, d), 1);
    ASSERT_STR_CONTAINS(p.err, "no motion found along the slope");
    ASSERT(!strcmp(th_read_file(path), before), "the tracks changed");
    snprintf(path, sizeof path, "%s/still/coefficients.json", d);
    ASSERT(access(path, F_OK) != 0, "coefficients.json written on failure");
    ASSERT_EQ_INT(th_dir_count(d, "still."), 0);
    /* the current folder cannot be replaced as a whole */
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s/s1/experiment.yaml' -o .", d), 1);
    ASSERT_STR_CONTAINS(p.err, "give the output folder by its name");
}


/* the bar of the slides above as a ball of 2 cm radius about its centre: its lowest
 * point 0.02 m below the centre, on the plate when resting */
static void bar_body(analysis_body *b)
{
    const icv_vec3 mk[3] = {{0, 0.1, 0}, {0, 0, 0.01}, {0, -0.1, 0}};
    icv_err err = {0};
    memset(b, 0, sizeof *b);
    b->mass = 0.3;
    b->inertia = icv_m3_diag(1e-3, 1e-5, 1e-3);
    b->shape.type = ICV_SHAPE_SPHERE;
    b->shape.radius = 0.02;
    analysis_template_init(&b->tmpl, mk, 3, &err);
}

static void flight_study(double toss, double hold, int first_lo, int first_hi, int last_lo, int last_hi, int land);

TEST(test_slide_incline_from_free_flight_of_the_same_clip)
{
    /* Issue #11: the incline from a free-flight part of the clip. The bar rests on a
     * 20 deg slope, is tossed off it at 0.2 s at 0.8 m/s along the normal, flies
     * 2 x 0.8 / (9.81 cos 20 deg) = 0.174 s (20 frames at 120 fps), lands (its normal
     * velocity removed) and slides on with mu_k = 0.25 until 0.7 s; 0.1 mm marker
     * noise. Expected: g from ~18 flight frames over T ~ 0.15 s with the centre's noise
     * s = 0.1 mm / sqrt(3): sigma(g) = sqrt(720 / n) s / T^2 = 0.016 m/s^2 across g, so
     * sigma(theta) ~ 1.6e-3 rad: theta within 4 of that (6.5e-3 rad) on every seed.
     * mu_k within 0.01 (issue #11) and the reported sigmas honest: the RMS of error /
     * sigma over 20 seeds in 0.6-1.5 (0.68-1.31 is chi^2's 95% for an honest one). */
    flight_study(0.8, 0, 24, 26, 40, 43, 45);
    /* held 0.1 m above the plate and dropped at 0.2 s: the hold (frames 0-24) left out,
     * 0.147 s of flight, the first frame on the plate 42 */
    flight_study(0, 0.1, 24, 26, 38, 40, 42);
}

static void flight_study(double toss, double hold, int first_lo, int first_hi, int last_lo, int last_hi, int land)
{
    analysis_body b;
    bar_body(&b);
    const icv_vec3 mk[3] = {{0, 0.1, 0}, {0, 0, 0.01}, {0, -0.1, 0}};
    const double th = 20 * M_PI / 180;
    double z2 = 0, zt2 = 0, worst = 0, worst_th = 0;
    int seeds = 20;
    slide_toss = toss;
    slide_hold = hold;
    for (int k = 0; k < seeds && !th_failed(); k++) {
        analysis_tracks tr;
        icv_vec3 g;
        icv_err err = {0};
        slide_tracks(th, 0.25, 0.2, 0.7, 1e-4, 90 + (unsigned long)k, &b, mk, 3, &tr, &g);
        analysis_slide_flight fl;
        analysis_coefficient c;
        int rc = analysis_slide_flight_gravity(&tr, &b, 1e-4, &fl, &err);
        if (!rc)
            rc = analysis_coefficient_slide_after(&tr, &b, fl.g, (const double(*)[3])fl.g_cov, 1e-4, fl.t_slide,
                                                      &c, &err);
        analysis_tracks_free(&tr);
        ASSERT(rc == 0, "seed %d: %s", k, err.msg);
        /* the flight: from the first frame off the plate or the last of the hold (the
         * release at 0.2 s is frame 24's instant) to two frames before the first on the
         * plate again (tossed: the landing at 0.3736 s, frame 45); the slide fit from
         * the frame after that */
        ASSERT(fl.first_frame >= first_lo && fl.first_frame <= first_hi, "flight from frame %d", fl.first_frame);
        ASSERT(fl.last_frame >= last_lo && fl.last_frame <= last_hi, "flight to frame %d", fl.last_frame);
        ASSERT_EQ_INT(fl.landing_frame, land);
        ASSERT(c.first_frame == land + 1, "slide fit from frame %d", c.first_frame);
        ASSERT_EQ_INT(c.n_warnings, 0);
        worst = fmax(worst, fabs(c.value - 0.25));
        worst_th = fmax(worst_th, fabs(c.theta - th));
        z2 += pow((c.value - 0.25) / c.sd, 2);
        zt2 += pow((c.theta - th) / c.theta_sd, 2);
    }
    slide_toss = slide_hold = 0;
    double rms = sqrt(z2 / seeds), rms_th = sqrt(zt2 / seeds);
    printf("     incline from flight (%s) over %d seeds: worst theta error %.5f rad, RMS error/sigma %.2f; mu_k worst "
           "error %.5f, RMS error/sigma %.2f\n",
           hold > 0 ? "dropped from a hold" : "tossed off the plate", seeds, worst_th, rms_th, worst, rms);
    ASSERT(worst_th < 6.5e-3, "theta off by %g rad", worst_th);
    ASSERT_NEAR(worst, 0, 0.01);
    ASSERT(rms > 0.6 && rms < 1.5, "mu_k: RMS error/sigma %.2f", rms);
    ASSERT(rms_th > 0.6 && rms_th < 1.5, "theta: RMS error/sigma %.2f", rms_th);
}

TEST(test_slide_incline_from_flight_refused_without_a_flight_long_enough)
{
    /* tossed at 0.2 m/s: 0.043 s of flight, 5 frames at 120 fps, too few for the
     * parabola (ANALYSIS_MIN_FLIGHT_FRAMES = 8): one line naming the tracks file */
    const char *d = th_tmpdir();
    analysis_body b;
    bar_body(&b);
    const icv_vec3 mk[3] = {{0, 0.1, 0}, {0, 0, 0.01}, {0, -0.1, 0}};
    analysis_tracks tr;
    icv_vec3 g;
    slide_toss = 0.2;
    slide_tracks(20 * M_PI / 180, 0.25, 0.2, 0.7, 1e-4, 3, &b, mk, 3, &tr, &g);
    slide_toss = 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/short.csv", d);
    write_tracks3d(&tr, path, 1, 1);
    analysis_tracks_free(&tr);
    snprintf(path, sizeof path, "%s/short.yaml", d);
    th_write_file(path, "name: short\nexperiment: slide\ncoefficients: {incline: flight}\n"
                        "cameras: [{id: left, video: left.mp4}, {id: right, video: right.mp4}]\n"
                        "calibration: {file: stereo.yaml}\n"
                        "surface: {plane: {point: [0, 0.1, 1.0], normal: [0, -1, 0]}}\n"
                        "body: {mass: 0.3, inertia: [[1e-3,0,0],[0,1e-5,0],[0,0,1e-3]],\n"
                        "       markers: [[0, 0.1, 0], [0, 0, 0.01], [0, -0.1, 0]],\n"
                        "       shape: {type: sphere, radius: 0.02}}\n");
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s' --tracks '%s/short.csv' -o '%s/out'", path, d, d), 1);
    const char *nl = strchr(p.err, '\n');
    ASSERT(nl && nl[1] == '\0', "more than one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, "short.csv: ");
    ASSERT_STR_CONTAINS(p.err, "no free flight long enough before the body lands on the incline");
    snprintf(path, sizeof path, "%s/out", d);
    ASSERT(th_dir_count(path, "") < 0, "%s made on failure", path);
    /* gravity given with incline: flight contradicts itself: refused when read */
    snprintf(path, sizeof path, "%s/both.yaml", d);
    th_write_file(path, "name: both\nexperiment: slide\ncoefficients: {incline: flight}\ngravity: [-3, -9, 0]\n"
                        "cameras: [{id: a, video: a.mp4}]\nmotion_plane: {scale: gravity}\n"
                        "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n");
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s' -o '%s/out'", path, d), 1);
    ASSERT_STR_CONTAINS(p.err, "incline: flight measures gravity");
}

/* issue #20 item 10: `coefficients -o DIR` reuses DIR/tracks3d.csv only when it is
 * this experiment's: the track stage's track_info.json beside it names another
 * experiment (or other videos), or the tracks have another marker count: refused,
 * naming why; DIR unchanged */
TEST(test_coefficients_cli_refuses_tracks_of_another_experiment)
{
    const char *d = th_tmpdir();
    write_slide(d, "s1", 0.25, 71, 0.2);
    char path[1024];
    snprintf(path, sizeof path, "%s/s1/track_info.json", d);
    th_write_file(path, "{\"schema\": \"impactcv-track-info-1\", \"experiment\": \"drop_3\", "
                        "\"cameras\": [{\"id\": \"a\", \"video\": \"a.mp4\"}]}\n");
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s/s1/experiment.yaml' -o '%s/s1'", d, d), 1);
    ASSERT_STR_CONTAINS(p.err, "s1/tracks3d.csv: not this experiment's tracks: it was tracked for experiment "
                               "'drop_3', not 's1'");
    snprintf(path, sizeof path, "%s/s1/coefficients.json", d);
    ASSERT(access(path, F_OK) != 0, "coefficients.json written from another experiment's tracks");
    /* the right experiment's sidecar: used */
    snprintf(path, sizeof path, "%s/s1/track_info.json", d);
    th_write_file(path, "{\"schema\": \"impactcv-track-info-1\", \"experiment\": \"s1\", \"cameras\": "
                        "[{\"id\": \"left\", \"video\": \"left.mp4\"}, {\"id\": \"right\", \"video\": \"right.mp4\"}]}\n");
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s/s1/experiment.yaml' -o '%s/s1'", d, d), 0);
    /* tracks without a sidecar but of two markers for a three-marker body */
    write_slide(d, "s2", 0.25, 72, 0.2);
    snprintf(path, sizeof path, "%s/s2/tracks3d.csv", d);
    th_write_file(path, "frame,time_s,m0_x,m0_y,m0_z,m1_x,m1_y,m1_z\n0,0.0,0,0,0,0,0.1,0\n1,0.01,0,0,0,0,0.1,0\n");
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s/s2/experiment.yaml' -o '%s/s2'", d, d), 1);
    ASSERT_STR_CONTAINS(p.err, "s2/tracks3d.csv: not this experiment's tracks: 2 marker(s)");
    ASSERT_STR_CONTAINS(p.err, "body.markers has 3");
}

/* issue #20 item 9: an error inside the job's working folder names the path as the
 * user knows it (DIR/...), never the working folder, which is removed */
TEST(test_coefficients_cli_error_names_no_working_folder)
{
    const char *d = th_tmpdir();
    write_slide(d, "d1", 0.25, 73, 0.2);
    char path[1024], text[4096];
    snprintf(path, sizeof path, "%s/d1/experiment.yaml", d);
    snprintf(text, sizeof text, "%s", th_read_file(path));
    char *k = strstr(text, "experiment: slide");
    ASSERT(k, "no kind line");
    memcpy(k, "experiment: drop ", 17);
    /* markers twice as far apart as the tracks show: the template check fails */
    char *m = strstr(text, "markers: [[0, 0.1, 0], [0, 0, 0.01], [0, -0.1, 0]]");
    ASSERT(m, "no markers line");
    memcpy(m, "markers: [[0, 0.2, 0], [0, 0, 0.02], [0, -0.2, 0]]", 50);
    th_write_file(path, text);
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s' -o '%s/d1'", path, d), 1);
    ASSERT(!strstr(p.err, ".coefficients."), "names the removed working folder: %s", p.err);
    char want[1100];
    snprintf(want, sizeof want, "%s/d1/tracks3d.csv: ", d);
    ASSERT_STR_CONTAINS(p.err, want);
}
