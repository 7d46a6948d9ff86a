/* gravity_scale.c: one camera with `motion_plane: {scale: gravity}`:
 * footage with no length in view, scaled by the free flight.
 *
 * The track stage meets the rays with a plane facing the camera at a provisional depth
 * (TRACK_GRAVITY_DEPTH0; job/track_open.c's job_track_calibration_read), so positions come out in
 * "provisional metres", all off by one unknown factor. Before the template check and
 * the marker identity need metres, this file finds that factor from the motion itself:
 * the body's marker centroid (every frame where all body.markers are seen) is cut into
 * flight phases at its kinks (impacts), each phase is a parabola p0 + v t + a t^2 / 2
 * with one acceleration a shared by all phases (GSL linear least squares per axis), and
 * factor = |g| / |a| with |g| the in-plane part of the experiment's gravity (9.81 with
 * gravity: auto). The plane's depth, the surface frame's origin and every candidate
 * position are then multiplied by it, and the job continues as with
 * motion_plane.scale.points_px. The track stage owns this scale: tracks3d.csv is in
 * metres, and the analysis never rescales (analysis_scale_from_gravity is for tracks
 * made elsewhere, in other units).
 *
 * Why the centroid: with the markers' centroid at the centre of mass (a ball's one
 * marker at its centre, a rod's symmetric bands) it falls exactly as the centre of mass
 * whatever the spin; a centroid c off the centre of mass adds omega^2 |c| to the
 * acceleration (a relative bias omega^2 |c| / g on the scale, logged). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>

#include "track/track_3d.h"

#define FALL_MAX_OFF_DEG 30.0 /* deg: a flight's acceleration from gravity's direction (a
                                   camera rolled by this much is a level error to fix first) */
#define MIN_PHASE_FRAMES 6   /* a parabola's 3 parameters per axis and 3 degrees of freedom */
#define KINK_SIGMAS 6.0      /* a second difference this far from the median is an impact */
#define STATIC_EXTENT 20.0   /* a phase moving less than this many residual sigmas is held still */
#define CHI2_2DOF_999 13.8   /* 99.9% point of chi-square with 2 degrees of freedom */

typedef struct {
    long f0, f1; /* frames, inclusive */
    int on;
} phase;

