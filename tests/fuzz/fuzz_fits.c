/* fits.csv (report/results_read.c: report_fits_read) from any bytes. */
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
    report_fit_row *rows = NULL;
    int n = 0;
    icv_err err = {0};
    if (report_fits_read(path, &rows, &n, &err) == 0)
        free(rows);
    unlink(path);
    return 0;
}
