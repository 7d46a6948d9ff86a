/* test_detect_local.c: detection by local contrast (issue #18): markers over a lit
 * plate or touching its edge stay separate with an unbiased centroid, strong read noise
 * gives the markers and no noise blobs, the automatic threshold stays inside the data
 * range, dark markers on a light background (the dark look). Frames drawn by render.h
 * with known centres; markers are opaque stickers (a pixel is what lies behind it
 * where the disc does not cover it, the marker's level where it does). */
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 320
#define H 240

/* An opaque disc of level m over what im holds: px = (1 - a) px + a m, a the coverage. */
static void sticker(rn_img *im, double u, double v, double r, double m)
{
    rn_img cov = rn_new(im->w, im->h, 0);
    rn_disc(&cov, u, v, r, 1, 1);
    for (int i = 0; i < im->w * im->h; i++)
        im->px[i] = (1 - cov.px[i]) * im->px[i] + cov.px[i] * m;
    rn_free(&cov);
}

/* A lit plate: columns x >= x_edge (pixel edge at x_edge - 0.5) at level p. */
static void plate(rn_img *im, int x_edge, double p)
{
    for (int y = 0; y < im->h; y++)
        for (int x = x_edge; x < im->w; x++)
            im->px[y * im->w + x] = p;
}

static int nearest(const track_blob *b, int nb, double u, double v, double *dist)
{
    int best = -1;
    *dist = 1e9;
    for (int i = 0; i < nb; i++) {
        double d = hypot(b[i].u - u, b[i].v - v);
        if (d < *dist)
            *dist = d, best = i;
    }
    return best;
}

TEST(test_marker_on_a_lit_plate_and_touching_its_edge_stays_separate_and_unbiased)
{
    /* background 20, plate 120 from x = 160, markers 230 of radius 5 px: one on the
     * plate, one on the dark side touching the plate's edge, one across the edge. With
     * one level for the frame the plate is one component with the markers in it (too
     * large: all three lost); here each comes apart. */
    static uint8_t buf[W * H];
    const double tu[3] = {240.3, 154.2, 160.4}, tv[3] = {60.6, 120.3, 190.8};
    double se[3] = {0, 0, 0};
    int found[3] = {0, 0, 0}, extra = 0;
    const int n = 20;
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    rn_rng rng = {181};
    for (int f = 0; f < n; f++) {
        rn_img im = rn_new(W, H, 20);
        plate(&im, 160, 120);
        double ju = rn_uniform(&rng) - 0.5, jv = rn_uniform(&rng) - 0.5; /* sub-pixel phases */
        for (int k = 0; k < 3; k++)
            sticker(&im, tu[k] + (k == 0 ? ju : 0), tv[k] + jv, 5, 230);
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[32];
        int nb;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) == 0);
        int used = 0;
        for (int k = 0; k < 3; k++) {
            double dist;
            int i = nearest(b, nb, tu[k] + (k == 0 ? ju : 0), tv[k] + jv, &dist);
            if (i >= 0 && dist < 2) {
                found[k]++;
                used++;
                se[k] += dist * dist;
            }
        }
        extra += nb - used;
    }
    track_detector_free(d);
    for (int k = 0; k < 3; k++) {
        double rms = sqrt(se[k] / (found[k] ? found[k] : 1));
        printf("    marker %d (%s): found %d/%d, centroid RMS %.3f px\n", k,
               k == 0 ? "on the plate" : k == 1 ? "touching the edge" : "across the edge", found[k], n, rms);
        ASSERT_EQ_INT(found[k], n);
        /* on the plate the ring is the plate, and touching it the plate's pixels are
           left out of the ring and the margin: as good as on a plain background (0.05
           px, issue #8's still-disc goal; measured 0.019, 0.009). Across the edge the
           box's corners on the plate side weigh the centroid towards it: measured 0.91
           px, a systematic offset of this geometry (docs/track.md, left); 1 px bounds
           it and still fails a marker fused to the plate (tens of px) */
        ASSERT(rms < (k == 2 ? 1.0 : 0.05), "marker %d centroid RMS %.3f px", k, rms);
    }
    ASSERT_EQ_INT(extra, 0); /* the plate and its edge give no blob */
}

