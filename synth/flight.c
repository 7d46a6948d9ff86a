/* flight.c: torque-free rigid-body flight under gravity, impact to impact.
 *
 * The centre of mass is exactly ballistic. The rotation is core's icv_rigid_step:
 * Munthe-Kaas RK4 on SO(3) (Iserles, Munthe-Kaas, Norsett, Zanna, "Lie-group
 * methods", Acta Numerica 2000, sec. 5), so L is conserved to rounding and the
 * energy to O(h^4). The trajectory is kept as checkpoints every h;
 * any instant is one step from its checkpoint, so the state is a smooth function of t
 * (what the contact root finder needs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth.h"

typedef struct {
    double t0, t1, h; /* s */
    int n;            /* checkpoints computed, cp[0..n-1] at t0 + k h */
    int n_alloc;      /* checkpoints allocated: up to the run's end */
    synth_state *cp;
} segment;

struct synth_flight {
    synth_body body;
    icv_mat3 I, Iinv;
    icv_vec3 g;
    double t_release;
    synth_state release;
    int n_seg;
    segment seg[SYNTH_MAX_IMPACTS + 1];
    int n_impacts;
    synth_impact imp[SYNTH_MAX_IMPACTS];
    int frozen;          /* the simulation stopped: hold the last state */
    synth_state frozen_state;
    double frozen_time;
    char note[256];
    synth_motion_fn motion; /* an analytic motion (synth_flight_analytic): it alone gives the state */
    void *motion_user;
    int n_bodies;           /* several bodies (synth_flight_bodies): states_fn alone gives them */
    synth_states_fn states_fn;
    void *bodies_user;
    void (*bodies_free)(void *);
};

/* Rotation by core's Munthe-Kaas step (icv_rigid_step); the centre of mass is
 * exactly ballistic. */
void synth_flight_step(const icv_mat3 *I, const icv_mat3 *Iinv, icv_vec3 g, const synth_state *s, double h,
                       synth_state *out)
{
    icv_vec3 p = icv_v3_add(s->p, icv_v3_add(icv_v3_scale(s->v, h), icv_v3_scale(g, 0.5 * h * h)));
    icv_vec3 v = icv_v3_axpy(h, g, s->v);
    icv_rigid_step(s->R, s->omega, *I, *Iinv, h, &out->R, &out->omega);
    out->p = p;
    out->v = v;
}

double synth_state_energy(const synth_body *b, const synth_state *s)
{
    icv_vec3 Om = icv_m3_apply(icv_m3_transpose(s->R), s->omega);
    return 0.5 * b->mass * icv_v3_dot(s->v, s->v) + 0.5 * icv_v3_dot(Om, icv_m3_apply(b->inertia, Om));
}

icv_vec3 synth_state_angular_momentum(const synth_body *b, const synth_state *s)
{
    icv_vec3 Om = icv_m3_apply(icv_m3_transpose(s->R), s->omega);
    return icv_m3_apply(s->R, icv_m3_apply(b->inertia, Om));
}

/* Checkpoint spacing: |omega| h <= 2e-3 rad keeps the RK4 energy drift below 1e-10
 * over 1e4 steps (error per step ~ (|omega| h)^5); never more than 0.1 ms. */
static double step_for(const synth_state *s)
{
    double w = icv_v3_norm(s->omega);
    double h = 1e-4;
    if (w * h > 2e-3)
        h = 2e-3 / w;
    return h;
}

/* Allocates a segment's checkpoints up to t1; only cp[0] is computed here, the
 * rest by segment_extend as the contact search reaches them (a segment that ends
 * at an impact is never stepped past it). */
static int segment_start(segment *sg, double t0, double t1, const synth_state *s0, icv_err *err)
{
    sg->t0 = t0;
    sg->t1 = t1;
    sg->h = step_for(s0);
    double span = t1 - t0;
    if (span < 0)
        span = 0;
    long n = (long)ceil(span / sg->h) + 2;
    if (n > 20000000)
        return icv_err_set(err, ICV_EINVAL, "flight: %.3g s at steps of %.3g s is too long to simulate", span,
                           sg->h);
    sg->n_alloc = (int)n;
    sg->n = 1;
    sg->cp = malloc(sizeof(synth_state) * (size_t)n);
    if (!sg->cp)
        return icv_err_set(err, ICV_ENOMEM, "flight: out of memory (%ld checkpoints)", n);
    sg->cp[0] = *s0;
    return 0;
}

