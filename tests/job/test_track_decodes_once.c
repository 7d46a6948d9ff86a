/* test_track_decodes_once.c: `impactcv track` on sample 01 (2 x 76 frames of H.264,
 * track.markers auto) decodes each frame of its videos once: the auto look's trials
 * (frames a tenth in, and the left camera's still background from 15 frames spread
 * over its clip) are kept for the 2D pass (capture_options.keep_bytes), which decodes
 * none of them again. Before, the trials cost ~0.7 decodes of the clip more (253
 * frames; docs/track.md, "Session 27"). The sample's experiment with its true cameras
 * (tests/data/sample01_true_stereo.yaml, as bench_pipeline) and the surface as a plane,
 * so that nothing but the videos is decoded. */
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
    char root[4096], dir[1024], yaml[1200], out[1200];
    ASSERT_TRUE(realpath(th_root(), root) != NULL);
    snprintf(dir, sizeof dir, "%s", th_tmp("decodes_once"));
    ASSERT_EQ_INT(icv_mkdirs(dir, NULL), 0);
    /* the sample's experiment, its calibration and surface replaced (lines of their own) */
    char sample_yaml[4200], line[1024];
    snprintf(sample_yaml, sizeof sample_yaml, "%s/sample_videos/%s/experiment.yaml", root, SAMPLE);
    snprintf(yaml, sizeof yaml, "%s/experiment.yaml", dir);
    FILE *in = fopen(sample_yaml, "r");
    ASSERT(in != NULL, "cannot read %s", sample_yaml);
    FILE *fp = fopen(yaml, "w");
    int skipping = 0;
    while (fp && fgets(line, sizeof line, in)) {
        if (skipping && line[0] == ' ')
            continue;
        skipping = !strncmp(line, "calibration:", 12) || !strncmp(line, "surface:", 8);
        if (!strncmp(line, "calibration:", 12))
            fprintf(fp, "calibration: {file: %s/tests/data/sample01_true_stereo.yaml}\n", root);
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
