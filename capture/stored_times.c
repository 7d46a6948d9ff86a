/* stored_times.c: a file that stores every picture k times (a phone's "60 fps" file of
 * a 30 fps capture), told from per-frame evidence of new pictures. The probe's evidence
 * is the pixels (a clear change from the frame before, or none), the track stage's is the
 * markers (a move from the frame before, or a standstill followed by the step of one
 * picture). Only a steady pattern is believed: single standstills come from noise or a
 * slow phase, and a lone repeated frame changes no fit much. */
#include "capture/capture.h"

/* new pictures at least this many times spaced within 7 frames of each other: a 30 fps
   phone clip stored as "60 fps" gives 8-15 while its ball is tracked (12 missed two of
   20 such clips in the phone study, docs/capture.md) */
enum { MIN_SPACINGS = 6, MAX_SPACING = 7, MIN_REPEATS_SEEN = 4 };

/* k = 2..4 when the new pictures are spaced by multiples of k in 90% of the cases and
 * by 1 in at most 10% (a slow phase's ambiguous frames), else 0 */
static int spacing_pattern(const signed char *evidence, long n)
{
    long counts[MAX_SPACING + 1] = {0}, total = 0, prev = -1;
    for (long i = 0; i < n; i++)
        if (evidence[i] > 0) {
            if (prev >= 0 && i - prev <= MAX_SPACING) {
                counts[i - prev]++;
                total++;
            }
            prev = i;
        }
    if (total < MIN_SPACINGS || counts[1] > 0.1 * (double)total)
        return 0;
    for (int k = 2; k <= 4; k++) {
        long mult = 0;
        for (int g = k; g <= MAX_SPACING; g += k)
            mult += counts[g];
        if (mult >= 0.9 * (double)total)
            return k;
    }
    return 0;
}

/* frame f off the phase of the nearest new picture at or before it (the first one for
 * frames before it) */
static int off_phase(long f, long new_at, int k)
{
    long d = f >= new_at ? f - new_at : new_at - f;
    return d % k != 0;
}

int capture_stored_times(const signed char *evidence, long n, long *out, size_t *n_out)
{
    *n_out = 0;
    int k = spacing_pattern(evidence, n);
    if (k < 2)
        return 0;
    long first = -1, last = -1;
    for (long i = 0; i < n; i++)
        if (evidence[i] > 0) {
            if (first < 0)
                first = i;
            last = i;
        }
    /* the evidence's span, one picture period beyond the first and last new picture
       (the first frames have no change before them to compare, the last none after):
       most frames off the phase there are seen to repeat their predecessor */
    long from = first - k > 1 ? first - k : 1, to = last + k < n - 1 ? last + k : n - 1;
    long new_at = first, off = 0, seen = 0;
    for (long f = from; f <= to; f++) {
        if (evidence[f] > 0)
            new_at = f;
        if (!off_phase(f, new_at, k))
            continue;
        off++;
        seen += evidence[f] < 0;
    }
    if (seen < MIN_REPEATS_SEEN || 2 * seen < off)
        return 0;
    /* the repeats over the whole clip: a file that stores every picture k times does so
       from its first frame to its last, so the frames before the first new picture told
       (and after the last) repeat on its phase (its nearest's). A slow phase there (a
       ball at the top of its flight in the clip's first pictures, under a pixel a
       picture) tells no new picture; its copies kept at their stored times put every
       second position one stored interval late, a staircase that the flights read as
       speed: the launch speed 1.0-1.2% high at 240 pictures/s in the phone study */
    size_t m = 0;
    new_at = first;
    for (long f = 1; f < n; f++) {
        if (evidence[f] > 0)
            new_at = f;
        if (off_phase(f, new_at, k))
            out[m++] = f;
    }
    *n_out = m;
    return k;
}
