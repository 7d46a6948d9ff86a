/* render.c: a fast ray-cast renderer for the synthetic videos.
 *
 * The static scene (dark textured table and backdrop, the plate, an optional bright
 * reference cylinder) is rendered once per camera, supersampled. Each frame adds the
 * moving body: for each blur sub-frame the body and its markers are placed in the
 * camera frame, their conservative 2D footprints mark 8x8 tiles, rays are cast at the
 * centres of the marked tiles' pixels only, and pixels whose 3x3 neighbourhood holds
 * more than one object id are supersampled S x S. Sub-frames accumulate
 * (value - background), so a frame costs the body's footprint, not the image. Rays
 * follow the OpenCV model exactly (camera.c), interpolated from a per-corner table. */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth_internal.h"

/* ---- textures ---------------------------------------------------------- */

static double hash2(uint64_t seed, long i, long j)
{
    uint64_t s = synth_stream(seed, (uint64_t)i * 73856093u, (uint64_t)j * 19349663u);
    return (double)(synth_mix64(&s) >> 11) * (1.0 / 9007199254740992.0);
}

/* value noise in [0, 1), smooth (cubic fade), lattice spacing 1 */
static double value_noise(uint64_t seed, double x, double y)
{
    double fx = floor(x), fy = floor(y);
    long i = (long)fx, j = (long)fy;
    double u = x - fx, v = y - fy;
    u = u * u * (3 - 2 * u);
    v = v * v * (3 - 2 * v);
    double a = hash2(seed, i, j), b = hash2(seed, i + 1, j), c = hash2(seed, i, j + 1), d = hash2(seed, i + 1, j + 1);
    return a + (b - a) * u + (c - a) * v + (a - b - c + d) * u * v;
}

/* a dark mottled texture around 1.0 (0.55 .. 1.45) at scales of cm to mm */
static double texture(uint64_t seed, double x, double y)
{
    double n = 0.5 * value_noise(seed, x / 0.04, y / 0.04) + 0.3 * value_noise(seed + 1, x / 0.011, y / 0.011) +
               0.2 * value_noise(seed + 2, x / 0.003, y / 0.003);
    return 0.55 + 0.9 * n;
}

static double texture_c(const synth_renderer *r, uint64_t seed, double x, double y)
{
    double c = r->sc->render.texture;
    return c > 0 ? 1 + c * (texture(seed, x, y) - 1) : 1;
}

/* ---- ray intersections (camera at the origin, unit direction d) ---------- */

/* Each returns the distance t > 0 along d, or INFINITY; *n gets the unit normal. */
static double hit_sphere(icv_vec3 d, icv_vec3 c, double r, icv_vec3 *n)
{
    double b = icv_v3_dot(d, c), cc = icv_v3_dot(c, c) - r * r, h = b * b - cc;
    if (h < 0)
        return INFINITY;
    double t = b - sqrt(h);
    if (t <= 0)
        return INFINITY;
    if (n)
        *n = icv_v3_scale(icv_v3_sub(icv_v3_scale(d, t), c), 1.0 / r);
    return t;
}

/* capsule a..b radius r (after Quilez's ray-capsule intersection); the
 * ray-independent products are kept in the primitive (prim_prepare) */
static double hit_capsule(icv_vec3 d, const synth_prim *p, icv_vec3 *n)
{
    double baba = p->baba, bard = icv_v3_dot(p->ba, d), baoa = p->baoa;
    double rdoa = -icv_v3_dot(d, p->a);
    double A = baba - bard * bard, B = baba * rdoa - baoa * bard, C = baba * p->oaoa - baoa * baoa - p->rr * baba;
    double h = B * B - A * C;
    if (A > 1e-12 * baba) {
        if (h < 0) /* misses the infinite cylinder, so the caps too */
            return INFINITY;
        double t = (-B - sqrt(h)) / A, y = baoa + t * bard;
        if (y > 0 && y < baba && t > 0) {
            if (n) {
                icv_vec3 q = icv_v3_add(p->a, icv_v3_scale(p->ba, y / baba));
                *n = icv_v3_scale(icv_v3_sub(icv_v3_scale(d, t), q), 1.0 / p->r);
            }
            return t;
        }
    }
    double t1 = hit_sphere(d, p->a, p->r, NULL), t2 = hit_sphere(d, p->b, p->r, NULL);
    double t = t1 < t2 ? t1 : t2;
    if (n && t < INFINITY)
        *n = icv_v3_scale(icv_v3_sub(icv_v3_scale(d, t), t1 < t2 ? p->a : p->b), 1.0 / p->r);
    return t;
}

static void prim_prepare(synth_prim *p)
{
    p->ba = icv_v3_sub(p->b, p->a);
    p->baba = icv_v3_dot(p->ba, p->ba);
    p->baoa = -icv_v3_dot(p->ba, p->a);
    p->oaoa = icv_v3_dot(p->a, p->a);
    p->rr = p->r * p->r;
}

/* capped cylinder a..b radius r (after Quilez) */
static double hit_cylinder(icv_vec3 d, icv_vec3 a, icv_vec3 b, double r, icv_vec3 *n)
{
    icv_vec3 ba = icv_v3_sub(b, a), oc = icv_v3_scale(a, -1.0);
    double baba = icv_v3_dot(ba, ba), bard = icv_v3_dot(ba, d), baoc = icv_v3_dot(ba, oc);
    double k2 = baba - bard * bard, k1 = baba * icv_v3_dot(oc, d) - baoc * bard;
    double k0 = baba * icv_v3_dot(oc, oc) - baoc * baoc - r * r * baba;
    double best = INFINITY;
    if (k2 > 1e-12 * baba) {
        double h = k1 * k1 - k2 * k0;
        if (h < 0)
            return INFINITY;
        h = sqrt(h);
        double t = (-k1 - h) / k2, y = baoc + t * bard;
        if (y > 0 && y < baba && t > 0) {
            if (n)
                *n = icv_v3_scale(icv_v3_sub(icv_v3_add(oc, icv_v3_scale(d, t)), icv_v3_scale(ba, y / baba)),
                                  1.0 / r);
            return t;
        }
    }
    /* the end caps: planes through a and b normal to the axis */
    icv_vec3 u = icv_v3_scale(ba, 1.0 / sqrt(baba));
    double du = icv_v3_dot(d, u);
    if (fabs(du) > 1e-12) {
        for (int e = 0; e < 2; e++) {
            icv_vec3 c = e ? b : a;
            double t = icv_v3_dot(c, u) / du;
            if (t > 0 && t < best) {
                icv_vec3 q = icv_v3_sub(icv_v3_scale(d, t), c);
                if (icv_v3_dot(q, q) <= r * r) {
                    best = t;
                    if (n)
                        *n = e ? u : icv_v3_scale(u, -1.0);
                }
            }
        }
    }
    return best;
}

