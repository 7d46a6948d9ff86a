/* test_body_impact.c: body-body impacts (issue #22 item 3) against analytic truth
 * (two_body_scenario.h): two spheres colliding in flight and two pucks on a table,
 * with known masses, velocities, Newton's ratio and friction, tracks with 0.1 mm
 * noise over many seeds. Newton's ratio and the impulse ratio within 0.02 (the
 * issue's goal), momentum conserved within its sigma (the impulse mismatch), and
 * the error over sigma of e, the impulse ratio, the mismatch and the energy lost
 * spread 0.7-1.5 in RMS (a Gaussian's sample RMS over 24 seeds scatters by about
 * 1/sqrt(48) = 14%: 0.7-1.5 is ~2-3 of those sigmas from 1). Also the shapes' gap
 * in closed form. */
#include <jansson.h>
#include <stdlib.h>

#include "tests/analysis/two_body_scenario.h"
#include "tests/harness.h"

static void names_init(analysis_body_track bt[2], const two_body *s, const analysis_tracks tr[2])
{
    static const char *names[2] = {"a", "b"};
    for (int k = 0; k < 2; k++)
        bt[k] = (analysis_body_track){&s->body[k], &tr[k], names[k], s->motion, 0, s->motion == ANALYSIS_MOTION_POLY};
}

/* s's tracks tr (freed here) measured with position sigma (m); analysis_body_impacts_measure's code */
static int measure_tracks(const two_body *s, analysis_tracks tr[2], double sigma, analysis_bodies_result *res,
                          icv_err *err)
{
    analysis_body_track bt[2];
    names_init(bt, s, tr);
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = sigma;
    int rc = analysis_body_impacts_measure(bt, 2, &TB_G, &prm, res, err);
    analysis_tracks_free(&tr[0]);
    analysis_tracks_free(&tr[1]);
    return rc;
}

/* s's tracks with noise sigma (m) from seed, measured */
static int measure_seed(const two_body *s, double sigma, unsigned long seed, analysis_bodies_result *res, icv_err *err)
{
    analysis_tracks tr[2];
    two_body_tracks(s, sigma, seed, tr);
    return measure_tracks(s, tr, sigma, res, err);
}

enum { Q_E, Q_RATIO, Q_MIS, Q_DL, Q_LOST, Q_V, Q_W, Q_T, Q_N };
static const char *qname[Q_N] = {"e_newton", "impulse_ratio", "impulse_mismatch (3 axes)",
                                 "angular momentum change (3 axes)", "energy_lost",
                                 "v (both bodies, both sides, 3 axes)", "omega (likewise)", "t"};

