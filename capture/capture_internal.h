/* capture_internal.h: the frame source's state, shared by source.c (the public entry
 * points), source_video.c (libavformat files), source_images.c (image sequences),
 * luma.c (frame to caller buffer) and timing.c. Private to capture/. */
#ifndef ICV_CAPTURE_INTERNAL_H
#define ICV_CAPTURE_INTERNAL_H

/* Bytes allocated after a packed buffer that swscale writes: it writes the last row in
 * whole SIMD blocks, up to 45 bytes past the end of a small image's exact size (heap
 * corruption found by tests/fuzz/fuzz_image.c). */
#define CAPTURE_SWS_PAD 64

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>

#include "capture/capture.h"

struct capture_source {
    capture_info info;
    capture_options opt;

    /* the index, presentation order */
    long n;
    int64_t *pts;       /* stream time base */
    uint8_t *key;       /* 1: a keyframe (decoding may start here) */
    double *pts_s;      /* s, relative to frame 0 */
    double tick_s;      /* s, one time-base tick */
    /* AVI only: the container index's (byte position, timestamp) by position. The AVI
     * demuxer numbers packets in read order, which is wrong after it resyncs past damage;
     * the index says which frame a chunk really is. */
    int64_t *ix_pos, *ix_ts;
    long n_ix;
    /* no timestamps in the container (raw elementary stream): frames are numbered by
     * counting decoder output from the start, and every seek decodes from the start */
    int no_ts;
    long out_count;
    /* decode-order timestamps only (AVI holding H.264 with B-frames: every packet a dts,
     * none a pts): a decoded picture's timestamp is that of a later packet (the
     * decoder's reorder delay), so frames are numbered by counting decoder output from
     * the keyframe decoding started at (out_base) */
    int count_output;
    long out_base;

    /* a video inside a zip archive: the member in memory, FFmpeg's I/O on it */
    struct capture_zip_member *zip;
    AVIOContext *avio;

    /* decoding, allocated once */
    AVFormatContext *fmt;
    int stream;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frm;
    struct SwsContext *sws;
    /* display rotation (info.rotation_deg): the picture is copied here at its stored size,
     * then turned into the caller's frame */
    uint8_t *rot_buf;
    size_t rot_stride;
    int src_depth;      /* significant bits of the decoded luma */
    int draining;       /* the demuxer is exhausted; the decoder is being drained */
    int at_eof;
    int pending;        /* frm holds a decoded frame not yet delivered (after a seek) */
    long pending_index;
    long skip_below;    /* frames with a smaller index are decoded and dropped (seek) */
    long last_index;    /* index of the last frame delivered, -1 none */

    /* frames kept (frame_keep.c, capture_options.keep_bytes): copies of decoded frames,
     * packed rows, in one block of keep_cap slots whose pages are touched as they fill */
    uint8_t *kept;
    long *kept_slot;       /* n entries: frame i's slot, -1 none */
    size_t kept_bytes;     /* bytes of one frame */
    long keep_cap, n_kept, kept_last; /* slots; filled; the largest frame kept */
    int keeping;           /* 1: decoded frames are kept (until capture_source_keep_stop) */
    int kept_release;      /* 1: a read has passed them all, not keeping: freed at the next
                              read or seek (capture_keep_release) */
    long kept_next;        /* >= 0: a seek went to kept frame(s); the next read delivers this
                              frame, from the kept ones or the decoder brought to it; -1: the
                              decoder's next frame */
    /* pictures lent in place by capture_source_read_next (the decoder's own, not copied):
       the last two, so that the one before the last stays readable; allocated at the
       first lent */
    AVFrame *lent[2];
    int lent_next;

    /* frames lost: undecodable or missing from the stream */
    long *lost;
    size_t n_lost;
    uint8_t *lost_flag; /* n entries */

    /* image sequences */
    char **paths;
    size_t n_paths;
    uint8_t *filebuf;
    size_t filebuf_cap;
    enum AVCodecID img_codec;
    long img_next;
};

/* An mp4/mov header's sample counts against the file's size (header_check.c):
 * ICV_EFORMAT naming the file when it states more frames than the file has bytes. */
int capture_header_check(const char *path, icv_err *err);
/* The same on an open file (from its start; path names it in the message). */
int capture_header_check_file(FILE *f, const char *path, icv_err *err);

/* A video inside a zip archive (zip_member.c): 1 when path starts as a zip does */
int capture_is_zip(const char *path);
/* The archive's one video member read into memory and s->fmt allocated to read it
 * (s->avio, custom I/O); an error naming what the archive holds when it has no video
 * or several. capture_source_close frees them (capture_zip_close). */
