/* test_label.c: the run-based labeller against a plain flood fill (8-connectivity)
 * on random frames, for thresholds below and above 128 (the two branches of the
 * 8-pixels-at-once test), full frames and windows, 8 and 16 bit, one level or one per
 * tile. Counts must agree exactly: both are exact algorithms. */
#include <stdlib.h>

#include "track/detect_internal.h"
#include "track/track.h"
#include "tests/harness.h"

#define W 61 /* odd widths: the word test's tail */
#define H 47

/* Components of pixels > t in [x0, x1] x [y0, y1] by flood fill. */
static int flood_count(const int *img, int t, int x0, int y0, int x1, int y1)
{
    static int seen[W * H], stack[W * H];
    memset(seen, 0, sizeof seen);
    int n = 0;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            if (seen[y * W + x] || img[y * W + x] <= t)
                continue;
            n++;
            int sp = 0;
            stack[sp++] = y * W + x;
            seen[y * W + x] = 1;
            while (sp) {
                int p = stack[--sp], px = p % W, py = p / W;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int qx = px + dx, qy = py + dy;
                        if (qx < x0 || qx > x1 || qy < y0 || qy > y1)
                            continue;
                        int q = qy * W + qx;
                        if (!seen[q] && img[q] > t) {
                            seen[q] = 1;
                            stack[sp++] = q;
                        }
                    }
            }
        }
    return n;
}

TEST(test_labeller_counts_match_flood_fill_on_random_frames)
{
    static int img[W * H];
    static uint8_t b8[W * H];
    static uint16_t b16[W * H];
    srand(4242);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->threshold_mode = TRACK_THRESHOLD_FIXED;
    d->static_frames = 0;
    for (int trial = 0; trial < 60; trial++) {
        int t = trial % 2 ? 40 + rand() % 80 : 130 + rand() % 100; /* both word-test branches */
        for (int i = 0; i < W * H; i++) {
            img[i] = rand() % 256;
            b8[i] = (uint8_t)img[i];
            b16[i] = (uint16_t)img[i];
        }
        d->threshold_level = t + 0.5; /* pixels > t */
        int x0 = 0, y0 = 0, x1 = W - 1, y1 = H - 1;
        track_window win;
        int nwin = trial % 3 == 2;
        if (nwin) { /* a window somewhere inside */
            x0 = 3 + rand() % 10;
            y0 = 2 + rand() % 10;
            x1 = x0 + 20 + rand() % 25;
            y1 = y0 + 15 + rand() % 15;
            win = (track_window){x0, y0, x1, y1, 0};
        }
        int want = flood_count(img, t, x0, y0, x1, y1);
        track_blob b[4];
        int nb;
        track_frame f8 = {b8, W, H, W, 8}, f16 = {b16, W, H, 2 * W, 16};
        ASSERT_TRUE(track_detector_detect(d, &f8, nwin ? &win : NULL, nwin, b, 4, &nb, NULL) == 0);
        ASSERT_EQ_INT(d->stats.n_components, want);
        ASSERT_TRUE(track_detector_detect(d, &f16, nwin ? &win : NULL, nwin, b, 4, &nb, NULL) == 0);
        ASSERT_EQ_INT(d->stats.n_components, want);
    }
    track_detector_free(d);
}

/* The tiled labelling (one threshold per tile, w->tile_t) against a flood fill over the
 * same per-pixel rule, component by component (area and box): it reads only the tiles
 * holding a pixel above their threshold (w->tile_lit), so runs ending at an unlit tile's
 * edge, tiles whose threshold no pixel passes and regions starting inside a tile are
 * drawn here. Both are exact: no tolerance. */
typedef struct {
    int area, x0, y0, x1, y1;
} box_area;

static int cmp_box(const void *a, const void *b)
{
    const box_area *p = a, *q = b;
    if (p->y0 != q->y0)
        return p->y0 - q->y0;
    if (p->x0 != q->x0)
        return p->x0 - q->x0;
    if (p->area != q->area)
        return p->area - q->area;
    return p->x1 != q->x1 ? p->x1 - q->x1 : p->y1 - q->y1;
}

