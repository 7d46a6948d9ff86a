/* test_experiment.c: experiment.yaml loading (contract.md): a good file gives the
 * right struct with defaults; each bad input of issue #2 is rejected with one line
 * that names the key (and file and line). */
#include <stdlib.h>

#include "core/core.h"
#include "tests/harness.h"

static const char good[] =
    "name: rod_sliding_45\n"
    "cameras:\n"
    "  - id: left\n"
    "    video: left.mp4\n"
    "  - id: right\n"
    "    video: right.mp4\n"
    "    capture_fps: 240\n"
    "    exposure: 0.002\n"
    "calibration:\n"
    "  board: {cols: 9, rows: 6, square: 0.023}\n"
    "  images: {left: \"calib/left_*.png\", right: \"calib/right_*.png\"}\n"
    "surface:\n"
    "  images: {left: surface_left.png, right: surface_right.png}\n"
    "gravity: auto\n"
    "sync: {method: flash}\n"
    "body:\n"
    "  mass: 0.169\n"
    "  inertia: [[1.312e-3,0,0],[0,3.8e-9,0],[0,0,1.312e-3]]\n"
    "  markers: [[0,0.127,0],[0,0,0],[0,-0.127,0]]\n"
    "  marker_diameter: 0.012\n"
    "  shape: {type: capsule, axis: [0,1,0], length: 0.3048, radius: 0.009525}\n"
    "model:\n"
    "  restitution: stronge\n"
    "  mu: measured\n"
    "  e_n: measured\n";

/* good with the first occurrence of `from` replaced by `to`, written to tmp */
static const char *variant(const char *from, const char *to)
{
    static char buf[8192];
    const char *p = strstr(good, from);
    if (!p)
        return NULL;
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - good), good, to, p + strlen(from));
    const char *path = th_tmp("experiment.yaml");
    return th_write_file(path, buf) ? NULL : path;
}

static int load(const char *path, icv_experiment *e, icv_err *err) { return icv_experiment_load(path, e, err); }

TEST(test_experiment_good_file_loads_with_values_and_defaults)
{
    static icv_experiment e;
    icv_err err = {0};
    const char *path = variant("name:", "name:");
    ASSERT(path, "could not write the file");
    ASSERT(load(path, &e, &err) == 0, "%s", err.msg);
    ASSERT_STR_CONTAINS(e.name, "rod_sliding_45");
    ASSERT_EQ_INT(e.n_cameras, 2);
    ASSERT_STR_CONTAINS(e.cameras[1].id, "right");
    ASSERT_NEAR(e.cameras[1].capture_fps, 240, 0);
    ASSERT_NEAR(e.cameras[0].capture_fps, 0, 0); /* default: from the container */
    ASSERT_NEAR(e.cameras[1].exposure_s, 0.002, 0);
    ASSERT_NEAR(e.cameras[0].exposure_s, 0, 0); /* default: a full frame period */
    ASSERT_STR_CONTAINS(e.cameras[0].video, th_tmpdir()); /* resolved against the file's folder */
    ASSERT_EQ_INT(e.board_cols, 9);
    ASSERT_EQ_INT(e.board_rows, 6);
    ASSERT_NEAR(e.board_square, 0.023, 0);
    ASSERT_STR_CONTAINS(e.calib_images[1], "calib/right_*.png");
    ASSERT_EQ_INT(e.surface_kind, ICV_SURFACE_IMAGES);
    ASSERT_EQ_INT(e.gravity_auto, 1);
    ASSERT_EQ_INT(e.sync, ICV_SYNC_FLASH);
    ASSERT_NEAR(e.mass, 0.169, 0);
    ASSERT_NEAR(e.inertia.m[1][1], 3.8e-9, 0);
    ASSERT_EQ_INT(e.n_markers, 3);
    ASSERT_NEAR(e.markers[2].y, -0.127, 0);
    ASSERT_EQ_INT(e.shape.type, ICV_SHAPE_CAPSULE);
    ASSERT_NEAR(e.shape.radius, 0.009525, 0);
    ASSERT_EQ_INT(e.restitution, ICV_RESTITUTION_STRONGE);
    ASSERT_EQ_INT(e.mu_measured, 1);
    ASSERT_EQ_INT(e.e_n_measured, 1);
}

