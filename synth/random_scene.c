/* random_scene.c: a whole random impact scene from a seed (synth_scenario_random;
 * docs/synth.md, "Random scenes"). The draws span what labs and students film: the
 * body (rod, bar, or in one-camera mode a ball), its markers (bands, beads on the
 * rod, balls on posts, stickers, retro-reflective dots, dark or coloured markers),
 * surface and lighting, one or two cameras, 30-6000 fps, blur, spin, one or two
 * bounces, noise, compression, flicker and static clutter. A draw is kept only
 * when it is a valid experiment (every impact inside the clip with enough free
 * flight on both sides, no further contact before the clip ends, the body and the
 * boards in view, most markers seen); otherwise the next draw of the same seed is
 * tried, so a seed always gives the same scene. Units SI, surface frame. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "synth/synth_internal.h"

#define G0 9.81
#define ATTEMPTS 200
#define MIN_ACROSS_PX 6 /* the surface or motion-plane board's squares, px across */
#define MIN_FLASH_SEEN 0.5 /* of the flash's light in one frame of every camera */

static double U(uint64_t *s, double a, double b) { return a + (b - a) * synth_uniform(s); }
static double logU(uint64_t *s, double a, double b) { return a * exp(log(b / a) * synth_uniform(s)); }
static int pick(uint64_t *s, int n) { return (int)(synth_uniform(s) * n) % n; }
static int chance(uint64_t *s, double p) { return synth_uniform(s) < p; }
static double clampd(double x, double a, double b) { return x < a ? a : x > b ? b : x; }

/* a unit vector uniform on the sphere */
static icv_vec3 unit_random(uint64_t *s)
{
    double z = U(s, -1, 1), a = U(s, 0, 2 * M_PI), r = sqrt(1 - z * z);
    return icv_v3(r * cos(a), z, r * sin(a));
}

typedef enum { BODY_ROD, BODY_BAR, BODY_BALL } body_kind;
static const char *const body_names[] = {"rod", "bar", "ball"};

typedef enum { LOOK_BAND, LOOK_BEAD, LOOK_POST, LOOK_STICKER, LOOK_RETRO, LOOK_BALL } marker_look;
static const char *const look_names[] = {"bands", "beads", "balls on posts", "stickers", "retro dots", "the ball"};

/* what a draw needs besides the scenario */
typedef struct {
    body_kind kind;
    marker_look look;
    double extent;      /* m: the body's bounding radius about its centre of mass */
    double px_target;   /* the markers' drawn size in the image, px */
    double standoff;    /* m: posts, the ball's centre above the surface it stands on */
    const char *colour; /* the markers' look: "bright", "dark", "red", ... */
} draw_info;

/* ---- the body ------------------------------------------------------------ */

static void draw_body(uint64_t *s, int planar, synth_scenario *sc, draw_info *di)
{
    synth_body *b = &sc->body;
    double u = synth_uniform(s);
    di->kind = planar ? (u < 0.4 ? BODY_ROD : u < 0.75 ? BODY_BAR : BODY_BALL) : (u < 0.55 ? BODY_ROD : BODY_BAR);
    memset(&b->shape, 0, sizeof b->shape);
    if (di->kind == BODY_ROD) {
        double L = U(s, 0.15, 0.45), r = U(s, 0.004, 0.015), rho = U(s, 700, 2800);
        b->shape.type = chance(s, 0.7) ? ICV_SHAPE_CAPSULE : ICV_SHAPE_CYLINDER;
        b->shape.axis = icv_v3(0, 1, 0);
        b->shape.length = L;
        b->shape.radius = r;
        b->mass = rho * M_PI * r * r * L;
        double ip = b->mass * (3 * r * r + L * L) / 12;
        b->inertia = icv_m3_diag(ip, b->mass * r * r / 2, ip);
        di->extent = L / 2;
    } else if (di->kind == BODY_BAR) {
        icv_vec3 sz = icv_v3(U(s, 0.02, 0.06), U(s, 0.08, 0.25), U(s, 0.01, 0.03));
        double rho = U(s, 500, 2800);
        b->shape.type = ICV_SHAPE_BOX;
        b->shape.size = sz;
        b->mass = rho * sz.x * sz.y * sz.z;
        double m12 = b->mass / 12;
        b->inertia = icv_m3_diag(m12 * (sz.y * sz.y + sz.z * sz.z), m12 * (sz.x * sz.x + sz.z * sz.z),
                                 m12 * (sz.x * sz.x + sz.y * sz.y));
        di->extent = icv_v3_norm(sz) / 2;
    } else {
        double r = U(s, 0.015, 0.04);
        b->shape.type = ICV_SHAPE_SPHERE;
        b->shape.radius = r;
        b->mass = U(s, 0.003, 0.2);
        double k = chance(s, 0.5) ? 0.4 : 2.0 / 3; /* solid or hollow */
        b->inertia = icv_m3_diag(k * b->mass * r * r, k * b->mass * r * r, k * b->mass * r * r);
        di->extent = r;
    }
}

/* ---- the markers (after the cameras: their size is drawn in pixels) ------- */

static int collinear(const icv_vec3 *m, int n)
{
    for (int i = 2; i < n; i++)
        if (icv_v3_norm(icv_v3_cross(icv_v3_sub(m[1], m[0]), icv_v3_sub(m[i], m[0]))) >
            0.1 * icv_v3_norm(icv_v3_sub(m[1], m[0])) * icv_v3_norm(icv_v3_sub(m[i], m[0])))
            return 0;
    return 1;
}

/* axial positions along a rod: the ends' markers near the ends, the middle ones
 * not equally spaced (identity) */
static void rod_stations(uint64_t *s, double L, int n, double *st)
{
    st[0] = -0.42 * L * U(s, 0.85, 1.0);
    st[n - 1] = 0.42 * L * U(s, 0.85, 1.0);
    for (int k = 1; k < n - 1; k++) {
        double f = (double)k / (n - 1) + U(s, -0.12, 0.12);
        st[k] = st[0] + f * (st[n - 1] - st[0]);
    }
}

