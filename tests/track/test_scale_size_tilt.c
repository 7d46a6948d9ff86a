/* test_scale_size_tilt.c: one camera with `motion_plane: {scale: size}` looking down at
 * the plane of motion, as a phone held above a bounce does (the green ball's phone looks
 * down 8.6-11 degrees: docs/experiment.md). The plane is then not square to the camera:
 * its image-to-plane map is a homography, and one px-to-m scale shortens the fall by
 * ~cos(a) - y sin(a) at normalised image height y. The ball's apparent size measures the
 * depth in every frame, so the plane's tilt can be fitted from it (job/track_size_scale.c). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/harness.h"

static double num_at(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

/* Renders a ball bounce (the ball_gravity_clip.h ball: 41 mm, e 0.7, thrown at (0.8,
 * 0.5) m/s from (-0.15, 0.25) m) seen by a 640x480 camera of fx 640 px (the nominal
 * pinhole the track stage takes without a calibration: the test measures the tilt's fit,
 * not a focal length) 0.8 m from the point (0.03, 0.26) of the plane, pitched down by
 * pitch_deg and turned by yaw_deg about the vertical, at fps; writes an experiment with
 * scale: {size: 0.041}, synth's true floor line and track.markers: bright (the automatic
 * look finds no marker in the pitched view: its threshold came out 254 gray levels), runs
 * track and analyze into DIR/out.
 * 0, or -1 with the reason in msg. info, res, truth: the runs' files (json_decref). */
/* The image segments (px) of two lines vertical in the world, x = -0.1 and 0.2 m in the
 * plane z = 0 from y = 0.05 to 0.45 m, through the truth's camera (K [R | t]) */
static int project_verticals(const char *truth_path, char *out, size_t n)
{
    json_t *t = json_load_file(truth_path, 0, NULL), *c = json_array_get(json_object_get(t, "cameras"), 0);
    if (!c)
        return json_decref(t), -1;
    double K[3][3], R[3][3], tv[3];
    for (int i = 0; i < 3; i++) {
        tv[i] = json_number_value(json_array_get(json_object_get(c, "t"), (size_t)i));
        for (int j = 0; j < 3; j++) {
            K[i][j] = json_number_value(json_array_get(json_array_get(json_object_get(c, "K"), (size_t)i), (size_t)j));
            R[i][j] = json_number_value(json_array_get(json_array_get(json_object_get(c, "R"), (size_t)i), (size_t)j));
        }
    }
    json_decref(t);
    size_t len = (size_t)snprintf(out, n, "[");
    for (int k = 0; k < 2; k++) {
        for (int e = 0; e < 2; e++) {
            double X[3] = {k ? 0.2 : -0.1, e ? 0.45 : 0.05, 0}, xc[3];
            for (int i = 0; i < 3; i++)
                xc[i] = R[i][0] * X[0] + R[i][1] * X[1] + R[i][2] * X[2] + tv[i];
            double u = (K[0][0] * xc[0] + K[0][1] * xc[1]) / xc[2] + K[0][2], v = K[1][1] * xc[1] / xc[2] + K[1][2];
            len += (size_t)snprintf(out + len, n - len, "%s[%.3f, %.3f]%s", e ? "" : (k ? ", [" : "["), u, v,
                                    e ? "]" : ", ");
        }
    }
    snprintf(out + len, n - len, "]");
    return 0;
}

static int tilted_run_verticals(const char *dir, double pitch_deg, double yaw_deg, double fps, int verticals,
                                json_t **info, json_t **res, json_t **truth, char *msg, size_t n);

static int tilted_run(const char *dir, double pitch_deg, double yaw_deg, double fps, json_t **info, json_t **res,
                      json_t **truth, char *msg, size_t n)
{
    return tilted_run_verticals(dir, pitch_deg, yaw_deg, fps, 0, info, res, truth, msg, n);
}

