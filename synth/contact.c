/* contact.c: the gap between the body's shape and the surface plane y = 0 (surface
 * frame), with the lowest point of the shape, and the first zero of the gap along a
 * trajectory: bracketed on samples, refined by GSL's Brent solver (Brent 1973). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

#include "synth/synth.h"

double synth_contact_gap(const icv_shape *sh, const icv_mat3 *R, icv_vec3 p, icv_vec3 *cb)
{
    icv_mat3 Rt = icv_m3_transpose(*R);
    icv_vec3 down_body = icv_m3_apply(Rt, icv_v3(0, -1, 0)); /* -y of the surface, body frame */
    icv_vec3 c = icv_v3(0, 0, 0);
    switch (sh->type) {
    case ICV_SHAPE_SPHERE:
        c = icv_v3_scale(down_body, sh->radius);
        break;
    case ICV_SHAPE_CAPSULE: {
        /* segment of half-length L/2 - r between the cap centres */
        double hl = sh->length / 2 - sh->radius;
        if (hl < 0)
            hl = 0;
        double uy = icv_m3_apply(*R, sh->axis).y;
        double s = uy > 0 ? -1.0 : 1.0;
        c = icv_v3_add(icv_v3_scale(sh->axis, s * hl), icv_v3_scale(down_body, sh->radius));
        break;
    }
    case ICV_SHAPE_CYLINDER: {
        double hl = sh->length / 2;
        double uy = icv_m3_apply(*R, sh->axis).y;
        double s = uy > 0 ? -1.0 : 1.0;
        /* the rim point most downward: -y with its axial part removed */
        icv_vec3 d = icv_v3_sub(down_body, icv_v3_scale(sh->axis, icv_v3_dot(down_body, sh->axis)));
        double dn = icv_v3_norm(d);
        c = icv_v3_scale(sh->axis, s * hl);
        if (dn > 1e-12) /* else the end face is level: its centre stands for it */
            c = icv_v3_add(c, icv_v3_scale(d, sh->radius / dn));
        break;
    }
    case ICV_SHAPE_BOX: {
        double h[3] = {sh->size.x / 2, sh->size.y / 2, sh->size.z / 2};
        double cc[3];
        for (int i = 0; i < 3; i++)
            cc[i] = (R->m[1][i] > 0 ? -1.0 : 1.0) * h[i]; /* R->m[1][i]: surface y of body axis i */
        c = icv_v3_from_array(cc);
        break;
    }
    case ICV_SHAPE_POINTS:
    default: {
        double best = INFINITY;
        for (int i = 0; i < sh->n_points; i++) {
            double y = icv_m3_apply(*R, sh->points[i]).y;
            if (y < best) {
                best = y;
                c = sh->points[i];
            }
        }
        break;
    }
    }
    if (cb)
        *cb = c;
    return p.y + icv_m3_apply(*R, c).y;
}

typedef struct {
    synth_gap_fn gap;
    void *user;
} brent_ctx;

static double brent_fn(double t, void *user)
{
    brent_ctx *c = user;
    return c->gap(t, c->user);
}

int synth_contact_find(synth_gap_fn gap, void *user, double t0, double t1, double dt, double tol_s,
                       double *t_contact, icv_err *err)
{
    double a = t0, ga = gap(t0, user);
    if (ga <= 0) {
        *t_contact = t0;
        return 1;
    }
    int nsteps = (int)ceil((t1 - t0) / dt);
    if (nsteps < 1)
        nsteps = 1;
    for (int k = 1; k <= nsteps; k++) {
        double b = k == nsteps ? t1 : t0 + k * dt;
        double gb = gap(b, user);
        if (gb <= 0) {
            if (gb == 0) {
                *t_contact = b;
                return 1;
            }
            brent_ctx bc = {gap, user};
            gsl_function F = {brent_fn, &bc};
            gsl_error_handler_t *old = gsl_set_error_handler_off();
            gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
            if (!s) {
                gsl_set_error_handler(old);
                return icv_err_set(err, ICV_ENOMEM, "contact: out of memory");
            }
            int status = gsl_root_fsolver_set(s, &F, a, b);
            double lo = a, hi = b;
            for (int it = 0; status == GSL_SUCCESS && it < 200; it++) {
                status = gsl_root_fsolver_iterate(s);
                lo = gsl_root_fsolver_x_lower(s);
                hi = gsl_root_fsolver_x_upper(s);
                if (gsl_root_test_interval(lo, hi, tol_s, 0) == GSL_SUCCESS)
                    break;
            }
            double r = gsl_root_fsolver_root(s);
            gsl_root_fsolver_free(s);
            gsl_set_error_handler(old);
            if (status != GSL_SUCCESS || hi - lo > tol_s)
                return icv_err_set(err, ICV_ENUMERIC, "contact: Brent's method did not converge in [%.9f, %.9f] s",
                                   a, b);
            *t_contact = r;
            return 1;
        }
        a = b;
        ga = gb;
    }
    return 0;
}
