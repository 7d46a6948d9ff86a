/* synth_points.c: see synth_points.h. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <string.h>

#include "tests/calib/synth_points.h"

void sp_default_rig(sp_data *d)
{
    memset(d, 0, sizeof *d);
    calib_intrinsics a = {1280, 720, 1050.0, 1046.0, 645.3, 357.8, {-0.12, 0.05, 0.0008, -0.0006, 0.0}};
    calib_intrinsics b = {1280, 720, 1040.0, 1037.5, 636.1, 362.4, {-0.11, 0.045, -0.0005, 0.0007, 0.0}};
    d->in[0] = a;
    d->in[1] = b;
    icv_mat3 R = icv_rot_y(-4.0 * M_PI / 180);
    memcpy(d->R, R.m, sizeof d->R);
    d->T[0] = -0.120, d->T[1] = 0.0015, d->T[2] = 0.004;
    d->board = (calib_board){9, 6, 0.04};
}

void sp_generate(sp_data *d, int n_views, double sigma, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    int np = d->board.cols * d->board.rows;
    d->n_pts = np;
    calib_board_points(&d->board, d->X);
    icv_vec3 centre = icv_v3((d->board.cols - 1) * d->board.square / 2, (d->board.rows - 1) * d->board.square / 2, 0);
    icv_mat3 Rs;
    memcpy(Rs.m, d->R, sizeof Rs.m);
    for (int v = 0, tries = 0; v < n_views; tries++) {
        /* board centres spread over a 5x3 grid of the image (as a careful user
         * does), 0.55-1.05 m away, tilted 15-40 deg about both in-plane axes */
        int cell = (v + tries / 50) % 15;
        double u = (cell % 5 + gsl_rng_uniform(r)) * 1280 / 5, w = (cell / 5 + gsl_rng_uniform(r)) * 720 / 3;
        double z = 0.55 + 0.5 * gsl_rng_uniform(r);
        icv_vec3 C = icv_v3((u - 640) / 1050 * z, (w - 360) / 1046 * z, z);
        double ax = (0.25 + 0.45 * gsl_rng_uniform(r)) * (gsl_rng_uniform(r) < 0.5 ? -1 : 1);
        double ay = (0.25 + 0.45 * gsl_rng_uniform(r)) * (gsl_rng_uniform(r) < 0.5 ? -1 : 1);
        icv_mat3 Rb = icv_m3_mul(icv_m3_mul(icv_rot_x(ax), icv_rot_y(ay)), icv_rot_z((gsl_rng_uniform(r) - 0.5) * 0.6));
        icv_vec3 t = icv_v3_sub(C, icv_m3_apply(Rb, centre));
        /* slide the board (at its depth) until its image lies inside both images
         * with a 5 px margin: boards near the edges hug them, covering the corners */
        int ok = 0;
        for (int it = 0; it < 6 && !ok; it++) {
            double lo[2][2] = {{1e9, 1e9}, {1e9, 1e9}}, hi[2][2] = {{-1e9, -1e9}, {-1e9, -1e9}};
            ok = 1;
            for (int i = 0; i < np; i++) {
                icv_vec3 x1 = icv_v3_add(icv_m3_apply(Rb, d->X[i]), t);
                icv_vec3 x2 = icv_v3_add(icv_m3_apply(Rs, x1), icv_v3_from_array(d->T));
                if (x1.z < 0.2 || (x2.z < 0.2 && !d->mono_only)) {
                    ok = -1;
                    break;
                }
                calib_project(&d->in[0], &x1, 1, &d->uv[0][v * np + i]);
                calib_project(&d->in[1], &x2, 1, &d->uv[1][v * np + i]);
                for (int c = 0; c < 2; c++) {
                    calib_pt2 p = d->uv[c][v * np + i];
                    lo[c][0] = fmin(lo[c][0], p.u), hi[c][0] = fmax(hi[c][0], p.u);
                    lo[c][1] = fmin(lo[c][1], p.v), hi[c][1] = fmax(hi[c][1], p.v);
                }
            }
            if (ok < 0)
                break;
            double du = 0, dv = 0;
            for (int c = 0; c < (d->mono_only ? 1 : 2); c++) {
                if (lo[c][0] < 5) du = fmax(du, 5 - lo[c][0]);
                if (hi[c][0] > 1275) du = fmin(du, 1275 - hi[c][0]);
                if (lo[c][1] < 5) dv = fmax(dv, 5 - lo[c][1]);
                if (hi[c][1] > 715) dv = fmin(dv, 715 - hi[c][1]);
            }
            ok = du == 0 && dv == 0;
            t.x += 1.05 * du * C.z / 1050;
            t.y += 1.05 * dv * C.z / 1046;
        }
        ok = ok > 0;
        if (!ok)
            continue;
        icv_v3_to_array(icv_rot_to_axis_angle(Rb), d->rvec[v]);
        icv_v3_to_array(t, d->tvec[v]);
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < np; i++) {
                d->uv[c][v * np + i].u += gsl_ran_gaussian(r, sigma);
                d->uv[c][v * np + i].v += gsl_ran_gaussian(r, sigma);
            }
        d->names[v] = "synthetic";
        v++;
    }
    d->n_views = n_views;
    for (int c = 0; c < 2; c++)
        d->obs[c] = (calib_observations){np, d->X, n_views, d->uv[c], d->names, 1280, 720, 0};
    gsl_rng_free(r);
}
