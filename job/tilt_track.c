/* tilt_track.c: the tilt from video (mu_s). The plate is not a static
 * scene: it turns slowly with the body on it. What is measured per frame of the
 * reference camera: the plate's pose from the board lying on it (found in full once,
 * then each corner refined from where it was, at the centre of point symmetry: the
 * plate moves well under a pixel per frame), its angle from the level board's normal,
 * and where the body's markers stand on the plate. Workspaces are allocated before
 * the frame loop (the board's points, the corner refinement's scratch) and the
 * markers are undistorted in one call after it; what still allocates per frame is
 * inside OpenCV's solvePnP (its matrices), and a full board detection when the
 * refined corners lose the board (rare: n_redetect). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "capture/capture.h"
#include "job/job_track_internal.h"

void job_tilt_free(job_tilt *t)
{
    free(t->t);
    free(t->angle);
    free(t->s);
    free(t->A);
    free(t->B);
    memset(t, 0, sizeof *t);
}

#define SMOOTH 8 /* frames each side of the plate's smoothed pose */

static icv_vec3 col(icv_mat3 R, int j) { return icv_v3(R.m[0][j], R.m[1][j], R.m[2][j]); }

/* the board's pose in this frame: from the last corners when there are some, else (or
 * when that pose's residual is poor) by a full detection; 0 when found */
static int plate_pose(const calib_intrinsics *in, const calib_board *b, const icv_vec3 *X, calib_symmetry_ws *sym,
                      const calib_image *img, calib_pt2 *uv, int *have, calib_surface *s, long *redetect)
{
    icv_err e;
    if (*have) {
        calib_corners_refine_symmetry_ws(sym, img, uv, b->cols * b->rows);
        if (calib_surface_from_view_points(in, b, X, uv, s, &e) == 0 && s->reproj_rms < 0.5)
            return 0;
        (*redetect)++;
    }
    calib_detector d;
    calib_detector_defaults(&d);
    calib_detection info;
    calib_board_detect(&d, img, b, 0, uv, &info);
    *have = info.found && calib_surface_from_view_points(in, b, X, uv, s, &e) == 0;
    return *have ? 0 : -1;
}

/* the median over frames of |change of A + B h| over lag frames */
static double median_change(const double *A, const double *B, const unsigned char *seen, long n, long lag, double h,
                            double *work)
{
    long m = 0;
    for (long i = lag; i < n; i++)
        if (seen[i] && seen[i - lag])
            work[m++] = fabs(A[i] - A[i - lag] + (B[i] - B[i - lag]) * h);
    if (m == 0)
        return INFINITY;
    gsl_sort(work, 1, (size_t)m);
    return gsl_stats_median_from_sorted_data(work, 1, (size_t)m);
}

