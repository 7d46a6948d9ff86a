/* test_detect.c: marker detection on frames drawn by the test (render.h) whose true
 * centroids are known exactly. Targets (issue #8, "Measured"): centroid RMS <= 0.05 px
 * for still markers and <= 0.2 px for 15 px streaks at read noise 2 gray levels;
 * errors divided by the reported sigma have a spread in [0.7, 1.5]. */
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 240
#define H 160

enum { SPOT_GAUSS, SPOT_DISC };

/* Detects three still markers per frame over n frames; returns the 2D RMS error and
 * the spread (standard deviation) of error/sigma over both axes. */
static int still_study(int kind, int n, double *rms, double *spread, int *missed)
{
    static uint8_t buf[W * H];
    rn_rng rng = {42 + kind};
    track_detector *d = track_detector_alloc(W, H, NULL);
    if (!d)
        return -1;
    double se = 0, sz = 0, sz2 = 0;
    long ne = 0, nz = 0;
    *missed = 0;
    for (int f = 0; f < n; f++) {
        rn_img im = rn_new(W, H, 20);
        double tu[3], tv[3];
        for (int k = 0; k < 3; k++) {
            tu[k] = 40 + 70 * k + 10 * rn_uniform(&rng);
            tv[k] = 50 + 60 * rn_uniform(&rng);
            if (kind == SPOT_GAUSS)
                rn_gauss_spot(&im, tu[k], tv[k], 1.5, 200, 1);
            else
                rn_disc(&im, tu[k], tv[k], 4, 180, 1);
        }
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[16];
        int nb;
        if (track_detector_detect(d, &fr, NULL, 0, b, 16, &nb, NULL) != 0)
            break;
        for (int k = 0; k < 3; k++) {
            int best = -1;
            double bd = 1e9;
            for (int i = 0; i < nb; i++) {
                double dd = hypot(b[i].u - tu[k], b[i].v - tv[k]);
                if (dd < bd) {
                    bd = dd;
                    best = i;
                }
            }
            if (best < 0 || bd > 2) {
                (*missed)++;
                continue;
            }
            double eu = b[best].u - tu[k], ev = b[best].v - tv[k];
            se += eu * eu + ev * ev;
            ne++;
            sz += eu / b[best].sigma + ev / b[best].sigma;
            sz2 += (eu * eu + ev * ev) / (b[best].sigma * b[best].sigma);
            nz += 2;
        }
    }
    track_detector_free(d);
    *rms = sqrt(se / (ne ? ne : 1));
    double m = sz / nz;
    *spread = sqrt(sz2 / nz - m * m);
    return 0;
}

TEST(test_still_gaussian_markers_centroid_rms_below_0_05_px)
{
    double rms, spread;
    int missed;
    /* 60 frames (180 markers) estimate the RMS to ~5%; make accuracy runs 1000 */
    ASSERT_TRUE(still_study(SPOT_GAUSS, th_accuracy() ? 1000 : 60, &rms, &spread, &missed) == 0);
    printf("    gaussian spots: RMS %.4f px, error/sigma spread %.2f, missed %d\n", rms, spread, missed);
    ASSERT_EQ_INT(missed, 0);
    ASSERT_TRUE(rms <= 0.05); /* issue #8 target for markers moving < 1 px per exposure */
    /* issue #8: reported uncertainties are honest when error/sigma spreads in [0.7, 1.5] */
    ASSERT_TRUE(spread >= 0.7 && spread <= 1.5);
}

TEST(test_still_disc_markers_centroid_rms_below_0_05_px)
{
    double rms, spread;
    int missed;
    ASSERT_TRUE(still_study(SPOT_DISC, th_accuracy() ? 1000 : 60, &rms, &spread, &missed) == 0);
    printf("    disc stickers: RMS %.4f px, error/sigma spread %.2f, missed %d\n", rms, spread, missed);
    ASSERT_EQ_INT(missed, 0);
    ASSERT_TRUE(rms <= 0.05); /* issue #8 target */
    ASSERT_TRUE(spread >= 0.7 && spread <= 1.5); /* issue #8 honesty band */
}

