/* level_gravity.c: the vertical from a board lying on a level reference (the
 * incline's angle without a given gravity). The surface board and the
 * level board are found the same way (calib_surface_from_images: stereo plane fit, or
 * PnP with one camera); gravity in the surface frame is -g0 times the level board's
 * normal expressed there. */
#include <math.h>

#include "job/job_track_internal.h"

/* 1-sigma (rad) of a board's fitted normal turning towards the in-plane direction u
 * (camera frame): the corners' scatter about the plane (stereo; mono: the reprojection
 * residual as a distance at the board, a lower bound) over sqrt(N) corners spread
 * along u (the slope of a plane fit along u: sigma / sqrt(sum x_u^2)). The angle
 * between two normals changes only as each turns towards the other: the spread that
 * matters is the one along that direction, 1.5 times the short side's on a 9 x 6 board
 * lying along the slope. */
static double normal_sd(const calib_surface *s, const calib_board *b, double focal_px, icv_vec3 u)
{
    double sq = b->square * b->square;
    double var_x = sq * (b->cols * b->cols - 1) / 12.0, var_z = sq * (b->rows * b->rows - 1) / 12.0;
    double ux = u.x * s->R.m[0][0] + u.y * s->R.m[1][0] + u.z * s->R.m[2][0]; /* along the board's x (a row) */
    double uz = u.x * s->R.m[0][2] + u.y * s->R.m[1][2] + u.z * s->R.m[2][2]; /* along its z (a column) */
    double un = ux * ux + uz * uz;
    double spread = un > 1e-12 ? sqrt((ux * ux * var_x + uz * uz * var_z) / un) : sqrt(fmin(var_x, var_z));
    double rms = s->plane_rms > 0 ? s->plane_rms : s->reproj_rms * icv_v3_norm(s->t) / focal_px;
    int n = s->n_points > 0 ? s->n_points : b->cols * b->rows;
    return rms / (sqrt((double)n) * spread);
}

/* the part of a perpendicular to unit n, as a unit vector (0 when parallel) */
static icv_vec3 towards(icv_vec3 n, icv_vec3 a)
{
    icv_vec3 p = icv_v3_sub(a, icv_v3_scale(n, icv_v3_dot(a, n)));
    double k = icv_v3_norm(p);
    return k > 1e-12 ? icv_v3_scale(p, 1 / k) : icv_v3(0, 0, 0);
}

int job_level_gravity(const icv_experiment *exp, const track_calibration *given, double g0, icv_vec3 *g,
                      double *incline_sd, icv_err *err)
{
    if (!exp->level_images[0][0])
        return icv_err_set(err, ICV_EINVAL, "%s: no coefficients.level_images (a board lying on a level reference)",
                           exp->path);
    track_calibration *own = NULL;
    int rc = given ? 0 : job_track_calibration_load(exp, &own, err);
    if (rc)
        return rc;
    const track_calibration *cal = given ? given : own;
    calib_board board = {exp->board_cols, exp->board_rows, exp->board_square};
    int stereo = exp->n_cameras >= 2 && exp->level_images[1][0];
    calib_surface lv;
    rc = calib_surface_from_images(&cal->in[0], stereo ? &cal->in[1] : NULL, stereo ? cal->R[1] : NULL,
                                   stereo ? cal->T[1] : NULL, &board, exp->level_images[0],
                                   stereo ? exp->level_images[1] : NULL, &lv, err);
    if (rc) {
        icv_err_prefix(err, "coefficients.level_images: ");
    } else {
        icv_vec3 up_cam = icv_v3(lv.R.m[0][1], lv.R.m[1][1], lv.R.m[2][1]); /* its y: the normal towards the cameras */
        icv_vec3 n_cam = icv_v3(cal->surf.R.m[0][1], cal->surf.R.m[1][1], cal->surf.R.m[2][1]);
        *g = icv_v3_scale(icv_m3_apply(icv_m3_transpose(cal->surf.R), up_cam), -g0);
        double f = cal->in[0].fx;
        double sd_level = normal_sd(&lv, &board, f, towards(up_cam, n_cam));
        double sd_surface = normal_sd(&cal->surf, &board, f, towards(n_cam, up_cam));
        *incline_sd = hypot(sd_level, sd_surface);
        icv_debug("level board: plane scatter %.4f mm, normal %.2g rad; surface board %.4f mm, %.2g rad; incline %.7f "
                  "+- %.2g rad",
                  lv.plane_rms * 1e3, sd_level, cal->surf.plane_rms * 1e3, sd_surface,
                  atan2(hypot(g->x, g->z), -g->y), *incline_sd);
    }
    job_track_calibration_free(own);
    return rc;
}
