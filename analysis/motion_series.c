/* motion_series.c: the measured motion frame by frame (analysis.h), what the report
 * plots against the fitted flights: each frame's pose, the lowest point's height, and
 * velocity and angular velocity from consecutive poses. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

/* a, moved by whole turns to within half a turn of prev (rad) */
static double unwrap(double prev, double a)
{
    if (!isfinite(prev))
        return a;
    while (a - prev > M_PI)
        a -= 2 * M_PI;
    while (a - prev < -M_PI)
        a += 2 * M_PI;
    return a;
}

int analysis_motion_series_alloc(int n, analysis_motion_series *m, icv_err *err)
{
    memset(m, 0, sizeof *m);
    size_t nn = n > 0 ? (size_t)n : 0;
    m->mem = calloc(nn * 20 + 1, sizeof(double));
    if (!m->mem)
        return icv_err_set(err, ICV_ENOMEM, "out of memory for the poses of %zu frames", nn);
    double *q = m->mem;
    m->t = q, q += nn;
    m->h = q, q += nn;
    m->tm = q, q += nn;
    for (int k = 0; k < 3; k++) {
        m->p[k] = q, q += nn;
        m->e[k] = q, q += nn;
        m->v[k] = q, q += nn;
        m->w[k] = q, q += nn;
    }
    return 0;
}

int analysis_motion_series_measure(const analysis_tracks *tr, const analysis_body *b, analysis_motion_series *m,
                                   icv_err *err)
{
    int rc = analysis_motion_series_alloc(tr->n_frames, m, err);
    if (rc)
        return rc;
    icv_mat3 Rprev = icv_m3_identity();
    double eprev[3] = {NAN, NAN, NAN};
    for (int i = 0; i < tr->n_frames; i++) {
        analysis_pose ps;
        if (analysis_pose_fit_frame(tr, i, &b->tmpl, 0, NULL, &ps, NULL))
            continue;
        int j = m->n;
        m->t[j] = tr->t[i];
        double pe[3] = {ps.p.x, ps.p.y, ps.p.z}, ee[3] = {ps.euler213.x, ps.euler213.y, ps.euler213.z};
        for (int k = 0; k < 3; k++) {
            m->p[k][j] = pe[k];
            m->e[k][j] = eprev[k] = unwrap(eprev[k], ee[k]);
        }
        m->h[j] = icv_shape_lowest_point(&b->shape, ps.R, ps.p, icv_v3(0, 1, 0)).y;
        if (j > 0) {
            double dt = m->t[j] - m->t[j - 1];
            m->tm[j - 1] = 0.5 * (m->t[j] + m->t[j - 1]);
            icv_vec3 w = icv_v3_scale(icv_rot_to_axis_angle(icv_m3_mul(ps.R, icv_m3_transpose(Rprev))), 1 / dt);
            double wv[3] = {w.x, w.y, w.z};
            for (int k = 0; k < 3; k++) {
                m->v[k][j - 1] = (m->p[k][j] - m->p[k][j - 1]) / dt;
                m->w[k][j - 1] = wv[k];
            }
        }
        Rprev = ps.R;
        m->n++;
    }
    return 0;
}

void analysis_motion_series_free(analysis_motion_series *m)
{
    free(m->mem);
    memset(m, 0, sizeof *m);
}
