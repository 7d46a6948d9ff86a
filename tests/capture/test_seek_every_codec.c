/* test_seek_every_codec.c: for every codec and container the issue lists, a video of
 * known content (frame i shows the counter i) is read sequentially (exact frame count,
 * frame i shows i) and then by seeks in scrambled order: each seek to N returns the very
 * pixels sequential decoding gave for frame N. */
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/capture/video_maker.h"
#include "tests/harness.h"

#define NFRAMES 48

/* 1: a seek to n, then a read, gives frame n with the pixels sequential decoding gave
 * (seq, fsize bytes a frame) */
static int seek_gives(capture_source *src, capture_frame *f, const unsigned char *seq, size_t fsize, long n,
                      icv_err *err)
{
    return capture_source_seek(src, n, err) == 0 && capture_source_read(src, f, err) == 0 && f->index == n &&
           !memcmp(f->data, seq + fsize * (size_t)n, fsize);
}

/* Opens path, reads everything, seeks around; returns through ASSERT on failure.
 * decodes_on: the forward seeks every fifth frame must decode on (each frame between
 * once, none again): a keyframe within 3 frames ahead is nearer than what a seek
 * throws away with B-frames (2 reordered at least) and costs the decoder's restart. */
static void check_source(const char *path, int want_bytes, int decodes_on)
{
    capture_source *src;
    icv_err err = {0};
    ASSERT(capture_source_open(&src, path, NULL, &err) == 0, "open: %s", err.msg);
    const capture_info *in = capture_source_info(src);
    ASSERT_EQ_INT(in->frames, NFRAMES);
    ASSERT_EQ_INT(in->width, VM_W);
    ASSERT_EQ_INT(in->height, VM_H);
    ASSERT_EQ_INT(in->bytes_per_sample, want_bytes);
    capture_frame f;
    ASSERT_EQ_INT(capture_frame_alloc(&f, in, &err), 0);
    size_t fsize = f.stride * (size_t)f.height;
    unsigned char *seq = malloc(fsize * NFRAMES);
    ASSERT_TRUE(seq != NULL);
    long count = 0;
    int rc;
    while ((rc = capture_source_read(src, &f, &err)) == 0) {
        if (f.index != count || vm_counter(f.data, f.stride, f.bytes_per_sample) != count)
            break;
        memcpy(seq + fsize * (size_t)count, f.data, fsize);
        count++;
    }
    long bad_index = f.index;
    int bad_counter = rc == 0 ? vm_counter(f.data, f.stride, f.bytes_per_sample) : -2;
    if (rc != CAPTURE_EOF || count != NFRAMES) {
        free(seq);
        capture_frame_free(&f);
        capture_source_close(src);
        ASSERT(0, "sequential read stopped at %ld (rc %d, index %ld, counter %d): %s", count, rc, bad_index,
               bad_counter, err.msg);
    }
    static const long order[] = {0, 47, 13, 5, 30, 29, 31, 1, 24, 47, 46, 12, 11, 0, 36};
    long bad = -1, decoded = -1;
    for (size_t k = 0; k < sizeof order / sizeof order[0] && bad < 0; k++)
        bad = seek_gives(src, &f, seq, fsize, order[k], &err) ? -1 : order[k];
    for (long n = 3; n < NFRAMES && bad < 0; n += 5) { /* forward, every fifth */
        bad = seek_gives(src, &f, seq, fsize, n, &err) ? -1 : n;
        decoded = n == 3 ? capture_decoded_frames() : decoded;
    }
    decoded = capture_decoded_frames() - decoded;
    if (bad >= 0 || (decodes_on && decoded != 43 - 3)) {
        free(seq);
        capture_frame_free(&f);
        capture_source_close(src);
        ASSERT(bad < 0, "seek to %ld gave frame %ld: %s", bad, f.index, err.msg);
        ASSERT(0, "frames 4 to 43 read every fifth by seeks: %ld decoded, not 40", decoded);
    }
    /* reading on after a seek continues in order */
    int cont = capture_source_seek(src, 20, &err) == 0 && capture_source_read(src, &f, &err) == 0 &&
               capture_source_read(src, &f, &err) == 0 && f.index == 21 &&
               !memcmp(f.data, seq + fsize * 21, fsize);
    free(seq);
    capture_frame_free(&f);
    capture_source_close(src);
    ASSERT(cont, "read after seek to 20 did not give frame 21");
}

