/* surface_frame.c: the contract's surface frame in the reference camera's frame
 * (x_cam = R x_surface + t): origin at the board's first inner corner, x along its
 * first row, y the normal towards the cameras, z = x cross y. Mono: the board
 * pose by solvePnP. Stereo: every corner triangulated (midpoint of the two rays,
 * Hartley-Zisserman sec. 12.1), the plane fitted by least squares (smallest
 * eigenvector of the scatter matrix: its residual is reported), a Kabsch fit of the
 * board model to the triangulated corners as the start, then the board pose that
 * minimises the reprojection error in both cameras (the maximum-likelihood
 * estimate: it uses the board's known geometry, so its normal is more precise
 * than the free plane's), which gives the axes.
 * Also `surface.plane` and the one-camera motion plane and surface line. */
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"
#include "calib/cv_bridge_internal.h"

static icv_vec3 col(icv_mat3 m, int c) { return icv_v3(m.m[0][c], m.m[1][c], m.m[2][c]); }

static icv_mat3 from_cols(icv_vec3 x, icv_vec3 y, icv_vec3 z)
{
    icv_mat3 m = {{{x.x, y.x, z.x}, {x.y, y.y, z.y}, {x.z, y.z, z.z}}};
    return m;
}

/* Frame from the board's pose and (optionally) a fitted normal. */
static void frame_from_pose(icv_mat3 Rb, icv_vec3 tb, const icv_vec3 *normal, calib_surface *s)
{
    icv_vec3 n = normal ? *normal : col(Rb, 2);
    /* y towards the camera at the origin: y . (0 - t) > 0 */
    if (icv_v3_dot(n, tb) > 0)
        n = icv_v3_scale(n, -1);
    icv_vec3 x = col(Rb, 0);
    x = icv_v3_unit(icv_v3_axpy(-icv_v3_dot(x, n), n, x));
    s->R = from_cols(x, n, icv_v3_cross(x, n));
    s->t = tb;
}

int calib_surface_from_view(const calib_intrinsics *in, const calib_board *b, const calib_pt2 *uv,
                            calib_surface *s, icv_err *err)
{
    int np = b->cols * b->rows;
    icv_vec3 *X = malloc(sizeof *X * (size_t)np);
    if (!X)
        return icv_err_set(err, ICV_ENOMEM, "surface: out of memory");
    calib_board_points(b, X);
    int rc = calib_surface_from_view_points(in, b, X, uv, s, err);
    free(X);
    return rc;
}

int calib_surface_from_view_points(const calib_intrinsics *in, const calib_board *b, const icv_vec3 *X,
                                   const calib_pt2 *uv, calib_surface *s, icv_err *err)
{
    int np = b->cols * b->rows;
    double K[9], rv[3], tv[3];
    char msg[200];
    calib_intrinsics_to_k(in, K);
    memset(s, 0, sizeof *s);
    if (cvb_solve_pnp(np, (const double *)X, (const double *)uv, K, in->dist, rv, tv, msg, sizeof msg))
        return icv_err_set(err, ICV_ENUMERIC, "surface: board pose: %s", msg);
    frame_from_pose(icv_rot_from_axis_angle(icv_v3_from_array(rv)), icv_v3_from_array(tv), NULL, s);
    s->reproj_rms = calib_view_rms(in, rv, tv, X, uv, np);
    s->n_points = np;
    return 0;
}

int calib_motion_plane_from_view(const calib_intrinsics *in, const calib_board *b, const calib_pt2 *uv,
                                 calib_surface *plane, icv_err *err)
{
    return calib_surface_from_view(in, b, uv, plane, err);
}

