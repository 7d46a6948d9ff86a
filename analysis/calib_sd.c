/* calib_sd.c: errors common to every frame of a clip, propagated into the
 * measured quantities: the calibration's ("including the
 * uncertainty ... of the calibration where it is known") and, with gravity auto,
 * the estimated gravity's (the side fits take g as exact).
 *
 * A calibration error puts the tracks in a slightly wrong surface frame: every
 * position x becomes (1 + s) Q x + o y, with s the relative error of the length
 * scale (stereo: the baseline's), Q a small rotation (the normal's tilt about x
 * and z, the heading about y) and o the plane's offset along its normal. Such an
 * error, like that of an estimated g, is common to every frame and to both sides
 * of an impact, so it is not in the fits' covariances. Each is propagated to first
 * order by measuring the impact again with that error set to its 1-sigma, one at a
 * time, on the same windows: the centre of mass refitted (its fit is linear: with
 * gravity auto the refit gives exactly (1 + s) Q times each state, with a given
 * gravity it also shows the misfit between the given g and the turned, scaled
 * flight), the rotation fit turned with the frame (it is exact under a rotation of
 * the frame and does not see the scale), the impact instant found again, and every
 * quantity derived again. Each change is added in quadrature to that quantity's
 * sigma (the errors are independent of each other and, to first order, of the
 * marker noise on the side fits). A scale error is applied to the markers, not
 * to the centre: the template keeps its size, so the fitted centre also moves by
 * s times the used markers' centroid, which turns with the body. Not modelled: a
 * calibration error that is not a similarity of the surface frame (distortion, a
 * focal length error that bends the triangulated space), and the pose fits'
 * outlier test under a scale error (a template no longer matching the scaled
 * markers: beyond ~2% the job refuses the template anyway). Houbolt's states (at
 * their frames) are moved as points. */
#include <jansson.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "calib/calib.h"

/* one calibration error: lengths times (1 + scale), then turned by Q, then moved by
 * offset along y */
typedef struct {
    double scale;
    icv_mat3 Q;
    double offset;
} frame_error;

static icv_vec3 move_point(const frame_error *fe, icv_vec3 x)
{
    icv_vec3 y = icv_m3_apply(fe->Q, icv_v3_scale(x, 1 + fe->scale));
    y.y += fe->offset;
    return y;
}

/* The fitted centre of a pose in the erring frame: the markers x_k = R m_k + p
 * become (1 + s) Q x_k + o y, and the template fit (rotation Q R, unscaled
 * template) puts the centre at (1 + s) Q p + s Q R c + o y, c the centroid of the
 * template markers it used: a scale error also moves the centre with the body's
 * turning (equal marker weights assumed for c). */
static icv_vec3 centre_in_error(const analysis_template *t, const analysis_pose *pose, const frame_error *fe)
{
    icv_vec3 c = {0, 0, 0};
    int n = 0;
    for (int k = 0; k < t->n_markers; k++)
        if (pose->used[k]) {
            c = icv_v3_add(c, t->markers[k]);
            n++;
        }
    if (n)
        c = icv_v3_scale(c, 1.0 / n);
    icv_vec3 y = move_point(fe, pose->p);
    return icv_v3_add(y, icv_m3_apply(fe->Q, icv_v3_scale(icv_m3_apply(pose->R, c), fe->scale)));
}

