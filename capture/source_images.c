/* source_images.c: image sequences (a printf pattern like img_%04d.png, a glob, or a
 * folder; sorted by name) decoded by FFmpeg's image decoders (PNG, TIFF incl. 16-bit,
 * JPEG, BMP, PGM/PPM). Each file is read into one reused buffer and sent to one decoder
 * context opened at the start; frame i is file i, timed at the capture rate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "capture/capture_internal.h"

static int has_printf_pattern(const char *p)
{
    for (const char *c = strchr(p, '%'); c; c = strchr(c + 1, '%')) {
        const char *d = c + 1;
        while (*d >= '0' && *d <= '9')
            d++;
        if (*d == 'd')
            return 1;
    }
    return 0;
}

static const char *image_exts[] = {".png", ".tif", ".tiff", ".jpg", ".jpeg", ".bmp", ".pgm", ".ppm", NULL};

int capture_is_image_sequence(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    if (has_printf_pattern(path) || strpbrk(path, "*?["))
        return 1;
    const char *dot = strrchr(path, '.');
    if (dot)
        for (int i = 0; image_exts[i]; i++)
            if (!strcasecmp(dot, image_exts[i]))
                return 1;
    return 0;
}

/* Lists a printf pattern's files: the first number in 0..4 that exists (as FFmpeg's
 * image2 does), then every consecutive number until one is missing. */
static int expand_printf(capture_source *s, icv_err *err)
{
    const char *pat = s->info.path;
    char name[ICV_PATH_MAX];
    long start = -1;
    for (long k = 0; k < 5 && start < 0; k++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(name, sizeof name, pat, (int)k);
#pragma GCC diagnostic pop
        if (icv_file_exists(name))
            start = k;
    }
    if (start < 0)
        return 0;
    size_t cap = 64;
    s->paths = malloc(cap * sizeof *s->paths);
    if (!s->paths)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", pat);
    for (long k = start;; k++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(name, sizeof name, pat, (int)k);
#pragma GCC diagnostic pop
        if (!icv_file_exists(name))
            break;
        if (s->n_paths == cap) {
            char **np = realloc(s->paths, 2 * cap * sizeof *np);
            if (!np)
                return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", pat);
            s->paths = np;
            cap *= 2;
        }
        if (!(s->paths[s->n_paths] = strdup(name)))
            return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", pat);
        s->n_paths++;
    }
    return 0;
}

static enum AVCodecID sniff_codec(const uint8_t *b, size_t n)
{
    if (n >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8))
        return AV_CODEC_ID_PNG;
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF)
        return AV_CODEC_ID_MJPEG;
    if (n >= 4 && (!memcmp(b, "II*\0", 4) || !memcmp(b, "MM\0*", 4)))
        return AV_CODEC_ID_TIFF;
    if (n >= 2 && b[0] == 'B' && b[1] == 'M')
        return AV_CODEC_ID_BMP;
    if (n >= 2 && b[0] == 'P' && b[1] == '5')
        return AV_CODEC_ID_PGM;
    if (n >= 2 && b[0] == 'P' && b[1] == '6')
        return AV_CODEC_ID_PPM;
    return AV_CODEC_ID_NONE;
}

/* Reads a whole file into the reused buffer (grown, with FFmpeg's zeroed padding, only
 * when a larger file comes). */
