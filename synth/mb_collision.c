/* mb_collision.c: two spheres thrown at each other, colliding in flight. Between
 * impacts each centre is a parabola (integrated exactly by the ODE) and each ball
 * turns at constant omega (a sphere's inertia is isotropic: exact); the impact is
 * synth_mb_two_body_impulse at the line of centres. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "synth/mb_internal.h"
#include "synth/synth_internal.h"

/* y: per body p (3), v (3) */
static void init(mb_motion *m, double *y)
{
    for (int i = 0; i < m->nb; i++) {
        const synth_state *r = &m->sc->releases[i];
        icv_v3_to_array(r->p, y + 6 * i);
        icv_v3_to_array(r->v, y + 6 * i + 3);
        m->pending[i] = *r;
    }
}

static void rhs(const mb_motion *m, const double *y, double *dy)
{
    for (int i = 0; i < m->nb; i++) {
        memcpy(dy + 6 * i, y + 6 * i + 3, 3 * sizeof(double));
        /* pucks on the table: its reaction balances gravity (a frictionless, air table) */
        icv_v3_to_array(m->sc->mb_kind == SYNTH_MB_TABLE ? icv_v3(0, 0, 0) : m->sc->gravity, dy + 6 * i + 3);
    }
}

static void states(const mb_motion *m, const mb_seg *sg, double t, const double *y, synth_state *s)
{
    for (int i = 0; i < m->nb; i++) {
        s[i].p = icv_v3_from_array(y + 6 * i);
        s[i].v = icv_v3_from_array(y + 6 * i + 3);
        s[i].omega = sg->s0[i].omega;
        s[i].R = icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(sg->s0[i].omega, t - sg->t0)), sg->s0[i].R);
    }
}

static int gaps(const mb_motion *m, const double *y, double *g)
{
    icv_vec3 d = icv_v3_sub(icv_v3_from_array(y + 6), icv_v3_from_array(y));
    g[0] = icv_v3_norm(d) - m->sc->bodies[0].shape.radius - m->sc->bodies[1].shape.radius;
    return 1;
}

static int impact(mb_motion *m, int j, double t, double *y, icv_err *err)
{
    (void)j;
    const synth_scenario *sc = m->sc;
    synth_state pre[ICV_MAX_BODIES], post[ICV_MAX_BODIES];
    states(m, &m->seg[m->n_seg - 1], t, y, pre);
    memcpy(post, pre, sizeof post);
    icv_vec3 n = icv_v3_unit(icv_v3_sub(pre[1].p, pre[0].p));
    icv_vec3 c = icv_v3_axpy(sc->bodies[0].shape.radius, n, pre[0].p), P;
    int rc = synth_mb_two_body_impulse(&sc->bodies[0], &sc->bodies[1], &pre[0], &pre[1], c, n, sc->mb_e, sc->mb_mu,
                                       &post[0], &post[1], &P);
    if (rc >= 0) {
        synth_mb_impact *im = mb_record(m);
        if (!im)
            return icv_err_set(err, ICV_EINVAL, "synth: %s: too many impacts", sc->name);
        im->time_s = t;
        im->a = 0;
        im->b = 1;
        memcpy(im->pre, pre, sizeof im->pre);
        memcpy(im->post, post, sizeof im->post);
        im->contact_point = c;
        im->normal = n;
        im->impulse = P;
        im->e = sc->mb_e;
        im->mu = sc->mb_mu;
        snprintf(im->case_name, sizeof im->case_name, "%s", rc ? "stick" : "slide");
    }
    for (int i = 0; i < m->nb; i++) {
        icv_v3_to_array(post[i].v, y + 6 * i + 3);
        m->pending[i] = post[i];
    }
    return 0;
}

const mb_kind mb_kind_collision = {12, init, rhs, states, gaps, impact};

static double U(uint64_t *s, double a, double b) { return a + (b - a) * synth_uniform(s); }

static void ball(synth_body *b, double mass, double radius, const icv_vec3 *dirs, int n)
{
    memset(b, 0, sizeof *b);
    b->mass = mass;
    double I = 0.4 * mass * radius * radius;
    b->inertia = icv_m3_diag(I, I, I);
    b->shape.type = ICV_SHAPE_SPHERE;
    b->shape.radius = radius;
    b->n_markers = n;
    b->marker_diameter = 0.008;
    for (int k = 0; k < n; k++) { /* beads sitting on the surface, as motion-capture markers
                                     do (a bead half sunk in the ball shows only its outer half:
                                     its centroid lies ~1.5 mm out, unlike its template point) */
        b->markers[k] = icv_v3_scale(icv_v3_unit(dirs[k]), radius + 0.5 * b->marker_diameter);
        b->marker_normals[k] = icv_v3_unit(dirs[k]);
    }
    b->marker_style = SYNTH_MARKER_SPHERE;
    b->body_gray = 0.06;
    b->marker_gray = 0.92;
    b->post_length = 0.02;
    b->post_radius = 0.0015;
}

