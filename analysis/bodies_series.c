/* bodies_series.c: a body's motion row by row for the several-body report's plots
 * (bodies.h): each row's pose, and velocity, angular velocity and kinetic energy from
 * a local straight-line fit that stops at the impacts; and a side's fitted motion
 * carried from its instant. */
#include <stdlib.h>
#include <string.h>

#include "analysis/bodies_internal.h"

void analysis_body_series_free(analysis_body_series *s)
{
    free(s->mem);
    memset(s, 0, sizeof *s);
}

/* 1 when times a and b lie on the same side of every break */
static int same_side(double a, double b, const double *breaks, int n_breaks)
{
    for (int k = 0; k < n_breaks; k++)
        if ((a - breaks[k]) * (b - breaks[k]) <= 0 && a != b)
            return 0;
    return 1;
}

int analysis_body_series_measure(const analysis_body_track *bt, const double *breaks, int n_breaks, int half_rows,
                                 const analysis_params *prm, analysis_body_series *s, icv_err *err)
{
    memset(s, 0, sizeof *s);
    const analysis_tracks *tr = bt->tracks;
    const analysis_body *b = bt->body;
    size_t n = tr->n_frames > 0 ? (size_t)tr->n_frames : 0;
    s->mem = malloc(sizeof(double) * (11 * n + 1));
    body_pose *pose = malloc(sizeof *pose * (n + 1));
    if (!s->mem || !pose) {
        free(pose);
        analysis_body_series_free(s);
        return icv_err_set(err, ICV_ENOMEM, "out of memory for the poses of %zu frames of '%s'", n,
                           bt->name ? bt->name : "a body");
    }
    double *q = s->mem;
    s->t = q, q += n;
    s->energy = q, q += n;
    for (int k = 0; k < 3; k++) {
        s->p[k] = q, q += n;
        s->v[k] = q, q += n;
        s->w[k] = q, q += n;
    }
    s->n = (int)n;
    bodies_poses(bt, prm, pose);
    int rotates = !b->tmpl.point;
    for (int i = 0; i < s->n; i++) {
        s->t[i] = tr->t[i];
        s->energy[i] = NAN;
        for (int k = 0; k < 3; k++)
            s->p[k][i] = s->v[k][i] = s->w[k][i] = NAN;
        if (!pose[i].ok)
            continue;
        for (int k = 0; k < 3; k++)
            s->p[k][i] = icv_v3_get(pose[i].p, k);
        /* slopes of the centre and of the rotation vector about row i's attitude */
        double st = 0, stt = 0, m = 0, sx[6] = {0}, stx[6] = {0};
        icv_mat3 RiT = icv_m3_transpose(pose[i].R);
        for (int j = i - half_rows; j <= i + half_rows; j++) {
            if (j < 0 || j >= s->n || !pose[j].ok || !same_side(tr->t[i], tr->t[j], breaks, n_breaks))
                continue;
            double t = tr->t[j] - tr->t[i];
            icv_vec3 phi = icv_rot_to_axis_angle(icv_m3_mul(pose[j].R, RiT));
            double x[6] = {pose[j].p.x, pose[j].p.y, pose[j].p.z, phi.x, phi.y, phi.z};
            m++, st += t, stt += t * t;
            for (int k = 0; k < 6; k++)
                sx[k] += x[k], stx[k] += t * x[k];
        }
        double d = m * stt - st * st;
        if (m < 3 || d <= 0)
            continue;
        double slope[6];
        for (int k = 0; k < 6; k++)
            slope[k] = (m * stx[k] - st * sx[k]) / d;
        icv_vec3 v = icv_v3(slope[0], slope[1], slope[2]), w = icv_v3(0, 0, 0);
        if (rotates) {
            w = icv_v3(slope[3], slope[4], slope[5]);
            if (b->tmpl.collinear) { /* the spin about the line is not seen */
                icv_vec3 a = icv_m3_apply(pose[i].R, b->tmpl.axis);
                w = icv_v3_axpy(-icv_v3_dot(a, w), a, w);
            }
        }
        for (int k = 0; k < 3; k++) {
            s->v[k][i] = icv_v3_get(v, k);
            s->w[k][i] = rotates ? icv_v3_get(w, k) : NAN;
        }
        s->energy[i] = bodies_kinetic(b, pose[i].R, v, w);
    }
    free(pose);
    return 0;
}

void analysis_body_state_at(const analysis_body *b, const analysis_body_state *s, double dt,
                            analysis_body_state *out, double *energy)
{
    *out = *s;
    bodies_state_advance(out, dt);
    if (energy)
        *energy = bodies_kinetic(b, out->R, out->v, out->omega);
}
