/* frame_keep.c: a video's decoded frames kept for a second reading
 * (capture_options.keep_bytes). The track stage's look trials read frames a tenth into
 * the clip and frames spread over it, then its pass reads every frame: kept, the pass
 * reads the trials' frames again without decoding and the decoder resumes where the
 * trials left it, so each frame is decoded once (docs/track.md, "Session 27"). One
 * block of slots, reserved at the first frame kept and filled in order, so that only
 * the pages of frames kept are touched; a frame past the budget is not kept (it is
 * decoded again when read again). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capture/capture_internal.h"

void capture_keep_init(capture_source *s)
{
    s->kept_next = -1;
    s->kept_last = -1;
    s->kept_bytes = (size_t)s->info.width * (size_t)s->info.height * (size_t)s->info.bytes_per_sample;
    long cap = s->kept_bytes ? (long)(s->opt.keep_bytes / s->kept_bytes) : 0;
    s->keep_cap = cap < s->n ? cap : s->n;
    s->keeping = !s->info.is_image_sequence && s->keep_cap > 0;
}

int capture_keep_has(const capture_source *s, long i)
{
    return s->kept_slot && i >= 0 && i < s->n && s->kept_slot[i] >= 0;
}

/* The next free slot as a frame to fill, or 0 when frame i is not to be kept. The
 * block is reserved here, once: a failure only leaves frames unkept. */
static int free_slot(capture_source *s, long i, capture_frame *slot)
{
    if (!s->keeping || i < 0 || i >= s->n || capture_keep_has(s, i) || s->n_kept >= s->keep_cap)
        return 0;
    if (!s->kept) {
        /* swscale writes past a packed frame's end (CAPTURE_SWS_PAD): into the next
           slot, filled after this one, or the pad after the last */
        size_t bytes = (size_t)s->keep_cap * s->kept_bytes + CAPTURE_SWS_PAD, huge = (size_t)2 << 20;
        bytes = (bytes + huge - 1) / huge * huge;
        void *p = NULL;
        if (posix_memalign(&p, huge, bytes) == 0) {
            s->kept = p;
            madvise(p, bytes, MADV_HUGEPAGE);
        }
        s->kept_slot = malloc((size_t)s->n * sizeof *s->kept_slot);
        if (!s->kept || !s->kept_slot) {
            capture_keep_free(s);
            s->keeping = 0;
            return 0;
        }
        for (long k = 0; k < s->n; k++)
            s->kept_slot[k] = -1;
    }
    *slot = (capture_frame){.width = s->info.width, .height = s->info.height,
                            .bytes_per_sample = s->info.bytes_per_sample, .bits = s->info.bits,
                            .stride = (size_t)s->info.width * (size_t)s->info.bytes_per_sample,
                            .data = s->kept + (size_t)s->n_kept * s->kept_bytes, .index = i};
    return 1;
}

static void slot_filled(capture_source *s, long i)
{
    s->kept_slot[i] = s->n_kept++;
    if (i > s->kept_last)
        s->kept_last = i;
}

void capture_keep_frame(capture_source *s, const capture_frame *f)
{
    capture_frame slot;
    if (!free_slot(s, f->index, &slot))
        return;
    size_t row = slot.stride;
    for (int y = 0; y < f->height; y++)
        memcpy((uint8_t *)slot.data + (size_t)y * row, (const uint8_t *)f->data + (size_t)y * f->stride, row);
    slot_filled(s, f->index);
}

void capture_keep_decoded(capture_source *s, const AVFrame *frm, long i)
{
    capture_frame slot;
    if (free_slot(s, i, &slot) && capture_luma_copy(s, frm, &slot, NULL) == 0)
        slot_filled(s, i);
}

/* view: f's fields with the kept copy's pixels */
static void view_of(const capture_source *s, long i, const capture_frame *f, capture_frame *view)
{
    *view = *f;
    view->stride = (size_t)s->info.width * (size_t)s->info.bytes_per_sample;
    view->data = s->kept + (size_t)s->kept_slot[i] * s->kept_bytes;
    view->index = i;
}

int capture_keep_decoded_view(capture_source *s, const AVFrame *frm, const capture_frame *f, capture_frame *view,
                              icv_err *err)
{
    capture_frame slot;
    if (!free_slot(s, f->index, &slot))
        return 1;
    int rc = capture_luma_copy(s, frm, &slot, err);
    if (rc)
        return rc;
    slot_filled(s, f->index);
    view_of(s, f->index, f, view);
    return 0;
}

int capture_keep_serve(const capture_source *s, long i, capture_frame *f, capture_frame *view)
{
    if (!capture_keep_has(s, i))
        return 0;
    if (view) {
        view_of(s, i, f, view);
        return 1;
    }
    size_t row = (size_t)s->info.width * (size_t)s->info.bytes_per_sample;
    const uint8_t *data = s->kept + (size_t)s->kept_slot[i] * s->kept_bytes;
    for (int y = 0; y < f->height; y++)
        memcpy((uint8_t *)f->data + (size_t)y * f->stride, data + (size_t)y * row, row);
    f->index = i;
    return 1;
}

void capture_keep_release(capture_source *s)
{
    if (s->kept_release)
        capture_keep_free(s);
}

void capture_keep_free(capture_source *s)
{
    free(s->kept);
    free(s->kept_slot);
    s->kept = NULL;
    s->kept_slot = NULL;
    s->n_kept = 0;
    s->kept_last = -1;
    s->kept_release = 0;
}

void capture_source_keep_stop(capture_source *s)
{
    s->keeping = 0;
    if (!s->n_kept)
        capture_keep_free(s);
}
