/* duplicate_motion.c: which of a camera's duplicated frames matter. A frame whose
 * pixels equal its predecessor's is a repeated frame (the camera or a converter wrote
 * the same picture twice, so its time is wrong) only when the scene moves; a still
 * scene's frames are equal after H.264 because the encoder skips unchanged blocks
 * (the synth samples' first frames, the rod held before release), which is no timing
 * fault. The scene moves when a marker track is more than min_px apart between the
 * frames either side of the pair (k - 1 and k + 1 for a frame k equal to k - 1). */
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

/* largest displacement (px) of a track seen in both frames a and b; -1 when none is */
static double largest_move(const raw_point *raw, long n, long a, long b)
{
    double worst = -1;
    for (long i = first_of(raw, n, a); i < n && raw[i].frame == a; i++)
        for (long j = first_of(raw, n, b); j < n && raw[j].frame == b; j++)
            if (raw[j].id == raw[i].id && isfinite(raw[i].u) && isfinite(raw[j].u))
                worst = fmax(worst, hypot(raw[j].u - raw[i].u, raw[j].v - raw[i].v));
    return worst;
}

size_t pl_duplicates_in_motion(const raw_point *raw, long n_raw, const long *dup, size_t n_dup, double min_px,
                               long *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n_dup; i++)
        if (largest_move(raw, n_raw, dup[i] - 1, dup[i] + 1) > min_px)
            out[m++] = dup[i];
    return m;
}
