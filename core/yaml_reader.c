/* yaml_reader.c: typed access to a libyaml document with error messages that
 * name the file, the line and the key path ("experiment.yaml:14: body.mass:
 * expected a number, got 'heavy'"). Every YAML input of impactcv reads through
 * this, so every bad value is reported the same way. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "core/core.h"

struct icv_yaml {
    yaml_document_t doc;
    char path[ICV_PATH_MAX];
};

int icv_yaml_load(const char *path, icv_yaml **out, icv_ynode *root, icv_err *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return icv_err_set(err, ICV_EIO, "%s: cannot open: %s", path, strerror(errno));
    icv_yaml *y = calloc(1, sizeof *y);
    if (!y) {
        fclose(f);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    snprintf(y->path, sizeof y->path, "%s", path);
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    int ok = yaml_parser_load(&p, &y->doc);
    if (!ok) {
        int rc = icv_err_set(err, ICV_EFORMAT, "%s:%zu: not valid YAML: %s", path, p.problem_mark.line + 1,
                             p.problem ? p.problem : "parse error");
        yaml_parser_delete(&p);
        fclose(f);
        free(y);
        return rc;
    }
    yaml_parser_delete(&p);
    fclose(f);
    yaml_node_t *r = yaml_document_get_root_node(&y->doc);
    if (!r || r->type != YAML_MAPPING_NODE) {
        yaml_document_delete(&y->doc);
        free(y);
        return icv_err_set(err, ICV_EFORMAT, "%s: expected a mapping of keys at the top level", path);
    }
    *out = y;
    root->doc = y;
    root->node = 1; /* libyaml's root node index */
    root->key[0] = '\0';
    return 0;
}

void icv_yaml_free(icv_yaml *y)
{
    if (y) {
        yaml_document_delete(&y->doc);
        free(y);
    }
}

const char *icv_yaml_path(const icv_yaml *y) { return y->path; }

static yaml_node_t *node_of(icv_ynode n)
{
    return n.doc && n.node > 0 ? yaml_document_get_node(&n.doc->doc, n.node) : NULL;
}

int icv_ynode_exists(icv_ynode n) { return node_of(n) != NULL; }
int icv_ynode_is_map(icv_ynode n) { yaml_node_t *y = node_of(n); return y && y->type == YAML_MAPPING_NODE; }
int icv_ynode_is_seq(icv_ynode n) { yaml_node_t *y = node_of(n); return y && y->type == YAML_SEQUENCE_NODE; }
int icv_ynode_is_scalar(icv_ynode n) { yaml_node_t *y = node_of(n); return y && y->type == YAML_SCALAR_NODE; }

int icv_ynode_line(icv_ynode n)
{
    yaml_node_t *y = node_of(n);
    return y ? (int)y->start_mark.line + 1 : 0;
}

size_t icv_ynode_len(icv_ynode n)
{
    yaml_node_t *y = node_of(n);
    if (!y)
        return 0;
    if (y->type == YAML_SEQUENCE_NODE)
        return (size_t)(y->data.sequence.items.top - y->data.sequence.items.start);
    if (y->type == YAML_MAPPING_NODE)
        return (size_t)(y->data.mapping.pairs.top - y->data.mapping.pairs.start);
    return 0;
}

static void child_key(char *out, size_t n, const char *parent, const char *key)
{
    if (parent[0])
        snprintf(out, n, "%s.%s", parent, key);
    else
        snprintf(out, n, "%s", key);
}

icv_ynode icv_ynode_get(icv_ynode map, const char *key)
{
    icv_ynode r = {map.doc, 0, ""};
    child_key(r.key, sizeof r.key, map.key, key);
    yaml_node_t *m = node_of(map);
    if (!m || m->type != YAML_MAPPING_NODE)
        return r;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&map.doc->doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0) {
            r.node = p->value;
            return r;
        }
    }
    return r;
}

icv_ynode icv_ynode_at(icv_ynode seq, size_t i)
{
    icv_ynode r = {seq.doc, 0, ""};
    snprintf(r.key, sizeof r.key, "%s[%zu]", seq.key, i);
    yaml_node_t *s = node_of(seq);
    if (s && s->type == YAML_SEQUENCE_NODE && i < icv_ynode_len(seq))
        r.node = s->data.sequence.items.start[i];
    return r;
}

icv_ynode icv_ynode_pair(icv_ynode map, size_t i, const char **key)
{
    icv_ynode r = {map.doc, 0, ""};
    *key = NULL;
    yaml_node_t *m = node_of(map);
    if (!m || m->type != YAML_MAPPING_NODE || i >= icv_ynode_len(map))
        return r;
    yaml_node_pair_t *p = &m->data.mapping.pairs.start[i];
    yaml_node_t *k = yaml_document_get_node(&map.doc->doc, p->key);
    if (!k || k->type != YAML_SCALAR_NODE)
        return r;
    *key = (const char *)k->data.scalar.value;
    child_key(r.key, sizeof r.key, map.key, *key);
    r.node = p->value;
    return r;
}

const char *icv_ynode_str(icv_ynode n)
{
    yaml_node_t *y = node_of(n);
    return y && y->type == YAML_SCALAR_NODE ? (const char *)y->data.scalar.value : NULL;
}

void icv_ynode_warn_unknown(icv_ynode map, const char *const *known)
{
    for (size_t i = 0; i < icv_ynode_len(map); i++) {
        const char *k;
        icv_ynode v = icv_ynode_pair(map, i, &k);
        int ok = 0;
        for (int j = 0; known[j]; j++)
            ok |= k && !strcmp(k, known[j]);
        if (!ok)
            icv_warn("%s:%d: unknown key '%s' is ignored", icv_yaml_path(map.doc), icv_ynode_line(v), k ? k : "?");
    }
}

