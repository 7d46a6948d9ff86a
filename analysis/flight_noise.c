/* flight_noise.c: the joint covariance of the estimated gravity and both sides'
 * fitted centre-of-mass states, from one model of the track
 * noise.
 *
 * Every one of these estimates is linear in the per-frame centres: g_hat =
 * sum_i h_g[i] p_i, and a side's (p, v) given g is its window's straight-line
 * fit of p_i - g tau_i^2 / 2, i.e. rows a_p, a_v over its frames minus (a.q) h_g.
 * With the centres' errors modelled, within each flight phase (segment), as a sum
 * over modes k of var_k d_k d_k^T times rho_k^|i - j| (that phase's residuals'
 * principal directions, each an AR(1) series in the frame index), and
 * independent between phases (an impact changes the pose, and with it the track
 * errors: after it the rod spins), the covariance of any two estimates is
 * exactly the sum over phases and modes of var_k d_k d_k^T h1^T C(rho_k) h2: the
 * OLS "sandwich", no independence of g and the sides assumed. So g's error and
 * the sides' share their frames as they really do (an error taken up by g moves
 * both sides' states with it), and a slow track error
 * counts once, not once in g's inflation and again in each side's (the asymptotic
 * (1 + rho) / (1 - rho) inflation over-counts for a window as short as the
 * correlation). C(rho) h costs O(n): a forward and a backward exponential filter. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

/* out = C(rho) x over 0..m-1, C_ij = rho^|i-j|: a forward and a backward
 * exponential filter (out must not be x) */
static void ar1_filter(const double *x, int m, double rho, double *out)
{
    double f = 0, b = 0;
    for (int i = 0; i < m; i++) {
        f = x[i] + rho * f;
        out[i] = f;
    }
    for (int i = m - 1; i >= 0; i--) {
        b = x[i] + rho * b;
        out[i] += b - x[i];
    }
}

/* out = C(rho) h over the frames of segment sg (in index order), C_ij =
 * rho^|i-j| counted in that segment's frames; 0 elsewhere */
static void ar1_apply(const double *h, const int *seg, int n, int sg, double rho, double *out)
{
    double f = 0;
    for (int i = 0; i < n; i++) {
        out[i] = 0;
        if (seg[i] != sg)
            continue;
        f = h[i] + rho * f;
        out[i] = f;
    }
    double b = 0;
    for (int i = n - 1; i >= 0; i--) {
        if (seg[i] != sg)
            continue;
        b = h[i] + rho * b;
        out[i] += b - h[i];
    }
}

/* sum over segments and modes of var d d^T (h_u^T C h_w) for rows h[0..nr-1]:
 * cov is (3 nr) x (3 nr), row-major */
static int sandwich(const analysis_flight_noise *nz, double *const *h, int nr, double *cov)
{
    int n = nz->n, dim = 3 * nr;
    double *ch = malloc(sizeof *ch * (size_t)(n > 0 ? n : 1));
    if (!ch)
        return -1;
    memset(cov, 0, sizeof *cov * (size_t)(dim * dim));
    for (int sg = 0; sg < nz->n_seg; sg++)
        for (int m = 0; m < nz->n_modes[sg]; m++) {
            const analysis_noise_mode *md = &nz->mode[sg][m];
            for (int w = 0; w < nr; w++) {
                ar1_apply(h[w], nz->seg, n, sg, md->rho, ch);
                for (int u = 0; u < nr; u++) {
                    double c = 0;
                    for (int i = 0; i < n; i++)
                        c += h[u][i] * ch[i];
                    for (int a = 0; a < 3; a++)
                        for (int b = 0; b < 3; b++)
                            cov[(3 * u + a) * dim + 3 * w + b] +=
                                md->var * icv_v3_get(md->d, a) * icv_v3_get(md->d, b) * c;
                }
            }
        }
    free(ch);
    return 0;
}

/* A side's rows: (p, v) at t_ref from its window's straight-line fit, and their
 * change per unit g (the fit subtracts g tau^2 / 2 from each centre). */
