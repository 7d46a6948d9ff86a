/* board_detect.c: the checkerboard (its size, its points) and finding its inner
 * corners in an image: findChessboardCornersSB first, the classic detector on a
 * bounded-size copy as the fallback, cornerSubPix with a 5x5 window (cv_bridge.cpp). */
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "calib/calib.h"
#include "calib/cv_bridge_internal.h"

int calib_board_parse(const char *spec, calib_board *b, icv_err *err)
{
    /* strtol, not sscanf's %d: a number past int's range is undefined for sscanf */
    long lc = 0, lr = 0;
    double sq = 0;
    char *e1 = NULL, *e2 = NULL, *e3 = NULL;
    int ok = spec != NULL;
    if (ok) {
        lc = strtol(spec, &e1, 10);
        ok = e1 != spec && *e1 == 'x';
    }
    if (ok) {
        lr = strtol(e1 + 1, &e2, 10);
        ok = e2 != e1 + 1 && *e2 == '@';
    }
    if (ok) {
        sq = strtod(e2 + 1, &e3);
        ok = e3 != e2 + 1 && *e3 == '\0' && !strpbrk(e2 + 1, "xXpP");
    }
    if (!ok)
        return icv_err_set(err, ICV_EINVAL, "--board '%s': expected COLSxROWS@SQUARE, e.g. 9x6@0.023",
                           spec ? spec : "");
    if (lc < 2 || lr < 2 || lc > ICV_MAX_BOARD_SIDE || lr > ICV_MAX_BOARD_SIDE)
        return icv_err_set(err, ICV_EINVAL, "--board '%s': inner corners must be 2..%d along each side", spec,
                           ICV_MAX_BOARD_SIDE);
    int cols = (int)lc, rows = (int)lr;
    if (!(sq > 0) || sq > 1.0)
        return icv_err_set(err, ICV_EINVAL,
                           "--board '%s': square %g m out of range (0, 1] (metres: 23 mm is 0.023)", spec, sq);
    b->cols = cols;
    b->rows = rows;
    b->square = sq;
    return 0;
}

void calib_board_points(const calib_board *b, icv_vec3 *pts)
{
    for (int r = 0; r < b->rows; r++)
        for (int c = 0; c < b->cols; c++)
            pts[r * b->cols + c] = icv_v3(c * b->square, r * b->square, 0.0);
}

void calib_detector_defaults(calib_detector *d)
{
    d->use_sb = 1;
    d->search_max_dim = 640;
    d->classic_max_dim = 800;
    d->subpix_half = 5;
    d->max_sharpness = 5.0;
    d->refine_symmetry = 1;
    d->foreshortened = 0;
    d->threads = 0;
}

enum { DIR_BINS = 180, DIR_PEAKS = 3 };

/* The image's DIR_PEAKS strongest edge directions (rad in [0, pi), the edge's own
 * direction, not its gradient's), at least 12 deg apart, strongest first: a
 * checkerboard's squares give two strong ones, its grid lines. Returns how many. */
static int edge_directions(const calib_image *img, double dir[DIR_PEAKS])
{
    double hist[DIR_BINS] = {0}, smooth[DIR_BINS];
    for (int v = 1; v + 1 < img->height; v++) {
        const unsigned char *a = img->data + (size_t)(v - 1) * img->stride, *b = a + img->stride,
                            *c = b + img->stride;
        for (int u = 1; u + 1 < img->width; u++) {
            double gx = (a[u + 1] + 2.0 * b[u + 1] + c[u + 1]) - (a[u - 1] + 2.0 * b[u - 1] + c[u - 1]);
            double gy = (c[u - 1] + 2.0 * c[u] + c[u + 1]) - (a[u - 1] + 2.0 * a[u] + a[u + 1]);
            double m = hypot(gx, gy);
            if (m < 40) /* a step of ~10 grey levels: noise and soft shading stay out */
                continue;
            double th = atan2(gy, gx) + M_PI / 2; /* along the edge */
            th = fmod(th + 2 * M_PI, M_PI);
            hist[(int)(th / M_PI * DIR_BINS) % DIR_BINS] += m;
        }
    }
    for (int i = 0; i < DIR_BINS; i++) {
        smooth[i] = 0;
        for (int k = -2; k <= 2; k++)
            smooth[i] += hist[(i + k + DIR_BINS) % DIR_BINS];
    }
    int n = 0;
    for (; n < DIR_PEAKS; n++) {
        int best = 0;
        for (int i = 1; i < DIR_BINS; i++)
            if (smooth[i] > smooth[best])
                best = i;
        if (!(smooth[best] > 0))
            break;
        dir[n] = (best + 0.5) * M_PI / DIR_BINS;
        for (int k = -12; k <= 12; k++)
            smooth[(best + k + DIR_BINS) % DIR_BINS] = -1;
    }
    return n;
}

