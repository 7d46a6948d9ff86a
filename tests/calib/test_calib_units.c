/* test_calib_units.c: a stereo calibration in millimetres (issue #20 item 9): its T
 * (the baseline, in the unit the board's square was given in) is found to be in mm
 * and said so, by calib_stereo_read (the track stage: before, "marker track 0 lost")
 * and by `impactcv check` with the experiment's board square. */
#include <stdlib.h>

#include "calib/calib.h"
#include "tests/harness.h"

static void write_stereo(const char *path, double tx)
{
    char text[2048];
    snprintf(text, sizeof text,
             "%%YAML:1.0\n---\nimage_width: 160\nimage_height: 120\n" /* the example's videos */
             "M1: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ 1000., 0., 640., 0., 1000., 360., 0., 0., 1. ]\n"
             "D1: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n   data: [ -0.1, 0.02, 0., 0., 0. ]\n"
             "M2: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ 1000., 0., 640., 0., 1000., 360., 0., 0., 1. ]\n"
             "D2: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n   data: [ -0.1, 0.02, 0., 0., 0. ]\n"
             "R: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ 1., 0., 0., 0., 1., 0., 0., 0., 1. ]\n"
             "T: !!opencv-matrix\n   rows: 3\n   cols: 1\n   dt: d\n   data: [ %.6g, 0.3, 1.1 ]\n",
             tx);
    th_write_file(path, text);
}

TEST(test_calib_units_millimetre_stereo_file_is_reported_as_such)
{
    calib_intrinsics a, b;
    double R[3][3], T[3];
    icv_err err = {0};
    write_stereo(th_tmp("m.yaml"), -0.1502);
    /* a metre file: T's y and z of 0.3 and 1.1 m are odd but in range */
    ASSERT(calib_stereo_read(th_tmp("m.yaml"), &a, &b, R, T, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(T[0], -0.1502, 0);
    write_stereo(th_tmp("mm.yaml"), -150.2);
    ASSERT(calib_stereo_read(th_tmp("mm.yaml"), &a, &b, R, T, &err) == ICV_EINVAL, "a millimetre file read");
    ASSERT_STR_CONTAINS(err.msg, "mm.yaml: the calibration is in millimetres: T = [-150.2, 0.3, 1.1] is a 150.2 m "
                                 "baseline, 0.1502 m if in mm");
    /* the board's square: 6531 squares of 23 mm (150.2 m) is no stereo rig */
    double t[3] = {-150.2, 0.3, 1.1}, tm[3] = {-0.1502, 0.0003, 0.0011};
    ASSERT(calib_units_check("x.yaml", t, 0.023, &err) == ICV_EINVAL, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "a 150.2 m baseline, 6531 of the board's 0.023 m squares, 0.1502 m if in mm");
    ASSERT(calib_units_check("x.yaml", tm, 0.023, &err) == 0, "%s", err.msg);
    /* 15 m of 1 mm squares (a board square given as 0.001 for mm-sized squares): 15000 squares */
    double t15[3] = {15, 0, 0};
    ASSERT(calib_units_check("x.yaml", t15, 0.001, &err) == ICV_EINVAL, "accepted");
}

TEST(test_calib_units_check_cli_refuses_a_millimetre_file)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp -r '%s/tests/data/example' '%s/ex'", th_root(), th_tmpdir());
    ASSERT_EQ_INT(system(cmd), 0);
    char path[1024], text[4096];
    snprintf(path, sizeof path, "%s/ex/experiment.yaml", th_tmpdir());
    snprintf(text, sizeof text, "%s", th_read_file(path));
    char *c = strstr(text, "  images: {left: \"calib/left_*.png\", right: \"calib/right_*.png\"}\n");
    ASSERT(c, "no calibration images line");
    const char *rest = c + strlen("  images: {left: \"calib/left_*.png\", right: \"calib/right_*.png\"}\n");
    char tail[4096];
    snprintf(tail, sizeof tail, "%s", rest);
    snprintf(c, sizeof text - (size_t)(c - text), "  file: stereo.yaml\n%s", tail);
    th_write_file(path, text);
    snprintf(cmd, sizeof cmd, "%s/ex/stereo.yaml", th_tmpdir());
    write_stereo(cmd, -150.2);
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", path), 1);
    ASSERT_STR_CONTAINS(p.err, "stereo.yaml: the calibration is in millimetres");
    write_stereo(cmd, -0.1502);
    ASSERT(th_run_cli(&p, "check '%s'", path) == 0, "%s", p.err);
}