static double hit_box(icv_vec3 d, const synth_prim *p, icv_vec3 *n)
{
    icv_mat3 Rt = icv_m3_transpose(p->Rb);
    icv_vec3 o = icv_m3_apply(Rt, icv_v3_scale(p->a, -1.0)), dl = icv_m3_apply(Rt, d);
    double oo[3], dd[3], hh[3];
    icv_v3_to_array(o, oo);
    icv_v3_to_array(dl, dd);
    icv_v3_to_array(p->half, hh);
    double tn = -INFINITY, tf = INFINITY;
    int axis = 0;
    for (int i = 0; i < 3; i++) {
        if (fabs(dd[i]) < 1e-15) {
            if (fabs(oo[i]) > hh[i])
                return INFINITY;
            continue;
        }
        double t1 = (-hh[i] - oo[i]) / dd[i], t2 = (hh[i] - oo[i]) / dd[i];
        if (t1 > t2) {
            double s = t1;
            t1 = t2;
            t2 = s;
        }
        if (t1 > tn) {
            tn = t1;
            axis = i;
        }
        if (t2 < tf)
            tf = t2;
    }
    if (tn > tf || tn <= 0)
        return INFINITY;
    if (n) {
        double nn[3] = {0, 0, 0};
        nn[axis] = dd[axis] > 0 ? -1 : 1;
        *n = icv_m3_apply(p->Rb, icv_v3_from_array(nn));
    }
    return tn;
}

/* flat disc centre a, normal b, radius r, seen from its front only */
static double hit_disc(icv_vec3 d, const synth_prim *p)
{
    double dn = icv_v3_dot(d, p->b);
    if (dn >= 0)
        return INFINITY;
    double t = icv_v3_dot(p->a, p->b) / dn;
    if (t <= 0)
        return INFINITY;
    icv_vec3 q = icv_v3_sub(icv_v3_scale(d, t), p->a);
    return icv_v3_dot(q, q) <= p->r * p->r ? t : INFINITY;
}

/* The bounding sphere of a placed primitive, a millionth larger than the shape so that
 * a ray it rejects misses the shape beyond rounding: the rejection changes no pixel. */
static void prim_bound(synth_prim *p)
{
    double R = p->r;
    p->bound_c = p->a;
    if (p->kind == PRIM_CAPSULE || p->kind == PRIM_CYLINDER) {
        double h = 0.5 * icv_v3_norm(icv_v3_sub(p->b, p->a));
        p->bound_c = icv_v3_scale(icv_v3_add(p->a, p->b), 0.5);
        R = p->kind == PRIM_CAPSULE ? h + p->r : hypot(h, p->r);
    } else if (p->kind == PRIM_BOX) {
        R = icv_v3_norm(p->half);
    }
    R *= 1 + 1e-6;
    p->bound_rr = R * R;
}

/* the unit ray d passes farther from the bounding sphere's centre than its radius */
static int prim_missed(const synth_prim *p, icv_vec3 d)
{
    double dc = icv_v3_dot(d, p->bound_c);
    return icv_v3_dot(p->bound_c, p->bound_c) - dc * dc > p->bound_rr;
}

static double hit_prim(const synth_prim *p, icv_vec3 d, icv_vec3 *n)
{
    switch (p->kind) {
    case PRIM_SPHERE:
        return hit_sphere(d, p->a, p->r, n);
    case PRIM_CAPSULE:
        return hit_capsule(d, p, n);
    case PRIM_CYLINDER:
        return hit_cylinder(d, p->a, p->b, p->r, n);
    case PRIM_BOX:
        return hit_box(d, p, n);
    default:
        return hit_disc(d, p);
    }
}

/* Casts the camera-frame ray (x, y, 1) at the primitives in mask (a tile's: a
 * primitive whose footprint misses the tile cannot be hit there): the id seen and its
 * gray. */
static int cast(const synth_renderer *r, const uint64_t *mask, double x, double y, float *value)
{
    double inv = 1.0 / sqrt(x * x + y * y + 1);
    icv_vec3 d = icv_v3(x * inv, y * inv, inv);
    const synth_body *b = &r->sc->body;
    double best = INFINITY;
    int id = 0;
    icv_vec3 nbest = icv_v3(0, 0, -1);
    double t_body = INFINITY;
    for (int w = 0; w < SYNTH_PRIM_WORDS; w++)
        for (uint64_t bits = mask[w]; bits; bits &= bits - 1) {
            const synth_prim *p = &r->prims[w * 64 + __builtin_ctzll(bits)];
            icv_vec3 n;
            /* a sphere's own test is as cheap as its bound's */
            double t = p->kind != PRIM_SPHERE && prim_missed(p, d) ? INFINITY : hit_prim(p, d, &n);
            if (p->id == SYNTH_ID_BODY)
                t_body = t;
            if (p->kind == PRIM_DISC)
                t -= r->sticker_eps; /* a sticker lies on the surface: it wins ties with the body */
            if (t < best) {
                best = t;
                id = p->id;
                nbest = n;
            }
        }
    if (!id)
        return 0;
    if (r->has_occluder && hit_prim(&r->occluder, d, NULL) < best)
        return 0;
    if (id == SYNTH_ID_BODY && b->marker_style == SYNTH_MARKER_BAND) {
        /* bands: the body surface within half a width (axially) of a marker */
        const synth_prim *p = &r->prims[0];
        icv_vec3 ba = icv_v3_sub(p->b, p->a);
        double L = icv_v3_norm(ba);
        double s = icv_v3_dot(icv_v3_sub(icv_v3_scale(d, t_body), p->a), ba) / L;
        for (int k = 0; k < b->n_markers; k++)
            if (fabs(s - r->band_s[k]) <= b->marker_diameter / 2) {
                *value = (float)b->marker_gray;
                return SYNTH_ID_MARKER0 + k;
            }
    }
    if (id == SYNTH_ID_BODY) {
        double c = fabs(icv_v3_dot(nbest, d));
        *value = (float)(b->body_gray * (0.35 + 0.65 * c)); /* light from the camera side */
    } else {
        *value = (float)b->marker_gray; /* retro-reflective or white: uniform */
    }
    return id;
}

/* cast for the n rays (x[i], y[i], 1): four at a time where the CPU can (the same
 * ids and values, render_cast4.c), the rest one at a time; values 0 where none is hit */
static void cast_n(const synth_renderer *r, const uint64_t *mask, int n, const double *x, const double *y, int *ids,
                   float *values)
{
    int i = 0;
    if (r->cast4)
        for (; i + 4 <= n; i += 4)
            if (!synth_cast4(r, mask, x + i, y + i, ids + i, values + i))
                break;
    for (; i < n; i++) {
        values[i] = 0;
        ids[i] = cast(r, mask, x[i], y[i], values + i);
    }
}

/* ---- the static scene ---------------------------------------------------- */

