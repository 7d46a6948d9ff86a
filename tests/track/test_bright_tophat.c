/* test_bright_tophat.c: bright bands spanning a dark rod over a light plate (issue #18,
 * random scene 5095): each band touches the plate on both sides, so plain bright reads
 * band and plate as one region; read as the white top-hat (I - opening(I)) a band stands
 * out alone, and auto weighs that reading beside plain bright. Frames drawn here with
 * known centres. */
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 320
#define H 240
#define NB 3
#define PLATE 200
#define ROD 40

/* A rod (level ROD, 9 px wide, 200 px long) centred at (cu, cv) at angle th over a plate
 * of level PLATE, with NB bands 8 px long across its whole width at the plate's level,
 * at -60, 0 and 60 px along it: 4 x 4 supersampled coverage. The bands' centres into
 * bu, bv. */
static void draw_rod(rn_img *im, double cu, double cv, double th, double *bu, double *bv)
{
    rn_banded_rod(im, cu, cv, th, 4.5, ROD, PLATE, PLATE, bu, bv);
}

enum { N = 6 };

/* N frames of the rod moving over the plate (noise 3) into buf / fr, the bands' centres
 * into bu, bv ([frame][band]) */
static void moving_rod(uint8_t (*buf)[W * H], track_frame *fr, double (*bu)[NB], double (*bv)[NB])
{
    rn_rng rng = {5095};
    for (int f = 0; f < N; f++) {
        rn_img im = rn_new(W, H, PLATE);
        draw_rod(&im, 130 + 9 * f, 110 + 4 * f, 0.25 + 0.2 * f, bu[f], bv[f]);
        rn_to_u8(&im, 3, &rng, buf[f]);
        rn_free(&im);
        fr[f] = (track_frame){buf[f], W, H, W, 8};
    }
}

/* Of the bands in frame f, how many a blob lies within 1 px of; their squared errors
 * added to *se, the blobs near none counted in *extra */
static int bands_found(const track_blob *b, int nb, const double *bu, const double *bv, double *se, int *extra)
{
    int found = 0, used = 0;
    for (int k = 0; k < NB; k++) {
        double best = 1e9;
        for (int i = 0; i < nb; i++)
            best = fmin(best, hypot(b[i].u - bu[k], b[i].v - bv[k]));
        if (best < 1)
            found++, used++, *se += best * best;
    }
    *extra += nb - used;
    return found;
}

