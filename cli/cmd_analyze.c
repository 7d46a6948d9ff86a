/* cmd_analyze.c: `impactcv analyze EXPERIMENT.yaml [...] -o DIR [--tracks F]
 * [--method fit|houbolt]`: impacts and results.json from 3D tracks (analysis/).
 * Several experiments: each in DIR/<name>/, then one joint (mu, e_n) and the
 * validation table in DIR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "job/job.h"

static const char help[] =
    "usage: impactcv analyze EXPERIMENT.yaml [MORE.yaml ...] -o DIR [--tracks FILE]\n"
    "                        [--method fit|houbolt]\n"
    "\n"
    "Finds every impact in the 3D tracks (DIR/tracks3d.csv, or --tracks) and measures\n"
    "it: velocities and angular velocities before and after at the impact instant,\n"
    "Newton's ratio at the contact point, the impulse ratio, the energy lost, each with\n"
    "its 1-sigma, and the model's prediction (experiment.yaml `model:`; mu and e_n are\n"
    "fitted to each impact where they are `measured`). Writes DIR/results.json and\n"
    "DIR/fits.csv; an experiment of several bodies (`bodies:`, from --tracks) writes\n"
    "DIR/results.json and DIR/report.html (docs/report.md, \"Several bodies\").\n"
    "\n"
    "With several experiments, each is analysed in DIR/<name>/ (tracks from\n"
    "DIR/<name>/tracks3d.csv), then one mu and e_n are fitted to all impacts and the\n"
    "validation table is written as DIR/validation.csv and DIR/validation.md.\n"
    "\n"
    "  --tracks FILE     tracks3d.csv, or a C3D or TRC file from a motion-capture\n"
    "                    system (units read from the file; the body's markers by\n"
    "                    body.marker_labels, else the file's in order). An experiment\n"
    "                    without cameras reads only this way: its surface.plane is in\n"
    "                    the tracks' frame (docs/experiment.md)\n"
    "\n"
    "  --method fit      fits of free flight on each side (default)\n"
    "  --method houbolt  the seeds' third-order differences, for comparison\n"
    "  --truth truth.json  compare with a synth experiment's truth (the analysis\n"
    "                    tolerances of docs/analysis.md): prints the table, fails on a\n"
    "                    disagreement\n";

/* Several bodies from another system's tracks: the job, then each body-body impact. */
static int analyze_bodies(const job_analyze_options *job, icv_err *err)
{
    job_bodies_result *r = malloc(sizeof *r);
    if (!r)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    int rc = job_analyze_bodies(job, r, err);
    if (!rc) {
        cli_bodies_summary(r);
        cli_summary("  report: %s/report.html\n", job->out_dir);
    }
    free(r);
    return rc;
}

static void print_impacts(const analysis_experiment_result *j)
{
    const analysis_result *r = &j->res;
    cli_summary("%s: %d impact%s, gravity |g| = %.3f m/s^2 (%s)\n", j->exp.name, r->n_impacts, r->n_impacts == 1 ? "" : "s",
           icv_v3_norm(r->g), r->g_estimated ? "from free flight" : "given");
    for (int i = 0; i < r->n_impacts; i++) {
        const analysis_impact *im = &r->impacts[i];
        cli_summary("  impact %d at t = %.4f s (+- %.1e): e = %.3f +- %.3f, impulse ratio = %.3f +- %.3f, energy lost "
               "%.1f%% +- %.1f%%%s\n",
               i, im->t, im->t_sd, im->e_kinematic, im->sd.e_kinematic, im->impulse_ratio, im->sd.impulse_ratio,
               100 * im->loss_fraction, 100 * im->sd.loss_fraction,
               im->energy_rotation == ANALYSIS_ROTATION_NONE ? " (translation only)" : "");
        /* a sticking contact bounds mu from below only: the fit's value (1e8 seen) is no
           measurement */
        char mu_text[64];
        if (im->model.mu_fitted && !im->model.mu_identifiable)
            snprintf(mu_text, sizeof mu_text, "mu >= %.3f, sticks", im->model.mu_lower_bound);
        else
            snprintf(mu_text, sizeof mu_text, "mu %.3f%s", im->model.mu, im->model.mu_fitted ? " fitted" : "");
        if (im->model.done)
            cli_summary("    model (%s, %s, e_n %.3f%s): case %s, energy lost %.1f%%\n",
                   icv_restitution_name(im->model.law), mu_text, im->model.e_n,
                   im->model.e_n_fitted ? " fitted" : "", im->model.case_label, 100 * im->model.loss_fraction);
        if (im->model.note[0])
            cli_summary("    note: %s\n", im->model.note);
        if (im->energy_note[0])
            cli_summary("    note: %s\n", im->energy_note);
    }
    /* each free flight's launch, where a person reads the numbers */
    for (int i = 0; i < r->n_flights; i++) {
        const analysis_flight_summary *f = &r->flights[i];
        cli_summary("  flight %d: frames %ld-%ld (%d posed), launch %.3f +- %.3f m/s at %.1f +- %.1f deg, own |g| "
                    "%.3f m/s^2\n",
                    i, f->frame_first, f->frame_last, f->n_frames, f->speed, f->speed_sd, f->angle_deg,
                    f->angle_sd_deg, icv_v3_norm(f->g));
    }
    for (int i = 0; i < r->n_contacts; i++) {
        const analysis_contact *c = &r->contacts[i];
        cli_summary("  contact %d: frames %ld-%ld (t = %.4f-%.4f s), %s: not free flight\n", i, c->frame_first,
                    c->frame_last, c->t_first, c->t_last, c->sliding ? "moving on the surface" : "resting");
    }
    if (j->warning[0])
        fprintf(stderr, "impactcv: warning: %s\n", j->warning);
}

