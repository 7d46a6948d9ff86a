/* A still image (capture/still_image.c: capture_image_read, for calibration boards
 * and surface images) from any bytes. The file gets the extension its first bytes
 * suggest, as a user's file would have. */
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    return 0;
}

static const char *ext_of(const uint8_t *d, size_t n)
{
    if (n >= 2 && d[0] == 0xFF && d[1] == 0xD8)
        return ".jpg";
    if (n >= 2 && d[0] == 'B' && d[1] == 'M')
        return ".bmp";
    if (n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '6')
        return ".ppm";
    if (n >= 4 && (!memcmp(d, "II*", 3) || !memcmp(d, "MM\0*", 4)))
        return ".tif";
    if (n >= 4 && !memcmp(d, "RIFF", 4))
        return ".webp";
    return ".png";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[ICV_PATH_MAX];
    if (fuzz_write(data, size, ext_of(data, size), path, sizeof path))
        return 0;
    unsigned char *px = NULL;
    int w = 0, h = 0;
    icv_err err = {0};
    /* gray (boards) or RGB (colour markers), by the size's parity: both paths */
    if (capture_image_read(path, size & 1 ? 3 : 1, &px, &w, &h, &err) == 0)
        free(px);
    unlink(path);
    return 0;
}
