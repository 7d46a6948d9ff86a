/* file_quality.c: a calibration file read back with what it says of its own quality
 * (rms, per-view or per-pair errors, coverage, verdict), so that a run given a ready
 * calibration file can still show the calibration's quality in its report. Ours hold
 * every key calib_camera_write / calib_stereo_write put there; another tool's file
 * often only rms and per_view_errors: what is absent is marked unknown (NaN, no
 * views, verdict_ok -1), never invented. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"
#include "calib/cv_bridge_internal.h"

static const char *const status_names[] = {"used", "outlier", "no board", "blurred", "unpaired"};

const char *calib_view_status_name(calib_view_status s)
{
    return (unsigned)s < sizeof status_names / sizeof *status_names ? status_names[s] : "unpaired";
}

int calib_view_status_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof status_names / sizeof *status_names; i++)
        if (!strcmp(name, status_names[i]))
            return (int)i;
    return -1;
}

static double real_or_nan(const calib_store *fs, const char *name)
{
    double v;
    return calib_store_real(fs, name, &v) == 0 ? v : NAN;
}

/* verdict_ok (-1 absent) and the verdict's text */
static void read_verdict(const calib_store *fs, int *ok, char *verdict)
{
    double v;
    *ok = calib_store_real(fs, "verdict_ok", &v) == 0 ? v != 0 : -1;
    if (calib_store_str(fs, "verdict", verdict, CALIB_VERDICT_MAX) != 0)
        verdict[0] = 0;
}

static void unknown_quality(calib_camera *cam)
{
    cam->rms = NAN;
    cam->coverage = NAN;
    cam->verdict_ok = -1;
}

/* The views of a mono file: `views` names the used views in per_view_errors' order;
 * `views_not_used` holds "name: status" for the others. */
static int read_views(const calib_store *fs, const char *path, calib_camera *cam, icv_err *err)
{
    enum { MAXV = 4096 };
    double *pv = malloc(sizeof *pv * MAXV);
    char(*names)[CALIB_NAME_MAX] = malloc(sizeof *names * MAXV);
    char(*other)[CALIB_NAME_MAX + 32] = malloc(sizeof *other * MAXV);
    int rc = 0, r = 0, c = 0, n_names = 0, n_other = 0;
    if (!pv || !names || !other) {
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    int have = calib_store_mat(fs, "per_view_errors", &r, &c, pv, MAXV) == 0;
    int nu = have ? (r * c < MAXV ? r * c : MAXV) : 0;
    if (calib_store_strs(fs, "views", &names[0][0], CALIB_NAME_MAX, MAXV, &n_names) != 0)
        n_names = 0;
    if (calib_store_strs(fs, "views_not_used", &other[0][0], sizeof other[0], MAXV, &n_other) != 0)
        n_other = 0;
    if (n_other > MAXV)
        n_other = MAXV;
    if (nu + n_other == 0)
        goto out;
    cam->views = calloc((size_t)(nu + n_other), sizeof *cam->views);
    if (!cam->views) {
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (int v = 0; v < nu; v++) {
        calib_view *w = &cam->views[cam->n_views++];
        if (v < n_names)
            snprintf(w->name, sizeof w->name, "%s", names[v]);
        else
            snprintf(w->name, sizeof w->name, "view%02d", v);
        w->status = CALIB_VIEW_USED;
        w->rms = pv[v];
        cam->n_used++;
    }
    for (int v = 0; v < n_other; v++) {
        calib_view *w = &cam->views[cam->n_views++];
        char *colon = strrchr(other[v], ':');
        int st = colon ? calib_view_status_parse(colon + 2) : -1;
        if (colon)
            *colon = 0;
        snprintf(w->name, sizeof w->name, "%s", other[v]);
        w->status = st >= 0 ? (calib_view_status)st : CALIB_VIEW_NO_BOARD;
        w->rms = 0;
    }
out:
    free(pv);
    free(names);
    free(other);
    return rc;
}

int calib_camera_file_read(const char *path, calib_camera *cam, icv_err *err)
{
    memset(cam, 0, sizeof *cam);
    int rc = calib_intrinsics_read(path, 0, &cam->in, &cam->std, err);
    if (rc)
        return rc;
    calib_store *fs;
    if ((rc = calib_file_open_reader(path, &fs, err)))
        return rc;
    unknown_quality(cam);
    cam->rms = real_or_nan(fs, "rms");
    double cov[CALIB_COV_ROWS * CALIB_COV_COLS];
    int r, c;
    if (calib_store_mat(fs, "coverage_map", &r, &c, cov, CALIB_COV_ROWS * CALIB_COV_COLS) == 0 &&
        r == CALIB_COV_ROWS && c == CALIB_COV_COLS) {
        int counts = 1; /* views per cell: whole numbers an unsigned short holds, else the map is unknown */
        for (int k = 0; k < CALIB_COV_ROWS * CALIB_COV_COLS; k++)
            counts &= cov[k] >= 0 && cov[k] <= 65535;
        for (int j = 0; counts && j < CALIB_COV_ROWS; j++)
            for (int i = 0; i < CALIB_COV_COLS; i++)
                cam->coverage_map[j][i] = (unsigned short)cov[j * CALIB_COV_COLS + i];
        if (counts)
            cam->coverage = real_or_nan(fs, "coverage");
    }
    read_verdict(fs, &cam->verdict_ok, cam->verdict);
    rc = read_views(fs, path, cam, err);
    calib_store_close(fs);
    if (rc)
        calib_camera_free(cam);
    return rc;
}

int calib_stereo_file_read(const char *path, calib_stereo *st, icv_err *err)
{
    memset(st, 0, sizeof *st);
    int rc = calib_stereo_read(path, &st->cam[0].in, &st->cam[1].in, st->R, st->T, err);
    if (rc)
        return rc;
    calib_store *fs;
    if ((rc = calib_file_open_reader(path, &fs, err)))
        return rc;
    for (int c = 0; c < 2; c++)
        unknown_quality(&st->cam[c]);
    st->rms = real_or_nan(fs, "rms");
    st->epipolar = real_or_nan(fs, "epipolar_error");
    st->baseline = real_or_nan(fs, "baseline");
    st->baseline_std = real_or_nan(fs, "baseline_std");
    if (!isfinite(st->baseline))
        st->baseline = sqrt(st->T[0] * st->T[0] + st->T[1] * st->T[1] + st->T[2] * st->T[2]);
    read_verdict(fs, &st->verdict_ok, st->verdict);
    enum { MAXP = 4096 };
    double *pp = malloc(sizeof *pp * 3 * MAXP);
    int r = 0, c = 0;
    if (!pp)
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    else if (calib_store_mat(fs, "per_pair_errors", &r, &c, pp, 3 * MAXP) == 0 && c == 3 && r > 0) {
        int n = r < MAXP ? r : MAXP;
        st->pairs = calloc((size_t)n, sizeof *st->pairs);
        if (!st->pairs)
            rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
        for (int i = 0; !rc && i < n; i++) {
            calib_pair *p = &st->pairs[st->n_pairs++];
            snprintf(p->name1, sizeof p->name1, "pair %02d", i);
            snprintf(p->name2, sizeof p->name2, "pair %02d", i);
            p->status = CALIB_VIEW_USED;
            p->rms1 = pp[3 * i];
            p->rms2 = pp[3 * i + 1];
            p->epipolar = pp[3 * i + 2];
            st->n_used++;
        }
    }
    free(pp);
    calib_store_close(fs);
    if (rc)
        calib_stereo_free(st);
    return rc;
}
