/* test_calib_synth_images.c: calibration from rendered images against synth's
 * truth: issue #6's synthetic targets. synth/ renders the 9x6 board at 1280x720
 * with Gaussian noise of 2 gray levels (tests/calib/synth_views.c), calib's
 * detector finds the corners, calib calibrates. Targets (issue #6, "Measured
 * (tests)", Synthetic): 15 views; focal lengths within 0.2% of truth, principal
 * point within 1 px, worst-case projection error of the distortion over the image
 * under 0.2 px; stereo baseline within 0.2%; surface plane normal within 0.1 deg
 * and origin within 0.5 mm; over 20 seeds the truth within 2 standard errors for
 * at least 90% of parameters. `make test` runs one seed of each; `make accuracy`
 * the 20-seed study with its coverage table. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "tests/calib/synth_views.h"
#include "tests/harness.h"

#define NV 15       /* issue #6: 15 views */
#define NOISE 2.0   /* issue #6: noise sigma 2 gray levels */
#define NSEEDS 20   /* issue #6: "over 20 seeds" */
#define NP 54

/* ---- mono ---------------------------------------------------------------- */

#define MONO_PAR 8
static const char *const mono_names[MONO_PAR] = {"fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2"};

typedef struct {
    double focal_rel, pp_px, dist_px, rms; /* worst |fx|,|fy| error / truth; worst |cx|,|cy| error; worst
                                              projection error of the distortion over the image; px rms */
    int n_used, n_missed;                  /* views used; rendered whole-board views where the board was not found */
    double z[MONO_PAR];                    /* (estimate - truth) / standard error */
} mono_result;

static int mono_seed(unsigned long seed, mono_result *r, icv_err *err)
{
    sv_set s;
    int rc = sv_render(&s, 1, NV, NOISE, seed, err);
    if (!rc) {
        icv_vec3 X[NP];
        calib_observations o;
        sv_observations(&s, 0, X, &o);
        calib_camera cam;
        rc = calib_camera_calibrate(&o, NULL, &cam, err);
        if (!rc) {
            const calib_intrinsics *t = &s.in[0], *e = &cam.in, *sd = &cam.std;
            r->focal_rel = fmax(fabs(e->fx - t->fx) / t->fx, fabs(e->fy - t->fy) / t->fy);
            r->pp_px = fmax(fabs(e->cx - t->cx), fabs(e->cy - t->cy));
            r->dist_px = sv_distortion_error(t, e);
            r->rms = cam.rms;
            r->n_used = cam.n_used;
            r->n_missed = s.n_missed;
            double te[MONO_PAR][3] = {{t->fx, e->fx, sd->fx},       {t->fy, e->fy, sd->fy},
                                      {t->cx, e->cx, sd->cx},       {t->cy, e->cy, sd->cy},
                                      {t->dist[0], e->dist[0], sd->dist[0]}, {t->dist[1], e->dist[1], sd->dist[1]},
                                      {t->dist[2], e->dist[2], sd->dist[2]}, {t->dist[3], e->dist[3], sd->dist[3]}};
            for (int k = 0; k < MONO_PAR; k++)
                r->z[k] = (te[k][1] - te[k][0]) / te[k][2];
            calib_camera_free(&cam);
        }
    }
    sv_free(&s);
    return rc;
}

/* ---- stereo and the surface ------------------------------------------------ */

#define ST_PAR 23
static const char *const st_names[ST_PAR] = {"fx1", "fy1", "cx1", "cy1", "k1_1", "k2_1", "p1_1", "p2_1",
                                             "fx2", "fy2", "cx2", "cy2", "k1_2", "k2_2", "p1_2", "p2_2",
                                             "Tx",  "Ty",  "Tz",  "om_x", "om_y", "om_z", "baseline"};

typedef struct {
    double focal_rel, pp_px, dist_px; /* worst over both cameras */
    double baseline_rel;              /* |baseline - truth| / truth */
    double normal_deg, origin_mm;     /* surface frame */
    double rms, epipolar;
    int n_used, n_missed;
    double z[ST_PAR];
} stereo_result;

