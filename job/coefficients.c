/* coefficients.c: `impactcv coefficients` as one call:
 * experiment files in, coefficients.json out. DIR changes only when every repeat
 * was measured (a working folder beside it swapped into place, core's atomic_dir.c). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job/job.h"
#include "job/job_track_internal.h"

/* mu_s from the tilt's video: the plate and the body tracked (job_tilt_run),
 * tilt_track.csv written into dir for a person, then the onset and its angle */
static int tilt_from_video(const icv_experiment *e, const char *dir, analysis_coefficient *c, icv_err *err)
{
    job_tilt tt;
    int rc = job_tilt_run(e->path, &tt, err);
    if (rc)
        return rc;
    /* the level board's corner noise relative to a frame's: its angle's share */
    double ratio = tt.level_reproj_px > 0 && tt.reproj_rms_px > 0 ? tt.level_reproj_px / tt.reproj_rms_px : 1;
    icv_debug("tilt: plate board in %ld of %ld frames (PnP residual %.3f px mean), level board %.3f px, body in %ld",
              tt.n_board, tt.n, tt.reproj_rms_px, tt.level_reproj_px, tt.n_body);
    if (!rc)
        rc = analysis_coefficient_tilt_video(tt.t, tt.angle, tt.s, tt.n, ratio, c, err);
    /* the markers' height again from the resting frames alone (their parallax is the
     * drift of the rest line), then the onset again */
    long upto = 0;
    while (!rc && upto < tt.n && tt.t[upto] < c->onset_s - 5 * (tt.t[tt.n - 1] - tt.t[0]) / (tt.n - 1))
        upto++;
    if (!rc && upto > 40 && !(rc = job_tilt_height(&tt, upto, err)))
        rc = analysis_coefficient_tilt_video(tt.t, tt.angle, tt.s, tt.n, ratio, c, err);
    char path[ICV_PATH_MAX];
    if (!rc && !(rc = icv_mkdirs(dir, err)) && !(rc = icv_path_join(path, sizeof path, dir, "tilt_track.csv", err)))
        rc = job_tilt_write(path, &tt, err);
    if (rc == ICV_ENOTFOUND)
        icv_err_prefix(err, "%s: ", e->cameras[0].video);
    job_tilt_free(&tt);
    return rc;
}

/* the same file: one inode, or (either unreachable) the same name */
static int same_video(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
    return !strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b);
}

/* Tracks left in DIR by an earlier run are reused only when they are this
 * experiment's: the track stage's track_info.json beside them names the
 * experiment, its cameras and videos; tracks without it (made by another tool and
 * put there) must at least have body.markers' count of markers. */
static int tracks_belong(const icv_experiment *e, const char *tracks_path, const char *shown, icv_err *err)
{
    char dir[ICV_PATH_MAX], info[ICV_PATH_MAX];
    icv_path_dirname(dir, sizeof dir, tracks_path);
    int rc = icv_path_join(info, sizeof info, dir, "track_info.json", err);
    if (rc)
        return rc;
    if (icv_file_exists(info)) {
        json_error_t je;
        json_t *root = json_load_file(info, 0, &je);
        const char *name = json_string_value(json_object_get(root, "experiment"));
        json_t *cams = json_object_get(root, "cameras");
        char why[ICV_ERR_MSG_MAX] = "";
        if (!root)
            snprintf(why, sizeof why, "its track_info.json cannot be read (%s)", je.text);
        else if (!name || strcmp(name, e->name))
            snprintf(why, sizeof why, "it was tracked for experiment '%s', not '%s'", name ? name : "?", e->name);
        else if (json_array_size(cams) != (size_t)e->n_cameras)
            snprintf(why, sizeof why, "it was tracked from %zu camera(s), %s has %d", json_array_size(cams), e->path,
                     e->n_cameras);
        for (int c = 0; !why[0] && c < e->n_cameras; c++) {
            json_t *jc = json_array_get(cams, (size_t)c);
            const char *id = json_string_value(json_object_get(jc, "id"));
            const char *video = json_string_value(json_object_get(jc, "video"));
            if (!id || strcmp(id, e->cameras[c].id))
                snprintf(why, sizeof why, "its camera %d is '%s', not '%s'", c, id ? id : "?", e->cameras[c].id);
            else if (!video || !same_video(video, e->cameras[c].video))
                snprintf(why, sizeof why, "camera %s was tracked from %s, not %s", id, video ? video : "?",
                         e->cameras[c].video);
        }
        json_decref(root);
        if (why[0])
            return icv_err_set(err, ICV_EINVAL,
                               "%s: not this experiment's tracks: %s; remove it, choose another -o, or give --tracks",
                               shown, why);
    }
    analysis_tracks tr;
    if ((rc = analysis_tracks_read_csv(tracks_path, &tr, err)))
        return rc;
    int nm = tr.n_markers;
    analysis_tracks_free(&tr);
    if (nm != e->n_markers)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: not this experiment's tracks: %d marker(s), %s's body.markers has %d; remove it, choose "
                           "another -o, or give --tracks",
                           shown, nm, e->path, e->n_markers);
    return 0;
}

