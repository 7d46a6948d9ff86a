/* test_realdata.c: the real clips of examples/real/ (issue #19 item 8), read from
 * ../shared/data as a user's experiment.yaml names them; skipped, saying so, when
 * ../shared/data is absent. The figures for the green ball (|g| within 2%, e per
 * bounce within 2 sigma of sqrt(h2/h1)) are not met yet: its run stops at the look
 * (docs/experiment.md, real clips); what is asserted is what holds. */
#include <stdio.h>
#include <string.h>

#include "tests/harness.h"

TEST(test_realdata_green_ball_experiment_checks_every_frame)
{
    /* `check` opens the video and decodes its first and last frames: the AVI's B-frames
       once numbered frames 2 late, and frame 0 could not be decoded */
    if (!th_shared("data/real/ball_bounce_green_30fps/original/bounceAmeen.avi"))
        SKIP("../shared/data is absent: the real clip is not here");
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/real/green_ball/experiment.yaml", th_root());
    th_proc p;
    ASSERT(th_run_cli(&p, "-q check '%s'", path) == 0, "check: %s", p.err);
}