double synth_static_shade(const synth_renderer *r, icv_vec3 d, double *t_hit)
{
    const synth_render_opts *o = &r->sc->render;
    const synth_camera_model *m = &r->m;
    icv_vec3 ny = icv_v3(m->R.m[0][1], m->R.m[1][1], m->R.m[2][1]); /* surface y in the camera frame */
    double t = INFINITY;
    double dn = icv_v3_dot(d, ny);
    if (dn < 0) /* plane y = 0 seen from above: n.(t d - tc) = 0 */
        t = icv_v3_dot(m->t, ny) / dn;
    if (t_hit)
        *t_hit = t;
    if (r->has_occluder) {
        icv_vec3 n;
        double to = hit_prim(&r->occluder, icv_v3_unit(d), &n) / icv_v3_norm(d);
        if (to < t) {
            if (t_hit)
                *t_hit = to;
            return 0.85 * (0.55 + 0.45 * fabs(icv_v3_dot(n, icv_v3_unit(d))));
        }
    }
    uint64_t seed = r->sc->seed * 7919u + 11;
    if (t > 0 && t < INFINITY) {
        icv_vec3 ps = icv_m3_apply(icv_m3_transpose(m->R), icv_v3_sub(icv_v3_scale(d, t), m->t));
        for (int k = 0; k < o->n_glints; k++) {
            double gx = ps.x - o->glints[k][0], gz = ps.z - o->glints[k][1];
            if (gx * gx + gz * gz <= o->glints[k][2] * o->glints[k][2])
                return o->glints[k][3];
        }
        if (r->board_in_view) { /* lying on the surface: board (x, y) = surface (x, z) */
            int cell = synth_board_cell(&r->sc->board, ps.x, ps.z);
            if (cell)
                return synth_board_gray(cell);
        }
        if (r->sc->kind != SYNTH_KIND_TILT && /* a tilt's plate moves: coeff_scene.c draws it */
            fabs(ps.x) <= o->plate_size[0] / 2 && fabs(ps.z) <= o->plate_size[1] / 2)
            return o->plate_gray * (1 + 0.07 * (texture_c(r, seed + 5, ps.x * 4, ps.z * 4) - 1) / 0.45);
        return o->background_gray * texture_c(r, seed, ps.x, ps.z);
    }
    /* the backdrop: a texture on the direction (surface-frame azimuth, elevation) */
    icv_vec3 ds = icv_m3_apply(icv_m3_transpose(m->R), icv_v3_unit(d));
    double az = atan2(ds.z, ds.x), el = asin(ds.y > 1 ? 1 : ds.y < -1 ? -1 : ds.y);
    return 0.8 * o->background_gray * texture_c(r, seed + 3, az * 0.5, el * 0.5);
}

static void make_occluder(synth_renderer *r)
{
    const synth_render_opts *o = &r->sc->render;
    r->has_occluder = o->reference_object;
    if (!r->has_occluder)
        return;
    synth_prim *p = &r->occluder;
    p->kind = PRIM_CYLINDER;
    p->id = SYNTH_ID_OCCLUDER;
    p->r = o->reference_radius;
    p->a = icv_v3_add(icv_m3_apply(r->m.R, o->reference_position), r->m.t);
    p->b = icv_v3_add(icv_m3_apply(r->m.R, icv_v3_add(o->reference_position, icv_v3(0, o->reference_height, 0))),
                      r->m.t);
}

/* ---- the renderer -------------------------------------------------------- */

void synth_render_geometry_init(synth_renderer *r, const synth_scenario *sc, int camera)
{
    r->sc = sc;
    r->cam = camera;
    r->m = sc->cameras[camera].model;
    r->W = r->m.width;
    r->H = r->m.height;
    r->board_in_view = sc->render.board_in_view;
    r->light = 1.0f;
    make_occluder(r);
    const synth_body *b = &sc->body;
    if (b->shape.type == ICV_SHAPE_CAPSULE || b->shape.type == ICV_SHAPE_CYLINDER) {
        for (int k = 0; k < b->n_markers; k++) /* axial positions measured from the a end */
            r->band_s[k] = icv_v3_dot(b->markers[k], b->shape.axis) +
                           (b->shape.type == ICV_SHAPE_CAPSULE ? b->shape.length / 2 - b->shape.radius
                                                               : b->shape.length / 2);
        r->sticker_eps = 1e-4 + b->marker_diameter * b->marker_diameter / (8 * b->shape.radius);
    } else {
        r->sticker_eps = 1e-4; /* 0.1 mm: stickers are flat on flat faces */
    }
}


void synth_renderer_free(synth_renderer *r)
{
    if (!r)
        return;
    free(r->corner);
    free(r->centre);
    free(r->bg);
    free(r->gain);
    free(r->acc);
    free(r->id);
    free(r->val);
    free(r->tile_on);
    free(r->tile_prims);
    free(r->tile_dirty);
    free(r->tiles);
    free(r->dirty);
    free(r->gauss);
    free(r->row_start);
    free(r->bg_gain);
    free(r->bg_sigma);
    free(r->flash_rows);
    free(r);
}

/* The static background, 3 x 3 supersampled (its edges are static: done once), the
 * vignetting, and the background's signal and noise through it. */
static void render_background(synth_renderer *r)
{
    const synth_scenario *sc = r->sc;
    int W = r->W, H = r->H;
    size_t np = (size_t)W * H;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const float *c00 = r->corner + 2 * ((size_t)y * (W + 1) + x), *c10 = c00 + 2;
            const float *c01 = c00 + 2 * (W + 1), *c11 = c01 + 2;
            double s = 0;
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) {
                    double fx = (i + 0.5) / 3, fy = (j + 0.5) / 3;
                    double xn = (1 - fy) * ((1 - fx) * c00[0] + fx * c10[0]) + fy * ((1 - fx) * c01[0] + fx * c11[0]);
                    double yn = (1 - fy) * ((1 - fx) * c00[1] + fx * c10[1]) + fy * ((1 - fx) * c01[1] + fx * c11[1]);
                    s += synth_static_shade(r, icv_v3(xn, yn, 1), NULL);
                }
            r->bg[(size_t)y * W + x] = (float)(s / 9);
        }
    /* vignetting: 1 - v (rho / rho_corner)^2 about the principal point */
    double rc2 = 0;
    for (int k = 0; k < 4; k++) {
        double dx = (k & 1 ? W - 1 : 0) - r->m.cx, dy = (k & 2 ? H - 1 : 0) - r->m.cy;
        if (dx * dx + dy * dy > rc2)
            rc2 = dx * dx + dy * dy;
    }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double dx = x - r->m.cx, dy = y - r->m.cy;
            r->gain[(size_t)y * W + x] = (float)(1 - sc->render.vignetting * (dx * dx + dy * dy) / rc2);
        }
    /* the static background through the vignetting, and its noise sigma */
    float fw = (float)sc->render.full_well_e, rn2 = (float)(sc->render.read_noise_e * sc->render.read_noise_e);
    for (size_t i = 0; i < np; i++) { /* the same float arithmetic as synth_sensor_apply */
        float sg = (r->bg[i] + 0.0f + 0.0f) * r->gain[i];
        r->bg_gain[i] = sg;
        r->bg_sigma[i] = sqrtf((sg > 0 ? sg * fw : 0) + rn2) * (1.0f / fw);
    }
}

