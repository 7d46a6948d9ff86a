/* test_experiment_bodies.c: experiment.yaml's `bodies:` and `joints:` (issue #22 item
 * 1): several bodies read with their names, the first also into the one-body fields; a
 * chain's pin joint; and each bad input with one line naming what is wrong. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "tests/harness.h"

/* Akhan's two-link chain, filmed by two cameras: three markers on each link (the
 * second link's at other spacings, so the templates differ). */
static const char head[] = "name: chain\n"
                           "cameras:\n"
                           "  - {id: left, video: left.mp4}\n"
                           "  - {id: right, video: right.mp4}\n"
                           "calibration: {file: stereo.yaml}\n"
                           "surface: {plane: {point: [0, 0, 0.5], normal: [0, -1, 0]}}\n";

static const char link_a[] = "  - name: upper\n"
                             "    mass: 0.1\n"
                             "    inertia: [[1e-4,0,0],[0,1e-6,0],[0,0,1e-4]]\n"
                             "    markers: [[0,0.05,0],[0,0,0],[0,-0.05,0]]\n"
                             "    marker_shape: sphere\n"
                             "    shape: {type: cylinder, axis: [0,1,0], length: 0.12, radius: 0.005}\n";

static const char link_b[] = "  - name: lower\n"
                             "    mass: 0.12\n"
                             "    inertia: [[1.2e-4,0,0],[0,1.2e-6,0],[0,0,1.2e-4]]\n"
                             "    markers: [[0,0.04,0],[0,-0.01,0],[0,-0.07,0]]\n";

static const char joint[] = "joints: [{type: pin, bodies: [upper, lower], at: {upper: [0, -0.06, 0], lower: [0, 0.06, "
                            "0]}}]\n";

static int load_text(const char *text, icv_experiment *e, icv_err *err)
{
    const char *path = th_tmp("experiment.yaml");
    if (th_write_file(path, text))
        return -1;
    return icv_experiment_load(path, e, err);
}

static void expect_fail(const char *text, const char *want1, const char *want2)
{
    static icv_experiment e;
    icv_err err = {0};
    int rc = load_text(text, &e, &err);
    ASSERT(rc != 0, "accepted: %s", text);
    ASSERT_STR_CONTAINS(err.msg, "experiment.yaml");
    ASSERT_STR_CONTAINS(err.msg, want1);
    ASSERT_STR_CONTAINS(err.msg, want2);
    ASSERT(!strchr(err.msg, '\n'), "message is not one line: %s", err.msg);
}

