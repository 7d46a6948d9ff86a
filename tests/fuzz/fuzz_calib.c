/* A calibration file (calib/calib_file.c, file_quality.c: OpenCV FileStorage YAML,
 * ours or another tool's) from any bytes, through every reader the program uses. */
#include <string.h>

#include "calib/calib.h"
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
    icv_err err = {0};
    calib_camera cam;
    memset(&cam, 0, sizeof cam);
    if (calib_camera_file_read(path, &cam, &err) == 0)
        calib_camera_free(&cam);
    calib_stereo st;
    memset(&st, 0, sizeof st);
    if (calib_stereo_file_read(path, &st, &err) == 0)
        calib_stereo_free(&st);
    calib_intrinsics in, sd;
    for (int which = 0; which < 2; which++)
        calib_intrinsics_read(path, which, &in, &sd, &err);
    calib_surface s;
    calib_surface_read(path, &s, &err);
    unlink(path);
    return 0;
}
