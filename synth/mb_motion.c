/* mb_motion.c: a several-body scene's motion (mb_internal.h): segments of an ODE
 * between impacts, contacts found on the checkpoints and refined by Brent's method
 * (synth_contact_find), each kind's impact applied at the contact instant. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/mb_internal.h"

static int rhs_gsl(double t, const double y[], double dy[], void *params)
{
    (void)t;
    const mb_motion *m = params;
    m->kind->rhs(m, y, dy);
    return GSL_SUCCESS;
}

/* carries y from t0 to t1 (the driver is the motion's one scratch; no allocation) */
static void advance(const mb_motion *m, double t0, double t1, double *y)
{
    if (t1 == t0)
        return;
    gsl_odeiv2_driver *d = m->drv;
    gsl_odeiv2_driver_reset(d);
    gsl_odeiv2_driver_reset_hstart(d, t1 - t0);
    double t = t0;
    gsl_odeiv2_driver_apply(d, &t, t1, y);
}

static const mb_seg *seg_of(const mb_motion *m, double t)
{
    int i = m->n_seg - 1;
    while (i > 0 && t < m->seg[i].t0)
        i--;
    return &m->seg[i];
}

static void seg_y(const mb_motion *m, const mb_seg *sg, double t, double *y)
{
    int dim = m->kind->dim;
    long k = (long)floor((t - sg->t0) / sg->h);
    if (k < 0)
        k = 0;
    if (k > sg->n - 1)
        k = sg->n - 1;
    memcpy(y, sg->y + (size_t)k * dim, sizeof(double) * (size_t)dim);
    advance(m, sg->t0 + (double)k * sg->h, t, y);
}

void mb_y_at(const mb_motion *m, double t, double *y) { seg_y(m, seg_of(m, t), t, y); }

synth_mb_impact *mb_record(mb_motion *m)
{
    if (m->n_impacts >= MB_MAX_IMPACTS)
        return NULL;
    synth_mb_impact *im = &m->imp[m->n_impacts++];
    memset(im, 0, sizeof *im);
    return im;
}

static void states_at(double t, synth_state *s, void *user)
{
    const mb_motion *m = user;
    double y[MB_DIM_MAX];
    if (t <= m->t_release) {
        memcpy(y, m->y_release, sizeof y);
        m->kind->states(m, &m->seg[0], m->t_release, y, s);
        for (int i = 0; i < m->nb; i++)
            s[i].v = s[i].omega = icv_v3(0, 0, 0);
        return;
    }
    const mb_seg *sg = seg_of(m, t);
    seg_y(m, sg, t, y);
    m->kind->states(m, sg, t, y, s);
}

static void motion_free(void *user)
{
    mb_motion *m = user;
    if (!m)
        return;
    for (int i = 0; i < m->n_seg; i++)
        free(m->seg[i].y);
    if (m->drv)
        gsl_odeiv2_driver_free(m->drv);
    free(m->imp);
    free(m);
}

/* a segment from t0 (state y0) to t1, checkpoints every h */
static int seg_build(mb_motion *m, double t0, double t1, const double *y0, icv_err *err)
{
    if (m->n_seg >= MB_MAX_SEG)
        return icv_err_set(err, ICV_EINVAL, "synth: %s: more than %d impact instants", m->sc->name, MB_MAX_SEG - 1);
    int dim = m->kind->dim;
    mb_seg *sg = &m->seg[m->n_seg];
    sg->t0 = t0;
    sg->h = 1e-3;
    sg->n = (int)ceil((t1 - t0) / sg->h) + 1;
    if (sg->n < 2)
        sg->n = 2;
    sg->y = malloc(sizeof(double) * (size_t)dim * (size_t)sg->n);
    if (!sg->y)
        return icv_err_set(err, ICV_ENOMEM, "synth: out of memory");
    m->n_seg++;
    memcpy(sg->y, y0, sizeof(double) * (size_t)dim);
    for (int k = 1; k < sg->n; k++) {
        memcpy(sg->y + (size_t)k * dim, sg->y + (size_t)(k - 1) * dim, sizeof(double) * (size_t)dim);
        advance(m, t0 + (k - 1) * sg->h, t0 + k * sg->h, sg->y + (size_t)k * dim);
    }
    memcpy(sg->s0, m->pending, sizeof sg->s0);
    return 0;
}

typedef struct {
    const mb_motion *m;
    int j;
} gap_ctx;

static double gap_fn(double t, void *user)
{
    const gap_ctx *g = user;
    double y[MB_DIM_MAX], gv[MB_MAX_GAPS];
    mb_y_at(g->m, t, y);
    g->m->kind->gaps(g->m, y, gv);
    return gv[g->j];
}

/* the first contact in the last segment after its start: a gap going from above
 * 1e-12 m to <= 0 between checkpoints, refined to 1e-12 s */