/* RMS pulls over seeds; fails the test (returns -1) on a wrong count or tolerance */
static int run_seeds(const two_body *s, int seeds, double sigma, double rms[Q_N], double *worst_e, double *worst_r,
                     double *mean_chi2)
{
    double p2[Q_N] = {0};
    *mean_chi2 = 0;
    int cnt[Q_N] = {0};
    *worst_e = *worst_r = 0;
    double lost_truth = 0;
    for (int k = 0; k < 2; k++) {
        double I0 = 0.5 * icv_v3_dot(s->w_pre[k], icv_m3_apply(icv_m3_rotate_tensor(s->R[k], s->body[k].inertia),
                                                                 s->w_pre[k]));
        double I1 = 0.5 * icv_v3_dot(s->w_post[k], icv_m3_apply(icv_m3_rotate_tensor(s->R[k], s->body[k].inertia),
                                                                  s->w_post[k]));
        double v2 = icv_v3_dot(s->v_pre[k], s->v_pre[k]) - icv_v3_dot(s->v_post[k], s->v_post[k]);
        lost_truth += 0.5 * s->body[k].mass * v2 + I0 - I1;
    }
    for (int seed = 0; seed < seeds; seed++) {
        analysis_bodies_result res;
        icv_err err = {0};
        int rc = measure_seed(s, sigma, 700 + (unsigned long)seed, &res, &err);
        if (rc || res.n_impacts != 1) {
            th_fail(__FILE__, __LINE__, "seed %d: %d impacts: %s", seed, rc ? 0 : res.n_impacts, err.msg);
            return -1;
        }
        const analysis_body_impact *im = &res.impacts[0];
        double de = im->e_newton - s->e, dr = im->impulse_ratio - s->ratio;
        *worst_e = fmax(*worst_e, fabs(de));
        *worst_r = fmax(*worst_r, fabs(dr));
        p2[Q_E] += de * de / (im->e_newton_sd * im->e_newton_sd), cnt[Q_E]++;
        p2[Q_RATIO] += dr * dr / (im->impulse_ratio_sd * im->impulse_ratio_sd), cnt[Q_RATIO]++;
        for (int a = 0; a < 3; a++) {
            double m = icv_v3_get(im->impulse_mismatch, a), sd = icv_v3_get(im->impulse_mismatch_sd, a);
            p2[Q_MIS] += m * m / (sd * sd), cnt[Q_MIS]++;
        }
        for (int a = 0; a < 3; a++) {
            double m = icv_v3_get(im->angmom_change, a), sd = icv_v3_get(im->angmom_change_sd, a);
            p2[Q_DL] += m * m / (sd * sd), cnt[Q_DL]++;
        }
        p2[Q_T] += (im->t - s->t_star) * (im->t - s->t_star) / (im->t_sd * im->t_sd), cnt[Q_T]++;
        *mean_chi2 += im->impulse_mismatch_chi2 / seeds;
        double dl = im->energy_lost - lost_truth;
        p2[Q_LOST] += dl * dl / (im->energy_lost_sd * im->energy_lost_sd), cnt[Q_LOST]++;
        for (int k = 0; k < 2; k++)
            for (int a = 0; a < 3; a++) {
                double d0 = icv_v3_get(im->pre[k].v, a) - icv_v3_get(s->v_pre[k], a);
                double d1 = icv_v3_get(im->post[k].v, a) - icv_v3_get(s->v_post[k], a);
                double s0 = icv_v3_get(im->pre[k].v_sd, a), s1 = icv_v3_get(im->post[k].v_sd, a);
                p2[Q_V] += d0 * d0 / (s0 * s0) + d1 * d1 / (s1 * s1), cnt[Q_V] += 2;
                d0 = icv_v3_get(im->pre[k].omega, a) - icv_v3_get(s->w_pre[k], a);
                d1 = icv_v3_get(im->post[k].omega, a) - icv_v3_get(s->w_post[k], a);
                s0 = icv_v3_get(im->pre[k].omega_sd, a), s1 = icv_v3_get(im->post[k].omega_sd, a);
                /* a rate the model fixes (a flat puck's tilt: sigma 0) must be the truth's */
                if ((s0 == 0 && d0 != 0) || (s1 == 0 && d1 != 0)) {
                    th_fail(__FILE__, __LINE__, "seed %d body %d: omega[%d] fixed by the model at %g, %g, truth %g, %g",
                            seed, k, a, icv_v3_get(im->pre[k].omega, a), icv_v3_get(im->post[k].omega, a),
                            icv_v3_get(s->w_pre[k], a), icv_v3_get(s->w_post[k], a));
                    return -1;
                }
                if (s0 > 0)
                    p2[Q_W] += d0 * d0 / (s0 * s0), cnt[Q_W]++;
                if (s1 > 0)
                    p2[Q_W] += d1 * d1 / (s1 * s1), cnt[Q_W]++;
            }
        if (getenv("ICV_PULL_DIAG"))
            printf("DIAG seed %d e %.4f (%.4f) +- %.4f ratio %.4f (%.4f) +- %.4f t %.6f (%.6f) +- %.2g mis %.2g %.2g "
                   "%.2g chi2 %.2f lost %.5f (%.5f) +- %.2g\n",
                   seed, im->e_newton, s->e, im->e_newton_sd, im->impulse_ratio, s->ratio, im->impulse_ratio_sd, im->t,
                   s->t_star, im->t_sd, im->impulse_mismatch.x / im->impulse_mismatch_sd.x,
                   im->impulse_mismatch.y / im->impulse_mismatch_sd.y,
                   im->impulse_mismatch.z / im->impulse_mismatch_sd.z, im->impulse_mismatch_chi2, im->energy_lost,
                   lost_truth, im->energy_lost_sd);
    }
    for (int q = 0; q < Q_N; q++)
        rms[q] = sqrt(p2[q] / cnt[q]);
    return 0;
}

static void check_case(const two_body *s, int seeds)
{
    double rms[Q_N], we, wr, chi2;
    if (run_seeds(s, seeds, 1e-4, rms, &we, &wr, &chi2))
        return;
    printf("  %d seeds: worst |e error| %.4f, |ratio error| %.4f; RMS pulls", seeds, we, wr);
    for (int q = 0; q < Q_N; q++)
        printf(" %s %.2f", qname[q], rms[q]);
    printf("; mismatch chi2 (3 dof) mean %.2f\n", chi2);
    /* 3 on average; its mean over 24 seeds scatters by sqrt(6 / 24) = 0.5 */
    ASSERT(chi2 > 1.5 && chi2 < 4.5, "the impulse mismatch's chi^2 averages %.2f on 3 dof", chi2);
    ASSERT(we < 0.02, "Newton's ratio off by %.4f (goal 0.02)", we);
    ASSERT(wr < 0.02, "impulse ratio off by %.4f (goal 0.02)", wr);
    for (int q = 0; q < Q_N; q++)
        ASSERT(rms[q] > 0.7 && rms[q] < 1.5, "RMS pull of %s %.2f outside 0.7-1.5", qname[q], rms[q]);
}

TEST(test_body_impact_spheres_in_flight_e_ratio_momentum_and_honest_sigmas)
{
    two_body s;
    ASSERT_EQ_INT(two_body_flight(&s, 0.8, 0.06), 0);
    check_case(&s, th_accuracy() ? 200 : 24);
}

