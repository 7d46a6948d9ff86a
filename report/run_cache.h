/* run_cache.h: the stage cache of `impactcv run` (private to report/): content
 * digests (content_hash.c) and the manifest DIR/.impactcv/manifest.json that records,
 * per stage, the key it ran with and the digest of every file it wrote
 * (run_cache.c). How the stages use them: run.c and docs/report.md. */
#ifndef ICV_REPORT_RUN_CACHE_H
#define ICV_REPORT_RUN_CACHE_H

#include "report/report.h"

/* The run's own folder inside DIR: the manifest and the analysis's binary results. */
#define REPORT_CACHE_DIR ".impactcv"

/* ---- digests (content_hash.c) ------------------------------------------ */

#define REPORT_DIGEST_HEX 65 /* SHA-256 as 64 hex digits and a NUL */

typedef struct report_hash report_hash;

int report_hash_begin(report_hash **h, icv_err *err);
/* Finishes: hex gets the digest; h is freed. */
void report_hash_end(report_hash *h, char hex[REPORT_DIGEST_HEX]);
void report_hash_free(report_hash *h);
void report_hash_str(report_hash *h, const char *s);
void report_hash_bytes(report_hash *h, const void *data, size_t n);
void report_hash_double(report_hash *h, double x);
void report_hash_int(report_hash *h, long x);
/* A file's bytes (and its length). */
int report_hash_file(report_hash *h, const char *path, icv_err *err);
/* A YAML subtree: scalars' text, sequences and mappings (keys in document order);
 * comments and layout do not count. An absent node hashes as absent. */
void report_hash_yaml(report_hash *h, icv_ynode n);
/* The digest of one file's bytes. */
int report_file_digest(const char *path, char hex[REPORT_DIGEST_HEX], icv_err *err);

/* ---- the manifest (run_cache.c) ---------------------------------------- */

typedef struct {
    char *rel;                        /* path relative to DIR, malloc'd */
    char digest[REPORT_DIGEST_HEX];
} report_cache_file;

typedef struct {
    int present;                      /* 0: no record (never ran, or failed) */
    char key[REPORT_DIGEST_HEX];      /* digest of everything the stage read */
    double seconds;                   /* s, wall time of the run that made the files */
    int n_files;
    report_cache_file *files;         /* the files the stage wrote, malloc'd */
} report_cache_stage;

typedef struct {
    report_cache_stage stage[REPORT_N_STAGES];
} report_cache_manifest;

/* Reads DIR/.impactcv/manifest.json. An absent or unreadable manifest is an empty one
 * (every stage runs), not an error: only out of memory fails. */
int report_cache_read(const char *dir, report_cache_manifest *m, icv_err *err);
/* Writes DIR/.impactcv/manifest.json atomically. */
int report_cache_write(const char *dir, const report_cache_manifest *m, icv_err *err);
void report_cache_free(report_cache_manifest *m);
void report_cache_stage_clear(report_cache_stage *s);
int report_cache_stage_copy(report_cache_stage *dst, const report_cache_stage *src, icv_err *err);
/* The digest recorded for file rel of stage s, or NULL. */
const char *report_cache_digest_of(const report_cache_stage *s, const char *rel);

/* Every regular file under dir, as sorted paths relative to it (*rel malloc'd, free
 * with icv_paths_free); the manifest itself is left out. */
int report_cache_list(const char *dir, char ***rel, size_t *n, icv_err *err);
/* 1 when every file of s is in dir with the digest recorded. */
int report_cache_verify(const char *dir, const report_cache_stage *s);
/* Hard-links every file of s from folder src into folder dst (a copy where the file
 * system has no hard links). The run's writers replace files by renaming, never in
 * place, so a link never lets a new run change the previous results. */
int report_cache_link(const char *src, const char *dst, const report_cache_stage *s, icv_err *err);
/* A whole file into *data (malloc'd, caller frees; NUL-terminated, not counted in
 * *len). */
int report_file_read(const char *path, char **data, size_t *len, icv_err *err);
/* Records in s the files now in dir that were not in before[] (sorted, n_before),
 * with their digests: what the stage that just ran wrote. */
int report_cache_record_new(const char *dir, char *const *before, size_t n_before, report_cache_stage *s,
                            icv_err *err);

#endif
