/* test_sweep.c: `impactcv sweep` and the sweep library: the CSV and both SVGs for one
 * and two parameters, and Han Sun's Fig 3.16 case transitions reproduced by a sweep of
 * the rod's attitude (the same family as the reference case, through the CLI path). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/impact.h"
#include "tests/harness.h"

/* HS Fig 3.16 rod (m = 1, L = 1, cap L/30; body y is the rod axis, the contact at +L/2 so
 * that r = R (cos b, sin b) in our mirrored frame with b = theta3 + pi/2), v = (1, -1) */
static const char *rod_case =
    "mass: 1\n"
    "inertia: [[0.0836111,0,0],[0,0.000555556,0],[0,0,0.0836111]]\n"
    "orientation: {euler213: [0, 0, 0]}\n"
    "contact: [0, 0.5, 0]\n"
    "v: [1, -1, 0]\n"
    "mu: 0.4\n"
    "e_n: 0.4\n"
    "restitution: stronge\n"
    "method: algebraic\n"
    "planar: true\n";

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; p && *p; p++)
        n += *p == '\n';
    return n;
}

TEST(test_cli_sweep_writes_csv_and_svgs_for_one_and_two_parameters)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%s", th_tmp("rod.yaml")); /* th_tmp reuses its buffer */
    ASSERT_TRUE(th_write_file(yaml, rod_case) == 0);
    char dir1[4096], dir2[4096];
    snprintf(dir1, sizeof dir1, "%s", th_tmp("one"));
    snprintf(dir2, sizeof dir2, "%s", th_tmp("two"));
    th_proc p;
    int st = th_run_cli(&p, "sweep '%s' --param theta3=-1.5:1.5:31 -o '%s'", yaml, dir1);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.csv", dir1);
    const char *csv = th_read_file(path);
    ASSERT_TRUE(csv != NULL);
    ASSERT_EQ_INT(count_lines(csv), 32); /* header + 31 points */
    ASSERT_TRUE(strncmp(csv, "theta3,case,loss_fraction", 25) == 0);
    snprintf(path, sizeof path, "%s/loss.svg", dir1);
    ASSERT_STR_CONTAINS(th_read_file(path), "<svg");
    snprintf(path, sizeof path, "%s/case.svg", dir1);
    ASSERT_STR_CONTAINS(th_read_file(path), "<svg");

    st = th_run_cli(&p, "sweep '%s' --param theta3=-1.5:1.5:16 --param mu=0:1:11 -o '%s'", yaml, dir2);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    snprintf(path, sizeof path, "%s/sweep.csv", dir2);
    ASSERT_EQ_INT(count_lines(th_read_file(path)), 1 + 16 * 11);
    snprintf(path, sizeof path, "%s/case.svg", dir2);
    /* the legend names the cases; PLplot's SVG writes text as character references:
     * "case 1" */
    ASSERT_STR_CONTAINS(th_read_file(path), "&#x63;&#x61;&#x73;&#x65;&#x20;&#x31;");

    ASSERT_EQ_INT(th_run_cli(&p, "sweep '%s' --param omega=0:1:3 -o '%s'", yaml, dir2), 2);
    ASSERT_STR_CONTAINS(p.err, "omega=0:1:3");
}

/* HS Fig 3.16 transitions (stated 0.70, 0.95, 1.04, 1.79, 1.87 rad in beta) within the
 * issue's 0.01 rad plus the sweep's own 0.005 rad grid step */
TEST(test_sweep_reproduces_hs_fig_3_16_case_transitions)
{
    const char *yaml = th_tmp("rod.yaml");
    ASSERT_TRUE(th_write_file(yaml, rod_case) == 0);
    impact_case c;
    icv_err err;
    ASSERT(impact_case_load(yaml, &c, &err) == 0, "%s", err.msg);
    impact_sweep_param p;
    ASSERT_TRUE(impact_sweep_param_parse("theta3=-1.5707963:1.5707963:629", &p, &err) == 0);
    impact_sweep_point *pts = malloc(p.n * sizeof *pts);
    ASSERT_TRUE(pts != NULL);
    int rc = impact_sweep_run(&c, &p, 1, pts, &err);
    double stated[5] = {0.70, 0.95, 1.04, 1.79, 1.87}, found[8], lmax = 0, bmax = 0;
    int nf = 0;
    for (int i = 0; i < p.n && rc == 0; i++)
        if (pts[i].ok && pts[i].loss_fraction > lmax) {
            lmax = pts[i].loss_fraction;
            bmax = pts[i].p[0] + M_PI / 2;
        }
    for (int i = 1; i < p.n && rc == 0; i++)
        if (strcmp(pts[i].case_label, pts[i - 1].case_label) && nf < 8)
            found[nf++] = 0.5 * (pts[i].p[0] + pts[i - 1].p[0]) + M_PI / 2;
    free(pts);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(nf, 5);
    for (int k = 0; k < 5; k++)
        ASSERT_NEAR(found[k], stated[k], 0.015);
    /* HS's maximum dissipation 0.7119 at beta = 1.95 is not reproduced (spec 7.1: no
     * variant gives it); pinned to the spec's prototype, 0.8311 at 1.99 (its digits) */
    ASSERT_NEAR(lmax, 0.8311, 5e-4);
    ASSERT_NEAR(bmax, 1.99, 0.01);
}
