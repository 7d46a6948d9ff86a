/* bench_track.c: detection plus tracking speed on one core, decode excluded
 * (issue #8 performance goals): a 512x418 8-bit clip with 3 markers once acquired
 * (windowed, goal >= 20,000 frames/s) and full-frame scans at 1280x720 (goal >=
 * 1,500 frames/s). Frames are drawn in memory first; markers move on circles whose
 * period is the clip length, so the clip loops without a jump. Rates are frames per
 * second of this thread's CPU time, best of 3 runs. Allocations in the
 * per-frame loop are counted by replacing malloc for this binary (glibc allows it;
 * the replacements forward to __libc_malloc and friends). The dark look's full scan
 * (its black top-hat) is timed against the bright one on the same frames.
 *
 * The peer (issue #18): what a user would otherwise write with OpenCV, timed in the
 * same run on the same frames in memory and on one core (cv::setNumThreads(1)):
 * cv::threshold + cv::connectedComponentsWithStats + a centroid per blob weighted by
 * I - threshold over its box from the labels image (bench/cv_peer_bridge.cpp), with
 * OpenCV's default labelling (what a user gets) and with CCL_GRANA (BBDT, the fastest
 * on one thread here). Its threshold is the level our full scan set on these
 * frames. Full scan: the 1280x720 frames. Windowed: the tracker's windows are private
 * (tracker.c), so the peer gets, per frame, one square window round each marker's
 * true position, their area the area our detector searched in that frame
 * (stats.n_pixels). It must find what we find (count, centroids within 0.5 px):
 * printed as the agreement. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "bench/cv_peer_bridge.h"
#include "track/track.h"

/* CPU time of this thread (s): the figure "on one core", which other jobs sharing
 * the machine do not inflate the way they do wall time. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
void *memalign(size_t, size_t);

static volatile long n_alloc_calls;
static volatile int counting;

void *malloc(size_t n)
{
    if (counting)
        n_alloc_calls++;
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    if (counting)
        n_alloc_calls++;
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    if (counting)
        n_alloc_calls++;
    return __libc_realloc(p, n);
}
void free(void *p)
{
    __libc_free(p);
}
/* OpenCV's cv::fastMalloc allocates with posix_memalign: counted too */
int posix_memalign(void **p, size_t al, size_t n)
{
    if (al < sizeof(void *) || (al & (al - 1)))
        return EINVAL;
    if (counting)
        n_alloc_calls++;
    *p = __libc_memalign(al, n);
    return *p ? 0 : ENOMEM;
}
void *aligned_alloc(size_t al, size_t n)
{
    if (counting)
        n_alloc_calls++;
    return __libc_memalign(al, n);
}
void *memalign(size_t al, size_t n)
{
    if (counting)
        n_alloc_calls++;
    return __libc_memalign(al, n);
}

static uint32_t lcg = 12345;
static double noise(void)
{
    double s = 0; /* sum of 4 uniforms: near-Gaussian, sd 1 after scaling */
    for (int i = 0; i < 4; i++) {
        lcg = lcg * 1664525u + 1013904223u;
        s += (lcg >> 8) / 16777216.0;
    }
    return (s - 2) * sqrt(3.0);
}

/* Marker k's true centre (px) in frame f of an n_frames clip of w x h. */
static void marker_uv(int w, int h, int f, int n_frames, int k, double *u, double *v)
{
    double a = 2 * M_PI * f / n_frames + k * 2.0;
    *u = w / 2.0 + 0.3 * w * cos(a);
    *v = h / 2.0 + 0.3 * h * sin(a);
}

