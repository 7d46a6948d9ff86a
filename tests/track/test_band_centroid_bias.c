/* test_band_centroid_bias.c: the pose-dependent bias of band markers' centroids
 * (issue #9's video study: the rod's spin before impact 0.011 rad/s low and the impact
 * late on 11-12 of 12 noise seeds, the same on every seed: from the tracks). One short
 * clip of the study's scene (the rod with three bands falling towards the 45-degree
 * slope, stereo 640x480, 240 fps, 2 ms exposure), rendered noiseless and lossless so
 * that only the centroid's model is left, tracked with the true calibration and sync.
 * The box centroid weighs each pixel by I - b with one b for the box, and the rod's and
 * the plate's pixels that the box's integer edges take in moved the bands 0.05-0.15 px
 * from frame to frame; the coverage centroid (track/blob_coverage.c) measures the area.
 *
 * Errors in the reference camera's frame (the run's surface frame undone, the truth
 * through camera 0's pose): a turn of the whole surface frame (calib's, not the
 * track's) does not enter. Figures over the falling frames (release + 2 frames to the
 * clip's end, before the impact): the 3D RMS per marker and the spin the tracked rod
 * shows that the true one has not: the slope (rad/s) of the angle between the tracked
 * and the true direction of the end bands (markers 0 and 2). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/track/true_stereo.h"
#include "job/job.h"
#include "track/track_3d.h"

#define NM 3
#define MAXF 64

static const char *SCENE =
    "name: band_bias\n"
    "seed: 101\n"
    "slope: 0.7853981633974483\n"
    "downhill: [1, 0, 0]\n"
    "duration: 0.2\n"
    "max_impacts: 1\n"
    TH_ROD_BODY_YAML
    "model: {restitution: stronge, mu: 0.15, e_n: 0.45}\n"
    "release: {time: 0.04, position: [0, 0.22, 0], euler213: [0, 0.1, 0.7854]}\n"
    "cameras:\n"
    "  - {id: left, width: 640, height: 480, fx: 600, dist: [-0.12, 0.08, 0.0, 0.0, 0.0],\n"
    "     pose: {look_from: [0.45, 0.89, -0.38], look_at: [0.07, 0.13, 0]}, fps: 240, exposure: 0.002}\n"
    "  - {id: right, width: 640, height: 480, fx: 590, dist: [-0.10, 0.05, 0.0005, -0.0004, 0.0],\n"
    "     pose: {look_from: [0.45, 0.89, 0.38], look_at: [0.07, 0.13, 0]}, fps: 240, exposure: 0.002,\n"
    "     start_offset_frames: 0.37}\n"
    "board: {cols: 9, rows: 6, square: 0.023, views: 1}\n"
    "render: {noise: false, flash: {time: 0.01, duration: 0.002, gain: 0.8}}\n"
    "output: {codec: ffv1}\n";

typedef struct {
    double rms_mm[NM], rms_all_mm; /* 3D RMS over the falling frames */
    double spin;                   /* rad/s: |slope| of the end bands' direction error */
    long n;                        /* points compared */
} bias_figures;

