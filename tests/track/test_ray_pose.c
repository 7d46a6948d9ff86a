/* test_ray_pose.c: the body's pose from triangulated markers and the ray of a marker one
 * camera alone sees (ray_pose.c, issue #18: stereo random scenes stopped with "only N
 * posed frames after it" where a marker was hidden from one camera after the impact).
 * A synthetic two-camera sequence with exact geometry and Gaussian centroid noise: the
 * markers each camera sees are triangulated (track_triangulate), marker 2 is hidden from
 * the second camera after the impact, and its first-camera ray completes the pose; then
 * the same through the whole track stage on a rendered scene. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "tests/harness.h"
#include "tests/track/true_stereo.h"
#include "job/job.h"
#include "track/track_3d.h"

#define NM 3
#define NF 40
#define IMPACT 15   /* frames from here on: marker 2 hidden from camera 1 */
#define SIGMA_PX 0.1

static const icv_vec3 tmpl[NM] = {{0.07, 0.015, 0}, {-0.07, 0.015, 0.01}, {0.0, 0.0, -0.02}};

/* camera c looking at the origin from `from` (y up in the surface frame), fx = fy = 800 */
static void camera(icv_vec3 from, track_view *v)
{
    icv_vec3 z = icv_v3_unit(icv_v3_scale(from, -1)), x = icv_v3_unit(icv_v3_cross(icv_v3(0, -1, 0), z));
    icv_vec3 y = icv_v3_cross(z, x);
    memset(v, 0, sizeof *v);
    double K[3][3] = {{800, 0, 320}, {0, 800, 240}, {0, 0, 1}};
    memcpy(v->K, K, sizeof K);
    icv_vec3 rows[3] = {x, y, z};
    for (int i = 0; i < 3; i++) {
        v->R[i][0] = rows[i].x, v->R[i][1] = rows[i].y, v->R[i][2] = rows[i].z;
        v->t[i] = -icv_v3_dot(rows[i], from);
    }
    v->sigma = SIGMA_PX;
}

static unsigned long long rng = 12345;
static double gauss(void) /* Box-Muller on a 64-bit LCG: deterministic */
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        u[i] = ((rng >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

static void project(const track_view *c, icv_vec3 X, track_view *out)
{
    *out = *c;
    double xc[3];
    for (int i = 0; i < 3; i++)
        xc[i] = c->R[i][0] * X.x + c->R[i][1] * X.y + c->R[i][2] * X.z + c->t[i];
    out->u = c->K[0][0] * xc[0] / xc[2] + c->K[0][2] + SIGMA_PX * gauss();
    out->v = c->K[1][1] * xc[1] / xc[2] + c->K[1][2] + SIGMA_PX * gauss();
}

/* The ray of view v's pixel, surface frame: the obs ray_pose takes. */
static track_pose_obs ray_of(const track_view *v, int marker)
{
    double x = (v->u - v->K[0][2]) / v->K[0][0], y = (v->v - v->K[1][2]) / v->K[1][1];
    icv_vec3 d = icv_v3(0, 0, 0), o = icv_v3(0, 0, 0);
    for (int k = 0; k < 3; k++) {
        icv_vec3 col = icv_v3(v->R[k][0], v->R[k][1], v->R[k][2]); /* row k of R = column k of R^T */
        d = icv_v3_axpy(k == 0 ? x : k == 1 ? y : 1, col, d);
        o = icv_v3_axpy(-v->t[k], col, o);
    }
    return (track_pose_obs){.marker = marker, .is_ray = 1, .o = o, .d = icv_v3_unit(d),
                            .sigma_rad = v->sigma / v->K[0][0]};
}

/* The true pose at frame f: falling and turning, bouncing at IMPACT. */
static void true_pose(int f, icv_mat3 *R, icv_vec3 *p)
{
    double t = f / 240.0, ti = IMPACT / 240.0;
    icv_vec3 v = f < IMPACT ? icv_v3(0.3, -1.5, 0.1) : icv_v3(0.5, 0.6, 0.1);
    double tt = f < IMPACT ? t : t - ti;
    icv_vec3 p0 = f < IMPACT ? icv_v3(0, 0.1, 0) : icv_v3(0.3 * ti, 0.1 - 1.5 * ti, 0.1 * ti);
    *p = icv_v3_axpy(tt, v, p0);
    icv_vec3 w = f < IMPACT ? icv_v3(0.5, 1, 3) : icv_v3(-4, 2, 6);
    icv_mat3 R0 = icv_rot_from_axis_angle(icv_v3(0.1, 0.3, 0.05));
    if (f >= IMPACT)
        R0 = icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(icv_v3(0.5, 1, 3), ti)), R0);
    *R = icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(w, tt)), R0);
}