static int read_file(capture_source *s, const char *path, size_t *len, icv_err *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return icv_err_set(err, ICV_EIO, "%s: cannot open image: %s", path, strerror(errno));
    if (fseek(fp, 0, SEEK_END) != 0) {
        fclose(fp);
        return icv_err_set(err, ICV_EIO, "%s: cannot read image", path);
    }
    long size = ftell(fp);
    rewind(fp);
    if (size < 0) {
        fclose(fp);
        return icv_err_set(err, ICV_EIO, "%s: cannot read image", path);
    }
    size_t need = (size_t)size + AV_INPUT_BUFFER_PADDING_SIZE;
    if (need > s->filebuf_cap) {
        uint8_t *nb = av_realloc(s->filebuf, need);
        if (!nb) {
            fclose(fp);
            return icv_err_set(err, ICV_ENOMEM, "%s: out of memory reading image", path);
        }
        s->filebuf = nb;
        s->filebuf_cap = need;
    }
    size_t got = fread(s->filebuf, 1, (size_t)size, fp);
    fclose(fp);
    if (got != (size_t)size)
        return icv_err_set(err, ICV_EIO, "%s: cannot read image", path);
    memset(s->filebuf + size, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    *len = (size_t)size;
    return 0;
}

/* Decodes image i into s->frm. */
static int decode_image(capture_source *s, long i, icv_err *err)
{
    const char *path = s->paths[i];
    size_t len;
    char eb[128];
    int rc = read_file(s, path, &len, err);
    if (rc)
        return rc;
    if (len == 0)
        return icv_err_set(err, ICV_EFORMAT, "%s: empty image file", path);
    s->pkt->data = s->filebuf;
    s->pkt->size = (int)len;
    s->pkt->pts = i;
    s->pkt->flags = AV_PKT_FLAG_KEY;
    rc = avcodec_send_packet(s->dec, s->pkt);
    s->pkt->data = NULL;
    s->pkt->size = 0;
    if (rc >= 0)
        rc = avcodec_receive_frame(s->dec, s->frm);
    if (rc >= 0)
        capture_count_decoded();
    if (rc < 0) {
        avcodec_flush_buffers(s->dec);
        return icv_err_set(err, ICV_EFORMAT, "%s: cannot decode image (%s)", path, capture_averr(rc, eb, sizeof eb));
    }
    return 0;
}

int capture_images_open(capture_source *s, icv_err *err)
{
    const char *pat = s->info.path;
    int rc;
    if (has_printf_pattern(pat) && !strpbrk(pat, "*?[")) {
        if ((rc = expand_printf(s, err)))
            return rc;
    } else if ((rc = icv_paths_expand(pat, &s->paths, &s->n_paths, err))) {
        return rc;
    }
    if (s->n_paths == 0)
        return icv_err_set(err, icv_file_exists(pat) ? ICV_EFORMAT : ICV_ENOTFOUND,
                           "%s: no images match (zero frames)", pat);
    s->n = (long)s->n_paths;
    snprintf(s->info.container, sizeof s->info.container, "image sequence");

    size_t len;
    if ((rc = read_file(s, s->paths[0], &len, err)))
        return rc;
    s->img_codec = sniff_codec(s->filebuf, len);
    if (s->img_codec == AV_CODEC_ID_NONE)
        return icv_err_set(err, ICV_EFORMAT, "%s: not an image (PNG, TIFF, JPEG, BMP, PGM/PPM) or a video",
                           s->paths[0]);
    const AVCodec *codec = avcodec_find_decoder(s->img_codec);
    if (!codec)
        return icv_err_set(err, ICV_EFORMAT, "%s: unsupported image codec '%s'", s->paths[0],
                           avcodec_get_name(s->img_codec));
    snprintf(s->info.codec, sizeof s->info.codec, "%s", codec->name);
    s->pkt = av_packet_alloc();
    s->frm = av_frame_alloc();
    s->dec = avcodec_alloc_context3(codec);
    if (!s->pkt || !s->frm || !s->dec)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", pat);
    capture_decoder_limits(s->dec);
    /* slice threads only: with frame threads an image decoder would delay its output */
    s->dec->thread_count = s->opt.threads;
    s->dec->thread_type = FF_THREAD_SLICE;
    char eb[128];
    if ((rc = avcodec_open2(s->dec, codec, NULL)) < 0)
        return icv_err_set(err, ICV_EFORMAT, "%s: cannot open the %s decoder (%s)", pat, codec->name,
                           capture_averr(rc, eb, sizeof eb));
    if ((rc = decode_image(s, 0, err)))
        return rc;
    s->info.width = s->frm->width;
    s->info.height = s->frm->height;
    rc = capture_luma_setup(s, s->frm->format, err);
    av_frame_unref(s->frm);
    if (rc)
        return rc;

    /* times: frame i at i / rate; the rate is the capture rate when given, else FFmpeg's
     * image2 default of 25 fps (said in the probe) */
    double fps = s->opt.capture_fps > 0 ? s->opt.capture_fps : 25.0;
    s->info.nominal_fps = fps;
    if (s->opt.capture_fps <= 0)
        s->info.capture_fps_from = CAPTURE_RATE_ASSUMED;
    s->pts = malloc((size_t)s->n * sizeof *s->pts);
    s->key = malloc((size_t)s->n);
    s->pts_s = malloc((size_t)s->n * sizeof *s->pts_s);
    if (!s->pts || !s->key || !s->pts_s)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", pat);
    for (long i = 0; i < s->n; i++) {
        s->pts[i] = i;
        s->key[i] = 1;
        s->pts_s[i] = (double)i / fps;
    }
    s->tick_s = 1.0 / fps;
    capture_rate_resolve(s, NULL, NULL);
    return 0;
}

int capture_images_read(capture_source *s, capture_frame *f, icv_err *err)
{
    for (;;) {
        long i;
        if (s->pending) { /* decoded by the seek */
            s->pending = 0;
            i = s->pending_index;
            s->img_next = i + 1;
        } else {
            if (s->img_next >= s->n)
                return CAPTURE_EOF;
            i = s->img_next++;
            icv_err derr;
            if (decode_image(s, i, &derr)) {
                /* a damaged image is a lost frame; the sequence goes on */
                icv_debug("%s", derr.msg);
                capture_mark_lost(s, i);
                continue;
            }
        }
        if (s->frm->width != s->info.width || s->frm->height != s->info.height) {
            int w = s->frm->width, h = s->frm->height;
            av_frame_unref(s->frm);
            return icv_err_set(err, ICV_EFORMAT, "%s: image is %dx%d but the sequence's first image %s is %dx%d",
                               s->paths[i], w, h, s->paths[0], s->info.width, s->info.height);
        }
        f->index = i;
        int rc = capture_luma_copy(s, s->frm, f, err);
        av_frame_unref(s->frm);
        return rc;
    }
}

/* Decodes image n now, so that a damaged image fails the seek as a video frame would. */
int capture_images_seek(capture_source *s, long n, icv_err *err)
{
    if (s->pending)
        av_frame_unref(s->frm);
    s->pending = 0;
    s->img_next = n;
    int rc = decode_image(s, n, err);
    if (rc) {
        capture_mark_lost(s, n);
        return rc;
    }
    s->pending = 1;
    s->pending_index = n;
    return 0;
}
