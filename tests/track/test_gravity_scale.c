/* test_gravity_scale.c: one camera with `motion_plane: {scale: gravity}` from video end
 * to end (issue #9 item 7, "scale: gravity on a synth ball bounce gives the launch
 * speed within 1%"): synth renders a thrown ball bouncing once (640x360, 240 fps, 0.45
 * s), experiment.yaml keeps only surface.line_px (no calibration, no board in the plane,
 * no length in view), and `impactcv track` + `impactcv analyze` run through the CLI. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"

/* The ball: 20 mm radius, one marker (the whole ball: a bright sphere 0.5 mm larger than
 * the body's, so that it is what the camera sees), thrown at (1.0, 0.8) m/s from
 * (-0.15, 0.25) m at t = 0 (the clip's start), Newton e 0.7, mu 0.2; the camera 1 m
 * in front of the plane, square to it, fx 800 px. */
#define BALL_SCENARIO(W, H, FX, DURATION)                                                                             \
    "name: ball_bounce_gravity\nseed: 5\nduration: " DURATION "\nmax_impacts: 2\n"                                   \
    "body:\n  mass: 0.0027\n  inertia: [[7.2e-7, 0, 0], [0, 7.2e-7, 0], [0, 0, 7.2e-7]]\n"                           \
    "  markers: [[0, 0, 0]]\n  marker_diameter: 0.041\n  marker_style: sphere\n"                                      \
    "  shape: {type: sphere, radius: 0.02}\n"                                                                         \
    "model: {restitution: newton, mu: 0.2, e_n: 0.7}\n"                                                               \
    "release: {time: 0.0, position: [-0.15, 0.25, 0], velocity: [1.0, 0.8, 0]}\n"                                    \
    "cameras:\n  - {id: cam, width: " W ", height: " H ", fx: " FX ", fps: 240, exposure: 0.002,\n"                  \
    "     pose: {look_from: [0.07, 0.14, 1.0], look_at: [0.07, 0.14, 0]}}\n"                                         \
    "board: {views: 0}\nrender: {flash: none}\noutput: {codec: h264, crf: 20}\n"

static const double launch_v[2] = {1.0, 0.8}; /* m/s, surface frame, the scenario's release */

/* Renders the scenario into dir and writes dir/exp_gravity.yaml: synth's experiment
 * with its calibration and motion-plane board taken out, motion_plane: {scale: gravity}. */
