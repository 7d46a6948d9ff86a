/* test_analyze_no_cameras.c: `impactcv analyze EXP --tracks FILE` for an experiment
 * without cameras or calibration (issue #20 item 5): tracks from another system
 * as TRC (mm, an extra marker, chosen by body.marker_labels), C3D (written by
 * report's exporter) and tracks3d.csv (metres, a NaN), in a lab frame with z up and the surface 3 cm above its
 * origin. The known impact (tests/analysis/impact_scenario.h) must come back in the
 * surface frame with the tolerances of test_analyze_cli.c; each bad input gives
 * one line. */
#include <jansson.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "report/report.h"
#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

/* the surface frame's axes and origin in the lab frame (z up): what
   surface.plane {point: P0, normal: [0, 0, 1]} gives (x the lab's x, y its z) */
static const icv_vec3 P0 = {0.5, -0.2, 0.03}, EX = {1, 0, 0}, EY = {0, 0, 1}, EZ = {0, -1, 0};

static icv_vec3 to_lab(icv_vec3 p)
{
    return icv_v3_add(P0, icv_v3_add(icv_v3_scale(EX, p.x), icv_v3_add(icv_v3_scale(EY, p.y), icv_v3_scale(EZ, p.z))));
}

static const char exp_yaml[] = "name: lab_drop\n"
                               "surface: {plane: {point: [0.5, -0.2, 0.03], normal: [0, 0, 1]}}\n"
                               "gravity: [0, -9.81, 0]\n"
                               "body:\n"
                               "  mass: 0.5\n"
                               "  inertia: [[%.10g,0,0],[0,%.10g,0],[0,0,%.10g]]\n"
                               "  markers: [[0.09,0.02,0.02],[-0.09,0.02,-0.02],[0.0,0.02,0.03],[0.05,-0.02,0.0]]\n"
                               "%s"
                               "  shape: {type: box, size: [0.2, 0.04, 0.06]}\n"
                               "model: {restitution: stronge, mu: measured, e_n: measured}\n";

static void write_exp(const scenario *s, const char *name, const char *labels)
{
    char text[4096];
    snprintf(text, sizeof text, exp_yaml, s->body.inertia.m[0][0], s->body.inertia.m[1][1], s->body.inertia.m[2][2],
             labels);
    th_write_file(th_tmp(name), text);
}

/* OpenSim's TRC layout; marker "ref" (a still marker on the floor) first, then the
   body's B1..B4, in mm; B3 missing in frame 5 */
static void write_trc(const analysis_tracks *tr, const char *path)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "PathFileType\t4\t(X/Y/Z)\tlab.trc\n"
               "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n"
               "120.00\t120.00\t%d\t5\tmm\t120.00\t1\t%d\n"
               "Frame#\tTime\tref\t\t\tB1\t\t\tB2\t\t\tB3\t\t\tB4\t\t\t\n"
               "\t\tX1\tY1\tZ1\tX2\tY2\tZ2\tX3\tY3\tZ3\tX4\tY4\tZ4\tX5\tY5\tZ5\n\n",
            tr->n_frames, tr->n_frames);
    for (int i = 0; i < tr->n_frames; i++) {
        fprintf(f, "%d\t%.6f\t100.000000\t200.000000\t30.000000", i + 1, tr->t[i]);
        for (int k = 0; k < tr->n_markers; k++) {
            icv_vec3 p = to_lab(tr->pos[i * tr->n_markers + k]);
            if (i == 5 && k == 2)
                fprintf(f, "\t\t\t");
            else
                fprintf(f, "\t%.6f\t%.6f\t%.6f", 1e3 * p.x, 1e3 * p.y, 1e3 * p.z);
        }
        fprintf(f, "\n");
    }
    fclose(f);
}

static void check_results(const scenario *s, const char *out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/results.json", out);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    ASSERT(root, "results.json: %s", je.text);
    json_t *im = json_array_get(json_object_get(root, "impacts"), 0);
    double t = json_number_value(json_object_get(im, "time_s"));
    double e = json_number_value(json_object_get(im, "e_kinematic"));
    double ratio = json_number_value(json_object_get(im, "impulse_ratio"));
    json_t *v = json_object_get(json_object_get(im, "pre"), "v");
    icv_vec3 vpre = icv_v3(json_number_value(json_array_get(v, 0)), json_number_value(json_array_get(v, 1)),
                           json_number_value(json_array_get(v, 2)));
    int n_impacts = (int)json_array_size(json_object_get(root, "impacts"));
    json_decref(root);
    ASSERT_EQ_INT(n_impacts, 1);
    ASSERT_NEAR(t, s->t_star, 0.2 / 120); /* issue #9 tolerances, as in test_analyze_cli.c */
    ASSERT_NEAR(e, s->e, 0.01);
    ASSERT_NEAR(ratio, s->ratio, 0.01);
    /* in the surface frame, not the lab's: the lab's z is the surface's y; 0.01 m/s
       is 1% of the ~1 m/s speed (the fits' error on 0.2 mm noise is ~1e-3) */
    ASSERT_NEAR(vpre.x, s->v_pre.x, 0.01);
    ASSERT_NEAR(vpre.y, s->v_pre.y, 0.01);
    ASSERT_NEAR(vpre.z, s->v_pre.z, 0.01);
}

