/* test_tracker_blip.c: one marker's centroid off by ~1 px for a single frame (a ball
 * half behind its post, a band merged with a glint for a frame: seed 1028 of the scene
 * study) must not cost it its identity (issue #18). A settled filter (sigma_floor_px
 * 0.1) follows that frame with a velocity and acceleration that put the next
 * prediction ~2.5x the blip away, outside its 2 px gate; with still glints in view
 * (pairs 5 px apart, as a board's squares or a post's highlights give) the body's
 * configuration cannot take the marker back either: the glints outvote it. */
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 512
#define H 418
#define NF 40
#define NG 6

/* px: a triangle of markers 30-40 px apart moving 3 px a frame right and 0.8 down */
static void markers_at(int f, double u[3], double v[3])
{
    static const double bu[3] = {-20, 18, 0}, bv[3] = {-10, -12, 22};
    for (int k = 0; k < 3; k++) {
        u[k] = 120 + 3.0 * f + bu[k];
        v[k] = 150 + 0.8 * f + bv[k];
    }
}

/* Runs the sequence; marker 1 is drawn `blip` px low in frame 20. *changed: marker 1's
 * points in frames 21-39 under another identity than before the blip; *measured_after:
 * its frames measured after it. */
static void run(double blip, int *changed_out, int *measured_after, int *n_ids)
{
    static uint8_t buf[W * H];
    static const double gu[NG] = {140, 145, 250, 255, 180, 185}, gv[NG] = {90, 90, 230, 230, 100, 100};
    rn_rng rng = {7};
    track_detector *det = track_detector_alloc(W, H, NULL);
    track_tracker *tr = track_tracker_alloc(NULL);
    ASSERT_TRUE(det && tr);
    tr->n_expected = 3;
    int id_before = -1, changed = 0;
    *measured_after = 0;
    for (int f = 0; f < NF; f++) {
        double u[3], v[3];
        markers_at(f, u, v);
        rn_img im = rn_new(W, H, 20);
        for (int k = 0; k < 3; k++)
            rn_gauss_spot(&im, u[k], v[k] + (k == 1 && f == 20 ? blip : 0), 1.5, 200, 1);
        for (int g = 0; g < NG; g++)
            rn_gauss_spot(&im, gu[g], gv[g], 1.5, 200, 1);
        rn_to_u8(&im, 2, &rng, buf);
        rn_free(&im);
        track_frame fr = {buf, W, H, W, 8};
        track_point pts[64];
        int np;
        ASSERT_TRUE(track_tracker_step(tr, det, &fr, pts, 64, &np, NULL) == 0);
        for (int i = 0; i < np; i++) {
            const track_point *p = &pts[i];
            int pf = f + p->frame_offset;
            if (p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED) || pf < 0)
                continue;
            double tu[3], tv[3];
            markers_at(pf, tu, tv);
            if (hypot(p->u - tu[1], p->v - tv[1]) > 2)
                continue; /* another marker or a glint */
            if (pf < 20)
                id_before = p->marker;
            else if (pf > 20) {
                (*measured_after)++;
                changed += p->marker != id_before;
            }
        }
    }
    *n_ids = tr->n_identities;
    *changed_out = changed;
    track_tracker_free(tr);
    track_detector_free(det);
}

TEST(test_one_frame_centroid_blip_keeps_the_identity_among_still_glints)
{
    int changed, after, ids;
    run(1.2, &changed, &after, &ids);
    printf("    blip 1.2 px: marker 1 measured in %d of %d frames after it, %d under another identity; %d "
           "identities (3 markers, %d glints)\n",
           after, NF - 21, changed, ids, NG);
    /* before the fix: 19 of 19 under a new identity, 12 identities */
    ASSERT_EQ_INT(changed, 0);
    ASSERT_EQ_INT(after, NF - 21); /* found again in the very next frame, every frame */
    int ids_blip = ids;
    /* control: without the blip the same sequence keeps it too */
    run(0, &changed, &after, &ids);
    printf("    no blip: %d under another identity, %d identities\n", changed, ids);
    ASSERT_EQ_INT(changed, 0);
    ASSERT_EQ_INT(ids_blip, ids); /* the blip makes no new track */
}
