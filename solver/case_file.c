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

int impact_case_load(const char *path, impact_case *c, icv_err *err)
{
    icv_yaml *doc = NULL;
    icv_ynode root;
    int rc = icv_yaml_load(path, &doc, &root, err);
    if (rc < 0)
        return rc;
    impact_case_init(c);
    char s[32];
    icv_vec3 contact = icv_v3(0, 0, 0);
    if (!icv_ynode_is_map(root)) {
        rc = icv_ynode_fail(root, err, ICV_EINVAL, "expected a mapping of case keys");
        goto out;
    }
    for (size_t i = 0; i < icv_ynode_len(root); i++) {
        const char *key = NULL;
        icv_ynode v = icv_ynode_pair(root, i, &key);
        int ok = 0;
        for (size_t k = 0; k < sizeof known_keys / sizeof *known_keys; k++)
            ok |= key && !strcmp(key, known_keys[k]);
        if (!ok) {
            rc = icv_ynode_fail(v, err, ICV_EINVAL, "unknown key");
            goto out;
        }
    }
    if ((rc = icv_yread_double(root, "mass", 1, &c->mass, err)) < 0)
        goto out;
    if (!(c->mass > 0)) {
        rc = icv_ynode_fail(icv_ynode_get(root, "mass"), err, ICV_EINVAL, "must be > 0 kg");
        goto out;
    }
    if ((rc = icv_yread_mat3(root, "inertia", 1, &c->inertia, err)) < 0)
        goto out;
    if (!icv_m3_is_spd(c->inertia, 1e-9)) {
        rc = icv_ynode_fail(icv_ynode_get(root, "inertia"), err, ICV_EINVAL,
                            "not symmetric positive definite (kg m^2, body frame)");
        goto out;
    }
    if ((rc = read_orientation(root, &c->R, err)) < 0)
        goto out;
    if ((rc = icv_yread_vec3(root, "contact", 1, &contact, err)) < 0 ||
        (rc = icv_yread_vec3(root, "v", 1, &c->v, err)) < 0 || (rc = icv_yread_vec3(root, "omega", 0, &c->omega, err)) < 0)
        goto out;
    c->r = icv_m3_apply(c->R, contact); /* body frame -> surface frame */
    int has_mu = icv_ynode_exists(icv_ynode_get(root, "mu"));
    int has_s = icv_ynode_exists(icv_ynode_get(root, "mu_s")), has_k = icv_ynode_exists(icv_ynode_get(root, "mu_k"));
    if (has_mu && (has_s || has_k)) {
        rc = icv_ynode_fail(icv_ynode_get(root, "mu"), err, ICV_EINVAL, "give mu, or mu_s and mu_k, not both");
        goto out;
    }
    if (has_mu) {
        if ((rc = icv_yread_double(root, "mu", 1, &c->mu_k, err)) < 0)
            goto out;
        c->mu_s = c->mu_k;
    } else if (has_s || has_k) {
        if ((rc = icv_yread_double(root, "mu_s", 1, &c->mu_s, err)) < 0 ||
            (rc = icv_yread_double(root, "mu_k", 1, &c->mu_k, err)) < 0)
            goto out;
    } else {
        rc = icv_ynode_fail(root, err, ICV_EINVAL, "mu: missing (required; or mu_s and mu_k)");
        goto out;
    }
    if (!(c->mu_k >= 0)) {
        rc = icv_ynode_fail(icv_ynode_get(root, has_mu ? "mu" : "mu_k"), err, ICV_EINVAL, "must be >= 0");
        goto out;
    }
    if (!(c->mu_s >= c->mu_k)) {
        rc = icv_ynode_fail(icv_ynode_get(root, "mu_s"), err, ICV_EINVAL, "must be >= mu_k");
        goto out;
    }
    if ((rc = icv_yread_double(root, "e_n", 1, &c->e_n, err)) < 0)
        goto out;
    if (!(c->e_n >= 0 && c->e_n <= 1)) {
        rc = icv_ynode_fail(icv_ynode_get(root, "e_n"), err, ICV_EINVAL, "must be in [0, 1]");
        goto out;
    }
    strcpy(s, "stronge");
    if ((rc = icv_yread_str(root, "restitution", 0, s, sizeof s, err)) < 0)
        goto out;
    if (impact_law_parse(s, &c->law) < 0) {
        rc = icv_ynode_fail(icv_ynode_get(root, "restitution"), err, ICV_EINVAL,
                            "'%s': expected newton, poisson or stronge", s);
        goto out;
    }
    strcpy(s, "exact");
    if ((rc = icv_yread_str(root, "method", 0, s, sizeof s, err)) < 0)
        goto out;
    if (impact_method_parse(s, &c->method) < 0) {
        rc = icv_ynode_fail(icv_ynode_get(root, "method"), err, ICV_EINVAL, "'%s': expected exact or algebraic", s);
        goto out;
    }
    if ((rc = icv_yread_bool(root, "planar", 0, &c->planar, err)) < 0)
        goto out;
    rc = 0;
out:
    icv_yaml_free(doc);
    return rc;
}

static json_t *vec_json(icv_vec3 a) { return json_pack("[fff]", a.x, a.y, a.z); }

char *impact_result_json(const impact_result *r)
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
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    json_decref(root);
    return s;
}
