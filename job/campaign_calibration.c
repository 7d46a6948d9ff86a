/* campaign_calibration.c: one calibration shared by the experiments of a campaign that
 * name the same board images. The board images of an experiment are
 * known by a content hash (the board, each camera's images by name and bytes, the
 * program); each distinct one used by two or more experiments is calibrated once, by
 * calib (the functions and defaults the track stage uses on board images), into
 * DIR/calibration/<hash>/calibration.yaml, in `impactcv calib`'s format (numbers
 * written to 17 digits: the same doubles read back), -j of them at once. Each run then
 * reads that file in place of its images (job_run_options.calibration_file).
 * docs/campaign.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job/job_campaign_internal.h"
#include "job/job_track_internal.h"

void job_calibration_replace(icv_experiment *exp, const char *path)
{
    snprintf(exp->calib_file, sizeof exp->calib_file, "%s", path);
    for (int k = 0; k < ICV_MAX_CAMERAS; k++)
        exp->calib_images[k][0] = '\0';
}

int job_track_run_with_calibration(const char *experiment_path, const char *path, const char *out_dir,
                                   icv_err *err)
{
    icv_experiment *e = malloc(sizeof *e);
    track_calibration *cal = NULL;
    int rc = e ? icv_experiment_load(experiment_path, e, err) : icv_err_set(err, ICV_ENOMEM, "out of memory");
    if (!rc) {
        job_calibration_replace(e, path);
        if ((rc = job_track_calibration_load(e, &cal, err)) != 0)
            icv_err_prefix(err, "shared calibration %s: ", path);
    }
    if (!rc) { /* its quality, as the track stage keeps it from board images */
        icv_err e2;
        calib_stereo st;
        calib_camera cam;
        if (e->n_cameras == 2 && calib_stereo_file_read(path, &st, &e2) == 0) {
            job_track_info_keep_stereo(cal, &st);
            calib_stereo_free(&st);
        } else if (e->n_cameras == 1 && calib_camera_file_read(path, &cam, &e2) == 0) {
            job_track_info_keep_camera(cal, &cam);
            calib_camera_free(&cam);
        }
        job_track_options opt;
        job_track_options_default(&opt);
        opt.calibration = cal;
        rc = job_track_run(experiment_path, out_dir, &opt, NULL, err);
    }
    job_track_calibration_free(cal);
    free(e);
    return rc;
}

/* ---- the campaign's side -------------------------------------------------- */

static int program_digest(char hex[JOB_DIGEST_HEX], icv_err *err)
{
    static char digest[JOB_DIGEST_HEX];
    if (!digest[0] && job_file_digest("/proc/self/exe", digest, err))
        return icv_err_prefix(err, "the program's own file: ");
    memcpy(hex, digest, JOB_DIGEST_HEX);
    return 0;
}

/* The content hash of e's board images; *none = 1 when e has none to share (a
 * calibration file, more than two cameras, or no image matching: its run says why). */
static int board_digest(const icv_experiment *e, char hex[JOB_DIGEST_HEX], int *none, icv_err *err)
{
    *none = e->calib_file[0] || !e->calib_images[0][0] || e->n_cameras > 2 || e->n_cameras < 1;
    if (*none)
        return 0;
    char program[JOB_DIGEST_HEX];
    job_hash *h;
    int rc = program_digest(program, err);
    if (rc || (rc = job_hash_begin(&h, err)))
        return rc;
    job_hash_str(h, "impactcv-shared-calibration-1");
    job_hash_str(h, program);
    job_hash_int(h, e->n_cameras);
    job_hash_int(h, e->board_cols);
    job_hash_int(h, e->board_rows);
    job_hash_double(h, e->board_square);
    for (int k = 0; !rc && k < e->n_cameras; k++) {
        char **p = NULL;
        size_t n = 0;
        if (!(rc = icv_paths_expand(e->calib_images[k], &p, &n, err))) {
            *none |= n == 0;
            job_hash_int(h, (long)n);
            for (size_t i = 0; !rc && i < n; i++) {
                const char *b = strrchr(p[i], '/');
                job_hash_str(h, b ? b + 1 : p[i]);
                rc = job_hash_file(h, p[i], err);
            }
            icv_paths_free(p, n);
        }
    }
    if (rc) {
        job_hash_free(h);
        return rc;
    }
    job_hash_end(h, hex);
    return 0;
}

