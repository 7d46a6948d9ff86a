/* test_body_pendulum.c: a ball on a string (ANALYSIS_MOTION_PENDULUM, bodies_pendulum.c)
 * against the pendulum's energy: released from rest at 25 degrees on l = 0.129 m
 * (Wang's cradle), it passes the bottom at sqrt(2 g l (1 - cos 25 deg)) = 0.4863 m/s,
 * exactly, whatever the swing's period. Filmed at 30 fps (its centre integrated here
 * with RK4 at 1 us steps), the side before the bottom fitted at the instant it passes
 * it. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <string.h>

#include "analysis/bodies.h"
#include "tests/harness.h"

#define PEN_L 0.129
#define PEN_G 9.81
#define PEN_FPS 30.0
#define PEN_FRAMES 5
#define PEN_ANGLE (25 * M_PI / 180)

/* the angle and rate carried dt from (th, w), fine RK4 */
static void swing(double *th, double *w, double dt)
{
    int n = (int)ceil(dt / 1e-6);
    double h = dt / n, k = PEN_G / PEN_L;
    for (int i = 0; i < n; i++) {
        double a1 = *w, b1 = -k * sin(*th), a2 = *w + 0.5 * h * b1, b2 = -k * sin(*th + 0.5 * h * a1);
        double a3 = *w + 0.5 * h * b2, b3 = -k * sin(*th + 0.5 * h * a2), a4 = *w + h * b3, b4 = -k * sin(*th + h * a3);
        *th += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
        *w += h / 6 * (b1 + 2 * b2 + 2 * b3 + b4);
    }
}

/* the side's fit at the bottom passage; *t_bottom its time; noise m per coordinate */
static int fit_side(int motion, double noise, analysis_body_state *st, double *t_bottom, icv_err *err)
{
    static analysis_body b;
    memset(&b, 0, sizeof b);
    b.mass = 0.0438;
    b.inertia = icv_m3_diag(2.1e-6, 2.1e-6, 2.1e-6);
    b.shape.type = ICV_SHAPE_SPHERE;
    b.shape.radius = 0.011;
    icv_vec3 mk = icv_v3(0, 0, 0);
    if (analysis_template_init(&b.tmpl, &mk, 1, err))
        return -1;
    analysis_tracks tr;
    if (analysis_tracks_alloc(&tr, PEN_FRAMES, 1, 0, err))
        return -1;
    icv_vec3 pivot = icv_v3(0.02, 0.179, 0);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    double th = -PEN_ANGLE, w = 0;
    for (int i = 0; i < PEN_FRAMES; i++) {
        if (i)
            swing(&th, &w, 1 / PEN_FPS);
        tr.frame[i] = i;
        tr.t[i] = i / PEN_FPS;
        tr.pos[i] = icv_v3(pivot.x + PEN_L * sin(th) + gsl_ran_gaussian(rng, noise),
                           pivot.y - PEN_L * cos(th) + gsl_ran_gaussian(rng, noise), gsl_ran_gaussian(rng, noise));
        tr.seen[i] = 1;
    }
    gsl_rng_free(rng);
    /* the bottom: theta crosses 0 after the last frame (a quarter period, 0.18 s) */
    double t = (PEN_FRAMES - 1) / PEN_FPS, step = 1e-4;
    while (th < 0) {
        double th1 = th, w1 = w;
        swing(&th1, &w1, step);
        if (th1 >= 0) {
            step *= 0.5;
            if (step < 1e-9)
                break;
            continue;
        }
        th = th1, w = w1, t += step;
    }
    *t_bottom = t;
    analysis_body_track bt = {&b, &tr, "ball", motion, PEN_L, 0};
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = noise > 0 ? noise : 1e-5;
    icv_vec3 g = icv_v3(0, -PEN_G, 0);
    int rc = analysis_body_side_fit(&bt, 0, PEN_FRAMES - 1, t, &g, &prm, st, err);
    analysis_tracks_free(&tr);
    return rc;
}

TEST(test_body_pendulum_a_swing_fitted_passes_the_bottom_at_the_energys_speed)
{
    double v_true = sqrt(2 * PEN_G * PEN_L * (1 - cos(PEN_ANGLE))), tb;
    analysis_body_state st, poly;
    icv_err err = {0};
    ASSERT(fit_side(ANALYSIS_MOTION_PENDULUM, 0, &st, &tb, &err) == 0, "%s", err.msg);
    ASSERT(fit_side(ANALYSIS_MOTION_POLY, 0, &poly, &tb, &err) == 0, "%s", err.msg);
    printf("    bottom at t %.5f s: pendulum v (%.5f, %.5f) m/s, a quadratic %.5f, energy's %.5f m/s\n", tb, st.v.x,
           st.v.y, poly.v.x, v_true);
    /* noise-free: the model is the motion, its integration's error far below 1e-4 */
    ASSERT_NEAR(st.v.x, v_true, 1e-4 * v_true);
    ASSERT_NEAR(st.v.y, 0, 1e-4 * v_true);
    ASSERT_NEAR(st.p.x, 0.02, 1e-6); /* the bottom, under the pivot */
    /* what a constant acceleration gives over the same 5 frames: percent off */
    ASSERT(fabs(poly.v.x - v_true) > 0.02 * v_true, "a quadratic %.5f, the truth %.5f", poly.v.x, v_true);
}

TEST(test_body_pendulum_sigmas_cover_the_error_over_noise_draws)
{
    /* 0.1 mm noise: the error over its sigma is of order 1, never 5 */
    double v_true = sqrt(2 * PEN_G * PEN_L * (1 - cos(PEN_ANGLE))), tb;
    analysis_body_state st;
    icv_err err = {0};
    ASSERT(fit_side(ANALYSIS_MOTION_PENDULUM, 1e-4, &st, &tb, &err) == 0, "%s", err.msg);
    double pull = (st.v.x - v_true) / st.v_sd.x;
    printf("    0.1 mm noise: v %.5f +- %.5f m/s (truth %.5f, pull %.2f)\n", st.v.x, st.v_sd.x, v_true, pull);
    ASSERT(st.v_sd.x > 1e-4 && st.v_sd.x < 0.02, "v's sigma %.5f", st.v_sd.x);
    ASSERT(fabs(pull) < 4, "pull %.2f", pull);
}