/* n_frames frames of w x h, 3 markers (sigma 1.5 px, peak 200 over 20, noise 2). */
static uint8_t *make_clip(int w, int h, int n_frames)
{
    uint8_t *clip = malloc((size_t)w * h * n_frames);
    if (!clip)
        return NULL;
    for (int f = 0; f < n_frames; f++) {
        uint8_t *im = clip + (size_t)w * h * f;
        for (int i = 0; i < w * h; i++) {
            double p = 20 + 2 * noise();
            im[i] = (uint8_t)(p < 0 ? 0 : p > 255 ? 255 : p + 0.5);
        }
        for (int k = 0; k < 3; k++) {
            double cu, cv;
            marker_uv(w, h, f, n_frames, k, &cu, &cv);
            for (int y = (int)cv - 6; y <= (int)cv + 6; y++)
                for (int x = (int)cu - 6; x <= (int)cu + 6; x++) {
                    double d2 = (x - cu) * (x - cu) + (y - cv) * (y - cv);
                    double p = im[y * w + x] + 200 * exp(-d2 / (2 * 1.5 * 1.5));
                    im[y * w + x] = (uint8_t)(p > 255 ? 255 : p);
                }
        }
    }
    return clip;
}

/* Runs the tracker over n steps of the looping clip; returns frames/s and the
 * allocation calls made inside the loop. */
static int legacy; /* 1: the detector before local contrast (one level, no split) */

static double run(const void *clip, int depth, int w, int h, int n_frames, long steps, int n_expected, long *allocs,
                  double *points_per_frame)
{
    track_detector *det = track_detector_alloc(w, h, NULL);
    track_tracker *tr = track_tracker_alloc(NULL);
    if (!det || !tr)
        return 0;
    if (legacy) {
        det->background_tile_px = 0;
        det->split_components = 0;
    }
    tr->n_expected = n_expected;
    track_point pts[TRACK_MAX_TRACKS];
    int np;
    long total = 0;
    /* acquire first (not timed): the windowed figure is "once acquired" */
    for (int f = 0; f < 5; f++) {
        track_frame fr = {(const char *)clip + (size_t)w * h * (depth / 8) * (f % n_frames), w, h, w * (depth / 8),
                          depth};
        track_tracker_step(tr, det, &fr, pts, TRACK_MAX_TRACKS, &np, NULL);
    }
    n_alloc_calls = 0;
    counting = 1;
    double t0 = cpu_now();
    for (long s = 5; s < steps + 5; s++) {
        track_frame fr = {(const char *)clip + (size_t)w * h * (depth / 8) * (s % n_frames), w, h, w * (depth / 8),
                          depth};
        track_tracker_step(tr, det, &fr, pts, TRACK_MAX_TRACKS, &np, NULL);
        total += np;
    }
    double dt = cpu_now() - t0;
    counting = 0;
    *allocs = n_alloc_calls;
    *points_per_frame = (double)total / steps;
    track_tracker_free(tr);
    track_detector_free(det);
    return steps / dt;
}

/* ---- the OpenCV peer ---------------------------------------------------- */

#define N_MARKERS 3
#define PEER_MAX 64

/* How the peer's blobs agree with ours, frame by frame. */
typedef struct {
    int frames, same_count;     /* frames compared; with as many peer blobs as ours */
    int n_ours, n_within;       /* our blobs; those with a peer blob within 0.5 px */
    double max_d, sum_d2;       /* px: our blob to the nearest peer blob */
    int n_t_ours, n_t_peer;     /* blobs compared with the truth */
    double t2_ours, t2_peer;    /* px^2: squared distance to the nearest true centre */
} agreement;

static double nearest(double u, double v, const double *uv, int n)
{
    double best = INFINITY;
    for (int j = 0; j < n; j++)
        best = fmin(best, hypot(u - uv[2 * j], v - uv[2 * j + 1]));
    return best;
}

