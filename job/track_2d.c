/* track_2d.c: the track stage's 2D pass: every camera's video decoded once (the
 * cameras concurrently), brightness for the flash and duplicated frames on the way,
 * detector + Kalman tracker per frame; then bad input said (nothing found, far too many
 * blobs, nothing moving), the markers' gaps and why, repeated pictures dropped, and the
 * points undistorted and indexed by frame for the sync and the 3D pass. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "capture/capture.h"
#include "job/job_track_internal.h"

static int cmp_raw(const void *a, const void *b)
{
    const track_raw_point *x = a, *y = b;
    if (x->frame != y->frame)
        return x->frame < y->frame ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int push_raw(job_track_camera *c, const track_raw_point *p, icv_err *err)
{
    if (c->n_raw == c->cap_raw) { /* amortised: capacity doubles, rarely after the first guess */
        long cap = c->cap_raw ? 2 * c->cap_raw : 1024;
        track_raw_point *r = realloc(c->raw, sizeof *r * (size_t)cap);
        if (!r)
            return icv_err_set(err, ICV_ENOMEM, "out of memory");
        c->raw = r;
        c->cap_raw = cap;
    }
    c->raw[c->n_raw++] = *p;
    return 0;
}

/* Mean gray level of an 8-bit frame for the flash: every eighth row (a flash lights
 * every row; a rolling shutter's row structure is kept at 8-row resolution; the rows
 * left average the noise far below a flash's step), summed in 32-bit integers a row at
 * a time so the compiler vectorises it: capture_frame_mean (doubles, every pixel) costs
 * a quarter of the decoding (docs/pipeline.md, "The stage's settings, measured"). */
static double frame_brightness(const capture_frame *f)
{
    if (f->bytes_per_sample != 1 || f->width > (1 << 23))
        return capture_frame_mean(f);
    uint64_t sum = 0;
    long n = 0;
    for (int y = 0; y < f->height; y += 8) {
        const uint8_t *row = (const uint8_t *)f->data + (size_t)y * f->stride;
        uint32_t s = 0;
        for (int x = 0; x < f->width; x++)
            s += row[x];
        sum += s;
        n += f->width;
    }
    return n ? (double)sum / n : 0;
}

/* What the cameras' concurrent passes share (cameras_track): the progress bar, drawn
 * under the lock, and a failure, which stops the other cameras at their next frame. */
typedef struct {
    pthread_mutex_t lock;
    icv_progress *pg;  /* NULL: none (a pass begun early) */
    long done;         /* frames tracked by every camera (under lock) */
    atomic_int *stop;  /* a camera failed: the others stop */
} pass_shared;

static void pass_frame_done(pass_shared *sh)
{
    if (!sh->pg)
        return;
    pthread_mutex_lock(&sh->lock);
    icv_progress_update(sh->pg, ++sh->done);
    pthread_mutex_unlock(&sh->lock);
}

/* One decoding pass over a camera's frames: brightness, duplicated frames, detector
 * and tracker. The previous frame stays in the second of two buffers (swapped, not
 * copied) for the duplicate test: two identical frames have the same brightness to the
 * bit, so only a frame whose brightness equals its predecessor's is compared pixel by
 * pixel (capture_frame_equal; while the body is still, a few per clip). Found only with
 * the brightness (want_brightness), where the sidecar reports them. */
