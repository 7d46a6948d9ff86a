/* encode.c: writes 8-bit gray frames through libavcodec/libavformat: H.264 (libx264,
 * constant rate factor) in .mp4, MJPEG in .avi, FFV1 in .mkv, or PNG files. Gray goes
 * in the luma plane with neutral chroma where the codec needs 4:2:0. The video is
 * written under a temporary name and renamed when complete (contract: no partial
 * outputs). Follows FFmpeg's doc/examples/encode_video.c and mux.c. */
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth/synth_internal.h"

struct synth_encoder {
    synth_codec codec;
    int W, H;
    char path[ICV_PATH_MAX], tmp[ICV_PATH_MAX];
    AVFormatContext *fmt;
    AVCodecContext *ctx;
    AVStream *st;
    AVFrame *frame;
    AVPacket *pkt;
    int64_t pts;
    long n_png;
    int zeroing; /* holds a zero_fill_begin */
};

/* libx264 0.164's MB-tree rate control reads memory it allocated and never wrote: with
 * the heap's leftovers the bitstream changed from run to run (seed 1012's right camera:
 * 1 run in 3-5; docs/synth.md "Session 30"). While an encoder is open, glibc's
 * M_PERTURB with byte 0xff makes every malloc return zero-filled memory (freed memory
 * is filled with 0xff), as fresh pages are: the output is the common outcome's, every
 * run. A count, as two encoders may be open at once; elsewhere (not glibc) a no-op. */
static int zero_fill_users;

static void zero_fill_begin(synth_encoder *e)
{
#if defined(__GLIBC__) && defined(M_PERTURB)
    if (zero_fill_users++ == 0)
        mallopt(M_PERTURB, 0xff);
#endif
    e->zeroing = 1;
}

static void zero_fill_end(synth_encoder *e)
{
    if (!e->zeroing)
        return;
    e->zeroing = 0;
#if defined(__GLIBC__) && defined(M_PERTURB)
    if (--zero_fill_users == 0)
        mallopt(M_PERTURB, 0);
#endif
}

const char *synth_codec_ext(synth_codec c)
{
    return c == SYNTH_CODEC_H264 ? ".mp4" : c == SYNTH_CODEC_MJPEG ? ".avi" : c == SYNTH_CODEC_FFV1 ? ".mkv" : "";
}

static int av_fail(icv_err *err, const char *path, const char *what, int ret)
{
    char buf[AV_ERROR_MAX_STRING_SIZE];
    av_strerror(ret, buf, sizeof buf);
    return icv_err_set(err, ICV_EIO, "%s: %s: %s", path, what, buf);
}

static void enc_free(synth_encoder *e)
{
    if (e->fmt) {
        if (e->fmt->pb)
            avio_closep(&e->fmt->pb);
        avformat_free_context(e->fmt);
    }
    avcodec_free_context(&e->ctx);
    av_frame_free(&e->frame);
    av_packet_free(&e->pkt);
    zero_fill_end(e);
    free(e);
}

/* one gray image as a PNG in memory, through libavcodec's PNG encoder */
static int png_encode(const uint8_t *gray, int W, int H, AVPacket *pkt, const char *path, icv_err *err)
{
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_PNG);
    if (!codec)
        return icv_err_set(err, ICV_EIO, "%s: libavcodec has no PNG encoder", path);
    AVCodecContext *c = avcodec_alloc_context3(codec);
    AVFrame *f = av_frame_alloc();
    int ret = AVERROR(ENOMEM);
    if (!c || !f)
        goto out;
    c->width = W;
    c->height = H;
    c->pix_fmt = AV_PIX_FMT_GRAY8;
    c->time_base = (AVRational){1, 1};
    if ((ret = avcodec_open2(c, codec, NULL)) < 0)
        goto out;
    f->format = AV_PIX_FMT_GRAY8;
    f->width = W;
    f->height = H;
    if ((ret = av_frame_get_buffer(f, 0)) < 0)
        goto out;
    for (int y = 0; y < H; y++)
        memcpy(f->data[0] + (size_t)y * f->linesize[0], gray + (size_t)y * W, (size_t)W);
    if ((ret = avcodec_send_frame(c, f)) < 0)
        goto out;
    ret = avcodec_receive_packet(c, pkt);
