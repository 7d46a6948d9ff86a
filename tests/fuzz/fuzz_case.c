/* CASE.yaml of any kind (one body, two bodies, a row, a chain: impact_case_file_load)
 * from any bytes; a case that loads is not solved (the solver's numerics are the
 * tests', not a parser's). */
#include "solver/impact.h"
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
    if (fuzz_write(data, size, ".yaml", path, sizeof path))
        return 0;
    static impact_case_file c; /* large: off the fuzzer's stack */
    icv_err err = {0};
    impact_case_file_load(path, &c, &err);
    unlink(path);
    return 0;
}
