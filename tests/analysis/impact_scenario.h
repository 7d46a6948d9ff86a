/* impact_scenario.h: tracks of a known impact for tests and benchmarks (header
 * only, so bench/ can use it without linking the tests). A free flight into the
 * surface, a momentum exchange with a chosen Newton ratio at the contact point and
 * a chosen impulse ratio, a free flight away; markers at 120 fps with Gaussian
 * noise. */
#ifndef ICV_TEST_IMPACT_SCENARIO_H
#define ICV_TEST_IMPACT_SCENARIO_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "track/track.h"

typedef struct {
    analysis_body body;
    icv_vec3 markers[4];
    int n_markers;
    double t_star;
    icv_vec3 p, v_pre, w_pre, v_post, w_post;
    icv_mat3 R;
    double e, ratio;
} scenario;

static const icv_vec3 G = {0, -9.81, 0};

/* Places the body touching the surface at t_star with attitude R and computes the
 * post state from an impulse with Newton ratio e and tangential/normal ratio
 * `ratio` opposing the slip (set R, v_pre, w_pre, e, ratio first). */
static inline void scenario_finish(scenario *s)
{
    analysis_body *b = &s->body;
    icv_vec3 low = icv_shape_lowest_point(&b->shape, s->R, icv_v3(0, 0, 0), icv_v3(0, 1, 0));
    s->p = icv_v3(0.0, -low.y, 0.0);
    icv_vec3 r = icv_v3_sub(icv_shape_lowest_point(&b->shape, s->R, s->p, icv_v3(0, 1, 0)), s->p);
    icv_mat3 Iw = icv_m3_rotate_tensor(s->R, b->inertia), Iinv;
    icv_m3_inverse(Iw, &Iinv);
    icv_vec3 u = icv_v3_add(s->v_pre, icv_v3_cross(s->w_pre, r));
    icv_vec3 slip = icv_v3_unit(icv_v3(u.x, 0, u.z));
    icv_vec3 dir = icv_v3_add(icv_v3(0, 1, 0), icv_v3_scale(slip, -s->ratio)); /* J = Jn dir */
    /* K dir, with K = E/m - [r]x I^-1 [r]x */
    icv_vec3 kd = icv_v3_add(icv_v3_scale(dir, 1 / b->mass),
                             icv_v3_scale(icv_v3_cross(icv_m3_apply(Iinv, icv_v3_cross(r, dir)), r), 1.0));
    double Jn = -(1 + s->e) * u.y / kd.y;
    icv_vec3 J = icv_v3_scale(dir, Jn);
    s->v_post = icv_v3_axpy(1 / b->mass, J, s->v_pre);
    s->w_post = icv_v3_add(s->w_pre, icv_m3_apply(Iinv, icv_v3_cross(r, J)));
}

/* A body touching the surface at t_star with the given pre-state, and the post
 * state from an impulse with Newton ratio e and tangential/normal ratio `ratio`
 * opposing the slip. */
static inline void make_scenario(scenario *s, int rod)
{
    memset(s, 0, sizeof *s);
    icv_err err;
    analysis_body *b = &s->body;
    if (rod) { /* the contract's rod */
        b->mass = 0.169;
        b->inertia = icv_m3_diag(1.312e-3, 7.7e-6, 1.312e-3); /* I_axial = m r^2 / 2 (solver.md: 3.8e-9 is an erratum) */
        b->shape.type = ICV_SHAPE_CAPSULE;
        b->shape.axis = icv_v3(0, 1, 0);
        b->shape.length = 0.3048;
        b->shape.radius = 0.009525;
        s->n_markers = 3;
        s->markers[0] = icv_v3(0, 0.127, 0);
        s->markers[1] = icv_v3(0, 0, 0);
        s->markers[2] = icv_v3(0, -0.127, 0);
        s->R = icv_euler213_to_matrix(icv_v3(0.2, 0.1, 0.25)); /* 15 deg from vertical */
        s->w_pre = icv_v3(0.5, 0.0, -4.0);
    } else { /* a 200 x 40 x 60 mm box of 0.5 kg with 4 markers on it */
        double m = 0.5, a = 0.2, bb = 0.04, c = 0.06;
        b->mass = m;
        b->inertia = icv_m3_diag(m / 12 * (bb * bb + c * c), m / 12 * (a * a + c * c), m / 12 * (a * a + bb * bb));
        b->shape.type = ICV_SHAPE_BOX;
        b->shape.size = icv_v3(a, bb, c);
        s->n_markers = 4;
        s->markers[0] = icv_v3(0.09, 0.02, 0.02);
        s->markers[1] = icv_v3(-0.09, 0.02, -0.02);
        s->markers[2] = icv_v3(0.0, 0.02, 0.03);
        s->markers[3] = icv_v3(0.05, -0.02, 0.0);
        /* long axis (body x) 16 deg from vertical: a drop onto one end */
        s->R = icv_euler213_to_matrix(icv_v3(0.3, 0.2, M_PI / 2 - 0.2));
        s->w_pre = icv_v3(3.0, -2.0, 5.0);
    }
    analysis_template_init(&b->tmpl, s->markers, s->n_markers, &err);
    s->t_star = 0.25 + 0.37 / 120; /* 0.37 of a frame after frame 30 */
    s->v_pre = icv_v3(0.5, -2.2, 0.15);
    s->e = 0.55;
    s->ratio = 0.25;
    scenario_finish(s);
}

