/* test_cli.c: the impactcv binary on good and bad input: exit status and the
 * one-line message. */
#include "core/core.h"
#include <stdlib.h>

#include "tests/harness.h"

TEST(test_cli_help_lists_every_contract_command)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "--help"), 0);
    const char *cmds[] = {"calib", "check", "probe", "track", "analyze", "solve", "run", "synth",
                          "sweep", "undistort", "campaign", "coefficients"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        ASSERT_STR_CONTAINS(p.out, cmds[i]);
}

TEST(test_cli_version_names_every_library)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "--version"), 0);
    ASSERT_STR_CONTAINS(p.out, "impactcv " ICV_VERSION " (FFmpeg ");
    ASSERT_STR_CONTAINS(p.out, ", OpenCV 4.");
    ASSERT_STR_CONTAINS(p.out, ", GSL 2.");
    ASSERT_STR_CONTAINS(p.out, ", libyaml 0.");
    ASSERT_STR_CONTAINS(p.out, ", jansson 2.");
    ASSERT_STR_CONTAINS(p.out, ", libxml2 2.");
}

TEST(test_cli_quiet_silences_the_summary_not_the_error)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "check '%s/tests/data/example/experiment.yaml'", th_root()), 0);
    ASSERT_STR_CONTAINS(p.out, "ok");
    ASSERT_EQ_INT(th_run_cli(&p, "-q check '%s/tests/data/example/experiment.yaml'", th_root()), 0);
    ASSERT(p.out[0] == 0, "-q check printed: %s", p.out);
    ASSERT_EQ_INT(th_run_cli(&p, "-q check '%s/nowhere.yaml'", th_tmpdir()), 1);
    ASSERT_STR_CONTAINS(p.err, "nowhere.yaml");
}

TEST(test_cli_every_command_has_help)
{
    const char *cmds[] = {"calib", "check", "probe", "track", "analyze", "solve", "run", "synth",
                          "sweep", "undistort", "campaign", "coefficients"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        th_proc p;
        ASSERT(th_run_cli(&p, "%s --help", cmds[i]) == 0, "%s --help: status %d", cmds[i], p.status);
        ASSERT_STR_CONTAINS(p.out, "usage: impactcv");
    }
}

TEST(test_cli_unknown_command_and_option_are_usage_errors)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "frobnicate"), 2);
    ASSERT_STR_CONTAINS(p.err, "unknown command 'frobnicate'");
    ASSERT_EQ_INT(th_run_cli(&p, "--frob"), 2);
    ASSERT_STR_CONTAINS(p.err, "unknown option '--frob'");
    ASSERT_EQ_INT(th_run_cli(&p, "%s", ""), 2); /* no command at all */
}

TEST(test_cli_check_accepts_the_bundled_example)
{
    th_proc p;
    int st = th_run_cli(&p, "check '%s/tests/data/example/experiment.yaml'", th_root());
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "3D, 2 cameras");
    ASSERT_STR_CONTAINS(p.out, "ok");
}

TEST(test_cli_check_rejects_bad_experiment_with_one_line)
{
    th_proc p;
    ASSERT_EQ_INT(th_write_file(th_tmp("exp.yaml"),
                                "name: x\ncameras: [{id: a, video: a.mp4}]\nmotion_plane: {scale: gravity}\n"
                                "body: {mass: -2, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n"),
                  0);
    ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", th_tmp("exp.yaml")), 1);
    ASSERT_STR_CONTAINS(p.err, "exp.yaml:4: body.mass: must be > 0");
    ASSERT(strchr(p.err, '\n') == p.err + strlen(p.err) - 1, "not exactly one line: %s", p.err);
    ASSERT_EQ_INT(p.out[0], '\0');
}

TEST(test_cli_check_reports_missing_video)
{
    th_proc p;
    ASSERT_EQ_INT(th_write_file(th_tmp("exp.yaml"),
                                "name: x\ncameras: [{id: a, video: gone.mp4}]\nmotion_plane: {scale: gravity}\n"
                                "body: {mass: 2, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n"),
                  0);
    ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", th_tmp("exp.yaml")), 1);
    ASSERT_STR_CONTAINS(p.err, "gone.mp4: video of camera 'a' not found");
}

/* Every command is built (the last, campaign, by issue #10): the list of commands
 * that said "not implemented yet" with status 2 is empty, so its test is gone. */

/* issue #20: an intrinsics-only calibration file. Two cameras: check, track and run
   refuse it with the same one line (check passed it, run failed later). One camera:
   intrinsics are all it needs (its pose comes from the motion plane), so check
   accepts it and run goes past the calibration. */
TEST(test_cli_intrinsics_only_file_same_answer_from_check_track_and_run)
{
    char dir[1024], path[1200], text[2048];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    snprintf(path, sizeof path, "%s/intr.yaml", dir);
    th_write_file(path, "%YAML:1.0\n---\nimage_width: 160\nimage_height: 120\n"
                        "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                        "   data: [ 200., 0., 80., 0., 200., 60., 0., 0., 1. ]\n"
                        "distortion_coefficients: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n"
                        "   data: [ 0., 0., 0., 0., 0. ]\n");
    char ex[1024];
    ASSERT(realpath(th_root(), ex), "no root");
    snprintf(text, sizeof text,
             "name: intr\ncameras: [{id: left, video: %s/tests/data/example/left.mp4}, {id: right, video: "
             "%s/tests/data/example/right.mp4}]\ncalibration: {file: intr.yaml}\n"
             "surface: {plane: {point: [0, 0.1, 1], normal: [0, -1, 0]}}\nsync: {method: none}\n" TH_ROD_BODY_YAML,
             ex, ex);
    snprintf(path, sizeof path, "%s/two.yaml", dir);
    th_write_file(path, text);
    th_proc p;
    static const char *const cmds[] = {"check '%s/two.yaml'", "track '%s/two.yaml' -o '%s/o1'",
                                       "run '%s/two.yaml' -o '%s/o2'"};
    char first[512] = "";
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ_INT(th_run_cli(&p, cmds[i], dir, dir), 1);
        ASSERT_STR_CONTAINS(p.err, "intr.yaml: holds one camera's intrinsics, not a stereo calibration: 2 cameras "
                                   "need M1, D1, M2, D2, R and T");
        if (i == 0)
            snprintf(first, sizeof first, "%s", p.err);
        else
            ASSERT(!strcmp(first, p.err), "check said '%s', %s said '%s'", first, cmds[i], p.err);
    }
    snprintf(text, sizeof text,
             "name: intr1\ncameras: [{id: left, video: %s/tests/data/example/left.mp4}]\ncalibration: {file: "
             "intr.yaml}\nmotion_plane: {scale: gravity}\n" TH_ROD_BODY_YAML,
             ex);
    snprintf(path, sizeof path, "%s/one.yaml", dir);
    th_write_file(path, text);
    ASSERT(th_run_cli(&p, "check '%s/one.yaml'", dir) == 0, "check: %s", p.err);
    th_run_cli(&p, "run '%s/one.yaml' -o '%s/o3'", dir, dir); /* the placeholder clip has no markers */
    ASSERT(!strstr(p.err, "intr.yaml"), "run blamed the calibration: %s", p.err);
}
