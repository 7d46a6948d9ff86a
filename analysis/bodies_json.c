/* bodies_json.c: results.json's entries for the several-body impacts
 * (docs/analysis.md "Several bodies": kind, the bodies' names, the states of each
 * body, the balances with their 1-sigma). Non-finite numbers are written as null. */
#include <jansson.h>

#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "analysis/bodies.h"

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *vec(icv_vec3 v) { return json_pack("[ooo]", num(v.x), num(v.y), num(v.z)); }

static json_t *state(const analysis_body_state *s)
{
    icv_vec3 e;
    int singular = icv_euler213_from_matrix(s->R, &e);
    json_t *o = json_object();
    json_object_set_new(o, "p", vec(s->p));
    json_object_set_new(o, "v", vec(s->v));
    json_object_set_new(o, "omega", vec(s->omega));
    json_object_set_new(o, "euler213", vec(e));
    json_object_set_new(o, "euler213_singular", json_boolean(singular));
    json_object_set_new(o, "acceleration", vec(s->a));
    json_object_set_new(o, "spin_observable", json_boolean(s->spin_observable));
    json_object_set_new(o, "spin_about_normal", json_boolean(s->spin_about_normal));
    json_object_set_new(o, "energy_J", num(s->energy));
    json_object_set_new(o, "window_s", json_pack("[oo]", num(s->t_first), num(s->t_last)));
    json_object_set_new(o, "window_frames", json_integer(s->n_frames));
    json_object_set_new(o, "uncertainty", json_pack("{s:o, s:o, s:o, s:o, s:o}", "p", vec(s->p_sd), "v", vec(s->v_sd),
                                                    "omega", vec(s->omega_sd), "acceleration", vec(s->a_sd),
                                                    "energy_J", num(s->energy_sd)));
    return o;
}

/* {"pre": .., "post": ..} per body, keyed by name */
static json_t *states(const analysis_body_state *pre, const analysis_body_state *post, const char *const names[2])
{
    json_t *o = json_object();
    for (int k = 0; k < 2; k++)
        json_object_set_new(o, names[k], json_pack("{s:o, s:o}", "pre", state(&pre[k]), "post", state(&post[k])));
    return o;
}

static json_t *with_sd(json_t *value, json_t *sd) { return json_pack("{s:o, s:o}", "value", value, "sd", sd); }

/* {"pre_J", "post_J", "lost_J", "loss_fraction"}, each {value, sd} */
static json_t *energy(double pre, double pre_sd, double post, double post_sd, double lost, double lost_sd, double frac,
                      double frac_sd)
{
    return json_pack("{s:o, s:o, s:o, s:o}", "pre_J", with_sd(num(pre), num(pre_sd)), "post_J",
                     with_sd(num(post), num(post_sd)), "lost_J", with_sd(num(lost), num(lost_sd)), "loss_fraction",
                     with_sd(num(frac), num(frac_sd)));
}

json_t *analysis_body_impact_json(const analysis_body_impact *im, const char *name_a, const char *name_b)
{
    const char *names[2] = {name_a ? name_a : "a", name_b ? name_b : "b"};
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "kind", json_string("body_body"));
    json_object_set_new(o, "bodies", json_pack("[ss]", names[0], names[1]));
    json_object_set_new(o, "frame", json_integer(im->frame));
    json_object_set_new(o, "time_s", num(im->t));
    json_object_set_new(o, "time_sd_s", num(im->t_sd));
    json_object_set_new(o, "t_meet_s", json_pack("[oo]", num(im->t_meet[0]), num(im->t_meet[1])));
    json_object_set_new(o, "contact_point", vec(im->contact.point));
    json_object_set_new(o, "normal", vec(im->contact.normal));
    json_object_set_new(o, "contact_exact", json_boolean(im->contact.exact));
    json_object_set_new(o, "states", states(im->pre, im->post, names));
    json_object_set_new(o, "relative_contact_velocity", json_pack("{s:o, s:o}", "pre", vec(im->u_pre), "post",
                                                                  vec(im->u_post)));
    json_object_set_new(o, "e_newton", with_sd(num(im->e_newton), num(im->e_newton_sd)));
    json_object_set_new(o, "impulse_ratio", with_sd(num(im->impulse_ratio), num(im->impulse_ratio_sd)));
    json_object_set_new(o, "impulse", with_sd(vec(im->impulse), vec(im->impulse_sd)));
    json_object_set_new(o, "impulse_on",
                        json_pack("{s:o, s:o}", names[0],
                                  with_sd(vec(im->impulse_body[0]), vec(im->impulse_body_sd[0])), names[1],
                                  with_sd(vec(im->impulse_body[1]), vec(im->impulse_body_sd[1]))));
    json_object_set_new(o, "impulse_mismatch",
                        json_pack("{s:o, s:o, s:o}", "value", vec(im->impulse_mismatch), "sd",
                                  vec(im->impulse_mismatch_sd), "chi2_3dof", num(im->impulse_mismatch_chi2)));
    json_object_set_new(o, "momentum",
                        json_pack("{s:o, s:o}", "pre", with_sd(vec(im->momentum_pre), vec(im->momentum_pre_sd)),
                                  "post", with_sd(vec(im->momentum_post), vec(im->momentum_post_sd))));
    json_object_set_new(o, "angular_momentum",
                        json_pack("{s:o, s:o, s:o}", "pre", with_sd(vec(im->angmom_pre), vec(im->angmom_pre_sd)),
                                  "post", with_sd(vec(im->angmom_post), vec(im->angmom_post_sd)), "change",
                                  with_sd(vec(im->angmom_change), vec(im->angmom_change_sd))));
    json_object_set_new(o, "energy",
                        energy(im->energy_pre, im->energy_pre_sd, im->energy_post, im->energy_post_sd, im->energy_lost,
                               im->energy_lost_sd, im->loss_fraction, im->loss_fraction_sd));
    return o;
}

