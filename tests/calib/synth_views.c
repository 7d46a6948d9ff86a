/* synth_views.c: see synth_views.h. */
#include <stdlib.h>
#include <string.h>

#include "tests/calib/synth_views.h"

void sv_scenario(synth_scenario *sc, int n_cams, int width, double noise_gray, unsigned long seed)
{
    double k = width / 1280.0; /* the same lens on a smaller sensor */
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
        m->width = width;
        m->height = (int)lround(720 * k);
        m->fx = k * f[c];
        m->fy = k * fy[c];
        m->cx = k * cx[c];
        m->cy = k * cy[c];
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

/* n_views whole-board poses from synth's layout, and the truth. */
static int sv_setup(sv_set *s, int n_cams, int width, int n_views, double noise_gray, unsigned long seed, icv_err *err)
{
    memset(s, 0, sizeof *s);
    if (n_views > SV_MAX_VIEWS)
        return icv_err_set(err, ICV_EINVAL, "at most %d views", SV_MAX_VIEWS);
    s->sc = malloc(sizeof *s->sc);
    if (!s->sc)
        return icv_err_set(err, ICV_ENOMEM, "oom");
    synth_scenario *sc = s->sc;
    sv_scenario(sc, n_cams, width, noise_gray, seed);
    s->n_cams = n_cams;
    s->W = sc->cameras[0].model.width;
    s->H = sc->cameras[0].model.height;
    s->board = (calib_board){sc->board.cols, sc->board.rows, sc->board.square};
    /* synth's layout, keeping the views that show the whole board to every camera */
    synth_board_opts bo = sc->board;
    sc->board.n_views = 4 * SV_MAX_VIEWS;
    synth_board_pose *all = malloc(sizeof *all * (size_t)sc->board.n_views);
    if (!all)
        return icv_err_set(err, ICV_ENOMEM, "oom");
    synth_board_views(sc, all);
    for (int v = 0; v < sc->board.n_views && s->n_cand < SV_MAX_VIEWS; v++)
        if (all_inside(sc, &all[v]))
            s->pose[s->n_cand++] = all[v];
    free(all);
    sc->board = bo;
    if (s->n_cand < n_views)
        return icv_err_set(err, ICV_EINVAL, "only %d whole-board views", s->n_cand);
    s->n_views = n_views; /* the first n_views candidates, until sv_render finds which show the board */
    for (int c = 0; c < n_cams; c++) {
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

int sv_render(sv_set *s, int n_cams, int n_views, double noise_gray, unsigned long seed, icv_err *err)
{
    /* candidates: every whole-board pose of synth's layout, up to SV_MAX_VIEWS */
    int rc = sv_setup(s, n_cams, 1280, n_views, noise_gray, seed, err);
    if (rc)
        return rc;
    size_t px = (size_t)s->W * s->H;
    int np = s->board.cols * s->board.rows, n_cand = s->n_cand;
    synth_renderer *r[2] = {NULL, NULL};
    uint8_t *img = malloc(px);
    for (int c = 0; c < n_cams; c++) {
        s->uv[c] = malloc(sizeof *s->uv[c] * (size_t)n_views * np);
        s->surf[c] = malloc(px);
        if (!rc)
            rc = synth_renderer_alloc(s->sc, c, &r[c], err);
        if (!rc && (!s->uv[c] || !s->surf[c] || !img))
            rc = icv_err_set(err, ICV_ENOMEM, "oom");
    }
    /* render each candidate in every camera; keep it when the board is found in all */
    s->n_views = 0;
    for (int v = 0; !rc && v < n_cand && s->n_views < n_views; v++) {
        int k = s->n_views, all = 1;
        for (int c = 0; c < n_cams && all; c++) {
            synth_board_render(r[c], &s->sc->board, &s->pose[v], seed * 1000 + (unsigned long)v * 10 + (unsigned long)c,
                               img);
            calib_image im = {s->W, s->H, s->W, img};
            calib_detector d;
            calib_detection info;
            calib_detector_defaults(&d);
            calib_board_detect(&d, &im, &s->board, 0, s->uv[c] + (size_t)k * np, &info);
            all = info.found && info.sharpness <= d.max_sharpness;
        }
        if (!all) {
            s->n_missed++;
            continue;
        }
        s->pose[k] = s->pose[v];
        s->n_views++;
    }
    for (int c = 0; c < n_cams && !rc; c++) {
        synth_board_pose sp = synth_board_on_surface();
        synth_board_render(r[c], &s->sc->board, &sp, seed * 1000 + 999 - (unsigned long)c, s->surf[c]);
    }
    for (int c = 0; c < n_cams; c++)
        synth_renderer_free(r[c]);
    free(img);
    if (!rc && s->n_views < n_views)
        rc = icv_err_set(err, ICV_EINVAL, "seed %lu: the board was found in only %d of %d whole-board views", seed,
                         s->n_views, n_cand);
    return rc;
}

/* The board at pose p moving across camera c's image by blur_px during the
 * exposure (along the image's x): 4 renders averaged (blur_px / 4 apart: a
 * 12 px pan gives 3 px steps, smoothed by the edges' own width). */
static void render_blurred(synth_renderer *r, const sv_set *s, int c, const synth_board_pose *p, double blur_px,
                           unsigned long seed, uint8_t *out, uint8_t *tmp, float *acc)
{
    const synth_camera_model *m = &s->sc->cameras[c].model;
    size_t px = (size_t)s->W * s->H;
    icv_vec3 mid = icv_v3((s->board.cols - 1) * s->board.square / 2, (s->board.rows - 1) * s->board.square / 2, 0);
    icv_vec3 xc = icv_v3_add(icv_m3_apply(m->R, icv_v3_add(icv_m3_apply(p->R, mid), p->t)), m->t);
    icv_vec3 ax = icv_v3(m->R.m[0][0], m->R.m[0][1], m->R.m[0][2]); /* camera x in the surface frame */
    double span = blur_px * xc.z / m->fx;                            /* m travelled during the exposure */
    memset(acc, 0, sizeof *acc * px);
    for (int k = 0; k < 4; k++) {
        synth_board_pose q = *p;
        q.t = icv_v3_axpy(span * ((k + 0.5) / 4 - 0.5), ax, p->t);
        synth_board_render(r, &s->sc->board, &q, seed * 4 + (unsigned long)k, tmp);
        for (size_t i = 0; i < px; i++)
            acc[i] += tmp[i];
    }
    for (size_t i = 0; i < px; i++)
        out[i] = (uint8_t)(acc[i] / 4 + 0.5f);
}

int sv_video(sv_set *s, int n_cams, int width, int n_poses, int lead, int offset, double blur_px,
             const char *const *paths, long *blurred, icv_err *err)
{
    int rc = sv_setup(s, n_cams, width, n_poses, 2.0, 1, err);
    if (rc)
        return rc;
    size_t px = (size_t)s->W * s->H;
    uint8_t *img = malloc(px), *tmp = malloc(px);
    float *acc = malloc(sizeof *acc * px);
    if (!img || !tmp || !acc) {
        free(img), free(tmp), free(acc);
        return icv_err_set(err, ICV_ENOMEM, "oom");
    }
    for (int c = 0; c < n_cams && !rc; c++) {
        synth_renderer *r = NULL;
        synth_encoder *e = NULL;
        rc = synth_renderer_alloc(s->sc, c, &r, err);
        if (!rc)
            rc = synth_encoder_open(paths[c], SYNTH_CODEC_H264, s->W, s->H, 30, 18, "veryfast", 3, &e, err);
        const float *bg = r ? synth_renderer_background(r) : NULL;
        long n = 0;
        for (int k = 0; !rc && k < lead + (c ? offset : 0); k++, n++) { /* the empty scene */
            for (size_t i = 0; i < px; i++)
                img[i] = (uint8_t)fmin(255, bg[i] * 255 + 0.5);
            rc = synth_encoder_write(e, img, err);
        }
        for (int p = 0; !rc && p < n_poses; p++)
            for (int k = 0; !rc && k < (blur_px > 0 ? 3 : 2); k++, n++) {
                unsigned long seed = 100000ul * (unsigned long)(c + 1) + (unsigned long)n;
                if (k == 0)
                    synth_board_render(r, &s->sc->board, &s->pose[p], seed, img);
                /* k == 1: the same frame again (a duplicated frame) */
                if (k == 2) { /* then moved off: a motion-blurred frame */
                    render_blurred(r, s, c, &s->pose[p], blur_px, seed, img, tmp, acc);
                    if (c == 0)
                        blurred[p] = n;
                }
                rc = synth_encoder_write(e, img, err);
            }
        if (e && !rc)
            rc = synth_encoder_close(e, err);
        else if (e)
            synth_encoder_abort(e);
        synth_renderer_free(r);
    }
    free(img), free(tmp), free(acc);
    return rc;
}

void sv_free(sv_set *s)
{
    for (int c = 0; c < 2; c++) {
        free(s->uv[c]);
        free(s->surf[c]);
    }
    free(s->sc);
    memset(s, 0, sizeof *s);
}

int sv_detect(const sv_set *s, int c, const uint8_t *img, calib_pt2 *uv, calib_detection *info)
{
    calib_image im = {s->W, s->H, s->W, (unsigned char *)img};
    calib_detector d;
    calib_detector_defaults(&d);
    calib_board_detect(&d, &im, &s->board, 0, uv, info);
    (void)c;
    return info->found && info->sharpness <= d.max_sharpness;
}

void sv_observations(const sv_set *s, int c, icv_vec3 *X, calib_observations *o)
{
    calib_board_points(&s->board, X);
    *o = (calib_observations){s->board.cols * s->board.rows, X, s->n_views, s->uv[c], NULL, s->W, s->H, 0};
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