int job_tilt_height(job_tilt *t, long upto, icv_err *err)
{
    /* the markers' height above the plate: while the body rests its position on the
     * plate stays put only at the right height (elsewhere the parallax drifts as the
     * plate turns): the h of the smallest median change, then least squares of the
     * changes over `lag` frames A' + B' h = 0 with the sliding frames trimmed away
     * (beyond 5 x the median change, three rounds). Over one frame the plate's pose
     * noise moves A and B together and pulled h to a third of the truth (errors in
     * the variables); over 20 frames B's true change outgrows that noise */
    long n = upto < t->n ? upto : t->n;
    double *work = malloc(sizeof(double) * (size_t)(t->n > 0 ? t->n : 1));
    unsigned char *seen = malloc((size_t)(t->n > 0 ? t->n : 1));
    if (!work || !seen) {
        free(work);
        free(seen);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    for (long i = 0; i < t->n; i++)
        seen[i] = isfinite(t->A[i]) && isfinite(t->B[i]);
    const double *A = t->A, *B = t->B;
    double h = 0, best = INFINITY;
    long lag = n / 4 < 20 ? (n / 4 > 0 ? n / 4 : 1) : 20;
    for (int g = 0; g <= 400; g++) { /* a robust start: the median change, h in [-0.1, 0.3] m */
        double hg = -0.1 + 1e-3 * g, med = median_change(A, B, seen, n, lag, hg, work);
        if (med < best)
            best = med, h = hg;
    }
    for (int round = 0; round < 3; round++) {
        double thr = 5 * 1.4826 * median_change(A, B, seen, n, lag, h, work), sab = 0, sbb = 0;
        for (long i = lag; i < n; i++) {
            if (!seen[i] || !seen[i - lag])
                continue;
            double da = A[i] - A[i - lag], db = B[i] - B[i - lag];
            if (fabs(da + db * h) > thr)
                continue;
            sab += da * db;
            sbb += db * db;
        }
        if (sbb > 0)
            h = -sab / sbb;
    }
    t->marker_height = h;
    icv_debug("tilt: markers %.4f m above the plate (from frames 0-%ld)", h, n - 1);
    long first = -1;
    for (long i = 0; i < t->n; i++) {
        t->s[i] = NAN;
        if (seen[i]) {
            if (first < 0)
                first = i;
            t->s[i] = A[i] + B[i] * h - (A[first] + B[first] * h);
        }
    }
    free(work);
    free(seen);
    return 0;
}

/* what the frame loop and the plate's smoothing share */
typedef struct {
    const icv_experiment *exp;
    const track_calibration *cal;
    calib_board board;
    icv_vec3 up; /* the level board's normal, camera frame */
    int nm;      /* the body's markers */
    calib_pt2 *uv, *rays;
    icv_vec3 *X;
    calib_symmetry_ws *sym;
    track_detector *det;
    track_blob *blobs;
    double *pose6;
    unsigned char *seen, *posed;
} tilt_ws;

static void tilt_ws_free(tilt_ws *w)
{
    track_detector_free(w->det);
    free(w->blobs);
    free(w->uv);
    free(w->seen);
    free(w->posed);
    free(w->pose6);
    free(w->rays);
    free(w->X);
    calib_symmetry_ws_free(w->sym);
}

/* the workspaces for n frames of width x height, and the detector set for the markers */
static int tilt_ws_alloc(tilt_ws *w, job_tilt *out, long n, int width, int height, icv_err *err)
{
    int nb = w->board.cols * w->board.rows, nm = w->nm;
    out->t = malloc(sizeof(double) * (size_t)n);
    out->angle = malloc(sizeof(double) * (size_t)n);
    out->s = malloc(sizeof(double) * (size_t)n);
    out->A = malloc(sizeof(double) * (size_t)n);
    out->B = malloc(sizeof(double) * (size_t)n);
    w->uv = malloc(sizeof *w->uv * (size_t)nb);
    w->seen = calloc((size_t)n, 1);
    w->posed = calloc((size_t)n, 1);
    w->pose6 = malloc(sizeof(double) * 6 * (size_t)n);
    w->rays = malloc(sizeof *w->rays * (size_t)n * (size_t)(nm > 0 ? nm : 1));
    w->X = malloc(sizeof *w->X * (size_t)nb);
    w->sym = calib_symmetry_ws_alloc(3);
    w->blobs = malloc(sizeof *w->blobs * 64);
    w->det = track_detector_alloc(width, height, err);
    if (!out->t || !out->angle || !out->s || !out->A || !out->B || !w->uv || !w->blobs || !w->det || !w->seen ||
        !w->posed || !w->pose6 || !w->rays || !w->X || !w->sym)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    /* markers of the body's size at the plate's distance; the board's white squares
     * (3-4 times a marker's area and more) are left out by the area */
    const icv_experiment *exp = w->exp;
    double dpx = track_marker_diameter_px(exp->marker_diameter > 0 ? exp->marker_diameter : 0.012, w->cal->in[0].fx,
                                          icv_v3_norm(w->cal->surf.t));
    track_detector *det = w->det;
    track_detector_set_marker_size(det, dpx, 4);
    det->max_area_px = 2.0 * M_PI / 4 * dpx * dpx;
    det->min_circularity = 0.05; /* stickers seen obliquely on a plate that turns */
    det->threshold_fraction = 0.5; /* the track job's: the lit plate stays below */
    det->static_frames = 0; /* the body rests for long: it must not be learnt as background */
    /* the board's white area must stay whole, left out by its area: against a local
       background (tiles) or split, its squares stand out as marker-sized blobs, as they
       are; one level for the frame (the markers are the brightest things here) */
    det->background_tile_px = 0;
    det->split_components = 0;
    calib_board_points(&w->board, w->X);
    return 0;
}

/* every frame: the plate's pose and angle (posed[], pose6[]) and the markers' pixels
 * (seen[], rays[] in px) where exactly the body's markers are found; out->n the frames
 * read; the mean reprojection RMS of the plate's poses into *rms_sum */
static int tilt_read_frames(tilt_ws *w, capture_source *src, capture_frame *fr, job_tilt *out, long n,
                            double *rms_sum, icv_err *err)
{
    const char *id = w->exp->cameras[0].id;
    int have = 0, nm = w->nm;
    for (long i = 0; i < n; i++) {
        int r = capture_source_read(src, fr, err);
        if (r == CAPTURE_EOF) {
            n = i;
            break;
        }
        if (r)
            return icv_err_prefix(err, "camera '%s': ", id);
        out->t[i] = fr->time_s;
        out->angle[i] = out->s[i] = out->A[i] = out->B[i] = NAN;
        calib_image img = {fr->width, fr->height, (int)fr->stride, fr->data};
        calib_surface ps;
        if (plate_pose(&w->cal->in[0], &w->board, w->X, w->sym, &img, w->uv, &have, &ps, &out->n_redetect))
            continue;
        if (out->n_board == 0)
            out->n_redetect = 0;
        out->n_board++;
        *rms_sum += ps.reproj_rms;
        out->angle[i] = acos(fmax(-1, fmin(1, icv_v3_dot(col(ps.R, 1), w->up))));
        icv_vec3 rv = icv_rot_to_axis_angle(ps.R);
        double p6[6] = {rv.x, rv.y, rv.z, ps.t.x, ps.t.y, ps.t.z};
        memcpy(w->pose6 + i * 6, p6, sizeof p6);
        w->posed[i] = 1;
        track_frame tf = {fr->data, fr->width, fr->height, (int)fr->stride, 8};
        int nf = 0;
        if (track_detector_detect(w->det, &tf, NULL, 0, w->blobs, 64, &nf, err))
            return icv_err_prefix(err, "camera '%s' frame %ld: ", id, i);
        if (nf != nm) {
            char why[512];
            icv_debug("tilt frame %ld: %d blobs for %d markers: %s", i, nf, nm,
                      track_detector_describe(w->det, why, sizeof why));
            continue;
        }
        for (int k = 0; k < nf; k++) /* pixels now; rays after the loop */
            w->rays[i * nm + k] = (calib_pt2){w->blobs[k].u, w->blobs[k].v};
        w->seen[i] = 1;
    }
    out->n = n;
    return 0;
}

/* the markers' rays: every seen frame's pixels undistorted in one call */
static int tilt_undistort(tilt_ws *w, long n, icv_err *err)
{
    int nm = w->nm;
    long m = 0;
    for (long i = 0; i < n; i++)
        if (w->seen[i])
            memmove(w->rays + m * nm, w->rays + i * nm, sizeof *w->rays * (size_t)nm), m++;
    int rc = m ? calib_undistort_points(&w->cal->in[0], w->rays, (int)(m * nm), 1, w->rays, err) : 0;
    if (rc)
        return rc;
    for (long i = n - 1, j = m - 1; i >= 0; i--) /* back to each frame's place */
        if (w->seen[i])
            memmove(w->rays + i * nm, w->rays + j * nm, sizeof *w->rays * (size_t)nm), j--;
    return 0;
}

/* The plate's pose in frame i smoothed over SMOOTH frames each side (a line per
 * component of its rotation vector and origin): it turns slowly and evenly, while one
 * frame's PnP wanders by ~0.2 mm at the body over several frames (the coded video) */
static void smoothed_pose(const tilt_ws *w, long n, long i, icv_mat3 *R, icv_vec3 *t)
{
    double sm[6];
    for (int c = 0; c < 6; c++) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int k = 0;
        for (long j = i - SMOOTH; j <= i + SMOOTH; j++)
            if (j >= 0 && j < n && w->posed[j]) {
                double x = (double)(j - i), y = w->pose6[j * 6 + c];
                sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
            }
        double det = k * sxx - sx * sx;
        sm[c] = det > 0 ? (sy * sxx - sx * sxy) / det : w->pose6[i * 6 + c];
    }
    *R = icv_rot_from_axis_angle(icv_v3(sm[0], sm[1], sm[2]));
    *t = icv_v3(sm[3], sm[4], sm[5]);
}

