/* test_report_sections.c: the report's sections fed by a real run (issue #10 item 2;
 * issue #8 item 6's overlays). One run of the track stage and the analysis on a copy
 * of sample_videos/02_rod_drop_level_stereo (two 1280x720 H.264 cameras at 240 fps,
 * calibration from board images, flash sync, one impact), shared by the tests of this
 * file, then: the track stage's sidecar holds the offsets the track result gave and
 * the duplicated frame capture's own probe finds; job_overlays_write leaves the
 * frames before, at and after the impact per camera with the detections drawn in
 * their marker's colour at the tracks2d positions; report.html carries the sidecar's
 * numbers in its calibration, sync and timing sections and the overlays; headless
 * Chromium loads it with no console message and no request. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "job/job.h"
#include "tests/report/browser.h"
#include "tests/report/report_fixture.h"
#include "track/track_3d.h"

/* ---- the shared run ------------------------------------------------------ */

static char run_dir[512];          /* the copied experiment; the run's outputs in run_dir/out */
static char run_err[ICV_ERR_MSG_MAX + 64];
static int run_done, run_rc;
static job_track_result run_track;
static icv_experiment run_exp;     /* the copied experiment, as the analysis read it */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(path);
}

static void run_cleanup(void)
{
    if (run_dir[0])
        nftw(run_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *out_path(const char *rel)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/out/%s", run_dir, rel);
    return buf[k];
}

/* track (library), analyze (library), overlays, report: once per process */
static int shared_run(void)
{
    if (run_done)
        return run_rc;
    run_done = 1;
    snprintf(run_dir, sizeof run_dir, "/tmp/icv-sections-XXXXXX");
    if (!mkdtemp(run_dir)) {
        snprintf(run_err, sizeof run_err, "cannot make a folder");
        return run_rc = -1;
    }
    atexit(run_cleanup);
    th_proc p;
    if (th_run_sh(&p, "cp -r '%s/sample_videos/02_rod_drop_level_stereo/.' '%s/'", th_root(), run_dir)) {
        snprintf(run_err, sizeof run_err, "copying the sample: %s", p.err);
        return run_rc = -1;
    }
    char exp_path[1024], out[1024];
    snprintf(exp_path, sizeof exp_path, "%s/experiment.yaml", run_dir);
    snprintf(out, sizeof out, "%s/out", run_dir);
    icv_err err = {0};
    analysis_experiment_result *job = malloc(sizeof *job);
    icv_log_level level = icv_log_get_level();
    icv_log_set_level(ICV_LOG_WARN); /* calib's per-image lines are not this test's */
    int rc = job_track_run(exp_path, out, NULL, &run_track, &err);
    if (rc)
        snprintf(run_err, sizeof run_err, "track: %s", err.msg);
    job_analyze_options aj = {exp_path, NULL, out, ANALYSIS_FIT, NULL, NULL, NULL, 0};
    if (!rc && (rc = job_analyze(&aj, job, &err)))
        snprintf(run_err, sizeof run_err, "analyze: %s", err.msg);
    if (!rc)
        run_exp = job->exp;
    if (!rc && (rc = job_overlays_write(out, &job->exp, &err)))
        snprintf(run_err, sizeof run_err, "overlays: %s", err.msg);
    if (!rc && (rc = job_report_write(out, &job->exp, NULL, 0, &err)))
        snprintf(run_err, sizeof run_err, "report: %s", err.msg);
    icv_log_set_level(level);
    free(job);
    return run_rc = rc;
}

#define NEED_RUN() ASSERT(shared_run() == 0, "the shared run failed: %s", run_err)

static json_t *load_json(const char *path)
{
    json_error_t je;
    return json_load_file(path, 0, &je);
}

/* the sidecar's camera object of id */
static json_t *info_camera(json_t *info, const char *id)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(info, "cameras"), i, c) if (!strcmp(json_string_value(json_object_get(c, "id")),
                                                                           id)) return c;
    return NULL;
}

/* ---- the sidecar ------------------------------------------------------------ */

