/* test_ball_energy.c: the energy of a body whose spin the markers do not show (a
 * one-marker ball). A ball spinning before a sliding impact, whose friction
 * impulse spins it faster: the analysis reports omega 0 (not measured), so its
 * energies count translation only, say so, and give the spin change the measured
 * impulse implies; the model is compared on the velocities alone and its loss on
 * the same energy; the truth comparison compares like with like. */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

/* a 32 mm ball of 94 g (synth's random seed 1029's size), uniform: I = 2/5 m r^2 */
static void make_ball(scenario *s)
{
    memset(s, 0, sizeof *s);
    icv_err err;
    analysis_body *b = &s->body;
    double m = 0.0935, r = 0.0159;
    b->mass = m;
    b->inertia = icv_m3_diag(0.4 * m * r * r, 0.4 * m * r * r, 0.4 * m * r * r);
    b->shape.type = ICV_SHAPE_SPHERE;
    b->shape.radius = r;
    s->n_markers = 1;
    s->markers[0] = icv_v3(0, 0, 0);
    analysis_template_init(&b->tmpl, s->markers, 1, &err);
    s->R = icv_m3_identity();
    s->w_pre = icv_v3(0, 0, -3.0); /* spinning before, as synth's balls do */
    s->v_pre = icv_v3(1.2, -1.41, 0.15);
    s->t_star = 0.25 + 0.37 / 120;
    s->e = 0.83;
    /* slides throughout: stopping the slip (1.2 m/s) needs a ratio of 0.13 */
    s->ratio = 0.1;
    scenario_finish(s);
}

static double translational_loss(const scenario *s)
{
    return 1 - icv_v3_dot(s->v_post, s->v_post) / icv_v3_dot(s->v_pre, s->v_pre);
}

TEST(test_ball_energy_counts_translation_and_says_so)
{
    scenario s;
    make_ball(&s);
    analysis_tracks tr;
    sample(&s, 0.45, 2e-4, 11, &tr);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(res.n_impacts, 1);
    const analysis_impact *im = &res.impacts[0];
    ASSERT_EQ_INT(im->spin_observable, 0);
    ASSERT_EQ_INT(im->energy_rotation, ANALYSIS_ROTATION_NONE);
    /* what the ball's spin takes: 4.6% of the energy here, well beyond issue #9's
     * 0.01, so that counting it on one side only would show */
    double full = scenario_loss_fraction(&s), trans = translational_loss(&s);
    ASSERT(trans - full > 0.03, "the spin's share %.4f", trans - full);
    /* the measured loss is the translational one, within issue #9's 0.01 and 3 of
     * its sigmas (the tracks' 0.2 mm noise) */
    ASSERT_NEAR(im->loss_fraction, trans, fmin(0.01, 3 * im->sd.loss_fraction));
    /* the spin change the measured impulse implies for the known sphere: within
     * 2% (issue #9's omega tolerance) of the truth's, about z */
    icv_vec3 dw = icv_v3_sub(s.w_post, s.w_pre);
    printf("     loss %.4f +- %.4f, translational truth %.4f, whole %.4f; spin change %.2f rad/s, truth %.2f\n",
           im->loss_fraction, im->sd.loss_fraction, trans, full, icv_v3_norm(im->spin_change_implied),
           icv_v3_norm(dw));
    ASSERT_NEAR(icv_v3_norm(icv_v3_sub(im->spin_change_implied, dw)), 0, 0.02 * icv_v3_norm(dw));
    ASSERT(strstr(im->energy_note, "translation only") != NULL, "note: '%s'", im->energy_note);

    /* the model, given the measured pre state (spin 0: not measured), with mu and
     * e_n fitted: the velocities fit (its note does not say it misses; before,
     * the spin it predicted was compared with the 0 reported and it "missed by 6%
     * of the impact speed"), and its loss is of the same translational energy */
    analysis_model m = {ICV_RESTITUTION_NEWTON, -1, -1, -1, IMPACT_EXACT};
    ASSERT(analysis_model_compare(&s.body, &m, &res, &err) == 0, "%s", err.msg);
    ASSERT(strstr(im->model.note, "does not fit") == NULL, "model note: '%s'", im->model.note);
    ASSERT_NEAR(im->model.mu, s.ratio, 0.01);
    ASSERT_NEAR(im->model.e_n, s.e, 0.01);
    printf("     model: mu %.4f, e_n %.4f, loss %.4f; note '%s'\n", im->model.mu, im->model.e_n,
           im->model.loss_fraction, im->model.note);
    ASSERT_NEAR(im->model.loss_fraction, im->loss_fraction, 0.01);
}