int calib_triangulate_midpoint(const double R[3][3], const double T[3], calib_pt2 n1, calib_pt2 n2, icv_vec3 *X)
{
    icv_mat3 Rm;
    memcpy(Rm.m, R, sizeof Rm.m);
    icv_mat3 Rt = icv_m3_transpose(Rm);
    icv_vec3 C2 = icv_v3_scale(icv_m3_apply(Rt, icv_v3_from_array(T)), -1); /* camera 2's centre in camera 1 */
    /* midpoint of the closest points of rays a(s) = s d1, b(t) = C2 + t d2 */
    icv_vec3 d1 = icv_v3(n1.u, n1.v, 1), d2 = icv_m3_apply(Rt, icv_v3(n2.u, n2.v, 1));
    double a = icv_v3_dot(d1, d1), bb = icv_v3_dot(d1, d2), c = icv_v3_dot(d2, d2);
    double d = icv_v3_dot(d1, C2), e = icv_v3_dot(d2, C2), den = a * c - bb * bb;
    if (fabs(den) < 1e-12 * a * c)
        return -1;
    double sa = (d * c - bb * e) / den, tb = (d * bb - a * e) / den;
    *X = icv_v3_scale(icv_v3_add(icv_v3_scale(d1, sa), icv_v3_axpy(tb, d2, C2)), 0.5);
    return 0;
}

/* Kabsch: R, t minimising sum |R P_i + t - Q_i|^2. */
static int kabsch(const icv_vec3 *P, const icv_vec3 *Q, int n, icv_mat3 *R, icv_vec3 *t)
{
    icv_vec3 pc = {0, 0, 0}, qc = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        pc = icv_v3_add(pc, P[i]);
        qc = icv_v3_add(qc, Q[i]);
    }
    pc = icv_v3_scale(pc, 1.0 / n);
    qc = icv_v3_scale(qc, 1.0 / n);
    gsl_matrix *H = gsl_matrix_calloc(3, 3), *V = gsl_matrix_alloc(3, 3);
    gsl_vector *S = gsl_vector_alloc(3), *w = gsl_vector_alloc(3);
    if (!H || !V || !S || !w) {
        gsl_matrix_free(H), gsl_matrix_free(V), gsl_vector_free(S), gsl_vector_free(w);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        double p[3], q[3];
        icv_v3_to_array(icv_v3_sub(P[i], pc), p);
        icv_v3_to_array(icv_v3_sub(Q[i], qc), q);
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++)
                *gsl_matrix_ptr(H, (size_t)a, (size_t)c) += p[a] * q[c];
    }
    /* H = U S V^T; R = V diag(1, 1, det(V U^T)) U^T */
    int rc = gsl_linalg_SV_decomp(H, V, S, w);
    if (!rc) {
        icv_mat3 U, Vm;
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++) {
                U.m[a][c] = gsl_matrix_get(H, (size_t)a, (size_t)c);
                Vm.m[a][c] = gsl_matrix_get(V, (size_t)a, (size_t)c);
            }
        icv_mat3 Ut = icv_m3_transpose(U);
        double d = icv_m3_det(icv_m3_mul(Vm, Ut)) < 0 ? -1 : 1;
        *R = icv_m3_mul(icv_m3_mul(Vm, icv_m3_diag(1, 1, d)), Ut);
        *t = icv_v3_sub(qc, icv_m3_apply(*R, pc));
    }
    gsl_matrix_free(H), gsl_matrix_free(V), gsl_vector_free(S), gsl_vector_free(w);
    return rc ? -1 : 0;
}

/* Least-squares plane: centroid and the smallest eigenvector of the scatter. */
static int plane_fit(const icv_vec3 *Q, int n, icv_vec3 *c, icv_vec3 *normal, double *rms)
{
    icv_vec3 m = {0, 0, 0};
    for (int i = 0; i < n; i++)
        m = icv_v3_add(m, Q[i]);
    m = icv_v3_scale(m, 1.0 / n);
    gsl_matrix *A = gsl_matrix_calloc(3, 3), *evec = gsl_matrix_alloc(3, 3);
    gsl_vector *eval = gsl_vector_alloc(3);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(3);
    int rc = -1;
    if (A && evec && eval && ws) {
        for (int i = 0; i < n; i++) {
            double d[3];
            icv_v3_to_array(icv_v3_sub(Q[i], m), d);
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    *gsl_matrix_ptr(A, (size_t)a, (size_t)b) += d[a] * d[b];
        }
        if (!gsl_eigen_symmv(A, eval, evec, ws)) {
            gsl_eigen_symmv_sort(eval, evec, GSL_EIGEN_SORT_VAL_ASC);
            *normal = icv_v3(gsl_matrix_get(evec, 0, 0), gsl_matrix_get(evec, 1, 0), gsl_matrix_get(evec, 2, 0));
            *rms = sqrt(fmax(gsl_vector_get(eval, 0), 0) / n);
            *c = m;
            rc = 0;
        }
    }
    if (ws)
        gsl_eigen_symmv_free(ws);
    gsl_matrix_free(A), gsl_matrix_free(evec), gsl_vector_free(eval);
    return rc;
}