TEST(test_track_sidecar_offsets_equal_the_track_result_and_duplicates_equal_the_probe)
{
    NEED_RUN();
    static json_t *info;
    json_decref(info); /* the previous run's (static: a failed ASSERT does not leak it) */
    info = load_json(out_path("track_info.json"));
    ASSERT(info, "no track_info.json");
    ASSERT_STR_CONTAINS(json_string_value(json_object_get(info, "schema")), "impactcv-track-info-1");
    /* the offsets: as the track stage used them (the JSON keeps 10 significant digits) */
    json_t *sync = json_object_get(info, "sync");
    ASSERT_STR_CONTAINS(json_string_value(json_object_get(sync, "source")), "flash");
    ASSERT(json_is_true(json_object_get(sync, "refined")) && run_track.offset_refined, "offset not refined");
    ASSERT_NEAR(json_number_value(json_object_get(sync, "offset_sigma_frames")), run_track.offset_sigma_frames,
                1e-9 * fabs(run_track.offset_sigma_frames));
    ASSERT_NEAR(json_number_value(json_object_get(sync, "residual_px")), run_track.offset_residual_px,
                1e-9 * run_track.offset_residual_px);
    for (int c = 0; c < 2; c++) {
        json_t *cam = info_camera(info, run_track.camera_id[c]), *off = json_object_get(cam, "offset");
        ASSERT(cam, "camera %s not in track_info.json", run_track.camera_id[c]);
        ASSERT_NEAR(json_number_value(json_object_get(off, "frames")), run_track.offset_frames[c], 1e-9);
        ASSERT_NEAR(json_number_value(json_object_get(off, "initial_frames")), run_track.offset_initial_frames[c],
                    1e-9);
        /* the capture rate the offset in seconds uses: the video's, 240 fps (sample_videos/README.md) */
        ASSERT_NEAR(json_number_value(json_object_get(cam, "capture_fps")), 240, 1e-9);
        ASSERT_NEAR(json_number_value(json_object_get(off, "s")), run_track.offset_frames[c] / 240, 1e-12);
        printf("     camera %s: offset %.4f frames (flash %.3f), sigma %.4f\n", run_track.camera_id[c],
               run_track.offset_frames[c], run_track.offset_initial_frames[c], run_track.offset_sigma_frames);
        /* duplicates and the flash: what capture's own probe finds in the same video */
        capture_probe pr;
        icv_err err = {0};
        char video[1024];
        snprintf(video, sizeof video, "%s/%s.mp4", run_dir, run_track.camera_id[c]);
        ASSERT(capture_probe_run(video, NULL, &pr, &err) == 0, "probe: %s", err.msg);
        json_t *dup = json_object_get(json_object_get(cam, "timing"), "duplicate_frames");
        int same = json_array_size(dup) == pr.n_duplicates;
        for (size_t i = 0; same && i < pr.n_duplicates; i++)
            same = json_integer_value(json_array_get(dup, i)) == pr.duplicates[i];
        long flash = pr.flash.frame;
        int has_flash = pr.has_flash;
        size_t n_dup = pr.n_duplicates;
        capture_probe_free(&pr);
        ASSERT(same, "camera %s: duplicates %s differ from the probe's (%zu)", run_track.camera_id[c],
               json_dumps(dup, JSON_COMPACT), n_dup);
        printf("     camera %s: %zu duplicated frame(s), as the probe\n", run_track.camera_id[c], n_dup);
        /* sample 02's equal frames are at its start, the rod held still: H.264's
         * skipped blocks, not a repeated frame, so none is in motion and none warned */
        json_t *moving = json_object_get(json_object_get(cam, "timing"), "duplicate_frames_in_motion");
        ASSERT(json_is_array(moving) && json_array_size(moving) == 0, "camera %s: duplicates in motion %s",
               run_track.camera_id[c], json_dumps(moving, JSON_COMPACT));
        json_t *fl = json_object_get(cam, "flash");
        ASSERT(has_flash && json_is_object(fl), "no flash");
        ASSERT_EQ_INT((int)json_integer_value(json_object_get(fl, "frame")), (int)flash);
        json_t *b = json_object_get(cam, "brightness");
        ASSERT(json_array_size(json_object_get(b, "mean_gray")) >= 21, "no brightness window round the flash");
    }
    /* the calibration made from the board images: its quality, every pair's errors */
    json_t *st = json_object_get(json_object_get(info, "calibration"), "stereo");
    ASSERT(json_is_object(st), "no stereo calibration quality");
    ASSERT_EQ_INT((int)json_array_size(json_object_get(st, "pairs")), 16); /* 16 board pairs in calib/ */
    double rms = json_number_value(json_object_get(st, "rms_px"));
    /* synth's boards are rendered exactly: calib's RMS well under 0.1 px (docs/calib.md) */
    ASSERT(rms > 0 && rms < 0.1, "stereo RMS %.4f px", rms);
    json_t *cam0 = json_array_get(json_object_get(st, "cameras"), 0);
    ASSERT_EQ_INT((int)json_array_size(json_object_get(cam0, "coverage_map")), 12);
}

