/* calib.h: camera calibration (issue #6). For now: reading images as gray
 * through OpenCV, the first use of the OpenCV bridge. */
#ifndef ICV_CALIB_H
#define ICV_CALIB_H

#include "core/core.h"

/* An 8-bit gray image; pixel (u, v) is data[v * stride + u], pixel centres at
 * integer coordinates (OpenCV's convention). */
typedef struct {
    int width, height, stride; /* pixels */
    unsigned char *data;       /* owned by the image; free with calib_image_free */
} calib_image;

/* Reads PNG, JPEG, TIFF, ... as gray (colour converted with OpenCV's luma). */
int calib_image_read_gray(const char *path, calib_image *img, icv_err *err);
void calib_image_free(calib_image *img);

/* OpenCV's version, for --version. */
const char *calib_opencv_version(void);

#endif
