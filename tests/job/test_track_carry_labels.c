/* test_track_carry_labels.c: a point the identity left unlabelled whose 2D tracks carry
 * one marker in the frames it labelled (job/track_3d.c, carry_labels). Tuning scene 1037
 * (a rod with four bright balls of 17.7 px on posts, two cameras, 2000 fps, 94 frames):
 * m3 is hardly seen over the light wall and m0's views disagree where its post hides
 * part of it, so the identity labels a partial set only from frame 36 on; in frames
 * 20-35 m0, m1 and m2 are triangulated on the same 2D tracks it labelled later, and the
 * body was not posed there, before the impact at frame 41. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "job/job.h"
#include "tests/harness.h"

#define NM 4

/* Frames of tracks3d.csv in dir with 3 markers or more (a pose of this template; its
 * balls on posts are off the rod's line), *worst the largest distance (m) of their
 * positions from truth's markers_3d, *early those frames before frame 36. */
static int posed_frames(const char *dir, json_t *truth, double *worst, int *early)
{
    char path[1200], line[1024];
    snprintf(path, sizeof path, "%s/tracks3d.csv", dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    json_t *m3 = json_object_get(truth, "markers_3d");
    int n = 0;
    *worst = 0;
    *early = 0;
    if (!fgets(line, sizeof line, fp)) { /* header */
        fclose(fp);
        return -1;
    }
    while (fgets(line, sizeof line, fp)) {
        double v[2 + NM * 3];
        int k = 0;
        char *s = line;
        for (; k < 2 + NM * 3; k++) {
            char *e;
            v[k] = *s == ',' || *s == '\n' ? NAN : strtod(s, &e);
            if (*s != ',' && *s != '\n')
                s = e;
            if (*s == ',')
                s++;
        }
        int f = (int)v[0], have = 0;
        for (int m = 0; m < NM; m++)
            have += isfinite(v[2 + 3 * m]);
        if (have < 3)
            continue;
        n++;
        *early += f < 36;
        json_t *pos = json_object_get(json_array_get(m3, (size_t)f), "positions");
        for (int m = 0; m < NM; m++) {
            if (!isfinite(v[2 + 3 * m]))
                continue;
            double d2 = 0;
            for (int a = 0; a < 3; a++) {
                double d = v[2 + 3 * m + a] - json_number_value(json_array_get(json_array_get(pos, (size_t)m), (size_t)a));
                d2 += d * d;
            }
            *worst = fmax(*worst, sqrt(d2));
        }
    }
    fclose(fp);
    return n;
}

TEST(test_track_carry_labels_poses_the_frames_before_the_identity_settled)
{
    if (th_sanitized())
        SKIP("renders and tracks a 94-frame stereo scene twice: the plain pass covers it");
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "-q synth --random 1037 -o '%s/exp'", th_tmpdir()), 0);
    char yaml[1100], path[1100];
    snprintf(yaml, sizeof yaml, "%s/exp/experiment.yaml", th_tmpdir());
    snprintf(path, sizeof path, "%s/exp/truth.json", th_tmpdir());
    json_t *truth = json_load_file(path, 0, NULL);
    ASSERT(truth != NULL, "%s", path);
    int n[2], early[2];
    double worst[2];
    for (int on = 0; on < 2; on++) {
        job_track_options opt;
        job_track_options_default(&opt);
        opt.carry_labels = on;
        job_track_result res;
        icv_err err;
        char odir[1200];
        snprintf(odir, sizeof odir, "%s/out%d", th_tmpdir(), on);
        icv_log_level lv = icv_log_get_level();
        icv_log_set_level(ICV_LOG_ERROR);
        int rc = job_track_run(yaml, odir, &opt, &res, &err);
        icv_log_set_level(lv);
        if (rc)
            json_decref(truth);
        ASSERT(rc == 0, "job_track_run (carry_labels %d): %s", on, err.msg);
        n[on] = posed_frames(odir, truth, &worst[on], &early[on]);
    }
    json_decref(truth);
    printf("    frames with 3+ markers: %d without carried labels (%d before frame 36), %d with them (%d), "
           "worst %.2f mm from the truth\n",
           n[0], early[0], n[1], early[1], 1e3 * worst[1]);
    /* measured: 31 (0 before frame 36) and 47 (16: frames 20-35, where m2 is first seen) */
    ASSERT_EQ_INT(early[0], 0);
    ASSERT(early[1] >= 14, "only %d frames before frame 36 posed", early[1]);
    ASSERT(n[1] >= n[0] + 14, "%d frames posed against %d", n[1], n[0]);
    /* the positions added are as accurate as the identity's: its worst here is m0 at 4.7
       mm (a ball its post half hides in one view), the added ones 3.8 mm at worst; a
       wrong marker would be 20 mm off or more (the balls' spacing) */
    ASSERT(worst[1] < 0.006, "worst %.2f mm", 1e3 * worst[1]);
}
