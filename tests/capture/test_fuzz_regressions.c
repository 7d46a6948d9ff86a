/* test_fuzz_regressions.c: the inputs of the fuzz runs' findings (30-minute runs, CI's),
 * read as the harnesses read them. They overflowed under ASan and UBSan (the
 * sanitizer pass of make test is where these fail on the old code); here each must
 * come back as data or one error line. */
#include <math.h>
#include <string.h>

#include "calib/calib.h"
#include "capture/capture.h"
#include "tests/harness.h"

TEST(test_fuzz_regression_video_frame_decoded_beyond_the_index)
{
    /* fuzz_video: a 2 KB mp4 whose decoder returned a frame numbered past the index
       built at open: capture_source_read read pts_s[index] out of bounds (ASan: heap
       overflow, source.c:152) */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/video/regress_frame_beyond_index.bin", th_root());
    for (int eight = 0; eight < 2; eight++) {
        capture_options opt = {0};
        opt.threads = 1;
        opt.want_8bit = eight;
        capture_source *src = NULL;
        icv_err err = {0};
        if (capture_source_open(&src, path, &opt, &err) != 0)
            continue; /* refused at open: fine */
        capture_frame f = {0};
        ASSERT(capture_frame_alloc(&f, capture_source_info(src), &err) == 0, "%s", err.msg);
        long n = capture_source_info(src)->frames;
        int rc = 0;
        for (int i = 0; i < 3 && rc == 0; i++) {
            rc = capture_source_read(src, &f, &err);
            ASSERT(rc != 0 || (f.index >= 0 && f.index < n), "frame %ld read from an index of %ld", f.index, n);
        }
        capture_frame_free(&f);
        capture_source_close(src);
    }
}

TEST(test_fuzz_regression_video_info_list_inside_a_damaged_list)
{
    /* CI's 60 s fuzz_video run: an 802-byte AVI whose stream list type is damaged
       ("ytrl", stating more than the file) holds a LIST INFO with a tag stating
       1,821,679,180 bytes; FFmpeg reads into any list and allocated the tag (libFuzzer
       out-of-memory, 2.4 GB) */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/video/regress_avi_info_in_damaged_list.avi", th_root());
    capture_source *src = NULL;
    icv_err err = {0};
    ASSERT(capture_source_open(&src, path, NULL, &err) == ICV_EFORMAT, "opened: %s", err.msg);
    ASSERT_STR_CONTAINS(err.msg, "damaged header: a chunk at byte 432 states 1821679180 bytes");
}

TEST(test_fuzz_regression_calib_coverage_map_beyond_a_count)
{
    /* fuzz_calib: a calibration file whose coverage_map holds 4.4e20 (UBSan:
       float-cast-overflow to unsigned short, file_quality.c:123): the map is not
       counts, so it is left unknown; the camera itself still reads */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/calib/regress_coverage_map_4e20.yaml", th_root());
    calib_camera cam;
    memset(&cam, 0, sizeof cam);
    icv_err err = {0};
    if (calib_camera_file_read(path, &cam, &err) == 0) {
        ASSERT(isnan(cam.coverage), "coverage %g from a map that is not counts", cam.coverage);
        calib_camera_free(&cam);
    }
}

TEST(test_fuzz_regression_calib_file_that_filestorage_never_finishes)
{
    /* fuzz_calib's 30-minute run: a 256-byte damaged calibration file on which
       OpenCV 4.6's FileStorage YAML parser never returns (over 2 minutes, killed); the
       file is now checked by libyaml first and refused with its line */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/calib/regress_filestorage_loops.yaml", th_root());
    calib_camera cam;
    memset(&cam, 0, sizeof cam);
    icv_err err = {0};
    ASSERT(calib_camera_file_read(path, &cam, &err) == ICV_EFORMAT, "read: %s", err.msg);
    ASSERT_STR_CONTAINS(err.msg, "regress_filestorage_loops.yaml:");
    ASSERT_STR_CONTAINS(err.msg, "not valid YAML");
}

TEST(test_fuzz_regression_calib_xml_with_nul_bytes_is_refused_not_read_by_opencv)
{
    /* fuzz_calib (session 12): an OpenCV XML calibration with NUL bytes inside a tag
       made OpenCV 4.6's FileStorage XML parser read through a null pointer (SEGV);
       calibration files are parsed by libyaml / libxml2 now, and a NUL byte is refused */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/calib/regress_xml_nul_bytes.xml", th_root());
    calib_camera cam;
    memset(&cam, 0, sizeof cam);
    icv_err err = {0};
    ASSERT(calib_camera_file_read(path, &cam, &err) == ICV_EFORMAT, "read: %s", err.msg);
    ASSERT_STR_CONTAINS(err.msg, "regress_xml_nul_bytes.xml: holds a NUL byte");
}
