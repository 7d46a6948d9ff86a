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

#include "track/pipeline_internal.h"

/* the first point of frame f in raw[0..n) (sorted by frame), n when none */
static long first_of(const raw_point *raw, long n, long f)
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
static double median_move(const raw_point *raw, long n, long a, long b)
{
    double d[TRACK_MAX_TRACKS];
    int m = 0;
    for (long i = first_of(raw, n, a); i < n && raw[i].frame == a; i++)
        for (long j = first_of(raw, n, b); j < n && raw[j].frame == b; j++)
            if (raw[j].id == raw[i].id && isfinite(raw[i].u) && isfinite(raw[j].u) && m < TRACK_MAX_TRACKS) {
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

size_t pl_duplicates_in_motion(const raw_point *raw, long n_raw, const long *dup, size_t n_dup, double min_px,
                               long *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n_dup; i++)
        if (median_move(raw, n_raw, dup[i] - 1, dup[i] + 1) > min_px)
            out[m++] = dup[i];
    return m;
}