static void agree(agreement *g, const double *ours, int n_ours, const double *peer, int n_peer, const double *truth)
{
    g->frames++;
    g->same_count += n_ours == n_peer;
    for (int i = 0; i < n_ours; i++) {
        double d = nearest(ours[2 * i], ours[2 * i + 1], peer, n_peer);
        g->n_ours++;
        g->n_within += d <= 0.5;
        g->max_d = fmax(g->max_d, d);
        if (isfinite(d))
            g->sum_d2 += d * d;
        d = nearest(ours[2 * i], ours[2 * i + 1], truth, N_MARKERS);
        g->t2_ours += d * d;
        g->n_t_ours++;
    }
    for (int j = 0; j < n_peer; j++) {
        double d = nearest(peer[2 * j], peer[2 * j + 1], truth, N_MARKERS);
        g->t2_peer += d * d;
        g->n_t_peer++;
    }
}

static void truth_of(int w, int h, int f, int nf, double *truth)
{
    for (int k = 0; k < N_MARKERS; k++)
        marker_uv(w, h, f, nf, k, &truth[2 * k], &truth[2 * k + 1]);
}

/* Full scans of our detector over the clip (a first pass learns the markers' peak for
 * the auto threshold, as the tracker's scans do), the peer on each frame of the second
 * pass at the level our scan set there. Returns that level's range in *t_lo, *t_hi. */
static int peer_agree_full(cvp_peer *p, const uint8_t *clip, int w, int h, int nf, agreement *g, double *t_lo,
                           double *t_hi)
{
    track_detector *det = track_detector_alloc(w, h, NULL);
    if (!det)
        return -1;
    track_blob blobs[PEER_MAX];
    double ours[2 * PEER_MAX], peer[2 * PEER_MAX], truth[2 * N_MARKERS];
    char msg[256] = "";
    *t_lo = INFINITY, *t_hi = -INFINITY;
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f < nf; f++) {
            track_frame fr = {clip + (size_t)w * h * f, w, h, w, 8};
            int nb = 0, np = 0;
            if (track_detector_detect(det, &fr, NULL, 0, blobs, PEER_MAX, &nb, NULL) != 0)
                goto fail;
            if (pass == 0)
                continue;
            double thr = floor(det->stats.threshold);
            *t_lo = fmin(*t_lo, thr), *t_hi = fmax(*t_hi, thr);
            if (cvp_detect(p, fr.data, w, h, w, thr, (int)ceil(det->min_area_px), NULL, 0, peer, NULL, PEER_MAX, &np,
                           msg, sizeof msg) != 0)
                goto fail;
            for (int i = 0; i < nb; i++)
                ours[2 * i] = blobs[i].u, ours[2 * i + 1] = blobs[i].v;
            truth_of(w, h, f, nf, truth);
            agree(g, ours, nb, peer, np < PEER_MAX ? np : PEER_MAX, truth);
        }
    track_detector_free(det);
    return 0;
fail:
    fprintf(stderr, "bench_track: peer full scan: %s\n", msg);
    track_detector_free(det);
    return -1;
}

/* Our tracker over the windowed clip (acquired, then two loops); in the second loop,
 * per frame f, the area our detector searched (stats.n_pixels) gives N_MARKERS square
 * windows of that total area round the true centres, written to rects[f] (x, y, w, h
 * each), and the peer's blobs in them are compared with the tracker's points. */
