/* test_duplicate_motion.c: a duplicated frame matters only while the markers move
 * (track_duplicates_in_motion): constructed tracks, still then moving. */
#include <math.h>

#include "tests/harness.h"
#include "track/track_3d.h"

TEST(test_duplicates_count_only_while_the_markers_move)
{
    /* two tracks over frames 0..9: still until frame 4, then marker 0 moves 3 px a
     * frame (marker 1 stays); frame 7 repeats frame 6 (as a repeated picture shows:
     * the same positions) */
    track_raw_point raw[20];
    int n = 0;
    for (long f = 0; f < 10; f++) {
        double u0 = f <= 4 ? 100 : 100 + 3.0 * (f - 4);
        if (f == 7)
            u0 = 100 + 3.0 * 2; /* frame 7 = frame 6 */
        raw[n++] = (track_raw_point){f, 0, u0, 50, 0.05, 30, 0, NAN, NAN};
        raw[n++] = (track_raw_point){f, 1, 200, 80, 0.05, 30, 0, NAN, NAN};
    }
    long dup[] = {2, 3, 7}, out[3];
    /* 2 and 3: nothing moves between 1 and 3, 2 and 4; 7: marker 0 moves 6 -> 8, 6 px */
    size_t m = track_duplicates_in_motion(raw, n, dup, 3, 1.0, out);
    ASSERT_EQ_INT((int)m, 1);
    ASSERT_EQ_INT((int)out[0], 7);
    /* the first moving frame (4 -> 5 moves 3 px; frame 4 equal to 3 has 3 and 5 either
     * side: 3 px apart) counts: the camera cannot have seen it twice */
    long dup2[] = {4};
    ASSERT_EQ_INT((int)track_duplicates_in_motion(raw, n, dup2, 1, 1.0, out), 1);
    /* a threshold above the motion: none */
    ASSERT_EQ_INT((int)track_duplicates_in_motion(raw, n, dup, 3, 10.0, out), 0);
    /* a duplicate at the clip's last frame: no frame after it, no motion seen */
    long dup3[] = {9};
    ASSERT_EQ_INT((int)track_duplicates_in_motion(raw, n, dup3, 1, 1.0, out), 0);
}

TEST(test_duplicates_in_a_still_scene_stay_still_beside_one_stray_track)
{
    /* three still markers and a stray track (a flash lighting a lit plate's texture)
     * that jumps 20 px a frame; frame 4 repeats frame 3: the scene is still by the
     * tracks' median, so the repeat is no timing fault (the largest track's move said
     * it was) */
    track_raw_point raw[40];
    int n = 0;
    for (long f = 0; f < 8; f++) {
        for (int m = 0; m < 3; m++)
            raw[n++] = (track_raw_point){f, m, 100 + 40 * m, 50, 0.05, 30, 0, NAN, NAN};
        raw[n++] = (track_raw_point){f, 3, 300 + 20.0 * f, 200, 0.05, 30, 0, NAN, NAN};
    }
    long dup[] = {4}, out[1];
    ASSERT_EQ_INT((int)track_duplicates_in_motion(raw, n, dup, 1, 1.0, out), 0);
}

/* track_repeated_pictures' count of frames (0 with no pattern), asserting no error */
static size_t repeats(const track_raw_point *raw, long n, long frames, long *out, double *times)
{
    size_t m = 99;
    icv_err err = {0};
    if (track_repeated_pictures(raw, n, frames, 1.0, out, &m, times, &err) != 0)
        return 99;
    return m;
}

/* a marker along u: picture p at u0 + step p (+ a fixed jitter of the re-encoding),
 * each picture stored `times` times from frame 0; missing: a frame with no point */
static int stored_track(track_raw_point *raw, long frames, int times, double step, double sigma, long missing)
{
    int n = 0;
    for (long f = 0; f < frames; f++) {
        if (f == missing)
            continue;
        long pic = f / times;
        double jitter = 0.3 * sigma * ((f * 7919) % 5 - 2) / 2.0; /* within 0.3 sigma */
        raw[n++] = (track_raw_point){
            f, 0, 100 + step * (double)pic + jitter, 50 + 0.5 * step * (double)pic, sigma, 30, 0, NAN, NAN};
    }
    return n;
}

