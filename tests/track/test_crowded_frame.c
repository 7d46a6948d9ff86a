/* test_crowded_frame.c: a textured plate above a dark bar with three bright stickers
 * (random scene 1110: 4.4 px stickers 244 levels over the bar, the plate's texture
 * bumps 20-45 levels high, 100-170 of them a frame). Kept in raster order, the first
 * full scan's 64 blobs (auto's and the pipeline's first scan ask for 64) were all
 * bumps above the bar, the markers' peak was learnt from them and the threshold stayed
 * at the texture's height: "more than 24 bright blobs ... in every frame". A full out
 * keeps the strongest blobs, and the peak is learnt from the strongest of all. Frames
 * drawn here with known centres. */
#include <stdlib.h>

#include "track/detect_internal.h"
#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 320
#define H 240
#define PLATE 120
#define BAR 12
#define NM 3

/* the plate over rows 0-119 with 150 bumps (gaussian, sigma 1.2, 35 levels), the bar
   (level BAR) below, the stickers (discs r 2.2, 240 levels) on the bar */
static void draw(uint8_t *buf, const double *mu, const double *mv, rn_rng *rng)
{
    rn_img im = rn_new(W, H, PLATE);
    for (int y = 120; y < H; y++)
        for (int x = 0; x < W; x++)
            im.px[y * W + x] = BAR;
    rn_rng pos = {77};
    for (int k = 0; k < 150; k++)
        rn_gauss_spot(&im, 8 + (W - 16) * rn_uniform(&pos), 8 + 100 * rn_uniform(&pos), 1.2, 35, 1);
    for (int k = 0; k < NM; k++)
        rn_disc(&im, mu[k], mv[k], 2.2, 240, 1);
    rn_to_u8(&im, 1.5, rng, buf);
    rn_free(&im);
}

/* Three frames scanned whole, out holding cap blobs: the blobs kept a frame, the stickers
 * found within 1 px a frame, the worst of their errors and the peak learnt. */
static void scan_three(int cap, int *nb, int *found, double *worst, double *peak)
{
    static uint8_t buf[W * H];
    const double mu[NM] = {100.3, 170.6, 240.2}, mv[NM] = {160.4, 200.7, 180.1};
    rn_rng rng = {1110};
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_detector_set_scene_markers(d); /* as the pipeline sets it */
    d->static_frames = 0;
    d->n_markers = NM;
    track_detector_set_marker_size(d, 4.4, d->max_streak_px);
    track_frame fr = {buf, W, H, W, 8};
    long allocs = d->n_allocs;
    *worst = 0;
    for (int f = 0; f < 3; f++) {
        double u[NM], v[NM];
        for (int k = 0; k < NM; k++)
            u[k] = mu[k] + 3.1 * f, v[k] = mv[k] - 1.7 * f;
        draw(buf, u, v, &rng);
        track_blob b[256];
        found[f] = 0;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, cap, &nb[f], NULL) == 0);
        for (int k = 0; k < NM; k++) {
            double best = 1e9;
            for (int i = 0; i < nb[f]; i++)
                best = fmin(best, hypot(b[i].u - u[k], b[i].v - v[k]));
            if (best < 1)
                found[f]++, *worst = fmax(*worst, best);
        }
    }
    ASSERT_EQ_INT((int)d->n_allocs, (int)allocs); /* nothing allocated per frame */
    *peak = d->ws->peak_ref;
    track_detector_free(d);
    printf("    out of %d: stickers found %d, %d, %d of 3; blobs %d, %d, %d; worst %.3f px; peak %.1f levels\n", cap,
           found[0], found[1], found[2], nb[0], nb[1], nb[2], *worst, *peak);
}

TEST(test_crowded_frame_keeps_the_strongest_blobs_and_learns_the_markers_peak)
{
    /* 64: auto's and the pipeline's first scan; 256: the tracker's (every bump fits,
       the stickers after the first 64 in raster order) */
    for (int cap = 64; cap <= 256; cap *= 4) {
        int nb[3], found[3];
        double worst, peak;
        scan_three(cap, nb, found, &worst, &peak);
        /* the first scan keeps the out's worth of bumps and the three stickers among them */
        ASSERT_EQ_INT(nb[0], cap < 121 ? cap : 121);
        for (int f = 0; f < 3; f++)
            ASSERT_EQ_INT(found[f], NM);
        /* the peak is the third sticker's (240 levels drawn, blurred by the 4.4 px disc's
           pixels: 150-240); the bumps stand 35 levels at most */
        ASSERT(peak > 150, "peak learnt %.1f levels (over 150: the stickers', not the bumps' 35)", peak);
        /* then half of it is the threshold's height (capped by the plate's headroom, 135):
           no bump passes, the stickers alone are kept */
        ASSERT_EQ_INT(nb[1], NM);
        ASSERT_EQ_INT(nb[2], NM);
        /* a 4.4 px disc 240 levels high, noise 1.5: its centroid within 0.1 px */
        ASSERT(worst < 0.1, "a sticker %.3f px from its centre (0.1)", worst);
    }
}