static double median(double *x, size_t n)
{
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

/* Joint fit of phases ph[0..np) (those with on set), one axis at a time: p(t) =
 * p0_k + v_k (t - tm_k) + a (t - tm_k)^2 / 2. One phase alone when only is >= 0.
 * a, cov_a: the shared acceleration and its 2x2 covariance (residual-scaled);
 * *s: the residual 1-sigma (provisional m). */
static int fit_phases(const double *t, const double *px, const double *py, const phase *ph, int np, int only,
                      double a[2], double cov_a[2][2], double *s, long *n_out, double *resid)
{
    /* Joint fits weigh each phase by its own residual variance (fitted alone first): a
       phase of blurred or hand-held frames is noisier, and with equal weights its few
       frames pulled the shared acceleration (the green ball: the release, 8x the
       residual of the clean flight, moved the check from 9.06 to 8.52 m/s^2) */
    double wph[np > 0 ? np : 1];
    for (int i = 0; i < np; i++) {
        wph[i] = 1;
        if (only >= 0 || !ph[i].on)
            continue;
        double ai[2], ci[2][2], si;
        long ni;
        if (fit_phases(t, px, py, ph, np, i, ai, ci, &si, &ni, NULL) == 0 && si > 0)
            wph[i] = 1 / (si * si);
    }
    long n = 0;
    int k = 0;
    for (int i = 0; i < np; i++)
        if (only < 0 ? ph[i].on : i == only)
            n += ph[i].f1 - ph[i].f0 + 1, k++;
    size_t p = (size_t)(2 * k + 1);
    if (k == 0 || n < (long)p + 1)
        return -1;
    gsl_matrix *X = gsl_matrix_calloc((size_t)n, p), *cov = gsl_matrix_alloc(p, p);
    gsl_vector *y = gsl_vector_alloc((size_t)n), *c = gsl_vector_alloc(p), *wt = gsl_vector_alloc((size_t)n);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc((size_t)n, p);
    int rc = -1;
    double chi_sum = 0, lag1 = 0, ss_sum = 0;
    if (!X || !cov || !y || !c || !wt || !w)
        goto done;
    for (int axis = 0; axis < 2; axis++) {
        long r = 0;
        int j = 0;
        for (int i = 0; i < np; i++) {
            if (!(only < 0 ? ph[i].on : i == only))
                continue;
            double tm = 0.5 * (t[ph[i].f0] + t[ph[i].f1]);
            for (long f = ph[i].f0; f <= ph[i].f1; f++, r++) {
                double dt = t[f] - tm;
                gsl_matrix_set(X, (size_t)r, (size_t)(2 * j), 1);
                gsl_matrix_set(X, (size_t)r, (size_t)(2 * j + 1), dt);
                gsl_matrix_set(X, (size_t)r, p - 1, 0.5 * dt * dt);
                gsl_vector_set(y, (size_t)r, axis ? py[f] : px[f]);
                gsl_vector_set(wt, (size_t)r, wph[i]);
            }
            j++;
        }
        double chisq;
        if (gsl_multifit_wlinear(X, wt, y, c, cov, &chisq, w))
            goto done;
        /* residuals (resid[2 f + axis]: measured minus fitted) and their lag-1 sums
           inside each phase */
        r = 0;
        for (int i = 0; i < np; i++) {
            if (!(only < 0 ? ph[i].on : i == only))
                continue;
            double prev = 0, sw = sqrt(wph[i]);
            for (long f = ph[i].f0; f <= ph[i].f1; f++, r++) {
                gsl_vector_const_view row = gsl_matrix_const_row(X, (size_t)r);
                double fit;
                gsl_blas_ddot(&row.vector, c, &fit);
                double e = gsl_vector_get(y, (size_t)r) - fit;
                if (resid)
                    resid[2 * f + axis] = e;
                ss_sum += e * e;
                if (f > ph[i].f0)
                    lag1 += e * sw * prev;
                prev = e * sw;
            }
        }
        a[axis] = gsl_vector_get(c, p - 1);
        /* wlinear's cov is (X^T W X)^-1: scaled by this axis' weighted residual variance
           (1 when the phases' variances are right) */
        cov_a[axis][axis] = gsl_matrix_get(cov, p - 1, p - 1) * chisq / (double)(n - (long)p);
        chi_sum += chisq;
    }
    /* the centroids' errors are correlated from frame to frame (the codec, the blur, a
       slowly changing model error): fewer independent points than frames, by
       (1 + rho) / (1 - rho) for the residuals' lag-1 correlation rho */
    double rho = chi_sum > 0 ? lag1 / chi_sum : 0;
    if (rho > 0) {
        double inflate = (1 + fmin(rho, 0.9)) / (1 - fmin(rho, 0.9));
        cov_a[0][0] *= inflate;
        cov_a[1][1] *= inflate;
    }
    cov_a[0][1] = cov_a[1][0] = 0; /* the axes are fitted apart; their noise is independent */
    *s = sqrt(ss_sum / (2.0 * (double)(n - (long)p)));
    *n_out = n;
    rc = 0;
done:
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(y);
    gsl_vector_free(c);
    gsl_vector_free(wt);
    if (w)
        gsl_multifit_linear_free(w);
    return rc;
}

/* Finds the phases of the centroid track: runs of frames with every marker seen, cut
 * where the second difference (an acceleration) is an outlier (an impact), each such
 * frame and its neighbours left out. work: 4 F doubles. Returns the number of phases. */
static int find_phases(const double *t, const double *px, const double *py, const int *ok, long F, phase *ph,
                       int max_ph, double *work)
{
    double *acc = work, *col = work + 2 * F; /* acc[2 f + axis]: NaN where not computable */
    long m = 0;
    for (long f = 0; f < F; f++) {
        acc[2 * f] = acc[2 * f + 1] = NAN;
        if (f < 1 || f + 1 >= F || !ok[f - 1] || !ok[f] || !ok[f + 1])
            continue;
        double h = t[f + 1] - t[f - 1];
        for (int axis = 0; axis < 2; axis++) {
            const double *p = axis ? py : px;
            acc[2 * f + axis] = 2 * ((p[f + 1] - p[f]) / (t[f + 1] - t[f]) - (p[f] - p[f - 1]) / (t[f] - t[f - 1])) / h;
        }
        m++;
    }
    if (m < 3)
        return 0;
    double med[2], sig[2];
    for (int axis = 0; axis < 2; axis++) {
        long n = 0;
        for (long f = 0; f < F; f++)
            if (!isnan(acc[2 * f + axis]))
                col[n++] = acc[2 * f + axis];
        med[axis] = median(col, (size_t)n);
        for (long i = 0; i < n; i++)
            col[i] = fabs(col[i] - med[axis]);
        /* MAD -> sigma for Gaussian noise; a floor for noiseless input */
        sig[axis] = fmax(1.4826 * median(col, (size_t)n), 1e-9);
    }
    int np = 0;
    long f0 = -1;
    for (long f = 0; f <= F; f++) {
        int keep = f < F && ok[f];
        for (long g = f - 1; g <= f + 1 && keep; g++) /* no impact at f or next to it */
            if (g >= 0 && g < F && !isnan(acc[2 * g]) &&
                (fabs(acc[2 * g] - med[0]) > KINK_SIGMAS * sig[0] || fabs(acc[2 * g + 1] - med[1]) > KINK_SIGMAS * sig[1]))
                keep = 0;
        if (keep && f0 < 0)
            f0 = f;
        if (!keep && f0 >= 0) {
            if (f - f0 >= MIN_PHASE_FRAMES && np < max_ph)
                ph[np++] = (phase){f0, f - 1, 1};
            f0 = -1;
        }
    }
    return np;
}

void track_plane_scale(track_calibration *cal, track_candidate *cand, const int *cand_n, long F, double K)
{
    cal->plane.t = icv_v3_scale(cal->plane.t, K);
    cal->surf.t = icv_v3_scale(cal->surf.t, K);
    for (long f = 0; f < F; f++)
        for (int i = 0; i < cand_n[f]; i++) {
            track_candidate *c = &cand[f * TRACK_MAX_CAND + i];
            c->X = icv_v3_scale(c->X, K);
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++)
                    c->cov[r][q] *= K * K;
        }
}

