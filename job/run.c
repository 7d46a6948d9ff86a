/* run.c: `impactcv run`: the stages one after the other in a temporary folder that
 * replaces DIR only when all succeeded, each stage reused
 * from DIR when its key, the digest of everything it reads, matches the one DIR's
 * manifest recorded (the stage cache: job_internal.h, docs/report.md). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job/job_internal.h"

static const char *const stage_names[JOB_N_STAGES] = {"track", "analyze", "model", "overlays", "report", "exports"};

const char *job_stage_name(int stage) { return stage >= 0 && stage < JOB_N_STAGES ? stage_names[stage] : "?"; }

int job_stage_parse(const char *name)
{
    for (int s = 0; name && s < JOB_N_STAGES; s++)
        if (!strcmp(name, stage_names[s]))
            return s;
    return -1;
}

/* ---- the analysis's results between stages: .impactcv/analysis.bin (analyze) and
 * .impactcv/result.bin (model), the analysis_result as it is in memory. Only a run of
 * the same program reads them: the program is part of every key. */

#define BLOB_MAGIC "ICVRES1"

typedef struct {
    char magic[8];
    uint64_t size;
} blob_header;

static int blob_path(const char *dir, const char *name, char *out, icv_err *err)
{
    char sub[ICV_PATH_MAX];
    int rc = icv_path_join(sub, sizeof sub, dir, JOB_CACHE_DIR, err);
    if (!rc)
        rc = icv_mkdirs(sub, err);
    return rc ? rc : icv_path_join(out, ICV_PATH_MAX, sub, name, err);
}

/* Two parts of memory (a and b, of na and nb bytes) into .impactcv/name. */
static int blob_write_parts(const char *dir, const char *name, const void *a, size_t na, const void *b, size_t nb,
                            icv_err *err)
{
    char path[ICV_PATH_MAX];
    icv_atomic_file af;
    blob_header h = {BLOB_MAGIC, na + nb};
    int rc = blob_path(dir, name, path, err);
    if (rc || (rc = icv_atomic_open(&af, path, err)))
        return rc;
    if (fwrite(&h, sizeof h, 1, af.fp) != 1 || fwrite(a, na, 1, af.fp) != 1 || (nb && fwrite(b, nb, 1, af.fp) != 1)) {
        icv_atomic_abort(&af);
        return icv_err_set(err, ICV_EIO, "%s: write error", path);
    }
    return icv_atomic_commit(&af, err);
}

static int blob_read_parts(const char *dir, const char *name, void *a, size_t na, void *b, size_t nb, icv_err *err)
{
    char path[ICV_PATH_MAX], sub[ICV_PATH_MAX];
    int rc = icv_path_join(sub, sizeof sub, dir, JOB_CACHE_DIR, err);
    if (rc || (rc = icv_path_join(path, sizeof path, sub, name, err)))
        return rc;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return icv_err_set(err, ICV_ENOTFOUND, "%s: no results of a complete run: %s", path, strerror(errno));
    blob_header h;
    int ok = fread(&h, sizeof h, 1, fp) == 1 && !memcmp(h.magic, BLOB_MAGIC, sizeof h.magic) && h.size == na + nb &&
             fread(a, na, 1, fp) == 1 && (!nb || fread(b, nb, 1, fp) == 1);
    fclose(fp);
    if (!ok)
        return icv_err_set(err, ICV_EFORMAT, "%s: not written by this build of impactcv", path);
    return 0;
}

static int blob_write(const char *dir, const char *name, const analysis_experiment_result *j, icv_err *err)
{
    return blob_write_parts(dir, name, &j->res, sizeof j->res, j->warning, sizeof j->warning, err);
}

static int blob_read(const char *dir, const char *name, analysis_experiment_result *j, icv_err *err)
{
    int rc = blob_read_parts(dir, name, &j->res, sizeof j->res, j->warning, sizeof j->warning, err);
    j->warning[sizeof j->warning - 1] = '\0';
    return rc;
}

/* Several bodies: their analysis as it is in memory (the experiment in it is the one
 * this run loaded). */
static int blob_write_bodies(const char *dir, const job_bodies_result *b, icv_err *err)
{
    return blob_write_parts(dir, "bodies.bin", b, sizeof *b, NULL, 0, err);
}

