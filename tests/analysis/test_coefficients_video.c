/* test_coefficients_video.c: mu_k, mu_s and e_n measured by `impactcv coefficients`
 * on synth's rendered videos of a slide, a tilt and a drop (issue #11: each within
 * 0.01 of the truth, sigmas honest over seeds), and bad input on video: one line each,
 * and nothing left in DIR. Videos are 640x480 and short (66-96 frames, 9 board views
 * placed where both cameras see them) so that each test takes seconds; the seed study
 * (whose sigmas must be honest) runs under `make accuracy`. */
#include <jansson.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/coefficients.h"
#include "synth/synth.h"
#include "job/job.h"
#include "tests/harness.h"

/* a box with three stickers on its top face, resting on the plate (slide, tilt) */
#define BOX_BODY                                                                                                   \
    "body:\n"                                                                                                      \
    "  mass: 0.2\n"                                                                                                \
    "  inertia: [[1.0e-4, 0, 0], [0, 1.5e-4, 0], [0, 0, 1.2e-4]]\n"                                                \
    "  markers: [[-0.028, 0.015, 0.004], [0.012, 0.015, -0.016], [0.022, 0.015, 0.014]]\n"                         \
    "  marker_normals: [[0, 1, 0], [0, 1, 0], [0, 1, 0]]\n"                                                        \
    "  marker_diameter: 0.012\n"                                                                                   \
    "  marker_style: sticker\n"                                                                                    \
    "  shape: {type: box, size: [0.08, 0.03, 0.05]}\n"                                                             \
    "max_impacts: 0\n"                                                                                             \
    "render: {flash: none}\n"                                                                                      \
    "output: {codec: h264, crf: 18}\n"

/* the slides' stereo rig at 120 fps. The boards 0.45 m from the cameras: the auto
 * distance left 5 of 12 pairs without the whole board in both views (each a second of
 * failed detection, and seed 18 below the 5 pairs calibration needs) */
#define SLIDE_RIG                                                                                                  \
    "cameras:\n"                                                                                                   \
    "  - {id: left, width: 640, height: 480, fx: 560, dist: [-0.1, 0.05, 0, 0, 0],\n"                              \
    "     pose: {look_from: [-0.12, 0.42, -0.42], look_at: [0.05, 0, -0.03]},\n"                                   \
    "     fps: 120, exposure: 0.002}\n"                                                                            \
    "  - {id: right, width: 640, height: 480, fx: 560, dist: [-0.09, 0.04, 0, 0, 0],\n"                            \
    "     pose: {look_from: [0.1, 0.55, -0.3], look_at: [0.05, 0, -0.03]},\n"                                      \
    "     fps: 120, exposure: 0.002}\n"                                                                            \
    "board: {cols: 9, rows: 6, square: 0.023, views: 9, distance: 0.45}\n"

/* 20 deg incline, mu_k given, released at 0.1 s, for 0.6 s; the incline from the
 * level board (gravity: auto) */
static const char slide_scn[] = "name: slide\nkind: slide\nseed: %d\nduration: %g\nslope: 0.3490658504\n"
                                "downhill: [-1, 0, 0]\n" BOX_BODY
                                "model: {restitution: newton, mu_s: 0.6, mu_k: %g, e_n: 0.5}\n"
                                "release: {time: 0.1, position: [0.2, 0.015, -0.12]}\n"
                                SLIDE_RIG;

/* the same slide with the incline from a free flight in the clip (issue #11): the box
 * tossed off the plate at 0.02 s at 0.7 m/s along its normal flies 0.152 s (18 frames
 * at 120 fps), lands 0.172 s in (its normal velocity removed: synth's kinematic path)
 * and slides on for 0.27 s; experiment.yaml says coefficients.incline: flight */
static const char flight_scn[] = "name: flight\nkind: slide\nseed: %d\nduration: %g\nslope: 0.3490658504\n"
                                 "downhill: [-1, 0, 0]\n" BOX_BODY
                                 "model: {restitution: newton, mu_s: 0.6, mu_k: %g, e_n: 0.5}\n"
                                 "release: {time: 0.02, position: [%g, 0.015, %g], velocity: [0, 0.7, 0]}\n"
                                 SLIDE_RIG;

