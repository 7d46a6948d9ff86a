/* bench_pipeline.c: `impactcv track` (job_track_run) on a synthetic stereo
 * experiment (sample_videos/01_rod_slope45_stereo: 2 x 76 frames of 1280x720 H.264)
 * against decoding the same two videos alone (capture_source_read over every frame),
 * issue #8 goal: at most 1.2x. Wall time and the process's CPU time (every decoder
 * thread), best of 7 each (the machine is shared: wall time varies by 30%). The job reads a calibration file and the surface as a plane, so that the
 * board detections of a first run (calibration images, surface images) are not
 * counted: they do not grow with the clip. Allocations: malloc and friends are
 * replaced by counters for this binary; the job is run on half and on all the frames,
 * and the difference per frame is the per-frame path's allocations (goal 0).
 * The job decodes its cameras concurrently (a thread each); the goal's baseline stays
 * decoding the videos one after the other (libavcodec's own threads), and decoding them
 * concurrently (a thread each, as the job does) is printed beside it for comparison. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "capture/capture.h"
#include "job/job.h"
#include "track/track_3d.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static atomic_long n_alloc_calls; /* the job's and the decoders' threads allocate too */

void *malloc(size_t n)
{
    n_alloc_calls++;
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    n_alloc_calls++;
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    n_alloc_calls++;
    return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }

#define SAMPLE "sample_videos/01_rod_slope45_stereo"

/* An experiment on the sample with its true cameras (tests/data/sample01_true_stereo.yaml:
 * truth.json's, R = R2 R1^T, T = t2 - R t1) and the surface as a plane. */
static int write_inputs(const char *dir, const char *root)
{
    char path[4200];
    FILE *fp;
    snprintf(path, sizeof path, "%s/experiment.yaml", dir);
    fp = fopen(path, "w");
    if (!fp)
        return -1;
    fprintf(fp,
            "name: bench\ncameras:\n  - {id: left, video: %s/%s/left.mp4}\n  - {id: right, video: %s/%s/right.mp4}\n"
            "calibration: {file: %s/tests/data/sample01_true_stereo.yaml}\n"
            "surface: {plane: {point: [0.06, 0.0, 1.07], normal: [0.3, 0.49, 0.82]}}\n"
            "sync: {method: flash}\n"
            "body:\n  mass: 0.169\n  inertia: [[1.312e-3,0,0],[0,7.7e-6,0],[0,0,1.312e-3]]\n"
            "  markers: [[0,0.127,0],[0,0,0],[0,-0.127,0]]\n  marker_diameter: 0.012\n"
            "  shape: {type: capsule, axis: [0,1,0], length: 0.3048, radius: 0.009525}\n",
            root, SAMPLE, root, SAMPLE, root);
    fclose(fp);
    return 0;
}

typedef struct {
    const char *root, *name;
    long max_frames, frames; /* frames: decoded; -1 the video could not be opened */
} decode_job;

static void *decode_one(void *arg)
{
    decode_job *j = arg;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/%s", j->root, SAMPLE, j->name);
    capture_source *src;
    capture_options o = {.want_8bit = 1};
    icv_err err;
    j->frames = -1;
    if (capture_source_open(&src, path, &o, &err) != 0) {
        fprintf(stderr, "bench_pipeline: %s\n", err.msg);
        return NULL;
    }
    capture_frame f;
    memset(&f, 0, sizeof f);
    capture_frame_alloc(&f, capture_source_info(src), &err);
    j->frames = 0;
    while ((j->max_frames <= 0 || j->frames < j->max_frames) && capture_source_read(src, &f, &err) == 0)
        j->frames++;
    capture_frame_free(&f);
    capture_source_close(src);
    return NULL;
}

/* The two videos decoded one after the other (concurrent 0: the goal's baseline) or
 * each in a thread of its own (concurrent 1: printed beside it). */
static double decode_all(const char *root, long *frames, long max_frames, int concurrent)
{
    double t0 = icv_now();
    decode_job j[2] = {{root, "left.mp4", max_frames, 0}, {root, "right.mp4", max_frames, 0}};
    if (concurrent)
        icv_run_each(decode_one, j, sizeof *j, 2);
    else
        decode_one(&j[0]), decode_one(&j[1]);
    if (j[0].frames < 0 || j[1].frames < 0)
        return NAN;
    *frames = j[0].frames + j[1].frames;
    return icv_now() - t0;
}

static double load_average(void)
{
    double l = NAN;
    return getloadavg(&l, 1) == 1 ? l : NAN;
}