static int blob_read_bodies(const char *dir, job_bodies_result *b, icv_err *err)
{
    icv_experiment *e = malloc(sizeof *e);
    if (!e)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    *e = b->exp;
    int rc = blob_read_parts(dir, "bodies.bin", b, sizeof *b, NULL, 0, err);
    b->exp = *e;
    free(e);
    return rc;
}

/* ---- the run's state ----------------------------------------------------- */

typedef struct {
    const job_run_options *o;
    const char *dir;            /* DIR: the previous results and their manifest */
    char work[ICV_PATH_MAX];    /* where the stages read and write: a new folder, or
                                   DIR itself when only checking (dry) */
    int dry;
    analysis_experiment_result *job;   /* the experiment (model replaced by o->model), body,
                                   model, the analysis's result */
    analysis_tracks tracks;     /* work/tracks3d.csv, read when first needed */
    int have_tracks;
    char program[JOB_DIGEST_HEX];
    char keys[JOB_N_STAGES][JOB_DIGEST_HEX];
    job_cache_manifest old, now;
    job_run_result *r;       /* NULL when dry */
    job_bodies_result *bodies; /* several bodies (bodies:): their analysis; else NULL */
} run_ctx;

/* The program is part of every key: a rebuilt impactcv runs every stage again. */
static int program_digest(char hex[JOB_DIGEST_HEX], icv_err *err)
{
    static char digest[JOB_DIGEST_HEX]; /* once per process: the file cannot change under it */
    if (!digest[0]) {
        int rc = job_file_digest("/proc/self/exe", digest, err);
        if (rc)
            return icv_err_prefix(err, "the program's own file: ");
    }
    memcpy(hex, digest, JOB_DIGEST_HEX);
    return 0;
}

static analysis_model model_of(const icv_experiment *e)
{
    return (analysis_model){.law = e->restitution, .method = IMPACT_EXACT, .mu_s = e->mu_measured ? -1 : e->mu_s,
                            .mu_k = e->mu_measured ? -1 : e->mu_k, .e_n = e->e_n_measured ? -1 : e->e_n};
}

static void model_replace(icv_experiment *e, const icv_experiment *m)
{
    e->restitution = m->restitution;
    e->mu_measured = m->mu_measured, e->mu_s = m->mu_s, e->mu_k = m->mu_k;
    e->e_n_measured = m->e_n_measured, e->e_n = m->e_n;
    memcpy(e->mu_s_from, m->mu_s_from, sizeof e->mu_s_from);
    memcpy(e->mu_k_from, m->mu_k_from, sizeof e->mu_k_from);
    memcpy(e->e_n_from, m->e_n_from, sizeof e->e_n_from);
}

static int load_experiment(const char *path, const icv_experiment *model, analysis_experiment_result *j, icv_err *err)
{
    int rc = icv_experiment_load(path, &j->exp, err);
    if (rc)
        return rc;
    if (model)
        model_replace(&j->exp, model);
    j->model = model_of(&j->exp);
    return analysis_body_from_experiment(&j->exp, &j->body, err);
}

static int need_tracks(run_ctx *c, icv_err *err)
{
    char path[ICV_PATH_MAX];
    if (c->have_tracks)
        return 0;
    int rc = icv_path_join(path, sizeof path, c->work, "tracks3d.csv", err);
    if (!rc && !(rc = analysis_tracks_read_csv(path, &c->tracks, err)))
        c->have_tracks = 1;
    return rc;
}

/* ---- keys: what each stage reads (docs/report.md's table) ---------------- */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A file the experiment names, by its bytes (a missing one as missing: the stage
 * then fails with its own message). */
static int hash_input(job_hash *h, const char *role, const char *path, icv_err *err)
{
    job_hash_str(h, role);
    if (!path[0] || !icv_file_exists(path)) {
        job_hash_str(h, path[0] ? "<missing>" : "<none>");
        return 0;
    }
    return job_hash_file(h, path, err);
}

/* Every file track reads: videos, masks, board images (each glob's files by name and
 * bytes), the calibration file, surface and motion-plane images. */
