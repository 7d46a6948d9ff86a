/* marker_file.c: the format of a motion-capture marker file from its first bytes,
 * units, and the arrays the C3D and TRC readers fill (marker_c3d.c, marker_trc.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/marker_file.h"

icv_marker_format icv_marker_file_sniff(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ICV_MARKERS_UNKNOWN;
    unsigned char h[16] = {0};
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n >= 12 && !memcmp(h, "PathFileType", 12))
        return ICV_MARKERS_TRC;
    /* C3D: byte 0 the parameter section's block (>= 2), byte 1 the key 0x50; a
       text file's second byte is never 'P' after a digit or letter that small */
    if (n >= 2 && h[1] == 0x50 && h[0] >= 2 && h[0] < 0x20)
        return ICV_MARKERS_C3D;
    return ICV_MARKERS_UNKNOWN;
}

int icv_marker_file_read(const char *path, icv_marker_file *m, icv_err *err)
{
    switch (icv_marker_file_sniff(path)) {
    case ICV_MARKERS_C3D:
        return icv_marker_file_read_c3d(path, m, err);
    case ICV_MARKERS_TRC:
        return icv_marker_file_read_trc(path, m, err);
    default:
        memset(m, 0, sizeof *m);
        return icv_err_set(err, ICV_EFORMAT, "%s: neither C3D nor TRC (nor readable)", path);
    }
}

double icv_marker_unit_m(const char *u)
{
    static const struct {
        const char *name;
        double m;
    } units[] = {{"mm", 1e-3}, {"millimeter", 1e-3}, {"millimeters", 1e-3}, {"millimetre", 1e-3},
                 {"millimetres", 1e-3}, {"cm", 1e-2}, {"centimeters", 1e-2}, {"m", 1}, {"meter", 1},
                 {"meters", 1}, {"metre", 1}, {"metres", 1}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcasecmp(u, units[i].name))
            return units[i].m;
    return 0;
}

int icv_marker_file_alloc(icv_marker_file *m, int n_frames, int n_markers, const char *path, icv_err *err)
{
    size_t n = (size_t)n_frames * (size_t)n_markers;
    m->n_frames = n_frames;
    m->n_markers = n_markers;
    m->frame = calloc((size_t)n_frames, sizeof *m->frame);
    m->t = calloc((size_t)n_frames, sizeof *m->t);
    m->pos = calloc(n, sizeof *m->pos);
    m->seen = calloc(n, 1);
    m->labels = calloc((size_t)n_markers, sizeof *m->labels);
    if (!m->frame || !m->t || !m->pos || !m->seen || !m->labels) {
        icv_marker_file_free(m);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for %d frames of %d markers", path, n_frames,
                           n_markers);
    }
    return 0;
}

void icv_marker_file_free(icv_marker_file *m)
{
    free(m->frame);
    free(m->t);
    free(m->pos);
    free(m->seen);
    free(m->labels);
    m->frame = NULL;
    m->t = NULL;
    m->pos = NULL;
    m->seen = NULL;
    m->labels = NULL;
    m->n_frames = m->n_markers = 0;
}
