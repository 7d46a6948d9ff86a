/* consensus.c: the consensus of estimates that each carry a systematic error of their
 * own. The sub-frame sync's pairs of tracks are such: each pair's epipolar residual has
 * its own slow error (the calibration's in that part of the image, a sphere's centroid
 * off its centre), which moves its minimum by up to a frame while its curvature claims
 * a hundredth. A weighted mean trusts the sharpest; the weighted median with the
 * scatter's own spread added to every sigma does not follow one wrong pair. */
#include <math.h>
#include <stdlib.h>

#include "track/consensus_internal.h"

#define CONSENSUS_MAX 64
#define CONSENSUS_REJECT 3.0 /* sigmas (statistical and systematic in quadrature) */

typedef struct {
    double x, w;
} weighted;

static int cmp_weighted(const void *a, const void *b)
{
    double x = ((const weighted *)a)->x, y = ((const weighted *)b)->x;
    return (x > y) - (x < y);
}

/* the smallest x at which the cumulative weight reaches half the total */
static double weighted_median(weighted *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_weighted);
    double total = 0, acc = 0;
    for (int i = 0; i < n; i++)
        total += v[i].w;
    for (int i = 0; i < n; i++) {
        acc += v[i].w;
        if (acc >= 0.5 * total)
            return v[i].x;
    }
    return v[n - 1].x;
}

/* DerSimonian-Laird: tau^2 = (Q - (k - 1)) / (S1 - S2 / S1), at least 0 */
static double scatter_tau2(const track_estimate *e, int n, double x0, double sigma0)
{
    double s1 = 0, s2 = 0, sx = 0;
    int k = 0;
    for (int i = 0; i <= n; i++) {
        if (i < n && !e[i].kept)
            continue;
        if (i == n && !(sigma0 > 0))
            continue;
        double x = i < n ? e[i].x : x0, s = i < n ? e[i].sigma : sigma0, w = 1 / (s * s);
        s1 += w;
        s2 += w * w;
        sx += w * x;
        k++;
    }
    if (k < 2)
        return 0;
    double mean = sx / s1, q = 0;
    for (int i = 0; i <= n; i++) {
        if ((i < n && !e[i].kept) || (i == n && !(sigma0 > 0)))
            continue;
        double x = i < n ? e[i].x : x0, s = i < n ? e[i].sigma : sigma0;
        q += (x - mean) * (x - mean) / (s * s);
    }
    double den = s1 - s2 / s1;
    return den > 0 ? fmax(0, (q - (k - 1)) / den) : 0;
}

int track_consensus(track_estimate *e, int n, double x0, double sigma0, double *x, double *sigma, double *tau)
{
    if (n > CONSENSUS_MAX)
        n = CONSENSUS_MAX;
    for (int i = 0; i < n; i++)
        e[i].kept = e[i].sigma > 0 && isfinite(e[i].x) && isfinite(e[i].sigma);
    weighted v[CONSENSUS_MAX + 1];
    double m = 0, tau2 = 0, wsum = 0;
    int kept = 0;
    for (int round = 0; round < 4; round++) {
        tau2 = scatter_tau2(e, n, x0, sigma0);
        int nv = 0;
        wsum = 0;
        for (int i = 0; i < n; i++)
            if (e[i].kept) {
                v[nv++] = (weighted){e[i].x, 1 / (e[i].sigma * e[i].sigma + tau2)};
                wsum += v[nv - 1].w;
            }
        kept = nv;
        if (sigma0 > 0) {
            v[nv++] = (weighted){x0, 1 / (sigma0 * sigma0)};
            wsum += v[nv - 1].w;
        }
        if (nv == 0)
            return -1;
        m = weighted_median(v, nv);
        int dropped = 0;
        for (int i = 0; i < n && round < 3; i++)
            if (e[i].kept && fabs(e[i].x - m) > CONSENSUS_REJECT * sqrt(e[i].sigma * e[i].sigma + tau2)) {
                e[i].kept = 0;
                dropped++;
            }
        if (!dropped)
            break;
    }
    *x = m;
    *sigma = 1 / sqrt(wsum);
    *tau = sqrt(tau2);
    return kept;
}
