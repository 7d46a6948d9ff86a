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

TEST(test_results_read_escapes_control_bytes_of_a_wrong_schema)
{
    const char *path = th_tmp("results.json");
    ASSERT(th_write_file(path, "{\"schema\": \"\\u001b[2Jx\\u0007\", \"impacts\": []}") == 0, "cannot write %s", path);
    analysis_result *res = malloc(sizeof *res); /* large: not on the stack */
    icv_err err = {0};
    int rc = report_results_read(path, res, &err);
    free(res);
    ASSERT(rc == ICV_EFORMAT, "accepted (rc %d)", rc);
    int raw = 0;
    for (const char *p = err.msg; *p; p++)
        raw += (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f;
    ASSERT_EQ_INT(raw, 0);
    ASSERT_STR_CONTAINS(err.msg, "(schema \"\\x1B[2Jx\\x07\")");
}
