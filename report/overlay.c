/* overlay.c: an overlay image for the report: detections (a circle per marker in
 * its identity's colour), predicted positions (crosses) and the projected body
 * outline drawn over a gray video frame, encoded as PNG (capture_image_encode). Also
 * the PNG decoder the tests read it back with. */
#include <libavcodec/avcodec.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

/* the palette of report/plot.c, so a marker's colour matches its plot series */
static const unsigned char pal[13][3] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                         {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                                         {188, 189, 34},  {23, 190, 207}, {174, 199, 232}, {255, 187, 120},
                                         {152, 223, 138}};

void report_palette(int i, unsigned char rgb[3])
{
    i = ((i % 13) + 13) % 13;
    memcpy(rgb, pal[i], 3);
}

static void dot(unsigned char *rgb, int w, int h, int x, int y, const unsigned char c[3])
{
    if (x < 0 || y < 0 || x >= w || y >= h)
        return;
    memcpy(rgb + ((size_t)y * w + x) * 3, c, 3);
}

/* a line of about 2 px width, sampled every half pixel */
static void line(unsigned char *rgb, int w, int h, double u0, double v0, double u1, double v1,
                 const unsigned char c[3])
{
    if (!isfinite(u0) || !isfinite(v0) || !isfinite(u1) || !isfinite(v1))
        return; /* a point behind the camera: no segment */
    double len = hypot(u1 - u0, v1 - v0);
    int n = (int)ceil(2 * len) + 1;
    if (n > 1 << 20)
        n = 1 << 20; /* a wild projection: bounded work */
    for (int i = 0; i <= n; i++) {
        double s = (double)i / n, u = u0 + s * (u1 - u0), v = v0 + s * (v1 - v0);
        if (u < -2 || v < -2 || u > w + 2 || v > h + 2)
            continue; /* off the image (and no int overflow for a wild projection) */
        int x = (int)floor(u + 0.5), y = (int)floor(v + 0.5);
        dot(rgb, w, h, x, y, c);
        dot(rgb, w, h, x + 1, y, c);
        dot(rgb, w, h, x, y + 1, c);
    }
}

/* a ring of radius r (2 px thick) and a centre dot */
static void ring(unsigned char *rgb, int w, int h, double u, double v, double r, const unsigned char c[3])
{
    int x0 = (int)floor(u - r - 2), x1 = (int)ceil(u + r + 2), y0 = (int)floor(v - r - 2), y1 = (int)ceil(v + r + 2);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            double d = hypot(x - u, y - v);
            if (fabs(d - r) <= 1.0 || d <= 1.0)
                dot(rgb, w, h, x, y, c);
        }
}

/* a cross of half-width r (2 px thick arms along u and v): a predicted position */
static void cross(unsigned char *rgb, int w, int h, double u, double v, double r, const unsigned char c[3])
{
    line(rgb, w, h, u - r, v, u + r, v, c);
    line(rgb, w, h, u, v - r, u, v + r, c);
}

int report_overlay_png(const unsigned char *gray, int width, int height, int stride, const report_point2d *pts,
                       int n_pts, const report_polyline *lines, int n_lines, double radius_px, unsigned char **png,
                       size_t *png_len, icv_err *err)
{
    *png = NULL;
    *png_len = 0;
    if (width < 1 || height < 1 || stride < width)
        return icv_err_set(err, ICV_EINVAL, "overlay: bad frame size %dx%d (stride %d)", width, height, stride);
    unsigned char *rgb = malloc((size_t)width * height * 3);
    if (!rgb)
        return icv_err_set(err, ICV_ENOMEM, "overlay: out of memory for a %dx%d frame", width, height);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            memset(rgb + ((size_t)y * width + x) * 3, gray[(size_t)y * stride + x], 3);
    static const unsigned char yellow[3] = {255, 220, 0}, white[3] = {255, 255, 255}, magenta[3] = {255, 0, 255};
    for (int l = 0; l < n_lines; l++) {
        const report_polyline *pl = &lines[l];
        int segs = pl->closed ? pl->n : pl->n - 1;
        for (int i = 0; i < segs; i++) {
            int j = (i + 1) % pl->n;
            line(rgb, width, height, pl->uv[2 * i], pl->uv[2 * i + 1], pl->uv[2 * j], pl->uv[2 * j + 1], yellow);
        }
    }
    for (int pass = 0; pass < 2; pass++) /* predicted crosses first: a detection's ring over them */
        for (int i = 0; i < n_pts; i++) {
            unsigned char c[3];
            if (pts[i].id < 0)
                memcpy(c, white, 3);
            else
                report_palette(pts[i].id, c);
            double m = 1.5 * radius_px + 2;
            if ((pass == 0) != (pts[i].predicted != 0) || !isfinite(pts[i].u) || !isfinite(pts[i].v) ||
                pts[i].u < -m || pts[i].v < -m || pts[i].u > width + m || pts[i].v > height + m || radius_px < 0 ||
                radius_px >= 1e4)
                continue;
            if (pts[i].predicted) /* magenta, larger than the ring: seen round a detection */
                cross(rgb, width, height, pts[i].u, pts[i].v, 1.5 * radius_px, magenta);
            else
                ring(rgb, width, height, pts[i].u, pts[i].v, radius_px, c);
        }
    int rc = capture_image_encode(rgb, width, height, 3, ".png", png, png_len, err);
    free(rgb);
    return rc ? icv_err_prefix(err, "overlay: ") : 0;
}

