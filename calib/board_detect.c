/* board_detect.c: the checkerboard (its size, its points) and finding its inner
 * corners in an image: findChessboardCornersSB first, the classic detector on a
 * bounded-size copy as the fallback, cornerSubPix with a 5x5 window (cv_bridge.cpp). */
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "calib/calib.h"
#include "calib/cv_bridge.h"

int calib_board_parse(const char *spec, calib_board *b, icv_err *err)
{
    int cols = 0, rows = 0, used = 0;
    double sq = 0;
    if (!spec || sscanf(spec, "%dx%d@%lf%n", &cols, &rows, &sq, &used) != 3 || spec[used] != '\0')
        return icv_err_set(err, ICV_EINVAL, "--board '%s': expected COLSxROWS@SQUARE, e.g. 9x6@0.023",
                           spec ? spec : "");
    if (cols < 2 || rows < 2 || cols > 100 || rows > 100)
        return icv_err_set(err, ICV_EINVAL, "--board '%s': inner corners must be 2..100 along each side", spec);
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
    d->classic_max_dim = 800;
    d->subpix_half = 5;
    d->max_sharpness = 5.0;
    d->refine_symmetry = 1;
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
                                   d->classic_max_dim, d->subpix_half, (double *)uv, &method, &info->sharpness);
    info->method = (calib_detect_method)method;
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
            for (int c = 0; c + 1 < b->cols; c++) {
                const calib_pt2 *a = &uv[r * b->cols + c], *q = &uv[r * b->cols + c + 1];
                s_min = fmin(s_min, hypot(q->u - a->u, q->v - a->v));
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