TEST(test_read_noise_sigma_8_gives_the_markers_and_no_noise_blobs)
{
    /* a 1000 fps clip: background 60 with read noise sigma 8 gray levels, 3 spots of
     * sigma 2 px, 150 above the background */
    static uint8_t buf[W * H];
    rn_rng rng = {1000};
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    int found = 0, extra = 0;
    double noise = 0;
    const int n = 20;
    for (int f = 0; f < n; f++) {
        rn_img im = rn_new(W, H, 60);
        double tu[3], tv[3];
        for (int k = 0; k < 3; k++) {
            tu[k] = 50 + 100 * k + 20 * rn_uniform(&rng);
            tv[k] = 40 + 160 * rn_uniform(&rng);
            rn_gauss_spot(&im, tu[k], tv[k], 2, 150, 1);
        }
        rn_to_u8(&im, 8, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[64];
        int nb;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 64, &nb, NULL) == 0);
        noise += d->stats.noise / n;
        int used = 0;
        for (int k = 0; k < 3; k++) {
            double dist;
            if (nearest(b, nb, tu[k], tv[k], &dist) >= 0 && dist < 1)
                found++, used++;
        }
        extra += nb - used;
    }
    track_detector_free(d);
    printf("    sigma 8: noise read %.2f, markers %d/%d, noise blobs %d in %d frames\n", noise, found, 3 * n, extra, n);
    ASSERT_NEAR(noise, 8, 1); /* the MAD of 1-in-16 samples: a few % (1 level: >3 SE) */
    ASSERT_EQ_INT(found, 3 * n);
    /* 6 sigma over 77,000 pixels a frame: ~1e-4 false pixels, and 4 together for a blob */
    ASSERT_EQ_INT(extra, 0);
}

TEST(test_automatic_threshold_stays_inside_the_data_range)
{
    /* a light frame (245) with noise 8: 6 sigma above it is 293, which no 8-bit pixel
     * reaches; the threshold is clamped to 254, the largest level a pixel can exceed */
    static uint8_t buf[W * H];
    rn_rng rng = {293};
    rn_img im = rn_new(W, H, 245);
    rn_to_u8(&im, 8, &rng, buf);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[64];
    int nb;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 64, &nb, NULL) == 0);
    double t8 = d->stats.threshold, bg8 = d->stats.background;
    printf("    background %.1f, noise %.2f: threshold %.1f\n", bg8, d->stats.noise, t8);
    ASSERT_TRUE(t8 <= 254);
    ASSERT_TRUE(t8 > bg8);

    /* noise 3 (263 asked): the saturated 12 x 12 marker is still seen, at its centre */
    rng.s = 263;
    im = rn_new(W, H, 245);
    rn_to_u8(&im, 3, &rng, buf);
    rn_free(&im);
    for (int y = 100; y < 112; y++)
        for (int x = 150; x < 162; x++)
            buf[y * W + x] = 255;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 64, &nb, NULL) == 0);
    double t3 = d->stats.threshold, dist;
    int i = nearest(b, nb, 155.5, 105.5, &dist);
    track_detector_free(d);
    printf("    noise 3: threshold %.1f, %d blobs, the marker %.3f px off\n", t3, nb, dist);
    ASSERT_TRUE(t3 <= 254);
    ASSERT_TRUE(i >= 0);
    ASSERT_NEAR(dist, 0, 0.2); /* clipped noise pixels (3.2 sigma: 0.07%) round it: < 0.2 px */

    /* 16-bit: the same clamp at 65534 */
    static uint16_t b16[W * H];
    for (int k = 0; k < W * H; k++)
        b16[k] = 65530;
    track_detector *d16 = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d16 != NULL);
    d16->threshold_k_sigma = 20; /* 20 x the 1-level floor: 65550 asked */
    track_frame f16 = {b16, W, H, 2 * W, 16};
    ASSERT_TRUE(track_detector_detect(d16, &f16, NULL, 0, b, 64, &nb, NULL) == 0);
    double t16 = d16->stats.threshold;
    track_detector_free(d16);
    ASSERT_TRUE(t16 <= 65534 && t16 >= 65530);
}

