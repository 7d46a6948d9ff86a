/* rigid_fit.c: the body's pose in one frame from its marker template.
 * Weighted Kabsch/Horn: with weights w = 1/sigma^2 and centred coordinates,
 * H = sum w b' x'^T = U S V^T and R = V diag(1, 1, det(V U^T)) U^T minimises
 * sum w |R b + p - x|^2 (Kabsch 1976; Horn 1987). A collinear template (beads on a
 * rod) fixes only the line: see analysis.h for the convention used there. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <string.h>

#include "analysis/analysis.h"

/* collinearity tolerance, relative to the template's size */
#define COLLINEAR_REL 1e-6

static int farthest_pair(const icv_vec3 *pts, const int *use, int n, int *ia, int *ib)
{
    double best = -1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (use && (!use[i] || !use[j]))
                continue;
            double d = icv_v3_norm(icv_v3_sub(pts[i], pts[j]));
            if (d > best) {
                best = d;
                *ia = i;
                *ib = j;
            }
        }
    return best > 0;
}

/* Whether the used points lie on one line (within COLLINEAR_REL of its length). */
static int points_collinear(const icv_vec3 *pts, const int *use, int n)
{
    int a = -1, b = -1;
    if (!farthest_pair(pts, use, n, &a, &b))
        return 1;
    icv_vec3 d = icv_v3_sub(pts[b], pts[a]);
    double len = icv_v3_norm(d);
    icv_vec3 u = icv_v3_scale(d, 1.0 / len);
    for (int k = 0; k < n; k++) {
        if (use && !use[k])
            continue;
        icv_vec3 r = icv_v3_sub(pts[k], pts[a]);
        if (icv_v3_norm(icv_v3_cross(r, u)) > COLLINEAR_REL * len)
            return 0;
    }
    return 1;
}

int analysis_template_init(analysis_template *t, const icv_vec3 *markers, int n, icv_err *err)
{
    memset(t, 0, sizeof *t);
    if (n < 1 || n > ICV_MAX_MARKERS)
        return icv_err_set(err, ICV_EINVAL, "body.markers: 1 to %d markers, got %d", ICV_MAX_MARKERS, n);
    t->n_markers = n;
    memcpy(t->markers, markers, sizeof *markers * (size_t)n);
    if (n == 1) { /* a ball: position only */
        t->point = 1;
        t->collinear = 1;
        t->axis = icv_v3(0, 1, 0);
        return 0;
    }
    int a = 0, b = 0;
    if (!farthest_pair(markers, NULL, n, &a, &b))
        return icv_err_set(err, ICV_EINVAL, "body.markers: all markers are at one place");
    t->collinear = points_collinear(markers, NULL, n);
    if (t->collinear)
        t->axis = icv_v3_unit(icv_v3_sub(markers[b], markers[a]));
    return 0;
}

int analysis_template_init_planar(analysis_template *t, const icv_vec3 *markers, int n, icv_err *err)
{
    icv_vec3 flat[ICV_MAX_MARKERS];
    for (int k = 0; k < n && k < ICV_MAX_MARKERS; k++)
        flat[k] = icv_v3(markers[k].x, markers[k].y, 0);
    int rc = analysis_template_init(t, flat, n, err);
    if (!rc)
        t->planar = 1;
    return rc;
}

/* The smallest rotation taking unit a onto unit d. When d = -a (a half turn about
 * any perpendicular axis) the perpendicular axis is chosen from the coordinate axis
 * least aligned with a, so the result is deterministic. */
static icv_mat3 rotation_between(icv_vec3 a, icv_vec3 d)
{
    icv_vec3 c = icv_v3_cross(a, d);
    double s = icv_v3_norm(c), cth = icv_v3_dot(a, d);
    if (s < 1e-12 && cth < 0) {
        icv_vec3 e = fabs(a.x) < fabs(a.y) ? (fabs(a.x) < fabs(a.z) ? icv_v3(1, 0, 0) : icv_v3(0, 0, 1))
                                           : (fabs(a.y) < fabs(a.z) ? icv_v3(0, 1, 0) : icv_v3(0, 0, 1));
        icv_vec3 axis = icv_v3_unit(icv_v3_cross(a, e));
        return icv_rot_from_axis_angle(icv_v3_scale(axis, M_PI));
    }
    if (s < 1e-300)
        return icv_m3_identity();
    return icv_rot_from_axis_angle(icv_v3_scale(c, atan2(s, cth) / s));
}

/* One weighted fit over the markers with use[k] set: 0, or GSL's status when its SVD
 * fails (it does not on a finite 3x3 matrix; a NaN in the points is the likely cause). */
