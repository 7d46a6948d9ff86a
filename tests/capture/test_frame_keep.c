/* test_frame_keep.c: capture_options.keep_bytes on a video of known content (frame i
 * shows the counter i; H.264 with B-frames and a keyframe every 12 frames), read as
 * the track stage reads it: frames a tenth into the clip, frames spread over it by
 * seeks, then every frame in order. Kept, every frame is decoded once and delivers the
 * pixels sequential decoding gives; with a budget of a few frames the rest is decoded
 * again, never more than without keeping. Read in place (capture_source_read_view), the
 * same pixels, the caller's buffer untouched when every frame is kept, and the pass's
 * previous frame still readable after the next read; the pass reading on with
 * capture_source_read_next, every frame not kept is the decoder's picture lent in
 * place, the same pixels. */
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/capture/video_maker.h"
#include "tests/harness.h"

#define NF 60

typedef struct {
    long decoded;      /* frames the decoder gave for the whole pattern */
    long trial_bad;    /* the first trial read that differs, -1 none */
    long pass_bad;     /* the first frame of the final pass that differs, -1 none */
    long prev_bad;     /* the first pass frame whose previous frame's pixels changed, -1 none */
    long in_place;     /* reads (view) whose pixels are not the caller's buffer */
    long in_place_trials; /* of them, the trials' */
    int buffer_written; /* view: the caller's buffer was written by the trials' reads */
    long pass_frames;  /* frames the final pass read */
    int rc;            /* the first failure's code, 0 none */
    char why[256];
} pattern_result;

/* 0: v's pixels (rows at its stride) are frame v->index of seq (packed, fsize bytes a
 * frame) */
static int differs(const capture_frame *v, const unsigned char *seq, size_t fsize)
{
    size_t row = (size_t)v->width;
    for (int y = 0; y < v->height; y++)
        if (memcmp((const unsigned char *)v->data + (size_t)y * v->stride, seq + fsize * (size_t)v->index + row * y,
                   row))
            return 1;
    return 0;
}

/* One read, copied into f or in place (view 1: capture_source_read_view, 2: _read_next;
 * *v the frame); the frame's pixels checked against seq: 0 when they are sequential
 * decoding's. */
static int read_one(capture_source *src, capture_frame *f, capture_frame *v, int view, const unsigned char *seq,
                    size_t fsize, pattern_result *r, int *rc, icv_err *err)
{
    *rc = view == 2 ? capture_source_read_next(src, f, v, err)
          : view    ? capture_source_read_view(src, f, v, err)
                    : capture_source_read(src, f, err);
    if (!view)
        *v = *f;
    if (*rc)
        return 0;
    r->in_place += v->data != f->data;
    return differs(v, seq, fsize);
}

/* The look trials' reading (job/track_open.c: 6 frames from a tenth in, 15 spread, the
 * source left at frame 0 after each) then the 2D pass's (every frame in order),
 * against seq (the sequential decoding's frames, fsize bytes each); view: every read in
 * place (capture_source_read_view; 2: the pass's with capture_source_read_next, as
 * job/track_2d.c), the caller's buffer filled with 0xa5 first. */
