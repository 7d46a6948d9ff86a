/* source_video.c: video files through libavformat/libavcodec. At open, one demuxing pass
 * (no decoding) lists every frame's presentation time and keyframe flag: the exact frame
 * count, the timestamps for the forensics, and the keyframe a seek must start from.
 * Seeking decodes from that keyframe and drops frames until the one asked for, matched by
 * its presentation time, so it returns exactly the frame sequential decoding gives. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/display.h>

#include "capture/capture_internal.h"

typedef struct {
    int64_t pts;
    uint8_t key;
    uint8_t missing; /* listed by the container's index, but its packet could not be read */
} index_entry;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* AVI: loads the container index's positions and timestamps (see capture_internal.h). */
static void load_avi_index(capture_source *s, AVStream *st)
{
    int ne = avformat_index_get_entries_count(st);
    if (strcmp(s->fmt->iformat->name, "avi") || ne <= 0)
        return;
    s->ix_pos = malloc((size_t)ne * sizeof *s->ix_pos);
    s->ix_ts = malloc((size_t)ne * sizeof *s->ix_ts);
    if (!s->ix_pos || !s->ix_ts)
        return;
    long k = 0;
    for (int i = 0; i < ne; i++) {
        const AVIndexEntry *e = avformat_index_get_entry(st, i);
        if (!e || (k > 0 && e->pos <= s->ix_pos[k - 1]))
            continue; /* keep it strictly increasing for the binary search */
        s->ix_pos[k] = e->pos;
        s->ix_ts[k] = e->timestamp;
        k++;
    }
    s->n_ix = k;
}