TEST(test_ray_pose_marker_hidden_from_one_camera_after_the_impact_is_posed_within_its_sigma)
{
    track_view cam[2];
    camera(icv_v3(0.45, 0.89, -0.38), &cam[0]);
    camera(icv_v3(0.45, 0.89, 0.38), &cam[1]);
    analysis_template at;
    ASSERT_EQ_INT(analysis_template_init(&at, tmpl, NM, NULL), 0);
    track_pose prior;
    int have_prior = 0, posed = 0, old_posed = 0, n_z = 0;
    double worst_mm = 0, z2 = 0;
    for (int f = 0; f < NF; f++) {
        icv_mat3 R;
        icv_vec3 p;
        true_pose(f, &R, &p);
        track_pose_obs obs[NM + 1];
        int n = 0, valid[NM] = {0};
        icv_vec3 X3[NM];
        for (int k = 0; k < NM; k++) {
            icv_vec3 Y = icv_v3_add(icv_m3_apply(R, tmpl[k]), p);
            track_view v[2];
            project(&cam[0], Y, &v[0]);
            project(&cam[1], Y, &v[1]);
            if (k == 2 && f >= IMPACT) { /* camera 1 does not see it: camera 0's ray */
                obs[n++] = ray_of(&v[0], k);
                continue;
            }
            track_point3d X;
            ASSERT_EQ_INT(track_triangulate(v, 2, &X, NULL), 0);
            obs[n] = (track_pose_obs){.marker = k, .X = icv_v3_from_array(X.X)};
            memcpy(obs[n].cov, X.cov, sizeof X.cov);
            X3[k] = obs[n].X;
            valid[k] = 1;
            n++;
        }
        /* the old way, the triangulated markers alone: no pose after the impact */
        analysis_pose ap;
        old_posed += analysis_pose_fit(&at, X3, valid, NULL, NULL, &ap, NULL) == 0;
        track_pose pose;
        icv_err err;
        int rc = track_ray_pose_fit(tmpl, NM, obs, n, have_prior ? &prior : NULL, &pose, &err);
        ASSERT(rc == 0, "frame %d: %s", f, err.msg);
        prior = pose;
        have_prior = 1;
        posed++;
        for (int k = 0; k < NM; k++) {
            icv_vec3 Y, Yt = icv_v3_add(icv_m3_apply(R, tmpl[k]), p);
            double C[3][3];
            track_ray_pose_marker(&pose, tmpl[k], &Y, C);
            icv_vec3 e = icv_v3_sub(Y, Yt);
            worst_mm = fmax(worst_mm, 1e3 * icv_v3_norm(e));
            if (f >= IMPACT)
                for (int a = 0; a < 3; a++) {
                    double s = sqrt(C[a][a]);
                    z2 += icv_v3_get(e, a) * icv_v3_get(e, a) / (s * s);
                    n_z++;
                }
        }
    }
    double zrms = sqrt(z2 / n_z);
    printf("    [ray pose] %d of %d frames posed (triangulated markers alone: %d), worst marker error %.3f mm, "
           "error/sigma RMS %.2f over %d axes after the impact\n",
           posed, NF, old_posed, worst_mm, zrms, n_z);
    ASSERT_EQ_INT(old_posed, IMPACT); /* what analysis could pose before: the frames before the impact */
    ASSERT_EQ_INT(posed, NF);
    /* 0.1 px at 800 px focal and ~1 m is 0.13 mm across a ray; the depth of two-camera
       points at this baseline ~3x that: 1 mm is over 5 sigma for any marker */
    ASSERT(worst_mm < 1.0, "worst marker %.3f mm from the truth", worst_mm);
    /* an honest covariance: error/sigma RMS 1 (225 samples: its spread ~0.05; 0.6-1.5 catches
       a covariance wrong by a factor of 2 in variance) */
    ASSERT(zrms > 0.6 && zrms < 1.5, "error/sigma RMS %.2f", zrms);
}