/* apply 1: scale the plane and the candidates, kept in cal->gravity; 0: only measure,
 * into cal->gravity_check (another scale source was applied: the factor is then ~1) */
static int gravity_scale(const icv_experiment *exp, track_calibration *cal, track_candidate *cand, const int *cand_n,
                         long F, const double *t_frame, int apply, icv_err *err)
{
    int nm = exp->n_markers, rc = 0;
    /* a slide or a tilt accelerates at g (sin - mu cos), not g: no scale in it */
    if (exp->kind[0] && strcmp(exp->kind, "drop") != 0)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: motion_plane.scale: gravity: a %s has no free flight to scale from: give "
                           "motion_plane.scale.points_px and distance, or motion_plane.images",
                           exp->path, exp->kind);
    /* a table seen from above: gravity square to the plane of motion, nothing falls in it */
    if (!exp->gravity_auto && !(hypot(exp->gravity.x, exp->gravity.y) > 0.5 * icv_v3_norm(exp->gravity)))
        return icv_err_set(err, ICV_EINVAL,
                           "%s: motion_plane.scale: gravity: gravity is square to the plane of motion (a table seen "
                           "from above): no fall to scale from; give motion_plane.scale.points_px and distance, or "
                           "motion_plane.scale.size",
                           exp->path);
    double *buf = malloc(sizeof *buf * (size_t)(F + 1) * 7);
    int *ok = calloc((size_t)F + 1, sizeof *ok);
    phase *ph = malloc(sizeof *ph * (size_t)(F / MIN_PHASE_FRAMES + 2));
    if (!buf || !ok || !ph) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto done;
    }
    double *px = buf, *py = buf + F + 1, *work = buf + 2 * (F + 1), *work2 = buf + 6 * (F + 1);
    long n_ok = 0;
    for (long f = 0; f < F; f++) {
        if (cand_n[f] != nm)
            continue;
        double sx = 0, sy = 0;
        for (int i = 0; i < nm; i++)
            sx += cand[f * TRACK_MAX_CAND + i].X.x, sy += cand[f * TRACK_MAX_CAND + i].X.y;
        px[f] = sx / nm, py[f] = sy / nm;
        ok[f] = 1;
        n_ok++;
    }
    int np = find_phases(t_frame, px, py, ok, F, ph, (int)(F / MIN_PHASE_FRAMES + 1), work);
    double a[2] = {0, 0}, cov_a[2][2], s = 0;
    long n_used = 0;
    int n_on = np;
    if (np > 0 && fit_phases(t_frame, px, py, ph, np, -1, a, cov_a, &s, &n_used, NULL) == 0) {
        /* the ends of a phase that are not free flight (held before the release, the
           frames next to an undetected contact): the end frame whose residual is
           beyond 5 robust sigmas trimmed, one at a time, while a phase keeps enough */
        for (int it = 0; it < F; it++) {
            if (fit_phases(t_frame, px, py, ph, np, -1, a, cov_a, &s, &n_used, work) != 0)
                break;
            long m = 0;
            for (int k = 0; k < np; k++)
                for (long f = ph[k].f0; ph[k].on && f <= ph[k].f1; f++)
                    work2[m++] = hypot(work[2 * f], work[2 * f + 1]);
            double sr = median(work2, (size_t)m) / 1.1774; /* a 2D Gaussian radius: median 1.1774 sigma */
            int wk = -1, wend = 0;
            double wr = 5 * sr;
            for (int k = 0; k < np; k++) {
                if (!ph[k].on || ph[k].f1 - ph[k].f0 + 1 <= MIN_PHASE_FRAMES)
                    continue;
                for (int e = 0; e < 2; e++) {
                    long f = e ? ph[k].f1 : ph[k].f0;
                    double r = hypot(work[2 * f], work[2 * f + 1]);
                    if (r > wr)
                        wr = r, wk = k, wend = e;
                }
            }
            if (wk < 0)
                break;
            if (wend)
                ph[wk].f1--;
            else
                ph[wk].f0++;
        }
        /* a body held still is not in free flight: a phase that moves less than the noise */
        for (int k = 0; k < np; k++) {
            double ext = 0;
            for (long f = ph[k].f0; f <= ph[k].f1; f++)
                ext = fmax(ext, hypot(px[f] - px[ph[k].f0], py[f] - py[ph[k].f0]));
            if (ext < STATIC_EXTENT * s && n_on > 1) {
                ph[k].on = 0, n_on--;
                icv_info("%s: motion_plane.scale: gravity: frames %ld-%ld left out (the body does not move)",
                         exp->path, ph[k].f0, ph[k].f1);
            }
        }
        /* a phase whose own acceleration disagrees with the others' is not free flight
           (rolling, held, a bounce not seen): the worst left out while any is beyond 99.9% */
        while (n_on > 1 && fit_phases(t_frame, px, py, ph, np, -1, a, cov_a, &s, &n_used, NULL) == 0) {
            int worst = -1;
            double wchi = CHI2_2DOF_999;
            for (int k = 0; k < np; k++) {
                double ak[2], ck[2][2], sk;
                long nk;
                if (!ph[k].on || fit_phases(t_frame, px, py, ph, np, k, ak, ck, &sk, &nk, NULL))
                    continue;
                /* the phase's own covariance, from its own residuals (the joint fit weighs
                   it by them too) */
                double vx = ck[0][0], vy = ck[1][1];
                double chi = (ak[0] - a[0]) * (ak[0] - a[0]) / vx + (ak[1] - a[1]) * (ak[1] - a[1]) / vy;
                if (chi > wchi)
                    wchi = chi, worst = k;
            }
            if (worst < 0)
                break;
            ph[worst].on = 0, n_on--;
            icv_info("%s: motion_plane.scale: gravity: frames %ld-%ld left out (their acceleration disagrees with "
                     "the other flight phases: chi-square %.1f)",
                     exp->path, ph[worst].f0, ph[worst].f1, wchi);
        }
    }
    if (np == 0 || n_on == 0 || fit_phases(t_frame, px, py, ph, np, -1, a, cov_a, &s, &n_used, NULL) != 0) {
        long longest = 0, run = 0;
        for (long f = 0; f < F; f++)
            run = ok[f] ? run + 1 : 0, longest = run > longest ? run : longest;
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "%s: motion_plane.scale: gravity: no free flight of %d frames or more to scale from (%ld of "
                         "%ld frames show all %d markers; longest run %ld): give motion_plane.scale.points_px and "
                         "distance, or motion_plane.images",
                         exp->path, MIN_PHASE_FRAMES, n_ok, F, nm, longest);
        goto done;
    }
    for (int k = 0; k < np; k++) {
        double ak[2], ck[2][2], sk;
        long nk;
        if (fit_phases(t_frame, px, py, ph, np, k, ak, ck, &sk, &nk, NULL) == 0)
            icv_debug("%s: motion_plane.scale: gravity: phase frames %ld-%ld%s: acceleration %.4g (provisional units), "
                      "residual %.3g",
                      exp->path, ph[k].f0, ph[k].f1, ph[k].on ? "" : " (left out)", hypot(ak[0], ak[1]), sk);
    }
    double an = hypot(a[0], a[1]);
    double sd_an = an > 0 ? sqrt(a[0] * a[0] * cov_a[0][0] + a[1] * a[1] * cov_a[1][1]) / an : INFINITY;
    if (!(an > 5 * sd_an)) {
        rc = icv_err_set(err, ICV_EINVAL,
                         "%s: motion_plane.scale: gravity: the tracks do not fall measurably (acceleration %.3g +- "
                         "%.2g in provisional units over %ld frames): give motion_plane.scale.points_px and distance",
                         exp->path, an, sd_an, n_used);
        goto done;
    }
    /* a fall is along gravity (surface frame, y up: -y when gravity is auto): an
       acceleration far from it is a push or friction (a cart pulled along its track, a
       puck slowing), not a free flight, and says nothing of the scale */
    double gx = exp->gravity_auto ? 0 : exp->gravity.x, gy = exp->gravity_auto ? -1 : exp->gravity.y;
    double off_deg = 180 / M_PI * acos(fmax(-1, fmin(1, (a[0] * gx + a[1] * gy) / (an * hypot(gx, gy)))));
    if (!(off_deg <= FALL_MAX_OFF_DEG)) {
        rc = icv_err_set(err, ICV_EINVAL,
                         "%s: motion_plane.scale: gravity: the tracks accelerate %.0f degrees away from gravity (%.3g "
                         "in provisional units over %ld frames): no free flight (a push, a pull or friction along a "
                         "track); give motion_plane.scale.points_px and distance",
                         exp->path, off_deg, an, n_used);
        goto done;
    }
    double g = exp->gravity_auto ? 9.81 : hypot(exp->gravity.x, exp->gravity.y);
    /* the factor puts the markers' own plane (their mean body z, along the surface z)
       at its true depth; the motion plane lies that far behind or in front of it */
    double k = g / an, zbar = 0;
    for (int j = 0; j < nm; j++)
        zbar += exp->markers[j].z / nm;
    double depth0 = cal->plane.t.z, depth = k * depth0 - zbar * cal->surf.R.m[2][2];
    double K = depth / depth0;
    if (!(depth > 0)) {
        rc = icv_err_set(err, ICV_EINVAL, "%s: motion_plane.scale: gravity: the plane's depth comes out %.4g m",
                         exp->path, depth);
        goto done;
    }
    if (apply)
        track_plane_scale(cal, cand, cand_n, F, K);
    track_gravity_scale *gs = apply ? &cal->gravity : &cal->gravity_check;
    gs->found = 1;
    gs->factor = K;
    gs->factor_sd = k * sd_an / an;
    gs->depth_m = depth;
    gs->g_used = g;
    gs->n_phases = n_on;
    gs->n_frames = n_used;
    gs->rms_m = s * k;
    gs->dir[0] = a[0] / an, gs->dir[1] = a[1] / an;
    if (!apply)
        goto done;
    icv_info("%s: motion_plane.scale: gravity: plane facing the camera at %.4f m (+- %.2g), from %d flight phase(s) "
             "over %ld frames falling at %.4g m/s^2 (residual %.3g mm)",
             exp->path, depth, gs->factor_sd * depth0, n_on, n_used, g, 1e3 * gs->rms_m);
    if (gs->factor_sd > 0.01 * k)
        icv_warn("%s: motion_plane.scale: gravity: the scale is uncertain by %.1f%% (1 sigma): longer flights, "
                 "more frames or a length in view (motion_plane.scale.points_px) would do better",
                 exp->path, 100 * gs->factor_sd / k);