/* the plate raised at 0.05 rad/s from 0.2 s, one camera at 60 fps */
static const char tilt_scn[] = "name: tilt\nkind: tilt\nseed: %d\nduration: %g\n"
                               "tilt: {start: %.6f, rate: 0.05, time: 0.2}\n" BOX_BODY
                               "model: {restitution: newton, mu_s: %g, mu_k: 0.25, e_n: 0.5}\n"
                               "release: {position: [-0.08, 0.015, -0.12]}\n"
                               "cameras:\n"
                               "  - {id: cam, width: 640, height: 480, fx: 560, dist: [-0.1, 0.05, 0, 0, 0],\n"
                               "     pose: {look_from: [0.05, 0.5, -0.55], look_at: [-0.02, 0.05, 0]},\n"
                               "     fps: 60, exposure: 0.004}\n"
                               "board: {cols: 9, rows: 6, square: 0.023, views: 9}\n";

/* the seeds' rod dropped upright (euler213 [0.5, tilt, 0]) onto the level plate,
 * stereo at 240 fps with a flash for the sync; the impact at 0.23 s */
static const char drop_scn[] = "name: drop\nkind: drop\nseed: %d\nduration: %g\nmax_impacts: 1\n"
                               TH_ROD_BODY_YAML
                               "model: {restitution: stronge, mu: 0.3, e_n: %g}\n"
                               "release: {time: 0.04, position: [%g, 0.33, %g], euler213: [%g, %g, 0]}\n"
                               "cameras:\n"
                               "  - {id: left, width: 640, height: 480, fx: 700, dist: [-0.12, 0.08, 0, 0, 0],\n"
                               "     pose: {look_from: [-0.3, 0.5, 0.8], look_at: [0, 0.2, 0]}, fps: 240,\n"
                               "     exposure: 0.002}\n"
                               "  - {id: right, width: 640, height: 480, fx: 700, dist: [-0.11, 0.06, 0, 0, 0],\n"
                               "     pose: {look_from: [0.3, 0.5, 0.8], look_at: [0, 0.2, 0]}, fps: 240,\n"
                               "     exposure: 0.002, start_offset_frames: 0.6}\n"
                               "board: {cols: 9, rows: 6, square: 0.023, views: 9}\n"
                               "render: {flash: {time: 0.01, duration: 0.002, gain: 0.8}}\n"
                               "output: {codec: h264, crf: 20}\n";

/* renders the scenario text into dir/<name>/ and returns the experiment's path */
static const char *render(const char *dir, const char *name, const char *text)
{
    static char exp[1024];
    char path[1024], folder[1024];
    snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
    snprintf(folder, sizeof folder, "%s/%s", dir, name);
    th_write_file(path, text);
    synth_scenario *sc = malloc(sizeof *sc);
    icv_err err = {0};
    int rc = sc ? synth_scenario_load(path, sc, &err) : ICV_ENOMEM;
    if (!rc)
        rc = synth_experiment_write(sc, folder, &err);
    free(sc);
    if (rc) {
        th_fail(__FILE__, __LINE__, "synth %s: %s", name, err.msg);
        return NULL;
    }
    snprintf(exp, sizeof exp, "%s/experiment.yaml", folder);
    return exp;
}

/* `impactcv coefficients` through the library job; 0 and the coefficient, or the error */
static int measure(const char *exp, const char *out, analysis_coefficient *c, icv_err *err)
{
    analysis_coefficient rep;
    const char *one[1] = {exp};
    return job_coefficients_run(one, 1, NULL, out, c, &rep, err);
}

typedef struct {
    double worst, z2;
    int n;
} study;

static void record(study *s, const char *what, int seed, double value, double sd, double truth)
{
    double z = (value - truth) / sd;
    printf("     %s run %d: %.5f +- %.5f (truth %.4f, error %+.5f = %+.2f sigma)\n", what, seed, value, sd, truth,
           value - truth, z);
    s->worst = fmax(s->worst, fabs(value - truth));
    s->z2 += z * z;
    s->n++;
}

