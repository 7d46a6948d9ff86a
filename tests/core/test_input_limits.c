/* test_input_limits.c: bounded input (issue #20 items 3, 5, 9, 10). Every YAML file
 * is bounded in size, nesting and entries per list or mapping (libyaml's loader is
 * quadratic in depth: 50,000 nested maps took 37 s); duplicate keys, a second
 * document and hexadecimal numbers are errors; numbers that become sizes or indices
 * (roi, board, sync offsets, capture_fps) are bounded, each message naming the key
 * and the limit, and the roi shown as written. The UBSan cases of the issue (roi
 * 1e10, board sizes, an empty video folder given to qsort) run here under the
 * sanitized build. */
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "calib/calib.h"
#include "calib/calib_internal.h"
#include "core/core.h"
#include "tests/harness.h"
#include "track/track.h"

static const char base[] =
    "name: limits\n"
    "cameras:\n"
    "  - id: left\n"
    "    video: left.mp4\n"
    "calibration:\n"
    "  board: {cols: 9, rows: 6, square: 0.023}\n"
    "  images: {left: \"calib/*.png\"}\n"
    "motion_plane: {scale: gravity}\n"
    "body:\n"
    "  mass: 0.169\n"
    "  inertia: [[1.312e-3,0,0],[0,3.8e-9,0],[0,0,1.312e-3]]\n"
    "  markers: [[0,0.127,0],[0,0,0],[0,-0.127,0]]\n";

/* base with `from` replaced by `to` (or to appended when from is NULL); loaded */
static int load_variant(const char *from, const char *to, icv_err *err)
{
    static char buf[16384];
    const char *p = from ? strstr(base, from) : NULL;
    if (from && !p)
        return icv_err_set(err, ICV_EINVAL, "test: '%s' not in the base file", from);
    if (p)
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - base), base, to, p + strlen(from));
    else
        snprintf(buf, sizeof buf, "%s%s", base, to);
    th_write_file(th_tmp("experiment.yaml"), buf);
    static icv_experiment e;
    return icv_experiment_load(th_tmp("experiment.yaml"), &e, err);
}

TEST(test_limits_base_file_loads)
{
    icv_err err = {0};
    ASSERT(load_variant(NULL, "", &err) == 0, "%s", err.msg);
}

TEST(test_limits_yaml_larger_than_4_mib_is_refused_unread)
{
    FILE *f = fopen(th_tmp("experiment.yaml"), "w");
    ASSERT(f, "cannot write");
    fputs(base, f);
    for (int i = 0; i < (5 << 20) / 64; i++)
        fputs("# a comment line that only makes the file larger than the limit.\n", f);
    fclose(f);
    static icv_experiment e;
    icv_err err = {0};
    ASSERT(icv_experiment_load(th_tmp("experiment.yaml"), &e, &err) != 0, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "bytes, above the limit of 4194304 bytes for a YAML file");
}

