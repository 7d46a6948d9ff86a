/* analyze_bodies.c: `impactcv analyze` of several bodies tracked by another system:
 * each body's markers picked from the file by its labels, every body-body impact
 * measured (analysis/bodies.h), each joint checked on the tracks, results.json. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"

/* m: the span of a body's first marker along the surface normal over the clip: a
 * puck on the table stays within its noise, a thrown body does not */
static double height_span(const analysis_tracks *tr)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int f = 0; f < tr->n_frames; f++) {
        size_t i = (size_t)f * (size_t)tr->n_markers;
        double y = tr->pos[i].y;
        if (tr->seen[i] && isfinite(y)) {
            lo = fmin(lo, y);
            hi = fmax(hi, y);
        }
    }
    return hi >= lo ? hi - lo : 0;
}

/* m: a flight rises and falls by more than this; a body sliding on a table does not */
#define FLIGHT_SPAN_M 0.01

static int check_joint(const icv_experiment *e, int k, const analysis_joint_residual *r, icv_err *err)
{
    const icv_joint *j = &e->joints[k];
    /* a pin's points stay within the poses' noise; a joint point given wrong by d
       puts them ~d apart in every frame */
    if (r->n_frames > 0 && r->rms > 3 * r->expected_rms && r->rms - r->expected_rms > 0.5e-3)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: joints[%d]: the points given in '%s' and '%s' are %.1f mm apart on the tracks (RMS over "
                           "%d frames, at most %.1f mm; the poses' noise alone gives %.2f mm): the joint's `at` does "
                           "not match the bodies' markers",
                           e->path, k, e->bodies[j->body[0]].name, e->bodies[j->body[1]].name, 1e3 * r->rms,
                           r->n_frames, 1e3 * r->max, 1e3 * r->expected_rms);
    return 0;
}

int job_analyze_bodies(const job_analyze_options *job, job_bodies_result *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    icv_experiment *e = &out->exp;
    int rc = icv_experiment_load(job->experiment_path, e, err);
    if (rc)
        return rc;
    if (e->n_bodies < 2)
        return icv_err_set(err, ICV_EINVAL, "%s: one body: analyze it as one (body:)", e->path);
    if (e->n_cameras > 0 || !job->tracks_path)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: several bodies: the track stage follows one body so far; analyze several from "
                           "another system's tracks (no cameras: key; analyze --tracks FILE, each body's markers "
                           "named by its marker_labels)",
                           e->path);
    int n = e->n_bodies;
    for (int k = 0; k < n; k++)
        if (!e->bodies[k].marker_labels[0][0])
            return icv_err_set(err, ICV_EINVAL,
                               "%s: bodies[%d] ('%s'): marker_labels: needed to take the body's markers from %s",
                               e->path, k, e->bodies[k].name, job->tracks_path);
    icv_experiment *ek = malloc(sizeof *ek);
    analysis_body *body = calloc((size_t)n, sizeof *body);
    analysis_tracks *tr = calloc((size_t)n, sizeof *tr);
    analysis_body_track bt[ICV_MAX_BODIES];
    if (!ek || !body || !tr) {
        free(ek);
        free(body);
        free(tr);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    int n_read = 0;
    for (int k = 0; k < n && !rc; k++) {
        *ek = *e;
        icv_experiment_use_body(ek, k);
        if ((rc = analysis_body_from_experiment(ek, &body[k], err)) == 0 &&
            (rc = analysis_tracks_read_for(ek, job->tracks_path, &tr[k], err)) == 0)
            n_read++;
        if (!rc && tr[k].n_frames != tr[0].n_frames)
            rc = icv_err_set(err, ICV_EINVAL, "%s: body '%s' has %d frames, '%s' %d", job->tracks_path,
                             e->bodies[k].name, tr[k].n_frames, e->bodies[0].name, tr[0].n_frames);
        if (!rc) {
            int fly = !e->gravity_auto && height_span(&tr[k]) > FLIGHT_SPAN_M;
            bt[k] = (analysis_body_track){&body[k], &tr[k], e->bodies[k].name,
                                          fly ? ANALYSIS_MOTION_FLIGHT : ANALYSIS_MOTION_POLY};
        }
    }
    free(ek);
    analysis_params prm;
    analysis_params_default(&prm);
    for (int k = 0; k < e->n_joints && !rc; k++) {
        const icv_joint *j = &e->joints[k];
        analysis_joint aj = {{j->body[0], j->body[1]}, {j->at[0], j->at[1]}};
        rc = analysis_joint_residual_measure(bt, n, &aj, &prm, &out->joint[k], NULL, err);
        if (!rc)
            rc = check_joint(e, k, &out->joint[k], err);
        out->n_joints = k + 1;
    }
    /* two pinned links: their impact is with the surface, and they always touch */
    int chain = n == 2 && e->n_joints == 1;
    if (!rc && (rc = analysis_body_impacts_measure(bt, n, e->gravity_auto ? NULL : &e->gravity, &prm, &out->res,
                                                   err)) != 0) {
        if (chain && rc == ICV_ENOTFOUND)
            rc = 0;
        else
            icv_err_prefix(err, "%s: ", job->tracks_path);
    }
    if (!rc && chain) {
        const icv_joint *j = &e->joints[0];
        analysis_joint aj = {{j->body[0], j->body[1]}, {j->at[0], j->at[1]}};
        if (!(rc = analysis_chain_impact_measure(bt, &aj, &prm, &out->res.chain, err)))
            out->res.has_chain = 1, out->res.chain_links[0] = 0, out->res.chain_links[1] = 1;
        else
            icv_err_prefix(err, "%s: ", job->tracks_path);
    }
    char path[ICV_PATH_MAX];
    if (!rc)
        rc = icv_mkdirs(job->out_dir, err);
    if (!rc && !(rc = icv_path_join(path, sizeof path, job->out_dir, "results.json", err))) {
        const char *names[ICV_MAX_BODIES];
        for (int k = 0; k < n; k++)
            names[k] = e->bodies[k].name;
        rc = analysis_bodies_results_write(path, e->name, names, n, &out->res, err);
    }
    if (!rc && !(rc = icv_path_join(path, sizeof path, job->out_dir, "report.html", err))) {
        report_bodies_inputs in = {e, bt, n, &out->res, out->joint, out->n_joints};
        rc = report_bodies_write(&in, path, err);
    }
    for (int k = 0; k < n_read; k++)
        analysis_tracks_free(&tr[k]);
    free(tr);
    free(body);
    return rc;
}
