/* board.c: chessboard calibration shots. The board is a plane in the surface frame
 * (inner corner (c, r) at board (c square, r square, 0), OpenCV's object-point
 * layout), black and white squares inside a white margin, drawn over the camera's
 * static background with every pixel whose corners see different squares
 * supersampled, then through the same sensor model as the videos. */
#include <math.h>
#include <stdlib.h>

#include "synth/synth_internal.h"

#define BOARD_BLACK 0.04
#define BOARD_WHITE 0.80

/* The cell of board point (bx, by): 0 outside, 1 margin/white square, 2 black. */
int synth_board_cell(const synth_board_opts *b, double bx, double by)
{
    double s = b->square;
    double x0 = -s - b->margin, x1 = b->cols * s + b->margin, y0 = -s - b->margin, y1 = b->rows * s + b->margin;
    if (bx < x0 || bx > x1 || by < y0 || by > y1)
        return 0;
    if (bx < -s || bx > b->cols * s || by < -s || by > b->rows * s)
        return 1;
    long i = (long)floor(bx / s), j = (long)floor(by / s);
    return ((i + j) & 1) ? 1 : 2; /* the square touching the first corner's lower left is black */
}

/* The board point seen along camera ray (xn, yn, 1); 0 when the ray misses the plane
 * or sees its back. Camera-frame plane: point o, axes ex, ey, normal ez. */
typedef struct {
    icv_vec3 o, ex, ey, ez;
} board_cam;

static int board_at(const board_cam *bc, double xn, double yn, double *bx, double *by)
{
    icv_vec3 d = icv_v3(xn, yn, 1);
    double dn = icv_v3_dot(d, bc->ez);
    if (dn <= 1e-12) /* board z points away from the camera when we see its front */
        return 0;
    double t = icv_v3_dot(bc->o, bc->ez) / dn;
    if (t <= 0)
        return 0;
    icv_vec3 q = icv_v3_sub(icv_v3_scale(d, t), bc->o);
    *bx = icv_v3_dot(q, bc->ex);
    *by = icv_v3_dot(q, bc->ey);
    return 1;
}

static int cell_along(const board_cam *bc, const synth_board_opts *b, double xn, double yn)
{
    double bx, by;
    return board_at(bc, xn, yn, &bx, &by) ? synth_board_cell(b, bx, by) : 0;
}

double synth_board_gray(int cell) { return cell == 2 ? BOARD_BLACK : BOARD_WHITE; }

