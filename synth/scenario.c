/* scenario.c: SCENARIO.yaml into synth_scenario over documented defaults
 * (docs/synth.md lists every key). Read through core's icv_yread_*, so a bad value
 * is reported as "FILE:LINE: key: reason". SI units everywhere (radians, seconds). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "synth/synth_internal.h"

#define G0 9.81 /* m/s^2, the contract's |g| */

void synth_scenario_defaults(synth_scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    snprintf(sc->name, sizeof sc->name, "synth");
    sc->seed = 1;
    sc->gravity = icv_v3(0, -G0, 0);
    synth_body *b = &sc->body;
    /* the seeds' rod (Han Sun ch. 4): 0.3048 m, radius 9.525 mm, 0.169 kg */
    b->mass = 0.169;
    b->inertia = icv_m3_diag(1.312e-3, 7.7e-6, 1.312e-3);
    b->n_markers = 3;
    b->markers[0] = icv_v3(0, 0.127, 0);
    b->markers[1] = icv_v3(0, 0, 0);
    b->markers[2] = icv_v3(0, -0.127, 0);
    b->marker_diameter = 0.012;
    b->marker_style = SYNTH_MARKER_BAND;
    b->shape.type = ICV_SHAPE_CAPSULE;
    b->shape.axis = icv_v3(0, 1, 0);
    b->shape.length = 0.3048;
    b->shape.radius = 0.009525;
    b->body_gray = 0.06;
    b->marker_gray = 0.92;
    b->post_length = 0.02;
    b->post_radius = 0.0015;
    sc->restitution = ICV_RESTITUTION_STRONGE;
    sc->mu_s = sc->mu_k = 0.3;
    sc->e_n = 0.5;
    sc->release_time_s = 0.05;
    sc->release.R = icv_m3_identity();
    sc->release.p = icv_v3(0, 0.3, 0);
    sc->max_impacts = 1;
    synth_render_opts *r = &sc->render;
    r->supersample = 8;
    r->blur_subframes = 8;
    r->noise = 1;
    r->full_well_e = 20000;
    r->read_noise_e = 8;
    r->vignetting = 0.15;
    r->flash_time_s = 0.0;
    r->flash_duration_s = 0.002;
    r->flash_gain = 0.8;
    r->background_gray = 0.10;
    r->texture = 1.0;
    r->plate_gray = 0.30;
    r->plate_size[0] = 0.6;
    r->plate_size[1] = 0.4;
    r->reference_radius = 0.02;
    r->reference_height = 0.1;
    r->reference_position = icv_v3(0.2, 0, -0.12);
    synth_board_opts *bo = &sc->board;
    bo->cols = 9;
    bo->rows = 6;
    bo->square = 0.023;
    bo->margin = 0.02;
    bo->n_views = 12;
    bo->max_tilt = 0.6;
    bo->partial_every = 4;
    sc->codec = SYNTH_CODEC_H264;
    sc->crf = 18;
    snprintf(sc->preset, sizeof sc->preset, "veryfast");
    sc->mjpeg_q = 3;
}

double synth_camera_frame_time(const synth_camera *c, int n) { return ((double)n + c->start_offset_frames) / c->fps; }

static int read_points(icv_ynode map, const char *key, icv_vec3 *out, int max, int *n, icv_err *err)
{
    icv_ynode m = icv_ynode_get(map, key);
    if (!icv_ynode_is_seq(m) || icv_ynode_len(m) < 1 || icv_ynode_len(m) > (size_t)max)
        return icv_ynode_fail(icv_ynode_exists(m) ? m : map, err, ICV_EINVAL,
                              "%s: expected a list of 1 to %d points [x, y, z] (metres, body frame)", key, max);
    *n = (int)icv_ynode_len(m);
    for (int i = 0; i < *n; i++) {
        icv_ynode p = icv_ynode_at(m, (size_t)i);
        double v[3];
        if (!icv_ynode_is_seq(p) || icv_ynode_len(p) != 3)
            return icv_ynode_fail(p, err, ICV_EINVAL, "expected a point [x, y, z]");
        for (size_t k = 0; k < 3; k++)
            SYNTH_TRY(icv_ynode_double(icv_ynode_at(p, k), &v[k], err));
        out[i] = icv_v3_from_array(v);
    }
    return 0;
}

