/* test_vsigma_half_hidden.c: a one-body side's v sigma when a marker standing off
 * the body (a ball on a post) is half hidden behind the body for part of the side's
 * window: its centroid is off for those frames, the posed centre steps, and the
 * side's line turns the step into a v error its residuals hardly show
 * (analysis_bead_v_var, bead_bound.c; docs/analysis.md "Session 31: one-body sides"). */
#include "analysis/analysis_internal.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

/* The box of impact_scenario.h with its third marker on a 30 mm post (a marker that
 * can go behind the box), 1000 fps, 20 ms before the impact and 0.1 s after, white
 * noise 0.1 mm, g given; that marker 1.2 mm off in y over the first 10 frames (a
 * half-hidden ball's centroid, docs/analysis.md "Session 31: two-body sigmas": 1-4 mm).
 * The one-body noise model sees such a step in its residuals already (RMS pull 0.51
 * without the bound); with it, over 24 seeds, the pre side's v RMS pull (3 axes)
 * stays within 0.2-1.5, issue #22's band for honest sigmas, not a blanket (0.45
 * measured); the post side, clean, keeps its pulls (RMS under 1.5; 0.63). */
TEST(test_vsigma_half_hidden_marker_widens_one_body_v_sigma)
{
    enum { SEEDS = 24 };
    scenario s;
    make_scenario(&s, 0);
    icv_err err = {0};
    s.markers[2] = icv_v3(0.0, 0.02, 0.06);
    ASSERT_EQ_INT(analysis_template_init(&s.body.tmpl, s.markers, s.n_markers, &err), 0);
    double p2[2] = {0, 0};
    int n = 0;
    for (int seed = 0; seed < SEEDS; seed++) {
        analysis_tracks tr;
        sample_at(&s, s.t_star - 0.02, s.t_star + 0.1, 1000.0, 1e-4, 3300 + (unsigned long)seed, &tr);
        for (int i = 0; i < tr.n_frames; i++)
            if (tr.t[i] < s.t_star - 0.01)
                tr.pos[i * s.n_markers + 2].y += 1.2e-3;
        double pulls[2][3];
        /* the tracks' stated sigma 0.3 mm (a quality file's against 0.1 mm of noise, as
           the two-body test's): the pose keeps the off marker, as the scenes' poses keep
           a half-hidden one (its 1-4 mm within their 5 sigma) */
        int rc = measure_v_pulls_at(&s, &tr, 3e-4, pulls, &err);
        ASSERT(rc == 0, "seed %d: %s", seed, err.msg);
        if (rc)
            return;
        for (int a = 0; a < 3; a++)
            p2[0] += pulls[0][a] * pulls[0][a], p2[1] += pulls[1][a] * pulls[1][a];
        n += 3;
    }
    double pre = sqrt(p2[0] / n), post = sqrt(p2[1] / n);
    printf("     %d seeds: v RMS pull pre %.2f, post %.2f\n", SEEDS, pre, post);
    ASSERT(pre > 0.2 && pre < 1.5, "pre side's v RMS pull %.2f outside 0.2-1.5", pre);
    ASSERT(post < 1.5, "post side's v RMS pull %.2f", post);
}

/* analysis_bead_v_var on one side's 20 posed frames (the post-marker box above, 1000
 * fps, white noise 0.02 mm, the tracks' sigma 0.3 mm so the pose keeps the off
 * marker): the post's ball 1.2 mm off in y in the window's first 8 frames, all one
 * way. Those frames misfit (flagged) and their centre's move is what leaving the
 * ball out gives back, so the bound per axis is the v error those frames make: the
 * line fit's slope of the posed centres' moves against the same frames posed clean
 * (x and z too: the off ball turns the pose). Each axis within 10% of y's error (the
 * noise's share: 0.02 mm against 0.3 mm moves; measured 1-4%); the clean frames: a
 * bound under 5% of the off one (measured 0.04%). Without analysis_bead_v_var the
 * one-body sides have no such term at all. */
TEST(test_bead_v_var_is_the_one_way_step_s_v_error)
{
    enum { N = 20, OFF = 8 };
    scenario s;
    make_scenario(&s, 0);
    icv_err err = {0};
    s.markers[2] = icv_v3(0.0, 0.02, 0.06);
    ASSERT_EQ_INT(analysis_template_init(&s.body.tmpl, s.markers, s.n_markers, &err), 0);
    analysis_tracks tr, clean;
    sample_at(&s, s.t_star - 0.03, s.t_star - 0.03 + (N - 0.5) / 1000.0, 1000.0, 2e-5, 3401, &tr);
    sample_at(&s, s.t_star - 0.03, s.t_star - 0.03 + (N - 0.5) / 1000.0, 1000.0, 2e-5, 3401, &clean);
    ASSERT_EQ_INT(tr.n_frames, N);
    for (int i = 0; i < OFF; i++)
        tr.pos[i * s.n_markers + 2].y += 1.2e-3;
    static posed_frame pf[N], pc[N];
    analysis_pose_params pp = {5.0};
    for (int i = 0; i < N; i++) {
        ASSERT_EQ_INT(analysis_pose_fit_frame(&tr, i, &s.body.tmpl, 3e-4, &pp, &pf[i].pose, NULL), 0);
        ASSERT_EQ_INT(analysis_pose_fit_frame(&clean, i, &s.body.tmpl, 3e-4, &pp, &pc[i].pose, NULL), 0);
        pf[i].row = pc[i].row = i;
        pf[i].t = pc[i].t = tr.t[i];
    }
    double st = 0, stt = 0, sd[3] = {0}, std[3] = {0}, dv[3], var[3], cv[3];
    for (int i = 0; i < N; i++) {
        st += pf[i].t, stt += pf[i].t * pf[i].t;
        for (int a = 0; a < 3; a++) {
            double d = icv_v3_get(pf[i].pose.p, a) - icv_v3_get(pc[i].pose.p, a);
            sd[a] += d, std[a] += pf[i].t * d;
        }
    }
    for (int a = 0; a < 3; a++)
        dv[a] = (N * std[a] - st * sd[a]) / (N * stt - st * st);
    analysis_bead_v_var(&tr, &s.body, 3e-4, pf, 0, N - 1, var);
    analysis_bead_v_var(&clean, &s.body, 3e-4, pc, 0, N - 1, cv);
    analysis_tracks_free(&tr);
    analysis_tracks_free(&clean);
    printf("     v error %.4g %.4g %.4g m/s; bound %.4g %.4g %.4g; clean %.3g %.3g %.3g\n", dv[0], dv[1], dv[2],
           sqrt(var[0]), sqrt(var[1]), sqrt(var[2]), sqrt(cv[0]), sqrt(cv[1]), sqrt(cv[2]));
    for (int a = 0; a < 3; a++)
        ASSERT(fabs(sqrt(var[a]) - fabs(dv[a])) < 0.1 * fabs(dv[1]), "axis %d: bound %.4g against the error %.4g", a,
               sqrt(var[a]), dv[a]);
    ASSERT(cv[1] < 0.0025 * var[1], "clean frames' bound %.3g against %.3g", sqrt(cv[1]), sqrt(var[1]));
}
