/* nbody_row.c: Wang's frictionless n-body collision of balls in a row (ch. 3 sec. 3.2,
 * Algorithm 2) as the time integration of its virtual springs (GSL odeiv2 rk8pd), in
 * units scaled by the largest approach speed V, the heaviest mass and the stiffest
 * spring, with the contact events (end of compression, separation, re-approach)
 * located by bisection on one rk8pd step. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <string.h>

#include "solver/impact.h"

enum { OPEN = 0, COMPRESS = 1, RESTITUTE = 2 };
enum { MAX_EVENTS = 2000, MAX_STEPS = 2000000 };

typedef struct {
    int n;
    double exponent;
    double inv_m[IMPACT_ROW_MAX];  /* m_ref / m_i */
    double k[IMPACT_ROW_MAX - 1];  /* current stiffness / k_ref */
    double s[IMPACT_ROW_MAX - 1];  /* overlap at which the restitution force vanishes */
    int phase[IMPACT_ROW_MAX - 1];
} row_state;

/* y = (v_0..v_{n-1}, x_0..x_{n-2}) scaled */
static double force(const row_state *st, int c, double x)
{
    double d = x - st->s[c];
    return st->phase[c] != OPEN && d > 0 ? st->k[c] * pow(d, st->exponent) : 0;
}

static int rhs(double t, const double y[], double f[], void *par)
{
    (void)t;
    const row_state *st = par;
    int n = st->n;
    for (int i = 0; i < n; i++)
        f[i] = 0;
    for (int c = 0; c < n - 1; c++) {
        double F = force(st, c, y[n + c]);
        f[c] -= F * st->inv_m[c];
        f[c + 1] += F * st->inv_m[c + 1];
        f[n + c] = st->phase[c] != OPEN ? y[c] - y[c + 1] : 0;
    }
    return GSL_SUCCESS;
}

/* The event function of contact c in its phase; the event happens when it turns
 * <= 0 (compression, restitution) or > 0 (open: re-approach). */
static double event_value(const row_state *st, int c, const double y[])
{
    int n = st->n;
    if (st->phase[c] == RESTITUTE)
        return y[n + c] - st->s[c];
    return y[c] - y[c + 1];
}

static int event_happened(const row_state *st, int c, const double y0[], const double y1[])
{
    double a = event_value(st, c, y0), b = event_value(st, c, y1);
    if (st->phase[c] == OPEN)
        return a <= 0 && b > 0;
    if (st->phase[c] == COMPRESS)
        return a > 0 && b <= 0;
    return b <= 0;
}

static int any_event(const row_state *st, const double y0[], const double y1[])
{
    for (int c = 0; c < st->n - 1; c++)
        if (event_happened(st, c, y0, y1))
            return 1;
    return 0;
}

void impact_row_case_init(impact_row_case *c, int n)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    for (int i = 0; i < IMPACT_ROW_MAX; i++)
        c->mass[i] = 1;
    for (int i = 0; i < IMPACT_ROW_MAX - 1; i++) {
        c->stiffness[i] = 1;
        c->e[i] = 1;
    }
    c->exponent = 1;
}

double impact_row_pendulum_speed(double length, double theta0, double g) { return theta0 * sqrt(g * length); }

static int check_row(const impact_row_case *c, icv_err *err)
{
    if (c->n < 2 || c->n > IMPACT_ROW_MAX)
        return icv_err_set(err, ICV_EINVAL, "row: %d balls, need 2..%d", c->n, IMPACT_ROW_MAX);
    if (!(c->exponent > 0) || !isfinite(c->exponent))
        return icv_err_set(err, ICV_EINVAL, "row: contact exponent %g, must be > 0", c->exponent);
    for (int i = 0; i < c->n; i++) {
        if (!(c->mass[i] > 0) || !isfinite(c->mass[i]))
            return icv_err_set(err, ICV_EINVAL, "row: ball %d: mass %g kg, must be > 0", i + 1, c->mass[i]);
        if (!isfinite(c->v[i]))
            return icv_err_set(err, ICV_EINVAL, "row: ball %d: v is not finite", i + 1);
    }
    for (int i = 0; i < c->n - 1; i++) {
        if (!(c->stiffness[i] > 0) || !isfinite(c->stiffness[i]))
            return icv_err_set(err, ICV_EINVAL, "row: contact %d-%d: stiffness %g, must be > 0", i + 1, i + 2,
                               c->stiffness[i]);
        if (!(c->e[i] >= 0 && c->e[i] <= 1))
            return icv_err_set(err, ICV_EINVAL, "row: contact %d-%d: e = %g, must be in [0, 1]", i + 1, i + 2, c->e[i]);
    }
    return 0;
}

