/* test_contact.c: flight is only flight (issue #19 item 4): a ball that bounces
 * once, lands again and slides to rest on the surface. The sliding and resting
 * frames are contact: not in gravity's fit nor a side's window, each stretch
 * reported; the clean bounce is measured and the landing into the slide is said to
 * be left out. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "tests/analysis/ball_bounce.h"
#include "tests/harness.h"

/* 120 fps, 0.3 mm noise: thrown from (0, 0.35) m at (1.0, 0.5) m/s, bouncing at
 * t1 with e 0.6 (no friction), landing at t2 with e 0 and sliding with friction
 * mu = 0.3 until it stops at t3, then resting; the clip runs 0.25 s beyond t3. */
typedef struct {
    double t1, t2, t3, e, vy_pre, vy_post;
    int f2, f3, n;
} slide_clip;

static void slide_tracks(unsigned long seed, slide_clip *c, analysis_tracks *tr, analysis_body *b)
{
    const double g = 9.81, fps = 120, y0 = 0.35, vx = 1.0, vy = 0.5, r = 0.02, mu = 0.3;
    c->e = 0.6;
    c->t1 = (vy + sqrt(vy * vy + 2 * g * (y0 - r))) / g;
    c->vy_pre = vy - g * c->t1;
    c->vy_post = -c->e * c->vy_pre;
    c->t2 = c->t1 + 2 * c->vy_post / g;
    c->t3 = c->t2 + vx / (mu * g);
    c->n = (int)((c->t3 + 0.25) * fps);
    c->f2 = (int)ceil(c->t2 * fps);
    c->f3 = (int)ceil(c->t3 * fps);
    icv_err err;
    analysis_tracks_alloc(tr, c->n, 1, 0, &err);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    double x2 = vx * c->t2, x3 = x2 + vx * vx / (2 * mu * g);
    for (int i = 0; i < c->n; i++) {
        double t = i / fps, x, y;
        if (t < c->t1) {
            x = vx * t;
            y = y0 + vy * t - 0.5 * g * t * t;
        } else if (t < c->t2) {
            double tau = t - c->t1;
            x = vx * t;
            y = r + c->vy_post * tau - 0.5 * g * tau * tau;
        } else if (t < c->t3) {
            double tau = t - c->t2;
            x = x2 + vx * tau - 0.5 * mu * g * tau * tau;
            y = r;
        } else {
            x = x3;
            y = r;
        }
        tr->frame[i] = i;
        tr->t[i] = t;
        tr->pos[i] = icv_v3(x + gsl_ran_gaussian(rng, 3e-4), y + gsl_ran_gaussian(rng, 3e-4), 0);
        tr->seen[i] = 1;
    }
    gsl_rng_free(rng);
    ball_body(b, r);
}

TEST(test_contact_slide_to_rest_is_left_out_and_reported)
{
    /* Before: the slide was taken as free flight (gravity's last phase, the bounce's
     * post-impact window's end): |g| off. Now |g| within 1% and 4 sigma, the bounce's
     * e within 0.02, two contact stretches: moving from the landing, then resting
     * to the clip's end, and the landing is not an impact measured. 5 noise seeds. */
    for (unsigned long seed = 1; seed <= 5; seed++) {
        slide_clip c;
        analysis_tracks tr;
        analysis_body b;
        slide_tracks(seed, &c, &tr, &b);
        analysis_result res;
        icv_err err = {0};
        int rc = analysis_impacts_measure(&tr, &b, NULL, NULL, &res, &err);
        analysis_tracks_free(&tr);
        ASSERT(rc == 0, "seed %lu: %s", seed, err.msg);
        double gn = icv_v3_norm(res.g);
        printf("     seed %lu: |g| %.4f +- %.4f, %d impact(s), e %.4f (truth %.2f), %d contact(s) (landing at frame "
               "%d, stop at %d, clip %d frames)\n",
               seed, gn, res.g_sd.y, res.n_impacts, res.n_impacts ? res.impacts[0].e_kinematic : NAN, c.e,
               res.n_contacts, c.f2, c.f3, c.n);
        if (getenv("ICV_VERBOSE") && res.n_impacts > 1)
            printf("     the landing measured: e %.3f +- %.3f, post window %d frames\n", res.impacts[1].e_kinematic,
                   res.impacts[1].sd.e_kinematic, res.impacts[1].post.n_frames);
        ASSERT_NEAR(gn, 9.81, fmin(0.01 * 9.81, 4 * res.g_sd.y));
        ASSERT_EQ_INT(res.n_impacts, 1);
        ASSERT_NEAR(res.impacts[0].t, c.t1, 0.2 / 120);
        ASSERT_NEAR(res.impacts[0].e_kinematic, c.e, 0.02);
        ASSERT_EQ_INT(res.n_contacts, 2);
        ASSERT(res.contacts[0].frame_first >= c.f2 && res.contacts[0].frame_first <= c.f2 + 2,
               "the contact starts at frame %ld, the landing is at %d", res.contacts[0].frame_first, c.f2);
        ASSERT_EQ_INT(res.contacts[0].sliding, 1);
        /* the rest: from where the slide's last 0.1 s is within the noise */
        ASSERT_EQ_INT((int)res.contacts[0].frame_last + 1, (int)res.contacts[1].frame_first);
        ASSERT(res.contacts[1].frame_first >= c.f3 - 12, "rest from frame %ld, the stop at %d",
               res.contacts[1].frame_first, c.f3);
        ASSERT_EQ_INT((int)res.contacts[1].frame_last, c.n - 1);
        ASSERT_EQ_INT(res.contacts[1].sliding, 0);
        /* the flights: before and after the bounce, neither reaching into the slide */
        ASSERT_EQ_INT(res.n_flights, 2);
        ASSERT(res.flights[1].frame_last < res.contacts[0].frame_first, "a flight reaches into the slide");
    }
}

TEST(test_contact_resting_clip_end_after_a_bounce_is_resting)
{
    /* The same ball landing for good with no slide (mu large: it stops at once):
     * the frames after the landing are one resting stretch. */
    slide_clip c;
    analysis_tracks tr;
    analysis_body b;
    slide_tracks(7, &c, &tr, &b);
    /* the slide replaced by rest at the landing point */
    for (int i = c.f2; i < c.n; i++)
        tr.pos[i].x = tr.pos[c.f2].x + (tr.pos[i].x - tr.pos[i].x);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &b, NULL, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(res.n_impacts, 1);
    ASSERT_EQ_INT(res.n_contacts, 1);
    ASSERT_EQ_INT(res.contacts[0].sliding, 0);
    ASSERT_EQ_INT((int)res.contacts[0].frame_last, c.n - 1);
}
