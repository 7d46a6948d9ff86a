/* still_image.c: one still image file in colour, and packed pixels encoded as a still
 * image file's bytes, both through FFmpeg (reading: any image format it knows;
 * writing: png, jpg, bmp, tif, ppm, pgm, webp), in gray or RGB. FFmpeg, not OpenCV's imgcodecs: that
 * module's own dependencies made every start of the program 0.1 s slower. */
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "capture/capture_internal.h"

/* frame -> packed 8-bit pixels of fmt (w*h*channels bytes, malloc'd). A palette image
 * is expanded to RGB here first: swscale's palette path rounds a gray palette off by a
 * level. */
static int to_packed(const AVFrame *fr, enum AVPixelFormat fmt, int channels, unsigned char **px, const char *what,
                     icv_err *err)
{
    int w = fr->width, h = fr->height;
    enum AVPixelFormat in_fmt = fr->format;
    const uint8_t *in[4] = {fr->data[0], fr->data[1], fr->data[2], fr->data[3]};
    int in_l[4] = {fr->linesize[0], fr->linesize[1], fr->linesize[2], fr->linesize[3]};
    unsigned char *rgb = NULL;
    if (in_fmt == AV_PIX_FMT_PAL8) {
        if (!(rgb = malloc((size_t)w * h * 3)))
            return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for %dx%d pixels", what, w, h);
        const uint32_t *pal = (const uint32_t *)fr->data[1]; /* 0xAARRGGBB */
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint32_t c = pal[fr->data[0][(size_t)y * fr->linesize[0] + x]];
                unsigned char *o = rgb + ((size_t)y * w + x) * 3;
                o[0] = (unsigned char)(c >> 16), o[1] = (unsigned char)(c >> 8), o[2] = (unsigned char)c;
            }
        in_fmt = AV_PIX_FMT_RGB24;
        in[0] = rgb, in[1] = NULL, in_l[0] = w * 3, in_l[1] = 0;
    }
    struct SwsContext *sws = sws_getContext(w, h, in_fmt, w, h, fmt, SWS_POINT, NULL, NULL, NULL);
    /* padded: swscale writes past a small image's exact size (CAPTURE_SWS_PAD) */
    *px = sws ? malloc((size_t)w * h * channels + CAPTURE_SWS_PAD) : NULL;
    int rc = 0;
    if (!sws)
        rc = icv_err_set(err, ICV_EFORMAT, "%s: cannot convert pixel format %s", what, av_get_pix_fmt_name(in_fmt));
    else if (!*px)
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory for %dx%d pixels", what, w, h);
    else {
        uint8_t *dp[4] = {*px, NULL, NULL, NULL};
        int dl[4] = {w * channels, 0, 0, 0};
        sws_scale(sws, in, in_l, 0, h, dp, dl);
    }
    sws_freeContext(sws);
    free(rgb);
    return rc;
}

/* A JPEG's EXIF orientation (FFmpeg's decoder puts the tag in the frame's metadata) as
 * the clockwise turn a viewer applies: 1 none, 3 180, 6 90, 8 270. The mirrored ones
 * (2, 4, 5, 7) are refused: no camera writes them, and turning alone would be wrong. */
static int exif_turn(const AVFrame *fr, const char *path, int *cw, icv_err *err)
{
    const AVDictionaryEntry *e = av_dict_get(fr->metadata, "Orientation", NULL, 0);
    *cw = 0;
    if (!e)
        return 0;
    int o = atoi(e->value);
    switch (o) {
    case 0:
    case 1: return 0;
    case 3: *cw = 180; return 0;
    case 6: *cw = 90; return 0;
    case 8: *cw = 270; return 0;
    default:
        return icv_err_set(err, ICV_EFORMAT,
                           "%s: EXIF orientation %d mirrors the picture: only turns (orientations 1, 3, 6, 8) can be "
                           "applied (save the image upright)",
                           path, o);
    }
}

