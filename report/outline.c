/* outline.c: a body's wire-frame outline from its shape (core's icv_shape) at a
 * pose, and its projection into a camera (calib_project, with distortion), for
 * the overlay images: what the fitted pose says the body looks like, drawn over
 * what the camera saw. */
#include <string.h>

#include "report/report_internal.h"

enum { CIRCLE = 32 };

typedef struct {
    report_outline *o;
    icv_mat3 R;
    icv_vec3 p;
    int at; /* next free point */
} builder;

static void begin(builder *b, int closed)
{
    report_outline *o = b->o;
    if (o->n_lines < REPORT_OUTLINE_MAX_LINES) {
        o->len[o->n_lines] = 0;
        o->closed[o->n_lines] = closed;
    }
}

/* a body-frame point onto the current line */
static void add(builder *b, icv_vec3 x)
{
    report_outline *o = b->o;
    if (o->n_lines >= REPORT_OUTLINE_MAX_LINES || b->at >= REPORT_OUTLINE_MAX_PTS)
        return;
    o->pts[b->at++] = icv_v3_add(icv_m3_apply(b->R, x), b->p);
    o->len[o->n_lines]++;
}

static void end(builder *b)
{
    if (b->o->n_lines < REPORT_OUTLINE_MAX_LINES && b->o->len[b->o->n_lines] > 0)
        b->o->n_lines++;
}

/* unit u, w perpendicular to unit a (a, u, w right-handed) */
static void basis(icv_vec3 a, icv_vec3 *u, icv_vec3 *w)
{
    icv_vec3 e = fabs(a.x) < 0.6 ? icv_v3(1, 0, 0) : fabs(a.y) < 0.6 ? icv_v3(0, 1, 0) : icv_v3(0, 0, 1);
    *u = icv_v3_unit(icv_v3_cross(a, e));
    *w = icv_v3_cross(a, *u);
}

/* points c + r (cos t u + sin t w) for t from t0 to t1 (n points) */
static void arc(builder *b, icv_vec3 c, icv_vec3 u, icv_vec3 w, double r, double t0, double t1, int n)
{
    for (int i = 0; i < n; i++) {
        double t = t0 + (t1 - t0) * i / (n - 1);
        add(b, icv_v3_add(c, icv_v3_add(icv_v3_scale(u, r * cos(t)), icv_v3_scale(w, r * sin(t)))));
    }
}

void report_outline_of_shape(const icv_shape *s, icv_mat3 R, icv_vec3 p, report_outline *o)
{
    memset(o, 0, sizeof *o);
    builder b = {o, R, p, 0};
    switch (s->type) {
    case ICV_SHAPE_BOX: {
        double h[3] = {s->size.x / 2, s->size.y / 2, s->size.z / 2};
        for (int side = -1; side <= 1; side += 2) { /* the two faces at z = -h, +h */
            begin(&b, 1);
            static const int sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
            for (int k = 0; k < 4; k++)
                add(&b, icv_v3(sx[k] * h[0], sy[k] * h[1], side * h[2]));
            end(&b);
        }
        for (int k = 0; k < 4; k++) { /* the edges between them */
            double x = (k == 1 || k == 2) ? h[0] : -h[0], y = k >= 2 ? h[1] : -h[1];
            begin(&b, 0);
            add(&b, icv_v3(x, y, -h[2]));
            add(&b, icv_v3(x, y, h[2]));
            end(&b);
        }
        break;
    }
    case ICV_SHAPE_CAPSULE:
    case ICV_SHAPE_CYLINDER: {
        icv_vec3 a = icv_v3_unit(s->axis), u, w;
        basis(a, &u, &w);
        double r = s->radius, hl = s->length / 2 - (s->type == ICV_SHAPE_CAPSULE ? r : 0);
        icv_vec3 c[2] = {icv_v3_scale(a, -hl), icv_v3_scale(a, hl)};
        for (int e = 0; e < 2; e++) {
            begin(&b, 1);
            arc(&b, c[e], u, w, r, 0, 2 * M_PI * (CIRCLE - 1) / CIRCLE, CIRCLE);
            end(&b);
        }
        for (int k = 0; k < 4; k++) {
            icv_vec3 d = icv_v3_add(icv_v3_scale(u, r * cos(k * M_PI / 2)), icv_v3_scale(w, r * sin(k * M_PI / 2)));
            begin(&b, 0);
            add(&b, icv_v3_add(c[0], d));
            add(&b, icv_v3_add(c[1], d));
            end(&b);
        }
        if (s->type == ICV_SHAPE_CAPSULE)
            for (int e = 0; e < 2; e++) /* each cap: half circles in the planes (a, u) and (a, w) */
                for (int pl = 0; pl < 2; pl++) {
                    icv_vec3 q = pl ? w : u, out = icv_v3_scale(a, e ? 1 : -1);
                    begin(&b, 0);
                    arc(&b, c[e], q, out, r, 0, M_PI, CIRCLE / 2 + 1);
                    end(&b);
                }
        break;
    }
    case ICV_SHAPE_SPHERE: {
        icv_vec3 ax[3] = {icv_v3(1, 0, 0), icv_v3(0, 1, 0), icv_v3(0, 0, 1)};
        for (int k = 0; k < 3; k++) {
            begin(&b, 1);
            arc(&b, icv_v3(0, 0, 0), ax[(k + 1) % 3], ax[(k + 2) % 3], s->radius, 0, 2 * M_PI * (CIRCLE - 1) / CIRCLE,
                CIRCLE);
            end(&b);
        }
        break;
    }
    case ICV_SHAPE_POINTS:
        begin(&b, 1);
        for (int k = 0; k < s->n_points; k++)
            add(&b, s->points[k]);
        end(&b);
        break;
    }
}

int report_outline_project(const report_outline *o, const calib_intrinsics *in, icv_mat3 Rc, icv_vec3 tc,
                           double *uv, report_polyline *lines)
{
    int at = 0;
    for (int l = 0; l < o->n_lines; l++) {
        lines[l] = (report_polyline){o->len[l], uv + 2 * at, o->closed[l]};
        for (int i = 0; i < o->len[l]; i++, at++) {
            icv_vec3 x = icv_v3_add(icv_m3_apply(Rc, o->pts[at]), tc);
            if (x.z <= 0) {
                uv[2 * at] = uv[2 * at + 1] = NAN;
                continue;
            }
            calib_pt2 q;
            calib_project(in, &x, 1, &q);
            uv[2 * at] = q.u;
            uv[2 * at + 1] = q.v;
        }
    }
    return o->n_lines;
}
