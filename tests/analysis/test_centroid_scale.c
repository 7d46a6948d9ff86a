/* test_centroid_scale.c: one camera's marker centroids, shaded by the lens's fall-off
 * of light across the field, lie an image scale a^2 too close to the principal point
 * (a the marker's angular radius), a slow error common to every frame that no
 * residual shows; the analysis carries it as a scale sigma (analysis/calib_sd.c,
 * docs/analysis.md "Session 32"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "tests/harness.h"

/* The intensity-weighted centroid of a disc of radius R px centred at (cu, cv) px from
 * the principal point, each pixel sampled S x S (its coverage times the fall-off at
 * the sample): what a box centroid measures on a uniform ball. Fall-off: none (0); the
 * cos^4 of a pinhole of focal length f px, 1 / (1 + rho^2 / f^2)^2 (1); synth's
 * vignetting 1 - v rho^2 / rho_c^2 with v = 0.25 at rho_c = f (2). */
static void shaded_centroid(double cu, double cv, double R, double f, int mode, double *mu, double *mv)
{
    const int S = 8;
    double sw = 0, su = 0, sv = 0;
    for (int y = (int)floor(cv - R - 1); y <= (int)ceil(cv + R + 1); y++)
        for (int x = (int)floor(cu - R - 1); x <= (int)ceil(cu + R + 1); x++)
            for (int j = 0; j < S; j++)
                for (int i = 0; i < S; i++) {
                    double px = x - 0.5 + (i + 0.5) / S, py = y - 0.5 + (j + 0.5) / S;
                    if ((px - cu) * (px - cu) + (py - cv) * (py - cv) > R * R)
                        continue;
                    double r2 = (px * px + py * py) / (f * f), q = 1 + r2;
                    double w = mode == 1 ? 1 / (q * q) : mode == 2 ? 1 - 0.25 * r2 : 1;
                    sw += w, su += w * px, sv += w * py;
                }
    *mu = su / sw, *mv = sv / sw;
}

TEST(test_centroid_scale_a_shaded_ball_s_centroid_lies_the_model_s_image_scale_too_near_the_axis)
{
    /* a 70 px ball at f = 1090 px (seed 1066 of the tuning study: a^2 = 0.10%), centres
       50-250 px from the principal point along a diagonal and an axis. The rule, an
       image scale R^2 q / 2 for a fall-off exp(-q rho^2): cos^4 (q = 2 / f^2, a^2) and
       the vignetting the analysis takes, (R / rho_c)^2 v / 2 for v at the corner rho_c
       (here 0.25 at rho_c = f: a^2 / 8) */
    const double f = 1090, R = 35, a2 = (R / f) * (R / f), want[3] = {0, a2, a2 * 0.25 / 2};
    for (int mode = 1; mode <= 2; mode++) {
        double num = 0, den = 0, worst_flat = 0;
        for (int k = 1; k <= 5; k++)
            for (int dir = 0; dir < 2; dir++) {
                double rho = 50.0 * k, cu = dir ? rho : rho / sqrt(2), cv = dir ? 0.3 : rho / sqrt(2);
                double mu, mv, fu, fv;
                shaded_centroid(cu, cv, R, f, mode, &mu, &mv);
                shaded_centroid(cu, cv, R, f, 0, &fu, &fv);
                /* the unshaded disc's centroid against its centre: the sampling's own error */
                worst_flat = fmax(worst_flat, hypot(fu - cu, fv - cv));
                num += (mu - fu) * cu + (mv - fv) * cv;
                den += cu * cu + cv * cv;
            }
        double k = num / den; /* the shaded centroids' image scale about the principal point */
        printf("    %s: the shaded centroids' scale %.4g (model %.4g, ratio %.3f); unshaded disc's centroid within "
               "%.2g px\n",
               mode == 1 ? "cos^4" : "vignetting", k, -want[mode], -k / want[mode], worst_flat);
        /* 8 x 8 samples place the edge to an eighth of a pixel; the scale is taken from
           the shaded minus the unshaded centroid on the same samples, where it cancels */
        ASSERT(worst_flat < 0.01, "the unshaded disc's centroid is %.3g px off its centre (sampling)", worst_flat);
        /* 10%: the first-order derivation leaves out 1 / (1 + rho^2 / f^2) (5% at 250 px)
           and the disc's own higher moments */
        ASSERT(fabs(-k / want[mode] - 1) < 0.10, "%s: scale %.4g against the model's %.4g",
               mode == 1 ? "cos^4" : "vignetting", k, -want[mode]);
    }
}

