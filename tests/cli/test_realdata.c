/* test_realdata.c: the real clips of examples/real/ (issue #19 item 8), read from
 * ../shared/data as a user's experiment.yaml names them; skipped, saying so, when
 * ../shared/data is absent. The figures for the green ball (|g| within 2%, e per
 * bounce within 2 sigma of sqrt(h2/h1)) are not met yet: its run stops at the look
 * (docs/experiment.md, real clips); what is asserted is what holds. */
#include <stdio.h>
#include <stdlib.h>
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

TEST(test_realdata_green_ball_tracked_and_scaled_by_its_size)
{
    /* `impactcv track` on the author's frames 62-116 (10 s of 1080p decoding: make
       accuracy). Asserted: the ball found (the marker size measured with the depth
       provisional: before, no look kept an 85 px ball) in at least 40 of the 55 frames
       (45 now: held in the hand 62-66 and lost near the first apex 80-84 by the 2D
       tracker; 0 before),
       and scale: size gives an outline 80-100 px across (the author's threshold gave
       85 px; the edge profiles of frame 97 give 89-90 px). Not asserted (not met):
       |g| within 2% (the flights fall at 11700-12080 px/s^2: 9.0-9.3 m/s^2 at 89.8 px
       per 68.7 mm) and e per bounce (the analysis takes the apexes for impacts at 30
       fps): docs/experiment.md, real clips. */
    if (!th_shared("data/real/ball_bounce_green_30fps/original/bounceAmeen.avi"))
        SKIP("../shared/data is absent: the real clip is not here");
    if (!th_accuracy())
        SKIP("10 s of 1080p decoding: make accuracy runs it");
    char path[1200], out[1200];
    snprintf(path, sizeof path, "%s/examples/real/green_ball/experiment.yaml", th_root());
    snprintf(out, sizeof out, "%s/green", th_tmpdir());
    th_proc p;
    ASSERT(th_run_cli(&p, "-q track '%s' -o '%s'", path, out) == 0, "track: %s", p.err);
    snprintf(path, sizeof path, "%s/tracks3d.csv", out);
    const char *csv = th_read_file(path);
    ASSERT_TRUE(csv != NULL);
    long n = 0;
    for (const char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        long f;
        double x;
        if (sscanf(l + 1, "%ld,%*[^,],%lf", &f, &x) == 2)
            n++;
    }
    snprintf(path, sizeof path, "%s/track_info.json", out);
    const char *ti = th_read_file(path);
    const char *d = ti ? strstr(ti, "\"diameter_px\":") : NULL;
    double dpx = d ? atof(d + strlen("\"diameter_px\":")) : 0;
    printf("    green ball: %ld positions in frames 62-116; the ball %.2f px across\n", n, dpx);
    ASSERT(n >= 40, "%ld positions of 55 frames", n);
    ASSERT(dpx > 80 && dpx < 100, "diameter %.2f px", dpx);
}
