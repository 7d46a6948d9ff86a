/* test_render_cast4.c: the four-rays-at-once cast (synth/render_cast4.c) draws the same
 * pictures as the scalar cast, bit for bit, for every primitive kind it handles (capsule,
 * cylinder, sphere, sticker disc), bands, posts, a string, the reference object in front,
 * and a box (which it leaves to the scalar cast). */
#include <stdlib.h>
#include <string.h>

#include "synth/synth.h"
#include "synth/synth_internal.h"
#include "tests/harness.h"
#include "tests/synth/render_test_camera.h"

enum { W = 320, H = 240 };

/* a 320x240 camera 0.8 m from the body at (0, 0.2, 0); blur, noise, vignetting off */
static void scene(synth_scenario *sc, icv_shape_type type, synth_marker_style style)
{
    synth_scenario_defaults(sc);
    synth_body *b = &sc->body;
    b->shape.type = type;
    b->shape.axis = icv_v3(0, 1, 0);
    b->shape.length = 0.2;
    b->shape.radius = type == ICV_SHAPE_SPHERE ? 0.04 : 0.015;
    b->shape.size = icv_v3(0.1, 0.06, 0.04);
    b->marker_style = style;
    b->marker_diameter = style == SYNTH_MARKER_BAND ? 0.01 : 0.008;
    b->n_markers = 3;
    double rs = type == ICV_SHAPE_SPHERE ? 0.07 : type == ICV_SHAPE_BOX ? 0.05 : b->shape.radius;
    for (int k = 0; k < 3; k++) {
        double a = 0.9 * k - 0.9;
        icv_vec3 nrm = type == ICV_SHAPE_SPHERE ? icv_v3_unit(icv_v3(cos(a), 0.3 * k - 0.3, sin(a)))
                       : type == ICV_SHAPE_BOX  ? icv_v3(1, 0, 0)
                                                : icv_v3(cos(a), 0, sin(a));
        b->marker_normals[k] = nrm;
        b->markers[k] = style == SYNTH_MARKER_BAND ? icv_v3(0, 0.06 * k - 0.05, 0)
                        : type == ICV_SHAPE_BOX    ? icv_v3(0.05, 0.02 * k - 0.02, 0.01 * k - 0.01)
                        : type == ICV_SHAPE_SPHERE ? icv_v3_scale(nrm, rs)
                                                   : icv_v3_add(icv_v3(0, 0.05 * k - 0.05, 0), icv_v3_scale(nrm, rs));
    }
    b->post_length = 0.03;
    b->post_radius = 0.003;
    b->string_radius = type == ICV_SHAPE_CAPSULE ? 0.001 : 0;
    b->string_pivot = icv_v3(0.05, 0.6, 0);
    render_test_camera(sc, W, H, 400, -0.08, icv_v3(0.05, 0.4, 0.7), icv_v3(0, 0.2, 0));
    /* a bright upright cylinder between the camera and part of the body */
    sc->render.reference_object = 1;
    sc->render.reference_position = icv_v3(0.03, 0, 0.25);
    sc->render.reference_radius = 0.01;
    sc->render.reference_height = 0.22;
}

TEST(test_render_cast4_draws_the_scalar_casts_pictures_bit_for_bit)
{
    if (!synth_cast4_available())
        SKIP("no AVX2 on this CPU (or ICV_SYNTH_SCALAR set): only the scalar cast runs");
    static const struct {
        icv_shape_type type;
        synth_marker_style style;
    } cases[] = {{ICV_SHAPE_CAPSULE, SYNTH_MARKER_BAND},    {ICV_SHAPE_CYLINDER, SYNTH_MARKER_STICKER},
                 {ICV_SHAPE_CYLINDER, SYNTH_MARKER_BAND},   {ICV_SHAPE_SPHERE, SYNTH_MARKER_POST},
                 {ICV_SHAPE_SPHERE, SYNTH_MARKER_SPHERE},   {ICV_SHAPE_BOX, SYNTH_MARKER_STICKER}};
    synth_scenario *sc = malloc(sizeof *sc);
    float *img[2] = {malloc(sizeof(float) * W * H), malloc(sizeof(float) * W * H)};
    double mom[2][ICV_MAX_MARKERS][3];
    int n_cmp = 0, with_markers = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        scene(sc, cases[ci].type, cases[ci].style);
        synth_renderer *r;
        icv_err err;
        ASSERT(synth_renderer_alloc(sc, 0, &r, &err) == 0, "%s", err.msg);
        const float *bg = synth_renderer_background(r);
        for (int pose = 0; pose < 5; pose++) {
            synth_state s = {icv_euler213_to_matrix(icv_v3(0.7 * pose, 0.4 - 0.3 * pose, 0.5 * pose)),
                             icv_v3(0.01 * pose - 0.02, 0.2 + 0.01 * pose, -0.01 * pose), icv_v3(0, 0, 0),
                             icv_v3(0, 0, 0)};
            for (int path = 0; path < 2; path++) {
                r->cast4 = path; /* 0: the scalar cast, 1: four at once */
                synth_renderer_state(r, &s, img[path]);
                memcpy(mom[path], r->mom, sizeof mom[path]);
            }
            int drawn = 0, differ = 0;
            for (int i = 0; i < W * H; i++) {
                drawn += img[0][i] != bg[i];
                differ += memcmp(&img[0][i], &img[1][i], sizeof(float)) != 0;
            }
            /* the body covers hundreds of pixels: a scene that drew nothing tests nothing */
            ASSERT(drawn > 300, "case %zu pose %d: only %d pixels drawn", ci, pose, drawn);
            ASSERT(differ == 0, "case %zu pose %d: %d of %d pixels differ between the casts", ci, pose, differ,
                   W * H);
            ASSERT(memcmp(mom[0], mom[1], sizeof mom[0]) == 0, "case %zu pose %d: marker moments differ", ci,
                   pose);
            n_cmp++;
            for (int k = 0; k < 3; k++)
                with_markers += mom[0][k][0] > 1; /* more than a pixel of marker k seen */
        }
        synth_renderer_free(r);
    }
    free(img[0]);
    free(img[1]);
    free(sc);
    ASSERT_EQ_INT(n_cmp, 30);
    ASSERT(with_markers >= 30, "markers seen in only %d of 90 (case, pose, marker)s", with_markers);
}
