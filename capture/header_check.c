/* header_check.c: an ISO base media file's (mp4, mov, 3gp, m4v) sample counts
 * checked against the file's size before FFmpeg reads it: the
 * demuxer reserves an index entry per sample the header states, so a 1.5 KB file
 * whose stsz claims 3.9 M frames took 130 MB and a second. A frame takes at least a
 * byte of the file; a header claiming more samples than the file has bytes is
 * refused. RIFF files (AVI, WAVE): riff_check.c. Other containers are left to FFmpeg. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture_internal.h"

static uint32_t be32(const unsigned char *b) { return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]; }

static int is_container(const char *t)
{
    return !memcmp(t, "moov", 4) || !memcmp(t, "trak", 4) || !memcmp(t, "mdia", 4) || !memcmp(t, "minf", 4) ||
           !memcmp(t, "stbl", 4);
}

/* walks boxes [start, end) of f, at most depth 6; sets *claimed to the largest stsz
 * sample count found */
static void walk(FILE *f, int64_t start, int64_t end, int depth, uint64_t *claimed)
{
    int64_t pos = start;
    for (int boxes = 0; pos + 8 <= end && boxes < 10000; boxes++) {
        unsigned char h[16];
        if (fseeko(f, pos, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8)
            return;
        uint64_t size = be32(h);
        int64_t hdr = 8;
        if (size == 1) {
            if (fread(h + 8, 1, 8, f) != 8)
                return;
            size = (uint64_t)be32(h + 8) << 32 | be32(h + 12);
            hdr = 16;
        } else if (size == 0) {
            size = (uint64_t)(end - pos);
        }
        if (size < (uint64_t)hdr || size > (uint64_t)(end - pos))
            return; /* a damaged box: FFmpeg says what it makes of it */
        const char *type = (const char *)h + 4;
        if (is_container(type) && depth < 6) {
            walk(f, pos + hdr, pos + (int64_t)size, depth + 1, claimed);
        } else if (!memcmp(type, "stsz", 4) && size >= (uint64_t)hdr + 12) {
            unsigned char b[12]; /* version and flags, sample_size, sample_count */
            if (fseeko(f, pos + hdr, SEEK_SET) == 0 && fread(b, 1, 12, f) == 12 && be32(b + 8) > *claimed)
                *claimed = be32(b + 8);
        }
        pos += (int64_t)size;
    }
}

int capture_header_check(const char *path, icv_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0; /* opening is capture_video_open's to report */
    int rc = capture_header_check_file(f, path, err);
    fclose(f);
    return rc;
}

int capture_header_check_file(FILE *f, const char *path, icv_err *err)
{
    unsigned char h[8];
    int64_t fsize = -1;
    if (fseeko(f, 0, SEEK_END) == 0)
        fsize = ftello(f);
    int iso = fsize > 8 && fseeko(f, 0, SEEK_SET) == 0 && fread(h, 1, 8, f) == 8 &&
              (!memcmp(h + 4, "ftyp", 4) || !memcmp(h + 4, "moov", 4) || !memcmp(h + 4, "mdat", 4) ||
               !memcmp(h + 4, "wide", 4) || !memcmp(h + 4, "free", 4) || !memcmp(h + 4, "skip", 4));
    uint64_t claimed = 0;
    if (iso)
        walk(f, 0, fsize, 0, &claimed);
    int rc = iso ? 0 : capture_riff_check(f, fsize, path, err);
    if (rc)
        return rc;
    if (iso && claimed > (uint64_t)fsize)
        return icv_err_set(err, ICV_EFORMAT,
                           "%s: damaged header: it states %llu frames in a file of %lld bytes (a frame takes at least "
                           "one); not read",
                           path, (unsigned long long)claimed, (long long)fsize);
    return 0;
}