static int fit_once(const analysis_template *t, const icv_vec3 *x, const double *w, const int *use, icv_mat3 *R,
                     icv_vec3 *p)
{
    int n = t->n_markers;
    double wsum = 0;
    icv_vec3 bm = icv_v3(0, 0, 0), xm = icv_v3(0, 0, 0);
    for (int k = 0; k < n; k++)
        if (use[k]) {
            wsum += w[k];
            bm = icv_v3_axpy(w[k], t->markers[k], bm);
            xm = icv_v3_axpy(w[k], x[k], xm);
        }
    bm = icv_v3_scale(bm, 1.0 / wsum);
    xm = icv_v3_scale(xm, 1.0 / wsum);

    if (t->collinear) {
        /* the measured line: principal direction of the weighted scatter, signed to
         * agree with the template's order along its axis */
        double s[9] = {0};
        for (int k = 0; k < n; k++)
            if (use[k]) {
                double d[3] = {x[k].x - xm.x, x[k].y - xm.y, x[k].z - xm.z};
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        s[3 * i + j] += w[k] * d[i] * d[j];
            }
        /* power iteration from the end-to-end direction converges fast: the scatter
         * of a line has one dominant eigenvalue */
        icv_vec3 dir = icv_v3(0, 0, 0);
        double sgn_acc = 0;
        for (int k = 0; k < n; k++)
            if (use[k]) {
                double along = icv_v3_dot(icv_v3_sub(t->markers[k], bm), t->axis);
                dir = icv_v3_axpy(w[k] * along, icv_v3_sub(x[k], xm), dir);
            }
        for (int it = 0; it < 50; it++) {
            icv_vec3 nd = icv_v3(s[0] * dir.x + s[1] * dir.y + s[2] * dir.z, s[3] * dir.x + s[4] * dir.y + s[5] * dir.z,
                                 s[6] * dir.x + s[7] * dir.y + s[8] * dir.z);
            dir = icv_v3_unit(nd);
        }
        for (int k = 0; k < n; k++)
            if (use[k])
                sgn_acc += w[k] * icv_v3_dot(icv_v3_sub(t->markers[k], bm), t->axis) *
                           icv_v3_dot(icv_v3_sub(x[k], xm), dir);
        if (sgn_acc < 0)
            dir = icv_v3_scale(dir, -1);
        *R = rotation_between(t->axis, dir);
    } else if (t->planar) {
        /* about z only: the angle that best turns the template's x-y onto the
         * points' (weighted Procrustes in the plane; never a half turn about an
         * in-plane axis, which a 3D fit of a flat template may take when noise
         * makes the mirrored placement fit better) */
        double sc = 0, ss = 0;
        for (int k = 0; k < n; k++)
            if (use[k]) {
                icv_vec3 b = icv_v3_sub(t->markers[k], bm), q = icv_v3_sub(x[k], xm);
                sc += w[k] * (b.x * q.x + b.y * q.y);
                ss += w[k] * (b.x * q.y - b.y * q.x);
            }
        *R = icv_rot_from_axis_angle(icv_v3(0, 0, atan2(ss, sc)));
    } else {
        double h[9] = {0}, v[9], sv[3], work[3];
        for (int k = 0; k < n; k++)
            if (use[k]) {
                icv_vec3 b = icv_v3_sub(t->markers[k], bm), q = icv_v3_sub(x[k], xm);
                double bb[3] = {b.x, b.y, b.z}, qq[3] = {q.x, q.y, q.z};
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        h[3 * i + j] += w[k] * bb[i] * qq[j];
            }
        gsl_matrix_view H = gsl_matrix_view_array(h, 3, 3); /* becomes U */
        gsl_matrix_view V = gsl_matrix_view_array(v, 3, 3);
        gsl_vector_view S = gsl_vector_view_array(sv, 3), W = gsl_vector_view_array(work, 3);
        int status = gsl_linalg_SV_decomp(&H.matrix, &V.matrix, &S.vector, &W.vector);
        if (status)
            return status;
        icv_mat3 U, Vm;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                U.m[i][j] = h[3 * i + j];
                Vm.m[i][j] = v[3 * i + j];
            }
        icv_mat3 Ut = icv_m3_transpose(U);
        double det = icv_m3_det(icv_m3_mul(Vm, Ut));
        icv_mat3 D = icv_m3_diag(1, 1, det < 0 ? -1 : 1);
        *R = icv_m3_mul(icv_m3_mul(Vm, D), Ut);
    }
    *p = icv_v3_sub(xm, icv_m3_apply(*R, bm));
    return 0;
}

/* The largest distance between two of the template's markers. */
static double template_span(const analysis_template *t)
{
    int a = -1, b = -1;
    if (!farthest_pair(t->markers, NULL, t->n_markers, &a, &b))
        return 0;
    return icv_v3_norm(icv_v3_sub(t->markers[a], t->markers[b]));
}

/* A planar template's pose (x, y and the angle about z) from two of its markers: they
 * fix it when they stand apart in the plane. A quarter of the template's span at
 * least, so the angle's error is at most four times that of the markers farthest
 * apart: a pair a few millimetres apart on a rod would turn it by degrees on a
 * tenth of a millimetre of noise. */
#define PLANAR_PAIR_MIN_SPAN 0.25

static int planar_pair_determined(const analysis_template *t, const int *use)
{
    int a = -1, b = -1;
    for (int k = 0; k < t->n_markers; k++)
        if (use[k]) {
            if (a < 0)
                a = k;
            else
                b = k;
        }
    if (a < 0 || b < 0)
        return 0;
    double d = icv_v3_norm(icv_v3_sub(t->markers[a], t->markers[b]));
    return d > 0 && d >= PLANAR_PAIR_MIN_SPAN * template_span(t);
}

