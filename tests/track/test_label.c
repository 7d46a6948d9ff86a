/* test_label.c: the run-based labeller against a plain flood fill (8-connectivity)
 * on random frames, for thresholds below and above 128 (the two branches of the
 * 8-pixels-at-once test), full frames and windows, 8 and 16 bit. Counts must agree
 * exactly: both are exact algorithms. */
#include <stdlib.h>

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
