/* black_tophat.c: the dark look's plane, closing(I) - I (the black top-hat): how much
 * darker a pixel is than the brightest of what surrounds it within a square of side
 * 2r + 1, so a dark marker narrower than the square stands out from the body it sits on
 * even where the backdrop beside that body is as dark as the marker (a dark band on a
 * light rod over a black floor: max - I read the band and the floor as one region).
 * Dilation then erosion by an octagon (a square, then a diamond along both diagonals
 * and a cross), each 1D pass the van Herk / Gil-Werman running extremum: three
 * comparisons a pixel whatever r, every pass along rows. */
#include <string.h>

#include "track/detect_internal.h"

/* out[i] = max (is_max) or min of in[i - r .. i + r] (clipped to [0, n)), through the
 * padded line pad[0 .. n + 2r) and the block extrema g (from each block's start) and h
 * (to its end), blocks of s = 2r + 1 */
static void running_extremum(const uint16_t *in, long in_step, uint16_t *out, long out_step, int n, int r, int is_max,
                             uint16_t *pad, uint16_t *g, uint16_t *h)
{
    int s = 2 * r + 1, np = n + 2 * r;
    uint16_t id = is_max ? 0 : 65535;
    for (int i = 0; i < r; i++)
        pad[i] = pad[r + n + i] = id;
    for (int i = 0; i < n; i++)
        pad[r + i] = in[(long)i * in_step];
    for (int b = 0; b < np; b += s) {
        int e = b + s < np ? b + s : np;
        g[b] = pad[b];
        for (int i = b + 1; i < e; i++)
            g[i] = is_max ? (pad[i] > g[i - 1] ? pad[i] : g[i - 1]) : (pad[i] < g[i - 1] ? pad[i] : g[i - 1]);
        h[e - 1] = pad[e - 1];
        for (int i = e - 2; i >= b; i--)
            h[i] = is_max ? (pad[i] > h[i + 1] ? pad[i] : h[i + 1]) : (pad[i] < h[i + 1] ? pad[i] : h[i + 1]);
    }
    /* the window of out[i] is pad[i .. i + s - 1]: the tail of one block and the head of
       the next (or one whole block) */
    for (int i = 0; i < n; i++) {
        uint16_t a = h[i], c = g[i + s - 1];
        out[(long)i * out_step] = is_max ? (a > c ? a : c) : (a < c ? a : c);
    }
}

static inline uint16_t ext(uint16_t a, uint16_t b, int is_max)
{
    return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

/* The running extremum along the lines of direction (dx, 1), dx -1, 0 or 1, over
 * |i| <= k: dst(x, y) = extremum of src(x + dx i, y + i), clipped to the region
 * [x0, x1] x [y0, y1] (frame-sized planes, width w). Done row by row, the van Herk /
 * Gil-Werman blocks of 2k + 1 rows (the same for every line), so every access runs
 * along a row: by columns, one cache line a pixel, a 1280x720 closing took 0.3 s.
 * hbuf holds the backward extrema; src must be neither hbuf nor dst. */
static void line_pass(struct track_detector_ws *ws, const uint16_t *src, uint16_t *hbuf, uint16_t *dst, int x0, int y0,
                      int x1, int y1, int k, int dx, int is_max)
{
    long w = ws->width;
    int s = 2 * k + 1, ny = y1 - y0 + 1, np = ny + 2 * k;
    uint16_t id = is_max ? 0 : 65535, *acc = ws->line_g;
    /* forward: acc at padded row t is the extremum from its block's first row along
       each line; rows t >= 2k are the window's far end of row t - 2k, kept in dst */
    for (int t = 0; t < np; t++) {
        int y = y0 + t - k, real = t >= k && t < k + ny;
        const uint16_t *in = real ? src + y * w : NULL;
        if (t % s == 0) {
            for (int x = x0; x <= x1; x++)
                acc[x] = real ? in[x] : id;
        } else if (dx >= 0) { /* acc(x) from acc(x - dx): descending x, in place */
            for (int x = x1; x >= x0; x--) {
                uint16_t prev = x - dx >= x0 ? acc[x - dx] : id;
                acc[x] = real ? ext(prev, in[x], is_max) : prev;
            }
        } else {
            for (int x = x0; x <= x1; x++) {
                uint16_t prev = x + 1 <= x1 ? acc[x + 1] : id;
                acc[x] = real ? ext(prev, in[x], is_max) : prev;
            }
        }
        if (t >= 2 * k)
            memcpy(dst + (y0 + t - 2 * k) * w + x0, acc + x0, sizeof *acc * (size_t)(x1 - x0 + 1));
    }
    /* backward: acc at padded row t is the extremum to its block's last row; rows t <
       ny are the window's near end of row t, kept in hbuf */
    for (int t = np - 1; t >= 0; t--) {
        int y = y0 + t - k, real = t >= k && t < k + ny;
        const uint16_t *in = real ? src + y * w : NULL;
        if (t % s == s - 1 || t == np - 1) {
            for (int x = x0; x <= x1; x++)
                acc[x] = real ? in[x] : id;
        } else if (dx >= 0) { /* acc(x) from acc(x + dx): ascending x, in place */
            for (int x = x0; x <= x1; x++) {
                uint16_t next = x + dx <= x1 ? acc[x + dx] : id;
                acc[x] = real ? ext(next, in[x], is_max) : next;
            }
        } else {
            for (int x = x1; x >= x0; x--) {
                uint16_t next = x - 1 >= x0 ? acc[x - 1] : id;
                acc[x] = real ? ext(next, in[x], is_max) : next;
            }
        }
        if (t < ny)
            memcpy(hbuf + (y0 + t) * w + x0, acc + x0, sizeof *acc * (size_t)(x1 - x0 + 1));
    }
    /* row t's window: its near end at (x - dx k) in hbuf, its far end at (x + dx k) in
       dst, read before dst(x) is written */
    int sh = dx * k;
    for (int t = 0; t < ny; t++) {
        uint16_t *g = dst + (y0 + t) * w;
        const uint16_t *h = hbuf + (y0 + t) * w;
        if (sh >= 0)
            for (int x = x0; x <= x1; x++)
                g[x] = ext(x - sh >= x0 ? h[x - sh] : id, x + sh <= x1 ? g[x + sh] : id, is_max);
        else
            for (int x = x1; x >= x0; x--)
                g[x] = ext(x - sh <= x1 ? h[x - sh] : id, x + sh >= x0 ? g[x + sh] : id, is_max);
    }
}

/* src's extremum over each pixel and its four neighbours (clipped to the region) into
 * dst */
static void cross_pass(struct track_detector_ws *ws, const uint16_t *src, uint16_t *dst, int x0, int y0, int x1, int y1,
                       int is_max)
{
    long w = ws->width;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            const uint16_t *c = src + y * w + x;
            uint16_t v = c[0], q[4] = {x > x0 ? c[-1] : v, x < x1 ? c[1] : v, y > y0 ? c[-w] : v, y < y1 ? c[w] : v};
            for (int i = 0; i < 4; i++)
                v = ext(v, q[i], is_max);
            dst[y * w + x] = v;
        }
}

