/* mode_criteria.c: the closed-form planar mode criteria of Sun & Baruh 2022 eqs. 25-29
 * and Table 2 as re-derived in ../shared/spec/solver.md sec. 1.5 (R2 against mu_s, |R2|
 * when V = 0), and Han Sun's critical mu for sliding (2.33) as the R3 boundary. */
#include <math.h>

#include "solver/impact_internal.h"

/* K entries with t along the initial slip (flip t when the slip is along -x) */
static void oriented(const planar_problem *pp, double *ktn, double *v, double *u)
{
    double s = pp->ut0 < 0 ? -1 : 1;
    *ktn = s * pp->ktn;
    *v = fabs(pp->ut0);
    *u = -pp->un0;
}

void impact_planar_criteria(const planar_problem *pp, double *r1, double *r2, double *r3)
{
    double ktn, v, u;
    oriented(pp, &ktn, &v, &u);
    double mu = pp->mu_k;
    *r1 = (mu * pp->ktt - ktn) / (pp->knn - mu * ktn);
    *r2 = -ktn / pp->ktt;
    *r3 = (1 + pp->e) * *r1;
}

int impact_planar_case_predicted(const planar_problem *pp)
{
    double r1, r2, r3, ktn, v, u;
    impact_planar_criteria(pp, &r1, &r2, &r3);
    oriented(pp, &ktn, &v, &u);
    if (!(v > 1e-13 * u))
        return fabs(r2) <= pp->mu_s ? 5 : 6;
    double q = v / u;
    if (q > r3)
        return 0;
    if (q > r1)
        return r2 <= pp->mu_s ? 3 : 4;
    return r2 <= pp->mu_s ? 1 : 2;
}

double impact_planar_mu_sliding(const planar_problem *pp)
{
    double ktn, v, u;
    oriented(pp, &ktn, &v, &u);
    double q = v / u, e = pp->e;
    /* (1 + e)(mu k_tt - k_tn) = q (k_nn - mu k_tn), solved for mu */
    return (q * pp->knn + (1 + e) * ktn) / ((1 + e) * pp->ktt + q * ktn);
}