void synth_renderer_board_in_view(synth_renderer *r, int on)
{
    if (r->board_in_view == on)
        return;
    r->board_in_view = on;
    render_background(r);
}

int synth_renderer_alloc(const synth_scenario *sc, int camera, synth_renderer **out, icv_err *err)
{
    *out = NULL;
    synth_renderer *r = calloc(1, sizeof *r);
    if (!r)
        return icv_err_set(err, ICV_ENOMEM, "render: out of memory");
    synth_render_geometry_init(r, sc, camera);
    int W = r->W, H = r->H;
    size_t np = (size_t)W * H;
    r->tw = (W + SYNTH_TILE - 1) / SYNTH_TILE;
    r->th = (H + SYNTH_TILE - 1) / SYNTH_TILE;
    size_t nt = (size_t)r->tw * r->th;
    r->corner = malloc(sizeof(float) * 2 * (size_t)(W + 1) * (H + 1));
    r->centre = malloc(sizeof(float) * 2 * np);
    r->bg = malloc(sizeof(float) * np);
    r->gain = malloc(sizeof(float) * np);
    r->acc = calloc(np, sizeof(float));
    r->id = calloc(np, 1);
    r->val = malloc(sizeof(float) * np);
    r->tile_on = calloc(nt, 1);
    r->tile_prims = calloc(nt, sizeof *r->tile_prims);
    r->tile_dirty = calloc(nt, 1);
    r->tiles = malloc(sizeof(int) * nt);
    r->dirty = malloc(sizeof(int) * nt);
    r->gauss = malloc(sizeof(float) * SYNTH_GAUSS_N);
    r->row_start = malloc(sizeof(int) * (size_t)(r->th + 1));
    r->bg_gain = malloc(sizeof(float) * np);
    r->bg_sigma = malloc(sizeof(float) * np);
    r->flash_rows = malloc(sizeof(float) * (size_t)H);
    r->only_ty = -1;
    if (!r->corner || !r->centre || !r->bg || !r->gain || !r->acc || !r->id || !r->val || !r->tile_on ||
        !r->tile_prims || !r->tile_dirty || !r->tiles || !r->dirty || !r->gauss || !r->row_start || !r->flash_rows ||
        !r->bg_gain || !r->bg_sigma) {
        synth_renderer_free(r);
        return icv_err_set(err, ICV_ENOMEM, "render: out of memory for a %dx%d camera", W, H);
    }
    /* rays of every pixel corner (u = x - 0.5, v = y - 0.5) and centre, exactly inverted */
    for (int y = 0; y <= H; y++)
        for (int x = 0; x <= W; x++) {
            double xn[2];
            if (synth_camera_undistort(&r->m, x - 0.5, y - 0.5, xn)) {
                icv_err_set(err, ICV_EINVAL,
                            "camera '%s': the distortion cannot be inverted at pixel (%.1f, %.1f): check dist",
                            sc->cameras[camera].id, x - 0.5, y - 0.5);
                synth_renderer_free(r);
                return ICV_EINVAL;
            }
            float *c = r->corner + 2 * ((size_t)y * (W + 1) + x);
            c[0] = (float)xn[0];
            c[1] = (float)xn[1];
        }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double xn[2];
            synth_camera_undistort(&r->m, x, y, xn);
            float *c = r->centre + 2 * ((size_t)y * W + x);
            c[0] = (float)xn[0];
            c[1] = (float)xn[1];
        }
    r->cast4 = synth_cast4_available();
    render_background(r);
    /* stratified normal quantiles: the noise table (no random state needed) */
    for (int i = 0; i < SYNTH_GAUSS_N; i++)
        r->gauss[i] = (float)gsl_cdf_ugaussian_Pinv((i + 0.5) / SYNTH_GAUSS_N);
    *out = r;
    return 0;
}

const float *synth_renderer_background(const synth_renderer *r) { return r->bg; }

/* Body b's primitives in the camera frame at state s, from prims[n] on, its markers'
 * ids from SYNTH_ID_MARKER0 + k0; returns the next free index. */
static int place_one(synth_renderer *r, const synth_body *b, const synth_state *s, int n, int k0)
{
    const icv_shape *sh = &b->shape;
    icv_mat3 Rc = icv_m3_mul(r->m.R, s->R); /* body to camera */
    icv_vec3 pc = icv_v3_add(icv_m3_apply(r->m.R, s->p), r->m.t);
    synth_prim *p = &r->prims[n];
    memset(p, 0, sizeof *p);
    p->id = SYNTH_ID_BODY;
    switch (sh->type) {
    case ICV_SHAPE_CAPSULE:
    case ICV_SHAPE_CYLINDER: {
        double hl = sh->type == ICV_SHAPE_CAPSULE ? sh->length / 2 - sh->radius : sh->length / 2;
        icv_vec3 u = icv_m3_apply(Rc, sh->axis);
        p->kind = sh->type == ICV_SHAPE_CAPSULE ? PRIM_CAPSULE : PRIM_CYLINDER;
        p->a = icv_v3_axpy(-hl, u, pc);
        p->b = icv_v3_axpy(hl, u, pc);
        p->r = sh->radius;
        prim_prepare(p);
        n++;
        break;
    }
    case ICV_SHAPE_SPHERE:
        p->kind = PRIM_SPHERE;
        p->a = pc;
        p->r = sh->radius;
        n++;
        break;
    case ICV_SHAPE_BOX:
        p->kind = PRIM_BOX;
        p->a = pc;
        p->Rb = Rc;
        p->half = icv_v3_scale(sh->size, 0.5);
        p->r = icv_v3_norm(p->half);
        n++;
        break;
    default: /* points: nothing drawn but the markers */
        break;
    }
    if (b->marker_style != SYNTH_MARKER_BAND) {
        for (int k = 0; k < b->n_markers; k++) {
            synth_prim *q = &r->prims[n++];
            memset(q, 0, sizeof *q);
            q->id = SYNTH_ID_MARKER0 + k0 + k;
            q->a = icv_v3_add(icv_m3_apply(Rc, b->markers[k]), pc);
            q->r = b->marker_diameter / 2;
            if (b->marker_style == SYNTH_MARKER_SPHERE || b->marker_style == SYNTH_MARKER_POST) {
                q->kind = PRIM_SPHERE;
            } else {
                q->kind = PRIM_DISC;
                q->b = icv_m3_apply(Rc, b->marker_normals[k]);
            }
        }
    }
    if (b->marker_style == SYNTH_MARKER_POST) { /* each ball's post, drawn as the body */
        int nm = n;
        for (int k = 0; k < b->n_markers && nm < SYNTH_MAX_PRIMS; k++) {
            synth_prim *q = &r->prims[nm++];
            memset(q, 0, sizeof *q);
            q->id = SYNTH_ID_BODY;
            q->kind = PRIM_CYLINDER;
            q->b = icv_v3_add(icv_m3_apply(Rc, b->markers[k]), pc);
            q->a = icv_v3_axpy(-b->post_length, icv_m3_apply(Rc, b->marker_normals[k]), q->b);
            q->r = b->post_radius;
        }
        n = nm;
    }
    if (b->string_radius > 0 && n < SYNTH_MAX_PRIMS) { /* a pendulum's string, to the centre */
        synth_prim *q = &r->prims[n++];
        memset(q, 0, sizeof *q);
        q->id = SYNTH_ID_BODY;
        q->kind = PRIM_CYLINDER;
        q->a = icv_v3_add(icv_m3_apply(r->m.R, b->string_pivot), r->m.t);
        q->b = pc;
        q->r = b->string_radius;
    }
    return n;
}

