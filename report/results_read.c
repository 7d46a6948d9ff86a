/* results_read.c: results.json (schema impactcv-results-1, analysis/results_json.c)
 * and fits.csv (analysis/fits_csv.c) read back into analysis's types, so that the
 * report is built the same way from files as from the in-memory result. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static icv_vec3 vec(json_t *o, const char *k)
{
    json_t *a = json_object_get(o, k);
    double x[3];
    for (int i = 0; i < 3; i++) {
        json_t *e = json_array_get(a, (size_t)i);
        x[i] = json_is_number(e) ? json_number_value(e) : NAN;
    }
    return icv_v3_from_array(x);
}

static void side(json_t *o, analysis_side *s)
{
    s->v = vec(o, "v");
    s->omega = vec(o, "omega");
    s->euler213 = vec(o, "euler213");
    s->R = icv_euler213_to_matrix(s->euler213);
    s->contact_velocity = vec(o, "contact_velocity");
    json_t *w = json_object_get(o, "window_s");
    s->t_first = json_number_value(json_array_get(w, 0));
    s->t_last = json_number_value(json_array_get(w, 1));
    s->n_frames = (int)json_integer_value(json_object_get(o, "window_frames"));
    s->singular = json_is_true(json_object_get(o, "euler213_singular"));
    s->p = icv_v3(NAN, NAN, NAN); /* not in results.json: report_fits_apply */
}

int report_json_load(const char *path, const char *schema, const char *array_key, json_t **root, icv_err *err)
{
    json_error_t je;
    *root = json_load_file(path, 0, &je);
    if (!*root)
        return icv_err_set(err, ICV_EFORMAT, "%s:%d: %s", path, je.line, je.text);
    const char *found = json_string_value(json_object_get(*root, "schema"));
    if (!found || strcmp(found, schema) || !json_is_array(json_object_get(*root, array_key))) {
        /* the message first: found lives in the tree */
        char shown[200]; /* escaped: a file's control bytes never reach the terminal */
        int rc = icv_err_set(err, ICV_EFORMAT, "%s: not an %s file (schema \"%s\")", path, schema,
                             icv_printable(found ? found : "", 64, shown, sizeof shown));
        json_decref(*root);
        *root = NULL;
        return rc;
    }
    return 0;
}