void mb_collision_scene(uint64_t *rng, int draw, synth_scenario *sc)
{
    /* the lab's set-up: beads over the whole ball, ball a eight, b seven (the templates
       differ by their count), spread evenly (a jittered Fibonacci lattice) so that some
       face the cameras at any attitude of a spinning ball; 23 mm or more apart at the
       smallest radii, no two merging in the image */
    static const icv_vec3 la[8] = {{0.64, 0.14, 0.76},  {-0.6, 0.54, 0.59},  {0.12, -0.92, 0.38},
                                   {0.62, 0.79, 0.02},  {-0.98, -0.2, -0.06}, {0.88, -0.34, -0.34},
                                   {-0.21, 0.65, -0.73}, {-0.33, -0.4, -0.85}};
    static const icv_vec3 lb[7] = {{0.4, 0.1, 0.91},    {-0.65, 0.53, 0.54}, {0.14, -0.97, 0.18},
                                   {0.46, 0.89, -0.02}, {-0.89, -0.33, -0.31}, {0.74, -0.51, -0.43},
                                   {-0.01, 0.34, -0.94}};
    /* the first (sparse) set-up, kept as the harder case: ball a three beads, b four, on
       the half facing the cameras, every distance between two beads unlike the others by
       more than the track stage's tolerance (3 mm + 3%) at the drawn radii (three beads
       at x, y, z on a ball form an equilateral triangle, which distances cannot label) */
    static const icv_vec3 da[3] = {{-0.94, -0.07, 0.33}, {0.83, 0.03, 0.55}, {0.13, 0.74, 0.66}};
    static const icv_vec3 db[4] = {{-0.34, 0.43, 0.84}, {0.32, 0.82, 0.48}, {-0.94, -0.24, 0.22}, {0.82, 0.53, 0.21}};
    double ma = 0.2, mb = 0.12, ra = 0.03, rb = 0.025, va = 2.0, vb = 1.5, oy = 0.02, oz = 0.01;
    icv_vec3 wa = icv_v3(0, 0, 10), wb = icv_v3(5, 0, 0);
    sc->mb_e = 0.8;
    sc->mb_mu = 0.2;
    if (draw > 0) {
        ma = 0.2 * U(rng, 0.5, 2.0);
        mb = 0.12 * U(rng, 0.5, 2.0);
        ra = U(rng, 0.022, 0.035);
        rb = U(rng, 0.02, 0.03);
        va = U(rng, 1.0, 3.0);
        vb = U(rng, 0.5, 2.5);
        oy = U(rng, -0.6, 0.6) * (ra + rb);
        oz = U(rng, -0.4, 0.4) * (ra + rb);
        wa = icv_v3(U(rng, -20, 20), U(rng, -20, 20), U(rng, -20, 20));
        wb = icv_v3(U(rng, -20, 20), U(rng, -20, 20), U(rng, -20, 20));
        sc->mb_e = U(rng, 0.5, 0.95);
        sc->mb_mu = U(rng, 0.0, 0.5);
    }
    sc->n_bodies = 2;
    ball(&sc->bodies[0], ma, ra, sc->mb_sparse ? da : la, sc->mb_sparse ? 3 : 8);
    ball(&sc->bodies[1], mb, rb, sc->mb_sparse ? db : lb, sc->mb_sparse ? 4 : 7);
    snprintf(sc->body_names[0], ICV_ID_MAX, "ball_a");
    snprintf(sc->body_names[1], ICV_ID_MAX, "ball_b");
    /* they meet T after release (at most 70 ms, or 0.15 m away), 0.25 m above the
       plate, both with the same 0.3 m/s up (gravity does not change their relative
       motion); the clip ends 40 ms after */
    double T = fmin(0.07, 0.15 / fmax(va, vb));
    for (int i = 0; i < 2; i++) {
        synth_state *r = &sc->releases[i];
        r->R = icv_m3_identity();
        double v = i ? -vb : va;
        r->v = icv_v3(v, 0.3, 0);
        r->p = icv_v3(-v * T, 0.25 + (i ? oy : 0), i ? oz : 0);
        r->omega = i ? wb : wa;
    }
    sc->n_cameras = 2;
    double fps = 500;
    int frames = (int)((T + 0.04) * fps);
    mb_camera(sc, 0, "left", 640, 480, 700, fps, 0.5 / fps, frames, icv_v3(-0.3, 0.45, 0.9), icv_v3(0, 0.15, 0));
    mb_camera(sc, 1, "right", 640, 480, 700, fps, 0.5 / fps, frames, icv_v3(0.3, 0.45, 0.9), icv_v3(0, 0.15, 0));
    /* the sync flash a frame after the clip's start (the detector compares frames) */
    sc->render.flash_time_s = 2.0 / fps;
    sc->render.flash_duration_s = 1.0 / fps;
}