static int measure_one(const icv_experiment *e, const char *tracks_path, const char *shown, const char *dir,
                       analysis_coefficient *c, icv_err *err)
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
    int flight = !strcmp(e->kind, "slide") && e->incline_from_flight;
    int level = !strcmp(e->kind, "slide") && e->gravity_auto && !flight, need_tracks = !icv_file_exists(tracks_path);
    if (level && !e->level_images[0][0])
        return icv_err_set(err, ICV_EINVAL,
                           "%s: a slide needs the incline's angle: gravity [gx, gy, gz] in the surface frame, "
                           "coefficients.level_images (a board on a level reference), or coefficients.incline: flight "
                           "(the body dropped or tossed onto the incline)",
                           e->path);
    /* the calibration once for both the level board and the tracking */
    track_calibration *cal = NULL;
    if (level && need_tracks && (rc = job_track_calibration_load(e, &cal, err)))
        return rc;
    if (level)
        rc = job_level_gravity(e, cal, ANALYSIS_G_STANDARD, &g, &incline_sd, err);
    /* the tracks: given, left by an earlier run, or tracked now from the videos */
    if (!rc && need_tracks) {
        job_track_options opt;
        job_track_options_default(&opt);
        opt.calibration = cal;
        rc = job_track_run(e->path, dir, &opt, NULL, err);
    }
    job_track_calibration_free(cal);
    if (rc)
        return rc;
    if (!strcmp(e->kind, "slide")) {
        analysis_tracks tr;
        if ((rc = analysis_tracks_read_csv(tracks_path, &tr, err)))
            return rc;
        analysis_params prm;
        analysis_params_default(&prm);
        if (flight) { /* the incline from the flight before the landing, the slide after it */
            analysis_slide_flight fl;
            rc = analysis_slide_flight_gravity(&tr, &b, prm.pos_sigma, &fl, err);
            if (!rc)
                rc = analysis_coefficient_slide_after(&tr, &b, fl.g, (const double(*)[3])fl.g_cov, prm.pos_sigma,
                                                          fl.t_slide, c, err);
            if (!rc) {
                snprintf(c->incline_method, sizeof c->incline_method, "flight");
                c->incline_first = fl.first_frame;
                c->incline_last = fl.last_frame;
            }
        } else {
            rc = analysis_coefficient_slide(&tr, &b, g, prm.pos_sigma, c, err);
            if (!rc && level) {
                snprintf(c->incline_method, sizeof c->incline_method, "level board");
                analysis_coefficient_slide_incline_sd(c, icv_v3_norm(g), incline_sd);
            }
        }
        analysis_tracks_free(&tr);
    } else { /* drop: the impact measured as `impactcv analyze` does (the track stage's
              * covariances and the calibration's uncertainty with it), its results.json
              * and fits.csv beside coefficients.json */
        job_analyze_options job = {.experiment_path = e->path, .tracks_path = tracks_path, .out_dir = dir,
                            .method = ANALYSIS_FIT};
        analysis_experiment_result *jr = malloc(sizeof *jr);
        if (!jr)
            return icv_err_set(err, ICV_ENOMEM, "out of memory");
        rc = job_analyze(&job, jr, err);
        if (rc == ICV_ENOTFOUND) /* no impact in a drop */
            icv_err_prefix(err, "drop: not a drop: ");
        if (!rc)
            rc = analysis_coefficient_drop(&jr->res, c, err);
        if (!rc && jr->warning[0] && c->n_warnings < ANALYSIS_MAX_WARNINGS)
            snprintf(c->warnings[c->n_warnings++], sizeof c->warnings[0], "%s", jr->warning);
        free(jr);
    }
    if (rc)
        icv_err_prefix(err, "%s: ", shown);
    return rc;
}

