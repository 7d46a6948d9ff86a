/* test_duplicate_motion.c: a duplicated frame matters only while the markers move
 * (pl_duplicates_in_motion): constructed tracks, still then moving. */
#include <math.h>

#include "tests/harness.h"
#include "track/pipeline_internal.h"

TEST(test_duplicates_count_only_while_the_markers_move)
{
    /* two tracks over frames 0..9: still until frame 4, then marker 0 moves 3 px a
     * frame (marker 1 stays); frame 7 repeats frame 6 (as a repeated picture shows:
     * the same positions) */
    raw_point raw[20];
    int n = 0;
    for (long f = 0; f < 10; f++) {
        double u0 = f <= 4 ? 100 : 100 + 3.0 * (f - 4);
        if (f == 7)
            u0 = 100 + 3.0 * 2; /* frame 7 = frame 6 */
        raw[n++] = (raw_point){f, 0, u0, 50, 0.05, 30, 0, NAN, NAN};
        raw[n++] = (raw_point){f, 1, 200, 80, 0.05, 30, 0, NAN, NAN};
    }
    long dup[] = {2, 3, 7}, out[3];
    /* 2 and 3: nothing moves between 1 and 3, 2 and 4; 7: marker 0 moves 6 -> 8, 6 px */
    size_t m = pl_duplicates_in_motion(raw, n, dup, 3, 1.0, out);
    ASSERT_EQ_INT((int)m, 1);
    ASSERT_EQ_INT((int)out[0], 7);
    /* the first moving frame (4 -> 5 moves 3 px; frame 4 equal to 3 has 3 and 5 either
     * side: 3 px apart) counts: the camera cannot have seen it twice */
    long dup2[] = {4};
    ASSERT_EQ_INT((int)pl_duplicates_in_motion(raw, n, dup2, 1, 1.0, out), 1);
    /* a threshold above the motion: none */
    ASSERT_EQ_INT((int)pl_duplicates_in_motion(raw, n, dup, 3, 10.0, out), 0);
    /* a duplicate at the clip's last frame: no frame after it, no motion seen */
    long dup3[] = {9};
    ASSERT_EQ_INT((int)pl_duplicates_in_motion(raw, n, dup3, 1, 1.0, out), 0);
}

TEST(test_duplicates_in_a_still_scene_stay_still_beside_one_stray_track)
{
    /* three still markers and a stray track (a flash lighting a lit plate's texture)
     * that jumps 20 px a frame; frame 4 repeats frame 3: the scene is still by the
     * tracks' median, so the repeat is no timing fault (the largest track's move said
     * it was) */
    raw_point raw[40];
    int n = 0;
    for (long f = 0; f < 8; f++) {
        for (int m = 0; m < 3; m++)
            raw[n++] = (raw_point){f, m, 100 + 40 * m, 50, 0.05, 30, 0, NAN, NAN};
        raw[n++] = (raw_point){f, 3, 300 + 20.0 * f, 200, 0.05, 30, 0, NAN, NAN};
    }
    long dup[] = {4}, out[1];
    ASSERT_EQ_INT((int)pl_duplicates_in_motion(raw, n, dup, 1, 1.0, out), 0);
}
