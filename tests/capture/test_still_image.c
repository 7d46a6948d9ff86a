/* test_still_image.c: still images read and written through FFmpeg
 * (capture_image_read, capture_image_encode): lossless formats round-trip exactly,
 * colour to gray follows the BT.601 luma weights OpenCV's imread used, JPEG stays
 * within its quantisation, and a format with no encoder is refused by name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/harness.h"

enum { W = 67, H = 45 }; /* odd sizes: no row padding hides a stride bug */

static void pattern(unsigned char *px, int channels)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < channels; c++)
                px[(y * W + x) * channels + c] = (unsigned char)((x * 7 + y * 13 + c * 85 + x * y) & 255);
}

/* encodes px as ext into a temporary file and reads it back with `channels` */
static int round_trip(const unsigned char *px, int in_ch, const char *ext, int channels, unsigned char **back,
                      icv_err *err)
{
    unsigned char *buf;
    size_t len;
    int w = 0, h = 0, rc = capture_image_encode(px, W, H, in_ch, ext, &buf, &len, err);
    if (rc)
        return rc;
    char name[64];
    snprintf(name, sizeof name, "img%s", ext);
    const char *path = th_tmp(name);
    rc = icv_atomic_write(path, buf, len, err);
    free(buf);
    if (!rc && !(rc = capture_image_read(path, channels, back, &w, &h, err)) && (w != W || h != H))
        rc = icv_err_set(err, ICV_EFORMAT, "%s read back as %dx%d", ext, w, h);
    return rc;
}

TEST(test_still_images_round_trip_losslessly)
{
    unsigned char gray[W * H], rgb[W * H * 3];
    pattern(gray, 1);
    pattern(rgb, 3);
    /* gray in png, bmp, tif, pgm; colour in png, ppm, tif, bmp */
    const struct {
        const char *ext;
        int channels;
    } cases[] = {{".png", 1}, {".bmp", 1}, {".tif", 1}, {".pgm", 1}, {".png", 3}, {".ppm", 3}, {".tif", 3}, {".bmp", 3}};
    for (int i = 0; i < 8; i++) {
        const unsigned char *px = cases[i].channels == 1 ? gray : rgb;
        icv_err err = {0};
        unsigned char *back = NULL;
        ASSERT(round_trip(px, cases[i].channels, cases[i].ext, cases[i].channels, &back, &err) == 0, "%s: %s",
               cases[i].ext, err.msg);
        ASSERT(!memcmp(back, px, (size_t)W * H * cases[i].channels), "%s, %d channel(s): pixels changed", cases[i].ext,
               cases[i].channels);
        free(back);
    }
}

TEST(test_still_image_colour_reads_as_bt601_luma)
{
    unsigned char rgb[W * H * 3], *gray = NULL;
    pattern(rgb, 3);
    icv_err err = {0};
    ASSERT(round_trip(rgb, 3, ".png", 1, &gray, &err) == 0, "%s", err.msg);
    /* swscale's fixed-point weights round differently from the exact ones by at most
     * one gray level */
    int worst = 0;
    for (int i = 0; i < W * H; i++) {
        double y = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
        int d = abs((int)gray[i] - (int)lround(y));
        worst = d > worst ? d : worst;
    }
    printf("     colour -> gray: worst difference from 0.299 R + 0.587 G + 0.114 B: %d levels\n", worst);
    ASSERT(worst <= 1, "gray differs from the BT.601 luma by %d levels", worst);
    free(gray);
}

TEST(test_still_image_jpeg_stays_within_its_quantisation)
{
    unsigned char gray[W * H], *back = NULL;
    for (int y = 0; y < H; y++) /* smooth: what a board photograph mostly is */
        for (int x = 0; x < W; x++)
            gray[y * W + x] = (unsigned char)(128 + 100 * sin(x / 9.0) * cos(y / 7.0));
    icv_err err = {0};
    ASSERT(round_trip(gray, 1, ".jpg", 1, &back, &err) == 0, "%s", err.msg);
    double s2 = 0;
    for (int i = 0; i < W * H; i++)
        s2 += (double)(back[i] - gray[i]) * (back[i] - gray[i]);
    double rms = sqrt(s2 / (W * H));
    printf("     jpg at quality scale 2: RMS %.2f gray levels\n", rms);
    /* quantiser scale 2 on a smooth image: about one level; 2 leaves room for FFmpeg's
     * quantisation tables, a wrong colour range or a shifted image gives tens */
    ASSERT(rms < 2.0, "jpg round trip RMS %.2f levels", rms);
    free(back);
}