static long find_pos(const capture_source *s, int64_t pos)
{
    long lo = 0, hi = s->n_ix - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (s->ix_pos[mid] == pos)
            return mid;
        if (s->ix_pos[mid] < pos)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Gives an AVI packet the timestamp its index entry holds (the entry points at the chunk
 * header, 8 bytes before the packet's data). */
static void fix_avi_ts(const capture_source *s, AVPacket *pkt)
{
    if (!s->n_ix || pkt->pos < 0)
        return;
    long k = find_pos(s, pkt->pos - 8);
    if (k < 0)
        k = find_pos(s, pkt->pos);
    if (k < 0)
        return;
    int64_t delta = pkt->pts != AV_NOPTS_VALUE && pkt->dts != AV_NOPTS_VALUE ? pkt->pts - pkt->dts : 0;
    pkt->dts = s->ix_ts[k];
    pkt->pts = s->ix_ts[k] + delta;
}

/* Frames the container's own index lists (mp4 sample tables, AVI idx1, cine offsets) but
 * the demuxer could not deliver (a truncated file, a damaged chunk): added to the index as
 * missing, so frame numbers stay those of the file and the loss is reported where it is.
 * seen holds the n decoding timestamps read; shift maps them to presentation times. */
static index_entry *add_unread_entries(AVStream *st, index_entry *ix, size_t *n, size_t *cap, int64_t *seen,
                                       int64_t shift)
{
    int ne = avformat_index_get_entries_count(st);
    if (ne <= (int)*n)
        return ix;
    qsort(seen, *n, sizeof *seen, cmp_i64);
    size_t nread = *n;
    for (int i = 0; i < ne; i++) {
        const AVIndexEntry *e = avformat_index_get_entry(st, i);
        if (!e || (e->flags & AVINDEX_DISCARD_FRAME) || e->timestamp == AV_NOPTS_VALUE)
            continue;
        if (bsearch(&e->timestamp, seen, nread, sizeof *seen, cmp_i64))
            continue;
        if (*n == *cap) {
            index_entry *nx = realloc(ix, 2 * *cap * sizeof *ix);
            if (!nx)
                return ix;
            ix = nx;
            *cap *= 2;
        }
        ix[*n].pts = e->timestamp + shift;
        ix[*n].key = (e->flags & AVINDEX_KEYFRAME) != 0;
        ix[*n].missing = 1;
        (*n)++;
    }
    return ix;
}

static int cmp_entry(const void *a, const void *b)
{
    const index_entry *x = a, *y = b;
    return (x->pts > y->pts) - (x->pts < y->pts);
}

/* Rewinds the demuxer to the first frame: a timestamp seek, else a byte seek. */
static int rewind_input(capture_source *s, icv_err *err)
{
    int64_t first = s->pts ? s->pts[0] : 0;
    if (av_seek_frame(s->fmt, s->stream, first, AVSEEK_FLAG_BACKWARD) >= 0 ||
        avformat_seek_file(s->fmt, -1, INT64_MIN, 0, INT64_MAX, 0) >= 0 ||
        av_seek_frame(s->fmt, -1, 0, AVSEEK_FLAG_BYTE) >= 0)
        return 0;
    return icv_err_set(err, ICV_EIO, "%s: cannot seek back to the start of the file", s->info.path);
}

/* A stream that ends well before the duration its container states (a Matroska file
 * whose demuxer gives up at damage, a file cut short without a full index): the frames
 * the missing time held, at the nominal rate, are added as missing. The stream's own
 * duration is used, or the file's when the video is its only stream (audio may be
 * longer). Needs a gap of more than 2.5 frame periods. */
static index_entry *add_missing_tail(capture_source *s, AVStream *st, index_entry *ix, size_t *n, size_t *cap,
                                     icv_err *err, int *rc)
{
    AVRational fr = st->avg_frame_rate.num && st->avg_frame_rate.den ? st->avg_frame_rate : st->r_frame_rate;
    if (fr.num <= 0 || fr.den <= 0)
        return ix;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < *n; i++) {
        if (ix[i].pts < first)
            first = ix[i].pts;
        if (ix[i].pts > last)
            last = ix[i].pts;
    }
    double tb = av_q2d(st->time_base), period = 1.0 / av_q2d(fr), dur;
    if (st->duration != AV_NOPTS_VALUE && st->duration > 0)
        dur = (double)st->duration * tb;
    else if (s->fmt->nb_streams == 1 && s->fmt->duration != AV_NOPTS_VALUE && s->fmt->duration > 0)
        dur = (double)s->fmt->duration / AV_TIME_BASE;
    else
        return ix;
    double covered = (double)(last - first) * tb + period;
    if (dur - covered <= 2.5 * period)
        return ix;
    double extra_d = (dur - covered) / period;
    /* A frame takes at least a byte: a stated duration holding more frames than the
       file has bytes is a damaged header (any container: AVI's strh length, mp4's
       mdhd, Matroska's Duration), not a file to list millions of lost frames of. A
       7 KB AVI stating 6.45 M frames took 6.2 s and 500 MB here. */
    int64_t fsize = s->fmt->pb ? avio_size(s->fmt->pb) : -1;
    if (fsize > 0 && (double)*n + extra_d > (double)fsize) {
        *rc = icv_err_set(err, ICV_EFORMAT,
                          "%s: damaged header: its duration (%.6g s at %.6g fps) states %.0f frames in a file of %lld "
                          "bytes (a frame takes at least one); not read",
                          s->info.path, dur, av_q2d(fr), (double)*n + extra_d, (long long)fsize);
        return ix;
    }
    long extra = extra_d < 1e8 ? lround(extra_d) : 0;
    int64_t step = av_rescale_q(1, av_inv_q(fr), st->time_base);
    if (step <= 0 || extra <= 0 || extra > ICV_MAX_FRAME_NUMBER)
        return ix;
    for (long k = 1; k <= extra; k++) {
        if (*n == *cap) {
            index_entry *nx = realloc(ix, 2 * *cap * sizeof *ix);
            if (!nx)
                return ix;
            ix = nx;
            *cap *= 2;
        }
        ix[*n].pts = last + k * step;
        ix[*n].key = 0;
        ix[*n].missing = 1;
        (*n)++;
    }
    return ix;
}

/* One demuxing pass: the presentation time and keyframe flag of every frame. Packets
 * marked discard (edit lists) are not frames of the video. Packets without any
 * timestamp get one from their position, at the nominal rate. */
static int build_index(capture_source *s, icv_err *err)
{
    AVStream *st = s->fmt->streams[s->stream];
    /* the header's frame count reserves the index, but no more entries than the
       file has bytes: a 1.5 KB file claiming 3.9 M frames reserved 3.9 M (the index
       grows as packets come, so a wrong count costs nothing) */
    int64_t fsize = s->fmt->pb ? avio_size(s->fmt->pb) : -1;
    size_t cap = st->nb_frames > 0 ? (size_t)st->nb_frames + 16 : 1024, n = 0;
    if (fsize > 0 && cap > (size_t)fsize + 16)
        cap = (size_t)fsize + 16;
    index_entry *ix = malloc(cap * sizeof *ix);
    if (!ix)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for the frame index", s->info.path);
    int64_t *seen = malloc(cap * sizeof *seen), shift = 0;
    if (!seen) {
        free(ix);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for the frame index", s->info.path);
    }
    int rc, no_ts = 0, have_shift = 0, any_pts = 0;
    char eb[128];
    load_avi_index(s, st);
    while ((rc = av_read_frame(s->fmt, s->pkt)) >= 0) {
        if (s->pkt->stream_index == s->stream && !(s->pkt->flags & AV_PKT_FLAG_DISCARD)) {
            any_pts |= s->pkt->pts != AV_NOPTS_VALUE; /* the container's own, before the AVI index's */
            fix_avi_ts(s, s->pkt);
            if (n == cap) {
                index_entry *nx = realloc(ix, 2 * cap * sizeof *ix);
                int64_t *ns = nx ? realloc(seen, 2 * cap * sizeof *seen) : NULL;
                if (nx)
                    ix = nx;
                if (ns)
                    seen = ns;
                if (!nx || !ns) {
                    free(ix);
                    free(seen);
                    av_packet_unref(s->pkt);
                    return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for the frame index", s->info.path);
                }
                cap *= 2;
            }
            int64_t ts = s->pkt->pts != AV_NOPTS_VALUE ? s->pkt->pts : s->pkt->dts;
            if (ts == AV_NOPTS_VALUE)
                no_ts = 1;
            if (!have_shift && s->pkt->pts != AV_NOPTS_VALUE && s->pkt->dts != AV_NOPTS_VALUE) {
                shift = s->pkt->pts - s->pkt->dts;
                have_shift = 1;
            }
            seen[n] = s->pkt->dts != AV_NOPTS_VALUE ? s->pkt->dts : ts;
            ix[n].pts = ts;
            ix[n].key = (s->pkt->flags & AV_PKT_FLAG_KEY) != 0;
            ix[n].missing = 0;
            n++;
        }
        av_packet_unref(s->pkt);
    }
    size_t nread = n;
    if (!no_ts)
        ix = add_unread_entries(st, ix, &n, &cap, seen, shift);
    int tail_rc = 0;
    if (!no_ts && n > 0)
        ix = add_missing_tail(s, st, ix, &n, &cap, err, &tail_rc);
    free(seen);
    if (tail_rc) {
        free(ix);
        return tail_rc;
    }
    if (n > nread)
        icv_debug("%s: %zu of %zu frames the container lists cannot be read", s->info.path, n - nread, n);
    if (rc != AVERROR_EOF)
        icv_debug("%s: reading stopped after %zu frames: %s (the rest of the file is unreadable)", s->info.path, n,
                 capture_averr(rc, eb, sizeof eb));
    if (n == 0) {
        free(ix);
        return icv_err_set(err, ICV_EFORMAT, "%s: the video stream has zero frames", s->info.path);
    }
    if (no_ts) {
        /* a raw elementary stream: frames are numbered by counting the decoder's output
         * (presentation order), timed at the nominal rate */
        AVRational fr = st->avg_frame_rate.num ? st->avg_frame_rate : st->r_frame_rate;
        if (!fr.num || !fr.den)
            fr = (AVRational){25, 1};
        for (size_t i = 0; i < n; i++)
            ix[i].pts = av_rescale_q((int64_t)i, av_inv_q(fr), st->time_base);
        icv_debug("%s: the container has no timestamps; frames are numbered in output order at %.6g fps",
                 s->info.path, av_q2d(fr));
    }
    s->no_ts = no_ts;
    s->count_output = !no_ts && !any_pts && st->codecpar->video_delay > 0;
    if (s->count_output)
        icv_debug("%s: decode-order timestamps and a reordering codec: frames are numbered in output order",
                  s->info.path);
    qsort(ix, n, sizeof *ix, cmp_entry);
    s->n = (long)n;
    s->pts = malloc(n * sizeof *s->pts);
    s->key = malloc(n);
    s->pts_s = malloc(n * sizeof *s->pts_s);
    if (!s->pts || !s->key || !s->pts_s) {
        free(ix);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for the frame index", s->info.path);
    }
    s->lost = calloc(n, sizeof *s->lost);
    s->lost_flag = calloc(n, 1);
    if (!s->lost || !s->lost_flag) {
        free(ix);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for the frame index", s->info.path);
    }
    double tb = av_q2d(st->time_base);
    for (size_t i = 0; i < n; i++) {
        s->pts[i] = ix[i].pts;
        s->key[i] = ix[i].key;
        s->pts_s[i] = (double)(ix[i].pts - ix[0].pts) * tb;
    }
    s->key[0] = 1; /* decoding always can start at the beginning */
    for (size_t i = 0; i < n; i++)
        if (ix[i].missing)
            capture_mark_lost(s, (long)i);
    s->tick_s = tb;
    free(ix);
    return rewind_input(s, err);
}

/* The stream's display matrix (a phone's rotate tag) as FFmpeg's player reads it: the
 * picture is turned clockwise by -(the matrix's counter-clockwise angle). A mirrored or
 * non-right-angle matrix is refused: turning it some other way would track a picture
 * nobody saw. */
static int display_rotation(capture_source *s, AVStream *st, icv_err *err)
{
    s->info.rotation_deg = 0;
#if LIBAVFORMAT_VERSION_MAJOR >= 61
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data,
                                                         st->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX);
    const int32_t *m = sd && sd->size >= 9 * sizeof(int32_t) ? (const int32_t *)sd->data : NULL;
#else
    size_t size = 0;
    const int32_t *m = (const int32_t *)av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (size < 9 * sizeof(int32_t))
        m = NULL;
#endif
    if (!m)
        return 0;
    double ccw = av_display_rotation_get(m);
    if (isnan(ccw))
        return icv_err_set(err, ICV_EFORMAT, "%s: the display matrix (rotation tag) is degenerate: it cannot be applied",
                           s->info.path);
    double cw = -round(ccw);
    cw -= 360 * floor(cw / 360 + 0.9 / 360);
    /* the determinant of the 2x2 part: negative for a mirrored picture */
    double det = (double)m[0] * m[4] - (double)m[1] * m[3];
    int deg = (int)lround(cw) % 360;
    if (det < 0 || fabs(cw - deg) > 1 || deg % 90)
        return icv_err_set(err, ICV_EFORMAT,
                           "%s: the display matrix turns the picture by %.1f degrees%s: only 0, 90, 180 and 270 "
                           "degrees without mirroring can be applied (re-encode the clip upright)",
                           s->info.path, cw, det < 0 ? " and mirrors it" : "");
    s->info.rotation_deg = deg;
    return 0;
}

