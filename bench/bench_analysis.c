/* bench_analysis.c: analysis time per impact (poses, gravity, windows, ballistic
 * and rotation fits, the instant, the measured quantities and their Monte Carlo
 * uncertainty), on the known-impact tracks of tests/analysis/impact_scenario.h.
 * Goal (issue #9): under 5 ms per impact on one core. The model comparison (the
 * solver) is not in it yet. */
#include <stdio.h>

#include "analysis/analysis.h"
#include "tests/analysis/impact_scenario.h"

static void bench_one(int rod, const char *label)
{
    scenario s;
    make_scenario(&s, rod);
    analysis_tracks tr;
    sample(&s, rod ? 0.35 : 0.45, 2e-4, 1, &tr);
    analysis_result res = {0};
    icv_err err = {0};
    int reps = 0;
    double t0 = icv_now(), el = 0;
    do {
        if (analysis_run(&tr, &s.body, &G, NULL, &res, &err)) {
            fprintf(stderr, "bench_analysis: %s\n", err.msg);
            break;
        }
        reps++;
        el = icv_now() - t0;
    } while (el < 2.0);
    int frames = tr.n_frames;
    analysis_tracks_free(&tr);
    double ms = 1e3 * el / (reps ? reps : 1) / (res.n_impacts ? res.n_impacts : 1);
    printf("%-36s %8.2f ms/impact   goal 5 ms   goal/time %.2f  (%d frames, %d runs)\n", label, ms, 5.0 / ms, frames,
           reps);
}

int main(void)
{
    bench_one(0, "box tumbling, 4 markers, 120 fps");
    bench_one(1, "rod, 3 collinear markers, 120 fps");
    return 0;
}