static int peer_windows(cvp_peer *p, const uint8_t *clip, int w, int h, int nf, double thr, int min_area, int *rects,
                        agreement *g, double *mean_side, int *n_windowed, int *n_three)
{
    track_detector *det = track_detector_alloc(w, h, NULL);
    track_tracker *tr = track_tracker_alloc(NULL);
    char msg[256] = "";
    if (!det || !tr)
        goto fail;
    tr->n_expected = N_MARKERS;
    track_point pts[TRACK_MAX_TRACKS];
    double ours[2 * TRACK_MAX_TRACKS], peer[2 * PEER_MAX], truth[2 * N_MARKERS], side_sum = 0;
    *n_windowed = *n_three = 0;
    for (long s = 0; s < 5 + 2L * nf; s++) {
        int f = (int)(s % nf), np = 0, no = 0;
        track_frame fr = {clip + (size_t)w * h * f, w, h, w, 8};
        if (track_tracker_step(tr, det, &fr, pts, TRACK_MAX_TRACKS, &np, NULL) != 0)
            goto fail;
        if (s < 5 + nf)
            continue;
        *n_windowed += !det->stats.full_scan;
        *n_three += det->stats.n_windows == N_MARKERS;
        int side = (int)lround(sqrt((double)det->stats.n_pixels / N_MARKERS));
        side_sum += side;
        truth_of(w, h, f, nf, truth);
        int *r = rects + (size_t)f * N_MARKERS * 4;
        for (int k = 0; k < N_MARKERS; k++) {
            r[4 * k] = (int)lround(truth[2 * k]) - side / 2;
            r[4 * k + 1] = (int)lround(truth[2 * k + 1]) - side / 2;
            r[4 * k + 2] = r[4 * k + 3] = side;
        }
        int npeer = 0;
        if (cvp_detect(p, fr.data, w, h, w, thr, min_area, r, N_MARKERS, peer, NULL, PEER_MAX, &npeer, msg,
                       sizeof msg) != 0)
            goto fail;
        for (int i = 0; i < np; i++)
            if (pts[i].frame_offset == 0 && !(pts[i].flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED))) {
                ours[2 * no] = pts[i].u, ours[2 * no + 1] = pts[i].v;
                no++;
            }
        agree(g, ours, no, peer, npeer < PEER_MAX ? npeer : PEER_MAX, truth);
    }
    *mean_side = side_sum / nf;
    track_tracker_free(tr);
    track_detector_free(det);
    return 0;
fail:
    fprintf(stderr, "bench_track: peer windows: %s\n", msg[0] ? msg : "our tracker failed");
    track_tracker_free(tr);
    track_detector_free(det);
    return -1;
}

/* The detector alone, full scans of the looping 1280x720 8-bit clip in the bright or
 * the dark look (the clip inverted: dark markers on a light floor), markers of 12.7 px
 * as sample 01's (the dark look's black top-hat at r 13): ms a frame of this thread's
 * CPU time, best of 3, and blobs a frame. */
static double look_scan_ms(const uint8_t *clip, int nf, int dark, long steps, double *blobs_per_frame)
{
    const int w = 1280, h = 720;
    uint8_t *inv = dark ? malloc((size_t)w * h * nf) : NULL;
    track_detector *det = track_detector_alloc(w, h, NULL);
    if ((dark && !inv) || !det) {
        free(inv);
        track_detector_free(det);
        return 0;
    }
    if (dark)
        for (size_t i = 0; i < (size_t)w * h * nf; i++)
            inv[i] = (uint8_t)(255 - clip[i]);
    track_detector_set_marker_size(det, 12.7, det->max_streak_px);
    det->static_frames = 0;
    det->n_markers = 3;
    det->look = dark ? TRACK_LOOK_DARK : TRACK_LOOK_BRIGHT;
    track_blob out[64];
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        long total = 0;
        double t0 = cpu_now();
        for (long s = 0; s < steps; s++) {
            track_frame fr = {(dark ? inv : clip) + (size_t)w * h * (s % nf), w, h, w, 8};
            int n = 0;
            track_detector_detect(det, &fr, NULL, 0, out, 64, &n, NULL);
            total += n;
        }
        double ms = 1e3 * (cpu_now() - t0) / steps;
        best = rep == 0 || ms < best ? ms : best;
        *blobs_per_frame = (double)total / steps;
    }
    free(inv);
    track_detector_free(det);
    return best;
}

/* The peer over steps frames of the looping clip, whole frames (rects NULL) or the
 * frame's N_MARKERS windows; returns frames/s (0 on an OpenCV error) and the
 * allocation calls in the loop. */