/* Sets the look, markers and diameter d (m) for a body seen at px_per_m. Returns
 * 0, or -1 when the drawn look does not fit the body. */
static int draw_markers(uint64_t *s, synth_scenario *sc, draw_info *di, double px_per_m)
{
    synth_body *b = &sc->body;
    icv_shape *sh = &b->shape;
    int n = chance(s, 0.5) ? 3 : 4;
    double u = synth_uniform(s);
    if (di->kind == BODY_BALL) {
        di->look = LOOK_BALL;
    } else if (di->kind == BODY_ROD) {
        di->look = u < 0.3 ? LOOK_BAND : u < 0.5 ? LOOK_BEAD : u < 0.7 ? LOOK_POST : u < 0.85 ? LOOK_STICKER : LOOK_RETRO;
    } else {
        di->look = u < 0.45 ? LOOK_STICKER : u < 0.7 ? LOOK_POST : LOOK_RETRO;
    }
    di->px_target = di->look == LOOK_RETRO ? logU(s, 4, 12) : logU(s, 4, 40);
    double d = di->px_target / px_per_m;
    b->n_markers = n;
    if (di->look == LOOK_BALL) {
        /* the whole ball is the marker: a bright sphere just larger than the body */
        b->n_markers = 1;
        b->markers[0] = icv_v3(0, 0, 0);
        b->marker_style = SYNTH_MARKER_SPHERE;
        b->marker_diameter = 2 * sh->radius + 0.0005;
        return 0;
    }
    if (di->kind == BODY_ROD) {
        double L = sh->length, r = sh->radius, st[4];
        rod_stations(s, L, n, st);
        double gap = INFINITY;
        for (int k = 0; k + 1 < n; k++)
            gap = fmin(gap, st[k + 1] - st[k]);
        if (di->look == LOOK_BAND) {
            b->marker_style = SYNTH_MARKER_BAND;
            d = clampd(d, 0.003, 0.3 * gap);
        } else if (di->look == LOOK_BEAD) { /* a bead threaded on the rod: wider than it */
            b->marker_style = SYNTH_MARKER_SPHERE;
            d = clampd(d, 2.6 * r, 0.45 * gap);
        } else if (di->look == LOOK_POST) {
            b->marker_style = SYNTH_MARKER_POST;
            d = clampd(d, 0.004, fmin(0.04, 0.45 * gap));
        } else {
            b->marker_style = SYNTH_MARKER_STICKER;
            d = clampd(d, 0.002, fmin(2.2 * r, 0.45 * gap));
        }
        if (d > 0.45 * gap && di->look != LOOK_BAND)
            return -1;
        double a0 = U(s, 0, 2 * M_PI);
        di->standoff = U(s, 0.01, 0.04);
        for (int k = 0; k < n; k++) {
            icv_vec3 ax = icv_v3(0, st[k], 0);
            /* posts in different directions round the rod (the spin shows); stickers
             * on one side, within +-35 degrees */
            double a = di->look == LOOK_POST ? a0 + 2 * M_PI * k / n + U(s, -0.4, 0.4) : a0 + U(s, -0.6, 0.6);
            if (sc->planar) /* in the motion plane (posts) or facing the camera (stickers) */
                a = di->look == LOOK_POST ? (k & 1 ? M_PI : 0) + U(s, -0.2, 0.2) : M_PI / 2 + U(s, -0.5, 0.5);
            icv_vec3 nr = icv_v3(cos(a), 0, sin(a));
            if (di->look == LOOK_BAND || di->look == LOOK_BEAD)
                b->markers[k] = ax;
            else if (di->look == LOOK_POST)
                b->markers[k] = icv_v3_axpy(r + di->standoff + d / 2, nr, ax);
            else
                b->markers[k] = icv_v3_axpy(r, nr, ax);
            b->marker_normals[k] = nr;
        }
        b->post_length = r + di->standoff + d / 2;
    } else {
        icv_vec3 h = icv_v3_scale(sh->size, 0.5);
        b->marker_style = di->look == LOOK_POST ? SYNTH_MARKER_POST : SYNTH_MARKER_STICKER;
        double face = fmin(sh->size.x, sh->size.y); /* the +z face's smaller side */
        d = di->look == LOOK_POST ? clampd(d, 0.004, 0.04) : clampd(d, 0.002, 0.7 * face);
        di->standoff = U(s, 0.008, 0.03);
        int ok = 0;
        for (int tries = 0; tries < 20 && !ok; tries++) {
            for (int k = 0; k < n; k++) {
                /* on the +z face (the side facing the cameras), the last marker of a
                 * stereo bar on a side face (+x or -x) */
                /* planar posts stand off the +-x faces, in the motion plane */
                int side = sc->planar ? di->look == LOOK_POST : k == n - 1 && chance(s, 0.5);
                icv_vec3 nrm = side ? icv_v3(sc->planar ? (k & 1 ? 1 : -1) : chance(s, 0.5) ? 1 : -1, 0, 0)
                                    : icv_v3(0, 0, 1);
                double mx = fmax(h.x - d / 2 - 0.001, 0), my = fmax(h.y - d / 2 - 0.001, 0),
                       mz = fmax(h.z - d / 2 - 0.0005, 0);
                icv_vec3 p = side ? icv_v3(nrm.x * h.x, U(s, -my, my), sc->planar ? 0 : U(s, -mz, mz))
                                  : icv_v3(U(s, -mx, mx), U(s, -my, my), h.z);
                if (di->look == LOOK_POST)
                    p = icv_v3_axpy(di->standoff + d / 2, nrm, p);
                b->markers[k] = p;
                b->marker_normals[k] = nrm;
            }
            ok = !collinear(b->markers, n);
            for (int i = 0; i < n && ok; i++)
                for (int j = 0; j < i && ok; j++)
                    ok = icv_v3_norm(icv_v3_sub(b->markers[i], b->markers[j])) > 2.5 * d;
        }
        if (!ok)
            return -1;
        b->post_length = di->standoff + d / 2 + 0.005;
    }
    b->marker_diameter = d;
    b->post_radius = fmin(fmax(0.1 * d, 0.0008), 0.3 * d);
    return 0;
}