/* a diagonal cross of half-width r (2 px thick): a marker of a fitted pose */
static void xmark(unsigned char *rgb, int w, int h, double u, double v, double r, const unsigned char c[3])
{
    line(rgb, w, h, u - r, v - r, u + r, v + r, c);
    line(rgb, w, h, u - r, v + r, u + r, v - r, c);
}

int report_overlay_marks_png(const unsigned char *gray, int width, int height, int stride, const report_mark *marks,
                             int n_marks, const report_polyline *lines, const unsigned char (*line_rgb)[3],
                             int n_lines, double radius_px, const char *const *legend,
                             const unsigned char (*legend_rgb)[3], int n_legend, unsigned char **png,
                             size_t *png_len, icv_err *err)
{
    *png = NULL;
    *png_len = 0;
    if (width < 1 || height < 1 || stride < width)
        return icv_err_set(err, ICV_EINVAL, "overlay: bad frame size %dx%d (stride %d)", width, height, stride);
    if (!(radius_px >= 0 && radius_px < 1e4))
        return icv_err_set(err, ICV_EINVAL, "overlay: bad marker radius %g px", radius_px);
    int strip = n_legend > 0 ? REPORT_LEGEND_PAD + n_legend * REPORT_LEGEND_ROW : 0;
    unsigned char *rgb = malloc((size_t)width * (size_t)(height + strip) * 3);
    if (!rgb)
        return icv_err_set(err, ICV_ENOMEM, "overlay: out of memory for a %dx%d frame", width, height);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            memset(rgb + ((size_t)y * width + x) * 3, gray[(size_t)y * stride + x], 3);
    for (int l = 0; l < n_lines; l++) {
        const report_polyline *pl = &lines[l];
        int segs = pl->closed ? pl->n : pl->n - 1;
        for (int i = 0; i < segs; i++) {
            int j = (i + 1) % pl->n;
            line(rgb, width, height, pl->uv[2 * i], pl->uv[2 * i + 1], pl->uv[2 * j], pl->uv[2 * j + 1],
                 line_rgb[l]);
        }
    }
    double m = 1.5 * radius_px + 2;
    for (int style = REPORT_MARK_PREDICTED; style >= REPORT_MARK_TRACKED; style--) /* a detection's ring on top */
        for (int i = 0; i < n_marks; i++) {
            const report_mark *k = &marks[i];
            if ((int)k->style != style || !isfinite(k->u) || !isfinite(k->v) || k->u < -m || k->v < -m ||
                k->u > width + m || k->v > height + m)
                continue;
            if (style == REPORT_MARK_PREDICTED)
                cross(rgb, width, height, k->u, k->v, 1.5 * radius_px, k->rgb);
            else if (style == REPORT_MARK_FITTED)
                xmark(rgb, width, height, k->u, k->v, 0.6 * radius_px, k->rgb);
            else
                ring(rgb, width, height, k->u, k->v, radius_px, k->rgb);
        }
    if (strip) { /* below the frame's rows: nothing of the frame is covered */
        memset(rgb + (size_t)width * (size_t)height * 3, 24, (size_t)width * (size_t)strip * 3);
        for (int i = 0; i < n_legend; i++)
            report_text_draw(rgb, width, height + strip, REPORT_LEGEND_PAD,
                             height + REPORT_LEGEND_PAD + i * REPORT_LEGEND_ROW, REPORT_LEGEND_SCALE, legend[i],
                             legend_rgb[i]);
    }
    int rc = capture_image_encode(rgb, width, height + strip, 3, ".png", png, png_len, err);
    free(rgb);
    return rc ? icv_err_prefix(err, "overlay: ") : 0;
}

int report_png_decode_rgb(const unsigned char *png, size_t len, unsigned char **rgb, int *width, int *height,
                          icv_err *err)
{
    *rgb = NULL;
    const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_PNG);
    if (!codec)
        return icv_err_set(err, ICV_ENOTFOUND, "png: this FFmpeg has no png decoder");
    AVCodecContext *cx = avcodec_alloc_context3(codec);
    AVFrame *fr = av_frame_alloc();
    AVPacket *pk = av_packet_alloc();
    int rc = 0;
    if (!cx || !fr || !pk || av_new_packet(pk, (int)len) < 0) {
        rc = icv_err_set(err, ICV_ENOMEM, "png: out of memory");
        goto out;
    }
    memcpy(pk->data, png, len);
    if (avcodec_open2(cx, codec, NULL) < 0 || avcodec_send_packet(cx, pk) < 0 || avcodec_send_packet(cx, NULL) < 0 ||
        avcodec_receive_frame(cx, fr) < 0) {
        rc = icv_err_set(err, ICV_EFORMAT, "png: cannot decode (%zu bytes)", len);
        goto out;
    }
    if (fr->format != AV_PIX_FMT_RGB24) {
        rc = icv_err_set(err, ICV_EFORMAT, "png: pixel format %d is not RGB24", fr->format);
        goto out;
    }
    *width = fr->width;
    *height = fr->height;
    *rgb = malloc((size_t)fr->width * fr->height * 3);
    if (!*rgb) {
        rc = icv_err_set(err, ICV_ENOMEM, "png: out of memory");
        goto out;
    }
    for (int y = 0; y < fr->height; y++)
        memcpy(*rgb + (size_t)y * fr->width * 3, fr->data[0] + (size_t)y * fr->linesize[0], (size_t)fr->width * 3);
out:
    av_packet_free(&pk);
    av_frame_free(&fr);
    avcodec_free_context(&cx);
    return rc;
}