static int make_experiment(const char *dir, const char *scenario, char *exp_path, size_t n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    if (th_write_file(path, scenario))
        return -1;
    th_proc p;
    char out[1200];
    snprintf(out, sizeof out, "%s/exp", dir);
    if (th_run_cli(&p, "-q synth '%s' -o '%s'", path, out) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/experiment.yaml", out);
    const char *text = th_read_file(path);
    const char *cal = text ? strstr(text, "calibration:\n") : NULL, *surf = text ? strstr(text, "surface:\n") : NULL;
    const char *mp = text ? strstr(text, "  images: {cam: plane_cam.png}") : NULL;
    if (!cal || !surf || !mp || !(cal < surf && surf < mp))
        return -1;
    char *y = malloc(strlen(text) + 64);
    if (!y)
        return -1;
    size_t k = 0;
    memcpy(y + k, text, (size_t)(cal - text)), k += (size_t)(cal - text);
    memcpy(y + k, surf, (size_t)(mp - surf)), k += (size_t)(mp - surf);
    k += (size_t)sprintf(y + k, "  scale: gravity");
    const char *rest = mp + strlen("  images: {cam: plane_cam.png}");
    memcpy(y + k, rest, strlen(rest) + 1);
    snprintf(exp_path, n, "%s/exp_gravity.yaml", out);
    int rc = th_write_file(exp_path, y);
    free(y);
    return rc;
}

static double jnum_at(json_t *a, size_t i) { return json_number_value(json_array_get(a, i)); }

TEST(test_gravity_scale_ball_bounce_launch_speed_within_1_percent)
{
    const char *dir = th_tmpdir();
    char exp_path[1200], odir[1200], path[1300];
    ASSERT(make_experiment(dir, BALL_SCENARIO("640", "360", "800", "0.45"), exp_path, sizeof exp_path) == 0,
           "cannot render or rewrite the ball experiment in %s", dir);
    snprintf(odir, sizeof odir, "%s/out", dir);
    th_proc p;
    int rc = th_run_cli(&p, "-q track '%s' -o '%s'", exp_path, odir);
    ASSERT(rc == 0, "track: %s", p.err);
    rc = th_run_cli(&p, "-q analyze '%s' -o '%s'", exp_path, odir);
    ASSERT(rc == 0, "analyze: %s", p.err);

    /* the scale: the plane's depth through the nominal pinhole (focal length the video's
       larger side, 640 px) that the true camera (fx 800 px, 1 m) gives: 1 m x 640 / 800 */
    snprintf(path, sizeof path, "%s/track_info.json", odir);
    json_t *info = json_load_file(path, 0, NULL);
    ASSERT(info != NULL, "%s", path);
    json_t *gs = json_object_get(info, "scale_from_gravity");
    double factor = json_number_value(json_object_get(gs, "factor"));
    double factor_sd = json_number_value(json_object_get(gs, "factor_sd"));
    int phases = (int)json_integer_value(json_object_get(gs, "phases"));
    json_decref(info);
    const double factor_truth = 1.0 * 640 / 800;

    snprintf(path, sizeof path, "%s/exp/truth.json", dir);
    json_t *truth = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/results.json", odir);
    json_t *res = json_load_file(path, 0, NULL);
    ASSERT(truth && res, "truth.json or results.json unreadable");
    json_t *ti = json_array_get(json_object_get(truth, "impacts"), 0);
    json_t *ri = json_array_get(json_object_get(res, "impacts"), 0);
    json_t *tv = json_object_get(json_object_get(ti, "pre"), "v"), *rv = json_object_get(json_object_get(ri, "pre"), "v");
    json_t *g = json_object_get(res, "gravity");
    double t_imp = json_number_value(json_object_get(ri, "time_s"));
    double pre_truth = hypot(jnum_at(tv, 0), jnum_at(tv, 1)), pre = hypot(jnum_at(rv, 0), jnum_at(rv, 1));
    /* the launch speed: the pre-impact flight taken back to the release (t = 0, the
       clip's start) with the gravity the analysis used */
    double lx = jnum_at(rv, 0) - jnum_at(g, 0) * t_imp, ly = jnum_at(rv, 1) - jnum_at(g, 1) * t_imp;
    double launch = hypot(lx, ly), launch_truth = hypot(launch_v[0], launch_v[1]);
    double e = json_number_value(json_object_get(ri, "e_kinematic"));
    double e_truth = json_number_value(json_object_get(ti, "e_kinematic"));
    int have = ri != NULL && ti != NULL;
    json_decref(truth);
    json_decref(res);
    ASSERT(have, "no impact in results.json or truth.json");
    printf("    [ball, scale: gravity, no calibration] scale %.6f +- %.2g (truth %.6f, error %+.3f%%, %.1f sigma) from "
           "%d flight phases\n",
           factor, factor_sd, factor_truth, 100 * (factor / factor_truth - 1), (factor - factor_truth) / factor_sd,
           phases);
    printf("    launch speed %.4f m/s (truth %.4f, %+.3f%%); pre-impact speed %.4f (truth %.4f, %+.3f%%); e %.4f "
           "(truth %.4f)\n",
           launch, launch_truth, 100 * (launch / launch_truth - 1), pre, pre_truth, 100 * (pre / pre_truth - 1), e,
           e_truth);
    /* issue #9's tolerance: the launch speed within 1%; the scale, which multiplies every
       speed, has to be well inside it (0.5%) for that */
    ASSERT(fabs(factor / factor_truth - 1) < 0.005, "scale %.6f vs truth %.6f", factor, factor_truth);
    ASSERT(factor_sd > 0 && factor_sd < 0.005 * factor, "scale sd %.3g", factor_sd);
    ASSERT(fabs(launch / launch_truth - 1) < 0.01, "launch speed %.4f vs %.4f", launch, launch_truth);
    ASSERT(fabs(pre / pre_truth - 1) < 0.01, "pre-impact speed %.4f vs %.4f", pre, pre_truth);
    ASSERT_NEAR(e, e_truth, 0.01); /* issue #9's restitution tolerance */
}

TEST(test_gravity_scale_without_free_flight_fails_naming_the_experiment)
{
    /* 5 frames: no flight phase of 6 frames to scale from; one line naming the file,
       nothing written; the same for a slide (no free flight in it) */
    const char *dir = th_tmpdir();
    char exp_path[1200], odir[1200], path[1300];
    ASSERT(make_experiment(dir, BALL_SCENARIO("320", "180", "400", "0.021"), exp_path, sizeof exp_path) == 0,
           "cannot render or rewrite the ball experiment in %s", dir);
    snprintf(odir, sizeof odir, "%s/out", dir);
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "-q track '%s' -o '%s'", exp_path, odir), 1);
    ASSERT_STR_CONTAINS(p.err, "exp_gravity.yaml: motion_plane.scale: gravity: no free flight of 6 frames or more");
    ASSERT(strchr(p.err, '\n') == p.err + strlen(p.err) - 1, "not one line: %s", p.err);
    snprintf(path, sizeof path, "%s/tracks3d.csv", odir);
    ASSERT(access(path, F_OK) != 0, "%s written on failure", path);
    /* a slide accelerates at g (sin - mu cos): refused, not scaled wrong */
    const char *text = th_read_file(exp_path);
    ASSERT(text != NULL, "%s", exp_path);
    char buf[8192];
    snprintf(buf, sizeof buf, "%sexperiment: slide\n", text);
    ASSERT(th_write_file(exp_path, buf) == 0, "%s", exp_path);
    ASSERT_EQ_INT(th_run_cli(&p, "-q track '%s' -o '%s'", exp_path, odir), 1);
    ASSERT_STR_CONTAINS(p.err, "exp_gravity.yaml: motion_plane.scale: gravity: a slide has no free flight");
    ASSERT(access(path, F_OK) != 0, "%s written on failure", path);
}