/* As tilted_run; verticals 1: motion_plane.verticals_px given (project_verticals) */
static int tilted_run_verticals(const char *dir, double pitch_deg, double yaw_deg, double fps, int verticals,
                                json_t **info, json_t **res, json_t **truth, char *msg, size_t n)
{
    const double D = 0.8, a = pitch_deg * M_PI / 180, b = yaw_deg * M_PI / 180;
    double look[3] = {0.03, 0.26, 0};
    double from[3] = {look[0] + D * cos(a) * sin(b), look[1] + D * sin(a), D * cos(a) * cos(b)};
    char scen[2048], path[1300], out[1200];
    snprintf(scen, sizeof scen,
             "name: ball_bounce_tilted\nseed: 3\nduration: 0.45\nmax_impacts: 2\n"
             "body:\n  mass: 0.0027\n  inertia: [[7.2e-7, 0, 0], [0, 7.2e-7, 0], [0, 0, 7.2e-7]]\n"
             "  markers: [[0, 0, 0]]\n  marker_diameter: 0.041\n  marker_style: sphere\n"
             "  shape: {type: sphere, radius: 0.02}\n"
             "model: {restitution: newton, mu: 0.2, e_n: 0.7}\n"
             "release: {time: 0.0, position: [-0.15, 0.25, 0], velocity: [0.8, 0.5, 0]}\n"
             "cameras:\n  - {id: cam, width: 640, height: 480, fx: 640, fps: %g, exposure: %g,\n"
             "     pose: {look_from: [%.6f, %.6f, %.6f], look_at: [%g, %g, %g]}}\n"
             "board: {views: 0}\nrender: {flash: none}\noutput: {codec: h264, crf: 20}\n",
             fps, fmin(0.002, 0.25 / fps), from[0], from[1], from[2], look[0], look[1], look[2]);
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    snprintf(out, sizeof out, "%s/exp", dir);
    th_proc p;
    if (th_write_file(path, scen) || th_run_cli(&p, "-q synth '%s' -o '%s'", path, out) != 0)
        return snprintf(msg, n, "synth: %s", p.err), -1;
    /* synth's experiment without its calibration and board: one camera, nothing but the
       ball to scale by, its floor line kept */
    if (th_run_sh(&p,
                  "cd '%s' && sed -e '/^calibration:/,/^  images:/d' -e 's/^  images: {cam: plane_cam.png}/  scale: "
                  "{size: 0.041}/' -e '$a track: {markers: bright}' experiment.yaml > exp_size.yaml && grep -q "
                  "'scale: {size' exp_size.yaml && ! grep -q '^calibration' exp_size.yaml",
                  out) != 0)
        return snprintf(msg, n, "cannot rewrite %s/experiment.yaml: %s", out, p.err), -1;
    if (verticals) {
        char segs[512];
        snprintf(path, sizeof path, "%s/truth.json", out);
        if (project_verticals(path, segs, sizeof segs) ||
            th_run_sh(&p, "cd '%s' && sed -i '/^  scale: {size: 0.041}/a\\  verticals_px: %s' exp_size.yaml && grep -q "
                          "verticals_px exp_size.yaml",
                      out, segs) != 0)
            return snprintf(msg, n, "cannot add the verticals to %s/exp_size.yaml: %s", out, p.err), -1;
    }
    char exp_path[1300], odir[1300];
    snprintf(exp_path, sizeof exp_path, "%s/exp_size.yaml", out);
    snprintf(odir, sizeof odir, "%s/out", dir);
    if (th_run_cli(&p, "-q track '%s' -o '%s'", exp_path, odir) != 0)
        return snprintf(msg, n, "track: %s", p.err), -1;
    if (th_run_cli(&p, "-q analyze '%s' -o '%s'", exp_path, odir) != 0)
        return snprintf(msg, n, "analyze: %s", p.err), -1;
    snprintf(path, sizeof path, "%s/track_info.json", odir);
    *info = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/results.json", odir);
    *res = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/truth.json", out);
    *truth = json_load_file(path, 0, NULL);
    if (!*info || !*res || !*truth)
        return snprintf(msg, n, "a run left no track_info.json, results.json or truth.json in %s", dir), -1;
    return 0;
}

/* |g| (m/s^2) and the first impact's e error of a run; the size scale's tilt (deg) */
static void measured(json_t *info, json_t *res, json_t *truth, double *g, double *de, double *tilt, double *tilt_sd,
                     int *tilted)
{
    json_t *gv = json_object_get(res, "gravity");
    *g = hypot(hypot(json_number_value(json_array_get(gv, 0)), json_number_value(json_array_get(gv, 1))),
               json_number_value(json_array_get(gv, 2)));
    json_t *ri = json_array_get(json_object_get(res, "impacts"), 0);
    json_t *ti = json_array_get(json_object_get(truth, "impacts"), 0);
    *de = ri && ti ? num_at(ri, "e_kinematic") - num_at(ti, "e_kinematic") : NAN;
    json_t *ss = json_object_get(info, "scale_from_size");
    *tilt = json_is_number(json_object_get(ss, "tilt_deg")) ? num_at(ss, "tilt_deg") : NAN;
    *tilt_sd = json_is_number(json_object_get(ss, "tilt_sd_deg")) ? num_at(ss, "tilt_sd_deg") : NAN;
    *tilted = json_is_true(json_object_get(ss, "tilted"));
}