/* reflectances: most bodies dark with bright markers; some light with dark markers;
 * some with coloured markers, drawn as their luma (the renderer is gray) */
static void draw_colours(uint64_t *s, synth_scenario *sc, draw_info *di)
{
    synth_body *b = &sc->body;
    double u = synth_uniform(s);
    if (di->look == LOOK_RETRO) {
        b->body_gray = U(s, 0.02, 0.3);
        b->marker_gray = U(s, 1.2, 2.5); /* retro-reflective: brighter than white, saturates */
        di->colour = "bright";
    } else if (di->look == LOOK_BALL) {
        b->body_gray = 0.5;
        b->marker_gray = U(s, 0.5, 0.95);
        di->colour = "bright";
        if (u > 0.8) {
            b->marker_gray = U(s, 0.03, 0.12);
            di->colour = "dark";
        }
    } else if (u < 0.7) {
        b->body_gray = U(s, 0.02, 0.15);
        b->marker_gray = U(s, 0.6, 1.0);
        di->colour = "bright";
    } else if (u < 0.85) {
        b->body_gray = U(s, 0.5, 0.9);
        b->marker_gray = U(s, 0.02, 0.1);
        di->colour = "dark";
    } else {
        static const double rgb[][3] = {{0.9, 0.1, 0.1}, {0.1, 0.8, 0.1}, {0.1, 0.2, 0.9},
                                        {0.95, 0.85, 0.1}, {0.95, 0.45, 0.05}, {0.8, 0.1, 0.8}};
        static const char *const names[] = {"red", "green", "blue", "yellow", "orange", "magenta"};
        int c = pick(s, 6);
        b->body_gray = U(s, 0.02, 0.15);
        b->marker_gray = 0.299 * rgb[c][0] + 0.587 * rgb[c][1] + 0.114 * rgb[c][2];
        di->colour = names[c];
    }
}

/* ---- the motion ------------------------------------------------------------ */

static const double FPS[] = {30, 60, 120, 240, 500, 1000, 2000, 3000, 6000};

static void frame_size(uint64_t *s, double fps, int *w, int *h)
{
    static const int lo[][2] = {{640, 480}, {800, 600}, {960, 540}}; /* small: 200 scenes in minutes */
    static const int mid[][2] = {{640, 480}, {800, 600}};
    static const int hi[][2] = {{512, 418}, {640, 480}, {384, 288}};
    const int *p = fps < 300 ? lo[pick(s, 3)] : fps < 1000 ? mid[pick(s, 2)] : hi[pick(s, 3)];
    *w = p[0];
    *h = p[1];
}

/* the gap (m) of the shape's lowest point at state st */
static double gap_of(const synth_scenario *sc, const synth_state *st)
{
    icv_vec3 cb;
    return synth_contact_gap(&sc->body.shape, &st->R, st->p, &cb);
}

/* ---- cameras --------------------------------------------------------------- */

/* Points that must be in view (surface frame): the body's bounding sphere along the
 * clip, the surface board (3D) or the motion-plane board (planar). */
typedef struct {
    icv_vec3 p[400];
    double rad[400];
    int n;
} view_pts;

static void add_pt(view_pts *v, icv_vec3 p, double rad)
{
    if (v->n < 400) {
        v->p[v->n] = p;
        v->rad[v->n++] = rad;
    }
}

/* fx such that every point lies within `fill` of the half-image, or -1 */
static double fit_fx(const synth_camera_model *m, const view_pts *v, double fill)
{
    double ax = 0, ay = 0;
    for (int i = 0; i < v->n; i++) {
        icv_vec3 c = icv_v3_add(icv_m3_apply(m->R, v->p[i]), m->t);
        if (c.z <= v->rad[i] + 0.05)
            return -1;
        ax = fmax(ax, (fabs(c.x) + v->rad[i]) / c.z);
        ay = fmax(ay, (fabs(c.y) + v->rad[i]) / c.z);
    }
    double fx = fmin(fill * (m->width / 2.0) / fmax(ax, 1e-9), fill * (m->height / 2.0) / fmax(ay, 1e-9));
    return fx;
}

/* calibration views whose inner corners every camera sees (the careful user's set,
 * synth_board_views_careful: all of them, or none when the cameras share too little) */
static int board_views_seen(const synth_scenario *sc)
{
    synth_board_pose poses[100];
    return synth_board_views_careful(sc, poses);
}

/* The narrowest the squares of the surface board (3D) or the motion-plane board
 * (planar) appear in camera ci (px across: the smaller singular value of a
 * square's two projected sides), or 0 when a corner does not project. */
static double board_square_across(const synth_scenario *sc, int ci)
{
    const synth_board_opts *b = &sc->board;
    synth_board_pose p = sc->planar ? synth_board_in_motion_plane(sc) : synth_board_on_surface();
    const synth_camera_model *m = &sc->cameras[ci].model;
    double least = INFINITY;
    for (int r = 0; r + 1 < b->rows; r++)
        for (int k = 0; k + 1 < b->cols; k++) {
            double o[2], a[2], d[2];
            icv_vec3 xo = icv_v3_add(icv_m3_apply(p.R, icv_v3(k * b->square, r * b->square, 0)), p.t);
            icv_vec3 xa = icv_v3_add(icv_m3_apply(p.R, icv_v3((k + 1) * b->square, r * b->square, 0)), p.t);
            icv_vec3 xd = icv_v3_add(icv_m3_apply(p.R, icv_v3(k * b->square, (r + 1) * b->square, 0)), p.t);
            if (synth_camera_project(m, xo, o) || synth_camera_project(m, xa, a) || synth_camera_project(m, xd, d))
                return 0;
            double ax = a[0] - o[0], ay = a[1] - o[1], dx = d[0] - o[0], dy = d[1] - o[1];
            double A = ax * ax + ay * ay, B = dx * dx + dy * dy, C = ax * dx + ay * dy;
            double half = 0.5 * (A + B), det = A * B - C * C;
            least = fmin(least, sqrt(fmax(half - sqrt(fmax(half * half - det, 0)), 0)));
        }
    return least;
}

