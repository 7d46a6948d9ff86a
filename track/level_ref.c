/* level_ref.c: the vertical from a board lying on a level reference (issue #11
 * item 1: the incline's angle without a given gravity). The surface board and the
 * level board are found the same way (calib_surface_from_images: stereo plane fit, or
 * PnP with one camera); gravity in the surface frame is -g0 times the level board's
 * normal expressed there. */
#include <math.h>
#include <string.h>

#include "track/pipeline_internal.h"
#include "track/track_pipeline.h"

/* 1-sigma (rad) of a board's fitted normal: the corners' scatter about the plane
 * (stereo; mono: the reprojection residual as a distance at the board, a lower bound)
 * over sqrt(N) corners spread over the board's shorter side */
static double normal_sd(const calib_surface *s, const calib_board *b, double focal_px)
{
    int k = b->cols < b->rows ? b->cols : b->rows;
    double spread = b->square * sqrt((k * k - 1) / 12.0);
    double rms = s->plane_rms > 0 ? s->plane_rms : s->reproj_rms * icv_v3_norm(s->t) / focal_px;
    int n = s->n_points > 0 ? s->n_points : b->cols * b->rows;
    return rms / (sqrt((double)n) * spread);
}

int track_level_gravity(const icv_experiment *exp, double g0, icv_vec3 *g, double *incline_sd, icv_err *err)
{
    if (!exp->level_images[0][0])
        return icv_err_set(err, ICV_EINVAL, "%s: no coefficients.level_images (a board lying on a level reference)",
                           exp->path);
    pl_calib cal;
    memset(&cal, 0, sizeof cal);
    int rc = pl_load_calibration(exp, &cal, err);
    if (rc)
        return rc;
    calib_board board = {exp->board_cols, exp->board_rows, exp->board_square};
    int stereo = exp->n_cameras >= 2 && exp->level_images[1][0];
    calib_surface lv;
    rc = calib_surface_from_images(&cal.in[0], stereo ? &cal.in[1] : NULL, stereo ? cal.R[1] : NULL,
                                   stereo ? cal.T[1] : NULL, &board, exp->level_images[0],
                                   stereo ? exp->level_images[1] : NULL, &lv, err);
    if (rc)
        return icv_err_prefix(err, "coefficients.level_images: ");
    icv_vec3 up_cam = icv_v3(lv.R.m[0][1], lv.R.m[1][1], lv.R.m[2][1]); /* its y: the normal towards the cameras */
    *g = icv_v3_scale(icv_m3_apply(icv_m3_transpose(cal.surf.R), up_cam), -g0);
    double f = cal.in[0].fx;
    *incline_sd = hypot(normal_sd(&lv, &board, f), normal_sd(&cal.surf, &board, f));
    return 0;
}