static int camera_track(job_track_camera *c, pass_shared *sh, icv_err *err)
{
    capture_frame buf[2];
    memset(buf, 0, sizeof buf);
    int rc = capture_frame_alloc(&buf[0], c->info, err);
    if (!rc)
        rc = capture_frame_alloc(&buf[1], c->info, err);
    if (rc) {
        capture_frame_free(&buf[0]);
        return rc;
    }
    capture_frame *cur = &buf[0], *prev = &buf[1];
    /* the frames read: a kept frame in place (the setup's), a decoded picture needing
       no conversion lent in place (capture_source_read_next), else in cur's buffer;
       prev's pixels in the other buffer, kept or lent */
    capture_frame curv, prevv = {0};
    long prev_index = -1; /* the frame in prevv; -1 none */
    enum { MAXP = TRACK_MAX_TRACKS * 4 };
    track_point out[MAXP];
    double last_b = 0;
    long k = 0;
    memset(c->beside_hist, 0, sizeof c->beside_hist); /* this pass's look (a retry's own) */
    capture_source_keep_stop(c->src); /* the setup's frames are read again; no copy per frame */
    if (c->first > 0 && (rc = capture_source_seek(c->src, c->first, err)) != 0)
        icv_err_prefix(err, "camera '%s': cameras[].frames: ", c->spec->id);
    for (; !rc;) {
        if (atomic_load_explicit(sh->stop, memory_order_relaxed))
            break; /* another camera failed: the job fails with its error */
        double t0 = icv_now();
        rc = capture_source_read_next(c->src, cur, &curv, err);
        c->t_decode += icv_now() - t0;
        const capture_frame fr = curv; /* the frame's fields, read-only below */
        if (rc == CAPTURE_EOF) {
            rc = 0;
            break;
        }
        if (rc) {
            icv_err_prefix(err, "camera '%s': ", c->spec->id);
            break;
        }
        if (fr.index >= c->frames)
            break;
        for (; k < fr.index; k++) /* lost frames: brightness held */
            c->bright[k] = last_b;
        if (c->want_brightness) {
            double tm = icv_now();
            double b = frame_brightness(&fr);
            /* only against the frame just before: after a lost frame, prev is not it */
            if (prev_index >= 0 && prev_index == fr.index - 1 && b == last_b && capture_frame_equal(&fr, &prevv))
                c->dup[c->n_dup++] = fr.index;
            last_b = c->bright[fr.index] = b;
            c->t_mean += icv_now() - tm;
        }
        k = fr.index + 1;
        track_frame tf = {fr.data, fr.width, fr.height, (int)fr.stride, fr.bytes_per_sample * 8};
        int np = 0;
        if (!c->primed) {
            /* one full scan first: the automatic threshold learns the markers' peak, so
               the tracker's first frame is not thresholded at the noise floor (which
               joins a band to a lit plate behind it and loses that frame) */
            track_blob blobs[64];
            int nb = 0;
            rc = track_detector_detect(c->det, &tf, NULL, 0, blobs, 64, &nb, err);
            if (rc) {
                icv_err_prefix(err, "camera '%s': frame %ld: ", c->spec->id, fr.index);
                break;
            }
            c->primed = 1;
        }
        double ts = icv_now();
        rc = track_tracker_step(c->tr, c->det, &tf, out, MAXP, &np, err);
        c->t_step += icv_now() - ts;
        if (rc) {
            icv_err_prefix(err, "camera '%s': frame %ld: ", c->spec->id, fr.index);
            break;
        }
        const track_detect_stats *st = &c->det->stats;
        if (c->debug_frames && icv_log_get_level() >= ICV_LOG_DEBUG) {
            char line[512];
            icv_debug("camera '%s' frame %ld: %d points; %s", c->spec->id, fr.index, np,
                      track_detector_describe(c->det, line, sizeof line));
        }
        if (st->full_scan) {
            c->full_scans++;
            c->last_threshold = st->threshold;
            if (st->n_candidates > c->max_components)
                c->max_components = st->n_candidates;
        }
        if (st->brightest > c->brightest)
            c->brightest = st->brightest;
        c->crowded_scans += st->full_scan && st->n_candidates > c->blob_limit;
        for (int i = 0; i < np && c->want_beside; i++) /* this frame's detections only */
            if (out[i].frame_offset == 0 && !(out[i].flags & TRACK_FLAG_COASTED)) {
                double b = track_detector_bead_beside(c->det, &tf, out[i].u, out[i].v, 0.5 * c->dpx);
                if (b >= 0)
                    c->beside_hist[(int)lround(b * (JOB_BESIDE_BINS - 1))]++;
            }
        for (int i = 0; i < np; i++) {
            track_raw_point p = {fr.index + out[i].frame_offset, out[i].marker, out[i].u, out[i].v, out[i].sigma,
                                 out[i].area, out[i].flags, out[i].pred_u, out[i].pred_v};
            if (p.frame < 0)
                continue;
            if ((rc = push_raw(c, &p, err)) != 0)
                break;
        }
        if (rc)
            break;
        pass_frame_done(sh);
        prev_index = fr.index;
        prevv = fr;
        capture_frame *t = prev;
        prev = cur, cur = t;
    }
    for (; k < c->frames; k++)
        c->bright[k] = last_b;
    capture_frame_free(&buf[0]);
    capture_frame_free(&buf[1]);
    if (!rc) { /* frames the decoder lost: the capture's error, not markers "not found" */
        const long *lost;
        size_t n_lost;
        capture_source_lost(c->src, &lost, &n_lost);
        if (n_lost)
            rc = icv_err_set(err, ICV_EFORMAT,
                             "camera '%s': %s: truncated or corrupt stream: %zu of %ld frames lost (from frame %ld; "
                             "impactcv probe lists them)",
                             c->spec->id, c->spec->video, n_lost, c->frames, lost[0]);
    }
    return rc;
}

