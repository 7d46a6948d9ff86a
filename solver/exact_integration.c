/* exact_integration.c: the exact impact by integration over the normal impulse (Wang
 * ch. 2 / Jia & Wang, Stronge; spec sec. 3): the slip hodograph u_t' = d - mu B u_t/|u_t|
 * is integrated (GSL odeiv2, rk8pd) with events at the end of compression, the end
 * of restitution and slip arrest; after arrest the impulse is linear (stick, or
 * resumed slip along the centrifugal invariant direction) and is finished in closed form. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "solver/impact_internal.h"

enum { NY = 7 }; /* u_t (2), u_n, p_t (2), normal work, friction work */

static int rhs(double t, const double y[], double f[], void *par)
{
    (void)t;
    const contact_problem *pr = par;
    double s = sqrt(y[0] * y[0] + y[1] * y[1]); /* not hypot: this is the hot path, values O(1) */
    double h0 = s > 0 ? y[0] / s : 0, h1 = s > 0 ? y[1] / s : 0, mu = pr->mu_k;
    f[0] = pr->d[0] - mu * (pr->B[0][0] * h0 + pr->B[0][1] * h1);
    f[1] = pr->d[1] - mu * (pr->B[1][0] * h0 + pr->B[1][1] * h1);
    f[2] = pr->w - mu * (pr->d[0] * h0 + pr->d[1] * h1);
    f[3] = -mu * h0;
    f[4] = -mu * h1;
    f[5] = y[2];
    f[6] = -mu * s;
    return GSL_SUCCESS;
}

/* The event of the current stage; >= 0 once it has happened. */
static double event_value(const contact_problem *pr, char stage, double wc, double t, const double y[])
{
    if (stage == 'c')
        return y[2];
    switch (pr->law) {
    case ICV_RESTITUTION_NEWTON:
        return y[2] + pr->e * pr->un0;
    case ICV_RESTITUTION_POISSON: /* handled by the step bound (1 + e) p_nc */
        return t - (1 + pr->e) * wc;
    default:
        return (y[5] - wc) + pr->e * pr->e * wc;
    }
}

/* f = s_perp . (d - mu B s) (zero on an invariant ray) and lambda = s . (d - mu B s) */
static void invariant_residual(const contact_problem *pr, double th, double *f, double *lam)
{
    double c = cos(th), s = sin(th), mu = pr->mu_k;
    double g0 = pr->d[0] - mu * (pr->B[0][0] * c + pr->B[0][1] * s);
    double g1 = pr->d[1] - mu * (pr->B[1][0] * c + pr->B[1][1] * s);
    *f = -s * g0 + c * g1;
    *lam = c * g0 + s * g1;
}

/* d(event)/dp_n: u_n' for the normal-velocity events, u_n for the energetic one */
static double event_slope(const contact_problem *pr, char stage, const double y[], const double f[])
{
    if (stage == 'c' || pr->law == ICV_RESTITUTION_NEWTON)
        return f[2];
    return y[2];
}

/* The centrifugal invariant direction: d - mu B s = lambda s with lambda > 0 (FW Thm 5,
 * unique when ||B^-1 d|| > mu). Scan the angle in 5 degree steps, then Illinois. */
static void centrifugal_direction(const contact_problem *pr, double sdir[2])
{
    double best_lam = -INFINITY, lam;
    double dn = hypot(pr->d[0], pr->d[1]);
    sdir[0] = dn > 0 ? pr->d[0] / dn : 1;
    sdir[1] = dn > 0 ? pr->d[1] / dn : 0;
    const int n = 72;
    double fa, fb;
    invariant_residual(pr, 0, &fa, &lam);
    for (int i = 0; i < n; i++) {
        double a = 2 * M_PI * i / n, b = 2 * M_PI * (i + 1) / n;
        invariant_residual(pr, b, &fb, &lam);
        double fb_next = fb;
        if (fa * fb <= 0) {
            double ga = fa, gb = fb, x = b;
            int side = 0;
            for (int it = 0; it < 60 && b - a > 1e-15; it++) {
                x = (a * gb - b * ga) / (gb - ga);
                if (!(x > a && x < b))
                    x = 0.5 * (a + b);
                double fx;
                invariant_residual(pr, x, &fx, &lam);
                if (fabs(fx) < 1e-15 * (1 + dn))
                    break;
                if (fx * ga > 0) {
                    a = x;
                    ga = fx;
                    if (side == -1)
                        gb *= 0.5;
                    side = -1;
                } else {
                    b = x;
                    gb = fx;
                    if (side == 1)
                        ga *= 0.5;
                    side = 1;
                }
            }
            double fm;
            invariant_residual(pr, x, &fm, &lam);
            if (lam > 0 && lam > best_lam) {
                best_lam = lam;
                sdir[0] = cos(x);
                sdir[1] = sin(x);
            }
        }
        fa = fb_next;
    }
}

