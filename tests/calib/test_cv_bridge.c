/* test_cv_bridge.c: the OpenCV bridge (calib/cv_bridge.cpp) called for real:
 * an image with known pixels written by the test reads back exactly, a real
 * camera JPEG reads at its size, and a bad file fails with its name. */
#include <stdlib.h>

#include "calib/calib.h"
#include "tests/harness.h"

TEST(test_cv_bridge_reads_known_pixels_exactly)
{
    /* A binary PGM (P5) with a ramp: OpenCV's decoder must return the bytes. */
    const int w = 37, h = 11;
    const char *path = th_tmp("ramp.pgm");
    FILE *f = fopen(path, "wb");
    ASSERT(f, "cannot write %s", path);
    fprintf(f, "P5\n%d %d\n255\n", w, h);
    for (int v = 0; v < h; v++)
        for (int u = 0; u < w; u++)
            fputc((u * 7 + v * 13) & 255, f);
    fclose(f);
    calib_image img;
    icv_err err = {0};
    ASSERT(calib_image_read_gray(path, &img, &err) == 0, "%s", err.msg);
    int bad = 0;
    for (int v = 0; v < h; v++)
        for (int u = 0; u < w; u++)
            bad += img.data[v * img.stride + u] != ((u * 7 + v * 13) & 255);
    int iw = img.width, ih = img.height;
    calib_image_free(&img);
    ASSERT_EQ_INT(iw, w);
    ASSERT_EQ_INT(ih, h);
    ASSERT_EQ_INT(bad, 0);
}

TEST(test_cv_bridge_reads_real_camera_jpeg)
{
    const char *p = th_shared("data/stereo_bouguet_opencv/original/left01.jpg");
    if (!p)
        SKIP("../shared/data is absent");
    calib_image img;
    icv_err err = {0};
    ASSERT(calib_image_read_gray(p, &img, &err) == 0, "%s", err.msg);
    double mean = 0;
    for (int i = 0; i < img.width * img.height; i++)
        mean += img.data[i];
    mean /= (double)img.width * img.height;
    int w = img.width, h = img.height;
    calib_image_free(&img);
    ASSERT_EQ_INT(w, 640); /* data/README.md: 640x480 gray JPEG */
    ASSERT_EQ_INT(h, 480);
    ASSERT(mean > 20 && mean < 235, "mean gray %g: not a real image", mean); /* a lit board, not black or white */
}

TEST(test_cv_bridge_rejects_non_image_and_missing_file)
{
    calib_image img;
    icv_err err = {0};
    ASSERT_EQ_INT(th_write_file(th_tmp("notes.png"), "this is not a PNG"), 0);
    ASSERT(calib_image_read_gray(th_tmp("notes.png"), &img, &err) == ICV_EFORMAT, "rc");
    ASSERT_STR_CONTAINS(err.msg, "notes.png");
    ASSERT(calib_image_read_gray(th_tmp("absent.png"), &img, &err) == ICV_ENOTFOUND, "rc");
    ASSERT_STR_CONTAINS(err.msg, "absent.png: image not found");
}
