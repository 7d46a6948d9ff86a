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

/* the min / max loops below vectorise (8 or 16 pixels a step) under GCC's cheap cost
   model, and not under -O2's very cheap one: 21 -> 10 ms a 1280x720 closing */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=cheap")
#endif

/* out[i] = max (is_max) or min of in[i - r .. i + r] (clipped to [0, n)), through the
 * padded line pad[0 .. n + 2r) and the block extrema g (from each block's start) and h
 * (to its end), blocks of s = 2r + 1 */
static inline __attribute__((always_inline)) void running_extremum(const uint16_t *in, long in_step, uint16_t *out, long out_step, int n, int r, int is_max,
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
static inline __attribute__((always_inline)) void line_pass(struct track_detector_ws *ws, const uint16_t *src,
                                                            uint16_t *hbuf, uint16_t *dst, int x0, int y0, int x1,
                                                            int y1, int k, int dx, int is_max)
{
    long w = ws->width;
    int s = 2 * k + 1, ny = y1 - y0 + 1, np = ny + 2 * k, nx = x1 - x0 + 1;
    uint16_t id = is_max ? 0 : 65535;
    /* two row accumulators, indexed from x0, one line's value shifted by dx a row:
       acc_new(x) = ext(acc_old(x - dx), in(x)), the old value off the region the
       identity */
    uint16_t *restrict cur = ws->line_g, *restrict old = ws->line_h;
    /* forward: acc at padded row t is the extremum from its block's first row along
       each line; rows t >= 2k are the window's far end of row t - 2k, kept in dst */
    for (int t = 0; t < np; t++) {
        int y = y0 + t - k, real = t >= k && t < k + ny;
        const uint16_t *restrict in = real ? src + y * w + x0 : NULL;
        uint16_t *tmp = old;
        old = cur, cur = tmp;
        if (t % s == 0) {
            if (real)
                memcpy(cur, in, sizeof *cur * (size_t)nx);
            else
                for (int x = 0; x < nx; x++)
                    cur[x] = id;
        } else {
            int lo = dx > 0 ? dx : 0, hi = dx < 0 ? nx - 1 : nx; /* x - dx inside [0, nx) */
            if (real) {
                for (int x = lo; x < hi; x++)
                    cur[x] = ext(old[x - dx], in[x], is_max);
                for (int x = 0; x < lo; x++)
                    cur[x] = in[x];
                for (int x = hi; x < nx; x++)
                    cur[x] = in[x];
            } else {
                for (int x = lo; x < hi; x++)
                    cur[x] = old[x - dx];
                for (int x = 0; x < lo; x++)
                    cur[x] = id;
                for (int x = hi; x < nx; x++)
                    cur[x] = id;
            }
        }
        if (t >= 2 * k)
            memcpy(dst + (y0 + t - 2 * k) * w + x0, cur, sizeof *cur * (size_t)nx);
    }
    /* backward: acc at padded row t is the extremum to its block's last row, the line's
       value shifted by -dx a row; rows t < ny are the window's near end of row t, kept in
       hbuf */
    for (int t = np - 1; t >= 0; t--) {
        int y = y0 + t - k, real = t >= k && t < k + ny;
        const uint16_t *restrict in = real ? src + y * w + x0 : NULL;
        uint16_t *tmp = old;
        old = cur, cur = tmp;
        if (t % s == s - 1 || t == np - 1) {
            if (real)
                memcpy(cur, in, sizeof *cur * (size_t)nx);
            else
                for (int x = 0; x < nx; x++)
                    cur[x] = id;
        } else {
            int lo = dx < 0 ? -dx : 0, hi = dx > 0 ? nx - 1 : nx; /* x + dx inside [0, nx) */
            if (real) {
                for (int x = lo; x < hi; x++)
                    cur[x] = ext(old[x + dx], in[x], is_max);
                for (int x = 0; x < lo; x++)
                    cur[x] = in[x];
                for (int x = hi; x < nx; x++)
                    cur[x] = in[x];
            } else {
                for (int x = lo; x < hi; x++)
                    cur[x] = old[x + dx];
                for (int x = 0; x < lo; x++)
                    cur[x] = id;
                for (int x = hi; x < nx; x++)
                    cur[x] = id;
            }
        }
        if (t < ny)
            memcpy(hbuf + (y0 + t) * w + x0, cur, sizeof *cur * (size_t)nx);
    }
    /* row t's window: its near end at (x - dx k) in hbuf, its far end at (x + dx k) in
       dst (through cur: dst's row is read shifted) */
    int sh = dx * k;
    for (int t = 0; t < ny; t++) {
        uint16_t *restrict g = dst + (y0 + t) * w + x0;
        const uint16_t *restrict h = hbuf + (y0 + t) * w + x0;
        int a0 = sh > 0 ? sh : -sh; /* both ends inside for x in [a0, nx - a0) */
        if (2 * a0 >= nx)
            a0 = nx / 2;
        for (int x = a0; x < nx - a0; x++)
            cur[x] = ext(h[x - sh], g[x + sh], is_max);
        for (int x = 0; x < nx; x++) {
            if (x >= a0 && x < nx - a0)
                continue;
            uint16_t hv = x - sh >= 0 && x - sh < nx ? h[x - sh] : id, gv = x + sh >= 0 && x + sh < nx ? g[x + sh] : id;
            cur[x] = ext(hv, gv, is_max);
        }
        memcpy(g, cur, sizeof *cur * (size_t)nx);
    }
}

/* src's extremum over each pixel and its four neighbours (clipped to the region) into
 * dst */
static inline __attribute__((always_inline)) void cross_pass(struct track_detector_ws *ws, const uint16_t *src,
                                                             uint16_t *dst, int x0, int y0, int x1, int y1, int is_max)
{
    long w = ws->width;
    for (int y = y0; y <= y1; y++) {
        const uint16_t *restrict c = src + y * w, *restrict up = y > y0 ? c - w : c, *restrict dn = y < y1 ? c + w : c;
        uint16_t *restrict o = dst + y * w;
        for (int x = x0 + 1; x < x1; x++)
            o[x] = ext(ext(ext(c[x - 1], c[x + 1], is_max), ext(up[x], dn[x], is_max), is_max), c[x], is_max);
        for (int x = x0; x <= x1; x += x1 > x0 ? x1 - x0 : 1) { /* the two ends */
            uint16_t v = ext(ext(up[x], dn[x], is_max), c[x], is_max);
            if (x > x0)
                v = ext(v, c[x - 1], is_max);
            if (x < x1)
                v = ext(v, c[x + 1], is_max);
            o[x] = v;
        }
    }
}

/* Dilation or erosion of a, in place, by the octagon: the square of half side sq (rows,
 * then columns), then the diamond of radius 2k + 1 (the diagonal segments {(i, i)} and
 * {(i, -i)}, |i| <= k, whose sum is the diamond's even points, then the cross, which
 * fills its odd ones); b and c are scratch. */
static inline __attribute__((always_inline)) void octagon_pass(struct track_detector_ws *ws, uint16_t *a, uint16_t *b, uint16_t *c, int x0, int y0, int x1,
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
    for (int y = gy0; y <= gy1; y++) {
        const unsigned char *row = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
        if (f->depth == 16)
            memcpy(a + y * w + gx0, (const uint16_t *)(const void *)row + gx0, sizeof *a * (size_t)(gx1 - gx0 + 1));
        else
            for (int x = gx0; x <= gx1; x++)
                a[y * w + x] = row[x];
    }
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
