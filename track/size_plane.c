/* size_plane.c: the plane of motion's tilt to the camera from the ball's apparent size
 * (one camera, motion_plane.scale: size; job/track_size_scale.c measures the sizes).
 *
 * A plane n.X = d seen by a pinhole: a point at normalised image position (x, y) lies at
 * depth z with 1/z = (n_x x + n_y y + n_z) / d, affine in (x, y). A ball of radius R
 * centred on the plane shows w = R / z there (its outline's radius across the line of
 * sight), so w = a + b x + c y with (b, c, a) = R n / d: the fit of the per-frame sizes
 * gives the plane's normal and distance, and with them the image-to-plane homography
 * (the rays met with that plane). A camera square to the plane has b = c = 0 and one
 * px-to-m scale; a phone looking down at a vertical plane has c < 0 (lower in the image
 * is further away).
 *
 * The fit is linear least squares (GSL), robust by one pass: frames beyond 3 robust
 * sigmas (a hand, a shadow on the outline) dropped and the fit repeated. Its covariance
 * is the residuals' variance (n - p degrees of freedom) times (X^T X)^-1: the frames'
 * common errors (the same edge bias in every frame) shift a alone and leave the slopes.
 * A slope is kept only where it differs from 0 beyond chance: by the larger of 3 and
 * Student's 99.5% quantile times its sigma and the outline's own bias across the image
 * (TILT_SYS) together. A ball that moves along one image direction (a vertical bounce),
 * or along one line at any angle (a puck sliding across a table: the positions'
 * smaller principal spread under a quarter of the larger), does not measure the slope
 * across it: the slopes are then fitted each alone and the more significant kept,
 * rather than a poorly known turn applied to every position. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "track/track_3d.h"

#define MIN_TILT_FRAMES 6 /* 3 degrees of freedom left for the residuals at the least */
/* rad: the outline's own bias across the image, beside the fit's sigma: the halfway
   crossing of a shaded ball moves with the background's level behind it (the synth
   ball square to the camera, 33 px across, over a dark wall and a lighter floor: a
   tilt of 0.53 +- 0.14 degrees fitted, its depth 0.2% larger 0.2 normalised lower).
   Under ~1.5 degrees a tilt changes the scale by under 1% across the image's half
   height (0.3 normalised): one scale then */
#define TILT_SYS (0.5 * M_PI / 180)

/* atan2(num, den) and its 1-sigma from the covariance of (num, den) (delta method) */
static void angle_sd(double num, double den, double vnn, double vdd, double vnd, double *ang, double *sd)
{
    double q = num * num + den * den;
    *ang = atan2(num, den);
    double gn = den / q, gd = -num / q;
    double v = gn * gn * vnn + gd * gd * vdd + 2 * gn * gd * vnd;
    *sd = v > 0 ? sqrt(v) : 0;
}

/* w = a + b x + c y with the slopes free where slopes[0] (b), slopes[1] (c), else 0; robust
 * by one pass. coef: (a, b, c); C: their covariance (0 for a fixed slope); *m: frames
 * used; *s: residual 1-sigma; *mad: its robust estimate. work: 3 n doubles. 0, or -1. */