static int hash_experiment_files(job_hash *h, const icv_experiment *e, icv_err *err)
{
    int rc = hash_input(h, "calibration.file", e->calib_file, err);
    for (int k = 0; !rc && k < e->n_cameras; k++) {
        const char *single[] = {e->cameras[k].video, e->cameras[k].mask, e->surface_images[k],
                                e->motion_plane_images[k]};
        for (size_t i = 0; !rc && i < sizeof single / sizeof *single; i++)
            rc = hash_input(h, "camera file", single[i], err);
        char **paths = NULL;
        size_t n = 0;
        if (!rc && e->calib_images[k][0] && !(rc = icv_paths_expand(e->calib_images[k], &paths, &n, err))) {
            job_hash_int(h, (long)n);
            for (size_t i = 0; !rc && i < n; i++)
                rc = hash_input(h, base_name(paths[i]), paths[i], err);
            icv_paths_free(paths, n);
        }
    }
    return rc;
}

static void hash_model(job_hash *h, const icv_experiment *e)
{
    job_hash_int(h, e->restitution);
    job_hash_int(h, e->mu_measured);
    job_hash_double(h, e->mu_s);
    job_hash_double(h, e->mu_k);
    job_hash_int(h, e->e_n_measured);
    job_hash_double(h, e->e_n);
    const char *from[] = {e->mu_s_from, e->mu_k_from, e->e_n_from};
    for (int i = 0; i < 3; i++) /* the file's name for the provenance; its value is above */
        job_hash_str(h, base_name(from[i]));
}

static void hash_stage_files(job_hash *h, const job_cache_stage *s)
{
    job_hash_int(h, s->n_files);
    for (int i = 0; i < s->n_files; i++) {
        job_hash_str(h, s->files[i].rel);
        job_hash_str(h, s->files[i].digest);
    }
}

static void hash_one_file(job_hash *h, const job_cache_stage *s, const char *rel)
{
    const char *d = job_cache_digest_of(s, rel);
    job_hash_str(h, rel);
    job_hash_str(h, d ? d : "<none>");
}

/* The frame of the tracks nearest each impact: what the overlays draw. */
static int hash_impact_frames(run_ctx *c, job_hash *h, icv_err *err)
{
    int rc = need_tracks(c, err);
    if (rc)
        return rc;
    const analysis_result *res = &c->job->res;
    double t[ANALYSIS_MAX_IMPACTS + ANALYSIS_MAX_CHAIN_IMPACTS];
    int n = 0;
    for (int i = 0; i < res->n_impacts; i++)
        t[n++] = res->impacts[i].t;
    if (c->bodies) { /* several: their impacts, then the chain's */
        n = 0;
        for (int i = 0; i < c->bodies->res.n_impacts; i++)
            t[n++] = c->bodies->res.impacts[i].t;
        for (int i = 0; i < c->bodies->res.n_chain; i++)
            t[n++] = c->bodies->res.chain[i].t;
    }
    job_hash_int(h, n);
    for (int i = 0; i < n; i++) {
        int best = 0;
        for (int f = 1; f < c->tracks.n_frames; f++)
            if (fabs(c->tracks.t[f] - t[i]) < fabs(c->tracks.t[best] - t[i]))
                best = f;
        job_hash_int(h, c->tracks.n_frames ? c->tracks.frame[best] : -1);
    }
    return 0;
}

