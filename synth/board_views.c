/* board_views.c: calibration shots as a careful user takes them. Watching the live
 * view, they hold the whole board in every camera, tilt it, and move it until it has
 * reached every edge and corner of each image. Here: many random candidate poses in
 * the cameras' common view, each kept only when every camera sees all its inner
 * corners with a margin and its squares large enough to detect, then chosen greedily
 * by the image cells they cover that no earlier view covered (the same cell grid as
 * calib's coverage verdict), the camera with the least coverage weighing most. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth_internal.h"

enum { GRID_COLS = 16, GRID_ROWS = 12, CANDIDATES = 600 };

typedef struct {
    synth_board_pose pose;
    unsigned char cells[ICV_MAX_CAMERAS][GRID_ROWS][GRID_COLS];
    double tilt; /* rad: the largest angle between the board's normal and a line of sight */
    int used;
} candidate;

/* The four outer inner corners, board frame. */
static void outline(const synth_board_opts *b, icv_vec3 q[4])
{
    double w = (b->cols - 1) * b->square, h = (b->rows - 1) * b->square;
    q[0] = icv_v3(0, 0, 0);
    q[1] = icv_v3(w, 0, 0);
    q[2] = icv_v3(w, h, 0);
    q[3] = icv_v3(0, h, 0);
}

static int in_quad(double u, double v, const double q[4][2])
{
    int pos = 0, neg = 0;
    for (int i = 0; i < 4; i++) {
        const double *a = q[i], *b = q[(i + 1) % 4];
        double c = (b[0] - a[0]) * (v - a[1]) - (b[1] - a[1]) * (u - a[0]);
        pos += c > 0;
        neg += c < 0;
    }
    return pos == 0 || neg == 0;
}

/* Whether camera m sees every inner corner of the board at pose p, with a margin, and
 * squares of at least min_square_px; fills the cells its outline covers and the angle
 * between the board's normal and the line of sight to its centre. */
static int seen_whole(const synth_camera_model *m, const synth_board_opts *b, const synth_board_pose *p,
                      unsigned char cells[GRID_ROWS][GRID_COLS], double *tilt)
{
    double margin = fmax(8, 0.02 * m->width), min_square_px = 9;
    icv_vec3 centre = icv_v3_add(icv_m3_apply(p->R, icv_v3(0.5 * (b->cols - 1) * b->square,
                                                            0.5 * (b->rows - 1) * b->square, 0)),
                                 p->t);
    icv_vec3 sight = icv_v3_unit(icv_v3_sub(centre, synth_camera_center(m)));
    icv_vec3 z = icv_v3(p->R.m[0][2], p->R.m[1][2], p->R.m[2][2]);
    double c = icv_v3_dot(z, sight); /* board z points into the board: > 0 when its front is seen */
    if (c < cos(50 * M_PI / 180)) /* held at most ~50 deg from the line of sight */
        return 0;
    *tilt = acos(fmin(c, 1));
    double smallest = INFINITY;
    for (int r = 0; r < b->rows; r++)
        for (int k = 0; k < b->cols; k++) {
            double uv[2], uv_next[2];
            icv_vec3 x = icv_v3_add(icv_m3_apply(p->R, icv_v3(k * b->square, r * b->square, 0)), p->t);
            if (synth_camera_project(m, x, uv) || uv[0] < margin || uv[1] < margin ||
                uv[0] > m->width - 1 - margin || uv[1] > m->height - 1 - margin)
                return 0;
            icv_vec3 xn = icv_v3_add(icv_m3_apply(p->R, icv_v3((k + 1) * b->square, r * b->square, 0)), p->t);
            if (!synth_camera_project(m, xn, uv_next))
                smallest = fmin(smallest, hypot(uv_next[0] - uv[0], uv_next[1] - uv[1]));
        }
    if (smallest < min_square_px)
        return 0;
    icv_vec3 o[4];
    outline(b, o);
    double q[4][2];
    for (int i = 0; i < 4; i++)
        synth_camera_project(m, icv_v3_add(icv_m3_apply(p->R, o[i]), p->t), q[i]);
    memset(cells, 0, GRID_ROWS * GRID_COLS);
    for (int r = 0; r < GRID_ROWS; r++)
        for (int k = 0; k < GRID_COLS; k++)
            cells[r][k] = in_quad((k + 0.5) * m->width / GRID_COLS - 0.5, (r + 0.5) * m->height / GRID_ROWS - 0.5, q);
    return 1;
}