static double peer_rate(cvp_peer *p, const uint8_t *clip, int w, int h, int nf, long steps, double thr,
                        int min_area, const int *rects, long *allocs, double *blobs_per_frame)
{
    double uv[2 * PEER_MAX];
    char msg[256] = "";
    int n = 0, rc = 0;
    long total = 0;
    /* one call first: OpenCV sizes its stats rows to the label count */
    rc |= cvp_detect(p, clip, w, h, w, thr, min_area, rects, rects ? N_MARKERS : 0, uv, NULL, PEER_MAX, &n, msg,
                     sizeof msg);
    n_alloc_calls = 0;
    counting = 1;
    double t0 = cpu_now();
    for (long s = 0; s < steps; s++) {
        int f = (int)(s % nf);
        rc |= cvp_detect(p, clip + (size_t)w * h * f, w, h, w, thr, min_area,
                         rects ? rects + (size_t)f * N_MARKERS * 4 : NULL, rects ? N_MARKERS : 0, uv, NULL, PEER_MAX,
                         &n, msg, sizeof msg);
        total += n;
    }
    double dt = cpu_now() - t0;
    counting = 0;
    *allocs = n_alloc_calls;
    *blobs_per_frame = (double)total / steps;
    if (rc != 0) {
        fprintf(stderr, "bench_track: peer: %s\n", msg);
        return 0;
    }
    return steps / dt;
}

