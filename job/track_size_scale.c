/* track_size_scale.c: one camera with `motion_plane: {scale: size}`: a ball
 * is its own ruler. Its centre lies in the plane of motion by construction (unlike a
 * ruler standing behind it), and its apparent diameter gives that plane's depth.
 *
 * As with scale: gravity (gravity_scale.c) the track stage meets the rays with a plane
 * facing the camera at a provisional depth; this file finds the factor that puts it at
 * the ball's depth. In every frame where the ball is the one candidate the video is
 * decoded again (luma) and the outline fitted: along 64 rays from the centre, the edge is
 * where the profile crosses halfway between the ball's level (inside half a radius) and
 * the background's on that ray (1.3-1.6 radii), interpolated to sub-pixel; the edge
 * points are undistorted to normalised coordinates and a circle fitted (GSL linear least
 * squares, x^2 + y^2 + D x + E y + F = 0; points beyond 3 robust sigmas dropped, once).
 * For a sphere of radius R at distance d on the optical axis the outline's normalised
 * radius is r = R / sqrt(d^2 - R^2), so d = R sqrt(1 + 1 / r^2). Off the axis by an angle
 * theta the outline is an ellipse whose radial half-axis is 1 / cos(theta) longer: the
 * circle's mean radius is taken back to the half-axis across the line of sight, which
 * gives the depth z (size_w; without it the depth came out 1.2-2.0% short 13-16 degrees off
 * the axis, a trend across the image that looks like a tilt).
 *
 * The depths of the frames used give the plane's tilt to the camera (size_plane.c: R / z
 * is affine in the image position on a plane). A tilt beyond chance turns the plane (a
 * homography from the image instead of one scale: a phone looking down at a vertical
 * plane of motion shortens the fall by ~cos(a) - y sin(a) otherwise); else the median
 * depth scales the plane facing the camera.
 *
 * Motion blur widens the outline along the motion: only frames whose centre moves less
 * than half the radius from frame to frame (a full-period exposure blurs less than a
 * quarter of the diameter) and a diameter clear of surface.line_px (the floor's edge
 * and the shadow lie on the outline there) are used; fewer than 5, the 5 slowest. The depth
 * is the median over them; its 1-sigma the spread of one frame (the MAD's; with a
 * tilt, about the plane's fit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>

#include "job/job_track_internal.h"

#define RAYS 64
#define MAX_R_PX 300     /* px: the longest ray (a ball up to ~400 px across) */
#define MIN_CONTRAST 8.0 /* gray levels between the ball and the background on a ray */
#define MIN_EDGE_POINTS 16
#define MIN_FRAMES 5
#define VERTICAL_END_SD_PX 0.5 /* px: a line's end read off the image by eye */

