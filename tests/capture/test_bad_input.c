/* test_bad_input.c: every kind of bad input gives one line naming the file and a
 * non-zero exit (probe), or a clear error code (API); damaged streams decode what can be
 * decoded and say which frames were lost. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "tests/capture/video_maker.h"
#include "tests/harness.h"

static int one_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl && nl == s + strlen(s) - 1;
}

/* probe must fail with status 1 and exactly one stderr line containing what. */
#define ASSERT_PROBE_FAILS(path, what)                                                  \
    do {                                                                                \
        th_proc p_;                                                                     \
        int st_ = th_run_cli(&p_, "probe '%s'", (path));                                \
        ASSERT(st_ == 1, "probe %s exited %d: %s", (path), st_, p_.err);                \
        ASSERT(one_line(p_.err), "not one line: %s", p_.err);                           \
        ASSERT_STR_CONTAINS(p_.err, (path));                                            \
        ASSERT_STR_CONTAINS(p_.err, (what));                                            \
    } while (0)

TEST(test_probe_missing_file_says_not_found)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("gone.mp4"));
    ASSERT_PROBE_FAILS(path, "video not found");
}

TEST(test_probe_text_file_is_not_a_video)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("notes.mp4"));
    ASSERT_EQ_INT(th_write_file(path, "these are my notes, not a video\n"), 0);
    ASSERT_PROBE_FAILS(path, "not a video");
}

TEST(test_probe_audio_only_file_has_no_video_stream)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("sound.wav"));
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "ffmpeg -nostdin -v error -y -f lavfi -i sine=d=0.2 '%s'", path), 0);
    ASSERT_PROBE_FAILS(path, "no video stream");
}

TEST(test_probe_unsupported_codec_is_named)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("odd.avi"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v mjpeg", 5, NULL, NULL), 0);
    th_proc p;
    /* the same file with its FourCC replaced by one no decoder knows */
    ASSERT_EQ_INT(th_run_sh(&p, "perl -pi -e 's/MJPG/QQQQ/g' '%s'", path), 0);
    ASSERT_PROBE_FAILS(path, "unsupported video codec");
    ASSERT_PROBE_FAILS(path, "QQQQ");
}

TEST(test_probe_zero_frames_is_an_error)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("empty.avi"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v ffv1", 0, NULL, NULL), 0);
    th_proc p;
    int st = th_run_cli(&p, "probe '%s'", path);
    ASSERT(st == 1, "exit %d: %s", st, p.err);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, path);
    /* FFmpeg writes a header without a stream, or a stream without frames */
    ASSERT(strstr(p.err, "zero frames") || strstr(p.err, "no video stream"), "%s", p.err);

    char pat[1024];
    snprintf(pat, sizeof pat, "%s/none_*.png", th_tmpdir());
    ASSERT_PROBE_FAILS(pat, "no images match (zero frames)");
}

TEST(test_probe_truncated_mp4_reports_lost_frames)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("cut.mp4"));
    /* index (moov) first, so the file still opens when its end is cut off */
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v libx264 -preset veryfast -pix_fmt yuv420p -g 10 -movflags +faststart",
                            60, NULL, NULL),
                  0);
    th_proc p;
    struct stat st;
    ASSERT(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
    ASSERT(truncate(path, st.st_size * 6 / 10) == 0, "%s: %s", path, strerror(errno));
    ASSERT_PROBE_FAILS(path, "truncated or corrupt stream");
    th_run_cli(&p, "probe '%s'", path);
    ASSERT_STR_CONTAINS(p.err, "of 60 frames lost (frames ");
    ASSERT_STR_CONTAINS(p.err, "-59)"); /* the lost frames run to the end */
    ASSERT_STR_CONTAINS(p.out, "frames    60 (");  /* the summary still prints what decoded */

    /* the API: the decodable frames come out in order, the rest are listed */
    capture_source *src;
    icv_err err;
    ASSERT(capture_source_open(&src, path, NULL, &err) == 0, "%s", err.msg);
    capture_frame f;
    ASSERT_EQ_INT(capture_frame_alloc(&f, capture_source_info(src), &err), 0);
    long n = 0, last = -1;
    int rc;
    while ((rc = capture_source_read(src, &f, &err)) == 0) {
        n++;
        last = f.index;
    }
    const long *lost;
    size_t nlost;
    capture_source_lost(src, &lost, &nlost);
    long first_lost = nlost ? lost[0] : -1;
    capture_frame_free(&f);
    capture_source_close(src);
    ASSERT_EQ_INT(rc, CAPTURE_EOF);
    ASSERT(n > 10 && n < 60, "%ld frames decoded", n);
    ASSERT_EQ_INT((long)nlost, 60 - n);
    ASSERT_EQ_INT(first_lost, last + 1);
}