TEST(test_limits_yaml_nested_50000_deep_fails_fast_naming_the_limit)
{
    enum { DEPTH = 50000 };
    static char text[DEPTH * 5 + 2048];
    size_t k = (size_t)snprintf(text, sizeof text, "%sx: ", base);
    for (int i = 0; i < DEPTH; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "{a: ");
    k += (size_t)snprintf(text + k, sizeof text - k, "1");
    for (int i = 0; i < DEPTH; i++)
        text[k++] = '}';
    text[k++] = '\n';
    text[k] = 0;
    th_write_file(th_tmp("experiment.yaml"), text);
    static icv_experiment e;
    icv_err err = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = icv_experiment_load(th_tmp("experiment.yaml"), &e, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    ASSERT(rc != 0, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml:13: x.a.a.a.a");
    ASSERT_STR_CONTAINS(err.msg, "nested deeper than the limit of 64 levels");
    ASSERT_NEAR(s, 0, 1.0); /* was 37 s; stops at the 65th level (ASan build included) */
}

TEST(test_limits_yaml_list_longer_than_the_limit_names_its_key)
{
    static char text[100001 * 3 + 1024];
    size_t k = (size_t)snprintf(text, sizeof text, "%sextra:\n  values: [", base);
    for (int i = 0; i <= ICV_YAML_MAX_ITEMS; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%s0", i ? "," : "");
    snprintf(text + k, sizeof text - k, "]\n");
    th_write_file(th_tmp("experiment.yaml"), text);
    static icv_experiment e;
    icv_err err = {0};
    ASSERT(icv_experiment_load(th_tmp("experiment.yaml"), &e, &err) != 0, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml:14: extra.values: more than the limit of 100000 entries in one list");
}

TEST(test_limits_duplicate_key_is_an_error_naming_both_lines)
{
    icv_err err = {0};
    ASSERT(load_variant("  mass: 0.169\n", "  mass: 0.169\n  mass: 0.5\n", &err) != 0, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml:11: duplicate key 'mass' (first at line 10)");
    ASSERT(load_variant(NULL, "name: other\n", &err) != 0, "a duplicate top-level key accepted");
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml:13: duplicate key 'name' (first at line 1)");
}

TEST(test_limits_second_yaml_document_is_an_error)
{
    icv_err err = {0};
    ASSERT(load_variant(NULL, "---\nname: second\n", &err) != 0, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml:13: a second YAML document ('---')");
}

TEST(test_limits_hexadecimal_number_is_refused_saying_what_was_read)
{
    icv_err err = {0};
    ASSERT(load_variant("mass: 0.169", "mass: 0x10", &err) != 0, "accepted as 16");
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml:10: body.mass: expected a decimal number, got '0x10' "
                                 "(hexadecimal is not read)");
}

TEST(test_limits_roi_1e10_is_refused_as_written)
{
    icv_err err = {0};
    /* (int)1e10 was undefined (UBSan at core/experiment.c) and showed as -2147483648 */
    ASSERT(load_variant("    video: left.mp4\n", "    video: left.mp4\n    roi: [0, 0, 1e10, 1e10]\n", &err) != 0,
           "accepted");
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml:5: cameras[0].roi: [0, 0, 1e10, 1e10]: x + w and y + h must be at "
                                 "most 65536 px");
    ASSERT(load_variant("    video: left.mp4\n", "    video: left.mp4\n    roi: [10, 0, -5, 20.0]\n", &err) != 0,
           "accepted");
    ASSERT_STR_CONTAINS(err.msg, "cameras[0].roi: [10, 0, -5, 20.0]: expected [x, y, w, h]");
}

TEST(test_limits_board_sync_and_fps_bounds_name_key_and_limit)
{
    icv_err err = {0};
    ASSERT(load_variant("cols: 9, rows: 6", "cols: 2000000000, rows: 2000000000", &err) != 0, "board accepted");
    ASSERT_STR_CONTAINS(err.msg, "calibration.board: 2000000000x2000000000 inner corners: cols and rows are at most "
                                 "100 each");
    ASSERT(load_variant("    video: left.mp4\n", "    video: left.mp4\n    capture_fps: 1e300\n", &err) != 0,
           "fps accepted");
    ASSERT_STR_CONTAINS(err.msg, "cameras[0].capture_fps: 1e+300 Hz is above the limit of 1e+06 Hz");
    ASSERT(load_variant(NULL, "sync: {offsets: {left: 1e20}}\n", &err) != 0, "offset accepted");
    ASSERT_STR_CONTAINS(err.msg, "sync.offsets.left: offset 1e+20 frames is beyond the limit of 100000000 frames");
}

TEST(test_limits_cli_board_past_int_range_is_refused)
{
    calib_board b;
    icv_err err = {0};
    ASSERT(calib_board_parse("99999999999x6@0.023", &b, &err) == ICV_EINVAL, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "inner corners must be 2..100 along each side");
    ASSERT(calib_board_parse("9x6@0x1p-5", &b, &err) == ICV_EINVAL, "hexadecimal square accepted");
    ASSERT(calib_board_parse("9x6@0.023", &b, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(b.cols * 100 + b.rows, 906);
    /* the detections' own guard (calib/detect_images.c: cols * rows overflowed) */
    calib_board huge = {2000000000, 2000000000, 0.02};
    calib_detector d;
    calib_detector_defaults(&d);
    calib_detections ds;
    char *none[1] = {NULL};
    ASSERT(calib_detections_run(none, 0, &huge, &d, "left", &ds, &err) == ICV_EINVAL, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "left: a 2000000000x2000000000 board: inner corners must be 2..100");
}

TEST(test_limits_detector_roi_near_int_max_gives_an_error_not_an_overflow)
{
    static uint8_t buf[64 * 64];
    track_detector *d = track_detector_alloc(64, 64, NULL);
    ASSERT_TRUE(d != NULL);
    d->roi[0] = INT_MAX - 4;
    d->roi[1] = INT_MAX - 4;
    d->roi[2] = INT_MAX;
    d->roi[3] = INT_MAX;
    track_frame fr = {buf, 64, 64, 64, 8};
    track_blob b[1];
    int nb = 0;
    icv_err err = {0};
    int rc = track_detector_detect(d, &fr, NULL, 0, b, 1, &nb, &err);
    track_detector_free(d);
    ASSERT_EQ_INT(rc, ICV_EINVAL);
    ASSERT_STR_CONTAINS(err.msg, "is outside the 64x64 frame");
}

TEST(test_limits_empty_video_folder_expands_to_nothing)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/empty", th_tmpdir());
    icv_err err = {0};
    ASSERT(icv_mkdirs(dir, &err) == 0, "%s", err.msg);
    char **paths = NULL;
    size_t n = 7;
    int rc = icv_paths_expand(dir, &paths, &n, &err); /* qsort(NULL, 0, ...) was undefined */
    icv_paths_free(paths, n);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT((int)n, 0);
}

TEST(test_limits_more_markers_than_the_tracker_holds_is_refused_naming_the_limit)
{
    /* the per-frame arrays are sized by ICV_MAX_MARKERS (32): 33 is refused at load,
       32 loads */
    char m[4096] = "  markers: [";
    size_t k = strlen(m);
    for (int i = 0; i < ICV_MAX_MARKERS + 1; i++)
        k += (size_t)snprintf(m + k, sizeof m - k, "%s[0, %d, 0]", i ? ", " : "", i);
    snprintf(m + k, sizeof m - k, "]\n");
    icv_err err = {0};
    ASSERT(load_variant("  markers: [[0,0.127,0],[0,0,0],[0,-0.127,0]]\n", m, &err) != 0, "33 markers accepted");
    ASSERT_STR_CONTAINS(err.msg, "body.markers: at most 32 markers are supported, got 33");
    char *cut = strstr(m, ", [0, 32, 0]");
    ASSERT(cut, "list");
    snprintf(cut, sizeof m - (size_t)(cut - m), "]\n");
    ASSERT(load_variant("  markers: [[0,0.127,0],[0,0,0],[0,-0.127,0]]\n", m, &err) == 0, "32 markers: %s", err.msg);
}