static double median_of(double *x, size_t n)
{
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

/* bilinear luma at (x, y) px; the caller keeps it a pixel inside the frame */
static double luma_at(const capture_frame *f, double x, double y)
{
    int x0 = (int)floor(x), y0 = (int)floor(y);
    double ax = x - x0, ay = y - y0;
    const uint8_t *r0 = (const uint8_t *)f->data + (size_t)y0 * f->stride + x0, *r1 = r0 + f->stride;
    return (1 - ay) * ((1 - ax) * r0[0] + ax * r0[1]) + ay * ((1 - ax) * r1[0] + ax * r1[1]);
}

/* The outline's circle, in normalised coordinates, of the ball centred near (uc, vc)
 * (distorted px). prof: RAYS * (MAX_R_PX + 1) doubles; pts: RAYS points; col: MAX_R_PX + 1;
 * ws: a workspace for RAYS observations of 3 parameters.
 * *r_n: normalised radius; *x_n, *y_n: the circle's centre (normalised); *d_px: diameter
 * in px; *rms_px: the fit's RMS residual (px).
 * 0, or -1 when no outline is found. */
static int fit_outline(const capture_frame *fr, const calib_intrinsics *in, double uc, double vc, double *prof,
                       calib_pt2 *pts, double *col, gsl_multifit_linear_workspace *ws, double *r_n, double *x_n,
                       double *y_n, double *d_px, double *rms_px)
{
    int len[RAYS];
    double er[RAYS];
    int ne = 0;
    /* 1: each ray's profile and its steepest step: the outline's rough radius */
    for (int a = 0; a < RAYS; a++) {
        double c = cos(2 * M_PI * a / RAYS), s = sin(2 * M_PI * a / RAYS);
        int n = 0;
        for (int r = 0; r <= MAX_R_PX; r++) {
            double x = uc + r * c, y = vc + r * s;
            if (!(x >= 0 && y >= 0 && x < fr->width - 1 && y < fr->height - 1))
                break;
            prof[a * (MAX_R_PX + 1) + r] = luma_at(fr, x, y);
            n++;
        }
        len[a] = n;
        const double *p = prof + a * (MAX_R_PX + 1);
        double best = 0;
        int rb = -1;
        for (int r = 2; r + 2 < n; r++) {
            double g = fabs(p[r + 1] - p[r - 1]);
            if (g > best)
                best = g, rb = r;
        }
        if (rb > 0)
            er[ne++] = rb;
    }
    if (ne < MIN_EDGE_POINTS)
        return -1;
    double r0 = median_of(er, (size_t)ne);
    if (!(r0 >= 3))
        return -1;
    /* 2: per ray, the halfway crossing nearest r0 (sub-pixel, linear between samples) */
    int np = 0;
    for (int a = 0; a < RAYS; a++) {
        const double *p = prof + a * (MAX_R_PX + 1);
        int n = len[a], i_hi = (int)(0.5 * r0), o_lo = (int)ceil(1.3 * r0), o_hi = (int)(1.6 * r0);
        if (o_hi >= n || o_hi <= o_lo)
            continue;
        int k = 0;
        for (int r = 0; r <= i_hi; r++)
            col[k++] = p[r];
        double lin = median_of(col, (size_t)k);
        k = 0;
        for (int r = o_lo; r <= o_hi; r++)
            col[k++] = p[r];
        double lout = median_of(col, (size_t)k);
        if (fabs(lout - lin) < MIN_CONTRAST)
            continue;
        double mid = 0.5 * (lin + lout), best = INFINITY, x = NAN;
        for (int r = (int)(0.6 * r0); r < (int)(1.4 * r0) && r + 1 < n; r++) {
            double d0 = p[r] - mid, d1 = p[r + 1] - mid;
            if ((d0 <= 0) == (d1 <= 0) || d0 == d1)
                continue;
            double xr = r + d0 / (d0 - d1);
            if (fabs(xr - r0) < best)
                best = fabs(xr - r0), x = xr;
        }
        if (isnan(x))
            continue;
        double c = cos(2 * M_PI * a / RAYS), s = sin(2 * M_PI * a / RAYS);
        pts[np++] = (calib_pt2){uc + x * c, vc + x * s};
    }
    if (np < MIN_EDGE_POINTS)
        return -1;
    calib_pt2 pn[RAYS];
    icv_err e2;
    if (calib_undistort_points(in, pts, np, 1, pn, &e2))
        return -1;
    /* 3: the circle x^2 + y^2 + D x + E y + F = 0, fitted twice (the second without the
       points beyond 3 robust sigmas: a shadow, a hand, the floor's edge) */
    double cx = 0, cy = 0, rad = 0;
    int use[RAYS];
    for (int i = 0; i < np; i++)
        use[i] = 1;
    for (int pass = 0; pass < 2; pass++) {
        int m = 0;
        for (int i = 0; i < np; i++)
            m += use[i];
        if (m < MIN_EDGE_POINTS)
            return -1;
        /* views on arrays of this frame (no allocation per frame; ws is the caller's) */
        double xb[RAYS * 3], yb[RAYS], cb[3], covb[9];
        int r = 0;
        for (int i = 0; i < np; i++) {
            if (!use[i])
                continue;
            xb[3 * r] = pn[i].u, xb[3 * r + 1] = pn[i].v, xb[3 * r + 2] = 1;
            yb[r] = -(pn[i].u * pn[i].u + pn[i].v * pn[i].v);
            r++;
        }
        gsl_matrix_view X = gsl_matrix_view_array(xb, (size_t)m, 3), cov = gsl_matrix_view_array(covb, 3, 3);
        gsl_vector_view y = gsl_vector_view_array(yb, (size_t)m), cf = gsl_vector_view_array(cb, 3);
        double chisq;
        if (gsl_multifit_linear(&X.matrix, &y.vector, &cf.vector, &cov.matrix, &chisq, ws))
            return -1;
        cx = -0.5 * cb[0];
        cy = -0.5 * cb[1];
        double r2 = cx * cx + cy * cy - cb[2];
        if (!(r2 > 0))
            return -1;
        rad = sqrt(r2);
        double res[RAYS];
        int k = 0;
        for (int i = 0; i < np; i++)
            if (use[i])
                col[k++] = res[i] = fabs(hypot(pn[i].u - cx, pn[i].v - cy) - rad);
            else
                res[i] = INFINITY;
        double sig = 1.4826 * median_of(col, (size_t)k);
        double ss = 0;
        for (int i = 0; i < np; i++)
            if (use[i])
                ss += res[i] * res[i];
        *rms_px = sqrt(ss / k) * in->fx;
        for (int i = 0; i < np && pass == 0; i++)
            use[i] = res[i] <= 3 * sig + 1e-12;
    }
    *r_n = rad;
    *x_n = cx, *y_n = cy;
    *d_px = 2 * rad * in->fx;
    return 0;
}

/* R / z, the depth's inverse in ball radii, of an outline of mean normalised radius r
 * centred at normalised (x, y): off the axis by theta the outline is an ellipse whose
 * half-axis across the line of sight is tan(beta) / cos(theta) (beta the ball's angular
 * radius, sin(beta) = R / range) and the radial one 1 / cos(theta) longer, so the
 * circle's mean radius is that across times (1 + 1 / cos(theta)) / 2; R / z = sin(beta)
 * / cos(theta). On the axis R / z = r / sqrt(1 + r^2): z = R sqrt(1 + 1 / r^2). */
static double size_w(double r, double x, double y)
{
    double sec = sqrt(1 + x * x + y * y), across = 2 * r / (1 + sec); /* tan(beta) / cos(theta) */
    return across / sqrt(1 + across * across / (sec * sec));
}

/* The motion plane turned to the tilt the sizes gave (cal->size.plane): its normal along
 * (b, c, a) away from the camera, through (0, 0, R / a); the surface frame found again
 * on it from its pixels. 0, or -1 (nothing changed) when the surface line's rays do not
 * meet the turned plane in front of the camera. */
static int turn_plane(const icv_experiment *exp, track_calibration *cal, double R)
{
    const track_size_plane *sp = &cal->size.plane;
    icv_vec3 n = icv_v3_unit(icv_v3(sp->b, sp->c, sp->a));
    icv_vec3 y = icv_v3_scale(n, -1); /* towards the camera, as plane_facing_camera's */
    icv_vec3 x = icv_v3_unit(icv_v3_axpy(-n.x, n, icv_v3(1, 0, 0)));
    icv_vec3 z = icv_v3_cross(x, y);
    calib_surface plane = {0}, surf;
    for (int k = 0; k < 3; k++)
        plane.R.m[k][0] = icv_v3_get(x, k), plane.R.m[k][1] = icv_v3_get(y, k), plane.R.m[k][2] = icv_v3_get(z, k);
    plane.t = icv_v3(0, 0, R / sp->a);
    double bottom[2][2] = {{0, cal->in[0].height - 1.0}, {cal->in[0].width - 1.0, cal->in[0].height - 1.0}};
    icv_err e2;
    if (calib_surface_from_line_px(&cal->in[0], &plane, cal->surface_lowest ? bottom : exp->line_px, &surf, &e2))
        return -1;
    cal->plane = plane;
    cal->surf = surf;
    return 0;
}

/* scale: size needs each body to be one ball marked at its centre */
static int one_marker_balls(const icv_experiment *exp, icv_err *err)
{
    for (int k = 0; k < exp->n_bodies && exp->n_bodies > 1; k++)
        if (exp->bodies[k].n_markers != 1)
            return icv_err_set(err, ICV_EINVAL,
                               "%s: motion_plane.scale: size measures the bodies by their outlines: each of "
                               "bodies: must be one marker at its centre, all of the diameter scale.size ('%s' has %d)",
                               exp->path, exp->bodies[k].name, exp->bodies[k].n_markers);
    if (exp->n_markers != 1 && exp->n_bodies <= 1)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: motion_plane.scale: size measures a ball by its outline: body.markers must be the "
                           "ball's one marker at its centre (%d given)",
                           exp->path, exp->n_markers);
    return 0;
}

