/* label_runs.c: one-pass connected-component labelling over a rectangle. Pixels above
 * the threshold are gathered into runs per row, each run joined to the overlapping
 * (8-connected) runs of the row above with a union-find (run-based labelling:
 * Rosenfeld & Pfaltz 1966; He et al. 2017, Pattern Recognition 70:25, review), then
 * the components' areas and boxes are summed from the runs. Workspace from _alloc. */
#include <string.h>

#include "track/detect_internal.h"

/* Appends the runs of pixels > t (an integer level) in columns [x0, x1] of row y; a run
 * open at x0 (*in, *start) continues, one still open at x1 is left open for the next
 * segment. The 8-bit path tests 8 pixels at once ("hasmore", Anderson's Bit Twiddling
 * Hacks) since almost every pixel of a frame is background. Returns the new count, or
 * -1 when the workspace is full (counted in *overflow). */
static int row_segment(const track_frame *f, int y, int x0, int x1, int t, int *in, int *start, run *runs, int n,
                       int cap, int *overflow)
{
    const unsigned char *row = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
    int x = x0;
    if (f->depth == 8) {
        const uint64_t ones = ~0ULL / 255, highs = ones * 128;
        while (x <= x1) {
            if (!*in && t >= 0 && x + 8 <= x1 + 1) { /* the word test needs 0 <= t */
                if (t >= 255) /* nothing can be above: the rest of the segment is dark */
                    return n;
                uint64_t w;
                memcpy(&w, row + x, 8);
                uint64_t any = t < 128 ? (((w + ones * (uint64_t)(127 - t)) | w) & highs) : (w & highs);
                if (!any) {
                    x += 8;
                    continue;
                }
            }
            int above = row[x] > t;
            if (above && !*in) {
                *in = 1;
                *start = x;
            } else if (!above && *in) {
                *in = 0;
                if (n >= cap) {
                    (*overflow)++;
                    return -1;
                }
                runs[n++] = (run){y, *start, x - 1};
            }
            x++;
        }
    } else {
        const uint16_t *r16 = (const uint16_t *)(const void *)row;
        for (; x <= x1; x++) {
            int above = r16[x] > t;
            if (above && !*in) {
                *in = 1;
                *start = x;
            } else if (!above && *in) {
                *in = 0;
                if (n >= cap) {
                    (*overflow)++;
                    return -1;
                }
                runs[n++] = (run){y, *start, x - 1};
            }
        }
    }
    return n;
}

/* Closes a run still open at the row's end x1. */
static int row_close(int y, int x1, int in, int start, run *runs, int n, int cap, int *overflow)
{
    if (!in)
        return n;
    if (n >= cap) {
        (*overflow)++;
        return -1;
    }
    runs[n++] = (run){y, start, x1};
    return n;
}

/* The runs of row y with one threshold t (tmap NULL) or each tile's (tmap: the tile
 * row's thresholds, tile px per tile; lit: which of those tiles hold a pixel above). */
static int row_runs(const track_frame *f, int y, int x0, int x1, int t, const int *tmap, const unsigned char *lit,
                    int tile, run *runs, int n, int cap, int *overflow)
{
    int in = 0, start = 0, m = n;
    if (!tmap) {
        m = row_segment(f, y, x0, x1, t, &in, &start, runs, m, cap, overflow);
    } else {
        for (int a = x0; a <= x1 && m >= 0;) {
            int k = a / tile, b = (k + 1) * tile - 1;
            if (b > x1)
                b = x1;
            if (lit[k]) {
                m = row_segment(f, y, a, b, tmap[k], &in, &start, runs, m, cap, overflow);
            } else if (in) { /* nothing above in this tile: a run open at its edge ends there */
                m = row_close(y, a - 1, in, start, runs, m, cap, overflow);
                in = 0;
            }
            a = b + 1;
        }
    }
    if (m >= 0)
        m = row_close(y, x1, in, start, runs, m, cap, overflow);
    return m < 0 ? cap : m; /* full: the runs found so far stand */
}

/* cm[i] = max(cm[i], row[i]) for i < n, 16 (8-bit) or 8 (16-bit) pixels at a time: a
 * loop of fixed length that compilers turn into vector max instructions (gcc 12 at -O2:
 * pmaxub, 16 pixels an instruction). One body for both depths. */
#define MAX_INTO(name, type, lanes)                                              \
    static void name(type *restrict cm, const type *restrict row, int n)        \
    {                                                                            \
        int x = 0;                                                               \
        for (; x + (lanes) <= n; x += (lanes))                                   \
            for (int i = 0; i < (lanes); i++)                                    \
                cm[x + i] = cm[x + i] > row[x + i] ? cm[x + i] : row[x + i];     \
        for (; x < n; x++)                                                       \
            cm[x] = cm[x] > row[x] ? cm[x] : row[x];                             \
    }
MAX_INTO(max_into8, uint8_t, 16)
MAX_INTO(max_into16, uint16_t, 8)
#undef MAX_INTO

/* Each column's largest pixel over rows [y0, y1], columns [x0, x1], into col: rows read
 * whole and in order, which the hardware prefetch follows (read tile by tile, a row's
 * 32 pixels and then the next row's, they waited on memory). */