static int fit_model(const double *x, const double *y, const double *w, long n, const int slopes[2], double *work,
                     double coef[3], double C[3][3], long *m, double *s, double *mad)
{
    size_t p = 1 + (size_t)(slopes[0] != 0) + (size_t)(slopes[1] != 0);
    gsl_matrix *X = gsl_matrix_alloc((size_t)n, p), *cov = gsl_matrix_alloc(p, p);
    gsl_vector *yv = gsl_vector_alloc((size_t)n), *c = gsl_vector_alloc(p);
    int rc = -1;
    if (!X || !cov || !yv || !c)
        goto done;
    double *use = work + 2 * n; /* 1: the frame is in the fit */
    for (long i = 0; i < n; i++)
        use[i] = 1;
    for (int pass = 0; pass < 2; pass++) {
        long k = 0;
        for (long i = 0; i < n; i++)
            k += use[i] != 0;
        if (k < MIN_TILT_FRAMES)
            goto done;
        *m = k;
        k = 0;
        for (long i = 0; i < n; i++) {
            if (!use[i])
                continue;
            size_t j = 0;
            gsl_matrix_set(X, (size_t)k, j++, 1);
            if (slopes[0])
                gsl_matrix_set(X, (size_t)k, j++, x[i]);
            if (slopes[1])
                gsl_matrix_set(X, (size_t)k, j++, y[i]);
            gsl_vector_set(yv, (size_t)k, w[i]);
            k++;
        }
        gsl_matrix_view Xm = gsl_matrix_submatrix(X, 0, 0, (size_t)k, p);
        gsl_vector_view ym = gsl_vector_subvector(yv, 0, (size_t)k);
        gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)k, p);
        double chisq;
        int bad = !ws || gsl_multifit_linear(&Xm.matrix, &ym.vector, c, cov, &chisq, ws);
        if (ws)
            gsl_multifit_linear_free(ws);
        if (bad)
            goto done;
        size_t j = 0;
        coef[0] = gsl_vector_get(c, j++);
        coef[1] = slopes[0] ? gsl_vector_get(c, j++) : 0;
        coef[2] = slopes[1] ? gsl_vector_get(c, j++) : 0;
        /* the residuals: the robust sigma (MAD) for the cut */
        long q = 0;
        for (long i = 0; i < n; i++) {
            work[i] = fabs(w[i] - (coef[0] + coef[1] * x[i] + coef[2] * y[i]));
            if (use[i])
                work[n + q++] = work[i];
        }
        gsl_sort(work + n, 1, (size_t)q);
        *mad = 1.4826 * gsl_stats_median_from_sorted_data(work + n, 1, (size_t)q);
        *s = sqrt(chisq / (double)(k - (long)p));
        if (pass == 0)
            for (long i = 0; i < n; i++)
                use[i] = work[i] <= 3 * *mad + 1e-15;
    }
    /* gsl_multifit_linear's cov is already s^2 (X^T X)^-1 */
    int idx[3] = {0, slopes[0] ? 1 : -1, slopes[1] ? 1 + (slopes[0] != 0) : -1};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[i][j] = idx[i] >= 0 && idx[j] >= 0 ? gsl_matrix_get(cov, (size_t)idx[i], (size_t)idx[j]) : 0;
    rc = coef[0] > 0 ? 0 : -1;
done:
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(yv);
    gsl_vector_free(c);
    return rc;
}

/* 1 where slope k (0: b, 1: c) is beyond chance and the outline's bias */
static int slope_kept(const double coef[3], double C[3][3], int k, long dof)
{
    double sd = sqrt(C[k + 1][k + 1]), sys = coef[0] * tan(TILT_SYS);
    double t = dof > 0 ? gsl_cdf_tdist_Pinv(0.995, (double)dof) : INFINITY;
    return fabs(coef[k + 1]) > fmax(3, t) * hypot(sd, sys);
}

/* the plane's angles and their sigmas from the fit (a, b, c) and its covariance */
static void angles(const double coef[3], double C[3][3], track_size_plane *out)
{
    angle_sd(-coef[2], coef[0], C[2][2], C[0][0], -C[2][0], &out->pitch, &out->pitch_sd);
    angle_sd(-coef[1], coef[0], C[1][1], C[0][0], -C[1][0], &out->yaw, &out->yaw_sd);
    double h = hypot(coef[1], coef[2]), a = coef[0];
    out->tilt = atan2(h, a);
    if (h > 0) { /* d tilt / d(a, b, c) */
        double q2 = a * a + h * h, g[3] = {-h / q2, a * coef[1] / (h * q2), a * coef[2] / (h * q2)}, v = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                v += g[i] * g[j] * C[i][j];
        out->tilt_sd = v > 0 ? sqrt(v) : 0;
    } else {
        out->tilt_sd = hypot(out->pitch_sd, out->yaw_sd);
    }
    /* the outline's bias across the image beside the fit's own sigma */
    out->pitch_sd = hypot(out->pitch_sd, TILT_SYS);
    out->yaw_sd = hypot(out->yaw_sd, TILT_SYS);
    out->tilt_sd = hypot(out->tilt_sd, TILT_SYS);
}