int synth_board_views_careful(const synth_scenario *sc, synth_board_pose *poses)
{
    const synth_board_opts *b = &sc->board;
    int nc = sc->n_cameras;
    if (b->n_views <= 0)
        return 0;
    candidate *cand = malloc(sizeof *cand * CANDIDATES);
    if (!cand) {
        synth_board_views(sc, poses);
        return 0;
    }
    const synth_camera_model *m0 = &sc->cameras[0].model;
    icv_vec3 cm = icv_v3(0, 0, 0), dir = icv_v3(0, 0, 0);
    for (int i = 0; i < nc; i++) {
        const icv_mat3 *R = &sc->cameras[i].model.R;
        cm = icv_v3_add(cm, synth_camera_center(&sc->cameras[i].model));
        dir = icv_v3_add(dir, icv_v3(R->m[2][0], R->m[2][1], R->m[2][2]));
    }
    cm = icv_v3_scale(cm, 1.0 / nc);
    dir = icv_v3_unit(dir);
    /* the distance to where the mean optical axis meets the surface plane, else 1 m */
    double dist = dir.y < -1e-3 && cm.y > 0 ? cm.y / -dir.y : 1.0;
    icv_vec3 cx = icv_v3(m0->R.m[0][0], m0->R.m[0][1], m0->R.m[0][2]);
    icv_vec3 bx = icv_v3_unit(icv_v3_sub(cx, icv_v3_scale(dir, icv_v3_dot(cx, dir))));
    icv_vec3 by = icv_v3_cross(dir, bx);
    icv_mat3 F = {{{bx.x, by.x, dir.x}, {bx.y, by.y, dir.y}, {bx.z, by.z, dir.z}}};
    icv_vec3 mid = icv_v3((b->cols - 1) * b->square / 2, (b->rows - 1) * b->square / 2, 0);
    uint64_t st = synth_stream(sc->seed, 37, 0);
    int n = 0;
    for (int tries = 0; tries < 40 * CANDIDATES && n < CANDIDATES; tries++) {
        /* held between a fifth and all of the way to the target, anywhere in the
         * reference camera's view there, turned and tilted */
        double D = b->distance > 0 ? b->distance * (0.8 + 0.4 * synth_uniform(&st))
                                   : dist * (0.2 + 0.8 * synth_uniform(&st));
        double vw = D * m0->width / m0->fx, vh = D * m0->height / m0->fy;
        double ox = (synth_uniform(&st) - 0.5) * vw, oy = (synth_uniform(&st) - 0.5) * vh;
        double ax = (2 * synth_uniform(&st) - 1) * b->max_tilt;
        double ay = (2 * synth_uniform(&st) - 1) * b->max_tilt;
        double az = (2 * synth_uniform(&st) - 1) * 0.3;
        candidate *c = &cand[n];
        c->pose.R = icv_m3_mul(F, icv_m3_mul(icv_rot_x(ax), icv_m3_mul(icv_rot_y(ay), icv_rot_z(az))));
        icv_vec3 centre = icv_v3_add(cm, icv_m3_apply(F, icv_v3(ox, oy, D)));
        c->pose.t = icv_v3_sub(centre, icv_m3_apply(c->pose.R, mid));
        c->tilt = 0;
        c->used = 0;
        int ok = 1;
        for (int i = 0; i < nc && ok; i++) {
            double t = 0;
            ok = seen_whole(&sc->cameras[i].model, b, &c->pose, c->cells[i], &t);
            c->tilt = fmax(c->tilt, t);
        }
        n += ok;
    }
    if (n < b->n_views) { /* no common view big enough: the old layout */
        free(cand);
        synth_board_views(sc, poses);
        return 0;
    }
    unsigned char covered[ICV_MAX_CAMERAS][GRID_ROWS][GRID_COLS];
    memset(covered, 0, sizeof covered);
    double tilt_sum = 0;
    for (int v = 0; v < b->n_views; v++) {
        int cover[ICV_MAX_CAMERAS] = {0};
        for (int i = 0; i < nc; i++)
            for (int r = 0; r < GRID_ROWS; r++)
                for (int k = 0; k < GRID_COLS; k++)
                    cover[i] += covered[i][r][k] != 0;
        int best = -1;
        double best_score = -1;
        for (int j = 0; j < n; j++) {
            if (cand[j].used)
                continue;
            double score = 0;
            for (int i = 0; i < nc; i++) {
                int fresh = 0;
                for (int r = 0; r < GRID_ROWS; r++)
                    for (int k = 0; k < GRID_COLS; k++)
                        fresh += cand[j].cells[i][r][k] && !covered[i][r][k];
                /* the camera with the least coverage weighs most */
                score += fresh / (1.0 + cover[i]);
            }
            /* once the image is covered: tilted views, away from the tilts so far, pin the focal length */
            score += 0.02 * fabs(cand[j].tilt - (v ? tilt_sum / v : 0));
            if (score > best_score)
                best_score = score, best = j;
        }
        cand[best].used = 1;
        tilt_sum += cand[best].tilt;
        for (int i = 0; i < nc; i++)
            for (int r = 0; r < GRID_ROWS; r++)
                for (int k = 0; k < GRID_COLS; k++)
                    covered[i][r][k] |= cand[best].cells[i][r][k];
        poses[v] = cand[best].pose;
    }
    free(cand);
    return b->n_views;
}
