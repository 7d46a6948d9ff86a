/* flights.c: the free flights of a clip: between the impacts and
 * the clip's ends, each as a parabola, its launch state (velocity, speed and angle
 * above the plane square to g) at its first frame with 1-sigmas, and its own g.
 * A flight-only clip (a toss, a free fall) is measured by this alone. */
#include <math.h>
#include <stdlib.h>

#include "analysis/analysis_internal.h"

/* the angle of v above the plane square to g, degrees */
static double angle_of(icv_vec3 v, icv_vec3 g)
{
    double gn = icv_v3_norm(g);
    icv_vec3 up = gn > 0 ? icv_v3_scale(g, -1 / gn) : icv_v3(0, 1, 0);
    double vu = icv_v3_dot(v, up);
    return atan2(vu, icv_v3_norm(icv_v3_sub(v, icv_v3_scale(up, vu)))) * 180 / M_PI;
}

/* speed and angle above the plane square to g with their 1-sigmas, first order:
 * per axis (the fit's axes are independent) the 2x2 covariance of (v, g) along it,
 * cov_vg the covariance of v and g (0 when g was not fitted with v) */
static void launch_angles(analysis_flight_summary *f, icv_vec3 g, icv_vec3 g_sd, icv_vec3 cov_vg)
{
    f->speed = icv_v3_norm(f->v);
    f->angle_deg = angle_of(f->v, g);
    double s2 = 0, a2 = 0;
    for (int a = 0; a < 3; a++) {
        double sv = icv_v3_get(f->v_sd, a), sg = icv_v3_get(g_sd, a), c = icv_v3_get(cov_vg, a);
        double ds = f->speed > 0 ? icv_v3_get(f->v, a) / f->speed : 0;
        double h = 1e-6 * fmax(f->speed, 1e-3), hg = 1e-6 * fmax(icv_v3_norm(g), 1e-3);
        icv_vec3 vp = f->v, vm = f->v, gp = g, gm = g;
        icv_v3_set(&vp, a, icv_v3_get(f->v, a) + h);
        icv_v3_set(&vm, a, icv_v3_get(f->v, a) - h);
        icv_v3_set(&gp, a, icv_v3_get(g, a) + hg);
        icv_v3_set(&gm, a, icv_v3_get(g, a) - hg);
        double dv = (angle_of(vp, g) - angle_of(vm, g)) / (2 * h), dg = (angle_of(f->v, gp) - angle_of(f->v, gm)) / (2 * hg);
        s2 += ds * ds * sv * sv;
        a2 += dv * dv * sv * sv + dg * dg * sg * sg + 2 * dv * dg * c;
    }
    f->speed_sd = sqrt(s2);
    f->angle_sd_deg = sqrt(fmax(a2, 0));
}

/* cov(v, g) / sigma^2 of an equally weighted fit of p0 + v tau + g tau^2 / 2 to
 * times t[0..m-1] with tau = t - t[0]: entry (1, 2) of (X^T X)^-1 */
static double vg_factor(const double *t, int m)
{
    double A[3][3] = {{0}};
    for (int i = 0; i < m; i++) {
        double tau = t[i] - t[0], x[3] = {1, tau, 0.5 * tau * tau};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                A[a][b] += x[a] * x[b];
    }
    double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                 A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    /* cofactor (2, 1) over det, the inverse being symmetric */
    return det != 0 ? -(A[0][0] * A[1][2] - A[0][2] * A[1][0]) / det : 0;
}

