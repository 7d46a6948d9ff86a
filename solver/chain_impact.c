/* chain_impact.c: a planar two-link chain, pinned at a joint, hitting the surface with
 * link 0 (Akhan 2019 in rigid form): generalised velocities q = (v0x, v0y, w0, v1x, v1y,
 * w1), the pin's constraint G q = 0, the contact velocity u = J q; the impulse P at the
 * contact changes q by A J^T P with A the constrained mobility, so the contact sees
 * K = J A J^T and the planar model applies unchanged. */
#include <math.h>
#include <string.h>

#include "solver/impact.h"

enum { NQ = 6 };

/* rows of the velocity of point p on link i (x and y) in q */
static void point_rows(int i, icv_vec3 centre, icv_vec3 p, double sign, double gx[NQ], double gy[NQ])
{
    gx[3 * i] += sign;
    gx[3 * i + 2] += -sign * (p.y - centre.y);
    gy[3 * i + 1] += sign;
    gy[3 * i + 2] += sign * (p.x - centre.x);
}

static double dot6(const double a[NQ], const double b[NQ])
{
    double s = 0;
    for (int i = 0; i < NQ; i++)
        s += a[i] * b[i];
    return s;
}

int impact_chain_solve(const impact_chain_case *c, impact_chain_result *res, icv_err *err)
{
    memset(res, 0, sizeof *res);
    for (int i = 0; i < 2; i++) {
        if (!(c->mass[i] > 0) || !isfinite(c->mass[i]) || !(c->inertia[i] > 0) || !isfinite(c->inertia[i]))
            return icv_err_set(err, ICV_EINVAL, "chain: link %d: mass %g kg and inertia %g kg m^2 must be > 0", i,
                               c->mass[i], c->inertia[i]);
        if (!isfinite(c->v[i].x) || !isfinite(c->v[i].y) || !isfinite(c->omega[i]) || !isfinite(c->centre[i].x) ||
            !isfinite(c->centre[i].y))
            return icv_err_set(err, ICV_EINVAL, "chain: link %d: centre, v or omega is not finite", i);
    }
    double minv[NQ] = {1 / c->mass[0], 1 / c->mass[0], 1 / c->inertia[0],
                       1 / c->mass[1], 1 / c->mass[1], 1 / c->inertia[1]};
    double q0[NQ] = {c->v[0].x, c->v[0].y, c->omega[0], c->v[1].x, c->v[1].y, c->omega[1]};
    /* the pin: link 0's joint velocity minus link 1's */
    double G[2][NQ] = {{0}}, J[2][NQ] = {{0}};
    point_rows(0, c->centre[0], c->joint, 1, G[0], G[1]);
    point_rows(1, c->centre[1], c->joint, -1, G[0], G[1]);
    point_rows(0, c->centre[0], c->contact, 1, J[0], J[1]);
    double gap = hypot(dot6(G[0], q0), dot6(G[1], q0));
    double speed = 0;
    for (int i = 0; i < 2; i++)
        speed = fmax(speed, hypot(c->v[i].x, c->v[i].y) + fabs(c->omega[i]) * hypot(c->joint.x - c->centre[i].x,
                                                                                      c->joint.y - c->centre[i].y));
    if (gap > 1e-9 * speed || !(speed > 0 || gap == 0))
        return icv_err_set(err, ICV_EINVAL, "chain: the pin's velocity on link 0 and on link 1 differ by %g m/s", gap);
    /* S = G M^-1 G^T (2x2), A = M^-1 - M^-1 G^T S^-1 G M^-1 */
    double S[2][2];
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            S[a][b] = 0;
            for (int k = 0; k < NQ; k++)
                S[a][b] += G[a][k] * minv[k] * G[b][k];
        }
    double det = S[0][0] * S[1][1] - S[0][1] * S[1][0];
    if (!(fabs(det) > 0))
        return icv_err_set(err, ICV_EINVAL, "chain: the pin's constraint is singular");
    double Si[2][2] = {{S[1][1] / det, -S[0][1] / det}, {-S[1][0] / det, S[0][0] / det}};
    double A[NQ][NQ];
    for (int i = 0; i < NQ; i++)
        for (int j = 0; j < NQ; j++) {
            double s = 0;
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++)
                    s += minv[i] * G[a][i] * Si[a][b] * G[b][j] * minv[j];
            A[i][j] = (i == j ? minv[i] : 0) - s;
        }
    /* AJ = A J^T (6x2), K = J A J^T */
    double AJ[NQ][2];
    for (int i = 0; i < NQ; i++)
        for (int a = 0; a < 2; a++) {
            AJ[i][a] = 0;
            for (int k = 0; k < NQ; k++)
                AJ[i][a] += A[i][k] * J[a][k];
        }
    impact_contact_case cc = {.mu_s = c->mu_s, .mu_k = c->mu_k, .e_n = c->e_n, .law = c->law,
                              .method = IMPACT_EXACT, .planar = 1};
    cc.K = icv_m3_diag(0, 0, 0);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            double s = 0;
            for (int k = 0; k < NQ; k++)
                s += J[a][k] * AJ[k][b];
            cc.K.m[a][b] = s;
        }
    cc.K.m[0][1] = cc.K.m[1][0] = 0.5 * (cc.K.m[0][1] + cc.K.m[1][0]);
    cc.u0 = icv_v3(dot6(J[0], q0), dot6(J[1], q0), 0);
    int rc = impact_contact_solve(&cc, &res->contact, err);
    if (rc < 0) {
        icv_err_prefix(err, "chain: ");
        return rc;
    }
    double P[2] = {res->contact.impulse.x, res->contact.impulse.y}, q1[NQ];
    for (int i = 0; i < NQ; i++)
        q1[i] = q0[i] + AJ[i][0] * P[0] + AJ[i][1] * P[1];
    for (int i = 0; i < 2; i++) {
        res->v[i] = icv_v3(q1[3 * i], q1[3 * i + 1], 0);
        res->omega[i] = q1[3 * i + 2];
        res->energy_pre[i] = 0.5 * c->mass[i] * (q0[3 * i] * q0[3 * i] + q0[3 * i + 1] * q0[3 * i + 1]) +
                             0.5 * c->inertia[i] * q0[3 * i + 2] * q0[3 * i + 2];
        res->energy_post[i] = 0.5 * c->mass[i] * (q1[3 * i] * q1[3 * i] + q1[3 * i + 1] * q1[3 * i + 1]) +
                              0.5 * c->inertia[i] * q1[3 * i + 2] * q1[3 * i + 2];
        res->e_energetic[i] = res->energy_pre[i] > 0 ? sqrt(res->energy_post[i] / res->energy_pre[i]) : NAN;
    }
    double e0 = res->energy_pre[0] + res->energy_pre[1], e1 = res->energy_post[0] + res->energy_post[1];
    res->e_energetic[2] = e0 > 0 ? sqrt(e1 / e0) : NAN;
    /* only the pin acts on link 1 */
    res->joint_impulse = icv_v3_scale(icv_v3_sub(res->v[1], c->v[1]), c->mass[1]);
    res->joint_impulse.z = 0;
    res->contact.v = res->v[0];
    res->contact.omega = icv_v3(0, 0, res->omega[0]);
    res->contact.energy_pre = e0;
    res->contact.energy_post = e1;
    res->contact.loss_fraction = e0 > 0 ? 1 - e1 / e0 : 0;
    icv_vec3 r = icv_v3_sub(c->contact, c->centre[0]);
    res->contact.contact_velocity = icv_v3(res->v[0].x - res->omega[0] * r.y, res->v[0].y + res->omega[0] * r.x, 0);
    return 0;
}
