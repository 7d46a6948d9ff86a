/* test_calib_file_limits.c: a calibration YAML's matrix header (rows, cols) must
 * match the data the file holds (issue #20 item 8): garbage there made OpenCV
 * allocate 12-16 GB before reading the data (the sanitized build aborts on such an
 * allocation). Now the matrix is refused, naming the file and key. */
#include "calib/calib.h"
#include "tests/harness.h"

/* th_tmp("cam.yaml"): a mono calibration with the given image size lines and the camera
 * matrix's rows / cols lines */
static void write_camera_yaml(const char *size_lines, const char *matrix_header)
{
    char text[1024];
    snprintf(text, sizeof text,
             "%%YAML:1.0\n---\n%s\n"
             "camera_matrix: !!opencv-matrix\n   %s\n   dt: d\n"
             "   data: [ 1000., 0., 640., 0., 1000., 360., 0., 0., 1. ]\n"
             "distortion_coefficients: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n"
             "   data: [ -0.1, 0.02, 0., 0., 0. ]\n",
             size_lines, matrix_header);
    th_write_file(th_tmp("cam.yaml"), text);
}

TEST(test_calib_file_limits_garbage_rows_and_cols_are_refused)
{
    static const char *sizes[] = {"rows: 2000000000\n   cols: 8", "rows: 65536\n   cols: 65536",
                                  "rows: -3\n   cols: 3"};
    for (int i = 0; i < 3; i++) {
        write_camera_yaml("image_width: 1280\nimage_height: 720", sizes[i]);
        calib_intrinsics in;
        icv_err err = {0};
        int rc = calib_intrinsics_read(th_tmp("cam.yaml"), 0, &in, NULL, &err);
        ASSERT(rc == ICV_EFORMAT, "%s: rc %d: %s", sizes[i], rc, err.msg);
        ASSERT_STR_CONTAINS(err.msg, "cam.yaml: camera_matrix: not a 3x3 matrix");
    }
    /* the true header reads */
    th_write_file(th_tmp("cam.yaml"), "%YAML:1.0\n---\nimage_width: 1280\nimage_height: 720\n"
                                      "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                                      "   data: [ 1000., 0., 640., 0., 1000., 360., 0., 0., 1. ]\n"
                                      "distortion_coefficients: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n"
                                      "   data: [ -0.1, 0.02, 0., 0., 0. ]\n");
    calib_intrinsics in;
    icv_err err = {0};
    ASSERT(calib_intrinsics_read(th_tmp("cam.yaml"), 0, &in, NULL, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(in.width, 1280);
}

TEST(test_calib_file_limits_a_file_beyond_4_mib_is_refused_xml_too)
{
    /* a calibration is kilobytes; the file is read once for libyaml's check and
       FileStorage, bounded, whatever its format */
    static const char *heads[] = {"%YAML:1.0\n---\nimage_width: 1280\n", "<?xml version=\"1.0\"?>\n<opencv_storage>\n"};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(th_tmp("big.yaml"), "w");
        ASSERT(f, "cannot write");
        fputs(heads[i], f);
        for (int k = 0; k < (5 << 20) / 64; k++)
            fputs(i ? "<!-- a comment that only makes the file larger than 4 MiB. -->\n"
                    : "# a comment line that only makes the file larger than the limit.\n",
                  f);
        fclose(f);
        calib_intrinsics in;
        icv_err err = {0};
        int rc = calib_intrinsics_read(th_tmp("big.yaml"), 0, &in, NULL, &err);
        ASSERT(rc == ICV_EFORMAT, "%s: rc %d: %s", i ? "XML" : "YAML", rc, err.msg);
        ASSERT_STR_CONTAINS(err.msg, "big.yaml: above the limit of 4194304 bytes");
    }
}

TEST(test_calib_file_limits_an_image_size_beyond_an_int_is_refused)
{
    /* fuzz_calib's input: an image width of 7.1e111 was cast to int (undefined) */
    static const char *sizes[] = {"image_width: 7.11111e+111\nimage_height: 720",
                                  "image_width: 1280\nimage_height: -4", "imageSize: [ 1280.5, 720 ]"};
    for (int i = 0; i < 3; i++) {
        write_camera_yaml(sizes[i], "rows: 3\n   cols: 3");
        calib_intrinsics in;
        icv_err err = {0};
        int rc = calib_intrinsics_read(th_tmp("cam.yaml"), 0, &in, NULL, &err);
        ASSERT(rc == ICV_EFORMAT, "%s: rc %d: %s", sizes[i], rc, err.msg);
        ASSERT_STR_CONTAINS(err.msg, "cam.yaml: image size");
        ASSERT_STR_CONTAINS(err.msg, "is not a whole number of pixels");
    }
}
