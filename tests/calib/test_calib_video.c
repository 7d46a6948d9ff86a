/* test_calib_video.c: calibration from a video (calib/video_sample.c). The videos
 * are made here: synth renders the board in 12 whole-board poses (6 for stereo; 640x360, noise 2
 * gray levels), each shown in one frame, duplicated, then moved (a motion-blurred frame),
 * after a few board-less frames, encoded with H.264 (CRF 18) by synth's encoder.
 * Checks: accuracy of the same order as from images (issue #6's synthetic targets),
 * blurred frames rejected, a pose held still kept once, stereo pairing with an
 * offset, and bad input (no board, unreadable video) failing with one line. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "job/job.h"
#include "tests/calib/synth_views.h"
#include "tests/harness.h"

#define POSES 12
#define LEAD 3     /* board-less frames before the first pose */
#define BLUR 12.0  /* px the board moves during a blurred frame's exposure */
#define WIDTH 640
#define ST_POSES 6 /* stereo: at least 5 pairs are needed */

static int is_blurred(const long *blurred, long frame)
{
    for (int p = 0; p < POSES; p++)
        if (blurred[p] == frame)
            return 1;
    return 0;
}

TEST(test_calib_video_mono_keeps_distinct_sharp_views_and_meets_targets)
{
    char path[ICV_PATH_MAX];
    snprintf(path, sizeof path, "%s", th_tmp("calib.mp4"));
    const char *paths[1] = {path};
    sv_set s;
    long blurred[POSES];
    icv_err err = {0};
    int rc = sv_video(&s, 1, WIDTH, POSES, LEAD, 0, BLUR, paths, blurred, &err);
    calib_intrinsics truth = s.in[0];
    calib_board b = s.board;
    sv_free(&s);
    ASSERT(rc == 0, "%s", err.msg);
    calib_camera cam;
    rc = job_calib_camera_from_video(path, &b, NULL, &cam, &err);
    ASSERT(rc == 0, "%s", err.msg);
    calib_sampling sm = cam.sampling;
    int blurred_kept = 0, dup = 0;
    for (int v = 0; v < cam.n_views; v++) {
        blurred_kept += is_blurred(blurred, cam.views[v].frame);
        /* frames 3p + LEAD and 3p + LEAD + 1 show one pose */
        for (int w = 0; w < v; w++)
            dup += (cam.views[v].frame - LEAD) / 3 == (cam.views[w].frame - LEAD) / 3;
    }
    double ef = fmax(fabs(cam.in.fx - truth.fx) / truth.fx, fabs(cam.in.fy - truth.fy) / truth.fy);
    double ec = fmax(fabs(cam.in.cx - truth.cx), fabs(cam.in.cy - truth.cy));
    double ed = sv_distortion_error(&truth, &cam.in);
    if (th_accuracy())
        printf("    video: %ld frames, examined %d, board in %d, %d blurred, %d similar, %d kept; focal %.4f%%, pp %.3f "
               "px, distortion %.3f px, rms %.4f px\n",
               sm.frames, sm.examined, sm.found, sm.blurred, sm.similar, sm.kept, 100 * ef, ec, ed, cam.rms);
    calib_camera_free(&cam);
    ASSERT_EQ_INT(sm.frames, LEAD + 3 * POSES);
    ASSERT_EQ_INT(sm.examined, LEAD + 3 * POSES); /* fewer than max_examined: every frame */
    ASSERT_EQ_INT(blurred_kept, 0);               /* no motion-blurred frame used */
    /* the 12 px blur is found but flagged in most poses (a few may not be found at all) */
    ASSERT(sm.blurred >= POSES / 2, "only %d blurred views recognised as such", sm.blurred);
    ASSERT_EQ_INT(dup, 0);                        /* a duplicated frame is kept once */
    ASSERT_EQ_INT(sm.kept, POSES);                /* and every distinct pose is kept */
    /* issue #6's synthetic targets (stated for 1280x720 images; half the width here) */
    ASSERT(ef < 0.002, "focal length off by %.4f%% (issue #6: 0.2%%)", 100 * ef);
    ASSERT(ec < 1.0, "principal point off by %.3f px (issue #6: 1 px)", ec);
    ASSERT(ed < 0.2, "distortion: worst projection error %.3f px (issue #6: 0.2 px)", ed);
}

