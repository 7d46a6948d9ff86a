/* test_overlays_index_read.c: DIR/overlays/index.json (report_overlays_index_read) from
 * a damaged or edited file. An impact of 2147483647 or a crop of 2^63 - 1 px made its
 * label's arithmetic overflow (UBSan, found by tests/fuzz/fuzz_overlays.c); such an
 * entry is refused with one line. */
#include <stdlib.h>
#include <sys/stat.h>

#include "report/report.h"
#include "tests/harness.h"

static int read_index(const char *json, icv_err *err, int *n)
{
    char sub[ICV_PATH_MAX];
    snprintf(sub, sizeof sub, "%s/overlays", th_tmpdir());
    mkdir(sub, 0700);
    if (th_write_file(th_tmp("overlays/a.png"), "\x89PNG") || th_write_file(th_tmp("overlays/index.json"), json))
        return -100;
    report_overlay *ov = NULL;
    unsigned char **pngs = NULL;
    *n = 0;
    int rc = report_overlays_index_read(sub, &ov, &pngs, n, err);
    for (int i = 0; pngs && i < *n; i++)
        free(pngs[i]);
    free(pngs);
    free(ov);
    return rc;
}

TEST(test_overlays_index_read_takes_a_good_entry)
{
    icv_err err = {0};
    int n = 0;
    int rc = read_index("{\"schema\": \"impactcv-overlays-1\", \"overlays\": [{\"file\": \"a.png\", \"camera\": "
                        "\"left\", \"role\": \"at\", \"impact\": 0, \"frame\": 164, \"time_s\": 0.68, "
                        "\"crop_px\": [100, 50, 240, 240]}]}",
                        &err, &n);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(n, 1);
}

TEST(test_overlays_index_read_refuses_numbers_that_overflow_the_label)
{
    const char *bad[] = {"\"impact\": 2147483647, \"frame\": 1, \"crop_px\": [0, 0, 10, 10]",
                         "\"impact\": 0, \"frame\": 1, \"crop_px\": [9223372036854775807, 0, 10, 10]",
                         "\"impact\": 0, \"frame\": 1, \"crop_px\": [0, -9223372036854775807, 10, 10]",
                         "\"impact\": 0, \"frame\": 1e300, \"crop_px\": [0, 0, 10, 10]"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char json[600];
        snprintf(json, sizeof json,
                 "{\"schema\": \"impactcv-overlays-1\", \"overlays\": [{\"file\": \"a.png\", \"camera\": "
                 "\"left\", \"role\": \"at\", \"time_s\": 0.1, %s}]}",
                 bad[k]);
        icv_err err = {0};
        int n = 0;
        int rc = read_index(json, &err, &n);
        ASSERT(rc == ICV_EFORMAT, "case %zu accepted (rc %d)", k, rc);
        ASSERT_STR_CONTAINS(err.msg, "index.json: entry 0: frame, impact or crop_px not a whole number in range");
    }
}