/* Where frame i's markers meet the plane at height h above the plate, along downhill
 * in plate coordinates: A + B h (their mean); 0 when every ray meets the plate */
static int downhill_line(const tilt_ws *w, long n, long i, double *A, double *B)
{
    icv_mat3 R;
    icv_vec3 t;
    smoothed_pose(w, n, i, &R, &t);
    int nm = w->nm;
    icv_vec3 c = icv_v3_scale(icv_m3_apply(icv_m3_transpose(R), t), -1);
    double a[2] = {0, 0}, bb[2] = {0, 0};
    for (int k = 0; k < nm; k++) {
        const calib_pt2 *q = w->rays + i * nm + k;
        icv_vec3 d = icv_m3_apply(icv_m3_transpose(R), icv_v3(q->u, q->v, 1));
        if (!(d.y < -1e-9))
            return -1;
        a[0] += (c.x - d.x * c.y / d.y) / nm, a[1] += (c.z - d.z * c.y / d.y) / nm;
        bb[0] += d.x / d.y / nm, bb[1] += d.z / d.y / nm;
    }
    /* downhill: the vertical's part in the plate's plane, plate coordinates */
    double dx = -icv_v3_dot(w->up, col(R, 0)), dz = -icv_v3_dot(w->up, col(R, 2)), dl = hypot(dx, dz);
    if (!(dl > 1e-9))
        return -1;
    *A = (a[0] * dx + a[1] * dz) / dl;
    *B = (bb[0] * dx + bb[1] * dz) / dl;
    return 0;
}