static pattern_result read_like_the_track_stage(const char *path, size_t keep_bytes, const unsigned char *seq,
                                                size_t fsize, int view)
{
    pattern_result r = {0, -1, -1, -1, 0, 0, 0, 0, 0, ""};
    capture_options o = {.keep_bytes = keep_bytes};
    capture_source *src;
    icv_err err = {0};
    if ((r.rc = capture_source_open(&src, path, &o, &err)) != 0) {
        snprintf(r.why, sizeof r.why, "open: %s", err.msg);
        return r;
    }
    capture_frame f, v, pv = {0};
    capture_frame_alloc(&f, capture_source_info(src), &err);
    memset(f.data, 0xa5, fsize);
    long d0 = capture_decoded_frames(), n_trial = 0;
    int rc = capture_source_seek(src, NF / 10, &err);
    int trial_view = view ? 1 : 0;
    for (int k = 0; k < 6 && !rc; k++, n_trial++)
        if (read_one(src, &f, &v, trial_view, seq, fsize, &r, &rc, &err) && r.trial_bad < 0)
            r.trial_bad = n_trial;
    if (!rc)
        rc = capture_source_seek(src, 0, &err);
    for (int k = 0; k < 15 && !rc; k++, n_trial++) {
        rc = capture_source_seek(src, (long)(NF * (k + 0.5) / 15), &err);
        if (!rc && read_one(src, &f, &v, trial_view, seq, fsize, &r, &rc, &err) && r.trial_bad < 0)
            r.trial_bad = n_trial;
    }
    if (!rc)
        rc = capture_source_seek(src, 0, &err);
    for (size_t i = 0; i < fsize && !r.buffer_written; i++)
        r.buffer_written = ((const unsigned char *)f.data)[i] != 0xa5;
    capture_source_keep_stop(src);
    r.in_place_trials = r.in_place;
    for (; !rc; r.pass_frames++) {
        int bad = read_one(src, &f, &v, view, seq, fsize, &r, &rc, &err);
        if (rc)
            break;
        if (r.pass_bad < 0 && (v.index != r.pass_frames || bad))
            r.pass_bad = r.pass_frames;
        /* the frame before, read in place, still its own after this read (the 2D
           pass's duplicate test compares the two) */
        if (view && r.pass_frames > 0 && r.prev_bad < 0 && pv.data != f.data && differs(&pv, seq, fsize))
            r.prev_bad = r.pass_frames;
        pv = v;
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

    pattern_result none = read_like_the_track_stage(p, 0, seq, fsize, 0);
    pattern_result few = read_like_the_track_stage(p, 10 * fsize, seq, fsize, 0);
    pattern_result all = read_like_the_track_stage(p, NF * fsize, seq, fsize, 0);
    pattern_result none_v = read_like_the_track_stage(p, 0, seq, fsize, 1);
    pattern_result few_v = read_like_the_track_stage(p, 10 * fsize, seq, fsize, 1);
    pattern_result all_v = read_like_the_track_stage(p, NF * fsize, seq, fsize, 1);
    pattern_result none_n = read_like_the_track_stage(p, 0, seq, fsize, 2);
    pattern_result few_n = read_like_the_track_stage(p, 10 * fsize, seq, fsize, 2);
    pattern_result all_n = read_like_the_track_stage(p, NF * fsize, seq, fsize, 2);
    free(seq);
    const pattern_result *r[9] = {&none, &few, &all, &none_v, &few_v, &all_v, &none_n, &few_n, &all_n};
    for (int k = 0; k < 9; k++) {
        ASSERT(r[k]->rc == 0, "pattern %d: %s", k, r[k]->why);
        ASSERT(r[k]->pass_frames == NF && r[k]->pass_bad < 0, "pattern %d: the pass read %ld frames, frame %ld wrong",
               k, r[k]->pass_frames, r[k]->pass_bad);
        ASSERT(r[k]->trial_bad < 0, "pattern %d: trial read %ld wrong", k, r[k]->trial_bad);
        ASSERT(r[k]->prev_bad < 0, "pattern %d: pass frame %ld: the previous frame's pixels changed", k,
               r[k]->prev_bad);
    }
    /* in place: the same frames decoded as copied; nothing in place without keeping;
       everything kept: every read in place (21 trial reads and the pass's 60 but the
       last, 59, past the last spread frame, 58: decoded by the pass), the trials never
       writing the caller's buffer; 10 kept: some in place, the rest into the buffer */
    ASSERT(none_v.decoded == none.decoded && few_v.decoded == few.decoded && all_v.decoded == all.decoded,
           "decoded in place %ld %ld %ld, copied %ld %ld %ld", none_v.decoded, few_v.decoded, all_v.decoded,
           none.decoded, few.decoded, all.decoded);
    ASSERT(none_v.in_place == 0, "not keeping: %ld reads in place", none_v.in_place);
    ASSERT(all_v.in_place == 21 + NF - 1, "all kept: %ld reads in place of %d", all_v.in_place, 21 + NF - 1);
    ASSERT(!all_v.buffer_written, "every frame kept: the trials wrote the caller's buffer");
    ASSERT(few_v.in_place >= 10 && few_v.in_place < 21 + NF && few_v.buffer_written,
           "10 frames kept: %ld reads in place", few_v.in_place);
    /* exact: every frame once, none twice (without keeping, the trials' ~60 frames
       are decoded again: 132 here) */
    ASSERT(all.decoded == NF, "kept: %ld frames decoded for %d (not keeping: %ld)", all.decoded, NF, none.decoded);
    /* a budget of 10 frames: those past it decoded again, no more than without */
    ASSERT(few.decoded <= none.decoded, "10 frames kept: %ld decoded, not keeping: %ld", few.decoded, none.decoded);
    /* the pass reading on (read_next): the trials as before; every pass frame in place,
       kept or lent (yuv420p 8-bit: no conversion), whatever was kept; the same frames
       decoded (lending decodes nothing again) */
    const pattern_result *nv[3] = {&none_v, &few_v, &all_v}, *nn[3] = {&none_n, &few_n, &all_n};
    for (int k = 0; k < 3; k++) {
        ASSERT(nn[k]->in_place_trials == nv[k]->in_place_trials, "budget %d: trials in place %ld, read_view %ld", k,
               nn[k]->in_place_trials, nv[k]->in_place_trials);
        ASSERT(nn[k]->in_place - nn[k]->in_place_trials == NF, "budget %d: %ld of the pass's %d reads in place", k,
               nn[k]->in_place - nn[k]->in_place_trials, NF);
        ASSERT(nn[k]->decoded == nv[k]->decoded, "budget %d: decoded %ld, read_view %ld", k, nn[k]->decoded,
               nv[k]->decoded);
    }
}
