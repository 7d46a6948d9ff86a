/* synth_views.c: see synth_views.h. */
#include <stdlib.h>
#include <string.h>

#include "tests/calib/synth_views.h"

void sv_scenario(synth_scenario *sc, int n_cams, double noise_gray, unsigned long seed)
{
    synth_scenario_defaults(sc);
    sc->seed = seed;
    sc->n_cameras = n_cams;
    /* a phone-like lens; camera 2 a slightly different one */
    static const double f[2] = {1100, 1080}, fy[2] = {1101.5, 1079}, cx[2] = {642.3, 636.2}, cy[2] = {356.8, 362.4};
    static const double dist[2][5] = {{-0.12, 0.06, 4e-4, -3e-4, 0}, {-0.10, 0.045, -2e-4, 3e-4, 0}};
    icv_vec3 target = icv_v3(0.092, 0, 0.0575); /* the middle of the board lying on the surface */
    for (int c = 0; c < n_cams; c++) {
        synth_camera *cam = &sc->cameras[c];
        snprintf(cam->id, sizeof cam->id, "cam%d", c + 1);
        synth_camera_model *m = &cam->model;
        m->width = 1280;
        m->height = 720;
        m->fx = f[c];
        m->fy = fy[c];
        m->cx = cx[c];
        m->cy = cy[c];
        memcpy(m->dist, dist[c], sizeof m->dist);
        icv_err err;
        /* 0.4 m apart, 0.55 m above the surface, 0.93 m from the target */
        synth_camera_look_at(m, icv_v3(target.x - 0.2 + 0.4 * c, 0.55, 0.75), target, icv_v3(0, 1, 0), &err);
        cam->fps = 30;
        cam->n_frames = 1;
    }
    /* issue #6: "noise sigma 2 gray levels": the read noise alone (a full well so deep
     * that shot noise is negligible), sigma = read / full_well x 255 gray levels */
    sc->render.noise = noise_gray > 0;
    sc->render.full_well_e = 1e9;
    sc->render.read_noise_e = noise_gray / 255.0 * 1e9;
}

static int all_inside(const synth_scenario *sc, const synth_board_pose *p)
{
    const synth_board_opts *b = &sc->board;
    for (int c = 0; c < sc->n_cameras; c++) {
        const synth_camera_model *m = &sc->cameras[c].model;
        for (int r = -1; r <= b->rows; r++)
            for (int k = -1; k <= b->cols; k++) { /* inner corners and the outer squares' corners */
                icv_vec3 x = icv_v3_add(icv_m3_apply(p->R, icv_v3(k * b->square, r * b->square, 0)), p->t);
                double uv[2];
                if (synth_camera_project(m, x, uv) || uv[0] < 8 || uv[1] < 8 || uv[0] > m->width - 9 ||
                    uv[1] > m->height - 9)
                    return 0;
            }
    }
    return 1;
}