/* e's board images calibrated into path, as job_track_calibration_read does. */
static int calibrate_into(const icv_experiment *e, const char *path, icv_err *err)
{
    calib_board board = {e->board_cols, e->board_rows, e->board_square};
    calib_options o;
    calib_options_defaults(&o);
    char **p[2] = {NULL, NULL};
    size_t n[2] = {0, 0};
    int rc = 0;
    for (int k = 0; !rc && k < e->n_cameras; k++)
        rc = icv_paths_expand(e->calib_images[k], &p[k], &n[k], err);
    if (!rc && e->n_cameras == 2) {
        calib_stereo st;
        memset(&st, 0, sizeof st);
        rc = calib_stereo_from_images(p[0], n[0], p[1], n[1], &board, &o, &st, err);
        if (!rc)
            rc = calib_stereo_write(&st, path, err);
        calib_stereo_free(&st);
    } else if (!rc) {
        calib_camera cam;
        memset(&cam, 0, sizeof cam);
        rc = calib_camera_from_images(p[0], n[0], &board, &o, &cam, err);
        if (!rc)
            rc = calib_camera_write(&cam, path, err);
        calib_camera_free(&cam);
    }
    for (int k = 0; k < 2; k++)
        if (p[k])
            icv_paths_free(p[k], n[k]);
    return rc;
}

static void fail_experiment(report_campaign_experiment *x, const char *msg)
{
    x->status = REPORT_EXP_FAILED;
    snprintf(x->error, sizeof x->error, "%s", msg);
}

/* A calibration to compute: group rep's board images into file. */
typedef struct {
    int rep, users;
    char folder[ICV_PATH_MAX], file[ICV_PATH_MAX];
    pid_t pid;
    int fd;
    double t0;
} calib_todo;

/* t's file to every experiment of its digest, or (error) each failed with it. */
static void share(job_campaign *c, char (*digest)[JOB_DIGEST_HEX], const calib_todo *t, const char *error)
{
    report_campaign_result *r = c->r;
    for (int k = t->rep; k < r->n; k++) {
        if (strcmp(digest[k], digest[t->rep]) || r->exps[k].status == REPORT_EXP_FAILED)
            continue;
        if (error) {
            char msg[ICV_ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "shared calibration %.16s (from %s): %s", digest[t->rep], r->exps[t->rep].path,
                     error);
            fail_experiment(&r->exps[k], msg);
        } else {
            snprintf(c->calibration[k], sizeof c->calibration[k], "%s", t->file);
        }
    }
}

static int calibrate_one(const char *exp_path, const calib_todo *t, icv_err *err)
{
    icv_experiment *e = malloc(sizeof *e);
    int rc = e ? icv_experiment_load(exp_path, e, err) : icv_err_set(err, ICV_ENOMEM, "out of memory");
    if (!rc && !(rc = icv_mkdirs(t->folder, err)))
        rc = calibrate_into(e, t->file, err);
    free(e);
    return rc;
}

/* A child's life: one calibration, its error (or nothing) through fd, _exit. */
static void calibrate_child(int fd, const char *exp_path, const calib_todo *t)
{
    if (icv_log_get_level() > ICV_LOG_WARN) /* no progress bars from several at once */
        icv_log_set_level(ICV_LOG_WARN);
    icv_err err = {0};
    int rc = calibrate_one(exp_path, t, &err);
    if (rc) {
        size_t n = strlen(err.msg);
        for (size_t done = 0; done < n;) {
            ssize_t w = write(fd, err.msg + done, n - done);
            if (w <= 0 && errno != EINTR)
                break;
            done += w > 0 ? (size_t)w : 0;
        }
    }
    _exit(rc ? 1 : 0);
}