/* 1 when the positions' smaller principal spread is under a quarter of the larger: they
 * lie along one line, (*ct, *st) its direction (a slope across it has under a quarter
 * of the leverage along it) */
static int positions_on_a_line(const double *x, const double *y, long n, double *ct, double *st)
{
    double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;
    for (long i = 0; i < n; i++)
        mx += x[i] / n, my += y[i] / n;
    for (long i = 0; i < n; i++)
        sxx += (x[i] - mx) * (x[i] - mx), syy += (y[i] - my) * (y[i] - my), sxy += (x[i] - mx) * (y[i] - my);
    double tr = sxx + syy, det = sxx * syy - sxy * sxy, d = sqrt(fmax(0, 0.25 * tr * tr - det));
    double big = 0.5 * tr + d, small = 0.5 * tr - d, th = 0.5 * atan2(2 * sxy, sxx - syy);
    *ct = cos(th), *st = sin(th);
    return small < 0.0625 * big; /* spreads (square roots) under 1:4 */
}

/* w = a + b' p, p = x ct + y st along the positions' line; (b, c) = b' (ct, st) and the
 * covariance turned alike. The slope is kept as slope_kept says. 0, or -1. */
static int fit_along_line(const double *x, const double *y, const double *w, long n, double *work, double ct,
                          double st, track_size_plane *out)
{
    double *pq = malloc(sizeof *pq * 2 * (size_t)n);
    if (!pq)
        return -1;
    for (long i = 0; i < n; i++)
        pq[i] = x[i] * ct + y[i] * st, pq[n + i] = -x[i] * st + y[i] * ct;
    double c1[3], C1[3][3], s, mad;
    long m;
    int along[2] = {1, 0};
    int rc = fit_model(pq, pq + n, w, n, along, work, c1, C1, &m, &s, &mad);
    free(pq);
    if (rc)
        return -1;
    int keep = slope_kept(c1, C1, 0, m - 2);
    double J[3][3] = {{1, 0, 0}, {0, ct, -st}, {0, st, ct}}, coef[3], C[3][3];
    for (int i = 0; i < 3; i++) {
        coef[i] = J[i][0] * c1[0] + J[i][1] * c1[1] + J[i][2] * c1[2];
        for (int j = 0; j < 3; j++) {
            C[i][j] = 0;
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++)
                    C[i][j] += J[i][k] * C1[k][l] * J[j][l];
        }
    }
    angles(coef, C, out);
    out->n_used = m, out->resid_sd = s, out->resid_mad = mad, out->fitted = 1;
    out->significant = keep;
    out->a = coef[0], out->b = keep ? coef[1] : 0, out->c = keep ? coef[2] : 0;
    memcpy(out->cov, C, sizeof C);
    out->free_b = out->free_c = keep; /* one slope along the line: both components */
    return 0;
}

