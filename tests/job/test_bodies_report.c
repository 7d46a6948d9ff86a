/* test_bodies_report.c: report.html of several bodies, end to end: synth's two-ball
 * collision and Akhan's two-link chain (their exact truth) -> every body's true
 * markers with 0.1 mm of noise as another system's TRC -> `impactcv analyze --tracks`
 * -> report.html beside results.json holding each body's name, each impact's e and
 * its sigma as results.json has them, the momentum balance's values, the chain's
 * energies (T1, T2 and T, three curves) and Akhan's e; a wrong mass flagged beside
 * the momentum it breaks; and the pages in headless Chromium with no console message,
 * no request, and every image decoded. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "tests/harness.h"
#include "tests/job/bodies_files.h"
#include "tests/report/browser.h"
#include "tests/report/report_fixture.h"

#define NOISE_M 1e-4 /* a mocap system's 0.1 mm */

/* synth scene `kind` draw 0 into th_tmp(kind)/, its analyze experiment (one body's
 * mass scaled: scale_body -1 none) and TRC; then analyze into <kind>/out<tag> */
static int scene(const char *kind, int scale_body, double mass_scale, const char *tag, icv_experiment *e, th_proc *p)
{
    char dir[1200], path[1300], exp[1300], trc[1300], out[1300];
    snprintf(dir, sizeof dir, "%s/%s", th_tmpdir(), kind);
    snprintf(trc, sizeof trc, "%s/bodies.trc", dir);
    if (access(trc, R_OK) != 0) {
        snprintf(path, sizeof path, "%s.yaml", dir);
        char text[128];
        snprintf(text, sizeof text, "multibody: {kind: %s, draw: 0}\n", kind);
        if (th_write_file(path, text) || th_run_cli(p, "synth '%s' -o '%s'", path, dir) != 0)
            return -1;
    }
    snprintf(path, sizeof path, "%s/experiment.yaml", dir);
    icv_err err = {0};
    if (icv_experiment_load(path, e, &err) != 0) {
        snprintf(p->err, sizeof p->err, "%s", err.msg);
        return -1;
    }
    snprintf(path, sizeof path, "%s/truth.json", dir);
    json_t *truth = json_load_file(path, 0, NULL);
    if (!truth)
        return -1;
    double g[3];
    for (int a = 0; a < 3; a++)
        g[a] = json_real_value(json_array_get(json_object_get(truth, "gravity"), (size_t)a));
    snprintf(exp, sizeof exp, "%s/analyze%s.yaml", dir, tag);
    snprintf(out, sizeof out, "%s/out%s", dir, tag);
    int rc = bodies_write_experiment(e, g, exp, scale_body, mass_scale);
    if (!rc && access(trc, R_OK) != 0)
        rc = bodies_write_trc(e, json_object_get(truth, "markers_3d"), 1001, NOISE_M, trc);
    json_decref(truth);
    if (rc)
        return -1;
    return th_run_cli(p, "analyze '%s' --tracks '%s' -o '%s'", exp, trc, out);
}

static double val(json_t *o, const char *key) { return json_real_value(json_object_get(json_object_get(o, key), "value")); }
static double sdv(json_t *o, const char *key) { return json_real_value(json_object_get(json_object_get(o, key), "sd")); }
static double at(json_t *arr, size_t i) { return json_real_value(json_array_get(arr, i)); }

/* the text of the page's table `id` (to its </table>), malloc'd; NULL when absent */
static char *table(const char *html, const char *id)
{
    char key[96];
    snprintf(key, sizeof key, "<table class=summary id=%s>", id);
    const char *a = strstr(html, key);
    if (!a) {
        snprintf(key, sizeof key, "id=%s>", id);
        a = strstr(html, key);
    }
    const char *z = a ? strstr(a, "</table>") : NULL;
    if (!z)
        return NULL;
    char *t = malloc((size_t)(z - a) + 1);
    memcpy(t, a, (size_t)(z - a));
    t[z - a] = 0;
    return t;
}

