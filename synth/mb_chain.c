/* mb_chain.c: a two-link chain (two capsules pinned end to end), moving in the
 * plane z = 0, dropped onto the plate (Akhan 2019's set-up).
 *
 * Generalised coordinates q = (J, theta0, theta1): the pin J (m, x y) and each link's
 * angle about z; link i's centre is J - c_i with c_i = R(theta_i) j_i (j_i the pin in
 * link i's frame). Lagrange's equations give M(q) q'' = f(q, q'):
 *   (m0 + m1) J'' - sum m_i theta_i'' perp(c_i) = (m0 + m1) g - sum m_i theta_i'^2 c_i
 *   -m_i perp(c_i).J'' + (m_i |c_i|^2 + I_i) theta_i'' = -m_i perp(c_i).g
 * (perp(c) = z x c), solved by eliminating theta'' (M's angle block is diagonal).
 * An impact at a link's end with the plate: impulse-momentum with the pin as a
 * constraint, q'+ = q' + M^-1 A^T P (A: the contact point's velocity per q'), Newton's
 * e on the normal velocity and Coulomb friction (stick when |P_x| <= mu P_y, else
 * slide against the initial slip). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "synth/mb_internal.h"
#include "synth/synth_internal.h"

/* par: 0 1 masses, 2 3 z inertias, 4 5 j0 (x y), 6 7 j1, 8 capsule half length to the
   end centres, 9 radius */
static void link_c(const mb_motion *m, int i, double th, double c[2])
{
    double jx = m->par[4 + 2 * i], jy = m->par[5 + 2 * i], cs = cos(th), sn = sin(th);
    c[0] = cs * jx - sn * jy;
    c[1] = sn * jx + cs * jy;
}

/* solves M x = r (r: 2 J components, then one per angle) at angles th */
static void solve_M(const mb_motion *m, const double *th, const double *r, double *x)
{
    const double *par = m->par;
    double A[2][2] = {{par[0] + par[1], 0}, {0, par[0] + par[1]}}, b[2] = {r[0], r[1]}, pp[2][2], D[2];
    for (int i = 0; i < 2; i++) {
        double c[2];
        link_c(m, i, th[i], c);
        pp[i][0] = -c[1];
        pp[i][1] = c[0];
        D[i] = par[i] * (c[0] * c[0] + c[1] * c[1]) + par[2 + i];
        for (int a = 0; a < 2; a++) {
            b[a] += par[i] * pp[i][a] * r[2 + i] / D[i];
            for (int k = 0; k < 2; k++)
                A[a][k] -= par[i] * par[i] / D[i] * pp[i][a] * pp[i][k];
        }
    }
    double det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
    x[0] = (A[1][1] * b[0] - A[0][1] * b[1]) / det;
    x[1] = (A[0][0] * b[1] - A[1][0] * b[0]) / det;
    for (int i = 0; i < 2; i++)
        x[2 + i] = (r[2 + i] + par[i] * (pp[i][0] * x[0] + pp[i][1] * x[1])) / D[i];
}

/* y: J (2), theta (2), J' (2), theta' (2) */
static void rhs(const mb_motion *m, const double *y, double *dy)
{
    icv_vec3 g = m->sc->gravity;
    double r[4] = {(m->par[0] + m->par[1]) * g.x, (m->par[0] + m->par[1]) * g.y, 0, 0};
    for (int i = 0; i < 2; i++) {
        double c[2];
        link_c(m, i, y[2 + i], c);
        double w = y[6 + i];
        r[0] -= m->par[i] * w * w * c[0];
        r[1] -= m->par[i] * w * w * c[1];
        r[2 + i] = -m->par[i] * (-c[1] * g.x + c[0] * g.y);
    }
    memcpy(dy, y + 4, 4 * sizeof(double));
    solve_M(m, y + 2, r, dy + 4);
}

