/* two_body_scenario.h: tracks of a known impact between two bodies, built from the
 * analytic motion: each body's centre p* + v tau + a tau^2 / 2 and attitude
 * exp(w tau + alpha tau^2 / 2) R* on each side of t*, the post states from an
 * impulse with Newton ratio e along the common normal and Coulomb friction mu
 * (sliding throughout, checked), markers with Gaussian noise of a stated sigma.
 * Two spheres in free flight (g, torque-free: a sphere's omega is constant), or
 * two pucks on a table (y = 0) decelerating at mu_table g along their velocity
 * and in spin at a constant rate: the POLY model exactly. */
#ifndef ICV_TEST_TWO_BODY_SCENARIO_H
#define ICV_TEST_TWO_BODY_SCENARIO_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <string.h>

#include "analysis/bodies.h"

typedef struct {
    analysis_body body[2];
    icv_vec3 markers[2][4];
    int n_markers;
    int motion;
    double t_star, dt, e, mu, ratio; /* ratio: the truth's |J_t| / J_n */
    icv_vec3 p[2], v_pre[2], w_pre[2], v_post[2], w_post[2], a_pre[2], a_post[2], al_pre[2], al_post[2];
    icv_mat3 R[2];
    icv_vec3 n, c, J; /* common normal (a to b), contact point, impulse on b */
    double reach_a;   /* m: from a's centre to the contact point along n (0: the
                         centres' distance less b's radius) */
    double t_floor[2]; /* s: a sphere's frictionless bounce on the floor after t* (0: none) */
    icv_vec3 p_floor[2], v_floor[2]; /* its centre then and its velocity after */
    int n_frames;
} two_body;

static const icv_vec3 TB_G = {0, -9.81, 0};

/* the impulse and the post states (set p, R, v_pre, w_pre, e, mu, bodies first) */
static inline int two_body_collide(two_body *s)
{
    const analysis_body *A = &s->body[0], *B = &s->body[1];
    s->n = icv_v3_unit(icv_v3_sub(s->p[1], s->p[0]));
    double ra = s->reach_a > 0 ? s->reach_a : icv_v3_norm(icv_v3_sub(s->p[1], s->p[0])) - B->shape.radius;
    s->c = icv_v3_axpy(ra, s->n, s->p[0]);
    icv_vec3 rA = icv_v3_sub(s->c, s->p[0]), rB = icv_v3_sub(s->c, s->p[1]);
    icv_vec3 u = icv_v3_sub(icv_v3_add(s->v_pre[1], icv_v3_cross(s->w_pre[1], rB)),
                            icv_v3_add(s->v_pre[0], icv_v3_cross(s->w_pre[0], rA)));
    double un = icv_v3_dot(u, s->n);
    if (!(un < 0))
        return -1; /* not approaching */
    double inv_m = 1 / A->mass + 1 / B->mass;
    double Jn = -(1 + s->e) * un / inv_m;
    icv_vec3 ut = icv_v3_axpy(-un, s->n, u), slip = icv_v3_norm(ut) > 0 ? icv_v3_unit(ut) : icv_v3(0, 0, 0);
    /* the tangential compliance along the slip: r is along n for both bodies, so
     * the torque of a tangential impulse turns each about n x slip */
    icv_vec3 ax = icv_v3_norm(slip) > 0 ? icv_v3_unit(icv_v3_cross(s->n, slip)) : icv_v3(0, 1, 0);
    icv_mat3 IA = icv_m3_rotate_tensor(s->R[0], A->inertia), IB = icv_m3_rotate_tensor(s->R[1], B->inertia), IAi, IBi;
    icv_m3_inverse(IA, &IAi);
    icv_m3_inverse(IB, &IBi);
    double kt = inv_m + icv_v3_dot(rA, rA) / icv_v3_dot(ax, icv_m3_apply(IA, ax)) +
                icv_v3_dot(rB, rB) / icv_v3_dot(ax, icv_m3_apply(IB, ax));
    double Jt = s->mu * Jn;
    if (Jt > 0 && Jt > icv_v3_norm(ut) / kt)
        return -2; /* would stick: choose a faster slip */
    s->ratio = Jt / Jn;
    s->J = icv_v3_axpy(-Jt, slip, icv_v3_scale(s->n, Jn));
    s->v_post[1] = icv_v3_axpy(1 / B->mass, s->J, s->v_pre[1]);
    s->v_post[0] = icv_v3_axpy(-1 / A->mass, s->J, s->v_pre[0]);
    s->w_post[1] = icv_v3_add(s->w_pre[1], icv_m3_apply(IBi, icv_v3_cross(rB, s->J)));
    s->w_post[0] = icv_v3_sub(s->w_pre[0], icv_m3_apply(IAi, icv_v3_cross(rA, s->J)));
    return 0;
}