/* a side's states as they would have been fitted in the erring frame */
static int side_in_error(const posed_frame *pf, const analysis_body *b, const side_fit *s, const icv_vec3 *g,
                         double com_sigma, const frame_error *fe, side_fit *out, icv_err *err)
{
    *out = *s;
    out->R = icv_m3_mul(fe->Q, s->R);
    out->omega = icv_m3_apply(fe->Q, s->omega);
    if (s->fixed) { /* Houbolt's differences are linear in the positions and use no g */
        out->p = move_point(fe, s->p);
        out->v = icv_m3_apply(fe->Q, icv_v3_scale(s->v, 1 + fe->scale));
        return 0;
    }
    int n = s->last - s->first + 1;
    double t[256], sg[256];
    icv_vec3 p[256];
    if (n > 256)
        n = 256;
    for (int i = 0; i < n; i++) {
        t[i] = pf[s->first + i].t;
        p[i] = centre_in_error(&b->tmpl, &pf[s->first + i].pose, fe);
        sg[i] = com_sigma;
    }
    analysis_flight ph = {n, t, p, sg, s->t_ref};
    analysis_ballistic bf;
    int rc = analysis_ballistic_fit(&ph, 1, g, &bf, err);
    if (rc)
        return rc;
    out->p = bf.p0[0];
    out->v = bf.v[0];
    return 0;
}

static void add_sq(icv_vec3 *acc, icv_vec3 a, icv_vec3 b)
{
    icv_vec3 d = icv_v3_sub(a, b);
    acc->x += d.x * d.x;
    acc->y += d.y * d.y;
    acc->z += d.z * d.z;
}

static icv_vec3 quad(icv_vec3 sd, icv_vec3 sq)
{
    return icv_v3(sqrt(sd.x * sd.x + sq.x), sqrt(sd.y * sd.y + sq.y), sqrt(sd.z * sd.z + sq.z));
}

/* g's three independent errors: the columns of its covariance's Cholesky factor
 * (their sum in quadrature is the covariance, to first order) */
static void g_errors(const double cov[3][3], icv_vec3 col[3])
{
    double L[3][3];
    analysis_cholesky(&cov[0][0], 3, &L[0][0]);
    for (int j = 0; j < 3; j++)
        col[j] = icv_v3(L[0][j], L[1][j], L[2][j]);
}