/* pucks (upright cylinders, radius r, height h) sliding on the plate (frictionless: an
 * air table), thrown at each other; the contact is at mid-height, so the impulse is
 * horizontal and each puck keeps spinning about its axis (a principal axis: exact) */
static void puck(synth_body *b, double mass, double radius, double height, const double (*xz)[2], int n)
{
    memset(b, 0, sizeof *b);
    b->mass = mass;
    double Ia = 0.5 * mass * radius * radius, It = mass * (3 * radius * radius + height * height) / 12;
    b->inertia = icv_m3_diag(It, Ia, It);
    b->shape.type = ICV_SHAPE_CYLINDER;
    b->shape.axis = icv_v3(0, 1, 0);
    b->shape.length = height;
    b->shape.radius = radius;
    b->n_markers = n;
    for (int k = 0; k < n; k++) { /* white dots on the top face */
        b->markers[k] = icv_v3(xz[k][0] * radius, height / 2, xz[k][1] * radius);
        b->marker_normals[k] = icv_v3(0, 1, 0);
    }
    b->marker_diameter = 0.008;
    b->marker_style = SYNTH_MARKER_STICKER;
    b->body_gray = 0.06;
    b->marker_gray = 0.92;
    b->post_length = 0.02;
    b->post_radius = 0.0015;
}

void mb_table_scene(uint64_t *rng, int draw, synth_scenario *sc)
{
    /* a: three dots, b: four (the templates differ by their count); fractions of r; no
       two distances alike (a template the identity can label, as the balls') */
    static const double da[3][2] = {{-0.73, -0.06}, {0.72, 0.19}, {0.33, -0.62}};
    static const double db[4][2] = {{0.51, 0.5}, {0.14, -0.55}, {0.12, 0.23}, {-0.5, -0.45}};
    double ma = 0.17, mb = 0.17, ra = 0.03, rb = 0.03, h = 0.012, va = 1.2, vb = 0.0, off = 0.02, wa = 0, wb = 0;
    sc->mb_e = 0.9;
    sc->mb_mu = 0.15;
    if (draw > 0) {
        ma = 0.17 * U(rng, 0.5, 2.0);
        mb = 0.17 * U(rng, 0.5, 2.0);
        ra = U(rng, 0.02, 0.035);
        rb = U(rng, 0.02, 0.035);
        va = U(rng, 0.5, 2.0);
        vb = U(rng, -0.3 * va, 1.0); /* b may run ahead of a, slower */
        off = U(rng, -0.7, 0.7) * (ra + rb);
        wa = U(rng, -15, 15);
        wb = U(rng, -15, 15);
        sc->mb_e = U(rng, 0.5, 0.95);
        sc->mb_mu = U(rng, 0.0, 0.4);
    }
    sc->n_bodies = 2;
    puck(&sc->bodies[0], ma, ra, h, da, 3);
    puck(&sc->bodies[1], mb, rb, h, db, 4);
    snprintf(sc->body_names[0], ICV_ID_MAX, "puck_a");
    snprintf(sc->body_names[1], ICV_ID_MAX, "puck_b");
    /* they meet T after release near the origin: the lab's clip 42 frames before the
       impact and 42 after (the analysis fits up to 40 frames a side, and v's sigma falls
       as frames^-1.5), a wider lens keeping the pucks in view over it; the sparse set-up
       at most 0.15 s or 0.15 m before (15-36 frames) and 0.12 s after */
    double fps = 240, T = sc->mb_sparse ? fmin(0.15, 0.15 / fmax(va, fabs(vb))) : 42 / fps;
    double after = sc->mb_sparse ? 0.12 : 42 / fps, fx = sc->mb_sparse ? 700 : 520;
    for (int i = 0; i < 2; i++) {
        synth_state *r = &sc->releases[i];
        r->R = icv_m3_identity();
        double v = i ? -vb : va;
        r->v = icv_v3(v, 0, 0);
        r->p = icv_v3(-v * T + (i ? 0.5 * (ra + rb) + 0.002 : 0), h / 2, i ? off : 0);
        r->omega = icv_v3(0, i ? wb : wa, 0);
    }
    sc->n_cameras = 2;
    int frames = (int)((T + after) * fps);
    mb_camera(sc, 0, "left", 640, 480, fx, fps, 0.5 / fps, frames, icv_v3(-0.25, 0.55, 0.45), icv_v3(0, 0, 0));
    mb_camera(sc, 1, "right", 640, 480, fx, fps, 0.5 / fps, frames, icv_v3(0.25, 0.55, 0.45), icv_v3(0, 0, 0));
    /* the sync flash a frame after the clip's start (the detector compares frames) */
    sc->render.flash_time_s = 2.0 / fps;
    sc->render.flash_duration_s = 1.0 / fps;
}
