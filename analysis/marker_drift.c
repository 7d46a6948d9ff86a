/* marker_drift.c: the tracks' slow error that a side's residuals do not show.
 *
 * A 2D centroid bias that changes with the body's attitude and place in the
 * image (a marker partly hidden by the body, the tracker's correction of it)
 * drifts over tens to hundreds of frames: over a side's window it is nearly a
 * straight line in time, so the side's straight line given g takes it up as a
 * velocity error and leaves no residual. The markers do not drift alike,
 * though: the pose fit's per-marker residuals (each marker against its place
 * on the fitted template) keep the part of the drift that differs between
 * markers, and there it is a slope over the window. Its size, beyond what the
 * residuals' own noise gives a slope, is taken as the size of the common drift
 * the centre takes up: the variance added to the side's v per axis is the mean
 * over the markers of (slope^2 - its noise variance), at least 0. That the two
 * are of one size is measured against synth's truth, not derived
 * (docs/analysis.md, "Session 22"): it holds over windows of tens of frames,
 * not over whole flights of hundreds, where the common drift outgrows it. */
#include <math.h>

#include "analysis/analysis_internal.h"

/* the least-squares slope of y over t and its variance under the scatter about
 * that line, widened by the scatter's lag-1 correlation (an AR(1) series has
 * fewer independent frames) */
static void slope_and_var(const double *t, const double *y, int n, double *b, double *var)
{
    double mt = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        mt += t[i];
        my += y[i];
    }
    mt /= n;
    my /= n;
    for (int i = 0; i < n; i++) {
        sxx += (t[i] - mt) * (t[i] - mt);
        sxy += (t[i] - mt) * (y[i] - my);
    }
    *b = sxx > 0 ? sxy / sxx : 0;
    double ss = 0, lag = 0, prev = 0;
    for (int i = 0; i < n; i++) {
        double r = y[i] - my - *b * (t[i] - mt);
        ss += r * r;
        if (i)
            lag += r * prev;
        prev = r;
    }
    double rho = ss > 0 ? lag / ss : 0;
    rho = rho < 0 ? 0 : rho > 0.95 ? 0.95 : rho;
    *var = sxx > 0 && n > 2 ? ss / (n - 2) / sxx * (1 + rho) / (1 - rho) : INFINITY;
}

void analysis_marker_drift_var(const posed_frame *pf, int first, int last, double var[3])
{
    var[0] = var[1] = var[2] = 0;
    if (last - first + 1 > ANALYSIS_DRIFT_MAX_FRAMES)
        first = last - ANALYSIS_DRIFT_MAX_FRAMES + 1;
    if (last - first + 1 < 5)
        return;
    int used = 0;
    double t[ANALYSIS_DRIFT_MAX_FRAMES], y[ANALYSIS_DRIFT_MAX_FRAMES], sum_b2[3] = {0, 0, 0}, sum_var[3] = {0, 0, 0};
    for (int k = 0; k < ICV_MAX_MARKERS; k++) {
        int j = 0;
        for (int i = first; i <= last; i++)
            if (pf[i].pose.used[k])
                t[j++] = pf[i].t;
        if (j < 5) /* not in the fit (or not a marker) */
            continue;
        for (int a = 0; a < 3; a++) {
            j = 0;
            for (int i = first; i <= last; i++)
                if (pf[i].pose.used[k])
                    y[j++] = icv_v3_get(pf[i].pose.residual_v[k], a);
            double b, vb;
            slope_and_var(t, y, j, &b, &vb);
            sum_b2[a] += b * b;
            sum_var[a] += vb;
        }
        used++;
    }
    for (int a = 0; a < 3 && used > 0; a++) {
        double ex = (sum_b2[a] - sum_var[a]) / used;
        var[a] = ex > 0 ? ex : 0;
    }
}