static icv_vec3 col(icv_mat3 m, int c) { return icv_v3(m.m[0][c], m.m[1][c], m.m[2][c]); }

static double angle_deg(icv_vec3 a, icv_vec3 b)
{
    return acos(fmax(-1, fmin(1, icv_v3_dot(icv_v3_unit(a), icv_v3_unit(b))))) * 180 / M_PI;
}

static int stereo_seed(unsigned long seed, stereo_result *r, icv_err *err)
{
    sv_set s;
    int rc = sv_render(&s, 2, NV, NOISE, seed, err);
    if (rc) {
        sv_free(&s);
        return rc;
    }
    icv_vec3 X[NP];
    calib_observations o1, o2;
    sv_observations(&s, 0, X, &o1);
    sv_observations(&s, 1, X, &o2);
    calib_stereo st;
    rc = calib_stereo_calibrate(&o1, &o2, NULL, &st, err);
    if (rc)
        goto out;
    r->focal_rel = r->pp_px = r->dist_px = 0;
    for (int c = 0; c < 2; c++) {
        const calib_intrinsics *t = &s.in[c], *e = &st.cam[c].in, *sd = &st.cam[c].std;
        r->focal_rel = fmax(r->focal_rel, fmax(fabs(e->fx - t->fx) / t->fx, fabs(e->fy - t->fy) / t->fy));
        r->pp_px = fmax(r->pp_px, fmax(fabs(e->cx - t->cx), fabs(e->cy - t->cy)));
        r->dist_px = fmax(r->dist_px, sv_distortion_error(t, e));
        double te[8][3] = {{t->fx, e->fx, sd->fx},       {t->fy, e->fy, sd->fy},
                           {t->cx, e->cx, sd->cx},       {t->cy, e->cy, sd->cy},
                           {t->dist[0], e->dist[0], sd->dist[0]}, {t->dist[1], e->dist[1], sd->dist[1]},
                           {t->dist[2], e->dist[2], sd->dist[2]}, {t->dist[3], e->dist[3], sd->dist[3]}};
        for (int k = 0; k < 8; k++)
            r->z[8 * c + k] = (te[k][1] - te[k][0]) / te[k][2];
    }
    icv_mat3 Rt, Re;
    memcpy(Rt.m, s.R, sizeof Rt.m);
    memcpy(Re.m, st.R, sizeof Re.m);
    icv_vec3 omt = icv_rot_to_axis_angle(Rt), ome = icv_rot_to_axis_angle(Re);
    double omd[3] = {ome.x - omt.x, ome.y - omt.y, ome.z - omt.z};
    for (int k = 0; k < 3; k++) {
        r->z[16 + k] = (st.T[k] - s.T[k]) / st.T_std[k];
        r->z[19 + k] = omd[k] / st.om_std[k];
    }
    double bt = sqrt(s.T[0] * s.T[0] + s.T[1] * s.T[1] + s.T[2] * s.T[2]);
    r->z[22] = (st.baseline - bt) / st.baseline_std;
    r->baseline_rel = fabs(st.baseline - bt) / bt;
    r->rms = st.rms;
    r->epipolar = st.epipolar;
    r->n_used = st.n_used;
    r->n_missed = s.n_missed;
    /* the surface frame from the board lying on the surface, seen by both cameras */
    calib_pt2 s1[NP], s2[NP];
    calib_detection i1, i2;
    if (!sv_detect(&s, 0, s.surf[0], s1, &i1) || !sv_detect(&s, 1, s.surf[1], s2, &i2)) {
        rc = icv_err_set(err, ICV_ENOTFOUND, "seed %lu: the board on the surface was not found", seed);
    } else {
        calib_surface sf;
        rc = calib_surface_from_stereo(&st.cam[0].in, &st.cam[1].in, st.R, st.T, &s.board, s1, s2, &sf, err);
        if (!rc) {
            r->normal_deg = angle_deg(col(sf.R, 1), col(s.surf_R, 1));
            r->origin_mm = 1e3 * icv_v3_norm(icv_v3_sub(sf.t, s.surf_t));
        }
    }
    calib_stereo_free(&st);
out:
    sv_free(&s);
    return rc;
}

