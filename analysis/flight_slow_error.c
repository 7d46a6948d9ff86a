/* flight_slow_error.c: the slow part of the track error, which the AR(1) modes
 * of flight_noise.c (a correlation over a frame or two) leave out.
 *
 * A centroid bias that follows the pose or the pixel phase changes over tens or
 * hundreds of frames: over a flight it is a smooth curve. Its constant, slope and
 * curvature are indistinguishable from the flight's own p, v and g, so no residual
 * shows them; they are in the estimated g and in every side's v, the more the
 * longer the side's window (a side given g estimated from the same flight
 * carries the curve's slope at its end). Its higher orders stay in the residuals.
 * So each phase's error is modelled as a random polynomial whose orthonormal
 * coefficients (Legendre-like, over the phase's frames) share one variance per
 * axis up to order ANALYSIS_SLOW_ORDERS - 1, that variance measured from orders
 * 3 and up: their coefficients' mean square beyond what the AR(1) modes put
 * there, pooled over the axes the tracks measure, when their chi-square under
 * those modes says they hold more than noise on one axis at least. */
#include <gsl/gsl_cdf.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

/* the lowest order the phases' fits (at most quadratic) leave in the residuals */
#define SLOW_FIRST_SEEN 3

static int slow_orders(int m)
{
    return m >= ANALYSIS_SLOW_MIN_FRAMES ? ANALYSIS_SLOW_ORDERS : 0;
}

int analysis_flight_noise_slow(analysis_flight_noise *nz)
{
    memset(nz->slow_var, 0, sizeof nz->slow_var);
    int m_max = 0;
    for (int sg = 0; sg < nz->n_seg; sg++)
        m_max = nz->keep_m[sg] > m_max ? nz->keep_m[sg] : m_max;
    if (m_max < ANALYSIS_SLOW_MIN_FRAMES)
        return 0;
    double *q = malloc(sizeof *q * (size_t)m_max * (ANALYSIS_SLOW_ORDERS + 1));
    if (!q)
        return -1;
    double *cq = q + (size_t)m_max * ANALYSIS_SLOW_ORDERS;
    for (int sg = 0; sg < nz->n_seg; sg++) {
        int m = nz->keep_m[sg], K = slow_orders(m);
        if (K <= SLOW_FIRST_SEEN || nz->keep_par[sg] > SLOW_FIRST_SEEN)
            continue;
        const icv_vec3 *r = nz->r_keep + nz->keep_off[sg];
        analysis_poly_basis(nz->t_keep + nz->keep_off[sg], m, K, q);
        double seen[3] = {0, 0, 0}, expect[3] = {0, 0, 0};
        double c2[ANALYSIS_SLOW_ORDERS][3], e2[ANALYSIS_SLOW_ORDERS][3];
        for (int k = SLOW_FIRST_SEEN; k < K; k++) {
            const double *qk = q + (size_t)k * m;
            icv_vec3 c = {0, 0, 0};
            for (int i = 0; i < m; i++)
                c = icv_v3_axpy(qk[i], r[i], c);
            for (int a = 0; a < 3; a++)
                c2[k][a] = icv_v3_get(c, a) * icv_v3_get(c, a), e2[k][a] = 0;
            /* the AR(1) modes' share: var d_a^2 q^T C(rho) q */
            for (int md = 0; md < nz->n_modes[sg]; md++) {
                const analysis_noise_mode *mo = &nz->mode[sg][md];
                analysis_ar1_filter(qk, m, mo->rho, cq);
                double qcq = 0;
                for (int i = 0; i < m; i++)
                    qcq += qk[i] * cq[i];
                for (int a = 0; a < 3; a++)
                    e2[k][a] += mo->var * icv_v3_get(mo->d, a) * icv_v3_get(mo->d, a) * qcq;
            }
        }
        int shows = 0;
        for (int a = 0; a < 3; a++) {
            double q_sum = 0;
            int dof = 0;
            for (int k = SLOW_FIRST_SEEN; k < K; k++) {
                if (!(e2[k][a] > 0))
                    continue;
                double w = (2.0 * k + 1) / m; /* a coefficient's variance per amplitude^2 */
                seen[a] += w * c2[k][a];
                expect[a] += w * e2[k][a];
                q_sum += c2[k][a] / e2[k][a];
                dof++;
            }
            shows |= dof > 0 && q_sum > gsl_cdf_chisq_Qinv(0.01, dof);
        }
        /* only a slow error the orders show beyond chance on some axis (their
           chi-square over its 99% point, as the phases' spread of g): on AR(1)
           noise the excess is above 0 half the time, and made the sigmas 4-8%
           large */
        if (!shows)
            continue;
        /* one variance for the axes the tracks measure (a slow error follows the
           image, not the surface's axes; one axis' four coefficients are too few
           to size it) */
        double ex = 0;
        int n_ax = 0;
        for (int a = 0; a < 3; a++)
            if (expect[a] > 0)
                ex += seen[a] - expect[a], n_ax++;
        for (int a = 0; a < 3; a++)
            nz->slow_var[sg][a] = expect[a] > 0 ? fmax(0, ex / n_ax / (K - SLOW_FIRST_SEEN)) : 0;
        icv_debug("noise: phase %d (%d frames): slow error per order %.3g %.3g %.3g m (orders %d-%d: rms %.3g %.3g "
                  "%.3g m, the AR(1) modes %.3g %.3g %.3g)",
                  sg, m, sqrt(nz->slow_var[sg][0]), sqrt(nz->slow_var[sg][1]), sqrt(nz->slow_var[sg][2]),
                  SLOW_FIRST_SEEN, K - 1, sqrt(seen[0] / (K - SLOW_FIRST_SEEN)), sqrt(seen[1] / (K - SLOW_FIRST_SEEN)),
                  sqrt(seen[2] / (K - SLOW_FIRST_SEEN)), sqrt(expect[0] / (K - SLOW_FIRST_SEEN)),
                  sqrt(expect[1] / (K - SLOW_FIRST_SEEN)), sqrt(expect[2] / (K - SLOW_FIRST_SEEN)));
    }
    free(q);
    return 0;
}