/* Every body's primitives: s is the body's state, or every body's (sc->n_bodies). */
static void place_body(synth_renderer *r, const synth_state *s)
{
    const synth_scenario *sc = r->sc;
    int n = 0, k0 = 0;
    if (sc->n_bodies < 1)
        n = place_one(r, &sc->body, s, 0, 0);
    for (int i = 0; i < sc->n_bodies; i++) {
        n = place_one(r, &sc->bodies[i], &s[i], n, k0);
        k0 += sc->bodies[i].n_markers;
    }
    r->n_prims = n;
    memset(r->box_prims, 0, sizeof r->box_prims);
    for (int i = 0; i < n; i++) {
        prim_bound(&r->prims[i]);
        if (r->prims[i].kind == PRIM_BOX)
            r->box_prims[i / 64] |= 1ull << (i % 64);
    }
}

/* pixels per metre at camera-frame point c along x or y (session 29's footprints: not
 * a bound off axis, mark_polyline), or -1 when c is behind the camera */
static double px_per_m(const synth_renderer *r, icv_vec3 c, double uv[2])
{
    if (c.z <= 1e-6)
        return -1;
    synth_camera_distort(&r->m, c.x / c.z, c.y / c.z, uv);
    double e = 1e-3 * c.z, u2[2], u3[2];
    synth_camera_distort(&r->m, (c.x + e) / c.z, c.y / c.z, u2);
    synth_camera_distort(&r->m, c.x / c.z, (c.y + e) / c.z, u3);
    double s = fmax(hypot(u2[0] - uv[0], u2[1] - uv[1]), hypot(u3[0] - uv[0], u3[1] - uv[1])) / e;
    return s;
}

/* the distortion's largest stretch at (xn, yn), pixels per unit of x/z or y/z in any
 * direction: its Jacobian's (by differences) larger singular value; uv: the point */
static double distort_stretch(const synth_camera_model *m, double xn, double yn, double uv[2])
{
    double e = 1e-3, u2[2], u3[2];
    synth_camera_distort(m, xn, yn, uv);
    synth_camera_distort(m, xn + e, yn, u2);
    synth_camera_distort(m, xn, yn + e, u3);
    double a = (u2[0] - uv[0]) / e, b = (u3[0] - uv[0]) / e, c = (u2[1] - uv[1]) / e, d = (u3[1] - uv[1]) / e;
    double T = a * a + b * b + c * c + d * d, D = a * d - b * c;
    return sqrt(0.5 * (T + sqrt(fmax(T * T - 4 * D * D, 0))));
}

static void mark_tile(synth_renderer *r, int tx, int ty)
{
    if (r->only_ty >= 0 && ty != r->only_ty)
        return;
    int t = ty * r->tw + tx;
    if (!r->tile_on[t]) {
        r->tile_on[t] = 1;
        r->tiles[r->n_tiles++] = t;
    }
    r->tile_prims[t][r->marking / 64] |= 1ull << (r->marking % 64);
    if (!r->tile_dirty[t]) {
        r->tile_dirty[t] = 1;
        r->dirty[r->n_dirty++] = t;
    }
}

/* marks the tiles within R px of the 2D segment p..q */
static void mark_segment(synth_renderer *r, const double p[2], const double q[2], double R)
{
    double half = SYNTH_TILE * 0.7072 + 1.0; /* tile half-diagonal and a pixel */
    int x0 = (int)floor((fmin(p[0], q[0]) - R) / SYNTH_TILE), x1 = (int)floor((fmax(p[0], q[0]) + R) / SYNTH_TILE);
    int y0 = (int)floor((fmin(p[1], q[1]) - R) / SYNTH_TILE), y1 = (int)floor((fmax(p[1], q[1]) + R) / SYNTH_TILE);
    if (x0 < 0)
        x0 = 0;
    if (y0 < 0)
        y0 = 0;
    if (x1 >= r->tw)
        x1 = r->tw - 1;
    if (y1 >= r->th)
        y1 = r->th - 1;
    if (r->only_ty >= 0) { /* rolling shutter: one tile row at a time */
        y0 = y0 > r->only_ty ? y0 : r->only_ty;
        y1 = y1 < r->only_ty ? y1 : r->only_ty;
    }
    double dx = q[0] - p[0], dy = q[1] - p[1], l2 = dx * dx + dy * dy;
    for (int ty = y0; ty <= y1; ty++)
        for (int tx = x0; tx <= x1; tx++) {
            double cx = (tx + 0.5) * SYNTH_TILE - 0.5, cy = (ty + 0.5) * SYNTH_TILE - 0.5;
            double s = l2 > 0 ? ((cx - p[0]) * dx + (cy - p[1]) * dy) / l2 : 0;
            s = s < 0 ? 0 : s > 1 ? 1 : s;
            double ex = cx - (p[0] + s * dx), ey = cy - (p[1] + s * dy);
            if (ex * ex + ey * ey <= (R + half) * (R + half))
                mark_tile(r, tx, ty);
        }
}

static void mark_all(synth_renderer *r)
{
    for (int ty = 0; ty < r->th; ty++)
        for (int tx = 0; tx < r->tw; tx++)
            mark_tile(r, tx, ty);
}