TEST(test_probe_corrupt_avi_reports_lost_frames_where_they_are)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("bad.avi"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v mjpeg -q:v 3 -pix_fmt yuvj420p", 40, NULL, NULL), 0);
    /* overwrite 3 kB in the middle of the file (around frame 20) with text */
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "sz=$(stat -c %%s '%s'); yes garbage | head -c 3000 | "
                                "dd of='%s' bs=1 seek=$((sz/2)) conv=notrunc status=none",
                            path, path),
                  0);
    int st = th_run_cli(&p, "probe --json '%s'", path);
    ASSERT(st == 1, "status %d: %s", st, p.err);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, path);
    ASSERT_STR_CONTAINS(p.err, "frames lost (frames 1"); /* in the teens, where the damage is */
    ASSERT(!strstr(p.err, "39)"), "frames after the damage reported lost: %s", p.err);
    ASSERT_STR_CONTAINS(p.out, "\"frames\": 40"); /* the AVI index still lists all 40 */

    /* frames after the damage keep their numbers: frame 30 shows counter 30 */
    capture_source *src;
    icv_err err;
    ASSERT(capture_source_open(&src, path, NULL, &err) == 0, "%s", err.msg);
    capture_frame f;
    ASSERT_EQ_INT(capture_frame_alloc(&f, capture_source_info(src), &err), 0);
    int ok = capture_source_seek(src, 30, &err) == 0 && capture_source_read(src, &f, &err) == 0;
    int counter = ok ? vm_counter(f.data, f.stride, 1) : -2;
    capture_frame_free(&f);
    capture_source_close(src);
    ASSERT(ok, "%s", err.msg);
    ASSERT_EQ_INT(counter, 30);
}

TEST(test_probe_inconsistent_image_sizes_name_the_image)
{
    char pat[1024], odd[1024];
    snprintf(pat, sizeof pat, "%s/img_%%02d.png", th_tmpdir());
    ASSERT_EQ_INT(vm_encode(pat, "30", "-c:v png", 6, NULL, NULL), 0);
    snprintf(odd, sizeof odd, "%s/img_04.png", th_tmpdir());
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "ffmpeg -nostdin -v error -y -f lavfi -i color=gray:s=80x60 -frames:v 1 '%s'", odd), 0);
    th_run_cli(&p, "probe '%s'", pat);
    ASSERT(p.status == 1, "exit %d", p.status);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, odd);
    ASSERT_STR_CONTAINS(p.err, "is 80x60 but the sequence's first image");
}

TEST(test_seek_past_the_end_is_an_error)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("short.mkv"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v ffv1", 10, NULL, NULL), 0);
    capture_source *src;
    icv_err err;
    ASSERT(capture_source_open(&src, path, NULL, &err) == 0, "%s", err.msg);
    int rc1 = capture_source_seek(src, 10, &err);
    char msg[ICV_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err.msg);
    int rc2 = capture_source_seek(src, -1, &err);
    int rc3 = capture_source_seek(src, 9, &err);
    capture_source_close(src);
    ASSERT_EQ_INT(rc1, ICV_EINVAL);
    ASSERT_STR_CONTAINS(msg, "seek to frame 10 past the end (10 frames");
    ASSERT_STR_CONTAINS(msg, path);
    ASSERT_EQ_INT(rc2, ICV_EINVAL);
    ASSERT_EQ_INT(rc3, 0); /* the last frame is fine */
}

TEST(test_probe_usage_errors_exit_2)
{
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "probe"), 2);
    ASSERT_EQ_INT(th_run_cli(&p, "probe --capture-fps -3 x.mp4"), 2);
    ASSERT_EQ_INT(th_run_cli(&p, "probe --frob x.mp4"), 2);
}

TEST(test_damaged_image_in_sequence_is_a_lost_frame)
{
    char pat[1024], bad[1024];
    snprintf(pat, sizeof pat, "%s/img_%%02d.png", th_tmpdir());
    ASSERT_EQ_INT(vm_encode(pat, "30", "-c:v png", 8, NULL, NULL), 0);
    snprintf(bad, sizeof bad, "%s/img_04.png", th_tmpdir()); /* frame 3: numbering starts at 1 */
    ASSERT_EQ_INT(th_write_file(bad, "\x89PNG\r\n\x1a\n but then nothing of a PNG"), 0);
    th_proc p;
    th_run_cli(&p, "probe '%s'", pat);
    ASSERT(p.status == 1, "exit %d", p.status);
    ASSERT(one_line(p.err), "not one line: %s", p.err);
    ASSERT_STR_CONTAINS(p.err, "1 of 8 frames lost (frames 3)");
    ASSERT_STR_CONTAINS(p.out, "frames    8 (7 decoded)");

    capture_source *src;
    icv_err err;
    ASSERT(capture_source_open(&src, pat, NULL, &err) == 0, "%s", err.msg);
    int rc3 = capture_source_seek(src, 3, &err);
    char msg[ICV_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err.msg);
    int rc4 = capture_source_seek(src, 4, &err);
    capture_source_close(src);
    ASSERT(rc3 < 0, "seek to the damaged image succeeded");
    ASSERT_STR_CONTAINS(msg, bad);
    ASSERT_EQ_INT(rc4, 0);
}

TEST(test_probe_survives_garbage_inside_h264)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("noisy.mkv"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v libx264 -preset veryfast -pix_fmt yuv420p -bf 2 -g 10", 40, NULL, NULL),
                  0);
    /* three patches of text inside the sample data: the decoder conceals or drops */
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "sz=$(stat -c %%s '%s'); for f in 4 5 6; do yes junk | head -c 700 | "
                                "dd of='%s' bs=1 seek=$((sz*f/10)) conv=notrunc status=none; done",
                            path, path),
                  0);
    int st = th_run_cli(&p, "probe '%s'", path);
    ASSERT(st == 0 || st == 1, "status %d (crash?): %s", st, p.err);
    if (st == 1) {
        ASSERT(one_line(p.err), "not one line: %s", p.err);
        ASSERT_STR_CONTAINS(p.err, path);
        /* Matroska's demuxer gives up at the damage: the frames the segment's duration
         * still holds are reported lost */
        ASSERT_STR_CONTAINS(p.err, "frames lost");
    }
    ASSERT_STR_CONTAINS(p.out, "frames    ");
}