int track_size_plane_fit(const double *x, const double *y, const double *w, long n, double *work, track_size_plane *out)
{
    memset(out, 0, sizeof *out);
    if (n < MIN_TILT_FRAMES)
        return -1;
    double coef[3], C[3][3], s, mad;
    long m;
    int both[2] = {1, 1};
    if (fit_model(x, y, w, n, both, work, coef, C, &m, &s, &mad))
        return -1;
    angles(coef, C, out);
    out->n_used = m;
    out->resid_sd = s;
    out->resid_mad = mad;
    out->fitted = 1;
    /* positions along one line at any angle (a puck sliding across a table, then at
       rest) do not measure the slope across it, however small the residuals: a size
       difference between frames along the line (blur while it moves, the background's
       level behind the outline) is read as a steep tilt across it, from offsets of a
       pixel. The slope along the line alone then */
    double ct, st;
    if (positions_on_a_line(x, y, n, &ct, &st))
        return fit_along_line(x, y, w, n, work, ct, st, out);
    /* the slopes the frames measure: both; else each alone (a ball moving along one
       image direction measures only the slope along it: the full fit's correlation
       then blurs both), the more significant kept; else none */
    int keep[2] = {slope_kept(coef, C, 0, m - 3), slope_kept(coef, C, 1, m - 3)};
    if (!(keep[0] && keep[1])) {
        keep[0] = keep[1] = 0;
        double c1[2][3], C1[2][3][3], s1[2], mad1[2], t[2] = {0, 0};
        long m1[2];
        track_size_plane one[2];
        for (int k = 0; k < 2; k++) {
            int sl[2] = {k == 0, k == 1};
            memset(&one[k], 0, sizeof one[k]);
            if (fit_model(x, y, w, n, sl, work, c1[k], C1[k], &m1[k], &s1[k], &mad1[k]) != 0) {
                one[k].yaw = one[k].yaw_sd = one[k].pitch = one[k].pitch_sd = NAN; /* not measured */
                continue;
            }
            angles(c1[k], C1[k], &one[k]);
            if (slope_kept(c1[k], C1[k], k, m1[k] - 2))
                t[k] = fabs(c1[k][k + 1]) / sqrt(C1[k][k + 1][k + 1]);
        }
        /* reported when none is kept: each angle from its own one-slope fit */
        out->yaw = one[0].yaw, out->yaw_sd = one[0].yaw_sd;
        out->pitch = one[1].pitch, out->pitch_sd = one[1].pitch_sd;
        out->tilt = atan(hypot(tan(out->pitch), tan(out->yaw)));
        out->tilt_sd = hypot(out->pitch_sd, out->yaw_sd);
        int k = t[1] >= t[0] ? 1 : 0;
        if (t[k] > 0) {
            keep[k] = 1;
            memcpy(coef, c1[k], sizeof c1[k]);
            memcpy(C, C1[k], sizeof C1[k]);
            out->resid_sd = s1[k], out->resid_mad = mad1[k], out->n_used = m1[k];
        }
    }
    out->significant = keep[0] || keep[1];
    out->a = coef[0], out->b = keep[0] ? coef[1] : 0, out->c = keep[1] ? coef[2] : 0;
    memcpy(out->cov, C, sizeof C);
    out->free_b = keep[0], out->free_c = keep[1];
    if (out->significant) /* the angles of the plane applied */
        angles(coef, C, out);
    return 0;
}

int track_size_plane_with_normal(const double *x, const double *y, const double *w, long n, icv_vec3 normal,
                                 double pitch, double pitch_sd, double yaw_sd, double *work, track_size_plane *out)
{
    memset(out, 0, sizeof *out);
    long m = 0;
    for (long i = 0; i < n; i++) {
        double den = normal.z + normal.x * x[i] + normal.y * y[i];
        if (den > 0 && w[i] > 0)
            work[m++] = w[i] / den;
    }
    if (m < 1)
        return -1;
    gsl_sort(work, 1, (size_t)m);
    double k = gsl_stats_median_from_sorted_data(work, 1, (size_t)m);
    out->a = k * normal.z, out->b = k * normal.x, out->c = k * normal.y;
    for (long i = 0; i < n; i++)
        work[n + i] = fabs(w[i] - (out->a + out->b * x[i] + out->c * y[i]));
    gsl_sort(work + n, 1, (size_t)n);
    out->resid_mad = 1.4826 * gsl_stats_median_from_sorted_data(work + n, 1, (size_t)n);
    out->resid_sd = out->resid_mad;
    out->fitted = out->significant = 1;
    out->n_used = m;
    out->pitch = pitch, out->pitch_sd = pitch_sd;
    out->yaw = atan2(-normal.x, normal.z), out->yaw_sd = yaw_sd;
    out->tilt = acos(fmin(1, normal.z));
    out->tilt_sd = hypot(pitch_sd, yaw_sd);
    return 0;
}
