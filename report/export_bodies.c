/* export_bodies.c: the exports of several bodies: every body's markers in one TRC and
 * one C3D, each marker named after its body, and one pose CSV per body. */
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

enum { STEM_MAX = 24 }; /* a name's characters in a label: <stem>_m<k> fits 31 */

/* body b's name as a label's and a file name's stem: letters, digits, '_', '-', '.'
 * kept, any other character '_', cut to STEM_MAX */
static void stem_of(const char *name, char out[STEM_MAX + 1])
{
    size_t n = 0;
    for (; name[n] && n < STEM_MAX; n++) {
        char c = name[n];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                 c == '-' || c == '.';
        out[n] = ok ? c : '_';
    }
    out[n] = '\0';
}

/* every body's stem; body<b> where it is empty, "." or "..", or an earlier body's */
static void stems(const icv_experiment *e, char s[ICV_MAX_BODIES][STEM_MAX + 1])
{
    for (int b = 0; b < e->n_bodies; b++) {
        stem_of(e->bodies[b].name, s[b]);
        int bad = !s[b][0] || !strcmp(s[b], ".") || !strcmp(s[b], "..");
        for (int a = 0; a < b; a++)
            bad |= !strcmp(s[a], s[b]);
        if (bad)
            snprintf(s[b], STEM_MAX + 1, "body%d", b);
    }
}

void report_marker_labels(const icv_experiment *e, report_marker_label *out, int *n)
{
    *n = 0;
    if (e->n_bodies <= 1) {
        for (int k = 0; k < e->n_markers; k++, (*n)++) {
            report_marker_name(k, out[k].label, sizeof out[k].label);
            snprintf(out[k].desc, sizeof out[k].desc, "marker %d of body.markers, surface frame", k);
        }
        return;
    }
    char s[ICV_MAX_BODIES][STEM_MAX + 1];
    stems(e, s);
    for (int b = 0; b < e->n_bodies; b++)
        for (int k = 0; k < e->bodies[b].n_markers; k++, (*n)++) {
            snprintf(out[*n].label, sizeof out[*n].label, "%s_m%d", s[b], k);
            snprintf(out[*n].desc, sizeof out[*n].desc, "marker %d of bodies[%d] '%.40s', surface frame", k, b,
                     e->bodies[b].name);
        }
}

int report_exports_write_bodies(const char *dir, const analysis_tracks *tr, const icv_experiment *e, icv_err *err)
{
    enum { MAX_LABELS = ICV_MAX_BODIES * ICV_MAX_MARKERS };
    report_marker_label *labels = malloc(sizeof *labels * MAX_LABELS);
    icv_experiment *ek = malloc(sizeof *ek);
    char p[ICV_PATH_MAX], name[STEM_MAX + 16], s[ICV_MAX_BODIES][STEM_MAX + 1];
    int n = 0, rc = 0;
    if (!labels || !ek) {
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", dir);
        goto out;
    }
    report_marker_labels(e, labels, &n);
    if (n != tr->n_markers) {
        rc = icv_err_set(err, ICV_EINVAL, "%s: the tracks hold %d markers, the %d bodies of %s %d together", dir,
                         tr->n_markers, e->n_bodies, e->path, n);
        goto out;
    }
    if ((rc = icv_path_join(p, sizeof p, dir, "tracks3d.trc", err)) ||
        (rc = report_export_trc_labelled(p, tr, labels, err)) ||
        (rc = icv_path_join(p, sizeof p, dir, "tracks3d.c3d", err)) ||
        (rc = report_export_c3d_labelled(p, tr, labels, err)))
        goto out;
    stems(e, s);
    for (int b = 0; b < e->n_bodies && !rc; b++) {
        analysis_body body;
        analysis_tracks one;
        *ek = *e;
        icv_experiment_use_body(ek, b);
        snprintf(name, sizeof name, "pose_%s.csv", s[b]);
        if ((rc = analysis_body_from_experiment(ek, &body, err)) ||
            (rc = analysis_tracks_take(tr, icv_experiment_first_marker(e, b), e->bodies[b].n_markers, &one, err)))
            break;
        if (!(rc = icv_path_join(p, sizeof p, dir, name, err)))
            rc = report_export_pose_csv(p, &one, &body, err);
        analysis_tracks_free(&one);
    }
out:
    free(labels);
    free(ek);
    return rc;
}
