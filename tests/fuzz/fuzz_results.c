/* results.json (report/results_read.c: report_results_read) from any bytes. */
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
    if (fuzz_write(data, size, ".json", path, sizeof path))
        return 0;
    static analysis_result res; /* large: not on the stack */
    icv_err err = {0};
    report_results_read(path, &res, &err);
    unlink(path);
    return 0;
}