int capture_zip_open(capture_source *s, icv_err *err);
/* capture_header_check on the member */
int capture_zip_header_check(const capture_source *s, icv_err *err);
/* the member's name inside the archive, or NULL */
const char *capture_zip_member_name(const capture_source *s);
void capture_zip_close(capture_source *s);
/* A RIFF file's (AVI, WAVE) header chunks against the file's size (riff_check.c): a
 * chunk inside hdrl, strl, odml or INFO stating more bytes than the file has left is
 * refused (FFmpeg allocates INFO tags at their stated size). f open, fsize bytes;
 * 0 when not RIFF or sound. */
int capture_riff_check(FILE *f, int64_t fsize, const char *path, icv_err *err);
int capture_video_open(capture_source *s, icv_err *err);
/* view non-NULL: a kept frame's pixels are not copied into f (capture_source_read_view);
 * lend 1: nor a decoded picture's that needs no conversion (capture_source_read_next) */
int capture_video_read(capture_source *s, capture_frame *f, capture_frame *view, int lend, icv_err *err);
int capture_video_seek(capture_source *s, long n, icv_err *err);

int capture_images_open(capture_source *s, icv_err *err);
int capture_images_read(capture_source *s, capture_frame *f, icv_err *err);
int capture_images_seek(capture_source *s, long n, icv_err *err);
int capture_is_image_sequence(const char *path);

/* luma.c: decides the delivered format from the decoder's pixel format, and copies the
 * Y plane (or converts, for RGB/paletted/Bayer sources) into f. */
int capture_luma_setup(capture_source *s, enum AVPixelFormat fmt, icv_err *err);
int capture_luma_copy(capture_source *s, const AVFrame *src, capture_frame *f, icv_err *err);
/* 1: src's plane 0 is the caller's frame as capture_luma_copy would copy it (luma as
 * stored, of the caller's sample size, not turned): readable in place */
int capture_luma_as_is(const capture_source *s, const AVFrame *src);
/* A w x h picture of bps-byte samples turned clockwise by deg (90, 180, 270) into
 * out (h x w for 90 and 270): display rotation and EXIF orientation. */
void capture_turn(const uint8_t *in, size_t in_stride, int w, int h, int bps, int deg, uint8_t *out,
                  size_t out_stride);

/* frame_keep.c: decoded frames kept for a second reading (capture_options.keep_bytes). */
void capture_keep_init(capture_source *s);
/* 1 when frame i is kept */
int capture_keep_has(const capture_source *s, long i);
/* A frame delivered into f kept (nothing when not keeping, kept already, or full). */
void capture_keep_frame(capture_source *s, const capture_frame *f);
/* A decoded picture of frame i (a seek's, dropped on the way) kept, as a read delivers it. */
void capture_keep_decoded(capture_source *s, const AVFrame *frm, long i);
/* Frame i from the kept frames into f, or into *view without a copy (view non-NULL:
 * f's fields, the kept pixels): 1, or 0 when not kept. */
int capture_keep_serve(const capture_source *s, long i, capture_frame *f, capture_frame *view);
/* The decoded picture of frame f->index kept and *view made of it, without a copy into
 * f: 0, 1 when it is not to be kept (f gets it), or the copy's error. */
int capture_keep_decoded_view(capture_source *s, const AVFrame *frm, const capture_frame *f, capture_frame *view,
                              icv_err *err);
void capture_keep_free(capture_source *s);
/* The kept frames freed when a read has passed them all (kept_release): one read later
 * than that, so that the view a read gave stays valid through the next read. */
void capture_keep_release(capture_source *s);

/* timing.c: the capture rate (options, metadata, nominal) and the time scale. */
void capture_rate_resolve(capture_source *s, const AVDictionary *format_meta, const AVDictionary *stream_meta);
void capture_mark_lost(capture_source *s, long i);
/* Index of the frame with presentation time ts (stream time base); -1 if none. */
long capture_index_of(const capture_source *s, int64_t ts);

/* An FFmpeg error code as text. */
const char *capture_averr(int code, char *buf, size_t n);

/* Counts one frame out of a decoder (capture_decoded_frames). */
void capture_count_decoded(void);
/* FFmpeg's process-wide settings: its messages to icv_log's debug level (library
 * code prints nothing), and no block larger than CAPTURE_FFMPEG_MAX_BLOCK. */
void capture_ffmpeg_setup(void);
/* bytes: FFmpeg sizes some buffers from a header's claim (a tag, an index, a frame
 * size), so a few bytes of a damaged file could ask for gigabytes; the largest true
 * block, one plane of an 8192 x 8192 16-bit frame, is 128 MiB. */
#define CAPTURE_FFMPEG_MAX_BLOCK ((size_t)512 << 20)
/* pixels: the largest frame read, 8192 x 4608 (8K video is 7680 x 4320; high-speed
 * cameras record at most a few megapixels). A decoder told of a larger frame by a
 * damaged header would allocate a buffer per plane and per reference frame. */
#define CAPTURE_MAX_PIXELS ((int64_t)8192 * 4608)
/* A decoder's context given capture's limits (CAPTURE_MAX_PIXELS), before it opens. */
void capture_decoder_limits(AVCodecContext *dec);

#endif
