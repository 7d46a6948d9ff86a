/* board_render.c: see board_render.h. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#include "tests/calib/board_render.h"

int board_render_pgm(const char *path, int w, int h, double f, const calib_board *b, const double rvec[3],
                     const double t[3])
{
    return board_render_pgm_on(path, w, h, f, b, rvec, t, 128, 0, 0);
}

/* one N(0, 1) draw (approximately: the sum of 12 uniforms less 6) from an LCG state */
static double gauss(unsigned long long *st)
{
    double s = 0;
    for (int k = 0; k < 12; k++) {
        *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
        s += (double)(*st >> 11) / 9007199254740992.0;
    }
    return s - 6;
}

int board_render_pgm_on(const char *path, int w, int h, double f, const calib_board *b, const double rvec[3],
                        const double t[3], double background, double noise_sd, unsigned long seed)
{
    unsigned long long st = seed * 2654435761ULL + 1;
    icv_mat3 R = icv_rot_from_axis_angle(icv_v3_from_array(rvec));
    /* H maps board (X, Y, 1) to pixels: K [r1 r2 t]; invert it */
    icv_mat3 K = {{{f, 0, (w - 1) / 2.0}, {0, f, (h - 1) / 2.0}, {0, 0, 1}}};
    icv_mat3 M = {{{R.m[0][0], R.m[0][1], t[0]}, {R.m[1][0], R.m[1][1], t[1]}, {R.m[2][0], R.m[2][1], t[2]}}};
    icv_mat3 H = icv_m3_mul(K, M), Hi;
    if (icv_m3_inverse(H, &Hi))
        return -1;
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    fprintf(fp, "P5\n%d %d\n255\n", w, h);
    double s = b->square;
    for (int v = 0; v < h; v++)
        for (int u = 0; u < w; u++) {
            double acc = 0;
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) {
                    icv_vec3 p = icv_m3_apply(Hi, icv_v3(u + (i - 1) / 3.0, v + (j - 1) / 3.0, 1));
                    double X = p.x / p.z, Y = p.y / p.z;
                    double g = background;
                    if (X >= -2 * s && X < (b->cols + 1) * s && Y >= -2 * s && Y < (b->rows + 1) * s) {
                        g = 235;
                        if (X >= -s && X < b->cols * s && Y >= -s && Y < b->rows * s) {
                            int ci = (int)floor(X / s), ri = (int)floor(Y / s);
                            g = ((ci + ri) & 1) ? 235 : 20;
                        }
                    }
                    acc += g;
                }
            double g = acc / 9 + (noise_sd > 0 ? noise_sd * gauss(&st) : 0);
            fputc((int)fmin(fmax(g + 0.5, 0), 255), fp);
        }
    return fclose(fp) ? -1 : 0;
}

void board_pose_lying(const calib_board *b, double dist_m, double elevation_deg, double yaw_deg, double roll_deg,
                      int w, int h, double f, double rvec[3], double t[3], calib_pt2 *truth)
{
    icv_mat3 R = icv_m3_mul(icv_rot_z(roll_deg * M_PI / 180),
                            icv_m3_mul(icv_rot_x(-(90 - elevation_deg) * M_PI / 180), icv_rot_z(yaw_deg * M_PI / 180)));
    icv_vec3 mid = icv_v3((b->cols - 1) * b->square / 2, (b->rows - 1) * b->square / 2, 0);
    icv_vec3 tr = icv_v3_sub(icv_v3(0, 0, dist_m), icv_m3_apply(R, mid));
    for (int r = 0; r < b->rows; r++)
        for (int c = 0; c < b->cols; c++) {
            icv_vec3 x = icv_v3_add(icv_m3_apply(R, icv_v3(c * b->square, r * b->square, 0)), tr);
            truth[r * b->cols + c] = (calib_pt2){f * x.x / x.z + (w - 1) / 2.0, f * x.y / x.z + (h - 1) / 2.0};
        }
    icv_v3_to_array(icv_rot_to_axis_angle(R), rvec);
    icv_v3_to_array(tr, t);
}

int blank_render_pgm(const char *path, int w, int h)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    fprintf(fp, "P5\n%d %d\n255\n", w, h);
    for (int v = 0; v < h; v++)
        for (int u = 0; u < w; u++) {
            double g = 60 + 100.0 * u / w + 40.0 * v / h;
            double dx = u - w / 3.0, dy = v - h / 2.0;
            if (dx * dx + dy * dy < 900)
                g = 20;
            fputc((int)g, fp);
        }
    return fclose(fp) ? -1 : 0;
}