static void states(const mb_motion *m, const mb_seg *sg, double t, const double *y, synth_state *s)
{
    (void)sg;
    (void)t;
    for (int i = 0; i < 2; i++) {
        double c[2], w = y[6 + i];
        link_c(m, i, y[2 + i], c);
        s[i].R = icv_rot_z(y[2 + i]);
        s[i].p = icv_v3(y[0] - c[0], y[1] - c[1], 0);
        s[i].v = icv_v3(y[4] + w * c[1], y[5] - w * c[0], 0);
        s[i].omega = icv_v3(0, 0, w);
    }
}

/* the end centres of link i (s = 0: -x end, 1: +x end) */
static void end_centre(const mb_motion *m, const double *y, int i, int s, double e[2])
{
    double c[2], h = s ? m->par[8] : -m->par[8], cs = cos(y[2 + i]), sn = sin(y[2 + i]);
    link_c(m, i, y[2 + i], c);
    e[0] = y[0] - c[0] + cs * h;
    e[1] = y[1] - c[1] + sn * h;
}

static int gaps(const mb_motion *m, const double *y, double *g)
{
    for (int j = 0; j < 4; j++) {
        double e[2];
        end_centre(m, y, j / 2, j % 2, e);
        g[j] = e[1] - m->par[9];
    }
    return 4;
}

static void init(mb_motion *m, double *y)
{
    const synth_scenario *sc = m->sc;
    for (int i = 0; i < 2; i++) {
        const synth_body *b = &sc->bodies[i];
        m->par[i] = b->mass;
        m->par[2 + i] = b->inertia.m[2][2];
        m->par[4 + 2 * i] = sc->joints[0].at[i].x;
        m->par[5 + 2 * i] = sc->joints[0].at[i].y;
    }
    m->par[8] = sc->bodies[0].shape.length / 2 - sc->bodies[0].shape.radius;
    m->par[9] = sc->bodies[0].shape.radius;
    const synth_state *r0 = &sc->releases[0];
    icv_vec3 c0 = icv_m3_apply(r0->R, sc->joints[0].at[0]);
    y[0] = r0->p.x + c0.x;
    y[1] = r0->p.y + c0.y;
    for (int i = 0; i < 2; i++) {
        const synth_state *r = &sc->releases[i];
        y[2 + i] = atan2(r->R.m[1][0], r->R.m[0][0]);
        y[6 + i] = r->omega.z;
    }
    y[4] = r0->v.x - r0->omega.z * c0.y;
    y[5] = r0->v.y + r0->omega.z * c0.x;
}