TEST(test_streak_centroid_is_mid_exposure_position_within_0_2_px)
{
    static uint8_t buf[W * H];
    rn_rng rng = {7};
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    double se = 0, sz2 = 0;
    int n = 0, flagged = 0;
    int nframes = th_accuracy() ? 300 : 30;
    for (int f = 0; f < nframes; f++) {
        double ang = 2 * M_PI * rn_uniform(&rng), len = 15;
        double uc = 100 + 20 * rn_uniform(&rng), vc = 70 + 20 * rn_uniform(&rng);
        double du = 0.5 * len * cos(ang), dv = 0.5 * len * sin(ang);
        rn_img im = rn_new(W, H, 20);
        rn_disc_streak(&im, uc - du, vc - dv, uc + du, vc + dv, 4, 180);
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[8];
        int nb;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 8, &nb, NULL) == 0);
        ASSERT_EQ_INT(nb, 1);
        double eu = b[0].u - uc, ev = b[0].v - vc;
        se += eu * eu + ev * ev;
        sz2 += (eu * eu + ev * ev) / (b[0].sigma * b[0].sigma);
        n++;
        flagged += (b[0].flags & TRACK_FLAG_BLURRED) != 0;
        /* the streak length from the moments: 15 px within 1 px (a disc's moment model) */
        ASSERT_NEAR(b[0].streak_px, len, 1.0);
        /* its direction, modulo pi, within 0.05 rad (a 15 px streak 8 px wide) */
        ASSERT_NEAR(fabs(sin(b[0].angle - ang)), 0, 0.05);
    }
    track_detector_free(d);
    double rms = sqrt(se / n);
    printf("    15 px streaks: RMS %.4f px to mid-exposure, error/sigma RMS %.2f\n", rms, sqrt(sz2 / (2 * n)));
    ASSERT_EQ_INT(flagged, n);
    ASSERT_TRUE(rms <= 0.2); /* issue #8 target for streaks up to 15 px */
    double zr = sqrt(sz2 / (2 * n));
    ASSERT_TRUE(zr >= 0.7 && zr <= 1.5); /* issue #8 honesty band for error/sigma */
}

TEST(test_16_bit_frames_give_the_same_centroids_as_8_bit)
{
    static uint8_t b8[W * H];
    static uint16_t b16[W * H];
    rn_rng rng = {3};
    rn_img im = rn_new(W, H, 20);
    rn_gauss_spot(&im, 120.3, 80.7, 1.5, 200, 1);
    rn_to_u8(&im, 0, &rng, b8);
    for (int i = 0; i < W * H; i++)
        im.px[i] *= 256; /* the same scene on a 16-bit scale */
    rn_to_u16(&im, 0, &rng, b16);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_blob a, b;
    int na, nb;
    track_frame f8 = {b8, W, H, W, 8}, f16 = {b16, W, H, 2 * W, 16};
    ASSERT_TRUE(track_detector_detect(d, &f8, NULL, 0, &a, 1, &na, NULL) == 0);
    track_detector_reset(d);
    d->saturation_level = 65535;
    ASSERT_TRUE(track_detector_detect(d, &f16, NULL, 0, &b, 1, &nb, NULL) == 0);
    track_detector_free(d);
    ASSERT_EQ_INT(na, 1);
    ASSERT_EQ_INT(nb, 1);
    /* noiseless: only the 8-bit rounding differs (1/2 level of 200), < 0.01 px */
    ASSERT_NEAR(a.u, 120.3, 0.01);
    ASSERT_NEAR(b.u, 120.3, 0.01);
    ASSERT_NEAR(b.v, 80.7, 0.01);
}