/* Whether the reference cylinder hides any part of the board (surface board, or the
 * motion-plane board) from camera ci: the line of sight to points every half square
 * over the board and its white margin, checked against the cylinder widened by half a
 * square. */
static int cylinder_hides_board(const synth_scenario *sc, int ci)
{
    const synth_render_opts *o = &sc->render;
    const synth_board_opts *b = &sc->board;
    if (!o->reference_object)
        return 0;
    synth_board_pose p = sc->planar ? synth_board_in_motion_plane(sc) : synth_board_on_surface();
    icv_vec3 C = synth_camera_center(&sc->cameras[ci].model), q = o->reference_position;
    double R = o->reference_radius + 0.5 * b->square, h = o->reference_height, step = 0.5 * b->square;
    for (double y = -2 * b->square; y <= (b->rows + 1) * b->square + 1e-9; y += step)
        for (double x = -2 * b->square; x <= (b->cols + 1) * b->square + 1e-9; x += step) {
            icv_vec3 X = icv_v3_add(icv_m3_apply(p.R, icv_v3(x, y, 0)), p.t), d = icv_v3_sub(X, C);
            /* |(C + s d - q)_xz|^2 = R^2 for s in (0, 1): the ray's span inside the
             * cylinder's circle, then whether it is below the cylinder's top there */
            double ex = C.x - q.x, ez = C.z - q.z;
            double A = d.x * d.x + d.z * d.z, B = 2 * (ex * d.x + ez * d.z), Cc = ex * ex + ez * ez - R * R;
            double disc = B * B - 4 * A * Cc;
            if (A < 1e-12 || disc < 0)
                continue;
            double s0 = fmax((-B - sqrt(disc)) / (2 * A), 0), s1 = fmin((-B + sqrt(disc)) / (2 * A), 1);
            if (s0 >= s1)
                continue;
            /* the ray's height (surface y) is linear in s: its lowest point in [s0, s1] */
            double ylow = fmin(C.y + s0 * d.y, C.y + s1 * d.y), yhigh = fmax(C.y + s0 * d.y, C.y + s1 * d.y);
            if (ylow <= q.y + h && yhigh >= q.y)
                return 1;
        }
    return 0;
}

/* ---- one draw ---------------------------------------------------------------- */

typedef struct {
    double frac_seen;  /* of camera-frame-marker triples */
    double near_frac;  /* frames beside the impacts with every marker but one seen */
} vis_stats;

static void visibility(const synth_scenario *sc, const synth_flight *f, vis_stats *vs)
{
    long seen = 0, total = 0, near_ok = 0, near = 0;
    int nm = sc->body.n_markers, need = nm >= 3 ? nm - 1 : nm;
    for (int ci = 0; ci < sc->n_cameras; ci++) {
        synth_renderer r;
        memset(&r, 0, sizeof r);
        synth_render_geometry_init(&r, sc, ci);
        const synth_camera *c = &sc->cameras[ci];
        for (int n = 0; n < c->n_frames; n++) {
            synth_state st;
            double t = synth_camera_frame_time(c, n);
            synth_flight_state_at(f, t, &st);
            int k_seen = 0;
            for (int k = 0; k < nm; k++) {
                double uv[2];
                k_seen += synth_marker_visible(&r, &st, k, uv);
            }
            seen += k_seen;
            total += nm;
            int close = 0;
            for (int i = 0; i < synth_flight_n_impacts(f); i++)
                close |= fabs(t - synth_flight_impact(f, i)->time_s) * c->fps < 4;
            if (close) {
                near++;
                near_ok += k_seen >= need;
            }
        }
    }
    vs->frac_seen = total ? (double)seen / total : 0;
    vs->near_frac = near ? (double)near_ok / near : 1;
}

/* what one draw carries from stage to stage */
typedef struct {
    draw_info di;
    int planar, keep, W, H, n_pre, n_frames;
    double fps, slope, spin, t_rel, T, off2, zoom, px_per_m, blur, read_levels;
    icv_vec3 centre;
    view_pts vp;
    double fxs[ICV_MAX_CAMERAS];
    synth_flight *f; /* the clip's flight, from draw_cameras on */
} draw_ctx;

/* the surface, the collision law, the frame rate and the motion up to the first impact:
 * released (2 frames before the clip starts) so that the lowest point meets the surface
 * after n_pre frames, at normal speed vn */
