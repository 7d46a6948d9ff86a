/* stereo_calibrate.c: two cameras from pairs of board views. Intrinsics per
 * camera (mono_calibrate.c), then OpenCV's stereoCalibrate with them fixed (the
 * relative pose alone), then the joint refinement of everything from that start
 * (Bouguet's toolbox does the same); standard errors from the joint Jacobian
 * (stereo_uncertainty.c); epipolar error from F on undistorted points. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"
#include "calib/cv_bridge_internal.h"

/* Inner corners along a row of the board points (X changes, Y fixed). */
static int board_cols(const icv_vec3 *X, int n)
{
    int c = 1;
    while (c < n && X[c].y == X[0].y)
        c++;
    return c;
}

/* Mean symmetric distance (px) of undistorted corners to their epipolar lines. */
static double epipolar_error(const calib_intrinsics *i1, const calib_intrinsics *i2, const double F[3][3],
                             const calib_pt2 *uv1, const calib_pt2 *uv2, int n, calib_pt2 *w1, calib_pt2 *w2)
{
    if (calib_undistort_points(i1, uv1, n, 0, w1, NULL) || calib_undistort_points(i2, uv2, n, 0, w2, NULL))
        return NAN;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double x1[3] = {w1[i].u, w1[i].v, 1}, x2[3] = {w2[i].u, w2[i].v, 1}, l2[3], l1[3];
        for (int r = 0; r < 3; r++) {
            l2[r] = F[r][0] * x1[0] + F[r][1] * x1[1] + F[r][2];          /* line in image 2 */
            l1[r] = F[0][r] * x2[0] + F[1][r] * x2[1] + F[2][r];          /* line in image 1 */
        }
        double d2 = fabs(l2[0] * x2[0] + l2[1] * x2[1] + l2[2]) / hypot(l2[0], l2[1]);
        double d1 = fabs(l1[0] * x1[0] + l1[1] * x1[1] + l1[2]) / hypot(l1[0], l1[1]);
        sum += 0.5 * (d1 + d2);
    }
    return n ? sum / n : 0;
}

/* F = K2^-T [T]x R K1^-1 (Hartley-Zisserman eq. 9.2 with E = [T]x R). */
static void fundamental(const calib_intrinsics *i1, const calib_intrinsics *i2, const double R[3][3],
                        const double T[3], double E[3][3], double F[3][3])
{
    icv_mat3 Rm, K1i, K2i;
    memcpy(Rm.m, R, sizeof Rm.m);
    icv_mat3 Em = icv_m3_mul(icv_m3_skew(icv_v3_from_array(T)), Rm);
    icv_mat3 K1 = {{{i1->fx, 0, i1->cx}, {0, i1->fy, i1->cy}, {0, 0, 1}}};
    icv_mat3 K2 = {{{i2->fx, 0, i2->cx}, {0, i2->fy, i2->cy}, {0, 0, 1}}};
    icv_m3_inverse(K1, &K1i);
    icv_m3_inverse(K2, &K2i);
    icv_mat3 Fm = icv_m3_mul(icv_m3_mul(icv_m3_transpose(K2i), Em), K1i);
    double s = fabs(Fm.m[2][2]) > 1e-300 ? Fm.m[2][2] : 1.0; /* OpenCV's scale: F[2][2] = 1 */
    memcpy(E, Em.m, sizeof Em.m);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            F[r][c] = Fm.m[r][c] / s;
}

/* A board pose x_cam = R X + t with the board's labels turned half a turn: corner i
 * becomes corner n-1-i, the point (W - X, H - Y, 0) with W, H the far corner's X, Y. */
static void pose_turned(const double rv[3], const double tv[3], icv_vec3 far, icv_mat3 *R, icv_vec3 *t)
{
    icv_mat3 Rb = icv_rot_from_axis_angle(icv_v3_from_array(rv));
    icv_mat3 half = {{{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}}};
    *t = icv_v3_add(icv_m3_apply(Rb, icv_v3(far.x, far.y, 0)), icv_v3_from_array(tv));
    *R = icv_m3_mul(Rb, half);
}