static int impact(mb_motion *m, int j, double t, double *y, icv_err *err)
{
    const synth_scenario *sc = m->sc;
    int li = j / 2;
    double e[2];
    end_centre(m, y, li, j % 2, e);
    double xc[2] = {e[0], e[1] - m->par[9]}, d[2] = {y[0] - xc[0], y[1] - xc[1]};
    /* the contact point's velocity: J' - theta_li' perp(d) */
    double Ath[2] = {d[1], -d[0]}; /* -perp(d) */
    double u[2] = {y[4] + y[6 + li] * Ath[0], y[5] + y[6 + li] * Ath[1]};
    if (!(u[1] < 0))
        return 0; /* grazing: no impact */
    double col[2][4], W[2][2];
    for (int k = 0; k < 2; k++) { /* M^-1 A^T e_k and W = A M^-1 A^T */
        double r[4] = {k == 0, k == 1, 0, 0};
        r[2 + li] = Ath[k];
        solve_M(m, y + 2, r, col[k]);
    }
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 2; k++)
            W[a][k] = col[k][a] + Ath[a] * col[k][2 + li];
    double du[2] = {-u[0], -(1 + sc->mb_e) * u[1]}, det = W[0][0] * W[1][1] - W[0][1] * W[1][0];
    double P[2] = {(W[1][1] * du[0] - W[0][1] * du[1]) / det, (W[0][0] * du[1] - W[1][0] * du[0]) / det};
    int stick = P[1] > 0 && fabs(P[0]) <= sc->mb_mu * P[1];
    if (!stick) {
        double s = u[0] > 0 ? 1 : u[0] < 0 ? -1 : 0;
        double den = -s * sc->mb_mu * W[1][0] + W[1][1];
        P[1] = -(1 + sc->mb_e) * u[1] / den;
        P[0] = -s * sc->mb_mu * P[1];
        if (!(den > 0))
            return icv_err_set(err, ICV_EINVAL, "synth: %s: chain impact at %.6f s: sliding with mu %g jams "
                               "(Painleve); use a smaller mu", sc->name, t, sc->mb_mu);
    }
    synth_mb_impact *im = mb_record(m);
    if (!im)
        return icv_err_set(err, ICV_EINVAL, "synth: %s: too many impacts", sc->name);
    states(m, NULL, t, y, im->pre);
    for (int q = 0; q < 4; q++)
        y[4 + q] += col[0][q] * P[0] + col[1][q] * P[1];
    states(m, NULL, t, y, im->post);
    im->time_s = t;
    im->a = li;
    im->b = -1;
    im->contact_point = icv_v3(xc[0], xc[1], 0);
    im->normal = icv_v3(0, 1, 0);
    im->impulse = icv_v3(P[0], P[1], 0);
    /* the pin's impulse on link 1: its momentum change less the plate's share */
    icv_vec3 dp1 = icv_v3_scale(icv_v3_sub(im->post[1].v, im->pre[1].v), sc->bodies[1].mass);
    im->joint_impulse = li == 1 ? icv_v3_sub(dp1, im->impulse) : dp1;
    im->e = sc->mb_e;
    im->mu = sc->mb_mu;
    snprintf(im->case_name, sizeof im->case_name, "%s", stick ? "stick" : "slide");
    return 0;
}

const mb_kind mb_kind_chain = {8, init, rhs, states, gaps, impact};

static double U(uint64_t *s, double a, double b) { return a + (b - a) * synth_uniform(s); }

static void link_body(synth_body *b, double mass, double L, double radius, const double *mx, int n)
{
    /* a capsule whose end centres are the pin and the tip, L apart; inertia of a thin
       rod (Akhan gives no cross-section) */
    memset(b, 0, sizeof *b);
    b->mass = mass;
    b->inertia = icv_m3_diag(0.5 * mass * radius * radius, mass * L * L / 12, mass * L * L / 12);
    b->shape.type = ICV_SHAPE_CAPSULE;
    b->shape.axis = icv_v3(1, 0, 0);
    b->shape.length = L + 2 * radius;
    b->shape.radius = radius;
    b->n_markers = n;
    for (int k = 0; k < n; k++) { /* white dots on the face towards the camera */
        b->markers[k] = icv_v3(mx[k], 0, radius);
        b->marker_normals[k] = icv_v3(0, 0, 1);
    }
    b->marker_diameter = 0.005;
    b->marker_style = SYNTH_MARKER_STICKER;
    b->body_gray = 0.05;
    b->marker_gray = 0.95;
    b->post_length = 0.02;
    b->post_radius = 0.0015;
}