/* the same spheres with each side's own acceleration fitted (POLY: g not given):
 * a rotation about an axis off the frame's, the centre's curvature in 3D */
TEST(test_body_impact_spheres_fitted_with_their_own_acceleration)
{
    two_body s;
    ASSERT_EQ_INT(two_body_flight(&s, 0.8, 0.06), 0);
    s.motion = ANALYSIS_MOTION_POLY;
    check_case(&s, th_accuracy() ? 200 : 24);
}

TEST(test_body_impact_pucks_on_a_table_e_ratio_momentum_and_honest_sigmas)
{
    two_body s;
    ASSERT_EQ_INT(two_body_table(&s, 0.9, 0.1), 0);
    check_case(&s, th_accuracy() ? 200 : 24);
}

/* Pucks slide flat: their rotation is fitted about the table's normal, so omega
 * meets issue #9's tolerance, max(2% of |omega|, 0.1 rad/s), for both pucks on both
 * sides in every seed; free, the tilt rates of three coplanar dots 10-25 mm apart
 * are their depth noise. The spheres of the POLY case turn about an axis off the
 * normal and keep the free fit. */
TEST(test_body_impact_pucks_spin_about_the_normal_within_omega_tolerance)
{
    two_body s;
    ASSERT_EQ_INT(two_body_table(&s, 0.9, 0.1), 0);
    two_body sp;
    ASSERT_EQ_INT(two_body_flight(&sp, 0.8, 0.06), 0);
    sp.motion = ANALYSIS_MOTION_POLY;
    int seeds = th_accuracy() ? 200 : 24, within = 0, flat = 0, sp_flat = 0;
    double worst = 0;
    for (int seed = 0; seed < seeds; seed++)
        for (int c = 0; c < 2; c++) {
            const two_body *t = c ? &sp : &s;
            analysis_bodies_result res;
            icv_err err = {0};
            int rc = measure_seed(t, 1e-4, 900 + (unsigned long)seed, &res, &err);
            ASSERT(rc == 0 && res.n_impacts == 1, "seed %d case %d: rc %d: %s", seed, c, rc, err.msg);
            const analysis_body_impact *im = &res.impacts[0];
            for (int k = 0; k < 2; k++) {
                const analysis_body_state *st[2] = {&im->pre[k], &im->post[k]};
                const icv_vec3 w[2] = {t->w_pre[k], t->w_post[k]};
                for (int q = 0; q < 2; q++) {
                    if (c) {
                        sp_flat += st[q]->spin_about_normal;
                        continue;
                    }
                    flat += st[q]->spin_about_normal;
                    double d = icv_v3_norm(icv_v3_sub(st[q]->omega, w[q]));
                    worst = fmax(worst, d / fmax(0.02 * icv_v3_norm(w[q]), 0.1));
                    within += d <= fmax(0.02 * icv_v3_norm(w[q]), 0.1);
                    if (getenv("ICV_PULL_DIAG") && d > fmax(0.02 * icv_v3_norm(w[q]), 0.1))
                        printf("DIAG seed %d body %d side %d flat %d err %.3f\n", seed, k, q, st[q]->spin_about_normal, d);
                }
            }
        }
    printf("  %d seeds: pucks' omega within tolerance %d of %d (worst %.2f of it), spun about the normal %d; "
           "spheres so fitted %d of %d\n",
           seeds, within, 4 * seeds, worst, flat, sp_flat, 4 * seeds);
    /* 95%: the spin's own error (three dots at 0.1 mm) still passes 0.1 rad/s at 2.5
       sigma in about 2 sides of 100 (781 of 800 over 200 seeds); the free fit's tilt
       rates left 703 of 800 (88%), 90 of these 96 */
    ASSERT(within >= 0.95 * 4 * seeds, "pucks' omega within tolerance in %d of %d sides", within, 4 * seeds);
    /* the test's 99% point would leave 1 side in 100 free; the free fit's tilt
       sigmas run a little small (764 of 800 taken as flat): 90% */
    ASSERT(flat >= 0.9 * 4 * seeds, "%d of %d sides taken as flat", flat, 4 * seeds);
    ASSERT_EQ_INT(sp_flat, 0);
}

/* A slow error in a puck's marker heights (one dot of puck a 0.25 mm high at the
 * window's middle, a half sine over the 45 pre-impact frames, on 0.1 mm of white
 * noise): the table draws' dots show such drifts (0.1-0.3 mm over 10-20 frames,
 * docs/analysis.md session 32), which tilt three coplanar dots by mrad and make the
 * free fit's tilt rates look significant against their white sigmas. A puck lying on
 * its face and sliding is held flat by its contact, so every side is fitted about
 * the normal (96 of 96; before this 75, 21 left free, 16 of them a's pre side, tilt
 * rates up to 0.29 rad/s) and omega meets issue #9's tolerance, max(2% of |omega|,
 * 0.1 rad/s), in 95% of sides (the spin's own noise, as above; 96 of 96, before 86). */
