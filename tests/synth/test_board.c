/* test_board.c: chessboard shots (synth/board.c): squares where the pose puts them,
 * in the contract's corner order, and the calibration views (some partly out of view). */
#include <stdlib.h>

#include "synth/synth.h"
#include "tests/harness.h"

static void board_scene(synth_scenario *sc)
{
    synth_scenario_defaults(sc);
    sc->n_cameras = 1;
    synth_camera *c = &sc->cameras[0];
    snprintf(c->id, sizeof c->id, "cam");
    c->model.width = 640;
    c->model.height = 480;
    c->model.fx = c->model.fy = 700;
    c->model.cx = 319.5;
    c->model.cy = 239.5;
    c->model.dist[0] = -0.1;
    icv_err err;
    synth_camera_look_at(&c->model, icv_v3(0.09, 0.5, 0.45), icv_v3(0.09, 0, 0.06), icv_v3(0, 1, 0), &err);
    c->fps = 100;
    c->n_frames = 1;
    sc->render.noise = 0;
    sc->render.vignetting = 0;
    sc->board.n_views = 8;
}

TEST(test_board_on_the_surface_has_its_squares_where_the_surface_frame_says)
{
    synth_scenario *sc = malloc(sizeof *sc);
    board_scene(sc);
    synth_renderer *r;
    icv_err err;
    ASSERT(synth_renderer_alloc(sc, 0, &r, &err) == 0, "%s", err.msg);
    uint8_t *img = malloc(640 * 480);
    synth_board_pose p = synth_board_on_surface();
    synth_board_render(r, &sc->board, &p, 1, img);
    double sq = sc->board.square;
    int bad = 0, n = 0;
    /* square (i, j) spans [i sq, (i+1) sq] along x and [j sq, (j+1) sq] along z; the
     * one touching the first inner corner at the origin from -x, -z is black */
    for (int j = -1; j < sc->board.rows; j++)
        for (int i = -1; i < sc->board.cols; i++) {
            double uv[2];
            synth_camera_project(&sc->cameras[0].model, icv_v3((i + 0.5) * sq, 0, (j + 0.5) * sq), uv);
            int g = img[(int)lround(uv[1]) * 640 + (int)lround(uv[0])];
            int black = ((i + j) & 1) == 0;
            bad += black ? g > 60 : g < 150; /* black 0.04 x 255 = 10, white 0.8 x 255 = 204 */
            n++;
        }
    synth_renderer_free(r);
    free(img);
    free(sc);
    ASSERT(bad == 0, "%d of %d squares have the wrong colour at their true centres", bad, n);
}

TEST(test_board_views_face_the_camera_and_some_leave_the_frame)
{
    synth_scenario *sc = malloc(sizeof *sc);
    board_scene(sc);
    synth_board_pose v[8];
    synth_board_views(sc, v);
    int partly_out = 0, facing = 0;
    for (int k = 0; k < 8; k++) {
        int in = 0, total = sc->board.cols * sc->board.rows;
        for (int rr = 0; rr < sc->board.rows; rr++)
            for (int c = 0; c < sc->board.cols; c++) {
                icv_vec3 x = icv_v3_add(icv_m3_apply(v[k].R, icv_v3(c * sc->board.square, rr * sc->board.square, 0)),
                                        v[k].t);
                double uv[2];
                if (!synth_camera_project(&sc->cameras[0].model, x, uv) && uv[0] >= 0 && uv[1] >= 0 &&
                    uv[0] <= 639 && uv[1] <= 479)
                    in++;
            }
        partly_out += in < total;
        if (getenv("SYNTH_DEBUG"))
            printf("view %d: %d of %d corners in view\n", k, in, total);
        /* the board's z (into the board) points away from the camera: its front is seen */
        icv_vec3 z = icv_v3(v[k].R.m[0][2], v[k].R.m[1][2], v[k].R.m[2][2]);
        icv_vec3 to_board = icv_v3_sub(v[k].t, synth_camera_center(&sc->cameras[0].model));
        facing += icv_v3_dot(z, to_board) > 0;
    }
    free(sc);
    ASSERT_EQ_INT(facing, 8);
    ASSERT_EQ_INT(partly_out, 2); /* every fourth view, by design */
}

TEST(test_board_corners_found_by_a_chessboard_detector_within_0_05_px)
{
    /* Needs a chessboard detector: OpenCV's lives in calib/ (issue #6, branch calib), which
     * this branch does not have, and synth/ holds no OpenCV code. Measured by hand with
     * OpenCV 4 findChessboardCornersSB(CALIB_CB_ACCURACY) on the level-drop sample's
     * views: 0.022 px max on the near-frontal view, 0.08-0.16 px on boards tilted by
     * ~0.5 rad (docs/synth.md). To be written against calib_board_detect once merged. */
    SKIP("chessboard detection is calib/'s (branch calib, not merged here)");
}
