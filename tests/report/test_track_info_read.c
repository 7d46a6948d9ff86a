/* test_track_info_read.c: DIR/track_info.json (report_track_info_read) from a damaged
 * or edited file (found by tests/fuzz/fuzz_track_info.c): frames_tracked of 1e15 sized
 * the brightness series at 8e15 bytes, and a first_frame of -(2^63 - 1) overflowed its
 * index (UBSan). Both are refused with the limit named. */
#include "report/report_internal.h"
#include "tests/harness.h"

static int read_ti(const char *camera, icv_err *err)
{
    char json[600];
    snprintf(json, sizeof json, "{\"schema\": \"impactcv-track-info-1\", \"cameras\": [%s]}", camera);
    if (th_write_file(th_tmp("track_info.json"), json))
        return -100;
    static report_track_info ti;
    int rc = report_track_info_read(th_tmp("track_info.json"), &ti, err);
    if (rc == 0)
        report_track_info_free(&ti);
    return rc;
}

TEST(test_track_info_read_takes_a_flash_window)
{
    icv_err err = {0};
    int rc = read_ti("{\"id\": \"left\", \"frames\": 100, \"frames_tracked\": 100, \"flash\": {\"frame\": 30}, "
                     "\"brightness\": {\"first_frame\": 10, \"mean_gray\": [1, 2, 3]}}",
                     &err);
    ASSERT(rc == 0, "%s", err.msg);
}

/* the series is the file's window: frames_tracked at the limit (1e8) with a 3-frame
 * window late in it asked for 800 MB before */
TEST(test_track_info_read_keeps_the_window_not_the_frames_tracked)
{
    const char *json = "{\"schema\": \"impactcv-track-info-1\", \"cameras\": [{\"id\": \"left\", \"frames\": "
                       "100000000, \"frames_tracked\": 100000000, \"flash\": {\"frame\": 99999990}, "
                       "\"brightness\": {\"first_frame\": 99999989, \"mean_gray\": [1, 2, 3]}}]}";
    ASSERT_EQ_INT(th_write_file(th_tmp("track_info.json"), json), 0);
    static report_track_info ti;
    icv_err err = {0};
    ASSERT(report_track_info_read(th_tmp("track_info.json"), &ti, &err) == 0, "%s", err.msg);
    const capture_probe *p = &ti.probe[0];
    long n = p->n_brightness, first = p->brightness_first;
    double mid = p->brightness ? p->brightness[1] : NAN;
    report_track_info_free(&ti);
    ASSERT_EQ_INT((int)n, 3);
    ASSERT_EQ_INT((int)first, 99999989);
    ASSERT(mid == 2.0, "frame 99999990's brightness %g, want 2", mid);
}

TEST(test_track_info_read_refuses_frame_numbers_beyond_the_limit)
{
    const char *bad[] = {"{\"frames_tracked\": 1000000000000000, \"brightness\": {\"first_frame\": 0, \"mean_gray\": [1]}}",
                         "{\"frames_tracked\": 100, \"brightness\": {\"first_frame\": -9223372036854775807, "
                         "\"mean_gray\": [1]}}",
                         "{\"frames_tracked\": 100, \"flash\": {\"frame\": -9223372036854775807}}"};
    const char *name[] = {"frames_tracked", "brightness.first_frame", "flash.frame"};
    for (int k = 0; k < 3; k++) {
        icv_err err = {0};
        int rc = read_ti(bad[k], &err);
        ASSERT(rc == ICV_EFORMAT, "case %d accepted (rc %d)", k, rc);
        ASSERT_STR_CONTAINS(err.msg, "track_info.json: camera 0: ");
        ASSERT_STR_CONTAINS(err.msg, name[k]);
        ASSERT_STR_CONTAINS(err.msg, "not a frame number in [0, 100000000]");
    }
}