TEST(test_body_impact_pucks_with_a_slow_height_error_still_spin_about_the_normal)
{
    two_body s;
    ASSERT_EQ_INT(two_body_table(&s, 0.9, 0.1), 0);
    int last = (int)floor(s.t_star / s.dt), seeds = 24, flat = 0, within = 0;
    for (int seed = 0; seed < seeds; seed++) {
        analysis_tracks tr[2];
        two_body_tracks(&s, 1e-4, 1300 + (unsigned long)seed, tr);
        for (int i = 0; i <= last; i++)
            tr[0].pos[i * s.n_markers].y += 0.25e-3 * sin(M_PI * i / last);
        analysis_bodies_result res;
        icv_err err = {0};
        int rc = measure_tracks(&s, tr, 1e-4, &res, &err);
        ASSERT(rc == 0 && res.n_impacts == 1, "seed %d: rc %d: %s", seed, rc, err.msg);
        if (rc || res.n_impacts != 1)
            return;
        const analysis_body_impact *im = &res.impacts[0];
        for (int k = 0; k < 2; k++) {
            const analysis_body_state *st[2] = {&im->pre[k], &im->post[k]};
            const icv_vec3 w[2] = {s.w_pre[k], s.w_post[k]};
            for (int q = 0; q < 2; q++) {
                flat += st[q]->spin_about_normal;
                double d = icv_v3_norm(icv_v3_sub(st[q]->omega, w[q]));
                within += d <= fmax(0.02 * icv_v3_norm(w[q]), 0.1);
            }
        }
    }
    printf("  %d seeds: spun about the normal %d of %d sides, omega within tolerance %d\n", seeds, flat, 4 * seeds,
           within);
    ASSERT_EQ_INT(flat, 4 * seeds);
    ASSERT(within >= 0.95 * 4 * seeds, "pucks' omega within tolerance in %d of %d sides", within, 4 * seeds);
}

/* carts on a track: boxes, the gap by the support search (approximate in general,
 * exact face to face). No friction between them: the impulse ratio's truth is 0
 * and |J_t| / J_n is positive by construction, so only its size is asserted;
 * 0.2 mm noise at 120 fps (a video's). */
TEST(test_body_impact_carts_face_to_face_e_and_momentum)
{
    two_body s;
    ASSERT_EQ_INT(two_body_carts(&s, 0.6), 0);
    /* 96 seeds: an RMS pull over n seeds scatters by 1 / sqrt(2 n), 14% at 24, which
       put an honest 0.92 (200 seeds) 1.6 of its scatter from the band's 0.7 */
    int seeds = th_accuracy() ? 200 : 96;
    double worst_e = 0, worst_r = 0, pe2 = 0, pm2 = 0;
    for (int seed = 0; seed < seeds; seed++) {
        analysis_bodies_result res;
        icv_err err = {0};
        int rc = measure_seed(&s, 2e-4, 800 + (unsigned long)seed, &res, &err);
        ASSERT(rc == 0 && res.n_impacts == 1, "seed %d: rc %d, %d impacts: %s", seed, rc, res.n_impacts, err.msg);
        const analysis_body_impact *im = &res.impacts[0];
        ASSERT_TRUE(!im->contact.exact);
        worst_e = fmax(worst_e, fabs(im->e_newton - s.e));
        worst_r = fmax(worst_r, im->impulse_ratio);
        pe2 += pow((im->e_newton - s.e) / im->e_newton_sd, 2);
        if (getenv("TS_DIAG")) printf("DIAG seed %d e %.5f sd %.5f flat %d %d %d %d\n", seed, im->e_newton - s.e, im->e_newton_sd, im->pre[0].spin_about_normal, im->pre[1].spin_about_normal, im->post[0].spin_about_normal, im->post[1].spin_about_normal);
        for (int a = 0; a < 3; a++)
            pm2 += pow(icv_v3_get(im->impulse_mismatch, a) / icv_v3_get(im->impulse_mismatch_sd, a), 2) / 3;
    }
    double rms_e = sqrt(pe2 / seeds), rms_m = sqrt(pm2 / seeds);
    printf("  %d seeds: worst e error %.4f, largest ratio %.4f; RMS pull e %.5f, mismatch %.5f\n", seeds, worst_e,
           worst_r, rms_e, rms_m);
    ASSERT(worst_e < 0.02, "e off by %.4f (goal 0.02)", worst_e);
    ASSERT(worst_r < 0.02, "impulse ratio %.4f with no friction (goal 0.02)", worst_r);
    ASSERT(rms_e > 0.7 && rms_e < 1.5, "e's RMS pull %.2f", rms_e);
    ASSERT(rms_m > 0.7 && rms_m < 1.5, "the mismatch's RMS pull %.2f", rms_m);
}

/* the table's pucks fitted as if in free flight: the friction deceleration is
 * left in the residuals, the states off: the POLY model is what measures them */
