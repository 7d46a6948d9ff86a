/* coefficients_job.c: `impactcv coefficients` as one library call (issue #11):
 * experiment files in, coefficients.json out, written only when every repeat
 * was measured. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "track/track_pipeline.h"

#define G_STANDARD 9.81 /* m/s^2: |g| with a level reference (the contract's, as synth's) */

/* mu_s from the tilt's video: the plate and the body tracked (track_tilt_run),
 * tilt_track.csv written into dir for a person, then the onset and its angle */
static int tilt_from_video(const icv_experiment *e, const char *dir, analysis_coefficient *c, icv_err *err)
{
    track_tilt tt;
    int rc = track_tilt_run(e->path, &tt, err);
    if (rc)
        return rc;
    if (!rc)
        rc = analysis_coefficient_tilt_video(tt.t, tt.angle, tt.s, tt.n, c, err);
    /* the markers' height again from the resting frames alone (their parallax is the
     * drift of the rest line), then the onset again */
    long upto = 0;
    while (!rc && upto < tt.n && tt.t[upto] < c->onset_s - 5 * (tt.t[tt.n - 1] - tt.t[0]) / (tt.n - 1))
        upto++;
    if (!rc && upto > 40 && !(rc = track_tilt_height(&tt, upto, err)))
        rc = analysis_coefficient_tilt_video(tt.t, tt.angle, tt.s, tt.n, c, err);
    char path[ICV_PATH_MAX];
    if (!rc && !(rc = icv_mkdirs(dir, err)) && !(rc = icv_path_join(path, sizeof path, dir, "tilt_track.csv", err)))
        rc = track_tilt_write(path, &tt, err);
    if (rc == ICV_ENOTFOUND)
        icv_err_prefix(err, "%s: ", e->cameras[0].video);
    track_tilt_free(&tt);
    return rc;
}

static int measure_one(const icv_experiment *e, const char *tracks_path, const char *dir, analysis_coefficient *c,
                       icv_err *err)
{
    if (!e->kind[0])
        return icv_err_set(err, ICV_EINVAL, "%s: not a coefficient experiment: set experiment: tilt | slide | drop",
                           e->path);
    if (!strcmp(e->kind, "tilt")) {
        if (e->has_tilt_angle) {
            analysis_coefficient_tilt_angle(e->tilt_angle_deg, e->tilt_angle_sd_deg, c);
            return 0;
        }
        if (!e->level_images[0][0])
            return icv_err_set(err, ICV_EINVAL,
                               "%s: a tilt needs coefficients.angle_deg (the ruler's angle at the onset) or, from its "
                               "video, coefficients.level_images (a board on a level reference: the vertical)",
                               e->path);
        return tilt_from_video(e, dir, c, err);
    }
    analysis_body b;
    int rc = analysis_body_from_experiment(e, &b, err);
    if (rc)
        return rc;
    /* the incline for a slide: gravity given, or from a level reference board */
    icv_vec3 g = e->gravity;
    double incline_sd = 0;
    if (!strcmp(e->kind, "slide") && e->gravity_auto) {
        if (!e->level_images[0][0])
            return icv_err_set(err, ICV_EINVAL,
                               "%s: a slide needs the incline's angle: gravity [gx, gy, gz] in the surface frame, or "
                               "coefficients.level_images (a board on a level reference); gravity: auto needs a "
                               "free-flight part, which a slide has not",
                               e->path);
        if ((rc = track_level_gravity(e, G_STANDARD, &g, &incline_sd, err)))
            return rc;
    }
    /* the tracks: given, left by an earlier run, or tracked now from the videos */
    if (!icv_file_exists(tracks_path)) {
        track_pipeline_result tres;
        if ((rc = track_pipeline_run(e->path, dir, NULL, &tres, err)))
            return rc;
    }
    analysis_tracks tr;
    if ((rc = analysis_tracks_read_csv(tracks_path, &tr, err)))
        return rc;
    analysis_params prm;
    analysis_params_default(&prm);
    if (!strcmp(e->kind, "slide")) {
        rc = analysis_coefficient_slide(&tr, &b, g, NULL, prm.pos_sigma, c, err);
        if (!rc && incline_sd > 0)
            analysis_coefficient_slide_incline_sd(c, icv_v3_norm(g), incline_sd);
    } else { /* drop */
        analysis_result *res = malloc(sizeof *res);
        if (!res)
            rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        else {
            rc = analysis_run(&tr, &b, e->gravity_auto ? NULL : &e->gravity, &prm, res, err);
            if (rc == ICV_ENOTFOUND) /* no impact in a drop */
                icv_err_prefix(err, "drop: not a drop: ");
            if (!rc)
                rc = analysis_coefficient_drop(res, c, err);
            free(res);
        }
    }
    analysis_tracks_free(&tr);
    if (rc)
        icv_err_prefix(err, "%s: ", tracks_path);
    return rc;
}

int analysis_coefficients_job(const char *const *experiments, int n, const char *tracks_path, const char *out_dir,
                              analysis_coefficient *result, analysis_coefficient *reps, icv_err *err)
{
    icv_experiment *e = malloc(sizeof *e);
    if (!e)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    int rc = 0;
    char kind[8] = "";
    for (int i = 0; i < n && !rc; i++) {
        if ((rc = icv_experiment_load(experiments[i], e, err)))
            break;
        if (i == 0)
            snprintf(kind, sizeof kind, "%s", e->kind);
        else if (strcmp(kind, e->kind)) {
            rc = icv_err_set(err, ICV_EINVAL, "%s: a %s experiment among %s repeats: combine one kind at a time",
                             e->path, e->kind[0] ? e->kind : "impact", kind);
            break;
        }
        char tracks[ICV_PATH_MAX], dir[ICV_PATH_MAX];
        if (n == 1)
            snprintf(dir, sizeof dir, "%s", out_dir);
        else if ((rc = icv_path_join(dir, sizeof dir, out_dir, e->name, err)))
            break;
        if (tracks_path && n == 1)
            snprintf(tracks, sizeof tracks, "%s", tracks_path);
        else if ((rc = icv_path_join(tracks, sizeof tracks, dir, "tracks3d.csv", err)))
            break;
        rc = measure_one(e, tracks, dir, &reps[i], err);
    }
    free(e);
    if (rc)
        return rc;
    if (n > 1) {
        double chi2, p;
        analysis_coefficient_combine(reps, n, result, &chi2, &p);
    } else {
        *result = reps[0];
    }
    char path[ICV_PATH_MAX];
    if ((rc = icv_mkdirs(out_dir, err)) || (rc = icv_path_join(path, sizeof path, out_dir, "coefficients.json", err)))
        return rc;
    return analysis_coefficient_write(path, result, reps, n, err);
}
