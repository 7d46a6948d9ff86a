/* test_render_footprint.c: the per-tile primitive footprints (synth/render.c) are
 * conservative: a body far off the optical axis of a wide camera draws the same picture
 * and marker moments, bit for bit, as with every tile holding every primitive. */
#include <stdlib.h>
#include <string.h>

#include "synth/synth.h"
#include "synth/synth_internal.h"
#include "tests/harness.h"
#include "tests/synth/render_test_camera.h"

enum { W = 320, H = 240 };

/* a rod with 4 cm stickers 0.39 m from a camera of 132 degrees' view (fx 70 px at 320
 * wide) that looks 63 degrees (x/z = 2) to the side of it, where a sphere's image is
 * 2.2 x longer radially than its scale at the centre says (seed 1199, fx 168 px at 800
 * wide, lost part of a sticker and the rod's edge at x/z = 1.3-1.5) */
static void scene(synth_scenario *sc, icv_shape_type type)
{
    synth_scenario_defaults(sc);
    synth_body *b = &sc->body;
    b->shape.type = type;
    b->shape.axis = icv_v3(0, 1, 0);
    b->shape.length = 0.2;
    b->shape.radius = 0.015;
    b->marker_style = SYNTH_MARKER_STICKER;
    b->marker_diameter = 0.04;
    b->n_markers = 3;
    for (int k = 0; k < 3; k++) {
        double a = 0.6 * k - 0.6;
        icv_vec3 nrm = icv_v3(cos(a), 0, sin(a));
        b->marker_normals[k] = nrm;
        b->markers[k] = icv_v3_add(icv_v3(0, 0.07 * k - 0.07, 0), icv_v3_scale(nrm, b->shape.radius));
    }
    b->string_radius = 0;
    /* the body at (0, 0.2, 0) seen from (0, 0.2, 0.35), looking along (-1, 0, -0.5) */
    render_test_camera(sc, W, H, 70, 0, icv_v3(0, 0.2, 0.35), icv_v3(-1, 0.2, -0.15));
    sc->render.reference_object = 0;
}

TEST(test_render_footprints_are_conservative_far_off_axis)
{
    static const icv_shape_type types[] = {ICV_SHAPE_CAPSULE, ICV_SHAPE_CYLINDER};
    synth_scenario *sc = malloc(sizeof *sc);
    float *img[2] = {malloc(sizeof(float) * W * H), malloc(sizeof(float) * W * H)};
    double mom[2][ICV_MAX_MARKERS][3];
    int with_markers = 0;
    for (size_t ci = 0; ci < sizeof types / sizeof types[0]; ci++) {
        scene(sc, types[ci]);
        synth_renderer *r;
        icv_err err;
        ASSERT(synth_renderer_alloc(sc, 0, &r, &err) == 0, "%s", err.msg);
        const float *bg = synth_renderer_background(r);
        for (int pose = 0; pose < 6; pose++) {
            synth_state s = {icv_euler213_to_matrix(icv_v3(0.6 * pose, 0.5 - 0.25 * pose, 0.4 * pose)),
                             icv_v3(0.005 * pose - 0.01, 0.2 + 0.01 * pose, 0.01 * pose), icv_v3(0, 0, 0),
                             icv_v3(0, 0, 0)};
            for (int path = 0; path < 2; path++) {
                r->mark_every = path; /* 0: the footprints, 1: every primitive in every tile */
                synth_renderer_state(r, &s, img[path]);
                memcpy(mom[path], r->mom, sizeof mom[path]);
            }
            r->mark_every = 0;
            int drawn = 0, differ = 0;
            for (int i = 0; i < W * H; i++) {
                drawn += img[1][i] != bg[i];
                differ += memcmp(&img[0][i], &img[1][i], sizeof(float)) != 0;
            }
            /* the rod covers hundreds of pixels: a scene that drew nothing tests nothing */
            ASSERT(drawn > 300, "case %zu pose %d: only %d pixels drawn", ci, pose, drawn);
            /* exact: the footprints only skip primitives a ray cannot hit */
            ASSERT(differ == 0, "case %zu pose %d: %d pixels differ from every primitive in every tile", ci, pose,
                   differ);
            ASSERT(memcmp(mom[0], mom[1], sizeof mom[0]) == 0, "case %zu pose %d: marker moments differ", ci, pose);
            for (int k = 0; k < 3; k++)
                with_markers += mom[1][k][0] > 1;
        }
        synth_renderer_free(r);
    }
    free(img[0]);
    free(img[1]);
    free(sc);
    ASSERT(with_markers >= 10, "markers seen in only %d of 36 (case, pose, marker)s", with_markers);
}
