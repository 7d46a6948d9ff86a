/* video_maker.c: see video_maker.h. */
#include "tests/capture/video_maker.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VM_HI 235
#define VM_LO 16

void vm_render(uint8_t *img, int code, double level, unsigned seed)
{
    unsigned s = seed * 2654435761u + 12345u;
    for (int y = 0; y < VM_H; y++)
        for (int x = 0; x < VM_W; x++) {
            uint8_t v;
            if (y < 32) {
                int bit = (y / 16) * 5 + x / 32;
                int on = (code >> bit) & 1, left = (x % 32) < 16;
                v = (uint8_t)((on == left) ? VM_HI : VM_LO);
            } else {
                s = s * 1103515245u + 12345u;
                double noise = (double)((s >> 16) % 5) - 2.0; /* uniform -2..2, mean 0 */
                double g = floor(level + noise + 0.5);
                v = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
            }
            img[y * VM_W + x] = v;
        }
}

static double block_mean(const void *data, size_t stride, int bps, int x0, int y0)
{
    double sum = 0;
    for (int y = y0 + 4; y < y0 + 12; y++)
        for (int x = x0 + 4; x < x0 + 12; x++) {
            const uint8_t *row = (const uint8_t *)data + (size_t)y * stride;
            sum += bps == 1 ? row[x] : ((const uint16_t *)row)[x];
        }
    return sum / 64.0;
}

int vm_counter(const void *data, size_t stride, int bps)
{
    int code = 0;
    for (int bit = 0; bit < 10; bit++) {
        int x0 = (bit % 5) * 32, y0 = (bit / 5) * 16;
        double l = block_mean(data, stride, bps, x0, y0), r = block_mean(data, stride, bps, x0 + 16, y0);
        /* relative contrast, so any bit depth (8, 10, 16 significant bits) reads */
        if (fabs(l - r) < 0.25 * (l > r ? l : r))
            return -1;
        if (l > r)
            code |= 1 << bit;
    }
    return code;
}

int vm_encode(const char *out, const char *rate, const char *args, int n, const int *code, const double *level)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -v error -y -f rawvideo -pix_fmt gray -s %dx%d -framerate %s -i - %s '%s'", VM_W,
             VM_H, rate, args, out);
    FILE *p = popen(cmd, "w");
    if (!p)
        return -1;
    uint8_t *img = malloc(VM_W * VM_H);
    int ok = img != NULL;
    for (int i = 0; ok && i < n; i++) {
        vm_render(img, code ? code[i] : i, level ? level[i] : 100.0, (unsigned)(code ? code[i] : i));
        ok = fwrite(img, 1, VM_W * VM_H, p) == VM_W * VM_H;
    }
    free(img);
    int st = pclose(p);
    return ok && st == 0 ? 0 : -1;
}

static void put16(uint8_t *b, size_t off, unsigned v)
{
    b[off] = (uint8_t)v;
    b[off + 1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *b, size_t off, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *b, size_t off, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}

/* Layout (Vision Research's Cine file format, as libavformat/cinedec.c reads it):
 * CINEFILEHEADER (44 bytes) | BITMAPINFOHEADER (40) | SETUP (0x163C bytes: mark "ST" at
 * 140, length at 142, bFlipV at 760, FrameRate at 768) | image offsets (u64 each) |
 * per image: annotation size (u32, 8), image size (u32), pixels (bottom-up rows). */
int vm_write_cine(const char *out, int n, int fps, int bits)
{
    const size_t bps = bits > 8 ? 2 : 1;
    const size_t off_bih = 44, off_setup = 84, setup_len = 0x163C, off_ofs = off_setup + setup_len;
    const size_t off_img = off_ofs + 8 * (size_t)n, img_bytes = VM_W * VM_H * bps, rec = 8 + img_bytes;
    size_t total = off_img + rec * (size_t)n;
    uint8_t *b = calloc(1, total), *img = malloc(VM_W * VM_H);
    if (!b || !img) {
        free(b);
        free(img);
        return -1;
    }
    b[0] = 'C';
    b[1] = 'I';
    put16(b, 2, 44);                  /* header size */
    put16(b, 4, 0);                   /* compression: gray */
    put16(b, 6, 1);                   /* version */
    put32(b, 16, (uint32_t)n);        /* total image count */
    put32(b, 20, (uint32_t)n);        /* image count */
    put32(b, 24, (uint32_t)off_bih);  /* OffImageHeader */
    put32(b, 28, (uint32_t)off_setup);/* OffSetup */
    put32(b, 32, (uint32_t)off_ofs);  /* OffImageOffsets */
    put32(b, off_bih + 0, 40);
    put32(b, off_bih + 4, VM_W);
    put32(b, off_bih + 8, VM_H);
    put16(b, off_bih + 12, 1);        /* planes */
    put16(b, off_bih + 14, (unsigned)(8 * bps)); /* bits per pixel */
    put32(b, off_bih + 16, 0);        /* BI_RGB */
    put32(b, off_bih + 20, (uint32_t)img_bytes);
    put16(b, off_setup + 140, 0x5453);
    put16(b, off_setup + 142, (unsigned)setup_len);
    put32(b, off_setup + 760, 0);     /* bFlipV = 0: rows stored bottom-up */
    put32(b, off_setup + 768, (uint32_t)fps);
    for (int i = 0; i < n; i++) {
        size_t at = off_img + rec * (size_t)i;
        put64(b, off_ofs + 8 * (size_t)i, at);
        put32(b, at, 8);
        put32(b, at + 4, (uint32_t)img_bytes);
        vm_render(img, i, 100.0, (unsigned)i);
        for (int y = 0; y < VM_H; y++) {
            uint8_t *row = b + at + 8 + (size_t)(VM_H - 1 - y) * VM_W * bps;
            for (int x = 0; x < VM_W; x++) {
                unsigned v = img[y * VM_W + x];
                if (bps == 1)
                    row[x] = (uint8_t)v;
                else /* a 12-bit sensor value in 16 bits, little-endian */
                    put16(row, 2 * (size_t)x, v << 4);
            }
        }
    }
    FILE *fp = fopen(out, "wb");
    int ok = fp && fwrite(b, 1, total, fp) == total;
    if (fp && fclose(fp))
        ok = 0;
    free(b);
    free(img);
    return ok ? 0 : -1;
}
