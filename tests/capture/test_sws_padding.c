/* test_sws_padding.c: swscale writes a small image's last row in whole SIMD blocks, past
 * the exact size of a packed buffer (up to 45 bytes for a 1-pixel-wide image here):
 * capture_image_read's output and capture_frame_alloc's frames had no room for it, and
 * fuzz_image's heap corruption (ASan CHECK in free) came from that. The buffers now
 * carry CAPTURE_SWS_PAD bytes more; this checks that the pad covers what swscale does
 * on this machine, that both buffers have that room (the exact-size ones of before
 * fail), and that tiny images read back right. */
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "capture/capture_internal.h"
#include "tests/harness.h"

TEST(test_sws_padding_covers_what_swscale_writes_past_a_small_image)
{
    const enum AVPixelFormat src[] = {AV_PIX_FMT_GRAY8,    AV_PIX_FMT_RGB24,   AV_PIX_FMT_YUV420P,
                                      AV_PIX_FMT_RGBA,     AV_PIX_FMT_GRAY16LE, AV_PIX_FMT_YUVJ420P,
                                      AV_PIX_FMT_YUV444P,  AV_PIX_FMT_RGB48BE, AV_PIX_FMT_MONOBLACK,
                                      AV_PIX_FMT_BGR0,     AV_PIX_FMT_GBRP,    AV_PIX_FMT_NV12};
    const enum AVPixelFormat dst[] = {AV_PIX_FMT_GRAY8, AV_PIX_FMT_RGB24, AV_PIX_FMT_GRAY16};
    const int bpp[] = {1, 3, 2};
    size_t worst = 0;
    int level = av_log_get_level();
    av_log_set_level(AV_LOG_ERROR); /* YUVJ's "deprecated pixel format" notes, once per context */
    for (size_t s = 0; s < sizeof src / sizeof src[0]; s++)
        for (int d = 0; d < 3; d++)
            for (int w = 1; w <= 40; w++)
                for (int h = 1; h <= 3; h++) {
                    uint8_t *in[4];
                    int il[4];
                    if (av_image_alloc(in, il, w, h, src[s], 64) < 0)
                        continue;
                    memset(in[0], 0x80, (size_t)il[0] * h);
                    struct SwsContext *sws = sws_getContext(w, h, src[s], w, h, dst[d], SWS_POINT, NULL, NULL, NULL);
                    size_t n = (size_t)w * h * bpp[d];
                    uint8_t *o = malloc(n + 256);
                    if (sws && o) {
                        memset(o, 0xA5, n + 256);
                        uint8_t *dp[4] = {o, NULL, NULL, NULL};
                        int dl[4] = {w * bpp[d], 0, 0, 0};
                        sws_scale(sws, (const uint8_t *const *)in, il, 0, h, dp, dl);
                        size_t k = n + 256;
                        while (k > n && o[k - 1] == 0xA5)
                            k--;
                        if (k - n > worst)
                            worst = k - n;
                    }
                    free(o);
                    sws_freeContext(sws);
                    av_freep(&in[0]);
                }
    av_log_set_level(level);
    ASSERT(worst <= CAPTURE_SWS_PAD, "swscale wrote %zu bytes past a packed buffer; the pad is %d", worst,
           CAPTURE_SWS_PAD);
}

TEST(test_sws_padding_tiny_images_read_back)
{
    for (int w = 1; w <= 8; w++) {
        unsigned char px[8 * 3 * 3];
        for (int i = 0; i < w * 3 * 3; i++)
            px[i] = (unsigned char)(40 + 7 * i);
        unsigned char *buf = NULL, *got = NULL;
        size_t len = 0;
        icv_err err = {0};
        ASSERT(capture_image_encode(px, w, 3, 3, ".png", &buf, &len, &err) == 0, "%s", err.msg);
        int rc = th_write_file(th_tmp("tiny.png"), "") == 0 ? 0 : -1;
        FILE *f = fopen(th_tmp("tiny.png"), "wb");
        rc = rc || !f || fwrite(buf, 1, len, f) != len;
        if (f)
            fclose(f);
        free(buf);
        ASSERT_EQ_INT(rc, 0);
        int gw = 0, gh = 0;
        ASSERT(capture_image_read(th_tmp("tiny.png"), 3, &got, &gw, &gh, &err) == 0, "%s", err.msg);
        int same = gw == w && gh == 3 && !memcmp(got, px, (size_t)w * 9);
        /* room for what swscale writes past the pixels (glibc's rounding gave the exact-size
           buffer of before at most 23 bytes more) */
        size_t room = malloc_usable_size(got);
        free(got);
        ASSERT(room >= (size_t)w * 9 + CAPTURE_SWS_PAD, "%dx3 RGB image: a %zu-byte buffer for %d bytes and the pad",
               w, room, w * 9);
        ASSERT(same, "%dx3 image read back as %dx%d or with other pixels", w, gw, gh);
    }
}

TEST(test_sws_padding_frames_have_room_past_their_pixels)
{
    /* capture_frame_alloc's frames are luma.c's swscale target: 1-8 px wide, 1-3 rows */
    for (int w = 1; w <= 8; w++)
        for (int h = 1; h <= 3; h++) {
            capture_info info;
            memset(&info, 0, sizeof info);
            info.width = w, info.height = h;
            capture_frame f;
            icv_err err = {0};
            ASSERT(capture_frame_alloc(&f, &info, &err) == 0, "%s", err.msg);
            size_t room = malloc_usable_size(f.data), need = f.stride * (size_t)h + CAPTURE_SWS_PAD;
            capture_frame_free(&f);
            ASSERT(room >= need, "%dx%d frame: %zu bytes, %zu needed", w, h, room, need);
        }
}