static void yaml_matrix(FILE *f, const char *name, int rows, int cols, const double *d)
{
    fprintf(f, "%s: !!opencv-matrix\n   rows: %d\n   cols: %d\n   dt: d\n   data: [", name, rows, cols);
    for (int i = 0; i < rows * cols; i++)
        fprintf(f, "%s%.17g", i ? ", " : " ", d[i]);
    fputs(" ]\n", f);
}

TEST(test_track_sidecar_with_a_calibration_file_holds_what_the_file_holds)
{
    NEED_RUN();
    /* the run's own calibration written as another tool's stereo file with a few
       quality keys, and the experiment pointing at it */
    static json_t *info, *info2;
    json_decref(info), json_decref(info2);
    info2 = NULL;
    info = load_json(out_path("track_info.json"));
    ASSERT(info, "no track_info.json");
    double K[2][9], D[2][5], Rc[2][9], tc[2][3];
    for (int c = 0; c < 2; c++) {
        json_t *cam = json_array_get(json_object_get(info, "cameras"), (size_t)c),
               *in = json_object_get(cam, "intrinsics"), *pose = json_object_get(cam, "pose");
        double k[9] = {json_number_value(json_object_get(in, "fx")), 0, json_number_value(json_object_get(in, "cx")), 0,
                       json_number_value(json_object_get(in, "fy")), json_number_value(json_object_get(in, "cy")), 0, 0,
                       1};
        memcpy(K[c], k, sizeof k);
        for (int i = 0; i < 5; i++)
            D[c][i] = json_number_value(json_array_get(json_object_get(in, "dist"), (size_t)i));
        for (int i = 0; i < 3; i++) {
            tc[c][i] = json_number_value(json_array_get(json_object_get(pose, "t"), (size_t)i));
            for (int j = 0; j < 3; j++)
                Rc[c][3 * i + j] =
                    json_number_value(json_array_get(json_array_get(json_object_get(pose, "R"), (size_t)i), (size_t)j));
        }
    }
    double R[9] = {0}, T[3]; /* x_2 = R x_1 + T from both cameras' poses of the surface */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                R[3 * i + j] += Rc[1][3 * i + k] * Rc[0][3 * j + k];
    for (int i = 0; i < 3; i++)
        T[i] = tc[1][i] - (R[3 * i] * tc[0][0] + R[3 * i + 1] * tc[0][1] + R[3 * i + 2] * tc[0][2]);
    char path[1024];
    snprintf(path, sizeof path, "%s/cal.yaml", run_dir);
    FILE *f = fopen(path, "w");
    ASSERT(f, "cannot write %s", path);
    fputs("%YAML:1.0\n---\nimage_width: 1280\nimage_height: 720\n", f);
    yaml_matrix(f, "M1", 3, 3, K[0]);
    yaml_matrix(f, "D1", 5, 1, D[0]);
    yaml_matrix(f, "M2", 3, 3, K[1]);
    yaml_matrix(f, "D2", 5, 1, D[1]);
    yaml_matrix(f, "R", 3, 3, R);
    yaml_matrix(f, "T", 3, 1, T);
    fputs("rms: 0.25\n", f);
    yaml_matrix(f, "per_pair_errors", 2, 3, (const double[]){0.2, 0.3, 0.1, 0.22, 0.28, 0.12});
    fclose(f);
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p,
                            "cd '%s' && awk '{ if ($1 == \"images:\" && $2 ~ /left:/ && $0 ~ /calib/) print \"  file: "
                            "cal.yaml\"; else print }' experiment.yaml > exp_file.yaml && grep -q 'file: cal.yaml' "
                            "exp_file.yaml",
                            run_dir),
                  0);
    char exp2[1024], out2[1024];
    snprintf(exp2, sizeof exp2, "%s/exp_file.yaml", run_dir);
    snprintf(out2, sizeof out2, "%s/out_file", th_tmpdir());
    icv_err err = {0};
    icv_log_level level = icv_log_get_level();
    icv_log_set_level(ICV_LOG_WARN);
    int rc = job_track_run(exp2, out2, NULL, NULL, &err);
    icv_log_set_level(level);
    ASSERT(rc == 0, "track with cal.yaml: %s", err.msg);
    info2 = load_json(th_tmp("out_file/track_info.json"));
    ASSERT(info2, "no track_info.json");
    json_t *cal = json_object_get(info2, "calibration"), *st = json_object_get(cal, "stereo");
    ASSERT_STR_CONTAINS(json_string_value(json_object_get(cal, "source")), "file");
    ASSERT_STR_CONTAINS(json_string_value(json_object_get(cal, "file")), "cal.yaml");
    ASSERT(json_is_object(st), "no stereo quality from the file");
    ASSERT_NEAR(json_number_value(json_object_get(st, "rms_px")), 0.25, 0);
    json_t *pairs = json_object_get(st, "pairs");
    ASSERT_EQ_INT((int)json_array_size(pairs), 2);
    ASSERT_NEAR(json_number_value(json_object_get(json_array_get(pairs, 1), "rms2_px")), 0.28, 0);
    /* what the file does not hold stays unknown */
    ASSERT(json_is_null(json_object_get(st, "verdict_ok")), "a verdict invented");
    ASSERT(json_is_null(json_object_get(st, "epipolar_px")), "an epipolar distance invented");
    /* |T| as the baseline when the file has none: the run's, ~0.6 m (sample 02's cameras) */
    ASSERT_NEAR(json_number_value(json_object_get(st, "baseline_m")), 0.6, 0.01);
}

