/* test_ball_glint.c: a large ball with a small static glint at its rim (issue #18:
 * "a bright marker ... touching a bright edge, stays a separate blob with an unbiased
 * centroid"). As tuning scenes 1067 and 1114 (docs/track.md "Session 31"): a white ball
 * 100 px across, clipped at 255 over a light plate (182), a glint touching its rim;
 * and a gray ball (150) over a dark plate (35) with a saturated glint 1.5-2.5 px off its rim,
 * inside the ball's box. The box centroid weighs the glint's pixels (and the clipped
 * ball stands only 73 levels above the plate); the detector places a whole ball at its
 * outline's circle where the box centroid is off it beyond their noise (disc_outline.c).
 * Discs and glints supersampled 16 x 16, the ball streaked 4 px along its motion, read
 * noise 2 gray levels. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "tests/harness.h"
#include "tests/track/ball_detect.h"
#include "tests/track/render.h"
#include "track/track.h"

#define GW 240
#define GH 200

/* the centre's tolerance: 0.06 px. 72 rays meet the half-height outline (a 1-2 px
   ramp, 36-57 levels per px) to ~0.05 px each under 2 levels of noise: ~0.01 px on
   the centre; the rays beside the glint, which it lifts by under the 1 px cut, and
   the streak's ends add up to ~0.03 (0.040 at worst here). The box centroid, which the
   detector keeps where the circle is within 0.1 px of it, is 0.13-0.16 px off (the
   white ball, the glint touching) and 0.52-0.54 (the gray one, the glint in its box)
   in these frames (tuning scenes 1067 and 1114: 0.2-0.35 px) */
#define GLINT_TOL_PX 0.06
/* the glint: an ellipse 8 x 6 px (half-axes), as 1067's smeared by its blur */
#define GLINT_A 4.0
#define GLINT_B 3.0

/* A glint: an opaque ellipse of half-axes a x b (axis-aligned) at `level` */
static void glint(rn_img *im, double u, double v, double a, double b, double level)
{
    for (int y = (int)(v - b) - 1; y <= (int)(v + b) + 1; y++)
        for (int x = (int)(u - a) - 1; x <= (int)(u + a) + 1; x++) {
            int in = 0;
            for (int j = 0; j < 16; j++)
                for (int i = 0; i < 16; i++) {
                    double dx = (x - 0.5 + (i + 0.5) / 16 - u) / a, dy = (y - 0.5 + (j + 0.5) / 16 - v) / b;
                    in += dx * dx + dy * dy <= 1;
                }
            double c = in / 256.0;
            im->px[y * im->w + x] = level * c + im->px[y * im->w + x] * (1 - c);
        }
}

TEST(test_ball_glint_a_large_ball_beside_a_glint_is_placed_at_its_centre)
{
    static uint8_t buf[GW * GH];
    rn_rng rng = {31};
    double worst = 0, sum_off = 0;
    int n = 0, n_off = 0;
    for (int kind = 0; kind < 2; kind++)
        for (int rep = 0; rep < 6; rep++) {
            /* 1067: white, clipped, over a light plate, the glint touching; 1114: gray
               over a dark plate, the glint 1.5-2.5 px off the rim */
            double diam = kind ? 96 : 100, r = 0.5 * diam, plate = kind ? 35 : 182, ball = kind ? 150 : 300;
            double gap = kind ? 3 + 2.5 : 1.0; /* the glint's centre beyond the rim */
            double uc = GW / 2 + 4 * rn_uniform(&rng), vc = GH / 2 + 4 * rn_uniform(&rng);
            double ang = 2 * M_PI * rn_uniform(&rng), mv = 2 * M_PI * rn_uniform(&rng);
            rn_img im = rn_new(GW, GH, plate);
            /* the streak's mean is the ball's centre; its disc added over the plate it hides */
            rn_disc_streak(&im, uc - 2 * cos(mv), vc - 2 * sin(mv), uc + 2 * cos(mv), vc + 2 * sin(mv), r, ball - plate);
            glint(&im, uc + (r + gap) * cos(ang), vc + (r + gap) * sin(ang), GLINT_A, GLINT_B, 255);
            rn_to_u8(&im, 2, &rng, buf);
            rn_free(&im);
            track_blob on, off;
            ASSERT(ball_detect_nearest(buf, GW, GH, diam, 1, uc, vc, &on) == 0 &&
                       ball_detect_nearest(buf, GW, GH, diam, 0, uc, vc, &off) == 0,
                   "ball %d rep %d: no blob at the ball", kind, rep);
            double e_on = hypot(on.u - uc, on.v - vc), e_off = hypot(off.u - uc, off.v - vc);
            ASSERT(e_on < GLINT_TOL_PX, "ball %d rep %d, glint at %.2f rad: centre %.3f px off (tolerance %.2f; "
                   "centroid %.3f off)", kind, rep, ang, e_on, GLINT_TOL_PX, e_off);
            worst = fmax(worst, e_on);
            sum_off += e_off;
            n_off += e_off > GLINT_TOL_PX;
            n++;
        }
    /* the glint pulls the box centroid beyond the tolerance: the case is one the old
       detector failed */
    ASSERT(n_off >= n / 2, "the box centroid off beyond %.2f px in %d of %d frames only", GLINT_TOL_PX, n_off, n);
    printf("    %d balls of 96-100 px with a glint at the rim: centre %.3f px off at worst (box centroid %.3f px at "
           "the mean, beyond %.2f in %d)\n", n, worst, sum_off / n, GLINT_TOL_PX, n_off);
}
