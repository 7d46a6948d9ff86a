// cv_bridge.cpp: the only C++ in calib/. Thin wrappers over OpenCV's imgcodecs,
// calib3d and FileStorage that export a C interface (cv_bridge_internal.h); every
// exception stops here and becomes a message. No policy lives here: the C files
// decide what to call and what to do with the answer.
#include "calib/cv_bridge_internal.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

static void set_msg(char *msg, size_t n, const char *text)
{
    if (msg && n) {
        std::strncpy(msg, text, n - 1);
        msg[n - 1] = '\0';
        /* one line: OpenCV's messages may end in (or hold) newlines */
        for (char *p = msg; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        for (size_t k = std::strlen(msg); k > 0 && msg[k - 1] == ' '; k--)
            msg[k - 1] = '\0';
    }
}

extern "C" const char *cvb_version(void) { return CV_VERSION; }

/* ---- helpers: C arrays <-> OpenCV ---- */

static cv::Mat mat_in(const double *d, int rows, int cols)
{
    return cv::Mat(rows, cols, CV_64F, const_cast<double *>(d)).clone();
}

static void mat_out(const cv::Mat &m, double *d, int n)
{
    cv::Mat c;
    m.convertTo(c, CV_64F);
    c = c.reshape(1, 1);
    for (int i = 0; i < n; i++)
        d[i] = i < c.cols ? c.at<double>(0, i) : 0.0;
}

static std::vector<cv::Point3f> board_pts(int n, const double *obj)
{
    std::vector<cv::Point3f> v((size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = cv::Point3f((float)obj[3 * i], (float)obj[3 * i + 1], (float)obj[3 * i + 2]);
    return v;
}

static std::vector<cv::Point2f> img_pts(int n, const double *uv)
{
    std::vector<cv::Point2f> v((size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = cv::Point2f((float)uv[2 * i], (float)uv[2 * i + 1]);
    return v;
}

/* ---- detection ---- */

/* Corners c (px, full image) refined with cornerSubPix, copied to uv, and the
 * board's sharpness. */
static void refine_and_out(const cv::Mat &img, cv::Size sz, std::vector<cv::Point2f> &c, int subpix_half, double *uv,
                           double *sharpness)
{
    int cols = sz.width, rows = sz.height;
    /* Sub-pixel refinement with a small window: an 11x11 window reaches across
     * neighbouring corners on small squares and drags them by pixels. */
    if (subpix_half > 0) {
        /* ... but never wider than ~0.6 of the smallest square seen, so the
         * window holds one corner only. */
        double dmin = 1e9;
        for (int r = 0; r < rows; r++)
            for (int q = 0; q < cols; q++) {
                cv::Point2f p = c[(size_t)(r * cols + q)];
                if (q + 1 < cols)
                    dmin = std::min(dmin, (double)cv::norm(c[(size_t)(r * cols + q + 1)] - p));
                if (r + 1 < rows)
                    dmin = std::min(dmin, (double)cv::norm(c[(size_t)((r + 1) * cols + q)] - p));
            }
        int half = std::min(subpix_half, std::max(2, (int)(0.3 * dmin)));
        cv::cornerSubPix(img, c, cv::Size(half, half), cv::Size(-1, -1),
                         cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 30, 0.001));
    }
    for (size_t i = 0; i < c.size(); i++) {
        uv[2 * i] = c[i].x;
        uv[2 * i + 1] = c[i].y;
    }
    /* OpenCV measures the edge width along one grid direction only; a pan
     * blurs the other. Measure both (the transposed grid) and keep the worse. */
    cv::Scalar sh = cv::estimateChessboardSharpness(img, sz, c);
    std::vector<cv::Point2f> ct(c.size());
    for (int r = 0; r < rows; r++)
        for (int q = 0; q < cols; q++)
            ct[(size_t)(q * rows + r)] = c[(size_t)(r * cols + q)];
    cv::Scalar sh2 = cv::estimateChessboardSharpness(img, cv::Size(rows, cols), ct);
    *sharpness = std::max(sh[0], sh2[0]);
}

/* Whether most of the image is dark next to a bright minority: its median grey
 * lies in the lowest quarter of the range from the 1st to the 99.9th percentile,
 * and that range spans 40 grey levels or more (a small white board on a dark
 * floor: 12 in 0..200; a board-less dark frame's noise: 12 in 0..30, not). */
static bool dark_majority(const cv::Mat &img)
{
    int hist[256] = {0};
    for (int r = 0; r < img.rows; r++) {
        const unsigned char *p = img.ptr<unsigned char>(r);
        for (int q = 0; q < img.cols; q++)
            hist[p[q]]++;
    }
    long n = (long)img.rows * img.cols, acc = 0;
    int p1 = -1, p50 = -1, p99 = -1; /* p99: the 99.9th */
    for (int g = 0; g < 256; g++) {
        acc += hist[g];
        if (p1 < 0 && acc >= n / 100)
            p1 = g;
        if (p50 < 0 && acc >= n / 2)
            p50 = g;
        if (p99 < 0 && acc >= n - n / 1000)
            p99 = g;
    }
    return p99 - p1 >= 40 && (p50 - p1) * 4 < p99 - p1;
}

/* findChessboardCornersSB with its global histogram equalisation, then, when that
 * found nothing in a mostly dark image, without it. Equalising helps a dim board
 * filling the view, but when a small board lies on a large dark surface most pixels
 * are background: equalisation spreads their noise over most of the grey range and
 * the board's squares drown (a 9x6 board 230 px wide on a black floor, 800x600:
 * found raw, not equalised). Boards found before keep their corners; other images
 * that hold no board cost no more. */
static bool find_sb(const cv::Mat &img, cv::Size sz, std::vector<cv::Point2f> &c)
{
    return cv::findChessboardCornersSB(img, sz, c, cv::CALIB_CB_NORMALIZE_IMAGE) ||
           (dark_majority(img) && cv::findChessboardCornersSB(img, sz, c, 0));
}

/* Corners found on a copy scaled by s, mapped to the full image: pixel centres at
 * integers in both images. */
static void unscale(std::vector<cv::Point2f> &c, double s)
{
    for (auto &p : c)
        p = cv::Point2f((float)((p.x + 0.5) / s - 0.5), (float)((p.y + 0.5) / s - 0.5));
}

extern "C" int cvb_board_detect(const unsigned char *px, int w, int h, int stride, int cols, int rows, int use_sb,
                                int search_max_dim, int classic_max_dim, int subpix_half, double *uv, int *method,
                                double *sharpness)
{
    *method = CVB_DET_NONE;
    *sharpness = 0;
    try {
        cv::Mat img(h, w, CV_8UC1, const_cast<unsigned char *>(px), (size_t)stride);
        cv::Size sz(cols, rows);
        std::vector<cv::Point2f> c;
        bool ok = false;
        double s = 1.0;
        int big = w > h ? w : h;
        if (search_max_dim > 0 && big > search_max_dim) {
            /* First the classic detector on a small copy: 2 ms at 640x360 where SB
             * takes 50-100 ms at 800x450, and cornerSubPix and the symmetry
             * refinement on the full image bring its corners to within 0.003 px of
             * SB's (docs/calib.md). It needs the board's white margin whole: a board
             * cut by the image's edge goes on to SB below. */
            double s0 = (double)search_max_dim / big;
            cv::Mat tiny;
            cv::resize(img, tiny, cv::Size(), s0, s0, cv::INTER_AREA);
            if (cv::findChessboardCorners(tiny, sz, c,
                                          cv::CALIB_CB_ADAPTIVE_THRESH | cv::CALIB_CB_NORMALIZE_IMAGE |
                                              cv::CALIB_CB_FAST_CHECK)) {
                *method = CVB_DET_CLASSIC;
                unscale(c, s0);
                refine_and_out(img, sz, c, subpix_half, uv, sharpness);
                return 1;
            }
        }
        cv::Mat small = img;
        if (classic_max_dim > 0 && big > classic_max_dim) {
            s = (double)classic_max_dim / big;
            cv::resize(img, small, cv::Size(), s, s, cv::INTER_AREA);
        }
        if (use_sb) {
            /* On the bounded-size copy too (its time grows with the pixels);
             * cornerSubPix below refines on the full image. CALIB_CB_ACCURACY
             * triples the time and cornerSubPix gives the same corners (Bouguet
             * set: RMS 0.1985 px either way). */
            ok = find_sb(small, sz, c);
            if (ok)
                *method = CVB_DET_SB;
        }
        if (!ok) {
            /* The classic detector on the bounded-size copy: its quad search is
             * what can spin for minutes on large dark images; FAST_CHECK rejects
             * board-less images quickly. */
            ok = cv::findChessboardCorners(small, sz, c,
                                           cv::CALIB_CB_ADAPTIVE_THRESH | cv::CALIB_CB_NORMALIZE_IMAGE |
                                               cv::CALIB_CB_FAST_CHECK);
            if (ok)
                *method = CVB_DET_CLASSIC;
        }
        if (!ok && s != 1.0 && cv::checkChessboard(img, sz)) {
            /* A strongly foreshortened board's squares can be too narrow on the
             * bounded-size copy (rendered 1280x720 views turned 60 deg: 12 px ->
             * 7.5 px). When OpenCV's fast check (a few ms) sees a board at full
             * size, SB runs there (0.2 s at 1280x720); board-less frames skip it. */
            ok = find_sb(img, sz, c);
            if (ok) {
                *method = CVB_DET_SB;
                s = 1.0;
            }
        }
        if (!ok)
            return 0;
        if (s != 1.0)
            unscale(c, s);
        refine_and_out(img, sz, c, subpix_half, uv, sharpness);
        return 1;
    } catch (const std::exception &) {
        return 0;
    }
}

extern "C" int cvb_board_detect_warped(const unsigned char *px, int w, int h, int stride, int cols, int rows,
                                       const double M[4], double max_pixels, int subpix_half, double *uv,
                                       double *sharpness)
{
    *sharpness = 0;
    try {
        cv::Mat img(h, w, CV_8UC1, const_cast<unsigned char *>(px), (size_t)stride);
        cv::Matx22d A(M[0], M[1], M[2], M[3]);
        if (std::abs(cv::determinant(A)) < 1e-9)
            return 0;
        /* the warped image's extent: the image's corners mapped */
        double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
        for (int k = 0; k < 4; k++) {
            cv::Vec2d p = A * cv::Vec2d(k & 1 ? w - 0.5 : -0.5, k & 2 ? h - 0.5 : -0.5);
            x0 = std::min(x0, p[0]), x1 = std::max(x1, p[0]);
            y0 = std::min(y0, p[1]), y1 = std::max(y1, p[1]);
        }
        double area = (x1 - x0) * (y1 - y0);
        if (max_pixels > 0 && area > max_pixels) {
            double f = std::sqrt(max_pixels / area);
            A = A * f;
            x0 *= f, y0 *= f, x1 *= f, y1 *= f;
        }
        cv::Matx23d W(A(0, 0), A(0, 1), -x0, A(1, 0), A(1, 1), -y0);
        cv::Mat warped;
        cv::warpAffine(img, warped, cv::Mat(W), cv::Size((int)std::ceil(x1 - x0), (int)std::ceil(y1 - y0)),
                       cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        cv::Size sz(cols, rows);
        std::vector<cv::Point2f> c;
        if (!find_sb(warped, sz, c))
            return 0;
        cv::Matx23d Wi;
        cv::invertAffineTransform(W, Wi);
        for (auto &p : c)
            p = cv::Point2f((float)(Wi(0, 0) * p.x + Wi(0, 1) * p.y + Wi(0, 2)),
                            (float)(Wi(1, 0) * p.x + Wi(1, 1) * p.y + Wi(1, 2)));
        refine_and_out(img, sz, c, subpix_half, uv, sharpness);
        return 1;
    } catch (const std::exception &) {
        return 0;
    }
}

extern "C" int cvb_board_probe_size(const unsigned char *px, int w, int h, int stride, int *cols, int *rows)
{
    *cols = *rows = 0;
    try {
        cv::Mat img(h, w, CV_8UC1, const_cast<unsigned char *>(px), (size_t)stride);
        std::vector<cv::Point2f> c;
        cv::Mat meta;
        bool ok = cv::findChessboardCornersSB(img, cv::Size(3, 3), c,
                                              cv::CALIB_CB_LARGER | cv::CALIB_CB_NORMALIZE_IMAGE, meta);
        if (!ok || meta.empty())
            return 0;
        *cols = meta.cols;
        *rows = meta.rows;
        return 1;
    } catch (const std::exception &) {
        return 0;
    }
}

/* ---- calibration ---- */

extern "C" int cvb_calibrate_camera(int n_views, int n_pts, const double *obj, int obj_per_view, const double *uv, int w, int h,
                                    int fix_k3, double *K, double *dist, double *std_intr, double *per_view,
                                    double *rvecs, double *tvecs, double *rms, char *msg, size_t msg_n)
{
    try {
        std::vector<std::vector<cv::Point3f>> o((size_t)n_views);
        std::vector<std::vector<cv::Point2f>> p((size_t)n_views);
        for (int v = 0; v < n_views; v++) {
            o[v] = board_pts(n_pts, obj + (obj_per_view ? (size_t)v * n_pts * 3 : 0));
            p[v] = img_pts(n_pts, uv + (size_t)v * n_pts * 2);
        }
        cv::Mat Km, Dm, sdi, sde, pve;
        std::vector<cv::Mat> rv, tv;
        int flags = fix_k3 ? cv::CALIB_FIX_K3 : 0;
        *rms = cv::calibrateCamera(o, p, cv::Size(w, h), Km, Dm, rv, tv, sdi, sde, pve, flags,
                                   cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-12));
        mat_out(Km, K, 9);
        mat_out(Dm, dist, 5);
        mat_out(sdi, std_intr, 9);
#if CV_VERSION_MAJOR < 4 || (CV_VERSION_MAJOR == 4 && CV_VERSION_MINOR < 7)
        /* OpenCV before 4.7 estimates sigma^2 = SSR / (N - p) with N the number
         * of points, not of residuals (2N): standard errors too large by
         * sqrt((2N - p)/(N - p)), ~1.46 on 14 views of 54 corners (opencv issue
         * #19803, fixed by PR #22992 in 4.7). Undo it: SSR / (2N - p). */
        {
            double N = (double)n_views * n_pts;
            double p = 8 + (fix_k3 ? 0 : 1) + 6.0 * n_views;
            double f = 2 * N > p && N > p ? std::sqrt((N - p) / (2 * N - p)) : 1.0;
            for (int i = 0; i < 9; i++)
                std_intr[i] *= f;
        }
#endif
        mat_out(pve, per_view, n_views);
        for (int v = 0; v < n_views; v++) {
            mat_out(rv[v], rvecs + 3 * v, 3);
            mat_out(tv[v], tvecs + 3 * v, 3);
        }
        return 0;
    } catch (const std::exception &e) {
        set_msg(msg, msg_n, e.what());
        return -1;
    }
}

extern "C" int cvb_stereo_calibrate(int n_views, int n_pts, const double *obj, const double *uv1,
                                    const double *uv2, int w, int h, int mode, int fix_k3, double *K1, double *D1,
                                    double *K2, double *D2, double *R, double *T, double *E, double *F,
                                    double *per_view, double *rms, char *msg, size_t msg_n)
{
    try {
        std::vector<std::vector<cv::Point3f>> o((size_t)n_views, board_pts(n_pts, obj));
        std::vector<std::vector<cv::Point2f>> p1((size_t)n_views), p2((size_t)n_views);
        for (int v = 0; v < n_views; v++) {
            p1[v] = img_pts(n_pts, uv1 + (size_t)v * n_pts * 2);
            p2[v] = img_pts(n_pts, uv2 + (size_t)v * n_pts * 2);
        }
        cv::Mat K1m = mat_in(K1, 3, 3), D1m = mat_in(D1, 1, 5), K2m = mat_in(K2, 3, 3), D2m = mat_in(D2, 1, 5);
        cv::Mat Rm = mat_in(R, 3, 3), Tm = mat_in(T, 3, 1), Em, Fm, pve;
        int flags = mode == CVB_STEREO_FIX_INTRINSIC ? cv::CALIB_FIX_INTRINSIC
                                                     : cv::CALIB_USE_INTRINSIC_GUESS | cv::CALIB_USE_EXTRINSIC_GUESS;
        if (fix_k3)
            flags |= cv::CALIB_FIX_K3;
        *rms = cv::stereoCalibrate(o, p1, p2, K1m, D1m, K2m, D2m, cv::Size(w, h), Rm, Tm, Em, Fm, pve, flags,
                                   cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 100, 1e-10));
        mat_out(K1m, K1, 9);
        mat_out(D1m, D1, 5);
        mat_out(K2m, K2, 9);
        mat_out(D2m, D2, 5);
        mat_out(Rm, R, 9);
        mat_out(Tm, T, 3);
        mat_out(Em, E, 9);
        mat_out(Fm, F, 9);
        mat_out(pve, per_view, 2 * n_views);
        return 0;
    } catch (const std::exception &e) {
        set_msg(msg, msg_n, e.what());
        return -1;
    }
}

extern "C" int cvb_solve_pnp(int n, const double *obj, const double *uv, const double *K, const double *dist,
                             double *rvec, double *tvec, char *msg, size_t msg_n)
{
    try {
        std::vector<cv::Point3d> o((size_t)n);
        std::vector<cv::Point2d> p((size_t)n);
        for (int i = 0; i < n; i++) {
            o[i] = cv::Point3d(obj[3 * i], obj[3 * i + 1], obj[3 * i + 2]);
            p[i] = cv::Point2d(uv[2 * i], uv[2 * i + 1]);
        }
        cv::Mat rv, tv;
        if (!cv::solvePnP(o, p, mat_in(K, 3, 3), mat_in(dist, 1, 5), rv, tv, false, cv::SOLVEPNP_ITERATIVE)) {
            set_msg(msg, msg_n, "solvePnP found no pose");
            return -1;
        }
        mat_out(rv, rvec, 3);
        mat_out(tv, tvec, 3);
        return 0;
    } catch (const std::exception &e) {
        set_msg(msg, msg_n, e.what());
        return -1;
    }
}

extern "C" int cvb_undistort_points(int n, const double *uv, const double *K, const double *dist, int to_pixels,
                                    double *out, char *msg, size_t msg_n)
{
    try {
        cv::Mat in(n, 1, CV_64FC2, const_cast<double *>(uv)), res;
        cv::Mat Km = mat_in(K, 3, 3);
        /* More iterations than the default 5: strong barrel distortion at the
         * image corners needs them to converge to 1e-9. */
        cv::undistortPoints(in, res, Km, mat_in(dist, 1, 5), cv::noArray(), to_pixels ? Km : cv::Mat(),
                            cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 100, 1e-12));
        for (int i = 0; i < n; i++) {
            cv::Vec2d q = res.at<cv::Vec2d>(i, 0);
            out[2 * i] = q[0];
            out[2 * i + 1] = q[1];
        }
        return 0;
    } catch (const std::exception &e) {
        set_msg(msg, msg_n, e.what());
        return -1;
    }
}

extern "C" int cvb_undistort_pixels(const unsigned char *in, int width, int height, int channels, const double *K,
                                    const double *dist, unsigned char *out, char *msg, size_t msg_n)
{
    try {
        int type = channels == 1 ? CV_8UC1 : CV_8UC3;
        cv::Mat src(height, width, type, const_cast<unsigned char *>(in));
        cv::Mat dst(height, width, type, out);
        cv::undistort(src, dst, mat_in(K, 3, 3), mat_in(dist, 1, 5));
        return 0;
    } catch (const std::exception &e) {
        set_msg(msg, msg_n, e.what());
        return -1;
    }
}

/* ---- FileStorage ---- */

extern "C" void *cvb_fs_writer_open(char *msg, size_t msg_n)
{
    try {
        auto *fs = new cv::FileStorage(".yml", cv::FileStorage::WRITE | cv::FileStorage::MEMORY);
        return fs;
    } catch (const std::exception &e) {
        set_msg(msg, msg_n, e.what());
        return nullptr;
    }
}

extern "C" int cvb_fs_write_mat(void *fs, const char *name, int rows, int cols, const double *data)
{
    try {
        *(cv::FileStorage *)fs << name << mat_in(data, rows, cols);
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int cvb_fs_write_real(void *fs, const char *name, double v)
{
    try {
        *(cv::FileStorage *)fs << name << v;
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int cvb_fs_write_int(void *fs, const char *name, int v)
{
    try {
        *(cv::FileStorage *)fs << name << v;
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int cvb_fs_write_str(void *fs, const char *name, const char *v)
{
    try {
        *(cv::FileStorage *)fs << name << std::string(v);
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int cvb_fs_write_strs(void *fs, const char *name, int n, const char *const *v)
{
    try {
        cv::FileStorage &f = *(cv::FileStorage *)fs;
        f << name << "[";
        for (int i = 0; i < n; i++)
            f << std::string(v[i]);
        f << "]";
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int cvb_fs_writer_release(void *fs, char **text, char *msg, size_t msg_n)
{
    *text = nullptr;
    auto *f = (cv::FileStorage *)fs;
    try {
        std::string s = f->releaseAndGetString();
        delete f;
        *text = (char *)std::malloc(s.size() + 1);
        if (!*text) {
            set_msg(msg, msg_n, "out of memory");
            return -1;
        }
        std::memcpy(*text, s.c_str(), s.size() + 1);
        return 0;
    } catch (const std::exception &e) {
        delete f;
        set_msg(msg, msg_n, e.what());
        return -1;
    }
}