static void range_rows(const posed_frame *pf, int first, int last, double t_ref, double *hp, double *hv, double *kp,
                       double *kv)
{
    double s0 = 0, s1 = 0, s2 = 0;
    for (int i = first; i <= last; i++) {
        double tau = pf[i].t - t_ref;
        s0 += 1;
        s1 += tau;
        s2 += tau * tau;
    }
    double det = s0 * s2 - s1 * s1;
    *kp = *kv = 0;
    for (int i = first; i <= last; i++) {
        double tau = pf[i].t - t_ref, q = 0.5 * tau * tau;
        hp[i] = (s2 - s1 * tau) / det;
        hv[i] = (s0 * tau - s1) / det;
        *kp += hp[i] * q;
        *kv += hv[i] * q;
    }
}

static void side_rows(const posed_frame *pf, const side_fit *s, double *hp, double *hv, double *kp, double *kv)
{
    range_rows(pf, s->first, s->last, s->t_ref, hp, hv, kp, kv);
}

int analysis_flight_noise_alloc(analysis_flight_noise *nz, int n)
{
    memset(nz, 0, sizeof *nz);
    nz->n = n;
    nz->h_g = calloc((size_t)(n > 0 ? n : 1), sizeof *nz->h_g);
    nz->seg = malloc(sizeof *nz->seg * (size_t)(n > 0 ? n : 1));
    nz->r_keep = malloc(sizeof *nz->r_keep * (size_t)(n > 0 ? n : 1));
    nz->t_keep = malloc(sizeof *nz->t_keep * (size_t)(n > 0 ? n : 1));
    if (!nz->h_g || !nz->seg || !nz->r_keep || !nz->t_keep) {
        analysis_flight_noise_free(nz);
        return -1;
    }
    analysis_flight_noise_reset(nz);
    return 0;
}

void analysis_flight_noise_reset(analysis_flight_noise *nz)
{
    nz->g_spread = 0;
    for (int k = 0; k < 2; k++)
        nz->flight_lo[k] = 1, nz->flight_hi[k] = 0;
    for (int i = 0; i < nz->n; i++)
        nz->seg[i] = -1;
    nz->n_seg = 0;
    nz->n_keep = 0;
}

void analysis_flight_noise_free(analysis_flight_noise *nz)
{
    free(nz->h_g);
    free(nz->seg);
    free(nz->r_keep);
    free(nz->t_keep);
    nz->h_g = NULL;
    nz->seg = NULL;
    nz->r_keep = NULL;
    nz->t_keep = NULL;
}

/* An orthonormal basis q (m x n_par, column-major) of the fit's design over times
 * t: 1, tau, tau^2 (Gram-Schmidt; tau about the mean time, in frames' units) */
static void design_basis(const double *t, int m, int n_par, double *q)
{
    double tm = 0, span = 0;
    for (int i = 0; i < m; i++)
        tm += t[i] / m;
    for (int i = 0; i < m; i++)
        span = fmax(span, fabs(t[i] - tm));
    for (int j = 0; j < n_par; j++) {
        double *c = q + (size_t)j * m;
        for (int i = 0; i < m; i++)
            c[i] = pow(span > 0 ? (t[i] - tm) / span : 0, j);
        for (int k = 0; k < j; k++) {
            const double *b = q + (size_t)k * m;
            double d = 0;
            for (int i = 0; i < m; i++)
                d += c[i] * b[i];
            for (int i = 0; i < m; i++)
                c[i] -= d * b[i];
        }
        double nn = 0;
        for (int i = 0; i < m; i++)
            nn += c[i] * c[i];
        for (int i = 0; i < m; i++)
            c[i] = nn > 0 ? c[i] / sqrt(nn) : 0;
    }
}

/* the expected residual sums of a fit (basis q) under unit-variance AR(1) noise:
 * E[sum r_i^2] = tr((I - P) C) and E[sum r_i r_i+1] = tr((I - P) U (I - P) C), U
 * the superdiagonal, P = q q^T; O(m n_par^2) through C's and U's actions */
