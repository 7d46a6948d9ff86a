/* case_file_multi.c: CASE.yaml with several bodies (two bodies, balls in a row, a
 * two-link chain) and their JSON results; the one-body keys are read by case_file.c. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/impact_internal.h"

static const char *const pair_keys[] = {"bodies", "mu", "mu_s", "mu_k", "e_n", "restitution", "method", "planar"};
static const char *const body_keys[] = {"name", "fixed", "mass", "inertia", "orientation", "contact", "v", "omega"};
static const char *const fixed_keys[] = {"name", "fixed", "contact", "v", "omega"};
static const char *const row_top_keys[] = {"row"};
static const char *const row_keys[] = {"mass", "v", "e", "stiffness", "contact_law"};
static const char *const chain_top_keys[] = {"chain", "mu", "mu_s", "mu_k", "e_n", "restitution"};
static const char *const chain_keys[] = {"links", "joint", "contact"};
static const char *const link_keys[] = {"mass", "inertia", "centre", "v", "omega"};
#define N_OF(a) (sizeof(a) / sizeof *(a))

static int read_pair_body(icv_ynode m, impact_body *b, char *name, size_t name_n, icv_err *err)
{
    int fixed = 0, rc;
    if (!icv_ynode_is_map(m))
        return icv_ynode_fail(m, err, ICV_EINVAL, "expected a body's keys (mass, inertia, contact, v, ...)");
    if ((rc = icv_yread_bool(m, "fixed", 0, &fixed, err)) < 0 || (rc = icv_yread_str(m, "name", 0, name, name_n, err)) < 0)
        return rc;
    *b = (impact_body){.R = icv_m3_identity(), .inertia = icv_m3_identity()};
    if (!fixed) {
        if ((rc = impact_case_check_keys(m, body_keys, N_OF(body_keys), err)) < 0)
            return rc;
        return impact_case_read_body(m, b, err);
    }
    /* a fixed body: infinite mass, moving as given (contact in the contact frame) */
    if ((rc = impact_case_check_keys(m, fixed_keys, N_OF(fixed_keys), err)) < 0)
        return rc;
    b->mass = INFINITY;
    if ((rc = icv_yread_vec3(m, "contact", 0, &b->r, err)) < 0 || (rc = icv_yread_vec3(m, "v", 0, &b->v, err)) < 0 ||
        (rc = icv_yread_vec3(m, "omega", 0, &b->omega, err)) < 0)
        return rc;
    return 0;
}

static int read_pair(icv_ynode root, impact_pair_case *c, char names[2][32], icv_err *err)
{
    int rc = impact_case_check_keys(root, pair_keys, N_OF(pair_keys), err);
    if (rc < 0)
        return rc;
    icv_ynode bodies = icv_ynode_get(root, "bodies");
    if (!icv_ynode_is_seq(bodies) || icv_ynode_len(bodies) != 2)
        return icv_ynode_fail(bodies, err, ICV_EINVAL,
                              "expected a list of two bodies (the first on the +y side of the contact)");
    impact_pair_case_init(c);
    if ((rc = read_pair_body(icv_ynode_at(bodies, 0), &c->a, names[0], 32, err)) < 0 ||
        (rc = read_pair_body(icv_ynode_at(bodies, 1), &c->b, names[1], 32, err)) < 0)
        return rc;
    if (isinf(c->a.mass) && isinf(c->b.mass))
        return icv_ynode_fail(bodies, err, ICV_EINVAL, "both bodies are fixed: nothing can move");
    return impact_case_read_model(root, &c->mu_s, &c->mu_k, &c->e_n, &c->law, &c->method, &c->planar, err);
}

/* a list of n numbers (n from the list itself when *n == 0) */
static int read_list(icv_ynode map, const char *key, int required, double *out, int *n, int max, icv_err *err)
{
    icv_ynode l = icv_ynode_get(map, key);
    if (!icv_ynode_exists(l)) {
        if (required)
            return icv_ynode_fail(map, err, ICV_EINVAL, "%s: missing (required)", key);
        return 0;
    }
    if (!icv_ynode_is_seq(l))
        return icv_ynode_fail(l, err, ICV_EINVAL, "expected a list of numbers");
    int len = (int)icv_ynode_len(l);
    if (*n == 0 && (len < 1 || len > max))
        return icv_ynode_fail(l, err, ICV_EINVAL, "%d values, expected 1..%d", len, max);
    if (*n != 0 && len != *n)
        return icv_ynode_fail(l, err, ICV_EINVAL, "%d values, expected %d", len, *n);
    *n = len;
    return icv_yread_doubles(map, key, 1, out, len, err);
}

