/* A video file (capture/: FFmpeg's demuxers and decoders behind capture_source) from
 * any bytes: opened (its frame index built) and its first frames read, as track does. */
#include "capture/capture.h"
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
    /* no extension: the container is found from the bytes, as for any user's file */
    if (fuzz_write(data, size, "", path, sizeof path))
        return 0;
    capture_options opt = {0};
    opt.threads = 1; /* one decoding thread: the same input runs the same way */
    opt.want_8bit = size & 1; /* both sample depths' paths */
    capture_source *src = NULL;
    icv_err err = {0};
    if (capture_source_open(&src, path, &opt, &err) == 0) {
        capture_frame f = {0};
        if (capture_frame_alloc(&f, capture_source_info(src), &err) == 0) {
            for (int i = 0; i < 3 && capture_source_read(src, &f, &err) == 0; i++)
                ;
            capture_frame_free(&f);
        }
        capture_source_close(src);
    }
    unlink(path);
    return 0;
}