/* Camera 2's pose relative to camera 1 from one pair's two board poses. */
static void relative_pose(icv_mat3 R1, icv_vec3 t1, icv_mat3 R2, icv_vec3 t2, icv_mat3 *R, icv_vec3 *t)
{
    *R = icv_m3_mul(R2, icv_m3_transpose(R1));
    *t = icv_v3_sub(t2, icv_m3_apply(*R, t1));
}

/* How far a relative pose is from a reference one (b): the angle between them (rad)
 * plus the distance between their translations over the reference's baseline. */
static double pose_gap(icv_mat3 Ra, icv_vec3 ta, icv_mat3 Rb, icv_vec3 tb)
{
    double ang = icv_v3_norm(icv_rot_to_axis_angle(icv_m3_mul(Ra, icv_m3_transpose(Rb))));
    double base = fmax(icv_v3_norm(tb), 1e-9);
    return ang + icv_v3_norm(icv_v3_sub(ta, tb)) / base;
}

/* The pairs' camera-2 labels made to agree with camera 1's. The detector numbers a
 * board from either end in each image; whether a pair's two numberings match
 * cannot be told from the images alone (one camera may be rolled a quarter turn
 * from the other: the first row then runs across in one image and down in the
 * other). It can from the rig: every pair seen with matching labels gives the
 * same relative pose, a pair with camera 2's labels turned gives another, different
 * for every board position. Each used pair keeps or turns camera 2's labels (uv2,
 * and mono2's pose of it) so that its relative pose is nearest a reference pair's;
 * the reference (a pair, turned or not) is the one the pairs agree with best.
 * Returns how many pairs were turned. */
static int pairs_agree(const calib_camera *mono1, calib_camera *mono2, const int *use, int nv, int np, icv_vec3 far,
                       calib_pt2 *uv2, icv_mat3 *Rr, icv_vec3 *tr, int *turn)
{
    /* relative poses: Rr[2v + k], tr[2v + k], k = 1 with camera 2's labels turned */
    for (int v = 0; v < nv; v++) {
        if (!use[v])
            continue;
        const calib_view *a = &mono1->views[v], *b = &mono2->views[v];
        icv_mat3 R1 = icv_rot_from_axis_angle(icv_v3_from_array(a->rvec)), R2, R2t;
        icv_vec3 t1 = icv_v3_from_array(a->tvec), t2 = icv_v3_from_array(b->tvec), t2t;
        R2 = icv_rot_from_axis_angle(icv_v3_from_array(b->rvec));
        pose_turned(b->rvec, b->tvec, far, &R2t, &t2t);
        relative_pose(R1, t1, R2, t2, &Rr[2 * v], &tr[2 * v]);
        relative_pose(R1, t1, R2t, t2t, &Rr[2 * v + 1], &tr[2 * v + 1]);
    }
    double best = INFINITY;
    int ref = -1;
    for (int r = 0; r < 2 * nv; r++) {
        if (!use[r / 2])
            continue;
        double sum = 0;
        for (int v = 0; v < nv; v++)
            if (use[v])
                sum += fmin(pose_gap(Rr[2 * v], tr[2 * v], Rr[r], tr[r]),
                            pose_gap(Rr[2 * v + 1], tr[2 * v + 1], Rr[r], tr[r]));
        if (sum < best)
            best = sum, ref = r;
    }
    int n_turned = 0;
    for (int v = 0; v < nv && ref >= 0; v++) {
        turn[v] = use[v] && pose_gap(Rr[2 * v + 1], tr[2 * v + 1], Rr[ref], tr[ref]) <
                                pose_gap(Rr[2 * v], tr[2 * v], Rr[ref], tr[ref]);
        if (!turn[v])
            continue;
        calib_pt2 *b = uv2 + (size_t)v * np;
        for (int i = 0; i < np / 2; i++) {
            calib_pt2 t = b[i];
            b[i] = b[np - 1 - i];
            b[np - 1 - i] = t;
        }
        calib_view *w = &mono2->views[v];
        icv_mat3 R;
        icv_vec3 t;
        pose_turned(w->rvec, w->tvec, far, &R, &t);
        icv_v3_to_array(icv_rot_to_axis_angle(R), w->rvec);
        icv_v3_to_array(t, w->tvec);
        n_turned++;
    }
    return n_turned;
}

