/* test_calib_surface_sigma.c: the surface frame's error as the tracks measured in
 * it see it, and the 1-sigma analysis propagates for it, against known truth
 * (issue #9: "the uncertainty of the calibration where it is known"). Point level,
 * a few seconds: per seed the rig is calibrated from 15 noisy board views
 * (tests/calib/synth_points.c), the board lying on a table is found with that
 * calibration from noisy corners, and points where a body would fly (up to 0.25 m
 * above the board) are seen exactly by the true rig and triangulated with the
 * calibrated one into the found frame. The similarity between them and the truth
 * is the frame's turn (tilt about x and z, heading about y) and its offset along
 * the normal; the sigmas are analysis's (calib's board-pose sigmas through the
 * track stage's sidecar, analysis/calib_sd.c).
 * The video study's figures are in test_calib_surface_study.c. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "calib/calib_internal.h"
#include "tests/calib/frame_fit.h"
#include "tests/calib/synth_points.h"
#include "tests/harness.h"

static icv_vec3 col(icv_mat3 m, int c) { return icv_v3(m.m[0][c], m.m[1][c], m.m[2][c]); }

/* the table board of test_calib_surface.c: 0.9 m in front of camera 1, seen
 * obliquely (tilted 55 deg back, turned 10 deg about its normal) */
static void table_frame(icv_mat3 *Rs, icv_vec3 *ts)
{
    icv_mat3 Rb = icv_m3_mul(icv_rot_x(-55 * M_PI / 180), icv_rot_z(10 * M_PI / 180));
    *ts = icv_v3(-0.15, 0.12, 0.9);
    icv_vec3 n = col(Rb, 2), x = col(Rb, 0);
    if (icv_v3_dot(n, *ts) > 0)
        n = icv_v3_scale(n, -1);
    icv_mat3 m = {{{x.x, n.x, 0}, {x.y, n.y, 0}, {x.z, n.z, 0}}};
    icv_vec3 z = icv_v3_cross(x, n);
    m.m[0][2] = z.x, m.m[1][2] = z.y, m.m[2][2] = z.z;
    *Rs = m; /* contract axes: x along the first row, y the normal towards the cameras */
}

/* the analysis's surface sigmas for a plane scatter, through the track stage's
 * sidecar key (calibration.surface.plane_rms_m) */
static void analysis_sd(const calib_board *b, const calib_surface *s, analysis_calib_sd *sd)
{
    const char *path = th_tmp("surface_sigma_track_info.json");
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f,
                "{\"calibration\": {\"surface\": {\"plane_rms_m\": %.9g, \"turn_sd_rad\": [%.9g, %.9g, %.9g], "
                "\"offset_sd_m\": %.9g}}}\n",
                s->plane_rms, s->turn_sd[0], s->turn_sd[1], s->turn_sd[2], s->offset_sd);
        fclose(f);
    }
    icv_experiment e;
    memset(&e, 0, sizeof e);
    e.n_cameras = 2;
    e.board_cols = b->cols, e.board_rows = b->rows, e.board_square = b->square;
    memset(sd, 0, sizeof *sd);
    analysis_calib_sd_from_track_info(path, &e, sd);
}

#define N_SEEDS 12
#define N_VOL 27