int capture_video_open(capture_source *s, icv_err *err)
{
    const char *path = s->info.path;
    char eb[128];
    if (!icv_file_exists(path))
        return icv_err_set(err, ICV_ENOTFOUND, "%s: video not found", path);
    /* a Tracker .trz or any zip holding one video: read in place */
    int zip = capture_is_zip(path);
    int rc = zip ? capture_zip_open(s, err) : 0;
    if (!rc) /* before FFmpeg reserves what the header says */
        rc = zip ? capture_zip_header_check(s, err) : capture_header_check(path, err);
    if (rc)
        return rc;
    rc = avformat_open_input(&s->fmt, zip ? capture_zip_member_name(s) : path, NULL, NULL);
    if (rc < 0)
        return icv_err_set(err, ICV_EFORMAT, "%s: not a video or image file FFmpeg can read (%s)", path,
                           capture_averr(rc, eb, sizeof eb));
    rc = avformat_find_stream_info(s->fmt, NULL);
    if (rc < 0)
        return icv_err_set(err, ICV_EFORMAT, "%s: cannot read the stream information (%s)", path,
                           capture_averr(rc, eb, sizeof eb));
    rc = av_find_best_stream(s->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (rc < 0)
        return icv_err_set(err, ICV_EFORMAT, "%s: no video stream in the file", path);
    s->stream = rc;
    AVStream *st = s->fmt->streams[s->stream];
    for (unsigned i = 0; i < s->fmt->nb_streams; i++)
        if ((int)i != s->stream)
            s->fmt->streams[i]->discard = AVDISCARD_ALL;
    const AVCodecParameters *par = st->codecpar;
    const AVCodec *codec = avcodec_find_decoder(par->codec_id);
    if (!codec) {
        char tag[AV_FOURCC_MAX_STRING_SIZE] = "";
        av_fourcc_make_string(tag, par->codec_tag);
        return icv_err_set(err, ICV_EFORMAT, "%s: unsupported video codec '%s' (tag %s): no decoder for it", path,
                           avcodec_get_name(par->codec_id), tag);
    }
    snprintf(s->info.codec, sizeof s->info.codec, "%s", codec->name);
    snprintf(s->info.container, sizeof s->info.container, "%s", s->fmt->iformat->name);
    if (zip)
        snprintf(s->info.member, sizeof s->info.member, "%s", capture_zip_member_name(s));

    s->pkt = av_packet_alloc();
    s->frm = av_frame_alloc();
    s->dec = avcodec_alloc_context3(codec);
    if (!s->pkt || !s->frm || !s->dec)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    if ((rc = avcodec_parameters_to_context(s->dec, par)) < 0)
        return icv_err_set(err, ICV_EFORMAT, "%s: bad codec parameters (%s)", path, capture_averr(rc, eb, sizeof eb));
    capture_decoder_limits(s->dec);
    s->dec->pkt_timebase = st->time_base;
    s->dec->thread_count = s->opt.threads; /* 0: FFmpeg picks one per core */
    s->dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    if ((rc = avcodec_open2(s->dec, codec, NULL)) < 0)
        return icv_err_set(err, ICV_EFORMAT, "%s: cannot open the %s decoder (%s)", path, codec->name,
                           capture_averr(rc, eb, sizeof eb));
    s->info.container_frames = st->nb_frames > 0 ? (long)st->nb_frames : 0;
    /* the index first: a stream of zero frames has no size either, and should say so */
    if ((rc = build_index(s, err)))
        return rc;
    if (par->width <= 0 || par->height <= 0 || s->dec->pix_fmt == AV_PIX_FMT_NONE)
        return icv_err_set(err, ICV_EFORMAT, "%s: the video stream has no frame size or pixel format", path);
    s->info.width = par->width;
    s->info.height = par->height;
    if ((rc = display_rotation(s, st, err)))
        return rc;
    if (s->info.rotation_deg == 90 || s->info.rotation_deg == 270) {
        s->info.width = par->height;
        s->info.height = par->width;
    }
    if ((rc = capture_luma_setup(s, s->dec->pix_fmt, err)))
        return rc;
    capture_rate_resolve(s, s->fmt->metadata, st->metadata);
    return 0;
}

long capture_index_of(const capture_source *s, int64_t ts)
{
    long lo = 0, hi = s->n - 1;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (s->pts[mid] < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* nearest entry: a decoder may return a timestamp a tick away after rounding */
    if (lo > 0 && llabs(s->pts[lo - 1] - ts) < llabs(s->pts[lo] - ts))
        lo--;
    return lo;
}

/* The next decoded frame into s->frm and its index, or CAPTURE_EOF. Decode errors skip
 * the packet: its frame is then missing, and the caller sees the gap. */
static int next_decoded(capture_source *s, long *idx, icv_err *err)
{
    char eb[128];
    for (;;) {
        int rc = avcodec_receive_frame(s->dec, s->frm);
        if (rc == 0) {
            capture_count_decoded();
            int64_t ts = s->frm->best_effort_timestamp;
            if (ts == AV_NOPTS_VALUE)
                ts = s->frm->pts;
            if (s->no_ts)
                *idx = s->out_count;
            else if (s->count_output)
                *idx = s->out_base + s->out_count;
            else
                *idx = ts == AV_NOPTS_VALUE ? s->last_index + 1 : capture_index_of(s, ts);
            s->out_count++;
            return 0;
        }
        if (rc == AVERROR_EOF) {
            s->at_eof = 1;
            return CAPTURE_EOF;
        }
        if (rc != AVERROR(EAGAIN)) {
            icv_debug("%s: decoding error after frame %ld: %s", s->info.path, s->last_index,
                      capture_averr(rc, eb, sizeof eb));
            continue;
        }
        if (s->draining) /* EAGAIN while draining cannot progress */
            return CAPTURE_EOF;
        rc = av_read_frame(s->fmt, s->pkt);
        if (rc < 0) {
            if (rc != AVERROR_EOF)
                icv_debug("%s: read error after frame %ld: %s", s->info.path, s->last_index,
                          capture_averr(rc, eb, sizeof eb));
            s->draining = 1;
            avcodec_send_packet(s->dec, NULL);
            continue;
        }
        if (s->pkt->stream_index != s->stream) {
            av_packet_unref(s->pkt);
            continue;
        }
        fix_avi_ts(s, s->pkt);
        rc = avcodec_send_packet(s->dec, s->pkt);
        av_packet_unref(s->pkt);
        if (rc < 0 && rc != AVERROR(EAGAIN))
            icv_debug("%s: packet rejected after frame %ld: %s", s->info.path, s->last_index,
                      capture_averr(rc, eb, sizeof eb));
    }
    (void)err;
}

static int seek_decoder(capture_source *s, long n, icv_err *err);

/* A read after a seek to a kept frame (s->kept_next): the kept frame, else the decoder
 * brought to the frame (reading on when it stands just before it, else seeking), and
 * RESUME: the decoder delivers it. A frame lost is passed over, as reading on does. */
enum { RESUME = 2 };
static int read_kept(capture_source *s, capture_frame *f, capture_frame *view, icv_err *err)
{
    for (long w = s->kept_next;; w++) {
        while (w < s->n && s->lost_flag[w])
            w++;
        if (w >= s->n) {
            s->kept_next = s->n;
            return CAPTURE_EOF;
        }
        if (capture_keep_serve(s, w, f, view)) {
            s->kept_next = w + 1;
            return 0;
        }
        s->kept_next = -1;
        if (!s->keeping && w > s->kept_last)
            s->kept_release = s->kept != NULL; /* read past them all: no longer wanted */
        if (s->pending && s->pending_index < w) { /* a frame a seek left, passed over */
            capture_keep_decoded(s, s->frm, s->pending_index);
            av_frame_unref(s->frm);
            s->pending = 0;
            s->last_index = s->pending_index;
        }
        if ((s->pending && s->pending_index == w) || (!s->pending && s->last_index == w - 1))
            return RESUME;
        int rc = seek_decoder(s, w, err);
        if (rc == 0)
            return RESUME;
        if (rc != ICV_EFORMAT || !s->lost_flag[w])
            return rc;
    }
}

/* The decoded picture lent as *view (f's fields, the picture's pixels): held until the
 * read after the next. 1: not lent (no frame to hold it; read it into f). */
static int lend_decoded(capture_source *s, const capture_frame *f, capture_frame *view)
{
    AVFrame **h = &s->lent[s->lent_next];
    if (!*h && !(*h = av_frame_alloc()))
        return 1;
    av_frame_unref(*h);
    av_frame_move_ref(*h, s->frm);
    s->lent_next ^= 1;
    *view = *f;
    view->data = (*h)->data[0];
    view->stride = (size_t)(*h)->linesize[0];
    return 0;
}

int capture_video_read(capture_source *s, capture_frame *f, capture_frame *view, int lend, icv_err *err)
{
    long idx;
    capture_keep_release(s);
    if (s->kept_next >= 0) {
        int rc = read_kept(s, f, view, err);
        if (rc != RESUME)
            return rc;
    }
    for (;;) {
        if (s->pending) {
            s->pending = 0;
            idx = s->pending_index;
        } else {
            if (s->at_eof)
                return CAPTURE_EOF;
            int rc = next_decoded(s, &idx, err);
            if (rc == CAPTURE_EOF) {
                for (long i = s->last_index + 1; i < s->n; i++)
                    capture_mark_lost(s, i);
                s->last_index = s->n - 1;
                return CAPTURE_EOF;
            }
            if (rc < 0)
                return rc;
        }
        if (idx <= s->last_index || idx < s->skip_below) {
            av_frame_unref(s->frm);
            continue;
        }
        for (long i = s->last_index + 1; i < idx; i++)
            capture_mark_lost(s, i);
        s->last_index = idx;
        f->index = idx;
        int rc = view ? capture_keep_decoded_view(s, s->frm, f, view, err) : 1;
        if (rc == 1 && lend && !s->keeping && capture_luma_as_is(s, s->frm))
            rc = lend_decoded(s, f, view);
        if (rc == 1) { /* not kept into a view, nor lent: into f */
            rc = capture_luma_copy(s, s->frm, f, err);
            if (!rc)
                capture_keep_frame(s, f);
            if (!rc && view)
                *view = *f;
        }
        av_frame_unref(s->frm);
        if (s->kept && !s->keeping && idx >= s->kept_last)
            s->kept_release = 1; /* decoded on past them all: none will be served */
        return rc;
    }
}

/* Starts decoding at the keyframe k (presentation order) or before it. */
static int seek_to_key(capture_source *s, long k)
{
    avcodec_flush_buffers(s->dec);
    s->draining = 0;
    s->at_eof = 0;
    s->pending = 0;
    s->out_count = 0;
    s->out_base = s->no_ts ? 0 : k;
    if (k == 0 || s->no_ts)
        return rewind_input(s, NULL);
    return av_seek_frame(s->fmt, s->stream, s->pts[k], AVSEEK_FLAG_BACKWARD) < 0 ? -1 : 0;
}

int capture_video_seek(capture_source *s, long n, icv_err *err)
{
    capture_keep_release(s);
    if (capture_keep_has(s, n)) { /* served by the reads; the decoder stays where it is */
        s->kept_next = n;
        return 0;
    }
    s->kept_next = -1;
    return seek_decoder(s, n, err);
}

static int seek_decoder(capture_source *s, long n, icv_err *err)
{
    if (s->pending && s->pending_index == n)
        return 0;
    long k = n;
    while (k > 0 && !s->key[k])
        k--;
    if (s->no_ts)
        k = 0;
    /* ahead of the decoder within reach: decoding on is cheaper than seeking back to
     * the keyframe when none lies after the last frame delivered before n, and than
     * seeking on to one a few frames ahead: a seek flushes the frames the decoder
     * holds past the last delivered (its threads' and its reordering's), wasted,
     * and stalls its threads (docs/track.md, "Session 26") */
    long reach = s->dec->delay + s->dec->has_b_frames + 1;
    int forward = !s->pending && !s->at_eof && s->last_index >= 0 && n > s->last_index &&
                  k <= s->last_index + 1 + reach;
    /* decoding on past the keyframe k that failed to give n: k itself is tried next */
    int retry_k = forward && k > s->last_index + 1;
    for (;;) {
        /* frames decoded on the way are kept from the first one decoding on gives, or
           from the keyframe (an open GOP's leading frames before it may be wrong) */
        long from = forward ? s->last_index + 1 : k;
        if (forward)
            forward = 0;
        else if (seek_to_key(s, k) < 0)
            k = 0, from = 0, seek_to_key(s, 0);
        long idx = -1;
        int rc;
        while ((rc = next_decoded(s, &idx, err)) == 0 && idx < n) {
            if (idx >= from)
                capture_keep_decoded(s, s->frm, idx);
            av_frame_unref(s->frm);
        }
        if (rc < 0)
            return rc;
        if (rc == 0 && idx == n) {
            s->pending = 1;
            s->pending_index = n;
            s->last_index = n - 1;
            s->skip_below = n;
            return 0;
        }
        if (rc == 0)
            av_frame_unref(s->frm);
        if (retry_k) {
            retry_k = 0;
            continue;
        }
        if (k == 0) {
            /* even decoding from the start does not produce it: the frame is lost. The
             * next read starts again at frame 0. */
            capture_mark_lost(s, n);
            seek_to_key(s, 0);
            s->last_index = -1;
            s->skip_below = -1;
            return icv_err_set(err, ICV_EFORMAT, "%s: frame %ld cannot be decoded (corrupt or missing data)",
                               s->info.path, n);
        }
        /* the frame came out before the keyframe (open GOP, or the demuxer's seek
         * landed late): start one keyframe earlier */
        k--;
        while (k > 0 && !s->key[k])
            k--;
    }
}