TEST(test_bright_tophat_finds_bright_bands_across_a_dark_rod_over_a_light_plate)
{
    static uint8_t buf[N][W * H];
    track_frame fr[N];
    double bu[N][NB], bv[N][NB];
    moving_rod(buf, fr, bu, bv);

    /* auto, with and without the still background (the plate): bright read as the
       white top-hat; plain bright keeps no band (each is the plate's level) */
    static uint8_t still[W * H];
    rn_rng rng = {7};
    rn_img im = rn_new(W, H, PLATE);
    rn_to_u8(&im, 1, &rng, still);
    rn_free(&im);
    track_detector *like = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(like != NULL);
    for (int pass = 0; pass < 2; pass++) {
        track_look look = TRACK_LOOK_DARK;
        int tophat = 0, undecided = 0;
        char why[768] = "";
        icv_err err = {0};
        int rc = track_look_choose(fr, N, pass ? still : NULL, W, NB, 8, like, &look, &tophat, pass ? NULL : &undecided,
                                   why, sizeof why, &err);
        printf("    %s\n", rc ? err.msg : why);
        ASSERT_EQ_INT(rc, 0);
        ASSERT_EQ_INT(undecided, 0);
        ASSERT_EQ_INT(look, TRACK_LOOK_BRIGHT);
        ASSERT_EQ_INT(tophat, 1);
        ASSERT_STR_CONTAINS(why, "read as the white top-hat");
        /* no top-hat output asked for: plain bright's rules alone, which keep no bright
           band and take the rod's dark pieces */
        rc = track_look_choose(fr, N, pass ? still : NULL, W, NB, 8, like, &look, NULL, NULL, why, sizeof why, &err);
        ASSERT_TRUE(rc != 0 || look != TRACK_LOOK_BRIGHT);
    }
    track_detector_free(like);

    /* the detector so set, full scans and a window round each band, against plain bright */
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    track_detector_set_marker_size(d, 8, d->max_streak_px);
    long allocs = 0;
    int found = 0, extra = 0, plain_found = 0, plain_extra = 0, win_found = 0, n = 0;
    double se = 0, plain_se = 0, win_se = 0;
    for (int f = 0; f < N; f++) {
        track_blob b[32];
        int nb = 0;
        d->bright_tophat = 0;
        ASSERT_TRUE(track_detector_detect(d, &fr[f], NULL, 0, b, 32, &nb, NULL) == 0);
        plain_found += bands_found(b, nb, bu[f], bv[f], &plain_se, &plain_extra);
        d->bright_tophat = 1;
        if (f == 0)
            allocs = d->n_allocs;
        ASSERT_TRUE(track_detector_detect(d, &fr[f], NULL, 0, b, 32, &nb, NULL) == 0);
        found += bands_found(b, nb, bu[f], bv[f], &se, &extra);
        for (int k = 0; k < NB; k++, n++) {
            track_window win = {(int)bu[f][k] - 15, (int)bv[f][k] - 15, (int)bu[f][k] + 15, (int)bv[f][k] + 15, 0};
            track_blob bw[8];
            int nw = 0;
            ASSERT_TRUE(track_detector_detect(d, &fr[f], &win, 1, bw, 8, &nw, NULL) == 0);
            for (int i = 0; i < nw; i++) {
                double e = hypot(bw[i].u - bu[f][k], bw[i].v - bv[f][k]);
                if (e < 1)
                    win_found++, win_se += e * e;
            }
        }
    }
    ASSERT_EQ_INT((int)d->n_allocs, (int)allocs); /* nothing allocated per frame */
    track_detector_free(d);
    double rms = sqrt(se / (found ? found : 1)), win_rms = sqrt(win_se / (win_found ? win_found : 1));
    printf("    bright bands across a dark rod over a light plate: plain bright %d/%d (%d other blobs); top-hat %d/%d "
           "(RMS %.3f px), %d extra; windows %d/%d (RMS %.3f px)\n",
           plain_found, n, plain_extra, found, n, rms, extra, win_found, n, win_rms);
    ASSERT_EQ_INT(plain_found, 0);
    ASSERT_EQ_INT(found, n);
    ASSERT_EQ_INT(extra, 0);
    ASSERT_EQ_INT(win_found, n);
    /* a band is symmetric about its centre and noise 3 over ~70 pixels 160 levels high
       moves its centroid by ~0.05 px; 0.15 px bounds the RMS with the supersampled
       edges' rounding (the dark top-hat's bound, test_dark_tophat.c) */
    ASSERT(rms < 0.15, "RMS %.3f px (0.15)", rms);
    ASSERT(win_rms < 0.15, "windowed RMS %.3f px (0.15)", win_rms);
}

/* The same rod with four still glints on the plate (level 250, 8 px across, as many
 * as the bands and more): plain bright keeps them in every frame, as many blobs as
 * markers or more, so its count alone ruled the top-hat out (random scene 1063: light
 * bands on a dark rod over a plate with still light patches; auto then took the rod's
 * dark pieces). The still background tells the glints from the markers: only blobs that
 * moved count for plain bright. */
TEST(test_bright_tophat_is_weighed_when_plain_bright_keeps_only_still_glints_besides)
{
    static uint8_t buf[N][W * H], still[W * H];
    track_frame fr[N];
    double bu[N][NB], bv[N][NB];
    const double gu[4] = {22, 298, 22, 298}, gv[4] = {22, 22, 218, 218};
    rn_rng rng = {1063};
    for (int f = 0; f <= N; f++) { /* frame N: the still background (the plate, the glints) */
        rn_img im = rn_new(W, H, PLATE);
        if (f < N)
            draw_rod(&im, 130 + 9 * f, 110 + 4 * f, 0.25 + 0.2 * f, bu[f], bv[f]);
        for (int k = 0; k < 4; k++)
            rn_disc(&im, gu[k], gv[k], 4, 50, 1);
        rn_to_u8(&im, f < N ? 3 : 1, &rng, f < N ? buf[f] : still);
        rn_free(&im);
        if (f < N)
            fr[f] = (track_frame){buf[f], W, H, W, 8};
    }
    track_detector *like = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(like != NULL);
    track_look look = TRACK_LOOK_DARK;
    int tophat = 0;
    char why[768] = "";
    icv_err err = {0};
    int rc = track_look_choose(fr, N, still, W, NB, 8, like, &look, &tophat, NULL, why, sizeof why, &err);
    printf("    %s\n", rc ? err.msg : why);
    track_detector_free(like);
    ASSERT_EQ_INT(rc, 0);
    /* plain bright keeps the four glints in all six frames: as many blobs as markers or
       more, none of them moving */
    ASSERT_STR_CONTAINS(why, "plain bright 4-4 a frame");
    ASSERT_EQ_INT(look, TRACK_LOOK_BRIGHT);
    ASSERT_EQ_INT(tophat, 1);
}