/* ---- the coverage table ---------------------------------------------------- */

/* Prints how often the truth was within 2 SE per parameter; returns the count. */
static int coverage_table(const char *what, const char *const *names, int np, const double *z, int ns)
{
    int inside = 0;
    printf("    %s: truth within 2 standard errors, %d seeds\n", what, ns);
    printf("    %-9s %7s %10s %10s\n", "parameter", "inside", "rms z", "worst |z|");
    for (int k = 0; k < np; k++) {
        int in = 0;
        double s2 = 0, worst = 0;
        for (int i = 0; i < ns; i++) {
            double zz = z[i * np + k];
            in += fabs(zz) <= 2;
            s2 += zz * zz;
            worst = fmax(worst, fabs(zz));
        }
        inside += in;
        printf("    %-9s %4d/%-2d %10.2f %10.2f\n", names[k], in, ns, sqrt(s2 / ns), worst);
    }
    printf("    all       %d/%d (%.1f%%; a Gaussian gives 95.4%%, issue #6 asks >= 90%%)\n", inside, np * ns,
           100.0 * inside / (np * ns));
    return inside;
}

TEST(test_calib_rendered_mono_meets_synthetic_targets)
{
    if (th_sanitized()) /* rendering is ~5x slower there; the video tests run calib's new code under ASan */
        SKIP("image-level accuracy runs in the plain pass");
    int ns = th_accuracy() ? NSEEDS : 1;
    mono_result *res = calloc((size_t)ns, sizeof *res);
    double *z = calloc((size_t)ns * MONO_PAR, sizeof *z);
    ASSERT(res && z, "oom");
    double worst_f = 0, worst_c = 0, worst_d = 0;
    int fails = 0;
    for (int i = 0; i < ns; i++) {
        icv_err err = {0};
        int rc = mono_seed((unsigned long)i + 1, &res[i], &err);
        if (rc) {
            free(res), free(z);
            ASSERT(0, "seed %d: %s", i + 1, err.msg);
        }
        memcpy(z + i * MONO_PAR, res[i].z, sizeof res[i].z);
        worst_f = fmax(worst_f, res[i].focal_rel);
        worst_c = fmax(worst_c, res[i].pp_px);
        worst_d = fmax(worst_d, res[i].dist_px);
        if (th_accuracy())
            printf("    seed %2d: focal %.4f%%  pp %.3f px  distortion %.3f px  rms %.4f px  %d views used, %d rendered "
                   "without the board found\n",
                   i + 1, 100 * res[i].focal_rel, res[i].pp_px, res[i].dist_px, res[i].rms, res[i].n_used,
                   res[i].n_missed);
        fails += res[i].n_used != NV;
    }
    int inside = ns * MONO_PAR;
    if (th_accuracy()) {
        printf("    mono, %d seeds: worst focal %.4f%%, principal point %.3f px, distortion %.3f px\n", ns,
               100 * worst_f, worst_c, worst_d);
        inside = coverage_table("mono (fx fy cx cy k1 k2 p1 p2)", mono_names, MONO_PAR, z, ns);
    }
    double worst_z = 0;
    for (int i = 0; i < ns * MONO_PAR; i++)
        worst_z = fmax(worst_z, fabs(z[i]));
    free(res), free(z);
    ASSERT_EQ_INT(fails, 0);              /* no view dropped as an outlier */
    ASSERT(worst_f < 0.002, "focal length off by %.4f%% (issue #6: 0.2%%)", 100 * worst_f);
    ASSERT(worst_c < 1.0, "principal point off by %.3f px (issue #6: 1 px)", worst_c);
    ASSERT(worst_d < 0.2, "distortion: worst projection error %.3f px (issue #6: 0.2 px)", worst_d);
    if (th_accuracy())
        ASSERT(inside >= 0.9 * ns * MONO_PAR, "truth within 2 SE for %d of %d parameters (issue #6: >= 90%%)", inside,
               ns * MONO_PAR);
    else /* one seed cannot show 90%: no parameter beyond 4 SE (1 in 16000 for an honest Gaussian SE) */
        ASSERT(worst_z < 4, "a parameter is %.1f standard errors from the truth", worst_z);
}

