/* duplicate_motion.c: which of a camera's duplicated frames matter. A frame whose
 * pixels equal its predecessor's is a repeated frame (the camera or a converter wrote
 * the same picture twice, so its time is wrong) only when the scene moves; a still
 * scene's frames are equal after H.264 because the encoder skips unchanged blocks
 * (the synth samples' first frames, the rod held before release), which is no timing
 * fault. The scene moves when the tracks, by their median, are more than min_px apart
 * between the frames either side of the pair (k - 1 and k + 1 for a frame k equal to
 * k - 1), a track's move within its noise (6 sigma) counting as none: stray tracks of
 * a lit plate's texture jitter by a pixel and must not make a still scene move. */
#include <math.h>
#include <stdlib.h>

#include "capture/capture.h"

#include "track/track_3d.h"

/* a position the detector measured: not the tracker's coasted or merged prediction */
static int measured(const track_raw_point *p)
{
    return isfinite(p->u) && isfinite(p->v) && !(p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED));
}

/* the first point of frame f in raw[0..n) (sorted by frame), n when none */
static long first_of(const track_raw_point *raw, long n, long f)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (raw[mid].frame < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* median displacement (px) of the tracks seen in both frames a and b; -1 when none is */
static double median_move(const track_raw_point *raw, long n, long a, long b)
{
    double d[TRACK_MAX_TRACKS];
    int m = 0;
    for (long i = first_of(raw, n, a); i < n && raw[i].frame == a; i++)
        for (long j = first_of(raw, n, b); j < n && raw[j].frame == b; j++)
            if (raw[j].id == raw[i].id && measured(&raw[i]) && measured(&raw[j]) && m < TRACK_MAX_TRACKS) {
                double x = hypot(raw[j].u - raw[i].u, raw[j].v - raw[i].v);
                /* within 6 sigma of the two measurements: the track's noise, no motion (a
                   faint texture blob jitters by a pixel) */
                if (x <= 6 * hypot(raw[i].sigma, raw[j].sigma))
                    x = 0;
                int k = m++;
                for (; k > 0 && d[k - 1] > x; k--)
                    d[k] = d[k - 1];
                d[k] = x;
            }
    return m == 0 ? -1 : m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]);
}

size_t track_duplicates_in_motion(const track_raw_point *raw, long n_raw, const long *dup, size_t n_dup, double min_px,
                                  long *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n_dup; i++)
        if (median_move(raw, n_raw, dup[i] - 1, dup[i] + 1) > min_px)
            out[m++] = dup[i];
    return m;
}

/* the point of track id in frame f, NULL when none */
static const track_raw_point *point_of(const track_raw_point *raw, long n, long f, int id)
{
    for (long i = first_of(raw, n, f); i < n && raw[i].frame == f; i++)
        if (raw[i].id == id && measured(&raw[i]))
            return &raw[i];
    return NULL;
}

/* frame k repeats k - 1's picture: every track that moves across the run stands still
 * (within 3 of its sigmas of where it stood at k - 1) from k until a frame j <= k + 3,
 * then jumps at j by about the step it made into k - 1 (within half of it and 3
 * sigmas), that step being more than min_px and 10 sigmas; at least one track does so.
 * So the track moves by steps of one picture's travel with standstills between: a
 * track moving steadily, however slowly, moves alike each frame, and a noise track
 * that stood and then jumped had no like step before. */
static int repeats_previous(const track_raw_point *raw, long n, long frames, long k, double min_px)
{
    int moving = 0;
    for (long i = first_of(raw, n, k - 1); i < n && raw[i].frame == k - 1; i++) {
        const track_raw_point *a = &raw[i];
        if (!measured(a))
            continue;
        const track_raw_point *prev = a;
        for (long j = k; j <= k + 3 && j < frames; j++) {
            const track_raw_point *c = point_of(raw, n, j, a->id);
            if (!c)
                break;
            double s = fmax(hypot(a->sigma, c->sigma), 0.02);
            if (hypot(c->u - a->u, c->v - a->v) <= 3 * s) {
                prev = c;
                continue; /* still standing: the picture may be repeated */
            }
            if (j == k)
                return 0; /* it moved at k: a new picture */
            /* the step into the picture at k - 1: from the frame before its copies */
            long start = k - 1;
            const track_raw_point *e;
            while (start > 0 && k - 1 - start < 3 && (e = point_of(raw, n, start - 1, a->id)) &&
                   hypot(e->u - a->u, e->v - a->v) <= 3 * s)
                start--;
            const track_raw_point *b = start > 0 ? point_of(raw, n, start - 1, a->id) : NULL;
            double jump = hypot(c->u - prev->u, c->v - prev->v);
            double before = b ? hypot(a->u - b->u, a->v - b->v) : 0;
            if (before > fmax(min_px, 10 * s) && fabs(jump - before) <= 0.5 * before + 3 * s)
                moving++;
            break;
        }
    }
    return moving > 0;
}

int track_repeated_pictures(const track_raw_point *raw, long n_raw, long frames, double min_px, long *out,
                            size_t *n_out, double *stored_times, icv_err *err)
{
    *stored_times = 1;
    *n_out = 0;
    if (frames < 2)
        return 0;
    /* the markers' evidence: a new picture where the scene moved from the frame before,
       a repeat where the moving tracks stood still and then made one picture's step */
    signed char *evidence = calloc((size_t)frames, 1);
    if (!evidence)
        return icv_err_set(err, ICV_ENOMEM, "out of memory for %ld frames' repeat evidence", frames);
    for (long k = 1; k < frames; k++) {
        if (repeats_previous(raw, n_raw, frames, k, min_px))
            evidence[k] = -1;
        else if (median_move(raw, n_raw, k - 1, k) > min_px)
            evidence[k] = 1;
    }
    int k = capture_stored_times(evidence, frames, out, n_out);
    free(evidence);
    if (k >= 2)
        *stored_times = k;
    return 0;
}

int track_anything_moves(const track_raw_point *raw, long n_raw, double min_px, int *moves, icv_err *err)
{
    *moves = 0;
    int max_id = -1;
    for (long i = 0; i < n_raw; i++)
        if (raw[i].id > max_id)
            max_id = raw[i].id;
    if (max_id < 0)
        return 0;
    /* each track's first measured point; the others against it */
    long *first = malloc(sizeof *first * ((size_t)max_id + 1));
    if (!first)
        return icv_err_set(err, ICV_ENOMEM, "out of memory for %d tracks", max_id + 1);
    for (int k = 0; k <= max_id; k++)
        first[k] = -1;
    for (long i = 0; i < n_raw && !*moves; i++) {
        const track_raw_point *p = &raw[i];
        if (p->id < 0 || !measured(p))
            continue;
        if (first[p->id] < 0) {
            first[p->id] = i;
            continue;
        }
        const track_raw_point *a = &raw[first[p->id]];
        *moves = hypot(p->u - a->u, p->v - a->v) > fmax(min_px, 6 * hypot(a->sigma, p->sigma));
    }
    free(first);
    return 0;
}
