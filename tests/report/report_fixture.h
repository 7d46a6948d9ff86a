/* report_fixture.h: a folder as `impactcv analyze` leaves it (experiment.yaml,
 * tracks3d.csv, results.json, fits.csv), made from the box scenario of
 * tests/analysis/impact_scenario.h, for the report's tests. */
#ifndef ICV_TEST_REPORT_FIXTURE_H
#define ICV_TEST_REPORT_FIXTURE_H

#include <stdio.h>

#include "tests/analysis/impact_scenario.h"
#include "tests/harness.h"

static const char report_exp_yaml[] =
    "name: box_drop\n"
    "cameras: [{id: left, video: left.mp4}, {id: right, video: right.mp4}]\n"
    "calibration: {file: stereo.yaml}\n"
    "surface: {plane: {point: [0, 0.1, 1.0], normal: [0, -1, 0]}}\n"
    "gravity: [0, -9.81, 0]\n"
    "body:\n"
    "  mass: 0.5\n"
    "  inertia: [[%.10g,0,0],[0,%.10g,0],[0,0,%.10g]]\n"
    "  markers: [[0.09,0.02,0.02],[-0.09,0.02,-0.02],[0.0,0.02,0.03],[0.05,-0.02,0.0]]\n"
    "  shape: {type: box, size: [0.2, 0.04, 0.06]}\n"
    "model: {restitution: stronge, mu: measured, e_n: measured}\n";

/* A whole file, malloc'd and NUL-terminated (th_read_file stops at 1 MiB), or NULL. */
static inline char *report_fixture_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *d = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (d && fread(d, 1, (size_t)n, f) == (size_t)n)
        d[n] = 0;
    else {
        free(d);
        d = NULL;
    }
    fclose(f);
    return d;
}

/* Writes the scenario into dir and runs analyze there; 0 or the CLI's status
 * (its stderr in p->err). */
static inline int report_fixture_make(const char *dir, th_proc *p)
{
    scenario s;
    make_scenario(&s, 0);
    char text[2048], path[1024];
    snprintf(text, sizeof text, report_exp_yaml, s.body.inertia.m[0][0], s.body.inertia.m[1][1],
             s.body.inertia.m[2][2]);
    snprintf(path, sizeof path, "%s/experiment.yaml", dir);
    th_write_file(path, text);
    analysis_tracks tr;
    sample(&s, 0.45, 2e-4, 9, &tr); /* 0.2 mm noise, as tests/analysis/test_analyze_cli.c */
    tr.seen[40 * tr.n_markers + 1] = 0; /* one marker hidden in one frame: exports leave it empty */
    snprintf(path, sizeof path, "%s/tracks3d.csv", dir);
    write_tracks3d(&tr, path, 1.0, 1.0);
    analysis_tracks_free(&tr);
    return th_run_cli(p, "analyze '%s/experiment.yaml' -o '%s'", dir, dir);
}

#endif
