/* labels_still.c: whether the points labelled as a body's markers stand still over the
 * clip, as clutter does (a glint, a reference object, a board left in view) and a body
 * in an impact experiment cannot: three still points at the template's distances pass
 * every template check, so only their motion tells them from the markers. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

#include "track/track_3d.h"

/* Marker m's median labelled position (per axis) into med; 0 when never labelled. */
static int marker_median(const double *xyz, long F, int stride, int m, double *buf, double med[3])
{
    long n = 0;
    for (int a = 0; a < 3; a++) {
        n = 0;
        for (long f = 0; f < F; f++) {
            double v = xyz[((size_t)f * (size_t)stride + (size_t)m) * 3 + (size_t)a];
            if (isfinite(v))
                buf[n++] = v;
        }
        if (n == 0)
            return 0;
        gsl_sort(buf, 1, (size_t)n);
        med[a] = gsl_stats_median_from_sorted_data(buf, 1, (size_t)n);
    }
    return 1;
}

/* The still share of the points of labelled frames [a, b) (per-frame counts n, still). */
static double share_of(const int *n, const int *still, long a, long b)
{
    long pts = 0, st = 0;
    for (long i = a; i < b; i++) {
        pts += n[i];
        st += still[i];
    }
    return pts ? (double)st / (double)pts : 0;
}

int track_labels_still(const double *xyz, long F, int stride, int nm, double r, track_labels_still_result *out,
                       icv_err *err)
{
    *out = (track_labels_still_result){.first = -1, .last = -1};
    double *buf = malloc(sizeof *buf * (size_t)(F + 1));
    double(*med)[3] = malloc(sizeof *med * (size_t)(nm + 1));
    int *has = malloc(sizeof *has * (size_t)(nm + 1));
    int *n_f = malloc(sizeof *n_f * (size_t)(2 * F + 1)); /* per labelled frame: points, still ones */
    if (!buf || !med || !has || !n_f) {
        free(buf);
        free(med);
        free(has);
        free(n_f);
        return icv_err_set(err, ICV_ENOMEM, "labels' stillness: out of memory");
    }
    int *still_f = n_f + F;
    for (int m = 0; m < nm; m++)
        has[m] = marker_median(xyz, F, stride, m, buf, med[m]);
    long n_frames = 0;
    for (long f = 0; f < F; f++) {
        int n = 0, still = 0;
        for (int m = 0; m < nm; m++) {
            const double *p = xyz + ((size_t)f * (size_t)stride + (size_t)m) * 3;
            if (!has[m] || !isfinite(p[0]))
                continue;
            double d = sqrt((p[0] - med[m][0]) * (p[0] - med[m][0]) + (p[1] - med[m][1]) * (p[1] - med[m][1]) +
                            (p[2] - med[m][2]) * (p[2] - med[m][2]));
            n++;
            still += d <= r;
        }
        if (!n)
            continue;
        n_f[n_frames] = n;
        still_f[n_frames++] = still;
        out->points += n;
        out->still_points += still;
        if (out->first < 0)
            out->first = f;
        out->last = f;
    }
    out->frames = n_frames;
    /* the first and the last tenth of the labelled frames (three at least) */
    long ends = n_frames / 10 > 3 ? n_frames / 10 : 3;
    if (ends > n_frames)
        ends = n_frames;
    out->share = out->points ? (double)out->still_points / (double)out->points : 0;
    out->share_first = share_of(n_f, still_f, 0, ends);
    out->share_last = share_of(n_f, still_f, n_frames - ends, n_frames);
    free(buf);
    free(med);
    free(has);
    free(n_f);
    /* still at both ends, at the same place, and for most of the clip: a dropped body
       ends elsewhere than it starts (on the surface, or bounced off it), though it may
       rest before its release or after its impact */
    return n_frames >= TRACK_LABELS_STILL_MIN_FRAMES && out->share >= TRACK_LABELS_STILL_SHARE &&
           out->share_first >= 0.5 && out->share_last >= 0.5;
}
