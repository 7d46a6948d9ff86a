/* rows2d_read.c: the 2D points the overlays draw, read from the track stage's CSV
 * files by their header's column names: tracks2d_<camera>.csv (the contract's
 * frame,time_s,marker,u_px,v_px,area_px,flags) and predicted2d_<camera>.csv
 * (frame,track,u_px,v_px,pred_u_px,pred_v_px,flags; job/track_info.c). */
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

/* index of name in the comma-separated header, -1 when absent */
static int column(const char *header, const char *name)
{
    size_t len = strlen(name);
    int k = 0;
    for (const char *p = header; *p; k++) {
        size_t n = strcspn(p, ",\r\n");
        if (n == len && !strncmp(p, name, len))
            return k;
        p += n;
        if (*p != ',')
            break;
        p++;
    }
    return -1;
}

/* field k of a CSV line: its value, NaN when empty */
static double field(const char *line, int k)
{
    const char *p = line;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, ',');
        if (p)
            p++;
    }
    if (!p || *p == ',' || *p == '\n' || *p == '\r' || !*p)
        return NAN;
    char *end;
    double v = strtod(p, &end);
    return end == p ? NAN : v;
}

int report_rows2d_read(const char *path, int predicted, report_row2d **rows, long *n, icv_err *err)
{
    *rows = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return icv_err_set(err, ICV_ENOTFOUND, "%s: cannot open", path);
    char line[1024];
    int cf = -1, ci = -1, cu = -1, cv = -1;
    if (fgets(line, sizeof line, f)) {
        cf = column(line, "frame");
        ci = column(line, predicted ? "track" : "marker");
        cu = column(line, predicted ? "pred_u_px" : "u_px");
        cv = column(line, predicted ? "pred_v_px" : "v_px");
    }
    if (cf < 0 || ci < 0 || cu < 0 || cv < 0) {
        fclose(f);
        return icv_err_set(err, ICV_EFORMAT, "%s:1: the header lacks frame, %s, %s or %s", path,
                           predicted ? "track" : "marker", predicted ? "pred_u_px" : "u_px",
                           predicted ? "pred_v_px" : "v_px");
    }
    long cap = 0, ln = 1;
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        ln++;
        double fr = field(line, cf), id = field(line, ci);
        if (!isfinite(fr) || !isfinite(id)) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%ld: no frame or %s", path, ln, predicted ? "track" : "marker");
            break;
        }
        if (!(fr >= 0 && fr <= ICV_MAX_FRAME_NUMBER) || !(id >= -1 && id <= 1e6)) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%ld: frame %g or %s %g beyond the limits [0, %d] and [-1, 1000000]",
                             path, ln, fr, predicted ? "track" : "marker", id, ICV_MAX_FRAME_NUMBER);
            break;
        }
        double u = field(line, cu), v = field(line, cv);
        if (fabs(u) > ICV_MAX_COORD_PX || fabs(v) > ICV_MAX_COORD_PX) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%ld: u_px %g or v_px %g beyond the limit of %g px", path, ln, u, v,
                             ICV_MAX_COORD_PX);
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            report_row2d *g = realloc(*rows, sizeof *g * (size_t)cap);
            if (!g) {
                rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
                break;
            }
            *rows = g;
        }
        (*rows)[(*n)++] = (report_row2d){(long)fr, (int)id, u, v};
    }
    fclose(f);
    if (rc) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}