static int read_shape(icv_ynode b, synth_body *body, icv_err *err)
{
    icv_shape *sh = &body->shape;
    icv_ynode s = icv_ynode_get(b, "shape");
    if (!icv_ynode_exists(s))
        return 0;
    if (!icv_ynode_is_map(s))
        return icv_ynode_fail(s, err, ICV_EINVAL, "expected {type: capsule|cylinder|box|sphere|points, ..}");
    char type[32];
    SYNTH_TRY(icv_yread_str(s, "type", 1, type, sizeof type, err));
    memset(sh, 0, sizeof *sh);
    if (!strcmp(type, "capsule") || !strcmp(type, "cylinder")) {
        sh->type = type[1] == 'a' ? ICV_SHAPE_CAPSULE : ICV_SHAPE_CYLINDER;
        sh->axis = icv_v3(0, 1, 0);
        SYNTH_TRY(icv_yread_vec3(s, "axis", 0, &sh->axis, err));
        if (!(icv_v3_norm(sh->axis) > 1e-12))
            return icv_ynode_fail(icv_ynode_get(s, "axis"), err, ICV_EINVAL, "the axis must not be zero");
        sh->axis = icv_v3_unit(sh->axis);
        SYNTH_TRY(icv_yread_double(s, "length", 1, &sh->length, err));
        SYNTH_TRY(icv_yread_double(s, "radius", 1, &sh->radius, err));
        if (!(sh->length > 0) || !(sh->radius > 0))
            return icv_ynode_fail(s, err, ICV_EINVAL, "length and radius must be > 0 (metres)");
        if (sh->type == ICV_SHAPE_CAPSULE && sh->length < 2 * sh->radius)
            return icv_ynode_fail(s, err, ICV_EINVAL, "a capsule's length (overall) must be >= 2 radius");
    } else if (!strcmp(type, "box")) {
        sh->type = ICV_SHAPE_BOX;
        SYNTH_TRY(icv_yread_vec3(s, "size", 1, &sh->size, err));
        if (!(sh->size.x > 0 && sh->size.y > 0 && sh->size.z > 0))
            return icv_ynode_fail(icv_ynode_get(s, "size"), err, ICV_EINVAL, "edge lengths must be > 0 (metres)");
    } else if (!strcmp(type, "sphere")) {
        sh->type = ICV_SHAPE_SPHERE;
        SYNTH_TRY(icv_yread_double(s, "radius", 1, &sh->radius, err));
        if (!(sh->radius > 0))
            return icv_ynode_fail(icv_ynode_get(s, "radius"), err, ICV_EINVAL, "must be > 0 (metres)");
    } else if (!strcmp(type, "points")) {
        sh->type = ICV_SHAPE_POINTS;
        SYNTH_TRY(read_points(s, "points", sh->points, ICV_MAX_SHAPE_POINTS, &sh->n_points, err));
    } else {
        return icv_ynode_fail(icv_ynode_get(s, "type"), err, ICV_EINVAL,
                              "unknown shape '%s' (capsule | cylinder | box | sphere | points)", type);
    }
    return 0;
}

/* The default outward normal of a sticker: the face of a box it lies nearest, or
 * the radial direction from a rod's axis (body z when it sits on the axis). */
static icv_vec3 default_normal(const synth_body *b, icv_vec3 m)
{
    const icv_shape *sh = &b->shape;
    if (sh->type == ICV_SHAPE_BOX) {
        double h[3] = {sh->size.x / 2, sh->size.y / 2, sh->size.z / 2}, c[3];
        icv_v3_to_array(m, c);
        int best = 0;
        double bd = INFINITY;
        for (int i = 0; i < 3; i++) {
            double d = h[i] - fabs(c[i]);
            if (d < bd) {
                bd = d;
                best = i;
            }
        }
        double n[3] = {0, 0, 0};
        n[best] = c[best] >= 0 ? 1 : -1;
        return icv_v3_from_array(n);
    }
    if (sh->type == ICV_SHAPE_CAPSULE || sh->type == ICV_SHAPE_CYLINDER) {
        icv_vec3 r = icv_v3_sub(m, icv_v3_scale(sh->axis, icv_v3_dot(m, sh->axis)));
        if (icv_v3_norm(r) > 1e-9)
            return icv_v3_unit(r);
    }
    if (sh->type == ICV_SHAPE_SPHERE && icv_v3_norm(m) > 1e-9)
        return icv_v3_unit(m);
    return icv_v3(0, 0, 1);
}