static inline void two_body_sphere(analysis_body *b, icv_vec3 *markers, double m, double r)
{
    memset(b, 0, sizeof *b);
    b->mass = m;
    double I = 0.4 * m * r * r;
    b->inertia = icv_m3_diag(I, I, I);
    b->shape.type = ICV_SHAPE_SPHERE;
    b->shape.radius = r;
    markers[0] = icv_v3(r, 0, 0);
    markers[1] = icv_v3(0, r, 0);
    markers[2] = icv_v3(0, 0, r);
    markers[3] = icv_v3_scale(icv_v3(-1, -1, -1), r / sqrt(3));
    icv_err err;
    analysis_template_init(&b->tmpl, markers, 4, &err);
}

/* a puck: a cylinder about y (radius r, height h), three markers on its top face */
static inline void two_body_puck(analysis_body *b, icv_vec3 *markers, double m, double r, double h)
{
    memset(b, 0, sizeof *b);
    b->mass = m;
    double Ix = m * (3 * r * r + h * h) / 12, Iy = 0.5 * m * r * r;
    b->inertia = icv_m3_diag(Ix, Iy, Ix);
    b->shape.type = ICV_SHAPE_CYLINDER;
    b->shape.axis = icv_v3(0, 1, 0);
    b->shape.length = h;
    b->shape.radius = r;
    double q = 0.7 * r;
    markers[0] = icv_v3(q, 0.5 * h, 0);
    markers[1] = icv_v3(-0.5 * q, 0.5 * h, 0.866 * q);
    markers[2] = icv_v3(-0.5 * q, 0.5 * h, -0.866 * q);
    icv_err err;
    analysis_template_init(&b->tmpl, markers, 3, &err);
}

/* Two spheres meeting in flight at t* (fps 500): masses 0.10 and 0.15 kg, radii
 * 20 and 25 mm, spinning, e and mu given. */
static inline int two_body_flight(two_body *s, double e, double mu)
{
    memset(s, 0, sizeof *s);
    s->motion = ANALYSIS_MOTION_FLIGHT;
    s->n_markers = 4;
    two_body_sphere(&s->body[0], s->markers[0], 0.10, 0.020);
    two_body_sphere(&s->body[1], s->markers[1], 0.15, 0.025);
    s->dt = 1.0 / 500;
    s->n_frames = 100;
    s->t_star = 50.37 * s->dt;
    icv_vec3 n = icv_v3_unit(icv_v3(0.8, 0.3, 0.52));
    s->p[0] = icv_v3(0, 0.5, 0);
    s->p[1] = icv_v3_axpy(0.045, n, s->p[0]);
    s->R[0] = icv_euler213_to_matrix(icv_v3(0.3, -0.2, 0.5));
    s->R[1] = icv_euler213_to_matrix(icv_v3(-0.6, 0.4, 1.1));
    s->v_pre[0] = icv_v3(1.5, 0.3, 0.1);
    s->v_pre[1] = icv_v3(-1.0, 0.5, -0.2);
    s->w_pre[0] = icv_v3(3, -5, 8);
    s->w_pre[1] = icv_v3(-4, 2, 6);
    s->e = e;
    s->mu = mu;
    for (int k = 0; k < 2; k++)
        s->a_pre[k] = s->a_post[k] = TB_G;
    return two_body_collide(s);
}