TEST(test_calib_rendered_stereo_baseline_and_surface_meet_synthetic_targets)
{
    if (th_sanitized()) /* rendering is ~5x slower there; the video tests run calib's new code under ASan */
        SKIP("image-level accuracy runs in the plain pass");
    int ns = th_accuracy() ? NSEEDS : 1;
    stereo_result *res = calloc((size_t)ns, sizeof *res);
    double *z = calloc((size_t)ns * ST_PAR, sizeof *z);
    ASSERT(res && z, "oom");
    double wf = 0, wc = 0, wd = 0, wb = 0, wn = 0, wo = 0;
    int fails = 0;
    for (int i = 0; i < ns; i++) {
        icv_err err = {0};
        int rc = stereo_seed((unsigned long)i + 1, &res[i], &err);
        if (rc) {
            free(res), free(z);
            ASSERT(0, "seed %d: %s", i + 1, err.msg);
        }
        stereo_result *r = &res[i];
        memcpy(z + i * ST_PAR, r->z, sizeof r->z);
        wf = fmax(wf, r->focal_rel), wc = fmax(wc, r->pp_px), wd = fmax(wd, r->dist_px);
        wb = fmax(wb, r->baseline_rel), wn = fmax(wn, r->normal_deg), wo = fmax(wo, r->origin_mm);
        if (th_accuracy())
            printf("    seed %2d: focal %.4f%%  pp %.3f px  distortion %.3f px  baseline %.4f%%  normal %.4f deg  "
                   "origin %.3f mm  rms %.4f px  epipolar %.4f px  %d pairs used, %d not found\n",
                   i + 1, 100 * r->focal_rel, r->pp_px, r->dist_px, 100 * r->baseline_rel, r->normal_deg,
                   r->origin_mm, r->rms, r->epipolar, r->n_used, r->n_missed);
        fails += r->n_used != NV;
    }
    int inside = ns * ST_PAR;
    if (th_accuracy()) {
        printf("    stereo, %d seeds: worst focal %.4f%%, pp %.3f px, distortion %.3f px, baseline %.4f%%, surface "
               "normal %.4f deg, origin %.3f mm\n",
               ns, 100 * wf, wc, wd, 100 * wb, wn, wo);
        inside = coverage_table("stereo", st_names, ST_PAR, z, ns);
    }
    double worst_z = 0;
    for (int i = 0; i < ns * ST_PAR; i++)
        worst_z = fmax(worst_z, fabs(z[i]));
    free(res), free(z);
    ASSERT_EQ_INT(fails, 0); /* no pair dropped as an outlier */
    ASSERT(wf < 0.002, "focal length off by %.4f%% (issue #6: 0.2%%)", 100 * wf);
    ASSERT(wc < 1.0, "principal point off by %.3f px (issue #6: 1 px)", wc);
    ASSERT(wd < 0.2, "distortion: worst projection error %.3f px (issue #6: 0.2 px)", wd);
    ASSERT(wb < 0.002, "baseline off by %.4f%% (issue #6: 0.2%%)", 100 * wb);
    ASSERT(wn < 0.1, "surface normal off by %.4f deg (issue #6: 0.1 deg)", wn);
    ASSERT(wo < 0.5, "surface origin off by %.3f mm (issue #6: 0.5 mm)", wo);
    if (th_accuracy())
        ASSERT(inside >= 0.9 * ns * ST_PAR, "truth within 2 SE for %d of %d parameters (issue #6: >= 90%%)", inside,
               ns * ST_PAR);
    else /* one seed cannot show 90%: no parameter beyond 4 SE (1 in 16000 for an honest Gaussian SE) */
        ASSERT(worst_z < 4, "a parameter is %.1f standard errors from the truth", worst_z);
}
