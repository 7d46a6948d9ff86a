/* mb_cradle.c: Newton's cradle: balls in a row, each on a string (a pendulum of
 * length l from its pivot to the ball's centre, a point mass: the ball does not turn),
 * the first pulled aside and released.
 *
 * Collisions are frictionless and simultaneous along each row of touching balls (gap
 * < 1 nm): the solver's row law (Wang's Algorithm 2, linear springs of equal
 * stiffness, energetic restitution e per contact), whose spread after the first
 * collision matches Wang's measured cradle within 0.02 m/s where a sequential rule of
 * pairs cannot send ball 1 back (docs/synth.md "Several bodies"). Two balls alone
 * obey Newton's e. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solver/impact.h"
#include "synth/mb_internal.h"
#include "synth/synth_internal.h"

/* par: 0 l, 1 pivot height, 2 pivot spacing, 3 radius */
static icv_vec3 pivot(const mb_motion *m, int i)
{
    return icv_v3((i - (m->nb - 1) / 2.0) * m->par[2], m->par[1], 0);
}

static icv_vec3 tangent(double th) { return icv_v3(cos(th), sin(th), 0); }

static icv_vec3 centre(const mb_motion *m, int i, double th)
{
    return icv_v3_add(pivot(m, i), icv_v3(m->par[0] * sin(th), -m->par[0] * cos(th), 0));
}

/* y: theta (nb), then theta' (nb) */
static void rhs(const mb_motion *m, const double *y, double *dy)
{
    double w2 = -m->sc->gravity.y / m->par[0];
    for (int i = 0; i < m->nb; i++) {
        dy[i] = y[m->nb + i];
        dy[m->nb + i] = -w2 * sin(y[i]);
    }
}

static void states(const mb_motion *m, const mb_seg *sg, double t, const double *y, synth_state *s)
{
    (void)sg;
    (void)t;
    for (int i = 0; i < m->nb; i++) {
        s[i].R = icv_m3_identity();
        s[i].p = centre(m, i, y[i]);
        s[i].v = icv_v3_scale(tangent(y[i]), m->par[0] * y[m->nb + i]);
        s[i].omega = icv_v3(0, 0, 0);
    }
}

static int gaps(const mb_motion *m, const double *y, double *g)
{
    for (int i = 0; i + 1 < m->nb; i++)
        g[i] = icv_v3_norm(icv_v3_sub(centre(m, i + 1, y[i + 1]), centre(m, i, y[i]))) - 2 * m->par[3];
    return m->nb - 1;
}

static void init(mb_motion *m, double *y)
{
    const synth_scenario *sc = m->sc;
    m->par[0] = sc->cradle_length;
    m->par[1] = sc->releases[0].p.y + sc->cradle_length * cos(sc->cradle_angle);
    m->par[3] = sc->bodies[0].shape.radius;
    m->par[2] = 2 * m->par[3] + sc->cradle_gap;
    for (int i = 0; i < m->nb; i++)
        y[i] = y[m->nb + i] = 0;
    y[0] = -sc->cradle_angle;
}

/* One touching group's collision: balls first..last (each touching its neighbour) on
 * the row law along x. A ball on its string moves along its tangent t, so a push along
 * x meets the inertia m / (t.x)^2. Records one impact per contact that passed momentum,
 * its impulse the momentum passed across it (on the right-hand ball, along the line of
 * centres), all with the group's states before and after. */
static int collide_group(mb_motion *m, int first, int last, double t, double *y, icv_err *err)
{
    const synth_scenario *sc = m->sc;
    double L = m->par[0], tx[MB_MAX_GAPS + 1], m_eff[MB_MAX_GAPS + 1];
    impact_row_case rc;
    impact_row_case_init(&rc, last - first + 1);
    rc.exponent = 1;
    for (int i = first; i <= last; i++) {
        tx[i] = tangent(y[i]).x;
        m_eff[i] = sc->bodies[i].mass / (tx[i] * tx[i]);
        rc.mass[i - first] = m_eff[i];
        rc.v[i - first] = L * y[m->nb + i] * tx[i];
        if (i < last) {
            rc.stiffness[i - first] = 1;
            rc.e[i - first] = sc->mb_e;
        }
    }
    impact_row_result rr;
    if (impact_row_solve(&rc, &rr, err))
        return icv_err_prefix(err, "synth: %s: balls %d-%d at %.6f s", sc->name, first + 1, last + 1, t);
    synth_state pre[ICV_MAX_BODIES], post[ICV_MAX_BODIES];
    states(m, NULL, t, y, pre);
    for (int i = first; i <= last; i++)
        y[m->nb + i] = rr.v[i - first] / (L * tx[i]);
    states(m, NULL, t, y, post);
    double passed = 0;
    for (int i = first; i < last; i++) {
        passed -= m_eff[i] * (rr.v[i - first] - rc.v[i - first]);
        if (fabs(passed) <= 1e-12 * m_eff[i] * fabs(rc.v[0] - rc.v[last - first]))
            continue;
        synth_mb_impact *im = mb_record(m);
        if (!im)
            return icv_err_set(err, ICV_EINVAL, "synth: %s: more than %d ball collisions", sc->name, MB_MAX_IMPACTS);
        memcpy(im->pre, pre, sizeof pre);
        memcpy(im->post, post, sizeof post);
        icv_vec3 n = icv_v3_unit(icv_v3_sub(centre(m, i + 1, y[i + 1]), centre(m, i, y[i])));
        im->time_s = t;
        im->a = i;
        im->b = i + 1;
        im->normal = n;
        im->contact_point = icv_v3_axpy(m->par[3], n, pre[i].p);
        im->impulse = icv_v3_scale(n, passed / n.x);
        im->e = sc->mb_e;
        snprintf(im->case_name, sizeof im->case_name, "frictionless row");
    }
    return 0;
}