static void expected_sums(const double *q, int m, int n_par, double rho, double *ss, double *lag, double *work)
{
    double *cq = work, *ucq = work + (size_t)3 * m, *cuq = work + (size_t)6 * m, *uc = work + (size_t)9 * m;
    for (int j = 0; j < n_par; j++) {
        const double *c = q + (size_t)j * m;
        ar1_filter(c, m, rho, cq + (size_t)j * m); /* C c */
        for (int i = 0; i < m; i++) {               /* U C c and U c, (U x)_i = x_i+1 */
            ucq[j * m + i] = i + 1 < m ? cq[j * m + i + 1] : 0;
            uc[i] = i + 1 < m ? c[i + 1] : 0;
        }
        ar1_filter(uc, m, rho, cuq + (size_t)j * m); /* C U c */
    }
    double tr_pc = 0, tr_puc = 0, tr_upc = 0, tr_pupc = 0;
    for (int j = 0; j < n_par; j++) {
        const double *cj = q + (size_t)j * m;
        for (int i = 0; i < m; i++) {
            tr_pc += cj[i] * cq[j * m + i];
            tr_puc += cj[i] * ucq[j * m + i];  /* q_j^T U C q_j */
            tr_upc += cj[i] * cuq[j * m + i];  /* q_j^T C U q_j */
        }
        for (int k = 0; k < n_par; k++) {
            const double *ck = q + (size_t)k * m;
            double uqk = 0, cqk = 0; /* q_j^T U q_k, q_k^T C q_j */
            for (int i = 0; i + 1 < m; i++)
                uqk += cj[i] * ck[i + 1];
            for (int i = 0; i < m; i++)
                cqk += ck[i] * cq[j * m + i];
            tr_pupc += uqk * cqk;
        }
    }
    *ss = m - tr_pc;
    *lag = (m - 1) * rho - tr_puc - tr_upc + tr_pupc;
}

/* The expected residual sums of segments list[0..k-1] (each its own fit over its
 * kept times) under unit-variance AR(1) noise of correlation rho, added up */
static void pooled_expected_sums(const analysis_flight_noise *nz, const int *list, int k, double rho, double *ss,
                                 double *lag, double *q, double *work)
{
    *ss = *lag = 0;
    for (int j = 0; j < k; j++) {
        int sg = list[j], m = nz->keep_m[sg];
        double es, el;
        design_basis(nz->t_keep + nz->keep_off[sg], m, nz->keep_par[sg], q);
        expected_sums(q, m, nz->keep_par[sg], rho, &es, &el, work);
        *ss += es;
        *lag += el;
    }
}

/* The AR(1) correlation whose fits leave the expected lag-1 to lag-0 ratio
 * `target` in the residuals of segments list[0..k-1]: bisection on rho in [0,
 * 0.95]. The residuals' own lag-1 correlation and scatter both understate
 * correlated noise (the fit takes up its slow part): on 30-frame phases with rho
 * 0.6 they gave sigmas 25-35% small (test_flight_noise.c). */
