/* test_slender_marker.c: a flat sticker seen within a few degrees of edge-on is a thin
 * ellipse as long as the marker is wide (random scene 1192: 16 px stickers on a rod
 * seen as 16 x 3 px ellipses, 33 of them under the area floor of a quarter of the disc,
 * 50 px, in auto's trial frames, and the clip refused). A component under the floor is
 * kept when it covers a third of it and its box spans 0.8 diameters
 * (track_detector.slender_extent_px); a speck of noise, small every way, is not. Frames
 * drawn here with known centres. */
#include <math.h>
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 240
#define H 200
#define BG 30
#define LIT 200
#define DIAMETER 16.0 /* px: the sticker's diameter face-on */

typedef struct {
    double u, v, th, half_a, half_b; /* centre px, angle rad, semi-axes px */
} ellipse;

/* three stickers tilted 85.7 degrees (semi-minor 8 cos(tilt) = 0.6 px; the threshold
 * takes in the pixels they partly cover, 2-3 px across) and two
 * specks: a 2.5 px dot and a 6 x 2 px dash, under the slender extent */
static const ellipse shapes[5] = {
    {60, 60, 0.3, 8, 0.6}, {150, 70, 1.9, 8, 0.6}, {100, 140, -0.5, 8, 0.6}, {190, 150, 0, 1.25, 1.25}, {40, 160, 0.5, 3, 1},
};

static int inside(const ellipse *e, double x, double y)
{
    double dx = x - e->u, dy = y - e->v, a = dx * cos(e->th) + dy * sin(e->th), c = -dx * sin(e->th) + dy * cos(e->th);
    return (a * a) / (e->half_a * e->half_a) + (c * c) / (e->half_b * e->half_b) <= 1;
}

static void draw(rn_img *im, double du, double dv)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double sum = 0;
            for (int j = 0; j < 4; j++)
                for (int i = 0; i < 4; i++) {
                    double px = x + (i + 0.5) / 4 - 0.5 - du, py = y + (j + 0.5) / 4 - 0.5 - dv;
                    int in = 0;
                    for (int k = 0; k < 5 && !in; k++)
                        in = inside(&shapes[k], px, py);
                    sum += in ? LIT : BG;
                }
            im->px[y * W + x] = sum / 16;
        }
}

TEST(test_sticker_seen_edge_on_is_kept_and_a_speck_is_not)
{
    enum { N = 6 };
    static uint8_t buf[W * H];
    rn_rng rng = {1192};
    int found[2] = {0, 0}, specks[2] = {0, 0}, other[2] = {0, 0};
    double worst = 0;
    for (int f = 0; f < N; f++) {
        double du = 0.37 * f, dv = -0.23 * f; /* sub-pixel shifts: the centroid's phase */
        rn_img im = rn_new(W, H, BG);
        draw(&im, du, dv);
        rn_to_u8(&im, 3, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        for (int slender = 0; slender < 2; slender++) {
            track_detector *d = track_detector_alloc(W, H, NULL);
            ASSERT_TRUE(d != NULL);
            track_detector_set_scene_markers(d); /* as the pipeline sets it */
            d->static_frames = 0;
            track_detector_set_marker_size(d, DIAMETER, d->max_streak_px);
            ASSERT_NEAR(d->min_area_px, 50.27, 0.01); /* a quarter of the 16 px disc */
            ASSERT_NEAR(d->slender_extent_px, 12.8, 1e-9);
            if (!slender)
                d->slender_extent_px = 0; /* the floor alone, as before */
            track_blob b[32];
            int nb = 0;
            ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) == 0);
            for (int i = 0; i < nb; i++) {
                int hit = -1;
                for (int k = 0; k < 5 && hit < 0; k++)
                    if (hypot(b[i].u - (shapes[k].u + du), b[i].v - (shapes[k].v + dv)) < 2)
                        hit = k;
                if (hit < 0)
                    other[slender]++;
                else if (hit >= 3)
                    specks[slender]++;
                else {
                    found[slender]++;
                    if (slender)
                        worst = fmax(worst, hypot(b[i].u - (shapes[hit].u + du), b[i].v - (shapes[hit].v + dv)));
                }
            }
            track_detector_free(d);
        }
    }
    printf("    edge-on stickers found: floor alone %d of %d, slender rule %d (worst %.3f px); specks %d / %d, "
           "others %d / %d\n",
           found[0], 3 * N, found[1], worst, specks[0], specks[1], other[0], other[1]);
    /* thresholded they cover 24-52 px, nearly always under the 50 px floor, which
       refuses them (measured: 1 of 18 passes it) */
    ASSERT_TRUE(found[0] <= 2);
    /* a stripe about a pixel wide at the threshold's level breaks into pieces in a noisy
       frame now and then (measured 16-17 of 18 over the widths tried, 0.45-0.7 px) */
    ASSERT_TRUE(found[1] >= 16);
    /* px: measured 0.15-0.21. An ellipse's centroid is its centre, but the threshold
       cuts its thin ends unevenly with the sub-pixel phase and the noise */
    ASSERT_TRUE(worst < 0.25);
    ASSERT_EQ_INT(specks[1], 0); /* the dot (5 px) and the dash (6 px across its box) stay noise */
    ASSERT_EQ_INT(other[1], 0);
}
