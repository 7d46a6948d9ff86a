/* render_test_camera.h: the renderer's tests' one still camera (render_test_camera.c). */
#ifndef ICV_TESTS_RENDER_TEST_CAMERA_H
#define ICV_TESTS_RENDER_TEST_CAMERA_H

#include "synth/synth.h"

/* sc's only camera, "cam": width x height px, focal fx px at the image's centre, radial
 * k1, at from looking at at (m, the scene's frame, up +y); one frame at 100 fps, no
 * exposure; noise, vignetting and the flash off */
void render_test_camera(synth_scenario *sc, int width, int height, double fx, double k1, icv_vec3 from, icv_vec3 at);

#endif
