/* marker_trc.c: a TRC file's marker trajectories, read by the rules of OpenSim's
 * TRCFileAdapter (OpenSim/Common/TRCFileAdapter.cpp): tab-separated; line 1
 * "PathFileType ...", line 2 the metadata keys (DataRate, CameraRate, NumFrames,
 * NumMarkers, Units, OrigDataRate, OrigDataStartFrame, OrigNumFrames), line 3 their
 * values, line 4 "Frame#", "Time" and each marker's label followed by two empty
 * fields, line 5 X1 Y1 Z1 ...; then rows "frame, time, x, y, z, ..." (blank lines
 * skipped). A missing marker is empty fields (or NaN); a row that ends early
 * (writers that drop trailing tabs) leaves the rest missing. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/marker_file.h"

/* splits line (modified) at tabs into at most max fields; returns the count; a
   trailing '\r' or '\n' is cut */
static int split_tabs(char *line, char **fields, int max)
{
    line[strcspn(line, "\r\n")] = 0;
    int n = 0;
    char *s = line;
    while (n < max) {
        fields[n++] = s;
        char *t = strchr(s, '\t');
        if (!t)
            break;
        *t = 0;
        s = t + 1;
    }
    return n;
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            return 0;
    return 1;
}

static int parse_num(const char *f, double *v)
{
    char *end;
    errno = 0;
    while (*f == ' ')
        f++;
    *v = strtod(f, &end);
    while (*end == ' ')
        end++;
    return end != f && *end == '\0' && errno == 0 && isfinite(*v);
}

enum { MAX_FIELDS = 2 + 3 * ICV_MAX_FILE_MARKERS + 2 };

static int bad(icv_err *err, const char *path, long line, const char *what, const char *field)
{
    char shown[80];
    return icv_err_set(err, ICV_EFORMAT, "%s:%ld: %s: '%s' is not a number", path, line, what,
                       icv_printable(field, 40, shown, sizeof shown));
}

