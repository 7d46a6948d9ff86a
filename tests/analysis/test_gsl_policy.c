/* GSL's errors are statuses, never an abort (the program turns GSL's handler off once
 * at start, cli/main.c): an inertia of 1e308 passes `check` and sends the rotation's
 * elliptic integrals out of their domain; the run must end with one error line and
 * exit 1, not SIGABRT, and leave no working folder. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "tests/harness.h"

TEST(test_gsl_out_of_domain_is_an_error_line_not_an_abort)
{
    const char *d = th_tmpdir();
    th_proc *p = malloc(sizeof *p);
    int st = th_run_sh(p,
                       "cp -r '%s/sample_videos/03_rod_drop_planar' '%s/e' && sed -i "
                       "'s/^  inertia: .*/  inertia: [[1e308, 0, 0], [0, 7.7e-6, 0], [0, 0, 1.312e-3]]/' '%s/e/experiment.yaml'",
                       th_root(), d, d);
    ASSERT(st == 0, "copy: %s", p->err);
    ASSERT_STR_CONTAINS(th_read_file(th_tmp("e/experiment.yaml")), "1e308");
    st = th_run_cli(p, "-q run %s/e/experiment.yaml -o %s/out", d, d);
    ASSERT(st == 1, "exit %d (134 is SIGABRT): %s", st, p->err);
    ASSERT_STR_CONTAINS(p->err, "impactcv: analyze: ");
    ASSERT_EQ_INT(th_dir_count(d, "out"), 0);
    free(p);
}

TEST(test_gsl_singular_least_squares_is_an_error_line_not_an_abort)
{
    /* a flight whose samples were all taken at one instant (a clock that stopped):
       the ballistic fit's design matrix has rank 1 of 2 (3 with g fitted); GSL's SVD
       solves it without an error status, so the fit must see the rank itself and
       refuse with one line, never return velocities of 1e15 m/s */
    double t[6] = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
    icv_vec3 p[6];
    for (int i = 0; i < 6; i++)
        p[i] = icv_v3(0.01 * i, 0.5 - 0.002 * i, 0);
    analysis_flight ph = {6, t, p, NULL, 0.1};
    analysis_ballistic out;
    icv_err err = {0};
    icv_vec3 g = icv_v3(0, -9.81, 0);
    int rc = analysis_ballistic_fit(&ph, 1, &g, &out, &err);
    ASSERT(rc != 0, "a fit at one instant was accepted: v %g %g %g", out.v[0].x, out.v[0].y, out.v[0].z);
    ASSERT_STR_CONTAINS(err.msg, "ballistic fit: the least-squares problem is singular");
    ASSERT(strchr(err.msg, '\n') == NULL, "more than one line: %s", err.msg);
    rc = analysis_ballistic_fit(&ph, 1, NULL, &out, &err);
    ASSERT(rc != 0, "a fit at one instant was accepted with g fitted");
    ASSERT_STR_CONTAINS(err.msg, "singular");
}
