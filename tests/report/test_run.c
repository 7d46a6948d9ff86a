/* test_run.c: `impactcv run`, the whole pipeline in one command, on the one-camera
 * sample (the fastest): every file of the contract and the report in DIR, the
 * result against the sample's truth; a failing run names its stage and leaves the
 * previous results untouched (issue #10 items 1 and 6). */
#include <stdlib.h>
#include <unistd.h>

#include "tests/harness.h"

TEST(test_run_writes_every_output_and_agrees_with_truth)
{
    char exp[1024], truth[1024];
    snprintf(exp, sizeof exp, "%s/sample_videos/03_rod_drop_planar/experiment.yaml", th_root());
    snprintf(truth, sizeof truth, "%s/sample_videos/03_rod_drop_planar/truth.json", th_root());
    th_proc p;
    int st = th_run_cli(&p, "run '%s' -o '%s/out' --truth '%s'", exp, th_tmpdir(), truth);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "1 impact");
    ASSERT_STR_CONTAINS(p.out, "report: ");
    const char *files[] = {"tracks2d_cam.csv", "tracks3d.csv", "tracks3d_quality.csv", "results.json", "fits.csv",
                           "report.html", "exports/tracks3d.trc", "exports/tracks3d.c3d", "exports/pose.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char f[1200];
        snprintf(f, sizeof f, "%s/out/%s", th_tmpdir(), files[i]);
        ASSERT(access(f, R_OK) == 0, "%s missing", files[i]);
    }
}

TEST(test_failed_run_names_the_stage_and_keeps_the_previous_results)
{
    char exp[1024];
    snprintf(exp, sizeof exp, "%s/sample_videos/03_rod_drop_planar/experiment.yaml", th_root());
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "-q run '%s' -o '%s/out'", exp, th_tmpdir()), 0);
    char res[1200];
    snprintf(res, sizeof res, "%s/out/results.json", th_tmpdir());
    char before[4096];
    snprintf(before, sizeof before, "%s", th_read_file(res));
    /* the same experiment with its markers spaced wider than the body's: a copy of the
     * sample's folder, so the experiment's relative paths resolve */
    ASSERT_EQ_INT(th_run_sh(&p,
                            "cp -r '%s/sample_videos/03_rod_drop_planar' '%s/bad' && "
                            "awk '{ if ($1 == \"markers:\") print \"  markers: [[0, 0.2, 0], [0, 0, 0], [0, -0.2, 0]]\"; "
                            "else print }' '%s' > '%s/bad/experiment.yaml'",
                            th_root(), th_tmpdir(), exp, th_tmpdir()),
                  0);
    int st = th_run_cli(&p, "-q run '%s/bad/experiment.yaml' -o '%s/out'", th_tmpdir(), th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.err, "impactcv: track: ");
    ASSERT_STR_CONTAINS(p.err, "do not fit the triangulated points");
    ASSERT_STR_CONTAINS(th_read_file(res), before); /* untouched */
    char tmpglob[1200];
    snprintf(tmpglob, sizeof tmpglob, "ls -d '%s'/out.run.* 2>/dev/null | wc -l", th_tmpdir());
    th_run_sh(&p, "%s", tmpglob);
    ASSERT(atoi(p.out) == 0, "a working folder was left behind");
}