/* per frame f < F of the ball's outline: where it is (cu, cv px), its normalised
 * radius rn (NAN: not fitted) and centre (xn, yn), its diameter dpx and the outline's
 * residual rms (px), its move to the neighbour frames spd (radii; INFINITY: against
 * the surface); work: scratch of 2 F */
typedef struct {
    double *cu, *cv, *rn, *dpx, *rms, *spd, *xn, *yn, *work;
} size_series;

/* the frames to fit (rn 0, else NAN) and where the ball is in them: one body, the
 * frames where it is the one candidate (else a glint may be in its place); several of
 * one diameter, the one nearest the last chosen, so that the blur test compares one
 * body's moves */
static void size_frames(const icv_experiment *exp, const track_calibration *cal, const track_candidate *cand,
                        const int *cand_n, long F, size_series *s)
{
    icv_vec3 last = icv_v3(NAN, NAN, NAN);
    for (long f = 0; f < F; f++) {
        s->rn[f] = NAN;
        int pick = 0;
        if (exp->n_bodies > 1 && cand_n[f] >= 1 && isfinite(last.x))
            for (int i = 1; i < cand_n[f]; i++)
                if (icv_v3_norm(icv_v3_sub(cand[f * TRACK_MAX_CAND + i].X, last)) <
                    icv_v3_norm(icv_v3_sub(cand[f * TRACK_MAX_CAND + pick].X, last)))
                    pick = i;
        if (cand_n[f] != 1 && !(exp->n_bodies > 1 && cand_n[f] >= 1))
            continue;
        last = cand[f * TRACK_MAX_CAND + pick].X;
        /* the candidate back to the image: x_cam = Rs x_s + ts */
        icv_vec3 xc = icv_v3_add(icv_m3_apply(cal->surf.R, cand[f * TRACK_MAX_CAND + pick].X), cal->surf.t);
        calib_pt2 uv;
        calib_project(&cal->in[0], &xc, 1, &uv);
        s->cu[f] = uv.u, s->cv[f] = uv.v;
        s->rn[f] = 0; /* to be fitted */
    }
}

