/* test_outlier_frames.c: issue #9 item 4, "a single outlier frame does not move
 * the result". The generated impacts of test_impact.c (120 fps, 0.2 mm marker
 * noise) with one frame's markers all moved together by 3 mm (or all turned by
 * 6 degrees about their centre: the pose fit sees neither; the box's attitude
 * misses a one-frame prediction by 0.3-0.7 degree there, so 3 degrees is at the
 * threshold of 6 of those sigmas, and kept moves nothing by more than 0.8 sigma), at the frames that
 * matter most: beside the impact on each side, the one after it, and in the
 * middle of each side's window. The result with the outlier is compared with the
 * clean tracks' without that frame (same noise): every measured quantity the
 * same to rounding (the outlier has no part in it; what is lost is that frame's
 * information, printed: up to ~0.7 sigma for the frame beside the impact), where
 * keeping the frame moves at least one by more than two sigmas (the test could
 * fail). */
#include <stdlib.h>

#include "analysis/analysis.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

enum { NQ = 15 };

static void quantities(const analysis_impact *im, double q[NQ], double sd[NQ])
{
    double v[NQ] = {im->pre.v.x,     im->pre.v.y,     im->pre.v.z,     im->post.v.x,    im->post.v.y,
                    im->post.v.z,    im->pre.omega.x, im->pre.omega.y, im->pre.omega.z, im->post.omega.x,
                    im->post.omega.y, im->post.omega.z, im->e_kinematic, im->impulse_ratio, im->loss_fraction};
    double s[NQ] = {im->pre.v_sd.x,     im->pre.v_sd.y,     im->pre.v_sd.z,     im->post.v_sd.x,
                    im->post.v_sd.y,    im->post.v_sd.z,    im->pre.omega_sd.x, im->pre.omega_sd.y,
                    im->pre.omega_sd.z, im->post.omega_sd.x, im->post.omega_sd.y, im->post.omega_sd.z,
                    im->sd.e_kinematic, im->sd.impulse_ratio, im->sd.loss_fraction};
    for (int i = 0; i < NQ; i++) {
        q[i] = v[i];
        sd[i] = s[i];
    }
}

static const char *const NAMES[NQ] = {"v_pre.x",  "v_pre.y",  "v_pre.z",  "v_post.x", "v_post.y",
                                      "v_post.z", "w_pre.x",  "w_pre.y",  "w_pre.z",  "w_post.x",
                                      "w_post.y", "w_post.z", "e_kin",    "ratio",    "loss"};

/* the largest |shift| / sigma over the quantities (sigmas of the clean run;
 * a rod's unmeasured spin component, 0 with sigma 0, left out) */
static double worst_shift(const double *a, const double *b, const double *sd, int *which)
{
    double worst = 0;
    for (int i = 0; i < NQ; i++) {
        if (!(sd[i] > 0))
            continue;
        double z = fabs(a[i] - b[i]) / sd[i];
        if (z > worst) {
            worst = z;
            *which = i;
        }
    }
    return worst;
}

/* Moves (turn = 0) or turns (turn = 1) every marker of the frame at time t */
static void spoil_frame(analysis_tracks *tr, int row, int turn)
{
    int nm = tr->n_markers;
    icv_vec3 *x = &tr->pos[row * nm];
    if (!turn) {
        icv_vec3 d = icv_v3_scale(icv_v3_unit(icv_v3(0.3, -0.9, 0.3)), 3e-3);
        for (int k = 0; k < nm; k++)
            x[k] = icv_v3_add(x[k], d);
        return;
    }
    icv_vec3 c = {0, 0, 0};
    for (int k = 0; k < nm; k++)
        c = icv_v3_add(c, icv_v3_scale(x[k], 1.0 / nm));
    icv_mat3 R = icv_rot_from_axis_angle(icv_v3_scale(icv_v3_unit(icv_v3(1, 0.5, -0.7)), 6 * M_PI / 180));
    for (int k = 0; k < nm; k++)
        x[k] = icv_v3_add(c, icv_m3_apply(R, icv_v3_sub(x[k], c)));
}

static int run(const analysis_tracks *tr, const scenario *s, int keep, analysis_result *res, icv_err *err)
{
    analysis_params prm;
    analysis_params_default(&prm);
    prm.keep_outlier_frames = keep;
    return analysis_impacts_measure(tr, &s->body, NULL, &prm, res, err);
}

static int listed(const analysis_result *res, long frame)
{
    for (int i = 0; i < res->n_outlier_frames && i < ANALYSIS_MAX_OUTLIER_FRAMES; i++)
        if (res->outlier_frame[i] == frame)
            return 1;
    return 0;
}

