/* test_rotation_tag.c: a clip whose stream carries a display matrix (a phone's rotate
 * tag) is delivered turned as FFmpeg's own player turns it, in every frame and after a
 * seek; probe says so; a tag that cannot be applied is one clear error. The reference is
 * the ffmpeg CLI's autorotated decode of the same file, so the test checks the direction
 * of the turn, not only the swapped size. */
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/capture/video_maker.h"
#include "tests/harness.h"

/* the Y plane of frame `frame` of path as the ffmpeg CLI shows it (autorotate on) */
static uint8_t *ffmpeg_luma(const char *path, int frame, int w, int h)
{
    char raw[1024]; /* th_tmp's buffer is reused by the next call */
    snprintf(raw, sizeof raw, "%s", th_tmp("ref.yuv"));
    th_proc p;
    if (th_run_sh(&p,
                  "ffmpeg -v error -y -i '%s' -vf \"select=eq(n\\,%d)\" -frames:v 1 -f rawvideo -pix_fmt yuv420p "
                  "'%s'",
                  path, frame, raw) != 0)
        return NULL;
    FILE *f = fopen(raw, "rb");
    if (!f)
        return NULL;
    uint8_t *y = malloc((size_t)w * (size_t)h);
    size_t got = y ? fread(y, 1, (size_t)w * (size_t)h, f) : 0;
    fclose(f);
    if (got != (size_t)w * (size_t)h) {
        free(y);
        return NULL;
    }
    return y;
}

/* encodes 8 counter frames as H.264 (lossless), then tags the stream: rotate=deg */
static int tagged_clip(const char *path, int deg)
{
    char plain[1024];
    snprintf(plain, sizeof plain, "%s", th_tmp("plain.mp4"));
    if (vm_encode(plain, "30", "-c:v libx264 -qp 0 -pix_fmt yuv420p -g 4", 8, NULL, NULL))
        return -1;
    th_proc p;
    return th_run_sh(&p, "ffmpeg -v error -y -i '%s' -c copy -metadata:s:v:0 rotate=%d '%s'", plain, deg, path);
}

static int frames_match(capture_source *src, const char *path, int n, int w, int h)
{
    capture_frame f;
    icv_err err = {0};
    if (capture_frame_alloc(&f, capture_source_info(src), &err))
        return 0;
    uint8_t *ref = ffmpeg_luma(path, n, w, h);
    int ok = ref && capture_source_seek(src, n, &err) == 0 && capture_source_read(src, &f, &err) == 0 &&
             f.index == n && f.width == w && f.height == h;
    for (int y = 0; ok && y < h; y++)
        ok = memcmp((uint8_t *)f.data + (size_t)y * f.stride, ref + (size_t)y * (size_t)w, (size_t)w) == 0;
    free(ref);
    capture_frame_free(&f);
    return ok;
}

TEST(test_rotation_tag_turns_frames_as_ffmpeg_player_does)
{
    static const int degs[] = {90, 180, 270};
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s", th_tmp(degs[i] == 90 ? "r90.mp4" : degs[i] == 180 ? "r180.mp4" : "r270.mp4"));
        ASSERT_EQ_INT(tagged_clip(path, degs[i]), 0);
        capture_source *src = NULL;
        capture_options opt = {0};
        icv_err err = {0};
        ASSERT(capture_source_open(&src, path, &opt, &err) == 0, "%s", err.msg);
        const capture_info *in = capture_source_info(src);
        int quarter = degs[i] != 180;
        int w = quarter ? VM_H : VM_W, h = quarter ? VM_W : VM_H;
        /* the tag's angle is the player's (the CLI's) turn: rotate=90 is one way or the
         * other depending on FFmpeg's convention; the size and the pixels decide */
        ASSERT(in->width == w && in->height == h, "rotate=%d: %dx%d delivered, %dx%d expected", degs[i], in->width,
               in->height, w, h);
        ASSERT(in->rotation_deg == 90 || in->rotation_deg == 180 || in->rotation_deg == 270,
               "rotate=%d: rotation_deg %d", degs[i], in->rotation_deg);
        /* exact: the same decoder, the same turn (a frame read in order, and after seeks) */
        ASSERT(frames_match(src, path, 0, w, h), "rotate=%d: frame 0 differs from ffmpeg's autorotated frame", degs[i]);
        ASSERT(frames_match(src, path, 6, w, h), "rotate=%d: frame 6 (after a seek) differs", degs[i]);
        ASSERT(frames_match(src, path, 2, w, h), "rotate=%d: frame 2 (seek back) differs", degs[i]);
        capture_source_close(src);

        th_proc p;
        int st = th_run_cli(&p, "probe '%s'", path);
        ASSERT(st == 0, "probe status %d: %s", st, p.err);
        ASSERT_STR_CONTAINS(p.out, "rotation tag turns each picture");
    }
}

TEST(test_rotation_tag_untagged_clip_is_not_turned)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("plain0.mp4"));
    ASSERT_EQ_INT(vm_encode(path, "30", "-c:v libx264 -qp 0 -pix_fmt yuv420p", 4, NULL, NULL), 0);
    capture_source *src = NULL;
    capture_options opt = {0};
    icv_err err = {0};
    ASSERT(capture_source_open(&src, path, &opt, &err) == 0, "%s", err.msg);
    const capture_info *in = capture_source_info(src);
    ASSERT(in->rotation_deg == 0 && in->width == VM_W && in->height == VM_H, "rotation %d, %dx%d", in->rotation_deg,
           in->width, in->height);
    ASSERT(frames_match(src, path, 1, VM_W, VM_H), "frame 1 differs from ffmpeg's");
    capture_source_close(src);
}

TEST(test_rotation_tag_odd_angle_is_one_clear_error)
{
    char plain[1024], path[1024];
    snprintf(plain, sizeof plain, "%s", th_tmp("plain45.mp4"));
    snprintf(path, sizeof path, "%s", th_tmp("r45.mp4"));
    ASSERT_EQ_INT(vm_encode(plain, "30", "-c:v libx264 -qp 0 -pix_fmt yuv420p", 4, NULL, NULL), 0);
    th_proc p;
    ASSERT_EQ_INT(th_run_sh(&p, "ffmpeg -v error -y -i '%s' -c copy -metadata:s:v:0 rotate=45 '%s'", plain, path), 0);
    int st = th_run_cli(&p, "probe '%s'", path);
    ASSERT(st != 0, "a 45-degree tag was accepted:\n%s", p.out);
    ASSERT_STR_CONTAINS(p.err, "display matrix turns the picture by");
    ASSERT_STR_CONTAINS(p.err, "r45.mp4");
}
