/* surface_lowest.c: one camera with no `surface` key (docs/experiment.md: "one camera:
 * the lowest point reached"). The track stage starts from a provisional surface (the
 * image's bottom row as surface.line_px would give it, job/track_open.c's job_track_calibration_read);
 * once the candidates are in metres, the surface is moved to the lowest point the body
 * reaches: up against the free flight's acceleration when it was measured (a camera
 * not held level then does not tilt the surface), else the image's up; the origin at
 * the lowest marker centroid, less the ball's radius for a sphere (its contact point).
 * At a low frame rate the frame nearest a bounce shows the body above the surface by
 * up to the distance it moves in half a frame: give surface.line_px there. */
#include <math.h>
#include <string.h>

#include "track/track_3d.h"

int track_surface_lowest_apply(const icv_experiment *exp, track_calibration *cal, track_candidate *cand,
                               const int *cand_n, long F, icv_err *err)
{
    int nm = exp->n_markers;
    const track_gravity_scale *g = cal->gravity.found         ? &cal->gravity
                                   : cal->gravity_check.found ? &cal->gravity_check
                                                              : NULL;
    double ux = 0, uy = 1; /* up, in the provisional surface frame's x, y (the motion plane) */
    if (g && hypot(g->dir[0], g->dir[1]) > 0.5)
        ux = -g->dir[0], uy = -g->dir[1];
    double lo = INFINITY;
    long flo = -1;
    for (long f = 0; f < F; f++) {
        if (cand_n[f] != nm)
            continue;
        double cx = 0, cy = 0;
        for (int i = 0; i < nm; i++)
            cx += cand[f * TRACK_MAX_CAND + i].X.x / nm, cy += cand[f * TRACK_MAX_CAND + i].X.y / nm;
        double h = ux * cx + uy * cy;
        if (h < lo)
            lo = h, flo = f;
    }
    if (flo < 0)
        return icv_err_set(err, ICV_ENOTFOUND,
                           "%s: surface: no frame shows all %d markers, so the lowest point reached is not known: "
                           "give surface.line_px",
                           exp->path, nm);
    double h0 = lo - (exp->shape.type == ICV_SHAPE_SPHERE ? exp->shape.radius : 0);
    /* the new axes in the old frame: x' = (uy, -ux, 0), y' = up, z' = z; origin h0 up */
    icv_mat3 B = {{{uy, ux, 0}, {-ux, uy, 0}, {0, 0, 1}}}, Bt = icv_m3_transpose(B);
    icv_vec3 o = icv_v3(ux * h0, uy * h0, 0);
    cal->surf.t = icv_v3_add(cal->surf.t, icv_m3_apply(cal->surf.R, o));
    cal->surf.R = icv_m3_mul(cal->surf.R, B);
    for (long f = 0; f < F; f++)
        for (int i = 0; i < cand_n[f]; i++) {
            track_candidate *c = &cand[f * TRACK_MAX_CAND + i];
            c->X = icv_m3_apply(Bt, icv_v3_sub(c->X, o));
            double t[3][3];
            for (int r = 0; r < 3; r++) /* cov' = B^T cov B */
                for (int q = 0; q < 3; q++) {
                    t[r][q] = 0;
                    for (int k = 0; k < 3; k++)
                        for (int l = 0; l < 3; l++)
                            t[r][q] += B.m[k][r] * c->cov[k][l] * B.m[l][q];
                }
            memcpy(c->cov, t, sizeof t);
        }
    icv_info("%s: surface: the lowest point reached (frame %ld), up %s (%.2f degrees from the image's up)", exp->path,
             flo, g ? "against the free flight's acceleration" : "the image's up", atan2(ux, uy) * 180 / M_PI);
    return 0;
}
