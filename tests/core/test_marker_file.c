/* test_marker_file.c: C3D and TRC marker files (core/marker_file.h, issue #20).
 *
 * Files by other writers in tests/data/interop_mocap/ (see its README: ezc3d's test
 * files, MIT; the first row of OpenSim's subject01_static.trc, Apache-2.0): the
 * counts and rates are those ezc3d's own tests assert (test_ezc3d.cpp) and the
 * files' headers state; the first coordinates were decoded independently with
 * Python's struct from the C3D User Guide's layout (float32, Intel order, from
 * block DATA_START) and copied from the TRC's text. Tolerances: the C3D values are
 * compared with the same float32 values decoded (1e-7 m: only the mm-to-m product
 * rounds); the TRC's 6-decimal text to 1e-12 m.
 *
 * Files made here, always run: a C3D in each processor's byte order (Intel, DEC's
 * VAX floats, MIPS big-endian), with integer data times SCALE and analog samples
 * between the frames, and a TRC in cm with a NaN, an empty marker and a row cut
 * short; the values written are read back. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/marker_file.h"
#include "tests/harness.h"

static int label_index(const icv_marker_file *m, const char *label)
{
    for (int k = 0; k < m->n_markers; k++)
        if (!strcmp(m->labels[k], label))
            return k;
    return -1;
}

TEST(test_marker_file_ezc3d_optotrak_c3d)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/tests/data/interop_mocap/ezc3d_Optotrak.c3d", th_root());
    icv_marker_file m;
    icv_err err = {0};
    ASSERT(icv_marker_file_read(p, &m, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(m.format, ICV_MARKERS_C3D);
    /* ezc3d: POINT:USED 54, POINT:FRAMES 29, RATE 30 (the header's last frame,
       1149, is wrong: the file holds 29 frames) */
    ASSERT_EQ_INT(m.n_markers, 54);
    ASSERT_EQ_INT(m.n_frames, 29);
    ASSERT_NEAR(m.rate_hz, 30, 0);
    ASSERT_NEAR(m.t[28], 28.0 / 30, 1e-12);
    ASSERT_EQ_INT(label_index(&m, "Marker_1"), 0);
    ASSERT_NEAR(m.pos[0].x, 326.3137512207031e-3, 1e-7);
    ASSERT_NEAR(m.pos[0].y, 328.6311340332031e-3, 1e-7);
    ASSERT_NEAR(m.pos[0].z, -366.1706237792969e-3, 1e-7);
    ASSERT_NEAR(m.pos[1].z, -424.7019958496094e-3, 1e-7);
    icv_marker_file_free(&m);
}