static int stage_key(run_ctx *c, int s, char key[JOB_DIGEST_HEX], icv_err *err)
{
    const job_cache_stage *done = c->now.stage;
    job_hash *h;
    int rc = job_hash_begin(&h, err);
    if (rc)
        return rc;
    job_hash_str(h, "impactcv-run-cache-1");
    job_hash_str(h, c->program);
    job_hash_str(h, job_stage_name(s));
    job_hash_experiment(h, &c->job->exp, s);
    switch (s) {
    case JOB_STAGE_TRACK:
        rc = hash_experiment_files(h, &c->job->exp, err);
        break;
    case JOB_STAGE_ANALYZE:
        hash_one_file(h, &done[JOB_STAGE_TRACK], "tracks3d.csv");
        break;
    case JOB_STAGE_MODEL:
        hash_stage_files(h, &done[JOB_STAGE_ANALYZE]);
        hash_model(h, &c->job->exp);
        break;
    case JOB_STAGE_OVERLAYS:
        job_hash_str(h, c->keys[JOB_STAGE_TRACK]); /* the videos, the calibration */
        hash_stage_files(h, &done[JOB_STAGE_TRACK]);
        rc = hash_impact_frames(c, h, err);
        break;
    case JOB_STAGE_REPORT:
        for (int p = 0; p < JOB_STAGE_REPORT; p++)
            hash_stage_files(h, &done[p]);
        hash_model(h, &c->job->exp);
        break;
    default: /* exports */
        hash_one_file(h, &done[JOB_STAGE_TRACK], "tracks3d.csv");
        break;
    }
    if (rc) {
        job_hash_free(h);
        return rc;
    }
    job_hash_end(h, key);
    return 0;
}

/* ---- the stages ---------------------------------------------------------- */

static int run_track(run_ctx *c, icv_err *err)
{
    if (c->o->calibration_file) /* a campaign's shared calibration (campaign_calibration.c) */
        return job_track_run_with_calibration(c->o->experiment_path, c->o->calibration_file, c->work, err);
    return job_track_run(c->o->experiment_path, c->work, NULL, NULL, err);
}

/* job_analyze measures and also compares the experiment's own model and writes
 * results.json: the model and results.json are the model stage's, so the analysis's
 * result is kept without its model and its results.json is removed. */
static int run_analyze(run_ctx *c, icv_err *err)
{
    if (c->bodies) { /* several: results.json is the analysis's (no model compared yet) */
        char **warns = NULL; /* the track stage's, for report.html (its report is the analysis's) */
        int nw = 0;
        int rc = job_stage_warnings_read(c->work, &warns, &nw, err);
        job_analyze_options jb = {c->o->experiment_path, NULL, c->work, ANALYSIS_FIT, NULL, NULL,
                                  (const char *const *)warns, nw};
        if (!rc)
            rc = job_analyze_bodies(&jb, c->bodies, err);
        for (int i = 0; i < nw; i++)
            free(warns[i]);
        free(warns);
        char page[ICV_PATH_MAX], kept[ICV_PATH_MAX];
        if (!rc && !(rc = icv_path_join(page, sizeof page, c->work, "report.html", err)) &&
            !(rc = blob_path(c->work, JOB_BODIES_PAGE, kept, err)) && rename(page, kept) != 0)
            rc = icv_err_set(err, ICV_EIO, "%s: cannot move to %s: %s", page, kept, strerror(errno));
        /* the page is the report stage's, with the overlays in it */
        return rc ? rc : blob_write_bodies(c->work, c->bodies, err);
    }
    job_analyze_options job = {c->o->experiment_path, NULL, c->work, ANALYSIS_FIT, NULL, NULL, NULL, 0};
    analysis_experiment_result *j = calloc(1, sizeof *j);
    if (!j)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    char path[ICV_PATH_MAX];
    int rc = job_analyze(&job, j, err);
    if (!rc && !(rc = icv_path_join(path, sizeof path, c->work, "results.json", err)) && remove(path) != 0)
        rc = icv_err_set(err, ICV_EIO, "%s: cannot remove: %s", path, strerror(errno));
    if (!rc) {
        for (int i = 0; i < j->res.n_impacts; i++)
            memset(&j->res.impacts[i].model, 0, sizeof j->res.impacts[i].model);
        c->job->res = j->res;
        memcpy(c->job->warning, j->warning, sizeof j->warning);
        rc = blob_write(c->work, "analysis.bin", c->job, err);
    }
    free(j);
    return rc;
}

static int run_model(run_ctx *c, icv_err *err)
{
    if (c->bodies)
        return 0; /* the model of several bodies is `impactcv solve`'s (docs/solver.md) */
    analysis_experiment_result *j = c->job;
    char path[ICV_PATH_MAX];
    int rc = analysis_model_compare(&j->body, &j->model, &j->res, err);
    if (!rc && !(rc = icv_path_join(path, sizeof path, c->work, "results.json", err))) {
        analysis_calibration_info ci; /* the calibration's RMS values from the track stage's sidecar */
        char info[ICV_PATH_MAX];
        if (icv_path_join(info, sizeof info, c->work, "track_info.json", NULL) != 0)
            info[0] = 0;
        analysis_calibration_info_read(info, &j->exp, &ci);
        rc = analysis_results_write(path, j->exp.name, &ci, &j->res, err);
    }
    return rc ? rc : blob_write(c->work, "result.bin", j, err);
}

