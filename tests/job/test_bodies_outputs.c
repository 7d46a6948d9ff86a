/* test_bodies_outputs.c: what `impactcv run` of several bodies leaves beside
 * results.json: the exports (every body's markers in one TRC and one C3D, named
 * <body>_m<k>; a pose CSV per body) read back through impactcv's own readers to the
 * same markers and poses, and analysed again by `analyze --tracks`; the overlays (each
 * body in its colour at its tracks2d pixels). One rendered scene for the file: synth's
 * two pucks on a table (draw 0, stereo 240 fps), run once (about 10 s). */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "core/core.h"
#include "core/marker_file.h"
#include "report/report.h"
#include "report/report_internal.h" /* the legend's font and layout */
#include "tests/harness.h"
#include "tests/job/bodies_files.h"

/* ---- the shared run ------------------------------------------------------ */

static char run_dir[512]; /* the scene in run_dir/scene, the run's outputs in run_dir/out */
static char run_err[4096];
static int run_done, run_rc;
static icv_experiment run_exp; /* synth's experiment */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void run_cleanup(void)
{
    if (run_dir[0])
        nftw(run_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *at(const char *rel)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", run_dir, rel);
    return buf[k];
}

/* synth's table scene, draw 0, and `impactcv run` of it: once per process */
static int shared_run(void)
{
    if (run_done)
        return run_rc;
    run_done = 1;
    snprintf(run_dir, sizeof run_dir, "/tmp/icv-bodies-outputs-XXXXXX");
    if (!mkdtemp(run_dir)) {
        snprintf(run_err, sizeof run_err, "cannot make a folder");
        return run_rc = -1;
    }
    atexit(run_cleanup);
    static th_proc p; /* 128 KiB */
    icv_err err = {0};
    p.err[0] = '\0';
    if (th_write_file(at("table.yaml"), "multibody: {kind: table, draw: 0}\n") ||
        th_run_cli(&p, "synth '%s' -o '%s'", at("table.yaml"), at("scene")) != 0) {
        snprintf(run_err, sizeof run_err, "synth: %s", p.err);
        return run_rc = -1;
    }
    if (th_run_cli(&p, "run '%s' -o '%s'", at("scene/experiment.yaml"), at("out")) != 0) {
        snprintf(run_err, sizeof run_err, "run: %s", p.err);
        return run_rc = -1;
    }
    if (icv_experiment_load(at("scene/experiment.yaml"), &run_exp, &err) != 0) {
        snprintf(run_err, sizeof run_err, "%s", err.msg);
        return run_rc = -1;
    }
    return run_rc = 0;
}

#define NEED_RUN()                                                                                                     \
    do {                                                                                                               \
        if (th_sanitized())                                                                                            \
            SKIP("measured in the plain pass (a rendered scene and its run: 30 s under ASan)");                        \
        ASSERT(shared_run() == 0, "the shared run failed: %s", run_err);                                               \
    } while (0)

/* ---- exports --------------------------------------------------------------- */

/* file's markers against tracks3d.csv's: labels as report_marker_labels names them, the
 * same seen flags, positions within tol (m) */
static void same_markers(const char *file, const analysis_tracks *tr, double tol, double *worst)
{
    static icv_marker_file m;
    static report_marker_label labels[ICV_MAX_BODIES * ICV_MAX_MARKERS];
    icv_marker_file_free(&m);
    memset(&m, 0, sizeof m);
    icv_err err = {0};
    ASSERT(icv_marker_file_read(file, &m, &err) == 0, "%s", err.msg);
    int n;
    report_marker_labels(&run_exp, labels, &n);
    ASSERT_EQ_INT(m.n_markers, tr->n_markers);
    ASSERT_EQ_INT(m.n_frames, tr->n_frames);
    ASSERT_EQ_INT(n, tr->n_markers);
    for (int k = 0, b = 0, j = 0; k < n; k++, j++) {
        if (j == run_exp.bodies[b].n_markers)
            b++, j = 0;
        char want[64];
        snprintf(want, sizeof want, "%s_m%d", run_exp.bodies[b].name, j); /* puck_a_m0 .. puck_b_m3 */
        ASSERT(!strcmp(m.labels[k], want) && !strcmp(labels[k].label, want), "%s: marker %d is '%s', not '%s'", file, k,
               m.labels[k], want);
    }
    *worst = 0;
    for (int i = 0; i < tr->n_frames; i++) {
        ASSERT_NEAR(m.t[i], tr->t[i], 1e-9);
        for (int k = 0; k < n; k++) {
            size_t j = (size_t)i * (size_t)n + (size_t)k;
            ASSERT(m.seen[j] == tr->seen[j], "%s: row %d marker %d seen %d, tracks3d.csv %d", file, i, k, m.seen[j],
                   tr->seen[j]);
            if (tr->seen[j])
                *worst = fmax(*worst, icv_v3_norm(icv_v3_sub(m.pos[j], tr->pos[j])));
        }
    }
    ASSERT(*worst <= tol, "%s: a marker %.3g m from tracks3d.csv's (tolerance %.3g)", file, *worst, tol);
}

/* body b's poses in pose_<name>.csv against the template fitted to its markers read
 * from file (the exported experiment, its marker_labels): rows, positions within
 * tol_p (m), quaternions within tol_q */
static void same_poses(const char *exp_path, int b, const char *file, double tol_p, double tol_q, int *rows,
                       double *worst_p, double *worst_q)
{
    static icv_experiment e;
    static analysis_tracks tr;
    static int have;
    if (have)
        analysis_tracks_free(&tr);
    have = 0;
    icv_err err = {0};
    ASSERT(icv_experiment_load(exp_path, &e, &err) == 0, "%s", err.msg);
    icv_experiment_use_body(&e, b);
    analysis_body body;
    ASSERT(analysis_body_from_experiment(&e, &body, &err) == 0, "%s", err.msg);
    ASSERT(analysis_tracks_read_for(&e, file, &tr, &err) == 0, "%s", err.msg);
    have = 1;
    char csv[1100], line[1024];
    snprintf(csv, sizeof csv, "out/exports/pose_%s.csv", run_exp.bodies[b].name);
    FILE *f = fopen(at(csv), "r");
    ASSERT(f, "%s missing", at(csv));
    int ok = fgets(line, sizeof line, f) && !strcmp(line, "frame,time_s,x_m,y_m,z_m,qw,qx,qy,qz,theta1_rad,"
                                                          "theta2_rad,theta3_rad,rms_m\n");
    *rows = 0;
    while (ok && fgets(line, sizeof line, f)) {
        int frame;
        double t, p[3], q[4];
        if (sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &frame, &t, &p[0], &p[1], &p[2], &q[0], &q[1], &q[2],
                   &q[3]) != 9) {
            ok = 0;
            break;
        }
        int i = 0;
        while (i < tr.n_frames && fabs(tr.t[i] - t) > 1e-7)
            i++;
        analysis_pose ps;
        if (i == tr.n_frames || analysis_pose_fit_frame(&tr, i, &body.tmpl, 0, NULL, &ps, NULL) != 0) {
            fclose(f);
            ASSERT(0, "%s: frame %d (t %.6f s) has no pose from %s", csv, frame, t, file);
        }
        icv_quat r = icv_quat_from_matrix(ps.R);
        if (r.w < 0)
            r = (icv_quat){-r.w, -r.x, -r.y, -r.z};
        *worst_p = fmax(*worst_p, icv_v3_norm(icv_v3_sub(ps.p, icv_v3(p[0], p[1], p[2]))));
        double dq = fmax(fmax(fabs(r.w - q[0]), fabs(r.x - q[1])), fmax(fabs(r.y - q[2]), fabs(r.z - q[3])));
        *worst_q = fmax(*worst_q, dq);
        (*rows)++;
    }
    fclose(f);
    ASSERT(ok, "%s: not the pose columns", csv);
    ASSERT(*worst_p <= tol_p, "%s: a pose %.3g m from the one fitted to %s (tolerance %.3g)", csv, *worst_p, file,
           tol_p);
    ASSERT(*worst_q <= tol_q, "%s: a quaternion %.3g off the one fitted to %s (tolerance %.3g)", csv, *worst_q, file,
           tol_q);
}