static int read_body(icv_ynode root, synth_body *b, icv_err *err)
{
    icv_ynode n = icv_ynode_get(root, "body");
    if (!icv_ynode_exists(n))
        return 0;
    if (!icv_ynode_is_map(n))
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected {mass: .., inertia: .., markers: ..}");
    SYNTH_TRY(icv_yread_double(n, "mass", 0, &b->mass, err));
    if (!(b->mass > 0))
        return icv_ynode_fail(icv_ynode_get(n, "mass"), err, ICV_EINVAL, "must be > 0 (kg), got %g", b->mass);
    SYNTH_TRY(icv_yread_mat3(n, "inertia", 0, &b->inertia, err));
    if (!icv_m3_is_spd(b->inertia, 1e-9))
        return icv_ynode_fail(icv_ynode_get(n, "inertia"), err, ICV_EINVAL,
                              "must be symmetric positive definite (kg m^2, about the centre of mass)");
    if (icv_ynode_exists(icv_ynode_get(n, "markers")))
        SYNTH_TRY(read_points(n, "markers", b->markers, ICV_MAX_MARKERS, &b->n_markers, err));
    SYNTH_TRY(icv_yread_double(n, "marker_diameter", 0, &b->marker_diameter, err));
    if (!(b->marker_diameter > 0 && b->marker_diameter < 1))
        return icv_ynode_fail(icv_ynode_get(n, "marker_diameter"), err, ICV_EINVAL, "must be in (0, 1) metres");
    SYNTH_TRY(read_shape(n, b, err));
    char style[32] = "";
    SYNTH_TRY(icv_yread_str(n, "marker_style", 0, style, sizeof style, err));
    if (style[0]) {
        if (!strcmp(style, "sphere"))
            b->marker_style = SYNTH_MARKER_SPHERE;
        else if (!strcmp(style, "sticker"))
            b->marker_style = SYNTH_MARKER_STICKER;
        else if (!strcmp(style, "band"))
            b->marker_style = SYNTH_MARKER_BAND;
        else if (!strcmp(style, "post"))
            b->marker_style = SYNTH_MARKER_POST;
        else
            return icv_ynode_fail(icv_ynode_get(n, "marker_style"), err, ICV_EINVAL,
                                  "unknown marker style '%s' (sphere | sticker | band | post)", style);
    }
    icv_ynode post = icv_ynode_get(n, "post");
    if (icv_ynode_exists(post)) {
        SYNTH_TRY(icv_yread_double(post, "length", 0, &b->post_length, err));
        SYNTH_TRY(icv_yread_double(post, "radius", 0, &b->post_radius, err));
        if (!(b->post_length > 0 && b->post_radius > 0 && b->post_radius < b->marker_diameter / 2))
            return icv_ynode_fail(post, err, ICV_EINVAL,
                                  "need length > 0 and 0 < radius < marker_diameter / 2 (metres)");
    }
    if (b->marker_style == SYNTH_MARKER_BAND && b->shape.type != ICV_SHAPE_CAPSULE &&
        b->shape.type != ICV_SHAPE_CYLINDER)
        return icv_ynode_fail(n, err, ICV_EINVAL, "marker_style band needs a capsule or cylinder shape");
    for (int i = 0; i < b->n_markers; i++)
        b->marker_normals[i] = default_normal(b, b->markers[i]);
    if (icv_ynode_exists(icv_ynode_get(n, "marker_normals"))) {
        int k;
        SYNTH_TRY(read_points(n, "marker_normals", b->marker_normals, ICV_MAX_MARKERS, &k, err));
        if (k != b->n_markers)
            return icv_ynode_fail(icv_ynode_get(n, "marker_normals"), err, ICV_EINVAL,
                                  "expected one normal per marker (%d), got %d", b->n_markers, k);
        for (int i = 0; i < k; i++)
            b->marker_normals[i] = icv_v3_unit(b->marker_normals[i]);
    }
    SYNTH_TRY(icv_yread_double(n, "body_gray", 0, &b->body_gray, err));
    SYNTH_TRY(icv_yread_double(n, "marker_gray", 0, &b->marker_gray, err));
    return 0;
}

static int read_model(icv_ynode root, synth_scenario *sc, icv_err *err)
{
    icv_ynode m = icv_ynode_get(root, "model");
    if (!icv_ynode_exists(m))
        return 0;
    if (!icv_ynode_is_map(m))
        return icv_ynode_fail(m, err, ICV_EINVAL, "expected {restitution: .., mu: .., e_n: ..}");
    char r[32] = "";
    SYNTH_TRY(icv_yread_str(m, "restitution", 0, r, sizeof r, err));
    if (!r[0] || !strcmp(r, "stronge"))
        sc->restitution = ICV_RESTITUTION_STRONGE;
    else if (!strcmp(r, "newton"))
        sc->restitution = ICV_RESTITUTION_NEWTON;
    else if (!strcmp(r, "poisson"))
        sc->restitution = ICV_RESTITUTION_POISSON;
    else
        return icv_ynode_fail(icv_ynode_get(m, "restitution"), err, ICV_EINVAL,
                              "unknown restitution model '%s' (newton | poisson | stronge)", r);
    double mu = -1;
    SYNTH_TRY(icv_yread_double(m, "mu", 0, &mu, err));
    if (mu >= 0)
        sc->mu_s = sc->mu_k = mu;
    SYNTH_TRY(icv_yread_double(m, "mu_s", 0, &sc->mu_s, err));
    SYNTH_TRY(icv_yread_double(m, "mu_k", 0, &sc->mu_k, err));
    if (!(sc->mu_k >= 0 && sc->mu_s >= sc->mu_k))
        return icv_ynode_fail(m, err, ICV_EINVAL, "need 0 <= mu_k <= mu_s, got mu_s %g, mu_k %g", sc->mu_s,
                              sc->mu_k);
    SYNTH_TRY(icv_yread_double(m, "e_n", 0, &sc->e_n, err));
    if (!(sc->e_n >= 0 && sc->e_n <= 1))
        return icv_ynode_fail(icv_ynode_get(m, "e_n"), err, ICV_EINVAL, "must be in [0, 1], got %g", sc->e_n);
    return 0;
}

