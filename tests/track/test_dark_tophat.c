/* test_dark_tophat.c: dark bands on a light rod over a floor as dark as the bands
 * (issue #18, random scenes 1053 and 1162): the frame shows the bands only against the
 * rod, so the dark look reads the black top-hat (closing - I) and not max - I, and auto
 * weighs a dark blob's motion in that plane. Frames drawn here with known centres. */
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 320
#define H 240
#define NB 3

/* A rod (level 200, 8 px wide, 200 px long) centred at (cu, cv) at angle th over a
 * floor of level 12, with NB bands 8 px long at the floor's level, at -60, 0 and 60 px
 * along it: 4 x 4 supersampled coverage. The bands' centres into bu, bv. */
static void draw_rod(rn_img *im, double cu, double cv, double th, double *bu, double *bv)
{
    rn_banded_rod(im, cu, cv, th, 4, 200, 12, 12, bu, bv);
}

TEST(test_dark_look_finds_dark_bands_on_a_light_rod_over_a_floor_as_dark)
{
    /* three dark bands (12) on a light rod (200) over a floor of 12, noise 3, at four
       angles: max - I read the bands and the floor as one region and found none of
       them (scenes 1053, 1162: not one band in any frame); the closing fills each band
       from the rod on either side, so it stands 188 levels out */
    static uint8_t buf[W * H];
    rn_rng rng = {1053};
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    d->look = TRACK_LOOK_DARK;
    track_detector_set_marker_size(d, 8, d->max_streak_px);
    long allocs = d->n_allocs;
    int found = 0, extra = 0, win_found = 0, n = 0;
    double se = 0, win_se = 0;
    for (int f = 0; f < 4; f++) {
        double bu[NB], bv[NB];
        rn_img im = rn_new(W, H, 12);
        draw_rod(&im, 160 + 3.3 * f, 120 - 2.1 * f, 0.35 + 0.6 * f, bu, bv);
        rn_to_u8(&im, 3, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[32];
        int nb = 0;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 32, &nb, NULL) == 0);
        int used = 0;
        for (int k = 0; k < NB; k++, n++) {
            double best = 1e9;
            for (int i = 0; i < nb; i++)
                best = fmin(best, hypot(b[i].u - bu[k], b[i].v - bv[k]));
            if (best < 1)
                found++, used++, se += best * best;
            /* tracking: a window round the band */
            track_window win = {(int)bu[k] - 15, (int)bv[k] - 15, (int)bu[k] + 15, (int)bv[k] + 15, 0};
            track_blob bw[8];
            int nw = 0;
            ASSERT_TRUE(track_detector_detect(d, &fr, &win, 1, bw, 8, &nw, NULL) == 0);
            for (int i = 0; i < nw; i++) {
                double e = hypot(bw[i].u - bu[k], bw[i].v - bv[k]);
                if (e < 1)
                    win_found++, win_se += e * e;
            }
        }
        extra += nb - used;
    }
    ASSERT_EQ_INT((int)d->n_allocs, (int)allocs); /* nothing allocated per frame */
    track_detector_free(d);
    double rms = sqrt(se / (found ? found : 1)), win_rms = sqrt(win_se / (win_found ? win_found : 1));
    printf("    dark bands on a light rod over a dark floor: %d/%d found (RMS %.3f px), %d extra; windows %d/%d "
           "(RMS %.3f px)\n",
           found, n, rms, extra, win_found, n, win_rms);
    ASSERT_EQ_INT(found, n);
    ASSERT_EQ_INT(extra, 0);
    ASSERT_EQ_INT(win_found, n);
    /* a band is symmetric about its centre and noise 3 over ~64 pixels 188 levels deep
       moves its centroid by ~0.05 px; 0.15 px bounds the RMS with the supersampled
       edges' rounding */
    ASSERT(rms < 0.15, "RMS %.3f px (0.15)", rms);
    ASSERT(win_rms < 0.15, "windowed RMS %.3f px (0.15)", win_rms);
}

TEST(test_look_auto_takes_dark_for_dark_bands_at_the_floor_level)
{
    /* the rod moving over the floor, and two still glints (bright discs) beside it:
       bright keeps the glints (not moving: likeness 0) and the rod's pieces between the
       bands (long), dark the three bands. The bands are the floor's level in the frame,
       so the frame against the still background at their centres read "did not move"
       (likeness 0, bright chosen, scene 1162); in the dark look's plane they moved */
    enum { N = 6 };
    static uint8_t buf[N][W * H], still[W * H];
    track_frame fr[N];
    rn_rng rng = {1162};
    double bu[NB], bv[NB];
    for (int f = 0; f < N; f++) {
        rn_img im = rn_new(W, H, 12);
        draw_rod(&im, 120 + 12 * f, 110 + 3 * f, 0.3 + 0.05 * f, bu, bv);
        rn_disc(&im, 30, 30, 4, 220, 1);
        rn_disc(&im, 290, 210, 4, 220, 1);
        rn_to_u8(&im, 3, &rng, buf[f]);
        rn_free(&im);
        fr[f] = (track_frame){buf[f], W, H, W, 8};
    }
    /* the still background: the median of frames over a clip where the rod is mostly
       elsewhere is the floor and the glints */
    rn_img im = rn_new(W, H, 12);
    rn_disc(&im, 30, 30, 4, 220, 1);
    rn_disc(&im, 290, 210, 4, 220, 1);
    rn_to_u8(&im, 1, &rng, still);
    rn_free(&im);
    track_detector *like = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(like != NULL);
    track_look look = TRACK_LOOK_BRIGHT;
    char why[768];
    ASSERT_TRUE(track_look_choose(fr, N, still, W, NB, 8, like, &look, NULL, NULL, why, sizeof why, NULL) == 0);
    track_detector_free(like);
    printf("    %s\n", why);
    ASSERT_EQ_INT(look, TRACK_LOOK_DARK);
}
