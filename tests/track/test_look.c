/* test_look.c: issue #18's scenes where no look fitted or the blobs were too many:
 * thousands of specks smaller than a marker (a coded black backdrop) leave the markers
 * below them measured; a large ball fainter than the threshold pixel by pixel is found
 * in the binned frame. Frames drawn by render.h with known centres. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "track/detect_internal.h"
#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 320
#define H 240










/* the auto tests weigh bright read as the white top-hat too, as the pipeline does */
static int weigh_tophat;

/* blobs detected in buf (a full scan, or the n_win windows win): those within 3 px of
   (u, v) add 1 to *found and their squared distance (px^2) to *se, others 1 to *extra
   (may be NULL) */
static void detect_near(track_detector *d, uint8_t *buf, const track_window *win, int n_win, double u, double v,
                        int *found, double *se, int *extra)
{
    track_frame fr = {buf, W, H, W, 8};
    track_blob b[16];
    int nb = 0;
    ASSERT_TRUE(track_detector_detect(d, &fr, win, n_win, b, 16, &nb, NULL) == 0);
    for (int i = 0; i < nb; i++) {
        double e = hypot(b[i].u - u, b[i].v - v);
        if (e < 3)
            (*found)++, *se += e * e;
        else if (extra)
            (*extra)++;
    }
}

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
        detect_near(d, buf, NULL, 0, u, v, &found, &se, &extra);
        track_window win = {(int)u - 40, (int)v - 40, (int)u + 40, (int)v + 40, 0};
        detect_near(d, buf, &win, 1, u, v, &win_found, &win_se, NULL);
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
    int rc = track_look_choose(fr, N, NULL, 0, 3, 6, NULL, &look, &weigh_tophat, NULL, why, sizeof why, &err);
    printf("    %s\n", err.msg);
    ASSERT_EQ_INT(rc, ICV_ENOTFOUND);
    /* the square fails the area limits of a 6 px marker (7 to 805 px: a quarter of its
       disc, 3 discs swept 40 px), its split parts the contrast test */
    ASSERT_STR_CONTAINS(err.msg, "bright kept no blob (up to 4 components; rejected: 1 area [7, 805] px, 18 contrast)");
    ASSERT_STR_CONTAINS(err.msg, "set track.markers"); /* the fix is not cut off */
}

/* A light bar (200) on a mid-grey backdrop (90) with three dark bands (20), 8 px wide
 * and 10 px tall, one at the bar's left end: the bright look keeps the bar's three
 * light pieces between and after the bands, as many blobs as markers. */
static void draw_banded_bar(uint8_t *out, double x0, double y0, rn_rng *rng)
{
    rn_img im = rn_new(W, H, 90);
    for (int y = (int)y0; y < (int)y0 + 10; y++)
        for (int x = (int)x0; x < (int)x0 + 100; x++) {
            int dx = x - (int)x0;
            int band = dx < 8 || (dx >= 36 && dx < 44) || (dx >= 72 && dx < 80);
            if (x >= 0 && x < W && y >= 0 && y < H)
                im.px[y * W + x] = band ? 20 : 200;
        }
    rn_to_u8(&im, 2, rng, out);
    rn_free(&im);
}

enum { BAR_FRAMES = 6, BAR_SPREAD = 9 };

/* BAR_FRAMES frames of a bar drawn by draw, moving 4 px a frame, into fr, and the still
 * background learnt from BAR_SPREAD frames spread over the clip (the bar elsewhere)
 * into bg. Returns track_motion_background's status. */
static int moving_bar(void (*draw)(uint8_t *, double, double, rn_rng *), uint64_t seed, track_frame *fr, uint8_t *bg)
{
    static uint8_t frames[BAR_FRAMES][W * H], spread[BAR_SPREAD][W * H];
    track_frame sf[BAR_SPREAD];
    rn_rng rng = {seed};
    for (int f = 0; f < BAR_FRAMES; f++) {
        draw(frames[f], 60 + 4 * f, 100 + 2 * f, &rng);
        fr[f] = (track_frame){frames[f], W, H, W, 8};
    }
    for (int f = 0; f < BAR_SPREAD; f++) {
        draw(spread[f], 10 + 24 * f, 20 + 22 * f, &rng);
        sf[f] = (track_frame){spread[f], W, H, W, 8};
    }
    return track_motion_background(sf, BAR_SPREAD, bg, W, NULL);
}

