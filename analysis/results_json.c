/* results_json.c: results.json, schema impactcv-results-1, exactly the
 * contract's keys (../shared/spec/contract.md), plus a few documented extras
 * (time_sd_s, t_meet_s, spin_observable, window frames, model notes, gravity_sd,
 * gravity_estimated, outlier_frames (the frames left out as outliers), flights
 * (each free flight's frames, launch state and own g), contacts (the
 * stretches in contact with the surface: frames, times, sliding or resting),
 * impacts_not_measured (each impact seen and not measured, named and why), the
 * calibration's propagated sigmas and their part in each uncertainty, energy.counts and, where a
 * spin is not measured, energy.note with the spin change the impulse implies). Non-finite numbers are written as null. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "calib/calib.h"
#include "capture/capture.h"

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *vec(icv_vec3 v) { return json_pack("[ooo]", num(v.x), num(v.y), num(v.z)); }

/* one free flight: its frames, launch state at its first frame, its own g */
static json_t *flight(const analysis_flight_summary *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "t_start_s", num(f->t_start));
    json_object_set_new(o, "t_end_s", num(f->t_end));
    json_object_set_new(o, "frames", json_pack("[II]", (json_int_t)f->frame_first, (json_int_t)f->frame_last));
    json_object_set_new(o, "n_frames", json_integer(f->n_frames));
    json_object_set_new(o, "p", vec(f->p));
    json_object_set_new(o, "v", vec(f->v));
    json_object_set_new(o, "speed", num(f->speed));
    json_object_set_new(o, "angle_deg", num(f->angle_deg));
    json_object_set_new(o, "gravity", vec(f->g));
    json_object_set_new(o, "rms_m", num(f->rms));
    json_object_set_new(o, "uncertainty", json_pack("{s:o, s:o, s:o, s:o}", "v", vec(f->v_sd), "speed",
                                                    num(f->speed_sd), "angle_deg", num(f->angle_sd_deg), "gravity",
                                                    vec(f->g_sd)));
    return o;
}

static json_t *side(const analysis_side *s)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o}", "v", vec(s->v), "omega", vec(s->omega), "euler213",
                          vec(s->euler213), "contact_velocity", vec(s->contact_velocity));
    json_object_set_new(o, "euler213_singular", json_boolean(s->singular));
    json_object_set_new(o, "window_s", json_pack("[oo]", num(s->t_first), num(s->t_last)));
    json_object_set_new(o, "window_frames", json_integer(s->n_frames));
    return o;
}