TEST(test_bodies_exports_read_back_to_every_body_named_and_the_same_poses)
{
    NEED_RUN();
    static analysis_tracks tr;
    static int have;
    if (have)
        analysis_tracks_free(&tr);
    have = 0;
    icv_err err = {0};
    ASSERT(analysis_tracks_read_csv(at("out/tracks3d.csv"), &tr, &err) == 0, "%s", err.msg);
    have = 1;
    double wt, wc;
    /* TRC: 6 decimals of mm, half a nanometre of rounding per coordinate */
    same_markers(at("out/exports/tracks3d.trc"), &tr, 1e-9, &wt);
    /* C3D: float32 mm, a 24-bit mantissa on coordinates under 0.25 m: 1.5e-8 m */
    same_markers(at("out/exports/tracks3d.c3d"), &tr, 3e-8, &wc);
    if (th_failed())
        return;
    printf("    %d markers x %d frames: TRC %.2g m, C3D %.2g m from tracks3d.csv at worst\n", tr.n_markers, tr.n_frames,
           wt, wc);
    /* the exported experiment: no cameras, the surface frame as the tracks' own */
    double g[3] = {run_exp.gravity.x, run_exp.gravity.y, run_exp.gravity.z};
    ASSERT_EQ_INT(bodies_write_experiment_exported(&run_exp, g, at("exported.yaml")), 0);
    for (int b = 0; b < run_exp.n_bodies; b++) {
        int rows_t = 0, rows_c = 0;
        double pt = 0, qt = 0, pc = 0, qc = 0;
        /* TRC's rounding moves a marker by 1e-9 m at most, a pose by as much, its
           attitude by that over the markers' 20 mm spread; the CSV keeps 9 digits */
        same_poses(at("exported.yaml"), b, at("out/exports/tracks3d.trc"), 5e-9, 3e-7, &rows_t, &pt, &qt);
        /* C3D's float: 1.5e-8 m per coordinate, 1.5e-6 over 20 mm */
        same_poses(at("exported.yaml"), b, at("out/exports/tracks3d.c3d"), 6e-8, 6e-6, &rows_c, &pc, &qc);
        if (th_failed())
            return;
        ASSERT_EQ_INT(rows_t, rows_c);
        /* a pose in nearly every frame: both pucks' dots face the cameras all along */
        ASSERT(rows_t >= tr.n_frames - 4, "pose_%s.csv: %d rows of %d frames", run_exp.bodies[b].name, rows_t,
               tr.n_frames);
        printf("    pose_%s.csv: %d rows; from the TRC %.2g m, quaternion %.2g; from the C3D %.2g m, %.2g\n",
               run_exp.bodies[b].name, rows_t, pt, qt, pc, qc);
    }
}