/* Light beads wider than a dark rod over a light plate, at the plate's own level, of a
 * size the detector also looks for binned (16 px and more): plain bright reads beads and
 * plate as one region; read as the white top-hat (octagon radius TRACK_TOPHAT_MAX_R, 33
 * px across) each bead's part over the rod stands out alone, centred on the bead. */
#define BW 480
#define BH 360
#define BEAD_D 20.0
static const double bead_at[NB] = {-110, 0, 110};

static double beaded_rod_level(double a, double c, const void *user)
{
    (void)user;
    for (int k = 0; k < NB; k++)
        if (hypot(a - bead_at[k], c) < 0.5 * BEAD_D)
            return PLATE;
    return fabs(c) < 6 && fabs(a) < 160 ? ROD : PLATE;
}

static void beaded_rod(rn_img *im, double cu, double cv, double th, double *bu, double *bv)
{
    const double *at = bead_at;
    double cx = cos(th), sy = sin(th);
    rn_rod_coverage(im, cu, cv, th, beaded_rod_level, NULL);
    for (int k = 0; k < NB; k++) {
        bu[k] = cu + at[k] * cx;
        bv[k] = cv + at[k] * sy;
    }
}

TEST(test_bright_tophat_finds_binned_light_beads_on_a_dark_rod_over_a_light_plate)
{
    enum { NF = 4 };
    static uint8_t buf[NF][BW * BH];
    track_frame fr[NF];
    double bu[NF][NB], bv[NF][NB];
    rn_rng rng = {1098};
    for (int f = 0; f < NF; f++) {
        rn_img im = rn_new(BW, BH, PLATE);
        beaded_rod(&im, 230 + 7 * f, 170 + 5 * f, 0.3 + 0.25 * f, bu[f], bv[f]);
        rn_to_u8(&im, 3, &rng, buf[f]);
        rn_free(&im);
        fr[f] = (track_frame){buf[f], BW, BH, BW, 8};
    }
    track_detector *d = track_detector_alloc(BW, BH, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    /* the retry's top-hat look reaches markers up to 24 px, not past them */
    track_detector_set_marker_size(d, 30, d->max_streak_px);
    ASSERT_EQ_INT(track_detector_tophat_usable(d), 0);
    track_detector_set_marker_size(d, BEAD_D, d->max_streak_px);
    ASSERT_EQ_INT(track_detector_tophat_usable(d), 1);
    long allocs = 0;
    int found = 0, extra = 0, plain_found = 0, plain_extra = 0, n = 0;
    double se = 0, plain_se = 0;
    for (int f = 0; f < NF; f++, n += NB) {
        track_blob b[64];
        int nb = 0;
        d->bright_tophat = 0;
        ASSERT_TRUE(track_detector_detect(d, &fr[f], NULL, 0, b, 64, &nb, NULL) == 0);
        plain_found += bands_found(b, nb, bu[f], bv[f], &plain_se, &plain_extra);
        d->bright_tophat = 1;
        if (f == 1)
            allocs = d->n_allocs;
        ASSERT_TRUE(track_detector_detect(d, &fr[f], NULL, 0, b, 64, &nb, NULL) == 0);
        found += bands_found(b, nb, bu[f], bv[f], &se, &extra);
    }
    ASSERT_EQ_INT((int)d->n_allocs, (int)allocs); /* nothing allocated per frame */
    track_detector_free(d);
    double rms = sqrt(se / (found ? found : 1));
    printf("    binned light beads 20 px on a dark rod over a light plate: plain bright %d/%d (%d other blobs); "
           "top-hat %d/%d (RMS %.3f px), %d extra\n",
           plain_found, n, plain_extra, found, n, rms, extra);
    ASSERT_EQ_INT(plain_found, 0);
    ASSERT_EQ_INT(found, n);
    ASSERT_EQ_INT(extra, 0);
    /* each bead's part over the rod is symmetric about the bead's centre; noise 3 over
       ~200 pixels 160 levels high moves its centroid by a few hundredths of a pixel:
       0.15 px, the bands' bound above */
    ASSERT(rms < 0.15, "RMS %.3f px (0.15)", rms);
}
