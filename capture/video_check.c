/* video_check.c: a video opened and its first and last frames decoded, for
 * `impactcv check`: an empty file, noise, an audio-only file (open
 * fails, naming why), a file cut short (its last frame cannot be decoded) or one
 * whose frames are lost is found before a long run, not as a tracking failure. */
#include <string.h>

#include "capture/capture.h"

int capture_video_check(const char *path, const capture_options *opt, capture_info *info, icv_err *err)
{
    capture_source *src = NULL;
    int rc = capture_source_open(&src, path, opt, err);
    if (rc)
        return rc;
    *info = *capture_source_info(src);
    capture_frame f = {0};
    rc = capture_frame_alloc(&f, info, err);
    if (!rc) {
        rc = capture_source_read(src, &f, err);
        if (rc == CAPTURE_EOF)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: no frame of %ld can be decoded", path, info->frames);
        else if (!rc && f.index != 0)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: truncated or corrupt stream: frames 0-%ld cannot be decoded",
                             path, f.index - 1);
    }
    long last = info->frames - 1;
    if (!rc && last > 0) {
        icv_err e2 = {0};
        int r2 = capture_source_seek(src, last, &e2);
        if (!r2)
            r2 = capture_source_read(src, &f, &e2);
        if (r2 || f.index != last)
            rc = icv_err_set(err, ICV_EFORMAT,
                             "%s: truncated or corrupt stream: the last frame (%ld of %ld) cannot be decoded (%s)",
                             path, last, info->frames, r2 ? e2.msg : "another frame came instead");
    }
    if (!rc) {
        const long *lost;
        size_t n;
        capture_source_lost(src, &lost, &n);
        if (n)
            rc = icv_err_set(err, ICV_EFORMAT, "%s: truncated or corrupt stream: %zu of %ld frames lost (from frame %ld)",
                             path, n, info->frames, lost[0]);
    }
    capture_frame_free(&f);
    capture_source_close(src);
    return rc;
}
