/* C3D and TRC marker files (core/marker_c3d.c, core/marker_trc.c: icv_marker_file_read,
 * what `analyze --tracks` reads from other systems) from any bytes. */
#include "core/marker_file.h"
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
    if (fuzz_write(data, size, ".dat", path, sizeof path))
        return 0;
    icv_marker_file m;
    icv_err err = {0};
    if (icv_marker_file_read(path, &m, &err) == 0)
        icv_marker_file_free(&m);
    unlink(path);
    return 0;
}
