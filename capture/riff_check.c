/* riff_check.c: RIFF files (AVI, WAVE) checked before FFmpeg reads them (issue #20
 * item 8): its RIFF readers allocate each INFO tag at the size the chunk states, so an
 * 802-byte AVI whose INFO tag claimed 1.8 GB took 1.8 GB and 6 s (found by
 * fuzz_video; ffprobe does the same). Inside the header lists (hdrl, strl, odml,
 * INFO) a chunk stating more bytes than the file has left is refused. The media
 * lists (movi, rec) and the RIFF's own size are not checked: a recording cut short
 * states more than it holds, and FFmpeg reads what is there. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture_internal.h"

static uint32_t le32(const unsigned char *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }

static int header_list(const unsigned char *t)
{
    return !memcmp(t, "hdrl", 4) || !memcmp(t, "strl", 4) || !memcmp(t, "odml", 4) || !memcmp(t, "INFO", 4);
}

/* walks the chunks of [start, end) (end may lie past the file); inside a header list
 * (in_header) a chunk reaching past fsize is the answer: its offset in *bad_at and
 * size in *bad_size, returns 1 */
static int walk(FILE *f, int64_t start, int64_t end, int64_t fsize, int depth, int in_header, int64_t *bad_at,
                uint64_t *bad_size)
{
    int64_t pos = start;
    for (int chunks = 0; pos + 8 <= end && pos + 8 <= fsize && chunks < 10000; chunks++) {
        unsigned char h[12];
        if (fseeko(f, pos, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8)
            return 0;
        uint64_t size = le32(h + 4);
        if (!memcmp(h, "LIST", 4) && size >= 4 && fread(h + 8, 1, 4, f) == 4) {
            if (header_list(h + 8) && depth < 4 &&
                walk(f, pos + 12, pos + 8 + (int64_t)size, fsize, depth + 1, 1, bad_at, bad_size))
                return 1;
        } else if (in_header && (uint64_t)(pos + 8) + size > (uint64_t)fsize) {
            *bad_at = pos;
            *bad_size = size;
            return 1;
        }
        pos += 8 + (int64_t)size + (int64_t)(size & 1);
    }
    return 0;
}

int capture_riff_check(FILE *f, int64_t fsize, const char *path, icv_err *err)
{
    unsigned char h[12];
    if (fsize < 12 || fseeko(f, 0, SEEK_SET) != 0 || fread(h, 1, 12, f) != 12 || memcmp(h, "RIFF", 4))
        return 0;
    int64_t bad_at = 0;
    uint64_t bad_size = 0;
    if (walk(f, 12, 8 + (int64_t)le32(h + 4), fsize, 0, 0, &bad_at, &bad_size))
        return icv_err_set(err, ICV_EFORMAT,
                           "%s: damaged header: a chunk at byte %lld states %llu bytes, the file has %lld left; not "
                           "read",
                           path, (long long)bad_at, (unsigned long long)bad_size, (long long)(fsize - bad_at - 8));
    return 0;
}