/* The chosen frames decoded again and the ball's outline fitted in each; *n_fit the
 * frames fitted */
static int fit_outlines(capture_source *src, capture_frame *fr, const calib_intrinsics *in, long F, double *prof,
                        double *col, calib_pt2 *pts, gsl_multifit_linear_workspace *ws, size_series *s, long *n_fit,
                        icv_err *err)
{
    long f_first = 0;
    *n_fit = 0;
    while (f_first < F && isnan(s->rn[f_first]))
        f_first++;
    if (f_first > 0 && f_first < F && capture_source_seek(src, f_first, err) != 0)
        return icv_err_prefix(err, "motion_plane.scale: size: ");
    for (long f = f_first; f < F; f++) {
        int r = capture_source_read(src, fr, err);
        if (r == CAPTURE_EOF)
            break;
        if (r)
            return icv_err_prefix(err, "motion_plane.scale: size: ");
        long i = fr->index;
        if (i < 0 || i >= F || isnan(s->rn[i]))
            continue;
        if (fr->bytes_per_sample != 1 || fit_outline(fr, in, s->cu[i], s->cv[i], prof, pts, col, ws, &s->rn[i],
                                                     &s->xn[i], &s->yn[i], &s->dpx[i], &s->rms[i]) != 0)
            s->rn[i] = NAN;
        else
            (*n_fit)++;
    }
    for (long f = 0; f < F; f++)
        if (s->rn[f] == 0)
            s->rn[f] = NAN; /* not delivered by the decoder */
    return 0;
}

/* blur: the centre's move to each neighbour frame, in radii; against the surface
 * (bouncing, rolling, resting) the floor's edge and the ball's shadow lie on the
 * outline: only the ball a diameter clear of the line. The frames under half a radius */
static long frame_speeds(const icv_experiment *exp, const int *cand_n, long F, size_series *s)
{
    long n_sharp = 0;
    for (long f = 0; f < F; f++) {
        s->spd[f] = NAN;
        if (isnan(s->rn[f]))
            continue;
        double m = 0;
        int k = 0;
        for (long g = f - 1; g <= f + 1; g += 2)
            if (g >= 0 && g < F && (exp->n_bodies > 1 ? cand_n[g] >= 1 : cand_n[g] == 1) && !isnan(s->cu[g]))
                m = fmax(m, hypot(s->cu[g] - s->cu[f], s->cv[g] - s->cv[f])), k++;
        s->spd[f] = k ? m / (0.5 * s->dpx[f]) : INFINITY;
        const double(*L)[2] = exp->line_px;
        double lx = L[1][0] - L[0][0], ly = L[1][1] - L[0][1], ll = hypot(lx, ly);
        if (exp->surface_kind == ICV_SURFACE_LINE_PX && ll > 0 &&
            fabs(lx * (s->cv[f] - L[0][1]) - ly * (s->cu[f] - L[0][0])) / ll < s->dpx[f])
            s->spd[f] = INFINITY;
        icv_debug("%s: motion_plane.scale: size: frame %ld at (%.1f, %.1f) px: %.2f px across, outline residual "
                  "%.2f px, moving %.2f radii per frame",
                  exp->path, f, s->cu[f], s->cv[f], s->dpx[f], s->rms[f], s->spd[f]);
        n_sharp += s->spd[f] < 0.5;
    }
    return n_sharp;
}