static void check_outliers(int rod, int turn)
{
    scenario s;
    make_scenario(&s, rod);
    double t_end = rod ? 0.35 : 0.45; /* the rod's far end lands again at 0.36 s */
    analysis_tracks clean;
    sample(&s, t_end, 2e-4, 41, &clean);
    analysis_result res0;
    icv_err err = {0};
    ASSERT(run(&clean, &s, 0, &res0, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(res0.n_impacts, 1);
    ASSERT_EQ_INT(res0.n_outlier_frames, 0); /* no good frame called an outlier */
    double q0[NQ], sd0[NQ];
    quantities(&res0.impacts[0], q0, sd0);
    /* the windows' frames: the last before the impact, the one before it, the
       first after it, the one after that, and each window's middle */
    const analysis_impact *im = &res0.impacts[0];
    int pre_last = (int)lround(im->pre.t_last * 120), post_first = (int)lround(im->post.t_first * 120);
    int pre_mid = (int)lround(0.5 * (im->pre.t_first + im->pre.t_last) * 120);
    int post_mid = (int)lround(0.5 * (im->post.t_first + im->post.t_last) * 120);
    int frames[6] = {pre_last, pre_last - 1, pre_mid, post_first, post_first + 1, post_mid};
    double worst_kept = 0, worst_kept_vs_without = 0;
    printf("     %s, one frame %s: largest shift / sigma against the clean tracks without the frame,\n"
           "     the frame kept, and the clean tracks without the frame against with it\n",
           rod ? "rod" : "box", turn ? "turned 6 deg" : "moved 3 mm");
    for (int f = 0; f < 6; f++) {
        analysis_tracks tr, without;
        sample(&s, t_end, 2e-4, 41, &tr);
        sample(&s, t_end, 2e-4, 41, &without);
        spoil_frame(&tr, frames[f], turn);
        for (int k = 0; k < without.n_markers; k++)
            without.seen[frames[f] * without.n_markers + k] = 0;
        analysis_result res, kept, ref;
        int rc = run(&tr, &s, 0, &res, &err), rck = run(&tr, &s, 1, &kept, &err);
        int rcr = run(&without, &s, 0, &ref, &err);
        analysis_tracks_free(&tr);
        analysis_tracks_free(&without);
        ASSERT(rc == 0 && res.n_impacts == 1, "frame %d: %s", frames[f], err.msg);
        ASSERT(rcr == 0 && ref.n_impacts == 1 && ref.n_outlier_frames == 0, "frame %d left out: %s", frames[f],
               err.msg);
        double q[NQ], sd[NQ], qr[NQ], sdr[NQ];
        quantities(&res.impacts[0], q, sd);
        quantities(&ref.impacts[0], qr, sdr);
        int w = 0, wk = 0, wl = 0;
        ASSERT(rck == 0 && kept.n_impacts == 1, "frame %d kept: %s", frames[f], err.msg);
        double z = worst_shift(q, qr, sdr, &w), zl = worst_shift(qr, q0, sd0, &wl);
        quantities(&kept.impacts[0], q, sd);
        double zk = worst_shift(q, q0, sd0, &wk);
        worst_kept = fmax(worst_kept, zk);
        int wkr = 0;
        worst_kept_vs_without = fmax(worst_kept_vs_without, worst_shift(q, qr, sdr, &wkr));
        printf("     frame %3d: %.4f (%s)  %.2f (%s)  %.2f (%s)\n", frames[f], z, NAMES[w], zk, NAMES[wk], zl,
               NAMES[wl]);
        ASSERT(listed(&res, frames[f]), "frame %d not listed as an outlier (%d listed)", frames[f],
               res.n_outlier_frames);
        ASSERT_EQ_INT(res.n_outlier_frames, 1);
        /* the outlier has no part in the result: what is left is the clean tracks
           without that frame, to rounding */
        ASSERT(z < 1e-6, "frame %d: %s differs from the clean tracks without it by %.2g sigma", frames[f],
               NAMES[w], z);
    }
    analysis_tracks_free(&clean);
    printf("     the frame kept against the clean tracks without it: at most %.3f sigma\n", worst_kept_vs_without);
    if (rod && turn) {
        /* a rod's pose turned 6 deg (0.1 rad, 50 times its pose noise) is left out by
           the rotation fit itself: kept, it moves the result only through its centre
           (turned about the markers' centroid, not the centre of mass), 0.8 sigma, no
           more than leaving the good frame out does (third column, up to 0.97);
           before the rotation fit left poses out, keeping it moved omega by 4.6-32 sigma */
        ASSERT(worst_kept < 1.5, "the kept turned frame moved the rod's result by %.2f sigma", worst_kept);
    } else {
        ASSERT(worst_kept > 2, "keeping the outlier moved nothing by more than %.2f sigma: the test cannot fail",
               worst_kept);
    }
}

TEST(test_outlier_frame_moved_does_not_move_a_box_impact) { check_outliers(0, 0); }
TEST(test_outlier_frame_turned_does_not_move_a_box_impact) { check_outliers(0, 1); }
TEST(test_outlier_frame_moved_does_not_move_a_rod_impact) { check_outliers(1, 0); }
TEST(test_outlier_frame_turned_does_not_move_a_rod_impact) { check_outliers(1, 1); }

TEST(test_outlier_frames_none_in_clean_tracks)
{
    /* No good frame is left out: over 20 noise seeds of each body (issue #9's
     * generated impacts), with gravity estimated (the clip's whole flight judged). */
    int dropped = 0, runs = 0;
    for (int rod = 0; rod < 2; rod++) {
        scenario s;
        make_scenario(&s, rod);
        for (int seed = 0; seed < 20; seed++) {
            analysis_tracks tr;
            sample(&s, rod ? 0.35 : 0.45, 2e-4, 500 + (unsigned long)seed, &tr);
            analysis_result res;
            icv_err err = {0};
            int rc = run(&tr, &s, 0, &res, &err);
            analysis_tracks_free(&tr);
            ASSERT(rc == 0, "seed %d: %s", seed, err.msg);
            dropped += res.n_outlier_frames;
            runs++;
        }
    }
    ASSERT(dropped == 0, "%d frames left out over %d clean clips", dropped, runs);
}
