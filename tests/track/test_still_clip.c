/* test_still_clip.c: a clip in which every frame repeats the picture before it (issue
 * #19, bad input): one line saying so from the track stage, instead of "only 1 of 90
 * frames have enough markers for a pose" from the analysis; probe says it in words. */
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"

TEST(test_still_clip_every_frame_a_repeat_is_one_line_from_track)
{
    /* sample 03's experiment with its video replaced by its frame 40 stored 90 times
       (the rod in view, nothing moving) */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/still03", th_tmpdir());
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p,
                            "cp -r '%s/sample_videos/03_rod_drop_planar' '%s' && cd '%s' && "
                            "ffmpeg -nostdin -v error -y -i cam.mp4 -vf 'select=eq(n\\,40)' -vsync 0 -frames:v 1 "
                            "f40.png && ffmpeg -nostdin -v error -y -loop 1 -i f40.png -frames:v 90 -r 240 -c:v "
                            "libx264 -pix_fmt yuv420p cam.mp4",
                            th_root(), dir, dir),
                  0);
    ASSERT_EQ_INT(th_run_cli(&p, "-q run '%s/experiment.yaml' -o '%s/out'", dir, dir), 1);
    ASSERT_STR_CONTAINS(p.err, "impactcv: track: camera 'cam' (");
    ASSERT_STR_CONTAINS(p.err, "still03/cam.mp4): nothing tracked moves in any of its 90 frames: every frame repeats "
                               "the first picture");
    /* one line, no result folder */
    const char *first = strstr(p.err, "impactcv:");
    ASSERT(first && !strstr(first + 1, "impactcv:"), "more than one error line: %s", p.err);
    char out[1100];
    snprintf(out, sizeof out, "%s/out", dir);
    ASSERT(access(out, F_OK) != 0, "%s was written", out);
    /* probe says it in words */
    ASSERT_EQ_INT(th_run_cli(&p, "probe '%s/cam.mp4'", dir), 0);
    ASSERT_STR_CONTAINS(p.out, "every frame repeats the first picture (within the clip's own noise): the clip holds "
                               "one picture, nothing moves");
    /* and no mains flicker in the encoder's even/odd frames (1.7e-5 levels before) */
    ASSERT_STR_CONTAINS(p.out, "flicker   none found");
}