/* The integrator's workspace, allocated once per thread (GSL objects; freed when the
 * thread ends, by the key's destructor) so that a solve allocates nothing. */
typedef struct {
    gsl_odeiv2_step *stp;
    gsl_odeiv2_control *ctl;
    gsl_odeiv2_evolve *evo;
} exact_workspace;

static pthread_key_t ws_key;
static pthread_once_t ws_once = PTHREAD_ONCE_INIT;

static void workspace_free(void *p)
{
    exact_workspace *w = p;
    if (!w)
        return;
    if (w->evo)
        gsl_odeiv2_evolve_free(w->evo);
    if (w->ctl)
        gsl_odeiv2_control_free(w->ctl);
    if (w->stp)
        gsl_odeiv2_step_free(w->stp);
    free(w);
}

static void workspace_key(void) { pthread_key_create(&ws_key, workspace_free); }

static exact_workspace *workspace_get(double tol)
{
    pthread_once(&ws_once, workspace_key);
    exact_workspace *w = pthread_getspecific(ws_key);
    if (!w) {
        w = calloc(1, sizeof *w);
        if (!w)
            return NULL;
        w->stp = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, NY);
        w->ctl = gsl_odeiv2_control_y_new(tol, tol);
        w->evo = gsl_odeiv2_evolve_alloc(NY);
        if (!w->stp || !w->ctl || !w->evo || pthread_setspecific(ws_key, w) != 0) {
            workspace_free(w);
            return NULL;
        }
    }
    gsl_odeiv2_control_init(w->ctl, tol, tol, 1, 0);
    gsl_odeiv2_step_reset(w->stp);
    gsl_odeiv2_evolve_reset(w->evo);
    return w;
}

static void state_to_y(const contact_state *st, double y[NY])
{
    y[0] = st->ut[0];
    y[1] = st->ut[1];
    y[2] = st->un;
    y[3] = st->pt[0];
    y[4] = st->pt[1];
    y[5] = st->wc + st->wr;
    y[6] = st->wf;
}

static void y_to_state(const double y[NY], double t, double wc_end, contact_state *st)
{
    st->ut[0] = y[0];
    st->ut[1] = y[1];
    st->un = y[2];
    st->pt[0] = y[3];
    st->pt[1] = y[4];
    st->pn = t;
    if (st->stage == 'c') {
        st->wc = y[5];
        st->wr = 0;
    } else {
        st->wc = wc_end;
        st->wr = y[5] - wc_end;
    }
    st->wf = y[6];
}

