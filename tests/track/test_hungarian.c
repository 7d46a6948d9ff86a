/* test_hungarian.c: the assignment solver against brute force (every permutation)
 * on random small matrices, square and rectangular. Costs are compared to 1e-9:
 * both sum the same few O(1) doubles, so only rounding differs. */
#include <stdlib.h>

#include "track/track.h"
#include "tests/harness.h"

/* Lowest cost over all injective maps of the smaller side into the larger. */
static double brute(const double *c, int nr, int nc, int r, unsigned used)
{
    if (r == nr)
        return 0;
    double best = INFINITY;
    int free_rows_left = nr - r, free_cols = nc - __builtin_popcount(used);
    if (free_rows_left > free_cols) /* this row may stay unassigned */
        best = brute(c, nr, nc, r + 1, used);
    for (int j = 0; j < nc; j++) {
        if (used & (1u << j))
            continue;
        double s = c[r * nc + j] + brute(c, nr, nc, r + 1, used | (1u << j));
        if (s < best)
            best = s;
    }
    return best;
}

TEST(test_hungarian_matches_brute_force_on_random_matrices)
{
    srand(12345);
    double cost[49], work[512];
    int assign[7];
    for (int trial = 0; trial < 400; trial++) {
        int nr = 1 + rand() % 6, nc = 1 + rand() % 6;
        ASSERT_TRUE(track_hungarian_work_size(nr, nc) <= 512);
        for (int i = 0; i < nr * nc; i++)
            cost[i] = (rand() % 1000) / 10.0 - (trial % 3 == 0 ? 50 : 0); /* negatives too */
        double got = track_hungarian_solve(cost, nr, nc, assign, work);
        double want = brute(cost, nr, nc, 0, 0);
        ASSERT_NEAR(got, want, 1e-9);
        /* the assignment is a valid matching whose cost is the total reported */
        double s = 0;
        unsigned used = 0;
        int n_assigned = 0;
        for (int r = 0; r < nr; r++) {
            if (assign[r] < 0)
                continue;
            ASSERT_TRUE(assign[r] < nc && !(used & (1u << assign[r])));
            used |= 1u << assign[r];
            s += cost[r * nc + assign[r]];
            n_assigned++;
        }
        ASSERT_EQ_INT(n_assigned, nr < nc ? nr : nc);
        ASSERT_NEAR(s, got, 1e-9);
    }
}