TEST(test_dark_markers_on_a_light_background_with_the_dark_look)
{
    /* a light board (200) with three dark discs (40) of radius 4 px, noise 2 */
    static uint8_t buf[W * H];
    rn_rng rng = {77};
    double se = 0;
    int found = 0, extra = 0, bright_found = 0;
    const int n = 20;
    track_detector *d = track_detector_alloc(W, H, NULL);
    track_detector *bright = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL && bright != NULL);
    d->look = TRACK_LOOK_DARK;
    for (int f = 0; f < n; f++) {
        rn_img im = rn_new(W, H, 200);
        double tu[3], tv[3];
        for (int k = 0; k < 3; k++) {
            tu[k] = 50 + 100 * k + 20 * rn_uniform(&rng);
            tv[k] = 40 + 160 * rn_uniform(&rng);
            sticker(&im, tu[k], tv[k], 4, 40);
        }
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[32];
        int nb;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) == 0);
        int used = 0;
        for (int k = 0; k < 3; k++) {
            double dist;
            if (nearest(b, nb, tu[k], tv[k], &dist) >= 0 && dist < 1) {
                found++, used++;
                se += dist * dist;
            }
        }
        extra += nb - used;
        ASSERT_TRUE(track_detector_detect(bright, &fr, NULL, 0, b, 32, &nb, NULL) == 0);
        bright_found += nb;
    }
    char line[512];
    track_detector_describe(d, line, sizeof line);
    track_detector_free(d);
    track_detector_free(bright);
    double rms = sqrt(se / (found ? found : 1));
    printf("    dark discs: %d/%d found, centroid RMS %.3f px, %d extra; bright look: %d blobs\n", found, 3 * n, rms, extra,
           bright_found);
    ASSERT_EQ_INT(found, 3 * n);
    ASSERT_EQ_INT(extra, 0);
    ASSERT(rms < 0.05, "RMS %.3f px", rms); /* issue #8's still-disc goal, as bright discs */
    ASSERT_EQ_INT(bright_found, 0);         /* the bright look sees nothing there */
    ASSERT_STR_CONTAINS(line, "look dark");
}

TEST(test_detector_refuses_a_look_without_what_it_needs)
{
    static uint8_t buf[W * H];
    memset(buf, 20, sizeof buf);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[4];
    int nb;
    icv_err err = {0};
    d->look = TRACK_LOOK_MOTION; /* no background given */
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 4, &nb, &err) != 0);
    ASSERT_STR_CONTAINS(err.msg, "motion_background");
    d->look = TRACK_LOOK_COLOR; /* a gray frame */
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 4, &nb, &err) != 0);
    ASSERT_STR_CONTAINS(err.msg, "RGB");
    track_detector_free(d);
}

TEST(test_colour_key_finds_red_balls_among_white_and_grey_ones)
{
    /* RGB frame: grey background (90), red discs (200, 40, 40) and white discs (240)
     * of radius 5; the colour look keyed on red finds the red ones only */
    static uint8_t rgb[W * H * 3];
    rn_rng rng = {5};
    const double ru[2] = {80.3, 220.6}, rv[2] = {70.2, 160.7}, wu[2] = {150.4, 260.1}, wv[2] = {120.5, 50.3};
    rn_img cr = rn_new(W, H, 0), cw = rn_new(W, H, 0);
    for (int k = 0; k < 2; k++) {
        rn_disc(&cr, ru[k], rv[k], 5, 1, 1);
        rn_disc(&cw, wu[k], wv[k], 5, 1, 1);
    }
    const double red[3] = {200, 40, 40};
    for (int i = 0; i < W * H; i++)
        for (int c = 0; c < 3; c++) {
            double v = (1 - cr.px[i] - cw.px[i]) * 90 + cr.px[i] * red[c] + cw.px[i] * 240 + 2 * rn_gauss(&rng);
            rgb[3 * i + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
        }
    rn_free(&cr);
    rn_free(&cw);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->look = TRACK_LOOK_COLOR;
    d->color_rgb[0] = 200, d->color_rgb[1] = 40, d->color_rgb[2] = 40;
    d->color_tolerance = 60;
    track_frame fr = {rgb, W, H, 3 * W, 24};
    track_blob b[16];
    int nb;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 16, &nb, NULL) == 0);
    track_detector_free(d);
    printf("    colour key: %d blobs\n", nb);
    ASSERT_EQ_INT(nb, 2);
    for (int k = 0; k < 2; k++) {
        double dist;
        ASSERT_TRUE(nearest(b, nb, ru[k], rv[k], &dist) >= 0);
        /* the closeness plane is a flat disc with a soft rim: as the gray discs (0.05) */
        ASSERT(dist < 0.05, "red ball %d off by %.3f px", k, dist);
    }
}

