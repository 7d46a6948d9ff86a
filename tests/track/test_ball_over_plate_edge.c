/* test_ball_over_plate_edge.c: a bright ball (a flat disc, opaque) in front of a step in
 * the background, as a ball near a lit plate is seen against the dark wall behind the
 * plate's far edge (the phone study, docs/analysis.md). The box centroid over one
 * ring level put it 0.35-0.45 px towards the plate within 1.5 diameters of it; the
 * detector measures the area's centroid over the ring's patch (blob_measure.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define BW 96
#define BH 80

/* wall level above row edge_v (a pixel row boundary in pixel coordinates), plate below;
 * the disc of radius r at (u, v) covers each pixel by its fraction a (16 x 16 samples)
 * and shows level*a + behind*(1 - a): opaque, not added */
static void render_ball(rn_img *im, double edge_v, double wall, double plate, double u, double v, double r,
                        double level)
{
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            double behind = y + 0.5 <= edge_v ? wall : y - 0.5 >= edge_v ? plate
                                                                        : wall + (plate - wall) * (y + 0.5 - edge_v);
            int in = 0;
            if (fabs(x - u) <= r + 1 && fabs(y - v) <= r + 1)
                for (int j = 0; j < 16; j++)
                    for (int i = 0; i < 16; i++) {
                        double dx = x - 0.5 + (i + 0.5) / 16 - u, dy = y - 0.5 + (j + 0.5) / 16 - v;
                        in += dx * dx + dy * dy <= r * r;
                    }
            double a = in / 256.0;
            im->px[y * im->w + x] = level * a + behind * (1 - a);
        }
}

TEST(test_ball_over_a_plate_edge_centroid_within_0_05_px)
{
    /* a 17 px ball (level 250) over a wall at 10 and a plate at 70 whose edge lies from
       1.5 radii above to 1.5 below its centre, noise 1.5 levels (the phone study's
       ball at 240 fps: 17 px, wall 8-14, plate 65-70); 60 positions. Target 0.05 px RMS
       per axis (issue #8's centroid target). Measured: RMS u 0.020, v 0.020 px, error /
       sigma RMS 0.72 (its background term is an upper bound); before (one ring level,
       the intensity weights): v 0.389 px RMS, worst 0.587, towards the plate */
    static uint8_t buf[BW * BH];
    rn_rng rng = {19};
    track_detector *d = track_detector_alloc(BW, BH, NULL);
    ASSERT_TRUE(d != NULL);
    /* the plate fills the frame's lower part here (in a scene it is a patch the ball's
       window holds a part of): a fixed level between plate and ball keeps it out */
    d->threshold_mode = TRACK_THRESHOLD_FIXED;
    d->threshold_level = 128;
    int n = th_accuracy() ? 400 : 60;
    double su = 0, sv = 0, worst = 0, z2 = 0;
    for (int k = 0; k < n; k++) {
        double r = 8.5, u = 40 + 10 * rn_uniform(&rng), v = 36 + 6 * rn_uniform(&rng);
        double edge = v + r * (3 * rn_uniform(&rng) - 1.5);
        rn_img im = rn_new(BW, BH, 0);
        render_ball(&im, edge, 10, 70, u, v, r, 250);
        rn_to_u8(&im, 1.5, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, BW, BH, BW, 8};
        track_blob b[8];
        int nb;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 8, &nb, NULL) == 0);
        if (nb != 1) {
            char why[512];
            ASSERT(0, "%d blobs: %s", nb, track_detector_describe(d, why, sizeof why));
        }
        double eu = b[0].u - u, ev = b[0].v - v;
        su += eu * eu;
        sv += ev * ev;
        z2 += (eu * eu + ev * ev) / (b[0].sigma * b[0].sigma);
        worst = fmax(worst, fabs(ev));
    }
    track_detector_free(d);
    double ru = sqrt(su / n), rv = sqrt(sv / n);
    printf("    ball over a plate edge: RMS u %.4f v %.4f px (worst v %.3f), error/sigma RMS %.2f\n", ru, rv, worst,
           sqrt(z2 / (2 * n)));
    ASSERT(ru <= 0.05 && rv <= 0.05, "RMS u %.4f v %.4f px (target 0.05; worst v %.3f)", ru, rv, worst);
}
