/* ball_bounce.h: a one-camera ball's tracks at any frame rate (issue #19 item 3):
 * thrown, bouncing once on y = 0 with Newton ratio e and no friction, in the motion
 * plane (z = 0), sampled from a random phase so that the bounce falls anywhere
 * between two frames, with Gaussian noise. Header only (tests and the seeds sweep). */
#ifndef TESTS_ANALYSIS_BALL_BOUNCE_H
#define TESTS_ANALYSIS_BALL_BOUNCE_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include "analysis/analysis.h"

typedef struct {
    double r, e, t_imp;     /* m, -, s */
    icv_vec3 v_launch;      /* m/s at t = 0 (the clip's first frame) */
    icv_vec3 v_pre, v_post; /* m/s at the impact */
    double fps, sigma;      /* frames/s, m per coordinate */
} ball_bounce;

/* The ball's centre at t (s) */
static inline icv_vec3 ball_bounce_at(const ball_bounce *s, double t)
{
    const double g = 9.81, y0 = 0.35;
    if (t < s->t_imp)
        return icv_v3(s->v_launch.x * t, y0 + s->v_launch.y * t - 0.5 * g * t * t, 0);
    double tau = t - s->t_imp;
    return icv_v3(s->v_launch.x * t, s->r + s->v_post.y * tau - 0.5 * g * tau * tau, 0);
}

/* A ball's centre at t (s) along a path with its state */
typedef icv_vec3 (*ball_path)(const void *state, double t);

/* n frames of a one-marker track from t0 at fps along path `at`, each coordinate in
 * the motion plane with Gaussian noise sigma from rng (z 0), moved up by y_off */
static inline void ball_tracks_sample(const void *state, ball_path at, double t0, double fps, int n, double sigma,
                                      double y_off, gsl_rng *rng, analysis_tracks *tr)
{
    icv_err err;
    analysis_tracks_alloc(tr, n, 1, 0, &err);
    for (int i = 0; i < n; i++) {
        double t = t0 + i / fps;
        icv_vec3 p = at(state, t);
        tr->frame[i] = i;
        tr->t[i] = t;
        tr->pos[i] = icv_v3(p.x + gsl_ran_gaussian(rng, sigma), p.y + y_off + gsl_ran_gaussian(rng, sigma), 0);
        tr->seen[i] = 1;
    }
}

/* A ball of radius r (m), 2.7 g, its one marker at its centre */
static inline void ball_body(analysis_body *b, double r)
{
    icv_err err;
    const icv_vec3 mk = {0, 0, 0};
    *b = (analysis_body){0};
    b->mass = 0.0027;
    b->inertia = icv_m3_diag(7.2e-7, 7.2e-7, 7.2e-7);
    b->shape.type = ICV_SHAPE_SPHERE;
    b->shape.radius = r;
    analysis_template_init(&b->tmpl, &mk, 1, &err);
}

static inline icv_vec3 ball_bounce_path(const void *s, double t)
{
    return ball_bounce_at((const ball_bounce *)s, t);
}

/* Draws a bounce for seed (speed 1-3 m/s, up to 60 degrees up or down, e 0.5-0.9),
 * and samples it at fps from a random phase until the ball is back at half its
 * bounce height (one bounce in the clip) with noise sigma; line_off (m) moves the
 * tracks up off the surface (a surface line drawn that much below the true one). */
static inline void ball_bounce_make(ball_bounce *s, double fps, double sigma, unsigned long seed, double line_off,
                                    analysis_tracks *tr, analysis_body *b)
{
    const double g = 9.81, y0 = 0.35;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    s->r = 0.02;
    s->fps = fps;
    s->sigma = sigma;
    double speed = 1 + 2 * gsl_rng_uniform(rng), ang = (-60 + 120 * gsl_rng_uniform(rng)) * M_PI / 180;
    s->v_launch = icv_v3(speed * cos(ang), speed * sin(ang), 0);
    s->e = 0.5 + 0.4 * gsl_rng_uniform(rng);
    double a = 0.5 * g, bb = -s->v_launch.y, c = -(y0 - s->r);
    s->t_imp = (-bb + sqrt(bb * bb - 4 * a * c)) / (2 * a);
    s->v_pre = icv_v3(s->v_launch.x, s->v_launch.y - g * s->t_imp, 0);
    s->v_post = icv_v3(s->v_pre.x, -s->e * s->v_pre.y, 0);
    double t_end = s->t_imp + 1.7 * s->v_post.y / g; /* falling again, below its apex */
    /* at least 8 frames before the bounce: a clip starting later is the short-flight case */
    double phase = fmin(0, s->t_imp - 8 / fps) + gsl_rng_uniform(rng) / fps;
    int n = (int)((t_end - phase) * fps) + 1;
    ball_tracks_sample(s, ball_bounce_path, phase, fps, n, sigma, line_off, rng, tr);
    gsl_rng_free(rng);
    ball_body(b, s->r);
}

#endif
