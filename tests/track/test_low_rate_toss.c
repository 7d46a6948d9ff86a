/* test_low_rate_toss.c: issue #19 item 6, no one-camera frame lost to gravity's bend
 * at a low frame rate. A ball tossed in front of one camera at 15 fps falls 15
 * px/frame^2 in the image; the tracker's filter started every track at an
 * acceleration of 0 +- 2 px/frame^2, so its prediction fell behind the ball by
 * 15-60 px, the tracking window cut the blob under its area minimum and the ball was
 * lost in the last frames while plainly in view. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/harness.h"

/* 11 frames at 15 fps, the ball in view and above the plate in every one */
static const char scenario[] =
    "name: toss15\nseed: 5\nduration: 0.74\nmax_impacts: 0\n"
    "body:\n  mass: 0.0027\n  inertia: [[7.2e-7, 0, 0], [0, 7.2e-7, 0], [0, 0, 7.2e-7]]\n"
    "  markers: [[0, 0, 0]]\n  marker_diameter: 0.041\n  marker_style: sphere\n"
    "  shape: {type: sphere, radius: 0.02}\n"
    "release: {time: 0.0, position: [-0.33, 0.1, 0], velocity: [0.9, 3.3, 0]}\n"
    "cameras:\n  - {id: cam, width: 640, height: 480, fx: 450, fps: 15, exposure: 0.004,\n"
    "     pose: {look_from: [0.0, 0.38, 1.3], look_at: [0.0, 0.38, 0]}}\n"
    "board: {cols: 7, rows: 5, square: 0.03, views: 8, max_tilt: 0.6}\n"
    "render: {flash: none}\noutput: {codec: h264, crf: 20}\n";

/* tracks3d.csv's marker 0 per frame: 1 with its position, 0 for an empty row */
static int read_rows(const char *path, double xy[][2], int *seen, int cap)
{
    const char *s = th_read_file(path);
    int n = 0;
    for (const char *l = s ? strchr(s, '\n') : NULL; l && l[1] && n < cap; l = strchr(l + 1, '\n')) {
        long f;
        double t, x, y;
        int k = sscanf(l + 1, "%ld,%lf,%lf,%lf", &f, &t, &x, &y);
        if (k < 2 || f != n)
            return -1;
        seen[n] = k == 4;
        xy[n][0] = k == 4 ? x : NAN, xy[n][1] = k == 4 ? y : NAN;
        n++;
    }
    return n;
}

static void toss_every_frame(const char *plane_sed, const char *what)
{
    const char *d = th_tmpdir();
    th_proc p;
    char path[1200];
    snprintf(path, sizeof path, "%s/scenario.yaml", d);
    ASSERT(th_write_file(path, scenario) == 0, "%s", path);
    ASSERT_EQ_INT(th_run_cli(&p, "-q synth '%s' -o '%s/exp'", path, d), 0);
    ASSERT_EQ_INT(th_run_sh(&p, "sed '%s' '%s/exp/experiment.yaml' > '%s/exp/exp.yaml'", plane_sed, d, d), 0);
    int st = th_run_cli(&p, "-q track '%s/exp/exp.yaml' -o '%s/out'", d, d);
    ASSERT(st == 0, "%s: track: %s", what, p.err);
    snprintf(path, sizeof path, "%s/exp/truth.json", d);
    json_t *truth = json_load_file(path, 0, NULL);
    ASSERT(truth != NULL, "%s", path);
    json_t *m2 = json_object_get(json_object_get(truth, "markers_2d"), "cam");
    json_t *m3 = json_object_get(truth, "markers_3d");
    double xy[32][2];
    int seen[32];
    snprintf(path, sizeof path, "%s/out/tracks3d.csv", d);
    int n = read_rows(path, xy, seen, 32), in_view = 0, kept = 0;
    double worst = 0;
    for (int f = 0; f < n; f++) {
        json_t *uv = json_array_get(json_object_get(json_array_get(m2, (size_t)f), "uv"), 0);
        if (!json_is_array(uv))
            continue;
        in_view++;
        kept += seen[f];
        json_t *X = json_array_get(json_object_get(json_array_get(m3, (size_t)f), "positions"), 0);
        if (seen[f])
            worst = fmax(worst, hypot(xy[f][0] - json_number_value(json_array_get(X, 0)),
                                      xy[f][1] - json_number_value(json_array_get(X, 1))));
    }
    json_decref(truth);
    printf("    %s: %d of %d frames with the ball in view reach tracks3d, worst %.2f mm from the truth\n", what,
           kept, in_view, 1e3 * worst);
    ASSERT(n == 11 && in_view == 11, "%s: %d rows, %d frames with the ball in view (11 made)", what, n, in_view);
    ASSERT(kept == in_view, "%s: %d of %d frames with the ball in view reach tracks3d", what, kept, in_view);
    /* one camera, the plane from the board (or the scale from the ball's fall over 11
       frames: its factor's sigma ~1%): 5 mm is 1.3% of the 0.4 m the ball is from the
       plane's origin, or 1.7 px at 340 px/m */
    ASSERT(worst < 0.005, "%s: a position %.2f mm from the truth", what, 1e3 * worst);
}

TEST(test_low_rate_toss_15_fps_every_frame_with_the_ball_reaches_tracks3d)
{
    /* the motion plane from the board (depth known); before: frame 10 lost ("marker 0
       missing in frame 10 ... not found") */
    toss_every_frame("s/x/x/", "15 fps, motion plane from the board");
}

TEST(test_low_rate_toss_15_fps_scale_from_gravity_every_frame_reaches_tracks3d)
{
    /* scale: gravity: the depth is provisional while tracking; the marker's measured
       size gives the tracker its image-plane gravity (the look given: auto weighs it
       on 9 frames of 11, where the ball's 1 blob a frame is not told from noise) */
    toss_every_frame("s/^  images: {cam: plane_cam.png}/  scale: gravity/; $a track: {markers: bright}",
                     "15 fps, scale from gravity");
}
