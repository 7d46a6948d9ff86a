/* luma.c: decoded picture -> caller's gray frame. For YUV and gray sources the Y plane is
 * copied as it is (no colour conversion, no range change: the tracker thresholds the
 * sensor's own values); 16-bit luma stays 16-bit unless 8-bit is asked for. RGB, paletted,
 * packed-YUV and Bayer sources go through libswscale to gray (BT.601 weights). */
#include <stdlib.h>
#include <string.h>

#include <libavutil/avconfig.h>
#include <libavutil/pixdesc.h>

#include "capture/capture_internal.h"

/* Y alone in plane 0, one sample per step, little-endian or 8-bit: copyable as is. */
static int y_plane_direct(const AVPixFmtDescriptor *d)
{
    if (!d || (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BAYER |
                           AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_FLOAT)))
        return 0;
    const AVComponentDescriptor *y = &d->comp[0];
    int bytes = y->depth > 8 ? 2 : 1;
    if (y->plane != 0 || y->shift != 0 || y->offset != 0 || y->step != bytes)
        return 0;
    if (bytes == 2 && !!(d->flags & AV_PIX_FMT_FLAG_BE) != AV_HAVE_BIGENDIAN)
        return 0;
    /* no other component may share plane 0 (packed formats) */
    for (int c = 1; c < d->nb_components; c++)
        if (d->comp[c].plane == 0)
            return 0;
    return 1;
}

int capture_luma_setup(capture_source *s, enum AVPixelFormat fmt, icv_err *err)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);
    if (!d)
        return icv_err_set(err, ICV_EFORMAT, "%s: unknown pixel format", s->info.path);
    int depth = d->comp[0].depth;
    /* RGB sources: gray as deep as the deepest colour component */
    if (d->flags & AV_PIX_FMT_FLAG_RGB)
        for (int c = 0; c < d->nb_components && c < 3; c++)
            if (d->comp[c].depth > depth)
                depth = d->comp[c].depth;
    s->src_depth = depth;
    if (s->opt.want_rgb) { /* colour asked: packed RGB through libswscale */
        s->info.luma_direct = 0;
        s->info.bytes_per_sample = 3;
        s->info.bits = 8;
        return 0;
    }
    s->info.luma_direct = y_plane_direct(d);
    if (depth > 8 && !s->opt.want_8bit) {
        s->info.bytes_per_sample = 2;
        /* swscale output is full 16-bit gray; a copied plane keeps its own depth */
        s->info.bits = s->info.luma_direct ? depth : 16;
    } else {
        s->info.bytes_per_sample = 1;
        s->info.bits = 8;
    }
    return 0;
}

/* The stored picture into (data, stride), at its stored size w x h. */
static int copy_stored(capture_source *s, const AVFrame *src, uint8_t *data, size_t stride, int w, int h,
                       icv_err *err)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(src->format);
    capture_frame tmp = {.data = data, .stride = stride};
    capture_frame *f = &tmp;
    if (s->info.bytes_per_sample != 3 && d && y_plane_direct(d) &&
        (d->comp[0].depth > 8 ? 2 : 1) == s->info.bytes_per_sample) {
        size_t row = (size_t)w * (size_t)s->info.bytes_per_sample;
        for (int y = 0; y < h; y++)
            memcpy((uint8_t *)f->data + (size_t)y * f->stride, src->data[0] + (ptrdiff_t)y * src->linesize[0], row);
        return 0;
    }
    if (s->info.bytes_per_sample != 3 && d && y_plane_direct(d) && d->comp[0].depth > 8 &&
        s->info.bytes_per_sample == 1) {
        int shift = d->comp[0].depth - 8;
        for (int y = 0; y < h; y++) {
            const uint16_t *in = (const uint16_t *)(src->data[0] + (ptrdiff_t)y * src->linesize[0]);
            uint8_t *out = (uint8_t *)f->data + (size_t)y * f->stride;
            for (int x = 0; x < w; x++)
                out[x] = (uint8_t)(in[x] >> shift);
        }
        return 0;
    }
    enum AVPixelFormat dst = s->info.bytes_per_sample == 3   ? AV_PIX_FMT_RGB24
                             : s->info.bytes_per_sample == 2 ? AV_PIX_FMT_GRAY16
                                                             : AV_PIX_FMT_GRAY8;
    /* cached: rebuilt only when the source format changes (image sequences) */
    s->sws = sws_getCachedContext(s->sws, w, h, src->format, w, h, dst, SWS_POINT, NULL, NULL, NULL);
    if (!s->sws)
        return icv_err_set(err, ICV_EFORMAT, "%s: cannot convert pixel format %s to gray", s->info.path,
                           av_get_pix_fmt_name(src->format));
    uint8_t *dp[4] = {f->data, NULL, NULL, NULL};
    int dl[4] = {(int)f->stride, 0, 0, 0};
    sws_scale(s->sws, (const uint8_t *const *)src->data, src->linesize, 0, h, dp, dl);
    return 0;
}

int capture_luma_as_is(const capture_source *s, const AVFrame *src)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(src->format);
    return !s->info.rotation_deg && s->info.bytes_per_sample != 3 && d && y_plane_direct(d) &&
           (d->comp[0].depth > 8 ? 2 : 1) == s->info.bytes_per_sample && src->linesize[0] > 0 &&
           src->width == s->info.width && src->height == s->info.height;
}

void capture_turn(const uint8_t *in, size_t in_stride, int w, int h, int bps, int deg, uint8_t *out_data,
                  size_t out_stride)
{
    int ow = deg == 180 ? w : h, oh = deg == 180 ? h : w;
    for (int y = 0; y < oh; y++) {
        uint8_t *out = out_data + (size_t)y * out_stride;
        for (int x = 0; x < ow; x++) {
            int sx, sy;
            if (deg == 90) { /* the stored left column becomes the top row */
                sx = y;
                sy = h - 1 - x;
            } else if (deg == 180) {
                sx = w - 1 - x;
                sy = h - 1 - y;
            } else {
                sx = w - 1 - y;
                sy = x;
            }
            memcpy(out + (size_t)x * (size_t)bps, in + (size_t)sy * in_stride + (size_t)sx * (size_t)bps, (size_t)bps);
        }
    }
}

int capture_luma_copy(capture_source *s, const AVFrame *src, capture_frame *f, icv_err *err)
{
    int quarter = s->info.rotation_deg == 90 || s->info.rotation_deg == 270;
    int w = quarter ? s->info.height : s->info.width, h = quarter ? s->info.width : s->info.height;
    if (src->width != w || src->height != h)
        return icv_err_set(err, ICV_EFORMAT, "%s: frame %ld is %dx%d, the video is %dx%d", s->info.path, f->index,
                           src->width, src->height, w, h);
    if (!s->info.rotation_deg)
        return copy_stored(s, src, f->data, f->stride, w, h, err);
    if (!s->rot_buf) { /* once per source: the per-frame path does not allocate */
        s->rot_stride = (size_t)w * (size_t)s->info.bytes_per_sample;
        s->rot_buf = malloc(s->rot_stride * (size_t)h);
        if (!s->rot_buf)
            return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for a %dx%d picture", s->info.path, w, h);
    }
    int rc = copy_stored(s, src, s->rot_buf, s->rot_stride, w, h, err);
    if (!rc)
        capture_turn(s->rot_buf, s->rot_stride, w, h, s->info.bytes_per_sample, s->info.rotation_deg, f->data, f->stride);
    return rc;
}