TEST(test_body_impact_pucks_fitted_as_free_flight_are_off)
{
    two_body s;
    ASSERT_EQ_INT(two_body_table(&s, 0.9, 0.1), 0);
    s.motion = ANALYSIS_MOTION_FLIGHT;
    analysis_tracks tr[2];
    two_body_tracks(&s, 1e-4, 1, tr);
    analysis_body_track bt[2];
    names_init(bt, &s, tr);
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = 1e-4;
    analysis_bodies_result res;
    icv_err err = {0};
    icv_vec3 zero = {0, 0, 0}; /* a level table: no acceleration in the plane */
    int rc = analysis_body_impacts_measure(bt, 2, &zero, &prm, &res, &err);
    analysis_tracks_free(&tr[0]);
    analysis_tracks_free(&tr[1]);
    ASSERT(rc == 0 && res.n_impacts == 1, "rc %d: %s", rc, err.msg);
    double pull = (res.impacts[0].e_newton - s.e) / res.impacts[0].e_newton_sd;
    printf("  e %.4f (truth %.2f), pull %.1f\n", res.impacts[0].e_newton, s.e, pull);
    ASSERT(fabs(pull) > 3, "a wrong motion model should show: e pull %.2f", pull);
}

TEST(test_body_impact_json_names_its_bodies)
{
    two_body s;
    ASSERT_EQ_INT(two_body_flight(&s, 0.8, 0.06), 0);
    analysis_tracks tr[2];
    two_body_tracks(&s, 1e-4, 3, tr);
    analysis_body_track bt[2];
    names_init(bt, &s, tr);
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = 1e-4;
    prm.mc_samples = 50;
    analysis_bodies_result res;
    icv_err err = {0};
    int rc = analysis_body_impacts_measure(bt, 2, &TB_G, &prm, &res, &err);
    analysis_tracks_free(&tr[0]);
    analysis_tracks_free(&tr[1]);
    ASSERT(rc == 0 && res.n_impacts == 1, "rc %d: %s", rc, err.msg);
    json_t *o = analysis_body_impact_json(&res.impacts[0], "cue", "object");
    ASSERT_TRUE(o != NULL);
    ASSERT_TRUE(!strcmp(json_string_value(json_object_get(o, "kind")), "body_body"));
    json_t *names = json_object_get(o, "bodies");
    ASSERT_TRUE(json_array_size(names) == 2);
    ASSERT_TRUE(!strcmp(json_string_value(json_array_get(names, 0)), "cue"));
    ASSERT_TRUE(!strcmp(json_string_value(json_array_get(names, 1)), "object"));
    ASSERT_NEAR(json_real_value(json_object_get(json_object_get(o, "e_newton"), "value")), res.impacts[0].e_newton,
                0);
    ASSERT_TRUE(json_object_get(json_object_get(json_object_get(o, "states"), "object"), "post") != NULL);
    json_decref(o);
}

/* two spheres passing 0.3 mm apart (within 5 sigma of touching) with no change
 * of velocity: a candidate, measured, no normal velocity jump: a near miss, and
 * no impact is reported (the smallest gap named) */
TEST(test_body_impact_a_near_miss_is_not_an_impact)
{
    two_body s;
    ASSERT_EQ_INT(two_body_flight(&s, 0.8, 0.06), 0);
    icv_vec3 u = icv_v3_sub(s.v_pre[1], s.v_pre[0]);
    icv_vec3 n = icv_v3_unit(icv_v3_cross(u, icv_v3(0, 0, 1))); /* square to the relative velocity */
    s.p[1] = icv_v3_axpy(0.045 + 3e-4, n, s.p[0]);
    for (int k = 0; k < 2; k++)
        s.v_post[k] = s.v_pre[k], s.w_post[k] = s.w_pre[k];
    analysis_tracks tr[2];
    two_body_tracks(&s, 1e-4, 11, tr);
    analysis_bodies_result res;
    icv_err err = {0};
    int rc = measure_tracks(&s, tr, 1e-4, &res, &err);
    printf("  rc %d, near misses %d: %s\n", rc, res.n_near_misses, err.msg);
    ASSERT_EQ_INT(rc, ICV_ENOTFOUND);
    ASSERT_EQ_INT(res.n_near_misses, 1);
    ASSERT_STR_CONTAINS(err.msg, "no body-body impact found");
}

/* Both bodies unseen in the frames nearest the contact (touching white pucks seen as
 * one blob; markers hidden while two bodies touch): the run of frames near the contact
 * goes on across them, and the gap may travel that many frames' change beside them.
 * Before, 3 unseen frames hid the impact ("no body-body impact found": 6.2 mm, more
 * than one frame's change from the frame before the hidden ones); on real tracks one
 * unseen frame (PhysTrack's bigCollision, two pucks merged into one blob at the
 * contact) split the run in two, the first candidate then without a post-impact frame. */
