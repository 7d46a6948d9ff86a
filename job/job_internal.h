/* job_internal.h: what job/'s files share (private to job/). The stage cache of
 * `impactcv run`: content
 * digests (content_hash.c) and the manifest DIR/.impactcv/manifest.json that records,
 * per stage, the key it ran with and the digest of every file it wrote
 * (run_cache.c). How the stages use them: run.c and docs/report.md. */
#ifndef ICV_JOB_INTERNAL_H
#define ICV_JOB_INTERNAL_H

#include "job/job.h"

/* The run's own folder inside DIR: the manifest and the analysis's binary results. */
#define JOB_CACHE_DIR ".impactcv"
/* In JOB_CACHE_DIR: report.html of several bodies as the analyze stage of a run made
 * it; the report stage shows the overlays in it (job_report_bodies_write). */
#define JOB_BODIES_PAGE "bodies_report.html"

/* DIR/report.html of a run of several bodies: DIR/.impactcv/JOB_BODIES_PAGE with
 * DIR/overlays/'s images (report_bodies_page_add_overlays). */
int job_report_bodies_write(const char *dir, const icv_experiment *exp, icv_err *err);

/* ---- digests (content_hash.c) ------------------------------------------ */

#define JOB_DIGEST_HEX 65 /* SHA-256 as 64 hex digits and a NUL */

typedef struct job_hash job_hash;

int job_hash_begin(job_hash **h, icv_err *err);
/* Finishes: hex gets the digest; h is freed. */
void job_hash_end(job_hash *h, char hex[JOB_DIGEST_HEX]);
void job_hash_free(job_hash *h);
void job_hash_str(job_hash *h, const char *s);
void job_hash_bytes(job_hash *h, const void *data, size_t n);
void job_hash_double(job_hash *h, double x);
void job_hash_int(job_hash *h, long x);
/* A file's bytes (and its length). */
int job_hash_file(job_hash *h, const char *path, icv_err *err);
/* The parts of the parsed experiment the stage JOB_STAGE_* reads (experiment_digest.c;
 * docs/report.md's table). */
void job_hash_experiment(job_hash *h, const icv_experiment *e, int stage);
/* The digest of one file's bytes. */
int job_file_digest(const char *path, char hex[JOB_DIGEST_HEX], icv_err *err);

/* ---- the manifest (run_cache.c) ---------------------------------------- */

typedef struct {
    char *rel;                        /* path relative to DIR, malloc'd */
    char digest[JOB_DIGEST_HEX];
} job_cache_file;

typedef struct {
    int present;                      /* 0: no record (never ran, or failed) */
    char key[JOB_DIGEST_HEX];      /* digest of everything the stage read */
    double seconds;                   /* s, wall time of the run that made the files */
    int n_files;
    job_cache_file *files;         /* the files the stage wrote, malloc'd */
} job_cache_stage;

typedef struct {
    job_cache_stage stage[JOB_N_STAGES];
} job_cache_manifest;

/* Reads DIR/.impactcv/manifest.json. An absent or unreadable manifest is an empty one
 * (every stage runs), not an error: only out of memory fails. */
int job_cache_read(const char *dir, job_cache_manifest *m, icv_err *err);
/* Writes DIR/.impactcv/manifest.json atomically. */
int job_cache_write(const char *dir, const job_cache_manifest *m, icv_err *err);
void job_cache_free(job_cache_manifest *m);
void job_cache_stage_clear(job_cache_stage *s);
int job_cache_stage_copy(job_cache_stage *dst, const job_cache_stage *src, icv_err *err);
/* The digest recorded for file rel of stage s, or NULL. */
const char *job_cache_digest_of(const job_cache_stage *s, const char *rel);

/* Every regular file under dir, as sorted paths relative to it (*rel malloc'd, free
 * with icv_paths_free); the manifest itself is left out. */
int job_cache_list(const char *dir, char ***rel, size_t *n, icv_err *err);
/* 1 when every file of s is in dir with the digest recorded. */
int job_cache_verify(const char *dir, const job_cache_stage *s);
/* Hard-links every file of s from folder src into folder dst (a copy where the file
 * system has no hard links). The run's writers replace files by renaming, never in
 * place, so a link never lets a new run change the previous results. */
int job_cache_link(const char *src, const char *dst, const job_cache_stage *s, icv_err *err);
/* Records in s the files now in dir that were not in before[] (sorted, n_before),
 * with their digests: what the stage that just ran wrote. */
int job_cache_record_new(const char *dir, char *const *before, size_t n_before, job_cache_stage *s,
                         icv_err *err);

/* ---- warnings of each stage (stage_warnings.c) ---------------------------- */

/* The warnings a stage of `impactcv run` prints (stage_warnings.c): teed from the log
 * while the stage runs, kept in DIR/.impactcv/warnings_<stage>.txt with its files. */
enum { JOB_MAX_STAGE_WARNINGS = 200 };
typedef struct {
    char line[JOB_MAX_STAGE_WARNINGS][600];
    int n;
    icv_log_sink prev; /* the sink before begin, put back by end */
    void *prev_user;
} job_stage_warnings;
void job_stage_warnings_begin(job_stage_warnings *w);
/* Puts the sink back; writes dir's warnings_<stage>.txt when there were warnings. */
int job_stage_warnings_end(job_stage_warnings *w, const char *dir, const char *stage, icv_err *err);
/* Every kept warning of dir in stage order (track, analyze, model, overlays) as
 * "stage: message"; free each line and the array. */
int job_stage_warnings_read(const char *dir, char ***lines, int *n, icv_err *err);

/* The track stage's covariances beside tracks_path (its tracks3d_quality.csv) into
 * tr->sigma, when there and from two cameras (analyze.c); 0 when there is none. */
int job_tracks_quality_beside(const icv_experiment *e, const char *tracks_path, analysis_tracks *tr, icv_err *err);

/* ---- a campaign's shared calibration (campaign_calibration.c) -------------- */

/* exp's calibration becomes the file path (calibration.file; its images no longer). */
void job_calibration_replace(icv_experiment *exp, const char *path);
/* `impactcv track` of the experiment with the calibration of file path in place of its
 * own (the surface frame and motion plane still from the experiment's images). */
int job_track_run_with_calibration(const char *experiment_path, const char *path, const char *out_dir,
                                   icv_err *err);

#endif
