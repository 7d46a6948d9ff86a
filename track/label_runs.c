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
 * row's thresholds, tile px per tile). */
static int row_runs(const track_frame *f, int y, int x0, int x1, int t, const int *tmap, int tile, run *runs, int n,
                    int cap, int *overflow)
{
    int in = 0, start = 0, m = n;
    if (!tmap) {
        m = row_segment(f, y, x0, x1, t, &in, &start, runs, m, cap, overflow);
    } else {
        for (int a = x0; a <= x1 && m >= 0;) {
            int k = a / tile, b = (k + 1) * tile - 1;
            if (b > x1)
                b = x1;
            m = row_segment(f, y, a, b, tmap[k], &in, &start, runs, m, cap, overflow);
            a = b + 1;
        }
    }
    if (m >= 0)
        m = row_close(y, x1, in, start, runs, m, cap, overflow);
    return m < 0 ? cap : m; /* full: the runs found so far stand */
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
    int n = 0, prev_a = 0, prev_b = 0;
    for (int y = y0; y <= y1; y++) {
        int cur = n;
        const int *tmap = tiled ? w->tile_t + (size_t)(y / w->tile) * (size_t)w->ntx : NULL;
        n = row_runs(f, y, x0, x1, t, tmap, w->tile, w->runs, n, w->max_runs, overflow);
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