static int read_release(icv_ynode root, synth_scenario *sc, icv_err *err)
{
    icv_ynode n = icv_ynode_get(root, "release");
    if (!icv_ynode_exists(n))
        return 0;
    if (!icv_ynode_is_map(n))
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected {time: .., position: .., euler213: .., ..}");
    SYNTH_TRY(icv_yread_double(n, "time", 0, &sc->release_time_s, err));
    SYNTH_TRY(icv_yread_vec3(n, "position", 0, &sc->release.p, err));
    SYNTH_TRY(icv_yread_vec3(n, "velocity", 0, &sc->release.v, err));
    SYNTH_TRY(icv_yread_vec3(n, "omega", 0, &sc->release.omega, err));
    if (icv_ynode_exists(icv_ynode_get(n, "euler213"))) {
        icv_vec3 e;
        SYNTH_TRY(icv_yread_vec3(n, "euler213", 1, &e, err));
        sc->release.R = icv_euler213_to_matrix(e);
    }
    if (icv_ynode_exists(icv_ynode_get(n, "matrix"))) {
        icv_mat3 R;
        SYNTH_TRY(icv_yread_mat3(n, "matrix", 1, &R, err));
        if (fabs(icv_m3_det(R) - 1) > 1e-6)
            return icv_ynode_fail(icv_ynode_get(n, "matrix"), err, ICV_EINVAL, "not a rotation (det %g)",
                                  icv_m3_det(R));
        sc->release.R = icv_rot_orthonormalize(R);
    }
    return 0;
}