static void draw_release(uint64_t *s, const synth_random_opts *o, synth_scenario *sc, draw_ctx *dc)
{
    /* the surface: level, or a slope down +x */
    dc->slope = chance(s, 0.35) ? U(s, 0.1, 0.8) : 0;
    sc->gravity = icv_v3(G0 * sin(dc->slope), -G0 * cos(dc->slope), 0);
    sc->restitution = (icv_restitution)pick(s, 3);
    sc->mu_s = sc->mu_k = U(s, 0.1, 0.6);
    sc->e_n = U(s, 0.3, 0.85);
    dc->keep = sc->max_impacts = chance(s, 0.7) ? 1 : 2;

    dc->fps = FPS[pick(s, (int)(sizeof FPS / sizeof FPS[0]))];
    frame_size(s, dc->fps, &dc->W, &dc->H);
    double fps = dc->fps;

    /* a side's flight as filmed: 10-40 frames, and at least 15-60 ms (a high-speed clip
     * is trimmed round the impact, not to a few milliseconds), at most a third of the clip */
    int n_pre = o->min_side_frames + pick(s, 31 - o->min_side_frames > 1 ? 31 - o->min_side_frames : 1);
    dc->n_pre = (int)fmin(fmax(n_pre, ceil(U(s, 0.015, 0.06) * fps)), o->max_frames / 3);
    dc->t_rel = -2 / fps;
    dc->T = (dc->n_pre + 2 + U(s, 0, 1)) / fps;
    double T = dc->T, vn = U(s, 0.7, 3.0), vt = U(s, -1.0, 1.0), vz = dc->planar ? 0 : U(s, -0.5, 0.5);
    icv_vec3 g = sc->gravity;
    icv_vec3 v0 = icv_v3(vt - g.x * T, -vn - g.y * T, vz);
    icv_vec3 pimp = icv_v3(U(s, -0.03, 0.15), dc->di.extent, dc->planar ? 0 : U(s, -0.03, 0.12));
    sc->release_time_s = dc->t_rel;
    sc->release.v = v0;
    sc->release.p = icv_v3_sub(pimp, icv_v3_add(icv_v3_scale(v0, T), icv_v3_scale(g, 0.5 * T * T)));
    dc->spin = chance(s, 0.5) ? U(s, 0, 5) : U(s, 0, 60);
    if (dc->planar) {
        sc->release.R = icv_rot_z(U(s, -M_PI, M_PI));
        sc->release.omega = icv_v3(0, 0, chance(s, 0.5) ? dc->spin : -dc->spin);
    } else {
        /* the markers' face (body +z) towards the cameras' side (+z), turned and tilted */
        icv_vec3 e = icv_v3(U(s, -0.7, 0.7), U(s, -0.9, 0.9), U(s, -1.3, 1.3));
        sc->release.R = icv_euler213_to_matrix(e);
        sc->release.omega = icv_v3_scale(unit_random(s), dc->spin);
    }
}

/* move the release down or up so that the lowest point is on the surface at T
 * (flying through it: max_impacts 0); the first contact may come earlier */
static int settle_on_surface(synth_scenario *sc, const draw_ctx *dc, char *why, size_t nwhy)
{
    synth_flight *f = NULL;
    icv_err e2;
    sc->max_impacts = 0;
    sc->n_cameras = 1; /* validate-free: the flight needs no cameras */
    if (synth_flight_run(sc, dc->t_rel + dc->T + 1e-3, &f, &e2))
        return snprintf(why, nwhy, "flight: %s", e2.msg), -1;
    synth_state st;
    synth_flight_state_at(f, dc->t_rel + dc->T, &st);
    sc->release.p.y -= gap_of(sc, &st);
    synth_flight_free(f);
    sc->max_impacts = dc->keep;
    return 0;
}

/* the impacts: max_impacts of them within max_frames, and the next contact (which the
 * clip must end before: the body would pass through the surface); the clip's length */
static int draw_clip_length(uint64_t *s, const synth_random_opts *o, synth_scenario *sc, draw_ctx *dc, char *why,
                            size_t nwhy)
{
    int keep = dc->keep;
    double fps = dc->fps, t_cap = dc->t_rel + (o->max_frames + 2) / fps;
    synth_flight *f = NULL;
    icv_err e2;
    sc->max_impacts = keep + 1;
    if (synth_flight_impacts_run(sc, t_cap, &f, &e2))
        return snprintf(why, nwhy, "flight: %s", e2.msg), -1;
    int ni = synth_flight_n_impacts(f);
    double t_imp[SYNTH_MAX_IMPACTS + 1], v_jump[SYNTH_MAX_IMPACTS + 1];
    for (int i = 0; i < ni; i++) {
        const synth_impact *im = synth_flight_impact(f, i);
        t_imp[i] = im->time_s;
        v_jump[i] = icv_v3_norm(icv_v3_sub(im->post.v, im->pre.v));
    }
    int frozen = synth_flight_note(f)[0] != 0;
    synth_flight_free(f);
    sc->max_impacts = keep;
    if (ni < keep)
        return snprintf(why, nwhy, "%d of %d impacts within %d frames", ni, keep, o->max_frames), -1;
    if (frozen && ni <= keep)
        return snprintf(why, nwhy, "resting contact after the last impact"), -1;
    for (int i = 0; i < keep; i++)
        if (v_jump[i] < 0.2)
            return snprintf(why, nwhy, "impact %d too gentle (dv %.3f m/s)", i + 1, v_jump[i]), -1;
    double first = t_imp[0] * fps;
    if (first < o->min_side_frames)
        return snprintf(why, nwhy, "first impact after %.1f frames", first), -1;
    for (int i = 1; i < keep; i++)
        if ((t_imp[i] - t_imp[i - 1]) * fps < o->min_side_frames)
            return snprintf(why, nwhy, "impacts %.1f frames apart", (t_imp[i] - t_imp[i - 1]) * fps), -1;
    int n_post = o->min_side_frames + pick(s, 31 - o->min_side_frames > 1 ? 31 - o->min_side_frames : 1);
    n_post = (int)fmin(fmax(n_post, ceil(U(s, 0.015, 0.06) * fps)), o->max_frames / 3);
    double t_last = t_imp[keep - 1];
    int n_frames = (int)ceil(t_last * fps) + n_post;
    double t_stop = ni > keep ? t_imp[keep] : t_cap;
    dc->off2 = dc->planar ? 0 : U(s, -1.5, 1.5);
    /* the last frame of every camera (mid-exposure + half an exposure) before t_stop */
    while (n_frames > 0 && (n_frames - 1 + fmax(dc->off2, 0) + 1) / fps >= t_stop)
        n_frames--;
    if (n_frames > o->max_frames)
        n_frames = o->max_frames;
    if (n_frames - t_last * fps < o->min_side_frames + 1)
        return snprintf(why, nwhy, "%.1f frames after the last impact", n_frames - t_last * fps), -1;
    dc->n_frames = n_frames;
    return 0;
}