int report_results_read(const char *path, analysis_result *res, icv_err *err)
{
    memset(res, 0, sizeof *res);
    json_t *root;
    int rc0 = report_json_load(path, "impactcv-results-1", "impacts", &root, err);
    if (rc0)
        return rc0;
    json_t *arr = json_object_get(root, "impacts");
    res->g = vec(root, "gravity");
    res->g_sd = vec(root, "gravity_sd");
    res->g_estimated = json_is_true(json_object_get(root, "gravity_estimated"));
    double scale_rel = num(json_object_get(json_object_get(root, "calibration"), "propagated_sd"), "scale_rel");
    res->calib.scale_rel = scale_rel > 0 ? scale_rel : 0;
    json_t *gc = json_object_get(root, "gravity_flight_check");
    if (json_is_object(gc)) {
        res->g_flight_fit = 1;
        res->g_flight = vec(gc, "measured");
        res->g_flight_sd = vec(gc, "measured_sd");
        res->g_flight_sys = num(gc, "systematic_sd_m_s2");
    }
    size_t n = json_array_size(arr);
    if (n > ANALYSIS_MAX_IMPACTS)
        n = ANALYSIS_MAX_IMPACTS;
    res->n_impacts = (int)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(arr, i);
        analysis_impact *im = &res->impacts[i];
        im->t = num(o, "time_s");
        im->t_meet = num(o, "t_meet_s");
        side(json_object_get(o, "pre"), &im->pre);
        side(json_object_get(o, "post"), &im->post);
        im->contact_point = vec(o, "contact_point");
        im->impulse = vec(o, "impulse");
        im->e_kinematic = num(o, "e_kinematic");
        im->impulse_ratio = num(o, "impulse_ratio");
        json_t *en = json_object_get(o, "energy");
        im->energy_pre = num(en, "pre_J");
        im->energy_post = num(en, "post_J");
        im->loss_fraction = num(en, "loss_fraction");
        const char *counts = json_string_value(json_object_get(en, "counts"));
        im->energy_rotation = !counts || !strcmp(counts, "translation and rotation") ? ANALYSIS_ROTATION_ALL
                              : !strcmp(counts, "translation")                       ? ANALYSIS_ROTATION_NONE
                                                                                     : ANALYSIS_ROTATION_ACROSS_LINE;
        const char *enote = json_string_value(json_object_get(en, "note"));
        snprintf(im->energy_note, sizeof im->energy_note, "%s", enote ? enote : "");
        if (enote) {
            im->spin_change_implied = vec(en, "spin_change_implied_rad_s");
            im->spin_energy_implied = num(en, "spin_energy_implied_J");
        }
        json_t *u = json_object_get(o, "uncertainty");
        im->pre.v_sd = vec(u, "v_pre");
        im->post.v_sd = vec(u, "v_post");
        im->pre.omega_sd = vec(u, "omega_pre");
        im->post.omega_sd = vec(u, "omega_post");
        im->sd.e_kinematic = num(u, "e_kinematic");
        im->sd.impulse_ratio = num(u, "impulse_ratio");
        im->sd.loss_fraction = num(u, "loss_fraction");
        im->t_sd = num(u, "time_s");
        im->spin_observable = json_is_true(json_object_get(o, "spin_observable"));
        json_t *m = json_object_get(o, "model");
        if (json_is_object(m)) {
            const char *law = json_string_value(json_object_get(m, "restitution"));
            im->model.law = law && !strcmp(law, "newton")    ? ICV_RESTITUTION_NEWTON
                            : law && !strcmp(law, "poisson") ? ICV_RESTITUTION_POISSON
                                                             : ICV_RESTITUTION_STRONGE;
            im->model.mu = num(m, "mu");
            im->model.e_n = num(m, "e_n");
            im->model.mu_fitted = json_is_true(json_object_get(m, "mu_fitted"));
            im->model.e_n_fitted = json_is_true(json_object_get(m, "e_n_fitted"));
            im->model.mu_identifiable = !json_is_false(json_object_get(m, "mu_identifiable"));
            im->model.mu_lower_bound = num(m, "mu_lower_bound");
            const char *c = json_string_value(json_object_get(m, "case"));
            im->model.done = c != NULL;
            snprintf(im->model.case_label, sizeof im->model.case_label, "%s", c ? c : "");
            json_t *post = json_object_get(m, "post");
            im->model.v = vec(post, "v");
            im->model.omega = vec(post, "omega");
            im->model.loss_fraction = num(m, "loss_fraction");
            const char *note = json_string_value(json_object_get(m, "note"));
            snprintf(im->model.note, sizeof im->model.note, "%s", note ? note : "");
        }
    }
    /* the free flights and the contact stretches */
    json_t *fl = json_object_get(root, "flights");
    for (size_t i = 0; i < json_array_size(fl) && res->n_flights < ANALYSIS_MAX_FLIGHTS; i++) {
        json_t *o = json_array_get(fl, i), *fr = json_object_get(o, "frames"), *u = json_object_get(o, "uncertainty");
        analysis_flight_summary *f = &res->flights[res->n_flights++];
        f->t_start = num(o, "t_start_s");
        f->t_end = num(o, "t_end_s");
        f->frame_first = (long)json_integer_value(json_array_get(fr, 0));
        f->frame_last = (long)json_integer_value(json_array_get(fr, 1));
        f->n_frames = (int)json_integer_value(json_object_get(o, "n_frames"));
        f->p = vec(o, "p");
        f->v = vec(o, "v");
        f->speed = num(o, "speed");
        f->angle_deg = num(o, "angle_deg");
        f->g = vec(o, "gravity");
        f->rms = num(o, "rms_m");
        f->v_sd = vec(u, "v");
        f->speed_sd = num(u, "speed");
        f->angle_sd_deg = num(u, "angle_deg");
        f->g_sd = vec(u, "gravity");
    }
    json_t *ct = json_object_get(root, "contacts");
    for (size_t i = 0; i < json_array_size(ct) && res->n_contacts < ANALYSIS_MAX_CONTACTS; i++) {
        json_t *o = json_array_get(ct, i), *fr = json_object_get(o, "frames");
        analysis_contact *c = &res->contacts[res->n_contacts++];
        c->frame_first = (long)json_integer_value(json_array_get(fr, 0));
        c->frame_last = (long)json_integer_value(json_array_get(fr, 1));
        c->t_first = num(o, "t_start_s");
        c->t_last = num(o, "t_end_s");
        const char *kind = json_string_value(json_object_get(o, "kind"));
        c->sliding = kind && !strcmp(kind, "sliding");
    }
    json_decref(root);
    return 0;
}

int report_fits_read(const char *path, report_fit_row **rows, int *n, icv_err *err)
{
    *rows = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return icv_err_set(err, ICV_EIO, "%s: cannot open", path);
    char line[1024];
    if (!fgets(line, sizeof line, f) || strncmp(line, "impact,side,frame,time_s", 24)) {
        fclose(f);
        return icv_err_set(err, ICV_EFORMAT, "%s:1: not fits.csv (header impact,side,frame,time_s,...)", path);
    }
    int cap = 0, ln = 1;
    while (fgets(line, sizeof line, f)) {
        ln++;
        report_fit_row r;
        char side[8];
        if (sscanf(line, "%d,%7[a-z],%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &r.impact, side, &r.frame, &r.t,
                   &r.measured.x, &r.measured.y, &r.measured.z, &r.fit.x, &r.fit.y, &r.fit.z, &r.residual) != 11) {
            fclose(f);
            free(*rows);
            *rows = NULL;
            *n = 0;
            return icv_err_set(err, ICV_EFORMAT, "%s:%d: expected 11 fields", path, ln);
        }
        r.post = !strcmp(side, "post");
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            report_fit_row *g = realloc(*rows, sizeof *g * (size_t)cap);
            if (!g) {
                fclose(f);
                free(*rows);
                *rows = NULL;
                *n = 0;
                return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
            }
            *rows = g;
        }
        (*rows)[(*n)++] = r;
    }
    fclose(f);
    return 0;
}

void report_fits_apply(const report_fit_row *rows, int n, analysis_result *res)
{
    for (int i = 0; i < n; i++) {
        const report_fit_row *r = &rows[i];
        if (r->impact < 0 || r->impact >= res->n_impacts)
            continue;
        analysis_impact *im = &res->impacts[r->impact];
        analysis_side *s = r->post ? &im->post : &im->pre;
        if (isfinite(s->p.x))
            continue; /* the first row of a side suffices: the curve is exact */
        double tau = r->t - im->t;
        s->p = icv_v3_sub(icv_v3_sub(r->fit, icv_v3_scale(s->v, tau)), icv_v3_scale(res->g, 0.5 * tau * tau));
    }
}