TEST(test_marker_file_ezc3d_vicon_and_qualisys_c3d)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/tests/data/interop_mocap/ezc3d_Vicon.c3d", th_root());
    icv_marker_file m;
    icv_err err = {0};
    ASSERT(icv_marker_file_read(p, &m, &err) == 0, "%s", err.msg);
    /* header: 51 points, frames 1-580, 100 Hz, 760 analog samples per frame between
       the frames' points (a reader that ignores them reads garbage from frame 2 on) */
    ASSERT_EQ_INT(m.n_markers, 51);
    ASSERT_EQ_INT(m.n_frames, 580);
    ASSERT_NEAR(m.rate_hz, 100, 1e-4);
    ASSERT_STR_CONTAINS(m.units, "mm");
    ASSERT_EQ_INT(label_index(&m, "boite:gauche_ext"), 0);
    ASSERT_EQ_INT(label_index(&m, "Daphnee:LATH"), 50);
    ASSERT(m.seen[0] && m.seen[1], "first points missing");
    ASSERT_NEAR(m.pos[0].x, 44.16278839111328e-3, 1e-7);
    ASSERT_NEAR(m.pos[0].y, -276.8619384765625e-3, 1e-7);
    ASSERT_NEAR(m.pos[1].z, 676.5745239257812e-3, 1e-7);
    /* a marker moves smoothly from frame to frame: at 100 Hz no seen point jumps
       more than 5 cm (a stride error would jump by metres) */
    for (int i = 1; i < m.n_frames; i++)
        for (int k = 0; k < m.n_markers; k++) {
            size_t a = (size_t)(i - 1) * 51 + k, b = (size_t)i * 51 + k;
            if (m.seen[a] && m.seen[b])
                ASSERT(icv_v3_norm(icv_v3_sub(m.pos[a], m.pos[b])) < 0.05, "frame %d marker %d jumps", i, k);
        }
    icv_marker_file_free(&m);
    snprintf(p, sizeof p, "%s/tests/data/interop_mocap/ezc3d_Qualisys.c3d", th_root());
    ASSERT(icv_marker_file_read(p, &m, &err) == 0, "%s", err.msg);
    /* header: 55 points, frames 705-1044 (340), 200 Hz, 690 analog samples a frame */
    ASSERT_EQ_INT(m.n_markers, 55);
    ASSERT_EQ_INT(m.n_frames, 340);
    ASSERT_EQ_INT(m.first_frame, 705);
    ASSERT_EQ_INT(label_index(&m, "L_IAS"), 0);
    ASSERT_NEAR(m.rate_hz, 200, 1e-4);
    ASSERT_NEAR(m.pos[0].x, -220.12261962890625e-3, 1e-7);
    ASSERT_NEAR(m.pos[1].y, 237.0687713623047e-3, 1e-7);
    icv_marker_file_free(&m);
}