/* Components of the pixels on[] in [x0, x1] x [y0, y1] by flood fill, into out. */
static int flood_boxes(const uint8_t *on, int x0, int y0, int x1, int y1, box_area *out)
{
    static int seen[W * H], stack[W * H];
    memset(seen, 0, sizeof seen);
    int n = 0;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            if (seen[y * W + x] || !on[y * W + x])
                continue;
            box_area b = {0, x, y, x, y};
            int sp = 0;
            stack[sp++] = y * W + x;
            seen[y * W + x] = 1;
            while (sp) {
                int p = stack[--sp], px = p % W, py = p / W;
                b.area++;
                b.x0 = px < b.x0 ? px : b.x0, b.x1 = px > b.x1 ? px : b.x1;
                b.y0 = py < b.y0 ? py : b.y0, b.y1 = py > b.y1 ? py : b.y1;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int qx = px + dx, qy = py + dy, q = qy * W + qx;
                        if (qx < x0 || qx > x1 || qy < y0 || qy > y1 || seen[q] || !on[q])
                            continue;
                        seen[q] = 1;
                        stack[sp++] = q;
                    }
            }
            out[n++] = b;
        }
    return n;
}

TEST(test_tiled_labeller_matches_flood_fill_with_a_threshold_per_tile)
{
    static uint8_t b8[W * H], on[W * H];
    static uint16_t b16[W * H];
    static box_area want[W * H], got[W * H];
    srand(977);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    struct track_detector_ws *w = d->ws;
    int n_unlit = 0, n_lit = 0, n_cross = 0;
    for (int trial = 0; trial < 80; trial++) {
        w->tile = trial % 4 == 0 ? 8 : trial % 4 == 1 ? 13 : trial % 4 == 2 ? 16 : 32;
        w->ntx = (W + w->tile - 1) / w->tile;
        w->nty = (H + w->tile - 1) / w->tile;
        /* a dark floor with bright specks and bars, so that most tiles hold nothing above
           their threshold and some runs reach a tile's edge */
        for (int i = 0; i < W * H; i++)
            b8[i] = (uint8_t)(rand() % 40);
        for (int k = 0; k < 12; k++) {
            int x = rand() % W, y = rand() % H, len = 1 + rand() % 20, v = 60 + rand() % 196;
            for (int j = 0; j < len && x + j < W; j++)
                b8[y * W + x + j] = (uint8_t)v;
        }
        for (int i = 0; i < w->ntx * w->nty; i++) /* some tiles above every pixel, one below all */
            w->tile_t[i] = rand() % 6 == 0 ? 255 : rand() % 50 == 0 ? -1 : 30 + rand() % 200;
        for (int i = 0; i < W * H; i++) {
            int x = i % W, y = i / W;
            b16[i] = (uint16_t)b8[i];
            on[i] = b8[i] > w->tile_t[(y / w->tile) * w->ntx + x / w->tile];
        }
        int x0 = 0, y0 = 0, x1 = W - 1, y1 = H - 1;
        if (trial % 3 == 1) { /* a region starting and ending inside tiles */
            x0 = 1 + rand() % 10, y0 = 1 + rand() % 10;
            x1 = W - 2 - rand() % 10, y1 = H - 2 - rand() % 10;
        }
        int nw = flood_boxes(on, x0, y0, x1, y1, want);
        qsort(want, (size_t)nw, sizeof *want, cmp_box);
        for (int depth = 8; depth <= 16; depth += 8) {
            track_frame f = {depth == 8 ? (void *)b8 : (void *)b16, W, H, W * depth / 8, depth};
            int overflow = 0;
            int nc = track_label_region_tiled(w, &f, x0, y0, x1, y1, &overflow);
            ASSERT_EQ_INT(overflow, 0);
            ASSERT_EQ_INT(nc, nw);
            for (int i = 0; i < nc; i++)
                got[i] = (box_area){w->comps[i].area, w->comps[i].x0, w->comps[i].y0, w->comps[i].x1,
                                    w->comps[i].y1};
            qsort(got, (size_t)nc, sizeof *got, cmp_box);
            for (int i = 0; i < nc; i++) {
                ASSERT_EQ_INT(got[i].area, want[i].area);
                ASSERT_EQ_INT(got[i].x0, want[i].x0);
                ASSERT_EQ_INT(got[i].y0, want[i].y0);
                ASSERT_EQ_INT(got[i].x1, want[i].x1);
                ASSERT_EQ_INT(got[i].y1, want[i].y1);
            }
        }
        /* what the frames drew: tiles read and skipped, components reaching a tile's edge */
        for (int ty = y0 / w->tile; ty <= y1 / w->tile; ty++)
            for (int tx = x0 / w->tile; tx <= x1 / w->tile; tx++)
                w->tile_lit[ty * w->ntx + tx] ? n_lit++ : n_unlit++;
        for (int i = 0; i < nw; i++)
            n_cross += (want[i].x1 + 1) % w->tile == 0 && want[i].x1 < x1;
    }
    ASSERT_TRUE(n_lit > 100 && n_unlit > 100 && n_cross > 10);
    track_detector_free(d);
}