void synth_board_render(synth_renderer *r, const synth_board_opts *b, const synth_board_pose *pose,
                        unsigned long seed, uint8_t *gray)
{
    int W = r->W, H = r->H;
    const synth_camera_model *m = &r->m;
    icv_mat3 Rc = icv_m3_mul(m->R, pose->R);
    board_cam bc = {icv_v3_add(icv_m3_apply(m->R, pose->t), m->t), icv_v3(Rc.m[0][0], Rc.m[1][0], Rc.m[2][0]),
                    icv_v3(Rc.m[0][1], Rc.m[1][1], Rc.m[2][1]), icv_v3(Rc.m[0][2], Rc.m[1][2], Rc.m[2][2])};
    int S = 16; /* boards are one-off images: 16 x 16 at edges, corners to ~0.01 px */
    /* the cell seen at every pixel corner, one row of corners at a time */
    int *row0 = malloc(sizeof(int) * (size_t)(W + 1) * 2);
    float *lin = r->val; /* scratch: the renderer's value buffer */
    if (!row0)
        return;
    int *row1 = row0 + W + 1;
    for (int x = 0; x <= W; x++) {
        const float *c = r->corner + 2 * (size_t)x;
        row1[x] = cell_along(&bc, b, c[0], c[1]);
    }
    for (int y = 0; y < H; y++) {
        int *tmp = row0;
        row0 = row1;
        row1 = tmp;
        for (int x = 0; x <= W; x++) {
            const float *c = r->corner + 2 * ((size_t)(y + 1) * (W + 1) + x);
            row1[x] = cell_along(&bc, b, c[0], c[1]);
        }
        for (int x = 0; x < W; x++) {
            size_t i = (size_t)y * W + x;
            int a = row0[x], bb = row0[x + 1], c = row1[x], d = row1[x + 1];
            if (a == bb && a == c && a == d) {
                lin[i] = a ? (float)synth_board_gray(a) : r->bg[i];
                continue;
            }
            const float *c00 = r->corner + 2 * ((size_t)y * (W + 1) + x), *c10 = c00 + 2;
            const float *c01 = c00 + 2 * (W + 1), *c11 = c01 + 2;
            double sum = 0;
            for (int j = 0; j < S; j++)
                for (int k = 0; k < S; k++) {
                    double fx = (k + 0.5) / S, fy = (j + 0.5) / S;
                    double xn = (1 - fy) * ((1 - fx) * c00[0] + fx * c10[0]) + fy * ((1 - fx) * c01[0] + fx * c11[0]);
                    double yn = (1 - fy) * ((1 - fx) * c00[1] + fx * c10[1]) + fy * ((1 - fx) * c01[1] + fx * c11[1]);
                    int cell = cell_along(&bc, b, xn, yn);
                    sum += cell ? synth_board_gray(cell) : r->bg[i];
                }
            lin[i] = (float)(sum / (S * S));
        }
    }
    free(row0 < row1 ? row0 : row1);
    synth_sensor_apply(r, lin, NULL, NULL, synth_stream(seed, 77, 0), gray);
}