static int read_camera(icv_ynode c, synth_scenario *sc, int i, double duration, icv_err *err)
{
    synth_camera *cam = &sc->cameras[i];
    synth_camera_model *m = &cam->model;
    snprintf(cam->id, sizeof cam->id, "cam%d", i);
    SYNTH_TRY(icv_yread_str(c, "id", 0, cam->id, sizeof cam->id, err));
    m->width = 1280;
    m->height = 720;
    SYNTH_TRY(icv_yread_int(c, "width", 0, &m->width, err));
    SYNTH_TRY(icv_yread_int(c, "height", 0, &m->height, err));
    if (m->width < 16 || m->height < 16 || m->width > 8192 || m->height > 8192 || (m->width | m->height) & 1)
        return icv_ynode_fail(c, err, ICV_EINVAL, "width and height must be even, 16..8192 px, got %dx%d", m->width,
                              m->height);
    m->fx = 1000;
    SYNTH_TRY(icv_yread_double(c, "fx", 0, &m->fx, err));
    m->fy = m->fx;
    SYNTH_TRY(icv_yread_double(c, "fy", 0, &m->fy, err));
    m->cx = (m->width - 1) / 2.0;
    m->cy = (m->height - 1) / 2.0;
    SYNTH_TRY(icv_yread_double(c, "cx", 0, &m->cx, err));
    SYNTH_TRY(icv_yread_double(c, "cy", 0, &m->cy, err));
    if (!(m->fx > 0 && m->fy > 0))
        return icv_ynode_fail(c, err, ICV_EINVAL, "fx and fy must be > 0 (px)");
    SYNTH_TRY(icv_yread_doubles(c, "dist", 0, m->dist, 5, err));
    icv_ynode pose = icv_ynode_get(c, "pose");
    if (!icv_ynode_is_map(pose))
        return icv_ynode_fail(icv_ynode_exists(pose) ? pose : c, err, ICV_EINVAL,
                              "pose: expected {look_from: [x,y,z], look_at: [x,y,z], up: [x,y,z]} or {R: .., t: ..} "
                              "(surface frame, metres)");
    if (icv_ynode_exists(icv_ynode_get(pose, "R"))) {
        SYNTH_TRY(icv_yread_mat3(pose, "R", 1, &m->R, err));
        SYNTH_TRY(icv_yread_vec3(pose, "t", 1, &m->t, err));
        if (fabs(icv_m3_det(m->R) - 1) > 1e-6)
            return icv_ynode_fail(icv_ynode_get(pose, "R"), err, ICV_EINVAL, "not a rotation");
        m->R = icv_rot_orthonormalize(m->R);
    } else {
        icv_vec3 eye, at = icv_v3(0, 0, 0), up = icv_v3_unit(icv_v3_scale(sc->gravity, -1));
        SYNTH_TRY(icv_yread_vec3(pose, "look_from", 1, &eye, err));
        SYNTH_TRY(icv_yread_vec3(pose, "look_at", 0, &at, err));
        SYNTH_TRY(icv_yread_vec3(pose, "up", 0, &up, err));
        icv_err e2;
        if (synth_camera_look_at(m, eye, at, up, &e2))
            return icv_ynode_fail(pose, err, ICV_EINVAL, "%s", e2.msg);
    }
    cam->fps = 240;
    SYNTH_TRY(icv_yread_double(c, "fps", 0, &cam->fps, err));
    if (!(cam->fps > 0 && cam->fps <= 1e6))
        return icv_ynode_fail(icv_ynode_get(c, "fps"), err, ICV_EINVAL, "must be in (0, 1e6] Hz");
    cam->exposure_s = 0.5 / cam->fps;
    SYNTH_TRY(icv_yread_double(c, "exposure", 0, &cam->exposure_s, err));
    if (!(cam->exposure_s >= 0 && cam->exposure_s <= 1 / cam->fps + 1e-12))
        return icv_ynode_fail(icv_ynode_get(c, "exposure"), err, ICV_EINVAL,
                              "must be in [0, 1/fps] = [0, %g] s, got %g", 1 / cam->fps, cam->exposure_s);
    SYNTH_TRY(icv_yread_double(c, "start_offset_frames", 0, &cam->start_offset_frames, err));
    if (i == 0 && cam->start_offset_frames != 0)
        return icv_ynode_fail(icv_ynode_get(c, "start_offset_frames"), err, ICV_EINVAL,
                              "the reference (first) camera defines the clock: its offset must be 0");
    SYNTH_TRY(icv_yread_double(c, "line_delay", 0, &cam->line_delay_s, err));
    if (cam->line_delay_s < 0 || cam->line_delay_s * m->height > 1 / cam->fps)
        return icv_ynode_fail(icv_ynode_get(c, "line_delay"), err, ICV_EINVAL,
                              "must be >= 0 and height x line_delay <= 1/fps");
    cam->n_frames = (int)floor(duration * cam->fps + 1e-9);
    SYNTH_TRY(icv_yread_int(c, "frames", 0, &cam->n_frames, err));
    if (cam->n_frames < 1 || cam->n_frames > 1000000)
        return icv_ynode_fail(c, err, ICV_EINVAL, "frames must be 1..1e6, got %d", cam->n_frames);
    return 0;
}