TEST(test_experiment_numbers_and_defaults_of_optional_keys)
{
    static icv_experiment e;
    icv_err err = {0};
    /* drop shape, gravity, sync and model: defaults apply */
    char text[8192];
    snprintf(text, sizeof text, "%s", good);
    *strstr(text, "  shape:") = '\0';
    strcat(text, "model: {restitution: poisson, mu_s: 0.25, mu_k: 0.23, e_n: 0.45}\n");
    char *g = strstr(text, "gravity: auto\nsync: {method: flash}\n");
    memmove(g, g + strlen("gravity: auto\nsync: {method: flash}\n"), strlen(g) + 1 - strlen("gravity: auto\nsync: {method: flash}\n"));
    ASSERT_EQ_INT(th_write_file(th_tmp("e.yaml"), text), 0);
    ASSERT(load(th_tmp("e.yaml"), &e, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(e.shape.type, ICV_SHAPE_POINTS); /* default: the markers */
    ASSERT_EQ_INT(e.shape.n_points, 3);
    ASSERT_EQ_INT(e.gravity_auto, 1);
    ASSERT_EQ_INT(e.sync, ICV_SYNC_FLASH); /* default with two cameras */
    ASSERT_EQ_INT(e.restitution, ICV_RESTITUTION_POISSON);
    ASSERT_NEAR(e.mu_s, 0.25, 0);
    ASSERT_NEAR(e.mu_k, 0.23, 0);
    ASSERT_NEAR(e.e_n, 0.45, 0);
    ASSERT_EQ_INT(e.mu_measured, 0);
}

/* Each bad input: the message names the file, the key and says why. */
static void expect_reject(const char *from, const char *to, const char *key, const char *why)
{
    static icv_experiment e;
    icv_err err = {0};
    const char *path = variant(from, to);
    ASSERT(path, "test bug: '%s' not in the good file", from);
    int rc = load(path, &e, &err);
    ASSERT(rc != 0, "accepted a bad file (%s -> %s)", from, to);
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml");
    ASSERT_STR_CONTAINS(err.msg, key);
    ASSERT_STR_CONTAINS(err.msg, why);
    ASSERT(!strchr(err.msg, '\n'), "message is not one line: %s", err.msg);
}

TEST(test_experiment_rejects_missing_required_key)
{
    expect_reject("  mass: 0.169\n", "", "body.mass", "missing");
    if (th_failed()) return;
    expect_reject("name: rod_sliding_45\n", "", "name", "missing");
    if (th_failed()) return;
    expect_reject("    video: right.mp4\n", "", "cameras[1].video", "missing");
}

TEST(test_experiment_rejects_wrong_type)
{
    expect_reject("mass: 0.169", "mass: heavy", "body.mass", "expected a number");
    if (th_failed()) return;
    expect_reject("inertia: [[1.312e-3,0,0],[0,3.8e-9,0],[0,0,1.312e-3]]", "inertia: 0.001", "body.inertia",
                  "3x3");
    if (th_failed()) return;
    expect_reject("cols: 9", "cols: nine", "calibration.board.cols", "whole number");
}

TEST(test_experiment_rejects_negative_mass)
{
    expect_reject("mass: 0.169", "mass: -0.169", "body.mass", "must be > 0");
}

TEST(test_experiment_rejects_non_positive_definite_inertia)
{
    expect_reject("[[1.312e-3,0,0],[0,3.8e-9,0],[0,0,1.312e-3]]", "[[1.312e-3,0,0],[0,-3.8e-9,0],[0,0,1.312e-3]]",
                  "body.inertia", "positive definite");
    if (th_failed()) return;
    expect_reject("[[1.312e-3,0,0],[0,3.8e-9,0],[0,0,1.312e-3]]", "[[1.312e-3,1e-3,0],[0,3.8e-9,0],[0,0,1.312e-3]]",
                  "body.inertia", "symmetric");
}

TEST(test_experiment_rejects_fewer_than_3_markers_for_3d_body)
{
    expect_reject("markers: [[0,0.127,0],[0,0,0],[0,-0.127,0]]", "markers: [[0,0.127,0],[0,-0.127,0]]",
                  "body.markers", "at least 3 markers");
}

TEST(test_experiment_rejects_unknown_restitution_model)
{
    expect_reject("restitution: stronge", "restitution: hertz", "model.restitution", "unknown restitution model");
}

TEST(test_experiment_rejects_other_bad_values)
{
    expect_reject("e_n: measured", "e_n: 1.5", "model.e_n", "[0, 1]");
    if (th_failed()) return;
    expect_reject("type: capsule", "type: banana", "body.shape.type", "unknown shape");
    if (th_failed()) return;
    expect_reject("right: \"calib/right_*.png\"", "rigth: \"calib/right_*.png\"", "calibration.images", "rigth");
    if (th_failed()) return;
    expect_reject("method: flash", "method: clap", "sync.method", "unknown sync method");
    if (th_failed()) return;
    expect_reject("mu: measured", "mu: -0.2", "model.mu", "[0, 10]");
}

/* body.marker_shape: band by default (what axis markers were before the key), sphere
 * when given; anything else refused naming the key and the value. */
TEST(test_experiment_marker_shape_default_value_and_refusal)
{
    static icv_experiment e;
    icv_err err = {0};
    ASSERT(load(variant("x", "x"), &e, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(e.marker_shape, ICV_MARKER_BAND);
    ASSERT_EQ_INT(e.bodies[0].marker_shape, ICV_MARKER_BAND);
    ASSERT(load(variant("  marker_diameter: 0.012\n", "  marker_diameter: 0.012\n  marker_shape: sphere\n"), &e, &err) == 0,
           "%s", err.msg);
    ASSERT_EQ_INT(e.marker_shape, ICV_MARKER_SPHERE);
    ASSERT(load(variant("  marker_diameter: 0.012\n", "  marker_diameter: 0.012\n  marker_shape: band\n"), &e, &err) == 0,
           "%s", err.msg);
    ASSERT_EQ_INT(e.marker_shape, ICV_MARKER_BAND);
    expect_reject("  marker_diameter: 0.012\n", "  marker_diameter: 0.012\n  marker_shape: bead\n", "body.marker_shape",
                  "'bead' is not a marker shape (band | sphere)");
    if (th_failed()) return;
    expect_reject("  marker_diameter: 0.012\n", "  marker_diameter: 0.012\n  marker_shape: [band]\n", "body.marker_shape",
                  "is not a marker shape");
}

TEST(test_experiment_error_names_the_line)
{
    static icv_experiment e;
    icv_err err = {0};
    const char *path = variant("mass: 0.169", "mass: -1");
    ASSERT(path, "write");
    ASSERT(load(path, &e, &err) != 0, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml:17:"); /* line 17 of `good` holds the mass */
}

TEST(test_experiment_rejects_yaml_syntax_error_and_missing_file)
{
    static icv_experiment e;
    icv_err err = {0};
    ASSERT_EQ_INT(th_write_file(th_tmp("bad.yaml"), "name: [unclosed\n"), 0);
    ASSERT(load(th_tmp("bad.yaml"), &e, &err) == ICV_EFORMAT, "rc");
    ASSERT_STR_CONTAINS(err.msg, "not valid YAML");
    ASSERT(load(th_tmp("absent.yaml"), &e, &err) == ICV_EIO, "rc");
    ASSERT_STR_CONTAINS(err.msg, "absent.yaml: cannot open");
}

TEST(test_experiment_one_camera_mode_with_gravity_scale_needs_no_board)
{
    static icv_experiment e;
    icv_err err = {0};
    const char *text = "name: ball\n"
                       "cameras: [{id: phone, video: ball.mov, capture_fps: 240}]\n"
                       "motion_plane: {scale: gravity}\n"
                       "body: {mass: 0.0027, inertia: [[1.2e-6,0,0],[0,1.2e-6,0],[0,0,1.2e-6]],\n"
                       "       markers: [[0,0,0]], shape: {type: sphere, radius: 0.02}}\n";
    ASSERT_EQ_INT(th_write_file(th_tmp("ball.yaml"), text), 0);
    ASSERT(load(th_tmp("ball.yaml"), &e, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(e.n_cameras, 1);
    ASSERT_EQ_INT(e.scale_kind, ICV_SCALE_GRAVITY);
    ASSERT_EQ_INT(e.has_calibration, 0);
    ASSERT_EQ_INT(e.surface_kind, ICV_SURFACE_NONE); /* the lowest point reached */
    ASSERT_EQ_INT(e.sync, ICV_SYNC_NONE);
    ASSERT_EQ_INT(e.shape.type, ICV_SHAPE_SPHERE);
}

TEST(test_experiment_motion_plane_verticals_px_read_and_bad_ones_refused)
{
    /* two segments read as given (px); one segment, a segment under 20 px, and the
       verticals beside a scale other than size each refused on one line naming why */
    static icv_experiment e;
    const char *head = "name: ball\n"
                       "cameras: [{id: phone, video: ball.mov, capture_fps: 240}]\n"
                       "body: {mass: 0.0027, inertia: [[1.2e-6,0,0],[0,1.2e-6,0],[0,0,1.2e-6]],\n"
                       "       markers: [[0,0,0]], shape: {type: sphere, radius: 0.02}}\n";
    static const struct {
        const char *plane, *why;
    } cases[] = {
        {"motion_plane: {scale: size, verticals_px: [[[477, 60], [509.3, 880]], [[1450.1, 60], [1405.5, 880]]]}\n",
         NULL},
        {"motion_plane: {scale: size, verticals_px: [[[477, 60], [509.3, 880]]]}\n", "expected 2 to 8 segments"},
        {"motion_plane: {scale: size, verticals_px: [[[477, 60], [480, 70]], [[1450, 60], [1405, 880]]]}\n",
         "segment 1 is 10.4 px long"},
        {"motion_plane: {scale: gravity, verticals_px: [[[477, 60], [509, 880]], [[1450, 60], [1405, 880]]]}\n",
         "give scale: size"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[1024];
        icv_err err = {0};
        snprintf(text, sizeof text, "%s%s", head, cases[k].plane);
        ASSERT_EQ_INT(th_write_file(th_tmp("ball.yaml"), text), 0);
        int rc = load(th_tmp("ball.yaml"), &e, &err);
        if (!cases[k].why) {
            ASSERT(rc == 0, "%s", err.msg);
            ASSERT_EQ_INT(e.n_verticals, 2);
            ASSERT_NEAR(e.verticals_px[0][1][0], 509.3, 1e-12);
            ASSERT_NEAR(e.verticals_px[1][1][1], 880, 1e-12);
        } else {
            ASSERT(rc == ICV_EINVAL, "case %zu loaded", k);
            ASSERT_STR_CONTAINS(err.msg, cases[k].why);
            ASSERT_STR_CONTAINS(err.msg, "verticals_px");
        }
    }
}

TEST(test_experiment_check_files_names_the_missing_file)
{
    static icv_experiment e;
    icv_err err = {0};
    const char *path = variant("name:", "name:");
    ASSERT(path && load(path, &e, &err) == 0, "%s", err.msg);
    ASSERT(icv_experiment_check_files(&e, &err) == ICV_ENOTFOUND, "missing videos accepted");
    ASSERT_STR_CONTAINS(err.msg, "left.mp4: video of camera 'left' not found");
}

/* issue #20: `calibration: {file}` alone works where no board images are used; where
   they are (surface, motion-plane or level images) the board's size is asked for
   with one line at load (check), not found later as "the 0x0 board was not found" */
TEST(test_experiment_calibration_file_alone_needs_a_board_only_for_board_images)
{
    static icv_experiment e;
    icv_err err = {0};
    const char *path = variant("calibration:\n  board: {cols: 9, rows: 6, square: 0.023}\n  images: {left: "
                               "\"calib/left_*.png\", right: \"calib/right_*.png\"}\nsurface:\n  images: {left: "
                               "surface_left.png, right: surface_right.png}\n",
                               "calibration: {file: stereo.yaml}\n"
                               "surface: {plane: {point: [0, 0.1, 1.0], normal: [0, -1, 0]}}\n");
    ASSERT(path, "test bug");
    ASSERT(load(path, &e, &err) == 0, "%s", err.msg);
    ASSERT_STR_CONTAINS(e.calib_file, "stereo.yaml");
    ASSERT_EQ_INT(e.board_cols, 0);
    expect_reject("  board: {cols: 9, rows: 6, square: 0.023}\n  images: {left: \"calib/left_*.png\", right: "
                  "\"calib/right_*.png\"}\n",
                  "  file: stereo.yaml\n", "calibration",
                  "needs board: {cols, rows, square} (inner corners, metres) beside file: surface.images shows the "
                  "board");
    if (th_failed())
        return;
    /* with the board beside the file: loads */
    path = variant("  images: {left: \"calib/left_*.png\", right: \"calib/right_*.png\"}\n", "  file: stereo.yaml\n");
    ASSERT(load(path, &e, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(e.board_cols, 9);
    /* one camera, the board held in the motion plane */
    const char *one = "name: one\ncameras: [{id: cam, video: cam.mp4}]\ncalibration: {file: cam.yaml}\n"
                      "motion_plane: {images: {cam: plane.png}}\n"
                      "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n";
    th_write_file(th_tmp("one.yaml"), one);
    ASSERT(load(th_tmp("one.yaml"), &e, &err) != 0, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "one.yaml:3: calibration: needs board");
    ASSERT_STR_CONTAINS(err.msg, "motion_plane.images shows the board");
}

/* issue #20: no cameras: tracks from another system (analyze --tracks) */
TEST(test_experiment_without_cameras_for_tracks_from_another_system)
{
    static icv_experiment e;
    icv_err err = {0};
    th_write_file(th_tmp("lab.yaml"), "name: lab\nsurface: {plane: {point: [0, 0, 0.03], normal: [0, 0, 2]}}\n"
                                      "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]],\n"
                                      "       markers: [[0,0,0], [0.1,0,0]], marker_labels: [A, B]}\n");
    ASSERT(load(th_tmp("lab.yaml"), &e, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(e.n_cameras, 0);
    ASSERT_EQ_INT(e.surface_kind, ICV_SURFACE_PLANE);
    ASSERT_NEAR(e.plane_normal.z, 1, 1e-15);
    ASSERT_EQ_INT(e.has_calibration, 0);
    ASSERT_EQ_INT(e.sync, ICV_SYNC_NONE);
    ASSERT(!strcmp(e.marker_labels[1], "B"), "label '%s'", e.marker_labels[1]);
    th_write_file(th_tmp("lab.yaml"), "name: lab\nsurface: {plane: {point: [0, 0, 0.03], normal: [0, 0, 1]}}\n"
                                      "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]],\n"
                                      "       markers: [[0,0,0], [0.1,0,0]], marker_labels: [A, A]}\n");
    ASSERT(load(th_tmp("lab.yaml"), &e, &err) != 0, "accepted");
    ASSERT_STR_CONTAINS(err.msg, "body.marker_labels[1]: label 'A' is given twice");
}

static int n_unknown;
static char unknown_text[512];

static void count_unknown(icv_log_level level, const char *line, void *user)
{
    (void)user;
    if (level == ICV_LOG_WARN && strstr(line, "unknown key")) {
        n_unknown++;
        strncat(unknown_text, line, sizeof unknown_text - strlen(unknown_text) - 1);
    }
}

/* a key nothing reads is warned, not silently taken: `analysis:` and `report:` were
 * accepted without a reader (a user setting them saw no effect and no word) */
TEST(test_experiment_keys_nothing_reads_are_warned_as_unknown)
{
    static icv_experiment e;
    static char text[8192];
    icv_err err = {0};
    snprintf(text, sizeof text, "%sanalysis: {method: fit}\nreport: {title: x}\ntrack: {markers: bright}\n", good);
    ASSERT_EQ_INT(th_write_file(th_tmp("e.yaml"), text), 0);
    icv_log_sink prev;
    void *prev_user;
    icv_log_get_sink(&prev, &prev_user);
    n_unknown = 0;
    unknown_text[0] = 0;
    icv_log_set_sink(count_unknown, NULL);
    int rc = load(th_tmp("e.yaml"), &e, &err);
    icv_log_set_sink(prev, prev_user);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(n_unknown, 2); /* analysis and report; track is read */
    ASSERT_STR_CONTAINS(unknown_text, "'analysis'");
    ASSERT_STR_CONTAINS(unknown_text, "'report'");
}
