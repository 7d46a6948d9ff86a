/* test_report_browser.c: report.html in a real browser (issue #10, "Measured"):
 * headless Chromium (Debian's chromium) loads the page from disk with no console
 * message and no request made by the page, every section and plot is in the DOM
 * it built, and a screenshot is left in build/report_screenshot.png for a person.
 * Requests are read from Chromium's own NetLog (--log-net-log): a page's resource
 * loads carry the blink_resource_loader traffic annotation (id 101845102 in
 * Chromium's annotations.xml), the browser's own service calls carry others. A
 * control page with a remote image and a console.error checks that both
 * detectors fire. Skips when /usr/bin/chromium is absent. */
#include <stdlib.h>
#include <unistd.h>

#include "report/report.h"
#include "tests/report/browser.h"
#include "tests/report/report_fixture.h"

/* a synthetic camera frame of the body at pose (R, p), as the pipeline will draw
 * it: bright blobs at the markers over a dark gradient, then the markers' rings
 * and the box's projected outline (camera `cam_i`: 0 left, 1 right) */
static int make_overlay(const icv_experiment *e, icv_mat3 R, icv_vec3 p, int cam_i, unsigned char **png, size_t *len)
{
    enum { W = 480, H = 320 };
    static unsigned char gray[W * H];
    const calib_intrinsics in = {W, H, 500, 500, W / 2.0, H / 2.0, {0, 0, 0, 0, 0}};
    /* the surface 0.7 m away, seen from 25 deg above it, cameras 0.1 m apart */
    icv_mat3 Rc = icv_m3_mul(icv_rot_x(M_PI / 2 + 0.45), icv_rot_y(cam_i ? -0.15 : 0.15));
    icv_vec3 tc = icv_v3(cam_i ? -0.05 : 0.05, 0.12, 0.7);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            gray[y * W + x] = (unsigned char)(30 + (y * 40) / H);
    report_point2d pts[ICV_MAX_MARKERS];
    int n = 0;
    for (int k = 0; k < e->n_markers && k < ICV_MAX_MARKERS; k++) {
        icv_vec3 x = icv_v3_add(icv_m3_apply(Rc, icv_v3_add(icv_m3_apply(R, e->markers[k]), p)), tc);
        calib_pt2 q;
        calib_project(&in, &x, 1, &q);
        pts[n++] = (report_point2d){q.u, q.v, k, 0};
        for (int dy = -4; dy <= 4; dy++)
            for (int dx = -4; dx <= 4; dx++) {
                int u = (int)lround(q.u) + dx, v = (int)lround(q.v) + dy;
                if (dx * dx + dy * dy <= 16 && u >= 0 && v >= 0 && u < W && v < H)
                    gray[v * W + u] = 245;
            }
    }
    report_outline o;
    report_outline_of_shape(&e->shape, R, p, &o);
    static double uv[2 * REPORT_OUTLINE_MAX_PTS];
    report_polyline lines[REPORT_OUTLINE_MAX_LINES];
    int nl = report_outline_project(&o, &in, Rc, tc, uv, lines);
    icv_err err;
    return report_overlay_png(gray, W, H, W, pts, n, lines, nl, 8, png, len, &err);
}

