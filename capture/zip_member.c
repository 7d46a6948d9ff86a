/* zip_member.c: a video inside a zip archive, read in place. Tracker keeps its clip in a
 * .trz (a zip of the video, the .trk and a thumbnail); a user names the archive as the
 * camera's video. The archive's one video member is inflated into memory by libzip and
 * FFmpeg reads it through I/O callbacks on that memory (seekable, as mp4 needs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libavformat/avformat.h>
#include <libavutil/mem.h>
#include <zip.h>

#include "capture/capture_internal.h"

#define ZIP_IO_BUFFER 65536

struct capture_zip_member {
    uint8_t *data;
    int64_t size, pos;
    char name[ICV_PATH_MAX];
};

int capture_is_zip(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char h[4];
    int zip = f && fread(h, 1, 4, f) == 4 && !memcmp(h, "PK\3\4", 4);
    if (f)
        fclose(f);
    return zip;
}

static int is_video_name(const char *name)
{
    static const char *ext[] = {"mp4", "mov", "m4v", "3gp", "avi", "mkv", "webm", "mpg", "mpeg", "mts", "wmv", "flv",
                                "ogv"};
    const char *dot = strrchr(name, '.'), *slash = strrchr(name, '/');
    if (!dot || (slash && dot < slash))
        return 0;
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (!strcasecmp(dot + 1, ext[i]))
            return 1;
    return 0;
}

/* the archive's one video member's index, or an error naming what it holds */
static int find_video(zip_t *z, const char *path, zip_uint64_t *index, icv_err *err)
{
    zip_int64_t n = zip_get_num_entries(z, 0);
    char videos[256] = "", files[256] = "";
    size_t lv = 0, lf = 0;
    int count = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!name)
            continue;
        if (lf < sizeof files)
            lf += (size_t)snprintf(files + lf, sizeof files - lf, "%s%s", lf ? ", " : "", name);
        if (!is_video_name(name))
            continue;
        if (count++ == 0)
            *index = (zip_uint64_t)i;
        if (lv < sizeof videos)
            lv += (size_t)snprintf(videos + lv, sizeof videos - lv, "%s%s", lv ? ", " : "", name);
    }
    if (count == 0)
        return icv_err_set(err, ICV_EFORMAT, "%s: a zip archive with no video inside (it holds: %s)", path,
                           n > 0 ? files : "nothing");
    if (count > 1)
        return icv_err_set(err, ICV_EFORMAT,
                           "%s: the zip archive holds %d videos (%s): a camera's video must be one; extract it", path,
                           count, videos);
    return 0;
}

static int read_member(zip_t *z, zip_uint64_t index, const char *path, struct capture_zip_member *m, icv_err *err)
{
    zip_stat_t st;
    if (zip_stat_index(z, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        return icv_err_set(err, ICV_EFORMAT, "%s: the video inside the archive has no size (%s)", path,
                           zip_strerror(z));
    snprintf(m->name, sizeof m->name, "%s", st.name ? st.name : "");
    if (st.size > (zip_uint64_t)CAPTURE_FFMPEG_MAX_BLOCK)
        return icv_err_set(err, ICV_EFORMAT, "%s: '%s' inside the archive is %llu bytes, over the %d MiB read in "
                           "memory: extract it",
                           path, m->name, (unsigned long long)st.size, (int)(CAPTURE_FFMPEG_MAX_BLOCK >> 20));
    m->data = av_malloc((size_t)st.size + AV_INPUT_BUFFER_PADDING_SIZE);
    if (!m->data)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory for '%s'", path, m->name);
    zip_file_t *zf = zip_fopen_index(z, index, 0);
    if (!zf)
        return icv_err_set(err, ICV_EFORMAT, "%s: cannot open '%s' inside the archive (%s)", path, m->name,
                           zip_strerror(z));
    zip_uint64_t got = 0;
    zip_int64_t r = 1;
    while (got < st.size && (r = zip_fread(zf, m->data + got, st.size - got)) > 0)
        got += (zip_uint64_t)r;
    int rc = 0;
    if (got != st.size)
        rc = icv_err_set(err, ICV_EFORMAT, "%s: '%s' inside the archive is damaged: %llu of %llu bytes read (%s)", path,
                         m->name, (unsigned long long)got, (unsigned long long)st.size,
                         r < 0 ? zip_file_strerror(zf) : "the data ends early");
    zip_fclose(zf);
    m->size = (int64_t)got;
    return rc;
}

static int member_read(void *opaque, uint8_t *buf, int n)
{
    struct capture_zip_member *m = opaque;
    int64_t left = m->size - m->pos;
    if (left <= 0)
        return AVERROR_EOF;
    if (n > left)
        n = (int)left;
    memcpy(buf, m->data + m->pos, (size_t)n);
    m->pos += n;
    return n;
}

static int64_t member_seek(void *opaque, int64_t offset, int whence)
{
    struct capture_zip_member *m = opaque;
    if (whence & AVSEEK_SIZE)
        return m->size;
    int64_t base = (whence & ~AVSEEK_FORCE) == SEEK_CUR ? m->pos : (whence & ~AVSEEK_FORCE) == SEEK_END ? m->size : 0;
    int64_t pos = base + offset;
    if (pos < 0 || pos > m->size)
        return AVERROR(EINVAL);
    return m->pos = pos;
}

int capture_zip_open(capture_source *s, icv_err *err)
{
    const char *path = s->info.path;
    int ze = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &ze);
    if (!z) {
        zip_error_t e;
        zip_error_init_with_code(&e, ze);
        int rc = icv_err_set(err, ICV_EFORMAT, "%s: a damaged zip archive (%s)", path, zip_error_strerror(&e));
        zip_error_fini(&e);
        return rc;
    }
    zip_uint64_t index = 0;
    s->zip = calloc(1, sizeof *s->zip);
    int rc = s->zip ? 0 : icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    if (!rc)
        rc = find_video(z, path, &index, err);
    if (!rc)
        rc = read_member(z, index, path, s->zip, err);
    zip_discard(z);
    if (rc)
        return rc;
    uint8_t *iob = av_malloc(ZIP_IO_BUFFER);
    s->fmt = avformat_alloc_context();
    if (iob)
        s->avio = avio_alloc_context(iob, ZIP_IO_BUFFER, 0, s->zip, member_read, NULL, member_seek);
    if (!s->fmt || !s->avio) {
        if (!s->avio)
            av_free(iob);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    s->fmt->pb = s->avio;
    s->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    return 0;
}

int capture_zip_header_check(const capture_source *s, icv_err *err)
{
    FILE *f = fmemopen(s->zip->data, (size_t)s->zip->size, "rb");
    if (!f)
        return 0; /* the check is a guard; FFmpeg still bounds what it reads */
    char name[ICV_PATH_MAX + 8];
    snprintf(name, sizeof name, "%s (%s)", s->info.path, s->zip->name);
    int rc = capture_header_check_file(f, name, err);
    fclose(f);
    return rc;
}

const char *capture_zip_member_name(const capture_source *s) { return s->zip ? s->zip->name : NULL; }

void capture_zip_close(capture_source *s)
{
    if (s->avio) {
        av_freep(&s->avio->buffer);
        avio_context_free(&s->avio);
    }
    if (s->zip)
        av_free(s->zip->data);
    free(s->zip);
    s->zip = NULL;
}
