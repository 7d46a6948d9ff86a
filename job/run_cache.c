/* run_cache.c: the manifest of `impactcv run`'s stage cache, DIR/.impactcv/manifest.json
 * (schema impactcv-run-cache-1: per stage its key, the wall time of the run that made
 * it, and the digest of every file it wrote), and the file operations the cache needs:
 * listing a folder, checking files against their digests, linking them into a new run's
 * folder. docs/report.md, "The stage cache". */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job/job_internal.h"

#define SCHEMA "impactcv-run-cache-1"

static int manifest_path(const char *dir, char *out, icv_err *err)
{
    char sub[ICV_PATH_MAX];
    int rc = icv_path_join(sub, sizeof sub, dir, JOB_CACHE_DIR, err);
    return rc ? rc : icv_path_join(out, ICV_PATH_MAX, sub, "manifest.json", err);
}

void job_cache_stage_clear(job_cache_stage *s)
{
    for (int i = 0; i < s->n_files; i++)
        free(s->files[i].rel);
    free(s->files);
    memset(s, 0, sizeof *s);
}

void job_cache_free(job_cache_manifest *m)
{
    for (int s = 0; s < JOB_N_STAGES; s++)
        job_cache_stage_clear(&m->stage[s]);
}

static int add_file(job_cache_stage *s, const char *rel, const char *digest, icv_err *err)
{
    job_cache_file *f = realloc(s->files, (size_t)(s->n_files + 1) * sizeof *f);
    if (!f)
        return icv_err_set(err, ICV_ENOMEM, "cache: out of memory");
    s->files = f;
    f[s->n_files].rel = strdup(rel);
    if (!f[s->n_files].rel)
        return icv_err_set(err, ICV_ENOMEM, "cache: out of memory");
    snprintf(f[s->n_files].digest, JOB_DIGEST_HEX, "%s", digest);
    s->n_files++;
    return 0;
}

int job_cache_stage_copy(job_cache_stage *dst, const job_cache_stage *src, icv_err *err)
{
    job_cache_stage_clear(dst);
    dst->present = src->present;
    dst->seconds = src->seconds;
    snprintf(dst->key, sizeof dst->key, "%s", src->key);
    for (int i = 0; i < src->n_files; i++) {
        int rc = add_file(dst, src->files[i].rel, src->files[i].digest, err);
        if (rc)
            return rc;
    }
    return 0;
}

const char *job_cache_digest_of(const job_cache_stage *s, const char *rel)
{
    for (int i = 0; i < s->n_files; i++)
        if (!strcmp(s->files[i].rel, rel))
            return s->files[i].digest;
    return NULL;
}

int job_cache_read(const char *dir, job_cache_manifest *m, icv_err *err)
{
    memset(m, 0, sizeof *m);
    char path[ICV_PATH_MAX];
    if (manifest_path(dir, path, NULL) || !icv_file_exists(path))
        return 0;
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    const char *schema = json_string_value(json_object_get(root, "schema"));
    if (!schema || strcmp(schema, SCHEMA)) {
        icv_debug("%s: not a %s manifest (%s): every stage runs", path, SCHEMA, root ? "schema" : je.text);
        json_decref(root);
        return 0;
    }
    json_t *stages = json_object_get(root, "stages");
    for (int s = 0; s < JOB_N_STAGES; s++) {
        json_t *st = json_object_get(stages, job_stage_name(s));
        const char *key = json_string_value(json_object_get(st, "key"));
        json_t *files = json_object_get(st, "files");
        if (!key || !json_is_object(files))
            continue;
        job_cache_stage *cs = &m->stage[s];
        snprintf(cs->key, sizeof cs->key, "%s", key);
        cs->seconds = json_number_value(json_object_get(st, "seconds"));
        const char *rel;
        json_t *d;
        json_object_foreach(files, rel, d)
        {
            if (json_is_string(d) && add_file(cs, rel, json_string_value(d), err)) {
                json_decref(root);
                job_cache_free(m);
                return ICV_ENOMEM;
            }
        }
        cs->present = 1;
    }
    json_decref(root);
    return 0;
}