/* the scenario's true loss fraction, 1 - post/pre kinetic energy (J/J) */
static inline double scenario_loss_fraction(const scenario *s)
{
    icv_mat3 Iw = icv_m3_rotate_tensor(s->R, s->body.inertia);
    double m = s->body.mass;
    double pre = 0.5 * m * icv_v3_dot(s->v_pre, s->v_pre) + 0.5 * icv_v3_dot(s->w_pre, icv_m3_apply(Iw, s->w_pre));
    double post = 0.5 * m * icv_v3_dot(s->v_post, s->v_post) + 0.5 * icv_v3_dot(s->w_post, icv_m3_apply(Iw, s->w_post));
    return 1 - post / pre;
}

/* markers from t0 to t1 at fps frames per second, noise sigma (m) */
static inline void sample_at(const scenario *s, double t0, double t1, double fps, double sigma, unsigned long seed,
                             analysis_tracks *tr)
{
    int n = (int)((t1 - t0) * fps) + 1;
    icv_err err;
    analysis_tracks_alloc(tr, n, s->n_markers, 0, &err);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    for (int i = 0; i < n; i++) {
        double t = t0 + i / fps, tau = t - s->t_star;
        icv_vec3 v0 = tau < 0 ? s->v_pre : s->v_post, w0 = tau < 0 ? s->w_pre : s->w_post, w;
        icv_vec3 p = icv_v3_add(icv_v3_add(s->p, icv_v3_scale(v0, tau)), icv_v3_scale(G, 0.5 * tau * tau));
        icv_mat3 R;
        icv_rigid_rotate(s->R, w0, s->body.inertia, tau, &R, &w);
        tr->frame[i] = i;
        tr->t[i] = t;
        for (int k = 0; k < s->n_markers; k++) {
            icv_vec3 x = icv_v3_add(icv_m3_apply(R, s->markers[k]), p);
            tr->pos[i * s->n_markers + k] = icv_v3_add(
                x, icv_v3(gsl_ran_gaussian(rng, sigma), gsl_ran_gaussian(rng, sigma), gsl_ran_gaussian(rng, sigma)));
            tr->seen[i * s->n_markers + k] = 1;
        }
    }
    gsl_rng_free(rng);
}

/* markers at 120 fps from 0 to t_end, noise sigma (m) */
static inline void sample(const scenario *s, double t_end, double sigma, unsigned long seed, analysis_tracks *tr)
{
    sample_at(s, 0, t_end, 120.0, sigma, seed, tr);
}

/* The scenario's one impact measured on tr with g given and the tracks' sigma
 * pos_sigma (m; tr is freed): each side's v error over its sigma, pull[side][axis].
 * 0, or -1 with the reason in err (not one impact, or the analysis' own). */
