/* source.c: the frame source's public entry points (capture.h). Dispatches to
 * source_video.c (anything libavformat opens) or source_images.c (image sequences),
 * and owns what both share: the frame index, lost frames, caller frame buffers. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture_internal.h"

const char *capture_averr(int code, char *buf, size_t n)
{
    if (av_strerror(code, buf, n) < 0)
        snprintf(buf, n, "FFmpeg error %d", code);
    return buf;
}

static atomic_long decoded_frames;

void capture_count_decoded(void) { atomic_fetch_add_explicit(&decoded_frames, 1, memory_order_relaxed); }

long capture_decoded_frames(void) { return atomic_load_explicit(&decoded_frames, memory_order_relaxed); }

/* FFmpeg's own messages go to icv_log at debug level (-v): capture reports what matters
 * itself, in one line, and library code prints nothing else. */
static void av_log_to_icv(void *avcl, int level, const char *fmt, va_list vl)
{
    (void)avcl;
    if (level > AV_LOG_WARNING || icv_log_get_level() < ICV_LOG_DEBUG)
        return;
    char line[512];
    vsnprintf(line, sizeof line, fmt, vl);
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n')
        line[n - 1] = '\0';
    icv_debug("ffmpeg: %s", line);
}

void capture_ffmpeg_setup(void)
{
    av_log_set_callback(av_log_to_icv);
    av_max_alloc(CAPTURE_FFMPEG_MAX_BLOCK);
}

void capture_decoder_limits(AVCodecContext *dec) { dec->max_pixels = CAPTURE_MAX_PIXELS; }

