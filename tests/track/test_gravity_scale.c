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

#include "tests/analysis/ball_gravity_clip.h"
#include "tests/harness.h"

static double jnum_at(json_t *a, size_t i) { return json_number_value(json_array_get(a, i)); }

typedef struct {
    double factor, factor_sd, factor_truth; /* the plane's provisional depth factor */
    double launch, launch_truth;            /* m/s: speed at the release (t = 0) */
    double pre, pre_truth;                  /* m/s: centre-of-mass speed before the first impact */
    double e, e_truth;
    int phases;
} ball_figures;

/* Renders the ball thrown at (vx, vy), runs track + analyze through the CLI with scale:
 * gravity and no calibration, and reads the figures; the error line in msg on failure. */
static int ball_run(int seed, double vx, double vy, ball_figures *bf, char *msg, size_t n)
{
    ball_clip c;
    if (ball_clip_run(th_tmpdir(), seed, vx, vy, &c, msg, n) != 0)
        return -1;
    /* the scale: the plane's depth through the nominal pinhole (focal length the video's
       larger side, 640 px) that the true camera (fx 800 px, 1 m) gives: 1 m x 640 / 800 */
    bf->factor = json_number_value(json_object_get(c.gs, "factor"));
    bf->factor_sd = json_number_value(json_object_get(c.gs, "factor_sd"));
    bf->phases = (int)json_integer_value(json_object_get(c.gs, "phases"));
    bf->factor_truth = 1.0 * 640 / 800;
    json_t *tv = json_object_get(json_object_get(c.ti, "pre"), "v");
    json_t *rv = json_object_get(json_object_get(c.ri, "pre"), "v");
    json_t *g = json_object_get(c.res, "gravity");
    double t_imp = json_number_value(json_object_get(c.ri, "time_s"));
    bf->pre_truth = hypot(jnum_at(tv, 0), jnum_at(tv, 1));
    bf->pre = hypot(jnum_at(rv, 0), jnum_at(rv, 1));
    /* the launch speed: the pre-impact flight taken back to the release (t = 0, the
       clip's start) with the gravity the analysis used */
    bf->launch = hypot(jnum_at(rv, 0) - jnum_at(g, 0) * t_imp, jnum_at(rv, 1) - jnum_at(g, 1) * t_imp);
    bf->launch_truth = hypot(vx, vy);
    bf->e = json_number_value(json_object_get(c.ri, "e_kinematic"));
    bf->e_truth = json_number_value(json_object_get(c.ti, "e_kinematic"));
    ball_clip_free(&c);
    return 0;
}

static void ball_print(const char *what, const ball_figures *b)
{
    printf("    [%s] scale %.6f +- %.2g (truth %.6f, error %+.3f%%, %.1f sigma) from %d flight phases; launch speed "
           "%.4f m/s (truth %.4f, %+.3f%%); pre-impact speed %.4f (truth %.4f, %+.3f%%); e %.4f (truth %.4f)\n",
           what, b->factor, b->factor_sd, b->factor_truth, 100 * (b->factor / b->factor_truth - 1),
           (b->factor - b->factor_truth) / b->factor_sd, b->phases, b->launch, b->launch_truth,
           100 * (b->launch / b->launch_truth - 1), b->pre, b->pre_truth, 100 * (b->pre / b->pre_truth - 1), b->e,
           b->e_truth);
}

TEST(test_gravity_scale_ball_bounce_launch_speed_within_1_percent)
{
    ball_figures b;
    char msg[1200];
    ASSERT(ball_run(5, 1.0, 0.8, &b, msg, sizeof msg) == 0, "%s", msg);
    ball_print("ball thrown at (1.0, 0.8) m/s, scale: gravity, no calibration", &b);
    /* issue #9's tolerance: the launch speed within 1%; the scale, which multiplies every
       speed, has to be well inside it (0.5%) for that */
    ASSERT(fabs(b.factor / b.factor_truth - 1) < 0.005, "scale %.6f vs truth %.6f", b.factor, b.factor_truth);
    ASSERT(b.factor_sd > 0 && b.factor_sd < 0.005 * b.factor, "scale sd %.3g", b.factor_sd);
    ASSERT(fabs(b.launch / b.launch_truth - 1) < 0.01, "launch speed %.4f vs %.4f", b.launch, b.launch_truth);
    ASSERT(fabs(b.pre / b.pre_truth - 1) < 0.01, "pre-impact speed %.4f vs %.4f", b.pre, b.pre_truth);
    ASSERT_NEAR(b.e, b.e_truth, 0.01); /* issue #9's restitution tolerance */
}

TEST(test_gravity_scale_study_throws_and_seeds)
{
    /* make accuracy: other throws (a drop, a lob, a fast flat throw) and noise seeds;
       the same 1% on the launch speed, and the scale's error against its sigma */
    if (!th_accuracy())
        SKIP("make accuracy only (6 renders)");
    static const double v[][2] = {{0.0, 0.0}, {0.6, 1.2}, {1.6, 0.2}, {1.0, 0.8}, {1.0, 0.8}, {0.3, -0.5}};
    double worst = 0, z2 = 0;
    for (int i = 0; i < 6; i++) {
        ball_figures b;
        char msg[1200], what[64];
        ASSERT(ball_run(11 + i, v[i][0], v[i][1], &b, msg, sizeof msg) == 0, "throw %d: %s", i, msg);
        snprintf(what, sizeof what, "throw (%.1f, %.1f) m/s, seed %d", v[i][0], v[i][1], 11 + i);
        ball_print(what, &b);
        z2 += pow((b.factor - b.factor_truth) / b.factor_sd, 2) / 6;
        /* a drop from rest has launch speed 0: its error is judged against the impact speed */
        double err = b.launch_truth > 0 ? fabs(b.launch / b.launch_truth - 1) : b.launch / b.pre_truth;
        worst = fmax(worst, err);
        ASSERT(err < 0.01, "throw %d: launch speed %.4f vs %.4f", i, b.launch, b.launch_truth);
        ASSERT(fabs(b.pre / b.pre_truth - 1) < 0.01, "throw %d: pre-impact speed %.4f vs %.4f", i, b.pre, b.pre_truth);
    }
    printf("    worst launch speed error %.3f%%; RMS scale error / sigma %.2f\n", 100 * worst, sqrt(z2));
    /* the scale's sigma honest within a factor 2 over six runs (0.99 measured; 1.63
       before the residuals' frame-to-frame correlation was taken into account) */
    ASSERT(sqrt(z2) < 2, "RMS scale error / sigma %.2f", sqrt(z2));
}

TEST(test_gravity_scale_without_free_flight_fails_naming_the_experiment)
{
    /* 5 frames: no flight phase of 6 frames to scale from; one line naming the file,
       nothing written; the same for a slide (no free flight in it) */
    const char *dir = th_tmpdir();
    char scen[2048], exp_path[1200], odir[1200], path[1300];
    ball_scenario(scen, sizeof scen, 320, 180, 400, 0.021, 5, 1.0, 0.8);
    ASSERT(make_experiment(dir, scen, exp_path, sizeof exp_path) == 0,
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