/* Conservative 2D footprints: a sphere of radius rad around each of n points (a
 * polyline). Its points c + rad u (|u| <= 1) project within rad |c| / (c.z (c.z - rad))
 * of c's projection in (x/z, y/z) (the map u -> c.z u_xy - c_xy u_z has largest
 * singular value |c|), so within that times the distortion's largest stretch in pixels
 * (the larger of it at c's and at the near point's projections, 15 % to spare for its
 * change across the footprint) and 2 px. The factor |c| / c.z is 1.8 at 56 degrees off
 * axis: without it stickers and rods lost their edges there (docs/synth.md "Session 30").
 * ring 0 marks session 29's footprint (the scale along x or y at the near point, 15 %
 * and 2 px), ring 1 the bound: mark_prims marks every primitive's ring 0 first, so that
 * the tiles keep session 29's order (the marker moments' sums, summed tile by tile, keep
 * their last digits) and the tiles only the bound reaches come after. */
static void mark_polyline(synth_renderer *r, const icv_vec3 *pts, int n, double rad, int ring)
{
    double uv[16][2], R = 0;
    for (int i = 0; i < n; i++) {
        icv_vec3 c = pts[i];
        if (c.z - rad <= 1e-3) { /* reaches behind the camera: everything */
            mark_all(r);
            return;
        }
        double Ri, zn = c.z - rad;
        if (ring) {
            double near[2];
            double J = fmax(distort_stretch(&r->m, c.x / zn, c.y / zn, near),
                            distort_stretch(&r->m, c.x / c.z, c.y / c.z, uv[i]));
            Ri = 1.15 * J * rad * icv_v3_norm(c) / (c.z * zn) + 2.0;
        } else {
            double s = px_per_m(r, icv_v3(c.x, c.y, zn), uv[i]);
            synth_camera_distort(&r->m, c.x / c.z, c.y / c.z, uv[i]);
            Ri = 1.15 * s * rad + 2.0;
        }
        if (Ri > R)
            R = Ri;
    }
    for (int i = 0; i < n; i++) {
        if (!(fabs(uv[i][0]) < 1e6 && fabs(uv[i][1]) < 1e6)) {
            mark_all(r);
            return;
        }
    }
    if (n == 1)
        mark_segment(r, uv[0], uv[0], R);
    for (int i = 0; i + 1 < n; i++)
        mark_segment(r, uv[i], uv[i + 1], R);
}

static void mark_prims(synth_renderer *r)
{
    if (r->mark_every) {
        for (r->marking = 0; r->marking < r->n_prims; r->marking++)
            mark_all(r);
        return;
    }
    for (int ring = 0; ring < 2; ring++)
        for (int i = 0; i < r->n_prims; i++) {
            const synth_prim *p = &r->prims[i];
            r->marking = i;
            if (p->kind == PRIM_CAPSULE || p->kind == PRIM_CYLINDER) {
                icv_vec3 pts[9];
                for (int k = 0; k < 9; k++)
                    pts[k] = icv_v3_add(p->a, icv_v3_scale(icv_v3_sub(p->b, p->a), k / 8.0));
                /* a cylinder's rim lies within r sqrt(2) of its axis segment's ends */
                mark_polyline(r, pts, 9, p->r * (p->kind == PRIM_CYLINDER ? 1.4143 : 1.0), ring);
            } else {
                mark_polyline(r, &p->a, 1, p->r, ring);
            }
        }
}

/* pass 1: the id and value at every pixel centre of tiles[k0..k1) */
static void pass_centres(synth_renderer *r, int k0, int k1)
{
    int W = r->W, H = r->H;
    for (int k = k0; k < k1; k++) {
        int t = r->tiles[k], tx = t % r->tw, ty = t / r->tw;
        int x1 = (tx + 1) * SYNTH_TILE < W ? (tx + 1) * SYNTH_TILE : W;
        int y1 = (ty + 1) * SYNTH_TILE < H ? (ty + 1) * SYNTH_TILE : H;
        for (int y = ty * SYNTH_TILE; y < y1; y++) {
            double xs[SYNTH_TILE], ys[SYNTH_TILE];
            int ids[SYNTH_TILE], n = x1 - tx * SYNTH_TILE;
            size_t i0 = (size_t)y * W + tx * SYNTH_TILE;
            for (int j = 0; j < n; j++) {
                xs[j] = r->centre[2 * (i0 + j)];
                ys[j] = r->centre[2 * (i0 + j) + 1];
            }
            cast_n(r, r->tile_prims[t], n, xs, ys, ids, r->val + i0);
            for (int j = 0; j < n; j++)
                r->id[i0 + j] = (uint8_t)ids[j];
        }
    }
}

/* pass 2 over tiles[k0..k1): supersample the pixels next to an id change; accumulate
 * (value - background) x w */
static void pass_edges(synth_renderer *r, int k0, int k1, double w)
{
    int W = r->W, H = r->H, S = r->sc->render.supersample;
    for (int k = k0; k < k1; k++) {
        int t = r->tiles[k], tx = t % r->tw, ty = t / r->tw;
        int x1 = (tx + 1) * SYNTH_TILE < W ? (tx + 1) * SYNTH_TILE : W;
        int y1 = (ty + 1) * SYNTH_TILE < H ? (ty + 1) * SYNTH_TILE : H;
        for (int y = ty * SYNTH_TILE; y < y1; y++)
            for (int x = tx * SYNTH_TILE; x < x1; x++) {
                size_t i = (size_t)y * W + x;
                /* edge: an id differs in the 3x3 neighbourhood; marker edges get S x S
                 * samples (their centroids are measured), body-only edges ~S/3 x S/3 */
                int id = r->id[i], edge = 0, marker = id >= SYNTH_ID_MARKER0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int xx = x + dx, yy = y + dy;
                        if (xx < 0 || yy < 0 || xx >= W || yy >= H)
                            continue;
                        int o = r->id[(size_t)yy * W + xx];
                        if (o != id) {
                            edge = 1;
                            marker |= o >= SYNTH_ID_MARKER0;
                        }
                    }
                float bg = r->bg[i];
                if (!edge || S == 1) {
                    if (id)
                        r->acc[i] += (float)(w * (r->val[i] - bg));
                    if (id >= SYNTH_ID_MARKER0) {
                        double *m = r->mom[id - SYNTH_ID_MARKER0];
                        m[0] += w;
                        m[1] += w * x;
                        m[2] += w * y;
                    }
                    continue;
                }
                int Sp = marker ? S : (S + 2) / 3;
                const float *c00 = r->corner + 2 * ((size_t)y * (W + 1) + x), *c10 = c00 + 2;
                const float *c01 = c00 + 2 * (W + 1), *c11 = c01 + 2;
                double sum = 0;
                /* the samples are cast in batches (four at once where the CPU can), then
                 * summed in their order */
                enum { BATCH = 64 };
                double xs[BATCH], ys[BATCH], fxs[BATCH], fys[BATCH];
                int hits[BATCH];
                float vs[BATCH];
                /* a regular grid: symmetric, so a blob's centroid is unbiased. Sample
                 * (ix, iy) is at fraction f[ix], f[iy] of the pixel; its ray interpolates
                 * the corners' as (1 - fy) top + fy bottom, top and bottom lerped in fx
                 * (computed once per column, the same values as per sample) */
                double f[16], top[2][16], bot[2][16];
                for (int ix = 0; ix < Sp; ix++) {
                    double fx = (ix + 0.5) / Sp;
                    f[ix] = fx;
                    for (int c = 0; c < 2; c++) {
                        top[c][ix] = (1 - fx) * c00[c] + fx * c10[c];
                        bot[c][ix] = (1 - fx) * c01[c] + fx * c11[c];
                    }
                }
                for (int k0 = 0, ix = 0, iy = 0; k0 < Sp * Sp; k0 += BATCH) {
                    int nb = Sp * Sp - k0 < BATCH ? Sp * Sp - k0 : BATCH;
                    for (int j = 0; j < nb; j++) {
                        double fy = f[iy];
                        fxs[j] = f[ix];
                        fys[j] = fy;
                        xs[j] = (1 - fy) * top[0][ix] + fy * bot[0][ix];
                        ys[j] = (1 - fy) * top[1][ix] + fy * bot[1][ix];
                        if (++ix == Sp) {
                            ix = 0;
                            iy++;
                        }
                    }
                    cast_n(r, r->tile_prims[t], nb, xs, ys, hits, vs);
                    for (int j = 0; j < nb; j++) {
                        int hit = hits[j];
                        double fx = fxs[j], fy = fys[j];
                        if (hit)
                            sum += vs[j] - bg;
                        if (hit >= SYNTH_ID_MARKER0) { /* the marker's area moments, at the sample */
                            double *m = r->mom[hit - SYNTH_ID_MARKER0], a = w / (Sp * Sp);
                            m[0] += a;
                            m[1] += a * (x - 0.5 + fx);
                            m[2] += a * (y - 0.5 + fy);
                        }
                    }
                }
                r->acc[i] += (float)(w * sum / (Sp * Sp));
            }
    }
}

