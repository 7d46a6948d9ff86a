/* calib_file.c: calibration files in OpenCV FileStorage YAML with the contract's
 * names (mono: camera_matrix, distortion_coefficients, ...; stereo: M1, D1, ...,
 * R, T, E, F), written through cv::FileStorage to memory and then atomically to
 * disk; and reading one camera or a stereo pair from files of other tools
 * (OpenCV's samples, cv2 scripts, ROS camera_info). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"
#include "calib/cv_bridge_internal.h"

static int finish(void *fs, int bad, const char *path, icv_err *err)
{
    char *text = NULL, msg[256];
    if (cvb_fs_writer_release(fs, &text, msg, sizeof msg))
        return icv_err_set(err, ICV_EIO, "%s: cannot format the calibration: %s", path, msg);
    if (bad) {
        free(text);
        return icv_err_set(err, ICV_EIO, "%s: cannot format the calibration", path);
    }
    int rc = icv_atomic_write(path, text, strlen(text), err);
    free(text);
    return rc;
}

static void intr_mats(const calib_intrinsics *in, double K[9], double D[5])
{
    calib_intrinsics_to_k(in, K);
    memcpy(D, in->dist, 5 * sizeof *D);
}

/* std as a matrix shaped like K: sigma of fx, fy, cx, cy in their places. */
static void std_mats(const calib_intrinsics *s, double K[9], double D[5])
{
    double k[9] = {s->fx, 0, s->cx, 0, s->fy, s->cy, 0, 0, 0};
    memcpy(K, k, sizeof k);
    memcpy(D, s->dist, 5 * sizeof *D);
}

static int write_surface(void *fs, const calib_surface *sf)
{
    double t[3];
    icv_v3_to_array(sf->t, t);
    return cvb_fs_write_mat(fs, "surface_R", 3, 3, &sf->R.m[0][0]) | cvb_fs_write_mat(fs, "surface_t", 3, 1, t) |
           cvb_fs_write_real(fs, "surface_plane_rms", sf->plane_rms) |
           cvb_fs_write_real(fs, "surface_reproj_rms", sf->reproj_rms);
}