static int run_overlays(run_ctx *c, icv_err *err)
{
    return c->bodies ? job_overlays_write_bodies(c->work, &c->bodies->exp, &c->bodies->res, err)
                     : job_overlays_write(c->work, &c->job->exp, err);
}

static int run_report(run_ctx *c, icv_err *err)
{
    char **warns = NULL;
    int n = 0;
    if (c->bodies) /* the analyze stage's page, with the overlays */
        return job_report_bodies_write(c->work, &c->bodies->exp, err);
    int rc = job_stage_warnings_read(c->work, &warns, &n, err);
    if (!rc)
        rc = job_report_write(c->work, &c->job->exp, (const char *const *)warns, n, err);
    for (int i = 0; i < n; i++)
        free(warns[i]);
    free(warns);
    return rc;
}

static int run_exports(run_ctx *c, icv_err *err)
{
    char exports[ICV_PATH_MAX];
    int rc = need_tracks(c, err);
    if (!rc && !(rc = icv_path_join(exports, sizeof exports, c->work, "exports", err)) &&
        !(rc = icv_mkdirs(exports, err)))
        rc = c->bodies ? report_exports_write_bodies(exports, &c->tracks, &c->job->exp, err)
                       : report_exports_write(exports, &c->tracks, &c->job->body, err);
    return rc;
}

static int (*const stage_run[JOB_N_STAGES])(run_ctx *, icv_err *) = {run_track,    run_analyze, run_model,
                                                                         run_overlays, run_report,  run_exports};

/* After a stage, ran or reused: what later stages need in memory. */
static int stage_after(run_ctx *c, int s, int ran, icv_err *err)
{
    int rc = 0;
    if (s == JOB_STAGE_ANALYZE && !ran)
        rc = c->bodies ? blob_read_bodies(c->work, c->bodies, err) : blob_read(c->work, "analysis.bin", c->job, err);
    if (s == JOB_STAGE_MODEL && !ran && !c->bodies)
        rc = blob_read(c->work, "result.bin", c->job, err);
    if (!rc && s == JOB_STAGE_ANALYZE && c->o->truth_path && !c->dry && !c->bodies && !(rc = need_tracks(c, err))) {
        const analysis_tracks *t = &c->tracks;
        int last = t->n_frames - 1;
        double frame_s =
            last > 0 && t->frame[last] > t->frame[0] ? (t->t[last] - t->t[0]) / (t->frame[last] - t->frame[0]) : 0;
        rc = analysis_truth_compare(c->o->truth_path, &c->job->res, &c->job->body, frame_s, c->o->truth_table, err);
        if (rc)
            icv_err_prefix(err, "%s: disagrees with the truth: ", c->o->truth_path);
    }
    return rc;
}

/* Each stage: its key; reused when DIR's manifest has that key and DIR still holds its
 * files intact (and the stage is before --from), else run in c->work. Dry: stops at
 * the first stage that would run (*up_to_date = 0). */
