/* coefficients_noise.c: the noise of a least-squares fit taken from its own residuals,
 * correlated between neighbouring frames (coded video and the per-frame
 * pose fits leave neighbours' errors alike, which a white-noise sigma ignores).
 *
 * Model: AR(1), cov(e_i, e_j) = s^2 rho^|f_i - f_j| (f: frame numbers). The residuals
 * r = A e of a fit with design X (A = I - H, H = X (X'X)^-1 X') carry less than the
 * noise: the fit takes up part of it, most of its slow part. So rho and s^2 are found
 * by the method of moments on the residuals themselves: rho where the residuals'
 * lag-1 sum over their sum of squares equals its expectation tr(A L A R) / tr(A R)
 * (L: the neighbour pairs), then s^2 = r'r / tr(A R). The plain lag-1 correlation of
 * the residuals instead came out 0.6 on average for rho = 0.7 over 57 frames of a
 * cubic, and sigmas 1.6 times too small. Every product with R is two AR(1)
 * recursions, so the cost is O(n p^2) per rho. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <stdlib.h>

#include "analysis/coefficients_internal.h"

/* y = R x for R_ij = rho^|f_i - f_j| (f increasing): forward and backward sums */
static void ar1_apply(const int *f, int n, double rho, const double *x, double *y, double *tmp)
{
    double acc = 0;
    for (int i = 0; i < n; i++) {
        acc = x[i] + (i ? pow(rho, f[i] - f[i - 1]) * acc : 0);
        tmp[i] = acc;
    }
    acc = 0;
    for (int i = n - 1; i >= 0; i--) {
        acc = x[i] + (i < n - 1 ? pow(rho, f[i + 1] - f[i]) * acc : 0);
        y[i] = tmp[i] + acc - x[i];
    }
}

/* y = L x: the sum of each sample's neighbours (the frame before and after) */
static void lag_apply(const int *f, int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = (i > 0 && f[i - 1] == f[i] - 1 ? x[i - 1] : 0) + (i < n - 1 && f[i + 1] == f[i] + 1 ? x[i + 1] : 0);
}

/* P = X' B for columns B (n x p), p <= COEF_MAX_P */
static void xt_times(const gsl_matrix *X, const double *B, int n, int p, double P[COEF_MAX_P][COEF_MAX_P])
{
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
            double s = 0;
            for (int i = 0; i < n; i++)
                s += gsl_matrix_get(X, (size_t)i, (size_t)a) * B[b * n + i];
            P[a][b] = s;
        }
}

/* tr(M N) of p x p matrices */
static double tr2(double M[COEF_MAX_P][COEF_MAX_P], double N[COEF_MAX_P][COEF_MAX_P], int p)
{
    double s = 0;
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++)
            s += M[a][b] * N[b][a];
    return s;
}

/* C D of p x p matrices */
static void mul(double C[COEF_MAX_P][COEF_MAX_P], double D[COEF_MAX_P][COEF_MAX_P], int p,
                double out[COEF_MAX_P][COEF_MAX_P])
{
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
            double s = 0;
            for (int k = 0; k < p; k++)
                s += C[a][k] * D[k][b];
            out[a][b] = s;
        }
}

typedef struct {
    const gsl_matrix *X;
    const int *f;
    int n, p;
    double C[COEF_MAX_P][COEF_MAX_P]; /* (X'X)^-1 */
    double XLX[COEF_MAX_P][COEF_MAX_P];
    double *RX, *LRX, *tmp; /* n x p, column-major */
} moments;

/* tr(A R) and tr(A L A R) at rho, and X'RX (for the sandwich). With H = X C X':
 * tr(A R) = n - tr(C X'RX); tr(A L A R) = tr(L R) - 2 tr(C X'LRX) + tr(C X'LX C X'RX) */
static void traces(moments *m, double rho, double *tAR, double *tALAR, double XRX[COEF_MAX_P][COEF_MAX_P])
{
    int n = m->n, p = m->p;
    double *col = m->tmp + n; /* m->tmp holds 2n: the recursion's n, then a column */
    for (int b = 0; b < p; b++) {
        for (int i = 0; i < n; i++)
            col[i] = gsl_matrix_get(m->X, (size_t)i, (size_t)b);
        ar1_apply(m->f, n, rho, col, m->RX + b * n, m->tmp);
        lag_apply(m->f, n, m->RX + b * n, m->LRX + b * n);
    }
    double XLRX[COEF_MAX_P][COEF_MAX_P], CLR[COEF_MAX_P][COEF_MAX_P], CL[COEF_MAX_P][COEF_MAX_P],
        CR[COEF_MAX_P][COEF_MAX_P];
    xt_times(m->X, m->RX, n, p, XRX);
    xt_times(m->X, m->LRX, n, p, XLRX);
    mul(m->C, XLRX, p, CLR);
    mul(m->C, m->XLX, p, CL);
    mul(m->C, XRX, p, CR);
    double tLR = 0, tHLR = 0, tHR = 0; /* tr(L R): each neighbour pair twice, rho apart */
    for (int i = 1; i < n; i++)
        tLR += m->f[i] == m->f[i - 1] + 1 ? 2 * rho : 0;
    for (int a = 0; a < p; a++)
        tHLR += CLR[a][a], tHR += CR[a][a];
    *tAR = n - tHR;
    *tALAR = tLR - 2 * tHLR + tr2(CL, CR, p);
}