synth_board_pose synth_board_on_surface(void)
{
    /* board x = surface x, board y (down the columns) = surface z, board z = -y */
    synth_board_pose p = {{{{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}}, {0, 0, 0}};
    return p;
}

int synth_surface_frame(const synth_scenario *sc, icv_mat3 *Q, icv_vec3 *c)
{
    *Q = icv_m3_identity();
    *c = icv_v3(0, 0, 0);
    if (sc->planar)
        return 0;
    /* the surface board's corner (col, row) lies at (col s, 0, row s) */
    icv_vec3 last = icv_v3((sc->board.cols - 1) * sc->board.square, 0, (sc->board.rows - 1) * sc->board.square);
    double a[2], b[2];
    synth_camera_project(&sc->cameras[0].model, icv_v3(0, 0, 0), a);
    synth_camera_project(&sc->cameras[0].model, last, b);
    if (a[0] + a[1] <= b[0] + b[1])
        return 0;
    *Q = icv_m3_diag(-1, 1, -1);
    *c = last;
    return 1;
}

synth_board_pose synth_board_in_motion_plane(const synth_scenario *sc)
{
    const synth_board_opts *b = &sc->board;
    icv_vec3 cc = synth_camera_center(&sc->cameras[0].model);
    synth_board_pose p;
    double x0 = -(b->cols - 1) * b->square / 2;
    if (cc.z >= 0) { /* seen from +z: board z = -z, rows run down (-y) */
        icv_mat3 R = {{{1, 0, 0}, {0, -1, 0}, {0, 0, -1}}};
        p.R = R;
        p.t = icv_v3(x0, b->rows * b->square + b->margin + 0.005, 0);
    } else { /* seen from -z: board z = +z, rows run up */
        icv_mat3 R = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
        p.R = R;
        p.t = icv_v3(x0, b->square + b->margin + 0.005, 0);
    }
    return p;
}

void synth_board_views(const synth_scenario *sc, synth_board_pose *poses)
{
    const synth_board_opts *b = &sc->board;
    const synth_camera_model *m0 = &sc->cameras[0].model;
    icv_vec3 cm = icv_v3(0, 0, 0);
    for (int i = 0; i < sc->n_cameras; i++)
        cm = icv_v3_add(cm, synth_camera_center(&sc->cameras[i].model));
    cm = icv_v3_scale(cm, 1.0 / sc->n_cameras);
    /* along the cameras' mean optical axis, from their mean centre */
    icv_vec3 dir = icv_v3(0, 0, 0);
    for (int i = 0; i < sc->n_cameras; i++) {
        const icv_mat3 *R = &sc->cameras[i].model.R;
        dir = icv_v3_add(dir, icv_v3(R->m[2][0], R->m[2][1], R->m[2][2]));
    }
    dir = icv_v3_unit(dir);
    /* the distance to where that axis meets the surface plane, else 1 m */
    double dist = dir.y < -1e-3 && cm.y > 0 ? cm.y / -dir.y : 1.0;
    double w = (b->cols + 1) * b->square, h = (b->rows + 1) * b->square;
    /* auto distance: one camera, the board spans about half the image's width; several,
     * it stands a quarter of the way from the target so every camera sees it */
    double D = b->distance > 0        ? b->distance
               : sc->n_cameras > 1 ? 0.65 * dist
                                   : fmin(m0->fx * w / (0.5 * m0->width), 0.9 * dist);
    double vw = D * m0->width / m0->fx, vh = D * m0->height / m0->fy; /* visible extent at D, m */
    /* several cameras converging on the target: at D their views overlap by less */
    double spread = 0;
    for (int i = 1; i < sc->n_cameras; i++)
        spread = fmax(spread, icv_v3_norm(icv_v3_sub(synth_camera_center(&sc->cameras[i].model),
                                                    synth_camera_center(&sc->cameras[0].model))));
    vw -= spread * (1 - D / dist);
    icv_vec3 centre0 = icv_v3_add(cm, icv_v3_scale(dir, D));
    /* board axes facing the cameras: x along the reference camera's x, z along dir */
    icv_vec3 cx = icv_v3(m0->R.m[0][0], m0->R.m[0][1], m0->R.m[0][2]);
    icv_vec3 bz = dir;
    icv_vec3 bx = icv_v3_unit(icv_v3_sub(cx, icv_v3_scale(bz, icv_v3_dot(cx, bz))));
    icv_vec3 by = icv_v3_cross(bz, bx);
    icv_mat3 F = {{{bx.x, by.x, bz.x}, {bx.y, by.y, bz.y}, {bx.z, by.z, bz.z}}};
    uint64_t st = synth_stream(sc->seed, 31, 0);
    for (int v = 0; v < b->n_views; v++) {
        double ax = (2 * synth_uniform(&st) - 1) * b->max_tilt;
        double ay = (2 * synth_uniform(&st) - 1) * b->max_tilt;
        double az = (2 * synth_uniform(&st) - 1) * 0.3;
        /* a 3 x 3 layout over the (common) view, so the corners of the images are
         * covered too, jittered; an untilted board stays inside */
        int cell = v % 9;
        double jx = 0.1 * (2 * synth_uniform(&st) - 1), jy = 0.1 * (2 * synth_uniform(&st) - 1);
        double ox = ((cell % 3 - 1) * 0.35 + jx) * fmax(vw - w, 0);
        double oy = ((cell / 3 - 1) * 0.35 + jy) * fmax(vh - h, 0);
        double oz = (2 * synth_uniform(&st) - 1) * 0.1 * D;
        int pe = b->partial_every; /* every pe-th view's centre at the image's side edge: partly out of view */
        if (pe > 0 && v % pe == pe - 1)
            ox = ((v / pe) % 2 == 0 ? 1 : -1) * D * (m0->width / 2.0) / m0->fx;
        icv_mat3 R = icv_m3_mul(F, icv_m3_mul(icv_rot_x(ax), icv_m3_mul(icv_rot_y(ay), icv_rot_z(az))));
        icv_vec3 c = icv_v3_add(centre0, icv_m3_apply(F, icv_v3(ox, oy, oz)));
        icv_vec3 mid = icv_v3((b->cols - 1) * b->square / 2, (b->rows - 1) * b->square / 2, 0);
        poses[v].R = R;
        poses[v].t = icv_v3_sub(c, icv_m3_apply(R, mid));
    }
}
