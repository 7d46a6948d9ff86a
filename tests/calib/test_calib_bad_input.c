/* test_calib_bad_input.c: `impactcv calib` on bad input: each case fails with one
 * line naming the file(s) and the reason, a non-zero status and no output file
 * (issue #6 item 7). Boards are rendered by tests/calib/board_render.c. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/calib/board_render.h"
#include "tests/harness.h"

static const calib_board B96 = {9, 6, 0.025};

/* View k of a small set of distinct, fully visible 640x480 views. */
static int render_view(const char *name, int k, int w, int h, const calib_board *b)
{
    double rv[6][3] = {{0.3, -0.2, 0.05}, {-0.25, 0.3, -0.1}, {0.1, 0.35, 0.2},
                       {-0.35, -0.15, 0.0}, {0.2, 0.1, -0.25}, {-0.1, -0.3, 0.15}};
    double t[6][3] = {{-0.10, -0.06, 0.50}, {-0.12, -0.07, 0.55}, {-0.09, -0.05, 0.48},
                      {-0.11, -0.08, 0.52}, {-0.10, -0.06, 0.46}, {-0.10, -0.05, 0.53}};
    return board_render_pgm(th_tmp(name), w, h, 600.0 * w / 640, b, rv[k % 6], t[k % 6]);
}

static int one_line(const char *s) { return s[0] && strchr(s, '\n') == s + strlen(s) - 1; }

TEST(test_calib_cli_no_board_in_any_image_lists_them)
{
    for (int i = 0; i < 4; i++) {
        char n[32];
        snprintf(n, sizeof n, "blank%d.pgm", i);
        ASSERT_EQ_INT(blank_render_pgm(th_tmp(n), 320, 240), 0);
    }
    th_proc p;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    int st = th_run_cli(&p, "calib --board 9x6@0.025 -o '%s/cam.yaml' '%s/blank*.pgm'", dir, dir);
    ASSERT_EQ_INT(st, 1);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, "no 9x6 board found in any of 4 images");
    ASSERT_STR_CONTAINS(p.err, "blank0.pgm");
    ASSERT(access(th_tmp("cam.yaml"), F_OK) != 0, "an output file was left");
}

TEST(test_calib_cli_too_few_views_says_how_many)
{
    for (int i = 0; i < 3; i++) {
        char n[32];
        snprintf(n, sizeof n, "v%d.pgm", i);
        ASSERT_EQ_INT(render_view(n, i, 640, 480, &B96), 0);
    }
    ASSERT_EQ_INT(blank_render_pgm(th_tmp("v3.pgm"), 640, 480), 0);
    th_proc p;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    int st = th_run_cli(&p, "calib --board 9x6@0.025 -o '%s/cam.yaml' '%s'", dir, dir); /* a folder */
    ASSERT_EQ_INT(st, 1);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, "only 3 of 4 images give a usable 9x6 board (need at least 4)");
    ASSERT_STR_CONTAINS(p.err, "not found in: v3.pgm");
}

TEST(test_calib_cli_images_of_different_sizes)
{
    ASSERT_EQ_INT(render_view("a.pgm", 0, 640, 480, &B96), 0);
    ASSERT_EQ_INT(render_view("b.pgm", 1, 320, 240, &B96), 0);
    th_proc p;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    ASSERT_EQ_INT(th_run_cli(&p, "calib --board 9x6@0.025 -o '%s/cam.yaml' '%s/*.pgm'", dir, dir), 1);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, "b.pgm: image is 320x240 but a.pgm is 640x480");
}

TEST(test_calib_cli_wrong_board_size_names_the_one_seen)
{
    for (int i = 0; i < 4; i++) {
        char n[32];
        snprintf(n, sizeof n, "v%d.pgm", i);
        ASSERT_EQ_INT(render_view(n, i, 640, 480, &B96), 0);
    }
    th_proc p;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    /* 10x7: the squares counted instead of the inner corners */
    ASSERT_EQ_INT(th_run_cli(&p, "calib --board 10x7@0.025 -o '%s/cam.yaml' '%s/*.pgm'", dir, dir), 1);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, "no 10x7 board found");
    ASSERT_STR_CONTAINS(p.err, "a board of 9x6 inner corners: check --board");
}

TEST(test_calib_cli_unreadable_image_is_named)
{
    ASSERT_EQ_INT(render_view("a.png.pgm", 0, 640, 480, &B96), 0);
    ASSERT_EQ_INT(th_write_file(th_tmp("b.pgm"), "not an image at all"), 0);
    th_proc p;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    ASSERT_EQ_INT(th_run_cli(&p, "calib --board 9x6@0.025 -o '%s/cam.yaml' '%s/*.pgm'", dir, dir), 1);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, "b.pgm: not an image FFmpeg can read");
}

