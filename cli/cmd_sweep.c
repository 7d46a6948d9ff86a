/* cmd_sweep.c: `impactcv sweep CASE.yaml --param NAME=FROM:TO:N [--param ...] -o DIR`:
 * the solver over one or two parameters (solver/sweep.c), written as DIR/sweep.csv and
 * two SVG plots (report/plot.c): the energy dissipation and the impact case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "solver/impact.h"

static const char help[] =
    "usage: impactcv sweep CASE.yaml --param NAME=FROM:TO:N [--param NAME=FROM:TO:N] -o DIR\n"
    "\n"
    "The solver over one or two parameters of CASE.yaml (see impactcv solve --help):\n"
    "  theta1 theta2 theta3  euler213 angles (rad; the contact point moves with the body)\n"
    "  mu mu_s mu_k e_n      friction and restitution\n"
    "  vx vy vz              centre-of-mass velocity (m/s, surface frame)\n"
    "  ratio                 slip ratio V/U = u_x/|u_y| at the contact (sets vx)\n"
    "Writes DIR/sweep.csv (one row per point; no solution: the reason in 'error'),\n"
    "DIR/loss.svg (energy dissipation 1 - KE'/KE: a line, or a map over two parameters)\n"
    "and DIR/case.svg (the impact case: a strip, or a case map).\n"
    "Example (Han Sun Fig 3.16 family):\n"
    "  impactcv sweep rod.yaml --param theta3=-1.57:1.57:315 --param mu=0:1:101 -o out\n";

static void axis_label(char *out, size_t n, const char *name)
{
    if (!strncmp(name, "theta", 5))
        snprintf(out, n, "%s (rad)", name);
    else if (name[0] == 'v')
        snprintf(out, n, "%s (m/s)", name);
    else
        snprintf(out, n, "%s", name);
}

int cmd_sweep(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    const char *case_path = NULL, *dir = NULL;
    impact_sweep_param params[2];
    int np = 0;
    icv_err err = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--param") && i + 1 < argc) {
            if (np == 2)
                return cli_usage_error("sweep", "at most two --param");
            if (impact_sweep_param_parse(argv[++i], &params[np++], &err) < 0)
                return cli_usage_error("sweep", "%s", err.msg);
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            dir = argv[++i];
        } else if (argv[i][0] != '-' && !case_path) {
            case_path = argv[i];
        } else {
            return cli_usage_error("sweep", "unexpected argument '%s'", argv[i]);
        }
    }
    if (!case_path || !dir || np == 0)
        return cli_usage_error("sweep", "expected CASE.yaml, at least one --param and -o DIR");
    if (np == 2 && !strcmp(params[0].name, params[1].name))
        return cli_usage_error("sweep", "the two parameters must differ");
    impact_case c;
    if (impact_case_load(case_path, &c, &err) < 0 || icv_mkdirs(dir, &err) < 0)
        return cli_fail(&err);
    int n0 = params[0].n, n1 = np > 1 ? params[1].n : 1;
    size_t n = (size_t)n0 * n1;
    impact_sweep_point *pts = malloc(n * sizeof *pts);
    double *z = malloc(2 * n * sizeof *z), *zc = z ? z + n : NULL, *x = malloc(n0 * sizeof *x);
    int rc = CLI_OK;
    char path[ICV_PATH_MAX], xl[64], yl[64], title[256];
    if (!pts || !z || !x) {
        icv_err_set(&err, ICV_ENOMEM, "out of memory");
        rc = cli_fail(&err);
        goto out;
    }
    if (impact_sweep_run(&c, params, np, pts, &err) < 0 ||
        icv_path_join(path, sizeof path, dir, "sweep.csv", &err) < 0 ||
        impact_sweep_write_csv(path, params, np, pts, &err) < 0) {
        rc = cli_fail(&err);
        goto out;
    }
    /* the cases that occur, in the order of the documents' colour codes */
    int used[IMPACT_N_CASES] = {0}, map[IMPACT_N_CASES], n_used = 0, n_fail = 0;
    const char *names[IMPACT_N_CASES];
    char name_buf[IMPACT_N_CASES][16];
    for (size_t k = 0; k < n; k++) {
        if (pts[k].case_index >= 0)
            used[pts[k].case_index] = 1;
        n_fail += !pts[k].ok;
    }
    for (int k = 0; k < IMPACT_N_CASES; k++)
        if (used[k]) {
            map[k] = n_used;
            snprintf(name_buf[n_used], sizeof name_buf[n_used], "case %s", impact_case_name(k));
            names[n_used] = name_buf[n_used];
            n_used++;
        }
    for (size_t k = 0; k < n; k++) {
        z[k] = pts[k].loss_fraction;
        zc[k] = pts[k].case_index >= 0 ? map[pts[k].case_index] : NAN;
    }
    for (int i = 0; i < n0; i++)
        x[i] = impact_sweep_value(&params[0], i);
    axis_label(xl, sizeof xl, params[0].name);
    if (np > 1)
        axis_label(yl, sizeof yl, params[1].name);
    snprintf(title, sizeof title, "%s, %s", icv_restitution_name(c.law), impact_method_name(c.method));
    icv_path_join(path, sizeof path, dir, "loss.svg", &err);
    if (np == 1) {
        const double *ys[1] = {z};
        const char *labs[1] = {"1 - KE'/KE"};
        if (report_plot_lines(path, title, xl, "energy dissipation 1 - KE'/KE", n0, x, 1, ys, labs, &err) < 0) {
            rc = cli_fail(&err);
            goto out;
        }
    } else if (report_plot_map(path, title, xl, yl, n0, n1, params[0].from, params[0].to, params[1].from,
                               params[1].to, z, "1 - KE'/KE", 0, NULL, &err) < 0) {
        rc = cli_fail(&err);
        goto out;
    }
    icv_path_join(path, sizeof path, dir, "case.svg", &err);
    if (report_plot_map(path, title, xl, np > 1 ? yl : "", n0, n1, params[0].from, params[0].to,
                        np > 1 ? params[1].from : 0, np > 1 ? params[1].to : 1, zc, NULL,
                        n_used > 0 ? n_used : 1, names, &err) < 0) {
        rc = cli_fail(&err);
        goto out;
    }
    cli_summary("%zu points (%d without a solution): %s/sweep.csv, %s/loss.svg, %s/case.svg\n", n, n_fail, dir, dir, dir);
out:
    free(pts);
    free(z);
    free(x);
    return rc;
}