TEST(test_marker_file_opensim_trc)
{
    /* the first 7 lines of OpenSim's Applications/Scale/tests/resources/
       subject01_static.trc (5 header lines, a blank line, frame 1), as written */
    char p[1024];
    snprintf(p, sizeof p, "%s/tests/data/interop_mocap/opensim_subject01_static_first_row.trc", th_root());
    icv_marker_file m;
    icv_err err = {0};
    ASSERT(icv_marker_file_read(p, &m, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(m.format, ICV_MARKERS_TRC);
    /* header: DataRate 60, NumMarkers 49, Units mm; one row here */
    ASSERT_EQ_INT(m.n_markers, 49);
    ASSERT_EQ_INT(m.n_frames, 1);
    ASSERT_NEAR(m.rate_hz, 60, 0);
    ASSERT_NEAR(m.unit_m, 1e-3, 0);
    ASSERT_EQ_INT(label_index(&m, "R.ASIS"), 0);
    ASSERT_EQ_INT(label_index(&m, "Top.Head"), 48);
    /* "1 0.000000 608.664310 1072.713130 157.442150 ... 593.032100 1814.390140 32.174850" */
    ASSERT_NEAR(m.pos[0].x, 0.608664310, 1e-12);
    ASSERT_NEAR(m.pos[0].y, 1.072713130, 1e-12);
    ASSERT_NEAR(m.pos[0].z, 0.157442150, 1e-12);
    ASSERT_NEAR(m.pos[48].x, 0.593032100, 1e-12);
    ASSERT_NEAR(m.pos[48].y, 1.814390140, 1e-12);
    ASSERT_NEAR(m.pos[48].z, 0.032174850, 1e-12);
    ASSERT(m.seen[48], "Top.Head unseen");
    icv_marker_file_free(&m);
}

/* ---- files made here --------------------------------------------------- */

typedef struct {
    unsigned char d[8192];
    size_t n;
    int proc;
} c3dw;

static void w16(c3dw *w, size_t o, int v)
{
    uint16_t u = (uint16_t)(int16_t)v;
    if (w->proc == 86)
        w->d[o] = (unsigned char)(u >> 8), w->d[o + 1] = (unsigned char)u;
    else
        w->d[o] = (unsigned char)u, w->d[o + 1] = (unsigned char)(u >> 8);
}
static void wf(c3dw *w, size_t o, float f)
{
    if (w->proc == 85)
        f *= 4; /* VAX F: 4 times the IEEE value, 16-bit halves swapped */
    uint32_t u;
    memcpy(&u, &f, 4);
    unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                          (unsigned char)(u >> 24)};
    if (w->proc == 86)
        w->d[o] = b[3], w->d[o + 1] = b[2], w->d[o + 2] = b[1], w->d[o + 3] = b[0];
    else if (w->proc == 85)
        w->d[o] = b[2], w->d[o + 1] = b[3], w->d[o + 2] = b[0], w->d[o + 3] = b[1];
    else
        memcpy(w->d + o, b, 4);
}

/* 2 points, 3 frames from frame 10, 50 Hz, `analog` samples a frame, unit "cm";
   float data (SCALE -1) or int16 times 0.5; point 1 invalid in frame 1 */
static void make_c3d(const char *path, int proc, int integer, int analog)
{
    c3dw w = {{0}, 0, proc};
    float scale = integer ? 0.5f : -1.0f;
    w.d[0] = 2, w.d[1] = 0x50;
    w16(&w, 2, 2), w16(&w, 4, analog), w16(&w, 6, 10), w16(&w, 8, 12);
    wf(&w, 12, scale), w16(&w, 16, 3), wf(&w, 20, 50);
    size_t q = 512; /* the parameter block: head, group POINT, RATE, UNITS */
    w.d[q + 2] = 1, w.d[q + 3] = (unsigned char)proc;
    q += 4;
    w.d[q] = 5, w.d[q + 1] = (unsigned char)-1, memcpy(w.d + q + 2, "POINT", 5), w16(&w, q + 7, 3), w.d[q + 9] = 0;
    q += 10;
    w.d[q] = 4, w.d[q + 1] = 1, memcpy(w.d + q + 2, "RATE", 4);
    w16(&w, q + 6, 2 + 2 + 4 + 1), w.d[q + 8] = 4, w.d[q + 9] = 0, wf(&w, q + 10, 50), w.d[q + 14] = 0;
    q += 15;
    w.d[q] = 5, w.d[q + 1] = 1, memcpy(w.d + q + 2, "UNITS", 5);
    w16(&w, q + 7, 0), w.d[q + 9] = (unsigned char)-1, w.d[q + 10] = 1, w.d[q + 11] = 2, memcpy(w.d + q + 12, "cm", 2);
    size_t o = 1024, word = integer ? 2 : 4;
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 2; k++) {
            double v[4] = {10 * i + k + 1, -(10 * i + k + 2), 10 * i + k + 3, (k == 1 && i == 1) ? -1 : 2};
            for (int a = 0; a < 4; a++) {
                if (integer)
                    w16(&w, o, (int)lround(a < 3 ? v[a] / scale : v[a]));
                else
                    wf(&w, o, (float)v[a]);
                o += word;
            }
        }
        for (int a = 0; a < analog; a++, o += word)
            integer ? w16(&w, o, 12345) : wf(&w, o, 9999.0f);
    }
    w.n = (o + 511) / 512 * 512;
    FILE *f = fopen(path, "wb");
    fwrite(w.d, 1, w.n, f);
    fclose(f);
}

