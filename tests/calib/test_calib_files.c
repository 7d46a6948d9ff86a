/* test_calib_files.c: calibration files. Ours round-trip (FileStorage writes them,
 * libyaml reads them back, with the contract's names); files written by other tools
 * import (OpenCV's calibration sample, a cv2 script, ROS camera_info, OpenCV's stereo
 * sample, FileStorage's XML); unsupported models and damaged files are refused. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calib/calib.h"
#include "tests/calib/synth_points.h"
#include "tests/harness.h"

TEST(test_calib_mono_yaml_round_trips_through_filestorage)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    d->mono_only = 1;
    sp_generate(d, 8, 0.1, 3);
    calib_camera cam;
    icv_err err = {0};
    int rc = calib_camera_calibrate(&d->obs[0], NULL, &cam, &err);
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    const char *path = th_tmp("cam.yaml");
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    rc = calib_camera_write(&cam, p, &err);
    calib_intrinsics in, sd;
    if (!rc)
        rc = calib_intrinsics_read(p, 0, &in, &sd, &err);
    calib_camera c = cam;
    c.views = NULL;
    calib_camera_free(&cam);
    ASSERT(rc == 0, "%s", err.msg);
    /* FileStorage prints 17 significant digits: the doubles come back exactly */
    ASSERT_NEAR(in.fx, c.in.fx, 0);
    ASSERT_NEAR(in.fy, c.in.fy, 0);
    ASSERT_NEAR(in.cx, c.in.cx, 0);
    ASSERT_NEAR(in.cy, c.in.cy, 0);
    for (int i = 0; i < 5; i++)
        ASSERT_NEAR(in.dist[i], c.in.dist[i], 0);
    ASSERT_EQ_INT(in.width, 1280);
    ASSERT_EQ_INT(in.height, 720);
    ASSERT_NEAR(sd.fx, c.std.fx, 0);
    ASSERT_NEAR(sd.cy, c.std.cy, 0);
    ASSERT_NEAR(sd.dist[1], c.std.dist[1], 0);
    const char *text = th_read_file(p);
    const char *names[] = {"%YAML:1.0", "image_width: 1280", "image_height: 720", "camera_matrix: !!opencv-matrix",
                           "distortion_coefficients: !!opencv-matrix", "rms: ", "per_view_errors: !!opencv-matrix",
                           "camera_matrix_std:", "distortion_coefficients_std:"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        ASSERT_STR_CONTAINS(text, names[i]);
}

