/* test_frame_keep.c: capture_options.keep_bytes on a video of known content (frame i
 * shows the counter i; H.264 with B-frames and a keyframe every 12 frames), read as
 * the track stage reads it: frames a tenth into the clip, frames spread over it by
 * seeks, then every frame in order. Kept, every frame is decoded once and delivers the
 * pixels sequential decoding gives; with a budget of a few frames the rest is decoded
 * again, never more than without keeping. */
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/capture/video_maker.h"
#include "tests/harness.h"

#define NF 60

typedef struct {
    long decoded;      /* frames the decoder gave for the whole pattern */
    long pass_bad;     /* the first frame of the final pass that differs, -1 none */
    long pass_frames;  /* frames the final pass read */
    int rc;            /* the first failure's code, 0 none */
    char why[256];
} pattern_result;

/* The look trials' reading (job/track_open.c: 6 frames from a tenth in, 15 spread, the
 * source left at frame 0 after each) then the 2D pass's (every frame in order),
 * against seq (the sequential decoding's frames, fsize bytes each). */
static pattern_result read_like_the_track_stage(const char *path, size_t keep_bytes, const unsigned char *seq,
                                                size_t fsize)
{
    pattern_result r = {0, -1, 0, 0, ""};
    capture_options o = {.keep_bytes = keep_bytes};
    capture_source *src;
    icv_err err = {0};
    if ((r.rc = capture_source_open(&src, path, &o, &err)) != 0) {
        snprintf(r.why, sizeof r.why, "open: %s", err.msg);
        return r;
    }
    capture_frame f;
    capture_frame_alloc(&f, capture_source_info(src), &err);
    long d0 = capture_decoded_frames();
    int rc = capture_source_seek(src, NF / 10, &err);
    for (int k = 0; k < 6 && !rc; k++)
        rc = capture_source_read(src, &f, &err);
    if (!rc)
        rc = capture_source_seek(src, 0, &err);
    for (int k = 0; k < 15 && !rc; k++) {
        rc = capture_source_seek(src, (long)(NF * (k + 0.5) / 15), &err);
        if (!rc)
            rc = capture_source_read(src, &f, &err);
    }
    if (!rc)
        rc = capture_source_seek(src, 0, &err);
    capture_source_keep_stop(src);
    while (!rc && (rc = capture_source_read(src, &f, &err)) == 0) {
        if (r.pass_bad < 0 && (f.index != r.pass_frames || memcmp(f.data, seq + fsize * (size_t)f.index, fsize)))
            r.pass_bad = r.pass_frames;
        r.pass_frames++;
    }
    r.rc = rc == CAPTURE_EOF ? 0 : rc;
    if (r.rc)
        snprintf(r.why, sizeof r.why, "%s", err.msg);
    r.decoded = capture_decoded_frames() - d0;
    capture_frame_free(&f);
    capture_source_close(src);
    return r;
}

TEST(test_kept_frames_decode_each_frame_once_for_the_look_trials_and_the_pass)
{
    const char *path = th_tmp("keep_h264.mp4");
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    ASSERT(vm_encode(p, "30", "-c:v libx264 -preset veryfast -crf 10 -bf 3 -g 12 -pix_fmt yuv420p", NF, NULL,
                     NULL) == 0,
           "ffmpeg could not make %s", p);
    capture_source *src;
    icv_err err = {0};
    ASSERT(capture_source_open(&src, p, NULL, &err) == 0, "open: %s", err.msg);
    capture_frame f;
    ASSERT_EQ_INT(capture_frame_alloc(&f, capture_source_info(src), &err), 0);
    size_t fsize = f.stride * (size_t)f.height;
    unsigned char *seq = malloc(fsize * NF);
    ASSERT_TRUE(seq != NULL);
    long n = 0;
    while (n < NF && capture_source_read(src, &f, &err) == 0 && f.index == n)
        memcpy(seq + fsize * (size_t)n++, f.data, fsize);
    capture_frame_free(&f);
    capture_source_close(src);
    if (n != NF)
        free(seq);
    ASSERT(n == NF, "sequential read stopped at %ld: %s", n, err.msg);

    pattern_result none = read_like_the_track_stage(p, 0, seq, fsize);
    pattern_result few = read_like_the_track_stage(p, 10 * fsize, seq, fsize);
    pattern_result all = read_like_the_track_stage(p, NF * fsize, seq, fsize);
    free(seq);
    const pattern_result *r[3] = {&none, &few, &all};
    for (int k = 0; k < 3; k++) {
        ASSERT(r[k]->rc == 0, "pattern %d: %s", k, r[k]->why);
        ASSERT(r[k]->pass_frames == NF && r[k]->pass_bad < 0, "pattern %d: the pass read %ld frames, frame %ld wrong",
               k, r[k]->pass_frames, r[k]->pass_bad);
    }
    /* exact: every frame once, none twice (without keeping, the trials' ~60 frames
       are decoded again: 132 here) */
    ASSERT(all.decoded == NF, "kept: %ld frames decoded for %d (not keeping: %ld)", all.decoded, NF, none.decoded);
    /* a budget of 10 frames: those past it decoded again, no more than without */
    ASSERT(few.decoded <= none.decoded, "10 frames kept: %ld decoded, not keeping: %ld", few.decoded, none.decoded);
}