typedef struct {
    job_track_camera *cam;
    pass_shared *sh;
    int rc;
    icv_err err;
} camera_pass;

static void *camera_pass_run(void *arg)
{
    camera_pass *p = arg;
    p->rc = camera_track(p->cam, p->sh, &p->err);
    if (p->rc)
        atomic_store(p->sh->stop, 1);
    return NULL;
}

/* every body a ball that is its own marker: seen lighter than a dark room and darker
   than a lit plate, so a lost track is looked for in the opposite look too */
static int balls_opposite(const icv_experiment *exp)
{
    int balls = exp->n_bodies >= 1;
    for (int b = 0; b < exp->n_bodies; b++)
        balls &= exp->bodies[b].n_markers == 1 && exp->bodies[b].shape.type == ICV_SHAPE_SPHERE &&
                 exp->bodies[b].marker_diameter >= 1.8 * exp->bodies[b].shape.radius;
    return balls;
}

void job_track_pass_early(job_track *j, job_track_camera *c)
{
    pass_shared sh = {.pg = NULL, .stop = &j->early_stop};
    c->tr->opposite_look = balls_opposite(&j->exp);
    c->pass_rc = camera_track(c, &sh, &c->pass_err);
    c->passed = 1;
    if (c->pass_rc)
        atomic_store(&j->early_stop, 1);
}

/* 2D: every camera's frames once, the cameras concurrently (each camera's state is its
 * own: source, detector, tracker, points): camera 0 in the calling thread, each other
 * in a thread of its own (or after camera 0 when a thread cannot be made). The first
 * failure stops the others at their next frame; the error returned is that of the
 * first camera, in experiment.yaml's order, that failed rather than stopped. */
static int cameras_track(job_track_camera *cams, int nc, icv_progress *pg, icv_err *err)
{
    atomic_int stop;
    atomic_init(&stop, 0);
    pass_shared sh = {.pg = pg, .stop = &stop};
    if (pthread_mutex_init(&sh.lock, NULL))
        return icv_err_set(err, ICV_ENOMEM, "cannot make a mutex for the cameras' decoding passes");
    camera_pass pass[ICV_MAX_CAMERAS];
    int n = 0, early_failed = 0;
    for (int c = 0; c < nc; c++) { /* those not passed early (job_track_pass_early) */
        early_failed |= cams[c].passed && cams[c].pass_rc;
        if (!cams[c].passed)
            pass[n++] = (camera_pass){&cams[c], &sh, 0, {0}};
    }
    if (!early_failed) /* else the others stop, as after any camera's failure */
        icv_run_each(camera_pass_run, pass, sizeof *pass, n); /* core/run_each.c */
    pthread_mutex_destroy(&sh.lock);
    for (int c = 0, k = 0; c < nc; c++) {
        int rc = cams[c].passed ? cams[c].pass_rc : pass[k].rc;
        if (rc) {
            *err = cams[c].passed ? cams[c].pass_err : pass[k].err;
            return rc;
        }
        k += !cams[c].passed;
    }
    return 0;
}

