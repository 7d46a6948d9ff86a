/* spatial_algebraic.c: the spatial algebraic model of Sun & Baruh 2022 sec. 3 (spec
 * sec. 2.3 item 2): in each stage the friction opposes the slip at the end of the
 * frictionless stage; a slip-arrest period uses the constant direction that drives
 * both slip components to zero together; then stick or slide along -d/|d|. */
#include <math.h>
#include <string.h>

#include "solver/impact_internal.h"

void impact_period_record(impact_result *res, char stage, impact_mode mode, const double pt0[2], double pn0,
                          const contact_state *st)
{
    if (st->pn - pn0 <= 0 || res->n_periods >= IMPACT_MAX_PERIODS)
        return;
    impact_period *p = &res->periods[res->n_periods++];
    p->stage = stage;
    p->mode = mode;
    p->impulse = icv_v3(st->pt[0] - pt0[0], st->pn - pn0, st->pt[1] - pt0[1]);
}

void impact_case_label(const contact_problem *pr, int start_slip, char stop_stage, int stick_ok, const double g[2],
                       impact_result *res)
{
    int no;
    if (!start_slip)
        no = stick_ok ? 5 : 6;
    else if (!stop_stage)
        no = 0;
    else if (stop_stage == 'c')
        no = stick_ok ? 1 : 2;
    else
        no = stick_ok ? 3 : 4;
    res->case_label[0] = (char)('0' + no);
    res->case_label[1] = 0;
    if (no == 2 || no == 4) {
        double s0 = hypot(pr->ut0[0], pr->ut0[1]), sg = hypot(g[0], g[1]);
        /* a component below 1e-9 of its vector's length has no sign (planar: z = 0) */
        int fx = pr->ut0[0] * g[0] < 0 && fabs(pr->ut0[0]) > 1e-9 * s0 && fabs(g[0]) > 1e-9 * sg;
        int fz = pr->ut0[1] * g[1] < 0 && fabs(pr->ut0[1]) > 1e-9 * s0 && fabs(g[1]) > 1e-9 * sg;
        if (fx || fz) {
            res->case_label[1] = fx && fz ? 'c' : fx ? 'b' : 'a';
            res->case_label[2] = 0;
        }
    }
}

/* B^-1 a */
static void solve2(const double B[2][2], const double a[2], double out[2])
{
    double det = B[0][0] * B[1][1] - B[0][1] * B[1][0];
    out[0] = (B[1][1] * a[0] - B[0][1] * a[1]) / det;
    out[1] = (-B[1][0] * a[0] + B[0][0] * a[1]) / det;
}

/* The arrest period (spec 2.3): the smallest p > 0 and unit h with
 * u_t + p (d - mu B h) = 0, i.e. |B^-1 (u_t q + d)| = mu with q = 1/p. */
static int arrest_direction(const contact_problem *pr, const double ut[2], double *p, double h[2])
{
    double mu = pr->mu_k;
    if (!(mu > 0)) {
        /* frictionless: the slip passes through zero only when it is antiparallel to d */
        double s = hypot(ut[0], ut[1]), dn = hypot(pr->d[0], pr->d[1]), dot = ut[0] * pr->d[0] + ut[1] * pr->d[1];
        if (!(dn > 0) || dot >= 0 || fabs(ut[0] * pr->d[1] - ut[1] * pr->d[0]) > 1e-12 * s * dn)
            return 0;
        *p = -dot / (dn * dn);
        h[0] = ut[0] / s;
        h[1] = ut[1] / s;
        return 1;
    }
    double a1[2], a2[2];
    solve2(pr->B, ut, a1);
    solve2(pr->B, pr->d, a2);
    double qa = a1[0] * a1[0] + a1[1] * a1[1];
    double qb = 2 * (a1[0] * a2[0] + a1[1] * a2[1]);
    double qc = a2[0] * a2[0] + a2[1] * a2[1] - mu * mu;
    double disc = qb * qb - 4 * qa * qc;
    if (!(qa > 0) || disc < 0)
        return 0;
    double sq = sqrt(disc);
    double roots[2] = {(-qb + sq) / (2 * qa), (-qb - sq) / (2 * qa)}; /* largest q first */
    for (int i = 0; i < 2; i++) {
        double q = roots[i];
        if (!(q > 0))
            continue;
        double hh[2] = {(a1[0] * q + a2[0]) / mu, (a1[1] * q + a2[1]) / mu};
        if (hh[0] * ut[0] + hh[1] * ut[1] <= 0)
            continue;
        *p = 1 / q;
        h[0] = hh[0];
        h[1] = hh[1];
        return 1;
    }
    return 0;
}

