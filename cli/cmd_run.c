/* cmd_run.c: `impactcv run EXPERIMENT.yaml -o DIR [--truth truth.json]`: the whole
 * pipeline in one command (job/run.c) and a short summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "job/job.h"

static const char help[] =
    "usage: impactcv run EXPERIMENT.yaml -o DIR [--truth truth.json] [--from STAGE] [--force]\n"
    "\n"
    "Calibration (from the experiment's board images or its calibration file), capture and\n"
    "sync, tracking and triangulation, the analysis and the model, report.html and the\n"
    "exports, in one command. DIR receives tracks2d_<camera>.csv, tracks3d.csv,\n"
    "tracks3d_quality.csv, results.json, fits.csv, report.html and exports/ (TRC, C3D, pose\n"
    "CSV). A failed run leaves DIR as it was. With --truth (a synth experiment's\n"
    "truth.json) the results are compared with the truth and a disagreement fails.\n"
    "\n"
    "Stages: track, analyze, model, overlays, report, exports. Each is reused from DIR\n"
    "when nothing it reads has changed (files' bytes, the experiment.yaml keys it uses,\n"
    "the program): changing only model: re-runs model and report. DIR/.impactcv/ holds\n"
    "the manifest. --from STAGE runs that stage and every one after it again.\n"
    "\n"
    "DIR must be new, empty or an earlier result of impactcv run: a folder holding other\n"
    "files is refused unless --force is given (its files are then kept beside the results).\n"
    "Files you put into a result folder are kept by every re-run. DIR may never be, or\n"
    "hold, one of the experiment's own files. Ctrl-C leaves DIR as it was.\n";

int cmd_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    job_run_options o = {0};
    o.truth_table = cli_summary_stream();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            o.out_dir = argv[++i];
        else if (!strcmp(argv[i], "--force"))
            o.force = 1;
        else if (!strcmp(argv[i], "--truth") && i + 1 < argc)
            o.truth_path = argv[++i];
        else if (!strcmp(argv[i], "--from") && i + 1 < argc) {
            o.from = argv[++i];
            if (job_stage_parse(o.from) < 0)
                return cli_usage_error("run", "--from %s: no such stage (track, analyze, model, overlays, report, "
                                              "exports)", o.from);
        }
        else if (argv[i][0] == '-')
            return cli_usage_error("run", "unknown option '%s'", argv[i]);
        else if (!o.experiment_path)
            o.experiment_path = argv[i];
        else
            return cli_usage_error("run", "one experiment file (campaigns: impactcv campaign)");
    }
    if (!o.experiment_path)
        return cli_usage_error("run", "expected an experiment file");
    if (!o.out_dir)
        return cli_usage_error("run", "-o DIR is required");
    if (cli_need_cameras(o.experiment_path))
        return CLI_FAIL;
    if (cli_calibration_check_path(o.experiment_path))
        return CLI_FAIL;
    job_run_result *r = malloc(sizeof *r);
    icv_err err = {0};
    if (!r) {
        icv_err_set(&err, ICV_ENOMEM, "out of memory");
        return cli_fail(&err);
    }
    int rc = job_run(&o, r, &err);
    if (!rc && r->bodies.exp.n_bodies > 1) {
        cli_bodies_summary(&r->bodies);
        cli_summary("  in %.1f s; results: %s/results.json\n", r->seconds, o.out_dir);
    } else if (!rc) {
        const analysis_result *res = &r->job.res;
        cli_summary("%s: %d impact%s in %.1f s; |g| = %.3f m/s^2 (%s)\n", r->job.exp.name, res->n_impacts,
               res->n_impacts == 1 ? "" : "s", r->seconds, icv_v3_norm(res->g),
               res->g_estimated ? "from free flight" : "given");
        char ran[160] = "", reused[160] = "";
        for (int st = 0; st < JOB_N_STAGES; st++) {
            char *l = r->ran[st] ? ran : reused;
            snprintf(l + strlen(l), sizeof ran - strlen(l), "%s%s", *l ? ", " : "", job_stage_name(st));
        }
        cli_summary("  ran: %s; reused from %s: %s\n", *ran ? ran : "nothing", o.out_dir, *reused ? reused : "nothing");
        for (int i = 0; i < res->n_impacts; i++) {
            const analysis_impact *im = &res->impacts[i];
            cli_summary("  impact %d at t = %.4f s: e = %.3f +- %.3f, impulse ratio = %.3f +- %.3f, energy lost %.1f%% +- "
                   "%.1f%%%s\n",
                   i, im->t, im->e_kinematic, im->sd.e_kinematic, im->impulse_ratio, im->sd.impulse_ratio,
                   100 * im->loss_fraction, 100 * im->sd.loss_fraction,
                   im->energy_rotation == ANALYSIS_ROTATION_NONE ? " (translation only)" : "");
            if (im->model.done)
                cli_summary("    model %s (mu %.3f, e_n %.3f): case %s, energy lost %.1f%%\n",
                       icv_restitution_name(im->model.law), im->model.mu, im->model.e_n, im->model.case_label,
                       100 * im->model.loss_fraction);
            if (im->model.note[0])
                cli_summary("    note: %s\n", im->model.note);
            if (im->energy_note[0])
                cli_summary("    note: %s\n", im->energy_note);
        }
        if (r->job.warning[0])
            fprintf(stderr, "impactcv: warning: %s\n", r->job.warning);
        cli_summary("report: %s\n", r->report_path);
    }
    free(r);
    return rc ? cli_fail(&err) : CLI_OK;
}