int capture_source_open(capture_source **out, const char *path, const capture_options *opt, icv_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return icv_err_set(err, ICV_EINVAL, "capture: no video path given");
    capture_ffmpeg_setup();
    capture_source *s = calloc(1, sizeof *s);
    if (!s)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    if (opt)
        s->opt = *opt;
    if (s->opt.capture_fps < 0 || s->opt.threads < 0 || s->opt.exposure_s < 0) {
        free(s);
        return icv_err_set(err, ICV_EINVAL, "%s: capture_fps, threads and exposure_s must be >= 0", path);
    }
    snprintf(s->info.path, sizeof s->info.path, "%s", path);
    s->stream = -1;
    s->last_index = -1;
    s->skip_below = -1;
    s->info.is_image_sequence = capture_is_image_sequence(path);
    int rc = s->info.is_image_sequence ? capture_images_open(s, err) : capture_video_open(s, err);
    if (rc) {
        capture_source_close(s);
        return rc;
    }
    if (!s->lost)
        s->lost = calloc((size_t)s->n, sizeof *s->lost);
    if (!s->lost_flag)
        s->lost_flag = calloc((size_t)s->n, 1);
    if (!s->lost || !s->lost_flag) {
        capture_source_close(s);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    capture_keep_init(s);
    *out = s;
    return 0;
}

void capture_source_close(capture_source *s)
{
    if (!s)
        return;
    av_packet_free(&s->pkt);
    av_frame_free(&s->frm);
    av_frame_free(&s->lent[0]);
    av_frame_free(&s->lent[1]);
    avcodec_free_context(&s->dec);
    if (s->fmt)
        avformat_close_input(&s->fmt);
    capture_zip_close(s); /* after the demuxer: its I/O reads the member */
    sws_freeContext(s->sws);
    free(s->pts);
    free(s->key);
    free(s->pts_s);
    free(s->ix_pos);
    free(s->ix_ts);
    free(s->lost);
    free(s->lost_flag);
    icv_paths_free(s->paths, s->n_paths);
    av_free(s->filebuf);
    free(s->rot_buf);
    capture_keep_free(s);
    free(s);
}

const capture_info *capture_source_info(const capture_source *s) { return &s->info; }

const double *capture_source_pts(const capture_source *s) { return s->pts_s; }

double capture_source_time(const capture_source *s, long n)
{
    if (n < 0 || n >= s->n)
        return 0.0;
    return s->pts_s[n] * s->info.time_scale;
}

double capture_source_tick(const capture_source *s) { return s->tick_s; }

void capture_source_lost(const capture_source *s, const long **frames, size_t *n)
{
    *frames = s->lost;
    *n = s->n_lost;
}

void capture_mark_lost(capture_source *s, long i)
{
    if (i < 0 || i >= s->n || s->lost_flag[i])
        return;
    s->lost_flag[i] = 1;
    /* keep ascending: lost frames are almost always found in order */
    size_t k = s->n_lost++;
    while (k > 0 && s->lost[k - 1] > i) {
        s->lost[k] = s->lost[k - 1];
        k--;
    }
    s->lost[k] = i;
}

static int check_frame(const capture_source *s, const capture_frame *f, icv_err *err)
{
    const capture_info *in = &s->info;
    if (!f || !f->data || f->width != in->width || f->height != in->height ||
        f->bytes_per_sample != in->bytes_per_sample ||
        f->stride < (size_t)in->width * (size_t)in->bytes_per_sample)
        return icv_err_set(err, ICV_EINVAL, "%s: frame buffer does not match the video (%dx%d, %d byte(s)/sample)",
                           in->path, in->width, in->height, in->bytes_per_sample);
    return 0;
}

static int read_frame(capture_source *s, capture_frame *f, capture_frame *view, int lend, icv_err *err)
{
    int rc = check_frame(s, f, err);
    if (rc)
        return rc;
    capture_frame *out = view ? view : f;
    if (s->info.is_image_sequence) {
        rc = capture_images_read(s, f, err);
        if (view)
            *view = *f;
    } else {
        rc = capture_video_read(s, f, view, lend, err);
    }
    if (rc == 0 && (out->index < 0 || out->index >= s->n))
        rc = icv_err_set(err, ICV_EFORMAT, "%s: frame %ld decoded beyond the index of %ld frames: a damaged file",
                         s->info.path, out->index, s->n);
    if (rc == 0) {
        out->bits = s->info.bits;
        out->pts_s = s->pts_s[out->index];
        out->time_s = out->pts_s * s->info.time_scale;
    }
    return rc;
}

int capture_source_read(capture_source *s, capture_frame *f, icv_err *err)
{
    return read_frame(s, f, NULL, 0, err);
}

int capture_source_read_view(capture_source *s, capture_frame *f, capture_frame *view, icv_err *err)
{
    return read_frame(s, f, view, 0, err);
}

int capture_source_read_next(capture_source *s, capture_frame *f, capture_frame *view, icv_err *err)
{
    return read_frame(s, f, view, 1, err);
}

int capture_source_seek(capture_source *s, long n, icv_err *err)
{
    if (n < 0 || n >= s->n)
        return icv_err_set(err, ICV_EINVAL, "%s: seek to frame %ld past the end (%ld frames, numbered from 0)",
                           s->info.path, n, s->n);
    return s->info.is_image_sequence ? capture_images_seek(s, n, err) : capture_video_seek(s, n, err);
}

int capture_frame_alloc(capture_frame *f, const capture_info *info, icv_err *err)
{
    memset(f, 0, sizeof *f);
    f->width = info->width;
    f->height = info->height;
    f->bytes_per_sample = info->bytes_per_sample;
    f->bits = info->bits;
    f->stride = (size_t)info->width * (size_t)info->bytes_per_sample;
    f->data = malloc(f->stride * (size_t)info->height + CAPTURE_SWS_PAD); /* luma.c's swscale */
    if (!f->data)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for a %dx%d frame", info->path, info->width,
                           info->height);
    f->index = -1;
    return 0;
}

void capture_frame_free(capture_frame *f)
{
    free(f->data);
    f->data = NULL;
}

double capture_frame_mean(const capture_frame *f)
{
    double sum = 0.0;
    for (int y = 0; y < f->height; y++) {
        const unsigned char *row = (const unsigned char *)f->data + (size_t)y * f->stride;
        uint64_t acc = 0;
        if (f->bytes_per_sample == 1) {
            for (int x = 0; x < f->width; x++)
                acc += row[x];
        } else {
            const uint16_t *r16 = (const uint16_t *)row;
            for (int x = 0; x < f->width; x++)
                acc += r16[x];
        }
        sum += (double)acc;
    }
    return sum / ((double)f->width * (double)f->height);
}