/* the analysis's calibration sigmas for experiment e, as job/analyze.c reads them: the
 * experiment's, then a sidecar holding camera 0's pose t (m) */
static void sd_from_sidecar(const icv_experiment *e, const double t[3], const double *fwh, analysis_calib_sd *sd)
{
    const char *path = th_tmp("centroid_scale_track_info.json");
    FILE *fp = fopen(path, "w");
    if (fp) {
        fprintf(fp, "{\"planar\": true, \"cameras\": [{\"id\": \"cam\", ");
        if (fwh) /* focal length, width, height; the principal point in the middle */
            fprintf(fp, "\"intrinsics\": {\"fx\": %g, \"fy\": %g, \"cx\": %g, \"cy\": %g, \"width\": %g, \"height\": %g}, ",
                    fwh[0], fwh[0], fwh[1] / 2, fwh[2] / 2, fwh[1], fwh[2]);
        fprintf(fp, "\"pose\": {\"R\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], \"t\": [%.9g, %.9g, %.9g]}}]}\n", t[0], t[1],
                t[2]);
        fclose(fp);
    }
    icv_err err = {0};
    analysis_calib_sd_from_experiment(e, sd, &err); /* a ruler's clicks; no calibration file */
    analysis_calib_sd_from_track_info(path, e, sd);
}

TEST(test_centroid_scale_one_camera_s_scale_sigma_is_the_corner_fall_off_s)
{
    /* seed 1066's camera: 0.909 m from the surface frame's origin, f 1090.9 px on 512 x
       418 (the principal point at the middle here), a 56.2 mm ball its own marker: R
       = 33.7 px, rho_c = 330 px, the scale (R / rho_c)^2 0.25 / 2 = 0.13% */
    const double t[3] = {-0.0579258, 0.0448757, 0.907428}, cam[3] = {1090.9, 512, 418};
    icv_experiment e;
    memset(&e, 0, sizeof e);
    e.n_cameras = 1;
    e.scale_kind = ICV_SCALE_BOARD;
    e.marker_diameter = 0.0561521;
    double z = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]), R = cam[0] * 0.5 * e.marker_diameter / z;
    double want = R * R / (256.0 * 256 + 209 * 209) * 0.25 / 2;
    analysis_calib_sd sd;
    sd_from_sidecar(&e, t, cam, &sd);
    printf("    one camera, board: scale sd %.4g (R %.1f px: %.4g)\n", sd.scale_rel, R, want);
    ASSERT(fabs(sd.scale_rel - want) < 1e-9 * want, "scale sd %.6g, want %.6g", sd.scale_rel, want);
    /* a long lens (seed 1065's: f 1940 px on 640 x 480, 0.909 m): R 59.9 px, rho_c 400 px */
    const double lens[3] = {1940, 640, 480};
    double R2 = 1940 * 0.5 * e.marker_diameter / z, want2 = R2 * R2 / (400.0 * 400) * 0.25 / 2;
    sd_from_sidecar(&e, t, lens, &sd);
    ASSERT(fabs(sd.scale_rel - want2) < 1e-9 * want2, "long lens: scale sd %.6g, want %.6g", sd.scale_rel, want2);
    /* no intrinsics in the sidecar: nothing known of the image, nothing added */
    sd_from_sidecar(&e, t, NULL, &sd);
    ASSERT(sd.scale_rel == 0, "no intrinsics: %.3g", sd.scale_rel);
    /* a ruler's clicks already give a scale sigma: the two add in quadrature */
    e.scale_kind = ICV_SCALE_POINTS;
    e.scale_points_px[0][0] = 100, e.scale_points_px[1][0] = 600; /* 500 px: 0.14% */
    sd_from_sidecar(&e, t, cam, &sd);
    double ruler = sqrt(2.0) * 0.5 / 500;
    ASSERT(fabs(sd.scale_rel - hypot(ruler, want)) < 1e-9, "ruler and centroids: %.6g, want %.6g", sd.scale_rel,
           hypot(ruler, want));
    /* scale: gravity sets its factor from the same tracks' flight: the centroids' scale
       is in that factor already, so nothing is added; stereo is not this term's */
    e.scale_kind = ICV_SCALE_GRAVITY;
    sd_from_sidecar(&e, t, cam, &sd);
    ASSERT(sd.scale_rel == 0, "scale: gravity took %.3g", sd.scale_rel);
    e.scale_kind = ICV_SCALE_BOARD;
    e.n_cameras = 2;
    sd_from_sidecar(&e, t, cam, &sd);
    ASSERT(sd.scale_rel == 0, "stereo took %.3g", sd.scale_rel);
}