TEST(test_windowed_centroid_weighs_down_a_far_artefact_and_leaves_discs_and_streaks_alone)
{
    static uint16_t buf[W * H];
    rn_rng rng = {5};
    rn_img im = rn_new(W, H, 20 * 256);
    rn_gauss_spot(&im, 120.3, 80.7, 1.5, 200 * 256, 1);
    /* a coding artefact: +6 gray levels on a 3x3 block 4 px off the centre, inside the
       centroid box (threshold radius ~2.5 px + margin 2) */
    for (int y = 84; y <= 86; y++)
        for (int x = 124; x <= 126; x++)
            im.px[y * W + x] += 6 * 256;
    rn_disc(&im, 60.2, 40.6, 6, 180 * 256, 1);                   /* a flat 12 px disc */
    rn_disc_streak(&im, 170.0, 120.0, 185.0, 125.0, 4, 180 * 256); /* a 15.8 px streak */
    rn_to_u16(&im, 0, &rng, buf);
    rn_free(&im);
    track_frame fr = {buf, W, H, 2 * W, 16};
    track_blob a[8], b[8];
    int na = 0, nb = 0;
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->saturation_level = 65535;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, a, 8, &na, NULL) == 0);
    track_detector_reset(d);
    d->saturation_level = 65535;
    d->centroid_window = 0;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 8, &nb, NULL) == 0);
    track_detector_free(d);
    ASSERT_EQ_INT(na, 3);
    ASSERT_EQ_INT(nb, 3);
    int spot = -1, disc = -1, streak = -1;
    for (int i = 0; i < 3; i++) {
        if (fabs(a[i].u - 120.3) < 2)
            spot = i;
        else if (fabs(a[i].u - 60.2) < 2)
            disc = i;
        else
            streak = i;
    }
    ASSERT_TRUE(spot >= 0 && disc >= 0 && streak >= 0);
    double ew = hypot(a[spot].u - 120.3, a[spot].v - 80.7), eb = hypot(b[spot].u - 120.3, b[spot].v - 80.7);
    printf("    spot with a far artefact: windowed centroid off by %.4f px, box centroid by %.4f px\n", ew, eb);
    /* the artefact's 54 gray-level pixels at ~5 px weigh ~1% of the spot's mass in the box
       (a ~0.1 px pull); the matched window weighs them by exp(-5^2/4.5) */
    ASSERT_TRUE(eb > 0.05);
    ASSERT_TRUE(ew < 0.01);
    /* flat discs and long streaks keep the box centroid: the same numbers either way */
    ASSERT_NEAR(a[disc].u, b[disc].u, 1e-12);
    ASSERT_NEAR(a[disc].v, b[disc].v, 1e-12);
    ASSERT_NEAR(a[streak].u, b[streak].u, 1e-12);
    ASSERT_NEAR(a[streak].v, b[streak].v, 1e-12);
}

TEST(test_markers_are_found_in_a_flash_frame_near_saturation)
{
    static uint8_t buf[W * H];
    rn_rng rng = {8};
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_blob b[8];
    int nb = 0;
    /* five normal frames (the markers' peak above the background, ~180, is learnt), then
       the flash: the background at 228, the markers clipped at 255 (sample 02's flash
       frame); a threshold at a fraction of the learnt peak would sit above 255 */
    for (int f = 0; f < 6; f++) {
        rn_img im = rn_new(W, H, f < 5 ? 20 : 228);
        rn_disc(&im, 60.3, 50.6, 5, 200, 1);
        rn_disc(&im, 160.7, 90.2, 5, 200, 1);
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 8, &nb, NULL) == 0);
        ASSERT_EQ_INT(nb, 2);
    }
    track_detector_free(d);
    for (int i = 0; i < 2; i++) {
        double e = fmin(hypot(b[i].u - 60.3, b[i].v - 50.6), hypot(b[i].u - 160.7, b[i].v - 90.2));
        printf("    flash frame: marker %d off by %.3f px (sigma %.3f)\n", i, e, b[i].sigma);
        /* a clipped disc is still symmetric; at a contrast of 27 gray levels over noise 2
           its centroid is good to a few sigma (reported ~0.05 px per axis): 0.25 px is 5 */
        ASSERT(e < 0.25, "flash-frame marker %d off by %.3f px", i, e);
        ASSERT_TRUE(b[i].flags & TRACK_FLAG_SATURATED);
    }
}

