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

TEST(test_header_limits_avi_info_tag_claiming_1_8_gb_is_refused_fast)
{
    /* fuzz_video's find: an AVI whose stream list holds a LIST INFO stating 3.6 GB
     * with a tag stating 1,821,679,180 bytes; FFmpeg's RIFF reader allocates a tag at its stated size
     * (6 s and 1.8 GB resident before, ffprobe alike). Made here from a true 3-frame AVI:
     * the INFO list appended to the stream list (strl), the sizes of strl, hdrl and RIFF
     * grown to hold it. The same list with a tag of its true size still opens. */
    char good[1024], bad[1024], fine[1024];
    snprintf(good, sizeof good, "%s", th_tmp("small_info.avi"));
    snprintf(bad, sizeof bad, "%s", th_tmp("hostile_info.avi"));
    snprintf(fine, sizeof fine, "%s", th_tmp("true_info.avi"));
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=16x16:r=30 -frames:v 3 "
                                "-c:v mjpeg '%s'",
                            good),
                  0);
    FILE *f = fopen(good, "rb");
    ASSERT(f, "no %s", good);
    static unsigned char d[1 << 16], o[(1 << 16) + 64];
    size_t n = fread(d, 1, sizeof d, f);
    fclose(f);
    ASSERT(n > 100 && n < sizeof d, "%zu bytes", n);
    size_t strl = 0, hdrl = 0;
    for (size_t i = 0; i + 12 < n && !(strl && hdrl); i++) {
        if (!memcmp(d + i, "LIST", 4) && !memcmp(d + i + 8, "strl", 4))
            strl = i;
        if (!memcmp(d + i, "LIST", 4) && !memcmp(d + i + 8, "hdrl", 4))
            hdrl = i;
    }
    ASSERT(strl && hdrl, "no strl or hdrl list");
    for (int hostile = 1; hostile >= 0; hostile--) {
        /* LIST <size 16> INFO, ISFT <size> "x\0\0\0" */
        unsigned char info[24] = {'L', 'I', 'S', 'T', 16, 0, 0, 0, 'I', 'N', 'F', 'O', 'I', 'S', 'F', 'T', 0, 0, 0, 0,
                                  'x', 0, 0, 0};
        put_le32(info + 16, hostile ? 1821679180u : 4u);
        if (hostile) /* and the list as long (FFmpeg checks a tag against its list's stated end) */
            put_le32(info + 4, 3590324250u);
        size_t end = strl + 8 + (d[strl + 4] | d[strl + 5] << 8 | d[strl + 6] << 16 | (size_t)d[strl + 7] << 24);
        memcpy(o, d, end);
        memcpy(o + end, info, sizeof info);
        memcpy(o + end + sizeof info, d + end, n - end);
        size_t m = n + sizeof info;
        const size_t grow[3] = {strl + 4, hdrl + 4, 4};
        for (int k = 0; k < 3; k++) {
            unsigned char *s = o + grow[k];
            put_le32(s, (uint32_t)(s[0] | s[1] << 8 | s[2] << 16 | (uint32_t)s[3] << 24) + (uint32_t)sizeof info);
        }
        const char *path = hostile ? bad : fine;
        f = fopen(path, "wb");
        ASSERT(f && fwrite(o, 1, m, f) == m, "cannot write %s", path);
        fclose(f);
    }
    capture_source *src = NULL;
    icv_err err = {0};
    double t0 = now_s();
    int rc = capture_source_open(&src, bad, NULL, &err);
    double dt = now_s() - t0;
    ASSERT(rc == ICV_EFORMAT, "opened (rc %d): %s", rc, err.msg);
    ASSERT_STR_CONTAINS(err.msg, "hostile_info.avi: damaged header: a chunk at byte");
    ASSERT_STR_CONTAINS(err.msg, "states 1821679180 bytes");
    /* a header's walk: milliseconds; 1 s leaves room for a loaded machine and ASan */
    ASSERT(dt < 1.0, "took %.2f s", dt);
    ASSERT_EQ_INT(th_run_cli(&p, "probe '%s'", bad), 1);
    ASSERT_STR_CONTAINS(p.err, "damaged header");
    /* the true tag: opens, 3 frames */
    ASSERT(capture_source_open(&src, fine, NULL, &err) == 0, "%s", err.msg);
    long frames = capture_source_info(src)->frames;
    capture_source_close(src);
    ASSERT_EQ_INT((int)frames, 3);
}