/* Tracks dir's true experiment with or without the coverage centroid; 0 or -1 (why). */
static int run(const char *dir, const char *yaml, int coverage, json_t *truth, bias_figures *bf, char *why, size_t nw)
{
    char out[1200];
    snprintf(out, sizeof out, "%s/out%d", dir, coverage);
    job_track_options opt;
    job_track_options_default(&opt);
    opt.band_coverage = coverage;
    job_track_result res;
    icv_err err;
    icv_err_clear(&err);
    icv_log_level lv = icv_log_get_level();
    icv_log_set_level(ICV_LOG_ERROR);
    int rc = job_track_run(yaml, out, &opt, &res, &err);
    icv_log_set_level(lv);
    if (rc) {
        snprintf(why, nw, "job_track_run: %s", err.msg);
        return -1;
    }
    char path[1300], line[4096];
    snprintf(path, sizeof path, "%s/tracks3d.csv", out);
    FILE *fp = fopen(path, "r");
    if (!fp || !fgets(line, sizeof line, fp)) {
        if (fp)
            fclose(fp);
        snprintf(why, nw, "%s not readable", path);
        return -1;
    }
    static double meas[MAXF][NM][3], tru[MAXF][NM][3];
    for (int f = 0; f < MAXF; f++)
        for (int k = 0; k < NM; k++)
            meas[f][k][0] = tru[f][k][0] = NAN;
    json_t *cam0 = json_array_get(json_object_get(truth, "cameras"), 0), *m3 = json_object_get(truth, "markers_3d");
    double R0[3][3], t0[3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            R0[i][j] = ts_jnum(json_array_get(json_object_get(cam0, "R"), (size_t)i), (size_t)j);
        t0[i] = ts_jnum(json_object_get(cam0, "t"), (size_t)i);
    }
    while (fgets(line, sizeof line, fp)) {
        char *fld[2 + 3 * NM];
        int nf = 0;
        fld[nf++] = line;
        for (char *c = line; *c && nf < 2 + 3 * NM; c++)
            if (*c == ',')
                *c = '\0', fld[nf++] = c + 1;
        long f = atol(line);
        if (nf != 2 + 3 * NM || f < 0 || f >= MAXF)
            continue;
        for (int k = 0; k < NM; k++) {
            json_t *q = json_array_get(json_object_get(json_array_get(m3, (size_t)f), "positions"), (size_t)k);
            if (!fld[2 + 3 * k][0] || fld[2 + 3 * k][0] == '\n' || !json_is_array(q))
                continue; /* not triangulated, or not in view */
            for (int c = 0; c < 3; c++) { /* both to the reference camera's frame */
                meas[f][k][c] = res.surface_t[c];
                tru[f][k][c] = t0[c];
                for (int j = 0; j < 3; j++) {
                    meas[f][k][c] += res.surface_R[c][j] * atof(fld[2 + 3 * k + j]);
                    tru[f][k][c] += R0[c][j] * ts_jnum(q, (size_t)j);
                }
            }
        }
    }
    fclose(fp);
    double fps = json_number_value(json_object_get(cam0, "fps"));
    long f0 = (long)ceil(json_number_value(json_object_get(truth, "release_time_s")) * fps) + 2;
    double ss[NM] = {0}, ss_all = 0;
    long nk[NM] = {0};
    /* least-squares slope of each component of (true direction) x (tracked direction) */
    double St = 0, Stt = 0, Sr[3] = {0}, Str[3] = {0};
    long nr = 0;
    bf->n = 0;
    for (long f = f0; f < MAXF; f++) {
        for (int k = 0; k < NM; k++)
            if (!isnan(meas[f][k][0]) && !isnan(tru[f][k][0]))
                for (int c = 0; c < 3; c++) {
                    double e = meas[f][k][c] - tru[f][k][c];
                    ss[k] += e * e, ss_all += e * e;
                    nk[k] += c == 0, bf->n += c == 0;
                }
        if (isnan(meas[f][0][0]) || isnan(meas[f][2][0]) || isnan(tru[f][0][0]) || isnan(tru[f][2][0]))
            continue;
        double a[3], b[3], na = 0, nb = 0;
        for (int c = 0; c < 3; c++) {
            a[c] = tru[f][0][c] - tru[f][2][c], b[c] = meas[f][0][c] - meas[f][2][c];
            na += a[c] * a[c], nb += b[c] * b[c];
        }
        double r[3] = {(a[1] * b[2] - a[2] * b[1]) / sqrt(na * nb), (a[2] * b[0] - a[0] * b[2]) / sqrt(na * nb),
                       (a[0] * b[1] - a[1] * b[0]) / sqrt(na * nb)};
        double tf = f / fps;
        St += tf, Stt += tf * tf, nr++;
        for (int c = 0; c < 3; c++)
            Sr[c] += r[c], Str[c] += tf * r[c];
    }
    for (int k = 0; k < NM; k++)
        bf->rms_mm[k] = nk[k] ? 1e3 * sqrt(ss[k] / (3.0 * nk[k])) : NAN;
    bf->rms_all_mm = bf->n ? 1e3 * sqrt(ss_all / (3.0 * bf->n)) : NAN;
    double den = nr * Stt - St * St, s2 = 0;
    for (int c = 0; c < 3; c++) {
        double sl = nr > 2 && den > 0 ? (nr * Str[c] - St * Sr[c]) / den : NAN;
        s2 += sl * sl;
    }
    bf->spin = sqrt(s2);
    return 0;
}

