/* riff_check.c: RIFF files (AVI, WAVE) checked before FFmpeg reads them. Its RIFF
 * readers allocate a tag at the size its chunk states, and its AVI reader enters every
 * LIST but the media ones, whatever the list's type, and reads tags wherever they
 * stand: so every non-media list is walked and any chunk stating more bytes than the
 * file has left is refused. The media (movi, rec, idx1, WAVE's data) and the RIFF's
 * own size are not checked: a recording cut short states more than it holds, and
 * FFmpeg reads what is there. Findings: docs/capture.md. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture_internal.h"

static uint32_t le32(const unsigned char *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }

/* what a recording cut short holds cut: the media lists, AVI's index, WAVE's samples */
static int media_list(const unsigned char *t) { return !memcmp(t, "movi", 4) || !memcmp(t, "rec ", 4); }
static int media_chunk(const unsigned char *t) { return !memcmp(t, "idx1", 4) || !memcmp(t, "data", 4); }

/* walks the chunks of [start, end) (end may lie past the file), entering every list
 * but the media ones as FFmpeg does; a chunk reaching past fsize is the answer: its
 * offset in *bad_at and size in *bad_size, returns 1 */
static int walk(FILE *f, int64_t start, int64_t end, int64_t fsize, int depth, int64_t *bad_at, uint64_t *bad_size)
{
    int64_t pos = start;
    for (int chunks = 0; pos + 8 <= end && pos + 8 <= fsize && chunks < 10000; chunks++) {
        unsigned char h[12];
        if (fseeko(f, pos, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8)
            return 0;
        uint64_t size = le32(h + 4);
        if (!memcmp(h, "LIST", 4) && size >= 4 && fread(h + 8, 1, 4, f) == 4) {
            if (!media_list(h + 8) && depth < 16 &&
                walk(f, pos + 12, pos + 8 + (int64_t)size, fsize, depth + 1, bad_at, bad_size))
                return 1;
        } else if (!media_chunk(h) && (uint64_t)(pos + 8) + size > (uint64_t)fsize) {
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
    if (walk(f, 12, 8 + (int64_t)le32(h + 4), fsize, 0, &bad_at, &bad_size))
        return icv_err_set(err, ICV_EFORMAT,
                           "%s: damaged header: a chunk at byte %lld states %llu bytes, the file has %lld left; not "
                           "read",
                           path, (long long)bad_at, (unsigned long long)bad_size, (long long)(fsize - bad_at - 8));
    return 0;
}
