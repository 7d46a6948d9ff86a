/* houbolt.c: the seeds' differentiation (Han Sun sec. 4.3), kept so a user can
 * compare with published numbers. Houbolt's third-order backward difference
 * (eq. 4.9, correct as printed, exact for cubics):
 *   x'(k) = (11 x_k - 18 x_{k-1} + 9 x_{k-2} - 2 x_{k-3}) / (6 dt),
 * applied to positions (4.23-4.25 as corrected in solver.md sec. 5: positions,
 * and without the spurious +g dt/2 of 4.24), mirrored (forward) after the
 * impact. omega from the euler213 rates by eq. 4.22 (reference components):
 *   omega = [[0, c1, c2 s1], [1, 0, -s2], [0, -s1, c2 c1]] (t1', t2', t3')
 * which is our R = Ry(t1) Rx(t2) Rz(t3) differentiated. */
#include <string.h>

#include "analysis/analysis_internal.h"

/* sum of squared Houbolt weights / 36 = (121 + 324 + 81 + 4) / 36 */
#define HOUBOLT_VAR (530.0 / 36.0)

static double houbolt(double x0, double x1, double x2, double x3, double dt, double sign)
{
    return sign * (11 * x0 - 18 * x1 + 9 * x2 - 2 * x3) / (6 * dt);
}

/* angle difference wrapped to (-pi, pi], so rates survive the +-pi seam */
static double unwrap(double a, double ref)
{
    double d = remainder(a - ref, 2 * M_PI);
    return ref + d;
}

void analysis_houbolt_side(const posed_frame *pf, int k, int post, double marker_sigma, const analysis_body *b,
                           side_fit *s)
{
    int st = post ? 1 : -1; /* frames k, k+st, k+2st, k+3st */
    double sign = post ? -1 : 1;
    const analysis_pose *q[4];
    for (int j = 0; j < 4; j++)
        q[j] = &pf[k + j * st].pose;
    double dt = fabs(pf[k + st].t - pf[k].t);
    icv_vec3 v, rate;
    for (int a = 0; a < 3; a++) {
        icv_v3_set(&v, a,
                   houbolt(icv_v3_get(q[0]->p, a), icv_v3_get(q[1]->p, a), icv_v3_get(q[2]->p, a),
                           icv_v3_get(q[3]->p, a), dt, sign));
        double e0 = icv_v3_get(q[0]->euler213, a);
        icv_v3_set(&rate, a,
                   houbolt(e0, unwrap(icv_v3_get(q[1]->euler213, a), e0), unwrap(icv_v3_get(q[2]->euler213, a), e0),
                           unwrap(icv_v3_get(q[3]->euler213, a), e0), dt, sign));
    }
    double c1 = cos(q[0]->euler213.x), s1 = sin(q[0]->euler213.x);
    double c2 = cos(q[0]->euler213.y), s2 = sin(q[0]->euler213.y);
    icv_vec3 w = icv_v3(c1 * rate.y + c2 * s1 * rate.z, rate.x - s2 * rate.z, -s1 * rate.y + c2 * c1 * rate.z);
    /* noise of a difference of 4 independent samples */
    double com_sd = marker_sigma / sqrt((double)b->tmpl.n_markers) * sqrt(HOUBOLT_VAR) / dt;
    double spread = 0;
    for (int m = 0; m < b->tmpl.n_markers; m++)
        spread += icv_v3_dot(b->tmpl.markers[m], b->tmpl.markers[m]);
    double ang_sd = marker_sigma / sqrt(spread > 0 ? spread : 1e-6) * sqrt(HOUBOLT_VAR) / dt;
    s->fixed = 1;
    s->t_ref = pf[k].t;
    s->p = q[0]->p;
    s->v = v;
    s->v_sd = icv_v3(com_sd, com_sd, com_sd);
    s->R = q[0]->R;
    s->t_rot = pf[k].t;
    s->omega = w;
    s->omega_sd = icv_v3(ang_sd, ang_sd, ang_sd);
    memset(s->cov_rot, 0, sizeof s->cov_rot);
    for (int a = 0; a < 3; a++)
        s->cov_rot[3 + a][3 + a] = ang_sd * ang_sd;
    if (b->tmpl.collinear) { /* no spin from a rod: keep omega perpendicular */
        icv_vec3 ax = icv_m3_apply(s->R, b->tmpl.axis);
        s->omega = icv_v3_sub(s->omega, icv_v3_scale(ax, icv_v3_dot(s->omega, ax)));
    }
}
