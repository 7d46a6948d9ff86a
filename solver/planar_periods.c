/* planar_periods.c: the exact planar impact by period splitting (Han Sun ch. 2; Sun &
 * Baruh 2022 sec. 2; ../shared/spec/solver.md sec. 1.2): u is linear in p_n within a
 * period of constant mode, so each period ends at the first of slip arrest, end of
 * compression or end of restitution (Newton, Poisson or Stronge, sec. 1.3). */
#include <math.h>

#include "solver/impact_internal.h"

enum { EV_STOP = 1, EV_ENDC = 2, EV_ENDR = 4 };

/* Smallest non-negative root of un x + rn x^2 / 2 = target (target >= 0, un >= 0),
 * written without cancellation; +inf when there is none. */
static double energetic_root(double un, double rn, double target)
{
    if (target <= 0)
        return 0;
    double disc = un * un + 2 * rn * target;
    if (disc < 0)
        return INFINITY;
    double den = un + sqrt(disc);
    return den > 0 ? 2 * target / den : INFINITY;
}

int impact_planar_periods(const planar_problem *pp, planar_solution *sol, icv_err *err)
{
    const double ktt = pp->ktt, ktn = pp->ktn, knn = pp->knn, mu = pp->mu_k, e = pp->e;
    const int stick_ok = fabs(ktn) <= pp->mu_s * ktt;
    const int s_rev = ktn > 0 ? 1 : -1; /* direction of a resumed slip, sgn(k_tn) */
    double ut = pp->ut0, un = pp->un0;
    /* a slip below 1e-13 of the approach speed is rounding: initial sticking */
    const int start_slip = fabs(ut) > 1e-13 * fabs(un);
    int s = ut > 0 ? 1 : -1;
    impact_mode mode;
    if (start_slip)
        mode = IMPACT_SLIDE;
    else {
        ut = 0;
        mode = stick_ok ? IMPACT_STICK : IMPACT_RSLIDE;
        s = s_rev;
    }
    char stage = 'c';
    char stop_stage = 0;
    double pt = 0, pn = 0, pnc = 0, wc = 0, wr = 0, wf = 0;
    sol->n_periods = 0;

    for (int iter = 0; iter < IMPACT_MAX_PERIODS; iter++) {
        double phi = mode == IMPACT_STICK ? -ktn / ktt : -s * mu;
        double rt = ktt * phi + ktn, rn = ktn * phi + knn;
        double x = INFINITY;
        int ev = 0;
        double xs = INFINITY;
        if (mode == IMPACT_SLIDE && rt * s < 0)
            xs = -ut / rt;
        double xe;
        if (stage == 'c') {
            if (!(rn > 0))
                return icv_err_set(err, ICV_ENUMERIC,
                                   "impact: du_n/dp_n = %.6g <= 0 while compressing (%s): the compression "
                                   "never ends (Painleve-type inconsistency; mu too large for this geometry)",
                                   rn, mode == IMPACT_STICK ? "sticking" : "sliding");
            xe = -un / rn;
        } else if (pp->law == ICV_RESTITUTION_NEWTON) {
            double target = -e * pp->un0;
            xe = un >= target ? 0 : rn > 0 ? (target - un) / rn : INFINITY;
        } else if (pp->law == ICV_RESTITUTION_POISSON) {
            xe = fmax((1 + e) * pnc - pn, 0);
        } else if (pp->hs_mass_scaled) {
            /* HS 3.50: the restitution normal impulse sqrt(2 m e^2 |W_c|) in total */
            xe = fmax(sqrt(2 * pp->hs_mass * e * e * fabs(wc)) - (pn - pnc), 0);
        } else {
            xe = energetic_root(un, rn, -e * e * wc - wr);
        }
        if (!isfinite(xe) && !isfinite(xs))
            return icv_err_set(err, ICV_ENUMERIC,
                               "impact: the restitution stage never ends (du_n/dp_n = %.6g in restitution): Painleve-type inconsistency", rn);
        /* ties: the stage boundary wins and the arrest is applied with it (spec 8.7) */
        if (xs < xe * (1 - 1e-12)) {
            x = xs;
            ev = EV_STOP;
        } else {
            x = xe;
            ev = stage == 'c' ? EV_ENDC : EV_ENDR;
            if (stage == 'c' && xs <= xe * (1 + 1e-12))
                ev |= EV_STOP;
        }
        if (stage == 'r' && un + rn * x < -1e-12 * fabs(pp->un0))
            return icv_err_set(err, ICV_ENUMERIC,
                               "impact: the normal contact velocity turns negative in restitution (du_n/dp_n = "
                               "%.6g): Painleve-type inconsistency of this restitution law with friction",
                               rn);
        double w_n = un * x + 0.5 * rn * x * x;
        if (stage == 'c')
            wc += w_n;
        else
            wr += w_n;
        wf += phi * (ut * x + 0.5 * rt * x * x);
        ut += rt * x;
        un += rn * x;
        pt += phi * x;
        pn += x;
        if (x > 0 && sol->n_periods < IMPACT_MAX_PERIODS) {
            impact_period *p = &sol->periods[sol->n_periods++];
            p->stage = stage;
            p->mode = mode;
            p->impulse = icv_v3(phi * x, x, 0);
        }
        if (ev & EV_STOP) {
            ut = 0;
            mode = stick_ok ? IMPACT_STICK : IMPACT_RSLIDE;
            s = s_rev;
            if (!stop_stage)
                stop_stage = stage;
        }
        if (ev & EV_ENDC) {
            un = 0;
            stage = 'r';
            pnc = pn;
            if (e == 0)
                break;
        }
        if (ev & EV_ENDR)
            break;
    }
    sol->pt = pt;
    sol->pn = pn;
    sol->pnc = pnc;
    sol->wc = wc;
    sol->wr = wr;
    sol->wf = wf;
    if (!start_slip)
        sol->case_no = stick_ok ? 5 : 6;
    else if (!stop_stage)
        sol->case_no = 0;
    else if (stop_stage == 'c')
        sol->case_no = stick_ok ? 1 : 2;
    else
        sol->case_no = stick_ok ? 3 : 4;
    return 0;
}