static void calibration_done(job_campaign *c, char (*digest)[JOB_DIGEST_HEX], const calib_todo *t, const char *error)
{
    if (!error)
        icv_info("calibration %.16s: computed once for %d experiments in %.1f s (%s)", digest[t->rep], t->users,
                 icv_now() - t->t0, t->file);
    share(c, digest, t, error);
}

/* The calibrations to compute, -j of them at once, each in a process of its own (as
 * the runs: a crash stays in its child); one at a time in this process with -j 1. */
static void calibrate_all(job_campaign *c, char (*digest)[JOB_DIGEST_HEX], calib_todo *todo, int n)
{
    int jobs = c->o->jobs < 1 ? 1 : c->o->jobs > 64 ? 64 : c->o->jobs;
    int next = 0, oldest = 0;
    while (oldest < n) {
        while (next < n && (jobs == 1 ? next == oldest : next - oldest < jobs)) {
            calib_todo *t = &todo[next++];
            t->t0 = icv_now();
            t->pid = -1;
            int fds[2] = {-1, -1};
            if (jobs > 1 && pipe(fds) == 0 && (t->pid = fork()) == 0) {
                close(fds[0]);
                calibrate_child(fds[1], c->r->exps[t->rep].path, t);
            }
            if (fds[1] >= 0)
                close(fds[1]);
            t->fd = fds[0];
            if (t->pid < 0 && t->fd >= 0) { /* no process: here */
                close(t->fd);
                t->fd = -1;
            }
        }
        calib_todo *t = &todo[oldest++]; /* in order: each waited for in its turn */
        if (t->pid < 0) {
            icv_err cerr = {0};
            int crc = calibrate_one(c->r->exps[t->rep].path, t, &cerr);
            calibration_done(c, digest, t, crc ? cerr.msg : NULL);
            continue;
        }
        char msg[ICV_ERR_MSG_MAX] = "";
        size_t len = 0;
        ssize_t got;
        while (len + 1 < sizeof msg &&
               ((got = read(t->fd, msg + len, sizeof msg - 1 - len)) > 0 || (got < 0 && errno == EINTR)))
            len += got > 0 ? (size_t)got : 0;
        msg[len] = '\0';
        close(t->fd);
        int st = 0;
        while (waitpid(t->pid, &st, 0) < 0 && errno == EINTR)
            ;
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
            calibration_done(c, digest, t, NULL);
        else if (msg[0])
            calibration_done(c, digest, t, msg);
        else
            calibration_done(c, digest, t, WIFSIGNALED(st) ? "its process was stopped by a signal"
                                                           : "its process ended without a result");
    }
}

