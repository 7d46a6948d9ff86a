/* test_detect_peak.c: the markers' learnt peak, which the automatic threshold takes its
 * fraction of (issue #18): with the markers' count known it is the dimmest marker's, so
 * it neither ratchets up on the brightest marker once the others drop out nor sits on a
 * textured backdrop's bumps, and it is kept while no marker is in view; with no marker
 * size given, the tiles grow to a marker larger than a quarter of one. Frames drawn by
 * render.h with known centres. */
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 320
#define H 240

static int near_blob(const track_blob *b, int nb, double u, double v, double tol, double *dist)
{
    int best = -1;
    *dist = 1e9;
    for (int i = 0; i < nb; i++) {
        double d = hypot(b[i].u - u, b[i].v - v);
        if (d < *dist)
            *dist = d, best = i;
    }
    return *dist < tol ? best : -1;
}

/* Three disc markers (r 4 px) over background 20, noise 2: one 200 above it, two 70 and
 * 60. Frames 0-9 show all three, 10-29 the bright one only (the dim ones hidden), 30-59
 * all three again. Full scans at the pipeline's fraction 0.5. Returns the dim markers'
 * detections in frames 30-59 (of 60) and their worst error; *thr the threshold's height
 * above the background in the last frame. */
static int ratchet_run(int n_markers, double *worst, double *thr)
{
    static uint8_t buf[W * H];
    const double tu[3] = {60.3, 160.6, 250.2}, tv[3] = {80.4, 150.7, 110.1}, lv[3] = {200, 70, 60};
    track_detector *d = track_detector_alloc(W, H, NULL);
    if (!d)
        return -1;
    d->static_frames = 0;
    d->threshold_fraction = 0.5;
    d->n_markers = n_markers;
    rn_rng rng = {1015};
    int found = 0;
    *worst = 0;
    for (int f = 0; f < 60; f++) {
        rn_img im = rn_new(W, H, 20);
        int shown = f < 10 || f >= 30 ? 3 : 1;
        for (int k = 0; k < shown; k++)
            rn_disc(&im, tu[k], tv[k], 4, lv[k], 1);
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[32];
        int nb = 0;
        if (track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) != 0)
            break;
        if (f < 30)
            continue;
        for (int k = 1; k < 3; k++) {
            double dist;
            if (near_blob(b, nb, tu[k], tv[k], 2, &dist) >= 0) {
                found++;
                *worst = fmax(*worst, dist);
            }
        }
    }
    *thr = d->stats.threshold - d->stats.background;
    track_detector_free(d);
    return found;
}

TEST(test_learnt_peak_does_not_ratchet_up_when_the_dim_markers_drop_out)
{
    double worst, thr, worst0, thr0;
    int found = ratchet_run(3, &worst, &thr);
    int found0 = ratchet_run(0, &worst0, &thr0); /* the count unknown: the median blob, as before */
    printf("    dim markers back after 20 frames hidden: %d/60 found (worst %.3f px), threshold +%.1f; "
           "count unknown (median blob): %d/60, threshold +%.1f\n",
           found, worst, thr, found0, thr0);
    /* the median blob was the bright one's for 20 frames: the threshold rose to ~0.5 x
       180 and stays there, above the dim markers (the ratchet of random scene 1015) */
    ASSERT_TRUE(found0 < 10);
    /* the peak decays while a marker is missing and settles on the dimmest marker's:
       every frame finds both, and the threshold is half its 60 (+-5: the peak pixel's
       noise and the disc's rim on the 2-level noise) */
    ASSERT_EQ_INT(found, 60);
    ASSERT_TRUE(worst < 0.2); /* discs r 4 px under noise 2: ~0.02 px RMS; 10x margin */
    ASSERT_NEAR(thr, 30, 5);
}

/* A dark textured backdrop (level 30, Gaussian bumps 15 above it of sigma 1.5 px, 60 of
 * them, the size of the markers) and 3 disc markers (r 2.5 px, 45-60 above it), noise 1.5:
 * the bumps pass the 6-sigma floor (9 levels). Returns the extra (non-marker) blobs kept
 * in frames 5-19 and the markers found there (of 45). */