int cmd_analyze(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    const char *out = NULL, *tracks = NULL, *truth = NULL;
    const char *exps[64];
    int n = 0, method = ANALYSIS_FIT;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--tracks") && i + 1 < argc)
            tracks = argv[++i];
        else if (!strcmp(argv[i], "--truth") && i + 1 < argc)
            truth = argv[++i];
        else if (!strcmp(argv[i], "--method") && i + 1 < argc) {
            const char *m = argv[++i];
            if (!strcmp(m, "fit"))
                method = ANALYSIS_FIT;
            else if (!strcmp(m, "houbolt"))
                method = ANALYSIS_HOUBOLT;
            else
                return cli_usage_error("analyze", "unknown method '%s' (fit | houbolt)", m);
        } else if (argv[i][0] == '-')
            return cli_usage_error("analyze", "unknown option '%s'", argv[i]);
        else if (n < 64)
            exps[n++] = argv[i];
        else
            return cli_usage_error("analyze", "at most 64 experiments");
    }
    if (!out)
        return cli_usage_error("analyze", "-o DIR is required");
    if (n == 0)
        return cli_usage_error("analyze", "expected an experiment file");
    if ((tracks || truth) && n > 1)
        return cli_usage_error("analyze", "--tracks and --truth go with one experiment");
    analysis_experiment_result **jobs = calloc((size_t)n, sizeof *jobs);
    icv_err err = {0};
    int rc = jobs ? 0 : icv_err_set(&err, ICV_ENOMEM, "out of memory");
    for (int i = 0; i < n && !rc; i++) {
        jobs[i] = malloc(sizeof *jobs[i]);
        if (!jobs[i]) {
            rc = icv_err_set(&err, ICV_ENOMEM, "out of memory");
            break;
        }
        char dir[ICV_PATH_MAX];
        if (n == 1) {
            snprintf(dir, sizeof dir, "%s", out);
        } else { /* DIR/<name>, the name from the experiment file */
            icv_experiment *e = malloc(sizeof *e);
            if (!e || (rc = icv_experiment_load(exps[i], e, &err))) {
                if (!e)
                    rc = icv_err_set(&err, ICV_ENOMEM, "out of memory");
                free(e);
                break;
            }
            rc = icv_path_join(dir, sizeof dir, out, e->name, &err);
            free(e);
            if (rc)
                break;
        }
        job_analyze_options job = {exps[i], tracks, dir, method, truth, cli_summary_stream(), NULL, 0};
        if (n == 1 && cli_several_bodies(exps[i])) {
            rc = analyze_bodies(&job, &err);
            break;
        }
        rc = job_analyze(&job, jobs[i], &err);
        /* also when the truth disagrees; a flight-only clip has its flights */
        if (jobs[i]->res.n_impacts > 0 || (!rc && jobs[i]->res.n_flights > 0))
            print_impacts(jobs[i]);
        if (rc)
            break;
    }
    if (!rc && n > 1) {
        impact_fit_result fit;
        rc = analysis_validation_write(out, jobs, n, &fit, &err);
        if (!rc)
            cli_summary("joint fit over %d experiments: mu = %.3f +- %.3f, e_n = %.3f +- %.3f; validation table in "
                   "%s/validation.md\n",
                   n, fit.mu, fit.mu_se, fit.e_n, fit.e_n_se, out);
    }
    for (int i = 0; jobs && i < n; i++)
        free(jobs[i]);
    free(jobs);
    return rc ? cli_fail(&err) : CLI_OK;
}
