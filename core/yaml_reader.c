/* yaml_reader.c: typed access to a libyaml document with error messages that
 * name the file, the line and the key path ("experiment.yaml:14: body.mass:
 * expected a number, got 'heavy'"). Every YAML input of impactcv reads through
 * this, so every bad value is reported the same way. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <yaml.h>

#include "core/core.h"

struct icv_yaml {
    yaml_document_t doc;
    char path[ICV_PATH_MAX];
};

/* The document's shape before libyaml builds it (its loader is quadratic in the
 * nesting depth: 50,000 nested maps took 37 s): one streaming pass over the events
 * checks the depth, each sequence's and mapping's length and that the file holds
 * one document. */
typedef struct {
    int is_map, want_key; /* a mapping: the next item is a key */
    size_t n;             /* entries so far */
    char key[48];         /* a mapping's current key */
} shape_level;

/* the key path to the item being read ("body.markers[3]"), for messages */
static void shape_path(const shape_level *lv, int depth, char *out, size_t n)
{
    size_t k = 0;
    out[0] = 0;
    for (int d = 1; d <= depth && k + 1 < n; d++) {
        if (lv[d].is_map)
            k += (size_t)snprintf(out + k, n - k, "%s%s", k ? "." : "", lv[d].key);
        else
            k += (size_t)snprintf(out + k, n - k, "[%zu]", lv[d].n ? lv[d].n - 1 : 0);
    }
    if (!out[0])
        snprintf(out, n, "(top level)");
}

/* p: a parser given its input; deleted here */
static int shape_check(yaml_parser_t *p, const char *path, icv_err *err)
{
    shape_level lv[ICV_YAML_MAX_DEPTH + 2];
    int depth = 0, docs = 0, rc = 0;
    char where[192];
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(p, &ev)) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%zu: not valid YAML: %s", path, p->problem_mark.line + 1,
                             p->problem ? p->problem : "parse error");
            break;
        }
        size_t line = ev.start_mark.line + 1;
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (t == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
            yaml_event_delete(&ev);
            rc = icv_err_set(err, ICV_EFORMAT,
                             "%s:%zu: a second YAML document ('---'): one document per file, the rest would be ignored",
                             path, line);
            break;
        }
        int item = t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT || t == YAML_SEQUENCE_START_EVENT ||
                   t == YAML_MAPPING_START_EVENT;
        if (item && depth > 0) {
            shape_level *L = &lv[depth];
            if (L->is_map && L->want_key) {
                const char *k = t == YAML_SCALAR_EVENT ? (const char *)ev.data.scalar.value : "?";
                char shown[96];
                snprintf(L->key, sizeof L->key, "%s", icv_printable(k, 40, shown, sizeof shown));
                L->n++;
            } else if (!L->is_map) {
                L->n++;
            }
            if (L->is_map)
                L->want_key = !L->want_key;
            if (L->n > (size_t)ICV_YAML_MAX_ITEMS) {
                yaml_event_delete(&ev);
                shape_path(lv, depth - 1, where, sizeof where);
                rc = icv_err_set(err, ICV_EFORMAT, "%s:%zu: %s: more than the limit of %d entries in one %s", path,
                                 line, where, ICV_YAML_MAX_ITEMS, L->is_map ? "mapping" : "list");
                break;
            }
        }
        yaml_event_delete(&ev);
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
            if (depth + 1 > ICV_YAML_MAX_DEPTH) {
                shape_path(lv, depth, where, sizeof where);
                rc = icv_err_set(err, ICV_EFORMAT, "%s:%zu: %s: nested deeper than the limit of %d levels", path, line,
                                 where, ICV_YAML_MAX_DEPTH);
                break;
            }
            depth++;
            lv[depth] = (shape_level){t == YAML_MAPPING_START_EVENT, 1, 0, ""};
        } else if ((t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) && depth > 0) {
            depth--;
        }
    }
    yaml_parser_delete(p);
    return rc;
}

