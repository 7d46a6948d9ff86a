/* contact_linear.c: one period of constant friction ratio in 3-D contact space (spec
 * sec. 2.2, 2.5 and 3.5): u is linear and the works quadratic in p_n, so the end of
 * compression and of restitution (Newton, Poisson, Stronge) have closed forms. */
#include <math.h>

#include "solver/impact_internal.h"

void impact_contact_state_start(const contact_problem *pr, contact_state *st)
{
    st->ut[0] = pr->ut0[0];
    st->ut[1] = pr->ut0[1];
    st->un = pr->un0;
    st->pt[0] = st->pt[1] = st->pn = 0;
    st->wc = st->wr = st->wf = 0;
    st->pnc = 0;
    st->stage = 'c';
}

double impact_contact_stage_remaining(const contact_problem *pr, const contact_state *st, double rn)
{
    if (st->stage == 'c')
        return rn > 0 ? fmax(-st->un / rn, 0) : INFINITY;
    switch (pr->law) {
    case ICV_RESTITUTION_NEWTON: {
        double target = -pr->e * pr->un0;
        if (st->un >= target)
            return 0;
        return rn > 0 ? (target - st->un) / rn : INFINITY;
    }
    case ICV_RESTITUTION_POISSON:
        return fmax((1 + pr->e) * st->pnc - st->pn, 0);
    default: {
        double target = -pr->e * pr->e * st->wc - st->wr;
        if (target <= 0)
            return 0;
        double un = fmax(st->un, 0);
        double disc = un * un + 2 * rn * target;
        if (disc < 0)
            return INFINITY;
        double den = un + sqrt(disc);
        return den > 0 ? 2 * target / den : INFINITY;
    }
    }
}

int impact_contact_advance(const contact_problem *pr, contact_state *st, const double phi[2], double dp_stop,
                           double *dp_taken, icv_err *err)
{
    double rt0 = pr->B[0][0] * phi[0] + pr->B[0][1] * phi[1] + pr->d[0];
    double rt1 = pr->B[1][0] * phi[0] + pr->B[1][1] * phi[1] + pr->d[1];
    double rn = pr->d[0] * phi[0] + pr->d[1] * phi[1] + pr->w;
    if (st->stage == 'c' && !(rn > 0))
        return icv_err_set(err, ICV_ENUMERIC,
                           "impact: du_n/dp_n = %.6g <= 0 while compressing: the compression never ends "
                           "(Painleve-type inconsistency; mu too large for this geometry)",
                           rn);
    double xe = impact_contact_stage_remaining(pr, st, rn);
    if (!isfinite(xe) && !isfinite(dp_stop))
        return icv_err_set(err, ICV_ENUMERIC,
                           "impact: the restitution stage never ends (du_n/dp_n = %.6g in restitution): Painleve-type inconsistency", rn);
    int ev;
    double x;
    if (dp_stop < xe * (1 - 1e-12)) {
        x = dp_stop;
        ev = LIN_STOP;
    } else {
        x = xe;
        ev = st->stage == 'c' ? LIN_ENDC : LIN_ENDR;
        if (dp_stop <= xe * (1 + 1e-12))
            ev |= LIN_STOP; /* arrest ties with the stage boundary: both (spec 8.7) */
    }
    if (st->stage == 'r' && st->un + rn * x < -1e-12 * fabs(pr->un0))
        return icv_err_set(err, ICV_ENUMERIC,
                           "impact: the normal contact velocity turns negative in restitution (du_n/dp_n = %.6g): "
                           "Painleve-type inconsistency of this restitution law with friction",
                           rn);
    double w_n = st->un * x + 0.5 * rn * x * x;
    if (st->stage == 'c')
        st->wc += w_n;
    else
        st->wr += w_n;
    /* friction work: int u_t . phi dp_n with u_t linear */
    st->wf += phi[0] * (st->ut[0] * x + 0.5 * rt0 * x * x) + phi[1] * (st->ut[1] * x + 0.5 * rt1 * x * x);
    st->ut[0] += rt0 * x;
    st->ut[1] += rt1 * x;
    st->un += rn * x;
    st->pt[0] += phi[0] * x;
    st->pt[1] += phi[1] * x;
    st->pn += x;
    if (ev & LIN_STOP)
        st->ut[0] = st->ut[1] = 0;
    if (ev & LIN_ENDC) {
        st->un = 0;
        st->stage = 'r';
        st->pnc = st->pn;
    }
    if (dp_taken)
        *dp_taken = x;
    return ev;
}

double impact_contact_stick_ratio(const contact_problem *pr)
{
    double det = pr->B[0][0] * pr->B[1][1] - pr->B[0][1] * pr->B[1][0];
    double a = (pr->B[1][1] * pr->d[0] - pr->B[0][1] * pr->d[1]) / det;
    double b = (-pr->B[1][0] * pr->d[0] + pr->B[0][0] * pr->d[1]) / det;
    return hypot(a, b);
}
