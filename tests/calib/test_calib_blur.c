/* test_calib_blur.c: motion-blurred views are recognised by OpenCV's sharpness
 * estimate (estimateChessboardSharpness: mean edge width in px, measured along
 * both grid directions) and rejected by the detector's max_sharpness (5 px);
 * sharp ones are kept. The blur is horizontal only: OpenCV alone measures one
 * grid direction and calls this view sharp (1.70 px). */
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "tests/calib/board_render.h"
#include "tests/harness.h"

/* Horizontal box blur of width k (a camera panning during the exposure). */
static void blur_rows(calib_image *img, int k)
{
    unsigned char *row = malloc((size_t)img->width);
    for (int v = 0; v < img->height; v++) {
        unsigned char *p = img->data + (size_t)v * img->stride;
        for (int u = 0; u < img->width; u++) {
            int s = 0, n = 0;
            for (int j = -k / 2; j <= k / 2; j++)
                if (u + j >= 0 && u + j < img->width)
                    s += p[u + j], n++;
            row[u] = (unsigned char)(s / n);
        }
        memcpy(p, row, (size_t)img->width);
    }
    free(row);
}

TEST(test_calib_motion_blurred_view_is_flagged_by_sharpness)
{
    calib_board b = {9, 6, 0.025};
    double rv[3] = {0.2, -0.2, 0.05}, t[3] = {-0.1, -0.06, 0.5};
    ASSERT_EQ_INT(board_render_pgm(th_tmp("v.pgm"), 640, 480, 600, &b, rv, t), 0);
    calib_image img;
    icv_err err = {0};
    ASSERT(calib_image_read_gray(th_tmp("v.pgm"), &img, &err) == 0, "%s", err.msg);
    calib_pt2 uv[54];
    calib_detection sharp, blurred;
    calib_board_detect(NULL, &img, &b, 0, uv, &sharp);
    blur_rows(&img, 15);
    calib_board_detect(NULL, &img, &b, 0, uv, &blurred);
    calib_image_free(&img);
    if (th_accuracy())
        printf("    sharpness: rendered %.2f px, 15 px motion blur %.2f px (found %d)\n", sharp.sharpness,
               blurred.sharpness, blurred.found);
    calib_detector d;
    calib_detector_defaults(&d);
    ASSERT(sharp.found, "sharp board not found");
    ASSERT(sharp.sharpness > 0 && sharp.sharpness < d.max_sharpness, "sharp view: %.2f px", sharp.sharpness);
    /* blurred: either not found at all or flagged (edges wider than the limit) */
    ASSERT(!blurred.found || blurred.sharpness > d.max_sharpness, "15 px blur passed as sharp: %.2f px",
           blurred.sharpness);
}
