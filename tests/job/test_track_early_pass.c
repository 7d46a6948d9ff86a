/* test_track_early_pass.c: a camera's 2D pass begins in its setup thread as soon as its
 * look is set (job_track_pass_early), so that it decodes while another camera still
 * weighs its looks. auto's joint look may change a camera's look after that: the stage
 * is then run again without early passes (JOB_TRACK_AGAIN), from the calibration read
 * once, nothing logged twice. Random scene 1042 (a rod with 4 bright bands of 7.3 px,
 * two cameras, 524 frames): alone, 'left' keeps bright and 'right' dark; the joint look
 * gives both bright (docs/track.md, "Session 31"). */
#include <stdio.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/job/track_random.h"

/* occurrences of needle in hay */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *at = hay ? strstr(hay, needle) : NULL; at; at = strstr(at + 1, needle))
        n++;
    return n;
}

TEST(test_track_cameras_that_disagree_alone_run_the_stage_again_once_without_early_passes)
{
    if (th_sanitized())
        SKIP("renders and tracks a 524-frame stereo scene: the plain pass covers it");
    th_proc p;
    int st = track_random_scene(&p, 1042, "-v");
    ASSERT(st == 0, "status %d: %s", st, p.err);
    /* exactly once each: the rerun, each camera's look and the joint look (a line logged
       by the first try too would show twice) */
    ASSERT_EQ_INT(count(p.err, "the cameras' looks differ; the stage again without early passes"), 1);
    ASSERT_EQ_INT(count(p.err, "camera 'left': track.markers auto: bright ("), 1);
    ASSERT_EQ_INT(count(p.err, "camera 'right': track.markers auto: dark ("), 1);
    ASSERT_EQ_INT(count(p.err, "cameras 'left' bright, 'right' dark alone; every camera: track.markers auto: bright"),
                  1);
    /* the calibration images' boards found once: the rerun takes the first try's */
    ASSERT_EQ_INT(count(p.err, "left_00.png: board found"), 1);
    /* the stage's figures, exact: those of the stage without early passes (main at
       af0c52e, whose tracks3d.csv the rerun's equals byte for byte) */
    ASSERT_STR_CONTAINS(p.out, "camera left        524 frames,   6639 2D points, 325 track identities");
    ASSERT_STR_CONTAINS(p.out, "camera right       524 frames,  10100 2D points, 584 track identities");
    ASSERT_STR_CONTAINS(p.out, "3D (triangulated): 524 rows, 646 marker positions");
}