/* the board's size and the cameras' places: a stereo rig's second camera at a like
 * distance and height (both see the boards held up in front of them) */
static int place_cameras(uint64_t *s, synth_scenario *sc, draw_ctx *dc, char *why, size_t nwhy)
{
    icv_err e2;
    double fps = dc->fps;
    synth_state st;
    sc->n_cameras = dc->planar ? 1 : 2;
    sc->max_impacts = dc->keep;
    if (synth_flight_run(sc, (dc->n_frames + 3) / fps, &dc->f, &e2))
        return snprintf(why, nwhy, "flight: %s", e2.msg), -1;
    icv_vec3 lo = icv_v3(INFINITY, INFINITY, INFINITY), hi = icv_v3(-INFINITY, -INFINITY, -INFINITY);
    dc->vp.n = 0;
    for (int n = -2; n <= dc->n_frames + 1; n += (dc->n_frames > 200 ? 2 : 1)) {
        synth_flight_state_at(dc->f, n / fps, &st);
        add_pt(&dc->vp, st.p, dc->di.extent + 0.045); /* posts stand up to 4.5 cm off */
        lo = icv_v3(fmin(lo.x, st.p.x), fmin(lo.y, st.p.y), fmin(lo.z, st.p.z));
        hi = icv_v3(fmax(hi.x, st.p.x), fmax(hi.y, st.p.y), fmax(hi.z, st.p.z));
    }
    dc->centre = icv_v3_scale(icv_v3_add(lo, hi), 0.5);
    synth_board_opts *bo = &sc->board;
    static const int boards[][2] = {{9, 6}, {7, 5}, {8, 6}};
    int bsel = pick(s, 3);
    bo->cols = boards[bsel][0];
    bo->rows = boards[bsel][1];
    bo->square = U(s, 0.012, 0.03);
    /* every view whole: OpenCV spends 2-3 s searching a view for a board that is not */
    bo->n_views = dc->W * dc->H <= 640 * 480 ? 6 : 8;
    bo->partial_every = 0;
    double az0 = U(s, -0.5, 0.5), daz = U(s, 0.35, 1.6);
    dc->zoom = U(s, 0.6, 0.9);
    double D0 = U(s, 0.5, 2.0), el0 = U(s, 10, 60) * M_PI / 180;
    for (int ci = 0; ci < sc->n_cameras; ci++) {
        synth_camera *c = &sc->cameras[ci];
        int W = dc->W, H = dc->H;
        snprintf(c->id, sizeof c->id, dc->planar ? "cam" : ci ? "right" : "left");
        c->model.width = W;
        c->model.height = H;
        c->model.cx = (W - 1) / 2.0 + U(s, -0.02, 0.02) * W;
        c->model.cy = (H - 1) / 2.0 + U(s, -0.02, 0.02) * H;
        c->model.dist[0] = U(s, -0.15, 0.02);
        c->model.dist[1] = U(s, 0, 0.08);
        c->fps = fps;
        c->n_frames = dc->n_frames;
        c->start_offset_frames = ci ? dc->off2 : 0;
        double D = ci ? clampd(D0 * U(s, 0.8, 1.25), 0.5, 2.0) : D0;
        double el = ci ? clampd(el0 + U(s, -0.25, 0.25), 10 * M_PI / 180, 60 * M_PI / 180) : el0;
        double az = dc->planar ? U(s, -0.35, 0.35) : az0 + (ci ? 0.5 : -0.5) * daz;
        icv_vec3 eye = icv_v3_add(dc->centre, icv_v3_scale(icv_v3(sin(az) * cos(el), sin(el), cos(az) * cos(el)), D));
        if (eye.y < 0.05)
            return snprintf(why, nwhy, "camera %d below the surface", ci), -1;
        if (synth_camera_look_at(&c->model, eye, dc->centre, icv_v3_unit(icv_v3_scale(sc->gravity, -1)), &e2))
            return snprintf(why, nwhy, "camera: %s", e2.msg), -1;
    }
    return 0;
}

/* fx: the motion and the boards in view; the board's squares at least 16 px where it
 * lies on the surface (calib's detector measures the edges' sharpness, which OpenCV
 * cannot on smaller boards), and at least 6 px across where the board is foreshortened
 * (seen from low down, or turned away): the careful user takes a board whose squares
 * they can see in the surface image */
