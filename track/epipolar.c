/* epipolar.c: association of detections across two calibrated views. The
 * fundamental matrix F = K_b^-T [t]x R K_a^-1 of the relative pose (x_b = R x_a + t,
 * R = R_b R_a^T, t = t_b - R t_a; Hartley & Zisserman eq. 9.6) maps a pixel of view a
 * to its epipolar line in view b; pairs are matched by a minimum-cost assignment on
 * the symmetric point-to-line distance (hungarian.c). Pixels are undistorted. */
#include <math.h>
#include <string.h>

#include "track/track.h"

int track_fundamental(const track_view *a, const track_view *b, icv_mat3 *F)
{
    icv_mat3 Ka, Kb, Ra, Rb, Kai, Kbi;
    memcpy(Ka.m, a->K, sizeof Ka.m);
    memcpy(Kb.m, b->K, sizeof Kb.m);
    memcpy(Ra.m, a->R, sizeof Ra.m);
    memcpy(Rb.m, b->R, sizeof Rb.m);
    if (icv_m3_inverse(Ka, &Kai) != 0 || icv_m3_inverse(Kb, &Kbi) != 0)
        return -1;
    icv_mat3 R = icv_m3_mul(Rb, icv_m3_transpose(Ra));
    icv_vec3 t = icv_v3_sub(icv_v3(b->t[0], b->t[1], b->t[2]), icv_m3_apply(R, icv_v3(a->t[0], a->t[1], a->t[2])));
    icv_mat3 E = icv_m3_mul(icv_m3_skew(t), R);
    *F = icv_m3_mul(icv_m3_mul(icv_m3_transpose(Kbi), E), Kai);
    return 0;
}

static double line_distance(icv_mat3 F, double ua, double va, double ub, double vb)
{
    icv_vec3 l = icv_m3_apply(F, icv_v3(ua, va, 1));
    double nrm = hypot(l.x, l.y);
    return nrm > 0 ? fabs(l.x * ub + l.y * vb + l.z) / nrm : INFINITY;
}

double track_epipolar_distance(const track_view *a, const track_view *b)
{
    icv_mat3 F;
    if (track_fundamental(a, b, &F) != 0)
        return INFINITY;
    return line_distance(F, a->u, a->v, b->u, b->v);
}

int track_epipolar_match(const track_view *a, int n_a, const track_view *b, int n_b, double max_px, int *match,
                         icv_err *err)
{
    enum { NA = TRACK_MAX_TRACKS, NB = 2 * TRACK_MAX_TRACKS };
    if (n_a < 0 || n_b < 0 || n_a > NA || n_b > NA)
        return icv_err_set(err, ICV_EINVAL, "epipolar match: %d and %d detections (at most %d each)", n_a, n_b, NA);
    for (int i = 0; i < n_a; i++)
        match[i] = -1;
    if (n_a == 0 || n_b == 0)
        return 0;
    icv_mat3 F, G;
    if (track_fundamental(&a[0], &b[0], &F) != 0 || track_fundamental(&b[0], &a[0], &G) != 0)
        return icv_err_set(err, ICV_EINVAL, "epipolar match: a camera matrix is singular");
    /* columns: b's detections, then one "unmatched" column per row (cost max_px) */
    double cost[NA * (NA + NB)], work[(NA + 1) + 5 * (NA + NB + 1) + NA * (NA + NB) + NA + NB + 1];
    int assign[NA], nc = n_b + n_a;
    for (int i = 0; i < n_a; i++) {
        for (int j = 0; j < n_b; j++) {
            double d = 0.5 * (line_distance(F, a[i].u, a[i].v, b[j].u, b[j].v) +
                              line_distance(G, b[j].u, b[j].v, a[i].u, a[i].v));
            cost[i * nc + j] = d < max_px ? d : 1e12;
        }
        for (int j = 0; j < n_a; j++)
            cost[i * nc + n_b + j] = j == i ? max_px : 1e12;
    }
    track_hungarian_solve(cost, n_a, nc, assign, work);
    for (int i = 0; i < n_a; i++)
        match[i] = assign[i] >= 0 && assign[i] < n_b ? assign[i] : -1;
    return 0;
}