int icv_ynode_fail(icv_ynode n, icv_err *err, int code, const char *fmt, ...)
{
    char reason[ICV_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    const char *path = n.doc ? n.doc->path : "?";
    int line = icv_ynode_line(n);
    if (line > 0)
        return icv_err_set(err, code, "%s:%d: %s: %s", path, line, n.key, reason);
    return icv_err_set(err, code, "%s: %s: %s", path, n.key, reason);
}

/* A missing key is reported at its parent's line. */
static int missing(icv_ynode map, icv_ynode n, icv_err *err)
{
    icv_ynode at = n;
    at.node = map.node;
    return icv_ynode_fail(at, err, ICV_EINVAL, "missing (required)");
}

static const char *type_name(icv_ynode n)
{
    return icv_ynode_is_map(n) ? "a mapping" : icv_ynode_is_seq(n) ? "a list" : "a value";
}

int icv_ynode_double(icv_ynode n, double *out, icv_err *err)
{
    const char *s = icv_ynode_str(n);
    if (!s)
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected a number, got %s", type_name(n));
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected a number, got '%s'", s);
    *out = v;
    return 0;
}

int icv_yread_double(icv_ynode map, const char *key, int required, double *out, icv_err *err)
{
    icv_ynode n = icv_ynode_get(map, key);
    if (!icv_ynode_exists(n))
        return required ? missing(map, n, err) : 0;
    return icv_ynode_double(n, out, err);
}

int icv_yread_int(icv_ynode map, const char *key, int required, int *out, icv_err *err)
{
    icv_ynode n = icv_ynode_get(map, key);
    if (!icv_ynode_exists(n))
        return required ? missing(map, n, err) : 0;
    const char *s = icv_ynode_str(n);
    if (!s)
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected a whole number, got %s", type_name(n));
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < -2147483647L || v > 2147483647L)
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected a whole number, got '%s'", s);
    *out = (int)v;
    return 0;
}

int icv_yread_bool(icv_ynode map, const char *key, int required, int *out, icv_err *err)
{
    icv_ynode n = icv_ynode_get(map, key);
    if (!icv_ynode_exists(n))
        return required ? missing(map, n, err) : 0;
    const char *s = icv_ynode_str(n);
    if (s && (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcmp(s, "1")))
        *out = 1;
    else if (s && (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcmp(s, "0")))
        *out = 0;
    else
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected true or false, got %s%s%s", s ? "'" : "",
                              s ? s : type_name(n), s ? "'" : "");
    return 0;
}

int icv_yread_str(icv_ynode map, const char *key, int required, char *out, size_t n, icv_err *err)
{
    icv_ynode y = icv_ynode_get(map, key);
    if (!icv_ynode_exists(y))
        return required ? missing(map, y, err) : 0;
    const char *s = icv_ynode_str(y);
    if (!s)
        return icv_ynode_fail(y, err, ICV_EINVAL, "expected text, got %s", type_name(y));
    if (strlen(s) >= n)
        return icv_ynode_fail(y, err, ICV_EINVAL, "too long (at most %zu characters)", n - 1);
    memcpy(out, s, strlen(s) + 1);
    return 0;
}

int icv_yread_doubles(icv_ynode map, const char *key, int required, double *out, int count, icv_err *err)
{
    icv_ynode n = icv_ynode_get(map, key);
    if (!icv_ynode_exists(n))
        return required ? missing(map, n, err) : 0;
    if (count > 16)
        return icv_ynode_fail(n, err, ICV_EINVAL, "internal: at most 16 numbers per list");
    if (!icv_ynode_is_seq(n) || icv_ynode_len(n) != (size_t)count)
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected a list of %d numbers", count);
    double tmp[16];
    for (int i = 0; i < count && i < 16; i++) {
        int rc = icv_ynode_double(icv_ynode_at(n, (size_t)i), &tmp[i], err);
        if (rc)
            return rc;
    }
    memcpy(out, tmp, (size_t)count * sizeof *out);
    return 0;
}

int icv_yread_vec3(icv_ynode map, const char *key, int required, icv_vec3 *out, icv_err *err)
{
    double a[3];
    icv_ynode n = icv_ynode_get(map, key);
    if (!icv_ynode_exists(n))
        return required ? missing(map, n, err) : 0;
    int rc = icv_yread_doubles(map, key, 1, a, 3, err);
    if (!rc)
        *out = icv_v3_from_array(a);
    return rc;
}

int icv_yread_mat3(icv_ynode map, const char *key, int required, icv_mat3 *out, icv_err *err)
{
    icv_ynode n = icv_ynode_get(map, key);
    if (!icv_ynode_exists(n))
        return required ? missing(map, n, err) : 0;
    if (!icv_ynode_is_seq(n) || icv_ynode_len(n) != 3)
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected a 3x3 matrix [[..],[..],[..]]");
    icv_mat3 m;
    for (size_t i = 0; i < 3; i++) {
        icv_ynode row = icv_ynode_at(n, i);
        if (!icv_ynode_is_seq(row) || icv_ynode_len(row) != 3)
            return icv_ynode_fail(row, err, ICV_EINVAL, "expected a row of 3 numbers");
        for (size_t j = 0; j < 3; j++) {
            int rc = icv_ynode_double(icv_ynode_at(row, j), &m.m[i][j], err);
            if (rc)
                return rc;
        }
    }
    *out = m;
    return 0;
}