static int frame_cameras(synth_scenario *sc, draw_ctx *dc, char *why, size_t nwhy)
{
    synth_board_opts *bo = &sc->board;
    int framed = 0;
    for (int it = 0; it < 6 && !framed; it++) {
        view_pts v2 = dc->vp;
        double sq = bo->square, wb = (bo->cols + 1) * sq, hb = (bo->rows + 1) * sq;
        if (dc->planar) {
            double x0 = -(bo->cols - 1) * sq / 2 - sq - 0.005;
            for (int k = 0; k < 4; k++)
                add_pt(&v2, icv_v3(x0 + (k & 1) * (wb + 0.01), (k & 2) ? hb + 0.03 : 0, 0), 0);
        } else {
            for (int k = 0; k < 4; k++)
                add_pt(&v2, icv_v3(-sq + (k & 1) * wb, 0, -sq + (k & 2 ? hb : 0)), 0.01);
        }
        double need = 0;
        for (int ci = 0; ci < sc->n_cameras; ci++) {
            synth_camera_model *m = &sc->cameras[ci].model;
            double fx = fit_fx(m, &v2, 0.9) * dc->zoom;
            if (!(fx > 100 && fx < 20000))
                return snprintf(why, nwhy, "camera %d cannot frame the scene", ci), -1;
            m->fx = m->fy = fx;
            dc->fxs[ci] = fx;
            double dist = icv_v3_norm(icv_v3_sub(synth_camera_center(m), dc->centre));
            need = fmax(need, 16 * dist / fx);
        }
        bo->margin = bo->square; /* the motion-plane board stands on its margin */
        for (int ci = 0; ci < sc->n_cameras; ci++) {
            double across = board_square_across(sc, ci);
            if (!(across > 0))
                return snprintf(why, nwhy, "camera %d: the board is not in view", ci), -1;
            need = fmax(need, bo->square * MIN_ACROSS_PX / across);
        }
        framed = bo->square >= need;
        if (!framed)
            bo->square = 1.05 * need;
    }
    if (!framed)
        return snprintf(why, nwhy, "the board cannot be both in view and large enough"), -1;
    /* the lens model must be invertible over the whole image (the renderer's rays) */
    for (int ci = 0; ci < sc->n_cameras; ci++) {
        const synth_camera_model *m = &sc->cameras[ci].model;
        int W = dc->W, H = dc->H;
        for (int k = 0; k < 8; k++) {
            double u = k == 0 || k == 3 || k == 5 ? -0.5 : k == 1 || k == 6 ? (W - 1) / 2.0 : W - 0.5;
            double v = k < 3 ? -0.5 : k < 5 ? (H - 1) / 2.0 : H - 0.5, xn[2];
            if (synth_camera_undistort(m, u, v, xn))
                return snprintf(why, nwhy, "camera %d: the distortion is not invertible", ci), -1;
        }
    }
    bo->margin = bo->square;
    if (board_views_seen(sc) < 5)
        return snprintf(why, nwhy, "fewer than 5 calibration views seen whole"), -1;
    double dist0 = icv_v3_norm(icv_v3_sub(synth_camera_center(&sc->cameras[0].model), dc->centre));
    dc->px_per_m = dc->fxs[0] / dist0;
    return 0;
}

/* the exposure from the drawn blur (px) at the fastest image speed; the sensor, the
 * light, the flash that syncs the cameras, the codec */
static int draw_sensor(uint64_t *s, synth_scenario *sc, draw_ctx *dc, char *why, size_t nwhy)
{
    double fps = dc->fps, vmax = 0;
    synth_state st;
    for (int n = 0; n < dc->n_frames; n++) {
        synth_flight_state_at(dc->f, n / fps, &st);
        vmax = fmax(vmax, icv_v3_norm(st.v) + icv_v3_norm(st.omega) * dc->di.extent);
    }
    double blur = U(s, 0, 20), speed_px = vmax * dc->px_per_m;
    double expo = clampd(blur / fmax(speed_px, 1e-9), 2e-6, 0.95 / fps);
    dc->blur = expo * speed_px;
    synth_render_opts *r = &sc->render;
    for (int ci = 0; ci < sc->n_cameras; ci++)
        sc->cameras[ci].exposure_s = expo;
    r->blur_subframes = (int)clampd(ceil(dc->blur / 2.5), 1, 10);
    r->full_well_e = U(s, 8000, 30000);
    dc->read_levels = U(s, 1, 8);
    r->read_noise_e = dc->read_levels * r->full_well_e / 255;
    r->vignetting = U(s, 0, 0.4);
    if (chance(s, 0.35)) {
        r->flicker_hz = chance(s, 0.5) ? 100 : 120;
        r->flicker_depth = U(s, 0.02, 0.2);
        r->flicker_phase = U(s, 0, 2 * M_PI);
    }
    if (!dc->planar || chance(s, 0.3)) {
        r->flash_time_s = (fmax(dc->off2, 0) + U(s, 1, 3)) / fps;
        r->flash_duration_s = U(s, 0.3, 1.5) / fps;
        r->flash_gain = U(s, 0.4, 0.9);
        if (!dc->planar && chance(s, 0.25))
            r->flash_duration_s = 0; /* no flash: synth writes the true offsets */
    } else {
        r->flash_duration_s = 0;
    }
    /* the careful user sees the flash in every camera's clip: a flash shorter than
     * the gap between two short exposures can fall between them (6000 fps, 30 us
     * exposures, a 0.5-frame flash) */
    for (int ci = 0; ci < sc->n_cameras && r->flash_duration_s > 0; ci++) {
        const synth_camera *c = &sc->cameras[ci];
        double best = 0, e = c->exposure_s;
        for (int n = 0; n < c->n_frames; n++) {
            double tm = synth_camera_frame_time(c, n);
            double a = fmax(tm - e / 2, r->flash_time_s), b = fmin(tm + e / 2, r->flash_time_s + r->flash_duration_s);
            best = fmax(best, b > a ? (b - a) / r->flash_duration_s : 0);
        }
        if (best < MIN_FLASH_SEEN)
            return snprintf(why, nwhy, "camera %d sees at most %.0f%% of the flash in a frame", ci, 100 * best), -1;
    }
    sc->crf = 14 + pick(s, 17);
    return 0;
}

/* the scene: background and plate from near-black to near-white, plain or textured,
 * a reference cylinder, glints, the board left in view */