/* ---- the overlays ------------------------------------------------------------ */

typedef struct {
    long frame;
    int marker;
    double u, v;
} row2d;

/* tracks2d rows of one frame with a measured position (a small reader of the
 * contract's columns, independent of the report's) */
static int tracks2d_frame(const char *path, long frame, row2d *out, int max)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int n = 0;
    if (!f || !fgets(line, sizeof line, f)) {
        if (f)
            fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f) && n < max) {
        row2d r;
        double t;
        if (sscanf(line, "%ld,%lf,%d,%lf,%lf", &r.frame, &t, &r.marker, &r.u, &r.v) == 5 && r.frame == frame)
            out[n++] = r;
    }
    fclose(f);
    return n;
}

static int read_whole(const char *path, unsigned char **d, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    *d = len > 0 ? malloc((size_t)len) : NULL;
    int ok = *d && fread(*d, 1, (size_t)len, f) == (size_t)len;
    fclose(f);
    *n = (size_t)len;
    return ok ? 0 : -1;
}

/* One overlay image of dir/overlays (entry e of index.json) of a camera whose video
 * is frame_w x frame_h: the crop inside the frame and at least 240 px a side, every
 * measured tracks2d point of that frame in its marker's colour at its position (the
 * ring's centre dot; PNG is lossless), an outline of at least min_yellow pixels, a
 * prediction, the rest the video's gray. Fails the test through its ASSERTs. */
static void overlay_check(const char *dir, json_t *e, int frame_w, int frame_h, int n_markers, long min_yellow,
                          int verbose)
{
    static unsigned char *png, *rgb;
    static const unsigned char yellow[3] = {255, 220, 0}, magenta[3] = {255, 0, 255};
    free(png), free(rgb);
    png = rgb = NULL;
    const char *id = json_string_value(json_object_get(e, "camera"));
    long frame = (long)json_integer_value(json_object_get(e, "frame"));
    char file[1024], t2d[1024];
    snprintf(file, sizeof file, "%s/overlays/%s_%ld.png", dir, id, frame);
    snprintf(t2d, sizeof t2d, "%s/tracks2d_%s.csv", dir, id);
    size_t len;
    ASSERT(read_whole(file, &png, &len) == 0, "%s missing", file);
    int w, h;
    icv_err err = {0};
    ASSERT(report_png_decode_rgb(png, len, &rgb, &w, &h, &err) == 0, "%s: %s", file, err.msg);
    json_t *crop = json_object_get(e, "crop_px");
    long x0 = (long)json_integer_value(json_array_get(crop, 0)), y0 = (long)json_integer_value(json_array_get(crop, 1));
    ASSERT(w == json_integer_value(json_array_get(crop, 2)) && h == json_integer_value(json_array_get(crop, 3)),
           "%s is %dx%d, not its crop's size", file, w, h);
    ASSERT(w >= 240 && h >= 240 && x0 >= 0 && y0 >= 0 && x0 + w <= frame_w && y0 + h <= frame_h,
           "%s: crop %ld, %ld, %d x %d is not inside the %dx%d frame or under 240 px", file, x0, y0, w, h, frame_w,
           frame_h);
    row2d rows[16];
    int n = tracks2d_frame(t2d, frame, rows, 16), hit = 0;
    ASSERT(n >= 2, "%s: only %d detections in tracks2d at frame %ld", id, n, frame);
    for (int i = 0; i < n; i++) {
        unsigned char want[3];
        report_palette(rows[i].marker, want);
        long x = lround(rows[i].u) - x0, y = lround(rows[i].v) - y0;
        ASSERT(x >= 0 && y >= 0 && x < w && y < h, "%s: marker %d at (%.1f, %.1f) is outside the image", file,
               rows[i].marker, rows[i].u, rows[i].v);
        const unsigned char *px = rgb + ((size_t)y * w + (size_t)x) * 3;
        ASSERT(rows[i].marker < n_markers && !memcmp(px, want, 3),
               "%s frame %ld: marker %d at (%.2f, %.2f): pixel (%d, %d, %d), its colour (%d, %d, %d)", id, frame,
               rows[i].marker, rows[i].u, rows[i].v, px[0], px[1], px[2], want[0], want[1], want[2]);
        hit++;
    }
    long n_yellow = 0, n_magenta = 0, n_gray = 0;
    for (long q = 0; q < (long)w * h; q++) {
        const unsigned char *px = rgb + 3 * q;
        n_yellow += !memcmp(px, yellow, 3);
        n_magenta += !memcmp(px, magenta, 3);
        n_gray += px[0] == px[1] && px[1] == px[2];
    }
    ASSERT(n_yellow >= min_yellow, "%s: %ld yellow (outline) pixels, fewer than %ld", file, n_yellow, min_yellow);
    ASSERT(n_magenta > 0, "%s: no predicted position drawn", file);
    ASSERT(n_gray > 0.8 * w * h, "%s: %ld of %d pixels gray: not the video frame", file, n_gray, w * h);
    if (verbose)
        printf("     %s_%ld.png (%dx%d at %ld, %ld): %d markers at their tracks2d positions, %ld outline px, %ld "
               "prediction px\n",
               id, frame, w, h, x0, y0, hit, n_yellow, n_magenta);
}