int job_cache_write(const char *dir, const job_cache_manifest *m, icv_err *err)
{
    char path[ICV_PATH_MAX], sub[ICV_PATH_MAX];
    int rc = manifest_path(dir, path, err);
    if (rc)
        return rc;
    icv_path_dirname(sub, sizeof sub, path);
    if ((rc = icv_mkdirs(sub, err)))
        return rc;
    json_t *stages = json_object();
    for (int s = 0; s < JOB_N_STAGES; s++) {
        const job_cache_stage *cs = &m->stage[s];
        if (!cs->present)
            continue;
        json_t *files = json_object();
        for (int i = 0; i < cs->n_files; i++)
            json_object_set_new(files, cs->files[i].rel, json_string(cs->files[i].digest));
        json_object_set_new(stages, job_stage_name(s),
                            json_pack("{s:s, s:f, s:o}", "key", cs->key, "seconds", cs->seconds, "files", files));
    }
    json_t *root = json_pack("{s:s, s:s, s:o}", "schema", SCHEMA, "digest", "sha256", "stages", stages);
    char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!text)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    rc = icv_atomic_write(path, text, strlen(text), err);
    free(text);
    return rc;
}

/* ---- files ------------------------------------------------------------- */

typedef struct {
    char **v;
    size_t n, cap;
} str_list;

static int list_push(str_list *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    return (l->v[l->n] = strdup(s)) ? (int)(l->n++, 0) : -1;
}

static int list_dir(const char *root, const char *rel, str_list *l, icv_err *err)
{
    char path[ICV_PATH_MAX];
    if (snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel) >= (int)sizeof path)
        return icv_err_set(err, ICV_EINVAL, "%s/%s: path too long", root, rel);
    DIR *d = opendir(path);
    if (!d)
        return icv_err_set(err, ICV_EIO, "%s: cannot list: %s", path, strerror(errno));
    struct dirent *de;
    int rc = 0;
    while (!rc && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char sub[ICV_PATH_MAX], full[ICV_PATH_MAX];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            rc = list_dir(root, sub, l, err);
        else if (S_ISREG(st.st_mode) && strcmp(sub, JOB_CACHE_DIR "/manifest.json") && list_push(l, sub))
            rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", root);
    }
    closedir(d);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int job_cache_list(const char *dir, char ***rel, size_t *n, icv_err *err)
{
    str_list l = {0};
    int rc = list_dir(dir, "", &l, err);
    if (rc) {
        icv_paths_free(l.v, l.n);
        return rc;
    }
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_str);
    *rel = l.v;
    *n = l.n;
    return 0;
}

int job_cache_verify(const char *dir, const job_cache_stage *s)
{
    for (int i = 0; i < s->n_files; i++) {
        char path[ICV_PATH_MAX], d[JOB_DIGEST_HEX];
        if (icv_path_join(path, sizeof path, dir, s->files[i].rel, NULL) || job_file_digest(path, d, NULL) ||
            strcmp(d, s->files[i].digest)) {
            icv_debug("%s: changed or missing since the run that wrote it", path);
            return 0;
        }
    }
    return 1;
}


static int copy_file(const char *from, const char *to, icv_err *err)
{
    char *buf;
    size_t len;
    int rc = icv_file_read(from, 0, &buf, &len, err);
    if (!rc)
        rc = icv_atomic_write(to, buf, len, err);
    free(buf);
    return rc;
}

int job_cache_link(const char *src, const char *dst, const job_cache_stage *s, icv_err *err)
{
    for (int i = 0; i < s->n_files; i++) {
        char from[ICV_PATH_MAX], to[ICV_PATH_MAX], parent[ICV_PATH_MAX];
        int rc = icv_path_join(from, sizeof from, src, s->files[i].rel, err);
        if (!rc)
            rc = icv_path_join(to, sizeof to, dst, s->files[i].rel, err);
        if (!rc) {
            icv_path_dirname(parent, sizeof parent, to);
            rc = icv_mkdirs(parent, err);
        }
        if (!rc && link(from, to) != 0)
            rc = copy_file(from, to, err);
        if (rc)
            return rc;
    }
    return 0;
}

int job_cache_record_new(const char *dir, char *const *before, size_t n_before, job_cache_stage *s,
                            icv_err *err)
{
    char **now;
    size_t n;
    int rc = job_cache_list(dir, &now, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        if (n_before && bsearch(&now[i], before, n_before, sizeof *before, cmp_str))
            continue;
        char path[ICV_PATH_MAX], d[JOB_DIGEST_HEX];
        if (!(rc = icv_path_join(path, sizeof path, dir, now[i], err)) && !(rc = job_file_digest(path, d, err)))
            rc = add_file(s, now[i], d, err);
    }
    icv_paths_free(now, n);
    return rc;
}