static int draw_scenery(uint64_t *s, synth_scenario *sc, const draw_ctx *dc, char *why, size_t nwhy)
{
    synth_render_opts *r = &sc->render;
    icv_vec3 centre = dc->centre;
    r->background_gray = logU(s, 0.02, 0.85);
    r->plate_gray = logU(s, 0.03, 0.9);
    r->texture = chance(s, 0.5) ? 0 : U(s, 0.3, 1.0);
    r->plate_size[0] = U(s, 0.5, 1.2);
    r->plate_size[1] = U(s, 0.4, 1.0);
    if (chance(s, 0.25)) {
        r->reference_object = 1;
        r->reference_position = icv_v3(centre.x + (chance(s, 0.5) ? 1 : -1) * U(s, 0.12, 0.3), 0,
                                       dc->planar ? -U(s, 0.1, 0.3) : centre.z + U(s, -0.25, 0.25));
        r->reference_radius = U(s, 0.01, 0.03);
        r->reference_height = U(s, 0.05, 0.15);
    }
    if (chance(s, 0.35)) {
        r->n_glints = 1 + pick(s, 6);
        for (int k = 0; k < r->n_glints; k++) {
            r->glints[k][0] = centre.x + U(s, -0.3, 0.3);
            r->glints[k][1] = centre.z + U(s, -0.3, 0.3);
            r->glints[k][2] = U(s, 0.0005, 0.003);
            r->glints[k][3] = U(s, 1.0, 3.0);
        }
    }
    /* the careful user leaves the board in the open for its image */
    for (int ci = 0; ci < sc->n_cameras; ci++)
        if (cylinder_hides_board(sc, ci))
            return snprintf(why, nwhy, "the cylinder hides the board from camera %d", ci), -1;
    r->board_in_view = !dc->planar && chance(s, 0.2);
    sc->experiment_gravity_given = (dc->n_frames - 2) / dc->fps < 0.12; /* |g| unmeasurable from a shorter flight */
    return 0;
}

static void describe(synth_scenario *sc, const draw_ctx *dc)
{
    const synth_render_opts *r = &sc->render;
    double px = sc->body.marker_diameter * dc->px_per_m;
    snprintf(sc->random_desc, sizeof sc->random_desc,
             "%s, %d %s %s markers %.1f px, %s, slope %.0f deg, %d impact%s, %.0f fps %dx%d, %d frames, "
             "blur %.1f px, spin %.0f rad/s, read noise %.1f, crf %d%s%s%s%s%s",
             body_names[dc->di.kind], sc->body.n_markers, dc->di.colour, look_names[dc->di.look], px,
             dc->planar ? "one camera (planar)" : "two cameras", dc->slope * 180 / M_PI, dc->keep,
             dc->keep > 1 ? "s" : "", dc->fps, dc->W, dc->H, dc->n_frames, dc->blur, dc->spin, dc->read_levels,
             sc->crf, r->flicker_depth > 0 ? ", flicker" : "", r->reference_object ? ", cylinder" : "",
             r->n_glints ? ", glints" : "", r->board_in_view ? ", board" : "",
             sc->experiment_gravity_given ? ", g given" : "");
}

/* the stages after the flight is known; dc->f is the caller's to free */
static int draw_scene_around(uint64_t *s, synth_scenario *sc, draw_ctx *dc, char *why, size_t nwhy)
{
    if (place_cameras(s, sc, dc, why, nwhy) || frame_cameras(sc, dc, why, nwhy))
        return -1;
    if (draw_markers(s, sc, &dc->di, dc->px_per_m))
        return snprintf(why, nwhy, "markers do not fit the body"), -1;
    draw_colours(s, sc, &dc->di);
    if (draw_sensor(s, sc, dc, why, nwhy) || draw_scenery(s, sc, dc, why, nwhy))
        return -1;
    /* markers mostly seen, and beside the impacts all but one */
    vis_stats vs;
    visibility(sc, dc->f, &vs);
    if (vs.frac_seen < 0.75 || vs.near_frac < 0.7)
        return snprintf(why, nwhy, "markers seen %.0f%%, beside the impacts %.0f%%", 100 * vs.frac_seen,
                        100 * vs.near_frac),
               -1;
    describe(sc, dc);
    return 0;
}

static int draw_once(uint64_t *s, unsigned long seed, const synth_random_opts *o, synth_scenario *sc, char *why,
                     size_t nwhy)
{
    synth_scenario_defaults(sc);
    snprintf(sc->name, sizeof sc->name, "random_%lu", seed);
    sc->seed = seed;
    draw_ctx dc = {0};
    dc.planar = o->cameras ? o->cameras == 1 : chance(s, 0.35);
    sc->planar = dc.planar;
    sc->n_cameras = dc.planar ? 1 : 2;
    draw_body(s, dc.planar, sc, &dc.di);
    sc->body.n_markers = 1; /* set by draw_markers once the scale is known */
    draw_release(s, o, sc, &dc);
    if (settle_on_surface(sc, &dc, why, nwhy) || draw_clip_length(s, o, sc, &dc, why, nwhy))
        return -1;
    int rc = draw_scene_around(s, sc, &dc, why, nwhy);
    synth_flight_free(dc.f);
    return rc;
}

int synth_scenario_random(unsigned long seed, const synth_random_opts *o, synth_scenario *sc, icv_err *err)
{
    synth_random_opts d = {0, 10, 600};
    if (o) {
        d.cameras = o->cameras;
        if (o->min_side_frames > 0)
            d.min_side_frames = o->min_side_frames;
        if (o->max_frames > 0)
            d.max_frames = o->max_frames;
    }
    if (d.cameras < 0 || d.cameras > 2 || d.min_side_frames < 4 || d.max_frames < 3 * d.min_side_frames)
        return icv_err_set(err, ICV_EINVAL, "random scene: need cameras 0..2, min_side_frames >= 4, max_frames >= "
                                            "3 min_side_frames");
    char why[256] = "";
    for (int a = 0; a < ATTEMPTS; a++) {
        uint64_t s = synth_stream(seed, 0x5CE11E, (uint64_t)a);
        if (draw_once(&s, seed, &d, sc, why, sizeof why) == 0) {
            sc->random = 1;
            sc->random_seed = seed;
            sc->path[0] = 0;
            icv_err e2;
            if (synth_scenario_validate(sc, &e2))
                return icv_err_set(err, ICV_EINVAL, "random scene %lu: %s", seed, e2.msg);
            return 0;
        }
    }
    return icv_err_set(err, ICV_EINVAL, "random scene %lu: no valid scene in %d draws (the last: %s)", seed, ATTEMPTS,
                       why);
}