TEST(test_repeated_pictures_every_picture_stored_twice_found_from_the_tracks)
{
    /* a phone's "60 fps" file holding 30 pictures/s: each picture twice, re-encoded
     * (copies 0.3 sigma apart, no pixel test sees them); the ball moves 8 px per
     * picture: frames 1, 3, 5, ... repeat */
    track_raw_point raw[64];
    long out[64];
    double times;
    int n = stored_track(raw, 40, 2, 8.0, 0.05, -1);
    size_t m = repeats(raw, n, 40, out, &times);
    ASSERT_EQ_INT((int)m, 20); /* 1, 3, ..., 39 (1 and 39 by the phase: no step before 1, no
                                  jump after 39) */
    for (size_t i = 0; i < m; i++)
        ASSERT_EQ_INT((int)out[i], (int)(2 * i + 1));
    ASSERT_NEAR(times, 2.0, 0.1); /* 20 moves, 19 repeats (+- the clip's end) */
    /* the marker missed in frame 10: frame 11 (the repeat of 10) cannot be compared with
       it, and is one by the pictures' phase */
    n = stored_track(raw, 40, 2, 8.0, 0.05, 10);
    m = repeats(raw, n, 40, out, &times);
    ASSERT_EQ_INT((int)m, 20);
    ASSERT_EQ_INT((int)out[5], 11);
    /* three times */
    n = stored_track(raw, 45, 3, 8.0, 0.05, -1);
    m = repeats(raw, n, 45, out, &times);
    ASSERT_EQ_INT((int)m, 30); /* 1, 2, 4, 5, ..., 43, 44 */
    ASSERT_NEAR(times, 3.0, 0.15);
}

TEST(test_repeated_pictures_none_in_a_steady_or_slow_track)
{
    track_raw_point raw[200];
    long out[200];
    double times;
    /* each picture once, 8 px a frame: none */
    int n = stored_track(raw, 40, 1, 8.0, 0.05, -1);
    ASSERT_EQ_INT((int)repeats(raw, n, 40, out, &times), 0);
    ASSERT_NEAR(times, 1.0, 1e-9);
    /* a slow track at a high rate: 0.25 px a frame with 0.1 px noise per point (within
       3 sigma every frame, yet 1 px in 4 frames): steady, no repeat */
    for (long f = 0; f < 200; f++) {
        double noise = 0.1 * (((f * 7919) % 7) - 3) / 3.0;
        raw[f] = (track_raw_point){f, 0, 100 + 0.25 * (double)f + noise, 50, 0.1, 30, 0, NAN, NAN};
    }
    ASSERT_EQ_INT((int)repeats(raw, 200, 200, out, &times), 0);
    /* still: none */
    n = stored_track(raw, 40, 2, 0.0, 0.05, -1);
    ASSERT_EQ_INT((int)repeats(raw, n, 40, out, &times), 0);
}

TEST(test_repeated_pictures_a_few_standstills_of_noise_are_no_pattern)
{
    /* a track moving 1.2 px a frame whose noise the tracker's sigma (0.05 px)
       understates: frames 20, 45, 70 and 95 stand still, then it moves on; four
       lone standstills over 120 frames are not a file storing pictures twice */
    track_raw_point raw[120];
    long out[120];
    double times;
    for (long f = 0; f < 120; f++) {
        long g = f - (f >= 20) - (f >= 45) - (f >= 70) - (f >= 95); /* one step behind after each */
        raw[f] = (track_raw_point){f, 0, 100 + 1.2 * (double)g, 50, 0.05, 30, 0, NAN, NAN};
    }
    ASSERT_EQ_INT((int)repeats(raw, 120, 120, out, &times), 0);
    ASSERT_NEAR(times, 1.0, 1e-9);
}
