/* test_campaign_slurm.c: `impactcv campaign --engine slurm` and the shared calibration
 * (issue #23 items 1, 2, 4, 5 and its bad input). The bad input runs without Slurm
 * (fake sbatch and squeue on PATH); the rest against the one-node cluster of
 * scripts/slurm-local.sh (.ci/run starts it), skipped, saying why, when it is not up:
 * a failing experiment reported with the others completed, the table byte-identical
 * to the local engine's, a task killed with scancel then the resubmission running only
 * it. The four samples through sbatch against the local engine: make accuracy. */
#include <stdlib.h>
#include <unistd.h>

#include "tests/harness.h"

/* sample_videos/<sample> copied into tmpdir/<name> under that name */
static int copy_sample(const char *sample, const char *name)
{
    th_proc p;
    return th_run_sh(&p, "cp -r '%s/sample_videos/%s' '%s/%s' && sed -i 's/^name: .*/name: %s/' '%s/%s/experiment.yaml'",
                     th_root(), sample, th_tmpdir(), name, name, th_tmpdir(), name);
}

/* Lines of text starting with prefix. */
static int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
        n += !strncmp(l, prefix, strlen(prefix));
    return n;
}

/* The one-node cluster is up (scripts/slurm-local.sh status): SLURM_CONF set for the
 * commands the tests run. */
static int slurm_up(char *why, size_t n)
{
    th_proc p;
    if (th_run_sh(&p, "'%s/scripts/slurm-local.sh' status", th_root()) != 0) {
        snprintf(why, n, "the one-node Slurm is not running (scripts/slurm-local.sh start): %.300s", p.err);
        return 0;
    }
    const char *c = strstr(p.out, "SLURM_CONF=");
    if (!c) {
        snprintf(why, n, "scripts/slurm-local.sh status gave no SLURM_CONF");
        return 0;
    }
    char conf[1024];
    snprintf(conf, sizeof conf, "%.*s", (int)strcspn(c + 11, "\n"), c + 11);
    setenv("SLURM_CONF", conf, 1);
    return 1;
}

