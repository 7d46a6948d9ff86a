/* test_synth_encode.c: synth's H.264 bytes depend on the frames only, not on what the
 * heap held before (libx264's MB-tree reads memory it never wrote: synth/encode.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "synth/synth_internal.h"
#include "tests/harness.h"

enum { CW = 160, CH = 120, CN = 30 };

/* frame n of a small clip: a bright disc moving over a textured ramp, with noise */
static void clip_frame(uint8_t *g, int n, uint32_t *s)
{
    double cx = 20 + 3.0 * n, cy = 30 + 1.5 * n;
    for (int y = 0; y < CH; y++)
        for (int x = 0; x < CW; x++) {
            int v = 60 + ((x / 8 + y / 8) & 1) * 40 + (int)(0.3 * x);
            if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < 100)
                v = 230;
            *s = *s * 1664525u + 1013904223u;
            v += (int)(*s >> 29) - 4;
            g[(size_t)y * CW + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
}

/* encodes the clip to name with freshly allocated memory filled with fill ^ 0xff (glibc's
 * M_PERTURB; 0: untouched) while the encoder opens; returns the file's bytes, *len */
static unsigned char *encode_clip(const char *name, int fill, size_t *len)
{
    static uint8_t g[CW * CH];
    const char *path = th_tmp(name);
    synth_encoder *e = NULL;
    icv_err err = {0};
    uint32_t s = 1;
#if defined(__GLIBC__) && defined(M_PERTURB)
    mallopt(M_PERTURB, fill);
#else
    (void)fill;
#endif
    int rc = synth_encoder_open(path, SYNTH_CODEC_H264, CW, CH, 500, 16, "veryfast", 0, &e, &err);
    for (int n = 0; n < CN && !rc; n++) {
        clip_frame(g, n, &s);
        rc = synth_encoder_write(e, g, &err);
    }
    if (!rc)
        rc = synth_encoder_close(e, &err);
    else if (e)
        synth_encoder_abort(e);
#if defined(__GLIBC__) && defined(M_PERTURB)
    mallopt(M_PERTURB, 0);
#endif
    if (rc)
        return NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    unsigned char *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, 1 << 20, fp) : 0;
    fclose(fp);
    return buf;
}

TEST(test_synth_encoder_bytes_do_not_depend_on_the_heaps_leftovers)
{
    /* without encode.c's zero fill, 0x55 and 0xaa leftovers gave three different
     * files (libx264 0.164); the bytes must be equal exactly: a run must repeat */
    size_t n0 = 0, n1 = 0, n2 = 0;
    unsigned char *a = encode_clip("clean.mp4", 0, &n0);
    unsigned char *b = encode_clip("dirty55.mp4", 0x55, &n1);
    unsigned char *c = encode_clip("dirtyaa.mp4", 0xaa, &n2);
    int ok = a && b && c;
    int same_b = ok && n0 == n1 && memcmp(a, b, n0) == 0, same_c = ok && n0 == n2 && memcmp(a, c, n0) == 0;
    free(a);
    free(b);
    free(c);
    ASSERT(ok, "encoding failed");
    ASSERT(n0 > 1000 && n0 < (1 << 20), "clip of %zu bytes", n0);
    ASSERT(same_b, "0x55 leftovers changed the file (%zu vs %zu bytes)", n0, n1);
    ASSERT(same_c, "0xaa leftovers changed the file (%zu vs %zu bytes)", n0, n2);
}