int icv_marker_file_read_trc(const char *path, icv_marker_file *m, icv_err *err)
{
    memset(m, 0, sizeof *m);
    m->format = ICV_MARKERS_TRC;
    FILE *f = fopen(path, "r");
    if (!f)
        return icv_err_set(err, ICV_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL, **fld = malloc(MAX_FIELDS * sizeof *fld);
    size_t cap = 0;
    int rc = 0;
    if (!fld) {
        fclose(f);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    char keys[4096] = "";
    long ln = 0, n_markers = -1;
    double rate = 0, unit_m = 0;
    char units[16] = "";
    /* lines 1-3: the file type, the metadata keys and their values */
    for (ln = 1; ln <= 3 && !rc; ln++) {
        if (getline(&line, &cap, f) < 0) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s: ends at line %ld, inside the TRC header (5 lines)", path, ln);
            break;
        }
        if (ln == 1 && strncmp(line, "PathFileType", 12))
            rc = icv_err_set(err, ICV_EFORMAT, "%s:1: not a TRC file (it starts with PathFileType)", path);
        else if (ln == 2)
            snprintf(keys, sizeof keys, "%s", line);
    }
    if (!rc) {
        char *kf[16], *vf[16];
        int nk = split_tabs(keys, kf, 16), nv = split_tabs(line, vf, 16);
        for (int i = 0; i < nk && i < nv; i++) {
            double v;
            if (!strcmp(kf[i], "DataRate") && parse_num(vf[i], &v))
                rate = v;
            else if (!strcmp(kf[i], "NumMarkers") && parse_num(vf[i], &v) && v == floor(v))
                n_markers = v >= 0 && v <= ICV_MAX_FILE_MARKERS ? (long)v : -2;
            else if (!strcmp(kf[i], "Units")) {
                snprintf(units, sizeof units, "%s", vf[i]);
                unit_m = icv_marker_unit_m(units);
            }
        }
        if (n_markers == -2 || n_markers == 0)
            rc = icv_err_set(err, ICV_EFORMAT, "%s:3: NumMarkers: expected 1 to %d", path, ICV_MAX_FILE_MARKERS);
        else if (n_markers < 0)
            rc = icv_err_set(err, ICV_EFORMAT, "%s:3: no NumMarkers in the header", path);
        else if (!(rate > 0) || rate > ICV_MAX_FPS)
            rc = icv_err_set(err, ICV_EFORMAT, "%s:3: DataRate: expected (0, %g] Hz", path, ICV_MAX_FPS);
        else if (!(unit_m > 0))
            rc = icv_err_set(err, ICV_EFORMAT, "%s:3: Units '%s' is not a length unit this reader knows (mm, cm, m)",
                             path, units);
    }
    /* line 4: labels; line 5: X1 Y1 Z1 ...; then count the data rows */
    char labels_line[1 << 16] = "";
    for (ln = 4; ln <= 5 && !rc; ln++) {
        if (getline(&line, &cap, f) < 0)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: ends at line %ld, inside the TRC header (5 lines)", path, ln);
        else if (ln == 4)
            snprintf(labels_line, sizeof labels_line, "%s", line);
    }
    long rows = 0;
    double bytes = 0;
    ssize_t got;
    while (!rc && (got = getline(&line, &cap, f)) >= 0) {
        bytes += (double)got;
        if (!is_blank(line) && ++rows > ICV_MAX_FRAME_NUMBER)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: more than %d rows", path, ICV_MAX_FRAME_NUMBER);
    }
    if (!rc && rows == 0)
        rc = icv_err_set(err, ICV_EFORMAT, "%s: no data rows after the 5 header lines", path);
    /* memory is sized by NumMarkers x rows: a marker of a row takes at least its
       three tabs, so the rows' bytes bound what a true header can ask for (a few
       rows cut short aside) */
    if (!rc && (double)rows * (double)n_markers > bytes + 1e4)
        rc = icv_err_set(err, ICV_EFORMAT,
                         "%s:3: NumMarkers %ld for %ld rows asks for %.0f positions, more than the rows' %.0f bytes "
                         "can hold",
                         path, n_markers, rows, (double)rows * (double)n_markers, bytes);
    if (!rc)
        rc = icv_marker_file_alloc(m, (int)rows, (int)n_markers, path, err);
    if (!rc) {
        m->format = ICV_MARKERS_TRC;
        m->rate_hz = rate;
        m->unit_m = unit_m;
        snprintf(m->units, sizeof m->units, "%s", units);
        int nl = split_tabs(labels_line, fld, MAX_FIELDS);
        for (int k = 0; k < n_markers; k++) {
            const char *lab = 2 + 3 * k < nl ? fld[2 + 3 * k] : "";
            char shown[ICV_MARKER_LABEL_LEN];
            icv_printable(lab, ICV_MARKER_LABEL_LEN - 8, shown, sizeof shown);
            snprintf(m->labels[k], sizeof m->labels[k], "%s", lab[0] ? shown : "");
            if (!m->labels[k][0])
                snprintf(m->labels[k], sizeof m->labels[k], "marker%d", k + 1);
        }
        rewind(f);
        for (ln = 1; ln <= 5; ln++)
            if (getline(&line, &cap, f) < 0)
                break;
    }
    long i = 0, frame0 = 0;
    for (ln = 6; !rc && i < rows && getline(&line, &cap, f) >= 0; ln++) {
        if (is_blank(line))
            continue;
        int nf = split_tabs(line, fld, MAX_FIELDS);
        if (nf > 2 + 3 * n_markers && !(nf == 3 + 3 * n_markers && is_blank(fld[nf - 1]))) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%ld: %d fields; NumMarkers %ld gives at most %ld", path, ln, nf,
                             n_markers, 2 + 3 * n_markers);
            break;
        }
        double fr, t;
        if (nf < 2 || !parse_num(fld[0], &fr) || fr != floor(fr) || fabs(fr) > ICV_MAX_FRAME_NUMBER) {
            rc = nf < 1 ? bad(err, path, ln, "Frame#", "") : bad(err, path, ln, "Frame# (a whole number)", fld[0]);
            break;
        }
        if (!parse_num(fld[1], &t)) {
            rc = bad(err, path, ln, "Time", fld[1]);
            break;
        }
        if (i == 0) {
            frame0 = (long)fr;
            m->first_frame = (int)fr;
        }
        if (i > 0 && !(t > m->t[i - 1])) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%ld: Time %g s does not follow %g s of the row before", path, ln, t,
                             m->t[i - 1]);
            break;
        }
        m->frame[i] = (int)((long)fr - frame0);
        m->t[i] = t;
        for (long k = 0; k < n_markers && !rc; k++) {
            double v[3];
            int missing = 0;
            for (int a = 0; a < 3 && !rc; a++) {
                long c = 2 + 3 * k + a;
                if (c >= nf || icv_csv_missing(fld[c]))
                    missing = 1;
                else if (!parse_num(fld[c], &v[a])) {
                    char what[96];
                    snprintf(what, sizeof what, "marker '%s' %c", m->labels[k], "XYZ"[a]);
                    rc = bad(err, path, ln, what, fld[c]);
                } else if (fabs(v[a] * unit_m) > ICV_MAX_COORD_M)
                    rc = icv_err_set(err, ICV_EFORMAT, "%s:%ld: marker '%s' %c = %g %s is beyond %g m", path, ln,
                                     m->labels[k], "XYZ"[a], v[a], units, ICV_MAX_COORD_M);
            }
            if (rc || missing)
                continue;
            size_t j = (size_t)i * (size_t)n_markers + (size_t)k;
            m->pos[j] = icv_v3(v[0] * unit_m, v[1] * unit_m, v[2] * unit_m);
            m->seen[j] = 1;
        }
        i++;
    }
    if (rc)
        icv_marker_file_free(m);
    free(line);
    free(fld);
    fclose(f);
    return rc;
}
