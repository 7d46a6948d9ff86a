/* test_tile_median.c: a tile's sample median and MAD (track_sample_median_mad: a
 * selection bit by bit) against a full sort, on random samples of every count up to 40
 * and of the largest tile's (TRACK_TILE_SAMPLES), narrow (many ties, as a flat floor's
 * noise gives), 8-bit and 16-bit wide. Both pick the same order statistic: equal
 * exactly. */
#include <stdlib.h>

#include "track/detect_internal.h"
#include "track/track.h"
#include "tests/harness.h"

static int cmp_int(const void *a, const void *b)
{
    int p = *(const int *)a, q = *(const int *)b;
    return (p > q) - (p < q);
}

TEST(test_tile_sample_median_and_mad_equal_a_full_sort)
{
    srand(31337);
    static int v[TRACK_TILE_SAMPLES], keep[TRACK_TILE_SAMPLES], s[TRACK_TILE_SAMPLES];
    for (int trial = 0; trial < 4000; trial++) {
        int n = trial % 100 == 99 ? TRACK_TILE_SAMPLES : 1 + trial % 40, range = trial % 3 == 0 ? 4 : trial % 3 == 1 ? 256 : 65536;
        for (int i = 0; i < n; i++)
            keep[i] = v[i] = 20 * (range == 4) + rand() % range;
        memcpy(s, v, sizeof(int) * (size_t)n);
        qsort(s, (size_t)n, sizeof(int), cmp_int);
        int want_med = s[n / 2];
        for (int i = 0; i < n; i++)
            s[i] = abs(v[i] - want_med);
        qsort(s, (size_t)n, sizeof(int), cmp_int);
        int want_mad = s[n / 2], med = -1, mad = -1;
        track_sample_median_mad(v, n, 1, &med, &mad);
        ASSERT_EQ_INT(med, want_med);
        ASSERT_EQ_INT(mad, want_mad);
        int med_only = -1, untouched = -7;
        track_sample_median_mad(v, n, 0, &med_only, &untouched);
        ASSERT_EQ_INT(med_only, want_med);
        ASSERT_EQ_INT(untouched, -7); /* no MAD asked: none written */
        ASSERT_TRUE(memcmp(v, keep, sizeof(int) * (size_t)n) == 0); /* the samples left as they were */
    }
}
