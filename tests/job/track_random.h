/* track_random.h: the track stage's tests on a random scene: rendered into TMP/exp by
 * `impactcv synth --random`, tracked into TMP/out. */
#ifndef ICV_TEST_JOB_TRACK_RANDOM_H
#define ICV_TEST_JOB_TRACK_RANDOM_H

#include "tests/harness.h"

/* Renders scene `seed` and tracks it with the global options `opts` ("-q", "-v"): the
 * track command's exit status (p holds its output), or -1 when synth failed. */
static inline int track_random_scene(th_proc *p, int seed, const char *opts)
{
    if (th_run_cli(p, "-q synth --random %d -o '%s/exp'", seed, th_tmpdir()) != 0)
        return -1;
    return th_run_cli(p, "%s track '%s/exp/experiment.yaml' -o '%s/out'", opts, th_tmpdir(), th_tmpdir());
}

#endif