static int read_render(icv_ynode root, synth_scenario *sc, icv_err *err)
{
    synth_render_opts *r = &sc->render;
    icv_ynode n = icv_ynode_get(root, "render");
    if (!icv_ynode_exists(n))
        return 0;
    if (!icv_ynode_is_map(n))
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected a mapping");
    SYNTH_TRY(icv_yread_int(n, "supersample", 0, &r->supersample, err));
    SYNTH_TRY(icv_yread_int(n, "blur_subframes", 0, &r->blur_subframes, err));
    if (r->supersample < 1 || r->supersample > 16 || r->blur_subframes < 1 || r->blur_subframes > 64)
        return icv_ynode_fail(n, err, ICV_EINVAL, "supersample must be 1..16 and blur_subframes 1..64");
    SYNTH_TRY(icv_yread_bool(n, "noise", 0, &r->noise, err));
    SYNTH_TRY(icv_yread_double(n, "full_well", 0, &r->full_well_e, err));
    SYNTH_TRY(icv_yread_double(n, "read_noise", 0, &r->read_noise_e, err));
    if (!(r->full_well_e > 0) || r->read_noise_e < 0)
        return icv_ynode_fail(n, err, ICV_EINVAL, "full_well must be > 0 and read_noise >= 0 (electrons)");
    SYNTH_TRY(icv_yread_double(n, "vignetting", 0, &r->vignetting, err));
    if (r->vignetting < 0 || r->vignetting >= 1)
        return icv_ynode_fail(icv_ynode_get(n, "vignetting"), err, ICV_EINVAL, "must be in [0, 1)");
    icv_ynode fl = icv_ynode_get(n, "flash");
    if (icv_ynode_exists(fl)) {
        const char *s = icv_ynode_str(fl);
        if (s && (!strcmp(s, "false") || !strcmp(s, "none") || !strcmp(s, "off"))) {
            r->flash_duration_s = 0;
        } else {
            if (!icv_ynode_is_map(fl))
                return icv_ynode_fail(fl, err, ICV_EINVAL, "expected {time: s, duration: s, gain: g} or none");
            SYNTH_TRY(icv_yread_double(fl, "time", 0, &r->flash_time_s, err));
            SYNTH_TRY(icv_yread_double(fl, "duration", 0, &r->flash_duration_s, err));
            SYNTH_TRY(icv_yread_double(fl, "gain", 0, &r->flash_gain, err));
            if (r->flash_duration_s < 0)
                return icv_ynode_fail(fl, err, ICV_EINVAL, "duration must be >= 0 s");
        }
    }
    SYNTH_TRY(icv_yread_double(n, "background_gray", 0, &r->background_gray, err));
    SYNTH_TRY(icv_yread_double(n, "plate_gray", 0, &r->plate_gray, err));
    SYNTH_TRY(icv_yread_double(n, "texture", 0, &r->texture, err));
    if (r->texture < 0 || r->texture > 1)
        return icv_ynode_fail(icv_ynode_get(n, "texture"), err, ICV_EINVAL, "must be in [0, 1]");
    SYNTH_TRY(icv_yread_doubles(n, "plate_size", 0, r->plate_size, 2, err));
    icv_ynode fk = icv_ynode_get(n, "flicker");
    if (icv_ynode_exists(fk)) {
        const char *s = icv_ynode_str(fk);
        if (s && (!strcmp(s, "false") || !strcmp(s, "none") || !strcmp(s, "off"))) {
            r->flicker_depth = 0;
        } else {
            if (!icv_ynode_is_map(fk))
                return icv_ynode_fail(fk, err, ICV_EINVAL, "expected {hz: 100, depth: 0.1, phase: 0} or none");
            r->flicker_hz = 100;
            r->flicker_depth = 0.1;
            SYNTH_TRY(icv_yread_double(fk, "hz", 0, &r->flicker_hz, err));
            SYNTH_TRY(icv_yread_double(fk, "depth", 0, &r->flicker_depth, err));
            SYNTH_TRY(icv_yread_double(fk, "phase", 0, &r->flicker_phase, err));
            if (!(r->flicker_hz > 0) || r->flicker_depth < 0 || r->flicker_depth > 1)
                return icv_ynode_fail(fk, err, ICV_EINVAL, "need hz > 0 and depth in [0, 1]");
        }
    }
    icv_ynode gl = icv_ynode_get(n, "glints");
    if (icv_ynode_exists(gl)) {
        if (!icv_ynode_is_seq(gl) || icv_ynode_len(gl) > SYNTH_MAX_GLINTS)
            return icv_ynode_fail(gl, err, ICV_EINVAL, "expected a list of at most %d [x, z, radius, gray]",
                                  SYNTH_MAX_GLINTS);
        r->n_glints = (int)icv_ynode_len(gl);
        for (int i = 0; i < r->n_glints; i++) {
            icv_ynode g = icv_ynode_at(gl, (size_t)i);
            if (!icv_ynode_is_seq(g) || icv_ynode_len(g) != 4)
                return icv_ynode_fail(g, err, ICV_EINVAL, "expected [x, z, radius, gray] (m, m, m, reflectance)");
            for (size_t k = 0; k < 4; k++)
                SYNTH_TRY(icv_ynode_double(icv_ynode_at(g, k), &r->glints[i][k], err));
            if (!(r->glints[i][2] > 0))
                return icv_ynode_fail(g, err, ICV_EINVAL, "a glint's radius must be > 0 (metres)");
        }
    }
    SYNTH_TRY(icv_yread_bool(n, "board_in_view", 0, &r->board_in_view, err));
    icv_ynode ro = icv_ynode_get(n, "reference_object");
    if (icv_ynode_exists(ro)) {
        const char *s = icv_ynode_str(ro);
        if (!(s && (!strcmp(s, "false") || !strcmp(s, "none")))) {
            if (!icv_ynode_is_map(ro))
                return icv_ynode_fail(ro, err, ICV_EINVAL, "expected {position: [x,y,z], radius: r, height: h}");
            r->reference_object = 1;
            SYNTH_TRY(icv_yread_vec3(ro, "position", 0, &r->reference_position, err));
            SYNTH_TRY(icv_yread_double(ro, "radius", 0, &r->reference_radius, err));
            SYNTH_TRY(icv_yread_double(ro, "height", 0, &r->reference_height, err));
        }
    }
    return 0;
}