int sv_render(sv_set *s, int n_cams, int n_views, double noise_gray, unsigned long seed, icv_err *err)
{
    memset(s, 0, sizeof *s);
    if (n_views > SV_MAX_VIEWS)
        return icv_err_set(err, ICV_EINVAL, "at most %d views", SV_MAX_VIEWS);
    s->sc = malloc(sizeof *s->sc);
    if (!s->sc)
        return icv_err_set(err, ICV_ENOMEM, "oom");
    synth_scenario *sc = s->sc;
    sv_scenario(sc, n_cams, noise_gray, seed);
    s->n_cams = n_cams;
    s->W = sc->cameras[0].model.width;
    s->H = sc->cameras[0].model.height;
    s->board = (calib_board){sc->board.cols, sc->board.rows, sc->board.square};
    /* synth's layout, keeping the views that show the whole board to every camera */
    synth_board_opts bo = sc->board;
    sc->board.n_views = 4 * n_views;
    synth_board_pose *all = malloc(sizeof *all * (size_t)sc->board.n_views);
    if (!all)
        return icv_err_set(err, ICV_ENOMEM, "oom");
    synth_board_views(sc, all);
    for (int v = 0; v < sc->board.n_views && s->n_views < n_views; v++)
        if (all_inside(sc, &all[v]))
            s->pose[s->n_views++] = all[v];
    free(all);
    sc->board = bo;
    if (s->n_views < n_views)
        return icv_err_set(err, ICV_EINVAL, "only %d whole-board views", s->n_views);
    size_t px = (size_t)s->W * s->H;
    for (int c = 0; c < n_cams; c++) {
        synth_renderer *r;
        int rc = synth_renderer_alloc(sc, c, &r, err);
        if (rc)
            return rc;
        s->img[c] = malloc(px * (size_t)n_views);
        s->surf[c] = malloc(px);
        if (!s->img[c] || !s->surf[c]) {
            synth_renderer_free(r);
            return icv_err_set(err, ICV_ENOMEM, "oom");
        }
        for (int v = 0; v < n_views; v++)
            synth_board_render(r, &sc->board, &s->pose[v], seed * 1000 + (unsigned long)v * 10 + (unsigned long)c,
                               s->img[c] + px * (size_t)v);
        synth_board_pose sp = synth_board_on_surface();
        synth_board_render(r, &sc->board, &sp, seed * 1000 + 999 - (unsigned long)c, s->surf[c]);
        synth_renderer_free(r);
        const synth_camera_model *m = &sc->cameras[c].model;
        s->in[c] = (calib_intrinsics){m->width, m->height, m->fx, m->fy, m->cx, m->cy,
                                      {m->dist[0], m->dist[1], m->dist[2], m->dist[3], m->dist[4]}};
    }
    const synth_camera_model *m1 = &sc->cameras[0].model;
    s->surf_R = m1->R; /* the board on the surface is the surface frame */
    s->surf_t = m1->t;
    if (n_cams == 2) {
        const synth_camera_model *m2 = &sc->cameras[1].model;
        icv_mat3 R = icv_m3_mul(m2->R, icv_m3_transpose(m1->R));
        icv_vec3 T = icv_v3_sub(m2->t, icv_m3_apply(R, m1->t));
        memcpy(s->R, R.m, sizeof s->R);
        icv_v3_to_array(T, s->T);
    }
    return 0;
}

void sv_free(sv_set *s)
{
    for (int c = 0; c < 2; c++) {
        free(s->img[c]);
        free(s->surf[c]);
    }
    free(s->sc);
    memset(s, 0, sizeof *s);
}

int sv_detect(const sv_set *s, int c, int v, calib_pt2 *uv, calib_detection *info)
{
    size_t px = (size_t)s->W * s->H;
    calib_image im = {s->W, s->H, s->W, v < 0 ? s->surf[c] : s->img[c] + px * (size_t)v};
    calib_detector d;
    calib_detector_defaults(&d);
    calib_board_detect(&d, &im, &s->board, 0, uv, info);
    return info->found && info->sharpness <= d.max_sharpness;
}

int sv_detect_all(const sv_set *s, calib_pt2 *uv, int *keep)
{
    int np = s->board.cols * s->board.rows, n = 0;
    for (int v = 0; v < s->n_views; v++) {
        keep[v] = 1;
        for (int c = 0; c < s->n_cams; c++) {
            calib_detection info;
            keep[v] &= sv_detect(s, c, v, uv + ((size_t)c * s->n_views + v) * np, &info);
        }
        n += keep[v];
    }
    return n;
}

void sv_observations(const sv_set *s, int c, const calib_pt2 *uv, const int *keep, calib_pt2 *uv_out, icv_vec3 *X,
                     calib_observations *o)
{
    int np = s->board.cols * s->board.rows, n = 0;
    calib_board_points(&s->board, X);
    for (int v = 0; v < s->n_views; v++)
        if (keep[v])
            memcpy(uv_out + (size_t)n++ * np, uv + ((size_t)c * s->n_views + v) * np, sizeof *uv_out * np);
    *o = (calib_observations){np, X, n, uv_out, NULL, s->W, s->H, 0};
}

double sv_distortion_error(const calib_intrinsics *truth, const calib_intrinsics *est)
{
    calib_pt2 px[17 * 10], nrm[17 * 10];
    int n = 0;
    for (int j = 0; j < 10; j++)
        for (int i = 0; i < 17; i++)
            px[n++] = (calib_pt2){i * (truth->width - 1) / 16.0, j * (truth->height - 1) / 9.0};
    calib_undistort_points(truth, px, n, 1, nrm, NULL);
    double worst = 0;
    calib_intrinsics m = *truth;
    memcpy(m.dist, est->dist, sizeof m.dist);
    for (int k = 0; k < n; k++) {
        icv_vec3 x = icv_v3(nrm[k].u, nrm[k].v, 1);
        calib_pt2 q;
        calib_project(&m, &x, 1, &q);
        worst = fmax(worst, hypot(q.u - px[k].u, q.v - px[k].v));
    }
    return worst;
}