TEST(test_body_impact_found_across_frames_unseen_at_the_contact)
{
    for (int gap_frames = 1; gap_frames <= 3; gap_frames += 2) {
        two_body s;
        ASSERT_EQ_INT(two_body_table(&s, 0.9, 0.1), 0);
        analysis_tracks tr[2];
        two_body_tracks(&s, 1e-4, 21, tr);
        int first = (int)(s.t_star / s.dt) - (gap_frames - 1) / 2; /* t* at 45.41 frames */
        for (int k = 0; k < 2; k++)
            memset(tr[k].seen + (size_t)first * (size_t)tr[k].n_markers, 0,
                   (size_t)gap_frames * (size_t)tr[k].n_markers);
        analysis_bodies_result res;
        icv_err err = {0};
        int rc = measure_tracks(&s, tr, 1e-4, &res, &err);
        printf("    frames %d-%d unseen: rc %d, %d impact(s), %d near misses, e %.4f (truth 0.9): %s\n", first,
               first + gap_frames - 1, rc, rc ? 0 : res.n_impacts, res.n_near_misses,
               rc ? NAN : res.impacts[0].e_newton, err.msg);
        ASSERT(rc == 0, "%d frames unseen: %s", gap_frames, err.msg);
        ASSERT_EQ_INT(res.n_impacts, 1);
        /* the 0.02; fewer frames near the contact widen the sides' extrapolation */
        ASSERT_NEAR(res.impacts[0].e_newton, 0.9, 0.02);
    }
}

/* a body whose markers are never seen is named */
TEST(test_body_impact_a_body_never_seen_is_named)
{
    two_body s;
    ASSERT_EQ_INT(two_body_flight(&s, 0.8, 0.06), 0);
    analysis_tracks tr[2];
    two_body_tracks(&s, 1e-4, 12, tr);
    memset(tr[1].seen, 0, (size_t)tr[1].n_frames * (size_t)tr[1].n_markers);
    analysis_body_track bt[2];
    names_init(bt, &s, tr);
    analysis_params prm;
    analysis_params_default(&prm);
    analysis_bodies_result res;
    icv_err err = {0};
    int rc = analysis_body_impacts_measure(bt, 2, &TB_G, &prm, &res, &err);
    analysis_tracks_free(&tr[0]);
    analysis_tracks_free(&tr[1]);
    ASSERT_EQ_INT(rc, ICV_ENOTFOUND);
    ASSERT_STR_CONTAINS(err.msg, "body b is never seen");
}

/* ---- the gap between shapes --------------------------------------------- */

TEST(test_shapes_gap_closed_forms_and_the_support_search)
{
    analysis_shapes_gap g;
    icv_shape sa = {0}, sb = {0};
    icv_mat3 I = icv_m3_identity();
    /* sphere-sphere: centres 0.1 apart along (2, 1, 2)/3, radii 0.02 and 0.03 */
    sa.type = sb.type = ICV_SHAPE_SPHERE;
    sa.radius = 0.02;
    sb.radius = 0.03;
    icv_vec3 d = icv_v3(2.0 / 3, 1.0 / 3, 2.0 / 3);
    analysis_shapes_gap_at(&sa, I, icv_v3(0, 0, 0), &sb, I, icv_v3_scale(d, 0.1), &g);
    ASSERT_NEAR(g.gap, 0.05, 1e-12); /* exact: rounding only */
    ASSERT_NEAR(icv_v3_dot(g.normal, d), 1, 1e-12);
    ASSERT_NEAR(icv_v3_dot(g.point, d), 0.045, 1e-12); /* midway between 0.02 and 0.07 */
    ASSERT_TRUE(g.exact);
    /* sphere against a capsule lying along x (length 0.2, radius 0.01), the sphere's
     * centre above a point 0.03 from its end cap's centre: the gap to the segment */
    sb.type = ICV_SHAPE_CAPSULE;
    sb.axis = icv_v3(1, 0, 0);
    sb.length = 0.2;
    sb.radius = 0.01;
    analysis_shapes_gap_at(&sa, I, icv_v3(0.09 + 0.03, 0.04, 0), &sb, I, icv_v3(0, 0, 0), &g);
    ASSERT_NEAR(g.gap, 0.05 - 0.03, 1e-12); /* |(0.03, 0.04)| - 0.02 - 0.01 */
    ASSERT_NEAR(g.normal.x, -0.6, 1e-12);    /* from the sphere to the cap's centre */
    ASSERT_NEAR(g.normal.y, -0.8, 1e-12);
    /* capsule-capsule crossing at right angles, 0.1 apart along z */
    sa = sb;
    sa.axis = icv_v3(0, 1, 0);
    analysis_shapes_gap_at(&sa, I, icv_v3(0, 0, 0.1), &sb, I, icv_v3(0, 0, 0), &g);
    ASSERT_NEAR(g.gap, 0.08, 1e-12);
    ASSERT_NEAR(g.normal.z, -1, 1e-12);
    /* a sphere above a box's edge, turned 30 degrees: the distance to the edge */
    icv_shape box = {0};
    box.type = ICV_SHAPE_BOX;
    box.size = icv_v3(0.1, 0.1, 0.1);
    sa.type = ICV_SHAPE_SPHERE;
    sa.radius = 0.02;
    icv_mat3 Rz = icv_rot_z(M_PI / 6);
    icv_vec3 corner_dir = icv_m3_apply(Rz, icv_v3_unit(icv_v3(1, 1, 0)));
    icv_vec3 edge = icv_m3_apply(Rz, icv_v3(0.05, 0.05, 0));
    analysis_shapes_gap_at(&box, Rz, icv_v3(0, 0, 0), &sa, I, icv_v3_axpy(0.05, corner_dir, edge), &g);
    ASSERT_NEAR(g.gap, 0.03, 1e-12);
    ASSERT_NEAR(icv_v3_dot(g.normal, corner_dir), 1, 1e-12);
    /* two boxes (no closed form here): the support search finds the face gap of 7 mm
     * between boxes turned 0.3 rad about their common face normal */
    icv_shape box2 = box;
    analysis_shapes_gap_at(&box, icv_rot_y(0.3), icv_v3(0, 0, 0), &box2, icv_rot_y(-0.2), icv_v3(0.012, 0.107, 0.01),
                           &g);
    ASSERT_TRUE(!g.exact);
    ASSERT_NEAR(g.gap, 0.007, 1e-6); /* the search's step ends at 1e-7 rad */
    ASSERT_NEAR(g.normal.y, 1, 1e-6);
}

