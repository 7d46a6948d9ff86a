/* test_synth_folder.c: `impactcv synth SCENARIO.yaml -o DIR` end to end: the folder
 * per the contract, videos that decode (ffprobe -count_frames) to exactly the frames
 * truth.json lists, determinism for a seed, every codec, and one-line errors. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "tests/harness.h"

static const char *scenario(const char *codec, int planar)
{
    static char text[4096];
    snprintf(text, sizeof text,
             "name: tiny\nseed: 7\nduration: 0.1\nmax_impacts: 1\n"
             "model: {restitution: stronge, mu: 0.3, e_n: 0.5}\n"
             "release: {time: 0.01, position: [0, 0.12, 0], velocity: [0, -1, 0], euler213: [0.2, 1.3, 0.1], omega: [0, 0, 3]}\n"
             "cameras:\n"
             "  - {id: left, width: 160, height: 120, fx: 150, fps: 200, pose: {look_from: %s, look_at: [0, 0.05, 0]}}\n"
             "%s"
             "board: {views: 2}\nrender: {blur_subframes: 2, flash: none}\noutput: {codec: %s}\n",
             planar ? "[0, 0.1, 0.9]" : "[-0.2, 0.3, 0.9]",
             planar ? ""
                    : "  - {id: right, width: 160, height: 120, fx: 150, fps: 200, start_offset_frames: 0.3, "
                      "pose: {look_from: [0.2, 0.3, 0.9], look_at: [0, 0.05, 0]}}\n",
             codec);
    return text;
}

/* frames of a video by decoding it all (ffprobe -count_frames), or -1 */
static int count_frames(const char *path)
{
    th_proc p;
    if (th_run_sh(&p, "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames "
                      "-of csv=p=0 '%s'",
                  path) != 0)
        return -1;
    return atoi(p.out);
}

static int truth_frames(const char *truth, const char *cam)
{
    json_error_t je;
    json_t *t = json_load_file(truth, 0, &je);
    if (!t)
        return -1;
    json_t *m = json_object_get(json_object_get(t, "markers_2d"), cam);
    int n = m ? (int)json_array_size(m) : -1;
    json_decref(t);
    return n;
}

TEST(test_synth_folder_decodes_to_the_frame_counts_truth_lists)
{
    const char *dir = th_tmpdir();
    char sc[4096], out[4096], path[4096];
    snprintf(sc, sizeof sc, "%s/s.yaml", dir);
    snprintf(out, sizeof out, "%s/exp", dir);
    ASSERT_EQ_INT(th_write_file(sc, scenario("h264", 0)), 0);
    th_proc p;
    int st = th_run_cli(&p, "synth '%s' -o '%s'", sc, out);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    /* experiment.yaml is a valid experiment whose files all exist */
    icv_experiment *e = calloc(1, sizeof *e);
    icv_err err;
    snprintf(path, sizeof path, "%s/experiment.yaml", out);
    int rc = icv_experiment_load(path, e, &err);
    if (!rc)
        rc = icv_experiment_check_files(e, &err);
    int ncam = e->n_cameras, sync = e->sync;
    double offset_right = e->sync_offsets[1];
    free(e);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(ncam, 2);
    /* no flash: sync.offsets in capture's convention (an event at time t is at frame
     * t * fps + offset), while the right camera's frame n is at t = (n + 0.3) / fps:
     * the event at frame n gives offset = n - t * fps = -0.3 exactly */
    ASSERT_EQ_INT(sync, ICV_SYNC_OFFSETS);
    ASSERT_NEAR(offset_right, -0.3, 1e-12);
    snprintf(path, sizeof path, "%s/truth.json", out);
    const char *text = th_read_file(path);
    ASSERT_STR_CONTAINS(text, "\"schema\": \"impactcv-truth-1\"");
    ASSERT_STR_CONTAINS(text, "\"contact_velocity\"");
    const char *cams[2] = {"left", "right"};
    for (int i = 0; i < 2; i++) {
        char v[4096];
        snprintf(v, sizeof v, "%s/%s.mp4", out, cams[i]);
        int listed = truth_frames(path, cams[i]);
        ASSERT_EQ_INT(listed, 20); /* 0.1 s at 200 fps */
        ASSERT_EQ_INT(count_frames(v), listed);
    }
    /* the same seed gives the same bytes */
    char out2[4096];
    snprintf(out2, sizeof out2, "%s/exp2", dir);
    ASSERT_EQ_INT(th_run_cli(&p, "synth '%s' -o '%s'", sc, out2), 0);
    ASSERT_EQ_INT(th_run_sh(&p, "cmp '%s/truth.json' '%s/truth.json' && cmp '%s/left.mp4' '%s/left.mp4' && "
                                "cmp '%s/calib/right_01.png' '%s/calib/right_01.png'",
                            out, out2, out, out2, out, out2),
                  0);
}

TEST(test_synth_every_codec_decodes_to_the_listed_frames)
{
    const char *codecs[3] = {"mjpeg", "ffv1", "png"};
    const char *files[3] = {"left.avi", "left.mkv", "left/frame_%06d.png"};
    for (int i = 0; i < 3; i++) {
        const char *dir = th_tmpdir();
        char sc[4096], out[4096], v[4096], truth[4096];
        snprintf(sc, sizeof sc, "%s/s_%s.yaml", dir, codecs[i]);
        snprintf(out, sizeof out, "%s/exp_%s", dir, codecs[i]);
        ASSERT_EQ_INT(th_write_file(sc, scenario(codecs[i], 1)), 0);
        th_proc p;
        int st = th_run_cli(&p, "synth '%s' -o '%s'", sc, out);
        ASSERT(st == 0, "%s: status %d: %s", codecs[i], st, p.err);
        snprintf(v, sizeof v, "%s/%s", out, files[i]);
        snprintf(truth, sizeof truth, "%s/truth.json", out);
        ASSERT(count_frames(v) == truth_frames(truth, "left"), "%s: %d frames decoded, truth lists %d", codecs[i],
               count_frames(v), truth_frames(truth, "left"));
        char yaml[4096];
        snprintf(yaml, sizeof yaml, "%s/experiment.yaml", out);
        ASSERT_STR_CONTAINS(th_read_file(yaml), "line_px:"); /* one camera: planar mode */
        ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", yaml), 0);
    }
}

