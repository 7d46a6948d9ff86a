/* analyze_bodies.c: `impactcv analyze` of several bodies tracked by another system:
 * each body's markers picked from the file by its labels, every body-body impact
 * and each body's impacts with the surface measured (analysis/bodies.h), each joint
 * checked on the tracks, results.json. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_internal.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* m: how far a body's markers rise and fall along gravity (up: the surface normal when
 * g is not given) over the clip: each marker's heights between their 5th and 95th
 * percentiles, the median over the markers seen in a quarter as many frames as the
 * best seen one or more. A puck on a table stays within its noise (seen from above,
 * its plane is square to g), a thrown body does not (a spinning ball's bead near the
 * spin axis may, hence the median); a point labelled on the wrong marker in a few
 * frames (one of a puck's dots taken 35 mm off) moves no percentile, and markers at
 * several heights of a body on a table each keep theirs. NAN: out of memory. */
static double height_span(const analysis_tracks *tr, icv_vec3 up)
{
    double *y = malloc(sizeof *y * ((size_t)tr->n_frames + 1)), span[ICV_MAX_MARKERS];
    int n_span = 0;
    if (!y)
        return NAN;
    int most = 0;
    for (int k = 0; k < tr->n_markers; k++) {
        int n = 0;
        for (int f = 0; f < tr->n_frames; f++)
            n += tr->seen[(size_t)f * (size_t)tr->n_markers + (size_t)k] != 0;
        most = n > most ? n : most;
    }
    for (int k = 0; k < tr->n_markers && most > 0; k++) {
        int n = 0;
        for (int f = 0; f < tr->n_frames; f++) {
            size_t i = (size_t)f * (size_t)tr->n_markers + (size_t)k;
            double h = icv_v3_dot(tr->pos[i], up);
            if (tr->seen[i] && isfinite(h))
                y[n++] = h;
        }
        if (n < 1 || 4 * n < most)
            continue;
        qsort(y, (size_t)n, sizeof *y, cmp_double);
        if (n_span < ICV_MAX_MARKERS)
            span[n_span++] = y[(int)(0.95 * (n - 1))] - y[(int)(0.05 * (n - 1))];
    }
    free(y);
    if (!n_span)
        return 0;
    qsort(span, (size_t)n_span, sizeof *span, cmp_double);
    return n_span % 2 ? span[n_span / 2] : 0.5 * (span[n_span / 2 - 1] + span[n_span / 2]);
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
                           "%d frames, at most %.1f mm; the poses' noise alone gives %.2f mm): %s",
                           e->path, k, e->bodies[j->body[0]].name, e->bodies[j->body[1]].name, 1e3 * r->rms,
                           r->n_frames, 1e3 * r->max, 1e3 * r->expected_rms,
                           /* a wrong point keeps them apart steadily; wrong poses scatter */
                           r->max > 2 * r->rms ? "they scatter from frame to frame, so some poses are wrong (a "
                                                 "body's markers mislabelled or hidden: check its tracks)"
                                               : "the joint's `at` does not match the bodies' markers");
    return 0;
}

/* The track stage's tracks3d.csv of several bodies (and, from two cameras, its quality
 * file's sigmas beside it). */
static int tracks_read_stage(const icv_experiment *e, const char *path, analysis_tracks *all, icv_err *err)
{
    int rc = analysis_tracks_read_csv(path, all, err);
    if (rc)
        return rc;
    int total = icv_experiment_first_marker(e, e->n_bodies);
    if (all->n_markers != total) {
        analysis_tracks_free(all);
        return icv_err_set(err, ICV_EINVAL,
                           "%s: %d markers, but the %d bodies of %s have %d together (tracks from another "
                           "experiment?)",
                           path, all->n_markers, e->n_bodies, e->path, total);
    }
    if ((rc = job_tracks_quality_beside(e, path, all, err)) != 0)
        analysis_tracks_free(all);
    return rc;
}

/* the warnings report.html lists at most (the stages' and this job's own) */
#define JOB_MAX_REPORT_WARNINGS 64