/* The spheres parting at 3 mm a frame, their markers unseen in the four frames from
 * the third after the contact (hidden as they part): the frame before the unseen ones
 * lies within reach of contact (its gap may have travelled four frames' change beside
 * them), the one before it not, so the pair's frames within reach come in two runs.
 * The second is no candidate, the gap having risen into it: bodies that do not
 * approach cannot collide. Before, it was one, and it cut the impact's post side to
 * one frame ("needs 4"), so neither was measured and the run failed (synth's
 * collision draw 2: the second frame after the contact). */
TEST(test_body_impact_a_gap_rising_back_within_reach_is_no_second_candidate)
{
    two_body s;
    ASSERT_EQ_INT(two_body_flight(&s, 0.8, 0.06), 0);
    analysis_tracks tr[2];
    two_body_tracks(&s, 1e-4, 31, tr);
    int first = (int)(s.t_star / s.dt) + 4; /* t* at 50.37 frames: frames 54-57 */
    for (int k = 0; k < 2; k++)
        memset(tr[k].seen + (size_t)first * (size_t)tr[k].n_markers, 0, 4 * (size_t)tr[k].n_markers);
    analysis_bodies_result res;
    icv_err err = {0};
    int rc = measure_tracks(&s, tr, 1e-4, &res, &err);
    printf("  rc %d, %d impact(s), e %.4f (truth 0.8): %s\n", rc, rc ? 0 : res.n_impacts,
           rc ? NAN : res.impacts[0].e_newton, err.msg);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(res.n_impacts, 1);
    /* issue #22's 0.02 for e; the instant within issue #9's 0.2 frame */
    ASSERT_NEAR(res.impacts[0].e_newton, 0.8, 0.02);
    ASSERT_NEAR(res.impacts[0].t, s.t_star, 0.2 * s.dt);
}

/* The two spheres in flight (two_body_flight: e 0.8, ratio 0.06) with tracks of
 * 0.1 mm noise seeded by seed, ball a's perturbed by `perturb` (given the last
 * frame before contact), measured into *res (3e-4 m the points' sigma): its one
 * impact in *im, NULL after a failed assert. */
static void flight_perturbed(two_body *s, unsigned long seed, void (*perturb)(const two_body *, int, analysis_tracks *),
                             analysis_bodies_result *res, const analysis_body_impact **im)
{
    *im = NULL;
    int last = (int)floor(s->t_star / s->dt);
    analysis_tracks tr[2];
    two_body_tracks(s, 1e-4, seed, tr);
    perturb(s, last, tr);
    icv_err err = {0};
    int rc = measure_tracks(s, tr, 3e-4, res, &err);
    ASSERT(rc == 0 && res->n_impacts == 1, "seed %lu: rc %d, %d impacts: %s", seed, rc, rc ? 0 : res->n_impacts,
           err.msg);
    *im = &res->impacts[0];
}

/* marker 0 of ball a 1.2 mm up over the last 15 frames before contact */
static void bead_half_hidden(const two_body *s, int last, analysis_tracks *tr)
{
    for (int i = last - 14; i <= last; i++)
        tr[0].pos[i * s->n_markers].y += 1.2e-3;
}

/* every marker of ball a 30 mm up in the frame before the last before contact */
static void pose_off_flight(const two_body *s, int last, analysis_tracks *tr)
{
    for (int m = 0; m < s->n_markers; m++)
        tr[0].pos[(last - 1) * s->n_markers + m].y += 0.03;
}

/* A bead half hidden behind its ball's limb: its centroid 1.2 mm off (y) over the
 * last 15 frames before contact, the other three beads and the other ball clean,
 * 0.1 mm noise, 24 seeds. The posed centre steps by about 0.3 mm there and the
 * attitude turns, so a's pre-impact v and omega are off by a slow error the fits'
 * residuals and their lag-1 growth hardly show (docs/analysis.md, "Session 31:
 * two-body sigmas" and "omega's sigma"). The RMS pull (3 axes x 24 seeds) of a's
 * pre-impact v (omega: 0) or omega (1) into *rms (left -1 after a failed assert). */
