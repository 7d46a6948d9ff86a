/* storage_read.c: OpenCV FileStorage files (YAML, or XML <opencv_storage>) read into
 * a small tree by libyaml or libxml2, for the calibration readers. OpenCV's own
 * parsers are not given a file from outside: fuzz_calib found its YAML parser looping
 * for ever on a damaged file and its XML parser reading through a NUL pointer on
 * another (docs/calib.md). FileStorage still writes our files. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "calib/calib_internal.h"

typedef enum { STORE_SCALAR, STORE_SEQ, STORE_MAP } store_kind;

typedef struct store_node {
    store_kind kind;
    char *name;                /* a mapping entry's key; NULL in a sequence */
    char *text;                /* a scalar's text */
    int quoted;                /* a scalar written in quotes: a string, never a number */
    int n, cap;                /* a sequence's items, a mapping's entries */
    struct store_node *items;
} store_node;

struct calib_store {
    store_node root; /* a mapping */
    long n_nodes;    /* built so far: YAML aliases may repeat a subtree */
};

/* Nodes in one file: aliases repeating aliases grow a tree exponentially from a few
   lines; a calibration file holds a few thousand values */
enum { STORE_MAX_NODES = 1000000 };

static void node_free(store_node *n)
{
    for (int i = 0; i < n->n; i++)
        node_free(&n->items[i]);
    free(n->items);
    free(n->name);
    free(n->text);
}

/* A new child of parent (a sequence or mapping), zeroed; NULL when out of memory or
   past the node limit. */
static store_node *node_add(calib_store *s, store_node *parent, const char *name)
{
    if (++s->n_nodes > STORE_MAX_NODES)
        return NULL;
    if (parent->n == parent->cap) {
        int cap = parent->cap ? 2 * parent->cap : 4;
        store_node *it = realloc(parent->items, sizeof *it * (size_t)cap);
        if (!it)
            return NULL;
        parent->items = it, parent->cap = cap;
    }
    store_node *c = &parent->items[parent->n];
    memset(c, 0, sizeof *c);
    if (name && !(c->name = strdup(name)))
        return NULL;
    parent->n++;
    return c;
}

static int scalar_set(store_node *c, const char *text, size_t len, int quoted)
{
    c->kind = STORE_SCALAR;
    c->quoted = quoted;
    if (!(c->text = malloc(len + 1)))
        return -1;
    memcpy(c->text, text, len);
    c->text[len] = '\0';
    return 0;
}

/* ---- YAML ---------------------------------------------------------------- */

static int from_yaml(calib_store *s, icv_ynode y, store_node *out)
{
    if (icv_ynode_is_scalar(y)) {
        const char *t = icv_ynode_str(y);
        return scalar_set(out, t, strlen(t), icv_ynode_quoted(y));
    }
    int is_map = icv_ynode_is_map(y);
    out->kind = is_map ? STORE_MAP : STORE_SEQ;
    for (size_t i = 0; i < icv_ynode_len(y); i++) {
        const char *key = NULL;
        icv_ynode v = is_map ? icv_ynode_pair(y, i, &key) : icv_ynode_at(y, i);
        if (is_map && !key)
            continue; /* a key that is not a scalar: nothing reads it */
        store_node *c = node_add(s, out, key);
        if (!c || from_yaml(s, v, c))
            return -1;
    }
    return 0;
}

/* ---- XML (OpenCV's: values as text, a sequence's values separated by blanks,
 *      strings with blanks in quotes, nested sequence items as <_>) ---------- */

/* The element's text (its text and CDATA children; entity references are not
   expanded) as scalars: one value a scalar, several or none a sequence (an empty
   string is written "") */
static int xml_text_values(calib_store *s, const xmlNode *e, store_node *out)
{
    size_t len = 0;
    for (const xmlNode *c = e->children; c; c = c->next)
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content)
            len += strlen((const char *)c->content);
    char *text = malloc(len + 1), *p = text;
    if (!text)
        return -1;
    for (const xmlNode *c = e->children; c; c = c->next)
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
            size_t k = strlen((const char *)c->content);
            memcpy(p, c->content, k);
            p += k;
        }
    *p = '\0';
    store_node seq = {0};
    seq.kind = STORE_SEQ;
    int rc = 0;
    for (const char *q = text; *q && !rc;) {
        if (isspace((unsigned char)*q)) {
            q++;
            continue;
        }
        const char *a = q, *b;
        int quoted = *q == '"';
        if (quoted) {
            a = ++q;
            while (*q && *q != '"')
                q++;
            b = q;
            if (*q)
                q++;
        } else {
            while (*q && !isspace((unsigned char)*q))
                q++;
            b = q;
        }
        store_node *c = node_add(s, &seq, NULL);
        rc = !c || scalar_set(c, a, (size_t)(b - a), quoted);
    }
    free(text);
    if (rc) {
        node_free(&seq);
        return -1;
    }
    if (seq.n == 1) { /* one value: the scalar itself */
        store_node one = seq.items[0];
        free(seq.items);
        one.name = out->name;
        *out = one;
        return 0;
    }
    seq.name = out->name;
    *out = seq;
    return 0;
}