TEST(test_window_detection_matches_full_scan)
{
    static uint8_t buf[W * H];
    rn_rng rng = {11};
    rn_img im = rn_new(W, H, 20);
    rn_gauss_spot(&im, 60.25, 40.5, 1.5, 200, 1);
    rn_gauss_spot(&im, 180.75, 120.1, 1.5, 200, 1);
    rn_to_u8(&im, 2, &rng, buf);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->threshold_mode = TRACK_THRESHOLD_FIXED; /* the same threshold in both: the same pixels */
    d->threshold_level = 60;
    track_frame fr = {buf, W, H, W, 8};
    track_blob full[4], win[4];
    int nf, nw;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, full, 4, &nf, NULL) == 0);
    track_window ws[1] = {{45, 25, 75, 55, 0}};
    ASSERT_TRUE(track_detector_detect(d, &fr, ws, 1, win, 4, &nw, NULL) == 0);
    track_detector_free(d);
    ASSERT_EQ_INT(nf, 2);
    ASSERT_EQ_INT(nw, 1);
    /* the same pixels and background ring: identical to rounding */
    ASSERT_NEAR(win[0].u, full[0].u, 1e-9);
    ASSERT_NEAR(win[0].v, full[0].v, 1e-9);
}

TEST(test_still_bright_object_is_learnt_and_ignored)
{
    static uint8_t buf[W * H];
    rn_rng rng = {5};
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 10;
    int n_last = -1, static_last = -1;
    double u_last = 0;
    for (int f = 0; f < 15; f++) {
        rn_img im = rn_new(W, H, 20);
        rn_disc(&im, 50.2, 50.7, 5, 150, 1);            /* a glint that never moves */
        rn_gauss_spot(&im, 100 + 3 * f, 80, 1.5, 200, 1); /* a marker moving 3 px/frame */
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[4];
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 4, &n_last, NULL) == 0);
        static_last = d->stats.n_rejected_static;
        u_last = n_last > 0 ? b[0].u : 0;
        if (f < 9)
            ASSERT_EQ_INT(n_last, 2); /* not yet learnt */
    }
    track_detector_free(d);
    ASSERT_EQ_INT(n_last, 1);
    ASSERT_EQ_INT(static_last, 1);
    ASSERT_NEAR(u_last, 100 + 3 * 14, 0.1); /* the moving marker is the one kept (0.1: noise) */
}

TEST(test_area_filter_and_saturation_are_reported)
{
    static uint8_t buf[W * H];
    rn_rng rng = {9};
    rn_img im = rn_new(W, H, 20);
    rn_disc(&im, 40, 40, 0.5, 200, 1);    /* 1 px: below min_area_px */
    rn_disc(&im, 150, 80, 30, 200, 1);    /* ~2800 px: above max_area_px */
    rn_disc(&im, 100.4, 120.6, 4, 400, 1); /* clipped at 255: saturated */
    rn_to_u8(&im, 2, &rng, buf);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[4];
    int nb;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 4, &nb, NULL) == 0);
    track_detect_stats st = d->stats;
    track_detector_free(d);
    ASSERT_EQ_INT(nb, 1);
    /* the 1 px disc by its area; the large disc by its area when it comes out whole, or
       as tile-sized pieces that ring a brighter inside (contrast) */
    ASSERT_EQ_INT(st.n_rejected_area + st.n_rejected_contrast, 2);
    ASSERT_TRUE(st.n_rejected_area >= 1);
    ASSERT_TRUE(b[0].flags & TRACK_FLAG_SATURATED);
    ASSERT_TRUE(b[0].n_saturated > 30); /* most of the ~50 px disc is clipped */
    ASSERT_NEAR(b[0].u, 100.4, 0.1);    /* symmetric clipping keeps the centroid (0.1: noise) */
}

TEST(test_detector_rejects_a_frame_larger_than_its_workspace)
{
    static uint8_t buf[64 * 64];
    track_detector *d = track_detector_alloc(32, 32, NULL);
    ASSERT_TRUE(d != NULL);
    track_frame fr = {buf, 64, 64, 64, 8};
    track_blob b[1];
    int nb;
    icv_err err = {0};
    int rc = track_detector_detect(d, &fr, NULL, 0, b, 1, &nb, &err);
    track_detector_free(d);
    ASSERT_EQ_INT(rc, ICV_EINVAL);
    ASSERT_STR_CONTAINS(err.msg, "64x64");
}