static json_t *load_json(const char *path) { return json_load_file(path, 0, NULL); }

static double impact_value(json_t *res, const char *key, const char *part)
{
    return json_number_value(
        json_object_get(json_object_get(json_array_get(json_object_get(res, "impacts"), 0), key), part));
}

TEST(test_bodies_exports_analysed_again_give_the_runs_impact)
{
    NEED_RUN();
    double g[3] = {run_exp.gravity.x, run_exp.gravity.y, run_exp.gravity.z};
    ASSERT_EQ_INT(bodies_write_experiment_exported(&run_exp, g, at("exported.yaml")), 0);
    th_proc p;
    const char *files[2] = {"out/exports/tracks3d.trc", "out/exports/tracks3d.c3d"};
    const char *outs[2] = {"again_trc", "again_c3d"};
    static json_t *res[3];
    for (int i = 0; i < 3; i++)
        json_decref(res[i]), res[i] = NULL;
    for (int i = 0; i < 2; i++) {
        ASSERT(th_run_cli(&p, "analyze '%s' --tracks '%s' -o '%s'", at("exported.yaml"), at(files[i]), at(outs[i])) ==
                   0,
               "analyze --tracks %s: %s", files[i], p.err);
        char path[64];
        snprintf(path, sizeof path, "%s/results.json", outs[i]);
        res[i] = load_json(at(path));
    }
    res[2] = load_json(at("out/results.json"));
    ASSERT(res[0] && res[1] && res[2], "a results.json is missing");
    double e_t = impact_value(res[0], "e_newton", "value"), e_c = impact_value(res[1], "e_newton", "value");
    double e_run = impact_value(res[2], "e_newton", "value"), sd = impact_value(res[2], "e_newton", "sd");
    printf("    e: run %.6f +- %.6f; analyze --tracks of the TRC %.6f, of the C3D %.6f\n", e_run, sd, e_t, e_c);
    /* the two files hold the same markers within C3D's float (1.5e-8 m of 4 mm a frame) */
    ASSERT_NEAR(e_c, e_t, 1e-6);
    /* the run weighs each point by its tracks3d_quality.csv sigma, a file carries none:
       measured 0.08 sigma apart */
    ASSERT(fabs(e_t - e_run) <= 0.25 * sd, "e %.6f from the TRC, %.6f in the run (sigma %.6f)", e_t, e_run, sd);
}