static inline int measure_v_pulls_at(const scenario *s, analysis_tracks *tr, double pos_sigma, double pull[2][3],
                                     icv_err *err)
{
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = pos_sigma;
    analysis_result res;
    int rc = analysis_impacts_measure(tr, &s->body, &G, &prm, &res, err);
    analysis_tracks_free(tr);
    if (rc || res.n_impacts != 1) {
        if (!rc)
            snprintf(err->msg, sizeof err->msg, "%d impacts, not 1", res.n_impacts);
        return -1;
    }
    const analysis_impact *im = &res.impacts[0];
    icv_vec3 e[2] = {icv_v3_sub(im->pre.v, s->v_pre), icv_v3_sub(im->post.v, s->v_post)};
    icv_vec3 sd[2] = {im->pre.v_sd, im->post.v_sd};
    for (int side = 0; side < 2; side++)
        for (int a = 0; a < 3; a++)
            pull[side][a] = icv_v3_get(e[side], a) / icv_v3_get(sd[side], a);
    return 0;
}

/* measure_v_pulls_at with the tracks' sigma 0.06 mm */
static inline int measure_v_pulls(const scenario *s, analysis_tracks *tr, double pull[2][3], icv_err *err)
{
    return measure_v_pulls_at(s, tr, 6e-5, pull, err);
}

/* Writes tracks as the contract's tracks3d.csv with track's own writer; positions
 * multiplied by scale (a wrong calibration scale) and times by time_scale (a wrong
 * frame rate). */
static inline int write_tracks3d(const analysis_tracks *tr, const char *path, double scale, double time_scale)
{
    int n = tr->n_frames, nm = tr->n_markers;
    long *frame = malloc(sizeof *frame * (size_t)n);
    double *t = malloc(sizeof *t * (size_t)n), *xyz = malloc(sizeof *xyz * (size_t)n * (size_t)nm * 3);
    int rc = -1;
    if (frame && t && xyz) {
        for (int i = 0; i < n; i++) {
            frame[i] = tr->frame[i];
            t[i] = tr->t[i] * time_scale;
            for (int k = 0; k < nm; k++) {
                icv_vec3 p = icv_v3_scale(tr->pos[i * nm + k], scale);
                double *x = &xyz[(i * nm + k) * 3];
                x[0] = tr->seen[i * nm + k] ? p.x : NAN;
                x[1] = p.y;
                x[2] = p.z;
            }
        }
        icv_err err;
        rc = track_tracks3d_write(path, nm, (size_t)n, frame, t, xyz, &err);
    }
    free(frame);
    free(t);
    free(xyz);
    return rc;
}

/* The box scenario with attitude and velocity varied by `variant` and the post
 * state solved by the solver's exact model (Stronge, mu, e_n): four variants
 * share mu and e_n for the joint fit. Returns 0, or the solver's error. */
static inline int make_scenario_model(scenario *s, int variant, double mu, double e_n)
{
    make_scenario(s, 0);
    analysis_body *b = &s->body;
    double a = 0.15 * variant;
    s->R = icv_euler213_to_matrix(icv_v3(0.3 + a, 0.2 - 0.5 * a, M_PI / 2 - 0.2 + 0.3 * a));
    s->v_pre = icv_v3(1.6 - 0.2 * variant, -2.0 + 0.1 * variant, 0.4 + 0.2 * variant); /* sliding through */
    s->w_pre = icv_v3(3.0 - variant, -2.0, 5.0 - 2 * variant);
    icv_vec3 low = icv_shape_lowest_point(&b->shape, s->R, icv_v3(0, 0, 0), icv_v3(0, 1, 0));
    s->p = icv_v3(0.0, -low.y, 0.0);
    impact_case c;
    impact_case_init(&c);
    c.mass = b->mass;
    c.inertia = b->inertia;
    c.R = s->R;
    c.r = icv_v3_sub(icv_shape_lowest_point(&b->shape, s->R, s->p, icv_v3(0, 1, 0)), s->p);
    c.v = s->v_pre;
    c.omega = s->w_pre;
    c.mu_s = c.mu_k = mu;
    c.e_n = e_n;
    c.law = ICV_RESTITUTION_STRONGE;
    c.method = IMPACT_EXACT;
    impact_result r;
    icv_err err;
    int rc = impact_solve(&c, &r, &err);
    if (rc)
        return rc;
    s->v_post = r.v;
    s->w_post = r.omega;
    s->e = -r.contact_velocity.y / r.contact_velocity_pre.y;
    s->ratio = hypot(r.impulse.x, r.impulse.z) / r.impulse.y;
    return 0;
}

#endif