int calib_surface_from_stereo(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                              const double T[3], const calib_board *b, const calib_pt2 *uv1,
                              const calib_pt2 *uv2, calib_surface *s, icv_err *err)
{
    return calib_surface_stereo_frame(in1, in2, R, T, b, uv1, uv2, 1, s, err);
}

int calib_surface_stereo_frame(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                               const double T[3], const calib_board *b, const calib_pt2 *uv1, const calib_pt2 *uv2,
                               int with_sd, calib_surface *s, icv_err *err)
{
    int np = b->cols * b->rows, rc = 0;
    memset(s, 0, sizeof *s);
    calib_pt2 *n1 = malloc(sizeof *n1 * (size_t)np), *n2 = malloc(sizeof *n2 * (size_t)np);
    icv_vec3 *X = malloc(sizeof *X * (size_t)np), *Q = malloc(sizeof *Q * (size_t)np);
    if (!n1 || !n2 || !X || !Q) {
        rc = icv_err_set(err, ICV_ENOMEM, "surface: out of memory");
        goto out;
    }
    if ((rc = calib_undistort_points(in1, uv1, np, 1, n1, err)) || (rc = calib_undistort_points(in2, uv2, np, 1, n2, err)))
        goto out;
    icv_mat3 Rm;
    memcpy(Rm.m, R, sizeof Rm.m);
    for (int i = 0; i < np; i++) {
        if (calib_triangulate_midpoint(R, T, n1[i], n2[i], &Q[i])) {
            rc = icv_err_set(err, ICV_ENUMERIC, "surface: corner %d: the two rays are parallel", i);
            goto out;
        }
        if (Q[i].z <= 0) {
            rc = icv_err_set(err, ICV_ENUMERIC, "surface: corner %d triangulates behind the cameras: check the pairing",
                             i);
            goto out;
        }
    }
    calib_board_points(b, X);
    icv_mat3 Rb;
    icv_vec3 tb, centre, normal;
    if (kabsch(X, Q, np, &Rb, &tb) || plane_fit(Q, np, &centre, &normal, &s->plane_rms)) {
        rc = icv_err_set(err, ICV_ENUMERIC, "surface: the plane fit failed");
        goto out;
    }
    (void)centre;
    double pose[6];
    icv_v3_to_array(icv_rot_to_axis_angle(Rb), pose);
    icv_v3_to_array(tb, pose + 3);
    if ((rc = calib_board_pose_stereo(in1, in2, R, T, X, uv1, uv2, np, pose, err)))
        goto out;
    Rb = icv_rot_from_axis_angle(icv_v3_from_array(pose));
    tb = icv_v3_from_array(pose + 3);
    frame_from_pose(Rb, tb, NULL, s);
    /* reprojection of the rigid board model into both cameras */
    double ss = 0;
    for (int i = 0; i < np; i++) {
        icv_vec3 x1 = icv_v3_add(icv_m3_apply(Rb, X[i]), tb);
        icv_vec3 x2 = icv_v3_add(icv_m3_apply(Rm, x1), icv_v3_from_array(T));
        calib_pt2 p1, p2;
        calib_project(in1, &x1, 1, &p1);
        calib_project(in2, &x2, 1, &p2);
        ss += pow(p1.u - uv1[i].u, 2) + pow(p1.v - uv1[i].v, 2) + pow(p2.u - uv2[i].u, 2) + pow(p2.v - uv2[i].v, 2);
    }
    s->reproj_rms = sqrt(ss / (2.0 * np));
    s->n_points = np;
    if (with_sd) { /* the corners in the surface frame (Q is free now), then the frame's sigmas */
        icv_mat3 RsT = icv_m3_transpose(s->R);
        for (int i = 0; i < np; i++)
            Q[i] = icv_m3_apply(RsT, icv_v3_sub(icv_v3_add(icv_m3_apply(Rb, X[i]), tb), s->t));
        calib_surface_sd_stereo(in1, in2, R, T, Q, uv1, uv2, np, s);
    }
out:
    free(n1), free(n2), free(X), free(Q);
    return rc;
}

