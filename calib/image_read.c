/* image_read.c: gray images from files through the OpenCV bridge. */
#include <stdlib.h>

#include "calib/calib.h"
#include "calib/cv_bridge.h"

int calib_image_read_gray(const char *path, calib_image *img, icv_err *err)
{
    char msg[256];
    unsigned char *px;
    int w, h;
    if (!icv_file_exists(path))
        return icv_err_set(err, ICV_ENOTFOUND, "%s: image not found", path);
    if (cvb_imread_gray(path, &px, &w, &h, msg, sizeof msg))
        return icv_err_set(err, ICV_EFORMAT, "%s: %s", path, msg);
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