TEST(test_ray_pose_ray_of_another_point_is_refused)
{
    track_view cam[2];
    camera(icv_v3(0.45, 0.89, -0.38), &cam[0]);
    camera(icv_v3(0.45, 0.89, 0.38), &cam[1]);
    icv_mat3 R;
    icv_vec3 p;
    true_pose(IMPACT + 3, &R, &p);
    track_pose_obs obs[NM];
    for (int k = 0; k < NM; k++) {
        icv_vec3 Y = icv_v3_add(icv_m3_apply(R, tmpl[k]), p);
        track_view v[2];
        project(&cam[0], Y, &v[0]);
        project(&cam[1], Y, &v[1]);
        if (k == 2) {
            v[0].u += 8; /* a glint 8 px beside the marker: 80 sigma */
            obs[k] = ray_of(&v[0], k);
            continue;
        }
        track_point3d X;
        ASSERT_EQ_INT(track_triangulate(v, 2, &X, NULL), 0);
        obs[k] = (track_pose_obs){.marker = k, .X = icv_v3_from_array(X.X)};
        memcpy(obs[k].cov, X.cov, sizeof X.cov);
    }
    track_pose pose;
    icv_err err;
    ASSERT(track_ray_pose_fit(tmpl, NM, obs, NM, NULL, &pose, &err) == ICV_ENOTFOUND, "a ray 8 px off was taken");
    ASSERT_STR_CONTAINS(err.msg, "chi-square");
    /* and too few values for the pose: one point and one ray */
    obs[1] = obs[2];
    ASSERT(track_ray_pose_fit(tmpl, NM, obs, 2, NULL, &pose, &err) == ICV_ENOTFOUND, "5 values posed 6 parameters");
}

/* A bar with three balls sliding out of the right camera's narrow view after it lands:
 * the right camera loses the leading ball (m2) from the frame after the impact on while
 * it keeps the other two for 17 frames; the left camera sees all three throughout. */
static const char *leaving_scenario =
    "name: bar_leaves_right_view\nseed: 7\nduration: 0.15\nmax_impacts: 1\nbody:\n  mass: 0.1\n"
    "  inertia: [[2.2e-5, 0, 0], [0, 3.5e-4, 0], [0, 0, 3.4e-4]]\n"
    "  markers: [[-0.07, 0.02, 0], [0.0, 0.02, 0.015], [0.07, 0.02, 0]]\n  marker_diameter: 0.012\n"
    "  marker_style: sphere\n  shape: {type: box, size: [0.2, 0.03, 0.04]}\n"
    "model: {restitution: stronge, mu: 0.1, e_n: 0.5}\n"
    "release: {time: 0.005, position: [-0.05, 0.06, 0], euler213: [0, 0.0, 0.03], velocity: [0.6, -0.8, 0], "
    "omega: [0, 0, 0]}\n"
    "cameras:\n"
    "  - {id: left, width: 640, height: 360, fx: 600, dist: [0, 0, 0, 0, 0], fps: 240, exposure: 0.001,\n"
    "     pose: {look_from: [-0.3, 0.7, 0.8], look_at: [0.0, 0.0, 0]}}\n"
    "  - {id: right, width: 640, height: 360, fx: 1100, dist: [0, 0, 0, 0, 0], fps: 240, exposure: 0.001,\n"
    "     pose: {look_from: [0.3, 0.7, 0.8], look_at: [-0.335, 0.0, 0]}}\n"
    "board: {cols: 9, rows: 6, square: 0.023, views: 12}\nrender: {flash: none}\noutput: {codec: h264, crf: 18}\n";