static int run_stages(run_ctx *c, int from, int *up_to_date, icv_err *err)
{
    *up_to_date = 1;
    for (int s = 0; s < JOB_N_STAGES; s++) {
        const job_cache_stage *old = &c->old.stage[s];
        job_cache_stage *now = &c->now.stage[s];
        int rc = stage_key(c, s, c->keys[s], err);
        int reuse =
            !rc && s < from && old->present && !strcmp(old->key, c->keys[s]) && job_cache_verify(c->dir, old);
        if (!rc && c->dry && !reuse) {
            *up_to_date = 0;
            return 0;
        }
        if (!rc && reuse) {
            rc = job_cache_stage_copy(now, old, err);
            if (!rc && !c->dry)
                rc = job_cache_link(c->dir, c->work, old, err);
            icv_debug("run: %s reused from %s", job_stage_name(s), c->dir);
        } else if (!rc) {
            char **before;
            size_t n_before;
            double t0 = icv_now();
            icv_debug("run: %s", job_stage_name(s));
            if (!(rc = job_cache_list(c->work, &before, &n_before, err))) {
                /* the stage's warnings are kept for the report (its own included: none) */
                job_stage_warnings *w = s < JOB_STAGE_REPORT ? malloc(sizeof *w) : NULL;
                if (w)
                    job_stage_warnings_begin(w);
                if (s < JOB_STAGE_REPORT && !w)
                    rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
                else
                    rc = stage_run[s](c, err);
                if (w) {
                    icv_err e2 = {0};
                    int rw = job_stage_warnings_end(w, c->work, job_stage_name(s), &e2);
                    free(w);
                    if (!rc && rw)
                        rc = icv_err_set(err, e2.code, "%s", e2.msg);
                }
                if (!rc)
                    rc = job_cache_record_new(c->work, before, n_before, now, err);
                icv_paths_free(before, n_before);
            }
            now->seconds = icv_now() - t0;
            c->r->ran[s] = 1;
            c->r->stage_seconds[s] = now->seconds;
        }
        if (!rc) {
            now->present = 1;
            memcpy(now->key, c->keys[s], sizeof now->key);
            rc = stage_after(c, s, !reuse, err);
        }
        if (rc)
            return icv_err_prefix(err, "%s: ", job_stage_name(s));
    }
    return 0;
}

static int ctx_open(run_ctx *c, const job_run_options *o, analysis_experiment_result *job, icv_err *err)
{
    memset(c, 0, sizeof *c);
    c->o = o;
    c->dir = o->out_dir;
    c->job = job;
    int rc = load_experiment(o->experiment_path, o->model, job, err);
    if (!rc && o->calibration_file) /* the track key then hashes that file, not the images */
        job_calibration_replace(&job->exp, o->calibration_file);
    if (!rc && job->exp.n_bodies > 1) {
        c->bodies = calloc(1, sizeof *c->bodies);
        if (!c->bodies)
            rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        else
            c->bodies->exp = job->exp;
    }
    if (!rc)
        rc = program_digest(c->program, err);
    if (!rc)
        rc = job_cache_read(o->out_dir, &c->old, err);
    return rc;
}

static void ctx_close(run_ctx *c)
{
    if (c->r && c->bodies && !c->dry)
        c->r->bodies = *c->bodies;
    free(c->bodies);
    if (c->have_tracks)
        analysis_tracks_free(&c->tracks);
    job_cache_free(&c->old);
    job_cache_free(&c->now);
}

/* DIR may be replaced: new, empty, an earlier result, or forced; never an input. */
static int check_out_dir(const run_ctx *c, icv_err *err)
{
    const icv_experiment *e = &c->job->exp;
    enum { MAX_INPUTS = 8 + 6 * ICV_MAX_CAMERAS };
    const char *in[MAX_INPUTS];
    char glob_dirs[ICV_MAX_CAMERAS][ICV_PATH_MAX];
    int n = 0;
    in[n++] = c->o->experiment_path;
    in[n++] = c->o->truth_path;
    in[n++] = e->calib_file;
    in[n++] = e->mu_s_from;
    in[n++] = e->mu_k_from;
    in[n++] = e->e_n_from;
    for (int i = 0; i < e->n_cameras && i < ICV_MAX_CAMERAS; i++) {
        in[n++] = e->cameras[i].video;
        in[n++] = e->cameras[i].mask;
        in[n++] = e->surface_images[i];
        in[n++] = e->motion_plane_images[i];
        in[n++] = e->level_images[i];
        /* a glob's folder: the calibration shots */
        glob_dirs[i][0] = '\0';
        if (e->calib_images[i][0])
            icv_path_dirname(glob_dirs[i], sizeof glob_dirs[i], e->calib_images[i]);
        in[n++] = glob_dirs[i];
    }
    return icv_outdir_check(c->o->out_dir, JOB_CACHE_DIR "/manifest.json", c->o->force, in, n, err);
}