static int texture_run(int n_markers, int *markers)
{
    static uint8_t buf[W * H];
    const double tu[3] = {70.4, 150.2, 240.7}, tv[3] = {60.3, 170.6, 100.5}, lv[3] = {45, 60, 50};
    track_detector *d = track_detector_alloc(W, H, NULL);
    if (!d)
        return -1;
    d->static_frames = 0;
    d->threshold_fraction = 0.5;
    d->n_markers = n_markers;
    rn_rng rng = {1002};
    double bu[60], bv[60];
    for (int i = 0; i < 60; i++) { /* away from the markers by 12 px */
        for (;;) {
            bu[i] = 12 + (W - 24) * rn_uniform(&rng), bv[i] = 12 + (H - 24) * rn_uniform(&rng);
            int ok = 1;
            for (int k = 0; k < 3; k++)
                ok &= hypot(bu[i] - tu[k], bv[i] - tv[k]) > 12;
            if (ok)
                break;
        }
    }
    int extra = 0;
    *markers = 0;
    for (int f = 0; f < 20; f++) {
        rn_img im = rn_new(W, H, 30);
        for (int i = 0; i < 60; i++)
            rn_gauss_spot(&im, bu[i], bv[i], 1.5, 15, 1);
        for (int k = 0; k < 3; k++)
            rn_disc(&im, tu[k], tv[k], 2.5, lv[k], 1);
        rn_to_u8(&im, 1.5, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[128];
        int nb = 0;
        if (track_detector_detect(d, &fr, NULL, 0, b, 128, &nb, NULL) != 0)
            break;
        if (f < 5)
            continue;
        int used = 0;
        for (int k = 0; k < 3; k++) {
            double dist;
            if (near_blob(b, nb, tu[k], tv[k], 1, &dist) >= 0)
                used++;
        }
        *markers += used;
        extra += nb - used;
    }
    track_detector_free(d);
    return extra;
}

TEST(test_learnt_peak_is_the_markers_not_a_textured_backdrops)
{
    int markers, markers0;
    int extra = texture_run(3, &markers);
    int extra0 = texture_run(0, &markers0);
    printf("    textured backdrop, frames 5-19: markers %d/45, texture blobs %d; count unknown (median "
           "blob): markers %d/45, texture blobs %d\n",
           markers, extra, markers0, extra0);
    /* the median blob is a bump's: the threshold stays at the noise floor and the bumps
       are kept (random scenes 1002, 1175, 1180) */
    ASSERT_TRUE(extra0 > 100);
    /* the third strongest blob is the dimmest marker (45): half of it is above the bumps */
    ASSERT_EQ_INT(markers, 45);
    ASSERT_EQ_INT(extra, 0);
}

/* A ball 34 px across (a disc of radius 17 px, 200 over background 20, noise 1.5), no
 * marker size given (issue #9's one-camera ball: its depth, so its size, is not known),
 * moving 3.1, 2.3 px a frame over the 32 px tiles for 40 full scans at the pipeline's
 * fraction 0.5 with its count (1). Returns the frames it is found in (within 1 px) and
 * the worst error there; *extra the other blobs kept. */
static int ball_run(double *worst, int *extra)
{
    static uint8_t buf[W * H];
    track_detector *d = track_detector_alloc(W, H, NULL);
    if (!d)
        return -1;
    d->static_frames = 0;
    d->threshold_fraction = 0.5;
    d->n_markers = 1;
    rn_rng rng = {9};
    int found = 0;
    *worst = 0;
    *extra = 0;
    for (int f = 0; f < 40; f++) {
        double u = 60.4 + 3.1 * f, v = 60.7 + 2.3 * f;
        rn_img im = rn_new(W, H, 20);
        rn_disc(&im, u, v, 17, 200, 1);
        rn_to_u8(&im, 1.5, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[32];
        int nb = 0;
        if (track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) != 0)
            break;
        double dist;
        int used = near_blob(b, nb, u, v, 1, &dist) >= 0;
        if (used) {
            found++;
            *worst = fmax(*worst, dist);
        }
        *extra += nb - used;
    }
    track_detector_free(d);
    return found;
}

TEST(test_a_ball_larger_than_a_tile_is_found_in_every_full_scan)
{
    double worst;
    int extra;
    int found = ball_run(&worst, &extra);
    printf("    ball 34 px across, no size given, 40 full scans: found in %d (worst %.3f px), other blobs %d\n", found,
           worst, extra);
    /* a 32 px tile the ball filled took the ball's level and the threshold half its peak
       above it: the ball fell apart at the tile's edges and was lost in most frames */
    ASSERT_EQ_INT(found, 40);
    /* a uniform disc's centroid under noise 1.5 is within ~0.01 px; 0.1 px still fails a
       disc cut at a tile's edge (several px) */
    ASSERT(worst < 0.1, "worst centroid error %.3f px", worst);
    ASSERT_EQ_INT(extra, 0);
}

/* One marker (disc r 4 px, 100 over background 20, noise 2) in frames 0-4 and 25-29,
 * hidden in 5-24, and a dimmer spot (disc r 4 px, 35 over it) in view throughout: full
 * scans at the pipeline's fraction 0.5 with the count (1). Returns the frames of 5-24
 * in which the spot is kept; *back the frames of 25-29 in which the marker is found. */
static int hidden_run(int *back)
{
    static uint8_t buf[W * H];
    track_detector *d = track_detector_alloc(W, H, NULL);
    if (!d)
        return -1;
    d->static_frames = 0;
    d->threshold_fraction = 0.5;
    d->n_markers = 1;
    rn_rng rng = {1140};
    int spot = 0;
    *back = 0;
    for (int f = 0; f < 30; f++) {
        rn_img im = rn_new(W, H, 20);
        if (f < 5 || f >= 25)
            rn_disc(&im, 100.3, 80.6, 4, 100, 1);
        rn_disc(&im, 230.7, 170.2, 4, 35, 1);
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[32];
        int nb = 0;
        if (track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) != 0)
            break;
        double dist;
        if (f >= 5 && f < 25)
            spot += near_blob(b, nb, 230.7, 170.2, 1, &dist) >= 0;
        if (f >= 25)
            *back += near_blob(b, nb, 100.3, 80.6, 1, &dist) >= 0;
    }
    track_detector_free(d);
    return spot;
}

TEST(test_learnt_peak_is_kept_while_no_marker_is_in_view)
{
    int back;
    int spot = hidden_run(&back);
    printf("    marker hidden 20 frames: the dimmer spot kept in %d of them; marker found in %d/5 frames back\n", spot,
           back);
    /* decaying in frames that find nothing, the threshold fell to the spot in ~7 frames
       and learnt its peak (random scene 1140: a dark ball's bright probe found the
       frame's lit edge again) */
    ASSERT_EQ_INT(spot, 0);
    ASSERT_EQ_INT(back, 5);
}
