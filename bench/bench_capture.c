/* bench_capture.c: decode throughput of the capture frame source (gray output into a
 * caller buffer, decoder threads automatic) against `ffmpeg -threads 0 -i FILE -f null -`
 * on the same file: a 1280x720 H.264 clip and a 512x418 FFV1 (gray) high-speed clip,
 * generated in /tmp when missing. Goal: ratio (ours / ffmpeg, frames per second) >= 1.0.
 * Each figure is the best of 5 alternating runs (the machine is shared: the best run is
 * the least disturbed); both include opening the file (our index scan, a few ms). */
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "capture/capture.h"

typedef struct {
    const char *path;
    const char *make; /* ffmpeg arguments that create it */
} clip;

static const clip clips[] = {
    {"/tmp/icv_bench_1280x720_h264.mp4",
     "-f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v 300 -c:v libx264 -preset fast -crf 20 -pix_fmt yuv420p"},
    {"/tmp/icv_bench_512x418_ffv1.mkv",
     "-f lavfi -i testsrc2=size=512x418:rate=1000 -frames:v 1000 -c:v ffv1 -pix_fmt gray"},
};

static double run_source(const char *path, long *frames)
{
    double t0 = icv_now();
    capture_source *src;
    icv_err err;
    if (capture_source_open(&src, path, NULL, &err)) {
        fprintf(stderr, "bench_capture: %s\n", err.msg);
        exit(1);
    }
    capture_frame f;
    if (capture_frame_alloc(&f, capture_source_info(src), &err)) {
        fprintf(stderr, "bench_capture: %s\n", err.msg);
        exit(1);
    }
    long n = 0;
    int rc;
    while ((rc = capture_source_read(src, &f, &err)) == 0)
        n++;
    if (rc < 0) {
        fprintf(stderr, "bench_capture: %s\n", err.msg);
        exit(1);
    }
    capture_frame_free(&f);
    capture_source_close(src);
    *frames = n;
    return icv_now() - t0;
}

/* one_frame: decode only the first frame: the CLI's start-up cost, to show it apart */
static double run_ffmpeg(const char *path, int one_frame)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ffmpeg -nostdin -v error -threads 0 -i '%s' %s -f null - ", path,
             one_frame ? "-frames:v 1" : "");
    double t0 = icv_now();
    if (system(cmd) != 0) {
        fprintf(stderr, "bench_capture: ffmpeg failed on %s\n", path);
        exit(1);
    }
    return icv_now() - t0;
}

int main(void)
{
    gsl_set_error_handler_off(); /* the program's policy, as in cli/main.c */
    icv_log_set_level(ICV_LOG_WARN);
    for (size_t i = 0; i < sizeof clips / sizeof clips[0]; i++) {
        const clip *c = &clips[i];
        if (!icv_file_exists(c->path)) {
            char cmd[1024];
            snprintf(cmd, sizeof cmd, "ffmpeg -nostdin -v error -y %s '%s'", c->make, c->path);
            if (system(cmd) != 0) {
                fprintf(stderr, "bench_capture: cannot make %s\n", c->path);
                return 1;
            }
        }
        long frames = 0;
        double ours = 1e30, theirs = 1e30, start = 1e30;
        for (int r = 0; r < 5; r++) {
            double a = run_source(c->path, &frames), b = run_ffmpeg(c->path, 0), z = run_ffmpeg(c->path, 1);
            if (a < ours)
                ours = a;
            if (b < theirs)
                theirs = b;
            if (z < start)
                start = z;
        }
        double fps_ours = frames / ours, fps_theirs = frames / theirs, ratio = fps_ours / fps_theirs;
        double net = theirs - start > 1e-6 ? theirs - start : 1e-6;
        printf("%-36s %5ld frames  capture_source %8.1f fps  ffmpeg -f null %8.1f fps  ratio %.2f (goal >= 1.0) %s\n",
               c->path, frames, fps_ours, fps_theirs, ratio, ratio >= 1.0 ? "met" : "NOT met");
        printf("%-36s       ffmpeg start-up (1 frame) %.3f s; ratio with it removed from ffmpeg's time %.2f\n", "",
               start, (frames / ours) / (frames / net));
    }
    return 0; /* figures, not a gate: make bench never fails on timing */
}
