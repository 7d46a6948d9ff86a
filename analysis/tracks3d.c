/* tracks3d.c: 3D marker tracks in memory and from the contract's tracks3d.csv
 * (`frame,time_s,m0_x,m0_y,m0_z,m1_x,...`, empty fields where a marker is not
 * seen), so analysis can run on tracks made by another tool. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"

int analysis_tracks_alloc(analysis_tracks *tr, int n_frames, int n_markers, int with_sigma, icv_err *err)
{
    memset(tr, 0, sizeof *tr);
    if (n_frames < 0 || n_markers < 1 || n_markers > ICV_MAX_MARKERS)
        return icv_err_set(err, ICV_EINVAL, "tracks: %d frames of %d markers is not a track", n_frames, n_markers);
    size_t nf = (size_t)(n_frames > 0 ? n_frames : 1), np = nf * (size_t)n_markers;
    tr->n_frames = n_frames;
    tr->n_markers = n_markers;
    tr->frame = calloc(nf, sizeof *tr->frame);
    tr->t = calloc(nf, sizeof *tr->t);
    tr->pos = calloc(np, sizeof *tr->pos);
    tr->seen = calloc(np, 1);
    tr->sigma = with_sigma ? calloc(np, sizeof *tr->sigma) : NULL;
    if (!tr->frame || !tr->t || !tr->pos || !tr->seen || (with_sigma && !tr->sigma)) {
        analysis_tracks_free(tr);
        return icv_err_set(err, ICV_ENOMEM, "tracks: out of memory for %d frames", n_frames);
    }
    return 0;
}

int analysis_tracks_take(const analysis_tracks *all, int first, int n, analysis_tracks *out, icv_err *err)
{
    if (first < 0 || n < 1 || first + n > all->n_markers)
        return icv_err_set(err, ICV_EINVAL, "tracks: markers %d-%d of %d", first, first + n - 1, all->n_markers);
    int rc = analysis_tracks_alloc(out, all->n_frames, n, all->sigma != NULL, err);
    if (rc)
        return rc;
    memcpy(out->frame, all->frame, sizeof *out->frame * (size_t)all->n_frames);
    memcpy(out->t, all->t, sizeof *out->t * (size_t)all->n_frames);
    for (int f = 0; f < all->n_frames; f++)
        for (int k = 0; k < n; k++) {
            size_t i = (size_t)f * (size_t)n + (size_t)k, a = (size_t)f * (size_t)all->n_markers + (size_t)(first + k);
            out->pos[i] = all->pos[a];
            out->seen[i] = all->seen[a];
            if (all->sigma)
                out->sigma[i] = all->sigma[a];
        }
    return 0;
}

int analysis_tracks_rows(const analysis_tracks *all, int row_first, int row_last, analysis_tracks *out, icv_err *err)
{
    if (row_first < 0 || row_last < row_first || row_last >= all->n_frames)
        return icv_err_set(err, ICV_EINVAL, "tracks: rows %d-%d of %d", row_first, row_last, all->n_frames);
    int n = row_last - row_first + 1, rc = analysis_tracks_alloc(out, n, all->n_markers, all->sigma != NULL, err);
    if (rc)
        return rc;
    size_t m = (size_t)all->n_markers, at = (size_t)row_first * m;
    memcpy(out->frame, all->frame + row_first, sizeof *out->frame * (size_t)n);
    memcpy(out->t, all->t + row_first, sizeof *out->t * (size_t)n);
    memcpy(out->pos, all->pos + at, sizeof *out->pos * (size_t)n * m);
    memcpy(out->seen, all->seen + at, sizeof *out->seen * (size_t)n * m);
    if (all->sigma)
        memcpy(out->sigma, all->sigma + at, sizeof *out->sigma * (size_t)n * m);
    return 0;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double analysis_tracks_row_interval(const analysis_tracks *tr)
{
    double best = 0;
    int n = 0;
    double d[64];
    for (int i = 1; i < tr->n_frames && n < 64; i++)
        if (tr->t[i] > tr->t[i - 1])
            d[n++] = tr->t[i] - tr->t[i - 1];
    if (n) {
        qsort(d, (size_t)n, sizeof *d, by_value);
        best = d[n / 2];
    }
    return best;
}

void analysis_tracks_free(analysis_tracks *tr)
{
    free(tr->frame);
    free(tr->t);
    free(tr->pos);
    free(tr->seen);
    free(tr->sigma);
    memset(tr, 0, sizeof *tr);
}

/* next comma-separated field of *s (which advances); returns its start */
static char *field(char **s)
{
    char *f = *s;
    if (!f)
        return NULL;
    char *c = strchr(f, ',');
    if (c) {
        *c = '\0';
        *s = c + 1;
    } else {
        f[strcspn(f, "\r\n")] = '\0';
        *s = NULL;
    }
    return f;
}