/* ---- overlays -------------------------------------------------------------- */

static unsigned char *read_whole(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = len > 0 ? malloc((size_t)len) : NULL;
    if (d && fread(d, 1, (size_t)len, f) != (size_t)len)
        free(d), d = NULL;
    fclose(f);
    *n = (size_t)len;
    return d;
}

/* the body of global marker m (tracks2d's marker column); -1 none */
static int body_of(const icv_experiment *ex, int m)
{
    for (int b = 0; b < ex->n_bodies; b++) {
        int first = icv_experiment_first_marker(ex, b);
        if (m >= first && m < first + ex->bodies[b].n_markers)
            return b;
    }
    return -1;
}

/* The overlays of run folder out (experiment ex): index.json's bodies, n_images
 * images (each camera: before, at, after each impact) round the impact's instant,
 * every tracks2d point of an image's frame in its body's colour at its pixel with its
 * fitted marker's cross in the ring's hole, each body's colour on min_px pixels or
 * more. Fails through its ASSERTs. */
static void overlays_check(const char *out, const icv_experiment *ex, int n_images, long min_px)
{
    static json_t *index, *res;
    static unsigned char *png, *rgb;
    static analysis_tracks tr;
    static int have;
    json_decref(index), json_decref(res);
    if (have)
        analysis_tracks_free(&tr);
    have = 0;
    char path[1200];
    snprintf(path, sizeof path, "%s/overlays/index.json", out);
    index = load_json(path);
    snprintf(path, sizeof path, "%s/results.json", out);
    res = load_json(path);
    ASSERT(index && res, "overlays/index.json or results.json missing in %s", out);
    snprintf(path, sizeof path, "%s/tracks3d.csv", out);
    icv_err terr = {0};
    ASSERT(analysis_tracks_read_csv(path, &tr, &terr) == 0 && tr.n_frames > 1, "%s", terr.msg);
    have = 1;
    double dt = tr.t[1] - tr.t[0];
    /* the bodies' names and colours, in the order of bodies: */
    json_t *bodies = json_object_get(index, "bodies");
    ASSERT_EQ_INT((int)json_array_size(bodies), ex->n_bodies);
    for (int b = 0; b < ex->n_bodies; b++) {
        json_t *o = json_array_get(bodies, (size_t)b);
        unsigned char c[3];
        report_palette(b, c);
        ASSERT_STR_CONTAINS(json_string_value(json_object_get(o, "name")), ex->bodies[b].name);
        for (int a = 0; a < 3; a++)
            ASSERT_EQ_INT(json_integer_value(json_array_get(json_object_get(o, "color"), (size_t)a)), c[a]);
    }
    json_t *list = json_object_get(index, "overlays");
    ASSERT_EQ_INT((int)json_array_size(list), n_images);
    double t_imp = json_number_value(json_object_get(json_array_get(json_object_get(res, "impacts"), 0), "time_s"));
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i);
        const char *cam = json_string_value(json_object_get(e, "camera"));
        long frame = (long)json_integer_value(json_object_get(e, "frame"));
        double t = json_number_value(json_object_get(e, "time_s"));
        ASSERT_EQ_INT(json_integer_value(json_object_get(e, "impact")), 0);
        /* before, at, after: the frames round the instant */
        ASSERT(fabs(t - t_imp) < 1.5 * dt + 1e-6, "%s frame %ld at %.5f s, the impact at %.5f s", cam, frame, t,
               t_imp);
        char name[256];
        snprintf(name, sizeof name, "%s/overlays/%s_%ld.png", out, cam, frame);
        free(png), free(rgb);
        png = rgb = NULL;
        size_t len;
        png = read_whole(name, &len);
        ASSERT(png, "%s missing", name);
        int w, h;
        icv_err err = {0};
        ASSERT(report_png_decode_rgb(png, len, &rgb, &w, &h, &err) == 0, "%s: %s", name, err.msg);
        json_t *crop = json_object_get(e, "crop_px");
        long x0 = (long)json_integer_value(json_array_get(crop, 0)),
             y0 = (long)json_integer_value(json_array_get(crop, 1));
        /* the crop, then the strip of the bodies' names below it */
        int strip = REPORT_LEGEND_PAD + ex->n_bodies * REPORT_LEGEND_ROW;
        ASSERT(w == json_integer_value(json_array_get(crop, 2)) &&
                   h == json_integer_value(json_array_get(crop, 3)) + strip,
               "%s is %dx%d, not its crop's size and a strip of %d rows", name, w, h, strip);
        int fh = h - strip; /* the frame's rows */
        for (int b = 0; b < ex->n_bodies; b++) { /* each name, glyph by glyph, in its body's colour */
            unsigned char c[3], bg[3] = {24, 24, 24}, rows[7];
            report_palette(b, c);
            const char *nm = ex->bodies[b].name;
            int wrong = 0, n = (int)strlen(nm);
            for (int k = 0; k < n && REPORT_LEGEND_PAD + (6 * k + 5) * REPORT_LEGEND_SCALE <= w; k++) {
                report_glyph5x7(nm[k], rows);
                for (int r = 0; r < 7; r++)
                    for (int col = 0; col < 5; col++) {
                        long x = REPORT_LEGEND_PAD + (6 * k + col) * REPORT_LEGEND_SCALE,
                             y = fh + REPORT_LEGEND_PAD + b * REPORT_LEGEND_ROW + r * REPORT_LEGEND_SCALE;
                        const unsigned char *want = rows[r] >> (4 - col) & 1 ? c : bg;
                        wrong += memcmp(rgb + ((size_t)y * w + (size_t)x) * 3, want, 3) != 0;
                    }
            }
            ASSERT(wrong == 0, "%s: body %d's name '%s': %d font pixels wrong", name, b, nm, wrong);
        }
        h = fh;
        /* every measured tracks2d point of that frame: its body's colour at its pixel (the
           ring's centre dot; PNG is lossless) */
        char t2d[256], line[512];
        snprintf(t2d, sizeof t2d, "%s/tracks2d_%s.csv", out, cam);
        FILE *f = fopen(t2d, "r");
        ASSERT(f, "%s missing", t2d);
        int hits[ICV_MAX_BODIES] = {0}, fitted[ICV_MAX_BODIES] = {0}, bad = 0;
        char why[300] = "";
        while (fgets(line, sizeof line, f)) {
            long fr;
            int m;
            double tt, u, v;
            if (sscanf(line, "%ld,%lf,%d,%lf,%lf", &fr, &tt, &m, &u, &v) != 5 || fr != frame)
                continue;
            int b = body_of(ex, m);
            long x = lround(u) - x0, y = lround(v) - y0;
            unsigned char want[3] = {255, 255, 255};
            if (b >= 0)
                report_palette(b, want);
            const unsigned char *px = x >= 0 && y >= 0 && x < w && y < h ? rgb + ((size_t)y * w + (size_t)x) * 3 : NULL;
            if (!px || memcmp(px, want, 3)) {
                if (!bad++)
                    snprintf(why, sizeof why,
                             "marker %d at (%.2f, %.2f): pixel (%d, %d, %d), its body's colour (%d, %d, %d)", m, u, v,
                             px ? px[0] : -1, px ? px[1] : -1, px ? px[2] : -1, want[0], want[1], want[2]);
            } else if (b >= 0) {
                hits[b]++;
                /* the fitted pose's marker near it: its diagonal cross fills the ring's
                   hole (1 to radius - 1 px from the centre; the radius is 5 px or more)
                   on the diagonals, where the video is gray and no other mark is drawn */
                int filled = 0;
                for (int sx = -1; sx <= 1; sx += 2)
                    for (int sy = -1; sy <= 1; sy += 2)
                        for (int k = 0; k < 3; k++) {
                            long xx = x + sx * (k == 2 ? 3 : 2), yy = y + sy * (k == 1 ? 3 : 2);
                            filled += xx >= 0 && yy >= 0 && xx < w && yy < h &&
                                      !memcmp(rgb + ((size_t)yy * w + (size_t)xx) * 3, want, 3);
                        }
                fitted[b] += filled >= 3;
            }
        }
        fclose(f);
        ASSERT(bad == 0, "%s: %d markers not in their colour: %s", name, bad, why);
        /* each body's colour: its markers' rings, its fitted markers' crosses and its outline */
        long count[ICV_MAX_BODIES] = {0};
        for (int b = 0; b < ex->n_bodies; b++) {
            unsigned char c[3];
            report_palette(b, c);
            for (long q = 0; q < (long)w * h; q++)
                count[b] += !memcmp(rgb + 3 * q, c, 3);
            ASSERT(hits[b] >= ex->bodies[b].n_markers - 1, "%s: %d of body %d's markers seen", name, hits[b], b);
            ASSERT(fitted[b] == hits[b], "%s: %d of body %d's %d tracked markers have its fitted marker on them", name,
                   fitted[b], b, hits[b]);
            ASSERT(count[b] >= min_px, "%s: %ld pixels of body %d's colour", name, count[b], b);
        }
        if (i == 1)
            printf("    %s (%dx%d): %d and %d markers at their tracks2d pixels, each with its fitted marker; %ld "
                   "and %ld pixels of the bodies' colours\n",
                   strrchr(name, '/') + 1, w, h, hits[0], hits[1], count[0], count[1]);
    }
}