/* Dilation or erosion of a, in place, by the octagon: the square of half side sq (rows,
 * then columns), then the diamond of radius 2k + 1 (the diagonal segments {(i, i)} and
 * {(i, -i)}, |i| <= k, whose sum is the diamond's even points, then the cross, which
 * fills its odd ones); b and c are scratch. */
static void octagon_pass(struct track_detector_ws *ws, uint16_t *a, uint16_t *b, uint16_t *c, int x0, int y0, int x1,
                         int y1, int sq, int k, int is_max)
{
    long w = ws->width;
    int nx = x1 - x0 + 1;
    for (int y = y0; y <= y1; y++)
        running_extremum(a + y * w + x0, 1, a + y * w + x0, 1, nx, sq, is_max, ws->line_pad, ws->line_g, ws->line_h);
    line_pass(ws, a, b, c, x0, y0, x1, y1, sq, 0, is_max);
    line_pass(ws, c, b, a, x0, y0, x1, y1, k, 1, is_max);
    line_pass(ws, a, b, c, x0, y0, x1, y1, k, -1, is_max);
    cross_pass(ws, c, a, x0, y0, x1, y1, is_max);
}

void track_black_tophat(struct track_detector_ws *ws, const track_frame *f, int r, int x0, int y0, int x1, int y1)
{
    if (r > TRACK_TOPHAT_MAX_R)
        r = TRACK_TOPHAT_MAX_R;
    /* the closing at a pixel reads the frame up to 2r away */
    int gx0 = x0 - 2 * r < 0 ? 0 : x0 - 2 * r, gy0 = y0 - 2 * r < 0 ? 0 : y0 - 2 * r;
    int gx1 = x1 + 2 * r >= f->width ? f->width - 1 : x1 + 2 * r;
    int gy1 = y1 + 2 * r >= f->height ? f->height - 1 : y1 + 2 * r;
    long w = ws->width;
    uint16_t *a = ws->morph_a, *b = ws->morph_b;
    for (int y = gy0; y <= gy1; y++)
        for (int x = gx0; x <= gx1; x++)
            a[y * w + x] = (uint16_t)pix(f, x, y);
    /* an octagon of radius r, near a disc (a square slips along a thin rod seen at
       45 degrees past a band as long as the rod is wide): the diamond's radius 2k + 1
       about 0.59 r, the square's half side the rest (a regular octagon's diagonal
       extent a sqrt 2 + b / sqrt 2 equals its axial one a + b when b = a sqrt 2) */
    int k = (int)lround((0.59 * r - 1) / 2);
    k = k < 0 ? 0 : k;
    int sq = r - (2 * k + 1) < 0 ? 0 : r - (2 * k + 1);
    uint16_t *c = ws->morph_c;
    octagon_pass(ws, a, b, c, gx0, gy0, gx1, gy1, sq, k, 1); /* dilation */
    octagon_pass(ws, a, b, c, gx0, gy0, gx1, gy1, sq, k, 0); /* closing, in a */
    int wide = f->depth == 16;
    for (int y = y0; y <= y1; y++) {
        const unsigned char *row = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
        const uint16_t *c = a + y * w;
        if (wide) {
            const uint16_t *r16 = (const uint16_t *)(const void *)row;
            uint16_t *o = (uint16_t *)ws->plane + (size_t)y * (size_t)f->width;
            for (int x = x0; x <= x1; x++)
                o[x] = (uint16_t)(c[x] - r16[x]);
        } else {
            uint8_t *o = (uint8_t *)ws->plane + (size_t)y * (size_t)f->width;
            for (int x = x0; x <= x1; x++)
                o[x] = (uint8_t)(c[x] - row[x]);
        }
    }
}