int analysis_flight_slow_cov(const analysis_flight_noise *nz, double *const *h, int nr, double *cov)
{
    int m_max = 0, any = 0, dim = 3 * nr;
    for (int sg = 0; sg < nz->n_seg; sg++) {
        any |= nz->slow_var[sg][0] > 0 || nz->slow_var[sg][1] > 0 || nz->slow_var[sg][2] > 0;
        m_max = nz->keep_m[sg] > m_max ? nz->keep_m[sg] : m_max;
    }
    if (!any)
        return 0;
    double *q = malloc(sizeof *q * (size_t)m_max * ANALYSIS_SLOW_ORDERS), *hq = malloc(sizeof *hq * (size_t)nr);
    if (!q || !hq) {
        free(q);
        free(hq);
        return -1;
    }
    for (int sg = 0; sg < nz->n_seg; sg++) {
        int m = nz->keep_m[sg], K = slow_orders(m);
        const double *sv = nz->slow_var[sg];
        if (K == 0 || !(sv[0] > 0 || sv[1] > 0 || sv[2] > 0))
            continue;
        const int *fr = nz->f_keep + nz->keep_off[sg];
        analysis_poly_basis(nz->t_keep + nz->keep_off[sg], m, K, q);
        for (int k = 0; k < K; k++) {
            const double *qk = q + (size_t)k * m;
            for (int u = 0; u < nr; u++) {
                hq[u] = 0;
                for (int i = 0; i < m; i++)
                    hq[u] += h[u][fr[i]] * qk[i];
            }
            for (int u = 0; u < nr; u++)
                for (int w = 0; w < nr; w++)
                    for (int a = 0; a < 3; a++)
                        cov[(3 * u + a) * dim + 3 * w + a] += sv[a] * m / (2.0 * k + 1) * hq[u] * hq[w];
        }
    }
    free(q);
    free(hq);
    return 0;
}