TEST(test_analyze_no_cameras_trc_and_c3d_from_a_lab_frame)
{
    scenario s;
    make_scenario(&s, 0);
    analysis_tracks tr;
    sample(&s, 0.45, 2e-4, 9, &tr);
    write_exp(&s, "trc.yaml", "  marker_labels: [B1, B2, B3, B4]\n");
    write_trc(&tr, th_tmp("lab.trc"));
    th_proc p;
    int st = th_run_cli(&p, "check '%s'", th_tmp("trc.yaml"));
    ASSERT(st == 0, "check: %s", p.err);
    ASSERT_STR_CONTAINS(p.out, "no cameras");
    st = th_run_cli(&p, "analyze '%s/trc.yaml' -o '%s/out_trc' --tracks '%s/lab.trc'", th_tmpdir(), th_tmpdir(),
                    th_tmpdir());
    ASSERT(st == 0, "status %d: %s", st, p.err);
    ASSERT_STR_CONTAINS(p.out, "lab_drop: 1 impact");
    char out[1024];
    snprintf(out, sizeof out, "%s/out_trc", th_tmpdir());
    check_results(&s, out);

    /* the same motion as C3D (mm, markers in the body's order, no labels needed) */
    analysis_tracks lab;
    icv_err err = {0};
    ASSERT(analysis_tracks_alloc(&lab, tr.n_frames, tr.n_markers, 0, &err) == 0, "%s", err.msg);
    for (int i = 0; i < tr.n_frames; i++) {
        lab.frame[i] = tr.frame[i];
        lab.t[i] = tr.t[i];
        for (int k = 0; k < tr.n_markers; k++) {
            lab.pos[i * tr.n_markers + k] = to_lab(tr.pos[i * tr.n_markers + k]);
            lab.seen[i * tr.n_markers + k] = 1;
        }
    }
    ASSERT(report_export_c3d(th_tmp("lab.c3d"), &lab, &err) == 0, "%s", err.msg);
    /* and as tracks3d.csv in the lab frame (metres, NaN where unseen, as DLTdv
       writes): a tracks file of another system, mapped by surface.plane too */
    lab.seen[7 * tr.n_markers + 1] = 0;
    ASSERT_EQ_INT(write_tracks3d(&lab, th_tmp("lab.csv"), 1.0, 1.0), 0);
    analysis_tracks_free(&lab);
    write_exp(&s, "csv.yaml", "");
    st = th_run_cli(&p, "analyze '%s/csv.yaml' -o '%s/out_csv' --tracks '%s/lab.csv'", th_tmpdir(), th_tmpdir(),
                    th_tmpdir());
    ASSERT(st == 0, "status %d: %s", st, p.err);
    snprintf(out, sizeof out, "%s/out_csv", th_tmpdir());
    check_results(&s, out);
    write_exp(&s, "c3d.yaml", "");
    st = th_run_cli(&p, "analyze '%s/c3d.yaml' -o '%s/out_c3d' --tracks '%s/lab.c3d'", th_tmpdir(), th_tmpdir(),
                    th_tmpdir());
    ASSERT(st == 0, "status %d: %s", st, p.err);
    snprintf(out, sizeof out, "%s/out_c3d", th_tmpdir());
    check_results(&s, out);

    /* the TRC without labels: 5 markers for a 4-marker body */
    write_exp(&s, "nolabels.yaml", "");
    st = th_run_cli(&p, "analyze '%s/nolabels.yaml' -o '%s/out_x' --tracks '%s/lab.trc'", th_tmpdir(), th_tmpdir(),
                    th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.err, "lab.trc: holds 5 markers ('ref', ...), the body 4: name the body's with "
                               "body.marker_labels");
    write_exp(&s, "badlabel.yaml", "  marker_labels: [B1, B2, B9, B4]\n");
    st = th_run_cli(&p, "analyze '%s/badlabel.yaml' -o '%s/out_x' --tracks '%s/lab.trc'", th_tmpdir(), th_tmpdir(),
                    th_tmpdir());
    ASSERT_EQ_INT(st, 1);
    ASSERT_STR_CONTAINS(p.err, "no marker labelled 'B9' (body.marker_labels[2])");
    analysis_tracks_free(&tr);
}

/* what has no meaning without cameras is refused with one line, and the stages
   that need cameras say so */
TEST(test_analyze_no_cameras_bad_input)
{
    static const struct {
        const char *yaml, *want;
    } bad[] = {
        {"name: x\ncalibration: {file: s.yaml}\nsurface: {plane: {point: [0,0,0], normal: [0,1,0]}}\n",
         "calibration: an experiment without cameras"},
        {"name: x\nsurface: {line_px: [[0,0],[1,1]]}\n", "surface: without cameras give plane"},
        {"name: x\n", "surface: without cameras give plane"},
        {"name: x\nmotion_plane: {scale: gravity}\nsurface: {plane: {point: [0,0,0], normal: [0,1,0]}}\n",
         "motion_plane: an experiment without cameras"},
    };
    th_proc p;
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        char text[1024];
        snprintf(text, sizeof text, "%sbody: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n",
                 bad[b].yaml);
        th_write_file(th_tmp("bad.yaml"), text);
        ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", th_tmp("bad.yaml")), 1);
        ASSERT_STR_CONTAINS(p.err, bad[b].want);
    }
    th_write_file(th_tmp("ok.yaml"), "name: x\nsurface: {plane: {point: [0,0,0], normal: [0,1,0]}}\n"
                                     "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n");
    static const char *const stages[] = {"track", "run", "coefficients"};
    for (size_t i = 0; i < 3; i++) {
        ASSERT_EQ_INT(th_run_cli(&p, "%s '%s/ok.yaml' -o '%s/o'", stages[i], th_tmpdir(), th_tmpdir()), 1);
        ASSERT_STR_CONTAINS(p.err, "has no cameras: only `impactcv analyze");
    }
}