int analysis_coef_ar1_noise(const gsl_matrix *X, const double *r, const int *f, int n, double max_rho,
                            const coef_noise *given, coef_noise *out)
{
    int p = (int)X->size2;
    out->rho = given ? given->rho : 0;
    out->s2 = given ? given->s2 : 0;
    if (p > COEF_MAX_P || n <= p)
        return -1;
    moments m = {.X = X, .f = f, .n = n, .p = p};
    m.RX = malloc(sizeof(double) * (size_t)n * (size_t)p);
    m.LRX = malloc(sizeof(double) * (size_t)n * (size_t)p);
    m.tmp = malloc(sizeof(double) * 2 * (size_t)n);
    double *Lx = calloc((size_t)n * (size_t)p, sizeof(double));
    int rc = m.RX && m.LRX && m.tmp && Lx ? 0 : -1;
    if (!rc) { /* (X'X)^-1 and X'LX */
        double XtX[COEF_MAX_P * COEF_MAX_P], inv[COEF_MAX_P * COEF_MAX_P];
        for (int b = 0; b < p; b++) {
            double *col = m.tmp;
            for (int i = 0; i < n; i++)
                col[i] = gsl_matrix_get(X, (size_t)i, (size_t)b);
            lag_apply(f, n, col, Lx + b * n);
        }
        xt_times(X, Lx, n, p, m.XLX);
        for (int a = 0; a < p; a++)
            for (int b = 0; b < p; b++) {
                double s = 0;
                for (int i = 0; i < n; i++)
                    s += gsl_matrix_get(X, (size_t)i, (size_t)a) * gsl_matrix_get(X, (size_t)i, (size_t)b);
                XtX[a * p + b] = s;
            }
        gsl_matrix_view A = gsl_matrix_view_array(XtX, (size_t)p, (size_t)p);
        gsl_matrix_view Ai = gsl_matrix_view_array(inv, (size_t)p, (size_t)p);
        gsl_permutation *perm = gsl_permutation_alloc((size_t)p);
        int sg;
        rc = perm && !gsl_linalg_LU_decomp(&A.matrix, perm, &sg) && !gsl_linalg_LU_invert(&A.matrix, perm, &Ai.matrix)
                 ? 0
                 : -1;
        gsl_permutation_free(perm);
        for (int a = 0; !rc && a < p; a++)
            for (int b = 0; b < p; b++)
                m.C[a][b] = inv[a * p + b];
    }
    if (!rc && !given) {
        double rr = 0, rl = 0;
        for (int i = 0; i < n; i++) {
            rr += r[i] * r[i];
            if (i > 0 && f[i] == f[i - 1] + 1)
                rl += 2 * r[i] * r[i - 1];
        }
        double q = rr > 0 ? rl / rr : 0, tAR, tALAR, XRX[COEF_MAX_P][COEF_MAX_P];
        /* the expected ratio rises with rho: bisection; below its value at rho = 0 the
         * noise is taken as white (anti-correlation would only shrink the sigmas) */
        double lo = 0, hi = max_rho;
        traces(&m, 0, &tAR, &tALAR, XRX);
        if (q > tALAR / tAR) {
            traces(&m, hi, &tAR, &tALAR, XRX);
            if (q >= tALAR / tAR)
                lo = hi;
            for (int it = 0; it < 40 && hi - lo > 1e-4; it++) {
                double mid = 0.5 * (lo + hi);
                traces(&m, mid, &tAR, &tALAR, XRX);
                if (tALAR / tAR < q)
                    lo = mid;
                else
                    hi = mid;
            }
        }
        out->rho = lo;
        traces(&m, lo, &tAR, &tALAR, XRX);
        out->s2 = tAR > 0 ? rr / tAR : 0;
    }
    if (!rc) { /* the sandwich: s^2 C X'RX C */
        double tAR, tALAR, XRX[COEF_MAX_P][COEF_MAX_P], CR[COEF_MAX_P][COEF_MAX_P];
        traces(&m, out->rho, &tAR, &tALAR, XRX);
        mul(m.C, XRX, p, CR);
        mul(CR, m.C, p, out->cov);
        for (int a = 0; a < p; a++)
            for (int b = 0; b < p; b++)
                out->cov[a][b] *= out->s2;
    }
    free(m.RX);
    free(m.LRX);
    free(m.tmp);
    free(Lx);
    return rc;
}