TEST(test_calib_video_stereo_cli_pairs_frames_with_an_offset)
{
    char p1[ICV_PATH_MAX], p2[ICV_PATH_MAX], out[ICV_PATH_MAX];
    snprintf(p1, sizeof p1, "%s", th_tmp("left.mp4"));
    snprintf(p2, sizeof p2, "%s", th_tmp("right.mp4"));
    snprintf(out, sizeof out, "%s", th_tmp("stereo.yaml"));
    const char *paths[2] = {p1, p2};
    sv_set s;
    long blurred[POSES];
    icv_err err = {0};
    /* 6 poses, no blurred frames (the mono test has them): camera 1's frame 2p + LEAD
     * is pose p; camera 2's clip starts 2 frames earlier */
    int rc = sv_video(&s, 2, WIDTH, ST_POSES, LEAD, 2, 0, paths, blurred, &err);
    double T[3];
    memcpy(T, s.T, sizeof T);
    sv_free(&s);
    ASSERT(rc == 0, "%s", err.msg);
    static th_proc p;
    th_run_cli(&p, "calib --board 9x6@0.023 --stereo --offset 2 -o %s %s %s", out, p1, p2);
    ASSERT(p.status == 0, "exit %d: %s", p.status, p.err);
    calib_intrinsics in1, in2;
    double R[3][3], Te[3];
    ASSERT(calib_stereo_read(out, &in1, &in2, R, Te, &err) == 0, "%s", err.msg);
    const char *yaml = th_read_file(out);
    ASSERT(yaml, "cannot read %s", out);
    /* every pose once, camera 2's frame = camera 1's + 2 (the summary lists the pairs) */
    int pairs = 0;
    for (int q = 0; q < ST_POSES; q++)
        for (int k = 0; k < 2; k++) {
            char a[64], b[64], line[160];
            snprintf(a, sizeof a, "left.mp4 frame %d", LEAD + 2 * q + k);
            snprintf(b, sizeof b, "right.mp4 frame %d", LEAD + 2 * q + k + 2);
            snprintf(line, sizeof line, "  %-20s %-20s ", a, b); /* as the summary prints a pair */
            pairs += strstr(p.out, line) != NULL;
        }
    const char *r = strstr(yaml, "\nrms: ");
    double rms = r ? atof(r + 6) : 1e9;
    double bt = sqrt(T[0] * T[0] + T[1] * T[1] + T[2] * T[2]);
    double be = sqrt(Te[0] * Te[0] + Te[1] * Te[1] + Te[2] * Te[2]), eb = fabs(be - bt) / bt;
    if (th_accuracy())
        printf("    stereo video: %d pairs, baseline %.4f%% off, rms %.4f px\n", pairs, 100 * eb, rms);
    ASSERT_EQ_INT(pairs, ST_POSES); /* one pair per pose */
    /* paired wrongly (off by the offset), the views would disagree by a whole pose:
     * RMS of tens of px; H.264-compressed frames reproject within 0.1 px */
    ASSERT(rms < 0.1, "stereo rms %.3f px", rms);
    ASSERT(eb < 0.002, "baseline off by %.4f%% (issue #6: 0.2%%)", 100 * eb);
    ASSERT_STR_CONTAINS(p.out, "sampled from the video");
}

TEST(test_calib_video_bad_input_gives_one_clear_line)
{
    /* a video without the board: 8 frames of the empty scene */
    char path[ICV_PATH_MAX], out[ICV_PATH_MAX], broken[ICV_PATH_MAX];
    snprintf(path, sizeof path, "%s", th_tmp("empty.mp4"));
    snprintf(out, sizeof out, "%s", th_tmp("o.yaml"));
    snprintf(broken, sizeof broken, "%s", th_tmp("broken.mp4"));
    const char *paths[1] = {path};
    sv_set s;
    long blurred[POSES];
    icv_err err = {0};
    int rc = sv_video(&s, 1, 320, 0, 8, 0, BLUR, paths, blurred, &err);
    sv_free(&s);
    ASSERT(rc == 0, "%s", err.msg);
    static th_proc p;
    th_run_cli(&p, "calib --board 9x6@0.023 -o %s %s", out, path);
    ASSERT_EQ_INT(p.status, 1);
    ASSERT_STR_CONTAINS(p.err, "empty.mp4: no 9x6 board found in any of 8 frames examined");
    ASSERT(strchr(p.err, '\n') == p.err + strlen(p.err) - 1, "more than one line: %s", p.err);
    ASSERT(!icv_file_exists(out), "output written on failure");
    /* an unreadable video */
    ASSERT_EQ_INT(th_write_file(broken, "this is not a video\n"), 0);
    th_run_cli(&p, "calib --board 9x6@0.023 -o %s %s", out, broken);
    ASSERT_EQ_INT(p.status, 1);
    ASSERT_STR_CONTAINS(p.err, "broken.mp4");
    ASSERT(strchr(p.err, '\n') == p.err + strlen(p.err) - 1, "more than one line: %s", p.err);
    /* two videos that cannot be paired with the offset given */
    th_run_cli(&p, "calib --board 9x6@0.023 --stereo --offset 50 -o %s %s %s", out, path, path);
    ASSERT_EQ_INT(p.status, 1);
    ASSERT_STR_CONTAINS(p.err, "has a partner");
    /* --offset without two videos is a usage error */
    th_run_cli(&p, "calib --board 9x6@0.023 --offset 2 -o %s %s", out, path);
    ASSERT_EQ_INT(p.status, 2);
}