TEST(test_campaign_slurm_bad_input_one_line_each)
{
    th_proc p;
    char bin[4096];
    ASSERT(realpath(th_bin(), bin) != NULL, "%s: no absolute path", th_bin());
    ASSERT_EQ_INT(copy_sample("03_rod_drop_planar", "a03"), 0);
    ASSERT_EQ_INT(copy_sample("04_highspeed_1000fps", "b04"), 0);
    ASSERT_EQ_INT(th_write_file(th_tmp("one.yaml"), "name: one\nexperiments: [a03]\n"), 0);

    /* sbatch not found */
    int st = th_run_sh(&p, "PATH=/nonexistent '%s' campaign '%s' -o '%s/o1' --engine slurm", bin, th_tmp("one.yaml"),
                       th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.err, "impactcv: sbatch not found on PATH");
    ASSERT_EQ_INT(count_lines(p.err, "impactcv:"), 1);

    /* sbatch refusing: its message shown */
    ASSERT_EQ_INT(th_run_sh(&p, "mkdir -p '%s/refuse' && printf '#!/bin/sh\\necho \"sbatch: error: Batch job "
                                "submission failed: Invalid account or account/partition combination specified\" "
                                ">&2\\nexit 1\\n' > '%s/refuse/sbatch' && chmod +x '%s/refuse/sbatch'",
                            th_tmpdir(), th_tmpdir(), th_tmpdir()),
                  0);
    st = th_run_sh(&p, "PATH='%s/refuse':$PATH '%s' campaign '%s' -o '%s/o2' --engine slurm", th_tmpdir(), bin,
                   th_tmp("one.yaml"), th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.err, "impactcv: sbatch refused the job array (exit status 1): sbatch: error: Batch job "
                               "submission failed: Invalid account");
    ASSERT_EQ_INT(count_lines(p.err, "impactcv:"), 1);

    /* the binary in a folder each machine has its own of (th_tmpdir is under /tmp), on a
       cluster of two nodes (a fake sinfo: on a one-node cluster that is this machine,
       /tmp is the node's own) */
    ASSERT_EQ_INT(th_run_sh(&p, "cp '%s' '%s/impactcv' && mkdir -p '%s/two' && printf '#!/bin/sh\necho node1\n"
                                "echo node2\n' > '%s/two/sinfo' && chmod +x '%s/two/sinfo'",
                            bin, th_tmpdir(), th_tmpdir(), th_tmpdir(), th_tmpdir()),
                  0);
    char text[8192];
    snprintf(text, sizeof text, "name: local_bin\nexperiments: [a03]\nslurm: {binary: %s/impactcv}\n", th_tmpdir());
    ASSERT_EQ_INT(th_write_file(th_tmp("bin.yaml"), text), 0);
    st = th_run_sh(&p, "PATH='%s/two':$PATH '%s' campaign '%s' -o '%s/o3' --engine slurm", th_tmpdir(), bin,
                   th_tmp("bin.yaml"), th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.err, "which is each machine's own: the nodes do not see it");
    ASSERT_STR_CONTAINS(p.err, "slurm: {binary: /shared/bin/impactcv}"); /* how to fix it */

    /* different boards asking for one calibration (any engine: it fails before running) */
    ASSERT_EQ_INT(th_write_file(th_tmp("boards.yaml"), "name: boards\ncalibration: one\nexperiments: [a03, b04]\n"), 0);
    st = th_run_cli(&p, "campaign '%s' -o '%s/o4'", th_tmp("boards.yaml"), th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.err, "calibration: one: ");
    ASSERT_STR_CONTAINS(p.err, "name different board images");
    ASSERT_EQ_INT(count_lines(p.err, "impactcv:"), 1);
    ASSERT(th_dir_count(th_tmp("o4"), "a03") == 0, "an experiment ran");

    /* DIR not shared: a fake sbatch runs each task at once as a node whose DIR is its
       own (a tmpfs mounted over DIR in a mount namespace of its own); the task's marker
       is then missing here */
    if (th_run_sh(&p, "unshare -m sh -c 'mount -t tmpfs none \"%s\"'", th_tmpdir()) != 0)
        SKIP("no mount namespace to play a node with its own DIR (unshare -m, root): %.200s", p.err);
    ASSERT_EQ_INT(th_run_sh(&p, "mkdir -p '%s/fake' '%s/o5'", th_tmpdir(), th_tmpdir()), 0);
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "state='%s/fake/jobs'\n"
             "id=$(( $(cat \"$state\" 2>/dev/null | wc -l) + 100 ))\n"
             "array=\n"
             "for a; do case $a in --array=*) array=${a#--array=}; shift;; --*) shift;; *) break;; esac; done\n"
             "cp \"$1\" \"$state.$id.sh\"; shift # sbatch keeps the script as it was when submitted\n"
             "if [ -n \"$array\" ]; then\n"
             "  for i in $(echo $array | tr , ' '); do\n"
             "    SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i unshare -m sh -c "
             "'mount -t tmpfs none \"$5\" && mkdir \"$5/.slurm\" && exec sh \"$@\"' sh \"$state.$id.sh\" \"$@\" "
             ">/dev/null 2>&1\n"
             "    echo \"${id}_$i COMPLETED node1\" >> \"$state\"\n"
             "  done\n"
             "else\n"
             "  echo \"$id COMPLETED node1\" >> \"$state\"\n"
             "fi\n"
             "echo $id\n",
             th_tmpdir());
    ASSERT_EQ_INT(th_write_file(th_tmp("fake/sbatch"), text), 0);
    snprintf(text, sizeof text, "#!/bin/sh\ncat '%s/fake/jobs'\n", th_tmpdir());
    ASSERT_EQ_INT(th_write_file(th_tmp("fake/squeue"), text), 0);
    ASSERT_EQ_INT(th_run_sh(&p, "chmod +x '%s/fake/sbatch' '%s/fake/squeue'", th_tmpdir(), th_tmpdir()), 0);
    st = th_run_sh(&p, "ICV_SLURM_POLL_S=0.1 PATH='%s/fake':$PATH '%s' campaign '%s' -o '%s/o5' --engine slurm --wait",
                   th_tmpdir(), bin, th_tmp("one.yaml"), th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.err, "o5 is not on a file system the nodes share: task 100_0 ran on node1 but its marker");
    ASSERT_STR_CONTAINS(p.err, "give -o a folder on the shared file system");
    ASSERT_EQ_INT(count_lines(p.err, "impactcv:"), 1);
}