TEST(test_motion_look_finds_a_moving_ball_on_a_textured_still_background)
{
    /* a textured background (blotches 40-140, still) and a ball (disc r 6, level 200)
     * moving across it; the still background is the median of 9 frames spread over
     * the clip, then the ball is found in every frame, and nothing else */
    enum { NF = 9 };
    static uint8_t frames[NF][W * H];
    rn_rng rng = {31};
    rn_img tex = rn_new(W, H, 40);
    for (int k = 0; k < 60; k++) /* blotches: brighter than the ball's contrast to them */
        rn_gauss_spot(&tex, W * rn_uniform(&rng), H * rn_uniform(&rng), 4 + 6 * rn_uniform(&rng),
                      100 * rn_uniform(&rng), 1);
    double tu[NF], tv[NF];
    for (int f = 0; f < NF; f++) {
        rn_img im = rn_new(W, H, 0);
        memcpy(im.px, tex.px, sizeof(double) * W * H);
        tu[f] = 30 + 30.3 * f, tv[f] = 60 + 12.7 * f;
        sticker(&im, tu[f], tv[f], 6, 200);
        rn_to_u8(&im, 2, &rng, frames[f]);
        rn_free(&im);
    }
    rn_free(&tex);
    track_frame tf[NF];
    for (int f = 0; f < NF; f++)
        tf[f] = (track_frame){frames[f], W, H, W, 8};
    track_detector *d = track_detector_alloc(W, H, NULL);
    track_detector *bright = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL && bright != NULL);
    ASSERT_TRUE(track_detector_learn_background(d, tf, NF, NULL) == 0);
    d->look = TRACK_LOOK_MOTION;
    d->static_frames = 0;
    int found = 0, extra = 0, bright_n = 0;
    double worst = 0;
    for (int f = 0; f < NF; f++) {
        track_blob b[16];
        int nb;
        ASSERT_TRUE(track_detector_detect(d, &tf[f], NULL, 0, b, 16, &nb, NULL) == 0);
        double dist;
        if (nearest(b, nb, tu[f], tv[f], &dist) >= 0 && dist < 2)
            found++, worst = fmax(worst, dist);
        extra += nb - (dist < 2);
        ASSERT_TRUE(track_detector_detect(bright, &tf[f], NULL, 0, b, 16, &nb, NULL) == 0);
        bright_n += nb;
    }
    /* auto picks motion here: bright and dark see the blotches too */
    track_look look = TRACK_LOOK_BRIGHT;
    char why[512];
    icv_err err = {0};
    int rc = track_look_choose(tf, NF, d->motion_background, d->motion_background_stride, 1, 12, NULL, &look, NULL,
                               NULL, why, sizeof why, &err);
    track_detector_free(d);
    track_detector_free(bright);
    printf("    motion: %d/%d found, worst %.3f px, %d extra (bright look: %d blobs); auto: %s\n", found, NF, worst,
           extra, bright_n, rc ? err.msg : why);
    ASSERT_EQ_INT(found, NF);
    ASSERT_EQ_INT(extra, 0);
    /* |I - B| weighs the ball by its contrast to the texture under it, uneven: 0.5 px */
    ASSERT(worst < 0.5, "worst %.3f px", worst);
    ASSERT_TRUE(rc == 0);
    ASSERT_EQ_INT(look, TRACK_LOOK_MOTION);
}

TEST(test_a_ball_wider_than_a_tile_is_found_at_its_centre)
{
    /* a ball 60 px across (a ball filmed close: the marker is the ball), level 200 on
     * 60 with noise 3: with 32 px tiles it filled whole tiles and was its own
     * background (no blob); set_marker_size grows the tiles to 4 diameters */
    static uint8_t buf[W * H];
    rn_rng rng = {60};
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    track_detector_set_marker_size(d, 60, 4);
    ASSERT_EQ_INT(d->background_tile_px, 240);
    for (int f = 0; f < 5; f++) {
        double u = 150.3 + 7.1 * f, v = 110.6 + 3.3 * f;
        rn_img im = rn_new(W, H, 60);
        sticker(&im, u, v, 30, 200);
        rn_to_u8(&im, 3, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[32];
        int nb;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) == 0);
        ASSERT_EQ_INT(nb, 1);
        double dist;
        nearest(b, nb, u, v, &dist);
        ASSERT(dist < 0.05, "frame %d: centroid %.3f px from the ball's centre", f, dist);
    }
    track_detector_free(d);
}