static void half_hidden_bead_pull(int omega, double *rms)
{
    *rms = -1;
    two_body s;
    ASSERT_EQ_INT(two_body_flight(&s, 0.8, 0.06), 0);
    int seeds = 24;
    double p2 = 0, worst = 0;
    int cnt = 0;
    for (int seed = 0; seed < seeds; seed++) {
        analysis_bodies_result res;
        const analysis_body_impact *im;
        flight_perturbed(&s, 900 + (unsigned long)seed, bead_half_hidden, &res, &im);
        if (!im)
            return;
        const analysis_body_state *a_pre = &im->pre[0];
        for (int a = 0; a < 3; a++) {
            double d = omega ? icv_v3_get(a_pre->omega, a) - icv_v3_get(s.w_pre[0], a)
                             : icv_v3_get(a_pre->v, a) - icv_v3_get(s.v_pre[0], a);
            double sd = icv_v3_get(omega ? a_pre->omega_sd : a_pre->v_sd, a);
            p2 += d * d / (sd * sd), cnt++;
            worst = fmax(worst, fabs(d));
        }
    }
    printf("  %d seeds: a's pre %s worst error %.4f, RMS pull %.2f\n", seeds, omega ? "omega (rad/s)" : "v (m/s)",
           worst, sqrt(p2 / cnt));
    *rms = sqrt(p2 / cnt);
}

/* v's RMS pull (3.92 without the misfit's bound, 0.96 with) within 0.2-1.5: the issue's
 * band for honest sigmas, and not below it either, a bound that is not a blanket (it
 * takes the step at its worst place, so it is conservative when the step sits
 * elsewhere: 0.2 is a pull spread 5x too small). */
TEST(test_body_impact_a_half_hidden_bead_widens_v_sigma)
{
    double rms;
    half_hidden_bead_pull(0, &rms);
    if (rms >= 0)
        ASSERT(rms < 1.5 && rms > 0.2, "RMS pull of a's pre-impact v %.2f outside 0.2-1.5", rms);
}

/* omega's RMS pull (4.18 without the bound on the attitude's turn, 0.89 with) within
 * 0.2-1.5, as v's above. */
TEST(test_body_impact_a_half_hidden_bead_widens_omega_sigma)
{
    double rms;
    half_hidden_bead_pull(1, &rms);
    if (rms >= 0)
        ASSERT(rms < 1.5 && rms > 0.2, "RMS pull of a's pre-impact omega %.2f outside 0.2-1.5", rms);
}

/* A wrong pose on the last frame of a's pre-impact window (the frame before it is
 * left out as the impact's exposure): a's markers there moved together 30 mm (y),
 * so the pose fits the template as well as any other and passes the misfit test
 * (collision8 of issue #22's draws: a stray point in a three-bead frame, 36 mm off
 * at a 1.5 mm misfit). Left in, the fixed-g line fit's end point moves a's v, and e
 * by 0.042 here; left out as off the side's flight (bodies_side.c), 16 seeds with
 * 0.1 mm noise: e and the impulse ratio within the 0.02, and a's pre v's
 * RMS pull (48 components) within 0.5-1.5, the honest band: the frames kept are
 * clean, so neither the outlier's residual nor a blanket widens it. */
TEST(test_body_impact_a_pose_off_its_side_s_flight_is_left_out)
{
    two_body s;
    ASSERT_EQ_INT(two_body_flight(&s, 0.8, 0.06), 0);
    double worst_e = 0, worst_r = 0, p2 = 0;
    int cnt = 0;
    for (int seed = 0; seed < 16; seed++) {
        analysis_bodies_result res;
        const analysis_body_impact *im;
        flight_perturbed(&s, 1300 + (unsigned long)seed, pose_off_flight, &res, &im);
        if (!im)
            return;
        worst_e = fmax(worst_e, fabs(im->e_newton - s.e));
        worst_r = fmax(worst_r, fabs(im->impulse_ratio - s.ratio));
        for (int a = 0; a < 3; a++, cnt++)
            p2 += pow((icv_v3_get(im->pre[0].v, a) - icv_v3_get(s.v_pre[0], a)) / icv_v3_get(im->pre[0].v_sd, a), 2);
    }
    double rms = sqrt(p2 / cnt);
    printf("  16 seeds: worst |e error| %.4f, |ratio error| %.4f, a's pre v RMS pull %.2f\n", worst_e, worst_r, rms);
    ASSERT(worst_e < 0.02, "e off by %.4f (goal 0.02)", worst_e);
    ASSERT(worst_r < 0.02, "impulse ratio off by %.4f (goal 0.02)", worst_r);
    ASSERT(rms > 0.5 && rms < 1.5, "a's pre v RMS pull %.2f outside 0.5-1.5", rms);
}