static double rho_for_ratio(const analysis_flight_noise *nz, const int *list, int k, double target, double *q,
                            double *work)
{
    double lo = 0, hi = 0.95, es, el;
    pooled_expected_sums(nz, list, k, lo, &es, &el, q, work);
    if (el / es >= target) /* no more correlated than white noise's residuals */
        return 0;
    pooled_expected_sums(nz, list, k, hi, &es, &el, q, work);
    if (el / es <= target)
        return hi;
    for (int it = 0; it < 40; it++) {
        double mid = 0.5 * (lo + hi);
        pooled_expected_sums(nz, list, k, mid, &es, &el, q, work);
        if (el / es < target)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The modes of the noise that segments list[0..k-1] share, from their kept
 * residuals: the pooled scatter's principal directions, each direction's
 * correlation and variance corrected for what each segment's fit takes up. white:
 * no correlation, and the variance the scatter over the degrees of freedom nu
 * times nu / (nu - 2), the variance of Student's t: a quantity's error over a
 * sigma estimated from nu residuals then has an RMS of 1 (sqrt(nu / (nu - 2))
 * without it: 1.29 with 5 degrees of freedom, 1.41 with 4). 0
 * when their degrees of freedom per axis are fewer than min_dof (or out of
 * memory). A correlation pooled over the three directions (less scattered over
 * short phases) was tried: it misses a correlation that only one direction has (a
 * stereo rig's depth: g's pull 1.37 along it, test_ballistic_fit.c). */
static int shared_modes(const analysis_flight_noise *nz, const int *list, int k, int min_dof, int white,
                        analysis_noise_mode mode[3])
{
    int total = 0, dof = 0, m_max = 0;
    for (int j = 0; j < k; j++) {
        total += nz->keep_m[list[j]];
        dof += nz->keep_m[list[j]] - nz->keep_par[list[j]];
        m_max = nz->keep_m[list[j]] > m_max ? nz->keep_m[list[j]] : m_max;
    }
    if (k < 1 || dof < min_dof)
        return 0;
    icv_vec3 *r = malloc(sizeof *r * (size_t)total);
    double *q = malloc(sizeof *q * (size_t)m_max * (3 + 12)); /* a basis, expected_sums' work */
    int ok = r && q;
    for (int j = 0, at = 0; ok && j < k; j++) {
        memcpy(r + at, nz->r_keep + nz->keep_off[list[j]], sizeof *r * (size_t)nz->keep_m[list[j]]);
        at += nz->keep_m[list[j]];
    }
    ok = ok && analysis_residual_modes(r, total, dof, min_dof, mode);
    for (int a = 0; ok && a < 3; a++) {
        analysis_noise_mode *md = &mode[a];
        double ss = 0, lag = 0, es, el;
        for (int j = 0; j < k; j++) {
            const icv_vec3 *rs = nz->r_keep + nz->keep_off[list[j]];
            for (int i = 0; i < nz->keep_m[list[j]]; i++) {
                double x = icv_v3_dot(rs[i], md->d);
                ss += x * x;
                if (i)
                    lag += x * icv_v3_dot(rs[i - 1], md->d);
            }
        }
        md->rho = white ? 0 : rho_for_ratio(nz, list, k, ss > 0 ? lag / ss : 0, q, q + (size_t)3 * m_max);
        pooled_expected_sums(nz, list, k, md->rho, &es, &el, q, q + (size_t)3 * m_max);
        md->var = es > 0 ? ss / es : 0;
        if (white && dof > 2) /* a sigma from dof residuals makes Student's t pulls */
            md->var *= (double)dof / (dof - 2);
    }
    free(r);
    free(q);
    return ok;
}

void analysis_flight_noise_add(analysis_flight_noise *nz, const int *frames, const double *t, const icv_vec3 *r, int m,
                               int n_par, double com_sigma)
{
    if (nz->n_seg >= ANALYSIS_MAX_PHASES || m < 1 || nz->n_keep + m > nz->n)
        return;
    int sg = nz->n_seg++;
    for (int i = 0; i < m; i++)
        nz->seg[frames[i]] = sg;
    nz->keep_off[sg] = nz->n_keep;
    nz->keep_m[sg] = m;
    nz->keep_par[sg] = n_par <= 3 ? n_par : 3;
    memcpy(nz->r_keep + nz->n_keep, r, sizeof *r * (size_t)m);
    memcpy(nz->t_keep + nz->n_keep, t, sizeof *t * (size_t)m);
    nz->n_keep += m;
    nz->n_modes[sg] = 3;
    nz->own_modes[sg] = shared_modes(nz, &sg, 1, 10, 0, nz->mode[sg]);
    if (nz->own_modes[sg])
        return;
    /* too few frames for a scatter of its own: the sigma given, isotropic, with the
     * residuals' lag-1 correlation, until analysis_flight_noise_close pools it */
    double rho = analysis_lag1_correlation(r, m);
    for (int a = 0; a < 3; a++)
        nz->mode[sg][a] = (analysis_noise_mode){icv_v3(a == 0, a == 1, a == 2), com_sigma * com_sigma, rho};
}

void analysis_flight_noise_close(analysis_flight_noise *nz)
{
    /* phases too short for modes of their own share the noise of all such phases
     * (of every phase when those have fewer than 4 degrees of freedom together):
     * the sigma given is a guess that one camera's video tracks beat by far (the
     * 0.3 mm default against their 0.05-0.1 mm: a 30 fps phone ball's e, instant
     * and v_pre.y sigmas came out 3 times their errors, docs/analysis.md). As
     * white noise: their lag-1 ratio cannot tell a correlation (6 frames, 3
     * parameters: its expectation goes from -0.50 white to -0.41 at rho 0.95,
     * its sampling scatter ~0.4), and the bisection's 0.95 made a variance 25
     * times the scatter's */
    int sh[ANALYSIS_MAX_PHASES], all[ANALYSIS_MAX_PHASES], n_sh = 0, n_all = 0;
    for (int sg = 0; sg < nz->n_seg; sg++) {
        all[n_all++] = sg;
        if (!nz->own_modes[sg])
            sh[n_sh++] = sg;
    }
    analysis_noise_mode pooled[3];
    if (n_sh > 0 && (shared_modes(nz, sh, n_sh, 4, 1, pooled) || shared_modes(nz, all, n_all, 4, 1, pooled)))
        for (int j = 0; j < n_sh; j++) {
            memcpy(nz->mode[sh[j]], pooled, sizeof pooled);
            icv_debug("noise: phase %d of %d frames takes the pooled modes: sd %.3g, %.3g, %.3g m, rho %.2f, %.2f, %.2f "
                      "d0 %.2f %.2f %.2f",
                      sh[j], nz->keep_m[sh[j]], sqrt(pooled[0].var), sqrt(pooled[1].var), sqrt(pooled[2].var),
                      pooled[0].rho, pooled[1].rho, pooled[2].rho, pooled[0].d.x, pooled[0].d.y, pooled[0].d.z);
        }
    /* a frame in no phase (next to a contact candidate, or trimmed) takes the
     * nearest phase's noise: a side window may reach it */
    int last = -1;
    for (int i = 0; i < nz->n; i++) {
        if (nz->seg[i] >= 0) {
            for (int j = last + 1; j < i; j++) /* the gap last+1 .. i-1 */
                nz->seg[j] = last < 0 || j - last > i - j ? nz->seg[i] : nz->seg[last];
            last = i;
        }
    }
    for (int j = last + 1; last >= 0 && j < nz->n; j++)
        nz->seg[j] = nz->seg[last];
}

int analysis_flight_noise_from_sides(const posed_frame *pf, const int lo[2], const int hi[2], const icv_vec3 *g,
                                     double com_sigma, analysis_flight_noise *nz)
{
    int m = 0;
    for (int k = 0; k < 2; k++)
        m += hi[k] >= lo[k] ? hi[k] - lo[k] + 1 : 0;
    icv_vec3 *r = malloc(sizeof *r * (size_t)(m > 0 ? m : 1));
    int *fr = malloc(sizeof *fr * (size_t)(m > 0 ? m : 1));
    double *tt = malloc(sizeof *tt * (size_t)(m > 0 ? m : 1));
    if (!r || !fr || !tt) {
        free(r);
        free(fr);
        free(tt);
        return -1;
    }
    analysis_flight_noise_reset(nz);
    nz->flight_g = *g;
    for (int k = 0; k < 2; k++) {
        nz->flight_lo[k] = lo[k];
        nz->flight_hi[k] = hi[k];
        int j = hi[k] - lo[k] + 1;
        if (j < 1)
            continue;
        /* the flight's own straight line given g, about its middle time */
        double t0 = 0.5 * (pf[lo[k]].t + pf[hi[k]].t), s1 = 0, s2 = 0;
        icv_vec3 sy = {0, 0, 0}, sty = {0, 0, 0};
        for (int i = lo[k]; i <= hi[k]; i++) {
            double tau = pf[i].t - t0;
            icv_vec3 y = icv_v3_sub(pf[i].pose.p, icv_v3_scale(*g, 0.5 * tau * tau));
            s1 += tau;
            s2 += tau * tau;
            sy = icv_v3_add(sy, y);
            sty = icv_v3_add(sty, icv_v3_scale(y, tau));
        }
        double det = j * s2 - s1 * s1;
        icv_vec3 a = det > 0 ? icv_v3_scale(icv_v3_sub(icv_v3_scale(sy, s2), icv_v3_scale(sty, s1)), 1 / det)
                             : icv_v3_scale(sy, 1.0 / j);
        icv_vec3 bb = det > 0 ? icv_v3_scale(icv_v3_sub(icv_v3_scale(sty, j), icv_v3_scale(sy, s1)), 1 / det)
                              : icv_v3(0, 0, 0);
        for (int i = lo[k], q = 0; i <= hi[k]; i++, q++) {
            double tau = pf[i].t - t0;
            icv_vec3 fit = icv_v3_add(icv_v3_add(a, icv_v3_scale(bb, tau)), icv_v3_scale(*g, 0.5 * tau * tau));
            r[q] = icv_v3_sub(pf[i].pose.p, fit);
            fr[q] = i;
            tt[q] = pf[i].t;
        }
        analysis_flight_noise_add(nz, fr, tt, r, j, 2, com_sigma);
    }
    analysis_flight_noise_close(nz);
    free(r);
    free(fr);
    free(tt);
    return 0;
}

int analysis_flight_noise_g_cov(const analysis_flight_noise *nz, double g_cov[3][3])
{
    double *h[1] = {nz->h_g};
    return sandwich(nz, h, 1, &g_cov[0][0]);
}

/* A slow track error (the same blur, the same pixel phase over tens of frames)
 * is nearly a straight line over a side's window: in its v, in none of its
 * residuals. Where the window is part of a longer flight, the window's v and the
 * whole flight's (both given g, at t_ref) differ by the change of that error's
 * slope along the flight, plus noise: their difference beyond the noise model's
 * share of it (per axis, sqrt(max(0, d^2 - var))) is one draw of the slope error
 * the model lacks, added to side k's v variance in cov. work: 3 n doubles. */
static int window_excess(const posed_frame *pf, const analysis_flight_noise *nz, const side_fit *s, int k, double *work,
                         double cov[15][15])
{
    int lo = nz->flight_lo[k], hi = nz->flight_hi[k], n = nz->n;
    if (lo > hi || hi >= n || lo > s->first || hi < s->last || (lo == s->first && hi == s->last))
        return 0;
    double *hd = work, *hw = work + n, *hp = work + 2 * n, kp, kv, kpw, kvw;
    memset(work, 0, sizeof *work * (size_t)(3 * n));
    range_rows(pf, s->first, s->last, s->t_ref, hp, hd, &kp, &kv);
    range_rows(pf, lo, hi, s->t_ref, hp, hw, &kpw, &kvw);
    /* d = v_window - v_flight: both fit p_i - g tau_i^2 / 2 */
    icv_vec3 d = icv_v3_scale(nz->flight_g, kvw - kv);
    for (int i = lo; i <= hi; i++) {
        hd[i] -= hw[i];
        d = icv_v3_axpy(hd[i], pf[i].pose.p, d);
    }
    double var[3][3];
    double *h[1] = {hd};
    if (sandwich(nz, h, 1, &var[0][0]))
        return -1;
    for (int a = 0; a < 3; a++) {
        double x = icv_v3_get(d, a), ex2 = x * x - var[a][a];
        if (x * x > 4 * var[a][a])
            cov[6 + 6 * k + a][6 + 6 * k + a] += ex2;
    }
    return 0;
}

int analysis_flight_covariance(const posed_frame *pf, const analysis_flight_noise *nz, const side_fit *pre,
                               const side_fit *post, double cov[15][15])
{
    int n = nz->n;
    double *buf = calloc((size_t)n * 5, sizeof *buf); /* the rows, then window_excess' work */
    if (!buf)
        return -1;
    double *h[5];
    for (int u = 0; u < 5; u++)
        h[u] = buf + (size_t)u * n;
    memcpy(h[0], nz->h_g, sizeof *h[0] * (size_t)n);
    const side_fit *sd[2] = {pre, post};
    for (int k = 0; k < 2; k++) {
        double kp, kv;
        side_rows(pf, sd[k], h[1 + 2 * k], h[2 + 2 * k], &kp, &kv);
        for (int i = 0; i < n; i++) { /* given g_hat, not g: minus its rows */
            h[1 + 2 * k][i] -= kp * h[0][i];
            h[2 + 2 * k][i] -= kv * h[0][i];
        }
    }
    int rc = sandwich(nz, h, 5, &cov[0][0]);
    for (int sg = 0; sg < nz->n_seg; sg++)
        icv_debug("noise: segment %d (%d frames kept): sd %.3g %.3g %.3g m, rho %.3f %.3f %.3f, d0 %.2f %.2f %.2f", sg,
                  nz->keep_m[sg], sqrt(nz->mode[sg][0].var), sqrt(nz->mode[sg][1].var), sqrt(nz->mode[sg][2].var),
                  nz->mode[sg][0].rho, nz->mode[sg][1].rho, nz->mode[sg][2].rho, nz->mode[sg][0].d.x,
                  nz->mode[sg][0].d.y, nz->mode[sg][0].d.z);
    for (int k = 0; k < 2 && rc == 0; k++) {
        int i0 = 6 + 6 * k, lo = nz->flight_lo[k], hi = nz->flight_hi[k];
        double v0[3] = {cov[i0][i0], cov[i0 + 1][i0 + 1], cov[i0 + 2][i0 + 2]};
        rc = window_excess(pf, nz, sd[k], k, buf, cov);
        /* where a side's sigma comes from (scripts/sigma_breakdown.py reads it) */
        icv_debug("noise: side %d window %d-%d (%d frames, %.6g-%.6g s) flight %d-%d (%.6g-%.6g s) v sd %.4g %.4g %.4g "
                  "m/s, with the window excess %.4g %.4g %.4g",
                  k, sd[k]->first, sd[k]->last, sd[k]->last - sd[k]->first + 1, pf[sd[k]->first].t,
                  pf[sd[k]->last].t, lo, hi, lo <= hi ? pf[lo].t : NAN, lo <= hi ? pf[hi].t : NAN, sqrt(v0[0]),
                  sqrt(v0[1]), sqrt(v0[2]), sqrt(cov[i0][i0]), sqrt(cov[i0 + 1][i0 + 1]), sqrt(cov[i0 + 2][i0 + 2]));
        if (rc == 0) { /* the drift's v error, and p's at t_ref through its lever */
            double lever = sd[k]->t_ref - sd[k]->t_mid;
            for (int a = 0; a < 3; a++) {
                double dv = icv_v3_get(sd[k]->drift_v_var, a);
                cov[i0 + a][i0 + a] += dv;
                cov[i0 - 3 + a][i0 - 3 + a] += dv * lever * lever;
                cov[i0 - 3 + a][i0 + a] += dv * lever;
                cov[i0 + a][i0 - 3 + a] += dv * lever;
            }
            icv_debug("noise: drift of side %d's markers: v sd %.4g %.4g %.4g m/s (lever %.4g s), v sd with it %.4g %.4g %.4g",
                      k, sqrt(sd[k]->drift_v_var.x), sqrt(sd[k]->drift_v_var.y), sqrt(sd[k]->drift_v_var.z), lever,
                      sqrt(cov[i0][i0]), sqrt(cov[i0 + 1][i0 + 1]), sqrt(cov[i0 + 2][i0 + 2]));
        }
    }
    free(buf);
    return rc;
}