static void check_codec(const char *name, const char *args, int want_bytes, int decodes_on)
{
    const char *path = th_tmp(name);
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    ASSERT(vm_encode(p, "30", args, NFRAMES, NULL, NULL) == 0, "ffmpeg could not make %s", name);
    check_source(p, want_bytes, decodes_on);
}

TEST(test_seek_h264_with_b_frames_returns_frame_n)
{
    /* B-frames (reordering) and a short GOP make seeking non-trivial */
    check_codec("h264.mp4", "-c:v libx264 -preset veryfast -crf 10 -bf 3 -g 12 -pix_fmt yuv420p", 1, 1);
}

TEST(test_seek_h264_with_b_frames_in_avi_returns_frame_n)
{
    /* AVI gives every packet a decode-order dts and no pts: a decoded picture carries a
     * later packet's dts (the reorder delay), which numbered frames 2 late and lost the
     * first two (the green ball's phone clip, ../shared/data/real) */
    check_codec("h264.avi", "-c:v libx264 -preset veryfast -crf 10 -bf 2 -g 12 -pix_fmt yuv420p", 1, 0);
}

TEST(test_seek_h264_in_matroska_returns_frame_n)
{
    check_codec("h264.mkv", "-c:v libx264 -preset veryfast -crf 10 -bf 2 -g 16 -pix_fmt yuv420p", 1, 0);
}

TEST(test_seek_h265_returns_frame_n)
{
    check_codec("h265.mp4", "-c:v libx265 -x265-params log-level=error -preset ultrafast -crf 10 -g 12 "
                            "-pix_fmt yuv420p -tag:v hvc1", 1, 0);
}

TEST(test_seek_h265_10bit_delivers_16bit_luma)
{
    check_codec("h265_10.mkv", "-c:v libx265 -x265-params log-level=error -preset ultrafast -crf 10 -g 12 "
                               "-pix_fmt yuv420p10le", 2, 0);
}

TEST(test_seek_mjpeg_returns_frame_n)
{
    check_codec("mjpeg.avi", "-c:v mjpeg -q:v 2 -pix_fmt yuvj420p", 1, 0);
}

TEST(test_seek_ffv1_returns_frame_n)
{
    check_codec("ffv1.mkv", "-c:v ffv1 -g 8", 1, 0);
}

TEST(test_seek_ffv1_16bit_keeps_16_bits)
{
    check_codec("ffv1_16.mkv", "-c:v ffv1 -pix_fmt gray16le", 2, 0);
}

TEST(test_seek_raw_video_returns_frame_n)
{
    check_codec("raw.avi", "-c:v rawvideo -pix_fmt gray", 1, 0);
}

TEST(test_seek_raw_packed_yuv_in_mov_returns_frame_n)
{
    /* packed 4:2:2 (2vuy): the Y samples are interleaved, so this goes through swscale */
    check_codec("raw.mov", "-c:v rawvideo -pix_fmt uyvy422", 1, 0);
}

TEST(test_seek_png_sequence_returns_frame_n)
{
    char dir[1024], pat[1024];
    snprintf(dir, sizeof dir, "%s", th_tmpdir());
    snprintf(pat, sizeof pat, "%s/img_%%04d.png", dir);
    ASSERT(vm_encode(pat, "30", "-c:v png", NFRAMES, NULL, NULL) == 0, "ffmpeg could not make PNGs");
    check_source(pat, 1, 0);
}

TEST(test_seek_png_glob_and_folder_return_frame_n)
{
    char dir[1024], pat[1024];
    snprintf(dir, sizeof dir, "%s/seq", th_tmpdir());
    th_proc p;
    th_run_sh(&p, "mkdir -p '%s'", dir);
    snprintf(pat, sizeof pat, "%s/img_%%04d.png", dir);
    ASSERT(vm_encode(pat, "30", "-c:v png", NFRAMES, NULL, NULL) == 0, "ffmpeg could not make PNGs");
    snprintf(pat, sizeof pat, "%s/img_*.png", dir);
    check_source(pat, 1, 0);
    check_source(dir, 1, 0);
}

TEST(test_seek_tiff_16bit_sequence_keeps_16_bits)
{
    char pat[1024];
    snprintf(pat, sizeof pat, "%s/img_%%03d.tif", th_tmpdir());
    ASSERT(vm_encode(pat, "30", "-pix_fmt gray16le -c:v tiff", NFRAMES, NULL, NULL) == 0, "no TIFFs");
    check_source(pat, 2, 0);
}