int main(void)
{
    gsl_set_error_handler_off(); /* the program's policy, as in cli/main.c */
    const int nf = 200;
    uint8_t *a = make_clip(512, 418, nf);
    uint8_t *b = make_clip(1280, 720, 50);
    if (!a || !b) {
        fprintf(stderr, "bench_track: out of memory\n");
        return 1;
    }
    /* the counter counts: one malloc while counting must show as one */
    n_alloc_calls = 0;
    counting = 1;
    void *probe = malloc(16);
    counting = 0;
    free(probe);
    if (n_alloc_calls != 1) {
        fprintf(stderr, "bench_track: the allocation counter does not see malloc\n");
        return 1;
    }
    double best_w = 0, best_f = 0, ppf_w = 0, ppf_f = 0;
    long al_w = 0, al_f = 0;
    for (int rep = 0; rep < 3; rep++) {
        long al;
        double ppf;
        double fps = run(a, 8, 512, 418, nf, 200000, 3, &al, &ppf);
        if (fps > best_w)
            best_w = fps, ppf_w = ppf;
        al_w += al;
        fps = run(b, 8, 1280, 720, 50, 3000, 0, &al, &ppf);
        if (fps > best_f)
            best_f = fps, ppf_f = ppf;
        al_f += al;
    }
    /* the old detector (one level for the frame, no split), timed in the same run */
    double old_w = 0, old_f = 0;
    legacy = 1;
    for (int rep = 0; rep < 3; rep++) {
        long al;
        double ppf;
        double fps = run(a, 8, 512, 418, nf, 200000, 3, &al, &ppf);
        old_w = fps > old_w ? fps : old_w;
        fps = run(b, 8, 1280, 720, 50, 3000, 0, &al, &ppf);
        old_f = fps > old_f ? fps : old_f;
    }
    legacy = 0;
    /* 16-bit (the same scene x 256): no goal in the issue, printed for information */
    uint16_t *b16 = malloc(sizeof(uint16_t) * 1280 * 720 * 50);
    double fps16 = 0, ppf16 = 0;
    long al16 = 0;
    if (b16) {
        for (size_t i = 0; i < (size_t)1280 * 720 * 50; i++)
            b16[i] = (uint16_t)(b[i] * 256);
        fps16 = run(b16, 16, 1280, 720, 50, 1000, 0, &al16, &ppf16);
        free(b16);
    }
    printf("detect+track 512x418 8-bit, 3 markers, windowed: %.0f frames/s (goal 20000: ratio %.2f), "
           "%.2f points/frame, %ld allocations in the frame loop\n",
           best_w, best_w / 20000, ppf_w, al_w);
    printf("detect+track 1280x720 8-bit, full-frame scan:    %.0f frames/s (goal 1500: ratio %.2f), "
           "%.2f points/frame, %ld allocations in the frame loop\n",
           best_f, best_f / 1500, ppf_f, al_f);
    printf("detect+track 1280x720 16-bit, full-frame scan:   %.0f frames/s (no goal), %.2f points/frame, "
           "%ld allocations in the frame loop\n",
           fps16, ppf16, al16);
    printf("old detector (one level, no split), same run: windowed %.0f frames/s (new/old %.2f), full scan %.0f "
           "frames/s (new/old %.2f)\n",
           old_w, best_w / old_w, old_f, best_f / old_f);

    double blobs_bright = 0, blobs_dark = 0;
    double ms_bright = look_scan_ms(b, 50, 0, 300, &blobs_bright), ms_dark = look_scan_ms(b, 50, 1, 300, &blobs_dark);
    printf("full scan 1280x720 8-bit, detector alone, markers 12.7 px: bright %.2f ms (%.2f blobs/frame), dark "
           "look (black top-hat r 13, the clip inverted) %.2f ms (%.2f blobs/frame), dark/bright %.2f\n",
           ms_bright, blobs_bright, ms_dark, blobs_dark, ms_dark / ms_bright);

    /* the peer, on the same frames, one thread: OpenCV's default labelling (what a
       user gets) and BBDT (CCL_GRANA, the fastest on one thread here) */
    enum { N_PEERS = 2 };
    static const int ccl[N_PEERS] = {CVP_CCL_DEFAULT, CVP_CCL_GRANA};
    static const char *const ccl_name[N_PEERS] = {"default (Spaghetti)", "CCL_GRANA (BBDT)"};
    char msg[256] = "";
    cvp_peer *peer[N_PEERS] = {NULL, NULL};
    for (int k = 0; k < N_PEERS; k++)
        peer[k] = cvp_init(1280, 720, ccl[k], msg, sizeof msg);
    int *rects = malloc(sizeof(int) * nf * N_MARKERS * 4);
    if (!peer[0] || !peer[1] || !rects) {
        fprintf(stderr, "bench_track: peer: %s\n", msg[0] ? msg : "out of memory");
        return 1;
    }
    agreement g_full[N_PEERS] = {{0}}, g_win[N_PEERS] = {{0}};
    double t_lo, t_hi, side = 0, thr = 0;
    int n_windowed = 0, n_three = 0;
    const int min_area = 4; /* px: our detector's min_area_px (default), as a user drops specks */
    for (int k = 0; k < N_PEERS; k++) {
        if (peer_agree_full(peer[k], b, 1280, 720, 50, &g_full[k], &t_lo, &t_hi) != 0)
            return 1;
        thr = t_hi; /* the level our full scan set on these frames (they are alike) */
        if (peer_windows(peer[k], a, 512, 418, nf, thr, min_area, rects, &g_win[k], &side, &n_windowed, &n_three) !=
            0)
            return 1;
    }
    double cv_f[N_PEERS] = {0}, cv_w[N_PEERS] = {0}, cv_a[N_PEERS] = {0}, bpf_f = 0, bpf_w = 0, bpf_a = 0;
    long cal_f[N_PEERS] = {0}, cal_w[N_PEERS] = {0};
    const long st_f = 300, st_w = 20000, st_a = 1000;
    for (int rep = 0; rep < 3; rep++)
        for (int k = 0; k < N_PEERS; k++) {
            long al;
            double fps = peer_rate(peer[k], b, 1280, 720, 50, st_f, thr, min_area, NULL, &al, &bpf_f);
            cv_f[k] = fps > cv_f[k] ? fps : cv_f[k];
            cal_f[k] += al;
            fps = peer_rate(peer[k], a, 512, 418, nf, st_w, thr, min_area, rects, &al, &bpf_w);
            cv_w[k] = fps > cv_w[k] ? fps : cv_w[k];
            cal_w[k] += al;
            fps = peer_rate(peer[k], a, 512, 418, nf, st_a, thr, min_area, NULL, &al, &bpf_a);
            cv_a[k] = fps > cv_a[k] ? fps : cv_a[k];
        }
    for (int k = 0; k < N_PEERS; k++)
        if (cv_f[k] <= 0 || cv_w[k] <= 0 || cv_a[k] <= 0)
            return 1;
    printf("OpenCV peer: cv::threshold > %.0f (our full scan's level), connectedComponentsWithStats (8-connected), "
           "centroid weighted by I - %.0f over each box from the labels image, areas >= %d px; same frames in "
           "memory, %d thread (cv::setNumThreads(1)), best of 3; blobs/frame %.2f full, %.2f windowed:\n",
           thr, thr, min_area, cvp_num_threads(), bpf_f, bpf_w);
    for (int k = 0; k < N_PEERS; k++)
        printf("  %-20s full frame 1280x720 %.0f frames/s (issue: ~280), ours/OpenCV %.2f; windowed 512x418 %.0f "
               "frames/s, ours/OpenCV %.2f; full frame 512x418 %.0f frames/s (issue: ~1,180; no ratio); "
               "allocations/frame %.1f full, %.1f windowed\n",
               ccl_name[k], cv_f[k], best_f / cv_f[k], cv_w[k], best_w / cv_w[k], cv_a[k],
               (double)cal_f[k] / (3 * st_f), (double)cal_w[k] / (3 * st_w));
    printf("  windowed: %d ROIs of %.1f px square a frame, round the true centres, their area the area our detector "
           "searched (our tracker's windows are private; it searched %d windows in %d/%d frames)\n",
           N_MARKERS, side, N_MARKERS, n_three, nf);
    const agreement *gf = &g_full[0], *gw = &g_win[0];
    int same = gf->n_within == g_full[1].n_within && gf->same_count == g_full[1].same_count &&
               gf->max_d == g_full[1].max_d && gw->n_within == g_win[1].n_within &&
               gw->same_count == g_win[1].same_count && gw->max_d == g_win[1].max_d;
    printf("agreement, full scan (1280x720, %d frames, level %.0f-%.0f): same count in %d/%d frames, %d/%d of our "
           "centroids with the peer's within 0.5 px (max %.3f px, RMS %.3f px); RMS to truth ours %.3f px, "
           "OpenCV %.3f px\n",
           gf->frames, t_lo, t_hi, gf->same_count, gf->frames, gf->n_within, gf->n_ours, gf->max_d,
           sqrt(gf->sum_d2 / (gf->n_ours ? gf->n_ours : 1)), sqrt(gf->t2_ours / (gf->n_t_ours ? gf->n_t_ours : 1)),
           sqrt(gf->t2_peer / (gf->n_t_peer ? gf->n_t_peer : 1)));
    printf("agreement, windowed (512x418, %d frames, %d windowed): same count in %d/%d frames, %d/%d of our "
           "points with the peer's within 0.5 px (max %.3f px, RMS %.3f px); RMS to truth ours %.3f px, "
           "OpenCV %.3f px; BBDT's blobs %s\n",
           gw->frames, n_windowed, gw->same_count, gw->frames, gw->n_within, gw->n_ours, gw->max_d,
           sqrt(gw->sum_d2 / (gw->n_ours ? gw->n_ours : 1)), sqrt(gw->t2_ours / (gw->n_t_ours ? gw->n_t_ours : 1)),
           sqrt(gw->t2_peer / (gw->n_t_peer ? gw->n_t_peer : 1)), same ? "the same" : "DIFFER");
    for (int k = 0; k < N_PEERS; k++)
        cvp_free(peer[k]);
    free(rects);
    free(a);
    free(b);
    return 0;
}
