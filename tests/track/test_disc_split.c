/* test_disc_split.c: touching discs of a known diameter (balls in a row, lit alike)
 * come out of the detector as one blob each (disc_split.c), and a single streaked disc
 * stays one blob. Discs supersampled 16 x 16 (render.h), 2, 3 and 4 in a row at a
 * random angle and sub-pixel position, diameters 14 and 34 px (34: synth's cradle at
 * 640x480; detected through the binned path too), read noise 2 gray levels. */
#include "tests/harness.h"
#include "tests/track/render.h"
#include "track/track.h"

#define SW 320
#define SH 240

/* the centroid tolerance: 0.2 px, issue #8's goal for markers that are not still,
   isolated discs (streaks); the parts' cells cut the light where two discs touch,
   most parts are within 0.06 px (a still, isolated marker's goal is 0.05 px) */
#define SPLIT_TOL_PX 0.2

static int near_pairs(const track_blob *b, int nb, const double *tu, const double *tv, int k, double *worst)
{
    int matched = 0;
    for (int i = 0; i < k; i++) {
        double best = INFINITY;
        for (int j = 0; j < nb; j++)
            best = fmin(best, hypot(b[j].u - tu[i], b[j].v - tv[i]));
        *worst = fmax(*worst, best);
        matched += best < 1.0;
    }
    return matched;
}

TEST(test_disc_split_touching_discs_in_a_row_each_a_blob_at_its_centre)
{
    static uint8_t buf[SW * SH];
    rn_rng rng = {11};
    const double diam[2] = {14, 34};
    double worst = 0, sz2 = 0;
    int nz = 0;
    for (int di = 0; di < 2; di++) {
        track_detector *d = track_detector_alloc(SW, SH, NULL);
        ASSERT_TRUE(d != NULL);
        track_detector_set_marker_size(d, diam[di], 40);
        d->disc_split_px = diam[di];
        d->static_frames = 0;
        long allocs = d->n_allocs;
        for (int k = 2; k <= 4; k++)
            for (int rep = 0; rep < 6; rep++) {
                double r = 0.5 * diam[di], ang = M_PI * rn_uniform(&rng);
                double uc = SW / 2 + 4 * rn_uniform(&rng), vc = SH / 2 + 4 * rn_uniform(&rng);
                double tu[4], tv[4];
                rn_img im = rn_new(SW, SH, 20);
                for (int i = 0; i < k; i++) {
                    double s = (i - 0.5 * (k - 1)) * 2 * r; /* touching: centres 2 r apart */
                    tu[i] = uc + s * cos(ang), tv[i] = vc + s * sin(ang);
                    rn_disc(&im, tu[i], tv[i], r, 200, 1.0);
                }
                rn_to_u8(&im, 2, &rng, buf);
                rn_free(&im);
                track_frame fr = {buf, SW, SH, SW, 8};
                track_blob b[16];
                int nb = 0;
                ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 16, &nb, NULL) == 0);
                double w = 0;
                int m = near_pairs(b, nb, tu, tv, k, &w);
                ASSERT(nb == k && m == k, "%d discs of %.0f px at %.2f rad: %d blobs, %d at a centre (worst %.2f px)",
                       k, diam[di], ang, nb, m, w);
                worst = fmax(worst, w);
                if (getenv("ICV_SPLIT_DIAG"))
                    printf("DIAG D %.0f k %d ang %.2f worst %.3f\n", diam[di], k, ang, w);
                for (int j = 0; j < nb; j++) {
                    double best = INFINITY;
                    for (int i = 0; i < k; i++)
                        best = fmin(best, hypot(b[j].u - tu[i], b[j].v - tv[i]));
                    sz2 += best * best / (b[j].sigma * b[j].sigma);
                    nz++;
                }
            }
        ASSERT_EQ_INT((int)(d->n_allocs - allocs), 0); /* no allocation per frame */
        track_detector_free(d);
    }
    printf("    2-4 touching discs of 14 and 34 px, 36 frames: worst centre %.3f px; error / sigma RMS %.2f\n", worst,
           sqrt(sz2 / (2 * nz)));
    ASSERT(worst <= SPLIT_TOL_PX, "a part %.3f px from its disc's centre", worst);
    double zr = sqrt(sz2 / (2 * nz));
    ASSERT(zr >= 0.7 && zr <= 1.5, "error / sigma RMS %.2f", zr); /* issue #8's honesty band */
}

TEST(test_disc_split_leaves_a_streaked_disc_whole)
{
    static uint8_t buf[SW * SH];
    rn_rng rng = {12};
    track_detector *d = track_detector_alloc(SW, SH, NULL);
    ASSERT_TRUE(d != NULL);
    track_detector_set_marker_size(d, 14, 40);
    d->disc_split_px = 14;
    d->static_frames = 0;
    /* streaks of 0.6, 1, 2 diameters: areas 1.8, 2.3 and 3.5 discs, as k discs' */
    const double lens[3] = {8.4, 14, 28};
    for (int i = 0; i < 3; i++)
        for (int rep = 0; rep < 4; rep++) {
            double ang = M_PI * rn_uniform(&rng), uc = SW / 2 + 4 * rn_uniform(&rng), vc = SH / 2 + 4 * rn_uniform(&rng);
            double du = 0.5 * lens[i] * cos(ang), dv = 0.5 * lens[i] * sin(ang);
            rn_img im = rn_new(SW, SH, 20);
            rn_disc_streak(&im, uc - du, vc - dv, uc + du, vc + dv, 7, 200);
            rn_to_u8(&im, 2, &rng, buf);
            rn_free(&im);
            track_frame fr = {buf, SW, SH, SW, 8};
            track_blob b[16];
            int nb = 0;
            ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 16, &nb, NULL) == 0);
            ASSERT(nb == 1, "a %.0f px streak of a 14 px disc: %d blobs", lens[i], nb);
            /* the streak's centroid as without the split: mid-exposure within 0.2 px */
            ASSERT(hypot(b[0].u - uc, b[0].v - vc) < 0.2, "streak centroid %.3f px off",
                   hypot(b[0].u - uc, b[0].v - vc));
        }
    track_detector_free(d);
}