/* clears the id buffer and the tile marks of the current sub-frame */
static void clear_tiles(synth_renderer *r)
{
    int W = r->W, H = r->H;
    for (int k = 0; k < r->n_tiles; k++) {
        int t = r->tiles[k], tx = t % r->tw, ty = t / r->tw;
        int x1 = (tx + 1) * SYNTH_TILE < W ? (tx + 1) * SYNTH_TILE : W;
        int y1 = (ty + 1) * SYNTH_TILE < H ? (ty + 1) * SYNTH_TILE : H;
        for (int y = ty * SYNTH_TILE; y < y1; y++)
            memset(r->id + (size_t)y * W + tx * SYNTH_TILE, 0, (size_t)(x1 - tx * SYNTH_TILE));
        r->tile_on[t] = 0;
        memset(r->tile_prims[t], 0, sizeof r->tile_prims[t]);
    }
    r->n_tiles = 0;
}

/* Renders the placed primitives into acc with weight w (one sub-frame). */
static void render_subframe(synth_renderer *r, double w)
{
    r->n_tiles = 0;
    r->only_ty = -1;
    mark_prims(r);
    pass_centres(r, 0, r->n_tiles);
    pass_edges(r, 0, r->n_tiles, w);
    clear_tiles(r);
}

/* A rolling-shutter sub-frame: row y is exposed line_delay x y later than row 0; the
 * body is placed once per tile row, at the time of that tile row's middle. */
static void render_subframe_rolling(synth_renderer *r, const synth_flight *f, double t0, double ld, double w)
{
    r->n_tiles = 0;
    for (int ty = 0; ty < r->th; ty++) {
        synth_state st[ICV_MAX_BODIES];
        synth_flight_states_at(f, t0 + (ty * SYNTH_TILE + (SYNTH_TILE - 1) / 2.0) * ld, st);
        place_body(r, st);
        r->only_ty = ty;
        r->row_start[ty] = r->n_tiles;
        mark_prims(r);
        pass_centres(r, r->row_start[ty], r->n_tiles);
    }
    r->row_start[r->th] = r->n_tiles;
    for (int ty = 0; ty < r->th; ty++) {
        if (r->row_start[ty] == r->row_start[ty + 1])
            continue;
        synth_state st[ICV_MAX_BODIES];
        synth_flight_states_at(f, t0 + (ty * SYNTH_TILE + (SYNTH_TILE - 1) / 2.0) * ld, st);
        place_body(r, st);
        pass_edges(r, r->row_start[ty], r->row_start[ty + 1], w);
    }
    r->only_ty = -1;
    clear_tiles(r);
}

static void clear_dirty(synth_renderer *r)
{
    int W = r->W, H = r->H;
    for (int k = 0; k < r->n_dirty; k++) {
        int t = r->dirty[k], tx = t % r->tw, ty = t / r->tw;
        int x1 = (tx + 1) * SYNTH_TILE < W ? (tx + 1) * SYNTH_TILE : W;
        int y1 = (ty + 1) * SYNTH_TILE < H ? (ty + 1) * SYNTH_TILE : H;
        for (int y = ty * SYNTH_TILE; y < y1; y++)
            memset(r->acc + (size_t)y * W + tx * SYNTH_TILE, 0, sizeof(float) * (size_t)(x1 - tx * SYNTH_TILE));
        r->tile_dirty[t] = 0;
    }
    r->n_dirty = 0;
}

void synth_renderer_state(synth_renderer *r, const synth_state *s, float *out)
{
    memset(r->mom, 0, sizeof r->mom);
    r->only_ty = -1;
    place_body(r, s);
    render_subframe(r, 1.0);
    size_t np = (size_t)r->W * r->H;
    for (size_t i = 0; i < np; i++)
        out[i] = r->bg[i] + r->acc[i];
    clear_dirty(r);
}

void synth_sensor_apply(const synth_renderer *r, const float *lin, const float *acc, const float *flash,
                        uint64_t seed, uint8_t *gray)
{
    const synth_render_opts *o = &r->sc->render;
    uint64_t st = seed, bits = 0;
    float fw = (float)o->full_well_e, rn2 = (float)(o->read_noise_e * o->read_noise_e), inv_fw = 1.0f / fw;
    float light = r->light;
    /* the precomputed background signal and noise apply (steady light only) */
    int static_bg = lin == r->bg && light == 1.0f, noise = o->noise;
    const float *bg_gain = r->bg_gain, *bg_sigma = r->bg_sigma, *gain = r->gain, *gauss = r->gauss;
    /* row by row: a row's flash is one value (no division per pixel); i runs on as before */
    for (size_t y = 0, i = 0; y < (size_t)r->H; y++) {
        float fl = flash ? flash[y] : 0.0f;
        int row_static = static_bg && fl == 0.0f;
        for (size_t ie = i + (size_t)r->W; i < ie; i++) {
            float a = acc ? acc[i] : 0.0f, s, sig;
            if (row_static && a == 0.0f) {
                s = bg_gain[i];
                sig = bg_sigma[i];
            } else {
                s = ((lin[i] + a) * light + fl) * gain[i];
                float e = s > 0 ? s * fw : 0;
                sig = noise ? sqrtf(e + rn2) * inv_fw : 0.0f;
            }
            if (noise) {
                if ((i & 3) == 0)
                    bits = synth_mix64(&st);
                s += sig * gauss[bits & 0xffff];
                bits >>= 16;
            }
            float q = s * 255.0f + 0.5f;
            gray[i] = q <= 0 ? 0 : q >= 255 ? 255 : (uint8_t)q;
        }
    }
}

