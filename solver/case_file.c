/* case_file.c: CASE.yaml in (the contract's keys: mass, inertia, orientation {euler213 |
 * matrix}, contact in the body frame, v, omega, mu | mu_s + mu_k, e_n, restitution,
 * method, planar) and the contract's result JSON out (jansson). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/impact.h"

static const char *const known_keys[] = {"mass", "inertia", "orientation", "contact", "v", "omega", "mu",
                                         "mu_s", "mu_k", "e_n", "restitution", "method", "planar"};

static int read_orientation(icv_ynode root, icv_mat3 *R, icv_err *err)
{
    icv_ynode o = icv_ynode_get(root, "orientation");
    if (!icv_ynode_exists(o)) {
        *R = icv_m3_identity(); /* documented default: body axes = surface axes */
        return 0;
    }
    if (!icv_ynode_is_map(o))
        return icv_ynode_fail(o, err, ICV_EINVAL, "expected {euler213: [t1, t2, t3]} or {matrix: [[..],[..],[..]]}");
    int has_e = icv_ynode_exists(icv_ynode_get(o, "euler213")), has_m = icv_ynode_exists(icv_ynode_get(o, "matrix"));
    if (has_e == has_m || icv_ynode_len(o) != 1)
        return icv_ynode_fail(o, err, ICV_EINVAL, "give exactly one of euler213 (rad) or matrix");
    if (has_e) {
        icv_vec3 e;
        int rc = icv_yread_vec3(o, "euler213", 1, &e, err);
        if (rc < 0)
            return rc;
        *R = icv_euler213_to_matrix(e);
        return 0;
    }
    int rc = icv_yread_mat3(o, "matrix", 1, R, err);
    if (rc < 0)
        return rc;
    icv_mat3 rtr = icv_m3_mul(icv_m3_transpose(*R), *R);
    double off = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            off = fmax(off, fabs(rtr.m[i][j] - (i == j)));
    if (off > 1e-6 || icv_m3_det(*R) < 0)
        return icv_ynode_fail(icv_ynode_get(o, "matrix"), err, ICV_EINVAL,
                              "not a rotation (|R^T R - I| = %.2g, det = %.4g; need 1e-6 and +1)", off,
                              icv_m3_det(*R));
    return 0;
}

/* A body's keys (mass, inertia, orientation, contact in the body frame, v, omega) from
 * map into b (contact rotated to the surface/contact frame). */
int impact_case_read_body(icv_ynode map, impact_body *b, icv_err *err)
{
    int rc;
    icv_vec3 contact = icv_v3(0, 0, 0);
    if ((rc = icv_yread_double(map, "mass", 1, &b->mass, err)) < 0)
        return rc;
    if (!(b->mass > 0))
        return icv_ynode_fail(icv_ynode_get(map, "mass"), err, ICV_EINVAL, "must be > 0 kg");
    if ((rc = icv_yread_mat3(map, "inertia", 1, &b->inertia, err)) < 0)
        return rc;
    if (!icv_m3_is_spd(b->inertia, 1e-9))
        return icv_ynode_fail(icv_ynode_get(map, "inertia"), err, ICV_EINVAL,
                              "not symmetric positive definite (kg m^2, body frame)");
    if ((rc = read_orientation(map, &b->R, err)) < 0)
        return rc;
    if ((rc = icv_yread_vec3(map, "contact", 1, &contact, err)) < 0 ||
        (rc = icv_yread_vec3(map, "v", 1, &b->v, err)) < 0 || (rc = icv_yread_vec3(map, "omega", 0, &b->omega, err)) < 0)
        return rc;
    b->r = icv_m3_apply(b->R, contact); /* body frame -> surface frame */
    return 0;
}

/* The contact model's keys: mu | mu_s + mu_k (required), e_n (required), restitution,
 * method, planar (each pointer may be NULL: that key is not read). */
