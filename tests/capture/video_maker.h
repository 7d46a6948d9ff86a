/* video_maker.h: test videos of known content, made at test time. Frame i shows a
 * 10-bit counter (Manchester-coded 16x16 block pairs in the top 32 rows, so the frame's
 * mean does not depend on the number) over a background of a chosen gray level with
 * light deterministic noise; the ffmpeg CLI encodes the raw gray frames. */
#ifndef ICV_TEST_VIDEO_MAKER_H
#define ICV_TEST_VIDEO_MAKER_H

#include <stddef.h>
#include <stdint.h>

#define VM_W 160
#define VM_H 120

/* Renders one 8-bit frame: counter code, background level (gray levels, rounded). */
void vm_render(uint8_t *img, int code, double level, unsigned seed);
/* The counter shown by a frame (8- or 16-bit samples), or -1 if unreadable. */
int vm_counter(const void *data, size_t stride, int bytes_per_sample);
/* Encodes n frames: `ffmpeg -f rawvideo -pix_fmt gray -s 160x120 -framerate RATE -i - ARGS OUT`.
 * code[i] (NULL: i) and level[i] (NULL: 100) give each frame. Returns 0 on success. */
int vm_encode(const char *out, const char *rate, const char *args, int n, const int *code, const double *level);
/* Writes a Phantom .cine file (gray, version 1 layout as FFmpeg's cine demuxer reads it)
 * with n counter frames at fps; bits 8, or 16 (12-bit values in 16-bit samples). */
int vm_write_cine(const char *out, int n, int fps, int bits);

#endif
