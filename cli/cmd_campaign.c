/* cmd_campaign.c: `impactcv campaign CAMPAIGN.yaml -o DIR [-j N | --engine slurm
 * [--wait]]`: many experiments, one validation table (job/campaign.c; the slurm engine
 * job/campaign_slurm.c), and a summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "job/job.h"

static const char help[] =
    "usage: impactcv campaign CAMPAIGN.yaml -o DIR [-j N] [--engine local|slurm [--wait]]\n"
    "\n"
    "Runs every experiment CAMPAIGN.yaml lists as `impactcv run` into DIR/<name>/, N at a\n"
    "time (default 1), each in a process of its own; an experiment whose results in\n"
    "DIR/<name>/ are up to date is not run again. A failed experiment is reported and the\n"
    "others carried on (exit status 1 at the end). Then DIR/validation.csv,\n"
    "DIR/validation.md and DIR/campaign.html (the validation table in the layout of Han\n"
    "Sun's Tables 4.6 and 4.9, links to each report, the parameter plot), with one mu and\n"
    "e_n fitted to every impact when the campaign says joint: true.\n"
    "\n"
    "CAMPAIGN.yaml (docs/campaign.md):\n"
    "  name: rods                      # optional; default the file's name\n"
    "  experiments: [a/experiment.yaml, 'b/*/experiment.yaml', c/]   # relative to it\n"
    "  model: {restitution: stronge, mu: measured, e_n: measured}   # optional: replaces\n"
    "                                  # each experiment's model:\n"
    "  joint: true                     # fit one mu and e_n to every impact (default false)\n"
    "  calibration: auto               # auto: experiments naming the same board images\n"
    "                                  # share one calibration (DIR/calibration/); each;\n"
    "                                  # one; or {file: calibration.yaml}\n"
    "  engine: slurm                   # or --engine slurm: a Slurm job array, one task per\n"
    "                                  # experiment to run, and a gather job after it\n"
    "  slurm: {partition: short, time: '00:30:00', mem: 4G, cpus_per_task: 2,\n"
    "          sbatch_args: [--account=lab], binary: /shared/bin/impactcv}\n"
    "\n"
    "--engine slurm prints the job ids and returns; --wait follows the jobs (squeue) and\n"
    "exits with the campaign's status. DIR must be on a file system the nodes share.\n";

/* The slurm engine's outcome: a task's, the ids submitted, or (--wait) the gather's own
 * output and the campaign's status. */
static int print_slurm(const job_campaign_options *o, const report_campaign_result *r,
                       const job_campaign_slurm_info *sl)
{
    if (o->task)
        return CLI_OK;
    if (sl->waited) { /* the gather's output as the local engine prints it: errors and warnings on stderr */
        FILE *fp = fopen(sl->gather_log, "r");
        char line[4096];
        while (fp && fgets(line, sizeof line, fp))
            fputs(line, !strncmp(line, "impactcv: ", 10) || !strncmp(line, "warning: ", 9) ? stderr
                                                                                           : cli_summary_stream());
        if (fp)
            fclose(fp);
        else
            fprintf(stderr, "impactcv: campaign %s: the gather's output %s is gone\n", r->name, sl->gather_log);
        return sl->status ? CLI_FAIL : CLI_OK;
    }
    cli_summary("campaign %s: %d experiment%s submitted to Slurm: job array %s, gather job %s (after it)\n", r->name,
                sl->n_tasks, sl->n_tasks == 1 ? "" : "s", sl->array_id, sl->gather_id);
    cli_summary("  follow: squeue -j %s,%s; logs: %s/; the table: %s/validation.csv when job %s ends\n",
                sl->array_id, sl->gather_id, sl->log_dir, o->out_dir, sl->gather_id);
    return CLI_OK;
}

int cmd_campaign(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    job_campaign_options o = {.jobs = 1};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            o.out_dir = argv[++i];
        } else if (!strcmp(argv[i], "-j") && i + 1 < argc) {
            char *end;
            long j = strtol(argv[++i], &end, 10);
            if (*end || j < 1 || j > 64)
                return cli_usage_error("campaign", "-j %s: expected a number of processes from 1 to 64", argv[i]);
            o.jobs = (int)j;
        } else if (!strcmp(argv[i], "--engine") && i + 1 < argc) {
            const char *e = argv[++i];
            if (strcmp(e, "local") && strcmp(e, "slurm"))
                return cli_usage_error("campaign", "--engine %s: expected local or slurm", e);
            o.engine = !strcmp(e, "slurm") ? JOB_ENGINE_SLURM : JOB_ENGINE_LOCAL;
        } else if (!strcmp(argv[i], "--wait")) {
            o.wait = 1;
        } else if (!strcmp(argv[i], "--slurm-task")) { /* the slurm engine's own jobs */
            o.task = 1;
        } else if (!strcmp(argv[i], "--slurm-gather") && i + 1 < argc) {
            o.gather = argv[++i];
        } else if (argv[i][0] == '-') {
            return cli_usage_error("campaign", "unknown option '%s'", argv[i]);
        } else if (!o.campaign_path) {
            o.campaign_path = argv[i];
        } else {
            return cli_usage_error("campaign", "one campaign file (it lists the experiments)");
        }
    }
    if (!o.campaign_path)
        return cli_usage_error("campaign", "expected a campaign file");
    if (!o.out_dir)
        return cli_usage_error("campaign", "-o DIR is required");
    report_campaign_result r;
    icv_err err = {0};
    job_campaign_slurm_info sl = {0};
    o.slurm = &sl;
    int rc = job_campaign_run(&o, &r, &err);
    if (!rc && (o.task || sl.submitted)) {
        int st = print_slurm(&o, &r, &sl);
        report_campaign_result_free(&r);
        return st;
    }
    for (int i = 0; i < r.n; i++)
        if (r.exps[i].status == REPORT_EXP_FAILED)
            fprintf(stderr, "impactcv: campaign: %s failed (%s): %s\n", r.exps[i].name, r.exps[i].path,
                    r.exps[i].error);
    if (!rc) {
        cli_summary("campaign %s: %d experiment%s: %d ran, %d up to date (not run again), %d failed; %d impact%s in "
               "%.1f s\n",
               r.name, r.n, r.n == 1 ? "" : "s", r.n_ran, r.n_up_to_date, r.n_failed, r.n_impacts,
               r.n_impacts == 1 ? "" : "s", r.seconds);
        for (int i = 0; i < r.n; i++)
            if (r.exps[i].status == REPORT_EXP_UP_TO_DATE)
                cli_summary("  %s: up to date, not run again\n", r.exps[i].name);
        if (r.joint)
            cli_summary("  joint fit over %d impacts: mu = %.3f +- %.3f%s, e_n = %.3f +- %.3f\n", r.fit.n_obs, r.fit.mu,
                   r.fit.mu_se, r.fit.mu_identifiable ? "" : " (they stick: a lower bound)", r.fit.e_n,
                   r.fit.e_n_se);
        cli_summary("table: %s/validation.csv, validation.md; page: %s\n", o.out_dir, r.html_path);
    }
    int failed = r.n_failed;
    report_campaign_result_free(&r);
    if (rc)
        return cli_fail(&err);
    return failed ? CLI_FAIL : CLI_OK;
}