static void column_max(const track_frame *f, int x0, int y0, int x1, int y1, void *col)
{
    int n = x1 - x0 + 1;
    size_t px = f->depth == 8 ? 1 : 2;
    memset((unsigned char *)col + px * (size_t)x0, 0, px * (size_t)n);
    for (int y = y0; y <= y1; y++) {
        const unsigned char *row = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
        if (f->depth == 8)
            max_into8((uint8_t *)col + x0, row + x0, n);
        else
            max_into16((uint16_t *)col + x0, (const uint16_t *)(const void *)row + x0, n);
    }
}

/* w->tile_lit over the tiles [x0, x1] x [y0, y1] meets: 1 where the part of the tile
 * inside holds a pixel above the tile's threshold. Almost every tile of a frame holds
 * background alone; one vector pass over the frame costs a fraction of the run search's
 * word-by-word one, which then reads the lit tiles only. */
static void mark_lit_tiles(struct track_detector_ws *w, const track_frame *f, int x0, int y0, int x1, int y1)
{
    int T = w->tile;
    for (int ty = y0 / T; ty <= y1 / T; ty++) {
        int ay = ty * T > y0 ? ty * T : y0, by = ty * T + T - 1 < y1 ? ty * T + T - 1 : y1;
        column_max(f, x0, ay, x1, by, w->col_max);
        for (int tx = x0 / T; tx <= x1 / T; tx++) {
            int ax = tx * T > x0 ? tx * T : x0, bx = tx * T + T - 1 < x1 ? tx * T + T - 1 : x1;
            int m = 0;
            if (f->depth == 8)
                for (int x = ax; x <= bx; x++)
                    m = ((const uint8_t *)w->col_max)[x] > m ? ((const uint8_t *)w->col_max)[x] : m;
            else
                for (int x = ax; x <= bx; x++)
                    m = ((const uint16_t *)w->col_max)[x] > m ? ((const uint16_t *)w->col_max)[x] : m;
            int i = ty * w->ntx + tx;
            w->tile_lit[i] = m > w->tile_t[i];
        }
    }
}

static int uf_find(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]]; /* path halving */
        i = parent[i];
    }
    return i;
}

static void uf_union(int *parent, int a, int b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

static int label_region(struct track_detector_ws *w, const track_frame *f, int x0, int y0, int x1, int y1, int t,
                        int tiled, int *overflow)
{
    /* runs, linked to the previous row's runs as they are found */
    int n = 0, prev_a = 0, prev_b = 0, band_lit = 1;
    if (tiled)
        mark_lit_tiles(w, f, x0, y0, x1, y1);
    for (int y = y0; y <= y1; y++) {
        int cur = n;
        const int *tmap = NULL;
        const unsigned char *lit = NULL;
        if (tiled) {
            size_t band = (size_t)(y / w->tile) * (size_t)w->ntx;
            tmap = w->tile_t + band;
            lit = w->tile_lit + band;
            if (y == y0 || y % w->tile == 0) { /* a band of tiles without a lit one has no run */
                band_lit = 0;
                for (int k = x0 / w->tile; k <= x1 / w->tile && !band_lit; k++)
                    band_lit = lit[k];
            }
        }
        if (band_lit)
            n = row_runs(f, y, x0, x1, t, tmap, lit, w->tile, w->runs, n, w->max_runs, overflow);
        int q = prev_a;
        for (int r = cur; r < n; r++) {
            w->parent[r] = r;
            if (prev_b > prev_a && w->runs[prev_a].y != y - 1)
                continue;
            while (q < prev_b && w->runs[q].x1 < w->runs[r].x0 - 1)
                q++;
            for (int k = q; k < prev_b && w->runs[k].x0 <= w->runs[r].x1 + 1; k++)
                uf_union(w->parent, r, k);
        }
        prev_a = cur;
        prev_b = n;
    }
    /* components */
    int nc = 0;
    for (int r = 0; r < n; r++) {
        int root = uf_find(w->parent, r);
        if (root == r) {
            w->label[r] = nc;
            w->comps[nc++] = (comp){0, w->runs[r].x0, w->runs[r].y, w->runs[r].x1, w->runs[r].y};
        }
        comp *c = &w->comps[w->label[root]];
        const run *rr = &w->runs[r];
        c->area += rr->x1 - rr->x0 + 1;
        if (rr->x0 < c->x0) c->x0 = rr->x0;
        if (rr->x1 > c->x1) c->x1 = rr->x1;
        if (rr->y < c->y0) c->y0 = rr->y;
        if (rr->y > c->y1) c->y1 = rr->y;
        w->label[r] = w->label[root];
    }
    return nc;
}

int track_label_region(struct track_detector_ws *w, const track_frame *f, int x0, int y0, int x1, int y1, int t,
                       int *overflow)
{
    return label_region(w, f, x0, y0, x1, y1, t, 0, overflow);
}

int track_label_region_tiled(struct track_detector_ws *w, const track_frame *f, int x0, int y0, int x1, int y1,
                             int *overflow)
{
    return label_region(w, f, x0, y0, x1, y1, 0, 1, overflow);
}
