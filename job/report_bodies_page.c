/* report_bodies_page.c: report.html of a run of several bodies: the analyze stage's
 * page (kept in DIR/.impactcv/) with the overlays stage's images shown in it. */
#include <stdlib.h>

#include "job/job_internal.h"

int job_report_bodies_write(const char *dir, const icv_experiment *exp, icv_err *err)
{
    char page[ICV_PATH_MAX], sub[ICV_PATH_MAX], ov_dir[ICV_PATH_MAX], path[ICV_PATH_MAX];
    report_overlay *ov = NULL;
    unsigned char **pngs = NULL;
    int n = 0;
    int rc = icv_path_join(sub, sizeof sub, dir, JOB_CACHE_DIR, err);
    if (!rc && !(rc = icv_path_join(page, sizeof page, sub, JOB_BODIES_PAGE, err)) &&
        !(rc = icv_path_join(ov_dir, sizeof ov_dir, dir, "overlays", err)) &&
        !(rc = icv_path_join(path, sizeof path, dir, "report.html", err)) &&
        !(rc = report_overlays_index_read(ov_dir, &ov, &pngs, &n, err)))
        rc = report_bodies_page_add_overlays(page, path, exp, ov, n, err);
    for (int i = 0; i < n; i++)
        free(pngs[i]);
    free(pngs);
    free(ov);
    return rc;
}
