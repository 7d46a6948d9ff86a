/* run_overlays.c: the overlay images of a run (report.h). Placeholder while the
 * report sections fed from the run are built (issue #10 item 2): writes nothing. */
#include "report/report.h"

int report_overlays_write(const char *dir, const icv_experiment *exp, icv_err *err)
{
    (void)dir; (void)exp; (void)err;
    return 0;
}