TEST(test_marker_file_c3d_byte_orders_integer_data_and_analogs)
{
    static const int procs[] = {84, 85, 86};
    for (int pi = 0; pi < 3; pi++)
        for (int integer = 0; integer < 2; integer++) {
            char path[1024];
            snprintf(path, sizeof path, "%s", th_tmp("made.c3d"));
            make_c3d(path, procs[pi], integer, 6);
            icv_marker_file m;
            icv_err err = {0};
            ASSERT(icv_marker_file_read(path, &m, &err) == 0, "proc %d int %d: %s", procs[pi], integer, err.msg);
            ASSERT_EQ_INT(m.n_markers, 2);
            ASSERT_EQ_INT(m.n_frames, 3);
            ASSERT_EQ_INT(m.first_frame, 10);
            ASSERT_NEAR(m.rate_hz, 50, 0);
            ASSERT_NEAR(m.unit_m, 0.01, 0);
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < 2; k++) {
                    size_t j = (size_t)i * 2 + k;
                    if (k == 1 && i == 1) {
                        ASSERT(!m.seen[j], "proc %d: the invalid point was read", procs[pi]);
                        continue;
                    }
                    ASSERT(m.seen[j], "proc %d int %d frame %d point %d unseen", procs[pi], integer, i, k);
                    /* exact: small whole numbers of cm, in float32 or int16 x 0.5 */
                    ASSERT_NEAR(m.pos[j].x, 0.01 * (10 * i + k + 1), 1e-12);
                    ASSERT_NEAR(m.pos[j].y, -0.01 * (10 * i + k + 2), 1e-12);
                    ASSERT_NEAR(m.pos[j].z, 0.01 * (10 * i + k + 3), 1e-12);
                }
            ASSERT_NEAR(m.t[2], 2.0 / 50, 1e-15);
            icv_marker_file_free(&m);
        }
}

