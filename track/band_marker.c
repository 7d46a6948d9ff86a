/* band_marker.c: markers that are bands round a rod. A camera sees the half of a band
 * facing it; with uniform brightness, weighted by projected area (cos phi round the
 * axis), its image centroid lies pi r / 4 off the axis towards the camera, perpendicular
 * to the axis (integral of cos^2 over integral of cos on [-pi/2, pi/2]). The shifts
 * here move each view's centroid back to the image of the marker's centre on the axis
 * (docs/pipeline.md, "Band markers"). A bead (body.marker_shape: sphere) shows its
 * centroid off by a fraction of that shift, bead_marker.c's factor. */
#include <math.h>
#include <string.h>

#include "track/track_3d.h"

/* Each camera sees a different half, so the raw centroids triangulate ~mm off the
 * marker; the correction moves each view's pixel by the image of the offset, then
 * triangulates (or meets the plane) again. */
void track_band_init(const icv_experiment *exp, track_band *b)
{
    memset(b, 0, sizeof *b);
    b->t_axis = -INFINITY;
    const icv_shape *sh = &exp->shape;
    if (sh->type != ICV_SHAPE_CAPSULE && sh->type != ICV_SHAPE_CYLINDER)
        return;
    icv_vec3 a = icv_v3_unit(sh->axis);
    for (int k = 0; k < exp->n_markers; k++) {
        icv_vec3 m = exp->markers[k];
        b->s[k] = icv_v3_dot(m, a);
        /* on the axis within a tenth of the radius: a band, not a sticker on the side */
        b->band[k] = icv_v3_norm(icv_v3_sub(m, icv_v3_scale(a, b->s[k]))) < 0.1 * sh->radius;
        b->on |= b->band[k];
    }
    b->r = sh->radius;
    b->sphere = exp->marker_shape == ICV_MARKER_SPHERE;
    b->rho = exp->marker_diameter > 0 ? 2 * sh->radius / exp->marker_diameter : 1;
    for (int c = 0; c < ICV_MAX_CAMERAS; c++)
        b->beside[c] = 1;
}

/* The 3D offset of an axis marker's drawn centroid from its centre, seen along w (from
 * the marker to the camera): towards the camera, perpendicular to the axis. */
static icv_vec3 axis_marker_offset(const track_band *b, int cam, icv_vec3 w, icv_vec3 axis)
{
    icv_vec3 wp = icv_v3_unit(icv_v3_sub(w, icv_v3_scale(axis, icv_v3_dot(w, axis))));
    double beside = cam >= 0 && cam < ICV_MAX_CAMERAS ? b->beside[cam] : 1;
    double k = b->sphere ? track_bead_factor(b->rho, icv_v3_dot(icv_v3_unit(w), axis), beside) : 1;
    return icv_v3_scale(wp, k * M_PI / 4 * b->r);
}

static void project(const track_view *v, icv_vec3 X, double *u, double *w)
{
    double x[3];
    for (int i = 0; i < 3; i++)
        x[i] = v->R[i][0] * X.x + v->R[i][1] * X.y + v->R[i][2] * X.z + v->t[i];
    double xn = x[0] / x[2], yn = x[1] / x[2];
    *u = v->K[0][0] * xn + v->K[0][1] * yn + v->K[0][2];
    *w = v->K[1][1] * yn + v->K[1][2];
}

/* The camera centre of a view, world frame: -R^T t. */
static icv_vec3 view_centre(const track_view *v)
{
    icv_mat3 R;
    memcpy(R.m, v->R, sizeof R.m);
    return icv_v3_scale(icv_m3_apply(icv_m3_transpose(R), icv_v3_from_array(v->t)), -1);
}