/* the median over the frames used (spd <= lim) of v[f], into scratch */
static double used_median(const size_series *s, long F, double lim, const double *v, double *scratch)
{
    long k = 0;
    for (long f = 0; f < F; f++)
        if (!isnan(s->spd[f]) && s->spd[f] <= lim && isfinite(s->spd[f]))
            scratch[k++] = v[f];
    return median_of(scratch, (size_t)k);
}

/* The plane of motion turned to hold the world's vertical, which the lines given vertical
 * meet at (motion_plane.verticals_px): its distance from the ball's sizes (fit: x, y, w
 * of the n frames used, and 3 n of work). An error when the surface cannot be found on it
 * again (it comes from pixels). *zsd becomes one frame's spread about the plane. */
static int plane_from_verticals(const icv_experiment *exp, track_calibration *cal, double *fit, long n, double R,
                                double *zsd, icv_err *err)
{
    track_size_scale *ss = &cal->size;
    track_size_plane *sp = &ss->plane;
    const double deg = 180 / M_PI, endpoint_sd_px = VERTICAL_END_SD_PX;
    icv_vec3 normal;
    double pitch, pitch_sd;
    int rc = track_plane_from_verticals(&cal->in[0], (const double(*)[2][2])exp->verticals_px, exp->n_verticals,
                                        endpoint_sd_px, &normal, &pitch, &pitch_sd, err);
    if (rc)
        return icv_err_prefix(err, "%s: ", exp->path);
    if (track_size_plane_with_normal(fit, fit + n, fit + 2 * n, n, normal, pitch, pitch_sd, 0, fit + 3 * n, sp))
        return icv_err_set(err, ICV_ENOTFOUND, "%s: motion_plane.verticals_px: no frame of the ball lies on the "
                           "plane they give in front of the camera", exp->path);
    int surface_from_px = exp->surface_kind == ICV_SURFACE_LINE_PX || cal->surface_lowest;
    if (!surface_from_px || turn_plane(exp, cal, R) != 0)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: motion_plane.verticals_px: the surface (%s) cannot be found on the plane they give",
                           exp->path, surface_from_px ? "its line's rays miss the plane" : "not given in pixels");
    ss->tilted = 1;
    ss->from_verticals = 1;
    double zm = R / sp->a;
    *zsd = zm * sp->resid_mad / sp->a;
    icv_info("%s: motion_plane.verticals_px: the camera looks down at the vertical plane of motion by %.2f +- %.2f "
             "degrees (%d lines, their ends to %.1f px; the focal length %.0f px, %s); the ball's sizes over %ld "
             "frames place it: the image is mapped to it through that pitch",
             exp->path, pitch * deg, pitch_sd * deg, exp->n_verticals, endpoint_sd_px, cal->in[0].fx,
             exp->calib_file[0] || exp->calib_images[0][0] ? "calibrated" : "nominal: the larger image side",
             sp->n_used);
    return 0;
}

/* A nominal focal length's 1-sigma, relative: phones and webcams film with horizontal
 * fields of view of about 50-80 degrees, i.e. a focal length of 0.6-1.07 times the image's
 * width; the nominal (the larger side) is 53 degrees */
#define NOMINAL_FOCAL_REL_SD 0.2

/* m: the length on the plane of motion of the ball's vertical extent in the image (its
 * highest and lowest centres of the fitted frames, at their median column) with the
 * camera's focal length times k: the verticals' pitch and the sizes' distance found again
 * with it. NAN when they give no plane. work: 5 n + F (the plane fit takes 2 n). */
