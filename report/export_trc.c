/* export_trc.c: 3D marker tracks as TRC, OpenSim's marker file (PathFileType 4,
 * tab-separated: a header of rates and counts, marker names over X/Y/Z columns,
 * then Frame# and Time per row). Millimetres, as OpenSim's examples use. */
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

void report_marker_name(int k, char *out, size_t n) { snprintf(out, n, "m%d", k); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Hz: 1 / median interval (robust to a dropped frame) */
double report_tracks_rate(const analysis_tracks *tr)
{
    if (tr->n_frames < 2)
        return 0;
    int n = tr->n_frames - 1;
    double *dt = malloc(sizeof *dt * (size_t)n);
    if (!dt)
        return 0;
    for (int i = 0; i < n; i++)
        dt[i] = tr->t[i + 1] - tr->t[i];
    qsort(dt, (size_t)n, sizeof *dt, cmp_double);
    double m = dt[n / 2];
    free(dt);
    return m > 0 ? 1.0 / m : 0;
}

int report_export_trc(const char *path, const analysis_tracks *tr, icv_err *err)
{
    if (tr->n_frames < 1 || tr->n_markers < 1)
        return icv_err_set(err, ICV_EINVAL, "%s: no tracks to export", path);
    double rate = report_tracks_rate(tr);
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc)
        return rc;
    FILE *f = af.fp;
    const char *base = strrchr(path, '/');
    fprintf(f, "PathFileType\t4\t(X/Y/Z)\t%s\n", base ? base + 1 : path);
    fprintf(f, "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n");
    fprintf(f, "%.6g\t%.6g\t%d\t%d\tmm\t%.6g\t%d\t%d\n", rate, rate, tr->n_frames, tr->n_markers, rate,
            tr->frame[0] + 1, tr->n_frames);
    fputs("Frame#\tTime", f);
    for (int k = 0; k < tr->n_markers; k++) {
        char nm[16];
        report_marker_name(k, nm, sizeof nm);
        fprintf(f, "\t%s\t\t", nm);
    }
    fputs("\n\t", f);
    for (int k = 0; k < tr->n_markers; k++)
        fprintf(f, "\tX%d\tY%d\tZ%d", k + 1, k + 1, k + 1);
    fputs("\n\n", f);
    for (int i = 0; i < tr->n_frames; i++) {
        fprintf(f, "%d\t%.9g", i + 1, tr->t[i]);
        for (int k = 0; k < tr->n_markers; k++) {
            int j = i * tr->n_markers + k;
            if (tr->seen[j])
                fprintf(f, "\t%.6f\t%.6f\t%.6f", 1e3 * tr->pos[j].x, 1e3 * tr->pos[j].y, 1e3 * tr->pos[j].z);
            else
                fputs("\t\t\t", f);
        }
        fputc('\n', f);
    }
    return icv_atomic_commit(&af, err);
}