TEST(test_calib_surface_frame_turn_and_offset_within_their_sigma_as_the_tracks_see_them)
{
    sp_data *d = calloc(1, sizeof *d);
    ASSERT(d, "oom");
    double sum_tilt = 0, sum_head = 0, sum_off = 0, worst_deg = 0;
    int n_tilt = 0, n = 0;
    icv_mat3 Rs;
    icv_vec3 ts;
    table_frame(&Rs, &ts);
    for (int seed = 1; seed <= N_SEEDS; seed++) {
        sp_default_rig(d);
        /* 0.05 px: a detector's corner noise on a real board (Bouguet's set
         * reprojects at 0.17 px RMS, synth's rendered boards at 0.01-0.03 px) */
        const double sigma = 0.05;
        sp_generate(d, 15, sigma, (unsigned long)seed);
        calib_stereo st;
        icv_err err = {0};
        ASSERT(calib_stereo_calibrate(&d->obs[0], &d->obs[1], NULL, &st, &err) == 0, "seed %d: %s", seed, err.msg);
        /* the board on the table, seen by the true rig with the same noise */
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, 1000 + (unsigned long)seed);
        int np = d->board.cols * d->board.rows;
        calib_pt2 uv1[SP_MAX_PTS], uv2[SP_MAX_PTS];
        icv_mat3 R12;
        memcpy(R12.m, d->R, sizeof R12.m);
        for (int i = 0; i < np; i++) {
            icv_vec3 xs = icv_v3(d->X[i].x, 0, d->X[i].y); /* corner (c, r) at (c a, 0, r a) in the surface */
            icv_vec3 x1 = icv_v3_add(icv_m3_apply(Rs, xs), ts);
            icv_vec3 x2 = icv_v3_add(icv_m3_apply(R12, x1), icv_v3_from_array(d->T));
            calib_project(&d->in[0], &x1, 1, &uv1[i]);
            calib_project(&d->in[1], &x2, 1, &uv2[i]);
            uv1[i].u += gsl_ran_gaussian(r, sigma), uv1[i].v += gsl_ran_gaussian(r, sigma);
            uv2[i].u += gsl_ran_gaussian(r, sigma), uv2[i].v += gsl_ran_gaussian(r, sigma);
        }
        gsl_rng_free(r);
        calib_surface s;
        int rc = calib_surface_from_stereo(&st.cam[0].in, &st.cam[1].in, st.R, st.T, &d->board, uv1, uv2, &s, &err);
        ASSERT(rc == 0, "seed %d: %s", seed, err.msg);
        ASSERT(s.turn_sd[0] > 0 && s.offset_sd > 0, "seed %d: no sigma from the corners", seed);
        rc = calib_surface_add_calibration_sd(&st.cam[0].in, &st.cam[1].in, st.R, st.T, &st.cov, &d->board, &s, &err);
        ASSERT(rc == 0, "seed %d: %s", seed, err.msg);
        /* where a body flies: over the board (0-0.32 m along x, 0-0.2 m along z),
         * 0.08-0.32 m above it (calib's own choice, surface_uncertainty.c) */
        icv_vec3 xt[N_VOL], xm[N_VOL];
        calib_pt2 px[N_VOL][2];
        for (int i = 0; i < N_VOL; i++) {
            xt[i] = icv_v3(0.16 * (i % 3), 0.08 + 0.12 * (i / 3 % 3), 0.10 * (i / 9));
            icv_vec3 x1 = icv_v3_add(icv_m3_apply(Rs, xt[i]), ts);
            icv_vec3 x2 = icv_v3_add(icv_m3_apply(R12, x1), icv_v3_from_array(d->T));
            calib_project(&d->in[0], &x1, 1, &px[i][0]);
            calib_project(&d->in[1], &x2, 1, &px[i][1]);
        }
        ff_triangulate_to_surface(&st.cam[0].in, &st.cam[1].in, st.R, st.T, &s, (const calib_pt2(*)[2])px, N_VOL, xm);
        icv_vec3 w, o;
        double k;
        ASSERT(calib_similarity_fit(xt, xm, N_VOL, &w, &k, &o) == 0, "seed %d: fit", seed);
        analysis_calib_sd sd;
        analysis_sd(&d->board, &s, &sd);
        ASSERT(sd.tilt > 0 && sd.heading > 0 && sd.offset > 0, "seed %d: no sigma from plane rms %g m", seed,
               s.plane_rms);
        printf("    seed %2d: turn x %+.2e z %+.2e (tilt sigma %.2e), y %+.2e (heading sigma %.2e) rad; offset "
               "%+.4f mm (sigma %.4f); plane rms %.4f mm\n",
               seed, w.x, w.z, sd.tilt, w.y, sd.heading, 1e3 * o.y, 1e3 * sd.offset, 1e3 * s.plane_rms);
        sum_tilt += pow(w.x / sd.tilt, 2) + pow(w.z / sd.tilt, 2), n_tilt += 2;
        sum_head += pow(w.y / sd.heading, 2);
        sum_off += pow(o.y / sd.offset, 2);
        worst_deg = fmax(worst_deg, icv_v3_norm(w) * 180 / M_PI);
        n++;
        calib_stereo_free(&st);
    }
    free(d);
    double p_tilt = sqrt(sum_tilt / n_tilt), p_head = sqrt(sum_head / n), p_off = sqrt(sum_off / n);
    printf("    RMS pulls over %d seeds: tilt %.2f, heading %.2f, offset %.2f; worst turn %.4f deg\n", n, p_tilt, p_head,
           p_off, worst_deg);
    /* accuracy: issue #6's 0.1 deg for the surface normal */
    ASSERT(worst_deg < 0.1, "the frame turned by %.4f deg (0.1 deg)", worst_deg);
    /* honesty: the RMS pull of an honest sigma is 1; 0.7-1.5 is issue #9's target
     * (12 draws: an honest sigma's RMS pull lies in 0.6-1.4 at ~95% for 12, 0.75-1.25
     * for the 24 tilts) */
    ASSERT(p_tilt > 0.7 && p_tilt < 1.5, "tilt RMS pull %.2f (target 0.7-1.5)", p_tilt);
    ASSERT(p_head > 0.7 && p_head < 1.5, "heading RMS pull %.2f (target 0.7-1.5)", p_head);
    ASSERT(p_off > 0.7 && p_off < 1.5, "offset RMS pull %.2f (target 0.7-1.5)", p_off);
}
