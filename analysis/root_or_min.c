/* root_or_min.c: where a gap first reaches zero between two instants, the one
 * root finder of the impact instants (one body and the surface, two bodies, a
 * chain's link) */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

#include "analysis/analysis_internal.h"

double analysis_root_or_min(double (*f)(double, void *), void *data, double lo, double hi, double tol,
                            double fallback)
{
    double flo = f(lo, data), fhi = f(hi, data);
    if ((flo > 0) != (fhi > 0)) {
        gsl_function F = {f, data};
        gsl_root_fsolver *rs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
        double root = 0.5 * (lo + hi);
        if (rs && gsl_root_fsolver_set(rs, &F, lo, hi) == GSL_SUCCESS) {
            for (int it = 0; it < 100; it++) {
                if (gsl_root_fsolver_iterate(rs) != GSL_SUCCESS)
                    break;
                double a = gsl_root_fsolver_x_lower(rs), b = gsl_root_fsolver_x_upper(rs);
                if (gsl_root_test_interval(a, b, tol, 0) == GSL_SUCCESS)
                    break;
            }
            root = gsl_root_fsolver_root(rs);
        }
        gsl_root_fsolver_free(rs);
        return root;
    }
    /* no crossing: where |f| is smallest (a grazing contact) */
    double best = fallback, bg = INFINITY;
    for (int i = 0; i <= 64; i++) {
        double x = lo + (hi - lo) * i / 64.0, g = fabs(f(x, data));
        if (g < bg)
            bg = g, best = x;
    }
    return best;
}