/* out_dir as it was, for a working folder that starts the same */
static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int job_coefficients_run(const char *const *experiments, int n, const char *tracks_path, const char *out_dir,
                              analysis_coefficient *result, analysis_coefficient *reps, icv_err *err)
{
    /* everything is made in a working folder beside out_dir that starts as out_dir was
     * (its files linked: tracks of an earlier run are reused) and replaces it only when
     * every repeat was measured: a refused slide or drop leaves no tracks behind */
    char work[ICV_PATH_MAX];
    int rc = icv_workdir_make(out_dir, "coefficients", work, sizeof work, err);
    if (rc)
        return rc;
    if (is_dir(out_dir))
        rc = icv_dir_link_tree(out_dir, work, err);
    icv_experiment *e = malloc(sizeof *e);
    if (!rc && !e)
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
    char kind[8] = "";
    for (int i = 0; i < n && !rc; i++) {
        if ((rc = icv_experiment_load(experiments[i], e, err)) || (rc = icv_experiment_one_body(e, "coefficients", err)))
            break;
        if (i == 0)
            snprintf(kind, sizeof kind, "%s", e->kind);
        else if (strcmp(kind, e->kind)) {
            rc = icv_err_set(err, ICV_EINVAL, "%s: a %s experiment among %s repeats: combine one kind at a time",
                             e->path, e->kind[0] ? e->kind : "impact", kind);
            break;
        }
        /* dir: where this experiment's files go (work or work/<name>); shown: the
         * tracks' path as the user knows it (out_dir's), for messages */
        char tracks[ICV_PATH_MAX], dir[ICV_PATH_MAX], shown[ICV_PATH_MAX], rel[ICV_PATH_MAX];
        snprintf(rel, sizeof rel, "%s%stracks3d.csv", n == 1 ? "" : e->name, n == 1 ? "" : "/");
        if (n == 1)
            snprintf(dir, sizeof dir, "%s", work);
        else if ((rc = icv_path_join(dir, sizeof dir, work, e->name, err)))
            break;
        if (tracks_path && n == 1) {
            snprintf(tracks, sizeof tracks, "%s", tracks_path);
            snprintf(shown, sizeof shown, "%s", tracks_path);
        } else if ((rc = icv_path_join(tracks, sizeof tracks, work, rel, err)) ||
                   (rc = icv_path_join(shown, sizeof shown, out_dir, rel, err))) {
            break;
        }
        /* tracks left in DIR (not --tracks): this experiment's, or refused */
        if ((!tracks_path || n > 1) && strcmp(e->kind, "tilt") && icv_file_exists(tracks) &&
            (rc = tracks_belong(e, tracks, shown, err)))
            break;
        rc = measure_one(e, tracks, shown, dir, &reps[i], err);
    }
    free(e);
    if (!rc) {
        if (n > 1) {
            double chi2, p;
            analysis_coefficient_combine(reps, n, result, &chi2, &p);
        } else {
            *result = reps[0];
        }
        char path[ICV_PATH_MAX];
        if (!(rc = icv_path_join(path, sizeof path, work, "coefficients.json", err)) &&
            !(rc = analysis_coefficient_write(path, result, reps, n, err)))
            rc = icv_dir_swap(work, out_dir, err);
    }
    if (rc) {
        icv_err_rename_path(err, work, out_dir); /* the working folder is gone: name DIR */
        icv_dir_remove(work);
    }
    return rc;
}