/* fraction of the flash [tf, tf + df] inside the exposure [t0, t1] */
static double flash_seen(const synth_render_opts *o, double t0, double t1)
{
    if (!(o->flash_duration_s > 0))
        return 0;
    double a = fmax(t0, o->flash_time_s), b = fmin(t1, o->flash_time_s + o->flash_duration_s);
    if (t1 <= t0) /* an instantaneous exposure sees the flash or not */
        return t0 >= o->flash_time_s && t0 <= o->flash_time_s + o->flash_duration_s ? 1 : 0;
    return b > a ? (b - a) / o->flash_duration_s : 0;
}

/* the mean of 1 + depth sin(2 pi f t + phase) over the exposure [t0, t1] (the whole
 * frame at one time: a rolling shutter's rows are not modulated separately) */
static double flicker_light(const synth_render_opts *o, double t0, double t1)
{
    if (!(o->flicker_depth > 0))
        return 1;
    double w = 2 * M_PI * o->flicker_hz;
    if (!(t1 - t0 > 1e-12))
        return 1 + o->flicker_depth * sin(w * t0 + o->flicker_phase);
    return 1 + o->flicker_depth * (cos(w * t0 + o->flicker_phase) - cos(w * t1 + o->flicker_phase)) / (w * (t1 - t0));
}

void synth_renderer_frame(synth_renderer *r, const synth_flight *f, int n, uint8_t *gray)
{
    const synth_camera *c = &r->sc->cameras[r->cam];
    const synth_render_opts *o = &r->sc->render;
    double tm = synth_camera_frame_time(c, n), e = c->exposure_s, ld = c->line_delay_s;
    int ns = e > 0 ? o->blur_subframes : 1;
    memset(r->mom, 0, sizeof r->mom);
    for (int s = 0; s < ns; s++) {
        double t = tm + e * ((s + 0.5) / ns - 0.5);
        if (ld > 0) {
            render_subframe_rolling(r, f, t, ld, 1.0 / ns);
            continue;
        }
        synth_state st[ICV_MAX_BODIES];
        synth_flight_states_at(f, t, st);
        place_body(r, st);
        render_subframe(r, 1.0 / ns);
    }
    for (int y = 0; y < r->H; y++) /* row y's exposure is y line delays after row 0's */
        r->flash_rows[y] = (float)(o->flash_gain * flash_seen(o, tm + y * ld - e / 2, tm + y * ld + e / 2));
    r->light = (float)flicker_light(o, tm - e / 2, tm + e / 2);
    synth_sensor_apply(r, r->bg, r->acc, r->flash_rows, synth_stream(r->sc->seed, 1000 + (uint64_t)r->cam, (uint64_t)n),
                       gray);
    r->light = 1.0f;
    clear_dirty(r);
}

int synth_marker_visible(const synth_renderer *r, const synth_state *s, int k, double uv[2])
{
    int bi, kl;
    const synth_body *b = synth_marker_body(r->sc, k, &bi, &kl);
    icv_vec3 xs = icv_v3_add(icv_m3_apply(s[bi].R, b->markers[kl]), s[bi].p);
    if (synth_camera_project(&r->m, xs, uv))
        return 0;
    if (uv[0] < -0.5 || uv[1] < -0.5 || uv[0] > r->W - 0.5 || uv[1] > r->H - 0.5)
        return 0;
    synth_renderer *rw = (synth_renderer *)r; /* place_body writes the scratch primitives only */
    place_body(rw, s);
    icv_vec3 xc = icv_v3_add(icv_m3_apply(r->m.R, xs), r->m.t);
    uint64_t all[SYNTH_PRIM_WORDS] = {0};
    for (int i = 0; i < r->n_prims; i++)
        all[i / 64] |= 1ull << (i % 64);
    float v;
    int id = cast(r, all, xc.x / xc.z, xc.y / xc.z, &v);
    if (b->marker_style != SYNTH_MARKER_BAND)
        return id == SYNTH_ID_MARKER0 + k;
    /* a band surrounds its centre: seen when the ray to the centre meets the rod's near
     * surface within a radius or two (axially) of the band, i.e. not through an end */
    if (id != SYNTH_ID_BODY && id < SYNTH_ID_MARKER0)
        return 0;
    const synth_prim *p = &r->prims[0];
    icv_vec3 d = icv_v3_unit(xc);
    double t = hit_prim(p, d, NULL);
    icv_vec3 ba = icv_v3_sub(p->b, p->a);
    double sh = icv_v3_dot(icv_v3_sub(icv_v3_scale(d, t), p->a), ba) / icv_v3_norm(ba);
    return fabs(sh - r->band_s[k]) <= b->marker_diameter / 2 + 2 * b->shape.radius;
}

int synth_marker_frame_uv(const synth_renderer *r, const synth_flight *f, int n, int k, double uv[2])
{
    const synth_camera *c = &r->sc->cameras[r->cam];
    double tf = synth_camera_frame_time(c, n), t = tf;
    synth_state s[ICV_MAX_BODIES];
    synth_flight_states_at(f, t, s);
    int bi, kl;
    const synth_body *b = synth_marker_body(r->sc, k, &bi, &kl);
    /* rolling shutter: the marker is seen when its row is exposed, t = tf + v(t) delay;
     * a fixed point that converges at once (v moves a few rows per frame at most) */
    for (int it = 0; c->line_delay_s > 0 && it < 5; it++) {
        double p[2];
        icv_vec3 x = icv_v3_add(icv_m3_apply(s[bi].R, b->markers[kl]), s[bi].p);
        if (synth_camera_project(&r->m, x, p))
            break;
        t = tf + fmin(fmax(p[1], 0), r->H - 1) * c->line_delay_s;
        synth_flight_states_at(f, t, s);
    }
    return synth_marker_visible(r, s, k, uv);
}

int synth_renderer_marker_centroid(const synth_renderer *r, int k, double uv[2])
{
    const double *m = r->mom[k];
    if (!(m[0] > 0.5)) /* less than half a pixel of it seen */
        return 0;
    uv[0] = m[1] / m[0];
    uv[1] = m[2] / m[0];
    return 1;
}
