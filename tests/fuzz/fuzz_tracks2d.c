/* tracks2d_<camera>.csv and predicted2d_<camera>.csv (report/rows2d_read.c) from any
 * bytes: the same file read both ways. */
#include <stdlib.h>

#include "report/report_internal.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[ICV_PATH_MAX];
    if (fuzz_write(data, size, ".csv", path, sizeof path))
        return 0;
    for (int predicted = 0; predicted < 2; predicted++) {
        report_row2d *rows = NULL;
        long n = 0;
        icv_err err = {0};
        if (report_rows2d_read(path, predicted, &rows, &n, &err) == 0)
            free(rows);
    }
    unlink(path);
    return 0;
}