static int read_board(icv_ynode root, synth_scenario *sc, icv_err *err)
{
    synth_board_opts *b = &sc->board;
    icv_ynode n = icv_ynode_get(root, "board");
    if (!icv_ynode_exists(n))
        return 0;
    SYNTH_TRY(icv_yread_int(n, "cols", 0, &b->cols, err));
    SYNTH_TRY(icv_yread_int(n, "rows", 0, &b->rows, err));
    SYNTH_TRY(icv_yread_double(n, "square", 0, &b->square, err));
    SYNTH_TRY(icv_yread_double(n, "margin", 0, &b->margin, err));
    SYNTH_TRY(icv_yread_int(n, "views", 0, &b->n_views, err));
    SYNTH_TRY(icv_yread_double(n, "max_tilt", 0, &b->max_tilt, err));
    SYNTH_TRY(icv_yread_double(n, "distance", 0, &b->distance, err));
    SYNTH_TRY(icv_yread_int(n, "partial_every", 0, &b->partial_every, err));
    if (b->partial_every < 0)
        return icv_ynode_fail(icv_ynode_get(n, "partial_every"), err, ICV_EINVAL, "must be >= 0 (0: none)");
    if (b->cols < 2 || b->rows < 2 || !(b->square > 0) || b->margin < 0 || b->n_views < 0 || b->n_views > 100)
        return icv_ynode_fail(n, err, ICV_EINVAL,
                              "need cols, rows >= 2, square > 0 m, margin >= 0 m, views 0..100");
    return 0;
}

static int read_output(icv_ynode root, synth_scenario *sc, icv_err *err)
{
    icv_ynode n = icv_ynode_get(root, "output");
    if (!icv_ynode_exists(n))
        return 0;
    char codec[32] = "";
    SYNTH_TRY(icv_yread_str(n, "codec", 0, codec, sizeof codec, err));
    if (codec[0]) {
        if (!strcmp(codec, "h264"))
            sc->codec = SYNTH_CODEC_H264;
        else if (!strcmp(codec, "mjpeg"))
            sc->codec = SYNTH_CODEC_MJPEG;
        else if (!strcmp(codec, "ffv1"))
            sc->codec = SYNTH_CODEC_FFV1;
        else if (!strcmp(codec, "png"))
            sc->codec = SYNTH_CODEC_PNG;
        else
            return icv_ynode_fail(icv_ynode_get(n, "codec"), err, ICV_EINVAL,
                                  "unknown codec '%s' (h264 | mjpeg | ffv1 | png)", codec);
    }
    SYNTH_TRY(icv_yread_int(n, "crf", 0, &sc->crf, err));
    if (sc->crf < 0 || sc->crf > 51)
        return icv_ynode_fail(icv_ynode_get(n, "crf"), err, ICV_EINVAL, "must be 0..51");
    SYNTH_TRY(icv_yread_str(n, "preset", 0, sc->preset, sizeof sc->preset, err));
    SYNTH_TRY(icv_yread_int(n, "mjpeg_q", 0, &sc->mjpeg_q, err));
    char g[16] = "";
    SYNTH_TRY(icv_yread_str(n, "gravity", 0, g, sizeof g, err));
    if (g[0] && strcmp(g, "auto") && strcmp(g, "given"))
        return icv_ynode_fail(icv_ynode_get(n, "gravity"), err, ICV_EINVAL, "expected auto or given");
    sc->experiment_gravity_given = !strcmp(g, "given");
    return 0;
}

int synth_scenario_validate(const synth_scenario *sc, icv_err *err)
{
    if (sc->n_cameras < 1 || sc->n_cameras > ICV_MAX_CAMERAS)
        return icv_err_set(err, ICV_EINVAL, "%s: cameras: expected 1 to %d cameras, got %d", sc->path,
                           ICV_MAX_CAMERAS, sc->n_cameras);
    if (sc->n_cameras > 1 && sc->body.n_markers < 3)
        return icv_err_set(err, ICV_EINVAL, "%s: body.markers: a 3D (stereo) body needs at least 3 markers",
                           sc->path);
    if (sc->body.n_markers < 1)
        return icv_err_set(err, ICV_EINVAL, "%s: body.markers: at least one marker is needed", sc->path);
    for (int i = 0; i < sc->n_cameras; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(sc->cameras[i].id, sc->cameras[j].id))
                return icv_err_set(err, ICV_EINVAL, "%s: cameras: two cameras are called '%s'", sc->path,
                                   sc->cameras[i].id);
    if (sc->body.marker_style == SYNTH_MARKER_BAND && sc->body.shape.type != ICV_SHAPE_CAPSULE &&
        sc->body.shape.type != ICV_SHAPE_CYLINDER)
        return icv_err_set(err, ICV_EINVAL, "%s: body.marker_style: band needs a capsule or cylinder shape", sc->path);
    for (int i = 0; i < sc->n_bodies; i++) {
        const synth_body *b = &sc->bodies[i];
        if (b->n_markers < (sc->n_cameras > 1 ? 3 : 1) || b->marker_style == SYNTH_MARKER_BAND)
            return icv_err_set(err, ICV_EINVAL, "%s: bodies[%d]: needs %d markers or more, not bands", sc->path, i,
                               sc->n_cameras > 1 ? 3 : 1);
    }
    if (synth_n_markers(sc) > ICV_MAX_MARKERS || sc->n_bodies > ICV_MAX_BODIES)
        return icv_err_set(err, ICV_EINVAL, "%s: bodies: at most %d markers in all", sc->path, ICV_MAX_MARKERS);
    if (sc->max_impacts < 0 || sc->max_impacts > SYNTH_MAX_IMPACTS)
        return icv_err_set(err, ICV_EINVAL, "%s: max_impacts: must be 0..%d", sc->path, SYNTH_MAX_IMPACTS);
    return 0;
}

