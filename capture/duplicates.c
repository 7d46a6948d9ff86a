/* duplicates.c: duplicated frames, i.e. a frame whose pixels equal its predecessor's
 * exactly (a camera or an editor repeating a frame to fill a slot). Compares with the
 * previous frame kept in a workspace allocated once. */
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"

int capture_dup_init(capture_dup_detector *d, const capture_info *info, icv_err *err)
{
    memset(d, 0, sizeof *d);
    d->size = (size_t)info->width * (size_t)info->height * (size_t)info->bytes_per_sample;
    d->prev = malloc(d->size ? d->size : 1);
    if (!d->prev)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", info->path);
    return 0;
}

int capture_dup_check(capture_dup_detector *d, const capture_frame *f)
{
    size_t row = (size_t)f->width * (size_t)f->bytes_per_sample;
    int same = d->have_prev;
    unsigned char *prev = d->prev;
    for (int y = 0; y < f->height; y++) {
        const unsigned char *src = (const unsigned char *)f->data + (size_t)y * f->stride;
        if (same && memcmp(prev + (size_t)y * row, src, row))
            same = 0;
        memcpy(prev + (size_t)y * row, src, row);
    }
    d->have_prev = 1;
    return same;
}

void capture_dup_reset(capture_dup_detector *d) { d->have_prev = 0; }

void capture_dup_free(capture_dup_detector *d)
{
    free(d->prev);
    d->prev = NULL;
}

int capture_frame_equal(const capture_frame *a, const capture_frame *b)
{
    if (a->width != b->width || a->height != b->height || a->bytes_per_sample != b->bytes_per_sample)
        return 0;
    size_t row = (size_t)a->width * (size_t)a->bytes_per_sample;
    for (int y = 0; y < a->height; y++)
        if (memcmp((const unsigned char *)a->data + (size_t)y * a->stride,
                   (const unsigned char *)b->data + (size_t)y * b->stride, row))
            return 0;
    return 1;
}
