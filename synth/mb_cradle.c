/* mb_cradle.c: Newton's cradle: balls in a row, each on a string (a pendulum of
 * length l from its pivot to the ball's centre, a point mass: the ball does not turn),
 * the first pulled aside and released.
 *
 * Collisions are frictionless and sequential (docs/synth.md "Several bodies"): at a
 * contact instant, of the touching pairs (gap < 1 nm) the one approaching fastest
 * collides first, with Newton's e along the line of centres (the strings taking the
 * radial impulse: 1/m_eff = (t_a.n)^2/m_a + (t_b.n)^2/m_b, t the bobs' tangents), and
 * so on until no touching pair approaches faster than 1e-12 m/s. With equal balls at
 * rest this is the wave running down the row, pair after pair. */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

static int impact(mb_motion *m, int j, double t, double *y, icv_err *err)
{
    (void)j;
    const synth_scenario *sc = m->sc;
    double L = m->par[0], g[MB_MAX_GAPS];
    for (int it = 0; it < 400; it++) {
        gaps(m, y, g);
        int best = -1;
        double ubest = -1e-12;
        icv_vec3 nb = icv_v3(1, 0, 0);
        for (int i = 0; i + 1 < m->nb; i++) {
            if (g[i] > 1e-9)
                continue;
            icv_vec3 n = icv_v3_unit(icv_v3_sub(centre(m, i + 1, y[i + 1]), centre(m, i, y[i])));
            double un = L * (y[m->nb + i + 1] * icv_v3_dot(tangent(y[i + 1]), n) -
                             y[m->nb + i] * icv_v3_dot(tangent(y[i]), n));
            if (un < ubest) {
                ubest = un;
                best = i;
                nb = n;
            }
        }
        if (best < 0)
            return 0;
        int a = best, b = best + 1;
        double ta = icv_v3_dot(tangent(y[a]), nb), tb = icv_v3_dot(tangent(y[b]), nb);
        double ma = sc->bodies[a].mass, mbb = sc->bodies[b].mass;
        double P = -(1 + sc->mb_e) * ubest / (ta * ta / ma + tb * tb / mbb);
        synth_mb_impact *im = mb_record(m);
        if (!im)
            return icv_err_set(err, ICV_EINVAL, "synth: %s: more than %d ball collisions", sc->name, MB_MAX_IMPACTS);
        states(m, NULL, t, y, im->pre);
        y[m->nb + a] -= ta * P / (ma * L);
        y[m->nb + b] += tb * P / (mbb * L);
        states(m, NULL, t, y, im->post);
        im->time_s = t;
        im->a = a;
        im->b = b;
        im->normal = nb;
        im->contact_point = icv_v3_axpy(m->par[3], nb, im->pre[a].p);
        im->impulse = icv_v3_scale(nb, P);
        im->e = sc->mb_e;
        snprintf(im->case_name, sizeof im->case_name, "frictionless");
    }
    return icv_err_set(err, ICV_EINVAL, "synth: %s: the collisions at %.6f s did not end in 400 pairs", sc->name, t);
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
