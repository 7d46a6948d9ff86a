/* calibration_video.c: `impactcv calib` on videos: each clip decoded by capture/ (8-bit
 * gray, seek then read into one buffer) and handed to calib/'s view sampling. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "capture/capture.h"
#include "job/job.h"

/* One camera's clip: the source and its frame buffer. */
typedef struct {
    capture_source *src;
    capture_frame f;
    calib_clip clip;
} video_clip;

static int video_frame(void *ctx, long n, calib_image *img, icv_err *err)
{
    video_clip *c = ctx;
    int rc = capture_source_seek(c->src, n, err);
    if (!rc)
        rc = capture_source_read(c->src, &c->f, err);
    if (!rc && c->f.index != n) /* the decoder skipped n */
        rc = icv_err_set(err, ICV_EFORMAT, "%s: frame %ld not decodable", c->clip.name, n);
    if (!rc)
        *img = (calib_image){c->f.width, c->f.height, (int)c->f.stride, c->f.data};
    return rc;
}

static void video_close(video_clip *c)
{
    capture_frame_free(&c->f);
    capture_source_close(c->src);
    c->src = NULL;
}

static int video_open(video_clip *c, const char *path, icv_err *err)
{
    memset(c, 0, sizeof *c);
    capture_options o = {0};
    o.want_8bit = 1; /* the board detector works on 8-bit gray; 16-bit sources are shifted */
    int rc = capture_source_open(&c->src, path, &o, err);
    if (rc)
        return rc;
    const capture_info *info = capture_source_info(c->src);
    rc = capture_frame_alloc(&c->f, info, err);
    if (!rc && c->f.bytes_per_sample != 1)
        rc = icv_err_set(err, ICV_EFORMAT, "%s: frames are not delivered as 8-bit gray", path);
    if (rc) {
        video_close(c);
        return rc;
    }
    c->clip = (calib_clip){path, info->width, info->height, (long)info->frames, c, video_frame};
    return 0;
}

int job_calib_camera_from_video(const char *path, const calib_board *b, const calib_options *opt, calib_camera *cam,
                                icv_err *err)
{
    video_clip v;
    memset(cam, 0, sizeof *cam);
    int rc = video_open(&v, path, err);
    if (rc)
        return rc;
    rc = calib_camera_from_clip(&v.clip, b, opt, cam, err);
    video_close(&v);
    return rc;
}

int job_calib_stereo_from_videos(const char *path1, const char *path2, const calib_board *b, const calib_options *opt,
                                 calib_stereo *st, icv_err *err)
{
    video_clip v[2];
    memset(st, 0, sizeof *st);
    int rc = video_open(&v[0], path1, err);
    if (rc)
        return rc;
    rc = video_open(&v[1], path2, err);
    if (rc) {
        video_close(&v[0]);
        return rc;
    }
    rc = calib_stereo_from_clips(&v[0].clip, &v[1].clip, b, opt, st, err);
    video_close(&v[0]);
    video_close(&v[1]);
    return rc;
}
