// cv_peer_bridge.cpp: the only C++ in bench/: OpenCV's threshold +
// connectedComponentsWithStats + a weighted centroid per blob, the peer bench_track
// times our detector against (cv_peer_bridge.h). Every exception stops here and
// becomes a message.
#include "bench/cv_peer_bridge.h"

#include <cmath>
#include <cstring>
#include <exception>
#include <new>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

struct cvp_peer {
    int max_w, max_h;
    int ccltype;       // cv::ConnectedComponentsAlgorithmsTypes
    cv::Mat bin;       // CV_8U, max_h x max_w: the thresholded image (or ROI)
    cv::Mat labels;    // CV_32S, max_h x max_w
    cv::Mat stats;     // CV_32S, n_labels x 5 (OpenCV resizes it to the label count)
    cv::Mat centroids; // CV_64F, n_labels x 2 (OpenCV's unweighted ones, not used)
};

static void set_msg(char *msg, int n, const char *text)
{
    if (msg && n > 0) {
        std::strncpy(msg, text, (size_t)n - 1);
        msg[n - 1] = '\0';
        for (char *p = msg; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
}

extern "C" cvp_peer *cvp_init(int max_width, int max_height, int ccltype, char *msg, int msg_n)
{
    try {
        cv::setNumThreads(1); // one core: parallel_for_ runs on the caller's thread
        cvp_peer *p = new cvp_peer;
        p->max_w = max_width;
        p->max_h = max_height;
        p->ccltype = ccltype;
        p->bin.create(max_height, max_width, CV_8UC1);
        p->labels.create(max_height, max_width, CV_32SC1);
        p->stats.create(16, cv::CC_STAT_MAX, CV_32SC1);
        p->centroids.create(16, 2, CV_64FC1);
        return p;
    } catch (const std::exception &e) {
        set_msg(msg, msg_n, e.what());
        return nullptr;
    }
}

extern "C" void cvp_free(cvp_peer *p)
{
    delete p;
}

extern "C" int cvp_num_threads(void)
{
    return cv::getNumThreads();
}

// One region: threshold, label, then each component's weighted centroid over its box.
static void region(cvp_peer *p, const cv::Mat &img, const cv::Rect &r, double threshold, int min_area, double *uv,
                   double *area, int max_out, int *n_out)
{
    const cv::Mat src = img(r);
    // headers onto the preallocated buffers: threshold's and the labelling's create()
    // see the right size and type and allocate nothing
    cv::Mat bin = p->bin(cv::Rect(0, 0, r.width, r.height));
    cv::Mat lab = p->labels(cv::Rect(0, 0, r.width, r.height));
    cv::threshold(src, bin, threshold, 255, cv::THRESH_BINARY);
    int n = cv::connectedComponentsWithStats(bin, lab, p->stats, p->centroids, 8, CV_32S, p->ccltype);
    // 8-bit: OpenCV compares with floor(threshold); weights are I - that level (>= 1)
    const int t = (int)std::floor(threshold);
    for (int i = 1; i < n; i++) {
        const int *s = p->stats.ptr<int>(i);
        if (s[cv::CC_STAT_AREA] < min_area)
            continue;
        int x0 = s[cv::CC_STAT_LEFT], y0 = s[cv::CC_STAT_TOP];
        int bw = s[cv::CC_STAT_WIDTH], bh = s[cv::CC_STAT_HEIGHT];
        long sw = 0, sx = 0, sy = 0;
        for (int y = 0; y < bh; y++) {
            const int *L = lab.ptr<int>(y0 + y) + x0;
            const unsigned char *I = src.ptr<unsigned char>(y0 + y) + x0;
            for (int x = 0; x < bw; x++)
                if (L[x] == i) {
                    long w = (long)I[x] - t;
                    sw += w;
                    sx += w * x;
                    sy += w * y;
                }
        }
        if (*n_out < max_out && sw > 0) {
            uv[2 * *n_out] = r.x + x0 + (double)sx / sw;
            uv[2 * *n_out + 1] = r.y + y0 + (double)sy / sw;
            if (area)
                area[*n_out] = s[cv::CC_STAT_AREA];
        }
        (*n_out)++;
    }
}

extern "C" int cvp_detect(cvp_peer *p, const unsigned char *px, int width, int height, int stride, double threshold,
                          int min_area, const int *rects, int n_rects, double *uv, double *area, int max_out,
                          int *n_out, char *msg, int msg_n)
{
    *n_out = 0;
    if (width > p->max_w || height > p->max_h) {
        set_msg(msg, msg_n, "cvp_detect: frame larger than cvp_init's size");
        return -1;
    }
    try {
        const cv::Mat img(height, width, CV_8UC1, const_cast<unsigned char *>(px), (size_t)stride);
        const cv::Rect frame(0, 0, width, height);
        if (n_rects <= 0) {
            region(p, img, frame, threshold, min_area, uv, area, max_out, n_out);
        } else {
            for (int k = 0; k < n_rects; k++) {
                cv::Rect r = cv::Rect(rects[4 * k], rects[4 * k + 1], rects[4 * k + 2], rects[4 * k + 3]) & frame;
                if (r.width > 0 && r.height > 0)
                    region(p, img, r, threshold, min_area, uv, area, max_out, n_out);
            }
        }
        return 0;
    } catch (const std::exception &e) {
        set_msg(msg, msg_n, e.what());
        return -1;
    }
}