/* Curved sliding until arrest (returns 1), or the end of the impact (returns 0). */
static int slide_phase(const contact_problem *pr, contact_state *st, char *stop_stage, impact_result *res,
                       icv_err *err)
{
    double tol = pr->tol > 0 ? pr->tol : 1e-12;
    gsl_odeiv2_system sys = {rhs, NULL, NY, (void *)pr};
    exact_workspace *ws = workspace_get(tol);
    if (!ws)
        return icv_err_set(err, ICV_ENOMEM, "impact: out of memory (integrator workspace)");
    gsl_odeiv2_step *stp = ws->stp;
    gsl_odeiv2_control *ctl = ws->ctl;
    gsl_odeiv2_evolve *evo = ws->evo;
    int rc = 0, arrested = 0;
    double y[NY], y0[NY], yt[NY], yerr[NY], f[NY];
    double t = st->pn, h = 0.2; /* scaled units: the impact spans p_n ~ 1 */
    double wc_end = 0; /* W_c once compression has ended */
    double pt_mark[2] = {0, 0}, pn_mark = 0;
    state_to_y(st, y);
    for (int iter = 0; iter < 100000; iter++) {
        double s = sqrt(y[0] * y[0] + y[1] * y[1]); /* O(1) in scaled units: no hypot needed */
        if (s <= 1e-13) { /* 1e-13 of the approach speed: the rest is below rounding */
            y[0] = y[1] = 0;
            y_to_state(y, t, wc_end, st);
            arrested = 1;
            break;
        }
        rhs(t, y, f, (void *)pr);
        double sdot = (y[0] * f[0] + y[1] * f[1]) / s;
        double perp = fabs(y[0] * f[1] - y[1] * f[0]) / s;
        /* a slip below 1e-10 of the approach speed that is not closing any more has
         * arrested inside the last step (the integrator's error is ~1e-11 here): stop
         * there; the velocity error is below the slip, 1e-10 */
        if (s <= 1e-10 && sdot >= 0) {
            y[0] = y[1] = 0;
            y_to_state(y, t, wc_end, st);
            arrested = 1;
            break;
        }
        double t1 = t + 100; /* scaled units: the whole impact is O(1) */
        if (sdot < 0) {
            double dp_arr = s / -sdot;
            /* nearly straight: finishing along the current direction errs by about
             * (perp/|sdot|) s in velocity, below 1e-11 of the approach speed */
            if (perp / -sdot * s < 1e-11 || s <= 1e-10) {
                y_to_state(y, t, wc_end, st);
                double phi[2] = {-pr->mu_k * y[0] / s, -pr->mu_k * y[1] / s};
                for (;;) {
                    char stage = st->stage;
                    double taken;
                    int ev = impact_contact_advance(pr, st, phi, dp_arr, &taken, err);
                    if (ev < 0) {
                        rc = ev;
                        goto done;
                    }
                    dp_arr -= taken;
                    if (ev & LIN_STOP) {
                        if (!*stop_stage)
                            *stop_stage = stage;
                        arrested = 1;
                    }
                    if ((ev & LIN_ENDC) && pr->e > 0 && !(ev & LIN_STOP))
                        continue;
                    if ((ev & LIN_ENDC) && pr->e == 0)
                        arrested = 0; /* the impact is over */
                    if (ev & LIN_ENDR)
                        arrested = 0;
                    break;
                }
                goto done;
            }
            t1 = t + 0.5 * dp_arr;
        }
        if (st->stage == 'r' && pr->law == ICV_RESTITUTION_POISSON)
            t1 = fmin(t1, (1 + pr->e) * st->pnc);
        double t0 = t;
        memcpy(y0, y, sizeof y);
        int g = gsl_odeiv2_evolve_apply(evo, ctl, stp, &sys, &t, t1, &h, y);
        res->n_steps++;
        if (g != GSL_SUCCESS) {
            rc = icv_err_set(err, ICV_ENUMERIC, "impact: exact integration failed (%s)", gsl_strerror(g));
            goto done;
        }
        if (st->stage == 'r' && y[2] < -1e-12) { /* scaled units: 1e-12 of the approach speed */
            rc = icv_err_set(err, ICV_ENUMERIC,
                             "impact: the normal contact velocity turns negative in restitution: Painleve-type "
                             "inconsistency of this restitution law with friction");
            goto done;
        }
        if (st->stage == 'r' && pr->law == ICV_RESTITUTION_POISSON) {
            if (t < (1 + pr->e) * st->pnc)
                continue;
        } else {
            double ref = st->stage == 'c' ? 0 : wc_end;
            double g1 = event_value(pr, st->stage, ref, t, y);
            if (g1 < 0)
                continue;
            /* locate the event inside [t0, t]: Newton on one rk8pd step from t0 (the event's
             * derivative is u_n' or u_n, known from the right-hand side), kept inside the
             * bracket [a, b] with a secant/bisection fallback */
            double a = 0, b = t - t0, ga = event_value(pr, st->stage, ref, t0, y0), gb = g1;
            double x = (a * gb - b * ga) / (gb - ga);
            for (int it = 0; it < 50; it++) {
                if (!(x > a && x < b))
                    x = 0.5 * (a + b);
                memcpy(yt, y0, sizeof y0);
                gsl_odeiv2_step_apply(stp, t0, x, yt, yerr, NULL, NULL, &sys);
                double gx = event_value(pr, st->stage, ref, t0 + x, yt);
                int hit = fabs(gx) < 1e-14; /* scaled units: at the event to rounding */
                if (gx >= 0 || hit) {
                    b = x;
                    gb = gx;
                    memcpy(y, yt, sizeof y);
                } else {
                    a = x;
                    ga = gx;
                }
                if (hit || b - a < 1e-14 * (1 + t0))
                    break;
                rhs(t0 + x, yt, f, (void *)pr);
                double dg = event_slope(pr, st->stage, yt, f);
                x = dg != 0 ? x - gx / dg : 0.5 * (a + b);
            }
            t = t0 + b;
            gsl_odeiv2_step_reset(stp);
            gsl_odeiv2_evolve_reset(evo);
        }
        if (st->stage == 'c') {
            y[2] = 0;
            y_to_state(y, t, wc_end, st);
            impact_period_record(res, 'c', IMPACT_SLIDE, pt_mark, pn_mark, st);
            pt_mark[0] = st->pt[0];
            pt_mark[1] = st->pt[1];
            pn_mark = st->pn;
            wc_end = y[5];
            st->stage = 'r';
            st->pnc = t;
            st->wc = wc_end;
            st->wr = 0;
            if (pr->e == 0)
                goto done;
            continue;
        }
        y_to_state(y, t, wc_end, st);
        goto done;
    }
    if (!arrested) /* the loop ran out: every other exit breaks with an arrest or jumps */
        rc = icv_err_set(err, ICV_ENUMERIC, "impact: exact integration did not finish in 100000 steps");
done:
    if (rc == 0 && st->pn > pn_mark) {
        impact_mode m = IMPACT_SLIDE;
        impact_period_record(res, st->stage, m, pt_mark, pn_mark, st);
    }
    if (rc == 0 && arrested && !*stop_stage)
        *stop_stage = st->stage;
    return rc < 0 ? rc : arrested;
}