static long raw_frame_start(const job_track_camera *c, long f)
{
    long lo = 0, hi = c->n_raw;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (c->raw[mid].frame < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int push_gap(job_track_camera *c, const job_track_gap *g, icv_err *err)
{
    if (c->n_gaps == c->cap_gaps) {
        size_t cap = c->cap_gaps ? 2 * c->cap_gaps : 16;
        job_track_gap *p = realloc(c->gaps, sizeof *p * cap);
        if (!p)
            return icv_err_set(err, ICV_ENOMEM, "out of memory");
        c->gaps = p;
        c->cap_gaps = cap;
    }
    c->gaps[c->n_gaps++] = *g;
    return 0;
}

/* Why track id had no blob in frames g->first..g->last, from where it should have been:
 * (u0, v0) at frame f0 to (u1, v1) at f1, linearly (px). Out of the image when that lies
 * within 10 px of an edge in any frame of the gap; occluded when another track was
 * measured within 3 marker diameters (15 px at least) of it; else not found. */
static job_track_gap_kind gap_kind(const job_track_camera *c, const job_track_gap *g, long n_merged, double diameter,
                                   long f0, double u0, double v0, long f1, double u1, double v1)
{
    if (n_merged == g->last - g->first + 1)
        return JOB_TRACK_GAP_MERGED;
    double margin = 10, R = fmax(15, 3 * diameter);
    int occluded = 0;
    for (long f = g->first; f <= g->last; f++) {
        double w = f1 > f0 ? fmin(1, (double)(f - f0) / (double)(f1 - f0)) : 0;
        double u = u0 + w * (u1 - u0), v = v0 + w * (v1 - v0);
        if (u < margin || v < margin || u > c->info->width - 1 - margin || v > c->info->height - 1 - margin)
            return JOB_TRACK_GAP_OUT_OF_IMAGE;
        for (long i = raw_frame_start(c, f); i < c->n_raw && c->raw[i].frame == f && !occluded; i++) {
            const track_raw_point *p = &c->raw[i];
            occluded = p->id != g->track && !(p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED)) &&
                       hypot(p->u - u, p->v - v) < R;
        }
    }
    return occluded ? JOB_TRACK_GAP_OCCLUDED : JOB_TRACK_GAP_NOT_FOUND;
}

/* The gaps of every moving track (a still one, moved < 2 px in its life, is a glint the
 * static model learnt): frames between two measurements, and from the last one to the
 * clip's end, with why (gap_kind). The tracker never ends a lost track, so a marker
 * found again has its identity across the gap. */
static int camera_gaps(job_track_camera *c, icv_err *err)
{
    qsort(c->raw, (size_t)c->n_raw, sizeof *c->raw, cmp_raw);
    int n_ids = 0;
    for (long i = 0; i < c->n_raw; i++)
        if (c->raw[i].id + 1 > n_ids)
            n_ids = c->raw[i].id + 1;
    c->n_gaps = 0;
    for (int id = 0; id < n_ids; id++) {
        long n = 0, n_merged = 0;
        const track_raw_point *l0 = NULL, *l1 = NULL, *last_any = NULL;
        double umin = INFINITY, umax = -INFINITY, vmin = INFINITY, vmax = -INFINITY, area = 0;
        for (long i = 0; i < c->n_raw; i++) {
            const track_raw_point *p = &c->raw[i];
            if (p->id != id || p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED))
                continue;
            umin = fmin(umin, p->u), umax = fmax(umax, p->u), vmin = fmin(vmin, p->v), vmax = fmax(vmax, p->v);
            area += p->area;
            n++;
        }
        if (n < 3 || (umax - umin < 2 && vmax - vmin < 2))
            continue;
        double diameter = 2 * sqrt(area / n / M_PI);
        for (long i = 0; i < c->n_raw; i++) {
            const track_raw_point *p = &c->raw[i];
            if (p->id != id)
                continue;
            last_any = p;
            if (p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED)) {
                n_merged += (p->flags & TRACK_FLAG_MERGED) != 0;
                continue;
            }
            if (l1 && p->frame > l1->frame + 1) {
                job_track_gap g = {id, id, l1->frame + 1, p->frame - 1, 0, JOB_TRACK_GAP_NOT_FOUND};
                g.kind = gap_kind(c, &g, n_merged, diameter, l1->frame, l1->u, l1->v, p->frame, p->u, p->v);
                if (push_gap(c, &g, err))
                    return err ? err->code : ICV_ENOMEM;
            }
            n_merged = 0;
            l0 = l1;
            l1 = p;
        }
        if (l1 && l1->frame < c->frames - 1) {
            /* to the clip's end: where the flight from the last two measurements (or the
               tracker's last prediction) takes it */
            job_track_gap g = {id, id, l1->frame + 1, c->frames - 1, 1, JOB_TRACK_GAP_NOT_FOUND};
            double vu = 0, vv = 0, u1 = l1->u, v1 = l1->v;
            long f1 = l1->frame;
            if (last_any && last_any->frame > l1->frame) {
                f1 = last_any->frame, u1 = last_any->pred_u, v1 = last_any->pred_v;
            } else if (l0 && l1->frame > l0->frame) {
                vu = (l1->u - l0->u) / (double)(l1->frame - l0->frame);
                vv = (l1->v - l0->v) / (double)(l1->frame - l0->frame);
                f1 = l1->frame + 1, u1 = l1->u + vu, v1 = l1->v + vv;
            }
            /* beyond f1 the estimate stays there: a flight's continuation guessed over
               many frames would call every long loss out of the image */
            job_track_gap_kind k = gap_kind(c, &g, n_merged, diameter, l1->frame, l1->u, l1->v, f1, u1, v1);
            g.kind = k;
            if (push_gap(c, &g, err))
                return err ? err->code : ICV_ENOMEM;
        }
    }
    return 0;
}