/* Two pucks on a table (fps 240, the carom clips' rate): puck a (0.12 kg, r 30 mm)
 * sliding at 1.2 m/s and spinning into puck b (0.16 kg, r 35 mm) at rest, off
 * centre; each sliding puck decelerates at mu_table g along its velocity and its
 * spin at a constant rate. */
static inline int two_body_table(two_body *s, double e, double mu)
{
    memset(s, 0, sizeof *s);
    s->motion = ANALYSIS_MOTION_POLY;
    s->n_markers = 3;
    two_body_puck(&s->body[0], s->markers[0], 0.12, 0.030, 0.010);
    two_body_puck(&s->body[1], s->markers[1], 0.16, 0.035, 0.010);
    s->dt = 1.0 / 240;
    s->n_frames = 90;
    s->t_star = 45.41 * s->dt;
    double phi = 0.5; /* the line of centres, 29 degrees off a's velocity */
    icv_vec3 n = icv_v3(cos(phi), 0, sin(phi));
    s->p[0] = icv_v3(0, 0.005, 0);
    s->p[1] = icv_v3_axpy(0.065, n, s->p[0]);
    s->R[0] = icv_rot_y(0.3);
    s->R[1] = icv_rot_y(-1.0);
    s->v_pre[0] = icv_v3(1.2, 0, 0);
    s->w_pre[0] = icv_v3(0, 12, 0);
    s->e = e;
    s->mu = mu;
    int rc = two_body_collide(s);
    if (rc)
        return rc;
    const double mu_table = 0.05;
    for (int k = 0; k < 2; k++) {
        icv_vec3 vs[2] = {s->v_pre[k], s->v_post[k]}, ws[2] = {s->w_pre[k], s->w_post[k]}, a[2], al[2];
        for (int q = 0; q < 2; q++) {
            double sp = icv_v3_norm(vs[q]);
            a[q] = sp > 0 ? icv_v3_scale(vs[q], -mu_table * 9.81 / sp) : icv_v3(0, 0, 0);
            al[q] = icv_v3(0, ws[q].y > 0 ? -3.0 : ws[q].y < 0 ? 3.0 : 0, 0); /* rad/s^2 */
        }
        s->a_pre[k] = a[0], s->a_post[k] = a[1], s->al_pre[k] = al[0], s->al_post[k] = al[1];
    }
    return 0;
}

/* Two carts on a track (Tracker's two-carts, 1-D), 120 fps: boxes 150 x 60 x 80 mm
 * of 0.50 and 0.75 kg, three markers on each top, a at 0.6 m/s into b coming back
 * at 0.2 m/s, face to face along x, no friction between them (mu 0), rolling
 * resistance 0.01 g. The gap between boxes is the support search's. */
static inline int two_body_carts(two_body *s, double e)
{
    memset(s, 0, sizeof *s);
    s->motion = ANALYSIS_MOTION_POLY;
    s->n_markers = 3;
    icv_err err;
    for (int k = 0; k < 2; k++) {
        analysis_body *b = &s->body[k];
        double m = k ? 0.75 : 0.50, x = 0.15, y = 0.06, z = 0.08;
        b->mass = m;
        b->inertia = icv_m3_diag(m * (y * y + z * z) / 12, m * (x * x + z * z) / 12, m * (x * x + y * y) / 12);
        b->shape.type = ICV_SHAPE_BOX;
        b->shape.size = icv_v3(x, y, z);
        s->markers[k][0] = icv_v3(0.05, 0.03, 0.02);
        s->markers[k][1] = icv_v3(-0.05, 0.03, 0.02);
        s->markers[k][2] = icv_v3(0, 0.03, -0.03);
        analysis_template_init(&b->tmpl, s->markers[k], 3, &err);
        s->R[k] = icv_m3_identity();
    }
    s->dt = 1.0 / 120;
    s->n_frames = 80;
    s->t_star = 40.6 * s->dt;
    s->p[0] = icv_v3(0, 0.03, 0);
    s->p[1] = icv_v3(0.15, 0.03, 0);
    s->reach_a = 0.075;
    s->v_pre[0] = icv_v3(0.6, 0, 0);
    s->v_pre[1] = icv_v3(-0.2, 0, 0);
    s->e = e;
    s->mu = 0;
    int rc = two_body_collide(s);
    if (rc)
        return rc;
    for (int k = 0; k < 2; k++) {
        icv_vec3 vs[2] = {s->v_pre[k], s->v_post[k]}, a[2];
        for (int q = 0; q < 2; q++) {
            double sp = icv_v3_norm(vs[q]);
            a[q] = sp > 0 ? icv_v3_scale(vs[q], -0.01 * 9.81 / sp) : icv_v3(0, 0, 0);
        }
        s->a_pre[k] = a[0], s->a_post[k] = a[1];
    }
    return 0;
}

