/* contact.c: the gap between the body's shape and the surface plane y = 0 (surface
 * frame), with the lowest point of the shape, and the first zero of the gap along a
 * trajectory: bracketed on samples, refined by GSL's Brent solver (Brent 1973). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

#include "synth/synth.h"

double synth_contact_gap(const icv_shape *sh, const icv_mat3 *R, icv_vec3 p, icv_vec3 *cb)
{
    /* the shape's lowest point (core's icv_shape_lowest_point), in the body frame too */
    icv_vec3 low = icv_shape_lowest_point(sh, *R, p, icv_v3(0, 1, 0));
    if (cb)
        *cb = icv_m3_apply(icv_m3_transpose(*R), icv_v3_sub(low, p));
    return low.y;
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
            gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
            if (!s) {
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