out:
    av_frame_free(&f);
    avcodec_free_context(&c);
    return ret < 0 ? av_fail(err, path, "PNG encoding failed", ret) : 0;
}

int synth_png_write(const char *path, const uint8_t *gray, int W, int H, icv_err *err)
{
    AVPacket *pkt = av_packet_alloc();
    if (!pkt)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    int rc = png_encode(gray, W, H, pkt, path, err);
    if (!rc)
        rc = icv_atomic_write(path, pkt->data, (size_t)pkt->size, err);
    av_packet_free(&pkt);
    return rc;
}

static int drain(synth_encoder *e, icv_err *err)
{
    for (;;) {
        int ret = avcodec_receive_packet(e->ctx, e->pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
            return 0;
        if (ret < 0)
            return av_fail(err, e->path, "encoding failed", ret);
        av_packet_rescale_ts(e->pkt, e->ctx->time_base, e->st->time_base);
        e->pkt->stream_index = e->st->index;
        ret = av_interleaved_write_frame(e->fmt, e->pkt);
        if (ret < 0)
            return av_fail(err, e->path, "writing a packet failed", ret);
    }
}

int synth_encoder_open(const char *path, synth_codec codec, int W, int H, double fps, int crf, const char *preset,
                       int mjpeg_q, synth_encoder **out, icv_err *err)
{
    *out = NULL;
    /* library code does not print: libav's own chatter (x264's summary) off */
    if (av_log_get_level() > AV_LOG_ERROR)
        av_log_set_level(AV_LOG_ERROR);
    synth_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    e->codec = codec;
    e->W = W;
    e->H = H;
    snprintf(e->path, sizeof e->path, "%s", path);
    e->pkt = av_packet_alloc();
    if (!e->pkt) {
        enc_free(e);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    if (codec == SYNTH_CODEC_PNG) {
        int rc = icv_mkdirs(path, err);
        if (rc) {
            enc_free(e);
            return rc;
        }
        *out = e;
        return 0;
    }
    int ret;
    zero_fill_begin(e); /* before libav allocates anything */
    const char *fmt_name = codec == SYNTH_CODEC_H264 ? "mp4" : codec == SYNTH_CODEC_MJPEG ? "avi" : "matroska";
    const AVCodec *c = codec == SYNTH_CODEC_H264    ? avcodec_find_encoder_by_name("libx264")
                       : codec == SYNTH_CODEC_MJPEG ? avcodec_find_encoder(AV_CODEC_ID_MJPEG)
                                                    : avcodec_find_encoder(AV_CODEC_ID_FFV1);
    if (!c) {
        enc_free(e);
        return icv_err_set(err, ICV_EIO, "%s: this FFmpeg has no %s encoder", path,
                           codec == SYNTH_CODEC_H264 ? "libx264" : codec == SYNTH_CODEC_MJPEG ? "MJPEG" : "FFV1");
    }
    snprintf(e->tmp, sizeof e->tmp, "%s.tmp.%ld", path, (long)getpid());
    if ((ret = avformat_alloc_output_context2(&e->fmt, NULL, fmt_name, e->tmp)) < 0 || !e->fmt) {
        enc_free(e);
        return av_fail(err, path, "cannot create the container", ret < 0 ? ret : AVERROR(EINVAL));
    }
    e->st = avformat_new_stream(e->fmt, NULL);
    e->ctx = avcodec_alloc_context3(c);
    e->frame = av_frame_alloc();
    if (!e->st || !e->ctx || !e->frame) {
        enc_free(e);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    AVRational rate = av_d2q(fps, 1000000);
    e->ctx->width = W;
    e->ctx->height = H;
    e->ctx->time_base = av_inv_q(rate);
    e->ctx->framerate = rate;
    e->ctx->pix_fmt = codec == SYNTH_CODEC_H264    ? AV_PIX_FMT_YUV420P
                      : codec == SYNTH_CODEC_MJPEG ? AV_PIX_FMT_YUVJ420P
                                                   : AV_PIX_FMT_GRAY8;
    e->ctx->gop_size = 12;
    e->ctx->thread_count = 1; /* deterministic output, and the machine is shared */
    if (codec == SYNTH_CODEC_H264) {
        char crfs[16];
        snprintf(crfs, sizeof crfs, "%d", crf);
        av_opt_set(e->ctx->priv_data, "crf", crfs, 0);
        av_opt_set(e->ctx->priv_data, "preset", preset && preset[0] ? preset : "veryfast", 0);
    } else if (codec == SYNTH_CODEC_MJPEG) {
        e->ctx->flags |= AV_CODEC_FLAG_QSCALE;
        e->ctx->global_quality = FF_QP2LAMBDA * mjpeg_q;
        e->ctx->qmin = e->ctx->qmax = mjpeg_q;
    }
    if (e->fmt->oformat->flags & AVFMT_GLOBALHEADER)
        e->ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if ((ret = avcodec_open2(e->ctx, c, NULL)) < 0) {
        enc_free(e);
        return av_fail(err, path, "cannot open the encoder", ret);
    }
    if ((ret = avcodec_parameters_from_context(e->st->codecpar, e->ctx)) < 0) {
        enc_free(e);
        return av_fail(err, path, "codec parameters", ret);
    }
    e->st->time_base = e->ctx->time_base;
    e->st->avg_frame_rate = rate;
    e->st->r_frame_rate = rate;
    if ((ret = avio_open(&e->fmt->pb, e->tmp, AVIO_FLAG_WRITE)) < 0) {
        enc_free(e);
        return av_fail(err, path, "cannot open for writing", ret);
    }
    if ((ret = avformat_write_header(e->fmt, NULL)) < 0) {
        unlink(e->tmp);
        enc_free(e);
        return av_fail(err, path, "cannot write the header", ret);
    }
    e->frame->format = e->ctx->pix_fmt;
    e->frame->width = W;
    e->frame->height = H;
    if ((ret = av_frame_get_buffer(e->frame, 0)) < 0) {
        synth_encoder_abort(e);
        return av_fail(err, path, "frame buffer", ret);
    }
    *out = e;
    return 0;
}

int synth_encoder_write(synth_encoder *e, const uint8_t *gray, icv_err *err)
{
    if (e->codec == SYNTH_CODEC_PNG) {
        char p[ICV_PATH_MAX];
        snprintf(p, sizeof p, "%s/frame_%06ld.png", e->path, e->n_png++);
        return synth_png_write(p, gray, e->W, e->H, err);
    }
    int ret = av_frame_make_writable(e->frame);
    if (ret < 0)
        return av_fail(err, e->path, "frame not writable", ret);
    AVFrame *f = e->frame;
    for (int y = 0; y < e->H; y++)
        memcpy(f->data[0] + (size_t)y * f->linesize[0], gray + (size_t)y * e->W, (size_t)e->W);
    if (e->codec != SYNTH_CODEC_FFV1)
        for (int p = 1; p < 3; p++)
            for (int y = 0; y < (e->H + 1) / 2; y++)
                memset(f->data[p] + (size_t)y * f->linesize[p], 128, (size_t)(e->W + 1) / 2);
    f->pts = e->pts++;
    if ((ret = avcodec_send_frame(e->ctx, f)) < 0)
        return av_fail(err, e->path, "encoding failed", ret);
    return drain(e, err);
}

int synth_encoder_close(synth_encoder *e, icv_err *err)
{
    if (e->codec == SYNTH_CODEC_PNG) {
        enc_free(e);
        return 0;
    }
    int ret = avcodec_send_frame(e->ctx, NULL), rc = 0;
    if (ret < 0)
        rc = av_fail(err, e->path, "flushing the encoder", ret);
    if (!rc)
        rc = drain(e, err);
    if (!rc && (ret = av_write_trailer(e->fmt)) < 0)
        rc = av_fail(err, e->path, "writing the trailer", ret);
    avio_closep(&e->fmt->pb);
    if (!rc && rename(e->tmp, e->path) != 0)
        rc = icv_err_set(err, ICV_EIO, "%s: cannot rename into place: %s", e->path, strerror(errno));
    if (rc)
        unlink(e->tmp);
    enc_free(e);
    return rc;
}

void synth_encoder_abort(synth_encoder *e)
{
    if (!e)
        return;
    if (e->codec != SYNTH_CODEC_PNG && e->fmt) {
        avio_closep(&e->fmt->pb);
        unlink(e->tmp);
    }
    enc_free(e);
}
