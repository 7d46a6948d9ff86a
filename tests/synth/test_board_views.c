/* Calibration shots as a careful user takes them (synth_board_views_careful): on the
 * stereo and one-camera sample scenes, every view shows every inner corner to every
 * camera, the views reach the image's edges and corners (calib's coverage measure),
 * and they are tilted. */
#include <stdlib.h>

#include "calib/calib.h"
#include "synth/synth.h"
#include "tests/harness.h"

/* Share of calib's coverage cells (CALIB_COV_COLS x CALIB_COV_ROWS cell centres inside
 * a view's outline) that camera m sees covered by the views, and the largest tilt
 * (deg) between a board's normal and the camera's optical axis; -1 when a view leaves
 * an inner corner out of the image. */
static double coverage(const synth_scenario *sc, const synth_camera_model *m, const synth_board_pose *v, int n,
                       double *max_tilt_deg)
{
    const synth_board_opts *b = &sc->board;
    unsigned char hit[CALIB_COV_ROWS][CALIB_COV_COLS] = {{0}};
    *max_tilt_deg = 0;
    for (int k = 0; k < n; k++) {
        double q[4][2];
        int idx = 0;
        for (int r = 0; r < b->rows; r++)
            for (int c = 0; c < b->cols; c++) {
                double uv[2];
                icv_vec3 x = icv_v3_add(icv_m3_apply(v[k].R, icv_v3(c * b->square, r * b->square, 0)), v[k].t);
                if (synth_camera_project(m, x, uv) || uv[0] < 0 || uv[1] < 0 || uv[0] > m->width - 1 ||
                    uv[1] > m->height - 1)
                    return -1;
                int corner = (r == 0 || r == b->rows - 1) && (c == 0 || c == b->cols - 1);
                if (corner) {
                    int at = r == 0 ? (c == 0 ? 0 : 1) : (c == 0 ? 3 : 2);
                    q[at][0] = uv[0], q[at][1] = uv[1];
                    idx++;
                }
            }
        for (int r = 0; r < CALIB_COV_ROWS; r++)
            for (int c = 0; c < CALIB_COV_COLS; c++) {
                double pu = (c + 0.5) * m->width / CALIB_COV_COLS - 0.5, pv = (r + 0.5) * m->height / CALIB_COV_ROWS - 0.5;
                int pos = 0, neg = 0;
                for (int i = 0; i < 4; i++) {
                    const double *a = q[i], *bb = q[(i + 1) % 4];
                    double cr = (bb[0] - a[0]) * (pv - a[1]) - (bb[1] - a[1]) * (pu - a[0]);
                    pos += cr > 0, neg += cr < 0;
                }
                hit[r][c] |= pos == 0 || neg == 0;
            }
        icv_mat3 Rc = icv_m3_mul(m->R, v[k].R); /* board to camera */
        double tilt = acos(fabs(Rc.m[2][2])) * 180 / M_PI;
        if (tilt > *max_tilt_deg)
            *max_tilt_deg = tilt;
    }
    int n_hit = 0;
    for (int r = 0; r < CALIB_COV_ROWS; r++)
        for (int c = 0; c < CALIB_COV_COLS; c++)
            n_hit += hit[r][c];
    return (double)n_hit / (CALIB_COV_ROWS * CALIB_COV_COLS);
}

static void check_scene(const char *scenario, int n_views)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/sample_videos/scenarios/%s", th_root(), scenario);
    synth_scenario *sc = malloc(sizeof *sc);
    icv_err err;
    ASSERT(synth_scenario_load(path, sc, &err) == 0, "%s", err.msg);
    sc->board.n_views = n_views;
    synth_board_pose *v = malloc(sizeof *v * (size_t)n_views);
    synth_board_views_careful(sc, v);
    for (int c = 0; c < sc->n_cameras; c++) {
        double tilt;
        double cov = coverage(sc, &sc->cameras[c].model, v, n_views, &tilt);
        if (th_accuracy())
            printf("    %s camera %d: %d views cover %.0f%% of the image, largest tilt %.0f deg\n", scenario, c,
                   n_views, 100 * cov, tilt);
        ASSERT(cov >= 0, "%s: a view leaves an inner corner out of camera %d's image", scenario, c);
        /* calib's verdict calls a coverage under 50% a warning and under 30% bad:
         * a careful user's set must be above the warning */
        ASSERT(cov >= 0.5, "%s: camera %d covered %.0f%% (< 50%%)", scenario, c, 100 * cov);
        /* calib warns when every board faces the camera within 15 deg */
        ASSERT(tilt >= 20, "%s: camera %d's largest tilt %.0f deg (< 20)", scenario, c, tilt);
    }
    free(v);
    free(sc);
}

TEST(test_board_views_careful_cover_every_camera)
{
    check_scene("01_rod_slope45_stereo.yaml", 16);
    if (th_failed())
        return;
    check_scene("02_rod_drop_level_stereo.yaml", 16);
    if (th_failed())
        return;
    check_scene("03_rod_drop_planar.yaml", 16);
    if (th_failed())
        return;
    check_scene("04_highspeed_1000fps.yaml", 16);
    if (th_failed())
        return;
    check_scene("05_dark_stickers_light_bar.yaml", 16);
}
