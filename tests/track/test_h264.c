/* test_h264.c: centroid accuracy and sigma honesty after H.264 compression (issue #8:
 * RMS <= 0.05 px for still markers and <= 0.2 px for 15 px streaks "at read noise 2
 * gray levels and H.264 CRF 18"). Frames drawn by render.h are encoded with the ffmpeg
 * CLI (libx264, CRF 18, yuv420p) and decoded back to gray, as a phone or lab clip
 * arrives (capture/ decodes with the same libavcodec). The encoder wipes the noise
 * from flat areas, so the detector's noise_floor (8 gray levels) carries the coding
 * error into the sigma. */
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 320
#define H 240
#define NF 24
#define NM 4

enum { GAUSS_SPOT, DISC_12PX, DISC_STREAK_15PX };

typedef struct {
    double rms_axis;   /* px: RMS error per axis */
    double rms_radial; /* px: RMS of the 2D distance */
    double spread;     /* RMS of error/sigma per axis */
    int missed;        /* -1: the ffmpeg round trip failed */
} study;

/* NF frames of NM markers, through H.264 CRF 18 and back, detected with the floor. */
static study h264_study(int kind)
{
    static uint8_t frames[NF][W * H];
    static double tu[NF][NM], tv[NF][NM];
    study r = {0, 0, 0, -1};
    rn_rng rng = {66 + (uint64_t)kind};
    for (int f = 0; f < NF; f++) {
        rn_img im = rn_new(W, H, 20);
        for (int k = 0; k < NM; k++) {
            tu[f][k] = 50 + 70 * k + 10 * rn_uniform(&rng);
            tv[f][k] = 60 + 120 * rn_uniform(&rng);
            if (kind == DISC_STREAK_15PX) {
                double a = 2 * M_PI * rn_uniform(&rng), du = 7.5 * cos(a), dv = 7.5 * sin(a);
                rn_disc_streak(&im, tu[f][k] - du, tv[f][k] - dv, tu[f][k] + du, tv[f][k] + dv, 4, 180);
            } else if (kind == DISC_12PX) {
                rn_disc(&im, tu[f][k], tv[f][k], 6, 180, 1);
            } else {
                rn_gauss_spot(&im, tu[f][k], tv[f][k], 1.5, 200, 1);
            }
        }
        rn_to_u8(&im, 2, &rng, frames[f]);
        rn_free(&im);
    }
    char raw[1024], mp4[1024], back[1024];
    snprintf(raw, sizeof raw, "%s", th_tmp("in.gray"));
    snprintf(mp4, sizeof mp4, "%s", th_tmp("clip.mp4"));
    snprintf(back, sizeof back, "%s", th_tmp("out.gray"));
    FILE *fp = fopen(raw, "wb");
    if (!fp)
        return r;
    size_t wrote = fwrite(frames, 1, sizeof frames, fp);
    fclose(fp);
    if (wrote != sizeof frames)
        return r;
    static th_proc p;
    th_run_sh(&p,
              "ffmpeg -v error -y -f rawvideo -pix_fmt gray -s %dx%d -r 240 -i %s -c:v libx264 -crf 18 "
              "-pix_fmt yuv420p %s && ffmpeg -v error -y -i %s -f rawvideo -pix_fmt gray %s",
              W, H, raw, mp4, mp4, back);
    fp = p.status == 0 ? fopen(back, "rb") : NULL;
    if (!fp)
        return r;
    size_t got = fread(frames, 1, sizeof frames, fp);
    fclose(fp);
    if (got != sizeof frames)
        return r;
    track_detector *d = track_detector_alloc(W, H, NULL);
    if (!d)
        return r;
    d->noise_floor = 8; /* track.h's value for H.264 CRF ~18 */
    double se = 0, sz2 = 0;
    int n = 0;
    r.missed = 0;
    for (int f = 0; f < NF; f++) {
        track_frame fr = {frames[f], W, H, W, 8};
        track_blob b[16];
        int nb = 0;
        track_detector_detect(d, &fr, NULL, 0, b, 16, &nb, NULL);
        for (int k = 0; k < NM; k++) {
            int best = -1;
            double bd = 2;
            for (int i = 0; i < nb; i++)
                if (hypot(b[i].u - tu[f][k], b[i].v - tv[f][k]) < bd) {
                    bd = hypot(b[i].u - tu[f][k], b[i].v - tv[f][k]);
                    best = i;
                }
            if (best < 0) {
                r.missed++;
                continue;
            }
            double eu = b[best].u - tu[f][k], ev = b[best].v - tv[f][k];
            se += eu * eu + ev * ev;
            sz2 += (eu * eu + ev * ev) / (b[best].sigma * b[best].sigma);
            n++;
        }
    }
    track_detector_free(d);
    n = n ? n : 1;
    r.rms_radial = sqrt(se / n);
    r.rms_axis = sqrt(se / (2 * n));
    r.spread = sqrt(sz2 / (2 * n));
    return r;
}