json_t *analysis_row_impact_json(const analysis_row_impact *im, const char *const *names)
{
    json_t *o = json_object(), *bodies = json_array(), *st = json_object(), *on = json_object(), *between = json_array();
    if (!o || !bodies || !st || !on || !between) {
        json_decref(o), json_decref(bodies), json_decref(st), json_decref(on), json_decref(between);
        return NULL;
    }
    json_object_set_new(o, "kind", json_string("row"));
    for (int r = 0; r < im->n; r++) {
        const char *nm = names[im->body[r]];
        json_array_append_new(bodies, json_string(nm));
        json_object_set_new(st, nm, json_pack("{s:o, s:o}", "pre", state(&im->pre[r]), "post", state(&im->post[r])));
        json_object_set_new(on, nm, with_sd(vec(im->impulse_body[r]), vec(im->impulse_body_sd[r])));
        if (r + 1 < im->n)
            json_array_append_new(between, json_pack("{s:[ss], s:o}", "bodies", nm, names[im->body[r + 1]], "impulse",
                                                     with_sd(vec(im->impulse_between[r]),
                                                             vec(im->impulse_between_sd[r]))));
    }
    json_object_set_new(o, "bodies", bodies);
    json_object_set_new(o, "frame", json_integer(im->frame));
    json_object_set_new(o, "time_s", num(im->t));
    json_object_set_new(o, "time_sd_s", num(im->t_sd));
    json_object_set_new(o, "normal", vec(im->normal));
    json_object_set_new(o, "states", st);
    json_object_set_new(o, "impulse_on", on);
    json_object_set_new(o, "impulse_between", between);
    json_object_set_new(o, "momentum",
                        json_pack("{s:o, s:o, s:o}", "pre", with_sd(vec(im->momentum_pre), vec(im->momentum_pre_sd)),
                                  "post", with_sd(vec(im->momentum_post), vec(im->momentum_post_sd)), "change",
                                  json_pack("{s:o, s:o, s:o}", "value", vec(im->momentum_change), "sd",
                                            vec(im->momentum_change_sd), "chi2_3dof",
                                            num(im->momentum_change_chi2))));
    json_object_set_new(o, "energy",
                        energy(im->energy_pre, im->energy_pre_sd, im->energy_post, im->energy_post_sd, im->energy_lost,
                               im->energy_lost_sd, im->loss_fraction, im->loss_fraction_sd));
    return o;
}

