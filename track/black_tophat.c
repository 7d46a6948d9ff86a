/* black_tophat.c: the dark look's plane, closing(I) - I (the black top-hat): how much
 * darker a pixel is than the brightest of what surrounds it within a square of side
 * 2r + 1, so a dark marker narrower than the square stands out from the body it sits on
 * even where the backdrop beside that body is as dark as the marker (a dark band on a
 * light rod over a black floor: max - I read the band and the floor as one region).
 * Dilation then erosion by an octagon (a square, then a diamond along both diagonals
 * and a cross), each 1D pass the van Herk / Gil-Werman running extremum: three
 * comparisons a pixel whatever r. */
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

/* Dilation (is_max) or erosion of src by the square of half side r over the region
 * [x0, x1] x [y0, y1] (frame-sized planes, width w) into dst: rows into tmp, then
 * columns. */
static void square_pass(struct track_detector_ws *ws, const uint16_t *src, uint16_t *tmp, uint16_t *dst, int x0,
                        int y0, int x1, int y1, int r, int is_max)
{
    long w = ws->width;
    int nx = x1 - x0 + 1, ny = y1 - y0 + 1;
    for (int y = y0; y <= y1; y++)
        running_extremum(src + y * w + x0, 1, tmp + y * w + x0, 1, nx, r, is_max, ws->line_pad, ws->line_g,
                         ws->line_h);
    for (int x = x0; x <= x1; x++)
        running_extremum(tmp + y0 * w + x, w, dst + y0 * w + x, w, ny, r, is_max, ws->line_pad, ws->line_g,
                         ws->line_h);
}

/* The same along both diagonals, the segments {(i, i)} then {(i, -i)}, |i| <= k, in
 * place in p: their sum is the diamond |x| + |y| <= 2k with its odd points left out,
 * which the cross pass fills. */
static void diagonal_pass(struct track_detector_ws *ws, uint16_t *p, int x0, int y0, int x1, int y1, int k, int is_max)
{
    long w = ws->width;
    for (int y = y0; y <= y1; y++) { /* down-right diagonals from the left side */
        int n = (x1 - x0 < y1 - y ? x1 - x0 : y1 - y) + 1;
        running_extremum(p + y * w + x0, w + 1, p + y * w + x0, w + 1, n, k, is_max, ws->line_pad, ws->line_g,
                         ws->line_h);
    }
    for (int x = x0 + 1; x <= x1; x++) { /* and from the top */
        int n = (x1 - x < y1 - y0 ? x1 - x : y1 - y0) + 1;
        running_extremum(p + y0 * w + x, w + 1, p + y0 * w + x, w + 1, n, k, is_max, ws->line_pad, ws->line_g,
                         ws->line_h);
    }
    for (int y = y0; y <= y1; y++) { /* up-right diagonals from the left side */
        int n = (x1 - x0 < y - y0 ? x1 - x0 : y - y0) + 1;
        running_extremum(p + y * w + x0, 1 - w, p + y * w + x0, 1 - w, n, k, is_max, ws->line_pad, ws->line_g,
                         ws->line_h);
    }
    for (int x = x0 + 1; x <= x1; x++) { /* and from the bottom */
        int n = (x1 - x < y1 - y0 ? x1 - x : y1 - y0) + 1;
        running_extremum(p + y1 * w + x, 1 - w, p + y1 * w + x, 1 - w, n, k, is_max, ws->line_pad, ws->line_g,
                         ws->line_h);
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
                v = is_max ? (q[i] > v ? q[i] : v) : (q[i] < v ? q[i] : v);
            dst[y * w + x] = v;
        }
}

/* Dilation or erosion by the octagon: the square of half side a, then the diamond of
 * radius 2k + 1 (diagonals, then the cross): src into dst through tmp. */
static void octagon_pass(struct track_detector_ws *ws, const uint16_t *src, uint16_t *tmp, uint16_t *dst, int x0,
                         int y0, int x1, int y1, int a, int k, int is_max)
{
    square_pass(ws, src, dst, tmp, x0, y0, x1, y1, a, is_max);
    diagonal_pass(ws, tmp, x0, y0, x1, y1, k, is_max);
    cross_pass(ws, tmp, dst, x0, y0, x1, y1, is_max);
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
    octagon_pass(ws, a, b, c, gx0, gy0, gx1, gy1, sq, k, 1); /* dilation, in c */
    octagon_pass(ws, c, b, a, gx0, gy0, gx1, gy1, sq, k, 0); /* closing, in a */
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
