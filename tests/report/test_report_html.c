/* test_report_html.c: report.html built from the files `impactcv analyze` leaves
 * (job_report_write): every section and plot is there in the order, every
 * image is inline, nothing refers to the network, and the numbers are those of
 * results.json. */
#include <stdlib.h>

#include "job/job.h"
#include "tests/report/report_fixture.h"

TEST(test_report_from_dir_has_every_section_in_order_and_is_self_contained)
{
    th_proc p;
    int st = report_fixture_make(th_tmpdir(), &p);
    ASSERT(st == 0, "analyze: status %d: %s", st, p.err);
    icv_experiment *exp = malloc(sizeof *exp);
    icv_err err = {0};
    ASSERT(exp, "out of memory");
    int rc = icv_experiment_load(th_tmp("experiment.yaml"), exp, &err);
    if (!rc)
        rc = job_report_write(th_tmpdir(), exp, NULL, 0, &err);
    free(exp);
    ASSERT(rc == 0, "job_report_write: %s", err.msg);
    static char *html;
    free(html); /* static: a failed ASSERT returns without freeing */
    html = report_fixture_read(th_tmp("report.html"));
    ASSERT(html, "no report.html");
    /* the order (item 2) */
    static const char *const ids[] = {"id=summary",          "id=overlays",         "id=\"plot-com-position\"",
                                      "id=\"plot-com-velocity\"", "id=\"plot-euler\"",  "id=\"plot-omega\"",
                                      "id=\"plot-contact-height\"", "id=\"plot-fit-residuals\"", "id=calibration",
                                      "id=sync",             "id=timing",           "id=warnings"};
    const char *at = html;
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        const char *q = strstr(at, ids[i]);
        ASSERT(q, "%s missing or out of order", ids[i]);
        at = q;
    }
    /* every plot drawn (an SVG data URI), none replaced by a note */
    int n_svg = 0;
    for (const char *q = html; (q = strstr(q, "data:image/svg+xml;base64,")); q++)
        n_svg++;
    ASSERT_EQ_INT(n_svg, 6);
    ASSERT(!strstr(html, "plot not drawn"), "a plot failed: %s", strstr(html, "plot not drawn"));
    ASSERT(!strstr(html, "http:") && !strstr(html, "https:") && !strstr(html, "<script"),
           "the page refers to the network or runs a script");
    /* the numbers of results.json */
    analysis_result *res = malloc(sizeof *res);
    ASSERT(res, "out of memory");
    rc = report_results_read(th_tmp("results.json"), res, &err);
    char want[64];
    snprintf(want, sizeof want, "<td>%.4g</td>", res->impacts[0].e_kinematic);
    int n_imp = res->n_impacts;
    free(res);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(n_imp, 1);
    ASSERT_STR_CONTAINS(html, want);
    ASSERT_STR_CONTAINS(html, "No calibration was given");
    ASSERT_STR_CONTAINS(html, "Impact 1 at t = ");
}

TEST(test_report_fits_apply_recovers_the_side_positions)
{
    /* pre.p from fits.csv against the scenario's known contact-time position */
    th_proc p;
    int st = report_fixture_make(th_tmpdir(), &p);
    ASSERT(st == 0, "analyze: status %d: %s", st, p.err);
    analysis_result *res = malloc(sizeof *res);
    report_fit_row *rows = NULL;
    int n = 0;
    icv_err err = {0};
    ASSERT(res, "out of memory");
    int rc = report_results_read(th_tmp("results.json"), res, &err);
    if (!rc)
        rc = report_fits_read(th_tmp("fits.csv"), &rows, &n, &err);
    if (!rc)
        report_fits_apply(rows, n, res);
    icv_vec3 pre = res->impacts[0].pre.p, post = res->impacts[0].post.p;
    free(rows);
    free(res);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT(n > 8, "only %d fit rows", n);
    scenario s;
    make_scenario(&s, 0);
    /* 1 mm: 0.2 mm marker noise averaged over the window, extrapolated over at
     * most a frame (the fit's own sigma is ~0.1 mm; this only catches a wrong formula) */
    ASSERT_NEAR(pre.y, s.p.y, 1e-3);
    ASSERT_NEAR(post.y, s.p.y, 1e-3);
    ASSERT_NEAR(pre.x, s.p.x, 1e-3);
}

TEST(test_report_from_dir_without_results_names_the_file)
{
    icv_experiment *exp = calloc(1, sizeof *exp);
    icv_err err = {0};
    ASSERT(exp, "out of memory");
    int rc = job_report_write(th_tmpdir(), exp, NULL, 0, &err);
    free(exp);
    ASSERT(rc != 0, "no error on an empty folder");
    ASSERT_STR_CONTAINS(err.msg, "results.json");
}

TEST(test_report_with_only_the_experiment_says_what_is_missing)
{
    /* every optional input absent: each section is still there, with its note */
    icv_experiment *exp = calloc(1, sizeof *exp);
    ASSERT(exp, "out of memory");
    snprintf(exp->name, sizeof exp->name, "bare <&> name");
    report_inputs in = {.exp = exp};
    icv_err err = {0};
    int rc = report_write(&in, th_tmp("report.html"), &err);
    free(exp);
    ASSERT(rc == 0, "%s", err.msg);
    const char *html = th_read_file(th_tmp("report.html"));
    ASSERT_STR_CONTAINS(html, "bare &lt;&amp;&gt; name"); /* escaped */
    ASSERT_STR_CONTAINS(html, "No analysis result was given");
    ASSERT_STR_CONTAINS(html, "No overlay images");
    ASSERT_STR_CONTAINS(html, "No 3D tracks were given");
    ASSERT_STR_CONTAINS(html, "No calibration was given");
    ASSERT_STR_CONTAINS(html, "No sync or capture results");
    ASSERT_STR_CONTAINS(html, "No capture results were given");
    ASSERT_STR_CONTAINS(html, "<li class=none>none</li>");
    ASSERT(report_write(NULL, th_tmp("x.html"), &err) == ICV_EINVAL, "accepted no inputs");
}

TEST(test_report_stereo_calibration_section_has_both_cameras_and_the_baseline)
{
    icv_experiment *exp = calloc(1, sizeof *exp);
    calib_stereo *st = calloc(1, sizeof *st);
    ASSERT(exp && st, "out of memory");
    exp->n_cameras = 2;
    snprintf(exp->cameras[0].id, sizeof exp->cameras[0].id, "left");
    snprintf(exp->cameras[1].id, sizeof exp->cameras[1].id, "right");
    st->rms = 0.25;
    st->baseline = 0.1234;
    st->baseline_std = 0.0002;
    st->verdict_ok = 0;
    snprintf(st->verdict, sizeof st->verdict, "only 3 pairs: at least 5 needed");
    st->cam[0].coverage_map[0][0] = 4;
    report_inputs in = {.exp = exp, .calib_stereo = st};
    icv_err err = {0};
    int rc = report_write(&in, th_tmp("report.html"), &err);
    free(exp);
    free(st);
    ASSERT(rc == 0, "%s", err.msg);
    const char *html = th_read_file(th_tmp("report.html"));
    ASSERT_STR_CONTAINS(html, "baseline 123.40 &plusmn; 0.20 mm");
    ASSERT_STR_CONTAINS(html, "not usable");
    ASSERT_STR_CONTAINS(html, "only 3 pairs: at least 5 needed");
    ASSERT_STR_CONTAINS(html, "id=\"plot-calib-coverage-10\"");
    ASSERT_STR_CONTAINS(html, "stereo camera 2 (right)");
}