int main(void)
{
    gsl_set_error_handler_off(); /* the program's policy, as in cli/main.c */
    char root[4096];
    if (!realpath(".", root))
        return 1;
    char dir[] = "/tmp/bench_pipeline_XXXXXX";
    if (!mkdtemp(dir) || write_inputs(dir, root) != 0) {
        fprintf(stderr, "bench_pipeline: cannot write inputs\n");
        return 1;
    }
    icv_log_set_level(ICV_LOG_ERROR);
    char yaml[4200], out[4200];
    snprintf(yaml, sizeof yaml, "%s/experiment.yaml", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    double best_dec = INFINITY, best_job = INFINITY, cpu_dec = INFINITY, cpu_job = INFINITY;
    double best_par = INFINITY, cpu_par = INFINITY;
    double load0 = load_average();
    long frames = 0;
    job_track_result r;
    for (int rep = 0; rep < 7; rep++) {
        double c0 = icv_cpu_now();
        double d = decode_all(root, &frames, 0, 0);
        double cd = icv_cpu_now() - c0;
        if (d < best_dec)
            best_dec = d;
        if (cd < cpu_dec)
            cpu_dec = cd;
        c0 = icv_cpu_now();
        d = decode_all(root, &frames, 0, 1);
        cd = icv_cpu_now() - c0;
        if (d < best_par)
            best_par = d;
        if (cd < cpu_par)
            cpu_par = cd;
        icv_err err;
        c0 = icv_cpu_now();
        double t0 = icv_now();
        if (job_track_run(yaml, out, NULL, &r, &err) != 0) {
            fprintf(stderr, "bench_pipeline: %s\n", err.msg);
            return 1;
        }
        double t = icv_now() - t0, cj = icv_cpu_now() - c0;
        if (t < best_job)
            best_job = t;
        if (cj < cpu_job)
            cpu_job = cj;
    }
    /* allocations per frame: the job on half the frames and on all of them */
    job_track_options o;
    job_track_options_default(&o);
    long calls[2];
    long half = r.frames[0] / 2;
    for (int k = 0; k < 2; k++) {
        o.max_frames = k ? 0 : half;
        icv_err err;
        long before = n_alloc_calls;
        if (job_track_run(yaml, out, &o, NULL, &err) != 0) {
            fprintf(stderr, "bench_pipeline: %s\n", err.msg);
            return 1;
        }
        calls[k] = n_alloc_calls - before;
    }
    double per_frame = (double)(calls[1] - calls[0]) / (2.0 * (r.frames[0] - half));
    long dec[2], nf;
    for (int k = 0; k < 2; k++) {
        long before = n_alloc_calls;
        decode_all(root, &nf, k ? 0 : half, 0);
        dec[k] = n_alloc_calls - before;
    }
    double dec_per_frame = (double)(dec[1] - dec[0]) / (2.0 * (r.frames[0] - half));
    printf("bench_pipeline: impactcv track on %s (%ld frames, 2 x 1280x720): %.3f s; decoding alone %.3f s; "
           "ratio %.2f (goal <= 1.2)\n",
           SAMPLE, frames, best_job, best_dec, best_job / best_dec);
    printf("bench_pipeline: CPU time (all threads): track %.3f s, decoding alone %.3f s: ratio %.2f (goal <= 1.2)\n",
           cpu_job, cpu_dec, cpu_job / cpu_dec);
    printf("bench_pipeline: for comparison, decoding the two videos concurrently (a thread each, as the job): "
           "%.3f s, CPU %.3f s; track / that: wall %.2f, CPU %.2f\n",
           best_par, cpu_par, best_job / best_par, cpu_job / cpu_par);
    printf("bench_pipeline: load average %.2f before, %.2f after (%ld cores online)\n", load0, load_average(),
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("bench_pipeline: of the job, reading frames %.3f s (summed over the cameras' threads); offset %.3f +- %.3f frames; %ld 3D points\n",
           r.decode_seconds, r.offset_frames[1], r.offset_sigma_frames, r.points3d);
    printf("bench_pipeline: allocations: %ld for %ld frames per camera, %ld for %ld: %.2f per frame (goal 0; "
           "the 2D point list grows by doubling, the 3D stage allocates per job)\n",
           calls[0], half, calls[1], r.frames[0], per_frame);
    printf("bench_pipeline: of which decoding alone (capture_source_read): %.2f per frame; the rest %.2f per frame\n",
           dec_per_frame, per_frame - dec_per_frame);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return 0;
}