TEST(test_scale_size_camera_pitched_12_degrees_gives_g_and_e)
{
    /* pitched down 12 degrees, the flights in the image's lower half (normalised height
       0-0.35): one scale shortens the fall ~5% (cos 12 - 0.15 sin 12 = 0.947). Truth:
       |g| 9.81, synth's e. Tolerance: |g| within 2% (issue #19's figure for the green
       ball; the tilt's fit from ~100 outlines of 1% spread each puts the pitch within
       ~0.5 degree, 0.3% of the fall, and the outline's fit 0.2%); e within 0.02 (the
       issue's figure); the tilt within 2 degrees and 3 of its sigmas (the fit's and the
       outline's bias, 0.5 degree, together) */
    char msg[1024];
    json_t *info = NULL, *res = NULL, *truth = NULL;
    ASSERT(tilted_run(th_tmpdir(), 12, 0, 240, &info, &res, &truth, msg, sizeof msg) == 0, "%s", msg);
    double g, de, tilt, tilt_sd;
    int tilted;
    measured(info, res, truth, &g, &de, &tilt, &tilt_sd, &tilted);
    json_decref(info), json_decref(res), json_decref(truth);
    printf("    pitch 12 deg: |g| %.3f m/s^2 (%+.2f%%), e %+.4f from the truth, tilt fitted %.2f +- %.2f deg (%s)\n", g,
           100 * (g / 9.81 - 1), de, tilt, tilt_sd, tilted ? "applied" : "not applied");
    ASSERT(fabs(g / 9.81 - 1) < 0.02, "|g| %.3f m/s^2, %+.2f%% from 9.81", g, 100 * (g / 9.81 - 1));
    ASSERT(fabs(de) < 0.02, "e %+.4f from the truth", de);
    ASSERT(tilted && fabs(tilt - 12) < 2 && fabs(tilt - 12) < 3 * tilt_sd,
           "tilt %.2f +- %.2f deg (%s), truth 12", tilt, tilt_sd, tilted ? "applied" : "not applied");
}

TEST(test_scale_size_camera_square_to_the_plane_keeps_one_scale)
{
    /* the camera square to the plane (pitch 0): no tilt is significant, one scale is
       kept (the tilt's sigma, not a fitted noise, is what the result carries), and
       |g| within 1% (the flat scale's own test: 0.2% from the outline) */
    char msg[1024];
    json_t *info = NULL, *res = NULL, *truth = NULL;
    ASSERT(tilted_run(th_tmpdir(), 0, 0, 240, &info, &res, &truth, msg, sizeof msg) == 0, "%s", msg);
    double g, de, tilt, tilt_sd;
    int tilted;
    measured(info, res, truth, &g, &de, &tilt, &tilt_sd, &tilted);
    json_decref(info), json_decref(res), json_decref(truth);
    printf("    pitch 0: |g| %.3f m/s^2 (%+.2f%%), e %+.4f from the truth, tilt fitted %.2f +- %.2f deg (%s)\n", g,
           100 * (g / 9.81 - 1), de, tilt, tilt_sd, tilted ? "applied" : "not applied");
    ASSERT(fabs(g / 9.81 - 1) < 0.01, "|g| %.3f m/s^2, %+.2f%% from 9.81", g, 100 * (g / 9.81 - 1));
    ASSERT(fabs(de) < 0.02, "e %+.4f from the truth", de);
    ASSERT(!tilted, "a tilt of %.2f +- %.2f deg applied to a camera square to the plane", tilt, tilt_sd);
}