static void add_line(char *v, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_line(char *v, size_t n, const char *fmt, ...)
{
    size_t len = strlen(v);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v + len, n - len, fmt, ap);
    va_end(ap);
    len = strlen(v);
    if (len + 1 < n) {
        v[len] = '\n';
        v[len + 1] = '\0';
    }
}

int calib_stereo_calibrate(const calib_observations *o1, const calib_observations *o2, const calib_options *opt,
                           calib_stereo *st, icv_err *err)
{
    calib_options def;
    if (!opt) {
        calib_options_defaults(&def);
        opt = &def;
    }
    memset(st, 0, sizeof *st);
    int nv = o1->n_views, np = o1->n_points;
    int min_pairs = opt->min_views > 5 ? opt->min_views : 5;
    if (o2->n_views != nv || o2->n_points != np)
        return icv_err_set(err, ICV_EINVAL, "stereo: %d views of %d corners in camera 1 but %d of %d in camera 2",
                           nv, np, o2->n_views, o2->n_points);
    if (nv < min_pairs)
        return icv_err_set(err, ICV_EINVAL, "stereo: only %d usable pairs (need at least %d)", nv, min_pairs);
    if (o1->width != o2->width || o1->height != o2->height)
        return icv_err_set(err, ICV_EINVAL, "stereo: camera 1 images are %dx%d but camera 2's are %dx%d", o1->width,
                           o1->height, o2->width, o2->height);
    int rc = 0;
    calib_pt2 *uv2 = malloc(sizeof *uv2 * (size_t)nv * np);
    calib_pt2 *w = malloc(sizeof *w * 2 * (size_t)np);
    int *use = malloc(sizeof *use * (size_t)nv);
    double *obj = malloc(sizeof(double) * 3 * np), *u1 = malloc(sizeof(double) * 2 * np * (size_t)nv),
           *u2 = malloc(sizeof(double) * 2 * np * (size_t)nv), *pv = malloc(sizeof(double) * 2 * (size_t)nv);
    st->pairs = calloc((size_t)nv, sizeof *st->pairs);
    calib_camera mono[2];
    memset(mono, 0, sizeof mono);
    if (!uv2 || !w || !use || !obj || !u1 || !u2 || !pv || !st->pairs) {
        rc = icv_err_set(err, ICV_ENOMEM, "stereo: out of memory");
        goto out;
    }
    st->n_pairs = nv;
    /* The detector may number a board from either end (a 180-degree turn of the
     * labels) independently in the two images. A first guess: the same direction
     * of the first row in both, as cameras of a rig are rarely upside down relative
     * to each other; the rig's geometry decides after the mono calibrations
     * (pairs_agree). */
    memcpy(uv2, o2->uv, sizeof *uv2 * (size_t)nv * np);
    if (!o1->board_per_view) {
        int cols = board_cols(o1->board, np);
        for (int v = 0; v < nv; v++) {
            const calib_pt2 *a = o1->uv + (size_t)v * np;
            calib_pt2 *b = uv2 + (size_t)v * np;
            double d = (a[cols - 1].u - a[0].u) * (b[cols - 1].u - b[0].u) +
                       (a[cols - 1].v - a[0].v) * (b[cols - 1].v - b[0].v);
            if (d < 0)
                for (int i = 0; i < np / 2; i++) {
                    calib_pt2 t = b[i];
                    b[i] = b[np - 1 - i];
                    b[np - 1 - i] = t;
                }
        }
    }
    calib_observations ob2 = *o2;
    ob2.uv = uv2;
    /* 1. intrinsics per camera (outlier views dropped there) */
    rc = calib_camera_calibrate(o1, opt, &mono[0], err);
    if (!rc)
        rc = calib_camera_calibrate(&ob2, opt, &mono[1], err);
    if (rc) {
        icv_err_prefix(err, "stereo, camera %d", mono[0].views ? 2 : 1);
        goto out;
    }
    for (int v = 0; v < nv; v++)
        use[v] = mono[0].views[v].status == CALIB_VIEW_USED && mono[1].views[v].status == CALIB_VIEW_USED;
    if (!o1->board_per_view) {
        icv_mat3 *Rr = malloc(sizeof *Rr * 2 * (size_t)nv);
        icv_vec3 *tr = malloc(sizeof *tr * 2 * (size_t)nv);
        int *turn = calloc((size_t)nv, sizeof *turn);
        int n_turned = 0;
        if (!Rr || !tr || !turn)
            rc = icv_err_set(err, ICV_ENOMEM, "stereo: out of memory");
        else
            n_turned = pairs_agree(&mono[0], &mono[1], use, nv, np, o1->board[np - 1], uv2, Rr, tr, turn);
        if (n_turned)
            icv_debug("stereo: camera 2's board labels turned in %d pair%s to agree with the rig", n_turned,
                      n_turned > 1 ? "s" : "");
        free(Rr), free(tr), free(turn);
        if (rc)
            goto out;
    }
    int nu = 0;
    for (int v = 0; v < nv; v++) {
        calib_pair *p = &st->pairs[v];
        snprintf(p->name1, CALIB_NAME_MAX, "%s", mono[0].views[v].name);
        snprintf(p->name2, CALIB_NAME_MAX, "%s", mono[1].views[v].name);
        use[v] = mono[0].views[v].status == CALIB_VIEW_USED && mono[1].views[v].status == CALIB_VIEW_USED;
        p->status = use[v] ? CALIB_VIEW_USED : CALIB_VIEW_OUTLIER;
        if (use[v]) {
            memcpy(u1 + 2 * (size_t)np * nu, o1->uv + (size_t)v * np, sizeof(double) * 2 * np);
            memcpy(u2 + 2 * (size_t)np * nu, uv2 + (size_t)v * np, sizeof(double) * 2 * np);
            nu++;
        }
    }
    if (nu < min_pairs) {
        rc = icv_err_set(err, ICV_EINVAL, "stereo: only %d pairs left after dropping outlier views (need %d)", nu,
                         min_pairs);
        goto out;
    }
    if (o1->board_per_view) {
        rc = icv_err_set(err, ICV_EINVAL, "stereo: both cameras need one board labelling");
        goto out;
    }
    for (int i = 0; i < np; i++)
        icv_v3_to_array(o1->board[i], obj + 3 * i);
    double K1[9], K2[9], D1[5], D2[5], R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, T[3] = {0, 0, 0}, E[9], F[9], rms;
    char msg[300];
    calib_intrinsics_to_k(&mono[0].in, K1);
    calib_intrinsics_to_k(&mono[1].in, K2);
    memcpy(D1, mono[0].in.dist, sizeof D1);
    memcpy(D2, mono[1].in.dist, sizeof D2);
    /* 2. the relative pose with the intrinsics fixed, 3. everything jointly */
    if (cvb_stereo_calibrate(nu, np, obj, u1, u2, o1->width, o1->height, CVB_STEREO_FIX_INTRINSIC, opt->fix_k3, K1,
                             D1, K2, D2, R, T, E, F, pv, &rms, msg, sizeof msg) ||
        cvb_stereo_calibrate(nu, np, obj, u1, u2, o1->width, o1->height, CVB_STEREO_JOINT, opt->fix_k3, K1, D1, K2,
                             D2, R, T, E, F, pv, &rms, msg, sizeof msg)) {
        rc = icv_err_set(err, ICV_ENUMERIC, "stereoCalibrate failed on %d pairs: %s", nu, msg);
        goto out;
    }
    st->cam[0] = mono[0];
    st->cam[1] = mono[1];
    mono[0].views = mono[1].views = NULL;
    calib_intrinsics_from_k(&st->cam[0].in, K1, D1, o1->width, o1->height);
    calib_intrinsics_from_k(&st->cam[1].in, K2, D2, o1->width, o1->height);
    memcpy(st->R, R, sizeof st->R);
    memcpy(st->T, T, sizeof st->T);
    fundamental(&st->cam[0].in, &st->cam[1].in, st->R, st->T, st->E, st->F);
    st->baseline = sqrt(T[0] * T[0] + T[1] * T[1] + T[2] * T[2]);
    double ss = 0, ep = 0;
    for (int v = 0, k = 0; v < nv; v++) {
        if (!use[v])
            continue;
        calib_pair *p = &st->pairs[v];
        p->rms1 = pv[2 * k];
        p->rms2 = pv[2 * k + 1];
        ss += p->rms1 * p->rms1 + p->rms2 * p->rms2;
        p->epipolar = epipolar_error(&st->cam[0].in, &st->cam[1].in, st->F, o1->uv + (size_t)v * np,
                                     uv2 + (size_t)v * np, np, w, w + np);
        ep += p->epipolar;
        k++;
    }
    st->n_used = nu;
    st->rms = sqrt(ss / (2.0 * nu)); /* px, over every residual of both cameras */
    st->epipolar = ep / nu;
    /* 4. standard errors of the joint solution */
    rc = calib_stereo_uncertainty(o1, &ob2, use, opt->fix_k3, st, err);
    if (rc)
        goto out;
    /* verdict: each camera's, then the pair's */
    st->verdict_ok = st->cam[0].verdict_ok && st->cam[1].verdict_ok;
    if (st->rms > 1.0) {
        st->verdict_ok = 0;
        add_line(st->verdict, sizeof st->verdict, "bad: stereo RMS %.2f px is above 1 px", st->rms);
    }
    if (st->epipolar > 0.5)
        add_line(st->verdict, sizeof st->verdict,
                 "warning: mean epipolar error %.2f px: the cameras may have moved between shots or are not "
                 "synchronised",
                 st->epipolar);
    if (st->baseline_std > 0.005 * st->baseline)
        add_line(st->verdict, sizeof st->verdict,
                 "warning: baseline uncertain: %.2f +- %.2f mm (%.1f%%); add pairs with the board at varied depths",
                 1e3 * st->baseline, 1e3 * st->baseline_std, 100 * st->baseline_std / st->baseline);
    add_line(st->verdict, sizeof st->verdict, "%s: baseline %.2f +- %.2f mm, RMS %.2f px, epipolar %.2f px, %d pairs",
             st->verdict_ok ? "good" : "bad", 1e3 * st->baseline, 1e3 * st->baseline_std, st->rms, st->epipolar,
             nu);
    for (int c = 0; c < 2; c++) {
        char *line = st->cam[c].verdict, *nl;
        while (*line && (nl = strchr(line, '\n'))) {
            add_line(st->verdict, sizeof st->verdict, "camera %d %.*s", c + 1, (int)(nl - line), line);
            line = nl + 1;
        }
    }
out:
    calib_camera_free(&mono[0]);
    calib_camera_free(&mono[1]);
    free(uv2), free(w), free(use), free(obj), free(u1), free(u2), free(pv);
    if (rc)
        calib_stereo_free(st);
    return rc;
}

void calib_stereo_free(calib_stereo *st)
{
    calib_camera_free(&st->cam[0]);
    calib_camera_free(&st->cam[1]);
    free(st->pairs);
    st->pairs = NULL;
    st->n_pairs = 0;
}
