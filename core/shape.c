/* shape.c: where a body's shape touches a plane: the support point of the shape
 * in the direction -n (contract: "the contact point is the point of this shape
 * nearest the surface at impact"). Used to detect impacts (analysis) and to find
 * the contact instant (synth). Ties (a flat face, an edge or a cap parallel to the
 * plane) resolve to the centre of the tied set so the point moves continuously. */
#include "core/core.h"

/* relative tolerance for "parallel to the plane" */
#define FLAT_TOL 1e-9

icv_vec3 icv_shape_lowest_point(const icv_shape *s, icv_mat3 R, icv_vec3 p, icv_vec3 n)
{
    /* work in the body frame: d = R^T n, then map back */
    icv_vec3 d = icv_m3_apply(icv_m3_transpose(R), n);
    icv_vec3 b = icv_v3(0, 0, 0);
    switch (s->type) {
    case ICV_SHAPE_SPHERE:
        b = icv_v3_scale(d, -s->radius);
        break;
    case ICV_SHAPE_CAPSULE:
    case ICV_SHAPE_CYLINDER: {
        double half = s->type == ICV_SHAPE_CAPSULE ? 0.5 * s->length - s->radius : 0.5 * s->length;
        if (half < 0)
            half = 0;
        double along = icv_v3_dot(d, s->axis);
        /* the end nearer the plane (or the middle when the axis lies flat) */
        double end = fabs(along) < FLAT_TOL ? 0 : (along > 0 ? -half : half);
        icv_vec3 c = icv_v3_scale(s->axis, end);
        if (s->type == ICV_SHAPE_CAPSULE) {
            b = icv_v3_axpy(-s->radius, d, c);
        } else {
            /* lowest point of the end cap's rim: along -(d without its axial part) */
            icv_vec3 radial = icv_v3_sub(d, icv_v3_scale(s->axis, along));
            double rn = icv_v3_norm(radial);
            b = rn < FLAT_TOL ? c : icv_v3_axpy(-s->radius / rn, radial, c);
        }
        break;
    }
    case ICV_SHAPE_BOX: {
        double h[3] = {0.5 * s->size.x, 0.5 * s->size.y, 0.5 * s->size.z}, dd[3] = {d.x, d.y, d.z}, o[3];
        for (int i = 0; i < 3; i++)
            o[i] = fabs(dd[i]) < FLAT_TOL ? 0 : (dd[i] > 0 ? -h[i] : h[i]);
        b = icv_v3(o[0], o[1], o[2]);
        break;
    }
    case ICV_SHAPE_POINTS: {
        double lo = INFINITY, scale = 0;
        for (int k = 0; k < s->n_points; k++)
            scale = fmax(scale, icv_v3_norm(s->points[k]));
        for (int k = 0; k < s->n_points; k++)
            lo = fmin(lo, icv_v3_dot(s->points[k], d));
        int ties = 0;
        for (int k = 0; k < s->n_points; k++)
            if (icv_v3_dot(s->points[k], d) <= lo + FLAT_TOL * fmax(scale, 1e-3)) {
                b = icv_v3_add(b, s->points[k]);
                ties++;
            }
        b = icv_v3_scale(b, 1.0 / ties);
        break;
    }
    }
    return icv_v3_add(icv_m3_apply(R, b), p);
}