/* A phase whose impulse direction phi is fixed (stick, reverse slide, frictionless):
 * linear in the impulse, advanced event to event (at most 4: the compression and
 * restitution ends) and recorded as mode. 0, or the error of impact_contact_advance. */
static int linear_phase(const contact_problem *pr, contact_state *st, const double phi[2], impact_mode mode,
                        impact_result *res, icv_err *err)
{
    for (int i = 0; i < 4; i++) {
        double pt0[2] = {st->pt[0], st->pt[1]}, pn0 = st->pn;
        char stage = st->stage;
        int ev = impact_contact_advance(pr, st, phi, INFINITY, NULL, err);
        if (ev < 0)
            return ev;
        impact_period_record(res, stage, mode, pt0, pn0, st);
        if ((ev & LIN_ENDR) || ((ev & LIN_ENDC) && pr->e == 0))
            break;
    }
    return 0;
}

static int solve_scaled(const contact_problem *pr, contact_state *st, impact_result *res, icv_err *err)
{
    impact_contact_state_start(pr, st);
    const int stick_ok = impact_contact_stick_ratio(pr) <= pr->mu_s;
    const double s0 = hypot(pr->ut0[0], pr->ut0[1]);
    const int start_slip = s0 > 1e-13 * fabs(pr->un0);
    char stop_stage = 0;
    int linear = 1;
    double sdir[2] = {0, 0};
    if (!start_slip) {
        st->ut[0] = st->ut[1] = 0;
    } else if (pr->mu_k > 0) {
        int rc = slide_phase(pr, st, &stop_stage, res, err);
        if (rc < 0)
            return rc;
        linear = rc == 1;
    } else {
        /* frictionless: the whole impact is one linear phase with phi = 0 */
        double phi[2] = {0, 0};
        int rc = linear_phase(pr, st, phi, IMPACT_SLIDE, res, err);
        if (rc < 0)
            return rc;
        linear = 0;
    }
    if (linear) {
        double phi[2];
        impact_mode mode;
        if (stick_ok) {
            double det = pr->B[0][0] * pr->B[1][1] - pr->B[0][1] * pr->B[1][0];
            phi[0] = -(pr->B[1][1] * pr->d[0] - pr->B[0][1] * pr->d[1]) / det;
            phi[1] = -(-pr->B[1][0] * pr->d[0] + pr->B[0][0] * pr->d[1]) / det;
            mode = IMPACT_STICK;
        } else {
            centrifugal_direction(pr, sdir);
            phi[0] = -pr->mu_k * sdir[0];
            phi[1] = -pr->mu_k * sdir[1];
            mode = IMPACT_RSLIDE;
        }
        int rc = linear_phase(pr, st, phi, mode, res, err);
        if (rc < 0)
            return rc;
    }
    /* sdir (the resumed slip) only labels cases 2 and 4, which come through the linear
     * phase above where it was computed */
    impact_case_label(pr, start_slip, stop_stage, stick_ok, sdir, res);
    return 0;
}

int impact_exact_solve(const contact_problem *pr, contact_state *st, impact_result *res, icv_err *err)
{
    /* scale velocities by the approach speed and impulses by V / K_nn so that the
     * integrator's tolerance is relative (every state component is O(1)) */
    /* frictionless: nothing curves; the linear solution (which also labels a slip that
     * passes through zero as the planar code does) is exact */
    if (pr->mu_k == 0)
        return impact_sb_solve(pr, st, res, err);
    double V = hypot(hypot(pr->ut0[0], pr->ut0[1]), pr->un0), w = pr->w;
    contact_problem ps = *pr;
    for (int i = 0; i < 2; i++) {
        ps.d[i] /= w;
        ps.ut0[i] /= V;
        for (int j = 0; j < 2; j++)
            ps.B[i][j] /= w;
    }
    ps.w = 1;
    ps.un0 /= V;
    int rc = solve_scaled(&ps, st, res, err);
    if (rc < 0)
        return rc;
    double ip = V / w, iw = V * V / w;
    for (int i = 0; i < 2; i++) {
        st->ut[i] *= V;
        st->pt[i] *= ip;
    }
    st->un *= V;
    st->pn *= ip;
    st->pnc *= ip;
    st->wc *= iw;
    st->wr *= iw;
    st->wf *= iw;
    for (int i = 0; i < res->n_periods; i++)
        res->periods[i].impulse = icv_v3_scale(res->periods[i].impulse, ip);
    return 0;
}