TEST(test_roi_and_mask_limit_where_markers_are_found)
{
    static uint8_t buf[W * H], mask[W * H];
    rn_rng rng = {21};
    rn_img im = rn_new(W, H, 20);
    rn_gauss_spot(&im, 40.3, 40.6, 1.5, 200, 1);   /* outside the roi */
    rn_gauss_spot(&im, 120.2, 80.4, 1.5, 200, 1);  /* inside, kept */
    rn_gauss_spot(&im, 160.7, 100.1, 1.5, 200, 1); /* inside, masked out */
    rn_to_u8(&im, 2, &rng, buf);
    rn_free(&im);
    memset(mask, 1, sizeof mask);
    for (int y = 90; y < 110; y++)
        for (int x = 150; x < 170; x++)
            mask[y * W + x] = 0;
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->roi[0] = 80;
    d->roi[1] = 60;
    d->roi[2] = 120;
    d->roi[3] = 80;
    d->mask = mask;
    d->mask_stride = W;
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[4];
    int nb;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 4, &nb, NULL) == 0);
    int masked = d->stats.n_rejected_mask;
    track_detector_free(d);
    ASSERT_EQ_INT(nb, 1);
    ASSERT_EQ_INT(masked, 1);
    ASSERT_NEAR(b[0].u, 120.2, 0.1); /* 0.1 px: a few sigma of the ~0.02 px noise */
}

TEST(test_debug_switch_writes_the_threshold_image)
{
    static uint8_t buf[W * H];
    rn_rng rng = {4};
    rn_img im = rn_new(W, H, 20);
    rn_gauss_spot(&im, 100, 100, 1.5, 200, 1);
    rn_to_u8(&im, 2, &rng, buf);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->debug = 1;
    d->debug_dir = th_tmpdir();
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[4];
    int nb;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 4, &nb, NULL) == 0);
    track_detector_free(d);
    const char *pgm = th_read_file(th_tmp("track_threshold_000000.pgm"));
    ASSERT_TRUE(pgm != NULL);
    ASSERT_TRUE(strncmp(pgm, "P5\n240 160\n255\n", 15) == 0);
}

TEST(test_expected_blur_relaxes_circularity_along_the_streak)
{
    /* a 15 px streak of an 8 px disc has minor^2/major^2 = 4 / 22.75 = 0.18; with
     * min_circularity 0.5 and no streaks allowed in full scans it is rejected there, and
     * accepted in a window that expects 15 px of blur */
    static uint8_t buf[W * H];
    rn_rng rng = {13};
    rn_img im = rn_new(W, H, 20);
    rn_disc_streak(&im, 92.5, 80.2, 107.5, 80.2, 4, 180);
    rn_to_u8(&im, 2, &rng, buf);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->min_circularity = 0.5;
    d->max_streak_px = 5;
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[4];
    int n_full, n_win;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 4, &n_full, NULL) == 0);
    int rejected = d->stats.n_rejected_shape;
    track_window win = {70, 60, 130, 100, 15};
    ASSERT_TRUE(track_detector_detect(d, &fr, &win, 1, b, 4, &n_win, NULL) == 0);
    track_detector_free(d);
    ASSERT_EQ_INT(n_full, 0);
    ASSERT_EQ_INT(rejected, 1);
    ASSERT_EQ_INT(n_win, 1);
    ASSERT_NEAR(b[0].u, 100, 0.1); /* mid-exposure; 0.1 px: several sigma of noise */
}