json_t *analysis_impact_json(const analysis_impact *im)
{
    json_t *o = json_object();
    json_object_set_new(o, "time_s", num(im->t));
    json_object_set_new(o, "pre", side(&im->pre));
    json_object_set_new(o, "post", side(&im->post));
    json_object_set_new(o, "contact_point", vec(im->contact_point));
    json_object_set_new(o, "impulse", vec(im->impulse));
    json_object_set_new(o, "e_kinematic", num(im->e_kinematic));
    json_object_set_new(o, "impulse_ratio", num(im->impulse_ratio));
    json_t *en = json_pack("{s:o, s:o, s:o}", "pre_J", num(im->energy_pre), "post_J", num(im->energy_post),
                           "loss_fraction", num(im->loss_fraction));
    /* the contract's energy counts all rotation: where the spin is not measured the
     * numbers are of the measured part, and say so where they are read */
    static const char *const counts[] = {"translation and rotation", "translation and rotation across the line",
                                         "translation"};
    json_object_set_new(en, "counts", json_string(counts[im->energy_rotation]));
    if (im->energy_note[0]) {
        json_object_set_new(en, "spin_change_implied_rad_s", vec(im->spin_change_implied));
        json_object_set_new(en, "spin_energy_implied_J", num(im->spin_energy_implied));
        json_object_set_new(en, "note", json_string(im->energy_note));
    }
    json_object_set_new(o, "energy", en);
    json_t *u = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "v_pre", vec(im->pre.v_sd), "v_post",
                          vec(im->post.v_sd), "omega_pre", vec(im->pre.omega_sd), "omega_post", vec(im->post.omega_sd),
                          "e_kinematic", num(im->sd.e_kinematic), "impulse_ratio", num(im->sd.impulse_ratio),
                          "loss_fraction", num(im->sd.loss_fraction));
    json_object_set_new(u, "time_s", num(im->t_sd));
    json_object_set_new(u, "calibration_part",
                        json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "v_pre", vec(im->sd_calib.v_pre), "v_post",
                                  vec(im->sd_calib.v_post), "omega_pre", vec(im->sd_calib.omega_pre), "omega_post",
                                  vec(im->sd_calib.omega_post), "e_kinematic", num(im->sd_calib.e_kinematic),
                                  "impulse_ratio", num(im->sd_calib.impulse_ratio), "loss_fraction",
                                  num(im->sd_calib.loss_fraction)));
    json_object_set_new(o, "uncertainty", u);
    json_object_set_new(o, "t_meet_s", num(im->t_meet));
    json_object_set_new(o, "t_meet_sd_s", num(im->t_meet_sd));
    json_object_set_new(o, "t_line_s", num(im->t_line));
    json_object_set_new(o, "t_line_sd_s", num(im->t_line_sd));
    json_object_set_new(o, "time_from", json_string(im->t_from_meet ? "flights meet" : "surface"));
    json_object_set_new(o, "implausible", im->implausible[0] ? json_string(im->implausible) : json_null());
    json_object_set_new(o, "spin_observable", json_boolean(im->spin_observable));
    if (im->model.done || im->model.note[0]) {
        json_t *m = json_object();
        json_object_set_new(m, "restitution", json_string(icv_restitution_name(im->model.law)));
        json_object_set_new(m, "mu", num(im->model.mu));
        json_object_set_new(m, "e_n", num(im->model.e_n));
        json_object_set_new(m, "case", im->model.done ? json_string(im->model.case_label) : json_null());
        char words[160];
        analysis_case_words(im->model.case_label, words, sizeof words);
        json_object_set_new(m, "case_words", im->model.done && words[0] ? json_string(words) : json_null());
        json_object_set_new(m, "post", im->model.done ? json_pack("{s:o, s:o}", "v", vec(im->model.v), "omega",
                                                                  vec(im->model.omega))
                                                      : json_null());
        json_object_set_new(m, "loss_fraction", im->model.done ? num(im->model.loss_fraction) : json_null());
        json_object_set_new(m, "mu_fitted", json_boolean(im->model.mu_fitted));
        json_object_set_new(m, "e_n_fitted", json_boolean(im->model.e_n_fitted));
        if (im->model.mu_fitted) {
            json_object_set_new(m, "mu_identifiable", json_boolean(im->model.mu_identifiable));
            json_object_set_new(m, "mu_lower_bound", num(im->model.mu_lower_bound));
        }
        if (im->model.note[0])
            json_object_set_new(m, "note", json_string(im->model.note));
        json_object_set_new(o, "model", m);
    }
    return o;
}

int analysis_calibration_info_read(const char *path, const icv_experiment *e, analysis_calibration_info *out)
{
    memset(out, 0, sizeof *out);
    out->n_cameras = e->n_cameras < ICV_MAX_CAMERAS ? e->n_cameras : ICV_MAX_CAMERAS;
    out->stereo_rms_px = -1;
    for (int c = 0; c < out->n_cameras; c++) {
        snprintf(out->id[c], sizeof out->id[c], "%s", e->cameras[c].id);
        out->rms_px[c] = -1;
    }
    json_error_t je;
    json_t *root = icv_file_exists(path) ? json_load_file(path, 0, &je) : NULL;
    if (!root)
        return 0;
    json_t *cal = json_object_get(root, "calibration");
    json_t *mono = json_object_get(cal, "mono"), *st = json_object_get(cal, "stereo");
    int found = 0;
    if (json_is_object(st)) {
        json_t *r = json_object_get(st, "rms_px"), *cams = json_object_get(st, "cameras");
        if (json_is_number(r)) {
            out->stereo_rms_px = json_number_value(r);
            found = 1;
        }
        /* calib_stereo's two cameras: the experiment's first two */
        for (int c = 0; c < 2 && c < out->n_cameras && json_array_size(cams) == 2; c++) {
            json_t *cr = json_object_get(json_array_get(cams, (size_t)c), "rms_px");
            if (json_is_number(cr)) {
                out->rms_px[c] = json_number_value(cr);
                found = 1;
            }
        }
    } else if (json_is_object(mono) && out->n_cameras >= 1) {
        json_t *r = json_object_get(mono, "rms_px");
        if (json_is_number(r)) {
            out->rms_px[0] = json_number_value(r);
            found = 1;
        }
    }
    json_decref(root);
    return found;
}

