/* test_header_limits.c: memory asked for because of a file header is capped against
 * the file's size (issue #20 item 8). A 1.5 KB QuickTime file whose sample tables
 * claim 3.9 M frames made FFmpeg reserve an index entry per frame (130 MB resident,
 * a second); it is now refused before FFmpeg reads it, naming the claim and the
 * file's size. The same file with its true counts still opens. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/capture.h"
#include "tests/harness.h"

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8),
    p[3] = (unsigned char)v;
}

TEST(test_header_limits_mov_claiming_3_9_million_frames_is_refused)
{
    char good[1024], bad[1024]; /* th_tmp's buffer is reused */
    snprintf(good, sizeof good, "%s", th_tmp("small.mov"));
    snprintf(bad, sizeof bad, "%s", th_tmp("hostile.mov"));
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "ffmpeg -nostdin -v error -y -f lavfi -i color=c=gray:s=16x16:r=30 -frames:v 3 "
                                "-c:v rawvideo -pix_fmt gray '%s'",
                            good),
                  0);
    FILE *f = fopen(good, "rb");
    ASSERT(f, "no %s", good);
    static unsigned char d[1 << 16];
    size_t n = fread(d, 1, sizeof d, f);
    fclose(f);
    ASSERT(n > 100 && n < sizeof d, "%zu bytes", n);
    /* stts's first run, stsz's sample_count and stsc's samples_per_chunk: 3.9 M */
    int patched = 0;
    for (size_t i = 4; i + 20 < n; i++) {
        if (!memcmp(d + i, "stts", 4))
            put_be32(d + i + 12, 3900000), patched++;
        else if (!memcmp(d + i, "stsz", 4))
            put_be32(d + i + 12, 3900000), patched++;
        else if (!memcmp(d + i, "stsc", 4))
            put_be32(d + i + 16, 3900000), patched++;
    }
    ASSERT_EQ_INT(patched, 3);
    f = fopen(bad, "wb");
    ASSERT(f && fwrite(d, 1, n, f) == n, "cannot write %s", bad);
    fclose(f);
    ASSERT_EQ_INT(th_run_cli(&p, "probe '%s'", bad), 1);
    char want[256];
    snprintf(want, sizeof want, "damaged header: it states 3900000 frames in a file of %zu bytes", n);
    ASSERT_STR_CONTAINS(p.err, want);
    /* the API says the same */
    capture_source *src = NULL;
    icv_err err = {0};
    ASSERT(capture_source_open(&src, bad, NULL, &err) == ICV_EFORMAT, "opened");
    ASSERT_STR_CONTAINS(err.msg, "hostile.mov: damaged header");
    /* the true file opens, 3 frames */
    ASSERT(capture_source_open(&src, good, NULL, &err) == 0, "%s", err.msg);
    long frames = capture_source_info(src)->frames;
    capture_source_close(src);
    ASSERT_EQ_INT((int)frames, 3);
}

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16),
    p[3] = (unsigned char)(v >> 24);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The fuzzer's slow input, rebuilt: a 3-frame 16x16 MJPEG AVI whose avih total and
 * strh length claim 6,451,058 frames (the duration FFmpeg gives the stream). The
 * missing-tail rule listed 6.45 M lost frames: 6.2 s under the fuzzer, 10.8 s and
 * 500 MB for `probe`. Now refused at once, naming the claim and the file's size. */
TEST(test_header_limits_avi_claiming_6_45_million_frames_is_refused_fast)
{
    char good[1024], bad[1024];
    snprintf(good, sizeof good, "%s", th_tmp("small.avi"));
    snprintf(bad, sizeof bad, "%s", th_tmp("hostile.avi"));
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=16x16:r=30 -frames:v 3 "
                                "-c:v mjpeg '%s'",
                            good),
                  0);
    FILE *f = fopen(good, "rb");
    ASSERT(f, "no %s", good);
    static unsigned char d[1 << 16];
    size_t n = fread(d, 1, sizeof d, f);
    fclose(f);
    ASSERT(n > 100 && n < sizeof d, "%zu bytes", n);
    int patched = 0; /* avih: dwTotalFrames at +16 of its data; strh: dwLength at +32 */
    for (size_t i = 0; i + 48 < n; i++) {
        if (!memcmp(d + i, "avih", 4))
            put_le32(d + i + 8 + 16, 6451058), patched++;
        else if (!memcmp(d + i, "strh", 4) && !memcmp(d + i + 8, "vids", 4))
            put_le32(d + i + 8 + 32, 6451058), patched++;
    }
    ASSERT_EQ_INT(patched, 2);
    f = fopen(bad, "wb");
    ASSERT(f && fwrite(d, 1, n, f) == n, "cannot write %s", bad);
    fclose(f);
    capture_source *src = NULL;
    icv_err err = {0};
    double t0 = now_s();
    int rc = capture_source_open(&src, bad, NULL, &err);
    double dt = now_s() - t0;
    ASSERT(rc == ICV_EFORMAT, "opened (rc %d): %s", rc, err.msg);
    char want[256];
    snprintf(want, sizeof want, "hostile.avi: damaged header: its duration (215035 s at 30 fps) states 6451058 "
                                "frames in a file of %zu bytes", n);
    ASSERT_STR_CONTAINS(err.msg, want);
    /* 10.8 s before; the refusal costs one demuxing pass of 3 packets (~0.02 s). 2 s
       leaves room for a loaded machine and ASan. */
    ASSERT(dt < 2.0, "took %.2f s", dt);
    ASSERT_EQ_INT(th_run_cli(&p, "probe '%s'", bad), 1);
    ASSERT_STR_CONTAINS(p.err, "damaged header");
    /* the true file opens, 3 frames */
    ASSERT(capture_source_open(&src, good, NULL, &err) == 0, "%s", err.msg);
    long frames = capture_source_info(src)->frames;
    capture_source_close(src);
    ASSERT_EQ_INT((int)frames, 3);
}