/* Packed pixels turned clockwise by deg (90, 180, 270), in place of the originals. */
static int turn_packed(unsigned char **px, int *w, int *h, int channels, int deg, const char *path, icv_err *err)
{
    int W = *w, H = *h, ow = deg == 180 ? W : H, oh = deg == 180 ? H : W;
    unsigned char *out = malloc((size_t)W * H * channels);
    if (!out)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for %dx%d pixels", path, W, H);
    capture_turn(*px, (size_t)W * channels, W, H, channels, deg, out, (size_t)ow * channels);
    free(*px);
    *px = out;
    *w = ow;
    *h = oh;
    return 0;
}

int capture_image_read(const char *path, int channels, unsigned char **pixels, int *width, int *height, icv_err *err)
{
    *pixels = NULL;
    if (channels != 1 && channels != 3)
        return icv_err_set(err, ICV_EINVAL, "%s: %d channels asked (1 or 3)", path, channels);
    if (!icv_file_exists(path))
        return icv_err_set(err, ICV_ENOTFOUND, "%s: image not found", path);
    capture_ffmpeg_setup();
    AVFormatContext *fmt = NULL;
    AVCodecContext *dec = NULL;
    AVPacket *pk = av_packet_alloc();
    AVFrame *fr = av_frame_alloc();
    char eb[128];
    int rc = 0, r;
    if (!pk || !fr) {
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    if ((r = avformat_open_input(&fmt, path, NULL, NULL)) < 0 || (r = avformat_find_stream_info(fmt, NULL)) < 0) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: not an image FFmpeg can read (%s)", path,
                         capture_averr(r, eb, sizeof eb));
        goto out;
    }
    const AVCodec *codec = NULL;
    int si = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (si < 0 || !codec || !(dec = avcodec_alloc_context3(codec)) ||
        avcodec_parameters_to_context(dec, fmt->streams[si]->codecpar) < 0 ||
        (capture_decoder_limits(dec), avcodec_open2(dec, codec, NULL) < 0)) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: not an image FFmpeg can decode", path);
        goto out;
    }
    r = AVERROR(EAGAIN);
    while (r == AVERROR(EAGAIN) && av_read_frame(fmt, pk) >= 0) {
        if (pk->stream_index == si && avcodec_send_packet(dec, pk) >= 0)
            r = avcodec_receive_frame(dec, fr);
        av_packet_unref(pk);
    }
    if (r == AVERROR(EAGAIN) && avcodec_send_packet(dec, NULL) >= 0) /* a decoder that holds its frame */
        r = avcodec_receive_frame(dec, fr);
    if (r < 0) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: not an image FFmpeg can read (cannot decode it: %s)", path, capture_averr(r, eb, sizeof eb));
        goto out;
    }
    capture_count_decoded();
    int turn_cw = 0;
    if ((rc = exif_turn(fr, path, &turn_cw, err)))
        goto out;
    if (!(rc = to_packed(fr, channels == 1 ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_RGB24, channels, pixels, path, err))) {
        *width = fr->width;
        *height = fr->height;
        if (turn_cw && (rc = turn_packed(pixels, width, height, channels, turn_cw, path, err))) {
            free(*pixels);
            *pixels = NULL;
        }
    }
out:
    av_frame_free(&fr);
    av_packet_free(&pk);
    avcodec_free_context(&dec);
    avformat_close_input(&fmt);
    return rc;
}