int analysis_program_versions(const char *names[ANALYSIS_N_VERSIONS], const char *versions[ANALYSIS_N_VERSIONS])
{
    const char *n[ANALYSIS_N_VERSIONS] = {"impactcv", "FFmpeg", "OpenCV", "GSL", "libyaml", "jansson", "libxml2"};
    const char *v[ANALYSIS_N_VERSIONS] = {ICV_VERSION,         capture_ffmpeg_version(), calib_opencv_version(),
                                          icv_gsl_version(),   icv_libyaml_version(),    icv_jansson_version(),
                                          calib_libxml2_version()};
    for (int i = 0; i < ANALYSIS_N_VERSIONS; i++) {
        names[i] = n[i];
        versions[i] = v[i] ? v[i] : "unknown";
    }
    return ANALYSIS_N_VERSIONS;
}

/* the solver's case labels (solver/spatial_algebraic.c, impact_case_label; HS
 * Table 3.1): 0-6 by where the slip stops, a/b/c the resumed slip's direction */
const char *analysis_case_words(const char *label, char *out, size_t n)
{
    static const char *const base[7] = {
        "slip throughout the impact",
        "slip stops during compression, then sticks",
        "slip stops during compression, then slides back",
        "slip stops during restitution, then sticks",
        "slip stops during restitution, then slides back",
        "no initial slip, sticks throughout",
        "no initial slip, then slips",
    };
    out[0] = 0;
    if (!label || label[0] < '0' || label[0] > '6' || (label[1] && (label[1] < 'a' || label[1] > 'c' || label[2])))
        return out;
    static const char *const sub[3] = {"; the resumed slip keeps its x direction, z flipped",
                                       "; the resumed slip has its x direction flipped, z kept",
                                       "; the resumed slip has both directions flipped"};
    snprintf(out, n, "%s%s", base[label[0] - '0'], label[1] ? sub[label[1] - 'a'] : "");
    return out;
}

int analysis_json_write(const char *path, json_t *root, icv_err *err)
{
    char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(root);
    if (!text)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory writing JSON", path);
    size_t len = strlen(text);
    text[len] = '\n'; /* json_dumps leaves no newline; overwrite its NUL, length + 1 */
    int rc = icv_atomic_write(path, text, len + 1, err);
    free(text);
    return rc;
}

json_t *analysis_program_json(void)
{
    const char *vn[ANALYSIS_N_VERSIONS], *vv[ANALYSIS_N_VERSIONS];
    json_t *prog = json_object(), *libs = json_object();
    analysis_program_versions(vn, vv);
    json_object_set_new(prog, "name", json_string(vn[0]));
    json_object_set_new(prog, "version", json_string(vv[0]));
    for (int i = 1; i < ANALYSIS_N_VERSIONS; i++)
        json_object_set_new(libs, vn[i], json_string(vv[i]));
    json_object_set_new(prog, "libraries", libs);
    return prog;
}