TEST(test_overlays_show_each_camera_before_at_and_after_the_impact_with_markers_at_tracks2d)
{
    NEED_RUN();
    static json_t *info, *res, *index;
    json_decref(info), json_decref(res), json_decref(index);
    info = load_json(out_path("track_info.json"));
    res = load_json(out_path("results.json"));
    index = load_json(out_path("overlays/index.json"));
    ASSERT(info && res && index, "track_info.json, results.json or overlays/index.json missing");
    double t_imp = json_number_value(json_object_get(json_array_get(json_object_get(res, "impacts"), 0), "time_s"));
    json_t *list = json_object_get(index, "overlays");
    ASSERT_EQ_INT((int)json_array_size(list), 6); /* 2 cameras x (before, at, after) of the one impact */
    static const char *const roles[3] = {"before", "at", "after"};
    for (int c = 0; c < 2; c++) {
        const char *id = run_track.camera_id[c];
        double off_s = json_number_value(json_object_get(json_object_get(info_camera(info, id), "offset"), "s"));
        /* the frame nearest the impact on this camera's clock: its frame k is at
           k / 240 s there (constant rate, frame 0 at 0: the probe's timing) */
        long k = lround((t_imp + off_s) * 240);
        for (int r = 0; r < 3; r++) {
            json_t *e = json_array_get(list, (size_t)(3 * c + r));
            ASSERT_STR_CONTAINS(json_string_value(json_object_get(e, "camera")), id);
            ASSERT_STR_CONTAINS(json_string_value(json_object_get(e, "role")), roles[r]);
            ASSERT_EQ_INT(json_integer_value(json_object_get(e, "frame")), k - 1 + r);
            /* the rod's outline: 0.30 m long at ~1 m through f ~1000 px spans ~300 px;
               its eight lines hold well over 300 yellow pixels */
            overlay_check(out_path(""), e, 1280, 720, 3, 300, r == 1);
            if (th_failed())
                return;
        }
    }
}

/* One camera (planar mode, sample 04: a box at 1000 fps, 512x418 px, markers on its
 * front face): the overlays project through the motion plane's surface frame, and the
 * sync section says there is nothing to sync. */
