/* test_synth_marker_shape.c: synth's experiment.yaml says what a rod's markers are
 * (body.marker_shape): band for bands, sphere for spheres (a bead where one sits on the
 * axis) and balls on posts; nothing for stickers, nor for a body that is not a rod
 * (the key only changes the shift of markers on a rod's axis). */
#include <stdio.h>
#include <string.h>

#include "synth/synth_internal.h"
#include "tests/harness.h"

/* the body's yaml as synth writes it, into a static buffer */
static const char *body_yaml(const synth_body *b)
{
    const char *path = th_tmp("body.yaml");
    FILE *fp = fopen(path, "w");
    if (!fp)
        return "";
    synth_body_yaml(fp, b, "  ");
    fclose(fp);
    const char *text = th_read_file(path);
    return text ? text : "";
}

TEST(test_synth_writes_the_marker_shape_of_a_rods_markers)
{
    static synth_scenario sc;
    synth_scenario_defaults(&sc); /* the rod with three bands */
    synth_body *b = &sc.body;
    ASSERT(b->shape.type == ICV_SHAPE_CAPSULE || b->shape.type == ICV_SHAPE_CYLINDER, "default body is not a rod");
    ASSERT_STR_CONTAINS(body_yaml(b), "\n  marker_shape: band\n");
    b->marker_style = SYNTH_MARKER_SPHERE;
    ASSERT_STR_CONTAINS(body_yaml(b), "\n  marker_shape: sphere\n");
    b->marker_style = SYNTH_MARKER_POST;
    ASSERT_STR_CONTAINS(body_yaml(b), "\n  marker_shape: sphere\n");
    b->marker_style = SYNTH_MARKER_STICKER;
    ASSERT(!strstr(body_yaml(b), "marker_shape"), "stickers given a marker_shape: %s", body_yaml(b));
    b->marker_style = SYNTH_MARKER_SPHERE;
    b->shape.type = ICV_SHAPE_SPHERE;
    b->shape.radius = 0.02;
    ASSERT(!strstr(body_yaml(b), "marker_shape"), "a ball given a marker_shape: %s", body_yaml(b));
}