/* checkpoints computed up to cp[k] (k < n_alloc) */
static void segment_extend(const synth_flight *f, segment *sg, int k)
{
    for (; sg->n <= k; sg->n++)
        synth_flight_step(&f->I, &f->Iinv, f->g, &sg->cp[sg->n - 1], sg->h, &sg->cp[sg->n]);
}

static void segment_state(const synth_flight *f, const segment *sg, double t, synth_state *s)
{
    double x = (t - sg->t0) / sg->h;
    long k = (long)floor(x);
    if (k < 0)
        k = 0;
    if (k > sg->n - 1)
        k = sg->n - 1;
    double dt = t - (sg->t0 + (double)k * sg->h);
    if (dt == 0) {
        *s = sg->cp[k];
        return;
    }
    synth_flight_step(&f->I, &f->Iinv, f->g, &sg->cp[k], dt, s);
}

void synth_flight_state_at(const synth_flight *f, double t, synth_state *s)
{
    if (f->states_fn) {
        synth_state all[ICV_MAX_BODIES];
        f->states_fn(t, all, f->bodies_user);
        *s = all[0];
        return;
    }
    if (f->motion) {
        f->motion(t, s, f->motion_user);
        return;
    }
    if (t <= f->t_release) {
        *s = f->release;
        s->v = icv_v3(0, 0, 0);
        s->omega = icv_v3(0, 0, 0);
        return;
    }
    if (f->frozen && t >= f->frozen_time) {
        *s = f->frozen_state;
        return;
    }
    int i = f->n_seg - 1;
    while (i > 0 && t < f->seg[i].t0)
        i--;
    segment_state(f, &f->seg[i], t, s);
}

typedef struct {
    const synth_flight *f;
    const segment *sg;
} gap_ctx;

static double gap_at(double t, void *user)
{
    gap_ctx *c = user;
    synth_state s;
    segment_state(c->f, c->sg, t, &s);
    icv_vec3 cb;
    return synth_contact_gap(&c->f->body.shape, &s.R, s.p, &cb);
}

/* Gap tolerance for "the body has left the surface" after an impact: 1 nm. */
#define SEPARATED_GAP 1e-9
/* Contact time tolerance: well inside the 1e-7 s the truth promises. */
#define CONTACT_TOL_S 1e-10