TEST(test_overlays_and_sections_of_a_one_camera_run)
{
    char exp_path[1024], out[1024];
    snprintf(exp_path, sizeof exp_path, "%s/sample_videos/04_highspeed_1000fps/experiment.yaml", th_root());
    snprintf(out, sizeof out, "%s/out", th_tmpdir());
    static analysis_experiment_result job;
    icv_err err = {0};
    icv_log_level level = icv_log_get_level();
    icv_log_set_level(ICV_LOG_WARN);
    int rc = job_track_run(exp_path, out, NULL, NULL, &err);
    job_analyze_options aj = {exp_path, NULL, out, ANALYSIS_FIT, NULL, NULL, NULL, 0};
    if (!rc)
        rc = job_analyze(&aj, &job, &err);
    if (!rc)
        rc = job_overlays_write(out, &job.exp, &err);
    if (!rc)
        rc = job_report_write(out, &job.exp, NULL, 0, &err);
    icv_log_set_level(level);
    ASSERT(rc == 0, "%s", err.msg);
    static json_t *index;
    json_decref(index);
    index = load_json(th_tmp("out/overlays/index.json"));
    json_t *list = json_object_get(index, "overlays");
    ASSERT_EQ_INT((int)json_array_size(list), 3);
    for (int r = 0; r < 3; r++) {
        /* the box's 12 edges, 0.12 m long at ~0.5 m: hundreds of pixels */
        overlay_check(out, json_array_get(list, (size_t)r), 512, 418, 3, 200, r == 1);
        if (th_failed())
            return;
    }
    static char *page;
    free(page);
    page = report_fixture_read(th_tmp("out/report.html"));
    ASSERT(page, "no report.html");
    ASSERT_STR_CONTAINS(page, "not looked for (one camera: nothing to sync)");
    ASSERT_STR_CONTAINS(page, "<td>not checked</td>");
    ASSERT_STR_CONTAINS(page, "id=\"plot-calib-coverage-0\"");
}

TEST(test_overlays_of_a_run_without_impact_are_none_and_without_error)
{
    NEED_RUN();
    /* the run's files with results.json emptied of its impacts, and an older overlays
       folder that must go */
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "cp -r '%s/out' '%s/o' && mkdir -p '%s/o/overlays'", run_dir, th_tmpdir(), th_tmpdir()),
                  0);
    json_t *res = load_json(th_tmp("o/results.json"));
    ASSERT(res, "no results.json");
    json_object_set_new(res, "impacts", json_array());
    json_dump_file(res, th_tmp("o/results.json"), 0);
    json_decref(res);
    icv_err err = {0};
    int rc = job_overlays_write(th_tmp("o"), &run_exp, &err);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT(access(th_tmp("o/overlays"), F_OK) != 0, "an overlays folder is left");
}

TEST(test_overlays_errors_name_the_file_and_the_camera)
{
    NEED_RUN();
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "cp -r '%s/out' '%s/o' && rm '%s/o/track_info.json'", run_dir, th_tmpdir(),
                            th_tmpdir()),
                  0);
    static icv_experiment exp; /* the run's, with a camera's video changed below */
    exp = run_exp;
    icv_err err = {0};
    int rc = job_overlays_write(th_tmp("o"), &exp, &err);
    char msg[ICV_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err.msg);
    ASSERT(rc != 0, "no error without track_info.json");
    /* a video that is not there: the camera and the file */
    snprintf(exp.cameras[1].video, sizeof exp.cameras[1].video, "%s/missing.mp4", run_dir);
    icv_err err2 = {0};
    int rc2 = job_overlays_write(out_path(""), &exp, &err2);
    ASSERT_STR_CONTAINS(msg, "track_info.json");
    ASSERT(rc2 != 0, "no error for a missing video");
    ASSERT_STR_CONTAINS(err2.msg, "camera 'right'");
    ASSERT_STR_CONTAINS(err2.msg, "missing.mp4");
    ASSERT(access(out_path("overlays/index.json"), R_OK) == 0, "a failed call removed the previous overlays");
}

/* ---- report.html --------------------------------------------------------------- */

/* the text of section id in page (from its tag to the next section's) */
static const char *section(const char *page, const char *id, char *buf, size_t n)
{
    char tag[64];
    snprintf(tag, sizeof tag, "<section id=%s>", id);
    const char *a = strstr(page, tag), *b = a ? strstr(a + 1, "<section") : NULL;
    if (!a)
        return "";
    size_t len = b ? (size_t)(b - a) : strlen(a);
    snprintf(buf, n, "%.*s", (int)(len < n - 1 ? len : n - 1), a);
    return buf;
}