TEST(test_a_ball_below_a_wall_as_light_as_it_is_found_at_its_centre)
{
    /* a light ball (70 px, level 187) over a dark floor (30) just below a wall of its
     * own level filling the top 190 rows: the wall fills three quarters of the ball's
     * 256 px tile, whose level (its median) was then the wall's and the threshold above
     * the ball (random scene 1064: the ball lost in every full scan). The binned pass
     * reads the white top-hat, and a ball touching the wall, cut out of it there, is not
     * reported at a biased centre */
    enum { WW = 640, HH = 480 };
    static uint8_t buf[WW * HH];
    rn_rng rng = {1064};
    track_detector *d = track_detector_alloc(WW, HH, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    track_detector_set_marker_size(d, 70, 4);
    long allocs = d->n_allocs;
    const double vs[] = {238.4, 232.1, 226.7, 214.0};
    for (int f = 0; f < 4; f++) {
        double u = 347.2 - 3.1 * f, v = vs[f];
        rn_img im = rn_new(WW, HH, 30);
        for (int y = 0; y < 190; y++)
            for (int x = 0; x < WW; x++)
                im.px[y * WW + x] = 187;
        sticker(&im, u, v, 35, 187);
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, WW, HH, WW, 8};
        track_blob b[32];
        int nb;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) == 0);
        double dist;
        int i = nearest(b, nb, u, v, &dist);
        if (v - 35 > 193) { /* clear of the wall by 3 px or more: found, unbiased (the
                               flat disc's centroid, as for the ball wider than a tile) */
            ASSERT(i >= 0 && dist < 0.1, "frame %d: ball %.1f px below the wall: nearest blob %.3f px away", f,
                   v - 35 - 190, dist);
        } else { /* within 3 px of the wall or touching it: nothing near it, or its centre */
            ASSERT(i < 0 || dist > 35 || dist < 0.5, "frame %d: ball cut by the wall reported %.3f px off", f, dist);
        }
    }
    ASSERT_EQ_INT((int)d->n_allocs, (int)allocs); /* nothing allocated per frame */
    track_detector_free(d);
}

TEST(test_a_ball_below_a_textured_wall_is_the_only_blob)
{
    /* a light ball (64 px, level 200) over a black floor below a dark wall textured with
     * bumps of the ball's size 10-16 levels high (random scene 5137): the binned planes
     * learn their own threshold from their own blobs, and kept eight texture patches a
     * frame beside the ball, one of which the one-marker labelling took. A blob a binned
     * plane adds must stand half the full-resolution markers' height off its background */
    enum { WW = 640, HH = 480 };
    static uint8_t buf[WW * HH];
    rn_rng rng = {5137};
    track_detector *d = track_detector_alloc(WW, HH, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    d->n_markers = 1;
    track_detector_set_marker_size(d, 64, 4);
    rn_img wall = rn_new(WW, HH, 8);
    for (int y = 0; y < 150; y++)
        for (int x = 0; x < WW; x++)
            wall.px[y * WW + x] = 40;
    rn_rng tex = {51370};
    for (int k = 0; k < 6; k++) /* bumps of 1,000-2,500 px, apart, inside the wall */
        rn_gauss_spot(&wall, 60 + 100 * k + 10 * rn_uniform(&tex), 60 + 30 * rn_uniform(&tex), 16 + 6 * rn_uniform(&tex),
                      10 + 5 * rn_uniform(&tex), 1);
    for (int y = 150; y < HH; y++) /* the bumps' tails off the wall's edge */
        for (int x = 0; x < WW; x++)
            wall.px[y * WW + x] = 8;
    long allocs = 0;
    for (int f = 0; f < 6; f++) {
        double u = 430.6 - 1.3 * f, v = 260.7 + 4.2 * f;
        rn_img im = rn_new(WW, HH, 0);
        for (int i = 0; i < WW * HH; i++)
            im.px[i] = wall.px[i];
        sticker(&im, u, v, 32, 200);
        rn_to_u8(&im, 1.2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, WW, HH, WW, 8};
        track_blob b[32];
        int nb;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) == 0);
        if (f == 0)
            allocs = d->n_allocs;
        double dist;
        int i = nearest(b, nb, u, v, &dist);
        /* 0.1 px: the flat disc's centroid at this noise (the wall test above) */
        ASSERT(i >= 0 && dist < 0.1, "frame %d: nearest blob %.3f px from the ball", f, dist);
        for (int j = 0; j < nb; j++)
            ASSERT(j == i, "frame %d: a blob at (%.1f, %.1f), %.0f px, %.1f levels high, besides the ball", f, b[j].u,
                   b[j].v, b[j].area, b[j].peak - b[j].background);
    }
    ASSERT_EQ_INT((int)d->n_allocs, (int)allocs); /* nothing allocated per frame */
    rn_free(&wall);
    track_detector_free(d);
}