/* Every kind within 0.01 of the truth; the sigmas honest: errors / sigma over the
 * seeds with an RMS in 0.7-1.5 (issue #11's target). One seed (make test) can only
 * show a sigma too small (|z| < 3.5: 1 in 2000 for an honest one). Several: an RMS
 * below 0.4 or above 2.5 fails: a sigma 2.5 times off (the slide's and the tilt's
 * before this study gave 0.21 and 0.23; an honest sigma gives an RMS of 6 seeds in
 * 0.34-1.76, 99%, so below 0.4 2% of the time); outside 0.7-1.5 the test SKIPs with
 * its figure: the target missed. */
static void check_study(const study *s, const char *what)
{
    double rms = sqrt(s->z2 / s->n);
    printf("     %s over %d seeds: worst error %.5f, RMS error/sigma %.2f\n", what, s->n, s->worst, rms);
    ASSERT_NEAR(s->worst, 0, 0.01);
    if (s->n == 1) {
        ASSERT(rms < 3.5, "%s: the error is %.2f times the reported sigma", what, rms);
        return;
    }
    ASSERT(rms >= 0.4 && rms <= 2.5, "%s: errors are %.2f times the reported sigmas (RMS over %d seeds)", what, rms,
           s->n);
    if (rms < 0.7 || rms > 1.5)
        SKIP("%s: RMS error/sigma %.2f over %d seeds, outside the target 0.7-1.5", what, rms, s->n);
}

/* One kind's seed study: scene(k) writes seed k's scenario and its true coefficient;
 * extra (may be NULL) checks what else the kind reports. */
typedef void (*scene_fn)(int k, char *text, size_t n, double *truth);
typedef void (*extra_fn)(int k, const analysis_coefficient *c);

static void run_study(const char *what, int n_seeds, scene_fn scene, extra_fn extra)
{
    /* rendering, calibrating and tracking a video take minutes under ASan: the plain
     * pass measures the values, the sanitized pass runs the bad-input videos (every
     * kind's scene, the tilt tracker and the job) */
    if (th_sanitized())
        SKIP("%s: measured in the plain pass (a video study takes minutes under ASan)", what);
    const char *d = th_tmpdir();
    study st = {0};
    for (int k = 0; k < n_seeds && !th_failed(); k++) {
        char text[8192], name[32], out[1024];
        double truth;
        scene(k, text, sizeof text, &truth);
        snprintf(name, sizeof name, "run%d", k);
        const char *exp = render(d, name, text);
        if (!exp)
            return;
        snprintf(out, sizeof out, "%s/%s/coeffs", d, name);
        analysis_coefficient c;
        icv_err err = {0};
        ASSERT(measure(exp, out, &c, &err) == 0, "%s", err.msg);
        if (extra)
            extra(k, &c);
        record(&st, what, k, c.value, c.sd, truth);
    }
    check_study(&st, what);
}

static void slide_scene(int k, char *text, size_t n, double *truth)
{
    *truth = 0.2 + 0.05 * (k % 3);
    snprintf(text, n, slide_scn, 11 + k, 0.6, *truth);
}

static void slide_extra(int k, const analysis_coefficient *c)
{
    (void)k;
    ASSERT_EQ_INT(c->n_warnings, 0); /* constant acceleration */
    ASSERT(c->theta_sd > 0, "the incline's sigma from the level board is %g", c->theta_sd);
    /* the residuals' scatter is the centre's noise: tens of micrometres on these
     * stereo tracks (0.3 mm per marker was assumed before) */
    ASSERT(c->noise > 5e-6 && c->noise < 1e-4, "the slide fit's residual scatter is %g m", c->noise);
}

