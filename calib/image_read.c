/* image_read.c: gray images from files through capture/ (FFmpeg's image decoders). */
#include <stdlib.h>

#include "calib/calib.h"
#include "calib/cv_bridge_internal.h"
#include "capture/capture.h"

int calib_image_read_gray(const char *path, calib_image *img, icv_err *err)
{
    unsigned char *px;
    int w, h;
    int rc = capture_image_read(path, 1, &px, &w, &h, err);
    if (rc)
        return rc;
    img->width = w;
    img->height = h;
    img->stride = w;
    img->data = px;
    return 0;
}
void calib_image_free(calib_image *img)
{
    free(img->data);
    img->data = NULL;
}

const char *calib_opencv_version(void) { return cvb_version(); }