static int impact(mb_motion *m, int j, double t, double *y, icv_err *err)
{
    (void)j;
    double L = m->par[0], g[MB_MAX_GAPS];
    /* a group's collision leaves its contacts separating; a group that then touches
       another (or itself again, within the 1 nm) collides in turn */
    for (int it = 0; it < 100; it++) {
        gaps(m, y, g);
        int done = 1;
        for (int first = 0; first + 1 < m->nb;) {
            if (g[first] > 1e-9) {
                first++;
                continue;
            }
            int last = first + 1, approaching = 0;
            while (last + 1 < m->nb && g[last] <= 1e-9)
                last++;
            for (int i = first; i < last; i++)
                approaching |= L * (y[m->nb + i] * tangent(y[i]).x - y[m->nb + i + 1] * tangent(y[i + 1]).x) > 1e-12;
            if (approaching) {
                if (collide_group(m, first, last, t, y, err))
                    return -1;
                done = 0;
            }
            first = last;
        }
        if (done)
            return 0;
    }
    return icv_err_set(err, ICV_EINVAL, "synth: %s: the collisions at %.6f s did not end in 100 rounds", m->sc->name,
                       t);
}

const mb_kind mb_kind_cradle = {2 * 5, init, rhs, states, gaps, impact};

static double U(uint64_t *s, double a, double b) { return a + (b - a) * synth_uniform(s); }

void mb_cradle_scene(uint64_t *rng, int draw, synth_scenario *sc)
{
    /* Wang 2017, Table 3.1: l = 0.129 m, r = 0.011 m, e = 0.95, released at 5 pi/36 */
    double l = 0.129, r = 0.011, angle = 5 * M_PI / 36, rho = 7850; /* steel, kg/m^3 */
    sc->mb_e = 0.95;
    sc->mb_mu = 0;
    if (draw > 0) {
        l = U(rng, 0.1, 0.2);
        r = U(rng, 0.008, 0.015);
        angle = U(rng, 0.15, 0.6);
        sc->mb_e = U(rng, 0.85, 1.0);
        rho = U(rng, 2700, 8000);
    }
    double mass = rho * 4.0 / 3.0 * M_PI * r * r * r, I = 0.4 * mass * r * r;
    sc->n_bodies = 5;
    sc->cradle_length = l;
    sc->cradle_angle = angle;
    sc->cradle_gap = 0;
    double y_rest = 0.05; /* the balls' centres at rest, m above the plate */
    for (int i = 0; i < 5; i++) {
        synth_body *b = &sc->bodies[i];
        memset(b, 0, sizeof *b);
        b->mass = mass;
        b->inertia = icv_m3_diag(I, I, I);
        b->shape.type = ICV_SHAPE_SPHERE;
        b->shape.radius = r;
        b->n_markers = 1; /* the polished ball itself: a bright sphere at its centre */
        b->markers[0] = icv_v3(0, 0, 0);
        b->marker_normals[0] = icv_v3(0, 0, 1);
        b->marker_diameter = 2 * r * 1.002;
        b->marker_style = SYNTH_MARKER_SPHERE;
        b->body_gray = 0.06;
        b->marker_gray = 0.9;
        b->post_length = 0.02;
        b->post_radius = 0.0015;
        b->string_radius = 0.0004; /* a 0.8 mm thread from the pivot to the ball */
        b->string_pivot = icv_v3((i - 2) * 2 * r, y_rest + l, 0);
        snprintf(sc->body_names[i], ICV_ID_MAX, "ball%d", i + 1);
        synth_state *s = &sc->releases[i];
        s->R = icv_m3_identity();
        double th = i ? 0 : -angle, px = (i - 2) * 2 * r;
        s->p = icv_v3(px + l * sin(th), y_rest + l - l * cos(th), 0);
    }
    sc->n_cameras = 1;
    mb_camera(sc, 0, "cam", 640, 480, 700, 30, 0.002, 45, icv_v3(0, 0.07, 0.45), icv_v3(0, 0.07, 0));
}
