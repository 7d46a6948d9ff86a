/* test_campaign.c: `impactcv campaign` (issue #10 item 3) over the five sample
 * experiments and a folder with a broken one, two at a time: the broken one is
 * reported with its error and the others carried on (exit status 1, every output
 * written); each impact's fitted e_n agrees with its sample's truth; a campaign over
 * the samples that share (restitution, mu, e_n) in their truth.json, into the same
 * folder, runs nothing (they are up to date) and its joint mu and e_n match that truth;
 * running the first campaign again runs nothing either. */
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "report/report.h"
#include "tests/harness.h"

static const char *const samples[] = {"01_rod_slope45_stereo", "02_rod_drop_level_stereo", "03_rod_drop_planar",
                                      "04_highspeed_1000fps", "05_dark_stickers_light_bar"};
#define N_SAMPLES 5

typedef struct {
    char name[128];   /* experiment.yaml's name */
    char law[16];
    double mu, e_n;
} truth;

static int read_truth(const char *sample, truth *t)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/sample_videos/%s/truth.json", th_root(), sample);
    json_t *j = json_load_file(path, 0, NULL);
    if (!j)
        return -1;
    snprintf(t->law, sizeof t->law, "%s", json_string_value(json_object_get(j, "restitution")));
    t->mu = json_number_value(json_object_get(j, "mu"));
    t->e_n = json_number_value(json_object_get(j, "e_n"));
    json_decref(j);
    snprintf(path, sizeof path, "%s/sample_videos/%s/experiment.yaml", th_root(), sample);
    icv_experiment *e = malloc(sizeof *e);
    icv_err err;
    int rc = icv_experiment_load(path, e, &err);
    if (!rc)
        snprintf(t->name, sizeof t->name, "%s", e->name);
    free(e);
    return rc;
}