static int read_row(icv_ynode root, impact_row_case *c, icv_err *err)
{
    int rc = impact_case_check_keys(root, row_top_keys, N_OF(row_top_keys), err);
    if (rc < 0)
        return rc;
    icv_ynode row = icv_ynode_get(root, "row");
    if ((rc = impact_case_check_keys(row, row_keys, N_OF(row_keys), err)) < 0)
        return rc;
    int n = 0;
    impact_row_case_init(c, 2);
    if ((rc = read_list(row, "mass", 1, c->mass, &n, IMPACT_ROW_MAX, err)) < 0)
        return rc;
    if (n < 2)
        return icv_ynode_fail(icv_ynode_get(row, "mass"), err, ICV_EINVAL, "a row needs at least 2 balls");
    c->n = n;
    for (int i = 0; i < n; i++)
        if (!(c->mass[i] > 0))
            return icv_ynode_fail(icv_ynode_get(row, "mass"), err, ICV_EINVAL, "ball %d: must be > 0 kg", i + 1);
    if ((rc = read_list(row, "v", 1, c->v, &n, IMPACT_ROW_MAX, err)) < 0)
        return rc;
    int nc = n - 1;
    icv_ynode e = icv_ynode_get(row, "e");
    if (icv_ynode_is_seq(e)) {
        if ((rc = read_list(row, "e", 1, c->e, &nc, IMPACT_ROW_MAX - 1, err)) < 0)
            return rc;
    } else {
        double ev = 1;
        if ((rc = icv_yread_double(row, "e", 1, &ev, err)) < 0)
            return rc;
        for (int i = 0; i < nc; i++)
            c->e[i] = ev;
    }
    for (int i = 0; i < nc; i++)
        if (!(c->e[i] >= 0 && c->e[i] <= 1))
            return icv_ynode_fail(e, err, ICV_EINVAL, "contact %d-%d: must be in [0, 1]", i + 1, i + 2);
    if ((rc = read_list(row, "stiffness", 0, c->stiffness, &nc, IMPACT_ROW_MAX - 1, err)) < 0)
        return rc;
    for (int i = 0; i < nc; i++)
        if (!(c->stiffness[i] > 0))
            return icv_ynode_fail(icv_ynode_get(row, "stiffness"), err, ICV_EINVAL, "contact %d-%d: must be > 0", i + 1,
                                  i + 2);
    char law[16] = "linear";
    if ((rc = icv_yread_str(row, "contact_law", 0, law, sizeof law, err)) < 0)
        return rc;
    if (!strcmp(law, "linear"))
        c->exponent = 1;
    else if (!strcmp(law, "hertz"))
        c->exponent = 1.5;
    else
        return icv_ynode_fail(icv_ynode_get(row, "contact_law"), err, ICV_EINVAL, "'%s': expected linear or hertz", law);
    return 0;
}

static int read_chain(icv_ynode root, impact_chain_case *c, icv_err *err)
{
    int rc = impact_case_check_keys(root, chain_top_keys, N_OF(chain_top_keys), err);
    if (rc < 0)
        return rc;
    icv_ynode ch = icv_ynode_get(root, "chain");
    if ((rc = impact_case_check_keys(ch, chain_keys, N_OF(chain_keys), err)) < 0)
        return rc;
    memset(c, 0, sizeof *c);
    icv_ynode links = icv_ynode_get(ch, "links");
    if (!icv_ynode_is_seq(links) || icv_ynode_len(links) != 2)
        return icv_ynode_fail(links, err, ICV_EINVAL, "expected a list of two links (the first touches the surface)");
    for (int i = 0; i < 2; i++) {
        icv_ynode l = icv_ynode_at(links, (size_t)i);
        if ((rc = impact_case_check_keys(l, link_keys, N_OF(link_keys), err)) < 0 ||
            (rc = icv_yread_double(l, "mass", 1, &c->mass[i], err)) < 0 ||
            (rc = icv_yread_double(l, "inertia", 1, &c->inertia[i], err)) < 0 ||
            (rc = icv_yread_vec3(l, "centre", 1, &c->centre[i], err)) < 0 ||
            (rc = icv_yread_vec3(l, "v", 1, &c->v[i], err)) < 0 ||
            (rc = icv_yread_double(l, "omega", 0, &c->omega[i], err)) < 0)
            return rc;
        if (!(c->mass[i] > 0))
            return icv_ynode_fail(icv_ynode_get(l, "mass"), err, ICV_EINVAL, "must be > 0 kg");
        if (!(c->inertia[i] > 0))
            return icv_ynode_fail(icv_ynode_get(l, "inertia"), err, ICV_EINVAL,
                                  "must be > 0 kg m^2 (about the centre of mass, axis z)");
    }
    if ((rc = icv_yread_vec3(ch, "joint", 1, &c->joint, err)) < 0 ||
        (rc = icv_yread_vec3(ch, "contact", 1, &c->contact, err)) < 0)
        return rc;
    return impact_case_read_model(root, &c->mu_s, &c->mu_k, &c->e_n, &c->law, NULL, NULL, err);
}