/* m2's written positions in the frames where the right camera sees m0 and m1 but not m2,
 * the left sees all three, and m0 and m1 were written: how many of those frames, how many written, and their RMS
 * and worst distance from the truth (mm, the reference camera's frame: the run's surface
 * frame from the given plane has its own x axis). */
static void leaving_m2(json_t *truth, const char *odir, const job_track_result *res, int *n_frames,
                       int *n_written, double *rms_mm, double *worst_mm)
{
    json_t *cam0 = json_array_get(json_object_get(truth, "cameras"), 0);
    double R0[3][3], t0[3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            R0[i][j] = ts_jnum(json_array_get(json_object_get(cam0, "R"), (size_t)i), (size_t)j);
        t0[i] = ts_jnum(json_object_get(cam0, "t"), (size_t)i);
    }
    json_t *m2d = json_object_get(truth, "markers_2d"), *m3 = json_object_get(truth, "markers_3d");
    json_t *L = json_object_get(m2d, "left"), *Rt = json_object_get(m2d, "right");
    *n_frames = *n_written = 0;
    *worst_mm = 0;
    double ss = 0;
    char path[1200], line[2048];
    snprintf(path, sizeof path, "%s/tracks3d.csv", odir);
    FILE *fp = fopen(path, "r");
    if (!fp || !fgets(line, sizeof line, fp)) {
        if (fp)
            fclose(fp);
        *rms_mm = INFINITY;
        return;
    }
    while (fgets(line, sizeof line, fp)) {
        char *f[11], *q = line;
        int nf = 0;
        for (f[nf++] = q; *q && nf < 11; q++)
            if (*q == ',') {
                *q = '\0';
                f[nf++] = q + 1;
            }
        long fr = atol(f[0]);
        json_t *ul = json_object_get(json_array_get(L, (size_t)fr), "uv");
        json_t *ur = json_object_get(json_array_get(Rt, (size_t)fr), "uv");
        int want = nf == 11 && json_is_array(json_array_get(ul, 2)) && json_is_array(json_array_get(ul, 0)) &&
                   json_is_array(json_array_get(ul, 1)) && json_is_array(json_array_get(ur, 0)) &&
                   json_is_array(json_array_get(ur, 1)) && !json_is_array(json_array_get(ur, 2));
        /* and the run placed m0 and m1 (the identity leaves a few frames of this scene with
           one: not the ray pose's to fill) */
        if (!want || !f[2][0] || !f[5][0])
            continue;
        (*n_frames)++;
        if (!f[8][0] || f[8][0] == '\n')
            continue;
        (*n_written)++;
        json_t *pt = json_array_get(json_object_get(json_array_get(m3, (size_t)fr), "positions"), 2);
        double d2 = 0;
        for (int c = 0; c < 3; c++) {
            double xc = res->surface_t[c], xt = t0[c];
            for (int j = 0; j < 3; j++) {
                xc += res->surface_R[c][j] * atof(f[8 + j]);
                xt += R0[c][j] * ts_jnum(pt, (size_t)j);
            }
            d2 += (xc - xt) * (xc - xt);
        }
        ss += d2;
        *worst_mm = fmax(*worst_mm, 1e3 * sqrt(d2));
    }
    fclose(fp);
    *rms_mm = *n_written ? 1e3 * sqrt(ss / *n_written) : INFINITY;
}

