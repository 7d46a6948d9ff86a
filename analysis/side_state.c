/* side_state.c: the fitted motion of one side of an impact at any time: the
 * ballistic fit of the centre of mass (p + v tau + g tau^2 / 2) and the torque-free
 * rotation from the side's attitude and angular velocity at the impact instant.
 * Shared by the report's fitted curves and the outline drawn over the video. */
#include "analysis/analysis.h"

void analysis_side_state(const analysis_result *res, int i, int post, const analysis_body *b, double t, icv_vec3 *p,
                         icv_vec3 *v, icv_mat3 *R, icv_vec3 *w)
{
    const analysis_impact *im = &res->impacts[i];
    const analysis_side *s = post ? &im->post : &im->pre;
    double tau = t - im->t;
    *p = icv_v3_add(icv_v3_add(s->p, icv_v3_scale(s->v, tau)), icv_v3_scale(res->g, 0.5 * tau * tau));
    *v = icv_v3_add(s->v, icv_v3_scale(res->g, tau));
    /* 2e-2 rad steps: ~1e-9 rad per radian turned (geom.h), far below a plot's or an
       image's pixel */
    icv_rigid_rotate_steps(s->R, s->omega, b->inertia, tau, 2e-2, R, w);
}