/* A file in DIR that the last run's manifest does not list, nor .impactcv/, is the user's. */
static int not_users(const char *rel, void *user)
{
    const job_cache_manifest *m = user;
    if (!strcmp(rel, JOB_CACHE_DIR))
        return 1;
    for (int s = 0; s < JOB_N_STAGES; s++)
        for (int i = 0; i < m->stage[s].n_files; i++)
            if (!strcmp(m->stage[s].files[i].rel, rel))
                return 1;
    return 0;
}

/* The user's files in DIR, linked into the new results before the swap. */
static int carry_user_files(run_ctx *c, icv_err *err)
{
    struct stat st;
    if (stat(c->o->out_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    return icv_dir_link_missing(c->o->out_dir, c->work, not_users, &c->old, err);
}

/* o with DIR's trailing slashes taken off ("out/" would put the working folder
 * inside DIR itself). */
static const job_run_options *without_slash(const job_run_options *o, job_run_options *copy,
                                               char buf[ICV_PATH_MAX])
{
    size_t n = strlen(o->out_dir);
    if (n < 2 || o->out_dir[n - 1] != '/' || n >= ICV_PATH_MAX)
        return o;
    while (n > 1 && o->out_dir[n - 1] == '/')
        n--;
    memcpy(buf, o->out_dir, n);
    buf[n] = '\0';
    *copy = *o;
    copy->out_dir = buf;
    return copy;
}

int job_run(const job_run_options *o, job_run_result *r, icv_err *err)
{
    job_run_options copy;
    char dir[ICV_PATH_MAX];
    o = without_slash(o, &copy, dir);
    memset(r, 0, sizeof *r);
    double t0 = icv_now();
    long decoded0 = capture_decoded_frames();
    int from = JOB_N_STAGES;
    if (o->from && (from = job_stage_parse(o->from)) < 0)
        return icv_err_set(err, ICV_EINVAL,
                           "--from %s: no such stage (track, analyze, model, overlays, report, exports)", o->from);
    run_ctx c;
    int rc = ctx_open(&c, o, &r->job, err), up;
    c.r = r;
    if (!rc)
        rc = check_out_dir(&c, err);
    if (!rc)
        rc = icv_workdir_make(o->out_dir, "run", c.work, sizeof c.work, err);
    int made = !rc;
    if (!rc)
        rc = run_stages(&c, from, &up, err);
    int ran = 0;
    for (int s = 0; s < JOB_N_STAGES; s++)
        ran |= r->ran[s];
    if (!rc && ran && !(rc = carry_user_files(&c, err)) && !(rc = job_cache_write(c.work, &c.now, err)))
        rc = icv_dir_swap(c.work, o->out_dir, err);
    if (made && rc)
        icv_err_rename_path(err, c.work, o->out_dir); /* the working folder is removed: name DIR */
    if (made && (rc || !ran))
        icv_dir_remove(c.work);
    ctx_close(&c);
    if (rc)
        return rc;
    icv_path_join(r->report_path, sizeof r->report_path, o->out_dir, "report.html", NULL);
    r->decoded_frames = capture_decoded_frames() - decoded0;
    r->seconds = icv_now() - t0;
    return 0;
}

int job_run_up_to_date(const job_run_options *o, int *up_to_date, icv_err *err)
{
    job_run_options copy;
    char dir[ICV_PATH_MAX];
    o = without_slash(o, &copy, dir);
    *up_to_date = 0;
    analysis_experiment_result *job = calloc(1, sizeof *job);
    if (!job)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    run_ctx c;
    int rc = ctx_open(&c, o, job, err);
    c.dry = 1;
    snprintf(c.work, sizeof c.work, "%s", o->out_dir);
    if (!rc)
        rc = run_stages(&c, JOB_N_STAGES, up_to_date, err);
    ctx_close(&c);
    free(job);
    return rc;
}

int job_run_load(const char *experiment_path, const icv_experiment *model, const char *out_dir,
                    analysis_experiment_result *job, icv_err *err)
{
    memset(job, 0, sizeof *job);
    int rc = load_experiment(experiment_path, model, job, err);
    return rc ? rc : blob_read(out_dir, "result.bin", job, err);
}