/* the bytes of the data-URI image with id `id` (base64 decoded), malloc'd */
static char *image(const char *html, const char *id)
{
    char key[96];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *a = strstr(html, key), *b = a ? strstr(a, "base64,") : NULL;
    if (!b || b - a > 2000)
        return NULL;
    b += 7;
    size_t n = strcspn(b, "\"");
    char *out = malloc(n + 1);
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", *c = strchr(tab, b[i]);
        if (!c || b[i] == 0)
            continue; /* '=' padding */
        acc = (acc << 6) | (unsigned)(c - tab);
        if ((bits += 6) >= 8) {
            bits -= 8;
            out[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    out[o] = 0;
    return out;
}

/* polylines of an SVG drawn `width` wide in colour `stroke` */
static int polylines(const char *svg, const char *stroke, const char *width)
{
    int n = 0;
    char s[64], w[64];
    snprintf(s, sizeof s, "stroke=\"%s\"", stroke);
    snprintf(w, sizeof w, "stroke-width=\"%s\"", width);
    for (const char *q = svg; (q = strstr(q, "<polyline")); q++) {
        const char *end = strstr(q, "/>");
        const char *qs = strstr(q, s), *qw = strstr(q, w);
        n += end && qs && qw && qs < end && qw < end;
    }
    return n;
}

/* Chromium: no console message and no request on the page; and a copy with a script
 * counting the images the browser decoded (naturalWidth > 0) of all */
static void browse_page(const char *page, const char *tag, int *decoded, int *images, int *console, int *requests)
{
    char out[64], log[64], net[64], what[512];
    snprintf(out, sizeof out, "%s.dom", tag);
    snprintf(log, sizeof log, "%s.log", tag);
    snprintf(net, sizeof net, "%s.net", tag);
    browse(page, "--dump-dom", out, log, net);
    *console = console_lines(log, what, sizeof what);
    *requests = page_requests(net, what, sizeof what);
    char *html = report_fixture_read(page);
    char check[1200];
    snprintf(check, sizeof check, "%s/%s_check.html", th_tmpdir(), tag);
    FILE *f = fopen(check, "w");
    const char *end = html ? strstr(html, "</body>") : NULL;
    if (f && end) {
        fwrite(html, 1, (size_t)(end - html), f);
        fputs("<script>window.addEventListener('load',function(){var m=document.images,k=0;for(var i=0;i<m.length;"
              "i++)if(m[i].complete&&m[i].naturalWidth>0)k++;var p=document.createElement('p');p.id='imgcheck';"
              "p.textContent='decoded '+k+' of '+m.length;document.body.appendChild(p);});</script></body></html>\n",
              f);
    }
    if (f)
        fclose(f);
    free(html);
    snprintf(out, sizeof out, "%s_check.dom", tag);
    snprintf(log, sizeof log, "%s_check.log", tag);
    snprintf(net, sizeof net, "%s_check.net", tag);
    browse(check, "--dump-dom", out, log, net);
    char *dom = report_fixture_read(th_tmp(out));
    const char *q = dom ? strstr(dom, "id=\"imgcheck\">") : NULL;
    *decoded = *images = -1;
    if (q)
        sscanf(q, "id=\"imgcheck\">decoded %d of %d", decoded, images);
    free(dom);
}

/* the page in Chromium: `expect` images, each decoded, no console message, no request */
static void rendered(const char *kind, int expect)
{
    if (access(chromium, X_OK) != 0) {
        printf("    %s is absent (Debian package chromium): the page not rendered\n", chromium);
        return;
    }
    char page[1300];
    snprintf(page, sizeof page, "%s/%s/out/report.html", th_tmpdir(), kind);
    int decoded, images, console, requests;
    browse_page(page, kind, &decoded, &images, &console, &requests);
    ASSERT(images == expect, "%s: %d images in the page Chromium built, %d expected", kind, images, expect);
    ASSERT(decoded == images, "%s: Chromium decoded %d of %d images", kind, decoded, images);
    ASSERT(console == 0, "%s: %d console message(s)", kind, console);
    ASSERT(requests == 0, "%s: %d request(s)", kind, requests);
}

TEST(test_bodies_report_of_a_collision_shows_each_impact_its_momentum_balance_and_flags_a_wrong_mass)
{
    static icv_experiment e;
    th_proc p;
    ASSERT(scene("collision", -1, 1, "", &e, &p) == 0, "collision: %s", p.err);
    char path[1300];
    snprintf(path, sizeof path, "%s/collision/out/results.json", th_tmpdir());
    json_t *res = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/collision/out/report.html", th_tmpdir());
    static char *html;
    free(html); /* the previous run's, kept static so that a failed ASSERT does not leak it */
    html = report_fixture_read(path);
    ASSERT(res && html, "results.json or report.html missing beside it in %s/collision/out", th_tmpdir());
    for (int k = 0; k < e.n_bodies; k++) {
        char cell[96];
        snprintf(cell, sizeof cell, "<tr><td>%s</td>", e.bodies[k].name);
        ASSERT(strstr(html, cell), "the bodies' table does not name '%s'", e.bodies[k].name);
        snprintf(cell, sizeof cell, "<h3>%s</h3>", e.bodies[k].name);
        ASSERT(strstr(html, cell), "no plots of '%s'", e.bodies[k].name);
        for (int q = 0; q < 3; q++) {
            static const char *const what[3] = {"position", "velocity", "energy"};
            snprintf(cell, sizeof cell, "<img id=\"plot-body-%d-%s\"", k, what[q]);
            ASSERT(strstr(html, cell), "no %s plot of '%s'", what[q], e.bodies[k].name);
        }
    }
    json_t *ims = json_object_get(res, "impacts");
    ASSERT(json_array_size(ims) >= 1, "no impact in results.json");
    for (size_t i = 0; i < json_array_size(ims); i++) {
        json_t *im = json_array_get(ims, i);
        char id[64], row[256];
        snprintf(id, sizeof id, "impact-%zu", i);
        static char *t;
        free(t);
        t = table(html, id);
        ASSERT(t, "no table %s", id);
        /* e and its sigma as results.json holds them, in the page's format */
        snprintf(row, sizeof row, "<td>e, Newton's ratio along the common normal</td><td>%.4g</td><td>%.2g</td>",
                 val(im, "e_newton"), sdv(im, "e_newton"));
        ASSERT(strstr(t, row), "impact %zu: e %.4g +- %.2g not on the page", i, val(im, "e_newton"), sdv(im, "e_newton"));
        ASSERT(fabs(val(im, "e_newton") - 0.8) < 0.02, "e %.4f (synth's 0.8)", val(im, "e_newton"));
        printf("    impact %zu: e %.4f +- %.4f, impulse ratio %.4f +- %.4f\n", i, val(im, "e_newton"), sdv(im, "e_newton"),
               val(im, "impulse_ratio"), sdv(im, "impulse_ratio"));
        snprintf(row, sizeof row, "</td><td>%.4g</td><td>%.2g</td>", val(im, "impulse_ratio"), sdv(im, "impulse_ratio"));
        ASSERT(strstr(t, row), "impact %zu: the impulse ratio not on the page", i);
        json_t *en = json_object_get(im, "energy");
        snprintf(row, sizeof row, "<td>energy lost (J)</td><td>%.4g</td><td>%.2g</td>", val(en, "lost_J"),
                 sdv(en, "lost_J"));
        ASSERT(strstr(t, row), "impact %zu: the energy lost not on the page", i);
        snprintf(row, sizeof row, "<td>its &chi;&sup2; on 3 dof (mean 3)</td><td>%.4g</td>",
                 json_real_value(json_object_get(json_object_get(im, "impulse_mismatch"), "chi2_3dof")));
        ASSERT(strstr(t, row), "impact %zu: the mismatch's chi2 not on the page", i);
        /* the balances: before and after per axis with their sigmas */
        snprintf(id, sizeof id, "impact-%zu-momentum", i);
        free(t);
        t = table(html, id);
        ASSERT(t, "no table %s", id);
        static const char *const keys[2] = {"momentum", "angular_momentum"}, *const names[2] = {"momentum",
                                                                                                 "angular momentum"};
        for (int b = 0; b < 2; b++) {
            json_t *m = json_object_get(im, keys[b]), *pre = json_object_get(m, "pre"), *post = json_object_get(m, "post");
            for (size_t a = 0; a < 3; a++) {
                snprintf(row, sizeof row, "<td>%s %c (%s)</td><td>%.5g &plusmn; %.2g</td><td>%.5g &plusmn; %.2g</td>",
                         names[b], "xyz"[a], b ? "N m s" : "N s", at(json_object_get(pre, "value"), a),
                         at(json_object_get(pre, "sd"), a), at(json_object_get(post, "value"), a),
                         at(json_object_get(post, "sd"), a));
                ASSERT(strstr(t, row), "impact %zu: %s", i, row);
                double d = at(json_object_get(post, "value"), a) - at(json_object_get(pre, "value"), a),
                       sd = hypot(at(json_object_get(pre, "sd"), a), at(json_object_get(post, "sd"), a));
                printf("    %s %c: change %.3g +- %.2g (%.2f sigma)\n", names[b], "xyz"[a], d, sd, d / sd);
            }
        }
        snprintf(id, sizeof id, "plot-impact-%zu-momentum", i);
        static char *svg;
        free(svg);
        svg = image(html, id);
        ASSERT(svg && strstr(svg, "<svg"), "no SVG %s", id);
        /* six error bars (three axes before and after) and three changes, in their colours */
        ASSERT(strstr(svg, "#1F77B4") && strstr(svg, "#FF7F0E") && strstr(svg, "#2CA02C"),
               "%s lacks the before, after or change colour", id);
        snprintf(id, sizeof id, "plot-impact-%zu-angmom", i);
        ASSERT(strstr(html, id), "no plot %s", id);
    }
    /* synth's collision conserves momentum: nothing flagged */
    ASSERT(strstr(html, "class=ok>No warning"), "a flag on an exact collision: %s",
           strstr(html, "flag\">") ? strstr(html, "flag\">") : "(none found)");
    json_decref(res);
    /* 2 balance plots and 3 per body */
    rendered("collision", 8);

    /* the same tracks with ball_b's mass given 1.5 times its own: its momentum change
       no longer cancels a's */
    ASSERT(scene("collision", 1, 1.5, "_heavy", &e, &p) == 0, "collision: %s", p.err);
    snprintf(path, sizeof path, "%s/collision/out_heavy/report.html", th_tmpdir());
    free(html);
    html = report_fixture_read(path);
    ASSERT(html, "no report.html");
    const char *flag = strstr(html, "&#9888; momentum along x not conserved");
    ASSERT(flag, "the wrong mass's momentum is not flagged beside it");
    ASSERT(strstr(flag, "a mass wrong in experiment.yaml"), "the flag does not name the likely cause");
    ASSERT(strstr(html, "<div id=summary-checks><p class=bad>"), "the summary does not list the flags");
    ASSERT(!strstr(html, "class=ok>No warning"), "the summary says no warning");
}

TEST(test_bodies_report_of_a_chain_shows_akhans_energies_and_e)
{
    if (th_sanitized()) /* the page's code runs sanitized in the collision's test above */
        SKIP("measured in the plain pass (a 6000 fps scene and its page: 35 s under ASan)");
    static icv_experiment e;
    th_proc p;
    ASSERT(scene("chain", -1, 1, "", &e, &p) == 0, "chain: %s", p.err);
    ASSERT_EQ_INT(e.n_joints, 1);
    char path[1300];
    snprintf(path, sizeof path, "%s/chain/out/results.json", th_tmpdir());
    json_t *res = json_load_file(path, 0, NULL);
    snprintf(path, sizeof path, "%s/chain/out/report.html", th_tmpdir());
    static char *html, *t, *svg;
    free(html);
    html = report_fixture_read(path);
    ASSERT(res && html, "results.json or report.html missing in %s/chain/out", th_tmpdir());
    json_t *ch = NULL, *ims = json_object_get(res, "impacts");
    for (size_t i = 0; i < json_array_size(ims); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(ims, i), "kind")), "chain_surface"))
            ch = json_array_get(ims, i);
    ASSERT(ch, "results.json has no chain_surface impact");
    free(t);
    t = table(html, "chain-impact");
    ASSERT(t, "no chain-impact table");
    json_t *ee = json_object_get(ch, "e_energetic");
    char row[256];
    for (int k = 0; k < 3; k++) {
        const char *key = k < 2 ? e.bodies[k].name : "chain";
        json_t *x = json_object_get(ee, key);
        snprintf(row, sizeof row, "%s</td><td>%.4g</td><td>%.2g</td>",
                 k < 2 ? e.bodies[k].name : "the chain (T = T1 + T2)", json_real_value(json_object_get(x, "value")),
                 json_real_value(json_object_get(x, "sd")));
        ASSERT(strstr(t, row), "Akhan's e of %s not on the page: %s", key, row);
        printf("    Akhan's e of %s %.4f +- %.4f\n", key, json_real_value(json_object_get(x, "value")),
               json_real_value(json_object_get(x, "sd")));
    }
    /* Akhan's e of the chain against synth's truth (its links' energies before and
       after), within 3 of its sigmas (99.7%) */
    snprintf(path, sizeof path, "%s/chain/truth.json", th_tmpdir());
    json_t *truth = json_load_file(path, 0, NULL), *ti = json_array_get(json_object_get(truth, "body_impacts"), 0);
    double T[2] = {0, 0};
    for (int s = 0; s < 2; s++)
        for (size_t k = 0; k < 2; k++)
            T[s] += json_real_value(json_object_get(json_array_get(json_object_get(ti, s ? "post" : "pre"), k),
                                                    "energy_J"));
    json_decref(truth);
    double ec = json_real_value(json_object_get(json_object_get(ee, "chain"), "value")),
           es = json_real_value(json_object_get(json_object_get(ee, "chain"), "sd")), et = sqrt(T[1] / T[0]);
    printf("    Akhan's e of the chain %.4f +- %.4f, truth %.4f (T %.4f J before, %.4f J after)\n", ec, es, et, T[0],
           T[1]);
    ASSERT(T[0] > 0 && fabs(ec - et) < 3 * es, "the chain's e %.4f +- %.4f (truth %.4f)", ec, es, et);
    json_t *st = json_object_get(ch, "states");
    for (int k = 0; k < 2; k++) {
        json_t *s = json_object_get(json_object_get(st, e.bodies[k].name), "pre");
        snprintf(row, sizeof row, "<td>T%d, %s, before (J)</td><td>%.4g</td><td>%.2g</td>", k + 1, e.bodies[k].name,
                 json_real_value(json_object_get(s, "energy_J")),
                 json_real_value(json_object_get(json_object_get(s, "uncertainty"), "energy_J")));
        ASSERT(strstr(t, row), "T%d before not on the page: %s", k + 1, row);
    }
    json_t *jr = json_object_get(ch, "joint_residual");
    snprintf(row, sizeof row, "<td>joint residual, RMS over the clip (mm)</td><td>%.4g</td>",
             1e3 * json_real_value(json_object_get(jr, "rms_m")));
    ASSERT(strstr(t, row), "the joint residual not on the page: %s", row);
    printf("    joint residual %.3f mm RMS\n", 1e3 * json_real_value(json_object_get(jr, "rms_m")));
    /* Akhan's Fig. 4.9: T1, T2 and T, each a fitted curve on both sides of the impact
       (2 px lines in palette colours 0, 1 and 3) and named in the legend */
    free(svg);
    svg = image(html, "plot-chain-energy");
    ASSERT(svg && strstr(svg, "<svg"), "no plot-chain-energy SVG");
    static const char *const col[3] = {"#1F77B4", "#FF7F0E", "#D62728"};
    for (int q = 0; q < 3; q++)
        ASSERT(polylines(svg, col[q], "2.000000e+00") >= 2, "curve %d (%s) has %d fitted pieces, not 2", q, col[q],
               polylines(svg, col[q], "2.000000e+00"));
    /* PLplot writes text as character references: "T1", "T2", "T" in the legend */
    ASSERT(strstr(svg, ">&#x54;&#x31;</tspan>") && strstr(svg, ">&#x54;&#x32;</tspan>") &&
               strstr(svg, ">&#x54;</tspan>"),
           "the legend does not name T1, T2 and T");
    ASSERT(strstr(svg, "&#x28;&#x6d;&#x73;&#x29;</tspan>"), "the time axis is not in ms");
    json_decref(res);
    /* the energies and 3 plots per link */
    rendered("chain", 7);
}

