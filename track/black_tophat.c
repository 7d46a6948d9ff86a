/* black_tophat.c: the dark look's plane, closing(I) - I (the black top-hat): how much
 * darker a pixel is than the brightest of what surrounds it within a square of side
 * 2r + 1, so a dark marker narrower than the square stands out from the body it sits on
 * even where the backdrop beside that body is as dark as the marker (a dark band on a
 * light rod over a black floor: max - I read the band and the floor as one region).
 * Dilation then erosion by an octagon (a square, then a diamond along both diagonals
 * and a cross), each 1D pass an extremum over a window built by doubling, every pass
 * along rows (black_tophat_template_internal.h), in bytes for 8-bit frames. */
#include <math.h>
#include <string.h>

#include "track/detect_internal.h"

/* the min / max loops below vectorise (16 bytes or 8 uint16_t a step) under GCC's cheap
   cost model, and not under -O2's very cheap one */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=cheap")
#endif

#define PIXEL uint8_t
#define PIXEL_MAX 255
#define FN(name) name##_8
#include "track/black_tophat_template_internal.h"
#undef PIXEL
#undef PIXEL_MAX
#undef FN

/* the byte passes once more for AVX2 (32 pixels a step), chosen at run time where the
   CPU has it (the build itself targets plain x86-64): 1.75x faster here */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx2")
#define PIXEL uint8_t
#define PIXEL_MAX 255
#define FN(name) name##_8avx2
#include "track/black_tophat_template_internal.h"
#undef PIXEL
#undef PIXEL_MAX
#undef FN
#pragma GCC pop_options
#define HAVE_AVX2 1
#endif

#define PIXEL uint16_t
#define PIXEL_MAX 65535
#define FN(name) name##_16
#include "track/black_tophat_template_internal.h"
#undef PIXEL
#undef PIXEL_MAX
#undef FN

void track_black_tophat(struct track_detector_ws *ws, const track_frame *f, int r, int x0, int y0, int x1, int y1)
{
    if (r > TRACK_TOPHAT_MAX_R)
        r = TRACK_TOPHAT_MAX_R;
    /* the closing at a pixel reads the frame up to 2r away */
    int gx0 = x0 - 2 * r < 0 ? 0 : x0 - 2 * r, gy0 = y0 - 2 * r < 0 ? 0 : y0 - 2 * r;
    int gx1 = x1 + 2 * r >= f->width ? f->width - 1 : x1 + 2 * r;
    int gy1 = y1 + 2 * r >= f->height ? f->height - 1 : y1 + 2 * r;
    /* an octagon of radius r, near a disc (a square slips along a thin rod seen at
       45 degrees past a band as long as the rod is wide): the diamond's radius 2k + 1
       about 0.59 r, the square's half side the rest (a regular octagon's diagonal
       extent a sqrt 2 + b / sqrt 2 equals its axial one a + b when b = a sqrt 2) */
    int k = (int)lround((0.59 * r - 1) / 2);
    k = k < 0 ? 0 : k;
    int sq = r - (2 * k + 1) < 0 ? 0 : r - (2 * k + 1);
    if (f->depth == 16)
        black_tophat_16(ws, f, sq, k, x0, y0, x1, y1, gx0, gy0, gx1, gy1);
#ifdef HAVE_AVX2
    else if (!ws->tophat_baseline && __builtin_cpu_supports("avx2"))
        black_tophat_8avx2(ws, f, sq, k, x0, y0, x1, y1, gx0, gy0, gx1, gy1);
#endif
    else
        black_tophat_8(ws, f, sq, k, x0, y0, x1, y1, gx0, gy0, gx1, gy1);
}

void track_white_tophat(struct track_detector_ws *ws, const track_frame *f, int r, int x0, int y0, int x1, int y1,
                        void *out)
{
    if (r > TRACK_TOPHAT_MAX_R)
        r = TRACK_TOPHAT_MAX_R;
    int gx0 = x0 - 2 * r < 0 ? 0 : x0 - 2 * r, gy0 = y0 - 2 * r < 0 ? 0 : y0 - 2 * r;
    int gx1 = x1 + 2 * r >= f->width ? f->width - 1 : x1 + 2 * r;
    int gy1 = y1 + 2 * r >= f->height ? f->height - 1 : y1 + 2 * r;
    int k = (int)lround((0.59 * r - 1) / 2);
    k = k < 0 ? 0 : k;
    int sq = r - (2 * k + 1) < 0 ? 0 : r - (2 * k + 1);
    if (f->depth == 16)
        white_tophat_16(ws, f, sq, k, x0, y0, x1, y1, gx0, gy0, gx1, gy1, out);
#ifdef HAVE_AVX2
    else if (!ws->tophat_baseline && __builtin_cpu_supports("avx2"))
        white_tophat_8avx2(ws, f, sq, k, x0, y0, x1, y1, gx0, gy0, gx1, gy1, out);
#endif
    else
        white_tophat_8(ws, f, sq, k, x0, y0, x1, y1, gx0, gy0, gx1, gy1, out);
}