TEST(test_experiment_bodies_and_a_pin_joint_are_read)
{
    static icv_experiment e;
    static char text[4096];
    icv_err err = {0};
    snprintf(text, sizeof text, "%sbodies:\n%s%s%s", head, link_a, link_b, joint);
    ASSERT(load_text(text, &e, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(e.n_bodies, 2);
    ASSERT(!strcmp(e.bodies[0].name, "upper"), "name %s", e.bodies[0].name);
    ASSERT(!strcmp(e.bodies[1].name, "lower"), "name %s", e.bodies[1].name);
    ASSERT_NEAR(e.bodies[1].mass, 0.12, 0); /* read as written */
    ASSERT_EQ_INT(e.bodies[1].n_markers, 3);
    ASSERT_NEAR(e.bodies[1].markers[2].y, -0.07, 0);
    ASSERT_EQ_INT(e.bodies[0].shape.type, ICV_SHAPE_CYLINDER);
    ASSERT_EQ_INT(e.bodies[1].shape.type, ICV_SHAPE_POINTS); /* default: the markers */
    ASSERT_NEAR(e.bodies[1].marker_diameter, 0.01, 0);        /* the documented default */
    ASSERT_EQ_INT(e.bodies[0].marker_shape, ICV_MARKER_SPHERE);
    ASSERT_EQ_INT(e.bodies[1].marker_shape, ICV_MARKER_BAND); /* the default */
    /* the one-body fields hold the first body */
    ASSERT_NEAR(e.mass, 0.1, 0);
    ASSERT_EQ_INT(e.marker_shape, ICV_MARKER_SPHERE);
    ASSERT_EQ_INT(e.n_markers, 3);
    ASSERT_NEAR(e.markers[0].y, 0.05, 0);
    ASSERT_EQ_INT(e.n_joints, 1);
    ASSERT_EQ_INT(e.joints[0].type, ICV_JOINT_PIN);
    ASSERT_EQ_INT(e.joints[0].body[0], 0);
    ASSERT_EQ_INT(e.joints[0].body[1], 1);
    ASSERT_NEAR(e.joints[0].at[0].y, -0.06, 0);
    ASSERT_NEAR(e.joints[0].at[1].y, 0.06, 0);
    /* the stages that follow one body say so, naming the stage */
    ASSERT(icv_experiment_one_body(&e, "track", &err) != 0, "a two-body experiment passed the one-body check");
    ASSERT_STR_CONTAINS(err.msg, "the track stage follows one body");
    ASSERT_STR_CONTAINS(err.msg, "'upper', 'lower'");
}

TEST(test_experiment_single_body_is_the_one_body_of_bodies)
{
    static icv_experiment e;
    static char text[4096];
    icv_err err = {0};
    snprintf(text, sizeof text,
             "%sbody:\n  mass: 0.2\n  inertia: [[1e-4,0,0],[0,1e-6,0],[0,0,1e-4]]\n  markers: "
             "[[0,0.05,0],[0,0,0],[0,-0.05,0]]\n",
             head);
    ASSERT(load_text(text, &e, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(e.n_bodies, 1);
    ASSERT(!strcmp(e.bodies[0].name, "body"), "name %s", e.bodies[0].name);
    ASSERT_NEAR(e.bodies[0].mass, 0.2, 0);
    ASSERT_NEAR(e.mass, 0.2, 0);
    ASSERT_EQ_INT(e.n_joints, 0);
    ASSERT_EQ_INT(icv_experiment_one_body(&e, "track", &err), 0);
}

TEST(test_experiment_five_one_marker_balls_need_no_template)
{
    /* a cradle's beads: identical one-marker bodies are told apart by their tracks */
    static icv_experiment e;
    static char text[8192];
    icv_err err = {0};
    int n = snprintf(text, sizeof text,
                     "name: cradle\ncameras: [{id: cam, video: cam.mp4}]\n"
                     "motion_plane: {scale: gravity}\nsurface: {line_px: [[0, 400], [600, 400]]}\nbodies:\n");
    for (int k = 0; k < 5; k++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "  - {name: ball%d, mass: 0.045, inertia: [[2e-6,0,0],[0,2e-6,0],[0,0,2e-6]], markers: "
                      "[[0,0,0]], shape: {type: sphere, radius: 0.011}}\n",
                      k + 1);
    ASSERT(load_text(text, &e, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(e.n_bodies, 5);
    ASSERT(!strcmp(e.bodies[4].name, "ball5"), "name %s", e.bodies[4].name);
    ASSERT_NEAR(e.bodies[4].pendulum_length, 0, 0); /* not hung unless told */
    /* hung on strings: `pendulum: {length: l}` */
    char *at = strstr(text, "shape: {type: sphere, radius: 0.011}}\n");
    ASSERT(at != NULL, "%s", text);
    snprintf(at, sizeof text - (size_t)(at - text),
             "shape: {type: sphere, radius: 0.011}, pendulum: {length: 0.129}}\n");
    ASSERT(load_text(text, &e, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(e.bodies[0].pendulum_length, 0.129, 0);
    ASSERT_NEAR(e.bodies[1].pendulum_length, 0, 0); /* per body */
}

TEST(test_experiment_bodies_bad_input_gets_one_line)
{
    static char text[8192];
    /* both keys */
    snprintf(text, sizeof text,
             "%sbody: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0],[1,0,0],[0,1,0]]}\n"
             "bodies:\n%s",
             head, link_a);
    expect_fail(text, "bodies", "not both");
    /* a name twice */
    snprintf(text, sizeof text, "%sbodies:\n%s%s", head, link_a, link_a);
    expect_fail(text, "'upper'", "given twice");
    /* a joint naming no body */
    snprintf(text, sizeof text,
             "%sbodies:\n%s%sjoints: [{type: pin, bodies: [upper, foot], at: {upper: [0,0,0], foot: [0,0,0]}}]\n",
             head, link_a, link_b);
    expect_fail(text, "'foot'", "not the name of a body");
    /* a joint of another type */
    snprintf(text, sizeof text,
             "%sbodies:\n%s%sjoints: [{type: hinge, bodies: [upper, lower], at: {upper: [0,0,0], lower: "
             "[0,0,0]}}]\n",
             head, link_a, link_b);
    expect_fail(text, "hinge", "pin");
    /* a joint point missing */
    snprintf(text, sizeof text,
             "%sbodies:\n%s%sjoints: [{type: pin, bodies: [upper, lower], at: {upper: [0,0,0]}}]\n", head, link_a,
             link_b);
    expect_fail(text, "lower", "missing");
    /* two bodies whose templates are the same within 3 mm + 3%: the second link with
     * the first's spacings shifted by 1 mm */
    snprintf(text, sizeof text,
             "%sbodies:\n%s  - name: twin\n    mass: 0.1\n    inertia: [[1e-4,0,0],[0,1e-6,0],[0,0,1e-4]]\n"
             "    markers: [[0,0.051,0],[0,0.001,0],[0,-0.049,0]]\n",
             head, link_a);
    expect_fail(text, "'upper' and 'twin'", "cannot be told apart");
    expect_fail(text, "spacing", "0.0 mm");
    /* a pendulum's length out of range, or not a map */
    snprintf(text, sizeof text, "%sbodies:\n%s    pendulum: {length: -0.1}\n%s", head, link_a, link_b);
    expect_fail(text, "length", "(0, 100] metres");
    snprintf(text, sizeof text, "%sbodies:\n%s    pendulum: 0.129\n%s", head, link_a, link_b);
    expect_fail(text, "pendulum", "{length: l}");
}
