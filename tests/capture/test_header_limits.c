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
#include "capture/capture_internal.h"
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

/* A true 3-frame 16x16 MJPEG AVI from ffmpeg, written to path and read into d
 * (cap bytes); returns its size, 0 when it could not be made. */
static size_t small_avi(const char *path, unsigned char *d, size_t cap)
{
    th_proc p;
    if (th_run_sh(&p, "ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=16x16:r=30 -frames:v 3 -c:v mjpeg '%s'",
                  path) != 0)
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(d, 1, cap, f);
    fclose(f);
    return n > 100 && n < cap ? n : 0;
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
    static unsigned char d[1 << 16];
    size_t n = small_avi(good, d, sizeof d);
    ASSERT(n, "ffmpeg made no AVI %s", good);
    int patched = 0; /* avih: dwTotalFrames at +16 of its data; strh: dwLength at +32 */
    for (size_t i = 0; i + 48 < n; i++) {
        if (!memcmp(d + i, "avih", 4))
            put_le32(d + i + 8 + 16, 6451058), patched++;
        else if (!memcmp(d + i, "strh", 4) && !memcmp(d + i + 8, "vids", 4))
            put_le32(d + i + 8 + 32, 6451058), patched++;
    }
    ASSERT_EQ_INT(patched, 2);
    FILE *f = fopen(bad, "wb");
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

/* Writes d (n bytes, a true AVI) with a LIST INFO appended to its stream list (strl)
 * to path, the sizes of strl, hdrl and RIFF grown to hold it. The INFO list holds one
 * tag stating tag_size bytes and the list states list_size; list_type replaces
 * "strl" (FFmpeg reads into a list whatever its type). Returns 0 on success. */
static int avi_with_info(const unsigned char *d, size_t n, uint32_t tag_size, uint32_t list_size,
                         const char *list_type, const char *path)
{
    static unsigned char o[(1 << 16) + 64];
    size_t strl = 0, hdrl = 0;
    for (size_t i = 0; i + 12 < n && !(strl && hdrl); i++) {
        if (!memcmp(d + i, "LIST", 4) && !memcmp(d + i + 8, "strl", 4))
            strl = i;
        if (!memcmp(d + i, "LIST", 4) && !memcmp(d + i + 8, "hdrl", 4))
            hdrl = i;
    }
    if (!strl || !hdrl || n + 64 > sizeof o)
        return -1;
    /* LIST <size> INFO, ISFT <size> "x\0\0\0" */
    unsigned char info[24] = {'L', 'I', 'S', 'T', 0, 0, 0, 0, 'I', 'N', 'F', 'O', 'I', 'S', 'F', 'T', 0, 0, 0, 0,
                              'x', 0, 0, 0};
    put_le32(info + 4, list_size);
    put_le32(info + 16, tag_size);
    size_t end = strl + 8 + (d[strl + 4] | d[strl + 5] << 8 | d[strl + 6] << 16 | (size_t)d[strl + 7] << 24);
    memcpy(o, d, end);
    memcpy(o + end, info, sizeof info);
    memcpy(o + end + sizeof info, d + end, n - end);
    size_t m = n + sizeof info;
    const size_t grow[3] = {strl + 4, hdrl + 4, 4};
    for (int k = 0; k < 3; k++) {
        unsigned char *g = o + grow[k];
        put_le32(g, (uint32_t)(g[0] | g[1] << 8 | g[2] << 16 | (uint32_t)g[3] << 24) + (uint32_t)sizeof info);
    }
    memcpy(o + strl + 8, list_type, 4);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(o, 1, m, f) == m;
    if (f)
        fclose(f);
    return ok ? 0 : -1;
}

/* fuzz_video's finds: an AVI whose stream list holds a LIST INFO stating 3.6 GB with a
 * tag stating 1,821,679,180 bytes; FFmpeg's RIFF reader allocates a tag at its stated
 * size (6 s and 1.8 GB resident before, ffprobe alike). The second find (CI's 60 s
 * run) hid the same list inside a stream list whose type was damaged ("ytrl"), which
 * the check did not walk and FFmpeg reads into. The same list with a tag of its true
 * size still opens. */
TEST(test_header_limits_avi_info_tag_claiming_1_8_gb_is_refused_fast)
{
    char good[1024], path[1024];
    snprintf(good, sizeof good, "%s", th_tmp("small_info.avi"));
    static unsigned char d[1 << 16];
    size_t n = small_avi(good, d, sizeof d);
    ASSERT(n, "ffmpeg made no AVI %s", good);
    const char *types[2] = {"strl", "ytrl"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s", th_tmp(k ? "hostile_info_ytrl.avi" : "hostile_info.avi"));
        ASSERT_EQ_INT(avi_with_info(d, n, 1821679180u, 3590324250u, types[k], path), 0);
        capture_source *src = NULL;
        icv_err err = {0};
        double t0 = now_s();
        int rc = capture_source_open(&src, path, NULL, &err);
        double dt = now_s() - t0;
        ASSERT(rc == ICV_EFORMAT, "%s opened (rc %d): %s", types[k], rc, err.msg);
        ASSERT_STR_CONTAINS(err.msg, "damaged header: a chunk at byte");
        ASSERT_STR_CONTAINS(err.msg, "states 1821679180 bytes");
        /* a header's walk: milliseconds; 1 s leaves room for a loaded machine and ASan */
        ASSERT(dt < 1.0, "%s took %.2f s", types[k], dt);
        th_proc p;
        ASSERT_EQ_INT(th_run_cli(&p, "probe '%s'", path), 1);
        ASSERT_STR_CONTAINS(p.err, "damaged header");
    }
    /* the true tag: opens, 3 frames */
    snprintf(path, sizeof path, "%s", th_tmp("true_info.avi"));
    ASSERT_EQ_INT(avi_with_info(d, n, 4u, 16u, "strl", path), 0);
    capture_source *src = NULL;
    icv_err err = {0};
    ASSERT(capture_source_open(&src, path, NULL, &err) == 0, "%s", err.msg);
    long frames = capture_source_info(src)->frames;
    capture_source_close(src);
    ASSERT_EQ_INT((int)frames, 3);
}

/* The backstop for every container: FFmpeg refuses a block larger than
 * CAPTURE_FFMPEG_MAX_BLOCK once capture has set it up (a header's claim then fails
 * with FFmpeg's out-of-memory error, not the process). */
TEST(test_header_limits_ffmpeg_blocks_are_capped)
{
    capture_ffmpeg_setup();
    void *big = av_malloc(CAPTURE_FFMPEG_MAX_BLOCK + 1);
    av_free(big);
    ASSERT(big == NULL, "FFmpeg gave a block of %zu bytes", CAPTURE_FFMPEG_MAX_BLOCK + 1);
    void *fine = av_malloc(64u << 20); /* 4K 16-bit RGB frames are 50 MB */
    av_free(fine);
    ASSERT(fine != NULL, "FFmpeg refused a 64 MiB block");
}

/* A damaged stream's frame size: fuzz_video's 457-byte MPEG-4 stream states 16 x 23,
 * then its frames state sizes whose planes took 323 MB each (2.3 GB in all). Every
 * decoder is told the largest frame read (CAPTURE_MAX_PIXELS): such frames are lost,
 * as a corrupt frame is. */
TEST(test_header_limits_frames_beyond_8k_are_not_decoded)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/video/regress_mpeg4_frames_beyond_8k.m4v", th_root());
    capture_source *src = NULL;
    icv_err err = {0};
    ASSERT(capture_source_open(&src, path, NULL, &err) == 0, "%s", err.msg);
    ASSERT(src->dec->max_pixels == CAPTURE_MAX_PIXELS, "decoder allows %lld pixels", (long long)src->dec->max_pixels);
    capture_frame f = {0};
    ASSERT(capture_frame_alloc(&f, capture_source_info(src), &err) == 0, "%s", err.msg);
    int read = 0;
    for (int i = 0; i < 3 && capture_source_read(src, &f, &err) == 0; i++)
        read++;
    capture_frame_free(&f);
    capture_source_close(src);
    /* frame 0 (16 x 23) decodes; the next ones state sizes beyond 8K and are lost */
    ASSERT_EQ_INT(read, 1);
}
