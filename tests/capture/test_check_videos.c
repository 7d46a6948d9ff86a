/* test_check_videos.c: `impactcv check` opens every video and decodes its first and
 * last frames (issue #20 item 7): a video cut short, an empty file, random bytes and
 * an audio-only file used to pass check; a video of another size than its
 * calibration too. Each now fails with one line naming the camera, file and why. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/capture/video_maker.h"
#include "tests/harness.h"

static const char exp_yaml[] = "name: one\n"
                               "cameras: [{id: left, video: %s}]\n"
                               "%s"
                               "motion_plane: {scale: gravity}\n"
                               "body: {mass: 1, inertia: [[1,0,0],[0,1,0],[0,0,1]], markers: [[0,0,0]]}\n";

static const char *experiment(const char *video, const char *calibration)
{
    char text[2048];
    snprintf(text, sizeof text, exp_yaml, video, calibration);
    const char *path = th_tmp("experiment.yaml");
    th_write_file(path, text);
    return path;
}

TEST(test_check_videos_a_good_video_passes)
{
    ASSERT_EQ_INT(vm_encode(th_tmp("v.mp4"), "30", "-c:v libx264 -preset veryfast -pix_fmt yuv420p -g 10", 20, NULL,
                            NULL),
                  0);
    th_proc p;
    int st = th_run_cli(&p, "check '%s'", experiment("v.mp4", ""));
    ASSERT(st == 0, "status %d: %s", st, p.err);
}

TEST(test_check_videos_a_cut_video_fails_naming_its_last_frame)
{
    const char *path = th_tmp("cut.mp4");
    /* index (moov) first, so the file still opens when its end is cut off */
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v libx264 -preset veryfast -pix_fmt yuv420p -g 10 -movflags +faststart",
                            60, NULL, NULL),
                  0);
    struct stat st;
    ASSERT(stat(path, &st) == 0 && truncate(path, st.st_size * 6 / 10) == 0, "%s: %s", path, strerror(errno));
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", experiment("cut.mp4", "")), 1);
    ASSERT_STR_CONTAINS(p.err, "camera left: ");
    ASSERT_STR_CONTAINS(p.err, "cut.mp4: truncated or corrupt stream: the last frame (59 of 60) cannot be decoded");
}

TEST(test_check_videos_empty_random_and_audio_only_files_fail)
{
    th_proc p;
    th_write_file(th_tmp("zero.mp4"), "");
    ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", experiment("zero.mp4", "")), 1);
    ASSERT_STR_CONTAINS(p.err, "camera left: ");
    ASSERT_STR_CONTAINS(p.err, "zero.mp4");
    ASSERT_EQ_INT(th_run_sh(&p, "head -c 4096 /dev/urandom > '%s'", th_tmp("noise.mp4")), 0);
    ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", experiment("noise.mp4", "")), 1);
    ASSERT_STR_CONTAINS(p.err, "noise.mp4");
    ASSERT_EQ_INT(th_run_sh(&p, "ffmpeg -nostdin -v error -y -f lavfi -i sine=d=0.2 -c:a aac '%s'", th_tmp("sound.mp4")),
                  0);
    ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", experiment("sound.mp4", "")), 1);
    ASSERT_STR_CONTAINS(p.err, "sound.mp4");
    ASSERT_STR_CONTAINS(p.err, "no video stream");
}

TEST(test_check_videos_size_must_be_the_calibrations)
{
    ASSERT_EQ_INT(vm_encode(th_tmp("v.mp4"), "30", "-c:v libx264 -preset veryfast -pix_fmt yuv420p -g 10", 10, NULL,
                            NULL),
                  0);
    th_write_file(th_tmp("cam.yaml"),
                  "%YAML:1.0\n---\nimage_width: 1280\nimage_height: 720\n"
                  "camera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n"
                  "   data: [ 1000., 0., 640., 0., 1000., 360., 0., 0., 1. ]\n"
                  "distortion_coefficients: !!opencv-matrix\n   rows: 5\n   cols: 1\n   dt: d\n"
                  "   data: [ -0.1, 0.02, 0., 0., 0. ]\n");
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "check '%s'", experiment("v.mp4", "calibration: {file: cam.yaml}\n")), 1);
    ASSERT_STR_CONTAINS(p.err, "camera left: ");
    ASSERT_STR_CONTAINS(p.err, "v.mp4 is 160x120 px, the calibration ");
    ASSERT_STR_CONTAINS(p.err, "cam.yaml is for 1280x720 px");
}