/* Bad input seen in the 2D stage: nothing found, far too many blobs; then the markers'
 * gaps (never a failure). */
static int camera_check(const icv_experiment *exp, const job_track_options *opt, job_track_camera *c, icv_err *err)
{
    long measured = 0;
    for (long i = 0; i < c->n_raw; i++)
        measured += !(c->raw[i].flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED));
    if (c->full_scans > 0 && c->crowded_scans == c->full_scans) {
        /* only fixes that would work: the noise threshold cannot be raised usefully
           (it already leaves the noise out), a fixed one can be; a size filter only
           when the marker's size is not known */
        const track_detector *d = c->det;
        char fix[256];
        snprintf(fix, sizeof fix, "%s%s%s",
                 d->threshold_mode == TRACK_THRESHOLD_FIXED ? "a higher track.threshold (or none: the automatic one), "
                                                            : "",
                 exp->marker_diameter > 0 ? "" : "body.marker_diameter (a size filter), ",
                 d->look == TRACK_LOOK_BRIGHT ? "track.markers (dark, motion or a colour, if the markers are not "
                                                "the brightest things), "
                                              : "another track.markers, ");
        return icv_err_set(err, ICV_EINVAL,
                           "camera '%s' (%s): more than %.0f %s blobs of a marker's size in every frame scanned "
                           "(up to %d, inside roi and mask) for %d markers: set %scameras[].roi or cameras[].mask",
                           c->spec->id, c->spec->video, c->blob_limit, track_look_name(d->look), c->max_components,
                           exp->n_markers, fix);
    }
    if (measured == 0) {
        if (c->brightest > 0)
            return icv_err_set(err, ICV_ENOTFOUND,
                               "camera '%s' (%s): no marker found in any of %ld frames (threshold %.1f gray levels; "
                               "brightest blob seen %.1f, none kept as a marker)",
                               c->spec->id, c->spec->video, c->frames, c->last_threshold, c->brightest);
        return icv_err_set(err, ICV_ENOTFOUND,
                           "camera '%s' (%s): no marker found in any of %ld frames (threshold %.1f gray levels; "
                           "brightest blob: none above it; check the lighting, or set track.threshold)",
                           c->spec->id, c->spec->video, c->frames, c->last_threshold);
    }
    (void)opt;
    return camera_gaps(c, err);
}

