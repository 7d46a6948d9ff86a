/* test_campaign_calibration.c: one calibration shared by a campaign's experiments that
 * name the same board images (issue #23 item 2), with the local engine: computed once
 * into DIR/calibration/<hash>/, the runs reading it give the table each calibrating
 * itself gives, byte for byte (the file holds the doubles to 17 digits); the next
 * campaign finds it and its runs up to date; a calibration file given in
 * campaign.yaml is used by every experiment. */
#include <stdlib.h>

#include "tests/harness.h"

static int copy_sample(const char *sample, const char *name)
{
    th_proc p;
    return th_run_sh(&p, "cp -r '%s/sample_videos/%s' '%s/%s' && sed -i 's/^name: .*/name: %s/' '%s/%s/experiment.yaml'",
                     th_root(), sample, th_tmpdir(), name, name, th_tmpdir(), name);
}

TEST(test_campaign_shared_calibration_computed_once_and_same_table)
{
    if (th_sanitized()) /* four runs of sample 03: 17 s there */
        SKIP("in the plain pass: the campaign's code runs sanitized in tests/report/test_campaign.c");
    th_proc p;
    ASSERT_EQ_INT(copy_sample("03_rod_drop_planar", "a03"), 0);
    ASSERT_EQ_INT(copy_sample("03_rod_drop_planar", "b03"), 0);
    ASSERT_EQ_INT(th_write_file(th_tmp("shared.yaml"), "name: two\nexperiments: [a03, b03]\n"), 0);
    ASSERT_EQ_INT(th_write_file(th_tmp("each.yaml"), "name: two\ncalibration: each\nexperiments: [a03, b03]\n"), 0);

    int st = th_run_cli(&p, "campaign '%s' -o '%s/shared' -j 2", th_tmp("shared.yaml"), th_tmpdir());
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.err, ": computed once for 2 experiments");
    ASSERT_EQ_INT(th_dir_count(th_tmp("shared/calibration"), ""), 1); /* one, named by its content hash */
    ASSERT_EQ_INT(th_run_sh(&p, "ls '%s'/shared/calibration/*/calibration.yaml", th_tmpdir()), 0);
    /* its runs did not calibrate: the calibration's own warnings came once, from the campaign */
    ASSERT(!strstr(p.err, "a03: ") || !strstr(strstr(p.err, "a03: "), "view dropped"), "a03's run calibrated");

    st = th_run_cli(&p, "campaign '%s' -o '%s/each' -j 2", th_tmp("each.yaml"), th_tmpdir());
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_EQ_INT(th_dir_count(th_tmp("each/calibration"), ""), -1); /* none shared */
    ASSERT_EQ_INT(th_run_sh(&p, "cmp '%s/shared/validation.csv' '%s/each/validation.csv' && cmp "
                                "'%s/shared/validation.md' '%s/each/validation.md'",
                            th_tmpdir(), th_tmpdir(), th_tmpdir(), th_tmpdir()),
                  0);

    /* again: the calibration found by its hash, the runs up to date */
    st = th_run_cli(&p, "campaign '%s' -o '%s/shared' -j 2", th_tmp("shared.yaml"), th_tmpdir());
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "0 ran, 2 up to date");
    ASSERT_STR_CONTAINS(p.err, ": shared by 2 experiments");

    /* a calibration file given: every experiment reads it (here the one just made) */
    ASSERT_EQ_INT(th_run_sh(&p, "cp '%s'/shared/calibration/*/calibration.yaml '%s/given.yaml'", th_tmpdir(),
                            th_tmpdir()),
                  0);
    ASSERT_EQ_INT(th_write_file(th_tmp("given.yaml.campaign"),
                                "name: two\ncalibration: {file: given.yaml}\nexperiments: [a03, b03]\n"),
                  0);
    st = th_run_cli(&p, "campaign '%s' -o '%s/given' -j 2", th_tmp("given.yaml.campaign"), th_tmpdir());
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_EQ_INT(th_dir_count(th_tmp("given/calibration"), ""), -1);
    ASSERT_EQ_INT(th_run_sh(&p, "cmp '%s/shared/validation.csv' '%s/given/validation.csv'", th_tmpdir(), th_tmpdir()),
                  0);
    ASSERT_EQ_INT(th_write_file(th_tmp("none.campaign"), "calibration: {file: nowhere.yaml}\nexperiments: [a03]\n"),
                  0);
    ASSERT_EQ_INT(th_run_cli(&p, "campaign '%s' -o '%s/none'", th_tmp("none.campaign"), th_tmpdir()), 1);
    ASSERT_STR_CONTAINS(p.err, "nowhere.yaml: no such file");
}