TEST(test_calib_cli_stereo_needs_five_pairs_and_equal_lists)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    for (int i = 0; i < 4; i++) {
        char n[32];
        snprintf(n, sizeof n, "l%d.pgm", i);
        ASSERT_EQ_INT(render_view(n, i, 640, 480, &B96), 0);
        snprintf(n, sizeof n, "r%d.pgm", i);
        ASSERT_EQ_INT(render_view(n, i + 1, 640, 480, &B96), 0);
    }
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "calib --board 9x6@0.025 --stereo -o '%s/st.yaml' '%s/l*.pgm' '%s/r*.pgm'", dir, dir,
                             dir),
                  1);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, "only 4 of 4 pairs show the full 9x6 board in both views (need at least 5)");
    ASSERT_EQ_INT(render_view("l4.pgm", 4, 640, 480, &B96), 0);
    ASSERT_EQ_INT(th_run_cli(&p, "calib --board 9x6@0.025 --stereo -o '%s/st.yaml' '%s/l*.pgm' '%s/r*.pgm'", dir, dir,
                             dir),
                  1);
    ASSERT_STR_CONTAINS(p.err, "camera 1 has 5 images (l0.pgm...) but camera 2 has 4");
    ASSERT(access(th_tmp("st.yaml"), F_OK) != 0, "an output file was left");
}

TEST(test_calib_cli_usage_errors_exit_2)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "calib -o x.yaml 'a/*.png'"), 2);
    ASSERT_STR_CONTAINS(p.err, "--board COLSxROWS@SQUARE is required");
    ASSERT_EQ_INT(th_run_cli(&p, "calib --board 9by6 -o x.yaml 'a/*.png'"), 2);
    ASSERT_STR_CONTAINS(p.err, "expected COLSxROWS@SQUARE");
    ASSERT_EQ_INT(th_run_cli(&p, "calib --board 9x6@23 -o x.yaml 'a/*.png'"), 2);
    ASSERT_STR_CONTAINS(p.err, "metres");
    ASSERT_EQ_INT(th_run_cli(&p, "calib --board 9x6@0.023 --stereo -o x.yaml 'a/*.png'"), 2);
    ASSERT_STR_CONTAINS(p.err, "--stereo needs two image lists");
    ASSERT_EQ_INT(th_run_cli(&p, "calib --board 9x6@0.023 -o x.yaml '%s/none*.png'", th_tmpdir()), 1);
    ASSERT_STR_CONTAINS(p.err, "no images match");
    ASSERT_EQ_INT(th_run_cli(&p, "undistort only.png"), 2);
    ASSERT_STR_CONTAINS(p.err, "expected IMAGE --calib CAM.yaml -o OUT");
}

TEST(test_calib_cli_rendered_views_calibrate_and_undistort)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    for (int i = 0; i < 6; i++) {
        char n[32];
        snprintf(n, sizeof n, "v%d.pgm", i);
        ASSERT_EQ_INT(render_view(n, i, 640, 480, &B96), 0);
    }
    th_proc p;
    int st = th_run_cli(&p, "calib --board 9x6@0.025 -o '%s/cam.yaml' --report '%s/calib_report.html' '%s/*.pgm'", dir,
                        dir, dir);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "6 of 6 views used");
    calib_intrinsics in;
    icv_err err = {0};
    ASSERT(calib_intrinsics_read(th_tmp("cam.yaml"), 0, &in, NULL, &err) == 0, "%s", err.msg);
    /* rendered with f = 600 px, no distortion; 3x3 supersampling blurs edges by
     * ~0.3 px, six views only: 1% */
    ASSERT_NEAR(in.fx, 600, 6);
    ASSERT_NEAR(in.fy, 600, 6);
    ASSERT_STR_CONTAINS(th_read_file(th_tmp("calib_report.html")), "<svg");
    st = th_run_cli(&p, "undistort '%s/v0.pgm' --calib '%s/cam.yaml' -o '%s/v0_undistorted.png'", dir, dir, dir);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    calib_image img;
    ASSERT(calib_image_read_gray(th_tmp("v0_undistorted.png"), &img, &err) == 0, "%s", err.msg);
    int w = img.width;
    calib_image_free(&img);
    ASSERT_EQ_INT(w, 640);
}
