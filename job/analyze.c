/* analyze.c: `impactcv analyze` as one call: experiment and tracks in,
 * results.json and fits.csv out. Every file is written
 * atomically and only once everything has succeeded, so a failed run leaves the
 * previous results untouched. */
#include <string.h>

#include "job/job_internal.h"


int job_tracks_quality_beside(const icv_experiment *e, const char *tracks_path, analysis_tracks *tr, icv_err *err)
{
    /* from two cameras, scaled by the triangulation's residuals, they carry the model
     * error of a marker seen differently by the cameras. One camera's (the ray meeting
     * the motion plane) carry only the centroid noise, far below a template's misfit,
     * which shrinks the fit windows (docs/pipeline.md "The stage's settings,
     * measured"); the default sigma is kept there. */
    char quality[ICV_PATH_MAX], dir[ICV_PATH_MAX];
    icv_path_dirname(dir, sizeof dir, tracks_path);
    if (e->n_cameras >= 2 && icv_path_join(quality, sizeof quality, dir, "tracks3d_quality.csv", NULL) == 0 &&
        icv_file_exists(quality))
        return analysis_tracks_read_quality(quality, tr, err);
    return 0;
}

int job_analyze(const job_analyze_options *job, analysis_experiment_result *out, icv_err *err)
{
    return job_analyze_sd(job, NULL, out, err);
}

int job_analyze_sd(const job_analyze_options *job, const analysis_calib_sd *calib_sd, analysis_experiment_result *out,
                        icv_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = icv_experiment_load(job->experiment_path, &out->exp, err);
    if (!rc)
        rc = icv_experiment_one_body(&out->exp, "analyze", err);
    if (rc)
        return rc;
    if ((rc = analysis_body_from_experiment(&out->exp, &out->body, err)))
        return rc;
    char tracks_path[ICV_PATH_MAX];
    if (job->tracks_path)
        snprintf(tracks_path, sizeof tracks_path, "%s", job->tracks_path);
    else if ((rc = icv_path_join(tracks_path, sizeof tracks_path, job->out_dir, "tracks3d.csv", err)))
        return rc;
    analysis_tracks tr;
    if ((rc = analysis_tracks_read_for(&out->exp, tracks_path, &tr, err)))
        return rc;
    char dir[ICV_PATH_MAX];
    icv_path_dirname(dir, sizeof dir, tracks_path);
    if ((rc = job_tracks_quality_beside(&out->exp, tracks_path, &tr, err)) != 0) {
        analysis_tracks_free(&tr);
        return rc;
    }
    analysis_params prm;
    analysis_params_default(&prm);
    prm.method = job->method;
    if (calib_sd)
        prm.calib = *calib_sd;
    else {
        /* the calibration file's, then what the track stage hands on beside the
           tracks (its calibration from board images has no file) */
        analysis_calib_sd_from_experiment(&out->exp, &prm.calib, err);
        char info[ICV_PATH_MAX];
        if (icv_path_join(info, sizeof info, dir, "track_info.json", NULL) == 0)
            analysis_calib_sd_from_track_info(info, &out->exp, &prm.calib);
    }
    rc = analysis_template_check(&tr, &out->body.tmpl, prm.pos_sigma, err);
    if (rc)
        icv_err_prefix(err, "%s: ", tracks_path);
    if (!rc)
        rc = analysis_impacts_measure(&tr, &out->body, out->exp.gravity_auto ? NULL : &out->exp.gravity, &prm,
                                      &out->res, err);
    if (!rc) {
        icv_err gerr = {0};
        int g = analysis_gravity_check(&out->res, &gerr);
        if (g < 0) {
            *err = gerr;
            rc = g;
        } else if (g > 0) {
            snprintf(out->warning, sizeof out->warning, "%s", gerr.msg);
        }
    }
    if (!rc) {
        analysis_model *m = &out->model;
        m->law = out->exp.restitution;
        m->method = IMPACT_EXACT;
        m->mu_s = out->exp.mu_measured ? -1 : out->exp.mu_s;
        m->mu_k = out->exp.mu_measured ? -1 : out->exp.mu_k;
        m->e_n = out->exp.e_n_measured ? -1 : out->exp.e_n;
        rc = analysis_model_compare(&out->body, m, &out->res, err);
    }
    char path[ICV_PATH_MAX];
    if (!rc)
        rc = icv_mkdirs(job->out_dir, err);
    if (!rc && !(rc = icv_path_join(path, sizeof path, job->out_dir, "fits.csv", err)))
        rc = analysis_fits_write(path, &tr, &out->body, &out->res, err);
    if (!rc && !(rc = icv_path_join(path, sizeof path, job->out_dir, "results.json", err))) {
        analysis_calibration_info ci; /* the calibration's RMS values, as the track stage saw them */
        char info[ICV_PATH_MAX];
        if (icv_path_join(info, sizeof info, dir, "track_info.json", NULL) != 0)
            info[0] = 0;
        analysis_calibration_info_read(info, &out->exp, &ci);
        rc = analysis_results_write(path, out->exp.name, &ci, &out->res, err);
    }
    if (!rc && job->truth_path) {
        double frame_s = tr.n_frames > 1 && tr.frame[tr.n_frames - 1] > tr.frame[0]
                             ? (tr.t[tr.n_frames - 1] - tr.t[0]) / (tr.frame[tr.n_frames - 1] - tr.frame[0])
                             : 0;
        rc = analysis_truth_compare(job->truth_path, &out->res, &out->body, frame_s, job->truth_table, err);
        if (rc)
            icv_err_prefix(err, "%s: disagrees with the truth: ", job->truth_path);
    }
    analysis_tracks_free(&tr);
    return rc;
}