int capture_image_encode(const unsigned char *pixels, int width, int height, int channels, const char *ext,
                         unsigned char **buf, size_t *len, icv_err *err)
{
    *buf = NULL;
    *len = 0;
    if (width < 1 || height < 1 || (channels != 1 && channels != 3))
        return icv_err_set(err, ICV_EINVAL, "image: bad size %dx%d x %d channels", width, height, channels);
    capture_ffmpeg_setup();
    static const struct {
        const char *ext;
        enum AVCodecID id;
    } by_ext[] = {{"png", AV_CODEC_ID_PNG}, {"jpg", AV_CODEC_ID_MJPEG},  {"jpeg", AV_CODEC_ID_MJPEG},
                  {"bmp", AV_CODEC_ID_BMP}, {"tif", AV_CODEC_ID_TIFF},   {"tiff", AV_CODEC_ID_TIFF},
                  {"ppm", AV_CODEC_ID_PPM}, {"pgm", AV_CODEC_ID_PGM},    {"webp", AV_CODEC_ID_WEBP}};
    const char *e = ext[0] == '.' ? ext + 1 : ext;
    const AVCodec *codec = NULL;
    for (size_t i = 0; i < sizeof by_ext / sizeof by_ext[0] && !codec; i++)
        if (!strcasecmp(e, by_ext[i].ext))
            codec = avcodec_find_encoder(by_ext[i].id);
    if (!codec)
        return icv_err_set(err, ICV_EINVAL, "image: no encoder for a '%s' file (png, jpg, bmp, tif, ppm, pgm, webp)",
                           ext);
    enum AVCodecID id = codec->id;
    enum AVPixelFormat src = channels == 1 ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_RGB24;
    enum AVPixelFormat dst = avcodec_find_best_pix_fmt_of_list(codec->pix_fmts, src, 0, NULL);
    AVCodecContext *cx = avcodec_alloc_context3(codec);
    AVFrame *fr = av_frame_alloc();
    AVPacket *pk = av_packet_alloc();
    struct SwsContext *sws = NULL;
    int rc = 0;
    if (!cx || !fr || !pk) {
        rc = icv_err_set(err, ICV_ENOMEM, "image: out of memory");
        goto out;
    }
    cx->width = width;
    cx->height = height;
    cx->pix_fmt = dst;
    cx->time_base = (AVRational){1, 25};
    if (id == AV_CODEC_ID_PNG) {
        /* zlib's fastest level with the "up" row filter: deflate at the default level
         * 6 was half of the report's overlay stage, for files 10-20% smaller */
        cx->compression_level = 1;
        av_opt_set(cx->priv_data, "pred", "up", 0);
    } else if (id == AV_CODEC_ID_MJPEG) { /* quality as OpenCV's default (95) gave: q 2 */
        cx->flags |= AV_CODEC_FLAG_QSCALE;
        cx->global_quality = FF_QP2LAMBDA * 2;
        cx->color_range = AVCOL_RANGE_JPEG;
    }
    if (avcodec_open2(cx, codec, NULL) < 0) {
        rc = icv_err_set(err, ICV_EIO, "image: cannot open the %s encoder", codec->name);
        goto out;
    }
    fr->format = dst;
    fr->width = width;
    fr->height = height;
    if (av_frame_get_buffer(fr, 0) < 0 ||
        !(sws = sws_getContext(width, height, src, width, height, dst, SWS_POINT, NULL, NULL, NULL))) {
        rc = icv_err_set(err, ICV_ENOMEM, "image: out of memory for a %dx%d frame", width, height);
        goto out;
    }
    const uint8_t *sp[4] = {pixels, NULL, NULL, NULL};
    int sl[4] = {width * channels, 0, 0, 0};
    sws_scale(sws, sp, sl, 0, height, fr->data, fr->linesize);
    if (avcodec_send_frame(cx, fr) < 0 || avcodec_send_frame(cx, NULL) < 0 || avcodec_receive_packet(cx, pk) < 0) {
        rc = icv_err_set(err, ICV_EIO, "image: the %s encoder failed", codec->name);
        goto out;
    }
    if (!(*buf = malloc((size_t)pk->size))) {
        rc = icv_err_set(err, ICV_ENOMEM, "image: out of memory");
        goto out;
    }
    memcpy(*buf, pk->data, (size_t)pk->size);
    *len = (size_t)pk->size;
out:
    sws_freeContext(sws);
    av_packet_free(&pk);
    av_frame_free(&fr);
    avcodec_free_context(&cx);
    return rc;
}
