/* cv_peer_bridge.h: the C interface of bench/cv_peer_bridge.cpp, the only C++ in
 * bench/: "the peer" bench_track times against our detector (issue #18). It is what a
 * user would otherwise write with OpenCV: cv::threshold (THRESH_BINARY: pixel >
 * threshold), cv::connectedComponentsWithStats (8-connectivity, CV_32S labels), then
 * per component an intensity-weighted centroid over its bounding box from the labels
 * image, weights = pixel value - threshold on the component's own pixels (positive
 * there; pixels of other labels in the box are left out).
 *
 * One thread: cvp_init calls cv::setNumThreads(1), so OpenCV's parallel_for_ (threshold,
 * connectedComponents) runs on the calling thread only; the figure is "one core", as
 * ours. Buffers (the binary and label images) are cv::Mats made once in cvp_init at the
 * largest size, and each call works in headers onto them (no cv::Mat is allocated per
 * call); OpenCV itself still allocates inside connectedComponentsWithStats (its stats
 * and centroids rows follow the label count, and the labelling's work arrays).
 * Private to bench/. */
#ifndef ICV_CV_PEER_BRIDGE_H
#define ICV_CV_PEER_BRIDGE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvp_peer cvp_peer;

/* The labelling connectedComponentsWithStats runs (OpenCV's ccltype). */
enum {
    CVP_CCL_DEFAULT = -1, /* cv::CCL_DEFAULT: what a user gets; 8-connected, one thread:
                             Spaghetti (Bolelli), ~5.8 ms at 1280x720 here, most of it
                             the per-pixel statistics */
    CVP_CCL_GRANA = 1,    /* cv::CCL_GRANA (BBDT, 2x2 blocks): ~2.0 ms at 1280x720 on
                             one thread here, the fastest of OpenCV 4.6's on these frames */
};

/* A peer for 8-bit gray frames up to max_width x max_height, labelling with ccltype
 * (CVP_CCL_*); sets OpenCV to one thread. NULL when out of memory (msg says why).
 * Free with cvp_free. */
cvp_peer *cvp_init(int max_width, int max_height, int ccltype, char *msg, int msg_n);
void cvp_free(cvp_peer *p);

/* OpenCV's thread count after cvp_init (1), to print. */
int cvp_num_threads(void);

/* Blobs of the 8-bit frame px (width x height, rows stride bytes apart): the whole
 * frame when n_rects is 0, else each rect (x, y, w, h: 4 ints per rect, clipped to the
 * frame) as an ROI on its own, as a tracker's search windows. A component of fewer than
 * min_area pixels is skipped. Writes up to max_out centroids (u, v interleaved, px,
 * frame coordinates, the centre of the top-left pixel at (0, 0)) to uv and their areas
 * (px above the threshold) to area (may be NULL), and the count to *n_out (components
 * beyond max_out are counted, not written). Returns 0, or -1 when OpenCV threw (msg). */
int cvp_detect(cvp_peer *p, const unsigned char *px, int width, int height, int stride, double threshold,
               int min_area, const int *rects, int n_rects, double *uv, double *area, int max_out, int *n_out,
               char *msg, int msg_n);

#ifdef __cplusplus
}
#endif

#endif
