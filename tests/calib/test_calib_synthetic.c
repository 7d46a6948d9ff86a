/* test_calib_synthetic.c: calibration against known truth at the point level
 * (tests/calib/synth_points.c: a known camera, boards in random poses, Gaussian
 * corner noise). Accuracy targets are issue #6's synthetic ones; "honest" standard
 * errors: the truth lies within 2 SE for >= 90% of parameters over 20 seeds (a
 * Gaussian estimate would give 95%). Rendered-image tests wait for synth/. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "tests/calib/synth_points.h"
#include "tests/harness.h"

/* Corner noise for the uncertainty tests: 0.1 px per axis (the Bouguet set's
 * residuals are 0.13 px at 640x480). The accuracy targets of issue #6 are stated
 * for rendered 1280x720 frames with 2 gray levels of noise, where cornerSubPix
 * error is a few hundredths of a pixel: SIGMA_RENDER = 0.03 px stands in for it
 * until synth/ renders frames (then this becomes an image-level test). */
#define SIGMA 0.1
#define SIGMA_RENDER 0.03

/* Worst projection error (px) of the estimated distortion over a grid spanning
 * the whole image: rays of the true model, projected through the true camera
 * matrix with the estimated and the true distortion (the camera matrix is
 * checked by its own targets). */
static double worst_projection_error(const calib_intrinsics *truth, const calib_intrinsics *est)
{
    calib_pt2 px[17 * 10], nrm[17 * 10];
    int n = 0;
    for (int j = 0; j < 10; j++)
        for (int i = 0; i < 17; i++)
            px[n++] = (calib_pt2){i * 1279.0 / 16, j * 719.0 / 9};
    calib_undistort_points(truth, px, n, 1, nrm, NULL);
    double worst = 0;
    for (int k = 0; k < n; k++) {
        icv_vec3 x = icv_v3(nrm[k].u, nrm[k].v, 1);
        calib_pt2 q;
        calib_intrinsics m = *truth;
        memcpy(m.dist, est->dist, sizeof m.dist);
        calib_project(&m, &x, 1, &q);
        worst = fmax(worst, hypot(q.u - px[k].u, q.v - px[k].v));
    }
    return worst;
}

TEST(test_calib_undistort_points_inverts_projection)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    sp_default_rig(d);
    calib_pt2 px[4] = {{0, 0}, {1279, 719}, {640, 360}, {100, 600}}, nrm[4], back[4];
    icv_err err = {0};
    int rc = calib_undistort_points(&d->in[0], px, 4, 1, nrm, &err);
    for (int i = 0; i < 4 && !rc; i++) {
        icv_vec3 x = icv_v3(nrm[i].u, nrm[i].v, 1);
        calib_project(&d->in[0], &x, 1, &back[i]);
    }
    calib_intrinsics in = d->in[0];
    free(d);
    ASSERT(rc == 0, "%s", err.msg);
    for (int i = 0; i < 4; i++) {
        ASSERT_NEAR(back[i].u, px[i].u, 1e-6); /* iterative undistortion converged to 1e-12 */
        ASSERT_NEAR(back[i].v, px[i].v, 1e-6);
    }
    (void)in;
}

