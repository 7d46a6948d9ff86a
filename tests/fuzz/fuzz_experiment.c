/* experiment.yaml (core/experiment.c) from any bytes: a clean error or a model. */
#include <stdlib.h>

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
    icv_experiment *exp = calloc(1, sizeof *exp); /* large: not on the stack */
    icv_err err = {0};
    if (exp)
        icv_experiment_load(path, exp, &err);
    free(exp);
    unlink(path);
    return 0;
}