int job_tilt_run(const char *experiment_path, job_tilt *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    icv_experiment *exp = malloc(sizeof *exp);
    track_calibration *cal = calloc(1, sizeof *cal);
    capture_source *src = NULL;
    capture_frame fr = {0};
    tilt_ws w = {0};
    int rc = 0;
    if (!exp || !cal) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = icv_experiment_load(experiment_path, exp, err)) || (rc = job_track_calibration_read(exp, cal, err)))
        goto done;
    if (!exp->level_images[0][0]) {
        rc = icv_err_set(err, ICV_EINVAL,
                         "%s: a tilt from video needs coefficients.level_images (a board lying on a level "
                         "reference: the vertical the plate's angle is measured from)",
                         exp->path);
        goto done;
    }
    w.exp = exp;
    w.cal = cal;
    w.board = (calib_board){exp->board_cols, exp->board_rows, exp->board_square};
    w.nm = exp->n_markers;
    calib_surface lv;
    if ((rc = calib_surface_from_images(&cal->in[0], NULL, NULL, NULL, &w.board, exp->level_images[0], NULL, &lv,
                                        err))) {
        icv_err_prefix(err, "coefficients.level_images: ");
        goto done;
    }
    out->level_reproj_px = lv.reproj_rms;
    w.up = col(lv.R, 1);
    capture_options co = {.capture_fps = exp->cameras[0].capture_fps, .want_8bit = 1};
    if ((rc = capture_source_open(&src, exp->cameras[0].video, &co, err)))
        goto done;
    const capture_info *info = capture_source_info(src);
    if ((rc = tilt_ws_alloc(&w, out, info->frames, info->width, info->height, err)))
        goto done;
    if (capture_frame_alloc(&fr, info, err)) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto done;
    }
    double rms_sum = 0;
    if ((rc = tilt_read_frames(&w, src, &fr, out, info->frames, &rms_sum, err)) ||
        (rc = tilt_undistort(&w, out->n, err)))
        goto done;
    for (long i = 0; i < out->n; i++) {
        if (!w.seen[i])
            continue;
        if (downhill_line(&w, out->n, i, &out->A[i], &out->B[i])) {
            w.seen[i] = 0;
            continue;
        }
        out->n_body++;
    }
    if ((rc = job_tilt_height(out, out->n, err)))
        goto done;
    out->reproj_rms_px = out->n_board ? rms_sum / out->n_board : NAN;
    if (out->n_board == 0)
        rc = icv_err_set(err, ICV_ENOTFOUND, "%s: the %dx%d board on the plate was not found in any of %ld frames",
                         exp->cameras[0].video, w.board.cols, w.board.rows, out->n);
done:
    if (rc)
        job_tilt_free(out);
    capture_frame_free(&fr);
    capture_source_close(src);
    tilt_ws_free(&w);
    free(cal);
    free(exp);
    return rc;
}

int job_tilt_write(const char *path, const job_tilt *t, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc)
        return rc;
    fprintf(af.fp, "frame,time_s,angle_rad,displacement_m\n");
    for (long i = 0; i < t->n; i++) {
        fprintf(af.fp, "%ld,%.9f,", i, t->t[i]);
        if (!isnan(t->angle[i]))
            fprintf(af.fp, "%.9f", t->angle[i]);
        fprintf(af.fp, ",");
        if (!isnan(t->s[i]))
            fprintf(af.fp, "%.9f", t->s[i]);
        fprintf(af.fp, "\n");
    }
    return icv_atomic_commit(&af, err);
}