int calib_camera_write(const calib_camera *cam, const char *path, icv_err *err)
{
    char msg[256];
    void *fs = cvb_fs_writer_open(msg, sizeof msg);
    if (!fs)
        return icv_err_set(err, ICV_EIO, "%s: %s", path, msg);
    double K[9], D[5], Ks[9], Ds[5];
    intr_mats(&cam->in, K, D);
    std_mats(&cam->std, Ks, Ds);
    int nu = 0, bad = 0;
    double *pv = malloc(sizeof(double) * (size_t)(cam->n_views + 1));
    const char **names = malloc(sizeof(char *) * (size_t)(cam->n_views + 1));
    char(*other)[CALIB_NAME_MAX + 32] = malloc(sizeof *other * (size_t)(cam->n_views + 1));
    const char **optr = malloc(sizeof(char *) * (size_t)(cam->n_views + 1));
    if (!pv || !names || !other || !optr) {
        free(pv), free(names), free(other), free(optr);
        char *t;
        cvb_fs_writer_release(fs, &t, msg, sizeof msg);
        free(t);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    int no = 0;
    for (int v = 0; v < cam->n_views; v++) {
        if (cam->views[v].status == CALIB_VIEW_USED) {
            pv[nu] = cam->views[v].rms;
            names[nu++] = cam->views[v].name;
        } else {
            snprintf(other[no], sizeof other[no], "%s: %s", cam->views[v].name,
                     calib_view_status_name(cam->views[v].status));
            optr[no] = other[no];
            no++;
        }
    }
    bad |= cvb_fs_write_int(fs, "image_width", cam->in.width);
    bad |= cvb_fs_write_int(fs, "image_height", cam->in.height);
    bad |= cvb_fs_write_mat(fs, "camera_matrix", 3, 3, K);
    bad |= cvb_fs_write_mat(fs, "distortion_coefficients", 5, 1, D);
    bad |= cvb_fs_write_real(fs, "rms", cam->rms);
    if (nu)
        bad |= cvb_fs_write_mat(fs, "per_view_errors", nu, 1, pv);
    bad |= cvb_fs_write_mat(fs, "camera_matrix_std", 3, 3, Ks);
    bad |= cvb_fs_write_mat(fs, "distortion_coefficients_std", 5, 1, Ds);
    bad |= cvb_fs_write_strs(fs, "views", nu, names);
    bad |= cvb_fs_write_strs(fs, "views_not_used", no, optr);
    bad |= cvb_fs_write_real(fs, "coverage", cam->coverage);
    double cov[CALIB_COV_ROWS * CALIB_COV_COLS];
    for (int r = 0; r < CALIB_COV_ROWS; r++)
        for (int c = 0; c < CALIB_COV_COLS; c++)
            cov[r * CALIB_COV_COLS + c] = cam->coverage_map[r][c];
    bad |= cvb_fs_write_mat(fs, "coverage_map", CALIB_COV_ROWS, CALIB_COV_COLS, cov);
    bad |= cvb_fs_write_int(fs, "verdict_ok", cam->verdict_ok);
    bad |= cvb_fs_write_str(fs, "verdict", cam->verdict);
    if (cam->has_surface)
        bad |= write_surface(fs, &cam->surface);
    free(pv), free(names), free(other), free(optr);
    return finish(fs, bad, path, err);
}

int calib_stereo_write(const calib_stereo *st, const char *path, icv_err *err)
{
    char msg[256];
    void *fs = cvb_fs_writer_open(msg, sizeof msg);
    if (!fs)
        return icv_err_set(err, ICV_EIO, "%s: %s", path, msg);
    double K[2][9], D[2][5], Ks[2][9], Ds[2][5];
    for (int c = 0; c < 2; c++) {
        intr_mats(&st->cam[c].in, K[c], D[c]);
        std_mats(&st->cam[c].std, Ks[c], Ds[c]);
    }
    int bad = 0, nu = 0;
    double *pp = malloc(sizeof(double) * 3 * (size_t)(st->n_pairs + 1));
    if (!pp) {
        char *t;
        cvb_fs_writer_release(fs, &t, msg, sizeof msg);
        free(t);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    for (int i = 0; i < st->n_pairs; i++)
        if (st->pairs[i].status == CALIB_VIEW_USED) {
            pp[3 * nu] = st->pairs[i].rms1;
            pp[3 * nu + 1] = st->pairs[i].rms2;
            pp[3 * nu + 2] = st->pairs[i].epipolar;
            nu++;
        }
    bad |= cvb_fs_write_int(fs, "image_width", st->cam[0].in.width);
    bad |= cvb_fs_write_int(fs, "image_height", st->cam[0].in.height);
    bad |= cvb_fs_write_mat(fs, "M1", 3, 3, K[0]);
    bad |= cvb_fs_write_mat(fs, "D1", 5, 1, D[0]);
    bad |= cvb_fs_write_mat(fs, "M2", 3, 3, K[1]);
    bad |= cvb_fs_write_mat(fs, "D2", 5, 1, D[1]);
    bad |= cvb_fs_write_mat(fs, "R", 3, 3, &st->R[0][0]);
    bad |= cvb_fs_write_mat(fs, "T", 3, 1, st->T);
    bad |= cvb_fs_write_mat(fs, "E", 3, 3, &st->E[0][0]);
    bad |= cvb_fs_write_mat(fs, "F", 3, 3, &st->F[0][0]);
    bad |= cvb_fs_write_real(fs, "rms", st->rms);
    bad |= cvb_fs_write_mat(fs, "M1_std", 3, 3, Ks[0]);
    bad |= cvb_fs_write_mat(fs, "D1_std", 5, 1, Ds[0]);
    bad |= cvb_fs_write_mat(fs, "M2_std", 3, 3, Ks[1]);
    bad |= cvb_fs_write_mat(fs, "D2_std", 5, 1, Ds[1]);
    bad |= cvb_fs_write_mat(fs, "T_std", 3, 1, st->T_std);
    bad |= cvb_fs_write_mat(fs, "om_std", 3, 1, st->om_std);
    bad |= cvb_fs_write_real(fs, "baseline", st->baseline);
    bad |= cvb_fs_write_real(fs, "baseline_std", st->baseline_std);
    bad |= cvb_fs_write_real(fs, "epipolar_error", st->epipolar);
    if (nu)
        bad |= cvb_fs_write_mat(fs, "per_pair_errors", nu, 3, pp);
    bad |= cvb_fs_write_int(fs, "verdict_ok", st->verdict_ok);
    bad |= cvb_fs_write_str(fs, "verdict", st->verdict);
    if (st->cov.n > 0) { /* the parameters' covariance (calib.h's order): the surface frame's sigma needs it */
        double *c = malloc(sizeof(double) * (size_t)(st->cov.n * st->cov.n));
        for (int i = 0; c && i < st->cov.n; i++)
            memcpy(c + i * st->cov.n, st->cov.c[i], sizeof(double) * (size_t)st->cov.n);
        bad |= c ? cvb_fs_write_mat(fs, "params_cov", st->cov.n, st->cov.n, c) : 1;
        free(c);
    }
    if (st->has_surface)
        bad |= write_surface(fs, &st->surface);
    free(pp);
    return finish(fs, bad, path, err);
}

/* The first of several names that is present: 0, -1 none present, -2 malformed. */
static int read_mat_any(const calib_store *fs, const char *const *names, int *rows, int *cols, double *d, int max,
                        const char **found)
{
    for (int i = 0; names[i]; i++) {
        int rc = calib_store_mat(fs, names[i], rows, cols, d, max);
        if (rc != -1) {
            *found = names[i];
            return rc;
        }
    }
    return -1;
}

static int read_camera(const calib_store *fs, const char *path, int which, calib_intrinsics *in, calib_intrinsics *sd,
                       icv_err *err)
{
    static const char *const kn[2][6] = {{"camera_matrix", "cameraMatrix", "K", "M1", "K1", NULL},
                                         {"M2", "K2", "cameraMatrix2", "camera_matrix_2", NULL, NULL}};
    static const char *const dn[2][7] = {
        {"distortion_coefficients", "distCoeffs", "dist_coeffs", "D", "D1", "dist", NULL},
        {"D2", "distCoeffs2", "distortion_coefficients_2", NULL, NULL, NULL, NULL}};
    double k[16], d[16];
    int r, c;
    const char *name = "";
    int rc = read_mat_any(fs, kn[which], &r, &c, k, 16, &name);
    if (rc == -1)
        return icv_err_set(err, ICV_EFORMAT, "%s: no camera matrix (looked for %s%s)", path, kn[which][0],
                           which ? ", K2" : ", cameraMatrix, K, M1");
    if (rc || r * c != 9)
        return icv_err_set(err, ICV_EFORMAT, "%s: %s: not a 3x3 matrix", path, name);
    if (!(k[0] > 0) || !(k[4] > 0) || k[1] != 0 || k[3] != 0 || k[6] != 0 || k[7] != 0 || k[8] != 1)
        return icv_err_set(err, ICV_EFORMAT, "%s: %s: not a camera matrix [fx 0 cx; 0 fy cy; 0 0 1]", path, name);
    rc = read_mat_any(fs, dn[which], &r, &c, d, 16, &name);
    int nd = rc == 0 ? r * c : 0;
    if (rc == -1)
        return icv_err_set(err, ICV_EFORMAT, "%s: no distortion coefficients (looked for %s)", path, dn[which][0]);
    if (rc || (nd != 4 && nd != 5 && nd != 8 && nd != 12 && nd != 14))
        return icv_err_set(err, ICV_EFORMAT, "%s: %s: expected 4, 5, 8, 12 or 14 coefficients, got %d", path, name,
                           nd);
    for (int i = 5; i < nd; i++)
        if (d[i] != 0)
            return icv_err_set(err, ICV_EFORMAT,
                               "%s: %s: coefficient %d is %g: only k1 k2 p1 p2 k3 are supported (rational and "
                               "thin-prism models are not)",
                               path, name, i + 1, d[i]);
    double dist[5] = {d[0], d[1], d[2], d[3], nd >= 5 ? d[4] : 0};
    double w = 0, h = 0, sz[4];
    if (calib_store_real(fs, "image_width", &w) || calib_store_real(fs, "image_height", &h)) {
        /* OpenCV's stereo sample and cv2 scripts: imageSize: [w, h] */
        if (calib_store_mat(fs, "imageSize", &r, &c, sz, 4) == 0 && r * c == 2) {
            w = sz[0];
            h = sz[1];
        } else if (calib_store_mat(fs, "image_size", &r, &c, sz, 4) == 0 && r * c == 2) {
            w = sz[0];
            h = sz[1];
        } else {
            w = h = 0; /* unknown: the caller checks against its images */
        }
    }
    /* A size is whole pixels that fit an int; anything else is a damaged file, not a cast. */
    if (!(w >= 0 && w <= 1 << 20 && w == floor(w)) || !(h >= 0 && h <= 1 << 20 && h == floor(h)))
        return icv_err_set(err, ICV_EFORMAT, "%s: image size %g x %g is not a whole number of pixels up to %d", path,
                           w, h, 1 << 20);
    calib_intrinsics_from_k(in, k, dist, (int)w, (int)h);
    if (sd) {
        memset(sd, 0, sizeof *sd);
        double ks[16], ds[16];
        const char *kstd[3] = {which ? "M2_std" : "camera_matrix_std", which ? NULL : "M1_std", NULL};
        const char *dstd[3] = {which ? "D2_std" : "distortion_coefficients_std", which ? NULL : "D1_std", NULL};
        if (read_mat_any(fs, kstd, &r, &c, ks, 16, &name) == 0 && r * c == 9) {
            sd->fx = ks[0], sd->fy = ks[4], sd->cx = ks[2], sd->cy = ks[5];
        }
        if (read_mat_any(fs, dstd, &r, &c, ds, 16, &name) == 0 && r * c >= 5)
            memcpy(sd->dist, ds, 5 * sizeof(double));
    }
    return 0;
}

/* The file is read once, bounded, and parsed by libyaml or libxml2 (storage_read.c),
 * never by OpenCV's FileStorage parsers (docs/calib.md). */
int calib_file_open_reader(const char *path, calib_store **fs, icv_err *err)
{
    if (!icv_file_exists(path))
        return icv_err_set(err, ICV_ENOTFOUND, "%s: calibration file not found", path);
    char *text;
    size_t n;
    int rc = icv_file_read(path, ICV_YAML_MAX_BYTES, &text, &n, err);
    if (rc)
        return rc;
    rc = calib_store_open(text, n, path, fs, err);
    free(text);
    return rc;
}

int calib_intrinsics_read(const char *path, int which, calib_intrinsics *in, calib_intrinsics *std, icv_err *err)
{
    calib_store *fs;
    int rc0 = calib_file_open_reader(path, &fs, err);
    if (rc0)
        return rc0;
    int rc = read_camera(fs, path, which ? 1 : 0, in, std, err);
    calib_store_close(fs);
    return rc;
}

int calib_units_check(const char *path, const double T[3], double square_m, icv_err *err)
{
    double len = sqrt(T[0] * T[0] + T[1] * T[1] + T[2] * T[2]);
    /* T is in the unit the board's square was given in when calibrating: a baseline
       of more than 20 m, or of more than 5000 of the experiment's board squares,
       was calibrated in millimetres when it is plausible once divided by 1000 */
    int too_long = len > CALIB_MAX_BASELINE_M || (square_m > 0 && len / square_m > 5000);
    if (!isfinite(len) || !too_long)
        return 0;
    char sq[96] = "";
    if (square_m > 0)
        snprintf(sq, sizeof sq, ", %.0f of the board's %g m squares", len / square_m, square_m);
    if (len / 1000 <= CALIB_MAX_BASELINE_M && (square_m <= 0 || len / 1000 / square_m <= 5000))
        return icv_err_set(err, ICV_EINVAL,
                           "%s: the calibration is in millimetres: T = [%g, %g, %g] is a %.4g m baseline%s, %.4g m if "
                           "in mm (the board's square was given in mm when calibrating); calibrate again with the "
                           "square in metres (impactcv calib --board 9x6@0.023 for 23 mm squares)",
                           path, T[0], T[1], T[2], len, sq, len / 1000);
    return icv_err_set(err, ICV_EINVAL,
                       "%s: T = [%g, %g, %g] is a %.4g m baseline%s: not in metres; calibrate again with the board's "
                       "square in metres",
                       path, T[0], T[1], T[2], len, sq);
}

int calib_stereo_read(const char *path, calib_intrinsics *in1, calib_intrinsics *in2, double R[3][3], double T[3],
                      icv_err *err)
{
    calib_store *fs;
    int rc0 = calib_file_open_reader(path, &fs, err);
    if (rc0)
        return rc0;
    int rc = read_camera(fs, path, 0, in1, NULL, err);
    if (!rc)
        rc = read_camera(fs, path, 1, in2, NULL, err);
    in2->width = in1->width;
    in2->height = in1->height;
    double r[16], t[16];
    int rr, rcn;
    if (!rc) {
        if (calib_store_mat(fs, "R", &rr, &rcn, r, 16) || rr * rcn != 9)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: R: missing or not a 3x3 matrix", path);
        else if (calib_store_mat(fs, "T", &rr, &rcn, t, 16) || rr * rcn != 3)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: T: missing or not 3 numbers", path);
    }
    if (!rc) {
        icv_mat3 Rm;
        memcpy(Rm.m, r, sizeof Rm.m);
        icv_mat3 RtR = icv_m3_mul(icv_m3_transpose(Rm), Rm);
        double off = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                off = fmax(off, fabs(RtR.m[i][j] - (i == j)));
        if (off > 1e-6 || icv_m3_det(Rm) < 0)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: R is not a rotation (|R^T R - I| = %.2g)", path, off);
        memcpy(R, r, 9 * sizeof(double));
        memcpy(T, t, 3 * sizeof(double));
        if (!rc)
            rc = calib_units_check(path, t, 0, err);
    }
    calib_store_close(fs);
    return rc;
}

int calib_surface_read(const char *path, calib_surface *s, icv_err *err)
{
    calib_store *fs;
    int rc0 = calib_file_open_reader(path, &fs, err);
    if (rc0)
        return rc0;
    double r[16], t[16];
    int rr, rc2, rc = 0;
    memset(s, 0, sizeof *s);
    int a = calib_store_mat(fs, "surface_R", &rr, &rc2, r, 16);
    if (a == -1)
        rc = icv_err_set(err, ICV_ENOTFOUND, "%s: no surface frame (surface_R)", path);
    else if (a || rr * rc2 != 9)
        rc = icv_err_set(err, ICV_EFORMAT, "%s: surface_R: not a 3x3 matrix", path);
    else if (calib_store_mat(fs, "surface_t", &rr, &rc2, t, 16) || rr * rc2 != 3)
        rc = icv_err_set(err, ICV_EFORMAT, "%s: surface_t: missing or not 3 numbers", path);
    if (!rc) {
        memcpy(s->R.m, r, sizeof s->R.m);
        s->t = icv_v3_from_array(t);
        calib_store_real(fs, "surface_plane_rms", &s->plane_rms);
        calib_store_real(fs, "surface_reproj_rms", &s->reproj_rms);
    }
    calib_store_close(fs);
    return rc;
}