int job_analyze_bodies(const job_analyze_options *job, job_bodies_result *out, icv_err *err)
{
    char own[ICV_ERR_MSG_MAX + 16] = ""; /* this job's warning for the report */
    memset(out, 0, sizeof *out);
    icv_experiment *e = &out->exp;
    int rc = icv_experiment_load(job->experiment_path, e, err);
    if (rc)
        return rc;
    if (e->n_bodies < 2)
        return icv_err_set(err, ICV_EINVAL, "%s: one body: analyze it as one (body:)", e->path);
    if (e->n_cameras == 0 && !job->tracks_path)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: several bodies without cameras: give another system's tracks (analyze --tracks FILE, "
                           "each body's markers named by its marker_labels)",
                           e->path);
    int n = e->n_bodies;
    for (int k = 0; k < n && e->n_cameras == 0; k++)
        if (!e->bodies[k].marker_labels[0][0])
            return icv_err_set(err, ICV_EINVAL,
                               "%s: bodies[%d] ('%s'): marker_labels: needed to take the body's markers from %s",
                               e->path, k, e->bodies[k].name, job->tracks_path);
    char tracks_path[ICV_PATH_MAX];
    if (job->tracks_path)
        snprintf(tracks_path, sizeof tracks_path, "%s", job->tracks_path);
    else if ((rc = icv_path_join(tracks_path, sizeof tracks_path, job->out_dir, "tracks3d.csv", err)) != 0)
        return rc;
    icv_experiment *ek = malloc(sizeof *ek);
    analysis_body *body = calloc((size_t)n, sizeof *body);
    analysis_tracks *tr = calloc((size_t)n, sizeof *tr);
    analysis_body_track bt[ICV_MAX_BODIES];
    analysis_tracks all = {0};
    if (!ek || !body || !tr) {
        free(ek);
        free(body);
        free(tr);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    /* the track stage's tracks: every body's markers, body after body (its quality
       file's sigmas beside them, from two cameras, as one body's analyze takes them) */
    if (e->n_cameras > 0 && (rc = tracks_read_stage(e, tracks_path, &all, err)) != 0) {
        free(ek);
        free(body);
        free(tr);
        return rc;
    }
    int n_read = 0;
    for (int k = 0; k < n && !rc; k++) {
        *ek = *e;
        icv_experiment_use_body(ek, k);
        if ((rc = analysis_body_from_experiment(ek, &body[k], err)) == 0 &&
            (rc = e->n_cameras > 0
                      ? analysis_tracks_take(&all, icv_experiment_first_marker(e, k), e->bodies[k].n_markers, &tr[k], err)
                      : analysis_tracks_read_for(ek, tracks_path, &tr[k], err)) == 0)
            n_read++;
        if (!rc && tr[k].n_frames != tr[0].n_frames)
            rc = icv_err_set(err, ICV_EINVAL, "%s: body '%s' has %d frames, '%s' %d", tracks_path,
                             e->bodies[k].name, tr[k].n_frames, e->bodies[0].name, tr[0].n_frames);
        if (!rc) {
            icv_vec3 up = icv_v3_norm(e->gravity) > 0 ? icv_v3_scale(icv_v3_unit(e->gravity), -1) : icv_v3(0, 1, 0);
            double span = e->gravity_auto ? 0 : height_span(&tr[k], up);
            if (isnan(span))
                rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
            int fly = span > FLIGHT_SPAN_M;
            double hung = e->gravity_auto ? 0 : e->bodies[k].pendulum_length;
            bt[k] = (analysis_body_track){&body[k], &tr[k], e->bodies[k].name,
                                          hung > 0 ? ANALYSIS_MOTION_PENDULUM
                                          : fly    ? ANALYSIS_MOTION_FLIGHT
                                                   : ANALYSIS_MOTION_POLY,
                                          hung, !hung && !fly && !e->gravity_auto};
        }
    }
    analysis_tracks_free(&all);
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
    if (!rc && n == 2 && e->n_joints == 1) { /* two pinned links: their impact is with the surface */
        const icv_joint *jt = &e->joints[0];
        analysis_body_track links[2] = {bt[jt->body[0]], bt[jt->body[1]]};
        analysis_joint aj = {{0, 1}, {jt->at[0], jt->at[1]}};
        out->res.min_gap = NAN;
        out->res.chain_links[0] = jt->body[0], out->res.chain_links[1] = jt->body[1];
        if ((rc = analysis_chain_impacts_measure(links, &aj, &prm, &out->res, err)) != 0)
            icv_err_prefix(err, "%s: ", tracks_path);
    } else if (!rc && (rc = analysis_body_impacts_measure(bt, n, e->gravity_auto ? NULL : &e->gravity, &prm,
                                                          &out->res, err)) != 0) {
        /* bodies seen together that never meet: their motions are the result */
        if (rc == ICV_ENOTFOUND && out->res.n_unmeasured == 0 && isfinite(out->res.min_gap)) {
            icv_warn("%s: %s", e->path, err->msg);
            snprintf(own, sizeof own, "analyze: %s", err->msg);
            rc = 0;
        } else {
            icv_err_prefix(err, "%s: ", tracks_path);
        }
    }
    /* each body's impacts with the surface, in the stretches between its contacts
       with the others (the chain's links have theirs above) */
    if (!rc && !out->res.n_chain)
        rc = analysis_bodies_surface_measure(bt, n, e->gravity_auto ? NULL : &e->gravity, &prm, &out->res, err);
    /* the impacts not measured, each named: never a number for them */
    int n_skip = out->res.n_skipped < ANALYSIS_MAX_IMPACTS ? out->res.n_skipped : ANALYSIS_MAX_IMPACTS;
    for (int k = 0; k < n_skip && !rc; k++)
        icv_warn("%s: %s", e->path, out->res.skipped[k]);
    if (!rc && out->res.n_skipped > n_skip)
        icv_warn("%s: %d more impacts not measured", e->path, out->res.n_skipped - n_skip);
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
        const char *warns[JOB_MAX_REPORT_WARNINGS];
        int nw = 0;
        for (int i = 0; i < job->n_stage_warnings && nw < JOB_MAX_REPORT_WARNINGS - 1; i++)
            warns[nw++] = job->stage_warnings[i];
        if (own[0])
            warns[nw++] = own;
        for (int k = 0; k < n_skip && nw < JOB_MAX_REPORT_WARNINGS; k++)
            warns[nw++] = out->res.skipped[k];
        report_bodies_inputs in = {e, bt, n, &out->res, out->joint, out->n_joints, warns, nw};
        rc = report_bodies_write(&in, path, err);
    }
    for (int k = 0; k < n_read; k++)
        analysis_tracks_free(&tr[k]);
    free(tr);
    free(body);
    return rc;
}