/* auto's look for three markers 9 px across on moving_bar's frames and background,
 * printed; the status (or -1 when the background failed) */
static int look_on_moving_bar(void (*draw)(uint8_t *, double, double, rn_rng *), uint64_t seed, track_frame *fr,
                              uint8_t *bg, track_look *look, char *why, size_t n_why)
{
    icv_err err = {0};
    if (moving_bar(draw, seed, fr, bg) != 0)
        return -1;
    int rc = track_look_choose(fr, BAR_FRAMES, bg, W, 3, 9, NULL, look, &weigh_tophat, NULL, why, n_why, &err);
    printf("    %s\n", rc ? err.msg : why);
    return rc;
}

TEST(test_windows_find_a_faint_large_ball_beside_a_shaded_backdrop)
{
    /* a dark ball 40 px across (85) on a flat plate (100, the right half) beside a
     * backdrop shaded 25 levels either way over 200 px (the left half), noise 5: the
     * binned frame's noise, the spread about its tiles' levels, read the shading (~9
     * levels), and the windows' threshold six of those above their level missed the
     * ball, 15 levels deep (random scenes 1062 and 1183: found in full scans, lost in
     * every window). Its top-hat, the shading taken out, reads the noise (~1). */
    static uint8_t buf[W * H];
    rn_rng rng = {1183};
    const int n = 10;
    int found = 0;
    double se = 0;
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_detector_set_scene_markers(d);
    d->static_frames = 0;
    d->n_markers = 1;
    d->look = TRACK_LOOK_DARK;
    track_detector_set_marker_size(d, 40, d->max_streak_px);
    for (int f = 0; f <= n; f++) {
        double u = 220 + 3 * f, v = 100 + 4 * f;
        rn_img im = rn_new(W, H, 100);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W / 2; x++)
                im.px[y * W + x] = 100 + 25 * sin(2 * M_PI * x / 200) * cos(2 * M_PI * y / 200);
        rn_disc(&im, u, v, 20, -15, 1);
        rn_to_u8(&im, 5, &rng, buf);
        rn_free(&im);
        /* frame 0 a full scan (the noise is measured there), then windows round the ball */
        track_window win = {(int)u - 40, (int)v - 40, (int)u + 40, (int)v + 40, 0};
        int found0 = 0;
        double se0 = 0;
        detect_near(d, buf, f ? &win : NULL, f ? 1 : 0, u, v, f ? &found : &found0, f ? &se : &se0, NULL);
    }
    track_detector_free(d);
    double rms = sqrt(se / (found ? found : 1));
    printf("    ball 40 px 15 levels deep beside a shaded backdrop: windows found it %d/%d (RMS %.3f px)\n", found, n,
           rms);
    ASSERT_EQ_INT(found, n);
    /* as the full scans' test above: the box centroid's noise, ~0.2 px a frame */
    ASSERT(rms < 0.5, "RMS %.3f px (0.5)", rms);
}