size_t icv_text_blank_prefix(const char *text, size_t n)
{
    size_t k = 0;
    while (k < n && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r' || text[k] == '\n'))
        k++;
    return k;
}

/* OpenCV's directive "%YAML:1.0" blanked (libyaml reads YAML 1.1 and refuses a 1.0
 * directive; the two agree on what OpenCV writes): text itself, or a blanked copy
 * left in *copy for the caller to free; NULL when out of memory. */
static const char *opencv_directive_blanked(const char *text, size_t n, char **copy)
{
    *copy = NULL;
    size_t k = icv_text_blank_prefix(text, n);
    if (n - k < 6 || memcmp(text + k, "%YAML:", 6))
        return text;
    if (!(*copy = malloc(n)))
        return NULL;
    memcpy(*copy, text, n);
    for (size_t i = k; i < n && (*copy)[i] != '\n' && (*copy)[i] != '\r'; i++)
        (*copy)[i] = ' ';
    return *copy;
}

/* The shape check of text and, with out, the document loaded from it (declared
 * below: it needs the duplicate check). */
static int text_read(const char *text, size_t n, const char *path, icv_yaml **out, icv_ynode *root,
                     icv_err *err);

int icv_yaml_check_text(const char *text, size_t n, const char *path, icv_err *err)
{
    return text_read(text, n, path, NULL, NULL, err);
}

static int cmp_key(const void *a, const void *b)
{
    const yaml_node_t *x = *(const yaml_node_t *const *)a, *y = *(const yaml_node_t *const *)b;
    int c = strcmp((const char *)x->data.scalar.value, (const char *)y->data.scalar.value);
    return c ? c : (x->start_mark.index > y->start_mark.index) - (x->start_mark.index < y->start_mark.index);
}

/* Duplicate keys in any mapping (libyaml keeps both; the first would win
 * silently). Every node is visited once, in the document's node table (aliases
 * add no nodes). */
static int duplicate_check(yaml_document_t *doc, const char *path, icv_err *err)
{
    for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++) {
        if (n->type != YAML_MAPPING_NODE)
            continue;
        size_t m = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
        if (m < 2)
            continue;
        yaml_node_t **keys = malloc(m * sizeof *keys);
        if (!keys)
            return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
        size_t k = 0;
        for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
            yaml_node_t *kn = yaml_document_get_node(doc, pr->key);
            if (kn && kn->type == YAML_SCALAR_NODE)
                keys[k++] = kn;
        }
        qsort(keys, k, sizeof *keys, cmp_key);
        for (size_t i = 1; i < k; i++)
            if (!strcmp((const char *)keys[i]->data.scalar.value, (const char *)keys[i - 1]->data.scalar.value)) {
                char shown[96];
                int rc = icv_err_set(err, ICV_EINVAL, "%s:%zu: duplicate key '%s' (first at line %zu)", path,
                                     keys[i]->start_mark.line + 1,
                                     icv_printable((const char *)keys[i]->data.scalar.value, 40, shown, sizeof shown),
                                     keys[i - 1]->start_mark.line + 1);
                free(keys);
                return rc;
            }
        free(keys);
    }
    return 0;
}

/* The document from a parser set to its input (shape checked), its root a mapping
 * and no key twice in a mapping; deletes the parser. */
static int document_load(yaml_parser_t *p, const char *path, icv_yaml **out, icv_ynode *root, icv_err *err)
{
    icv_yaml *y = calloc(1, sizeof *y);
    if (!y) {
        yaml_parser_delete(p);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    snprintf(y->path, sizeof y->path, "%s", path);
    int rc = 0;
    if (!yaml_parser_load(p, &y->doc)) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s:%zu: not valid YAML: %s", path, p->problem_mark.line + 1,
                         p->problem ? p->problem : "parse error");
        yaml_parser_delete(p);
        free(y);
        return rc;
    }
    yaml_parser_delete(p);
    yaml_node_t *r = yaml_document_get_root_node(&y->doc);
    if (!r || r->type != YAML_MAPPING_NODE)
        rc = icv_err_set(err, ICV_EFORMAT, "%s: expected a mapping of keys at the top level", path);
    if (!rc)
        rc = duplicate_check(&y->doc, path, err);
    if (rc) {
        yaml_document_delete(&y->doc);
        free(y);
        return rc;
    }
    *out = y;
    root->doc = y;
    root->node = 1; /* libyaml's root node index */
    root->key[0] = '\0';
    return 0;
}

int icv_yaml_load(const char *path, icv_yaml **out, icv_ynode *root, icv_err *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return icv_err_set(err, ICV_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > ICV_YAML_MAX_BYTES) {
        fclose(f);
        return icv_err_set(err, ICV_EFORMAT, "%s: %lld bytes, above the limit of %d bytes for a YAML file", path,
                           (long long)st.st_size, ICV_YAML_MAX_BYTES);
    }
    yaml_parser_t shape;
    yaml_parser_initialize(&shape);
    yaml_parser_set_input_file(&shape, f);
    int rc = shape_check(&shape, path, err);
    if (!rc && fseek(f, 0, SEEK_SET) != 0)
        rc = icv_err_set(err, ICV_EIO, "%s: cannot read it twice: %s", path, strerror(errno));
    if (rc) {
        fclose(f);
        return rc;
    }
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    rc = document_load(&p, path, out, root, err);
    fclose(f);
    return rc;
}

static int text_read(const char *text, size_t n, const char *path, icv_yaml **out, icv_ynode *root,
                     icv_err *err)
{
    if (n > (size_t)ICV_YAML_MAX_BYTES)
        return icv_err_set(err, ICV_EFORMAT, "%s: %zu bytes, above the limit of %d bytes for a YAML file", path, n,
                           ICV_YAML_MAX_BYTES);
    char *copy;
    const char *t = opencv_directive_blanked(text, n, &copy);
    if (!t)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)t, n);
    int rc = shape_check(&p, path, err);
    if (!rc && out) {
        yaml_parser_initialize(&p);
        yaml_parser_set_input_string(&p, (const unsigned char *)t, n);
        rc = document_load(&p, path, out, root, err);
    }
    free(copy);
    return rc;
}

int icv_yaml_load_text(const char *text, size_t n, const char *path, icv_yaml **out, icv_ynode *root, icv_err *err)
{
    *out = NULL;
    return text_read(text, n, path, out, root, err);
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

int icv_ynode_quoted(icv_ynode n)
{
    yaml_node_t *y = node_of(n);
    return y && y->type == YAML_SCALAR_NODE && y->data.scalar.style != YAML_PLAIN_SCALAR_STYLE &&
           y->data.scalar.style != YAML_ANY_SCALAR_STYLE;
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
    if (strpbrk(s, "xXpP")) /* strtod reads C's hexadecimal floats; YAML's numbers are decimal */
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected a decimal number, got '%s' (hexadecimal is not read)", s);
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