int analysis_calib_propagate(const posed_frame *pf, const analysis_body *b, const icv_vec3 *g,
                             const double g_cov[3][3], int g_estimated, const side_fit *pre, const side_fit *post,
                             double com_sigma, const analysis_calib_sd *c, analysis_impact *imp, icv_err *err)
{
    /* errors 0-4: the calibration's (scale, tilt about x, about z, heading,
     * offset); 5-7: the estimated gravity's, the columns of its covariance's
     * Cholesky factor (g's error is not isotropic: impact_find.c) */
    icv_vec3 g_err[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    if (g_estimated && g_cov) /* NULL: g's error is in the Monte Carlo's joint draws */
        g_errors(g_cov, g_err);
    const double sd[8] = {c->scale_rel, c->tilt, c->tilt, c->heading, c->offset, icv_v3_norm(g_err[0]),
                          icv_v3_norm(g_err[1]), icv_v3_norm(g_err[2])};
    icv_vec3 sq_v[2][2] = {{{0, 0, 0}, {0, 0, 0}}, {{0, 0, 0}, {0, 0, 0}}}; /* [calib|gravity][pre|post] */
    icv_vec3 sq_w[2][2] = {{{0, 0, 0}, {0, 0, 0}}, {{0, 0, 0}, {0, 0, 0}}};
    double sq[2][4] = {{0}}; /* e, ratio, loss, t */
    for (int k = 0; k < 8; k++) {
        if (!(sd[k] > 0))
            continue;
        int grp = k >= 5;
        frame_error fe = {0, icv_m3_identity(), 0};
        if (k == 0)
            fe.scale = sd[k];
        else if (k == 4)
            fe.offset = sd[k];
        else if (k < 4)
            fe.Q = icv_rot_from_axis_angle(icv_v3(k == 1 ? sd[k] : 0, k == 3 ? sd[k] : 0, k == 2 ? sd[k] : 0));
        /* gravity: estimated from the erring tracks it errs with them; given, it
         * stays as given */
        icv_vec3 ge = g_estimated ? icv_m3_apply(fe.Q, icv_v3_scale(*g, 1 + fe.scale)) : *g;
        if (grp)
            ge = icv_v3_add(ge, g_err[k - 5]);
        side_fit a, q;
        int rc = side_in_error(pf, b, pre, &ge, com_sigma, &fe, &a, err);
        if (!rc)
            rc = side_in_error(pf, b, post, &ge, com_sigma, &fe, &q, err);
        if (rc)
            return rc;
        /* the instant again, between the same frames (Houbolt's states are at
         * their frames, not carried to an instant) */
        double t = imp->t;
        double t_sd;
        if (!pre->fixed && imp->t_from_meet) {
            if (analysis_flights_meet(&a, &q, &ge, imp->t, &t, &t_sd))
                t = imp->t;
        } else if (!pre->fixed) {
            t = analysis_contact_instant(b, &a, &ge, imp->t, pf[pre->last].t, pf[post->first].t);
        }
        analysis_impact e;
        analysis_measure_values(b, &ge, &a, &q, t, &e);
        add_sq(&sq_v[grp][0], e.pre.v, imp->pre.v);
        add_sq(&sq_v[grp][1], e.post.v, imp->post.v);
        add_sq(&sq_w[grp][0], e.pre.omega, imp->pre.omega);
        add_sq(&sq_w[grp][1], e.post.omega, imp->post.omega);
        double dq[4] = {e.e_kinematic - imp->e_kinematic, e.impulse_ratio - imp->impulse_ratio,
                        e.loss_fraction - imp->loss_fraction, t - imp->t};
        for (int i = 0; i < 4; i++)
            sq[grp][i] += isfinite(dq[i]) ? dq[i] * dq[i] : 0;
    }
    const icv_vec3 zero = {0, 0, 0};
    imp->sd_calib.v_pre = quad(zero, sq_v[0][0]);
    imp->sd_calib.v_post = quad(zero, sq_v[0][1]);
    imp->sd_calib.omega_pre = quad(zero, sq_w[0][0]);
    imp->sd_calib.omega_post = quad(zero, sq_w[0][1]);
    imp->sd_calib.e_kinematic = sqrt(sq[0][0]);
    imp->sd_calib.impulse_ratio = sqrt(sq[0][1]);
    imp->sd_calib.loss_fraction = sqrt(sq[0][2]);
    imp->sd_calib.t = sqrt(sq[0][3]);
    for (int grp = 0; grp < 2; grp++) {
        imp->pre.v_sd = quad(imp->pre.v_sd, sq_v[grp][0]);
        imp->post.v_sd = quad(imp->post.v_sd, sq_v[grp][1]);
        imp->pre.omega_sd = quad(imp->pre.omega_sd, sq_w[grp][0]);
        imp->post.omega_sd = quad(imp->post.omega_sd, sq_w[grp][1]);
        imp->sd.e_kinematic = hypot(imp->sd.e_kinematic, sqrt(sq[grp][0]));
        imp->sd.impulse_ratio = hypot(imp->sd.impulse_ratio, sqrt(sq[grp][1]));
        imp->sd.loss_fraction = hypot(imp->sd.loss_fraction, sqrt(sq[grp][2]));
        imp->t_sd = hypot(imp->t_sd, sqrt(sq[grp][3]));
    }
    return 0;
}

/* The surface frame's tilt, heading and offset sigmas. From calib's board pose
 * covariance when it is known (turn_sd about the frame's x, y, z; offset_sd of
 * the origin along y: calib_surface, surface_uncertainty.c): the tilt is the
 * larger of the turns about x and z (analysis_calib_propagate applies one tilt
 * sigma to both). Otherwise (a sidecar written before calib gave them) from the
 * plane scatter plane_rms (m) of the experiment's board, as for a least-squares
 * plane: see below. Unchanged when neither is known. */
static void surface_sd(const icv_experiment *e, const double turn_sd[3], double offset_sd, double plane_rms,
                       analysis_calib_sd *out)
{
    if (turn_sd && turn_sd[0] > 0 && turn_sd[1] > 0 && turn_sd[2] > 0 && offset_sd > 0) {
        out->tilt = fmax(turn_sd[0], turn_sd[2]);
        out->heading = turn_sd[1];
        out->offset = offset_sd;
        return;
    }
    if (!(plane_rms > 0) || e->board_cols < 2 || e->board_rows < 2 || !(e->board_square > 0))
        return;
    double c = e->board_cols, r = e->board_rows, a = e->board_square, n = c * r;
    double sp = plane_rms * sqrt(n / (n - 3)); /* 3 parameters of the plane */
    double sxx = r * a * a * c * (c * c - 1) / 12, szz = c * a * a * r * (r * r - 1) / 12;
    double xc = (c - 1) * a / 2, zc = (r - 1) * a / 2; /* the corners' mean offsets from the origin */
    out->tilt = sp / sqrt(fmin(sxx, szz));
    out->heading = sp / sqrt(sxx + szz);
    /* at the origin (the first corner), where the tilt turns the frame about */
    out->offset = sp * sqrt(1 / n + xc * xc / sxx + zc * zc / szz);
}

/* One camera scaled by a ruler in the image (motion_plane.scale.points_px, distance):
 * the scale is distance over the two clicked pixels' separation L (px), so a click
 * error of RULER_CLICK_SD_PX per point and axis, the two points independent, gives
 * the relative sigma sqrt(2) RULER_CLICK_SD_PX / L (the errors along the ruler;
 * across it they change L only to second order). 0.5 px: an integer click rounds
 * by 0.29 px alone (1/sqrt(12)), and a ruler mark's centre read by eye is good to
 * about half a pixel, no better. The distance's own reading is taken as exact. */
#define RULER_CLICK_SD_PX 0.5
static void ruler_scale_sd(const icv_experiment *e, analysis_calib_sd *out)
{
    double L = hypot(e->scale_points_px[0][0] - e->scale_points_px[1][0],
                     e->scale_points_px[0][1] - e->scale_points_px[1][1]);
    if (e->n_cameras == 1 && e->scale_kind == ICV_SCALE_POINTS && L > 0)
        out->scale_rel = sqrt(2.0) * RULER_CLICK_SD_PX / L;
}

int analysis_calib_sd_from_experiment(const icv_experiment *e, analysis_calib_sd *out, icv_err *err)
{
    (void)err; /* nothing here fails the analysis: what cannot be read stays unknown */
    memset(out, 0, sizeof *out);
    ruler_scale_sd(e, out);
    if (!e->calib_file[0] || !icv_file_exists(e->calib_file))
        return 0; /* calibrated from images by the track stage, or tracks analysed alone */
    icv_err e2;
    if (e->n_cameras >= 2) { /* baseline_std is NaN when the file has none (another tool's) */
        calib_stereo st;
        int rc = calib_stereo_file_read(e->calib_file, &st, &e2);
        if (rc)
            icv_warn("the calibration's scale uncertainty is left out: %s", e2.msg);
        else if (st.baseline > 0 && st.baseline_std >= 0)
            out->scale_rel = st.baseline_std / st.baseline;
        if (!rc)
            calib_stereo_free(&st);
    }
    /* The surface frame from the board lying on the surface, found again as the
     * track stage finds it (the same call on the same images and calibration),
     * with calib's sigmas of that board pose (its corners' scatter through the
     * pose's Jacobian in both cameras). The fallback for a sidecar without them:
     * the plane scatter sigma_p over the board's N corners on a grid of a x b
     * squares gives, as for a least-squares plane, the normal's tilt sigma_p /
     * sqrt(sum of squared corner offsets along the tilt) (the board's short side,
     * the larger), the offset sigma_p / sqrt(N), and, taking the in-plane scatter as
     * sigma_p too, the heading sigma_p / sqrt(sum r^2), and the plane's height at
     * the origin sigma_p sqrt(1/N + xc^2/Sxx + zc^2/Szz): it ignores the board's
     * known shape, so it is 2-5 times the pose's own sigma (docs/calib.md). */
    if (e->surface_kind == ICV_SURFACE_IMAGES && e->n_cameras >= 2 && e->board_cols > 1 && e->board_rows > 1 &&
        e->board_square > 0) {
        calib_intrinsics in1, in2;
        double R[3][3], T[3];
        calib_board board = {e->board_cols, e->board_rows, e->board_square};
        calib_surface surf;
        int rc = calib_stereo_read(e->calib_file, &in1, &in2, R, T, &e2);
        if (!rc)
            rc = calib_surface_from_images(&in1, &in2, R, T, &board, e->surface_images[0], e->surface_images[1],
                                           &surf, &e2);
        calib_stereo_cov cov;
        if (!rc && calib_stereo_cov_read(e->calib_file, &cov, &e2) == 0)
            rc = calib_surface_add_calibration_sd(&in1, &in2, R, T, &cov, &board, &surf, &e2);
        else if (!rc)
            icv_warn("the surface frame's uncertainty leaves out the calibration's part: %s", e2.msg);
        if (rc) {
            icv_warn("the surface frame's uncertainty is left out: %s", e2.msg);
        } else {
            surface_sd(e, surf.turn_sd, surf.offset_sd, surf.plane_rms, out);
        }
    }
    return 0;
}

/* A lens's fall-off of light across the field shades a marker's image: over a
 * disc of radius R px whose irradiance falls as exp(-q rho^2) about the principal
 * point, the intensity-weighted centroid (what the tracker measures) lies
 * (R^2 / 4) 2 q rho closer to the principal point than the disc's centre: an image
 * scale R^2 q / 2 too small, the same in every frame. A one-camera track is then
 * that scale times the truth (about the principal ray's point), every velocity as
 * much too small, alike on both sides (e and the impulse ratio keep little of
 * it), and no residual shows it. The fall-off taken: a quarter of the light lost
 * at the image's corner rho_c (q = LENS_CORNER_FALLOFF / rho_c^2), as the scale's
 * 1-sigma: the scale (R / rho_c)^2 LENS_CORNER_FALLOFF / 2. Not cos^4 of the field
 * angle on top (q = 2 / f^2, a scale (R / f)^2): phones and cameras flatten most of
 * it in their processing, synth renders none, and taken as well it made the phone
 * study's ball sigmas 1.6 times their errors at 120-240 fps (docs/analysis.md,
 * session 32). The tuning study's one-marker balls' fitted image scales were -0.07%
 * to -0.14% where the ball's image is not clipped (1066, 1065, 1114), against
 * 0.12% and 0.09% here for 1066 and 1065. Markers of a few pixels: negligible. R =
 * f times the marker's radius over the camera's distance to the surface frame's
 * origin (track_info's cameras[0].pose.t), f, the principal point and the image
 * size its intrinsics. 0 for stereo and for a scale from gravity (its factor makes
 * the flight's g the given one: the centroids' scale is in it). */
#define LENS_CORNER_FALLOFF 0.25 /* 0.4 stop: a lens stopped down a little (wide open: 1-2 stops) */
static double centroid_scale_rel(json_t *root, const icv_experiment *e)
{
    if (e->n_cameras != 1 || e->scale_kind == ICV_SCALE_GRAVITY || !(e->marker_diameter > 0))
        return 0;
    json_t *cam = json_array_get(json_object_get(root, "cameras"), 0);
    json_t *t = json_object_get(json_object_get(cam, "pose"), "t");
    if (json_array_size(t) != 3)
        return 0;
    double z = 0;
    for (size_t k = 0; k < 3; k++)
        z = hypot(z, json_number_value(json_array_get(t, k)));
    double a = z > 0 ? 0.5 * e->marker_diameter / z : 0;
    if (!(a < 0.5))
        return 0;
    /* R^2 q / 2 with R = a f px */
    json_t *in = json_object_get(cam, "intrinsics");
    double f = json_number_value(json_object_get(in, "fx")), cx = json_number_value(json_object_get(in, "cx"));
    double cy = json_number_value(json_object_get(in, "cy")), w = json_number_value(json_object_get(in, "width"));
    double h = json_number_value(json_object_get(in, "height"));
    double rc2 = pow(fmax(cx, w - cx), 2) + pow(fmax(cy, h - cy), 2);
    double vig = f > 0 && rc2 > 0 ? LENS_CORNER_FALLOFF * f * f / (2 * rc2) : 0;
    return a * a * vig;
}

/* The track stage's sidecar: calibration.stereo.baseline_m and baseline_sd_m (the
 * calibration it made from board images, or its file's),
 * calibration.surface.turn_sd_rad, offset_sd_m (the board on the surface, as calib
 * found it; plane_rms_m when a sidecar has not these), and scale_from_gravity's or
 * scale_from_size's factor and factor_sd (one camera, scale: gravity or size). */
int analysis_calib_sd_from_track_info(const char *path, const icv_experiment *e, analysis_calib_sd *out)
{
    json_error_t je;
    json_t *root = icv_file_exists(path) ? json_load_file(path, 0, &je) : NULL;
    if (!root)
        return 0;
    json_t *cal = json_object_get(root, "calibration");
    json_t *st = json_object_get(cal, "stereo"), *surf = json_object_get(cal, "surface");
    json_t *b = json_object_get(st, "baseline_m"), *bsd = json_object_get(st, "baseline_sd_m");
    json_t *prms = json_object_get(surf, "plane_rms_m"), *tsd = json_object_get(surf, "turn_sd_rad");
    json_t *osd = json_object_get(surf, "offset_sd_m");
    int found = 0;
    if (!(out->scale_rel > 0) && json_is_number(b) && json_is_number(bsd) && json_number_value(b) > 0 &&
        json_number_value(bsd) > 0) {
        out->scale_rel = json_number_value(bsd) / json_number_value(b);
        found = 1;
    }
    /* one camera with motion_plane.scale: gravity: the scale's 1-sigma from its flight
     * fit (track/gravity_scale.c); every length is factor times the provisional one */
    const char *scaled_by[2] = {"scale_from_gravity", "scale_from_size"}; /* scale: size, its outline's */
    for (int k = 0; k < 2; k++) {
        json_t *gs = json_object_get(root, scaled_by[k]);
        double factor = json_number_value(json_object_get(gs, "factor"));
        double factor_sd = json_number_value(json_object_get(gs, "factor_sd"));
        if (!(out->scale_rel > 0) && factor > 0 && factor_sd > 0) {
            out->scale_rel = factor_sd / factor;
            found = 1;
        }
    }
    if (!(out->tilt > 0) && (json_is_number(prms) || json_is_number(osd)) && e->n_cameras >= 2) {
        analysis_calib_sd s = {0};
        double turn[3] = {0, 0, 0};
        for (size_t k = 0; k < 3 && json_array_size(tsd) == 3; k++)
            turn[k] = json_number_value(json_array_get(tsd, k));
        surface_sd(e, turn, json_number_value(osd), json_number_value(prms), &s);
        if (s.tilt > 0) {
            out->tilt = s.tilt, out->heading = s.heading, out->offset = s.offset;
            found = 1;
        }
    }
    /* one camera (not scaled by gravity, whose factor the same tracks set): the
     * markers' centroid scale (centroid_scale_rel) */
    double a2 = centroid_scale_rel(root, e);
    if (a2 > 0) {
        out->scale_rel = hypot(out->scale_rel, a2);
        found = 1;
    }
    json_decref(root);
    return found;
}