TEST(test_ray_pose_pipeline_marker_leaving_one_view_after_the_impact_keeps_its_position)
{
    const char *dir = th_tmpdir();
    char path[1200], exp_dir[1100], yaml[1200];
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    th_write_file(path, leaving_scenario);
    snprintf(exp_dir, sizeof exp_dir, "%s/exp", dir);
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "-q synth %s -o %s", path, exp_dir), 0);
    snprintf(path, sizeof path, "%s/truth.json", exp_dir);
    json_t *truth = json_load_file(path, 0, NULL);
    ASSERT(truth != NULL, "%s", path);
    /* the true calibration, and the surface as a plane: the right camera's narrow view
       holds neither the board on the surface nor most calibration views */
    double off[2];
    (void)ts_write_true_experiment; /* the header's other helper: a sample's experiment */
    ASSERT_EQ_INT(ts_write_true_stereo(truth, exp_dir, 640, 360, off), 0);
    json_t *cam0 = json_array_get(json_object_get(truth, "cameras"), 0);
    double Rn[3], t0[3];
    for (int i = 0; i < 3; i++) {
        Rn[i] = ts_jnum(json_array_get(json_object_get(cam0, "R"), (size_t)i), 1); /* the surface y, camera frame */
        t0[i] = ts_jnum(json_object_get(cam0, "t"), (size_t)i);
    }
    char text[2048];
    snprintf(text, sizeof text,
             "name: leaving\ncameras:\n  - {id: left, video: left.mp4}\n  - {id: right, video: right.mp4}\n"
             "calibration: {board: {cols: 9, rows: 6, square: 0.023}, file: true.yaml}\n"
             "surface: {plane: {point: [%.17g, %.17g, %.17g], normal: [%.17g, %.17g, %.17g]}}\n"
             "sync: {offsets: {left: %.17g, right: %.17g}}\n"
             "body:\n  mass: 0.1\n  inertia: [[2.2e-5, 0, 0], [0, 3.5e-4, 0], [0, 0, 3.4e-4]]\n"
             "  markers: [[-0.07, 0.02, 0], [0.0, 0.02, 0.015], [0.07, 0.02, 0]]\n  marker_diameter: 0.012\n"
             "  shape: {type: box, size: [0.2, 0.03, 0.04]}\n",
             t0[0], t0[1], t0[2], Rn[0], Rn[1], Rn[2], -off[0], -off[1]);
    snprintf(yaml, sizeof yaml, "%s/experiment_true.yaml", exp_dir);
    th_write_file(yaml, text);
    int nf[2], nw[2];
    double rms[2], worst[2];
    for (int on = 0; on < 2; on++) {
        job_track_options opt;
        job_track_options_default(&opt);
        opt.ray_pose = on;
        job_track_result res;
        icv_err err;
        char odir[1200];
        snprintf(odir, sizeof odir, "%s/out%d", dir, on);
        icv_log_level lv = icv_log_get_level();
        icv_log_set_level(ICV_LOG_ERROR);
        int rc = job_track_run(yaml, odir, &opt, &res, &err);
        icv_log_set_level(lv);
        if (rc)
            json_decref(truth);
        ASSERT(rc == 0, "job_track_run (ray_pose %d): %s", on, err.msg);
        leaving_m2(truth, odir, &res, &nf[on], &nw[on], &rms[on], &worst[on]);
    }
    json_decref(truth);
    printf("    [m2 out of the right view after the impact] %d frames: written in %d without the ray pose, %d with it, "
           "RMS %.3f mm, worst %.3f mm from the truth\n",
           nf[1], nw[0], nw[1], rms[1], worst[1]);
    ASSERT(nf[1] >= 10, "only %d frames with m2 out of the right view", nf[1]); /* as drawn: 17, 13 with m0, m1 */
    ASSERT_EQ_INT(nw[0], 0);                                                   /* before: never */
    ASSERT(nw[1] >= 0.9 * nf[1], "m2 written in %d of %d frames", nw[1], nf[1]);
    /* issue #8's 3D figure with the true calibration is 0.2 mm; a marker on one ray at
       the pose of two triangulated ones, its depth from the template: 1 mm RMS, 2 mm
       worst (5-10x the triangulated figure, for a 0.1 px ray on a 0.14 m lever) */
    ASSERT(rms[1] < 1.0 && worst[1] < 2.0, "m2 RMS %.3f mm, worst %.3f mm", rms[1], worst[1]);
}