int analysis_results_write(const char *path, const char *experiment, const analysis_calibration_info *calib,
                           const analysis_result *res, icv_err *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("impactcv-results-1"));
    json_object_set_new(root, "experiment", json_string(experiment));
    json_object_set_new(root, "program", analysis_program_json());
    json_t *cal = json_object(), *rms = json_object();
    if (calib) {
        for (int c = 0; c < calib->n_cameras; c++)
            json_object_set_new(rms, calib->id[c], calib->rms_px[c] >= 0 ? json_real(calib->rms_px[c]) : json_null());
        json_object_set_new(cal, "stereo_rms_px", calib->stereo_rms_px >= 0 ? json_real(calib->stereo_rms_px)
                                                                           : json_null());
    }
    json_object_set_new(cal, "rms_px", rms);
    /* the calibration's 1-sigma errors propagated into the uncertainties (null:
     * not known, not included) */
    const analysis_calib_sd *c = &res->calib;
    json_object_set_new(cal, "propagated_sd",
                        json_pack("{s:o, s:o, s:o, s:o}", "scale_rel", c->scale_rel > 0 ? json_real(c->scale_rel) : json_null(),
                                  "tilt_rad", c->tilt > 0 ? json_real(c->tilt) : json_null(), "heading_rad",
                                  c->heading > 0 ? json_real(c->heading) : json_null(), "offset_m",
                                  c->offset > 0 ? json_real(c->offset) : json_null()));
    json_object_set_new(root, "calibration", cal);
    json_object_set_new(root, "gravity", vec(res->g));
    json_object_set_new(root, "gravity_sd", vec(res->g_sd));
    json_object_set_new(root, "gravity_estimated", json_boolean(res->g_estimated));
    if (res->g_flight_fit) { /* g given: the free flights' own fit of it, as a check */
        double diff, sigma, tol;
        int off = analysis_gravity_flight_disagrees(res, &diff, &sigma, &tol);
        icv_err w = {0};
        if (off)
            analysis_gravity_check(res, &w);
        json_object_set_new(root, "gravity_flight_check",
                            json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "measured", vec(res->g_flight),
                                      "measured_sd", vec(res->g_flight_sd), "spread_m_s2", num(res->g_flight_spread), "systematic_sd_m_s2", num(res->g_flight_sys), "difference_m_s2", num(diff),
                                      "difference_sd_m_s2", num(sigma), "tolerance_m_s2", num(tol), "agrees",
                                      !off, "warning", off ? json_string(w.msg) : json_null()));
    } else {
        json_object_set_new(root, "gravity_flight_check", json_null());
    }
    json_t *outl = json_array();
    for (int i = 0; i < res->n_outlier_frames && i < ANALYSIS_MAX_OUTLIER_FRAMES; i++)
        json_array_append_new(outl, json_integer(res->outlier_frame[i]));
    json_object_set_new(root, "outlier_frames", outl);
    json_t *arr = json_array();
    for (int i = 0; i < res->n_impacts; i++)
        json_array_append_new(arr, analysis_impact_json(&res->impacts[i]));
    json_object_set_new(root, "impacts", arr);
    json_t *fl = json_array();
    for (int i = 0; i < res->n_flights; i++)
        json_array_append_new(fl, flight(&res->flights[i]));
    json_object_set_new(root, "flights", fl);
    json_t *ct = json_array();
    for (int i = 0; i < res->n_contacts; i++) {
        const analysis_contact *c = &res->contacts[i];
        json_array_append_new(ct, json_pack("{s:[II], s:o, s:o, s:s}", "frames", (json_int_t)c->frame_first,
                                            (json_int_t)c->frame_last, "t_start_s", num(c->t_first), "t_end_s",
                                            num(c->t_last), "kind", c->sliding ? "sliding" : "resting"));
    }
    json_object_set_new(root, "contacts", ct);
    /* the impacts seen and not measured, each named and why (as bodies_json.c) */
    json_t *skipped = json_array();
    for (int i = 0; i < res->n_not_measured && i < ANALYSIS_MAX_IMPACTS; i++)
        json_array_append_new(skipped, json_string(res->not_measured[i]));
    json_object_set_new(root, "impacts_not_measured", skipped);
    return analysis_json_write(path, root, err);
}
