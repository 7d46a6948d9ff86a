/* flags.c: the names of the track flags, as written in tracks2d files (track.h
 * documents the vocabulary). */
#include <stdio.h>
#include <string.h>

#include "track/track.h"

static const char *const flag_names[] = {"coasted", "interpolated", "merged", "saturated", "blurred", "outlier",
                                           "extrapolated", "one_view"};

const char *track_flags_format(unsigned flags, char *out, size_t n)
{
    size_t len = 0;
    if (n == 0)
        return out;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++) {
        if (!(flags & (1u << i)))
            continue;
        int w = snprintf(out + len, n - len, "%s%s", len ? "|" : "", flag_names[i]);
        if (w < 0 || (size_t)w >= n - len)
            break;
        len += (size_t)w;
    }
    return out;
}