TEST(test_calib_stereo_yaml_has_contract_names_and_round_trips)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    sp_generate(d, 8, 0.1, 4);
    calib_stereo st;
    icv_err err = {0};
    int rc = calib_stereo_calibrate(&d->obs[0], &d->obs[1], NULL, &st, &err);
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    char p[1024];
    snprintf(p, sizeof p, "%s", th_tmp("stereo.yaml"));
    rc = calib_stereo_write(&st, p, &err);
    calib_intrinsics a, b;
    double R[3][3], T[3];
    if (!rc)
        rc = calib_stereo_read(p, &a, &b, R, T, &err);
    double T0[3] = {st.T[0], st.T[1], st.T[2]}, R01 = st.R[0][1], fx2 = st.cam[1].in.fx;
    calib_stereo_free(&st);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_NEAR(T[0], T0[0], 0); /* exact round trip, see above */
    ASSERT_NEAR(T[2], T0[2], 0);
    ASSERT_NEAR(R[0][1], R01, 0);
    ASSERT_NEAR(b.fx, fx2, 0);
    const char *text = th_read_file(p);
    const char *names[] = {"image_width:", "image_height:", "M1:", "D1:", "M2:", "D2:", "\nR:", "\nT:", "\nE:",
                           "\nF:", "\nrms:", "M1_std:", "T_std:", "baseline_std:"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        ASSERT_STR_CONTAINS(text, names[i]);
    /* camera 2 of a stereo file, as `undistort --camera 2` reads it */
    calib_intrinsics c2;
    ASSERT(calib_intrinsics_read(p, 1, &c2, NULL, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(c2.fx, fx2, 0);
}

TEST(test_calib_imports_other_tools_files)
{
    /* OpenCV's samples/cpp/calibration.cpp output (5x1 distortion) */
    ASSERT_EQ_INT(th_write_file(th_tmp("opencv_sample.yml"),
                                "%YAML:1.0\n---\ncalibration_time: \"Sat 01 Jan\"\nnr_of_frames: 10\n"
                                "image_width: 640\nimage_height: 480\nboard_width: 9\nboard_height: 6\n"
                                "square_size: 2.5e-02\nflags: 0\n"
                                "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                                "   data: [ 5.3e+02, 0., 3.4e+02, 0., 5.31e+02, 2.3e+02, 0., 0., 1. ]\n"
                                "distortion_coefficients: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n"
                                "   data: [ -0.28, 0.1, 1e-3, -2e-4, 0.01 ]\n"
                                "avg_reprojection_error: 0.2\n"),
                  0);
    calib_intrinsics in;
    icv_err err = {0};
    ASSERT(calib_intrinsics_read(th_tmp("opencv_sample.yml"), 0, &in, NULL, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(in.fx, 530, 0);
    ASSERT_NEAR(in.cy, 230, 0);
    ASSERT_NEAR(in.dist[4], 0.01, 0);
    ASSERT_EQ_INT(in.width, 640);
    /* a cv2 script: cameraMatrix, 1x4 distCoeffs as float, imageSize */
    ASSERT_EQ_INT(th_write_file(th_tmp("cv2.yaml"),
                                "%YAML:1.0\n---\nimageSize: [ 1280, 720 ]\n"
                                "cameraMatrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: f\n"
                                "   data: [ 1000., 0., 640., 0., 1000., 360., 0., 0., 1. ]\n"
                                "distCoeffs: !!opencv-matrix\n   rows: 1\n   cols: 4\n   dt: f\n"
                                "   data: [ -0.1, 0.02, 0., 0. ]\n"),
                  0);
    ASSERT(calib_intrinsics_read(th_tmp("cv2.yaml"), 0, &in, NULL, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(in.fx, 1000, 0);
    ASSERT_NEAR(in.dist[0], -0.1, 1e-7); /* written as float */
    ASSERT_NEAR(in.dist[4], 0, 0);
    ASSERT_EQ_INT(in.width, 1280);
    /* ROS camera_info (plain YAML without OpenCV's header, {rows, cols, data}) */
    ASSERT_EQ_INT(th_write_file(th_tmp("ros.yaml"),
                                "image_width: 752\nimage_height: 480\ncamera_name: cam0\n"
                                "camera_matrix:\n  rows: 3\n  cols: 3\n"
                                "  data: [461.6, 0, 363.0, 0, 460.3, 248.1, 0, 0, 1]\n"
                                "distortion_model: plumb_bob\n"
                                "distortion_coefficients:\n  rows: 1\n  cols: 5\n"
                                "  data: [-0.29, 0.08, 0.0002, 0.00002, 0]\n"),
                  0);
    ASSERT(calib_intrinsics_read(th_tmp("ros.yaml"), 0, &in, NULL, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(in.fx, 461.6, 0);
    ASSERT_NEAR(in.dist[1], 0.08, 0);
    ASSERT_EQ_INT(in.width, 752);
    /* OpenCV's stereo_calib.cpp intrinsics.yml (M1 D1 M2 D2, 1x8 rational all zero beyond k3) */
    ASSERT_EQ_INT(th_write_file(th_tmp("intrinsics.yml"),
                                "%YAML:1.0\n---\n"
                                "M1: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                                "   data: [ 533., 0., 341., 0., 533., 234., 0., 0., 1. ]\n"
                                "D1: !!opencv-matrix\n   rows: 1\n   cols: 8\n   dt: d\n"
                                "   data: [ -0.28, 0.1, 0., 0., 0., 0., 0., 0. ]\n"
                                "M2: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                                "   data: [ 537., 0., 326., 0., 536., 249., 0., 0., 1. ]\n"
                                "D2: !!opencv-matrix\n   rows: 1\n   cols: 8\n   dt: d\n"
                                "   data: [ -0.29, 0.1, 0., 0., 0., 0.5, 0., 0. ]\n"),
                  0);
    ASSERT(calib_intrinsics_read(th_tmp("intrinsics.yml"), 0, &in, NULL, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(in.fx, 533, 0);
    /* camera 2 uses the rational model (k5 = 0.5): refused, naming it */
    ASSERT(calib_intrinsics_read(th_tmp("intrinsics.yml"), 1, &in, NULL, &err) == ICV_EFORMAT, "accepted k5");
    ASSERT_STR_CONTAINS(err.msg, "D2: coefficient 6 is 0.5: only k1 k2 p1 p2 k3 are supported");
}

TEST(test_calib_read_rejects_broken_files_with_one_line)
{
    calib_intrinsics in;
    icv_err err = {0};
    ASSERT(calib_intrinsics_read(th_tmp("absent.yaml"), 0, &in, NULL, &err) == ICV_ENOTFOUND, "absent");
    ASSERT_STR_CONTAINS(err.msg, "absent.yaml: calibration file not found");
    ASSERT_EQ_INT(th_write_file(th_tmp("nocam.yaml"), "%YAML:1.0\n---\nimage_width: 640\n"), 0);
    ASSERT(calib_intrinsics_read(th_tmp("nocam.yaml"), 0, &in, NULL, &err) == ICV_EFORMAT, "no matrix");
    ASSERT_STR_CONTAINS(err.msg, "nocam.yaml: no camera matrix");
    ASSERT_EQ_INT(th_write_file(th_tmp("bad.yaml"), "%YAML:1.0\n---\ncamera_matrix: [1, 2, 3]\n"
                                                    "distortion_coefficients: [0, 0, 0, 0, 0]\n"),
                  0);
    ASSERT(calib_intrinsics_read(th_tmp("bad.yaml"), 0, &in, NULL, &err) == ICV_EFORMAT, "3 numbers");
    ASSERT_STR_CONTAINS(err.msg, "camera_matrix: not a 3x3 matrix");
    ASSERT(strchr(err.msg, '\n') == NULL, "more than one line: %s", err.msg);
}

TEST(test_calib_write_into_missing_folder_fails_and_leaves_nothing)
{
    calib_camera cam;
    memset(&cam, 0, sizeof cam);
    cam.in = (calib_intrinsics){640, 480, 500, 500, 320, 240, {0, 0, 0, 0, 0}};
    icv_err err = {0};
    char p[1024];
    snprintf(p, sizeof p, "%s/no/such/dir/cam.yaml", th_tmpdir());
    ASSERT(calib_camera_write(&cam, p, &err) != 0, "wrote into a missing folder");
    ASSERT_STR_CONTAINS(err.msg, "cam.yaml");
    ASSERT(access(p, F_OK) != 0, "file exists");
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The struct without its owned arrays, for comparing two reads of one calibration. */
static void camera_unlinked(calib_camera *c)
{
    c->views = NULL;
}

TEST(test_calib_opencv_xml_reads_as_the_same_calibration_in_yaml)
{
    /* tests/fuzz/corpus/calib/{mono,stereo}_opencv.xml: our YAML files read by
       cv::FileStorage and written back by it as XML (OpenCV 4.6): every value read
       from the XML equals the YAML's, bit for bit (both print 17 digits) */
    char y[1024], x[1024];
    icv_err err = {0};
    snprintf(y, sizeof y, "%s/tests/fuzz/corpus/calib/mono_impactcv.yaml", th_root());
    snprintf(x, sizeof x, "%s/tests/fuzz/corpus/calib/mono_opencv.xml", th_root());
    calib_camera a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    ASSERT(calib_camera_file_read(y, &a, &err) == 0, "%s", err.msg);
    ASSERT(calib_camera_file_read(x, &b, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(a.n_views, b.n_views);
    ASSERT(a.n_views > 10, "%d views", a.n_views);
    ASSERT(memcmp(a.views, b.views, sizeof *a.views * (size_t)a.n_views) == 0, "the views differ");
    ASSERT(a.in.fx > 0 && a.verdict[0], "fx %g, verdict '%s'", a.in.fx, a.verdict);
    calib_camera a2 = a, b2 = b;
    camera_unlinked(&a2);
    camera_unlinked(&b2);
    ASSERT(memcmp(&a2, &b2, sizeof a2) == 0, "mono: fx %.17g / %.17g, verdict '%s' / '%s'", a.in.fx, b.in.fx,
           a.verdict, b.verdict);
    calib_camera_free(&a);
    calib_camera_free(&b);

    snprintf(y, sizeof y, "%s/tests/fuzz/corpus/calib/stereo_impactcv.yaml", th_root());
    snprintf(x, sizeof x, "%s/tests/fuzz/corpus/calib/stereo_opencv.xml", th_root());
    calib_stereo s, t;
    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
    ASSERT(calib_stereo_file_read(y, &s, &err) == 0, "%s", err.msg);
    ASSERT(calib_stereo_file_read(x, &t, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(s.n_pairs, t.n_pairs);
    ASSERT(s.n_pairs > 10, "%d pairs", s.n_pairs);
    ASSERT(memcmp(s.pairs, t.pairs, sizeof *s.pairs * (size_t)s.n_pairs) == 0, "the pairs differ");
    for (int c = 0; c < 2; c++) {
        ASSERT_EQ_INT(s.cam[c].n_views, t.cam[c].n_views);
        if (s.cam[c].n_views)
            ASSERT(memcmp(s.cam[c].views, t.cam[c].views, sizeof *s.cam[c].views * (size_t)s.cam[c].n_views) == 0,
                   "camera %d's views differ", c);
    }
    calib_stereo s2 = s, t2 = t;
    for (int c = 0; c < 2; c++) {
        camera_unlinked(&s2.cam[c]);
        camera_unlinked(&t2.cam[c]);
    }
    s2.pairs = t2.pairs = NULL;
    ASSERT(memcmp(&s2, &t2, sizeof s2) == 0, "stereo: T %.17g / %.17g, baseline %.17g / %.17g", s.T[0], t.T[0],
           s.baseline, t.baseline);
    calib_stereo_free(&s);
    calib_stereo_free(&t);
}

TEST(test_calib_file_reader_refuses_what_would_grow_without_bound)
{
    /* YAML aliases of aliases: 9 levels of 10 give 10^9 values from 300 bytes; an
       XML DTD's entities do the same; both are refused quickly, not expanded */
    char text[2048];
    size_t k = (size_t)snprintf(text, sizeof text, "a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n");
    for (int i = 1; i < 9; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n",
                              i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    ASSERT_EQ_INT(th_write_file(th_tmp("aliases.yaml"), text), 0);
    calib_intrinsics in;
    icv_err err = {0};
    double t0 = seconds_now();
    ASSERT(calib_intrinsics_read(th_tmp("aliases.yaml"), 0, &in, NULL, &err) == ICV_EFORMAT, "read");
    ASSERT_STR_CONTAINS(err.msg, "aliases.yaml: more than 1000000 values");
    ASSERT(seconds_now() - t0 < 5, "%.1f s", seconds_now() - t0);
    ASSERT_EQ_INT(th_write_file(th_tmp("dtd.xml"), "<?xml version=\"1.0\"?>\n<!DOCTYPE lol [<!ENTITY a \"aaaa\">]>\n"
                                                  "<opencv_storage><image_width>&a;</image_width></opencv_storage>\n"),
                  0);
    ASSERT(calib_intrinsics_read(th_tmp("dtd.xml"), 0, &in, NULL, &err) == ICV_EFORMAT, "read");
    ASSERT_STR_CONTAINS(err.msg, "dtd.xml: an XML calibration file with a DTD");
    ASSERT_EQ_INT(th_write_file(th_tmp("html.xml"), "<html><body>1</body></html>\n"), 0);
    ASSERT(calib_intrinsics_read(th_tmp("html.xml"), 0, &in, NULL, &err) == ICV_EFORMAT, "read");
    ASSERT_STR_CONTAINS(err.msg, "html.xml: XML whose root is <html>, not OpenCV's <opencv_storage>");
}