static int determined(const analysis_template *t, const int *use)
{
    int n = 0;
    for (int k = 0; k < t->n_markers; k++)
        n += use[k] != 0;
    if (t->collinear)
        return n >= 2;
    if (t->planar && n == 2)
        return planar_pair_determined(t, use);
    return n >= 3 && !points_collinear(t->markers, use, t->n_markers);
}

/* Whether marker k may be dropped as an outlier: what stays must fix the pose, and,
 * for a template not on one line, by three markers at least: two left are checked
 * by their distance alone, one number, which cannot tell which of three was off. */
static int may_drop(const analysis_template *t, int *use, int k)
{
    int n = 0;
    use[k] = 0;
    for (int j = 0; j < t->n_markers; j++)
        n += use[j] != 0;
    int ok = determined(t, use) && (t->collinear || n >= 3);
    use[k] = 1;
    return ok;
}

int analysis_pose_fit(const analysis_template *t, const icv_vec3 *points, const int *valid, const double *sigma,
                      const analysis_pose_params *params, analysis_pose *pose, icv_err *err)
{
    int n = t->n_markers;
    double w[ICV_MAX_MARKERS];
    memset(pose, 0, sizeof *pose);
    if (t->point) { /* one marker: the position; the attitude is not measured */
        if (!valid[0])
            return icv_err_set(err, ICV_ENOTFOUND, "the marker is not seen");
        pose->R = icv_m3_identity();
        pose->p = icv_v3_sub(points[0], t->markers[0]);
        pose->used[0] = 1;
        pose->n_used = 1;
        return 0;
    }
    for (int k = 0; k < n; k++) {
        pose->used[k] = valid[k] != 0;
        if (sigma && pose->used[k] && !(sigma[k] > 0))
            return icv_err_set(err, ICV_EINVAL, "marker %d: sigma must be > 0 (m), got %g", k, sigma[k]);
        w[k] = sigma ? 1.0 / (sigma[k] * sigma[k]) : 1.0;
    }
    if (!determined(t, pose->used))
        return icv_err_set(err, ICV_ENOTFOUND, "too few markers seen to fix the pose (%s)",
                           t->collinear ? "need 2"
                           : t->planar  ? "need 3 not on one line, or 2 a quarter of the body's span apart"
                                        : "need 3 not on one line");
    double limit = params && params->outlier_sigma > 0 ? params->outlier_sigma : 5.0;
    for (;;) {
        int status = fit_once(t, points, w, pose->used, &pose->R, &pose->p);
        if (status)
            return icv_err_set(err, ICV_ENUMERIC, "pose fit: the SVD of the markers' cross-covariance failed: %s",
                               gsl_strerror(status));
        int worst = -1;
        double worst_z = 0, ss = 0;
        int used = 0;
        for (int k = 0; k < n; k++) {
            if (!pose->used[k]) {
                pose->residual[k] = -1;
                pose->residual_v[k] = icv_v3(0, 0, 0);
                continue;
            }
            icv_vec3 pred = icv_v3_add(icv_m3_apply(pose->R, t->markers[k]), pose->p);
            pose->residual_v[k] = icv_v3_sub(points[k], pred);
            double r = icv_v3_norm(pose->residual_v[k]);
            pose->residual[k] = r;
            ss += r * r;
            used++;
            double z = sigma ? r / sigma[k] : 0; /* no rejection without sigmas */
            if (z > worst_z) {
                worst_z = z;
                worst = k;
            }
        }
        pose->n_used = used;
        pose->rms = sqrt(ss / used);
        if (worst < 0 || worst_z <= limit)
            break;
        if (!may_drop(t, pose->used, worst)) {
            /* two markers of a planar template are checked by their distance alone: a
               pair that misfits it is two wrong labels sooner than a pose (clutter
               taken for a pair of markers keeps its distance only roughly) */
            if (!t->collinear && used == 2)
                return icv_err_set(err, ICV_ENOTFOUND,
                                   "the two markers seen misfit the template's distance by %.1f sigma", worst_z);
            break; /* keep it: without it there is no pose */
        }
        pose->used[worst] = 0;
        pose->n_rejected++;
    }
    pose->singular = icv_euler213_from_matrix(pose->R, &pose->euler213);
    return 0;
}

int analysis_pose_fit_frame(const analysis_tracks *tr, int i, const analysis_template *t, double sigma,
                            const analysis_pose_params *params, analysis_pose *pose, icv_err *err)
{
    int valid[ICV_MAX_MARKERS];
    double sig[ICV_MAX_MARKERS];
    int n = tr->n_markers < ICV_MAX_MARKERS ? tr->n_markers : ICV_MAX_MARKERS;
    for (int k = 0; k < n; k++) {
        valid[k] = tr->seen[i * tr->n_markers + k];
        sig[k] = tr->sigma ? tr->sigma[i * tr->n_markers + k] : sigma;
    }
    return analysis_pose_fit(t, &tr->pos[i * tr->n_markers], valid, sigma > 0 ? sig : NULL, params, pose, err);
}