TEST(test_calib_synthetic_mono_meets_accuracy_targets)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    int n = 10, ok_f = 0, ok_c = 0, ok_d = 0, all = 0, rms_ok = 0;
    double worst_f = 0, worst_c = 0, worst_d = 0;
    for (int seed = 1; seed <= n; seed++) {
        sp_default_rig(d);
        d->mono_only = 1;
        sp_generate(d, 15, SIGMA_RENDER, (unsigned long)seed); /* issue #6: 15 views */
        calib_camera cam;
        icv_err err = {0};
        if (calib_camera_calibrate(&d->obs[0], NULL, &cam, &err)) {
            free(d);
            ASSERT(0, "seed %d: %s", seed, err.msg);
        }
        const calib_intrinsics *t = &d->in[0], *e = &cam.in;
        double ef = fmax(fabs(e->fx - t->fx) / t->fx, fabs(e->fy - t->fy) / t->fy);
        double ec = fmax(fabs(e->cx - t->cx), fabs(e->cy - t->cy));
        double ed = worst_projection_error(t, e);
        int f = ef < 0.002, c = ec < 1.0, dd = ed < 0.2; /* issue #6: 0.2%, 1 px, 0.2 px */
        ok_f += f, ok_c += c, ok_d += dd, all += f && c && dd;
        rms_ok += cam.n_used == 15 && fabs(cam.rms - SIGMA_RENDER * sqrt(2.0)) < 0.3 * SIGMA_RENDER;
        worst_f = fmax(worst_f, ef), worst_c = fmax(worst_c, ec), worst_d = fmax(worst_d, ed);
        if (th_accuracy())
            printf("    seed %2d: focal %.4f%%  principal point %.3f px  distortion %.3f px  coverage %.0f%%\n", seed,
                   100 * ef, ec, ed, 100 * cam.coverage);
        calib_camera_free(&cam);
    }
    free(d);
    if (th_accuracy())
        printf("    all targets met in %d of %d seeds (worst: focal %.4f%%, pp %.3f px, distortion %.3f px)\n", all, n,
               100 * worst_f, worst_c, worst_d);
    /* RMS of 2-D noise of sigma per axis is sigma*sqrt(2), no view dropped */
    ASSERT_EQ_INT(rms_ok, n);
    ASSERT_EQ_INT(ok_f, n);   /* focal lengths within 0.2% in every seed */
    ASSERT_EQ_INT(ok_c, n);   /* principal point within 1 px in every seed */
    /* distortion: worst case over the WHOLE image includes the corners no board
     * reached; required in 8 of 10 random view sets */
    ASSERT(ok_d >= 8, "distortion within 0.2 px in only %d of %d seeds (worst %.3f px)", ok_d, n, worst_d);
}

TEST(test_calib_synthetic_mono_standard_errors_are_honest)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    int inside = 0, total = 0;
    for (unsigned long seed = 1; seed <= 20; seed++) {
        sp_default_rig(d);
        sp_generate(d, 15, SIGMA, 100 + seed);
        calib_camera cam;
        icv_err err = {0};
        if (calib_camera_calibrate(&d->obs[0], NULL, &cam, &err)) {
            free(d);
            ASSERT(0, "seed %lu: %s", seed, err.msg);
        }
        const calib_intrinsics *t = &d->in[0], *e = &cam.in, *s = &cam.std;
        double te[8][3] = {{t->fx, e->fx, s->fx}, {t->fy, e->fy, s->fy}, {t->cx, e->cx, s->cx},
                           {t->cy, e->cy, s->cy}, {t->dist[0], e->dist[0], s->dist[0]},
                           {t->dist[1], e->dist[1], s->dist[1]}, {t->dist[2], e->dist[2], s->dist[2]},
                           {t->dist[3], e->dist[3], s->dist[3]}};
        for (int k = 0; k < 8; k++) {
            inside += fabs(te[k][1] - te[k][0]) <= 2 * te[k][2];
            total++;
        }
        calib_camera_free(&cam);
    }
    if (th_accuracy()) {
        /* the long study: 200 seeds in blocks of 20 (the fast test is block 1) */
        int all_in = inside, all_tot = total, worst = inside;
        for (unsigned long blk = 1; blk < 10; blk++) {
            int in_b = 0;
            for (unsigned long seed = 1; seed <= 20; seed++) {
                sp_default_rig(d);
                sp_generate(d, 15, SIGMA, 100 + 20 * blk + seed);
                calib_camera cam;
                icv_err err = {0};
                if (calib_camera_calibrate(&d->obs[0], NULL, &cam, &err))
                    continue;
                const calib_intrinsics *t = &d->in[0], *e = &cam.in, *s = &cam.std;
                double te[8][3] = {{t->fx, e->fx, s->fx}, {t->fy, e->fy, s->fy}, {t->cx, e->cx, s->cx},
                                   {t->cy, e->cy, s->cy}, {t->dist[0], e->dist[0], s->dist[0]},
                                   {t->dist[1], e->dist[1], s->dist[1]}, {t->dist[2], e->dist[2], s->dist[2]},
                                   {t->dist[3], e->dist[3], s->dist[3]}};
                for (int k = 0; k < 8; k++)
                    in_b += fabs(te[k][1] - te[k][0]) <= 2 * te[k][2];
                calib_camera_free(&cam);
            }
            all_in += in_b, all_tot += 160, worst = in_b < worst ? in_b : worst;
        }
        printf("    mono: truth within 2 SE for %d of %d parameters (%.1f%%) over seeds 101-120; over 200 seeds "
               "%.1f%%, worst block of 20 seeds %d/160\n",
               inside, total, 100.0 * inside / total, 100.0 * all_in / all_tot, worst);
    }
    free(d);
    ASSERT(inside >= 0.9 * total, "truth within 2 SE for only %d of %d parameters (issue #6: >= 90%%)", inside, total);
    /* and not hugely inflated either: OpenCV 4.6's own numbers were 1.46x too large
     * (opencv #19803), which would put ~99.5% inside */
    ASSERT(inside < total, "every parameter inside 2 SE over 160 draws: standard errors look inflated");
}

