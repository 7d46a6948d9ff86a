/* tracks_import.c: the tracks `analyze` reads: the contract's tracks3d.csv, or a C3D
 * or TRC file written by a motion-capture system (core/marker_file.h).
 * With an experiment without cameras the tracks are in their system's frame and are
 * mapped to the surface frame that surface.plane defines there. */
#include <string.h>

#include "analysis/analysis.h"
#include "core/marker_file.h"

/* file marker index of each body marker: by body.marker_labels, else in order */
static int match_markers(const icv_experiment *e, const icv_marker_file *m, const char *path, int *idx, icv_err *err)
{
    if (!e->marker_labels[0][0]) {
        if (m->n_markers == e->n_markers) {
            for (int k = 0; k < e->n_markers; k++)
                idx[k] = k;
            return 0;
        }
        return icv_err_set(err, ICV_EINVAL,
                           "%s: holds %d markers ('%s', ...), the body %d: name the body's with body.marker_labels", path,
                           m->n_markers, m->labels[0], e->n_markers);
    }
    for (int k = 0; k < e->n_markers; k++) {
        idx[k] = -1;
        for (int j = 0; j < m->n_markers && idx[k] < 0; j++)
            if (!strcmp(m->labels[j], e->marker_labels[k]))
                idx[k] = j;
        if (idx[k] < 0)
            return icv_err_set(err, ICV_EINVAL, "%s: no marker labelled '%s' (body.marker_labels[%d]); the file's %d "
                               "begin '%s'",
                               path, e->marker_labels[k], k, m->n_markers, m->labels[0]);
    }
    return 0;
}

static int read_marker_file(const icv_experiment *e, const char *path, analysis_tracks *tr, icv_err *err)
{
    icv_marker_file m;
    int rc = icv_marker_file_read(path, &m, err);
    if (rc)
        return rc;
    int idx[ICV_MAX_MARKERS];
    if (!(rc = match_markers(e, &m, path, idx, err)) &&
        !(rc = analysis_tracks_alloc(tr, m.n_frames, e->n_markers, 0, err))) {
        for (int i = 0; i < m.n_frames; i++) {
            tr->frame[i] = m.frame[i];
            tr->t[i] = m.t[i];
            for (int k = 0; k < e->n_markers; k++) {
                size_t from = (size_t)i * (size_t)m.n_markers + (size_t)idx[k], to = (size_t)i * e->n_markers + k;
                tr->pos[to] = m.pos[from];
                tr->seen[to] = m.seen[from];
            }
        }
        icv_info("%s: %d frames of %d markers at %g Hz, in %s", path, m.n_frames, e->n_markers, m.rate_hz, m.units);
    }
    icv_marker_file_free(&m);
    return rc;
}

/* The surface frame of a plane given in the tracks' frame, as calib_surface_from_plane
 * builds it in a camera's: y the normal (as given: to the body's side, there being no
 * camera to point it to), x the tracks' x axis projected on the plane (their z when
 * x is nearly normal), z = x cross y; the origin at the given point. */
static void to_surface(const icv_experiment *e, analysis_tracks *tr)
{
    icv_vec3 y = icv_v3_unit(e->plane_normal), x = icv_v3(1, 0, 0);
    x = icv_v3_axpy(-icv_v3_dot(x, y), y, x);
    if (icv_v3_norm(x) < 1e-6)
        x = icv_v3_axpy(-y.z, y, icv_v3(0, 0, 1));
    x = icv_v3_unit(x);
    icv_vec3 z = icv_v3_cross(x, y);
    size_t n = (size_t)tr->n_frames * (size_t)tr->n_markers;
    for (size_t j = 0; j < n; j++) {
        icv_vec3 d = icv_v3_sub(tr->pos[j], e->plane_point);
        tr->pos[j] = icv_v3(icv_v3_dot(d, x), icv_v3_dot(d, y), icv_v3_dot(d, z));
    }
}

int analysis_tracks_read_for(const icv_experiment *e, const char *path, analysis_tracks *tr, icv_err *err)
{
    int rc = icv_marker_file_sniff(path) != ICV_MARKERS_UNKNOWN ? read_marker_file(e, path, tr, err)
                                                                : analysis_tracks_read_csv(path, tr, err);
    if (!rc && e->n_cameras == 0)
        to_surface(e, tr);
    return rc;
}
