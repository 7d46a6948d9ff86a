/* export_trc.c: 3D marker tracks as TRC, OpenSim's marker file (PathFileType 4,
 * tab-separated: a header of rates and counts, marker names over X/Y/Z columns,
 * then Frame# and Time per row). Millimetres, as OpenSim's examples use. */
#include <math.h>
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
static double median_rate(const analysis_tracks *tr)
{
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

/* The frame rate, exact where the file's rounding allows: frames spanned over the
 * time spanned (first to last row; a dropped row changes neither), then the nearest
 * whole rate or NTSC rate (N * 1000/1001) when the times' rounding (tracks3d.csv
 * keeps 1 ns) cannot tell them apart. 240 fps tracks give 240, not 239.99998. The
 * median interval is kept when the frame numbers disagree with the times (by 1%). */
double report_tracks_rate(const analysis_tracks *tr)
{
    if (tr->n_frames < 2)
        return 0;
    double med = median_rate(tr);
    int last = tr->n_frames - 1;
    double span = tr->t[last] - tr->t[0], frames = (double)tr->frame[last] - (double)tr->frame[0];
    if (!(span > 0) || !(frames > 0) || !(med > 0))
        return med;
    double r = frames / span;
    if (fabs(r - med) > 0.01 * med)
        return med;
    double tol = r * (1.5e-9 / span + 1e-12); /* two times rounded to 0.5 ns each */
    double whole = round(r), ntsc = round(r * 1.001) / 1.001;
    if (fabs(r - whole) <= tol)
        return whole;
    if (fabs(r - ntsc) <= tol)
        return ntsc;
    return r;
}

int report_export_trc(const char *path, const analysis_tracks *tr, icv_err *err)
{
    return report_export_trc_labelled(path, tr, NULL, err);
}

int report_export_trc_labelled(const char *path, const analysis_tracks *tr, const report_marker_label *labels,
                               icv_err *err)
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
    fprintf(f, "%.12g\t%.12g\t%d\t%d\tmm\t%.12g\t%d\t%d\n", rate, rate, tr->n_frames, tr->n_markers, rate,
            tr->frame[0] + 1, tr->n_frames);
    fputs("Frame#\tTime", f);
    for (int k = 0; k < tr->n_markers; k++) {
        char nm[16];
        report_marker_name(k, nm, sizeof nm);
        fprintf(f, "\t%s\t\t", labels ? labels[k].label : nm);
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
        /* OpenSim's TRCFileAdapter drops a row's empty last field: when the last
         * marker is missing, one more tab keeps the row at 2 + 3 * markers fields */
        if (!tr->seen[i * tr->n_markers + tr->n_markers - 1])
            fputc('\t', f);
        fputc('\n', f);
    }
    return icv_atomic_commit(&af, err);
}