int impact_case_file_load(const char *path, impact_case_file *f, icv_err *err)
{
    icv_yaml *doc = NULL;
    icv_ynode root;
    int rc = icv_yaml_load(path, &doc, &root, err);
    if (rc < 0)
        return rc;
    memset(f, 0, sizeof *f);
    char names[2][32] = {"a", "b"};
    if (!icv_ynode_is_map(root)) {
        rc = icv_ynode_fail(root, err, ICV_EINVAL, "expected a mapping of case keys");
    } else if (icv_ynode_exists(icv_ynode_get(root, "bodies"))) {
        f->kind = IMPACT_FILE_PAIR;
        rc = read_pair(root, &f->pair, names, err);
        memcpy(f->names, names, sizeof names);
    } else if (icv_ynode_exists(icv_ynode_get(root, "row"))) {
        f->kind = IMPACT_FILE_ROW;
        rc = read_row(root, &f->row, err);
    } else if (icv_ynode_exists(icv_ynode_get(root, "chain"))) {
        f->kind = IMPACT_FILE_CHAIN;
        rc = read_chain(root, &f->chain, err);
    } else {
        f->kind = IMPACT_FILE_ONE;
        rc = impact_case_read(root, &f->one, err);
    }
    icv_yaml_free(doc);
    return rc < 0 ? rc : 0;
}

static json_t *vec_json(icv_vec3 a) { return json_pack("[fff]", a.x, a.y, a.z); }

static json_t *doubles_json(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n && a; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static json_t *pre_post(double pre, double post) { return json_pack("{s:f,s:f}", "pre_J", pre, "post_J", post); }

int impact_case_file_solve_json(const impact_case_file *f, char **json, icv_err *err)
{
    *json = NULL;
    json_t *root = NULL;
    int rc = 0;
    if (f->kind == IMPACT_FILE_ONE) {
        impact_result r;
        if ((rc = impact_solve(&f->one, &r, err)) < 0)
            return rc;
        root = impact_result_json_object(&r);
    } else if (f->kind == IMPACT_FILE_PAIR) {
        impact_pair_result r;
        if ((rc = impact_pair_solve(&f->pair, &r, err)) < 0)
            return rc;
        root = impact_result_json_object(&r.contact);
        json_t *bodies = json_array();
        for (int i = 0; root && bodies && i < 2; i++)
            json_array_append_new(bodies, json_pack("{s:s,s:{s:o,s:o},s:o}", "name", f->names[i], "post", "v",
                                                    vec_json(r.v[i]), "omega", vec_json(r.omega[i]), "energy",
                                                    pre_post(r.energy_pre[i], r.energy_post[i])));
        if (root) {
            json_object_set_new(root, "bodies", bodies);
            json_object_set_new(root, "momentum",
                                json_pack("{s:o,s:o}", "pre", vec_json(r.momentum_pre), "post", vec_json(r.momentum_post)));
            json_object_set_new(root, "angular_momentum",
                                json_pack("{s:o,s:o}", "pre", vec_json(r.angular_momentum_pre), "post",
                                          vec_json(r.angular_momentum_post)));
        } else {
            json_decref(bodies);
        }
    } else if (f->kind == IMPACT_FILE_ROW) {
        impact_row_result r;
        if ((rc = impact_row_solve(&f->row, &r, err)) < 0)
            return rc;
        root = json_pack("{s:o,s:{s:f,s:f,s:f},s:{s:f,s:f},s:f,s:o,s:i}", "v", doubles_json(r.v, f->row.n), "energy",
                         "pre_J", r.energy_pre, "post_J", r.energy_post, "loss_fraction",
                         r.energy_pre > 0 ? 1 - r.energy_post / r.energy_pre : 0, "momentum", "pre", r.momentum_pre,
                         "post", r.momentum_post, "duration_s", r.duration, "max_force_N",
                         doubles_json(r.max_force, f->row.n - 1), "compressions", r.n_compressions);
    } else {
        impact_chain_result r;
        if ((rc = impact_chain_solve(&f->chain, &r, err)) < 0)
            return rc;
        root = impact_result_json_object(&r.contact);
        json_t *links = json_array();
        for (int i = 0; root && links && i < 2; i++)
            json_array_append_new(links, json_pack("{s:o,s:f,s:o,s:f}", "v", vec_json(r.v[i]), "omega", r.omega[i],
                                                   "energy", pre_post(r.energy_pre[i], r.energy_post[i]),
                                                   "e_energetic", r.e_energetic[i]));
        if (root) {
            json_object_set_new(root, "links", links);
            json_object_set_new(root, "joint_impulse", vec_json(r.joint_impulse));
            json_object_set_new(root, "e_energetic", json_real(r.e_energetic[2]));
        } else {
            json_decref(links);
        }
    }
    *json = impact_json_dump(root);
    if (!*json)
        return icv_err_set(err, ICV_ENOMEM, "impact: out of memory for the result JSON");
    return 0;
}
