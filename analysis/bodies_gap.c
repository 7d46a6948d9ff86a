/* bodies_gap.c: the gap between two bodies' shapes, its common normal and the
 * contact point. Spheres and capsules are segments with a radius: their pairs are
 * the segments' closest points (Ericson, Real-Time Collision Detection, 5.1.9),
 * exact. A sphere and a box: the centre clamped to the box, exact. Any other pair
 * of convex shapes: the separation along a direction n is the gap between the
 * support points (icv_shape_lowest_point along n and -n); the distance between
 * disjoint convex sets is its maximum over n (and minus the penetration depth when
 * they overlap), searched from the centres' line. */
#include "analysis/bodies.h"

/* a sphere or capsule as a segment c0..c1 (surface frame) and a radius */
static int as_segment(const icv_shape *s, icv_mat3 R, icv_vec3 p, icv_vec3 *c0, icv_vec3 *c1, double *r)
{
    if (s->type == ICV_SHAPE_SPHERE) {
        *c0 = *c1 = p;
        *r = s->radius;
        return 1;
    }
    if (s->type == ICV_SHAPE_CAPSULE) {
        double half = fmax(0.5 * s->length - s->radius, 0);
        icv_vec3 ax = icv_m3_apply(R, s->axis);
        *c0 = icv_v3_axpy(-half, ax, p);
        *c1 = icv_v3_axpy(half, ax, p);
        *r = s->radius;
        return 1;
    }
    return 0;
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* closest points qa on p0..p1 and qb on q0..q1 */
static void segments_closest(icv_vec3 p0, icv_vec3 p1, icv_vec3 q0, icv_vec3 q1, icv_vec3 *qa, icv_vec3 *qb)
{
    icv_vec3 d1 = icv_v3_sub(p1, p0), d2 = icv_v3_sub(q1, q0), r = icv_v3_sub(p0, q0);
    double a = icv_v3_dot(d1, d1), e = icv_v3_dot(d2, d2), f = icv_v3_dot(d2, r), s = 0, t = 0;
    const double eps = 1e-30;
    if (a <= eps && e <= eps) {
        s = t = 0;
    } else if (a <= eps) {
        t = clamp01(f / e);
    } else {
        double c = icv_v3_dot(d1, r);
        if (e <= eps) {
            s = clamp01(-c / a);
        } else {
            double b = icv_v3_dot(d1, d2), den = a * e - b * b;
            s = den > 1e-14 * a * e ? clamp01((b * f - c * e) / den) : 0;
            t = (b * s + f) / e;
            if (t < 0) {
                t = 0;
                s = clamp01(-c / a);
            } else if (t > 1) {
                t = 1;
                s = clamp01((b - c) / a);
            }
        }
    }
    *qa = icv_v3_axpy(s, d1, p0);
    *qb = icv_v3_axpy(t, d2, q0);
}

/* the unit direction from x to y, or fallback when they coincide */
static icv_vec3 unit_or(icv_vec3 x, icv_vec3 y, icv_vec3 fallback)
{
    icv_vec3 d = icv_v3_sub(y, x);
    double n = icv_v3_norm(d);
    return n > 1e-15 ? icv_v3_scale(d, 1 / n) : fallback;
}

static void round_pair(icv_vec3 qa, double ra, icv_vec3 qb, double rb, icv_vec3 fallback, analysis_shapes_gap *out)
{
    icv_vec3 n = unit_or(qa, qb, fallback);
    out->normal = n;
    out->gap = icv_v3_dot(icv_v3_sub(qb, qa), n) - ra - rb;
    icv_vec3 sa = icv_v3_axpy(ra, n, qa), sb = icv_v3_axpy(-rb, n, qb);
    out->point = icv_v3_scale(icv_v3_add(sa, sb), 0.5);
    out->exact = 1;
}

/* a sphere (centre c, radius r) against a box; box_is_a: the normal points from
 * the box to the sphere, else from the sphere to the box */
static void sphere_box(icv_vec3 c, double r, const icv_shape *box, icv_mat3 R, icv_vec3 p, int box_is_a,
                       analysis_shapes_gap *out)
{
    icv_vec3 l = icv_m3_apply(icv_m3_transpose(R), icv_v3_sub(c, p)), h = icv_v3_scale(box->size, 0.5), q = l;
    int inside = 1;
    for (int i = 0; i < 3; i++) {
        double x = icv_v3_get(l, i), hi = icv_v3_get(h, i);
        if (x < -hi || x > hi)
            inside = 0;
        icv_v3_set(&q, i, x < -hi ? -hi : x > hi ? hi : x);
    }
    if (inside) { /* the centre inside: out through the nearest face */
        int best = 0;
        double depth = INFINITY;
        for (int i = 0; i < 3; i++) {
            double d = icv_v3_get(h, i) - fabs(icv_v3_get(l, i));
            if (d < depth) {
                depth = d;
                best = i;
            }
        }
        icv_v3_set(&q, best, icv_v3_get(l, best) >= 0 ? icv_v3_get(h, best) : -icv_v3_get(h, best));
    }
    icv_vec3 qw = icv_v3_add(icv_m3_apply(R, q), p); /* the box's nearest surface point */
    double d = icv_v3_norm(icv_v3_sub(c, qw));
    /* the box's outward normal there: towards the centre, or away from it inside */
    icv_vec3 outward = inside ? unit_or(c, qw, icv_m3_apply(R, icv_v3(0, 1, 0)))
                              : unit_or(qw, c, unit_or(p, c, icv_v3(0, 1, 0)));
    out->gap = inside ? -d - r : d - r;
    out->normal = box_is_a ? outward : icv_v3_scale(outward, -1);
    icv_vec3 sphere_point = icv_v3_axpy(-r, outward, c);
    out->point = icv_v3_scale(icv_v3_add(qw, sphere_point), 0.5);
    out->exact = 1;
}

/* separation of b from a along unit n, with the two support points */
static double support_gap(const icv_shape *a, icv_mat3 Ra, icv_vec3 pa, const icv_shape *b, icv_mat3 Rb, icv_vec3 pb,
                          icv_vec3 n, icv_vec3 *sa, icv_vec3 *sb)
{
    *sa = icv_shape_lowest_point(a, Ra, pa, icv_v3_scale(n, -1));
    *sb = icv_shape_lowest_point(b, Rb, pb, n);
    return icv_v3_dot(icv_v3_sub(*sb, *sa), n);
}

static icv_vec3 turned(icv_vec3 n, icv_vec3 e1, icv_vec3 e2, double x, double y)
{
    return icv_v3_unit(icv_v3_add(n, icv_v3_add(icv_v3_scale(e1, x), icv_v3_scale(e2, y))));
}

static void support_search(const icv_shape *a, icv_mat3 Ra, icv_vec3 pa, const icv_shape *b, icv_mat3 Rb,
                           icv_vec3 pb, analysis_shapes_gap *out)
{
    icv_vec3 n = unit_or(pa, pb, icv_v3(0, 1, 0)), sa, sb;
    double best = support_gap(a, Ra, pa, b, Rb, pb, n, &sa, &sb);
    /* the closest points' line, while it improves (converges for smooth shapes) */
    for (int it = 0; it < 20; it++) {
        icv_vec3 sa2, sb2, m = unit_or(sa, sb, n);
        if (best < 0)
            break; /* overlapping: the points' line is not the normal */
        double g = support_gap(a, Ra, pa, b, Rb, pb, m, &sa2, &sb2);
        if (!(g > best + 1e-15))
            break;
        best = g, n = m, sa = sa2, sb = sb2;
    }
    /* then a pattern search over the directions around n (edges and faces) */
    for (double step = 0.2; step > 1e-7; step *= 0.5) {
        int moved = 1;
        while (moved) {
            moved = 0;
            icv_vec3 helper = fabs(n.x) < 0.9 ? icv_v3(1, 0, 0) : icv_v3(0, 1, 0);
            icv_vec3 e1 = icv_v3_unit(icv_v3_cross(n, helper)), e2 = icv_v3_cross(n, e1);
            static const double dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
            for (int k = 0; k < 4; k++) {
                icv_vec3 m = turned(n, e1, e2, step * dirs[k][0], step * dirs[k][1]), sa2, sb2;
                double g = support_gap(a, Ra, pa, b, Rb, pb, m, &sa2, &sb2);
                if (g > best + 1e-15) {
                    best = g, n = m, sa = sa2, sb = sb2, moved = 1;
                    break;
                }
            }
        }
    }
    out->gap = best;
    out->normal = n;
    out->point = icv_v3_scale(icv_v3_add(sa, sb), 0.5);
    out->exact = 0;
}

void analysis_shapes_gap_at(const icv_shape *a, icv_mat3 Ra, icv_vec3 pa, const icv_shape *b, icv_mat3 Rb,
                            icv_vec3 pb, analysis_shapes_gap *out)
{
    icv_vec3 a0, a1, b0, b1, qa, qb;
    double ra, rb;
    int sega = as_segment(a, Ra, pa, &a0, &a1, &ra), segb = as_segment(b, Rb, pb, &b0, &b1, &rb);
    icv_vec3 centres = unit_or(pa, pb, icv_v3(0, 1, 0));
    if (sega && segb) {
        segments_closest(a0, a1, b0, b1, &qa, &qb);
        round_pair(qa, ra, qb, rb, centres, out);
    } else if (a->type == ICV_SHAPE_SPHERE && b->type == ICV_SHAPE_BOX) {
        sphere_box(pa, a->radius, b, Rb, pb, 0, out);
    } else if (a->type == ICV_SHAPE_BOX && b->type == ICV_SHAPE_SPHERE) {
        sphere_box(pb, b->radius, a, Ra, pa, 1, out);
    } else {
        support_search(a, Ra, pa, b, Rb, pb, out);
    }
}
