/* test_detector_renew.c: track_detector_renew, which `auto`'s look trials use to reuse
 * one trial detector a camera (track/look.c): a detector renewed after detections in
 * other looks (its statics, learnt peak, noise, top-hat radii and binned states set)
 * is field for field a fresh one, and detects exactly what a fresh one does. Frames
 * drawn by render.h: dark bands on a light rod over a dark floor, and bright discs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "track/detect_internal.h"
#include "track/track.h"
#include "tests/harness.h"
#include "tests/track/render.h"

#define W 320
#define H 240

/* The detector's fields and its workspace's scalars, pointers left out */
static int same_as_fresh(const track_detector *a, const track_detector *b)
{
    track_detector x = *a, y = *b;
    x.ws = y.ws = NULL;
    if (memcmp(&x, &y, sizeof x))
        return 0;
    struct track_detector_ws u = *a->ws, v = *b->ws;
    void **pu[] = {(void **)&u.runs, (void **)&u.parent, (void **)&u.label, (void **)&u.comps, (void **)&u.hist,
                   (void **)&u.cov_class, (void **)&u.cov_near, (void **)&u.cov_grad, (void **)&u.tile_level,
                   (void **)&u.tile_noise, (void **)&u.tile_t, (void **)&u.tile_lit, &u.col_max, (void **)&u.samp,
                   &u.plane, &u.morph_a, &u.morph_b, &u.morph_rows, &u.still, &u.binned, &u.binned_tophat, &u.planes};
    void **pv[] = {(void **)&v.runs, (void **)&v.parent, (void **)&v.label, (void **)&v.comps, (void **)&v.hist,
                   (void **)&v.cov_class, (void **)&v.cov_near, (void **)&v.cov_grad, (void **)&v.tile_level,
                   (void **)&v.tile_noise, (void **)&v.tile_t, (void **)&v.tile_lit, &v.col_max, (void **)&v.samp,
                   &v.plane, &v.morph_a, &v.morph_b, &v.morph_rows, &v.still, &v.binned, &v.binned_tophat, &v.planes};
    for (size_t k = 0; k < sizeof pu / sizeof *pu; k++)
        *pu[k] = *pv[k] = NULL;
    return memcmp(&u, &v, sizeof u) == 0;
}

/* frame k: a banded rod (dark bands, level 12, on a rod of 200 over a floor of 12) and
 * two bright discs (230) on the floor, noise 3 */
static void draw(int k, uint8_t *buf, rn_rng *rng)
{
    double bu[3], bv[3];
    rn_img im = rn_new(W, H, 12);
    rn_banded_rod(&im, 160 + 3.3 * k, 120 - 2.1 * k, 0.35 + 0.6 * k, 4, 200, 12, 12, bu, bv);
    rn_disc(&im, 40 + 2 * k, 40, 5, 218, 1);
    rn_disc(&im, 280, 200 - 3 * k, 5, 218, 1);
    rn_to_u8(&im, 3, rng, buf);
    rn_free(&im);
}

/* the trial's settings as look.c sets them */
static void set_look(track_detector *d, track_look look, int tophat)
{
    track_detector_set_marker_size(d, 8, d->max_streak_px);
    d->static_frames = 0;
    d->n_markers = 3;
    d->look = look;
    d->bright_tophat = tophat;
}

TEST(test_detector_renewed_after_other_looks_detects_as_a_fresh_one)
{
    static uint8_t buf[4][W * H];
    rn_rng rng = {30};
    for (int k = 0; k < 4; k++)
        draw(k, buf[k], &rng);
    track_detector *used = track_detector_alloc(W, H, NULL), *fresh = track_detector_alloc(W, H, NULL);
    ASSERT_TRUE(used && fresh);
    /* bright, its white top-hat, then dark: every state the trials leave set */
    const track_look looks[3] = {TRACK_LOOK_BRIGHT, TRACK_LOOK_BRIGHT, TRACK_LOOK_DARK};
    for (int li = 0; li < 3; li++) {
        track_detector_renew(used);
        set_look(used, looks[li], li == 1);
        for (int k = 0; k < 4; k++) {
            track_frame fr = {buf[k], W, H, W, 8};
            track_blob b[64];
            int nb = 0;
            ASSERT_TRUE(track_detector_detect(used, &fr, NULL, 0, b, 64, &nb, NULL) == 0);
        }
    }
    ASSERT(used->ws->tophat_r > 0 && used->ws->n_full_scans > 0, "the dark look ran: top-hat r %d, %ld full scans",
           used->ws->tophat_r, used->ws->n_full_scans);
    ASSERT_TRUE(!same_as_fresh(used, fresh)); /* the comparison sees the state */
    track_detector_renew(used);
    ASSERT_TRUE(same_as_fresh(used, fresh));
    /* each look again on both: the same blobs, bit for bit (a renewed buffer holds the
       last look's pixels; a fresh one what malloc gave: neither is read before written) */
    int total = 0;
    for (int li = 0; li < 3; li++) {
        track_detector_renew(used);
        track_detector_free(fresh);
        fresh = track_detector_alloc(W, H, NULL);
        ASSERT_TRUE(fresh != NULL);
        set_look(used, looks[li], li == 1);
        set_look(fresh, looks[li], li == 1);
        for (int k = 3; k >= 0; k--) {
            track_frame fr = {buf[k], W, H, W, 8};
            track_blob bu[64], bf[64];
            int nu = 0, nf = 0;
            memset(bu, 0, sizeof bu);
            memset(bf, 0, sizeof bf);
            ASSERT_TRUE(track_detector_detect(used, &fr, NULL, 0, bu, 64, &nu, NULL) == 0);
            ASSERT_TRUE(track_detector_detect(fresh, &fr, NULL, 0, bf, 64, &nf, NULL) == 0);
            ASSERT(nu == nf && memcmp(bu, bf, sizeof bu) == 0, "look %d frame %d: %d blobs renewed, %d fresh", li, k,
                   nu, nf);
            ASSERT(memcmp(&used->stats, &fresh->stats, sizeof used->stats) == 0, "look %d frame %d: stats differ",
                   li, k);
            total += nu;
        }
        ASSERT_TRUE(same_as_fresh(used, fresh));
    }
    ASSERT(total >= 12, "%d blobs in all: the frames' discs and bands were found", total);
    track_detector_free(used);
    track_detector_free(fresh);
}
