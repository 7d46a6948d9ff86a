/* ball_gravity_clip.h: a synth ball bounce filmed by one camera with nothing to scale
 * by, as an experiment with `motion_plane: {scale: gravity}` (shared by
 * tests/track/test_gravity_scale.c and tests/analysis/test_planar_scale_sd.c). */
#ifndef TESTS_ANALYSIS_BALL_GRAVITY_CLIP_H
#define TESTS_ANALYSIS_BALL_GRAVITY_CLIP_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"

/* The ball: 20 mm radius, one marker (the whole ball: a bright sphere 0.5 mm larger than
 * the body's, so that it is what the camera sees), thrown at (vx, vy) m/s from
 * (-0.15, 0.25) m at t = 0 (the clip's start), Newton e 0.7, mu 0.2; the camera 1 m
 * in front of the plane, square to it, fx px. */
static void ball_scenario(char *buf, size_t n, int w, int h, double fx, double duration, int seed, double vx,
                          double vy)
{
    snprintf(buf, n,
             "name: ball_bounce_gravity\nseed: %d\nduration: %g\nmax_impacts: 2\n"
             "body:\n  mass: 0.0027\n  inertia: [[7.2e-7, 0, 0], [0, 7.2e-7, 0], [0, 0, 7.2e-7]]\n"
             "  markers: [[0, 0, 0]]\n  marker_diameter: 0.041\n  marker_style: sphere\n"
             "  shape: {type: sphere, radius: 0.02}\n"
             "model: {restitution: newton, mu: 0.2, e_n: 0.7}\n"
             "release: {time: 0.0, position: [-0.15, 0.25, 0], velocity: [%g, %g, 0]}\n"
             "cameras:\n  - {id: cam, width: %d, height: %d, fx: %g, fps: 240, exposure: 0.002,\n"
             "     pose: {look_from: [0.07, 0.14, 1.0], look_at: [0.07, 0.14, 0]}}\n"
             "board: {views: 0}\nrender: {flash: none}\noutput: {codec: h264, crf: 20}\n",
             seed, duration, vx, vy, w, h, fx);
}

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

/* What a run leaves: track_info.json, truth.json and results.json, with their
 * scale_from_gravity and first impacts (free with ball_clip_free) */
typedef struct {
    json_t *info, *truth, *res;
    json_t *gs, *ti, *ri;
} ball_clip;

static void ball_clip_free(ball_clip *c)
{
    json_decref(c->info);
    json_decref(c->truth);
    json_decref(c->res);
}

/* Renders the ball (640x360, fx 800 px, 0.45 s) thrown at (vx, vy) m/s with noise seed
 * `seed` into dir, runs `impactcv track` and `impactcv analyze` with scale: gravity and
 * no calibration into dir/out, and reads what they leave: 0, or -1 with the error line
 * in msg (nothing to free). */
static int ball_clip_run(const char *dir, int seed, double vx, double vy, ball_clip *c, char *msg, size_t n)
{
    char scen[2048], exp_path[1200], odir[1200], path[1300];
    memset(c, 0, sizeof *c);
    ball_scenario(scen, sizeof scen, 640, 360, 800, 0.45, seed, vx, vy);
    if (make_experiment(dir, scen, exp_path, sizeof exp_path) != 0)
        return snprintf(msg, n, "cannot render or rewrite the ball experiment in %s", dir), -1;
    snprintf(odir, sizeof odir, "%s/out", dir);
    th_proc p;
    if (th_run_cli(&p, "-q track '%s' -o '%s'", exp_path, odir) != 0)
        return snprintf(msg, n, "track: %s", p.err), -1;
    if (th_run_cli(&p, "-q analyze '%s' -o '%s'", exp_path, odir) != 0)
        return snprintf(msg, n, "analyze: %s", p.err), -1;
    snprintf(path, sizeof path, "%s/track_info.json", odir);
    c->info = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/exp/truth.json", dir);
    c->truth = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/results.json", odir);
    c->res = json_load_file(path, 0, NULL);
    c->gs = json_object_get(c->info, "scale_from_gravity");
    c->ti = json_array_get(json_object_get(c->truth, "impacts"), 0);
    c->ri = json_array_get(json_object_get(c->res, "impacts"), 0);
    if (!c->gs || !c->ti || !c->ri) {
        ball_clip_free(c);
        return snprintf(msg, n, "no scale_from_gravity in track_info.json, or no impact in results.json or "
                                "truth.json"), -1;
    }
    return 0;
}

#endif