static int flight_run(const synth_scenario *sc, double t_end, int states_after_last, synth_flight **out,
                      icv_err *err)
{
    *out = NULL;
    synth_flight *f = calloc(1, sizeof *f);
    if (!f)
        return icv_err_set(err, ICV_ENOMEM, "flight: out of memory");
    f->body = sc->body;
    f->I = sc->body.inertia;
    if (icv_m3_inverse(f->I, &f->Iinv)) {
        free(f);
        return icv_err_set(err, ICV_EINVAL, "flight: the inertia is singular");
    }
    f->g = sc->gravity;
    f->t_release = sc->release_time_s;
    f->release = sc->release;
    double t0 = sc->release_time_s;
    synth_state s0 = sc->release;
    int rc;
    for (;;) {
        segment *sg = &f->seg[f->n_seg];
        if ((rc = segment_start(sg, t0, t_end, &s0, err)) < 0)
            goto fail;
        f->n_seg++;
        if (f->n_impacts >= sc->max_impacts || t0 >= t_end) {
            if (states_after_last || f->n_impacts < sc->max_impacts)
                segment_extend(f, sg, sg->n_alloc - 1);
            break;
        }
        /* the first crossing from a separated state (gap > 1 nm) to contact */
        gap_ctx ctx = {f, sg};
        int separated = f->n_impacts == 0;
        double t_hit = -1;
        double g_prev = gap_at(sg->t0, &ctx);
        if (f->n_impacts == 0 && g_prev <= 0) {
            rc = icv_err_set(err, ICV_EINVAL, "flight: the body touches the surface at release (gap %.3g m)",
                             g_prev);
            goto fail;
        }
        for (int k = 1; k < sg->n_alloc; k++) {
            segment_extend(f, sg, k);
            double tk = sg->t0 + k * sg->h;
            if (tk > t_end)
                break;
            double gk = gap_at(tk, &ctx);
            if (separated && gk <= 0) {
                double tc;
                rc = synth_contact_find(gap_at, &ctx, tk - sg->h, tk, sg->h, CONTACT_TOL_S, &tc, err);
                if (rc < 0)
                    goto fail;
                t_hit = rc == 1 ? tc : tk;
                break;
            }
            if (!separated && gk < -1e-6) {
                snprintf(f->note, sizeof f->note,
                         "after impact %d the body stays in contact (resting or sliding contact is not "
                         "simulated): held still from t = %.6f s",
                         f->n_impacts, sg->t0);
                f->frozen = 1;
                f->frozen_time = sg->t0;
                f->frozen_state = sg->cp[0];
                f->frozen_state.v = icv_v3(0, 0, 0);
                f->frozen_state.omega = icv_v3(0, 0, 0);
                break;
            }
            if (gk > SEPARATED_GAP)
                separated = 1;
        }
        if (f->frozen || t_hit < 0) {
            segment_extend(f, sg, sg->n_alloc - 1);
            break;
        }
        synth_impact *im = &f->imp[f->n_impacts];
        memset(im, 0, sizeof *im);
        im->time_s = t_hit;
        segment_state(f, sg, t_hit, &im->pre);
        synth_contact_gap(&f->body.shape, &im->pre.R, im->pre.p, &im->contact_body);
        im->contact_point = icv_v3_add(icv_m3_apply(im->pre.R, im->contact_body), im->pre.p);
        if ((rc = synth_impact_solve(sc, &im->pre, im->contact_body, im, err)) < 0) {
            icv_err_prefix(err, "impact %d at t = %.6f s", f->n_impacts + 1, t_hit);
            goto fail;
        }
        f->n_impacts++;
        sg->t1 = t_hit;
        t0 = t_hit;
        s0 = im->post;
        if (f->n_seg > SYNTH_MAX_IMPACTS)
            break;
    }
    *out = f;
    return 0;
fail:
    synth_flight_free(f);
    return rc;
}

int synth_flight_run(const synth_scenario *sc, double t_end, synth_flight **out, icv_err *err)
{
    return flight_run(sc, t_end, 1, out, err);
}

int synth_flight_impacts_run(const synth_scenario *sc, double t_end, synth_flight **out, icv_err *err)
{
    return flight_run(sc, t_end, 0, out, err);
}

void synth_flight_free(synth_flight *f)
{
    if (!f)
        return;
    for (int i = 0; i < f->n_seg; i++)
        free(f->seg[i].cp);
    if (f->bodies_free)
        f->bodies_free(f->bodies_user);
    free(f);
}

int synth_flight_bodies(int n_bodies, synth_states_fn fn, void *user, void (*user_free)(void *), synth_flight **out,
                        icv_err *err)
{
    synth_flight *f = calloc(1, sizeof *f);
    if (!f)
        return icv_err_set(err, ICV_ENOMEM, "synth: out of memory");
    f->n_bodies = n_bodies;
    f->states_fn = fn;
    f->bodies_user = user;
    f->bodies_free = user_free;
    *out = f;
    return 0;
}

void synth_flight_states_at(const synth_flight *f, double t, synth_state *states)
{
    if (f->states_fn)
        f->states_fn(t, states, f->bodies_user);
    else
        synth_flight_state_at(f, t, &states[0]);
}

int synth_flight_n_bodies(const synth_flight *f) { return f->states_fn ? f->n_bodies : 1; }
void *synth_flight_user(const synth_flight *f) { return f->bodies_user; }

int synth_flight_analytic(synth_motion_fn motion, void *user, synth_flight **out, icv_err *err)
{
    synth_flight *f = calloc(1, sizeof *f);
    if (!f)
        return icv_err_set(err, ICV_ENOMEM, "synth: out of memory");
    f->motion = motion;
    f->motion_user = user;
    *out = f;
    return 0;
}

int synth_flight_n_impacts(const synth_flight *f) { return f->n_impacts; }
const synth_impact *synth_flight_impact(const synth_flight *f, int i) { return &f->imp[i]; }
const char *synth_flight_note(const synth_flight *f) { return f->note; }
