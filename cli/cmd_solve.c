/* cmd_solve.c: `impactcv solve CASE.yaml`: the impact solver on one case, the result as
 * JSON on stdout (contract.md); `--reference` prints the bundled reference cases of the
 * source documents (spec sec. 7) against their published values (make demo). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "solver/impact.h"

static const char help[] =
    "usage: impactcv solve CASE.yaml\n"
    "       impactcv solve --reference\n"
    "\n"
    "The impact solver on one case; the result as JSON on stdout:\n"
    "  {\"post\": {\"v\", \"omega\", \"contact_velocity\"}, \"impulse\", \"case\",\n"
    "   \"work\": {\"compression_J\", \"restitution_J\", \"friction_J\"},\n"
    "   \"energy\": {\"pre_J\", \"post_J\", \"loss_fraction\"}}  (SI, surface frame, y = outward normal)\n"
    "CASE.yaml keys: mass, inertia (body frame), orientation {euler213 | matrix},\n"
    "contact (body frame), v, omega (surface frame), mu | mu_s + mu_k, e_n,\n"
    "restitution newton|poisson|stronge, method exact|algebraic, planar true|false.\n"
    "Several bodies (docs/solver.md \"CASE.yaml\"):\n"
    "  bodies: [{name, mass, inertia, orientation, contact, v, omega} | {fixed: true, v},\n"
    "           {...}] and the model keys: two bodies, n = +y from the second into the first;\n"
    "  row: {mass: [..], v: [..], e, stiffness: [..], contact_law: linear|hertz}: balls in\n"
    "       a row, frictionless (Wang's Algorithm 2);\n"
    "  chain: {links: [{mass, inertia, centre, v, omega}, {..}], joint, contact} and mu,\n"
    "         e_n, restitution: a pinned two-link chain hitting the surface (planar).\n"
    "\n"
    "--reference  the reference cases of the source documents: computed against\n"
    "             published, with each tolerance (exit 1 if one is outside it).\n";

static int reference_table(void)
{
    int n = impact_reference_count(), bad = 0;
    printf("%-24s %-2s %-30s %14s %14s %10s  %s\n", "case", "v", "quantity", "computed", "published", "tolerance",
           "ok");
    for (int i = 0; i < n; i++) {
        const impact_reference *r = impact_reference_at(i);
        double v = NAN;
        icv_err err = {0};
        int rc = impact_reference_compute(i, &v, &err);
        int ok = rc == 0 && fabs(v - r->published) <= r->tolerance;
        bad += !ok;
        printf("%-24s %-2s %-30.30s %14.8g %14.8g %10.3g  %s\n", r->id, r->verdict, r->quantity, v, r->published,
               r->tolerance, ok ? "yes" : rc ? err.msg : "NO");
    }
    printf("%d of %d reference values within their tolerance (sources and reasons: docs/solver.md)\n", n - bad, n);
    return bad ? CLI_FAIL : CLI_OK;
}

int cmd_solve(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return CLI_OK;
    }
    if (argc == 2 && !strcmp(argv[1], "--reference"))
        return reference_table();
    if (argc != 2 || argv[1][0] == '-')
        return cli_usage_error("solve", "expected one CASE.yaml (or --reference)");
    impact_case_file f;
    icv_err err = {0};
    char *s = NULL;
    if (impact_case_file_load(argv[1], &f, &err) < 0)
        return cli_fail(&err);
    if (impact_case_file_solve_json(&f, &s, &err) < 0) {
        icv_err_prefix(&err, "%s: ", argv[1]);
        return cli_fail(&err);
    }
    puts(s);
    free(s);
    return CLI_OK;
}