TEST(test_bodies_overlays_draw_each_body_in_its_colour_at_its_tracks2d_pixels)
{
    NEED_RUN();
    /* 2 cameras x (before, at, after) of the one impact; a 60 mm puck's outline at
       ~0.6 m spans ~100 px: its two circles and four edges hold several hundred
       pixels, its rings ~50 each */
    overlays_check(at("out"), &run_exp, 6, 400);
}

/* Akhan's chain (draw 0: his case 1, one camera at 6000 fps) hitting the plate: the
 * chain's surface impact drawn, both links in their colours. make accuracy only (its
 * scene and run take 12 s more than make test's budget allows). */
TEST(test_bodies_overlays_of_a_chain_draw_both_links_at_its_surface_impact)
{
    if (!th_accuracy())
        SKIP("make accuracy (ICV_ACCURACY=1): a 6000 fps scene rendered and run, 12 s");
    char yaml[1200], dir[1200], out[1200], exp[1300];
    snprintf(yaml, sizeof yaml, "%s/chain.yaml", th_tmpdir());
    snprintf(dir, sizeof dir, "%s/chain", th_tmpdir());
    snprintf(out, sizeof out, "%s/out", th_tmpdir());
    snprintf(exp, sizeof exp, "%s/experiment.yaml", dir);
    static th_proc p;
    ASSERT_EQ_INT(th_write_file(yaml, "multibody: {kind: chain, draw: 0}\n"), 0);
    ASSERT(th_run_cli(&p, "synth '%s' -o '%s'", yaml, dir) == 0, "synth: %s", p.err);
    ASSERT(th_run_cli(&p, "run '%s' -o '%s'", exp, out) == 0, "run: %s", p.err);
    static icv_experiment e;
    icv_err err = {0};
    ASSERT(icv_experiment_load(exp, &e, &err) == 0, "%s", err.msg);
    /* one camera x (before, at, after); a 0.3 m link across ~200 px: its capsule's four
       lines along the axis hold hundreds of pixels */
    overlays_check(out, &e, 3, 400);
}