int job_campaign_calibrations(job_campaign *c, icv_err *err)
{
    report_campaign_result *r = c->r;
    if (c->calib_mode == CAMPAIGN_CALIB_EACH)
        return 0;
    char(*digest)[JOB_DIGEST_HEX] = calloc((size_t)r->n + 1, sizeof *digest);
    icv_experiment *e = malloc(sizeof *e);
    int rc = digest && e ? 0 : icv_err_set(err, ICV_ENOMEM, "campaign: out of memory");
    int first = -1; /* calibration: one: the first experiment with board images */
    for (int i = 0; !rc && i < r->n; i++) {
        report_campaign_experiment *x = &r->exps[i];
        icv_err lerr = {0};
        int none = 1;
        if (x->status == REPORT_EXP_FAILED || icv_experiment_load(x->path, e, &lerr))
            continue;
        if (c->calib_mode == CAMPAIGN_CALIB_FILE) {
            if (e->n_cameras > 2)
                fail_experiment(x, "calibration: {file: ...} holds two cameras at most: this experiment has more");
            else
                snprintf(c->calibration[i], sizeof c->calibration[i], "%s", c->calib_given);
            continue;
        }
        if (board_digest(e, digest[i], &none, &lerr)) {
            fail_experiment(x, lerr.msg);
            continue;
        }
        if (none) {
            digest[i][0] = '\0';
            if (c->calib_mode == CAMPAIGN_CALIB_ONE && !e->calib_file[0] && e->calib_images[0][0] &&
                e->n_cameras <= 2)
                continue; /* no image matches: its run fails with its own error */
            if (c->calib_mode == CAMPAIGN_CALIB_ONE)
                rc = icv_err_set(err, ICV_EINVAL,
                                 "%s: calibration: one: %s names no board images to share (calibration.file, or more "
                                 "than two cameras): use calibration: auto",
                                 c->path, x->path);
            continue;
        }
        if (c->calib_mode == CAMPAIGN_CALIB_ONE && first >= 0 && strcmp(digest[first], digest[i]))
            rc = icv_err_set(err, ICV_EINVAL,
                             "%s: calibration: one: %s and %s name different board images (%s, %s): give each "
                             "its own (calibration: auto)",
                             c->path, r->exps[first].path, x->path, c->calibration[first], e->calib_images[0]);
        if (c->calib_mode == CAMPAIGN_CALIB_ONE && first < 0) {
            first = i;
            snprintf(c->calibration[i], sizeof c->calibration[i], "%s", e->calib_images[0]); /* for the message */
        }
    }
    if (c->calib_mode == CAMPAIGN_CALIB_ONE && first >= 0)
        c->calibration[first][0] = '\0';
    /* each digest used by two experiments or more (calibration: one: by any), once */
    calib_todo *todo = calloc((size_t)r->n + 1, sizeof *todo);
    int n_todo = 0;
    if (!rc && !todo)
        rc = icv_err_set(err, ICV_ENOMEM, "campaign: out of memory");
    for (int i = 0; !rc && c->calib_mode != CAMPAIGN_CALIB_FILE && i < r->n; i++) {
        if (!digest[i][0] || c->calibration[i][0] || r->exps[i].status == REPORT_EXP_FAILED)
            continue;
        int users = 0;
        for (int k = i; k < r->n; k++)
            users += !strcmp(digest[k], digest[i]) && r->exps[k].status != REPORT_EXP_FAILED;
        if (users < 2 && c->calib_mode != CAMPAIGN_CALIB_ONE)
            continue; /* calibrated in its own run, beside the others */
        calib_todo *t = &todo[n_todo];
        char sub[128];
        snprintf(sub, sizeof sub, "calibration/%.16s", digest[i]);
        if ((rc = icv_path_join(t->folder, sizeof t->folder, c->out_dir, sub, err)) ||
            (rc = icv_path_join(t->file, sizeof t->file, t->folder, "calibration.yaml", err)))
            break;
        t->rep = i, t->users = users;
        if (!icv_file_exists(t->file)) {
            n_todo++;
            continue;
        }
        icv_info("calibration %.16s: shared by %d experiments (%s)", digest[i], users, t->file);
        share(c, digest, t, NULL);
    }
    if (!rc)
        calibrate_all(c, digest, todo, n_todo);
    free(todo);
    free(digest);
    free(e);
    return rc;
}

int job_campaign_calibration_find(job_campaign *c, int i, icv_err *err)
{
    report_campaign_experiment *x = &c->r->exps[i];
    c->calibration[i][0] = '\0';
    if (c->calib_mode == CAMPAIGN_CALIB_EACH || x->status == REPORT_EXP_FAILED)
        return 0;
    if (c->calib_mode == CAMPAIGN_CALIB_FILE) {
        snprintf(c->calibration[i], sizeof c->calibration[i], "%s", c->calib_given);
        return 0;
    }
    icv_experiment *e = malloc(sizeof *e);
    char digest[JOB_DIGEST_HEX], sub[128], file[ICV_PATH_MAX];
    int none = 1;
    int rc = e ? icv_experiment_load(x->path, e, err) : icv_err_set(err, ICV_ENOMEM, "out of memory");
    if (!rc)
        rc = board_digest(e, digest, &none, err);
    free(e);
    if (rc || none)
        return rc;
    snprintf(sub, sizeof sub, "calibration/%.16s/calibration.yaml", digest);
    if (!(rc = icv_path_join(file, sizeof file, c->out_dir, sub, err)) && icv_file_exists(file))
        snprintf(c->calibration[i], sizeof c->calibration[i], "%s", file);
    return rc;
}