static int detect_one(const char *path, const calib_board *b, const calib_intrinsics *in, calib_pt2 *uv,
                      icv_err *err)
{
    calib_image img;
    int rc = calib_image_read_gray(path, &img, err);
    if (rc)
        return rc;
    if (in->width && (img.width != in->width || img.height != in->height)) {
        int w = img.width, h = img.height;
        calib_image_free(&img);
        return icv_err_set(err, ICV_EINVAL, "%s: image is %dx%d but the camera was calibrated at %dx%d", path, w, h,
                           in->width, in->height);
    }
    /* one image that holds the board, often lying on the surface seen from low down */
    calib_detector d;
    calib_detector_defaults(&d);
    d.foreshortened = 1;
    calib_detection info;
    calib_board_detect(&d, &img, b, 1, uv, &info);
    calib_image_free(&img);
    if (!info.found) {
        if ((info.probe_cols >= info.probe_rows) != (b->cols >= b->rows)) {
            int t = info.probe_cols;
            info.probe_cols = info.probe_rows;
            info.probe_rows = t;
        }
        if (info.probe_cols)
            return icv_err_set(err, ICV_ENOTFOUND, "%s: no %dx%d board found (a %dx%d board is visible: check the board size)",
                               path, b->cols, b->rows, info.probe_cols, info.probe_rows);
        return icv_err_set(err, ICV_ENOTFOUND, "%s: no %dx%d board found", path, b->cols, b->rows);
    }
    return 0;
}

/* Camera 2's labels of the board turned half a turn when that matches camera 1's:
 * the detector numbers the board from either end in each image, and the image
 * directions cannot tell which matches when one camera is rolled far from the
 * other. The rig can: camera 1's board pose (solvePnP) seen through R, T predicts
 * camera 2's corners; the numbering nearer that prediction is kept. */
static int labels_agree(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                        const double T[3], const calib_board *b, const calib_pt2 *uv1, calib_pt2 *uv2, icv_err *err)
{
    int np = b->cols * b->rows;
    icv_vec3 *X = malloc(sizeof *X * (size_t)np);
    calib_pt2 *p = malloc(sizeof *p * (size_t)np);
    if (!X || !p) {
        free(X), free(p);
        return icv_err_set(err, ICV_ENOMEM, "surface: out of memory");
    }
    calib_board_points(b, X);
    double K[9], rv[3], tv[3];
    char msg[200];
    calib_intrinsics_to_k(in1, K);
    int rc = 0;
    if (cvb_solve_pnp(np, (const double *)X, (const double *)uv1, K, in1->dist, rv, tv, msg, sizeof msg)) {
        rc = icv_err_set(err, ICV_ENUMERIC, "surface: board pose in camera 1: %s", msg);
    } else {
        icv_mat3 Rb = icv_rot_from_axis_angle(icv_v3_from_array(rv)), Rs;
        memcpy(Rs.m, R, sizeof Rs.m);
        for (int i = 0; i < np; i++) {
            icv_vec3 x1 = icv_v3_add(icv_m3_apply(Rb, X[i]), icv_v3_from_array(tv));
            X[i] = icv_v3_add(icv_m3_apply(Rs, x1), icv_v3(T[0], T[1], T[2]));
        }
        calib_project(in2, X, np, p);
        double same = 0, turned = 0;
        for (int i = 0; i < np; i++) {
            same += hypot(p[i].u - uv2[i].u, p[i].v - uv2[i].v);
            turned += hypot(p[i].u - uv2[np - 1 - i].u, p[i].v - uv2[np - 1 - i].v);
        }
        if (turned < same)
            for (int i = 0; i < np / 2; i++) {
                calib_pt2 t = uv2[i];
                uv2[i] = uv2[np - 1 - i];
                uv2[np - 1 - i] = t;
            }
    }
    free(X), free(p);
    return rc;
}