TEST(test_calib_synthetic_stereo_baseline_and_its_standard_error)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    int inside = 0, total = 0, seeds = th_sanitized() ? 8 : 20; /* ASan is ~5x slower */
    double worst_rel = 0;
    for (int seed = 1; seed <= seeds; seed++) {
        sp_default_rig(d);
        sp_generate(d, 15, SIGMA, 500 + (unsigned long)seed);
        calib_stereo st;
        icv_err err = {0};
        if (calib_stereo_calibrate(&d->obs[0], &d->obs[1], NULL, &st, &err)) {
            free(d);
            ASSERT(0, "seed %d: %s", seed, err.msg);
        }
        double bt = sqrt(d->T[0] * d->T[0] + d->T[1] * d->T[1] + d->T[2] * d->T[2]);
        worst_rel = fmax(worst_rel, fabs(st.baseline - bt) / bt);
        inside += fabs(st.baseline - bt) <= 2 * st.baseline_std;
        for (int k = 0; k < 3; k++)
            inside += fabs(st.T[k] - d->T[k]) <= 2 * st.T_std[k];
        for (int c = 0; c < 2; c++) {
            const calib_intrinsics *t = &d->in[c], *e = &st.cam[c].in, *s = &st.cam[c].std;
            inside += fabs(e->fx - t->fx) <= 2 * s->fx;
            inside += fabs(e->fy - t->fy) <= 2 * s->fy;
            inside += fabs(e->cx - t->cx) <= 2 * s->cx;
            inside += fabs(e->cy - t->cy) <= 2 * s->cy;
            inside += fabs(e->dist[0] - t->dist[0]) <= 2 * s->dist[0];
            inside += fabs(e->dist[1] - t->dist[1]) <= 2 * s->dist[1];
        }
        total += 16;
        calib_stereo_free(&st);
    }
    free(d);
    if (th_accuracy())
        printf("    stereo: truth within 2 SE for %d of %d parameters (%.1f%%); worst baseline error %.3f%%\n", inside,
               total, 100.0 * inside / total, 100 * worst_rel);
    ASSERT(worst_rel < 0.002, "baseline off by %.3f%% (issue #6: within 0.2%%)", 100 * worst_rel);
    ASSERT(inside >= 0.9 * total, "truth within 2 SE for only %d of %d parameters (issue #6: >= 90%%)", inside, total);
}
