/* test_lost_frames.c: a video whose frames are lost fails the track stage with the
 * capture's error (issue #20 item 7). Sample 03's clip, its index moved to the front
 * and its end cut off, used to track "successfully" with every marker "missing ...
 * not found" to the clip's end (before issue #18: "marker track 0 lost"). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/harness.h"

TEST(test_lost_frames_fail_the_track_stage_with_the_capture_error)
{
    const char *d = th_tmpdir();
    th_proc p;
    if (th_run_sh(&p, "command -v ffmpeg") != 0)
        SKIP("no ffmpeg CLI to remux the clip");
    ASSERT_EQ_INT(th_run_sh(&p, "cp -r '%s/sample_videos/03_rod_drop_planar' '%s/ex' && cd '%s/ex' && "
                                "ffmpeg -nostdin -v error -y -i cam.mp4 -c copy -movflags +faststart cut.mp4 && "
                                "mv cut.mp4 cam.mp4",
                            th_root(), d, d),
                  0);
    char path[1024];
    snprintf(path, sizeof path, "%s/ex/cam.mp4", d);
    struct stat st;
    ASSERT(stat(path, &st) == 0 && truncate(path, st.st_size * 55 / 100) == 0, "cannot cut %s", path);
    ASSERT_EQ_INT(th_run_cli(&p, "-q track '%s/ex/experiment.yaml' -o '%s/out'", d, d), 1);
    ASSERT_STR_CONTAINS(p.err, "camera 'cam': ");
    ASSERT_STR_CONTAINS(p.err, "cam.mp4: truncated or corrupt stream: ");
    ASSERT_STR_CONTAINS(p.err, " of 96 frames lost (from frame ");
    ASSERT(!strstr(p.err, "not found"), "blamed on the markers: %s", p.err);
}