TEST(test_marker_size_sets_area_limits_and_description_explains_a_frame)
{
    /* pinhole: 12 mm at 0.9 m through f = 1100 px is 14.67 px */
    double dpx = track_marker_diameter_px(0.012, 1100, 0.9);
    ASSERT_NEAR(dpx, 1100 * 0.012 / 0.9, 1e-12);
    static uint8_t buf[W * H];
    rn_rng rng = {17};
    rn_img im = rn_new(W, H, 20);
    rn_disc(&im, 60.2, 60.4, 2, 180, 1);   /* 4 px across: too small for a 14.7 px marker */
    rn_disc(&im, 150.6, 90.3, 7.3, 180, 1); /* the marker, 180 above the background of 20 */
    rn_to_u8(&im, 2, &rng, buf);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_detector_set_marker_size(d, dpx, 20);
    ASSERT_NEAR(d->min_area_px, 0.25 * M_PI * dpx * dpx / 4, 1e-9);
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[4];
    int nb;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 4, &nb, NULL) == 0);
    char line[512];
    track_detector_describe(d, line, sizeof line);
    track_detector_free(d);
    ASSERT_EQ_INT(nb, 1);
    ASSERT_NEAR(b[0].u, 150.6, 0.1); /* 0.1 px: several sigma of noise */
    ASSERT_STR_CONTAINS(line, "full scan, threshold");
    ASSERT_STR_CONTAINS(line, "2 components, 1 kept; rejected: 1 area");
    const char *pk = strstr(line, "brightest blob peak ");
    ASSERT_TRUE(pk != NULL);
    ASSERT_NEAR(atof(pk + 20), 200, 8); /* peak 200 over 20... plus noise: 4 sigma of 2 levels */
}

TEST(test_full_scan_estimates_background_and_noise)
{
    static uint8_t buf[W * H];
    rn_rng rng = {23};
    rn_img im = rn_new(W, H, 20.3);
    rn_to_u8(&im, 2, &rng, buf);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[4];
    int nb;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 4, &nb, NULL) == 0);
    track_detect_stats st = d->stats;
    track_detector_free(d);
    ASSERT_EQ_INT(nb, 0);
    /* 2400 samples: the median's standard error is 1.25 x 2 / sqrt(2400) = 0.05 level */
    ASSERT_NEAR(st.background, 20.3, 0.15);
    /* the MAD's is ~1.7x the SD's, 2.5% of 2: 0.2 is 4 standard errors; the rounding
     * adds 1/12 to the variance (2.02) */
    ASSERT_NEAR(st.noise, 2.02, 0.2);
}

TEST(test_padded_rows_and_a_sub_image_are_read_through_the_stride)
{
    /* the frame is the 200x120 part at (20, 10) of a 256-wide buffer */
    static uint8_t big[256 * 160];
    rn_rng rng = {29};
    rn_img im = rn_new(256, 160, 20);
    rn_gauss_spot(&im, 20 + 90.4, 10 + 50.8, 1.5, 200, 1);
    rn_to_u8(&im, 2, &rng, big);
    rn_free(&im);
    track_detector *d = track_detector_alloc(200, 120, NULL);
    ASSERT_TRUE(d != NULL);
    track_frame fr = {big + 10 * 256 + 20, 200, 120, 256, 8};
    track_blob b[2];
    int nb;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 2, &nb, NULL) == 0);
    track_detector_free(d);
    ASSERT_EQ_INT(nb, 1);
    ASSERT_NEAR(b[0].u, 90.4, 0.1); /* in the frame's own pixels; 0.1 px: several sigma */
    ASSERT_NEAR(b[0].v, 50.8, 0.1);
}

TEST(test_accelerating_streak_centroid_is_mid_exposure_plus_a_T2_over_24)
{
    /* x(t) = xm + v t + a t^2 / 2 over t in [-T/2, T/2] (T = 1): the time average is
     * xm + a / 24. With v = 14 px/T and a = 24 px/T^2 the streak is ~14 px long and the
     * centroid sits 1 px beyond the mid-exposure position. */
    static uint8_t buf[W * H];
    rn_rng rng = {41};
    const double xm = 110.3, ym = 80.6, v = 14, a = 24;
    rn_img im = rn_new(W, H, 20);
    int n = 240;
    for (int k = 0; k < n; k++) {
        double t = (k + 0.5) / n - 0.5;
        rn_disc(&im, xm + v * t + 0.5 * a * t * t, ym, 4, 180, 1.0 / n);
    }
    rn_to_u8(&im, 2, &rng, buf);
    rn_free(&im);
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[2];
    int nb;
    ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 2, &nb, NULL) == 0);
    track_detector_free(d);
    ASSERT_EQ_INT(nb, 1);
    ASSERT_NEAR(b[0].u, xm + a / 24, 0.1); /* 0.1 px: ~3 sigma of a streak centroid (0.03 px) */
    ASSERT_NEAR(b[0].v, ym, 0.1);
}
