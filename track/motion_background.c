/* motion_background.c: the motion look's still background, a per-pixel median over
 * frames spread over the clip (track_motion_background). */
#include <stdint.h>
#include <string.h>

#include "track/detect_internal.h"

/* the min / max loop below vectorises under GCC's cheap cost model, and not under
   -O2's very cheap one */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=cheap")
#endif

/* The median of each pixel's n values (n <= MAXN), a strip of columns at a time: the
 * n rows sorted by odd-even transposition (n rounds of compare-exchange between
 * adjacent rows), whose min and max over a row of columns the compiler vectorises; the
 * value at rank n/2 is the median whatever the sort. */
#define MAXN 63
#define STRIP 256
#define MEDIAN_ROWS(FN, PIXEL)                                                                                         \
    static void FN(const track_frame *frames, int n, void *out, int out_stride)                                       \
    {                                                                                                                  \
        PIXEL v[MAXN][STRIP];                                                                                          \
        const track_frame *f0 = &frames[0];                                                                            \
        for (int y = 0; y < f0->height; y++) {                                                                         \
            PIXEL *row = (PIXEL *)(void *)((unsigned char *)out + (size_t)y * (size_t)out_stride);                     \
            for (int x0 = 0; x0 < f0->width; x0 += STRIP) {                                                            \
                int w = f0->width - x0 < STRIP ? f0->width - x0 : STRIP;                                               \
                for (int i = 0; i < n; i++)                                                                            \
                    memcpy(v[i],                                                                                       \
                           (const PIXEL *)(const void *)((const unsigned char *)frames[i].data +                       \
                                                         (size_t)y * (size_t)frames[i].stride) +                       \
                               x0,                                                                                     \
                           sizeof(PIXEL) * (size_t)w);                                                                 \
                for (int round = 0; round < n; round++)                                                                \
                    for (int i = round & 1; i + 1 < n; i += 2)                                                         \
                        for (int x = 0; x < w; x++) {                                                                  \
                            PIXEL a = v[i][x], b = v[i + 1][x];                                                        \
                            v[i][x] = a < b ? a : b;                                                                   \
                            v[i + 1][x] = a < b ? b : a;                                                               \
                        }                                                                                              \
                memcpy(row + x0, v[n / 2], sizeof(PIXEL) * (size_t)w);                                                 \
            }                                                                                                          \
        }                                                                                                              \
    }

MEDIAN_ROWS(median_8, uint8_t)
MEDIAN_ROWS(median_16, uint16_t)

/* the byte rows once more for AVX2 (32 pixels a step), chosen at run time where the CPU
   has it (the build itself targets plain x86-64) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx2")
MEDIAN_ROWS(median_8avx2, uint8_t)
#pragma GCC pop_options
#define HAVE_AVX2 1
#endif

int track_motion_background(const track_frame *frames, int n, void *out, int out_stride, icv_err *err)
{
    if (!frames || n < 1 || n > MAXN || !out)
        return icv_err_set(err, ICV_EINVAL, "track motion background: %d frames (1 to %d needed)", n, MAXN);
    const track_frame *f0 = &frames[0];
    for (int i = 0; i < n; i++)
        if (frames[i].width != f0->width || frames[i].height != f0->height || frames[i].depth != f0->depth ||
            (f0->depth != 8 && f0->depth != 16) || !frames[i].data)
            return icv_err_set(err, ICV_EINVAL,
                               "track motion background: frame %d is %dx%d depth %d, frame 0 %dx%d depth %d (8 or 16 "
                               "bit, one size)",
                               i, frames[i].width, frames[i].height, frames[i].depth, f0->width, f0->height,
                               f0->depth);
    if (f0->depth == 8) {
#ifdef HAVE_AVX2
        if (__builtin_cpu_supports("avx2"))
            median_8avx2(frames, n, out, out_stride);
        else
#endif
            median_8(frames, n, out, out_stride);
    } else {
        median_16(frames, n, out, out_stride);
    }
    return 0;
}
