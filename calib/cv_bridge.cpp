// cv_bridge.cpp: the only C++ in calib/. Thin wrappers over OpenCV that export a
// C interface (cv_bridge.h); every exception stops here and becomes a message.
#include "calib/cv_bridge.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

static void set_msg(char *msg, size_t n, const char *text)
{
    if (msg && n) {
        std::strncpy(msg, text, n - 1);
        msg[n - 1] = '\0';
    }
}

extern "C" int cvb_imread_gray(const char *path, unsigned char **pixels, int *width, int *height, char *msg,
                               size_t msg_n)
{
    *pixels = nullptr;
    try {
        cv::Mat img = cv::imread(path, cv::IMREAD_GRAYSCALE);
        if (img.empty()) {
            set_msg(msg, msg_n, "not an image OpenCV can read");
            return -1;
        }
        size_t n = (size_t)img.cols * (size_t)img.rows;
        unsigned char *buf = (unsigned char *)std::malloc(n);
        if (!buf) {
            set_msg(msg, msg_n, "out of memory");
            return -1;
        }
        for (int r = 0; r < img.rows; r++)
            std::memcpy(buf + (size_t)r * img.cols, img.ptr<unsigned char>(r), (size_t)img.cols);
        *pixels = buf;
        *width = img.cols;
        *height = img.rows;
        return 0;
    } catch (const std::exception &e) {
        set_msg(msg, msg_n, e.what());
        return -1;
    }
}

extern "C" const char *cvb_version(void) { return CV_VERSION; }