/* Sorts the points, indexes them by frame, undistorts them. */
/* Each picture once, at its first frame's time: the points of frames that repeat the
 * picture before them leave the tracks (their times are a frame late, and a
 * duplicated picture counted twice pulls every fit toward it). */
static int camera_drop_repeats(job_track_camera *c, icv_err *err)
{
    qsort(c->raw, (size_t)c->n_raw, sizeof *c->raw, cmp_raw);
    c->repeat = malloc(sizeof *c->repeat * ((size_t)c->frames + 1));
    if (!c->repeat)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    int rc = track_repeated_pictures(c->raw, c->n_raw, c->frames, 1.0, c->repeat, &c->n_repeat, &c->stored_times, err);
    if (rc)
        return rc;
    if ((rc = track_anything_moves(c->raw, c->n_raw, 1.0, &c->moves, err)) != 0)
        return rc;
    long k = 0;
    size_t r = 0;
    for (long i = 0; i < c->n_raw; i++) {
        while (r < c->n_repeat && c->repeat[r] < c->raw[i].frame)
            r++;
        if (!(r < c->n_repeat && c->repeat[r] == c->raw[i].frame))
            c->raw[k++] = c->raw[i];
    }
    c->n_raw = k;
    return 0;
}

/* A clip in which nothing moves (one picture stored as a video, or only still things
 * tracked) has no motion to measure: said here, where it is known, rather than as "too
 * few posed frames" or "no impact" later. */
static int camera_check_motion(const job_track_camera *c, icv_err *err)
{
    if (c->moves || c->frames < 3)
        return 0;
    return icv_err_set(err, ICV_EINVAL,
                       "camera '%s' (%s): nothing tracked moves in any of its %ld frames: every frame repeats the "
                       "first picture (one picture stored as a video?), or only still things are found (check "
                       "track.markers and cameras[].frames)",
                       c->spec->id, c->spec->video, c->frames);
}

