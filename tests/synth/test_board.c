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
    /* every fourth view by design (views 3 and 7); a tilted board in a corner of the
     * 3 x 3 layout may lose a corner or two, but most views hold the whole board */
    ASSERT(partly_out >= 2 && partly_out <= 3, "%d of 8 views partly out of the frame", partly_out);
}

/* Gaussian blur (sigma 1.2 px, separable, symmetric: it keeps a centre of symmetry)
 * so that bilinear interpolation of the sharp edges has no sub-pixel phase bias */
static void blur(const uint8_t *in, float *out, float *tmp, int W, int H)
{
    double k[13], sk = 0;
    for (int i = -6; i <= 6; i++)
        sk += k[i + 6] = exp(-i * i / (2 * 1.6 * 1.6));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double a = 0;
            for (int i = -6; i <= 6; i++) {
                int xx = x + i < 0 ? 0 : x + i >= W ? W - 1 : x + i;
                a += k[i + 6] * in[y * W + xx];
            }
            tmp[y * W + x] = (float)(a / sk);
        }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double a = 0;
            for (int i = -6; i <= 6; i++) {
                int yy = y + i < 0 ? 0 : y + i >= H ? H - 1 : y + i;
                a += k[i + 6] * tmp[yy * W + x];
            }
            out[y * W + x] = (float)(a / sk);
        }
}

/* bilinear sample */
static double bil(const float *img, int W, double u, double v)
{
    int x = (int)floor(u), y = (int)floor(v);
    double fx = u - x, fy = v - y;
    const float *p = img + (size_t)y * W + x;
    return (1 - fy) * ((1 - fx) * p[0] + fx * p[1]) + fy * ((1 - fx) * p[W] + fx * p[W + 1]);
}

/* mismatch of the image with itself turned by 180 degrees about c (a checker junction
 * is point-symmetric about its corner: two straight edges crossing) */
static double asym(const float *img, int W, double cu, double cv)
{
    double s = 0;
    for (int dy = -4; dy <= 4; dy++)
        for (int dx = -4; dx <= 4; dx++) {
            double a = bil(img, W, cu + dx, cv + dy) - bil(img, W, cu - dx, cv - dy);
            s += a * a;
        }
    return s;
}

TEST(test_board_corners_are_rendered_at_their_true_projections)
{
    /* A detector-free check of the rendering itself: each inner corner's centre of point
     * symmetry (grid search to 0.002 px on the image blurred by a Gaussian of 1.6 px,
     * which keeps the centre and removes bilinear interpolation's phase bias: without it
     * the locator alone errs by 0.05 px rms) against its true projection, on tilted
     * calibration views with lens distortion, noise off. */
    synth_scenario *sc = malloc(sizeof *sc);
    board_scene(sc);
    synth_renderer *r;
    icv_err err;
    ASSERT(synth_renderer_alloc(sc, 0, &r, &err) == 0, "%s", err.msg);
    uint8_t *img = malloc(640 * 480);
    float *fimg = malloc(sizeof(float) * 640 * 480), *tmp = malloc(sizeof(float) * 640 * 480);
    synth_board_pose v[8];
    synth_board_views(sc, v);
    double worst = 0, sum2 = 0;
    int n = 0;
    for (int k = 0; k < 8; k++) {
        if (k % 4 == 3)
            continue; /* partly out of view */
        synth_board_render(r, &sc->board, &v[k], 3, img);
        blur(img, fimg, tmp, 640, 480);
        for (int rr = 0; rr < sc->board.rows; rr++)
            for (int c = 0; c < sc->board.cols; c++) {
                icv_vec3 x = icv_v3_add(icv_m3_apply(v[k].R, icv_v3(c * sc->board.square, rr * sc->board.square, 0)),
                                        v[k].t);
                double uv[2];
                synth_camera_project(&sc->cameras[0].model, x, uv);
                if (uv[0] < 8 || uv[1] < 8 || uv[0] > 631 || uv[1] > 471)
                    continue;
                double bu = uv[0], bv = uv[1], step = 0.05;
                for (int level = 0; level < 3; level++, step /= 5) {
                    double cu = bu, cv = bv, best = INFINITY;
                    for (int j = -10; j <= 10; j++)
                        for (int i = -10; i <= 10; i++) {
                            double a = asym(fimg, 640, cu + i * step, cv + j * step);
                            if (a < best) {
                                best = a;
                                bu = cu + i * step;
                                bv = cv + j * step;
                            }
                        }
                }
                double e = hypot(bu - uv[0], bv - uv[1]);
                worst = fmax(worst, e);
                sum2 += e * e;
                n++;
            }
    }
    synth_renderer_free(r);
    free(img);
    free(fimg);
    free(tmp);
    free(sc);
    if (th_accuracy())
        printf("    board corners (point-symmetry centre vs projection): rms %.4f px, worst %.4f px, %d corners\n",
               sqrt(sum2 / n), worst, n);
    ASSERT(n > 200, "only %d corners checked", n);
    /* the 0.05 px (for a detector) bounds every corner; measured 0.028 px worst,
     * 0.008 px rms (16 x 16 edge supersampling; 8 x 8 gave 0.044 / 0.011): what is left
     * is the locator's own residual and coverage quantisation */
    ASSERT_NEAR(worst, 0.0, 0.05);
    ASSERT_NEAR(sqrt(sum2 / n), 0.0, 0.02);
}

TEST(test_board_corners_found_by_a_chessboard_detector_within_0_05_px)
{
    /* Needs a chessboard detector: OpenCV's lives in calib/ (issue #6, branch calib), which
     * this branch does not have, and synth/ holds no OpenCV code. Measured by hand with
     * OpenCV 4.6 findChessboardCornersSB(CALIB_CB_ACCURACY) and the classic detector with
     * cornerSubPix on the level-drop sample's views: 0.02-0.15 px rms per view, while the
     * rendered corners are at their projections to 0.008 px rms (the test above), so the
     * rest is the detectors' (docs/synth.md). To be written against calib_board_detect. */
    SKIP("chessboard detection is calib/'s (branch calib, not merged here)");
}