static int parse_num(const char *f, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(f, &end);
    return end != f && *end == '\0' && errno == 0 && isfinite(*v);
}

int analysis_tracks_read_csv(const char *path, analysis_tracks *tr, icv_err *err)
{
    memset(tr, 0, sizeof *tr);
    FILE *f = fopen(path, "r");
    if (!f)
        return icv_err_set(err, ICV_EIO, "%s: cannot open: %s", path, strerror(errno));
    char line[8192];
    int rc = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return icv_err_set(err, ICV_EFORMAT, "%s: empty file", path);
    }
    /* header: frame,time_s,m0_x,m0_y,m0_z,... */
    int cols = 0;
    for (char *s = line, *h; (h = field(&s));) {
        if ((cols == 0 && strcmp(h, "frame")) || (cols == 1 && strcmp(h, "time_s"))) {
            fclose(f);
            char shown[96];
            return icv_err_set(err, ICV_EFORMAT, "%s:1: expected a header starting frame,time_s, got '%s'", path,
                               icv_printable(h, 40, shown, sizeof shown));
        }
        if (cols >= 2) {
            char want[32];
            snprintf(want, sizeof want, "m%d_%c", (cols - 2) / 3, "xyz"[(cols - 2) % 3]);
            if (strcmp(h, want)) {
                fclose(f);
                char shown[96];
                return icv_err_set(err, ICV_EFORMAT, "%s:1: column %d should be %s, got '%s'", path, cols + 1, want,
                                   icv_printable(h, 40, shown, sizeof shown));
            }
        }
        cols++;
    }
    if (cols < 5 || (cols - 2) % 3) {
        fclose(f);
        return icv_err_set(err, ICV_EFORMAT, "%s:1: expected frame,time_s and 3 columns per marker", path);
    }
    int n_markers = (cols - 2) / 3;
    /* count rows, then read them */
    long start = ftell(f);
    int rows = 0;
    while (fgets(line, sizeof line, f))
        rows += line[0] != '\n' && line[0] != '\r';
    fseek(f, start, SEEK_SET);
    if ((rc = analysis_tracks_alloc(tr, rows, n_markers, 0, err))) {
        fclose(f);
        return rc;
    }
    int i = 0, lineno = 1;
    while (i < rows && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\r')
            continue;
        char *s = line;
        double v;
        char *fr = field(&s), *ts = field(&s);
        char shown[96];
        if (!fr || !ts || !parse_num(fr, &v) || v < 0 || v != floor(v)) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: bad frame number '%s'", path, lineno,
                             icv_printable(fr, 40, shown, sizeof shown));
            break;
        }
        if (v > ICV_MAX_FRAME_NUMBER) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: frame number %s is above the limit %d", path, lineno,
                             icv_printable(fr, 40, shown, sizeof shown), ICV_MAX_FRAME_NUMBER);
            break;
        }
        tr->frame[i] = (int)v;
        if (!parse_num(ts, &tr->t[i]) || (i > 0 && !(tr->t[i] > tr->t[i - 1]))) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: time_s '%s' is not a number after the previous row's", path,
                             lineno, icv_printable(ts, 40, shown, sizeof shown));
            break;
        }
        for (int k = 0; k < n_markers && !rc; k++) {
            double xyz[3];
            int present = 0;
            for (int a = 0; a < 3; a++) {
                char *c = field(&s);
                if (!c) {
                    rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: expected %d columns", path, lineno, cols);
                    break;
                }
                if (icv_csv_missing(c)) /* empty or NaN: not seen */
                    continue;
                if (!parse_num(c, &xyz[a])) {
                    rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: m%d_%c: not a number: '%s'", path, lineno, k, "xyz"[a],
                                     icv_printable(c, 40, shown, sizeof shown));
                    break;
                }
                if (fabs(xyz[a]) > ICV_MAX_COORD_M) {
                    rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: m%d_%c: %s m is beyond the limit of %g m", path, lineno,
                                     k, "xyz"[a], icv_printable(c, 40, shown, sizeof shown), ICV_MAX_COORD_M);
                    break;
                }
                present++;
            }
            if (rc)
                break;
            if (present != 0 && present != 3) {
                rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: marker %d has %d of its 3 coordinates", path, lineno, k,
                                 present);
                break;
            }
            tr->seen[i * n_markers + k] = present == 3;
            if (present == 3)
                tr->pos[i * n_markers + k] = icv_v3_from_array(xyz);
        }
        if (rc)
            break;
        i++;
    }
    fclose(f);
    if (rc)
        analysis_tracks_free(tr);
    return rc;
}