static int from_xml(calib_store *s, const xmlNode *e, store_node *out)
{
    int n_elem = 0, all_items = 1;
    for (const xmlNode *c = e->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) {
            n_elem++;
            all_items &= !strcmp((const char *)c->name, "_");
        }
    if (n_elem == 0)
        return xml_text_values(s, e, out);
    out->kind = all_items ? STORE_SEQ : STORE_MAP;
    for (const xmlNode *c = e->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        store_node *k = node_add(s, out, all_items ? NULL : (const char *)c->name);
        if (!k || from_xml(s, c, k))
            return -1;
    }
    return 0;
}

static int open_xml(calib_store *s, const char *text, size_t n, const char *path, icv_err *err)
{
    if (n > INT_MAX)
        return icv_err_set(err, ICV_EFORMAT, "%s: too large for an XML file", path);
    xmlInitParser();
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    /* no network, no messages on stderr (the library never prints) */
    xmlDocPtr doc = xmlCtxtReadMemory(ctx, text, (int)n, path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                                                         XML_PARSE_NOWARNING);
    int rc = 0;
    if (!doc) {
        const xmlError *e = xmlCtxtGetLastError(ctx);
        char why[160] = "not well-formed";
        if (e && e->message) {
            snprintf(why, sizeof why, "%s", e->message);
            size_t k = strlen(why);
            while (k > 0 && isspace((unsigned char)why[k - 1]))
                why[--k] = '\0';
        }
        rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: not valid XML: %s", path, e ? e->line : 0, why);
    } else if (doc->intSubset) {
        /* a DTD's entities are how an XML file grows without bound when read */
        rc = icv_err_set(err, ICV_EFORMAT, "%s: an XML calibration file with a DTD (<!DOCTYPE>) is not read", path);
    } else {
        const xmlNode *r = xmlDocGetRootElement(doc);
        if (!r || strcmp((const char *)r->name, "opencv_storage"))
            rc = icv_err_set(err, ICV_EFORMAT, "%s: XML whose root is <%s>, not OpenCV's <opencv_storage>", path,
                             r ? (const char *)r->name : "nothing");
        else if (from_xml(s, r, &s->root))
            rc = s->n_nodes > STORE_MAX_NODES
                     ? icv_err_set(err, ICV_EFORMAT, "%s: more than %d values", path, STORE_MAX_NODES)
                     : icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
        else if (s->root.kind != STORE_MAP)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: <opencv_storage> holds no named values", path);
    }
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctx);
    return rc;
}

static char libxml2_version[24];

static void libxml2_version_format(void)
{
    int n = atoi(xmlParserVersion); /* "20914" */
    snprintf(libxml2_version, sizeof libxml2_version, "%d.%d.%d", n / 10000, n / 100 % 100, n % 100);
}

const char *calib_libxml2_version(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, libxml2_version_format);
    return libxml2_version;
}

int calib_store_open(const char *text, size_t n, const char *path, calib_store **out, icv_err *err)
{
    *out = NULL;
    if (memchr(text, '\0', n))
        return icv_err_set(err, ICV_EFORMAT, "%s: holds a NUL byte: not a text file", path);
    size_t k = icv_text_blank_prefix(text, n);
    if (k == n)
        return icv_err_set(err, ICV_EFORMAT, "%s: empty file", path);
    calib_store *s = calloc(1, sizeof *s);
    if (!s)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    s->root.kind = STORE_MAP;
    int rc;
    if (text[k] == '<') {
        rc = open_xml(s, text, n, path, err);
    } else {
        icv_yaml *doc;
        icv_ynode root;
        rc = icv_yaml_load_text(text, n, path, &doc, &root, err);
        if (!rc) {
            if (from_yaml(s, root, &s->root))
                rc = s->n_nodes > STORE_MAX_NODES
                         ? icv_err_set(err, ICV_EFORMAT, "%s: more than %d values (aliases repeating aliases?)",
                                       path, STORE_MAX_NODES)
                         : icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
            icv_yaml_free(doc);
        }
    }
    if (rc) {
        calib_store_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

void calib_store_close(calib_store *s)
{
    if (s) {
        node_free(&s->root);
        free(s);
    }
}

/* ---- typed reads --------------------------------------------------------- */

static const store_node *entry(const calib_store *s, const char *name)
{
    for (int i = 0; i < s->root.n; i++)
        if (s->root.items[i].name && !strcmp(s->root.items[i].name, name)) {
            const store_node *e = &s->root.items[i];
            /* YAML's empty value or null: absent, as FileStorage reads it */
            if (e->kind == STORE_SCALAR && !e->quoted &&
                (!e->text[0] || !strcmp(e->text, "~") || !strcmp(e->text, "null")))
                return NULL;
            return e;
        }
    return NULL;
}

static const store_node *child(const store_node *m, const char *name)
{
    if (m->kind != STORE_MAP)
        return NULL;
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->items[i].name, name))
            return &m->items[i];
    return NULL;
}

