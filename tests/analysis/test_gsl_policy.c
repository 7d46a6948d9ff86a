/* GSL's errors are statuses, never an abort (the program turns GSL's handler off once
 * at start, cli/main.c): an inertia of 1e308 passes `check` and sends the rotation's
 * elliptic integrals out of their domain; the run must end with one error line and
 * exit 1, not SIGABRT, and leave no working folder. */
#include <stdlib.h>

#include "tests/harness.h"

TEST(test_gsl_out_of_domain_is_an_error_line_not_an_abort)
{
    if (th_sanitized())
        SKIP("one pipeline run: the plain pass covers it");
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
