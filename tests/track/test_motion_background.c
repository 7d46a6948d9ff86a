/* test_motion_background.c: the motion look's still background
 * (track/motion_background.c, a per-pixel median sorted by a network over strips of
 * columns) against the median taken from its definition, each pixel's n values sorted
 * by qsort and the one at rank n/2 kept, on random 8- and 16-bit frames: an odd and an
 * even count, one frame, the most frames allowed, a width across the strips' edge and
 * strides wider than the rows. Both pick the same order statistic of the same values:
 * equal exactly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "track/track.h"
#include "tests/harness.h"

#define W 300 /* over one strip of columns (256) and part of the next */
#define H 5
#define PAD 7 /* the frames' and the output's rows are longer than W */
#define NMAX 63

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* xorshift64: frames that differ in every pixel, with ties among small ranges */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* n random frames of depth bits (values below range), the median by the function and
 * by definition: the count of pixels that differ */
static int differing_pixels(int n, int depth, unsigned range, uint64_t seed)
{
    static uint16_t px[NMAX][H][W + PAD], out[H][W + PAD];
    int bytes = depth / 8, stride = (W + PAD) * bytes;
    track_frame fr[NMAX];
    for (int i = 0; i < n; i++) {
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W + PAD; x++) {
                unsigned v = (unsigned)(next_random(&seed) % range);
                if (depth == 8)
                    ((uint8_t *)px[i])[y * stride + x] = (uint8_t)v;
                else
                    px[i][y][x] = (uint16_t)v;
            }
        fr[i] = (track_frame){px[i], W, H, stride, depth};
    }
    memset(out, 0, sizeof out);
    icv_err err;
    if (track_motion_background(fr, n, out, stride, &err) != 0)
        return -1;
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int v[NMAX];
            for (int i = 0; i < n; i++)
                v[i] = depth == 8 ? ((const uint8_t *)px[i])[y * stride + x] : px[i][y][x];
            qsort(v, (size_t)n, sizeof *v, cmp_int);
            int got = depth == 8 ? ((const uint8_t *)out)[y * stride + x] : out[y][x];
            bad += got != v[n / 2];
        }
    return bad;
}

TEST(test_motion_background_is_the_median_of_each_pixel)
{
    const int counts[] = {1, 2, 9, 15, 16, NMAX};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        ASSERT_EQ_INT(differing_pixels(counts[k], 8, 256, 1000 + k), 0);
        ASSERT_EQ_INT(differing_pixels(counts[k], 8, 5, 2000 + k), 0); /* many ties */
        ASSERT_EQ_INT(differing_pixels(counts[k], 16, 65536, 3000 + k), 0);
        ASSERT_EQ_INT(differing_pixels(counts[k], 16, 1024, 4000 + k), 0); /* 10-bit */
    }
}

TEST(test_motion_background_refuses_more_frames_than_it_holds)
{
    static uint8_t px[W * H], out[W * H];
    track_frame fr[NMAX + 1];
    for (int i = 0; i <= NMAX; i++)
        fr[i] = (track_frame){px, W, H, W, 8};
    icv_err err;
    ASSERT_TRUE(track_motion_background(fr, NMAX + 1, out, W, &err) != 0);
    ASSERT_STR_CONTAINS(err.msg, "1 to 63");
}
