/* bodies_series.c: a body's motion row by row for the several-body report's plots
 * (bodies.h): each row's pose, and velocity, angular velocity and kinetic energy from
 * local straight-line fits that stop at the impacts, placed at their rows' mean time;
 * and a side's fitted motion carried from its instant. */
#include <stdlib.h>
#include <string.h>

#include "analysis/bodies_internal.h"

void analysis_body_series_free(analysis_body_series *s)
{
    free(s->mem);
    memset(s, 0, sizeof *s);
}

/* the rows lo..hi around row i that no break separates from it */
static void segment(const analysis_tracks *tr, int i, const double *breaks, int n_breaks, int *lo, int *hi)
{
    double a = -INFINITY, z = INFINITY, t = tr->t[i];
    for (int k = 0; k < n_breaks; k++) {
        if (breaks[k] < t)
            a = fmax(a, breaks[k]);
        else
            z = fmin(z, breaks[k]);
    }
    *lo = i, *hi = i;
    while (*lo > 0 && tr->t[*lo - 1] > a)
        (*lo)--;
    while (*hi + 1 < tr->n_frames && tr->t[*hi + 1] < z)
        (*hi)++;
}

/* The straight-line fit over the posed rows a..b: the centre's velocity and the
 * angular velocity (rotation vectors about the posed row nearest the middle, *ref),
 * at *tm, the rows' mean time: for a quadratic motion the slope is its velocity there
 * exactly (equal steps). 1 when fewer than 3 rows have a pose. */
static int line_fit(const analysis_tracks *tr, const body_pose *pose, int a, int b, double *tm, icv_vec3 *v,
                    icv_vec3 *w, int *ref)
{
    int mid = (a + b) / 2, r = -1;
    for (int d = 0; d <= b - a && r < 0; d++)
        r = mid - d >= a && pose[mid - d].ok ? mid - d : mid + d <= b && pose[mid + d].ok ? mid + d : -1;
    if (r < 0)
        return 1;
    double m = 0, st = 0, stt = 0, sx[6] = {0}, stx[6] = {0};
    icv_mat3 RrT = icv_m3_transpose(pose[r].R);
    for (int j = a; j <= b; j++) {
        if (!pose[j].ok)
            continue;
        double t = tr->t[j] - tr->t[r];
        icv_vec3 dp = icv_v3_sub(pose[j].p, pose[r].p); /* about row r: the sums keep their digits */
        icv_vec3 phi = icv_rot_to_axis_angle(icv_m3_mul(pose[j].R, RrT));
        double x[6] = {dp.x, dp.y, dp.z, phi.x, phi.y, phi.z};
        m++, st += t, stt += t * t;
        for (int k = 0; k < 6; k++)
            sx[k] += x[k], stx[k] += t * x[k];
    }
    double d = m * stt - st * st;
    if (m < 3 || !(d > 0))
        return 1;
    double slope[6];
    for (int k = 0; k < 6; k++)
        slope[k] = (m * stx[k] - st * sx[k]) / d;
    *v = icv_v3(slope[0], slope[1], slope[2]);
    *w = icv_v3(slope[3], slope[4], slope[5]);
    *tm = tr->t[r] + st / m;
    *ref = r;
    return 0;
}

int analysis_body_series_measure(const analysis_body_track *bt, const double *breaks, int n_breaks, int half_rows,
                                 const analysis_params *prm, analysis_body_series *s, icv_err *err)
{
    memset(s, 0, sizeof *s);
    const analysis_tracks *tr = bt->tracks;
    const analysis_body *b = bt->body;
    size_t n = tr->n_frames > 0 ? (size_t)tr->n_frames : 0;
    s->mem = malloc(sizeof(double) * (12 * n + 1));
    body_pose *pose = malloc(sizeof *pose * (n + 1));
    if (!s->mem || !pose) {
        free(pose);
        analysis_body_series_free(s);
        return icv_err_set(err, ICV_ENOMEM, "out of memory for the poses of %zu frames of '%s'", n,
                           bt->name ? bt->name : "a body");
    }
    double *q = s->mem;
    s->t = q, q += n;
    s->tv = q, q += n;
    s->energy = q, q += n;
    for (int k = 0; k < 3; k++) {
        s->p[k] = q, q += n;
        s->v[k] = q, q += n;
        s->w[k] = q, q += n;
    }
    s->n = (int)n;
    bodies_poses(bt, prm, pose);
    int rotates = !b->tmpl.point, h = half_rows > 1 ? half_rows : 1, prev_a = -1;
    for (int i = 0; i < s->n; i++) {
        s->t[i] = tr->t[i];
        s->tv[i] = s->energy[i] = NAN;
        for (int k = 0; k < 3; k++) {
            s->p[k][i] = pose[i].ok ? icv_v3_get(pose[i].p, k) : NAN;
            s->v[k][i] = s->w[k][i] = NAN;
        }
        /* 2h + 1 rows round row i, moved away from a break or the clip's end rather
           than cut: the same noise in every row's slope (a cut window's slope scatters
           more, and a kinetic energy is biased up by its scatter's square) */
        int lo, hi;
        segment(tr, i, breaks, n_breaks, &lo, &hi);
        int a = i - h < lo ? lo : i - h;
        if (a + 2 * h > hi)
            a = hi - 2 * h < lo ? lo : hi - 2 * h;
        int z = a + 2 * h > hi ? hi : a + 2 * h, ref;
        if (a == prev_a) /* the window of the row before: its point is drawn already */
            continue;
        prev_a = a;
        icv_vec3 v, w;
        if (line_fit(tr, pose, a, z, &s->tv[i], &v, &w, &ref))
            continue;
        if (!rotates)
            w = icv_v3(0, 0, 0);
        else if (b->tmpl.collinear) { /* the spin about the line is not seen */
            icv_vec3 ax = icv_m3_apply(pose[ref].R, b->tmpl.axis);
            w = icv_v3_axpy(-icv_v3_dot(ax, w), ax, w);
        }
        for (int k = 0; k < 3; k++) {
            s->v[k][i] = icv_v3_get(v, k);
            s->w[k][i] = rotates ? icv_v3_get(w, k) : NAN;
        }
        s->energy[i] = bodies_kinetic(b, pose[ref].R, v, w);
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