TEST(test_binned_peak_is_learnt_from_the_blobs_kept_not_masked_glares)
{
    /* a ball 32 px across 14 levels over its plate (100) under noise 6, found only
     * binned, and two still glares 150 high masked out (cameras[].mask). The binned
     * frame's detector keeps the glares (the mask is tested at full resolution after
     * it) and learnt its peak from them: its threshold, half of 150, lost the ball from
     * the second frame on. The peak is learnt from the blobs the binned pass keeps (a
     * plate's corners, cut from the plate, in random scene 1062). */
    static uint8_t buf[W * H], mask[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            mask[y * W + x] = !((x >= 20 && x < 60 && y >= 20 && y < 60) || (x >= 260 && x < 300 && y >= 20 && y < 60));
    rn_rng rng = {1006};
    const int n = 10;
    int found = 0, extra = 0;
    double se = 0;
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    track_detector_set_scene_markers(d);
    d->static_frames = 0;
    d->n_markers = 1;
    d->mask = mask;
    d->mask_stride = W;
    track_detector_set_marker_size(d, 32, d->max_streak_px);
    for (int f = 0; f < n; f++) {
        double u = 120 + 8 * f, v = 140 + 3 * f;
        rn_img im = rn_new(W, H, 100);
        rn_disc(&im, 40.3, 40.6, 10, 150, 1);
        rn_disc(&im, 280.2, 39.7, 10, 150, 1);
        rn_disc(&im, u, v, 16, 14, 1);
        rn_to_u8(&im, 6, &rng, buf);
        rn_free(&im);
        detect_near(d, buf, NULL, 0, u, v, &found, &se, &extra);
    }
    track_detector_free(d);
    double rms = sqrt(se / (found ? found : 1));
    printf("    ball 32 px 14 levels high beside two masked glares: %d/%d full scans (RMS %.3f px), %d extra\n", found,
           n, rms, extra);
    ASSERT_EQ_INT(found, n);
    ASSERT_EQ_INT(extra, 0);
    /* the box centroid's noise on a 32 px disc under noise 6, ~0.25 px a frame */
    ASSERT(rms < 0.5, "RMS %.3f px (0.5)", rms);
}

/* 1: (x, y) inside the triangle a, b, c */
static int in_triangle(double x, double y, const double a[2], const double b[2], const double c[2])
{
    double d1 = (x - b[0]) * (a[1] - b[1]) - (a[0] - b[0]) * (y - b[1]);
    double d2 = (x - c[0]) * (b[1] - c[1]) - (b[0] - c[0]) * (y - c[1]);
    double d3 = (x - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (y - a[1]);
    return !((d1 < 0 || d2 < 0 || d3 < 0) && (d1 > 0 || d2 > 0 || d3 > 0));
}

TEST(test_a_dark_ball_on_a_dim_plate_is_found_beside_the_plates_corners)
{
    /* a dark ball 37 px across (5) on a dim plate (20) turned 15 degrees in front of a
     * light wall (150), noise 5 (random scene 1062: 8 on 33; held-out scenes alike). In
     * the dark look the ball is 15 levels deep, found only in the binned frame's top-hat,
     * and so are the plate's corners, 130 levels high: the octagon does not reach their
     * tips. Their peak, the top-hat's plus the opening at their centre (the plate's),
     * lay above the data, so the half height was above the plate and the corners were
     * never seen as cut from it; kept, they held the binned plane's peak (one marker: the
     * median blob) and its threshold above the ball from the second frame on (2/10). */
    static uint8_t buf[W * H];
    rn_rng rng = {1062};
    const double cx = 150, cy = 150, hw = 110, hh = 60, ca = cos(0.26), sa = sin(0.26);
    double q[4][2]; /* the plate's corners: centre + R (+-hw, +-hh) */
    for (int k = 0; k < 4; k++) {
        double px = (k == 0 || k == 3 ? -hw : hw), py = (k < 2 ? -hh : hh);
        q[k][0] = cx + ca * px - sa * py, q[k][1] = cy + sa * px + ca * py;
    }
    const int n = 10;
    int found = 0, extra = 0;
    double se = 0;
    track_detector *det = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(det != NULL);
    track_detector_set_scene_markers(det);
    det->static_frames = 0;
    det->n_markers = 1;
    det->look = TRACK_LOOK_DARK;
    track_detector_set_marker_size(det, 37, det->max_streak_px);
    for (int f = 0; f < n; f++) {
        double u = 150 + 2 * f, v = 150 + 1.5 * f;
        rn_img im = rn_new(W, H, 150);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (in_triangle(x, y, q[0], q[1], q[2]) || in_triangle(x, y, q[0], q[2], q[3]))
                    im.px[y * W + x] = 20;
        rn_disc(&im, u, v, 18.5, -15, 1);
        rn_to_u8(&im, 5, &rng, buf);
        rn_free(&im);
        detect_near(det, buf, NULL, 0, u, v, &found, &se, &extra);
    }
    track_detector_free(det);
    double rms = sqrt(se / (found ? found : 1));
    printf("    dark ball 37 px 15 levels deep on a dim plate with its corners in view: %d/%d full scans (RMS %.3f "
           "px), %d other blobs\n",
           found, n, rms, extra);
    ASSERT_EQ_INT(found, n);
    ASSERT_EQ_INT(extra, 0);
    /* the box centroid's noise on a 37 px disc 15 deep under noise 5, ~0.2 px a frame */
    ASSERT(rms < 0.5, "RMS %.3f px (0.5)", rms);
}

TEST(test_look_auto_picks_dark_bands_over_the_light_pieces_between_them)
{
    /* issue #18's dark bands on a light rod (random scenes 1047, 1053, 1085, 1174): the
     * bright look keeps the rod's pieces between the bands, three a frame like the
     * bands, so counting blobs cannot tell them apart and bright was kept (on a tie, and
     * by the pipeline whenever bright kept blobs). The pieces are long (30 x 10 px) and
     * four times a 9 px marker's area; the bands are round-ish and of its size. */
    enum { N = BAR_FRAMES };
    static uint8_t bg[W * H];
    track_frame fr[N];
    track_look look = TRACK_LOOK_BRIGHT;
    char why[768] = "";
    int rc = look_on_moving_bar(draw_banded_bar, 1085, fr, bg, &look, why, sizeof why);
    ASSERT_EQ_INT(rc, 0);
    ASSERT_EQ_INT(look, TRACK_LOOK_DARK);
    /* without the background the first frames cannot decide: both looks keep blobs */
    int undecided = 0;
    icv_err err = {0};
    rc = track_look_choose(fr, N, NULL, 0, 3, 9, NULL, &look, &weigh_tophat, &undecided, why, sizeof why, &err);
    ASSERT_EQ_INT(rc, 0);
    ASSERT_EQ_INT(undecided, 1);
}

TEST(test_look_auto_leaves_the_flash_frames_out)
{
    /* a short clip's first frames (auto decides from frame 0 there) hold the sync flash,
     * which saturated the frame: no look keeps a blob in them, and 4 of 9 frames without
     * the markers made the 60% rule fail (random scene 1006: a 45-frame clip, two of its
     * six frames the flash). Frames brighter than the median by 12% are left out. */
    enum { N = 9 };
    static uint8_t buf[N][W * H];
    track_frame fr[N];
    rn_rng rng = {1006};
    for (int f = 0; f < N; f++) {
        int lit = f >= 1 && f <= 4;
        rn_img im = rn_new(W, H, lit ? 255 : 30);
        if (!lit)
            for (int k = 0; k < 3; k++)
                rn_disc(&im, 80 + 70 * k + 3 * f, 100 + 2 * f, 4, 170, 1);
        rn_to_u8(&im, 2, &rng, buf[f]);
        rn_free(&im);
        fr[f] = (track_frame){buf[f], W, H, W, 8};
    }
    track_look look = TRACK_LOOK_DARK;
    char why[768] = "";
    icv_err err = {0};
    int rc = track_look_choose(fr, N, NULL, 0, 3, 8, NULL, &look, &weigh_tophat, NULL, why, sizeof why, &err);
    printf("    %s\n", rc ? err.msg : why);
    ASSERT_EQ_INT(rc, 0);
    ASSERT_EQ_INT(look, TRACK_LOOK_BRIGHT);
    ASSERT_STR_CONTAINS(why, "blobs in 5 of 5 frames");
    ASSERT_STR_CONTAINS(why, ", 4 flash frames left out)");
}

TEST(test_look_auto_leaves_a_look_crowded_in_every_frame_out)
{
    /* 60 still glints (level 250, r 2) and 3 moving markers (r 4): the bright look keeps
     * more than 8 blobs a marker in every frame, which the pipeline refuses ("more than
     * 24 bright blobs"); the motion look sees the three markers alone */
    enum { N = 6, NS = 9 };
    static uint8_t frames[N][W * H], spread[NS][W * H], bg[W * H];
    track_frame fr[N], sf[NS];
    rn_rng rng = {24}, pos = {60};
    double gu[60], gv[60];
    for (int k = 0; k < 60; k++)
        gu[k] = 10 + (W - 20) * rn_uniform(&pos), gv[k] = 10 + (H - 20) * rn_uniform(&pos);
    for (int f = 0; f < N + NS; f++) {
        rn_img im = rn_new(W, H, 30);
        for (int k = 0; k < 60; k++)
            rn_disc(&im, gu[k], gv[k], 2.5, 220, 1);
        double du = f < N ? 5.0 * f : 25.0 * (f - N) - 100, dv = f < N ? 2.0 * f : 9.0 * (f - N) - 40;
        for (int k = 0; k < 3; k++)
            rn_disc(&im, 110 + 40 * k + du, 120 + dv, 4, 170, 1);
        uint8_t *out = f < N ? frames[f] : spread[f - N];
        rn_to_u8(&im, 2, &rng, out);
        rn_free(&im);
        if (f < N)
            fr[f] = (track_frame){out, W, H, W, 8};
        else
            sf[f - N] = (track_frame){out, W, H, W, 8};
    }
    ASSERT_TRUE(track_motion_background(sf, NS, bg, W, NULL) == 0);
    track_look look = TRACK_LOOK_BRIGHT;
    char why[768] = "";
    icv_err err = {0};
    int rc = track_look_choose(fr, N, bg, W, 3, 8, NULL, &look, &weigh_tophat, NULL, why, sizeof why, &err);
    printf("    %s\n", rc ? err.msg : why);
    ASSERT_EQ_INT(rc, 0);
    ASSERT_EQ_INT(look, TRACK_LOOK_MOTION);
}

TEST(test_look_auto_joint_takes_one_look_for_cameras_that_disagree_alone)
{
    /* issue #18's stereo scenes where the cameras chose alone and disagreed (random
     * scenes 1042, 1091, 1123, 1148: one camera bright, the other dark; one of them
     * tracked the body's other parts). Camera B sees three dark stickers (30 on 120,
     * 8 px); camera A sees them only 3 levels under the body (below 6 sigma of noise 2)
     * and three light streaks of the body, 24 x 6 px. Alone, A keeps bright (the one look
     * with blobs) and B dark; weighed together the round marker-sized dark blobs win. */
    enum { N = 6 };
    static uint8_t a[N][W * H], b[N][W * H];
    track_frame fa[N], fb[N];
    rn_rng rng = {1148};
    for (int f = 0; f < N; f++) {
        rn_img ia = rn_new(W, H, 120), ib = rn_new(W, H, 120);
        for (int k = 0; k < 3; k++) {
            double u = 70 + 80 * k + 3 * f, v = 110 + 2 * f;
            rn_disc(&ib, u, v, 4, -90, 1); /* rn_disc adds its level */
            rn_disc(&ia, u, v, 4, -3, 1);
            rn_disc_streak(&ia, u + 8, v + 30, u + 32, v + 30, 3, 100);
        }
        rn_to_u8(&ia, 2, &rng, a[f]);
        rn_to_u8(&ib, 2, &rng, b[f]);
        rn_free(&ia);
        rn_free(&ib);
        fa[f] = (track_frame){a[f], W, H, W, 8};
        fb[f] = (track_frame){b[f], W, H, W, 8};
    }
    track_look la = TRACK_LOOK_DARK, lb = TRACK_LOOK_BRIGHT, lj = TRACK_LOOK_BRIGHT;
    char why[768] = "";
    icv_err err = {0};
    ASSERT_EQ_INT(track_look_choose(fa, N, NULL, 0, 3, 8, NULL, &la, &weigh_tophat, NULL, why, sizeof why, &err), 0);
    printf("    A alone: %s\n", why);
    ASSERT_EQ_INT(track_look_choose(fb, N, NULL, 0, 3, 8, NULL, &lb, &weigh_tophat, NULL, why, sizeof why, &err), 0);
    printf("    B alone: %s\n", why);
    ASSERT_EQ_INT(la, TRACK_LOOK_BRIGHT);
    ASSERT_EQ_INT(lb, TRACK_LOOK_DARK);
    const track_frame *fr[2] = {fa, fb};
    const int n[2] = {N, N}, stride[2] = {0, 0};
    const void *bg[2] = {NULL, NULL};
    const double dpx[2] = {8, 8};
    const track_detector *like[2] = {NULL, NULL};
    int rc = track_look_choose_joint(fr, n, bg, stride, 2, 3, dpx, like, &lj, &weigh_tophat, why, sizeof why, &err);
    printf("    together: %s\n", rc ? err.msg : why);
    ASSERT_EQ_INT(rc, 0);
    ASSERT_EQ_INT(lj, TRACK_LOOK_DARK);
}

/* A light bar (200) on a mid-grey backdrop (90), 10 px tall, with three dark bands (20)
 * 8 px wide inside it: four light pieces 10 px long round them, of a marker's size. */
static void draw_bar_of_four_pieces(uint8_t *out, double x0, double y0, rn_rng *rng)
{
    rn_img im = rn_new(W, H, 90);
    for (int y = (int)y0; y < (int)y0 + 10; y++)
        for (int x = (int)x0; x < (int)x0 + 64; x++) {
            int dx = (x - (int)x0) % 18;
            if (x >= 0 && x < W && y >= 0 && y < H)
                im.px[y * W + x] = dx >= 10 ? 20 : 200;
        }
    rn_to_u8(&im, 2, rng, out);
    rn_free(&im);
}

TEST(test_look_auto_takes_dark_when_it_alone_keeps_the_markers_number)
{
    /* random scene 5003: three dark bands inside a light rod leave four light pieces of
     * a marker's size. Bright keeps four blobs in every frame, never the markers' three;
     * dark keeps the three bands. Their likeness differs by less than half again, so
     * bright, the common case, was kept and its pieces did not fit the template. */
    enum { N = BAR_FRAMES };
    static uint8_t bg[W * H];
    track_frame fr[N];
    track_look look = TRACK_LOOK_BRIGHT;
    char why[768] = "";
    int rc = look_on_moving_bar(draw_bar_of_four_pieces, 5003, fr, bg, &look, why, sizeof why);
    ASSERT_EQ_INT(rc, 0);
    ASSERT_EQ_INT(look, TRACK_LOOK_DARK);
    ASSERT_STR_CONTAINS(why, "dark keeps the markers' number in half the frames, bright in none");
}

/* A dark rod (20) 18 px thick on a mid-grey backdrop (110) with three light bands (240)
 * 6 px wide across its whole thickness: each band is a stripe three times as long as
 * it is wide, touching the backdrop at both ends. */
static void draw_rod_of_light_bands(uint8_t *out, double x0, double y0, rn_rng *rng)
{
    rn_img im = rn_new(W, H, 110);
    for (int y = (int)y0; y < (int)y0 + 18; y++)
        for (int x = (int)x0; x < (int)x0 + 120; x++) {
            int dx = x - (int)x0;
            int band = (dx >= 12 && dx < 18) || (dx >= 52 && dx < 58) || (dx >= 100 && dx < 106);
            if (x >= 0 && x < W && y >= 0 && y < H)
                im.px[y * W + x] = band ? 240 : 20;
        }
    rn_to_u8(&im, 2, rng, out);
    rn_free(&im);
}

TEST(test_look_likeness_weighs_bands_as_stripes_across_the_rod)
{
    /* held-out scene 5175 (light bands 6 px wide round a dark rod 17 px thick over a grey
     * plate): weighed as discs of the marker's 6 px, each band looked long and three
     * times too large (likeness 0.13), the dark look's fragments of the rod beside them
     * more like markers, and auto took dark. A band's image is the rod's thickness long:
     * weighed with that aspect, the bands are markers and the rod's pieces between them
     * (34-42 px long) are not. */
    static uint8_t frame[W * H];
    rn_rng rng = {5175};
    draw_rod_of_light_bands(frame, 60, 100, &rng);
    track_frame fr = {frame, W, H, W, 8};
    icv_err err = {0};
    track_detector *d = track_detector_alloc(W, H, &err);
    ASSERT(d, "%s", err.msg);
    track_detector_set_scene_markers(d);
    d->look = TRACK_LOOK_BRIGHT;
    track_blob b[16];
    int n = 0;
    ASSERT(track_detector_detect(d, &fr, NULL, 0, b, 16, &n, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(n, 3);
    for (int k = 0; k < n; k++) {
        d->marker_aspect = 1;
        double as_disc = track_marker_likeness(d, &b[k], &fr, NULL, 0, 6);
        d->marker_aspect = 3; /* 18 px across the rod over 6 px */
        double as_band = track_marker_likeness(d, &b[k], &fr, NULL, 0, 6);
        printf("    band at %.1f, %.1f: %.0f px, likeness as a disc %.2f, as a band %.2f\n", b[k].u, b[k].v,
               b[k].area, as_disc, as_band);
        /* the stripe's area is 108 px against 28 px for a 6 px disc, and it is three
           times as long as wide: as a disc under 0.2; as a band within its thresholded
           edge's error of 1 */
        ASSERT(as_disc < 0.2, "band %d as a disc: %.2f", k, as_disc);
        ASSERT(as_band > 0.8, "band %d as a band: %.2f", k, as_band);
    }
    /* a rod piece between two bands, 34 x 18 px, is no band */
    track_blob piece = {.u = 95, .v = 109, .area = 34 * 18, .major = 34 / sqrt(12), .minor = 18 / sqrt(12)};
    d->marker_aspect = 3;
    double as_band = track_marker_likeness(d, &piece, &fr, NULL, 0, 6);
    ASSERT(as_band < 0.25, "a rod piece as a band: %.2f", as_band);
    track_detector_free(d);
}

/* auto's look on fr with the background bg and a camera detector like (9 px markers,
   the scene's settings), or a fresh one when like is NULL: the status, look and why */
static int look_with(const track_frame *fr, const uint8_t *bg, track_detector *like, track_look *look, char *why,
                     size_t n_why)
{
    track_detector *own = like ? NULL : track_detector_alloc(W, H, NULL);
    track_detector *d = like ? like : own;
    track_detector_set_scene_markers(d);
    track_detector_set_marker_size(d, 9, d->max_streak_px);
    icv_err err = {0};
    int rc = track_look_choose(fr, BAR_FRAMES, bg, W, 3, 9, d, look, &weigh_tophat, NULL, why, n_why, &err);
    if (rc)
        snprintf(why, n_why, "%s", err.msg);
    track_detector_free(own);
    return rc;
}

TEST(test_look_auto_called_again_replays_bright_and_dark_to_the_same_choice)
{
    /* the pipeline calls auto on a camera's first frames, then, undecided, again on the
       same frames with the still background: bright's and dark's detections, which do
       not read the background, are replayed from the first call (look.c's memo). The
       second call's choice and its line (counts, likeness, the blob standing out) are
       a fresh detector's to the character; frames changed in place are detected again. */
    enum { N = BAR_FRAMES };
    static uint8_t bg[W * H];
    track_frame fr[N];
    ASSERT_EQ_INT(moving_bar(draw_banded_bar, 1085, fr, bg), 0);
    track_detector *like = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(like != NULL);
    track_detector_set_scene_markers(like);
    track_detector_set_marker_size(like, 9, like->max_streak_px);
    track_look look = TRACK_LOOK_BRIGHT, look_ref = TRACK_LOOK_BRIGHT;
    char why[768] = "", why_ref[768] = "";
    int undecided = 0;
    icv_err err = {0};
    int rc = track_look_choose(fr, N, NULL, 0, 3, 9, like, &look, &weigh_tophat, &undecided, why, sizeof why, &err);
    ASSERT(rc == 0 && undecided == 1, "first call: rc %d, undecided %d: %s", rc, undecided, err.msg);
    ASSERT(track_look_memo_replayed(like) == 0, "first call replayed %ld frames", track_look_memo_replayed(like));
    rc = look_with(fr, bg, like, &look, why, sizeof why);
    int rc_ref = look_with(fr, bg, NULL, &look_ref, why_ref, sizeof why_ref);
    long replayed = track_look_memo_replayed(like);
    printf("    again: %s\n    fresh: %s\n    replayed %ld frames\n", why, why_ref, replayed);
    ASSERT(rc == 0 && rc_ref == 0, "rc %d, fresh %d", rc, rc_ref);
    ASSERT_EQ_INT(look, TRACK_LOOK_DARK);
    ASSERT_EQ_INT(look_ref, TRACK_LOOK_DARK);
    ASSERT(strcmp(why, why_ref) == 0, "again and fresh differ");
    /* bright's and dark's 6 frames each (the top-hat, weighed only where plain bright
       misses the markers' number, not tried here) */
    ASSERT(replayed == 2 * N, "replayed %ld frames, expected %d", replayed, 2 * N);
    /* a frame changed in place (the bar moved 4 px on in frame 0): nothing replayed, the
       fresh detector's choice */
    rn_rng rng = {7};
    draw_banded_bar((uint8_t *)(uintptr_t)fr[0].data, 64, 102, &rng);
    rc = look_with(fr, bg, like, &look, why, sizeof why);
    rc_ref = look_with(fr, bg, NULL, &look_ref, why_ref, sizeof why_ref);
    ASSERT(rc == 0 && rc_ref == 0 && look == look_ref && strcmp(why, why_ref) == 0, "changed frame: %s / %s", why,
           why_ref);
    ASSERT(track_look_memo_replayed(like) == replayed, "changed frame: %ld frames replayed",
           track_look_memo_replayed(like) - replayed);
    track_detector_free(like);
}

TEST(test_look_auto_weighs_shapes_when_nothing_moved_against_the_still_background)
{
    /* random scene 1152: a dark ball 55 px across moves 40 px over its 85 frames, less
     * than its diameter, so the still background (the median of frames spread over the
     * clip) holds the ball where its centre passes; the bright look keeps the lit plate
     * under it. Neither look's blobs moved (likeness 0 both) and bright, the common case,
     * was kept: the plate was tracked and nothing labelled. Here a ball 40 px across (5)
     * drifts 20 px over a plate (150) 100 x 70 px on a dark backdrop (30). */
    enum { N = 30, NB = 15, NA = 6 };
    static uint8_t buf[N][W * H], still[W * H];
    track_frame fr[N], spread[NB];
    rn_rng rng = {1152};
    for (int f = 0; f < N; f++) {
        rn_img im = rn_new(W, H, 30);
        for (int y = 80; y < 150; y++)
            for (int x = 100; x < 200; x++)
                im.px[y * W + x] = 150;
        rn_disc(&im, 140 + 20.0 * f / (N - 1), 115, 20, -145, 1);
        rn_to_u8(&im, 2, &rng, buf[f]);
        rn_free(&im);
        fr[f] = (track_frame){buf[f], W, H, W, 8};
    }
    for (int k = 0; k < NB; k++)
        spread[k] = fr[(int)(N * (k + 0.5) / NB)];
    icv_err err = {0};
    ASSERT(track_motion_background(spread, NB, still, W, &err) == 0, "%s", err.msg);
    track_look look = TRACK_LOOK_BRIGHT;
    char why[768] = "";
    int rc = track_look_choose(fr + 3, NA, still, W, 1, 40, NULL, &look, &weigh_tophat, NULL, why, sizeof why, &err);
    printf("    %s\n", rc ? err.msg : why);
    ASSERT_EQ_INT(rc, 0);
    ASSERT_EQ_INT(look, TRACK_LOOK_DARK);
    ASSERT_STR_CONTAINS(why, "no blob moved");
}
