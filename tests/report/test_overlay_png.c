/* test_overlay_png.c: the overlay image (report_overlay_png) on a synthetic frame:
 * the PNG libavcodec writes decodes back to the frame's size, the gray pixels
 * away from the drawing are unchanged, each marker's ring has its identity's
 * colour, and the outline is drawn in yellow along its segments. */
#include <stdlib.h>

#include "report/report.h"
#include "tests/harness.h"

enum { W = 160, H = 120 };

static const unsigned char *px(const unsigned char *rgb, int u, int v) { return rgb + ((size_t)v * W + u) * 3; }

TEST(test_overlay_png_draws_markers_in_their_colour_and_the_outline_in_yellow)
{
    static unsigned char gray[W * H];
    for (int v = 0; v < H; v++)
        for (int u = 0; u < W; u++)
            gray[v * W + u] = (unsigned char)(u + v); /* a ramp: any shift of the image shows */
    report_point2d pts[2] = {{40, 30, 0, 0}, {120, 90, 3, 0}};
    double uv[4] = {20, 100, 140, 100}; /* a horizontal segment at v = 100 */
    report_polyline pl = {2, uv, 0};
    unsigned char *png = NULL, *rgb = NULL;
    size_t len = 0;
    int w = 0, h = 0;
    icv_err err = {0};
    int rc = report_overlay_png(gray, W, H, W, pts, 2, &pl, 1, 6, &png, &len, &err);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT(len > 8 && !memcmp(png, "\x89PNG\r\n\x1a\n", 8), "not a PNG signature (%zu bytes)", len);
    rc = report_png_decode_rgb(png, len, &rgb, &w, &h, &err);
    free(png);
    if (rc) {
        free(rgb);
        ASSERT(0, "%s", err.msg);
    }
    static unsigned char buf[W * H * 3];
    memcpy(buf, rgb, sizeof buf);
    free(rgb);
    ASSERT_EQ_INT(w, W);
    ASSERT_EQ_INT(h, H);
    /* untouched: gray copied to R = G = B, exactly (PNG is lossless) */
    ASSERT_EQ_INT(px(buf, 5, 5)[0], 10);
    ASSERT_EQ_INT(px(buf, 5, 5)[1], 10);
    ASSERT_EQ_INT(px(buf, 80, 60)[2], 140);
    /* rings of radius 6 px: the pixel 6 px right of each centre has its colour */
    unsigned char c0[3], c3[3];
    report_palette(0, c0);
    report_palette(3, c3);
    ASSERT(!memcmp(px(buf, 46, 30), c0, 3), "marker 0's ring is (%d,%d,%d)", px(buf, 46, 30)[0], px(buf, 46, 30)[1],
           px(buf, 46, 30)[2]);
    ASSERT(!memcmp(px(buf, 120, 84), c3, 3), "marker 3's ring is (%d,%d,%d)", px(buf, 120, 84)[0],
           px(buf, 120, 84)[1], px(buf, 120, 84)[2]);
    /* inside the ring, between the centre dot and the ring: the frame */
    ASSERT_EQ_INT(px(buf, 43, 30)[0], 73);
    /* the outline: yellow (255, 220, 0) along v = 100 from u = 20 to 140, not beyond */
    for (int u = 20; u <= 140; u += 10)
        ASSERT(px(buf, u, 100)[0] == 255 && px(buf, u, 100)[1] == 220 && px(buf, u, 100)[2] == 0,
               "outline missing at u = %d", u);
    ASSERT_EQ_INT(px(buf, 150, 100)[0], 250);
}

TEST(test_overlay_png_rejects_a_bad_frame_size)
{
    unsigned char g[4] = {0};
    unsigned char *png = NULL;
    size_t len;
    icv_err err = {0};
    ASSERT(report_overlay_png(g, 2, 2, 1, NULL, 0, NULL, 0, 3, &png, &len, &err) == ICV_EINVAL, "accepted stride 1");
    ASSERT_STR_CONTAINS(err.msg, "stride");
    ASSERT(png == NULL, "output on failure");
}
