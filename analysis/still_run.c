/* still_run.c: whether a run of posed frames the still rule (analysis_still_ends)
 * calls still moves all the same. The still rule's limit comes from the tracks'
 * sigma, or the 0.3 mm default when they carry none, and a bounce lower than that
 * limit yet far above the tracks' real noise (a 3000 fps bar's second bounce,
 * 0.3 mm high for 16 ms, at 20 um tracks) was trimmed as a rest. The run's own
 * frames say their noise: a smooth path (a quadratic in time per axis) that
 * explains far more of the centre's scatter than a rest does (an F test), and
 * travels beyond the still limit at that noise, is motion. */
#include <gsl/gsl_cdf.h>
#include <math.h>

#include "analysis/analysis_internal.h"

static double axis_of(const posed_frame *f, int ax)
{
    return ax == 0 ? f->pose.p.x : ax == 1 ? f->pose.p.y : f->pose.p.z;
}

static double det3(const double M[3][3])
{
    return M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
           M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
}

/* the least-squares quadratic c[0] + c[1] tau + c[2] tau^2 of axis ax over
   pf[a..b], tau = (t - t_mid) / half; 0, or -1 when singular */
static int quadratic_fit(const posed_frame *pf, int a, int b, int ax, double t_mid, double half, double c[3])
{
    double s[5] = {0}, r[3] = {0};
    for (int i = a; i <= b; i++) {
        double tau = (pf[i].t - t_mid) / half, y = axis_of(&pf[i], ax), p = 1;
        for (int k = 0; k < 5; k++, p *= tau)
            s[k] += p;
        r[0] += y, r[1] += y * tau, r[2] += y * tau * tau;
    }
    double A[3][3] = {{s[0], s[1], s[2]}, {s[1], s[2], s[3]}, {s[2], s[3], s[4]}}, det = det3(A);
    if (!(fabs(det) > 0))
        return -1;
    for (int k = 0; k < 3; k++) { /* Cramer's rule: column k replaced by r */
        double B[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                B[i][j] = j == k ? r[i] : A[i][j];
        c[k] = det3(B) / det;
    }
    return 0;
}

int analysis_run_moves(const posed_frame *pf, int a, int b)
{
    enum { MIN_FRAMES = 8 };
    int m = b - a + 1;
    double t_mid = 0.5 * (pf[a].t + pf[b].t), half = 0.5 * (pf[b].t - pf[a].t);
    if (m < MIN_FRAMES || !(half > 0))
        return 0;
    double c[3][3], rss0 = 0, rss2 = 0;
    for (int ax = 0; ax < 3; ax++) {
        if (quadratic_fit(pf, a, b, ax, t_mid, half, c[ax]))
            return 0;
        double mean = 0;
        for (int i = a; i <= b; i++)
            mean += axis_of(&pf[i], ax) / m;
        for (int i = a; i <= b; i++) {
            double tau = (pf[i].t - t_mid) / half, y = axis_of(&pf[i], ax);
            double f = c[ax][0] + c[ax][1] * tau + c[ax][2] * tau * tau;
            rss0 += (y - mean) * (y - mean);
            rss2 += (y - f) * (y - f);
        }
    }
    int dof = 3 * (m - 3);
    double s2 = rss2 / dof;
    if (!(s2 > 0))
        return rss0 > 0; /* an exact path: moving if it moves at all */
    double F = (rss0 - rss2) / 6 / s2;
    /* the still rule's own test at the run's noise: the smooth path's travel from
       either end of the run */
    double travel = 0;
    for (int i = a; i <= b; i++) {
        double tau = (pf[i].t - t_mid) / half, d0 = 0, d1 = 0;
        for (int ax = 0; ax < 3; ax++) {
            double f = c[ax][0] + c[ax][1] * tau + c[ax][2] * tau * tau;
            double f0 = c[ax][0] - c[ax][1] + c[ax][2], f1 = c[ax][0] + c[ax][1] + c[ax][2];
            d0 += (f - f0) * (f - f0);
            d1 += (f - f1) * (f - f1);
        }
        travel = fmax(travel, sqrt(fmax(d0, d1)));
    }
    return gsl_cdf_fdist_Q(F, 6, dof) < 1e-6 && travel > 4 * sqrt(2.0) * sqrt(s2);
}
