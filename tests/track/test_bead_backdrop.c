/* test_bead_backdrop.c: a bead threaded on a dark rod, drawn from bead_marker.c's
 * orthographic model (the disc less what the rod in front of it hides, the rod's image
 * beyond it), read by the bright look's white top-hat. Over a dark backdrop the whole
 * visible disc stands out; over a backdrop as light as the bead only its part over the
 * rod does, and the blob's centroid lies that much further off the centre. The share the
 * detector reads (track_detector_bead_beside) and the factor weighed by it must give
 * the blob's centroid in both. */
#include <math.h>

#include "track/track.h"
#include "track/track_3d.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 160
#define H 120
#define BEAD 220
#define ROD 15

/* the level at (x, y), in bead radii from its centre, the rod along +x at rho, the view
   at cos to it */
static double bead_level(double x, double y, double rho, double c, double backdrop)
{
    double sn = sqrt(1 - c * c);
    int on_rod = fabs(y) < rho;
    if (x * x + y * y >= 1)
        return on_rod ? ROD : backdrop;
    if (on_rod) {
        double s = sqrt(rho * rho - y * y);
        if ((x * c + s) / sn > sqrt(1 - x * x - y * y))
            return ROD; /* the rod in front of the bead */
    }
    return BEAD;
}

/* the bead of radius R px at (cu, cv), 4 x 4 samples a pixel, noise 2 */
static void draw_bead(uint8_t *buf, double cu, double cv, double R, double rho, double c, double backdrop)
{
    rn_img im = rn_new(W, H, backdrop);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double s = 0;
            for (int j = 0; j < 4; j++)
                for (int i = 0; i < 4; i++)
                    s += bead_level((x - 0.5 + (i + 0.5) / 4 - cu) / R, (y - 0.5 + (j + 0.5) / 4 - cv) / R, rho, c,
                                    backdrop);
            im.px[y * W + x] = s / 16;
        }
    rn_rng rng = {25};
    rn_to_u8(&im, 2, &rng, buf);
    rn_free(&im);
}

TEST(test_bead_beside_the_rod_weighed_as_the_top_hat_sees_it)
{
    static uint8_t buf[W * H];
    const double R = 7, rho = 0.77, c = 0.5, cu = 80.3, cv = 60.6;
    /* the model's centroid, px along +x from the centre: factor x the band's -(pi rho / 4) cos */
    double band = -(M_PI * rho / 4) * c * R;
    track_detector *d = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(d != NULL);
    d->static_frames = 0;
    d->bright_tophat = 1;
    track_detector_set_marker_size(d, 2 * R, d->max_streak_px);
    static const double backdrops[] = {10, BEAD};
    for (int k = 0; k < 2; k++) {
        draw_bead(buf, cu, cv, R, rho, c, backdrops[k]);
        track_frame fr = {buf, W, H, W, 8};
        track_blob b[8];
        int nb = 0;
        ASSERT_TRUE(track_detector_detect(d, &fr, NULL, 0, b, 8, &nb, NULL) == 0);
        ASSERT_EQ_INT(nb, 1);
        double beside = track_detector_bead_beside(d, &fr, b[0].u, b[0].v, R);
        double drawn = track_bead_factor(rho, c, 1) * band, seen = track_bead_factor(rho, c, beside) * band;
        printf("    backdrop %3.0f: beside %.2f; blob %+.3f px along the rod, %+.3f across; the drawn disc's %+.3f, "
               "weighed %+.3f\n",
               backdrops[k], beside, b[0].u - cu, b[0].v - cv, drawn, seen);
        /* the bead's height over the backdrop over its height over the rod: 1 over the
           dark backdrop (210 / 205 levels, clamped), (220 - 220) / 205 = 0 over the light
           one; 0.05 for the noise (2 levels) in the circle's median and the 3 x 3 means */
        ASSERT_NEAR(beside, k == 0 ? 1 : 0, 0.05);
        /* 0.15 px: the top-hat's and the threshold's edge pixels, the 4 x 4 sampling and
           noise 2 over ~100 pixels 200 high (the centroid's sigma ~0.02 px); the two
           models differ by 0.5 px here */
        ASSERT(fabs(b[0].u - cu - seen) < 0.15, "backdrop %.0f: blob %+.3f px, model %+.3f", backdrops[k], b[0].u - cu,
               seen);
        ASSERT(fabs(b[0].v - cv) < 0.15, "backdrop %.0f: %+.3f px across the rod", backdrops[k], b[0].v - cv);
    }
    track_detector_free(d);
}

TEST(test_bead_factor_weighs_the_disc_beside_the_rod)
{
    /* only the rows |y| < rho hold the moment: with the disc beside them weighed by w the
       factor is the moment over (strip area + w x the rest); the rest's area is 2 (pi / 2
       - rho q - asin rho), q = sqrt(1 - rho^2), whatever the view */
    for (double rho = 0.3; rho < 0.9; rho += 0.2) {
        double q = sqrt(1 - rho * rho), rest = 2 * (M_PI / 2 - rho * q - asin(rho));
        for (double c = 0.2; c < 0.9; c += 0.3) {
            double k1 = track_bead_factor(rho, c, 1), k0 = track_bead_factor(rho, c, 0);
            /* k1 A1 = k0 A0 (the same moment), A1 = A0 + rest: A0 = rest k1 / (k0 - k1) */
            double a0 = rest * k1 / (k0 - k1);
            for (double w = 0.25; w < 1; w += 0.25)
                ASSERT_NEAR(track_bead_factor(rho, c, w), k0 * a0 / (a0 + w * rest), 1e-9);
            ASSERT(k0 > k1, "rho %.1f cos %.1f: factor %.4f beside 0, %.4f beside 1", rho, c, k0, k1);
        }
    }
    ASSERT_NEAR(track_bead_factor(0.5, 0.5, -1), track_bead_factor(0.5, 0.5, 0), 0); /* clamped */
    ASSERT_NEAR(track_bead_factor(0.5, 0.5, 2), track_bead_factor(0.5, 0.5, 1), 0);
}