/* ---- report.html ----------------------------------------------------------- */

static char *base64(const unsigned char *d, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *s = malloc(4 * ((n + 2) / 3) + 1), *o = s;
    for (size_t i = 0; s && i < n; i += 3) {
        unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        *o++ = a[v >> 18 & 63];
        *o++ = a[v >> 12 & 63];
        *o++ = i + 1 < n ? a[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? a[v & 63] : '=';
    }
    if (s)
        *o = '\0';
    return s;
}

TEST(test_bodies_report_of_a_run_shows_every_overlay_with_the_bodies_colours)
{
    NEED_RUN();
    static char *page, *b64;
    static unsigned char *png;
    static json_t *index;
    free(page), free(b64), free(png), json_decref(index);
    page = NULL, b64 = NULL, png = NULL;
    size_t len;
    page = (char *)read_whole(at("out/report.html"), &len);
    ASSERT(page, "no report.html");
    page = realloc(page, len + 1);
    page[len] = '\0';
    /* the overlays between the bodies' summary and the impacts, as one body's page has them */
    const char *ov = strstr(page, "<section id=overlays>"), *im = strstr(page, "<section id=impacts>"),
               *su = strstr(page, "<section id=summary>");
    ASSERT(su && ov && im && su < ov && ov < im, "sections summary, overlays, impacts not in that order");
    for (int b = 0; b < run_exp.n_bodies; b++) { /* the legend: each body's name in its colour */
        unsigned char c[3];
        char want[200];
        report_palette(b, c);
        snprintf(want, sizeof want, "<span style=\"color:#%02x%02x%02x\">&#9679;</span>&nbsp;%s", c[0], c[1], c[2],
                 run_exp.bodies[b].name);
        ASSERT_STR_CONTAINS(page, want);
    }
    /* every image of the index, its bytes in the page as a data URI */
    index = load_json(at("out/overlays/index.json"));
    json_t *list = json_object_get(index, "overlays");
    ASSERT_EQ_INT((int)json_array_size(list), 6);
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *e = json_array_get(list, i);
        char name[256], id[256];
        snprintf(name, sizeof name, "out/overlays/%s", json_string_value(json_object_get(e, "file")));
        snprintf(id, sizeof id, "id=\"overlay-%s-%d\"", json_string_value(json_object_get(e, "camera")),
                 (int)json_integer_value(json_object_get(e, "frame")));
        ASSERT_STR_CONTAINS(page, id);
        free(png), free(b64);
        png = read_whole(at(name), &len);
        b64 = png ? base64(png, len) : NULL;
        ASSERT(b64, "%s unreadable", name);
        const char *img = strstr(page, id);
        ASSERT(!strncmp(img + strlen(id), " alt=\"overlay\" src=\"data:image/png;base64,", 42) &&
                   !strncmp(img + strlen(id) + 42, b64, strlen(b64)) && img[strlen(id) + 42 + strlen(b64)] == '"',
               "%s: not the bytes of %s", id, name);
    }
}