TEST(test_band_centroids_have_no_pose_dependent_bias_on_a_falling_rod)
{
    const char *dir = th_tmpdir();
    char scen[1100], yaml[1200], why[600];
    snprintf(scen, sizeof scen, "%s/scene.yaml", dir);
    ASSERT(th_write_file(scen, SCENE) == 0, "cannot write %s", scen);
    th_proc p;
    int st = th_run_cli(&p, "-q synth '%s' -o '%s'", scen, dir);
    ASSERT(st == 0, "synth: %s", p.err);
    char tpath[1200];
    snprintf(tpath, sizeof tpath, "%s/truth.json", dir);
    json_t *truth = json_load_file(tpath, 0, NULL);
    ASSERT(truth != NULL, "%s not readable", tpath);
    ASSERT(ts_write_true_experiment(truth, dir, 640, 480, "band_bias", "", "mkv", "true_experiment.yaml", yaml, sizeof yaml) == 0, "cannot write the true experiment in %s", dir);
    bias_figures box, cov;
    int rb = run(dir, yaml, 0, truth, &box, why, sizeof why);
    int rcv = rb == 0 ? run(dir, yaml, 1, truth, &cov, why, sizeof why) : -1;
    json_decref(truth);
    ASSERT(rb == 0 && rcv == 0, "%s", why);
    printf("    box centroid:      3D RMS %.3f mm (markers %.3f %.3f %.3f), spin of the tracked rod %.4f rad/s, %ld "
           "points\n",
           box.rms_all_mm, box.rms_mm[0], box.rms_mm[1], box.rms_mm[2], box.spin, box.n);
    printf("    coverage centroid: 3D RMS %.3f mm (markers %.3f %.3f %.3f), spin of the tracked rod %.4f rad/s, %ld "
           "points\n",
           cov.rms_all_mm, cov.rms_mm[0], cov.rms_mm[1], cov.rms_mm[2], cov.spin, cov.n);
    /* every falling frame's three bands triangulated (12 to 47: 36 frames) */
    ASSERT(cov.n == 3 * 36, "%ld points of the falling frames", cov.n);
    /* noiseless, lossless, true calibration and sync: what is left is the centroid's
       model (the band shift's is < 0.01 px, docs/pipeline.md); the box centroid
       measures 0.078 mm here, the coverage centroid 0.033 */
    ASSERT(cov.rms_all_mm <= 0.05, "3D RMS %.3f mm > 0.05 mm", cov.rms_all_mm);
    /* the study's omega_pre sigma is ~0.002 rad/s: a spin bias of 0.003 rad/s would
       still show as 1.5 sigma on every seed; the box centroid's was 0.009 here (0.011
       in the study), the coverage centroid's 0.001 */
    ASSERT(cov.spin <= 0.003, "the tracked rod spins %.4f rad/s more than the true one (limit 0.003)", cov.spin);
    /* the limits tell the centroids apart: the box centroid's bias fails both */
    ASSERT(box.rms_all_mm > 0.05 && box.spin > 0.003, "the box centroid meets the limits (%.3f mm, %.4f rad/s)",
           box.rms_all_mm, box.spin);
}