/* body k's centre and attitude at time t */
static inline void two_body_pose(const two_body *s, int k, double t, icv_vec3 *p, icv_mat3 *R)
{
    double tau = t - s->t_star;
    int post = tau >= 0;
    icv_vec3 v = post ? s->v_post[k] : s->v_pre[k], w = post ? s->w_post[k] : s->w_pre[k];
    icv_vec3 a = post ? s->a_post[k] : s->a_pre[k], al = post ? s->al_post[k] : s->al_pre[k];
    *p = icv_v3_add(s->p[k], icv_v3_add(icv_v3_scale(v, tau), icv_v3_scale(a, 0.5 * tau * tau)));
    if (s->t_floor[k] > 0 && t >= s->t_floor[k]) {
        double u = t - s->t_floor[k];
        *p = icv_v3_add(s->p_floor[k], icv_v3_add(icv_v3_scale(s->v_floor[k], u), icv_v3_scale(a, 0.5 * u * u)));
    }
    *R = icv_m3_mul(icv_rot_from_axis_angle(icv_v3_axpy(0.5 * tau * tau, al, icv_v3_scale(w, tau))), s->R[k]);
}

/* Sphere k (after t*, in free flight) bounces without friction on the floor y =
 * floor_y with restitution e_floor: its spin and tangential velocity go on, the
 * normal velocity turns by -e_floor. -1 when it does not reach the floor. */
static inline int two_body_floor_bounce(two_body *s, int k, double floor_y, double e_floor)
{
    double r = s->body[k].shape.radius, a = s->a_post[k].y, v = s->v_post[k].y, h = s->p[k].y - r - floor_y;
    double disc = v * v - 2 * a * h; /* h + v tau + a tau^2 / 2 = 0, a < 0 */
    if (!(a < 0) || disc < 0)
        return -1;
    double tau = (-v - sqrt(disc)) / a;
    if (!(tau > 0))
        return -1;
    s->t_floor[k] = s->t_star + tau;
    s->p_floor[k] = icv_v3_add(s->p[k], icv_v3_add(icv_v3_scale(s->v_post[k], tau),
                                                   icv_v3_scale(s->a_post[k], 0.5 * tau * tau)));
    s->v_floor[k] = icv_v3_axpy(tau, s->a_post[k], s->v_post[k]);
    s->v_floor[k].y *= -e_floor;
    return 0;
}

/* both bodies' tracks with noise sigma (m, per coordinate), seeded */
static inline void two_body_tracks(const two_body *s, double sigma, unsigned long seed, analysis_tracks tr[2])
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    icv_err err;
    for (int k = 0; k < 2; k++) {
        analysis_tracks_alloc(&tr[k], s->n_frames, s->n_markers, 0, &err);
        for (int i = 0; i < s->n_frames; i++) {
            tr[k].frame[i] = i;
            tr[k].t[i] = i * s->dt;
            icv_vec3 p;
            icv_mat3 R;
            two_body_pose(s, k, tr[k].t[i], &p, &R);
            for (int m = 0; m < s->n_markers; m++) {
                icv_vec3 x = icv_v3_add(icv_m3_apply(R, s->markers[k][m]), p);
                x = icv_v3_add(x, icv_v3(gsl_ran_gaussian(rng, sigma), gsl_ran_gaussian(rng, sigma),
                                         gsl_ran_gaussian(rng, sigma)));
                tr[k].pos[i * s->n_markers + m] = x;
                tr[k].seen[i * s->n_markers + m] = 1;
            }
        }
    }
    gsl_rng_free(rng);
}

#endif
