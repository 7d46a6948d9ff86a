/* test_look.c: issue #18's scenes where no look fitted or the blobs were too many:
 * thousands of specks smaller than a marker (a coded black backdrop) leave the markers
 * below them measured. Frames drawn by render.h with known centres. */
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
