/* test_repeated_pictures_video.c: issue #19 item 1, near-duplicate pictures used once.
 * A one-camera ball bounce rendered by synth at 30 pictures/s is stored as a "60 fps"
 * phone file: each picture twice, with fresh sensor-like noise on every stored frame
 * and re-encoded (ffmpeg's fps and noise filters, x264), so no copy equals another. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/harness.h"

static const char scenario[] =
    "name: ball30\nseed: 3\nduration: 0.6\nmax_impacts: 1\n"
    "body:\n  mass: 0.0027\n  inertia: [[7.2e-7, 0, 0], [0, 7.2e-7, 0], [0, 0, 7.2e-7]]\n"
    "  markers: [[0, 0, 0]]\n  marker_diameter: 0.041\n  marker_style: sphere\n"
    "  shape: {type: sphere, radius: 0.02}\n"
    "model: {restitution: newton, mu: 0.2, e_n: 0.8}\n"
    "release: {time: 0.0, position: [-0.25, 0.35, 0], velocity: [0.6, 0.5, 0]}\n"
    "cameras:\n  - {id: cam, width: 640, height: 360, fx: 500, fps: 30, exposure: 0.004,\n"
    "     pose: {look_from: [0.0, 0.2, 1.2], look_at: [0.0, 0.2, 0]}}\n"
    "board: {cols: 7, rows: 5, square: 0.03, views: 12, max_tilt: 0.6}\n"
    "render: {flash: none}\noutput: {codec: h264, crf: 20}\n";

TEST(test_repeated_pictures_phone_file_each_picture_twice_used_once_at_its_time)
{
    const char *d = th_tmpdir();
    th_proc p;
    char path[1200];
    snprintf(path, sizeof path, "%s/scenario.yaml", d);
    ASSERT(th_write_file(path, scenario) == 0, "%s", path);
    ASSERT_EQ_INT(th_run_cli(&p, "-q synth '%s' -o '%s/exp'", path, d), 0);
    ASSERT_EQ_INT(th_run_sh(&p,
                            "ffmpeg -nostdin -v error -y -i '%s/exp/cam.mp4' -vf 'fps=60,noise=alls=4:allf=t' "
                            "-c:v libx264 -crf 20 -pix_fmt yuv420p '%s/exp/cam60.mp4' && "
                            "sed 's/video: cam.mp4/video: cam60.mp4/' '%s/exp/experiment.yaml' > '%s/exp/exp60.yaml'",
                            d, d, d, d),
                  0);
    ASSERT_EQ_INT(th_run_cli(&p, "-q track '%s/exp/exp60.yaml' -o '%s/out'", d, d), 0);
    snprintf(path, sizeof path, "%s/out/track_info.json", d);
    json_t *info = json_load_file(path, 0, NULL);
    ASSERT(info != NULL, "%s", path);
    json_t *cam = json_array_get(json_object_get(info, "cameras"), 0);
    json_t *rep = json_object_get(cam, "repeated_pictures");
    /* the ball moves from the first frame to beyond frame 30: every odd frame up to
       there repeats the even one before it, and no even frame is taken for a repeat */
    size_t odd = 0;
    for (size_t i = 0; i < json_array_size(rep); i++) {
        long f = (long)json_integer_value(json_array_get(rep, i));
        ASSERT(f % 2 == 1, "frame %ld taken for a repeat: it holds a new picture", f);
        odd += f < 31;
    }
    ASSERT(odd == 15, "%zu of the 15 odd frames 1-29 found repeated", odd);
    ASSERT_NEAR(json_number_value(json_object_get(cam, "stored_times")), 2.0, 0.1);
    char *w = json_dumps(json_object_get(info, "warnings"), 0);
    ASSERT_STR_CONTAINS(w, "every picture is stored 2 times while the markers move: the real rate is 30 pictures/s");
    free(w);
    json_decref(info);
    /* the analysis against the truth: within issue #9's tolerances (the impact time
       within 0.2 of the file's frames, 3.3 ms); with each picture counted twice, at its
       own and the next frame's time, the impact came 7.0 ms late and v_post.y 0.02 m/s off */
    int st = th_run_cli(&p, "analyze '%s/exp/exp60.yaml' -o '%s/out' --truth '%s/exp/truth.json'", d, d, d);
    ASSERT(st == 0, "analyze against the truth: %s\n%s", p.err, p.out);
}