TEST(test_ball_energy_truth_comparison_is_like_with_like)
{
    scenario s;
    make_ball(&s);
    analysis_tracks tr;
    sample(&s, 0.45, 2e-4, 12, &tr);
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    /* a truth.json as synth writes it: energies with the spin */
    icv_mat3 I = s.body.inertia;
    double m = s.body.mass;
    double ep = 0.5 * m * icv_v3_dot(s.v_pre, s.v_pre) + 0.5 * icv_v3_dot(s.w_pre, icv_m3_apply(I, s.w_pre));
    double eq = 0.5 * m * icv_v3_dot(s.v_post, s.v_post) + 0.5 * icv_v3_dot(s.w_post, icv_m3_apply(I, s.w_post));
    char text[2048], path[512];
    snprintf(text, sizeof text,
             "{\"schema\": \"impactcv-truth-1\", \"gravity\": [0, -9.81, 0], \"impacts\": [{\"time_s\": %.12g, "
             "\"pre\": {\"v\": [%.12g, %.12g, %.12g], \"omega\": [%.12g, %.12g, %.12g], \"euler213\": [0, 0, 0]}, "
             "\"post\": {\"v\": [%.12g, %.12g, %.12g], \"omega\": [%.12g, %.12g, %.12g], \"euler213\": [0, 0, 0]}, "
             "\"e_kinematic\": %.12g, \"impulse_ratio\": %.12g, "
             "\"energy\": {\"pre_J\": %.12g, \"post_J\": %.12g, \"loss_fraction\": %.12g}}]}",
             s.t_star, s.v_pre.x, s.v_pre.y, s.v_pre.z, s.w_pre.x, s.w_pre.y, s.w_pre.z, s.v_post.x, s.v_post.y,
             s.v_post.z, s.w_post.x, s.w_post.y, s.w_post.z, s.e, s.ratio, ep, eq, 1 - eq / ep);
    snprintf(path, sizeof path, "%s/ball_truth.json", th_tmpdir());
    ASSERT(th_write_file(path, text) == 0, "cannot write %s", path);
    /* the measured translational loss against the truth's translational loss: within
     * issue #9's 0.01 (before: against the truth's whole loss, 0.046 off) */
    rc = analysis_truth_compare(path, &res, &s.body, 1.0 / 120, NULL, &err);
    ASSERT(rc == 0, "%s", err.msg);
}

TEST(test_ball_energy_joint_fit_leaves_the_unmeasured_spin_out)
{
    /* three balls sliding through their impacts (mu = impulse ratio 0.1, e 0.83),
     * thrown at different speeds, spinning before: one (mu, e_n) for all. The
     * table's model loss is of the translational energy, as the measured one. */
    static analysis_experiment_result jr[3];
    analysis_experiment_result *jobs[3];
    for (int k = 0; k < 3; k++) {
        scenario s;
        make_ball(&s);
        s.v_pre = icv_v3(1.0 + 0.3 * k, -1.2 - 0.2 * k, 0.1 * k);
        scenario_finish(&s);
        analysis_tracks tr;
        sample(&s, 0.45, 2e-4, 20 + (unsigned long)k, &tr);
        memset(&jr[k], 0, sizeof jr[k]);
        snprintf(jr[k].exp.name, sizeof jr[k].exp.name, "ball_%d", k);
        jr[k].body = s.body;
        jr[k].model = (analysis_model){ICV_RESTITUTION_NEWTON, -1, -1, -1, IMPACT_EXACT};
        icv_err err = {0};
        int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &jr[k].res, &err);
        analysis_tracks_free(&tr);
        ASSERT(rc == 0, "%s", err.msg);
        jobs[k] = &jr[k];
    }
    impact_fit_result fit;
    icv_err err = {0};
    ASSERT(analysis_validation_write(th_tmpdir(), jobs, 3, &fit, &err) == 0, "%s", err.msg);
    printf("     joint fit of 3 balls: mu %.4f, e_n %.4f\n", fit.mu, fit.e_n);
    /* issue #9's 0.02 for the joint fit (test_analyze_cli) */
    ASSERT_NEAR(fit.mu, 0.1, 0.02);
    ASSERT_NEAR(fit.e_n, 0.83, 0.02);
    /* the table's difference column: model minus measured loss within 0.01 */
    char path[1024];
    snprintf(path, sizeof path, "%s/validation.csv", th_tmpdir());
    const char *csv = th_read_file(path);
    ASSERT(csv != NULL, "no %s", path);
    int rows = 0;
    for (const char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        const char *last = NULL;
        for (const char *c = l + 1; *c && *c != '\n'; c++)
            if (*c == ',')
                last = c;
        ASSERT(last != NULL, "row without columns");
        ASSERT_NEAR(atof(last + 1), 0, 0.01);
        rows++;
    }
    ASSERT_EQ_INT(rows, 3);
}