/* the luma of every frame of a video, as hex digest of its raw bytes (ffmpeg), in out */
static int luma_digest(const char *video, char *out, size_t n)
{
    th_proc p;
    if (th_run_sh(&p, "ffmpeg -v error -i '%s' -vf extractplanes=y -f rawvideo - | sha256sum", video) != 0)
        return -1;
    snprintf(out, n, "%.64s", p.out);
    return 0;
}

TEST(test_synth_crf_0_encodes_the_frames_losslessly)
{
    /* `--crf 0` (the scene study's control without the codec): the H.264 video's luma
     * is byte for byte the lossless FFV1 video's of the same scenario; at the default
     * crf 18 it is not (so the comparison can fail) */
    const char *dir = th_tmpdir();
    char sc[4096], sc2[4096], out[3][4096], v[4096], d[3][80];
    snprintf(sc, sizeof sc, "%s/s.yaml", dir);
    snprintf(sc2, sizeof sc2, "%s/s_ffv1.yaml", dir);
    ASSERT_EQ_INT(th_write_file(sc, scenario("h264", 1)), 0);
    ASSERT_EQ_INT(th_write_file(sc2, scenario("ffv1", 1)), 0);
    const char *opts[3] = {"--crf 0", "", ""};
    for (int i = 0; i < 3; i++) {
        snprintf(out[i], sizeof out[i], "%s/exp%d", dir, i);
        th_proc p;
        int st = th_run_cli(&p, "synth '%s' %s -o '%s'", i == 2 ? sc2 : sc, opts[i], out[i]);
        ASSERT(st == 0, "status %d: %s", st, p.err);
        snprintf(v, sizeof v, "%s/left.%s", out[i], i == 2 ? "mkv" : "mp4");
        ASSERT_EQ_INT(luma_digest(v, d[i], sizeof d[i]), 0);
    }
    ASSERT(!strcmp(d[0], d[2]), "crf 0: the luma differs from FFV1's (%s vs %s)", d[0], d[2]);
    ASSERT(strcmp(d[1], d[2]), "crf 18: the luma equals FFV1's: the comparison cannot fail");
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "synth '%s' --crf 52 -o '%s/bad'", sc, dir), 2);
    ASSERT_STR_CONTAINS(p.err, "--crf needs an integer 0..51");
    /* 2^32 + 5 is not 5 */
    ASSERT_EQ_INT(th_run_cli(&p, "synth '%s' --crf 4294967301 -o '%s/bad'", sc, dir), 2);
    ASSERT_STR_CONTAINS(p.err, "--crf needs an integer 0..51");
}

TEST(test_synth_bad_scenario_fails_with_one_line_naming_the_key)
{
    th_proc p;
    char sc[4096], out[4096];
    snprintf(sc, sizeof sc, "%s", th_tmp("bad.yaml"));
    snprintf(out, sizeof out, "%s", th_tmp("out"));
    ASSERT_EQ_INT(th_write_file(sc, "name: x\ncameras:\n  - {id: a, pose: {look_from: [0, 0.3, 1]}, fps: -5}\n"), 0);
    ASSERT_EQ_INT(th_run_cli(&p, "synth '%s' -o '%s'", sc, out), 1);
    ASSERT_STR_CONTAINS(p.err, "bad.yaml:3: cameras[0].fps: must be in (0, 1e6] Hz");
    ASSERT(strchr(p.err, '\n') == p.err + strlen(p.err) - 1, "not one line: %s", p.err);
    ASSERT_EQ_INT(th_run_cli(&p, "synth '%s'", sc), 2); /* no -o: usage */
}

TEST(test_sample_videos_decode_to_the_frame_counts_truth_lists)
{
    const char *samples[5] = {"01_rod_slope45_stereo", "02_rod_drop_level_stereo", "03_rod_drop_planar",
                              "04_highspeed_1000fps", "05_dark_stickers_light_bar"};
    for (int i = 0; i < 5; i++) {
        char truth[4096], yaml[4096];
        snprintf(truth, sizeof truth, "%s/sample_videos/%s/truth.json", th_root(), samples[i]);
        snprintf(yaml, sizeof yaml, "%s/sample_videos/%s/experiment.yaml", th_root(), samples[i]);
        icv_experiment *e = calloc(1, sizeof *e);
        icv_err err;
        int rc = icv_experiment_load(yaml, e, &err);
        if (!rc)
            rc = icv_experiment_check_files(e, &err);
        ASSERT(rc == 0, "%s: %s", samples[i], err.msg);
        for (int c = 0; c < e->n_cameras; c++) {
            int listed = truth_frames(truth, e->cameras[c].id);
            int decoded = count_frames(e->cameras[c].video);
            if (listed <= 0 || decoded != listed) {
                free(e);
                ASSERT(0, "%s camera %d: %d frames decoded, truth lists %d", samples[i], c, decoded, listed);
            }
        }
        free(e);
    }
}