int analysis_tracks_read_quality(const char *path, analysis_tracks *tr, icv_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return icv_err_set(err, ICV_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t np = (size_t)tr->n_frames * (size_t)tr->n_markers;
    double *sig = malloc(sizeof *sig * (np ? np : 1)), *sorted = malloc(sizeof *sorted * (np ? np : 1));
    int rc = 0, lineno = 1, n_known = 0, row = 0;
    char line[1024];
    if (!sig || !sorted)
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    else if (!fgets(line, sizeof line, f) || strncmp(line, "frame,time_s,marker,residual_px,cov_xx_m2", 41))
        rc = icv_err_set(err, ICV_EFORMAT, "%s:1: not a tracks3d_quality.csv header", path);
    for (size_t i = 0; !rc && i < np; i++)
        sig[i] = NAN;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\r')
            continue;
        char *s = line;
        double v[10]; /* frame, time_s, marker, residual_px, cov xx xy xz yy yz zz */
        for (int c = 0; c < 10 && !rc; c++) {
            char *fl = field(&s);
            if (!fl || !parse_num(fl, &v[c]))
                rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: column %d is not a number", path, lineno, c + 1);
        }
        if (rc)
            break;
        if (!(v[0] >= 0 && v[0] <= ICV_MAX_FRAME_NUMBER && v[2] >= 0 && v[2] < ICV_MAX_MARKERS)) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: frame %g or marker %g beyond the limits %d and %d", path,
                             lineno, v[0], v[2], ICV_MAX_FRAME_NUMBER, ICV_MAX_MARKERS - 1);
            break;
        }
        /* rows come in frame order: find the frame's row in the tracks */
        while (row < tr->n_frames && tr->frame[row] < (int)v[0])
            row++;
        int k = (int)v[2];
        if (row >= tr->n_frames || tr->frame[row] != (int)v[0] || k < 0 || k >= tr->n_markers)
            continue; /* a point tracks3d.csv does not have */
        double tr3 = v[4] + v[7] + v[9]; /* cov_xx + cov_yy + cov_zz, m^2 */
        if (tr3 > 0)
            sig[row * tr->n_markers + k] = sqrt(tr3 / 3);
    }
    fclose(f);
    if (!rc) {
        for (size_t i = 0; i < np; i++)
            if (isfinite(sig[i]))
                sorted[n_known++] = sig[i];
        if (n_known == 0)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: no covariance for any point of the tracks", path);
    }
    if (!rc) { /* points without a covariance get the median sigma */
        double med = analysis_median(sorted, n_known);
        for (size_t i = 0; i < np; i++)
            if (!isfinite(sig[i]))
                sig[i] = med;
        free(tr->sigma);
        tr->sigma = sig;
        sig = NULL;
    }
    free(sig);
    free(sorted);
    return rc;
}
