/* Reading back results.json: a file of another schema is refused with its schema named
 * (the message is built before the JSON tree that holds the name is freed: under ASan a
 * use after free fails this test). */
#include <stdlib.h>

#include "report/report.h"
#include "tests/harness.h"

TEST(test_results_read_names_a_wrong_schema)
{
    const char *path = th_tmp("results.json");
    ASSERT(th_write_file(path, "{\"schema\": \"impactcv-tracks-9\", \"impacts\": []}") == 0, "cannot write %s", path);
    analysis_result *res = malloc(sizeof *res);
    icv_err err = {0};
    int rc = report_results_read(path, res, &err);
    free(res);
    ASSERT(rc == ICV_EFORMAT, "rc %d: %s", rc, err.msg);
    ASSERT_STR_CONTAINS(err.msg, "not an impactcv-results-1 file (schema \"impactcv-tracks-9\")");
}