done:
    free(buf);
    free(ok);
    free(ph);
    return rc;
}

int track_gravity_scale_apply(const icv_experiment *exp, track_calibration *cal, track_candidate *cand,
                              const int *cand_n, long F, const double *t_frame, icv_err *err)
{
    return gravity_scale(exp, cal, cand, cand_n, F, t_frame, 1, err);
}

int track_gravity_scale_check(const icv_experiment *exp, track_calibration *cal, track_candidate *cand,
                              const int *cand_n, long F, const double *t_frame, icv_err *err)
{
    return gravity_scale(exp, cal, cand, cand_n, F, t_frame, 0, err);
}

void track_gravity_scale_json(const track_calibration *cal, json_t *root)
{
    const track_gravity_scale *gs = &cal->gravity, *gc = &cal->gravity_check;
    if (gs->found)
        json_object_set_new(root, "scale_from_gravity",
                            json_pack("{s:f, s:f, s:f, s:f, s:i, s:I, s:f}", "factor", gs->factor, "factor_sd",
                                      gs->factor_sd, "plane_depth_m", gs->depth_m, "g_m_s2", gs->g_used, "phases",
                                      gs->n_phases, "frames", (json_int_t)gs->n_frames, "residual_rms_m", gs->rms_m));
    if (gc->found) /* measured beside another scale source: 1 when they agree */
        json_object_set_new(root, "scale_check_gravity",
                            json_pack("{s:f, s:f, s:i, s:I}", "factor", gc->factor, "factor_sd", gc->factor_sd,
                                      "phases", gc->n_phases, "frames", (json_int_t)gc->n_frames));
}