json_t *analysis_chain_impact_json(const analysis_chain_impact *im, const char *name_a, const char *name_b)
{
    const char *names[2] = {name_a ? name_a : "link1", name_b ? name_b : "link2"};
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "kind", json_string("chain_surface"));
    json_object_set_new(o, "bodies", json_pack("[ss]", names[0], names[1]));
    json_object_set_new(o, "link_hit", json_string(names[im->link_hit ? 1 : 0]));
    json_object_set_new(o, "frame", json_integer(im->frame));
    json_object_set_new(o, "time_s", num(im->t));
    json_object_set_new(o, "time_sd_s", num(im->t_sd));
    json_object_set_new(o, "time_from", json_string(im->from_meet ? "centre of mass meets" : "surface"));
    json_object_set_new(o, "t_surface_s", with_sd(num(im->t_line), num(im->t_line_sd)));
    json_object_set_new(o, "t_meet_s", with_sd(num(im->t_meet), num(im->t_meet_sd)));
    json_object_set_new(o, "contact_point", vec(im->contact_point));
    json_object_set_new(o, "states", states(im->pre, im->post, names));
    json_object_set_new(o, "e_energetic",
                        json_pack("{s:o, s:o, s:o}", names[0], with_sd(num(im->e_link[0]), num(im->e_link_sd[0])),
                                  names[1], with_sd(num(im->e_link[1]), num(im->e_link_sd[1])), "chain",
                                  with_sd(num(im->e_chain), num(im->e_chain_sd))));
    json_object_set_new(o, "energy",
                        json_pack("{s:o, s:o}", "pre_J", with_sd(num(im->energy_pre), num(im->energy_pre_sd)),
                                  "post_J", with_sd(num(im->energy_post), num(im->energy_post_sd))));
    json_object_set_new(o, "joint_residual",
                        json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "frames", im->joint.n_frames, "rms_m",
                                  num(im->joint.rms), "max_m", num(im->joint.max), "t_max_s", num(im->joint.t_max),
                                  "mean_m", vec(im->joint.mean), "expected_rms_m", num(im->joint.expected_rms)));
    return o;
}

json_t *analysis_surface_impact_json(const analysis_surface_impact *s, const char *name)
{
    json_t *o = analysis_impact_json(&s->im);
    if (!o)
        return NULL;
    if (json_object_set_new(o, "kind", json_string("surface")) ||
        json_object_set_new(o, "bodies", json_pack("[s]", name)) ||
        json_object_set_new(o, "frames", json_pack("[II]", (json_int_t)s->frame_first, (json_int_t)s->frame_last))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int analysis_bodies_results_write(const char *path, const char *experiment, const char *const *names, int n_bodies,
                                  const analysis_bodies_result *res, icv_err *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("impactcv-results-1"));
    json_object_set_new(root, "experiment", json_string(experiment));
    json_object_set_new(root, "program", analysis_program_json());
    json_t *bodies = json_array();
    for (int k = 0; k < n_bodies; k++)
        json_array_append_new(bodies, json_string(names[k]));
    json_object_set_new(root, "bodies", bodies);
    json_t *arr = json_array();
    int bad = 0;
    for (int i = 0; i < res->n_impacts && !bad; i++) {
        const analysis_body_impact *im = &res->impacts[i];
        json_t *o = analysis_body_impact_json(im, names[im->body[0]], names[im->body[1]]);
        bad = !o || json_array_append_new(arr, o) != 0;
    }
    for (int i = 0; i < res->n_chain && !bad; i++) {
        json_t *o = analysis_chain_impact_json(&res->chain[i], names[res->chain_links[0]], names[res->chain_links[1]]);
        bad = !o || json_array_append_new(arr, o) != 0;
    }
    for (int i = 0; i < res->n_surface && !bad; i++) {
        json_t *o = analysis_surface_impact_json(&res->surface[i], names[res->surface[i].body]);
        bad = !o || json_array_append_new(arr, o) != 0;
    }
    json_object_set_new(root, "impacts", arr);
    /* impacts of a row of bodies at once: beside the pairs' (a consumer of "impacts"
       finds the kinds it knows) */
    json_t *rows = json_array();
    for (int i = 0; i < res->n_rows && rows && !bad; i++) {
        json_t *o = analysis_row_impact_json(&res->rows[i], names);
        bad = !o || json_array_append_new(rows, o) != 0;
    }
    bad |= !rows || json_object_set_new(root, "row_impacts", rows) != 0;
    json_object_set_new(root, "min_gap_m", num(res->min_gap));
    /* the pair impacts found and not measured, each named and why */
    json_t *skipped = json_array();
    for (int i = 0; i < res->n_skipped && i < ANALYSIS_MAX_IMPACTS && skipped && !bad; i++)
        bad = json_array_append_new(skipped, json_string(res->skipped[i])) != 0;
    bad |= !skipped || json_object_set_new(root, "impacts_not_measured", skipped) != 0;
    if (bad) {
        json_decref(root);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory writing JSON", path);
    }
    return analysis_json_write(path, root, err);
}
