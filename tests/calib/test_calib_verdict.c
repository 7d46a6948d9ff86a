/* test_calib_verdict.c: the parts that tell a user whether a calibration is good:
 * outlier views are dropped and named, poor coverage and boards that all face the
 * camera are reported with what to do, a clean set is called good. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "tests/calib/synth_points.h"
#include "tests/harness.h"

TEST(test_calib_outlier_view_is_dropped_and_named)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    d->mono_only = 1;
    sp_generate(d, 12, 0.1, 21);
    /* view 5: a misdetected corner set, 1.5 px noise (15x the others) */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (int i = 0; i < d->n_pts; i++) {
        d->uv[0][5 * d->n_pts + i].u += gsl_ran_gaussian(r, 1.5);
        d->uv[0][5 * d->n_pts + i].v += gsl_ran_gaussian(r, 1.5);
    }
    gsl_rng_free(r);
    const char *names[12] = {"a.png", "b.png", "c.png", "d.png", "e.png", "bad.png",
                             "g.png", "h.png", "i.png", "j.png", "k.png", "l.png"};
    d->obs[0].names = names;
    calib_camera cam;
    icv_err err = {0};
    icv_log_level lv = icv_log_get_level();
    icv_log_set_level(ICV_LOG_ERROR); /* the warning naming bad.png is expected */
    int rc = calib_camera_calibrate(&d->obs[0], NULL, &cam, &err);
    icv_log_set_level(lv);
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    int st5 = cam.views[5].status, used = cam.n_used;
    double rms = cam.rms, rms5 = cam.views[5].rms;
    char verdict[CALIB_VERDICT_MAX];
    snprintf(verdict, sizeof verdict, "%s", cam.verdict);
    calib_camera_free(&cam);
    ASSERT_EQ_INT(st5, CALIB_VIEW_OUTLIER);
    ASSERT_EQ_INT(used, 11);
    /* its error under the final model is kept: ~1.5 * sqrt(2) px */
    ASSERT(rms5 > 1.5, "dropped view's rms %.3f px", rms5);
    /* without it the fit is back to the noise, 0.1 * sqrt(2) px */
    ASSERT_NEAR(rms, 0.1 * sqrt(2.0), 0.03);
    ASSERT_STR_CONTAINS(verdict, "1 view dropped for an error far above the median: bad.png");
}

TEST(test_calib_verdict_says_what_to_add)
{
    /* boards only near the image centre, all facing the camera */
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    int np = 54;
    calib_board_points(&d->board, d->X);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 9);
    for (int v = 0; v < 8; v++) {
        double rv[3] = {(gsl_rng_uniform(r) - 0.5) * 0.15, (gsl_rng_uniform(r) - 0.5) * 0.15, 0};
        double t[3] = {-0.16 + 0.02 * gsl_rng_uniform(r), -0.1, 1.4 + 0.2 * gsl_rng_uniform(r)};
        calib_project_pose(&d->in[0], rv, t, d->X, np, &d->uv[0][v * np]);
        for (int i = 0; i < np; i++) {
            d->uv[0][v * np + i].u += gsl_ran_gaussian(r, 0.1);
            d->uv[0][v * np + i].v += gsl_ran_gaussian(r, 0.1);
        }
    }
    gsl_rng_free(r);
    calib_observations obs = {np, d->X, 8, d->uv[0], NULL, 1280, 720, 0};
    calib_camera cam;
    icv_err err = {0};
    int rc = calib_camera_calibrate(&obs, NULL, &cam, &err);
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    char verdict[CALIB_VERDICT_MAX];
    snprintf(verdict, sizeof verdict, "%s", cam.verdict);
    int ok = cam.verdict_ok;
    calib_camera_free(&cam);
    ASSERT_EQ_INT(ok, 0);
    ASSERT_STR_CONTAINS(verdict, "bad: the board covered");
    ASSERT_STR_CONTAINS(verdict, "add views near the edges and corners (never covered: top-left");
    ASSERT_STR_CONTAINS(verdict, "every board faces the camera");
    ASSERT_STR_CONTAINS(verdict, "bad: focal length uncertain");
}

TEST(test_calib_verdict_good_on_a_clean_spread_set)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    d->mono_only = 1;
    sp_generate(d, 15, 0.1, 2);
    calib_camera cam;
    icv_err err = {0};
    int rc = calib_camera_calibrate(&d->obs[0], NULL, &cam, &err);
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    char verdict[CALIB_VERDICT_MAX];
    snprintf(verdict, sizeof verdict, "%s", cam.verdict);
    int ok = cam.verdict_ok;
    double cov = cam.coverage;
    calib_camera_free(&cam);
    ASSERT(ok, "verdict: %s", verdict);
    ASSERT(strncmp(verdict, "good: ", 6) == 0, "verdict: %s", verdict);
    ASSERT(cov > 0.6, "coverage %.2f of a 5x3 spread of boards", cov);
}