static int have_x264(void)
{
    static th_proc p;
    return th_run_sh(&p, "ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libx264") == 0;
}

TEST(test_12px_discs_after_h264_crf18_centroid_rms_per_axis_below_0_05_px)
{
    if (!have_x264())
        SKIP("no ffmpeg CLI with libx264");
    study s = h264_study(DISC_12PX);
    ASSERT_TRUE(s.missed >= 0); /* the round trip through ffmpeg worked */
    printf("    H.264 CRF 18, 12 px discs: RMS per axis %.4f px, radial %.4f px, error/sigma %.2f, missed %d\n",
           s.rms_axis, s.rms_radial, s.spread, s.missed);
    ASSERT_EQ_INT(s.missed, 0);
    ASSERT_TRUE(s.rms_axis <= 0.05);                 /* issue #8 target (read per axis) */
    ASSERT_TRUE(s.spread >= 0.7 && s.spread <= 1.5); /* issue #8 honesty band */
}

TEST(test_small_spots_after_h264_crf18_centroid_rms_per_axis_below_0_05_px)
{
    /* 3.5 px (FWHM) spots: the box centroid lost 0.066 px per axis to the codec's block
     * noise far from the centre; the Gaussian-windowed centroid (peaked blobs) weighs it
     * down: ~0.04 px */
    if (!have_x264())
        SKIP("no ffmpeg CLI with libx264");
    study s = h264_study(GAUSS_SPOT);
    ASSERT_TRUE(s.missed >= 0);
    printf("    H.264 CRF 18, sigma 1.5 px spots: RMS per axis %.4f px, radial %.4f px, error/sigma %.2f\n",
           s.rms_axis, s.rms_radial, s.spread);
    ASSERT_EQ_INT(s.missed, 0);
    ASSERT_TRUE(s.rms_axis <= 0.05);                 /* issue #8 target (read per axis) */
    ASSERT_TRUE(s.spread >= 0.7 && s.spread <= 1.5); /* issue #8 honesty band */
}

TEST(test_15_px_streaks_after_h264_crf18_centroid_rms_below_0_2_px)
{
    if (!have_x264())
        SKIP("no ffmpeg CLI with libx264");
    study s = h264_study(DISC_STREAK_15PX);
    ASSERT_TRUE(s.missed >= 0);
    printf("    H.264 CRF 18, 15 px streaks: RMS per axis %.4f px, radial %.4f px, error/sigma %.2f\n", s.rms_axis,
           s.rms_radial, s.spread);
    ASSERT_EQ_INT(s.missed, 0);
    ASSERT_TRUE(s.rms_radial <= 0.2);                /* issue #8 target (radial, met either way) */
    ASSERT_TRUE(s.spread >= 0.7 && s.spread <= 1.5); /* issue #8 honesty band */
}
