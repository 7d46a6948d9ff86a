/* track_info.json (report/track_info_read.c: report_track_info_read) from any bytes. */
#include <string.h>

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
    static report_track_info ti; /* large: not on the stack */
    memset(&ti, 0, sizeof ti);
    icv_err err = {0};
    if (report_track_info_read(path, &ti, &err) == 0)
        report_track_info_free(&ti);
    unlink(path);
    return 0;
}