TEST(test_campaign_reports_the_broken_experiment_fits_jointly_to_the_truth_and_resumes)
{
    th_proc p;
    truth tr[N_SAMPLES];
    for (int i = 0; i < N_SAMPLES; i++)
        ASSERT(read_truth(samples[i], &tr[i]) == 0, "%s: truth.json or experiment.yaml unreadable", samples[i]);
    /* the broken experiment: sample 03's file in a folder without its board images */
    ASSERT_EQ_INT(th_run_sh(&p,
                            "mkdir -p '%s/broken' && sed 's/^name: .*/name: broken_sample/' "
                            "'%s/sample_videos/03_rod_drop_planar/experiment.yaml' > '%s/broken/experiment.yaml'",
                            th_tmpdir(), th_root(), th_tmpdir()),
                  0);
    char text[2048], root[4096];
    ASSERT(realpath(th_root(), root) != NULL, "%s: no absolute path", th_root()); /* the campaign file is elsewhere */
    snprintf(text, sizeof text, "name: samples\nexperiments:\n  - %s/sample_videos/*/experiment.yaml\n  - broken\n",
             root);
    ASSERT_EQ_INT(th_write_file(th_tmp("all.yaml"), text), 0);

    int st = th_run_cli(&p, "campaign '%s' -o '%s/out' -j 2", th_tmp("all.yaml"), th_tmpdir());
    ASSERT(st == 1, "status %d (expected 1: one experiment failed): %s", st, p.err);
    ASSERT_STR_CONTAINS(p.err, "impactcv: campaign: broken_sample failed");
    ASSERT_STR_CONTAINS(p.err, "no image matches"); /* its own one-line error */
    ASSERT_STR_CONTAINS(p.out, "5 ran, 0 up to date (not run again), 1 failed; 5 impacts");
    char path[1200];
    for (int i = 0; i < N_SAMPLES; i++) {
        snprintf(path, sizeof path, "%s/out/%s/report.html", th_tmpdir(), tr[i].name);
        ASSERT(access(path, R_OK) == 0, "%s missing", path);
        /* each impact fitted on its own (mu, e_n measured): e_n within 0.02 of the truth
         * (issue #9's e within 0.01, doubled for a fit of two coefficients to one impact) */
        snprintf(path, sizeof path, "%s/out/%s/results.json", th_tmpdir(), tr[i].name);
        analysis_result res;
        icv_err err;
        ASSERT(report_results_read(path, &res, &err) == 0, "%s", err.msg);
        ASSERT_EQ_INT(res.n_impacts, 1);
        ASSERT_NEAR(res.impacts[0].model.e_n, tr[i].e_n, 0.02);
    }
    const char *html = th_read_file(th_tmp("out/campaign.html"));
    ASSERT(html != NULL, "campaign.html missing");
    ASSERT_STR_CONTAINS(html, "href=\"rod_drop_planar/report.html\"");
    ASSERT_STR_CONTAINS(html, "plot-parameters-angle");
    ASSERT_STR_CONTAINS(html, "plot-parameters-slip");
    ASSERT_STR_CONTAINS(html, "failed: ");
    ASSERT(!strstr(html, "http:") && !strstr(html, "https:") && !strstr(html, "<script"), "not self-contained");
    const char *csv = th_read_file(th_tmp("out/validation.csv"));
    ASSERT(csv != NULL, "validation.csv missing");
    int lines = 0;
    for (const char *c = csv; *c; c++)
        lines += *c == '\n';
    ASSERT_EQ_INT(lines, 1 + N_SAMPLES); /* the header and a row per impact */
    ASSERT(access(th_tmp("out/validation.md"), R_OK) == 0, "validation.md missing");

    /* the samples that share their truth's (restitution, mu, e_n), fitted jointly */
    int best = -1, best_n = 0;
    for (int i = 0; i < N_SAMPLES; i++) {
        int n = 0;
        for (int k = 0; k < N_SAMPLES; k++)
            n += !strcmp(tr[i].law, tr[k].law) && tr[i].mu == tr[k].mu && tr[i].e_n == tr[k].e_n;
        if (n > best_n)
            best = i, best_n = n;
    }
    if (best_n < 2)
        SKIP("no two samples share mu and e_n in their truth.json");
    snprintf(text, sizeof text, "name: shared\njoint: true\nmodel: {restitution: %s, mu: measured, e_n: measured}\n"
                                "experiments:\n",
             tr[best].law);
    for (int k = 0; k < N_SAMPLES; k++)
        if (!strcmp(tr[best].law, tr[k].law) && tr[best].mu == tr[k].mu && tr[best].e_n == tr[k].e_n)
            snprintf(text + strlen(text), sizeof text - strlen(text), "  - %s/sample_videos/%s\n", root, samples[k]);
    ASSERT_EQ_INT(th_write_file(th_tmp("shared.yaml"), text), 0);
    st = th_run_cli(&p, "campaign '%s' -o '%s/out'", th_tmp("shared.yaml"), th_tmpdir());
    ASSERT(st == 0, "shared: status %d: %s", st, p.err);
    char expect[128];
    snprintf(expect, sizeof expect, "0 ran, %d up to date (not run again), 0 failed", best_n);
    ASSERT_STR_CONTAINS(p.out, expect); /* their runs are the first campaign's */
    const char *fit = strstr(p.out, "joint fit over ");
    double mu, mu_se, e_n;
    ASSERT(fit && sscanf(strstr(fit, "mu = "), "mu = %lf +- %lf, e_n = %lf", &mu, &mu_se, &e_n) == 3,
           "no joint fit: %s", p.out);
    printf("    joint fit over %d samples: mu %.4f (truth %.3f), e_n %.4f (truth %.3f)\n", best_n, mu, tr[best].mu, e_n,
           tr[best].e_n);
    ASSERT_NEAR(mu, tr[best].mu, 0.02);   /* issue #10's tolerance */
    ASSERT_NEAR(e_n, tr[best].e_n, 0.02);
    ASSERT(access(th_tmp("out/joint/validation.csv"), R_OK) == 0, "the joint fit's own table is missing");

    /* the first campaign again: nothing runs; the broken one fails again */
    st = th_run_cli(&p, "campaign '%s' -o '%s/out' -j 2", th_tmp("all.yaml"), th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.out, "0 ran, 5 up to date (not run again), 1 failed");
    ASSERT_STR_CONTAINS(p.out, "rod_slope45_stereo: up to date, not run again");
}

TEST(test_campaign_usage_and_campaign_file_errors)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "campaign c.yaml"), 2);
    ASSERT_STR_CONTAINS(p.err, "-o DIR is required");
    ASSERT_EQ_INT(th_run_cli(&p, "campaign c.yaml -o d -j 0"), 2);
    ASSERT_EQ_INT(th_write_file(th_tmp("c.yaml"), "name: x\nexperiments: [nowhere/*.yaml]\n"), 0);
    ASSERT_EQ_INT(th_run_cli(&p, "campaign '%s' -o '%s/o'", th_tmp("c.yaml"), th_tmpdir()), 1);
    ASSERT_STR_CONTAINS(p.err, "experiments[0]: 'nowhere/*.yaml' matches no file");
    ASSERT_EQ_INT(th_write_file(th_tmp("c.yaml"), "experiments: [a.yaml]\nmodel: {restitution: hooke}\n"), 0);
    ASSERT_EQ_INT(th_write_file(th_tmp("a.yaml"), "name: a\n"), 0);
    ASSERT_EQ_INT(th_run_cli(&p, "campaign '%s' -o '%s/o'", th_tmp("c.yaml"), th_tmpdir()), 1);
    ASSERT_STR_CONTAINS(p.err, "unknown restitution model 'hooke'");
}
