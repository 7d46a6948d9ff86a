/* still_run.c: whether a run of posed frames the still rule (analysis_still_ends)
 * calls still moves all the same. The still rule's limit comes from the tracks'
 * sigma, or the 0.3 mm default when they carry none, and a bounce lower than that
 * limit yet far above the tracks' real noise (a 3000 fps bar's second bounce,
 * 0.3 mm high for 16 ms, at 20 um tracks) was trimmed as a rest. The run's own
 * frames say their noise: a smooth path (a quadratic in time per axis) that
 * explains far more of the centre's scatter than a rest does (an F test), and
 * travels beyond the still limit at that noise, is motion. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_linalg.h>
#include <math.h>

#include "analysis/analysis_internal.h"

static double axis_of(const posed_frame *f, int ax)
{
    return ax == 0 ? f->pose.p.x : ax == 1 ? f->pose.p.y : f->pose.p.z;
}

/* the least-squares quadratic c[0] + c[1] tau + c[2] tau^2 of axis ax over
   pf[a..b], tau = (t - t_mid) / half, by its normal equations (Cholesky: 3 unknowns,
   no allocation); 0, or -1 when singular */
static int quadratic_fit(const posed_frame *pf, int a, int b, int ax, double t_mid, double half, double c[3])
{
    double s[5] = {0};
    for (int k = 0; k < 3; k++)
        c[k] = 0;
    for (int i = a; i <= b; i++) {
        double tau = (pf[i].t - t_mid) / half, y = axis_of(&pf[i], ax), p = 1;
        for (int k = 0; k < 5; k++, p *= tau)
            s[k] += p;
        c[0] += y, c[1] += y * tau, c[2] += y * tau * tau;
    }
    double A[9] = {s[0], s[1], s[2], s[1], s[2], s[3], s[2], s[3], s[4]};
    gsl_matrix_view Av = gsl_matrix_view_array(A, 3, 3);
    gsl_vector_view cv = gsl_vector_view_array(c, 3);
    if (gsl_linalg_cholesky_decomp1(&Av.matrix) || gsl_linalg_cholesky_svx(&Av.matrix, &cv.vector))
        return -1;
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