static int first_contact(const mb_motion *m, double t_end, double *tc, int *jc, icv_err *err)
{
    const mb_seg *sg = &m->seg[m->n_seg - 1];
    int dim = m->kind->dim;
    double g0[MB_MAX_GAPS], g1[MB_MAX_GAPS];
    int ng = m->kind->gaps(m, sg->y, g0);
    for (int k = 1; k < sg->n; k++) {
        m->kind->gaps(m, sg->y + (size_t)k * dim, g1);
        double best = INFINITY;
        int found = 0;
        for (int j = 0; j < ng; j++) {
            if (!(g0[j] > 1e-12 && g1[j] <= 0))
                continue;
            gap_ctx c = {m, j};
            double t;
            double ta = sg->t0 + (k - 1) * sg->h, tb = sg->t0 + k * sg->h;
            int rc = synth_contact_find(gap_fn, &c, ta, tb, sg->h, 1e-12, &t, err);
            if (rc < 0)
                return rc;
            if (rc == 1 && t < best) {
                best = t;
                *jc = j;
                found = 1;
            }
        }
        if (found && best <= t_end) {
            *tc = best;
            return 1;
        }
        memcpy(g0, g1, sizeof g0);
    }
    return 0;
}

int synth_mb_flight(const synth_scenario *sc, double t_end, synth_flight **out, icv_err *err)
{
    const mb_kind *kind = sc->mb_kind == SYNTH_MB_COLLISION || sc->mb_kind == SYNTH_MB_TABLE ? &mb_kind_collision
                          : sc->mb_kind == SYNTH_MB_CHAIN   ? &mb_kind_chain
                          : sc->mb_kind == SYNTH_MB_CRADLE  ? &mb_kind_cradle
                                                            : NULL;
    if (!kind || sc->n_bodies < 1)
        return icv_err_set(err, ICV_EINVAL, "synth: %s: not a several-body scene", sc->name);
    mb_motion *m = calloc(1, sizeof *m);
    if (!m)
        return icv_err_set(err, ICV_ENOMEM, "synth: out of memory");
    m->imp = calloc(MB_MAX_IMPACTS, sizeof *m->imp);
    m->sc = sc;
    m->kind = kind;
    m->nb = sc->n_bodies;
    m->t_release = sc->release_time_s;
    m->sys = (gsl_odeiv2_system){rhs_gsl, NULL, (size_t)kind->dim, m};
    m->drv = gsl_odeiv2_driver_alloc_y_new(&m->sys, gsl_odeiv2_step_rk8pd, 1e-4, 1e-13, 1e-13);
    int rc = 0;
    if (!m->imp || !m->drv) {
        rc = icv_err_set(err, ICV_ENOMEM, "synth: out of memory");
        goto fail;
    }
    kind->init(m, m->y_release);
    double t = m->t_release, y[MB_DIM_MAX];
    memcpy(y, m->y_release, sizeof y);
    int n_contacts = 0;
    for (;;) {
        if ((rc = seg_build(m, t, t_end, y, err)))
            goto fail;
        double tc;
        int j = -1;
        rc = first_contact(m, t_end, &tc, &j, err);
        if (rc < 0)
            goto fail;
        if (rc == 0)
            break;
        rc = 0;
        /* a cradle's balls meet again and again (every pass, each pair): as many as the
           segments allow */
        int limit = sc->mb_kind == SYNTH_MB_CRADLE ? MB_MAX_SEG - 1 : sc->max_impacts;
        if (++n_contacts > limit) {
            snprintf(m->note, sizeof m->note, "stopped at %.6f s: more than %d contact instants; the bodies "
                     "pass through after", tc, limit);
            break;
        }
        mb_y_at(m, tc, y);
        if ((rc = kind->impact(m, j, tc, y, err)))
            goto fail;
        /* the segment ends at tc: drop its checkpoints beyond */
        mb_seg *sg = &m->seg[m->n_seg - 1];
        sg->n = (int)floor((tc - sg->t0) / sg->h) + 1;
        t = tc;
    }
    synth_flight *f;
    if ((rc = synth_flight_bodies(m->nb, states_at, m, motion_free, &f, err)))
        goto fail;
    *out = f;
    return 0;
fail:
    motion_free(m);
    return rc;
}

int synth_mb_n_impacts(const synth_flight *f)
{
    const mb_motion *m = synth_flight_user(f);
    return m ? m->n_impacts : 0;
}

const synth_mb_impact *synth_mb_impact_at(const synth_flight *f, int i)
{
    return &((const mb_motion *)synth_flight_user(f))->imp[i];
}

const char *synth_mb_note(const synth_flight *f)
{
    const mb_motion *m = synth_flight_user(f);
    return m ? m->note : "";
}

void synth_mb_totals(const synth_scenario *sc, const synth_state *s, icv_vec3 *p, icv_vec3 *L, double *T)
{
    *p = *L = icv_v3(0, 0, 0);
    *T = 0;
    for (int i = 0; i < sc->n_bodies; i++) {
        const synth_body *b = &sc->bodies[i];
        icv_vec3 pi = icv_v3_scale(s[i].v, b->mass);
        *p = icv_v3_add(*p, pi);
        *L = icv_v3_add(*L, icv_v3_add(icv_v3_cross(s[i].p, pi), synth_state_angular_momentum(b, &s[i])));
        *T += synth_state_energy(b, &s[i]);
    }
}