void track_band_correct(const track_band *b, const track_calibration *cal, int nc, icv_vec3 axis, track_candidate *c)
{
    icv_vec3 Xc = icv_v3_add(icv_m3_apply(cal->surf.R, c->X), cal->surf.t); /* camera frame */
    for (int iter = 0; iter < 2; iter++) {
        track_view v[ICV_MAX_CAMERAS];
        for (int k = 0; k < c->nv; k++) {
            v[k] = c->v[k];
            icv_vec3 off = axis_marker_offset(b, c->cam[k], icv_v3_sub(view_centre(&v[k]), Xc), axis);
            double u0, v0, u1, v1;
            project(&v[k], Xc, &u0, &v0);
            project(&v[k], icv_v3_add(Xc, off), &u1, &v1);
            v[k].u -= u1 - u0;
            v[k].v -= v1 - v0;
        }
        track_point3d X;
        if (c->nv >= 2) {
            if (track_triangulate(v, c->nv, &X, NULL) != 0)
                return;
        } else {
            double p0[3], nrm[3];
            icv_v3_to_array(cal->plane.t, p0);
            for (int k = 0; k < 3; k++)
                nrm[k] = cal->plane.R.m[k][1];
            if (track_ray_plane(&v[0], p0, nrm, &X, NULL) != 0)
                return;
        }
        Xc = icv_v3_from_array(X.X);
        if (iter == 1) {
            double keep[3][3];
            memcpy(keep, c->cov, sizeof keep);
            track_to_surface(&cal->surf, X.X, X.cov, c);
            memcpy(c->cov, keep, sizeof keep); /* the covariance of the raw fit, scaled */
            if (nc == 1)
                c->X.z = 0;
            c->residual = X.residual_px;
        }
    }
}

/* A band's 2D centroid moved to the image of the marker's centre (its axis point): the
 * shift band_correct applies to the undistorted pixel, taken at the labelled 3D
 * position of the nearest reference frame (within 0.1 s). Distortion changes the shift by
 * its local scale (a few percent of a shift of ~1 px), which is left out. */
void track_band_shift_2d(const track_band *b, int cam, const track_calibration *cal, const track_view *view,
                         const double *t0cam, double off0, double fps0, long F, const double *xyz, const icv_vec3 *axes,
                         int nm, int j, double t, double *u, double *v)
{
    long f0 = lround((t + off0 - t0cam[0]) * fps0);
    /* frames: 0.1 s either side (the shift follows the rod's attitude and distance,
       which change little in that time); beyond, the centroid is left as measured */
    long reach = lround(0.1 * fps0) > 3 ? lround(0.1 * fps0) : 3;
    for (long d = 0; d <= reach; d++)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            long f = f0 + sgn * d;
            if (f < 0 || f >= F || isnan(axes[f].x) || isnan(xyz[(f * nm + j) * 3]))
                continue;
            const double *x = xyz + (f * nm + j) * 3;
            icv_vec3 Xc = icv_v3_add(icv_m3_apply(cal->surf.R, icv_v3(x[0], x[1], x[2])), cal->surf.t);
            icv_vec3 off = axis_marker_offset(b, cam, icv_v3_sub(view_centre(view), Xc), axes[f]);
            double u0, v0, u1, v1;
            project(view, Xc, &u0, &v0);
            project(view, icv_v3_add(Xc, off), &u1, &v1);
            *u -= u1 - u0;
            *v -= v1 - v0;
            return;
        }
}

/* The rod's axis in the reference camera's frame from this frame's labelled bands. */
int track_band_axis(const track_band *b, const track_calibration *cal, const track_candidate *cf, const int *lab, int n,
                    icv_vec3 *axis)
{
    int bj = -1, bk = -1;
    double best = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            if (lab[i] < 0 || lab[k] < 0 || !b->band[lab[i]] || !b->band[lab[k]])
                continue;
            double ds = b->s[lab[i]] - b->s[lab[k]];
            if (ds > best)
                best = ds, bj = i, bk = k;
        }
    if (bj < 0 || best < 2 * b->r)
        return -1;
    icv_vec3 d = icv_v3_scale(icv_v3_sub(cf[bj].X, cf[bk].X), 1.0 / best);
    *axis = icv_v3_unit(icv_m3_apply(cal->surf.R, d));
    return 0;
}