int impact_case_read_model(icv_ynode root, double *mu_s, double *mu_k, double *e_n, icv_restitution *law,
                           impact_method *method, int *planar, icv_err *err)
{
    int rc;
    char s[32];
    int has_mu = icv_ynode_exists(icv_ynode_get(root, "mu"));
    int has_s = icv_ynode_exists(icv_ynode_get(root, "mu_s")), has_k = icv_ynode_exists(icv_ynode_get(root, "mu_k"));
    if (has_mu && (has_s || has_k))
        return icv_ynode_fail(icv_ynode_get(root, "mu"), err, ICV_EINVAL, "give mu, or mu_s and mu_k, not both");
    if (has_mu) {
        if ((rc = icv_yread_double(root, "mu", 1, mu_k, err)) < 0)
            return rc;
        *mu_s = *mu_k;
    } else if (has_s || has_k) {
        if ((rc = icv_yread_double(root, "mu_s", 1, mu_s, err)) < 0 ||
            (rc = icv_yread_double(root, "mu_k", 1, mu_k, err)) < 0)
            return rc;
    } else {
        return icv_ynode_fail(root, err, ICV_EINVAL, "mu: missing (required; or mu_s and mu_k)");
    }
    if (!(*mu_k >= 0))
        return icv_ynode_fail(icv_ynode_get(root, has_mu ? "mu" : "mu_k"), err, ICV_EINVAL, "must be >= 0");
    if (!(*mu_s >= *mu_k))
        return icv_ynode_fail(icv_ynode_get(root, "mu_s"), err, ICV_EINVAL, "must be >= mu_k");
    if ((rc = icv_yread_double(root, "e_n", 1, e_n, err)) < 0)
        return rc;
    if (!(*e_n >= 0 && *e_n <= 1))
        return icv_ynode_fail(icv_ynode_get(root, "e_n"), err, ICV_EINVAL, "must be in [0, 1]");
    strcpy(s, "stronge");
    if ((rc = icv_yread_str(root, "restitution", 0, s, sizeof s, err)) < 0)
        return rc;
    if (impact_law_parse(s, law) < 0)
        return icv_ynode_fail(icv_ynode_get(root, "restitution"), err, ICV_EINVAL,
                              "'%s': expected newton, poisson or stronge", s);
    if (method) {
        strcpy(s, "exact");
        if ((rc = icv_yread_str(root, "method", 0, s, sizeof s, err)) < 0)
            return rc;
        if (impact_method_parse(s, method) < 0)
            return icv_ynode_fail(icv_ynode_get(root, "method"), err, ICV_EINVAL, "'%s': expected exact or algebraic", s);
    }
    if (planar && (rc = icv_yread_bool(root, "planar", 0, planar, err)) < 0)
        return rc;
    return 0;
}

/* unknown keys are errors: a misspelt key would otherwise be silently ignored */
int impact_case_check_keys(icv_ynode map, const char *const *known, size_t n_known, icv_err *err)
{
    if (!icv_ynode_is_map(map))
        return icv_ynode_fail(map, err, ICV_EINVAL, "expected a mapping of case keys");
    for (size_t i = 0; i < icv_ynode_len(map); i++) {
        const char *key = NULL;
        icv_ynode v = icv_ynode_pair(map, i, &key);
        int ok = 0;
        for (size_t k = 0; k < n_known; k++)
            ok |= key && !strcmp(key, known[k]);
        if (!ok)
            return icv_ynode_fail(v, err, ICV_EINVAL, "unknown key");
    }
    return 0;
}

int impact_case_read(icv_ynode root, impact_case *c, icv_err *err)
{
    impact_case_init(c);
    int rc = impact_case_check_keys(root, known_keys, sizeof known_keys / sizeof *known_keys, err);
    if (rc < 0)
        return rc;
    impact_body b = {.R = icv_m3_identity()};
    if ((rc = impact_case_read_body(root, &b, err)) < 0)
        return rc;
    c->mass = b.mass;
    c->inertia = b.inertia;
    c->R = b.R;
    c->r = b.r;
    c->v = b.v;
    c->omega = b.omega;
    return impact_case_read_model(root, &c->mu_s, &c->mu_k, &c->e_n, &c->law, &c->method, &c->planar, err);
}

int impact_case_load(const char *path, impact_case *c, icv_err *err)
{
    icv_yaml *doc = NULL;
    icv_ynode root;
    int rc = icv_yaml_load(path, &doc, &root, err);
    if (rc < 0)
        return rc;
    rc = impact_case_read(root, c, err);
    icv_yaml_free(doc);
    return rc < 0 ? rc : 0;
}

static json_t *vec_json(icv_vec3 a) { return json_pack("[fff]", a.x, a.y, a.z); }

json_t *impact_result_json_object(const impact_result *r)
{
    json_t *root = json_pack(
        "{s:{s:o,s:o,s:o},s:o,s:s,s:{s:f,s:f,s:f},s:{s:f,s:f,s:f}}", "post", "v", vec_json(r->v), "omega",
        vec_json(r->omega), "contact_velocity", vec_json(r->contact_velocity), "impulse", vec_json(r->impulse), "case",
        r->case_label, "work", "compression_J", r->work_compression, "restitution_J", r->work_restitution, "friction_J", r->work_friction, "energy",
        "pre_J", r->energy_pre, "post_J", r->energy_post, "loss_fraction", r->loss_fraction);
    if (!root)
        return NULL;
    /* added keys (the contract allows adding): the contact velocity before impact, the
     * normal impulse at the end of compression and the periods of constant mode */
    json_t *periods = json_array();
    static const char *const modes[] = {"slide", "stick", "reverse_slide"};
    for (int i = 0; i < r->n_periods && periods; i++)
        json_array_append_new(periods, json_pack("{s:s#,s:s,s:o}", "stage", &r->periods[i].stage, (size_t)1, "mode",
                                                 modes[r->periods[i].mode], "impulse",
                                                 vec_json(r->periods[i].impulse)));
    json_object_set_new(root, "pre", json_pack("{s:o}", "contact_velocity", vec_json(r->contact_velocity_pre)));
    json_object_set_new(root, "p_nc", json_real(r->p_nc));
    if (periods)
        json_object_set_new(root, "periods", periods);
    return root;
}

char *impact_json_dump(json_t *root)
{
    if (!root)
        return NULL;
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(root);
    return s;
}

char *impact_result_json(const impact_result *r) { return impact_json_dump(impact_result_json_object(r)); }
