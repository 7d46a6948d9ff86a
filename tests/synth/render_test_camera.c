/* render_test_camera.c: one still camera for the renderer's tests. */
#include <stdio.h>

#include "tests/synth/render_test_camera.h"

void render_test_camera(synth_scenario *sc, int width, int height, double fx, double k1, icv_vec3 from, icv_vec3 at)
{
    sc->n_cameras = 1;
    synth_camera *c = &sc->cameras[0];
    snprintf(c->id, sizeof c->id, "cam");
    c->model.width = width;
    c->model.height = height;
    c->model.fx = c->model.fy = fx;
    c->model.cx = 0.5 * (width - 1);
    c->model.cy = 0.5 * (height - 1);
    c->model.dist[0] = k1;
    icv_err err;
    synth_camera_look_at(&c->model, from, at, icv_v3(0, 1, 0), &err);
    c->fps = 100;
    c->exposure_s = 0;
    c->n_frames = 1;
    sc->render.noise = 0;
    sc->render.vignetting = 0;
    sc->render.flash_duration_s = 0;
}