static double vertical_extent_m(const icv_experiment *exp, const calib_intrinsics *in0, const size_series *s,
                                long F, double lim, long n, double R, double k, double *work)
{
    calib_intrinsics in = *in0;
    in.fx *= k, in.fy *= k;
    icv_vec3 normal;
    double pitch, pitch_sd;
    icv_err e2;
    if (track_plane_from_verticals(&in, (const double(*)[2][2])exp->verticals_px, exp->n_verticals, VERTICAL_END_SD_PX, &normal,
                                   &pitch, &pitch_sd, &e2))
        return NAN;
    double *x = work, *y = x + n, *w = y + n, *col = w + n;
    long m = 0, c = 0;
    double vlo = INFINITY, vhi = -INFINITY;
    for (long f = 0; f < F; f++) {
        if (isnan(s->rn[f]))
            continue;
        col[c++] = s->cu[f];
        vlo = fmin(vlo, s->cv[f]), vhi = fmax(vhi, s->cv[f]);
        if (s->spd[f] <= lim && isfinite(s->spd[f]) && m < n) {
            x[m] = s->xn[f] / k, y[m] = s->yn[f] / k, w[m] = size_w(s->rn[f] / k, x[m], y[m]);
            m++;
        }
    }
    track_size_plane sp;
    if (m < 1 || c < 2 || track_size_plane_with_normal(x, y, w, m, normal, pitch, pitch_sd, 0, col + c, &sp))
        return NAN;
    double u = median_of(col, (size_t)c);
    icv_vec3 nrm = icv_v3_unit(icv_v3(sp.b, sp.c, sp.a)), p0 = icv_v3(0, 0, R / sp.a), X[2];
    for (int i = 0; i < 2; i++) {
        icv_vec3 ray = icv_v3((u - in.cx) / in.fx, ((i ? vhi : vlo) - in.cy) / in.fy, 1);
        X[i] = icv_v3_scale(ray, icv_v3_dot(nrm, p0) / icv_v3_dot(nrm, ray));
    }
    return icv_v3_norm(icv_v3_sub(X[1], X[0]));
}

/* The scale's relative 1-sigma from a focal length not calibrated, with the verticals'
 * pitch: it sets where the vertical's vanishing point lies in angle, so how much the
 * plane is turned (0 with a calibration) */
static double focal_scale_rel_sd(const icv_experiment *exp, const track_calibration *cal, const size_series *s,
                                 long F, double lim, long n, double R)
{
    if (exp->calib_file[0] || exp->calib_images[0][0])
        return 0;
    double *work = malloc(sizeof *work * (5 * (size_t)n + (size_t)F + 1));
    if (!work)
        return 0;
    const double d = NOMINAL_FOCAL_REL_SD;
    double L0 = vertical_extent_m(exp, &cal->in[0], s, F, lim, n, R, 1, work);
    double Lp = vertical_extent_m(exp, &cal->in[0], s, F, lim, n, R, 1 + d, work);
    double Lm = vertical_extent_m(exp, &cal->in[0], s, F, lim, n, R, 1 - d, work);
    free(work);
    if (!(L0 > 0) || !isfinite(Lp) || !isfinite(Lm))
        return 0;
    return 0.5 * (fabs(Lp / L0 - 1) + fabs(Lm / L0 - 1));
}

/* The plane's tilt from the sizes of the n frames used: applied when significant and
 * the surface can be found again on the turned plane (it comes from pixels), else the
 * candidates scaled by K. *zsd becomes one frame's spread about the tilt's fit. */
static int tilt_or_scale(const icv_experiment *exp, track_calibration *cal, track_candidate *cand, const int *cand_n,
                         long F, const size_series *s, double lim, long n, double R, double zm, double K, double *zsd,
                         icv_err *err)
{
    double *fit = malloc(sizeof *fit * 6 * (size_t)n); /* x, y, w and 3 of work */
    if (!fit)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    long m = 0;
    for (long f = 0; f < F; f++)
        if (!isnan(s->spd[f]) && s->spd[f] <= lim && isfinite(s->spd[f])) {
            fit[m] = s->xn[f], fit[n + m] = s->yn[f], fit[2 * n + m] = size_w(s->rn[f], s->xn[f], s->yn[f]);
            m++;
        }
    track_size_scale *ss = &cal->size;
    track_size_plane *sp = &ss->plane;
    int surface_from_px = exp->surface_kind == ICV_SURFACE_LINE_PX || cal->surface_lowest;
    const double deg = 180 / M_PI;
    if (exp->n_verticals > 0) {
        int rc = plane_from_verticals(exp, cal, fit, n, R, zsd, err);
        free(fit);
        if (!rc && (ss->focal_rel_sd = focal_scale_rel_sd(exp, cal, s, F, lim, n, R)) > 0)
            icv_info("%s: motion_plane.verticals_px: the focal length is nominal (+- %.0f%%): the scale takes "
                     "+- %.2f%% (1 sigma) for it", exp->path, 100 * NOMINAL_FOCAL_REL_SD, 100 * ss->focal_rel_sd);
        return rc;
    }
    track_size_plane_fit(fit, fit + n, fit + 2 * n, n, fit + 3 * n, sp);
    free(fit);
    if (sp->fitted && sp->significant && surface_from_px && turn_plane(exp, cal, R) == 0) {
        ss->tilted = 1;
        /* one frame's relative spread about the plane's fit, as the flat scale's */
        *zsd = zm * sp->resid_mad / (R / zm);
        icv_info("%s: motion_plane.scale: size: the plane of motion is tilted to the camera by %.2f +- %.2f degrees "
                 "(looking down at it %.2f +- %.2f%s, its right side further %.2f +- %.2f%s; over %ld frames): the "
                 "image is mapped to it through that tilt, not one scale",
                 exp->path, sp->tilt * deg, sp->tilt_sd * deg, sp->pitch * deg, sp->pitch_sd * deg,
                 sp->free_c ? "" : " (not measured: held)", sp->yaw * deg, sp->yaw_sd * deg,
                 sp->free_b ? "" : " (not measured: held)", sp->n_used);
        return 0;
    }
    if (sp->fitted && sp->significant)
        icv_warn("%s: motion_plane.scale: size: the ball's sizes show the plane tilted to the camera by %.2f +- "
                 "%.2f degrees, not applied (the surface is not given in pixels): one scale is used",
                 exp->path, sp->tilt * deg, sp->tilt_sd * deg);
    else if (sp->fitted)
        icv_info("%s: motion_plane.scale: size: no tilt of the plane shows in the ball's sizes beyond chance and "
                 "the outline's bias (looking down at it %.2f +- %.2f degrees, its right side further %.2f +- "
                 "%.2f, over %ld frames): one scale",
                 exp->path, sp->pitch * deg, sp->pitch_sd * deg, sp->yaw * deg, sp->yaw_sd * deg, sp->n_used);
    track_plane_scale(cal, cand, cand_n, F, K);
    return 0;
}