/* A scalar that is a number (OpenCV writes .Nan, .Inf, -.Inf): 1 and *v, else 0. */
static int number(const store_node *n, double *v)
{
    if (!n || n->kind != STORE_SCALAR || n->quoted || !n->text[0])
        return 0;
    const char *t = n->text;
    int neg = *t == '-';
    const char *u = t + (neg || *t == '+');
    if (!strcasecmp(u, ".nan") || !strcasecmp(u, ".inf")) {
        *v = u[1] == 'n' || u[1] == 'N' ? NAN : neg ? -INFINITY : INFINITY;
        return 1;
    }
    char *end;
    *v = strtod(t, &end);
    return end != t && *end == '\0';
}

/* A whole number in [1, INT_MAX]: 1 and *v, else 0. */
static int count(const store_node *n, long long *v)
{
    double d;
    if (!number(n, &d) || !(d >= 1 && d <= INT_MAX) || d != floor(d))
        return 0;
    *v = (long long)d;
    return 1;
}

/* The values of a sequence of numbers, the first max into data: its length, or -1
   when an item is not a number. */
static long numbers(const store_node *seq, double *data, int max)
{
    for (int i = 0; i < seq->n; i++) {
        double v;
        if (!number(&seq->items[i], &v))
            return -1;
        if (i < max)
            data[i] = v;
    }
    return seq->n;
}

int calib_store_mat(const calib_store *s, const char *name, int *rows, int *cols, double *data, int max)
{
    const store_node *n = entry(s, name);
    if (!n)
        return -1;
    if (n->kind == STORE_SEQ) { /* [a, b, ...]: a column */
        long have = numbers(n, data, max);
        if (have < 1)
            return -2;
        *rows = (int)have, *cols = 1;
        return 0;
    }
    const store_node *d = child(n, "data");
    if (!d || d->kind != STORE_SEQ)
        return -2; /* OpenCV's base64 data (a string) is not read */
    long have = numbers(d, data, max);
    if (have < 1)
        return -2;
    long long r = 0, c = 0;
    int has_r = count(child(n, "rows"), &r), has_c = count(child(n, "cols"), &c);
    if (!child(n, "dt")) { /* ROS's {rows, cols, data}: rows and cols may be left out */
        r = has_r ? r : have;
        c = has_c ? c : 1;
        if (r * c != have)
            return -2;
        *rows = (int)r, *cols = (int)c;
        return 0;
    }
    /* !!opencv-matrix: rows x cols elements of 1 to 4 channels, read as
       rows x (cols * channels) */
    if (!has_r || !has_c || have % (r * c) != 0 || have / (r * c) > 4)
        return -2;
    *rows = (int)r, *cols = (int)(have / r);
    return 0;
}

int calib_store_real(const calib_store *s, const char *name, double *v)
{
    const store_node *n = entry(s, name);
    if (!n)
        return -1;
    return number(n, v) ? 0 : -2;
}

static int is_string(const store_node *n)
{
    double v;
    return n->kind == STORE_SCALAR && !number(n, &v);
}

int calib_store_str(const calib_store *s, const char *name, char *buf, size_t n)
{
    const store_node *e = entry(s, name);
    if (!e)
        return -1;
    if (!is_string(e))
        return -2;
    snprintf(buf, n, "%s", e->text);
    return 0;
}

int calib_store_strs(const calib_store *s, const char *name, char *buf, size_t each, int max, int *n_out)
{
    *n_out = 0;
    const store_node *e = entry(s, name);
    if (!e)
        return -1;
    /* one string alone: a sequence of one (OpenCV's XML writes it so) */
    const store_node *items = e->kind == STORE_SCALAR ? e : e->items;
    int n = e->kind == STORE_SCALAR ? 1 : e->n;
    if (e->kind == STORE_MAP)
        return -2;
    for (int i = 0; i < n; i++) {
        if (!is_string(&items[i]))
            return -2;
        if (i < max)
            snprintf(buf + (size_t)i * each, each, "%s", items[i].text);
    }
    *n_out = n;
    return 0;
}