int analysis_flights_fit(const posed_frame *pf, int n, const unsigned char *contact, const unsigned char *cut,
                         const analysis_tracks *tr, double com_sigma, double excl, int min_frames,
                         analysis_result *res, int *short_frames)
{
    double t_cut[ANALYSIS_MAX_IMPACTS + 2];
    int nb = 0, n_short = 0;
    t_cut[nb++] = -INFINITY;
    for (int i = 0; i < res->n_impacts; i++)
        t_cut[nb++] = res->impacts[i].t;
    t_cut[nb++] = INFINITY;
    res->n_flights = 0;
    *short_frames = 0;
    double *t = malloc(sizeof *t * (size_t)(n > 0 ? n : 1)), *sg = malloc(sizeof *sg * (size_t)(n > 0 ? n : 1));
    icv_vec3 *p = malloc(sizeof *p * (size_t)(n > 0 ? n : 1));
    if (!t || !p || !sg) {
        free(t);
        free(p);
        free(sg);
        return -1;
    }
    for (int k = 0, i0 = 0; k + 1 < nb && res->n_flights < ANALYSIS_MAX_FLIGHTS;) {
        /* the next run between the cuts, up to a frame in contact */
        int a = -1, m = 0, i = i0;
        for (; i < n; i++) {
            if (pf[i].t <= t_cut[k] + excl)
                continue;
            if (pf[i].t >= t_cut[k + 1] - excl)
                break;
            if (a >= 0 && cut && cut[i])
                break; /* a flight begins here */
            if (contact && contact[i]) {
                if (a >= 0)
                    break;
                continue;
            }
            if (a < 0)
                a = i;
            t[m] = pf[i].t;
            sg[m] = com_sigma;
            p[m++] = pf[i].pose.p;
        }
        if (i < n && ((contact && contact[i]) || (cut && cut[i] && a >= 0)) && pf[i].t < t_cut[k + 1] - excl) {
            i0 = i; /* more of this stretch after the contact or the cut */
        } else {
            k++;
            i0 = 0;
        }
        if (m < min_frames) {
            if (m > 0) {
                n_short++;
                *short_frames = m > *short_frames ? m : *short_frames;
            }
            continue;
        }
        /* the tracks' sigma, grown by the misfit where there is one: the residuals'
         * own scale is a poor sigma with a few frames (a 9-frame toss at 30 fps: 6
         * degrees of freedom per axis, g's sigma 0.4 of its error) */
        analysis_flight ph = {m, t, p, sg, t[0]};
        analysis_ballistic used, own;
        if (analysis_ballistic_fit(&ph, 1, &res->g, &used, NULL))
            continue;
        analysis_flight_summary *f = &res->flights[res->n_flights++];
        f->t_start = t[0];
        f->t_end = t[m - 1];
        f->frame_first = tr->frame[pf[a].row];
        f->frame_last = tr->frame[pf[a + m - 1].row];
        f->n_frames = m;
        f->p = used.p0[0];
        f->chi2_dof = used.chi2_dof;
        f->rms = used.rms;
        if (m >= min_frames + 1 && analysis_ballistic_fit(&ph, 1, NULL, &own, NULL) == 0) {
            /* its own g; a flight-only clip's gravity is this flight's: the launch
             * state from the same fit then, its sigma carrying g's. Between impacts
             * the shared g is used, its error not in v's sigma (docs/analysis.md). */
            f->g = own.g;
            f->g_sd = own.g_sd;
            if (res->g_estimated && res->n_impacts == 0) {
                f->p = own.p0[0];
                f->v = own.v[0];
                f->v_sd = own.v_sd[0];
            } else {
                f->v = used.v[0];
                f->v_sd = used.v_sd[0];
            }
        } else {
            f->g = res->g;
            f->g_sd = res->g_sd;
            f->v = used.v[0];
            f->v_sd = used.v_sd[0];
        }
        double grow = sqrt(fmax(1.0, f->chi2_dof));
        f->v_sd = icv_v3_scale(f->v_sd, grow);
        f->g_sd = icv_v3_scale(f->g_sd, grow);
        /* the vertical is g as measured: its tilt turns the angle; with the
         * flight's own g it is correlated with v (the same fit) */
        int own_g = res->g_estimated && res->n_impacts == 0 && f->n_frames > min_frames;
        double c = own_g ? vg_factor(t, m) * com_sigma * com_sigma * grow * grow : 0;
        launch_angles(f, res->g, own_g ? f->g_sd : res->g_sd, icv_v3(c, c, c));
    }
    free(t);
    free(p);
    free(sg);
    return n_short;
}