/* The depth from the sizes of the frames used and what follows from it: the tilt or
 * the scale applied, cal->size filled */
static int depth_from_sizes(const icv_experiment *exp, track_calibration *cal, track_candidate *cand,
                            const int *cand_n, long F, size_series *s, long n_fit, long n_sharp, icv_err *err)
{
    /* the sharp frames, or the MIN_FRAMES slowest */
    double lim = 0.5, *work = s->work;
    if (n_sharp < MIN_FRAMES) {
        long k = 0;
        for (long f = 0; f < F; f++)
            if (!isnan(s->spd[f]) && isfinite(s->spd[f]))
                work[k++] = s->spd[f];
        gsl_sort(work, 1, (size_t)k);
        lim = k > 0 ? work[k < MIN_FRAMES ? k - 1 : MIN_FRAMES - 1] : 0;
    }
    double R = 0.5 * exp->scale_size;
    long n = 0;
    for (long f = 0; f < F; f++)
        if (!isnan(s->spd[f]) && s->spd[f] <= lim && isfinite(s->spd[f]))
            work[n++] = R / size_w(s->rn[f], s->xn[f], s->yn[f]);
    if (n < 1)
        return icv_err_set(err, ICV_ENOTFOUND,
                           "%s: motion_plane.scale: size: the ball's outline was fitted in %ld frames, none of them "
                           "sharp and clear of the surface",
                           exp->path, n_fit);
    double *z = work, *dev = work + n;
    double zm = median_of(z, (size_t)n);
    for (long i = 0; i < n; i++)
        dev[i] = fabs(z[i] - zm);
    /* the sigma of one frame (the MAD's), not of the median over n: the frames' errors
       are mostly common (the same ball, edge and background in every frame), so the
       median does not average them down (the synth ball: the median's own sigma, 0.04%,
       was a sixth of its 0.19% error) */
    double zsd = 1.4826 * median_of(dev, (size_t)n);
    double dmed = used_median(s, F, lim, s->dpx, dev), rmsmed = used_median(s, F, lim, s->rms, dev);
    double depth0 = cal->plane.t.z, K = zm / depth0;
    track_size_scale *ss = &cal->size;
    memset(ss, 0, sizeof *ss);
    int rc = tilt_or_scale(exp, cal, cand, cand_n, F, s, lim, n, R, zm, K, &zsd, err);
    if (rc)
        return rc;
    ss->found = 1;
    ss->factor = K;
    ss->factor_sd = hypot(zsd / depth0, K * ss->focal_rel_sd);
    ss->depth_m = zm;
    ss->diameter_m = exp->scale_size;
    ss->diameter_px = dmed;
    ss->fit_rms_px = rmsmed;
    ss->n_frames = n;
    ss->n_fitted = n_fit;
    icv_info("%s: motion_plane.scale: size: plane %s at %.4f m (+- %.2g), the ball %.2f px across (%.4g m) over %ld "
             "sharp frames of %ld fitted (outline residual %.2f px)",
             exp->path, ss->tilted ? "met at the frames' median depth" : "facing the camera", zm, zsd, dmed,
             exp->scale_size, n, n_fit, rmsmed);
    if (zsd > 0.01 * zm)
        icv_warn("%s: motion_plane.scale: size: the scale is uncertain by %.1f%% (1 sigma): the ball's outline "
                 "varies from frame to frame (blur, shadow, background)",
                 exp->path, 100 * zsd / zm);
    return 0;
}

