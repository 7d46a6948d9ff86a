/* test_look.c: issue #18's scenes where no look fitted or the blobs were too many:
 * thousands of specks smaller than a marker (a coded black backdrop) leave the markers
 * below them measured; a large ball fainter than the threshold pixel by pixel is found
 * in the binned frame. Frames drawn by render.h with known centres. */
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 320
#define H 240

TEST(test_detect_thousands_of_specks_above_the_markers_leave_them_measured)
{
    /* 1,600 one-pixel specks (level 40 on 2) fill the top 100 rows, as H.264 leaves on
     * a near-black backdrop; three discs of radius 4 (200) lie below them. The
     * components are labelled in raster order: capped at max_blobs (256) before the area
     * test, the specks used the cap up and the markers were never measured (random
     * scenes 1017 and 1046: none of 3-4 markers in any frame). */
    static uint8_t buf[W * H];
    const double tu[3] = {60.3, 160.6, 250.2}, tv[3] = {150.4, 190.7, 170.1};
    rn_img im = rn_new(W, H, 2);
    for (int y = 2; y < 100; y += 6)
        for (int x = 2; x < W - 2; x += 3)
            im.px[y * W + x] = 40;
    for (int k = 0; k < 3; k++)
        rn_disc(&im, tu[k], tv[k], 4, 198, 1);
    rn_rng rng = {5};
    rn_to_u8(&im, 0.5, &rng, buf);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[32];
    int nb = 0;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) == 0);
    int comps = d->stats.n_components, over = d->stats.n_overflow;
    double worst = 0;
    for (int k = 0; k < 3; k++) {
        double best = 1e9;
        for (int i = 0; i < nb; i++)
            best = fmin(best, hypot(b[i].u - tu[k], b[i].v - tv[k]));
        worst = fmax(worst, best);
    }
    track_detector_free(d);
    printf("    %d components, %d blobs, %d overflow, worst marker %.3f px from truth\n", comps, nb, over, worst);
    ASSERT(comps > 1000, "%d components: the specks must outnumber the cap", comps);
    ASSERT_EQ_INT(nb, 3);
    ASSERT_EQ_INT(over, 0); /* no component of a marker's size left unmeasured */
    /* 0.05 px: issue #8's still-disc goal (noise 0.5 here) */
    ASSERT(worst < 0.05, "a marker %.3f px from its true centre (0.05)", worst);
}

TEST(test_detect_a_large_ball_fainter_than_six_sigma_a_pixel_in_the_dark_look)
{
    /* a dark ball 40 px across (135) on a plate (150) under white noise sigma 6: 15
     * levels, 2.5 sigma a pixel, below the 6-sigma threshold pixel by pixel (none found:
     * random scenes 1006, 1043, 1113, balls 30-50 px 15-20 levels off their plate);
     * binned 5 x 5 the noise is 1.2 and the ball stands 12 sigma out. Its centroid is
     * then measured at full resolution. In a window (tracking) too. */
    static uint8_t buf[W * H];
    rn_rng rng = {1043};
    const int n = 10;
    int found = 0, extra = 0, win_found = 0;
    double se = 0, win_se = 0;
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    d->look = TRACK_LOOK_DARK;
    track_detector_set_marker_size(d, 40, d->max_streak_px);
    for (int f = 0; f < n; f++) {
        double u = 120 + 80 * rn_uniform(&rng), v = 90 + 60 * rn_uniform(&rng);
        rn_img im = rn_new(W, H, 150);
        rn_disc(&im, u, v, 20, -15, 1);
        rn_to_u8(&im, 6, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[16];
        int nb = 0;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 16, &nb, NULL) == 0);
        for (int i = 0; i < nb; i++) {
            double e = hypot(b[i].u - u, b[i].v - v);
            if (e < 3)
                found++, se += e * e;
            else
                extra++;
        }
        track_window win = {(int)u - 40, (int)v - 40, (int)u + 40, (int)v + 40, 0};
        ASSERT_TRUE(track_detector_detect(d, &fr, &win, 1, b, 16, &nb, NULL) == 0);
        for (int i = 0; i < nb; i++) {
            double e = hypot(b[i].u - u, b[i].v - v);
            if (e < 3)
                win_found++, win_se += e * e;
        }
    }
    track_detector_free(d);
    double rms = sqrt(se / (found ? found : 1)), win_rms = sqrt(win_se / (win_found ? win_found : 1));
    printf("    ball 40 px, 15 levels under noise 6: %d/%d found (RMS %.3f px), %d extra; windows %d/%d (RMS %.3f px)\n",
           found, n, rms, extra, win_found, n, win_rms);
    ASSERT_EQ_INT(found, n);
    ASSERT_EQ_INT(extra, 0);
    ASSERT_EQ_INT(win_found, n);
    /* the full-resolution box centroid's noise here: 6 x sqrt(sum (x - u)^2) / mass,
       ~0.2 px a frame; 0.5 px bounds its RMS over 10 frames */
    ASSERT(rms < 0.5, "RMS %.3f px (0.5)", rms);
    ASSERT(win_rms < 0.5, "windowed RMS %.3f px (0.5)", win_rms);
}

TEST(test_look_auto_failing_says_why_each_look_kept_nothing)
{
    /* a lit square 60 px across and no marker: every look fails, and the line says what
       became of the components (the square: too large for a 6 px marker); it used to
       say only "kept no blob (up to N components)" */
    enum { FW = 160, FH = 120, N = 6 };
    static uint8_t buf[N][FW * FH];
    track_frame fr[N];
    rn_rng rng = {18};
    for (int f = 0; f < N; f++) {
        rn_img im = rn_new(FW, FH, 20);
        for (int y = 30; y < 90; y++)
            for (int x = 50; x < 110; x++)
                im.px[y * FW + x] = 200;
        rn_to_u8(&im, 2, &rng, buf[f]);
        rn_free(&im);
        fr[f] = (track_frame){buf[f], FW, FH, FW, 8};
    }
    track_look look = TRACK_LOOK_BRIGHT;
    char why[512] = "";
    icv_err err = {0};
    int rc = track_look_choose(fr, N, NULL, 0, 3, 6, NULL, &look, why, sizeof why, &err);
    printf("    %s\n", err.msg);
    ASSERT_EQ_INT(rc, ICV_ENOTFOUND);
    /* the square fails the area limits of a 6 px marker (7 to 805 px: a quarter of its
       disc, 3 discs swept 40 px), its split parts the contrast test */
    ASSERT_STR_CONTAINS(err.msg, "bright kept no blob (up to 4 components; rejected: 1 area [7, 805] px, 18 contrast)");
    ASSERT_STR_CONTAINS(err.msg, "set track.markers"); /* the fix is not cut off */
}