TEST(test_scale_size_camera_pitched_and_turned_gives_g_and_e)
{
    /* pitched down 8 degrees and turned 20 about the vertical (the plane's right side
       further away): the ball crosses the image, so both slopes are measured. Truth
       and tolerances as the pitched camera's: |g| within 2%, e within 0.02, the tilt
       (acos(cos 8 cos 20) = 21.5 degrees) within 2 degrees and 3 sigmas */
    char msg[1024];
    json_t *info = NULL, *res = NULL, *truth = NULL;
    ASSERT(tilted_run(th_tmpdir(), 8, 20, 240, &info, &res, &truth, msg, sizeof msg) == 0, "%s", msg);
    double g, de, tilt, tilt_sd, want = acos(cos(8 * M_PI / 180) * cos(20 * M_PI / 180)) * 180 / M_PI;
    int tilted;
    measured(info, res, truth, &g, &de, &tilt, &tilt_sd, &tilted);
    json_decref(info), json_decref(res), json_decref(truth);
    printf("    pitch 8, yaw 20 deg: |g| %.3f m/s^2 (%+.2f%%), e %+.4f from the truth, tilt fitted %.2f +- %.2f deg "
           "(%s; truth %.2f)\n",
           g, 100 * (g / 9.81 - 1), de, tilt, tilt_sd, tilted ? "applied" : "not applied", want);
    ASSERT(fabs(g / 9.81 - 1) < 0.02, "|g| %.3f m/s^2, %+.2f%% from 9.81", g, 100 * (g / 9.81 - 1));
    ASSERT(fabs(de) < 0.02, "e %+.4f from the truth", de);
    ASSERT(tilted && fabs(tilt - want) < 2 && fabs(tilt - want) < 3 * tilt_sd, "tilt %.2f +- %.2f deg (%s), truth %.2f",
           tilt, tilt_sd, tilted ? "applied" : "not applied", want);
}

TEST(test_scale_size_camera_pitched_12_degrees_at_30_fps_with_verticals)
{
    /* pitched down 12 degrees at 30 fps: the ball's 5 slowest outlines are too few for
       the tilt's fit (docs/experiment.md: |g| -4.80% with one scale). Two lines vertical
       in the world given (their image through the true camera) turn the plane: |g|
       within 1% (the flat scale's own 0.2-0.4% and the fit of 4-5 frames a flight), e
       within 0.02 (issue #19), the pitch within 0.5 degree (exact segments: the
       vanishing point is exact; the nominal focal length is the true 640 px) */
    char msg[1024];
    json_t *info = NULL, *res = NULL, *truth = NULL;
    ASSERT(tilted_run_verticals(th_tmpdir(), 12, 0, 30, 1, &info, &res, &truth, msg, sizeof msg) == 0, "%s", msg);
    double g, de, tilt, tilt_sd;
    int tilted;
    measured(info, res, truth, &g, &de, &tilt, &tilt_sd, &tilted);
    json_t *ss = json_object_get(info, "scale_from_size");
    double pitch = num_at(ss, "pitch_deg");
    const char *from = json_string_value(json_object_get(ss, "tilt_from"));
    int by_verticals = from && !strcmp(from, "verticals_px");
    double focal_sd = num_at(ss, "focal_rel_sd");
    json_decref(info), json_decref(res), json_decref(truth);
    printf("    pitch 12 deg at 30 fps, verticals given: |g| %.3f m/s^2 (%+.2f%%), e %+.4f from the truth, pitch %.3f "
           "deg (%s)\n",
           g, 100 * (g / 9.81 - 1), de, pitch, by_verticals ? "from the verticals" : "not from them");
    ASSERT(tilted && by_verticals, "the plane not turned by the verticals");
    ASSERT(fabs(pitch - 12) < 0.5, "pitch %.3f deg, truth 12", pitch);
    ASSERT(fabs(g / 9.81 - 1) < 0.01, "|g| %.3f m/s^2, %+.2f%% from 9.81", g, 100 * (g / 9.81 - 1));
    /* no calibration: the nominal focal length's 20% carried into the scale. Re-run
       with the focal length given 0.78 and 1.2 times the nominal, the green ball's |g|
       moved 0.26% per 10% (docs/experiment.md); this 12 degree pitch is near its 11:
       within 0.2-1.5% */
    printf("    the nominal focal length's part of the scale: %.2f%%\n", 100 * focal_sd);
    ASSERT(focal_sd > 0.002 && focal_sd < 0.015, "focal length's scale sigma %.4f", focal_sd);
    ASSERT(fabs(de) < 0.02, "e %+.4f from the truth", de);
}