static void flight_scene(int k, char *text, size_t n, double *truth)
{
    *truth = 0.25 + 0.05 * (k % 3);
    /* each seed tossed from elsewhere on the plate (+-2 cm), so that the
     * pose-dependent track errors vary as between repeats (as the drop's; the
     * speed, and with it the frames asserted below, kept) */
    snprintf(text, n, flight_scn, 41 + k, 0.45, *truth, 0.25 + 0.04 * th_uniform((uint64_t)k + 1, 3),
             -0.12 + 0.04 * th_uniform((uint64_t)k + 1, 4));
}

/* The incline from the flight: theta within 6.5e-3 rad of the truth, 4 times its
 * expected sigma (the centre's noise on these tracks, ~0.05 mm, over ~17 frames
 * spanning T ~ 0.14 s: sqrt(720 / 17) 5e-5 / T^2 = 0.016 m/s^2 across g, 1.6e-3 rad),
 * and within 4 of its own reported sigmas; the flight's frames from the first off the
 * plate (the toss at 0.02 s: frame 3) to two before the first on it again (the
 * landing at 0.1719 s: frame 20 is the last in the air, 21 the first on the plate),
 * and the slide's from frame 22 */
static void flight_extra(int k, const analysis_coefficient *c)
{
    (void)k;
    const double th = 0.3490658504;
    printf("     run %d: theta %.5f +- %.5f (error %+.5f = %+.2f sigma), |g| %.4f +- %.4f, flight frames %d-%d, "
           "slide %d-%d\n",
           k, c->theta, c->theta_sd, c->theta - th, (c->theta - th) / c->theta_sd, c->g_norm, c->g_norm_sd,
           c->incline_first, c->incline_last, c->first_frame, c->last_frame);
    ASSERT_STR_CONTAINS(c->incline_method, "flight");
    ASSERT_NEAR(c->theta, th, 6.5e-3);
    ASSERT_NEAR(c->theta, th, 4 * c->theta_sd);
    ASSERT(c->incline_first >= 3 && c->incline_first <= 4, "flight from frame %d", c->incline_first);
    ASSERT(c->incline_last >= 17 && c->incline_last <= 19, "flight to frame %d", c->incline_last);
    ASSERT_EQ_INT(c->first_frame, 22);
    ASSERT_EQ_INT(c->n_warnings, 0);
}

/* onset at 0.8 s: the plate starts 0.03 rad below atan(mu_s) at 0.2 s */
#define TILT_LEAD 0.03

static void tilt_scene(int k, char *text, size_t n, double *truth)
{
    *truth = 0.35 + 0.01 * (k % 3);
    snprintf(text, n, tilt_scn, 21 + k, 1.1, atan(*truth) - TILT_LEAD, *truth);
}

static void tilt_extra(int k, const analysis_coefficient *c)
{
    (void)k;
    ASSERT_EQ_INT(c->n_warnings, 0);
    /* the onset within 3 of its sigmas of the truth (it was a frame late before the
     * growth of the acceleration entered the onset's model) */
    ASSERT_NEAR(c->onset_s, 0.2 + TILT_LEAD / 0.05, 3 * c->onset_sd);
}

static void drop_scene(int k, char *text, size_t n, double *truth)
{
    *truth = 0.4 + 0.1 * (k % 3);
    /* each seed released elsewhere (+-2 cm, the rod turned +-0.2 rad about the
     * vertical), so that the pose-dependent track errors vary as between repeats:
     * with one release per truth the seeds shared them (docs/coefficients.md) */
    double u[3];
    for (int j = 0; j < 3; j++)
        u[j] = th_uniform((uint64_t)k + 1, (uint64_t)j);
    snprintf(text, n, drop_scn, 31 + k, 0.4, *truth, 0.04 * u[0], 0.04 * u[1], 0.5 + 0.4 * u[2], 0.0);
}

/* one seed each in `make test`; six under `make accuracy`, eighteen for the two
 * whose sigma comes from the analysis' noise model (six seeds put an honest RMS
 * error/sigma anywhere in 0.45-1.55) */
#define STUDY_SEEDS 6
#define STUDY_SEEDS_LONG 18

TEST(test_coefficients_video_slide_mu_k)
{
    run_study("slide mu_k", th_accuracy() ? STUDY_SEEDS : 1, slide_scene, slide_extra);
}