TEST(test_report_of_a_run_has_its_calibration_sync_and_timing_numbers)
{
    NEED_RUN();
    static char *page;
    static json_t *info;
    free(page);
    json_decref(info);
    page = report_fixture_read(out_path("report.html"));
    info = load_json(out_path("track_info.json"));
    ASSERT(page && info, "no report.html or track_info.json");
    static char buf[3][1 << 21]; /* a section with its SVG plots */
    char want[256];
    /* calibration: the stereo RMS, epipolar distance and baseline of the sidecar */
    const char *cal = section(page, "calibration", buf[0], sizeof buf[0]);
    json_t *st = json_object_get(json_object_get(info, "calibration"), "stereo");
    snprintf(want, sizeof want, "RMS %.3f px over %d of %d pairs; mean epipolar distance %.3f px; baseline %.2f",
             json_number_value(json_object_get(st, "rms_px")), (int)json_integer_value(json_object_get(st, "n_used")),
             (int)json_integer_value(json_object_get(st, "n_pairs")),
             json_number_value(json_object_get(st, "epipolar_px")),
             1e3 * json_number_value(json_object_get(st, "baseline_m")));
    ASSERT_STR_CONTAINS(cal, want);
    ASSERT_STR_CONTAINS(cal, "board images of experiment.yaml");
    ASSERT_STR_CONTAINS(cal, "id=\"plot-calib-views-10\"");
    ASSERT_STR_CONTAINS(cal, "id=\"plot-calib-coverage-11\"");
    ASSERT(!strstr(cal, "class=note"), "a note in the calibration section: %s", strstr(cal, "class=note"));
    /* sync: the refined offset with its sigma, the flash's whole-frame offset */
    const char *sy = section(page, "sync", buf[1], sizeof buf[1]);
    snprintf(want, sizeof want, "%.3f &plusmn; %.3f frames (1&sigma;), from %.3f frames by the flash",
             run_track.offset_frames[1], run_track.offset_sigma_frames, run_track.offset_initial_frames[1]);
    ASSERT_STR_CONTAINS(sy, want);
    ASSERT_STR_CONTAINS(sy, "id=\"plot-flash\"");
    ASSERT_STR_CONTAINS(sy, "flash, refined from the motion");
    /* timing: the capture rate and where it came from, the duplicated frames */
    const char *tm = section(page, "timing", buf[2], sizeof buf[2]);
    for (int c = 0; c < 2; c++) {
        json_t *cam = info_camera(info, run_track.camera_id[c]);
        json_t *timing = json_object_get(cam, "timing");
        size_t nd = json_array_size(json_object_get(timing, "duplicate_frames"));
        char cell[96];
        if (nd) /* with how many fall while the markers move (sample 02's: none) */
            snprintf(cell, sizeof cell, "%zu (%zu while the markers move)", nd,
                     json_array_size(json_object_get(timing, "duplicate_frames_in_motion")));
        else
            snprintf(cell, sizeof cell, "0");
        snprintf(want, sizeof want,
                 "%s</td><td>%ld</td><td>240.000</td><td>240.000</td><td>nominal</td><td>no</td><td>%s</td>",
                 run_track.camera_id[c], (long)json_integer_value(json_object_get(cam, "frames")), cell);
        ASSERT_STR_CONTAINS(tm, want);
    }
    /* the track stage's warnings; the overlays, one image per camera and frame */
    json_t *warns = json_object_get(info, "warnings");
    /* a calibration judged not usable: the warning says why, each "bad:" line of the
       verdict */
    json_t *verdict = json_object_get(json_object_get(json_object_get(info, "calibration"), "stereo"), "verdict");
    int n_bad = 0;
    for (size_t k = 1; k < json_array_size(verdict); k++) {
        const char *line = json_string_value(json_array_get(verdict, k));
        int found = !line || !strstr(line, "bad:");
        n_bad += !found;
        for (size_t j = 0; !found && j < json_array_size(warns); j++)
            found = strstr(json_string_value(json_array_get(warns, j)), line) != NULL;
        ASSERT(found, "the verdict's '%s' is in no warning", line);
    }
    /* sample 02's boards are a careful user's set (every edge and corner of each image):
       its verdict is good, and no warning may call the calibration not usable */
    ASSERT(n_bad == 0, "sample 02's careful calibration set has %d bad lines", n_bad);
    for (size_t j = 0; j < json_array_size(warns); j++)
        ASSERT(!strstr(json_string_value(json_array_get(warns, j)), "not usable"), "warning '%s' for a good verdict",
               json_string_value(json_array_get(warns, j)));
    for (size_t k = 0; k < json_array_size(warns); k++) {
        const char *wk = json_string_value(json_array_get(warns, k));
        ASSERT(wk, "warning %zu is not a string", k);
        char *esc = NULL; /* as the page writes it: HTML-escaped by core */
        size_t esc_n = 0;
        FILE *mf = open_memstream(&esc, &esc_n);
        ASSERT(mf, "open_memstream failed");
        icv_fput_html(mf, wk);
        fclose(mf);
        int found = strstr(page, esc) != NULL;
        free(esc);
        ASSERT(found, "warning %zu is not in the page: %s", k, wk);
    }
    json_t *index = load_json(out_path("overlays/index.json"));
    size_t i;
    json_t *e;
    int n_ov = 0;
    json_array_foreach(json_object_get(index, "overlays"), i, e)
    {
        snprintf(want, sizeof want, "id=\"overlay-%s-%d\"", json_string_value(json_object_get(e, "camera")),
                 (int)json_integer_value(json_object_get(e, "frame")));
        n_ov += strstr(page, want) != NULL;
    }
    json_decref(index);
    ASSERT_EQ_INT(n_ov, 6);
}