TEST(test_marker_file_trc_missing_markers_cm_and_bad_input)
{
    const char *p = th_tmp("made.trc");
    /* OpenSim's layout; frame 2: marker b NaN, marker a empty; frame 3 cut after a */
    th_write_file(p, "PathFileType\t4\t(X/Y/Z)\tmade.trc\n"
                     "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n"
                     "100\t100\t3\t2\tcm\t100\t1\t3\n"
                     "Frame#\tTime\ta\t\t\tb\t\t\t\n"
                     "\t\tX1\tY1\tZ1\tX2\tY2\tZ2\t\n"
                     "\n"
                     "1\t0.00\t1\t2\t3\t4\t5\t6\n"
                     "2\t0.01\t\t\t\tNaN\tnan\tNaN\n"
                     "3\t0.02\t7\t8\t9\n");
    icv_marker_file m;
    icv_err err = {0};
    ASSERT(icv_marker_file_read(p, &m, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(m.n_frames, 3);
    ASSERT_EQ_INT(m.n_markers, 2);
    ASSERT_NEAR(m.pos[1].z, 0.06, 1e-15);
    ASSERT(!m.seen[2] && !m.seen[3] && m.seen[4] && !m.seen[5], "missing markers read as seen");
    ASSERT_NEAR(m.pos[4].y, 0.08, 1e-15);
    ASSERT_EQ_INT(label_index(&m, "b"), 1);
    icv_marker_file_free(&m);
    /* one clear line for each bad input */
    static const struct {
        const char *row3, *data, *want;
    } bad[] = {
        {"100\t100\t1\t2\tfurlong\t100\t1\t1", "1\t0\t1\t2\t3\t4\t5\t6\n", "Units 'furlong' is not a length unit"},
        {"0\t100\t1\t2\tmm\t100\t1\t1", "1\t0\t1\t2\t3\t4\t5\t6\n", "DataRate: expected (0, 1e+06] Hz"},
        {"100\t100\t1\t2\tmm\t100\t1\t1", "1\t0\t1\t2\tx\x01\t4\t5\t6\n", "made_bad.trc:6: marker 'a' Z: 'x\\x01' is not a number"},
        {"100\t100\t1\t2\tmm\t100\t1\t1", "1\t0\t1\t2\t3\t4\t5\t6\t7\t8\n", "made_bad.trc:6: 10 fields; NumMarkers 2"},
        {"100\t100\t1\t2\tmm\t100\t1\t1", "1\t0\t1\t2\t3\t4\t5\t6\n2\t0\t1\t2\t3\t4\t5\t6\n", "made_bad.trc:7: Time 0 s does not follow"},
        {"100\t100\t1\t2\tmm\t100\t1\t1", "1\t0\t1\t2\t3e9\t4\t5\t6\n", "is beyond 10000 m"},
        {"100\t100\t1\t2\tmm\t100\t1\t1", "", "no data rows"},
        {"100\t100\t1\t4000\tmm\t100\t1\t1", "1\t0\n2\t1\n3\t2\n4\t3\n",
         "made_bad.trc:3: NumMarkers 4000 for 4 rows asks for 16000 positions, more than the rows' 16 bytes"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "PathFileType\t4\t(X/Y/Z)\tx.trc\nDataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\t"
                 "OrigDataStartFrame\tOrigNumFrames\n%s\nFrame#\tTime\ta\t\t\tb\t\t\t\n\t\tX1\tY1\tZ1\tX2\tY2\tZ2\n%s",
                 bad[b].row3, bad[b].data);
        const char *q = th_tmp("made_bad.trc");
        th_write_file(q, text);
        err.msg[0] = 0;
        ASSERT(icv_marker_file_read(q, &m, &err) == ICV_EFORMAT, "case %zu read", b);
        ASSERT_STR_CONTAINS(err.msg, bad[b].want);
        ASSERT(!strchr(err.msg, '\n'), "two lines: %s", err.msg);
    }
}

TEST(test_marker_file_c3d_bad_input)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", th_tmp("cut.c3d"));
    make_c3d(path, 84, 0, 0);
    /* the header claims 60,000 frames of a 1.5 KB file: the 3 it holds are read */
    FILE *f = fopen(path, "r+b");
    unsigned char last[2] = {(unsigned char)(60009 & 255), (unsigned char)(60009 >> 8)};
    fseek(f, 8, SEEK_SET);
    fwrite(last, 1, 2, f);
    fclose(f);
    icv_marker_file m;
    icv_err err = {0};
    ASSERT(icv_marker_file_read(path, &m, &err) == 0, "%s", err.msg);
    ASSERT_EQ_INT(m.n_frames, 16); /* (1536 - 1024) / 32 bytes a frame: past frame 3, the last block's padding */
    icv_marker_file_free(&m);
    /* one line for each damaged field of the made file (offsets of make_c3d's layout) */
    static const struct {
        long at;
        unsigned char bytes[4];
        int n;
        const char *want;
    } bad[] = {
        {536, {0, 0, 0, 0}, 4, "POINT:RATE is 0 Hz: expected (0, 1e+06]"},
        {553, {'f', 't'}, 2, "POINT:UNITS 'ft' is not a length unit this reader knows"},
        {16, {99, 0}, 2, "the data start at block 99, past the file's 1536 bytes"},
        {515, {90}, 1, "not marked Intel, DEC or MIPS"},
        {2, {0, 0}, 2, "POINT:USED is 0: expected 1 to 4096 3D points"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        make_c3d(path, 84, 0, 0);
        f = fopen(path, "r+b");
        fseek(f, bad[b].at, SEEK_SET);
        fwrite(bad[b].bytes, 1, (size_t)bad[b].n, f);
        fclose(f);
        err.msg[0] = 0;
        ASSERT(icv_marker_file_read(path, &m, &err) == ICV_EFORMAT, "case %zu read", b);
        ASSERT_STR_CONTAINS(err.msg, bad[b].want);
        ASSERT(!strchr(err.msg, '\n'), "two lines: %s", err.msg);
    }
    /* a parameter name of -128 characters (a locked name of 128: fuzz_markers' find,
       one byte past the name buffer, seen under ASan): the record is skipped, the
       header's rate kept */
    make_c3d(path, 84, 0, 0);
    f = fopen(path, "r+b");
    fseek(f, 526, SEEK_SET);
    fputc(0x80, f);
    fclose(f);
    ASSERT(icv_marker_file_read(path, &m, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(m.rate_hz, 50, 0);
    icv_marker_file_free(&m);
    /* not a C3D: key byte wrong; a 100-byte file */
    th_write_file(path, "x");
    ASSERT(icv_marker_file_read(path, &m, &err) == ICV_EFORMAT, "read");
    ASSERT_STR_CONTAINS(err.msg, "neither C3D nor TRC");
}
