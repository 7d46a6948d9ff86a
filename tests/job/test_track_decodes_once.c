/* test_track_decodes_once.c: `impactcv track` on sample 01 (2 x 76 frames of H.264,
 * track.markers auto) decodes each frame of its videos once: the auto look's trials
 * (frames a tenth in, and the left camera's still background from 15 frames spread
 * over its clip) are kept for the 2D pass (capture_options.keep_bytes), which decodes
 * none of them again. Before, the trials cost ~0.7 decodes of the clip more (253
 * frames; docs/track.md, "Session 27"). The sample's experiment with bench_pipeline's
 * calibration file and surface plane, so that nothing but the videos is decoded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "job/job.h"
#include "tests/harness.h"

#define SAMPLE "01_rod_slope45_stereo"
#define FRAMES_PER_CAMERA 76

TEST(test_track_decodes_each_frame_of_its_videos_once)
{
    char root[4096], dir[1024], truth_path[1200], yaml[1200], out[1200];
    ASSERT_TRUE(realpath(th_root(), root) != NULL);
    snprintf(dir, sizeof dir, "%s", th_tmp("decodes_once"));
    ASSERT_EQ_INT(icv_mkdirs(dir, NULL), 0);
    /* bench_pipeline's: the sample's true cameras (truth.json), R = R2 R1^T, T = t2 - R t1 */
    snprintf(truth_path, sizeof truth_path, "%s/true.yaml", dir);
    FILE *fp = fopen(truth_path, "w");
    ASSERT_TRUE(fp != NULL);
    fprintf(fp, "%%YAML:1.0\n---\nimage_width: 1280\nimage_height: 720\n"
                "M1: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                "   data: [1100., 0., 639.5, 0., 1100., 359.5, 0., 0., 1.]\n"
                "D1: !!opencv-matrix\n   rows: 1\n   cols: 5\n   dt: d\n   data: [-0.12, 0.08, 0., 0., 0.]\n"
                "M2: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                "   data: [1080., 0., 639.5, 0., 1080., 359.5, 0., 0., 1.]\n"
                "D2: !!opencv-matrix\n   rows: 1\n   cols: 5\n   dt: d\n   data: [-0.1, 0.05, 0.0005, -0.0004, 0.]\n"
                "R: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                "   data: [0.6363636363636, 0.2226808857076, -0.738548945876, -0.2226808857076, 0.969696969697,\n"
                "          0.1005037815259, 0.738548945876, 0.1005037815259, 0.6666666666667]\n"
                "T: !!opencv-matrix\n   rows: 3\n   cols: 1\n   dt: d\n"
                "   data: [0.6874458656373, -0.09354953314429, 0.3102687007525]\n");
    ASSERT_EQ_INT(fclose(fp), 0);
    /* the sample's experiment, its calibration and surface replaced (lines of their own) */
    char sample_yaml[4200], line[1024];
    snprintf(sample_yaml, sizeof sample_yaml, "%s/sample_videos/%s/experiment.yaml", root, SAMPLE);
    snprintf(yaml, sizeof yaml, "%s/experiment.yaml", dir);
    FILE *in = fopen(sample_yaml, "r");
    ASSERT(in != NULL, "cannot read %s", sample_yaml);
    fp = fopen(yaml, "w");
    int skipping = 0;
    while (fp && fgets(line, sizeof line, in)) {
        if (skipping && line[0] == ' ')
            continue;
        skipping = !strncmp(line, "calibration:", 12) || !strncmp(line, "surface:", 8);
        if (!strncmp(line, "calibration:", 12))
            fprintf(fp, "calibration: {file: true.yaml}\n");
        else if (!strncmp(line, "surface:", 8))
            fprintf(fp, "surface: {plane: {point: [0.06, 0.0, 1.07], normal: [0.3, 0.49, 0.82]}}\n");
        else if (!strncmp(line, "    video: ", 11))
            fprintf(fp, "    video: %s/sample_videos/%s/%s", root, SAMPLE, line + 11);
        else
            fputs(line, fp);
    }
    fclose(in);
    ASSERT_TRUE(fp != NULL);
    ASSERT_EQ_INT(fclose(fp), 0);
    snprintf(out, sizeof out, "%s/out", dir);
    job_track_result r;
    icv_err err = {0};
    long before = capture_decoded_frames();
    int rc = job_track_run(yaml, out, NULL, &r, &err);
    long decoded = capture_decoded_frames() - before;
    ASSERT(rc == 0, "track: %s", err.msg);
    ASSERT_EQ_INT(r.frames[0], FRAMES_PER_CAMERA);
    ASSERT_EQ_INT(r.frames[1], FRAMES_PER_CAMERA);
    /* exact: a frame decoded twice is the waste this test is for */
    ASSERT(decoded == 2 * FRAMES_PER_CAMERA, "%ld frames decoded for 2 x %d", decoded, FRAMES_PER_CAMERA);
}