int synth_scenario_load(const char *path, synth_scenario *sc, icv_err *err)
{
    synth_scenario_defaults(sc);
    snprintf(sc->path, sizeof sc->path, "%s", path);
    icv_yaml *doc;
    icv_ynode root;
    SYNTH_TRY(icv_yaml_load(path, &doc, &root, err));
    int rc = 0;
#define R(x)               \
    do {                   \
        if ((rc = (x)))    \
            goto done;     \
    } while (0)
    if (!icv_ynode_is_map(root)) {
        rc = icv_ynode_fail(root, err, ICV_EINVAL, "expected a mapping of scenario keys");
        goto done;
    }
    if (icv_ynode_exists(icv_ynode_get(root, "random"))) {
        /* a drawn scene: the seed is the whole scenario */
        int rs = 0;
        R(icv_yread_int(root, "random", 1, &rs, err));
        if (rs < 0) {
            rc = icv_ynode_fail(icv_ynode_get(root, "random"), err, ICV_EINVAL, "must be a seed >= 0");
            goto done;
        }
        R(synth_scenario_random((unsigned long)rs, NULL, sc, err));
        snprintf(sc->path, sizeof sc->path, "%s", path);
        goto done;
    }
    int mb_found = 0;
    R(synth_mb_scenario_read(root, sc, &mb_found, err));
    if (mb_found) { /* a several-body scene: its kind and draw are the whole scenario */
        snprintf(sc->path, sizeof sc->path, "%s", path);
        goto done;
    }
    R(icv_yread_str(root, "name", 0, sc->name, sizeof sc->name, err));
    int seed = 1;
    R(icv_yread_int(root, "seed", 0, &seed, err));
    sc->seed = (unsigned long)seed;
    double slope = 0;
    icv_vec3 downhill = icv_v3(1, 0, 0);
    R(icv_yread_double(root, "slope", 0, &slope, err));
    R(icv_yread_vec3(root, "downhill", 0, &downhill, err));
    downhill.y = 0;
    if (!(icv_v3_norm(downhill) > 1e-9)) {
        rc = icv_ynode_fail(icv_ynode_get(root, "downhill"), err, ICV_EINVAL, "must have an x or z component");
        goto done;
    }
    downhill = icv_v3_unit(downhill);
    /* the surface tilted by `slope`: gravity along downhill and -y */
    sc->gravity = icv_v3_add(icv_v3_scale(downhill, G0 * sin(slope)), icv_v3(0, -G0 * cos(slope), 0));
    R(icv_yread_vec3(root, "gravity", 0, &sc->gravity, err));
    R(read_body(root, &sc->body, err));
    R(read_model(root, sc, err));
    R(read_release(root, sc, err));
    R(icv_yread_int(root, "max_impacts", 0, &sc->max_impacts, err));
    double duration = 0.4;
    R(icv_yread_double(root, "duration", 0, &duration, err));
    if (!(duration > 0 && duration < 1000)) {
        rc = icv_ynode_fail(icv_ynode_get(root, "duration"), err, ICV_EINVAL, "must be in (0, 1000) s");
        goto done;
    }
    icv_ynode cams = icv_ynode_get(root, "cameras");
    if (!icv_ynode_is_seq(cams) || icv_ynode_len(cams) < 1 || icv_ynode_len(cams) > ICV_MAX_CAMERAS) {
        rc = icv_ynode_fail(icv_ynode_exists(cams) ? cams : root, err, ICV_EINVAL,
                            "cameras: expected a list of 1 to %d cameras (required)", ICV_MAX_CAMERAS);
        goto done;
    }
    sc->n_cameras = (int)icv_ynode_len(cams);
    for (int i = 0; i < sc->n_cameras; i++)
        R(read_camera(icv_ynode_at(cams, (size_t)i), sc, i, duration, err));
    sc->planar = sc->n_cameras == 1;
    R(read_render(root, sc, err));
    R(read_board(root, sc, err));
    R(read_output(root, sc, err));
    R(synth_coeff_scenario_read(root, sc, err));
    rc = synth_scenario_validate(sc, err);
#undef R
done:
    icv_yaml_free(doc);
    return rc;
}