/* The phase changes at an event state y (scaled); counts compressions. */
static void apply_events(row_state *st, const impact_row_case *c, const double kratio[], const double y0[], double y[],
                         int *n_comp)
{
    int n = st->n;
    for (int k = 0; k < n - 1; k++) {
        if (!event_happened(st, k, y0, y))
            continue;
        if (st->phase[k] == COMPRESS) {
            double xm = y[n + k];
            if (xm <= 0 || c->e[k] == 0) {
                st->phase[k] = OPEN; /* nothing stored, or all of it lost */
                continue;
            }
            /* keep e^2 of the energy k xm^(p+1)/(p+1) at the same force: k' = k e^-2p,
             * restitution overlap e^2 xm, so s = (1 - e^2) xm */
            st->phase[k] = RESTITUTE;
            st->k[k] *= pow(c->e[k], -2 * st->exponent);
            st->s[k] = (1 - c->e[k] * c->e[k]) * xm;
        } else if (st->phase[k] == RESTITUTE) {
            st->phase[k] = OPEN;
        } else {
            st->phase[k] = COMPRESS;
            st->k[k] = kratio[k];
            st->s[k] = 0;
            y[n + k] = 0;
            ++*n_comp;
        }
    }
}

int impact_row_solve(const impact_row_case *c, impact_row_result *res, icv_err *err)
{
    memset(res, 0, sizeof *res);
    int rc = check_row(c, err);
    if (rc < 0)
        return rc;
    int n = c->n, dim = 2 * n - 1;
    double V = 0, mref = 0, kref = 0;
    for (int i = 0; i < n - 1; i++) {
        V = fmax(V, c->v[i] - c->v[i + 1]);
        kref = fmax(kref, c->stiffness[i]);
    }
    for (int i = 0; i < n; i++)
        mref = fmax(mref, c->mass[i]);
    if (!(V > 0))
        return icv_err_set(err, ICV_EINVAL, "row: no neighbouring balls approach (v_i <= v_i+1 everywhere): no impact");
    /* scales: overlap X = (m V^2 / k)^(1/(p+1)), time X / V */
    double X = pow(mref * V * V / kref, 1 / (c->exponent + 1)), T = X / V;
    row_state st = {.n = n, .exponent = c->exponent};
    double kratio[IMPACT_ROW_MAX - 1];
    double y[2 * IMPACT_ROW_MAX], y0[2 * IMPACT_ROW_MAX], yt[2 * IMPACT_ROW_MAX];
    for (int i = 0; i < n; i++) {
        st.inv_m[i] = mref / c->mass[i];
        y[i] = c->v[i] / V;
        res->energy_pre += 0.5 * c->mass[i] * c->v[i] * c->v[i];
        res->momentum_pre += c->mass[i] * c->v[i];
    }
    for (int i = 0; i < n - 1; i++) {
        kratio[i] = c->stiffness[i] / kref;
        st.k[i] = kratio[i];
        /* Algorithm 2 starts with every contact active (A = P) */
        st.phase[i] = COMPRESS;
        y[n + i] = 0;
        res->n_compressions++;
    }
    gsl_odeiv2_system sys = {rhs, NULL, (size_t)dim, &st};
    gsl_odeiv2_step *step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, (size_t)dim);
    gsl_odeiv2_control *ctl = gsl_odeiv2_control_y_new(1e-13, 1e-13);
    gsl_odeiv2_evolve *ev = gsl_odeiv2_evolve_alloc((size_t)dim);
    if (!step || !ctl || !ev) {
        rc = icv_err_set(err, ICV_ENOMEM, "row: out of memory for the integrator");
        goto out;
    }
    double t = 0, h = 1e-3, fmax_s[IMPACT_ROW_MAX - 1] = {0};
    int events = 0;
    for (;;) {
        /* finished when every contact is open and no neighbours approach */
        int busy = 0;
        for (int k = 0; k < n - 1; k++)
            busy |= st.phase[k] != OPEN || y[k] - y[k + 1] > 1e-14;
        if (!busy)
            break;
        /* an open pair that already approaches (at the start, or exactly at an event)
         * closes now */
        for (int k = 0; k < n - 1; k++)
            if (st.phase[k] == OPEN && y[k] - y[k + 1] > 1e-14) {
                st.phase[k] = COMPRESS;
                st.k[k] = kratio[k];
                st.s[k] = 0;
                y[n + k] = 0;
                res->n_compressions++;
            }
        /* a compressing contact with no overlap that separates was never loaded */
        for (int k = 0; k < n - 1; k++)
            if (st.phase[k] == COMPRESS && y[n + k] <= 0 && y[k] - y[k + 1] < 0)
                st.phase[k] = OPEN;
        if (res->n_steps >= MAX_STEPS || events >= MAX_EVENTS) {
            rc = icv_err_set(err, ICV_ENUMERIC, "row: the collision does not finish (%d steps, %d contact events)",
                             res->n_steps, events);
            goto out;
        }
        memcpy(y0, y, sizeof(double) * dim);
        double t0 = t;
        int grc = gsl_odeiv2_evolve_apply(ev, ctl, step, &sys, &t, t + 1e6, &h, y);
        res->n_steps++;
        if (grc != GSL_SUCCESS) {
            rc = icv_err_set(err, ICV_ENUMERIC, "row: integration failed at t = %g s (%s)", t * T, gsl_strerror(grc));
            goto out;
        }
        if (any_event(&st, y0, y)) {
            /* the first event: the shortest single rk8pd step from y0 on which one happens */
            double lo = 0, hi = t - t0, yerr[2 * IMPACT_ROW_MAX];
            memcpy(yt, y, sizeof(double) * dim);
            for (int it = 0; it < 60 && hi - lo > 1e-15 * (t0 + hi); it++) {
                double mid = 0.5 * (lo + hi);
                double ym[2 * IMPACT_ROW_MAX];
                memcpy(ym, y0, sizeof(double) * dim);
                gsl_odeiv2_step_reset(step);
                if (gsl_odeiv2_step_apply(step, t0, mid, ym, yerr, NULL, NULL, &sys) != GSL_SUCCESS)
                    break;
                if (any_event(&st, y0, ym)) {
                    hi = mid;
                    memcpy(yt, ym, sizeof(double) * dim);
                } else {
                    lo = mid;
                }
            }
            memcpy(y, yt, sizeof(double) * dim);
            t = t0 + hi;
            gsl_odeiv2_evolve_reset(ev);
            gsl_odeiv2_step_reset(step);
            for (int k = 0; k < n - 1; k++)
                fmax_s[k] = fmax(fmax_s[k], force(&st, k, y[n + k]));
            apply_events(&st, c, kratio, y0, y, &res->n_compressions);
            events++;
        }
        for (int k = 0; k < n - 1; k++)
            fmax_s[k] = fmax(fmax_s[k], force(&st, k, y[n + k]));
    }
    for (int i = 0; i < n; i++) {
        res->v[i] = y[i] * V;
        res->energy_post += 0.5 * c->mass[i] * res->v[i] * res->v[i];
        res->momentum_post += c->mass[i] * res->v[i];
    }
    for (int k = 0; k < n - 1; k++)
        res->max_force[k] = fmax_s[k] * kref * pow(X, c->exponent);
    res->duration = t * T;
    rc = 0;
out:
    if (ev)
        gsl_odeiv2_evolve_free(ev);
    if (ctl)
        gsl_odeiv2_control_free(ctl);
    if (step)
        gsl_odeiv2_step_free(step);
    return rc;
}