int impact_sb_solve(const contact_problem *pr, contact_state *st, impact_result *res, icv_err *err)
{
    impact_contact_state_start(pr, st);
    const double ratio = impact_contact_stick_ratio(pr);
    const int stick_ok = ratio <= pr->mu_s;
    const double s0 = hypot(pr->ut0[0], pr->ut0[1]);
    const int start_slip = s0 > 1e-13 * fabs(pr->un0);
    double dn = hypot(pr->d[0], pr->d[1]);
    double dhat[2] = {dn > 0 ? pr->d[0] / dn : 1, dn > 0 ? pr->d[1] / dn : 0};
    impact_mode mode = start_slip ? IMPACT_SLIDE : stick_ok ? IMPACT_STICK : IMPACT_RSLIDE;
    if (!start_slip)
        st->ut[0] = st->ut[1] = 0;
    char stop_stage = 0;
    double inv_d[2];
    solve2(pr->B, pr->d, inv_d);

    for (int iter = 0; iter < 3 * IMPACT_MAX_PERIODS; iter++) {
        double pt0[2] = {st->pt[0], st->pt[1]}, pn0 = st->pn;
        char stage = st->stage;
        impact_mode pmode = mode;
        int ev;
        if (mode == IMPACT_STICK) {
            double phi[2] = {-inv_d[0], -inv_d[1]};
            ev = impact_contact_advance(pr, st, phi, INFINITY, NULL, err);
        } else if (mode == IMPACT_RSLIDE) {
            double phi[2] = {-pr->mu_k * dhat[0], -pr->mu_k * dhat[1]};
            ev = impact_contact_advance(pr, st, phi, INFINITY, NULL, err);
        } else {
            double p0 = impact_contact_stage_remaining(pr, st, pr->w); /* frictionless stage */
            double ue[2] = {st->ut[0] + pr->d[0] * p0, st->ut[1] + pr->d[1] * p0};
            double ne = hypot(ue[0], ue[1]);
            if (!(ne > 1e-12 * hypot(st->ut[0], st->ut[1])) || !isfinite(ne)) {
                ue[0] = st->ut[0];
                ue[1] = st->ut[1];
                ne = hypot(ue[0], ue[1]);
            }
            double h[2] = {ue[0] / ne, ue[1] / ne};
            double pa, ha[2];
            int arrest = 0;
            if (arrest_direction(pr, st->ut, &pa, ha)) {
                double rn = pr->w - pr->mu_k * (pr->d[0] * ha[0] + pr->d[1] * ha[1]);
                if (pa <= impact_contact_stage_remaining(pr, st, rn) * (1 + 1e-12))
                    arrest = 1;
            }
            if (arrest) {
                double phi[2] = {-pr->mu_k * ha[0], -pr->mu_k * ha[1]};
                ev = impact_contact_advance(pr, st, phi, pa, NULL, err);
            } else {
                double phi[2] = {-pr->mu_k * h[0], -pr->mu_k * h[1]};
                ev = impact_contact_advance(pr, st, phi, INFINITY, NULL, err);
                if (ev > 0)
                    ev &= ~LIN_STOP;
            }
        }
        if (ev < 0)
            return ev;
        impact_period_record(res, stage, pmode, pt0, pn0, st);
        if ((ev & LIN_STOP) && mode == IMPACT_SLIDE) {
            mode = stick_ok ? IMPACT_STICK : IMPACT_RSLIDE;
            if (!stop_stage)
                stop_stage = stage;
        }
        if ((ev & LIN_ENDC) && pr->e == 0)
            break;
        if (ev & LIN_ENDR)
            break;
    }
    double g[2] = {pr->d[0] - pr->mu_k * (pr->B[0][0] * dhat[0] + pr->B[0][1] * dhat[1]),
                   pr->d[1] - pr->mu_k * (pr->B[1][0] * dhat[0] + pr->B[1][1] * dhat[1])};
    impact_case_label(pr, start_slip, stop_stage, stick_ok, g, res);
    return 0;
}
