/* test_stored_times.c: every picture stored k times, told from per-frame evidence
 * (capture_stored_times), the rule the probe and the track stage share. */
#include "capture/capture.h"
#include "tests/harness.h"

TEST(test_stored_times_follows_the_phase_after_a_lost_picture)
{
    /* every picture twice over frames 0..59, one copy lost at frame 31 (from there the
     * new pictures sit on odd frames): the repeats follow each new picture's phase, and
     * a new picture the evidence missed (frame 10: nothing told) is not called a repeat */
    signed char ev[60] = {0};
    for (long f = 1; f < 60; f++) {
        long pic_start = f < 31 ? f % 2 == 0 : f % 2 == 1;
        ev[f] = pic_start ? 1 : -1;
    }
    ev[10] = 0;
    long out[60];
    size_t m = 0;
    ASSERT_EQ_INT(capture_stored_times(ev, 60, out, &m), 2);
    int wrong = 0, missed = 0;
    for (long f = 1; f < 60; f++) {
        int listed = 0;
        for (size_t i = 0; i < m; i++)
            listed |= out[i] == f;
        int repeat = f < 31 ? f % 2 == 1 : f % 2 == 0;
        wrong += listed && !repeat;
        missed += !listed && repeat;
    }
    ASSERT(wrong == 0 && missed == 0, "%d new pictures listed as repeats, %d repeats missed", wrong, missed);
}

TEST(test_stored_times_needs_a_steady_pattern)
{
    signed char ev[60] = {0};
    long out[60];
    size_t m = 7;
    /* 5 spacings of 2 (6 new pictures): too few to believe */
    for (long f = 2; f <= 12; f++)
        ev[f] = f % 2 == 0 ? 1 : -1;
    ASSERT_EQ_INT(capture_stored_times(ev, 60, out, &m), 0);
    ASSERT_EQ_INT((int)m, 0);
    /* 6 spacings: believed (a 30 fps phone clip stored as "60 fps" holds 8-15 while
       its ball is tracked) */
    ev[13] = -1;
    ev[14] = 1;
    ASSERT_EQ_INT(capture_stored_times(ev, 60, out, &m), 2);
    /* the same new pictures with nothing seen to repeat between them: no evidence of a
       repeat, no pattern (a scene sampled every other frame by chance) */
    for (long f = 0; f < 60; f++)
        ev[f] = ev[f] < 0 ? 0 : ev[f];
    ASSERT_EQ_INT(capture_stored_times(ev, 60, out, &m), 0);
    /* each frame new: no pattern */
    for (long f = 0; f < 60; f++)
        ev[f] = 1;
    ASSERT_EQ_INT(capture_stored_times(ev, 60, out, &m), 0);
}

TEST(test_stored_times_repeats_follow_the_phase_into_a_slow_start_and_end)
{
    /* every picture twice over 80 frames; the first 20 and the last 10 frames tell
     * nothing (a ball at the top of its flight, under a pixel a picture, as the phone
     * study's 240 fps clips start): their copies repeat on the phase of the pattern
     * told between (before: frames 1-17 and 71-79 were kept as new pictures, each second
     * position one stored interval late, the launch speed 1.0-1.2% high) */
    signed char ev[80] = {0};
    for (long f = 20; f < 70; f++)
        ev[f] = f % 2 == 0 ? 1 : -1;
    long out[80];
    size_t m = 0;
    ASSERT_EQ_INT(capture_stored_times(ev, 80, out, &m), 2);
    int wrong = 0, missed = 0;
    for (long f = 1; f < 80; f++) {
        int listed = 0;
        for (size_t i = 0; i < m; i++)
            listed |= out[i] == f;
        wrong += listed && f % 2 == 0;
        missed += !listed && f % 2 == 1;
    }
    ASSERT(wrong == 0 && missed == 0, "%d new pictures listed as repeats, %d repeats missed (of 40)", wrong, missed);
}
