/* cv_bridge.h: the C interface of calib/cv_bridge.cpp, the only C++ in calib/.
 * OpenCV's C++ API is reached through these functions alone. They take plain C
 * types and report failure as a negative return and a message in msg (core.h's
 * icv_err is wrapped around them in the C files). Private to calib/. */
#ifndef ICV_CV_BRIDGE_H
#define ICV_CV_BRIDGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads an image file (any format OpenCV reads) as 8-bit gray, converting colour
 * with OpenCV's luma weights. *pixels is malloc'd, row-major with stride = width;
 * the caller frees it. Returns 0, or -1 with msg filled. */
int cvb_imread_gray(const char *path, unsigned char **pixels, int *width, int *height, char *msg, size_t msg_n);

/* The OpenCV version string, e.g. "4.6.0". */
const char *cvb_version(void);

#ifdef __cplusplus
}
#endif

#endif
