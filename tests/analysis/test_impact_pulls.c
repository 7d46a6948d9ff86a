/* test_impact_pulls.c: issue #9's "check the propagation by Monte Carlo" on
 * generated tracks (impact_scenario.h): over many noise seeds the RMS pull
 * (error / reported sigma) of e, the impulse ratio and the loss fraction lies
 * within 0.7-1.5, for the box (4 markers, spin observed) and the rod (3
 * collinear markers). A Gaussian's sample RMS over n seeds scatters by about
 * 1/sqrt(2n): 11% over 40 seeds, so 0.7-1.5 is ~3 of those sigmas from 1. */
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

enum { NQ = 3 };
static const char *names[NQ] = {"e_kinematic", "impulse_ratio", "loss_fraction"};

/* RMS pulls of e, ratio, loss over `seeds` noise seeds of scenario s */
static int rms_pulls(const scenario *s, int seeds, double sigma, double rms[NQ])
{
    double truth[NQ] = {s->e, s->ratio, scenario_loss_fraction(s)}, p2[NQ] = {0};
    for (int seed = 0; seed < seeds; seed++) {
        analysis_tracks tr;
        sample(s, 0.45, sigma, 500 + (unsigned long)seed, &tr);
        analysis_result res;
        icv_err err = {0};
        analysis_params prm;
        analysis_params_default(&prm);
        prm.pos_sigma = sigma; /* the noise as it is: the pulls test the propagation */
        int rc = analysis_impacts_measure(&tr, &s->body, &G, &prm, &res, &err);
        analysis_tracks_free(&tr);
        if (rc || res.n_impacts != 1) {
            th_fail(__FILE__, __LINE__, "seed %d: %d impacts: %s", seed, rc ? 0 : res.n_impacts, err.msg);
            return -1;
        }
        const analysis_impact *im = &res.impacts[0];
        double got[NQ] = {im->e_kinematic, im->impulse_ratio, im->loss_fraction};
        double sd[NQ] = {im->sd.e_kinematic, im->sd.impulse_ratio, im->sd.loss_fraction};
        if (getenv("ICV_PULL_DIAG")) {
            icv_vec3 a = icv_v3_sub(im->pre.v, s->v_pre), b = icv_v3_sub(im->post.v, s->v_post);
            icv_vec3 c = icv_v3_sub(im->pre.omega, s->w_pre), d = icv_v3_sub(im->post.omega, s->w_post);
            printf("DIAG %+.2f %+.2f %+.2f  %+.2f %+.2f %+.2f  w %+.2f %+.2f %+.2f  %+.2f %+.2f %+.2f  t %+.2f  q %+.2f %+.2f %+.2f\n",
                   a.x / im->pre.v_sd.x, a.y / im->pre.v_sd.y, a.z / im->pre.v_sd.z, b.x / im->post.v_sd.x,
                   b.y / im->post.v_sd.y, b.z / im->post.v_sd.z, c.x / im->pre.omega_sd.x, c.y / im->pre.omega_sd.y,
                   c.z / im->pre.omega_sd.z, d.x / im->post.omega_sd.x, d.y / im->post.omega_sd.y,
                   d.z / im->post.omega_sd.z, (im->t - s->t_star) / im->t_sd, (got[0] - truth[0]) / sd[0],
                   (got[1] - truth[1]) / sd[1], (got[2] - truth[2]) / sd[2]);
        }
        for (int q = 0; q < NQ; q++) {
            double pull = (got[q] - truth[q]) / sd[q];
            p2[q] += pull * pull;
        }
    }
    for (int q = 0; q < NQ; q++)
        rms[q] = sqrt(p2[q] / seeds);
    return 0;
}

static void check(int rod)
{
    scenario s;
    make_scenario(&s, rod);
    int seeds = th_accuracy() ? 200 : 40;
    double rms[NQ];
    if (rms_pulls(&s, seeds, 2e-4, rms))
        return;
    printf("     %s, RMS pull over %d seeds:", rod ? "rod" : "box", seeds);
    for (int q = 0; q < NQ; q++)
        printf("  %s %.2f", names[q], rms[q]);
    printf("\n");
    for (int q = 0; q < NQ; q++)
        ASSERT(rms[q] >= 0.7 && rms[q] <= 1.5, "%s: %s RMS pull %.2f outside 0.7-1.5", rod ? "rod" : "box", names[q],
               rms[q]);
}

TEST(test_impact_pulls_of_derived_quantities_box) { check(0); }

TEST(test_impact_pulls_of_derived_quantities_rod) { check(1); }