void mb_chain_scene(uint64_t *rng, int draw, synth_scenario *sc)
{
    /* Akhan's links (docs/synth.md): nylon, pin to tip L = 0.1524 m, tip radius 7.62 mm,
       0.0357 kg; a straight chain at theta to the plate, its tip hitting at v_Ty with
       v_Tx = 0, no spin, mu_k 0.18. Draws 1-9 are his cases 1-9 (v_Ty 1.2, 1.5, 1.8 m/s
       x theta 50, 55, 60 deg), draw 0 his case 1; later draws vary all. */
    double L = 0.1524, rad = 0.00762, m0 = 0.0357, m1 = 0.0357, vt = 1.2, th = 50 * M_PI / 180, beta = 0;
    double w0 = 0, w1 = 0;
    sc->mb_e = 0.8;
    sc->mb_mu = 0.18;
    if (draw >= 1 && draw <= 9) {
        vt = 1.2 + 0.3 * ((draw - 1) / 3);
        th = (50 + 5 * ((draw - 1) % 3)) * M_PI / 180;
    } else if (draw > 9) {
        m0 = 0.0357 * U(rng, 0.6, 1.6);
        m1 = 0.0357 * U(rng, 0.6, 1.6);
        th = U(rng, 0.6, 1.2);
        beta = U(rng, -0.6, 0.6);
        vt = U(rng, 1.0, 2.0);
        w0 = U(rng, -2, 2);
        w1 = U(rng, -2, 2);
        sc->mb_e = U(rng, 0.4, 0.9);
        sc->mb_mu = U(rng, 0.1, 0.4);
    }
    /* link1's dots at -50, 0, 50 mm from its centre; link2's at -60, 15, 55: the
       templates differ (by 10 mm and more) */
    static const double mx0[3] = {-0.05, 0, 0.05}, mx1[3] = {-0.06, 0.015, 0.055};
    sc->n_bodies = 2;
    link_body(&sc->bodies[0], m0, L, rad, mx0, 3);
    link_body(&sc->bodies[1], m1, L, rad, mx1, 3);
    snprintf(sc->body_names[0], ICV_ID_MAX, "link1");
    snprintf(sc->body_names[1], ICV_ID_MAX, "link2");
    sc->n_joints = 1;
    icv_joint *jt = &sc->joints[0];
    jt->type = ICV_JOINT_PIN;
    jt->body[0] = 0;
    jt->body[1] = 1;
    jt->at[0] = icv_v3(L / 2, 0, 0);
    jt->at[1] = icv_v3(-L / 2, 0, 0);
    /* link1's free end (its -x end) is the tip, lowest; the pin placed so that the
       lowest end is h0 = 20 mm up, and the chain released at sqrt(v_Ty^2 - 2 g h0) so
       that a spin-free chain meets the plate at v_Ty */
    double th0 = th, th1 = th + beta, h0 = 0.02, g = -sc->gravity.y;
    double v0 = sqrt(fmax(vt * vt - 2 * g * h0, 0.04));
    icv_vec3 J = icv_v3(0, 0, 0);
    double low = INFINITY;
    for (int i = 0; i < 2; i++) {
        double a = i ? th1 : th0;
        icv_vec3 c = icv_m3_apply(icv_rot_z(a), jt->at[i]);
        for (int sgn = -1; sgn <= 1; sgn += 2)
            low = fmin(low, -c.y + sgn * (L / 2) * sin(a) - rad);
    }
    J.y = h0 - low;
    J.x = 0.5 * L * cos(th0); /* the tip near x = 0 */
    for (int i = 0; i < 2; i++) {
        synth_state *r = &sc->releases[i];
        double a = i ? th1 : th0, w = i ? w1 : w0;
        r->R = icv_rot_z(a);
        icv_vec3 c = icv_m3_apply(r->R, jt->at[i]);
        r->p = icv_v3_sub(J, c);
        r->omega = icv_v3(0, 0, w);
        r->v = icv_v3(w * c.y, -v0 - w * c.x, 0); /* the pin moves at (0, -v0) */
    }
    sc->n_cameras = 1;
    double fps = 6000;
    /* the clip: to the spin-free impact, then 15 ms (90 frames) or as asked */
    int frames = (int)(((vt - v0) / g + (sc->mb_after_s > 0 ? sc->mb_after_s : 0.015)) * fps);
    mb_camera(sc, 0, "cam", 512, 418, 600, fps, 0.5 / fps, frames, icv_v3(0.05, 0.12, 0.5), icv_v3(0.05, 0.12, 0));
    sc->render.flash_duration_s = 0.0005;
}