int job_track_size_scale_apply(const icv_experiment *exp, track_calibration *cal, track_candidate *cand,
                               const int *cand_n, long F, icv_err *err)
{
    int rc = one_marker_balls(exp, err);
    if (rc)
        return rc;
    capture_source *src = NULL;
    capture_options co = {.capture_fps = exp->cameras[0].capture_fps, .want_8bit = 1};
    capture_frame fr = {0};
    if ((rc = capture_source_open(&src, exp->cameras[0].video, &co, err)))
        return icv_err_prefix(err, "motion_plane.scale: size: ");
    /* profiles, a column, and 10 arrays of F + 1 (work takes two) */
    double *buf = malloc(sizeof *buf * ((size_t)RAYS * (MAX_R_PX + 1) + (MAX_R_PX + 1) + 10 * ((size_t)F + 1)));
    calib_pt2 *pts = malloc(sizeof *pts * RAYS);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(RAYS, 3);
    if (!buf || !pts || !ws) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = capture_frame_alloc(&fr, capture_source_info(src), err)) != 0)
        goto done;
    double *prof = buf, *col = prof + (size_t)RAYS * (MAX_R_PX + 1);
    size_series s;
    s.cu = col + MAX_R_PX + 1, s.cv = s.cu + F + 1, s.rn = s.cv + F + 1, s.dpx = s.rn + F + 1, s.rms = s.dpx + F + 1,
    s.spd = s.rms + F + 1, s.xn = s.spd + F + 1, s.yn = s.xn + F + 1, s.work = s.yn + F + 1;
    size_frames(exp, cal, cand, cand_n, F, &s);
    long n_fit;
    if ((rc = fit_outlines(src, &fr, &cal->in[0], F, prof, col, pts, ws, &s, &n_fit, err)))
        goto done;
    long n_sharp = frame_speeds(exp, cand_n, F, &s);
    if (n_fit < MIN_FRAMES) {
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "%s: motion_plane.scale: size: the ball's outline was fitted in %ld frames of %ld (%d "
                         "needed): give motion_plane.scale.points_px and distance",
                         exp->path, n_fit, F, MIN_FRAMES);
        goto done;
    }
    rc = depth_from_sizes(exp, cal, cand, cand_n, F, &s, n_fit, n_sharp, err);
done:
    capture_frame_free(&fr);
    capture_source_close(src);
    free(buf);
    free(pts);
    if (ws)
        gsl_multifit_linear_free(ws);
    return rc;
}

void job_track_size_scale_json(const track_calibration *cal, json_t *root)
{
    const track_size_scale *ss = &cal->size;
    if (!ss->found)
        return;
    json_object_set_new(root, "scale_from_size",
                        json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I}", "factor", ss->factor, "factor_sd",
                                  ss->factor_sd, "plane_depth_m", ss->depth_m, "diameter_m", ss->diameter_m,
                                  "diameter_px", ss->diameter_px, "fit_rms_px", ss->fit_rms_px, "frames",
                                  (json_int_t)ss->n_frames, "fitted", (json_int_t)ss->n_fitted));
    const track_size_plane *sp = &ss->plane;
    if (!sp->fitted)
        return;
    const double deg = 180 / M_PI;
    json_t *o = json_object_get(root, "scale_from_size");
    json_object_set_new(o, "tilted", json_boolean(ss->tilted));
    json_object_set_new(o, "tilt_deg", json_real(sp->tilt * deg));
    json_object_set_new(o, "tilt_sd_deg", json_real(sp->tilt_sd * deg));
    json_object_set_new(o, "pitch_deg", json_real(sp->pitch * deg));
    json_object_set_new(o, "pitch_sd_deg", json_real(sp->pitch_sd * deg));
    json_object_set_new(o, "yaw_deg", json_real(sp->yaw * deg));
    json_object_set_new(o, "yaw_sd_deg", json_real(sp->yaw_sd * deg));
    json_object_set_new(o, "tilt_frames", json_integer((json_int_t)sp->n_used));
    json_object_set_new(o, "tilt_from", json_string(ss->from_verticals ? "verticals_px" : "sizes"));
    json_object_set_new(o, "focal_rel_sd", json_real(ss->focal_rel_sd));
}