static int camera_index(job_track_camera *c, icv_err *err)
{
    qsort(c->raw, (size_t)c->n_raw, sizeof *c->raw, cmp_raw);
    c->pts = calloc((size_t)c->n_raw + 1, sizeof *c->pts);
    calib_pt2 *uv = malloc(sizeof *uv * ((size_t)c->n_raw + 1));
    if (!c->pts || !uv) {
        free(uv);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    for (long i = 0; i < c->n_raw; i++)
        uv[i] = (calib_pt2){c->raw[i].u, c->raw[i].v};
    int rc = c->n_raw ? calib_undistort_points(&c->in, uv, (int)c->n_raw, 0, uv, err) : 0;
    if (rc) {
        free(uv);
        return rc;
    }
    long f = 0;
    c->n_ids = 0;
    for (long i = 0; i < c->n_raw; i++) {
        const track_raw_point *r = &c->raw[i];
        c->pts[i] = (track_sync_point){r->frame, r->id, uv[i].u, uv[i].v, r->sigma, r->flags, 0};
        while (f <= r->frame)
            c->frame_start[f++] = i;
        if (r->id + 1 > c->n_ids)
            c->n_ids = r->id + 1;
    }
    while (f <= c->frames)
        c->frame_start[f++] = c->n_raw;
    free(uv);
    /* px/frame^2: a kink the linear interpolation cannot follow (its error is a/8 for an
       acceleration a, 0.25 px here); free flight at 240 fps bends tracks by ~0.2 */
    track_sync_mark_breaks(c->pts, c->n_raw, c->frame_start, c->frames, 2.0);
    c->label = malloc(sizeof *c->label * ((size_t)c->frames * (c->n_ids ? c->n_ids : 1)));
    if (!c->label)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    for (long i = 0; i < c->frames * (c->n_ids ? c->n_ids : 1); i++)
        c->label[i] = -1;
    c->pc = (track_sync_camera){.pts = c->pts, .n_pts = c->n_raw, .frame_start = c->frame_start,
                                .frames = c->frames, .cam_time_s = c->tcam, .fps = c->info->capture_fps};
    return 0;
}

/* 2D: every camera's frames once, the cameras concurrently; then each camera's input
 * checked, its repeated pictures dropped and its points indexed by frame, undistorted. */
int job_track_pass_2d(job_track *j, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    job_track_result *res = &j->res;
    int nc = exp->n_cameras, rc;
    j->t_2d = icv_now();
    icv_progress pg;
    int balls = balls_opposite(exp);
    long left = 0; /* frames of the passes still to run (the progress bar) */
    for (int c = 0; c < nc; c++) {
        if (!j->cams[c].passed)
            j->cams[c].tr->opposite_look = balls;
        left += j->cams[c].passed ? 0 : j->cams[c].frames;
    }
    icv_progress_begin(&pg, "track", left);
    rc = cameras_track(j->cams, nc, &pg, err);
    icv_progress_end(&pg);
    for (int c = 0; c < nc; c++)
        res->decode_seconds += j->cams[c].t_decode;
    if (rc)
        return rc;
    for (int c = 0; c < nc; c++) {
        job_track_camera *cm = &j->cams[c];
        if ((rc = camera_check(exp, &j->opt, cm, err)) != 0) {
            j->look_crowded = cm->full_scans > 0 && cm->crowded_scans == cm->full_scans;
            return rc;
        }
        if ((rc = camera_drop_repeats(cm, err)) != 0)
            return rc;
        /* a coefficient experiment's still body is its result (friction holds: "no
           motion found along the slope", said by the analysis) */
        if (!exp->kind[0] && (rc = camera_check_motion(cm, err)) != 0) {
            /* the look's blobs were still things (a reference post, a glint) while the
               markers moved unseen: another look may see them; a clip of one picture
               (its repeats found) has nothing another look could see */
            j->tracks_still = !(cm->want_brightness && cm->n_dup + 1 >= (size_t)cm->frames);
            return rc;
        }
        track_view keep = cm->pc.view;
        if ((rc = camera_index(cm, err)) != 0)
            return rc;
        cm->pc.view = keep;
        res->frames[c] = cm->frames;
        res->identities[c] = cm->tr->n_identities;
    }

    double t_mean = 0, t_step = 0;
    for (int c = 0; c < nc; c++)
        t_mean += j->cams[c].t_mean, t_step += j->cams[c].t_step;
    icv_debug("timing: 2D %.3f s (reading frames %.3f s, brightness %.3f s, detect+track %.3f s)", icv_now() - j->t_2d,
              res->decode_seconds, t_mean, t_step);
    return 0;
}

double job_track_beside(const job_track_camera *c)
{
    unsigned long n = 0, below = 0;
    for (int i = 0; i < JOB_BESIDE_BINS; i++)
        n += c->beside_hist[i];
    if (n < 10) /* a few readings (the beads mostly near the frame's edge): as drawn */
        return 1;
    for (int i = 0; i < JOB_BESIDE_BINS; i++) {
        below += c->beside_hist[i];
        if (2 * below >= n)
            return (double)i / (JOB_BESIDE_BINS - 1);
    }
    return 1;
}