TEST(test_coefficients_video_slide_incline_from_flight)
{
    run_study("slide mu_k, incline from flight", th_accuracy() ? STUDY_SEEDS_LONG : 1, flight_scene, flight_extra);
}

TEST(test_coefficients_video_tilt_mu_s)
{
    run_study("tilt mu_s", th_accuracy() ? STUDY_SEEDS : 1, tilt_scene, tilt_extra);
}

/* make accuracy: RMS error/sigma 0.84 over 18 seeds, each released elsewhere; 0.45
 * when the seeds of one truth shared one release (docs/coefficients.md) */
TEST(test_coefficients_video_drop_e_n)
{
    run_study("drop e_n", th_accuracy() ? STUDY_SEEDS_LONG : 1, drop_scene, NULL);
}

/* the last line of stderr: the one line a failed command prints */
static const char *last_line(const char *s)
{
    const char *end = s + strlen(s);
    while (end > s && end[-1] == '\n')
        end--;
    const char *p = end;
    while (p > s && p[-1] != '\n')
        p--;
    return p;
}

TEST(test_coefficients_video_bad_input_one_line_each_nothing_left)
{
    const char *d = th_tmpdir();
    char text[8192], out[1024];
    th_proc p;
    /* a slide where friction holds the body (mu_k 0.5 > tan 20 deg): tracking
     * succeeds, then no motion; DIR held a file before: it is left as it was */
    snprintf(text, sizeof text, slide_scn, 3, 0.3, 0.5);
    const char *exp = render(d, "held", text);
    ASSERT(exp != NULL, "render");
    snprintf(out, sizeof out, "%s/held/c", d);
    icv_err err = {0};
    ASSERT(icv_mkdirs(out, &err) == 0 && th_write_file(th_tmp("held/c/note.txt"), "kept\n") == 0, "%s", err.msg);
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s' -o '%s'", exp, out), 1);
    ASSERT_STR_CONTAINS(last_line(p.err), "impactcv: ");
    ASSERT_STR_CONTAINS(last_line(p.err), "no motion found along the slope");
    ASSERT_EQ_INT(th_dir_count(out, ""), 1); /* note.txt alone: no tracks, no coefficients.json */
    ASSERT_STR_CONTAINS(th_read_file(th_tmp("held/c/note.txt")), "kept");
    if (th_sanitized()) { /* each further case renders a clip: 30 s there, the same error paths */
        printf("    sanitized: the held slide only; the stuck tilt and the tumbling drop in the plain pass\n");
        return;
    }
    /* a tilt that stops before the plate reaches atan(mu_s): the body never slides */
    snprintf(text, sizeof text, tilt_scn, 4, 0.7, 0.29, 0.35);
    exp = render(d, "stuck", text);
    ASSERT(exp != NULL, "render");
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s' -o '%s/stuck/c'", exp, d), 1);
    ASSERT_STR_CONTAINS(last_line(p.err), "the body never slides");
    /* a rod dropped 0.6 rad from upright: it lands on its end and turns over, not a
     * central drop */
    snprintf(text, sizeof text, drop_scn, 5, 0.4, 0.5, 0.0, 0.0, 0.5, 0.6);
    exp = render(d, "tumble", text);
    ASSERT(exp != NULL, "render");
    ASSERT_EQ_INT(th_run_cli(&p, "coefficients '%s' -o '%s/tumble/c'", exp, d), 1);
    ASSERT_STR_CONTAINS(last_line(p.err), "not a drop");
    /* DIR not made, and no working folder left beside it */
    static const char *const sub[] = {"stuck", "tumble"};
    for (int i = 0; i < 2; i++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s/c", d, sub[i]);
        ASSERT(th_dir_count(dir, "") < 0, "%s made on failure", dir);
        snprintf(dir, sizeof dir, "%s/%s", d, sub[i]);
        ASSERT(th_dir_count(dir, "c.") == 0, "a working folder left in %s on failure", dir);
    }
}