int calib_surface_from_images(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                              const double T[3], const calib_board *b, const char *img1, const char *img2,
                              calib_surface *s, icv_err *err)
{
    int np = b->cols * b->rows;
    calib_pt2 *uv = malloc(sizeof *uv * 2 * (size_t)np);
    if (!uv)
        return icv_err_set(err, ICV_ENOMEM, "surface: out of memory");
    int rc = detect_one(img1, b, in1, uv, err);
    if (!rc && img2 && in2) {
        rc = detect_one(img2, b, in2, uv + np, err);
        if (!rc && (rc = labels_agree(in1, in2, R, T, b, uv, uv + np, err)) == 0)
            rc = calib_surface_from_stereo(in1, in2, R, T, b, uv, uv + np, s, err);
    } else if (!rc) {
        rc = calib_surface_from_view(in1, b, uv, s, err);
    }
    free(uv);
    return rc;
}

int calib_surface_from_plane(icv_vec3 point, icv_vec3 normal, calib_surface *s, icv_err *err)
{
    memset(s, 0, sizeof *s);
    if (icv_v3_norm(normal) < 1e-12)
        return icv_err_set(err, ICV_EINVAL, "surface.plane.normal: zero vector");
    icv_vec3 y = icv_v3_unit(normal);
    if (icv_v3_dot(y, point) > 0)
        y = icv_v3_scale(y, -1);
    icv_vec3 x = icv_v3(1, 0, 0);
    x = icv_v3_axpy(-icv_v3_dot(x, y), y, x);
    if (icv_v3_norm(x) < 1e-6)
        x = icv_v3_axpy(-y.z, y, icv_v3(0, 0, 1));
    x = icv_v3_unit(x);
    s->R = from_cols(x, y, icv_v3_cross(x, y));
    s->t = point;
    return 0;
}

int calib_surface_from_line_px(const calib_intrinsics *in, const calib_surface *plane, const double line_px[2][2],
                               calib_surface *s, icv_err *err)
{
    calib_pt2 px[2] = {{line_px[0][0], line_px[0][1]}, {line_px[1][0], line_px[1][1]}}, nrm[2];
    int rc = calib_undistort_points(in, px, 2, 1, nrm, err);
    if (rc)
        return rc;
    icv_vec3 n = col(plane->R, 1), p0 = plane->t, P[2];
    for (int i = 0; i < 2; i++) {
        icv_vec3 d = icv_v3(nrm[i].u, nrm[i].v, 1);
        double den = icv_v3_dot(n, d), lam = den != 0 ? icv_v3_dot(n, p0) / den : -1;
        if (fabs(den) < 1e-9 || lam <= 0)
            return icv_err_set(err, ICV_EINVAL,
                               "surface.line_px[%d] = [%g, %g]: its ray does not meet the motion plane in front of "
                               "the camera",
                               i, line_px[i][0], line_px[i][1]);
        P[i] = icv_v3_scale(d, lam);
    }
    icv_vec3 dx = icv_v3_sub(P[1], P[0]);
    if (icv_v3_norm(dx) < 1e-9)
        return icv_err_set(err, ICV_EINVAL, "surface.line_px: the two points coincide");
    icv_vec3 x = icv_v3_unit(dx), y = icv_v3_unit(icv_v3_cross(n, x));
    /* y to the image's top side of the line: moving along y must decrease v,
     * d(Y/Z) = (y.y Z - Y y.z) / Z^2 at the line's midpoint */
    icv_vec3 M = icv_v3_scale(icv_v3_add(P[0], P[1]), 0.5);
    if (y.y * M.z - M.y * y.z > 0)
        y = icv_v3_scale(y, -1);
    memset(s, 0, sizeof *s);
    s->R = from_cols(x, y, icv_v3_cross(x, y));
    s->t = P[0];
    return 0;
}
