/* detect_images.c: reads a list of board images (one camera), checks they share a
 * size, finds the board in each (the images at once, one thread per core), and words
 * the failures a user can act on. */
#define _GNU_SOURCE /* sched_getaffinity: the cores this process may run on (taskset, Slurm) */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib/calib_internal.h"

const char *calib_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void calib_names_join(char *out, size_t n, char *const *names, const int *pick, size_t count)
{
    size_t len = 0, shown = 0, total = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (pick && !pick[i])
            continue;
        total++;
        if (shown == 6 || len + strlen(calib_basename(names[i])) + 16 >= n)
            continue;
        len += (size_t)snprintf(out + len, n - len, "%s%s", shown ? ", " : "", calib_basename(names[i]));
        shown++;
    }
    if (total > shown)
        snprintf(out + len, n - len, " and %zu more", total - shown);
}

int calib_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* One image's outcome, kept until every image is done: errors and log lines then
 * come in the list's order, whichever thread finished first. */
typedef struct {
    int rc; /* reading failed: err says why */
    int width, height;
    icv_err err;
} image_result;

/* The images shared by the threads: each takes the next one not yet started. */
typedef struct {
    char *const *paths;
    const calib_board *b;
    const calib_detector *d;
    calib_detections *ds;
    image_result *res;
    icv_progress *bar;
    pthread_mutex_t lock;
    size_t next, done;
    size_t stop; /* no image from here on is started: this one could not be read */
} detect_job;

static void *detect_worker(void *arg)
{
    detect_job *job = *(detect_job **)arg;
    for (;;) {
        pthread_mutex_lock(&job->lock);
        size_t i = job->next < job->stop ? job->next++ : job->ds->n;
        pthread_mutex_unlock(&job->lock);
        if (i >= job->ds->n)
            break;
        image_result *r = &job->res[i];
        calib_image img;
        r->rc = calib_image_read_gray(job->paths[i], &img, &r->err);
        if (!r->rc) {
            r->width = img.width;
            r->height = img.height;
            calib_board_detect(job->d, &img, job->b, 0, job->ds->uv + i * (size_t)job->ds->n_points,
                               &job->ds->det[i]);
            calib_image_free(&img);
        }
        pthread_mutex_lock(&job->lock);
        if (r->rc && i < job->stop)
            job->stop = i;
        icv_progress_update(job->bar, (long)++job->done);
        pthread_mutex_unlock(&job->lock);
    }
    return NULL;
}

int calib_detections_run(char *const *paths, size_t n, const calib_board *b, const calib_detector *d,
                         const char *label, calib_detections *ds, icv_err *err)
{
    calib_detector def;
    if (!d) {
        calib_detector_defaults(&def);
        d = &def;
    }
    memset(ds, 0, sizeof *ds);
    if (b->cols < 2 || b->rows < 2 || b->cols > ICV_MAX_BOARD_SIDE || b->rows > ICV_MAX_BOARD_SIDE)
        return icv_err_set(err, ICV_EINVAL, "%s: a %dx%d board: inner corners must be 2..%d along each side", label,
                           b->cols, b->rows, ICV_MAX_BOARD_SIDE);
    ds->n = n;
    ds->n_points = b->cols * b->rows;
    ds->uv = calloc(n * (size_t)ds->n_points + 1, sizeof *ds->uv);
    ds->det = calloc(n + 1, sizeof *ds->det);
    ds->names = (char **)paths;
    image_result *res = calloc(n + 1, sizeof *res);
    /* images at once: one per core (the images are independent; each thread holds one) */
    int nt = d->threads > 0 ? d->threads : calib_cores();
    if (nt > CALIB_MAX_THREADS)
        nt = CALIB_MAX_THREADS;
    if ((size_t)nt > n)
        nt = n > 0 ? (int)n : 1;
    detect_job job = {paths, b, d, ds, res, NULL, PTHREAD_MUTEX_INITIALIZER, 0, 0, n};
    detect_job *items[CALIB_MAX_THREADS];
    for (int t = 0; t < nt; t++)
        items[t] = &job;
    if (!ds->uv || !ds->det || !res) {
        free(res);
        calib_detections_free(ds);
        return icv_err_set(err, ICV_ENOMEM, "out of memory for %zu images", n);
    }
    icv_progress bar;
    icv_progress_begin(&bar, label, (long)n);
    job.bar = &bar;
    icv_run_each(detect_worker, items, sizeof items[0], nt);
    icv_progress_end(&bar);
    pthread_mutex_destroy(&job.lock);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (res[i].rc) {
            if (err)
                *err = res[i].err;
            rc = res[i].rc;
            break;
        }
        if (i == 0) {
            ds->width = res[i].width;
            ds->height = res[i].height;
        } else if (res[i].width != ds->width || res[i].height != ds->height) {
            rc = icv_err_set(err, ICV_EINVAL,
                             "%s: image is %dx%d but %s is %dx%d: all board images of a camera must have one size",
                             paths[i], res[i].width, res[i].height, calib_basename(paths[0]), ds->width, ds->height);
            break;
        }
    }
    for (size_t i = 0; i < n && !rc; i++)
        icv_debug("%s: board %s (%s, %.2f s, sharpness %.2f px)", paths[i], ds->det[i].found ? "found" : "not found",
                  ds->det[i].method == CALIB_DETECT_SB        ? "SB"
                  : ds->det[i].method == CALIB_DETECT_CLASSIC ? "classic"
                                                              : "-",
                  ds->det[i].seconds, ds->det[i].sharpness);
    free(res);
    if (rc)
        calib_detections_free(ds);
    return rc;
}

void calib_detections_free(calib_detections *ds)
{
    free(ds->uv);
    free(ds->det);
    ds->uv = NULL;
    ds->det = NULL;
}

int calib_detections_fail_none(const calib_detections *ds, const calib_board *b, const char *label,
                               icv_err *err)
{
    char list[300];
    calib_names_join(list, sizeof list, ds->names, NULL, ds->n);
    /* Look (in a few images) for a board of another size: the commonest mistake is
     * counting squares instead of inner corners. */
    for (size_t i = 0; i < ds->n && i < 3; i++) {
        calib_image img;
        icv_err e2 = {0};
        if (calib_image_read_gray(ds->names[i], &img, &e2))
            continue;
        calib_detection info;
        calib_pt2 *tmp = calloc((size_t)b->cols * b->rows, sizeof *tmp);
        if (tmp) {
            calib_board_detect(NULL, &img, b, 1, tmp, &info);
            free(tmp);
        } else {
            info.probe_cols = 0;
        }
        calib_image_free(&img);
        if ((info.probe_cols >= info.probe_rows) != (b->cols >= b->rows)) { /* say it in the user's order */
            int t = info.probe_cols;
            info.probe_cols = info.probe_rows;
            info.probe_rows = t;
        }
        if (info.probe_cols > 0 && (info.probe_cols != b->cols || info.probe_rows != b->rows))
            return icv_err_set(err, ICV_ENOTFOUND,
                               "%s: no %dx%d board found in any of %zu images (%s); %s shows a board of %dx%d "
                               "inner corners: check --board (inner corners, not squares)",
                               label, b->cols, b->rows, ds->n, list, calib_basename(ds->names[i]),
                               info.probe_cols, info.probe_rows);
    }
    return icv_err_set(err, ICV_ENOTFOUND, "%s: no %dx%d board found in any of %zu images (%s)", label, b->cols,
                       b->rows, ds->n, list);
}