/* The id after "job array " in the CLI's output, or "" */
static void array_id(const char *out, char *id, size_t n)
{
    const char *s = strstr(out, "job array ");
    snprintf(id, n, "%.*s", s ? (int)strspn(s + 10, "0123456789") : 0, s ? s + 10 : "");
}

TEST(test_campaign_slurm_failing_task_killed_task_and_resubmission)
{
    char why[512];
    if (!slurm_up(why, sizeof why))
        SKIP("%s", why);
    th_proc p;
    /* two experiments sharing board images, one whose board images are missing */
    ASSERT_EQ_INT(copy_sample("03_rod_drop_planar", "a03"), 0);
    ASSERT_EQ_INT(copy_sample("03_rod_drop_planar", "b03"), 0);
    ASSERT_EQ_INT(copy_sample("03_rod_drop_planar", "broken"), 0);
    ASSERT_EQ_INT(th_run_sh(&p, "rm -r '%s/broken/calib'", th_tmpdir()), 0);
    ASSERT_EQ_INT(th_write_file(th_tmp("c.yaml"), "name: small\nexperiments: [a03, b03, broken]\n"), 0);

    /* a partition that does not exist: sbatch's own words */
    ASSERT_EQ_INT(th_write_file(th_tmp("p.yaml"), "experiments: [a03]\nslurm: {partition: nowhere}\n"), 0);
    int st = th_run_cli(&p, "campaign '%s' -o '%s/op' --engine slurm", th_tmp("p.yaml"), th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.err, "impactcv: sbatch refused the job array (exit status 1): ");
    ASSERT_STR_CONTAINS(p.err, "nowhere");

    st = th_run_cli(&p, "campaign '%s' -o '%s/slurm' --engine slurm --wait", th_tmp("c.yaml"), th_tmpdir());
    ASSERT(st == 1, "status %d (expected 1: one experiment failed): %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "3 experiments: 2 ran, 0 up to date (not run again), 1 failed; 2 impacts");
    ASSERT_STR_CONTAINS(p.err, "impactcv: campaign: broken failed");
    ASSERT_STR_CONTAINS(p.err, "no image matches"); /* its own error, from its task's result */
    ASSERT_STR_CONTAINS(p.err, "calibration "); /* a03 and b03 share one, computed before submitting */
    ASSERT_STR_CONTAINS(p.err, ": computed once for 2 experiments");
    const char *html = th_read_file(th_tmp("slurm/campaign.html"));
    ASSERT(html && strstr(html, "no image matches"), "campaign.html does not give the failed one's reason");

    /* the local engine: the same table, byte for byte */
    st = th_run_cli(&p, "campaign '%s' -o '%s/local' -j 2", th_tmp("c.yaml"), th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_EQ_INT(th_run_sh(&p, "cmp '%s/slurm/validation.csv' '%s/local/validation.csv' && cmp '%s/slurm/validation.md' "
                                "'%s/local/validation.md'",
                            th_tmpdir(), th_tmpdir(), th_tmpdir(), th_tmpdir()),
                  0);

    /* a03's results gone; its task killed with scancel while it runs */
    ASSERT_EQ_INT(th_run_sh(&p, "rm -r '%s/slurm/a03'", th_tmpdir()), 0);
    st = th_run_cli(&p, "campaign '%s' -o '%s/slurm' --engine slurm", th_tmp("c.yaml"), th_tmpdir());
    ASSERT(st == 0, "status %d: %s", st, p.err);
    char id[32];
    array_id(p.out, id, sizeof id);
    ASSERT(id[0], "no job array id: %s", p.out);
    ASSERT_STR_CONTAINS(p.out, "2 experiments submitted to Slurm"); /* a03 and broken; b03 up to date */
    st = th_run_sh(&p, "for i in $(seq 1 600); do s=$(squeue -h -j %s_0 -o %%T); [ \"$s\" = RUNNING ] && break; "
                       "sleep 0.05; done; [ \"$s\" = RUNNING ] && scancel %s_0 && "
                       "for i in $(seq 1 1200); do [ -f '%s/slurm/.slurm/%s_gather.status' ] && exit 0; sleep 0.1; done; "
                       "exit 3",
                   id, id, th_tmpdir(), id);
    if (st == 1)
        SKIP("a03's task ended before it could be cancelled (the machine was quick)");
    ASSERT(st == 0, "status %d: the gather job did not end: %s", st, p.err);
    /* scancel raced the task's last step: it finished and wrote its result */
    char result[4200];
    snprintf(result, sizeof result, "%s/slurm/.slurm/%s_0.result", th_tmpdir(), id);
    if (access(result, F_OK) == 0)
        SKIP("a03's task wrote its result before scancel reached it (the machine was quick)");
    html = th_read_file(th_tmp("slurm/campaign.html"));
    ASSERT(html && strstr(html, "ended without a result") && strstr(html, "CANCELLED"),
           "campaign.html does not say a03's task was cancelled");

    /* resubmitted: only a03 (and the broken one) run again */
    st = th_run_cli(&p, "campaign '%s' -o '%s/slurm' --engine slurm --wait", th_tmp("c.yaml"), th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.out, "3 experiments: 1 ran, 1 up to date (not run again), 1 failed; 2 impacts");
    ASSERT_STR_CONTAINS(p.out, "b03: up to date, not run again");
    ASSERT_STR_CONTAINS(p.err, "(2 tasks)");
    ASSERT_EQ_INT(th_run_sh(&p, "cmp '%s/slurm/validation.csv' '%s/local/validation.csv'", th_tmpdir(), th_tmpdir()),
                  0);
}

TEST(test_campaign_slurm_four_samples_twice_match_the_local_engine)
{
    if (!th_accuracy())
        SKIP("make accuracy: eight runs on Slurm and eight locally (about 2 min)");
    char why[512];
    if (!slurm_up(why, sizeof why))
        SKIP("%s", why);
    static const char *const samples[] = {"01_rod_slope45_stereo", "02_rod_drop_level_stereo", "03_rod_drop_planar",
                                          "04_highspeed_1000fps"};
    char text[4096] = "name: eight\nexperiments:\n";
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++) {
            char name[64];
            snprintf(name, sizeof name, "%s_%c", samples[i], 'a' + k);
            ASSERT_EQ_INT(copy_sample(samples[i], name), 0);
            snprintf(text + strlen(text), sizeof text - strlen(text), "  - %s\n", name);
        }
    ASSERT_EQ_INT(th_write_file(th_tmp("eight.yaml"), text), 0);
    th_proc p;
    int st = th_run_cli(&p, "campaign '%s' -o '%s/slurm' --engine slurm --wait", th_tmp("eight.yaml"), th_tmpdir());
    ASSERT(st == 0, "slurm: status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "8 experiments: 8 ran, 0 up to date (not run again), 0 failed; 8 impacts");
    st = th_run_cli(&p, "campaign '%s' -o '%s/local' -j 2", th_tmp("eight.yaml"), th_tmpdir());
    ASSERT(st == 0, "local: status %d: %s", st, p.err);
    ASSERT_EQ_INT(th_run_sh(&p, "cmp '%s/slurm/validation.csv' '%s/local/validation.csv' && cmp '%s/slurm/validation.md' "
                                "'%s/local/validation.md'",
                            th_tmpdir(), th_tmpdir(), th_tmpdir(), th_tmpdir()),
                  0);
}