TEST(test_report_without_the_sidecar_says_why_its_sections_are_empty)
{
    NEED_RUN();
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "mkdir '%s/o' && cd '%s/out' && cp results.json fits.csv tracks3d.csv '%s/o/'",
                            th_tmpdir(), run_dir, th_tmpdir()),
                  0);
    icv_err err = {0};
    int rc = job_report_write(th_tmp("o"), &run_exp, NULL, 0, &err);
    ASSERT(rc == 0, "%s", err.msg);
    static char *page;
    free(page);
    page = report_fixture_read(th_tmp("o/report.html"));
    ASSERT(page, "no report.html");
    static char buf[1 << 14];
    static const char why[] = "track_info.json, which the track stage leaves, is absent";
    ASSERT_STR_CONTAINS(section(page, "calibration", buf, sizeof buf), why);
    ASSERT_STR_CONTAINS(section(page, "sync", buf, sizeof buf), why);
    ASSERT_STR_CONTAINS(section(page, "timing", buf, sizeof buf), why);
    ASSERT_STR_CONTAINS(section(page, "overlays", buf, sizeof buf), "No overlay images were given");
}

TEST(test_report_of_a_run_renders_in_headless_chromium_with_every_section)
{
    if (access(chromium, X_OK) != 0)
        SKIP("%s is absent (Debian package chromium)", chromium);
    if (th_sanitized()) /* the browser is not ours; the page's sections are read sanitized above */
        SKIP("in the plain pass: Chromium's rendering gains nothing from our sanitizers");
    NEED_RUN();
    browse(out_path("report.html"), "--dump-dom", "run.dom", "run.log", "run.net");
    static char *dom;
    free(dom);
    dom = report_fixture_read(th_tmp("run.dom"));
    ASSERT(dom && strstr(dom, "</html>"), "chromium gave no DOM: %s", th_read_file(th_tmp("run.log")));
    static const char *const ids[] = {
        "id=\"summary\"", "id=\"summary-impact-0\"", "id=\"overlays\"", "id=\"plots\"", "id=\"plot-com-position\"",
        "id=\"plot-com-velocity\"", "id=\"plot-euler\"", "id=\"plot-omega\"", "id=\"plot-contact-height\"",
        "id=\"plot-fit-residuals\"", "id=\"calibration\"", "id=\"plot-calib-views-10\"",
        "id=\"plot-calib-coverage-10\"", "id=\"plot-calib-views-11\"", "id=\"plot-calib-coverage-11\"",
        "id=\"sync\"", "id=\"plot-flash\"", "id=\"timing\"", "id=\"warnings\""};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        ASSERT(strstr(dom, ids[i]), "%s is not in the DOM chromium built", ids[i]);
    int n_ov = 0;
    for (const char *q = dom; (q = strstr(q, "id=\"overlay-")); q++)
        n_ov++;
    ASSERT_EQ_INT(n_ov, 6);
    ASSERT(!strstr(dom, "plot not drawn"), "a plot is missing: %s", strstr(dom, "plot not drawn"));
    char what[512];
    ASSERT_EQ_INT(console_lines("run.log", what, sizeof what), 0);
    int nreq = page_requests("run.net", what, sizeof what);
    ASSERT(nreq == 0, "the report made %d request(s), the first %s", nreq, what);
    char shot[1200], png_path[1200];
    snprintf(png_path, sizeof png_path, "%s/build/report_run_screenshot.png", th_root());
    snprintf(shot, sizeof shot, "--screenshot='%s' --window-size=1280,9000", png_path);
    unlink(png_path);
    browse(out_path("report.html"), shot, "shot.out", "shot.log", "shot.net");
    ASSERT(access(png_path, R_OK) == 0, "no screenshot at %s: %s", png_path, th_read_file(th_tmp("shot.log")));
    th_proc p;
    th_run_sh(&p, "cp '%s' '%s/build/report_run_example.html'", out_path("report.html"), th_root());
}