void track_gravity_scale_compare(const icv_experiment *exp, const track_calibration *cal, const char *source,
                                 double source_rel_sd, const char *causes)
{
    const track_gravity_scale *gc = &cal->gravity_check;
    if (!gc->found || !(gc->factor > 0))
        return;
    /* positions are in metres from the other source: the flight's factor is 1 when both
       agree */
    double rel = gc->factor - 1, sd = hypot(gc->factor_sd, source_rel_sd);
    double a = gc->g_used / gc->factor, a_sd = a * gc->factor_sd / gc->factor;
    icv_info("%s: motion_plane.scale: the free flight falls at %.3f +- %.2g m/s^2 at the scale of %s (gravity's "
             "scale %+.1f%% +- %.1f%% from it)",
             exp->path, a, a_sd, source, 100 * rel, 100 * sd);
    if (fabs(rel) > 3 * sd || fabs(rel) > 0.10)
        icv_warn("%s: motion_plane.scale: %s and gravity disagree: at that scale the flight falls at %.3f +- %.2g "
                 "m/s^2, not %.2f (%+.1f%%, %.1f sigma): %s; the scale of %s is kept",
                 exp->path, source, a, a_sd, gc->g_used, 100 * (a / gc->g_used - 1), fabs(rel) / (sd > 0 ? sd : 1),
                 causes, source);
}