TEST(test_report_renders_in_headless_chromium_without_errors_or_requests)
{
    if (access(chromium, X_OK) != 0)
        SKIP("%s is absent (Debian package chromium)", chromium);
    if (th_sanitized()) /* the browser is not ours; the page's code runs sanitized in test_report*.c */
        SKIP("in the plain pass: Chromium's rendering gains nothing from our sanitizers");
    /* the control page: both detectors must fire on it */
    th_write_file(th_tmp("control.html"), "<!DOCTYPE html><html><body><p id=c>x</p>"
                                          "<img src='http://127.0.0.1:9/x.png'><script>console.error('control')"
                                          "</script></body></html>");
    browse(th_tmp("control.html"), "--dump-dom", "control.dom", "control.log", "control.net");
    char what[512];
    ASSERT(page_requests("control.net", what, sizeof what) > 0, "the NetLog check missed the control page's request");
    ASSERT(console_lines("control.log", what, sizeof what) > 0, "the console check missed the control's console.error");

    /* the report, with every optional part filled */
    th_proc p;
    int st = report_fixture_make(th_tmpdir(), &p);
    ASSERT(st == 0, "analyze: status %d: %s", st, p.err);
    icv_experiment *exp = malloc(sizeof *exp);
    analysis_result *res = malloc(sizeof *res);
    ASSERT(exp && res, "out of memory");
    icv_err err = {0};
    report_fit_row *rows = NULL;
    int nrows = 0;
    analysis_tracks tr;
    int rc = icv_experiment_load(th_tmp("experiment.yaml"), exp, &err);
    if (!rc)
        rc = report_results_read(th_tmp("results.json"), res, &err);
    if (!rc)
        rc = report_fits_read(th_tmp("fits.csv"), &rows, &nrows, &err);
    if (!rc)
        rc = analysis_tracks_read_csv(th_tmp("tracks3d.csv"), &tr, &err);
    if (rc) {
        free(exp);
        free(res);
        free(rows);
        ASSERT(0, "%s", err.msg);
    }
    report_fits_apply(rows, nrows, res);
    unsigned char *png[2] = {NULL, NULL};
    size_t png_len[2];
    const analysis_impact *im = &res->impacts[0];
    ASSERT(make_overlay(exp, im->pre.R, im->pre.p, 0, &png[0], &png_len[0]) == 0 &&
               make_overlay(exp, im->pre.R, im->pre.p, 1, &png[1], &png_len[1]) == 0,
           "overlay failed");
    report_overlay ov[2] = {{"left", 30, png[0], png_len[0], ""}, {"right", 30, png[1], png_len[1], ""}};
    static calib_camera cams[2];
    static calib_view views[2][8];
    for (int c = 0; c < 2; c++) {
        memset(&cams[c], 0, sizeof cams[c]);
        cams[c].views = views[c];
        cams[c].n_views = 8;
        cams[c].n_used = 7;
        cams[c].rms = 0.21 + 0.02 * c;
        for (int v = 0; v < 8; v++) {
            snprintf(views[c][v].name, sizeof views[c][v].name, "board_%02d.png", v);
            views[c][v].rms = 0.15 + 0.02 * v;
            views[c][v].status = v == 5 ? CALIB_VIEW_OUTLIER : CALIB_VIEW_USED;
        }
        for (int j = 0; j < CALIB_COV_ROWS; j++)
            for (int i = 0; i < CALIB_COV_COLS; i++)
                cams[c].coverage_map[j][i] = (unsigned short)((i + j) % 5 == 0 ? 0 : (i * j) % 7);
        cams[c].coverage = 0.8;
        cams[c].verdict_ok = 1;
        snprintf(cams[c].verdict, sizeof cams[c].verdict, "RMS 0.21 px is below 0.5 px\ncoverage 80%% of the image");
    }
    static capture_probe probes[2];
    static double bright[2][120];
    static capture_sync sync[2];
    for (int c = 0; c < 2; c++) {
        memset(&probes[c], 0, sizeof probes[c]);
        probes[c].info.frames = probes[c].frames_decoded = 120;
        probes[c].info.nominal_fps = 30;
        probes[c].info.capture_fps = 120;
        probes[c].has_flash = 1;
        probes[c].flash.frame = 20 + c;
        probes[c].flash.ratio = 0.4;
        probes[c].flash.onset_frame = 19.9 + c;
        probes[c].flash.baseline = 60;
        probes[c].flash.plateau = 200;
        for (int k = 0; k < 120; k++)
            bright[c][k] = k < 20 + c ? 60 : k == 20 + c ? 116 : 200;
        probes[c].brightness = bright[c];
        probes[c].n_brightness = 120;
        sync[c].offset_frames = c * 1.0;
        sync[c].offset_s = c / 120.0;
    }
    const char *warns[1] = {"camera right: 1 duplicated frame (frame 57)"};
    report_inputs in = {.exp = exp, .result = res, .tracks = &tr, .fits = rows, .n_fits = nrows, .overlays = ov,
                        .n_overlays = 2, .calib_cameras = cams, .n_calib_cameras = 2, .probes = probes, .n_probes = 2,
                        .sync = sync, .n_sync = 2, .warnings = warns, .n_warnings = 1};
    rc = report_write(&in, th_tmp("report.html"), &err);
    free(png[0]);
    free(png[1]);
    free(rows);
    free(res);
    free(exp);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "report_write: %s", err.msg);

    char report[1024];
    snprintf(report, sizeof report, "%s", th_tmp("report.html"));
    browse(report, "--dump-dom", "report.dom", "report.log", "report.net");
    static char *dom;
    free(dom); /* the previous run's, kept static so that a failed ASSERT does not leak it */
    dom = report_fixture_read(th_tmp("report.dom"));
    ASSERT(dom && strstr(dom, "</html>"), "chromium gave no DOM: %s", th_read_file(th_tmp("report.log")));
    static const char *const ids[] = {
        "id=\"summary\"", "id=\"summary-impact-0\"", "id=\"summary-flights\"", "id=\"summary-flight-0\"", "id=\"overlays\"", "id=\"overlay-left-30\"", "id=\"overlay-right-30\"",
        "id=\"plots\"", "id=\"plot-com-position\"", "id=\"plot-com-velocity\"", "id=\"plot-euler\"", "id=\"plot-omega\"",
        "id=\"plot-contact-height\"", "id=\"plot-fit-residuals\"", "id=\"calibration\"", "id=\"plot-calib-views-0\"",
        "id=\"plot-calib-coverage-0\"", "id=\"plot-calib-views-1\"", "id=\"sync\"", "id=\"plot-flash\"", "id=\"timing\"",
        "id=\"warnings\""};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        ASSERT(strstr(dom, ids[i]), "%s is not in the DOM chromium built", ids[i]);
    ASSERT(!strstr(dom, "plot not drawn"), "a plot is missing: %s", strstr(dom, "plot not drawn"));
    ASSERT_EQ_INT(console_lines("report.log", what, sizeof what), 0);
    int nreq = page_requests("report.net", what, sizeof what);
    ASSERT(nreq == 0, "the report made %d request(s), the first %s", nreq, what);

    /* the screenshot for a person (build/report_screenshot.png) */
    char shot[1200];
    snprintf(shot, sizeof shot, "--screenshot='%s/build/report_screenshot.png' --window-size=1280,4000", th_root());
    browse(report, shot, "shot.out", "shot.log", "shot.net");
    char png_path[1200];
    snprintf(png_path, sizeof png_path, "%s/build/report_screenshot.png", th_root());
    ASSERT(access(png_path, R_OK) == 0, "no screenshot at %s: %s", png_path, th_read_file(th_tmp("shot.log")));
    th_run_sh(&p, "cp '%s' '%s/build/report_example.html'", report, th_root()); /* the page itself, to open */
}
