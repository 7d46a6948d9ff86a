/* test_zip_member.c: a video inside a zip archive (Tracker's .trz) read in place
 * (capture/zip_member.c): the same frames as the plain file; an archive without a
 * video, or with two, refused on one line naming what it holds. */
#include <stdio.h>
#include <string.h>
#include <zip.h>

#include "capture/capture.h"
#include "tests/harness.h"

/* a zip at path holding the files (name, contents path or NULL for a text) given */
static int make_zip(const char *path, const char *const *names, const char *const *files, int n)
{
    int ze;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    if (!z)
        return -1;
    for (int i = 0; i < n; i++) {
        zip_source_t *src = files[i] ? zip_source_file(z, files[i], 0, -1)
                                     : zip_source_buffer(z, "<trk/>", 6, 0);
        if (!src || zip_file_add(z, names[i], src, ZIP_FL_OVERWRITE) < 0) {
            zip_source_free(src);
            zip_discard(z);
            return -1;
        }
    }
    return zip_close(z);
}

/* a 12-frame clip of FFmpeg's test pattern (mp4, H.264) at path */
static int make_clip(const char *path)
{
    th_proc p;
    return th_run_sh(&p,
                     "ffmpeg -nostdin -v error -y -f lavfi -i testsrc=s=96x64:r=15 -frames:v 12 -pix_fmt yuv420p "
                     "-c:v libx264 '%s'",
                     path) == 0 ? 0 : (fprintf(stderr, "%s", p.err), 1);
}

TEST(test_zip_member_reads_the_archives_video_as_the_plain_file)
{
    /* the archive's one video (beside a .trk and a thumbnail, as in a .trz): every
       frame's pixels and time equal to the plain file's, exactly (the same bytes to the
       same decoder); probe names the member */
    char mp4[1024], trz[1024]; /* th_tmp's answer lasts until its next call */
    snprintf(mp4, sizeof mp4, "%s", th_tmp("clip.mp4"));
    snprintf(trz, sizeof trz, "%s", th_tmp("toss.trz"));
    ASSERT_EQ_INT(make_clip(mp4), 0);
    const char *names[] = {"toss_thumbnail.png", "videos/toss_clip.mp4", "toss.trk"};
    const char *files[] = {NULL, mp4, NULL};
    ASSERT_EQ_INT(make_zip(trz, names, files, 3), 0);
    capture_options opt = {.want_8bit = 1};
    capture_source *a = NULL, *b = NULL;
    icv_err err = {0};
    ASSERT(capture_source_open(&a, mp4, &opt, &err) == 0, "%s", err.msg);
    ASSERT(capture_source_open(&b, trz, &opt, &err) == 0, "%s", err.msg);
    const capture_info *ia = capture_source_info(a), *ib = capture_source_info(b);
    ASSERT_EQ_INT((int)ib->frames, 12);
    ASSERT_EQ_INT((int)ia->frames, (int)ib->frames);
    ASSERT_STR_CONTAINS(ib->member, "videos/toss_clip.mp4");
    ASSERT(ia->member[0] == 0, "a plain file named a member");
    capture_frame fa = {0}, fb = {0};
    ASSERT(capture_frame_alloc(&fa, ia, &err) == 0 && capture_frame_alloc(&fb, ib, &err) == 0, "%s", err.msg);
    int n = 0;
    while (capture_source_read(a, &fa, &err) == 0 && capture_source_read(b, &fb, &err) == 0) {
        ASSERT_EQ_INT((int)fa.index, (int)fb.index);
        ASSERT_NEAR(fa.time_s, fb.time_s, 0);
        for (int y = 0; y < fa.height; y++)
            ASSERT(!memcmp((const uint8_t *)fa.data + (size_t)y * fa.stride,
                           (const uint8_t *)fb.data + (size_t)y * fb.stride, (size_t)fa.width),
                   "frame %ld row %d differs", fa.index, y);
        n++;
    }
    ASSERT_EQ_INT(n, 12);
    /* and seeking inside the member */
    ASSERT(capture_source_seek(b, 7, &err) == 0, "%s", err.msg);
    ASSERT(capture_source_read(b, &fb, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT((int)fb.index, 7);
    capture_frame_free(&fa);
    capture_frame_free(&fb);
    capture_source_close(a);
    capture_source_close(b);
}

TEST(test_zip_member_without_a_video_or_with_two_is_refused_naming_them)
{
    char mp4[1024], none[1024], two[1024], cut[1024];
    snprintf(mp4, sizeof mp4, "%s", th_tmp("clip.mp4"));
    snprintf(none, sizeof none, "%s", th_tmp("none.trz"));
    snprintf(two, sizeof two, "%s", th_tmp("two.zip"));
    snprintf(cut, sizeof cut, "%s", th_tmp("cut.trz"));
    ASSERT_EQ_INT(make_clip(mp4), 0);
    const char *n1[] = {"toss.trk"}, *f1[] = {NULL};
    ASSERT_EQ_INT(make_zip(none, n1, f1, 1), 0);
    const char *n2[] = {"a.mp4", "b.mov"}, *f2[] = {mp4, mp4};
    ASSERT_EQ_INT(make_zip(two, n2, f2, 2), 0);
    capture_source *s = NULL;
    icv_err err = {0};
    ASSERT(capture_source_open(&s, none, NULL, &err) == ICV_EFORMAT, "an archive without a video opened");
    ASSERT_STR_CONTAINS(err.msg, "none.trz: a zip archive with no video inside (it holds: toss.trk)");
    ASSERT(capture_source_open(&s, two, NULL, &err) == ICV_EFORMAT, "an archive of two videos opened");
    ASSERT_STR_CONTAINS(err.msg, "two.zip: the zip archive holds 2 videos (a.mp4, b.mov)");
    /* a damaged archive: the zip's magic, then nothing */
    FILE *f = fopen(cut, "wb");
    ASSERT_TRUE(f != NULL);
    fwrite("PK\3\4\0\0", 1, 6, f);
    fclose(f);
    ASSERT(capture_source_open(&s, cut, NULL, &err) == ICV_EFORMAT, "a damaged archive opened");
    ASSERT_STR_CONTAINS(err.msg, "cut.trz: a damaged zip archive (");
}