TEST(test_still_image_errors_name_the_file_or_format)
{
    unsigned char gray[W * H] = {0}, *buf = NULL, *px = NULL;
    size_t len;
    int w, h;
    icv_err err = {0};
    ASSERT(capture_image_encode(gray, W, H, 1, ".xyz", &buf, &len, &err) != 0, "encoded a .xyz");
    ASSERT_STR_CONTAINS(err.msg, "no encoder for a '.xyz' file");
    const char *bad = th_tmp("bad.png");
    ASSERT_EQ_INT(th_write_file(bad, "not an image at all"), 0);
    ASSERT(capture_image_read(bad, 1, &px, &w, &h, &err) != 0, "read a text file as an image");
    ASSERT_STR_CONTAINS(err.msg, "bad.png: not an image FFmpeg can read");
    ASSERT(capture_image_read(th_tmp("absent.png"), 1, &px, &w, &h, &err) == ICV_ENOTFOUND, "%s", err.msg);
    ASSERT_STR_CONTAINS(err.msg, "absent.png: image not found");
}

/* A JPEG's bytes with an EXIF APP1 segment holding only Orientation = o, after SOI. */
static unsigned char *with_exif_orientation(const unsigned char *jpg, size_t len, int o, size_t *out_len)
{
    static const unsigned char app1_head[] = {0xFF, 0xE1, 0x00, 34, 'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0, 0x2A,
                                              0,    0,    0,    8,  0,   1,   0x01, 0x12, 0, 3, 0, 0, 0, 1};
    unsigned char *b = malloc(len + sizeof app1_head + 8);
    if (!b)
        return NULL;
    memcpy(b, jpg, 2); /* SOI */
    memcpy(b + 2, app1_head, sizeof app1_head);
    size_t k = 2 + sizeof app1_head;
    b[k++] = 0, b[k++] = (unsigned char)o, b[k++] = 0, b[k++] = 0; /* value, padding */
    b[k++] = 0, b[k++] = 0, b[k++] = 0, b[k++] = 0;                 /* no next IFD */
    memcpy(b + k, jpg + 2, len - 2);
    *out_len = k + len - 2;
    return b;
}

/* mean of a 16x16 block at (x, y) of packed gray pixels of width w */
static double block_mean(const unsigned char *px, int w, int x, int y)
{
    double s = 0;
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 16; i++)
            s += px[(size_t)(y + j) * w + x + i];
    return s / 256;
}

TEST(test_still_image_exif_orientation_is_applied)
{
    /* 64x48, dark, with a bright 16x16 block in the stored top-left corner: a viewer
     * shows orientation 6 turned 90 degrees clockwise (the block at the top right), 3
     * turned 180 (bottom right), 8 turned 270 (bottom left); EXIF 2.3, tag 0x0112 */
    enum { W = 64, H = 48 };
    unsigned char img[W * H];
    for (int i = 0; i < W * H; i++)
        img[i] = (i % W) < 16 && (i / W) < 16 ? 230 : 20;
    unsigned char *jpg = NULL;
    size_t len = 0;
    icv_err err = {0};
    ASSERT(capture_image_encode(img, W, H, 1, ".jpg", &jpg, &len, &err) == 0, "%s", err.msg);
    static const struct {
        int o, w, h, bx, by;
    } cases[] = {{1, W, H, 0, 0}, {6, H, W, H - 16, 0}, {3, W, H, W - 16, H - 16}, {8, H, W, 0, W - 16}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = 0;
        unsigned char *b = with_exif_orientation(jpg, len, cases[c].o, &n);
        ASSERT(b != NULL, "out of memory");
        char path[1024], name[32];
        snprintf(name, sizeof name, "exif%d.jpg", cases[c].o);
        snprintf(path, sizeof path, "%s", th_tmp(name));
        FILE *f = fopen(path, "wb");
        ASSERT(f && fwrite(b, 1, n, f) == n, "cannot write %s", path);
        fclose(f);
        free(b);
        unsigned char *px = NULL;
        int w = 0, h = 0;
        ASSERT(capture_image_read(path, 1, &px, &w, &h, &err) == 0, "%s", err.msg);
        ASSERT(w == cases[c].w && h == cases[c].h, "orientation %d: %dx%d, expected %dx%d", cases[c].o, w, h,
               cases[c].w, cases[c].h);
        /* JPEG keeps a flat 16x16 block within a few levels: 230 vs 20, threshold halfway */
        double in = block_mean(px, w, cases[c].bx, cases[c].by);
        ASSERT(in > 125, "orientation %d: the bright block is not at (%d, %d) (mean %.1f)", cases[c].o, cases[c].bx,
               cases[c].by, in);
        free(px);
    }
    size_t n = 0;
    unsigned char *b = with_exif_orientation(jpg, len, 2, &n);
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("exif2.jpg"));
    FILE *f = fopen(path, "wb");
    ASSERT(f && b && fwrite(b, 1, n, f) == n, "cannot write %s", path);
    fclose(f);
    free(b);
    free(jpg);
    unsigned char *px = NULL;
    int w, h;
    ASSERT(capture_image_read(path, 1, &px, &w, &h, &err) != 0, "a mirrored orientation was accepted");
    ASSERT_STR_CONTAINS(err.msg, "EXIF orientation 2 mirrors");
}