TEST(test_seek_jpeg_sequence_returns_frame_n)
{
    char pat[1024];
    snprintf(pat, sizeof pat, "%s/img_%%03d.jpg", th_tmpdir());
    ASSERT(vm_encode(pat, "30", "-c:v mjpeg -q:v 2 -pix_fmt yuvj420p", NFRAMES, NULL, NULL) == 0, "no JPEGs");
    check_source(pat, 1, 0);
}

TEST(test_seek_phantom_cine_returns_frame_n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("clip.cine"));
    ASSERT_EQ_INT(vm_write_cine(path, NFRAMES, 1000, 8), 0);
    check_source(path, 1, 0);
    capture_source *src;
    icv_err err;
    ASSERT(capture_source_open(&src, path, NULL, &err) == 0, "%s", err.msg);
    double fps = capture_source_info(src)->nominal_fps, t5 = capture_source_time(src, 5);
    capture_source_close(src);
    ASSERT_NEAR(fps, 1000.0, 1e-9);  /* the SETUP's FrameRate, exact */
    ASSERT_NEAR(t5, 0.005, 1e-12);   /* frame 5 at 5 ms: integer time base 1/1000 */
}

TEST(test_want_8bit_shifts_16bit_luma_to_8_bits)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("g16.mkv"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v ffv1 -pix_fmt gray16le", 4, NULL, NULL), 0);
    capture_options opt = {.want_8bit = 1};
    capture_source *src;
    icv_err err;
    ASSERT(capture_source_open(&src, path, &opt, &err) == 0, "%s", err.msg);
    capture_frame f;
    ASSERT_EQ_INT(capture_frame_alloc(&f, capture_source_info(src), &err), 0);
    int bytes = f.bytes_per_sample, ok = capture_source_seek(src, 3, &err) == 0 &&
                                         capture_source_read(src, &f, &err) == 0;
    int counter = ok ? vm_counter(f.data, f.stride, 1) : -2;
    /* gray8 -> gray16 by FFmpeg is v * 257; >> 8 gives v back: the counter's 235 */
    int top_left = ok ? ((unsigned char *)f.data)[4 * (int)f.stride + 4] : -1;
    capture_frame_free(&f);
    capture_source_close(src);
    ASSERT_EQ_INT(bytes, 1);
    ASSERT(ok, "%s", err.msg);
    ASSERT_EQ_INT(counter, 3);
    ASSERT(top_left == 235 || top_left == 16, "sample %d is not an 8-bit counter level", top_left);
}

TEST(test_seek_h264_elementary_stream_without_timestamps)
{
    /* a raw .h264 stream has no container timestamps: frames are numbered by counting the
     * decoder's output (presentation order, B-frames included) */
    check_codec("es.h264", "-c:v libx264 -preset veryfast -crf 10 -bf 2 -g 12 -pix_fmt yuv420p", 1, 0);
}

TEST(test_seek_vfr_h264_returns_frame_n)
{
    /* variable rate (30 then 60 fps, integer pts in a 1/600 time base) with B-frames: frames
     * are found by their presentation time, whatever the spacing */
    check_codec("vfr.mp4",
                "-vf \"settb=1/600,setpts='if(lt(N,24),20*N,480+10*(N-24))'\" -fps_mode vfr "
                "-enc_time_base:v 1/600 -c:v libx264 -preset veryfast -crf 10 -bf 2 -g 12 -pix_fmt yuv420p",
                1, 0);
}

TEST(test_image_sequence_without_rate_assumes_25fps_and_says_so)
{
    char pat[1024];
    snprintf(pat, sizeof pat, "%s/img_%%03d.png", th_tmpdir());
    ASSERT_EQ_INT(vm_encode(pat, "30", "-c:v png", 5, NULL, NULL), 0);
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "probe '%s'", pat), 0);
    ASSERT_STR_CONTAINS(p.out, "capture 25 fps (assumed");
    ASSERT_EQ_INT(th_run_cli(&p, "probe --json --capture-fps 1000 '%s'", pat), 0);
    ASSERT_STR_CONTAINS(p.out, "\"capture_fps\": 1000.0");
    ASSERT_STR_CONTAINS(p.out, "\"duration_s\": 0.005"); /* 5 frames at 1000 fps */
}

TEST(test_seek_phantom_cine_16bit_keeps_16_bits)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("clip16.cine"));
    ASSERT_EQ_INT(vm_write_cine(path, NFRAMES, 6000, 16), 0);
    check_source(path, 2, 0);
}