/* SB on the image warped so that a pair of edge directions becomes the image's axes
 * (their squares turned into rectangles, then into squares for a guess of the
 * rectangles' aspect). */
static int detect_foreshortened(const calib_detector *d, const calib_image *img, const calib_board *b,
                                calib_pt2 *uv, double *sharpness)
{
    double dir[DIR_PEAKS];
    int nd = edge_directions(img, dir);
    static const double aspect[] = {1.0, 0.5, 2.0};
    for (int i = 0; i < nd; i++)
        for (int j = i + 1; j < nd; j++) {
            double a = dir[i], c = dir[j];
            double det = cos(a) * sin(c) - sin(a) * cos(c);
            if (fabs(det) < sin(10 * M_PI / 180)) /* nearly parallel: no square to restore */
                continue;
            if (det < 0) { /* a mirror would reverse the board's handedness */
                double t = a;
                a = c, c = t;
                det = -det;
            }
            /* inverse of the columns (cos a, sin a), (cos c, sin c) */
            double inv[4] = {sin(c) / det, -cos(c) / det, -sin(a) / det, cos(a) / det};
            for (size_t k = 0; k < sizeof aspect / sizeof aspect[0]; k++) {
                double s1 = sqrt(aspect[k]), s2 = 1 / s1;
                double M[4] = {s1 * inv[0], s1 * inv[1], s2 * inv[2], s2 * inv[3]};
                if (cvb_board_detect_warped(img->data, img->width, img->height, img->stride, b->cols, b->rows, M,
                                            4.0 * img->width * img->height, d->subpix_half, (double *)uv,
                                            sharpness))
                    return 1;
            }
        }
    return 0;
}

void calib_board_detect(const calib_detector *d, const calib_image *img, const calib_board *b, int probe,
                        calib_pt2 *uv, calib_detection *info)
{
    calib_detector def;
    if (!d) {
        calib_detector_defaults(&def);
        d = &def;
    }
    memset(info, 0, sizeof *info);
    double t0 = icv_now();
    int method = 0;
    /* calib_pt2 is two doubles, the bridge's interleaved layout. */
    info->found = cvb_board_detect(img->data, img->width, img->height, img->stride, b->cols, b->rows, d->use_sb,
                                   d->search_max_dim, d->classic_max_dim, d->subpix_half, (double *)uv, &method, &info->sharpness);
    info->method = (calib_detect_method)method;
    if (!info->found && d->foreshortened) {
        info->found = detect_foreshortened(d, img, b, uv, &info->sharpness);
        if (info->found)
            info->method = CALIB_DETECT_SB;
    }
    /* SB and the classic detector may number the same board from opposite ends
     * (a 180-degree turn of the labels). One rule for both, so the surface
     * frame's origin is predictable: corner 0 is the end nearer the image's
     * top-left (smaller u + v). */
    int n = b->cols * b->rows;
    if (info->found && uv[0].u + uv[0].v > uv[n - 1].u + uv[n - 1].v)
        for (int i = 0; i < n / 2; i++) {
            calib_pt2 t = uv[i];
            uv[i] = uv[n - 1 - i];
            uv[n - 1 - i] = t;
        }
    if (info->found && d->refine_symmetry) {
        /* the window stays well inside one square: 0.4 of the smallest corner spacing */
        double s_min = INFINITY;
        for (int r = 0; r < b->rows; r++)
            for (int c = 0; c < b->cols; c++) {
                const calib_pt2 *a = &uv[r * b->cols + c];
                if (c + 1 < b->cols)
                    s_min = fmin(s_min, hypot(a[1].u - a->u, a[1].v - a->v));
                /* down the columns too: a foreshortened board's rows lie closer */
                if (r + 1 < b->rows)
                    s_min = fmin(s_min, hypot(a[b->cols].u - a->u, a[b->cols].v - a->v));
            }
        calib_corners_refine_symmetry(img, uv, n, 0.4 * s_min);
        int fixed = calib_corners_repair(img, uv, b->cols, b->rows, 0.4 * s_min);
        if (fixed)
            icv_debug("board: %d corner%s re-found from their neighbours", fixed, fixed > 1 ? "s" : "");
    }
    if (!info->found && probe)
        cvb_board_probe_size(img->data, img->width, img->height, img->stride, &info->probe_cols,
                             &info->probe_rows);
    info->seconds = icv_now() - t0;
}
