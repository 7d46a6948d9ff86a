/* marker_c3d.c: the 3D points of a C3D file. The layout is the C3D specification's
 * (C3D.org, "The C3D File Format User Guide"): 512-byte blocks; block 1 the header
 * (word 1: parameter block and key 0x50; 2: points; 3: analog samples per frame; 4,
 * 5: first and last frame; 7-8: SCALE; 9: first data block; 11-12: rate); the
 * parameter section (4-byte head whose byte 3 is the processor: 84 Intel, 85 DEC,
 * 86 MIPS, then group and parameter records linked by byte offsets); the data, per
 * frame X Y Z and a residual word per point, then the frame's analog samples.
 * SCALE < 0: 32-bit floats in the file's unit; > 0: 16-bit integers times SCALE. A
 * negative residual marks the point invalid. DEC floats are VAX F: the 16-bit halves
 * swapped and the value 4 times the IEEE one. Debian packages no C3D library
 * (ezc3d, BTK are C++/Python), hence this reader; it is checked against ezc3d's
 * Vicon, Qualisys and Optotrak test files (tests/core/test_marker_file.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/marker_file.h"

enum { BLOCK = 512, PROC_INTEL = 84, PROC_DEC = 85, PROC_MIPS = 86 };

typedef struct {
    const unsigned char *d;
    size_t size;
    int proc;
} c3d;

static int u16(const c3d *c, size_t o)
{
    if (o + 2 > c->size)
        return 0;
    return c->proc == PROC_MIPS ? c->d[o] << 8 | c->d[o + 1] : c->d[o] | c->d[o + 1] << 8;
}
static int i16(const c3d *c, size_t o) { return (int16_t)(uint16_t)u16(c, o); }
static float f32(const c3d *c, size_t o)
{
    if (o + 4 > c->size)
        return 0;
    const unsigned char *p = c->d + o;
    uint32_t u;
    if (c->proc == PROC_MIPS)
        u = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    else if (c->proc == PROC_DEC) /* VAX F: halves swapped, exponent 2 more than IEEE's */
        u = (uint32_t)p[2] | (uint32_t)p[3] << 8 | (uint32_t)p[0] << 16 | (uint32_t)p[1] << 24;
    else
        u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return c->proc == PROC_DEC ? f / 4 : f;
}

/* one parameter of the POINT group, as found */
typedef struct {
    int type, ndims, dims[7];
    size_t val; /* offset of its data */
    int found;
} param;

/* the value of an integer or float parameter (an int16 count past 32767 is stored
   negative: read unsigned) */
static double param_num(const c3d *c, const param *p, int unsigned16)
{
    if (p->type == 2)
        return unsigned16 ? u16(c, p->val) : i16(c, p->val);
    if (p->type == 4)
        return f32(c, p->val);
    if (p->type == 1)
        return c->d[p->val];
    return NAN;
}

static size_t param_len(const param *p)
{
    size_t n = p->type < 0 ? 1 : (size_t)p->type;
    for (int i = 0; i < p->ndims; i++)
        n *= (size_t)p->dims[i];
    return n;
}

/* copies label k of a character parameter with dims [len, n] into out, trailing
   blanks removed */
static void param_text(const c3d *c, const param *p, int k, char *out, size_t out_size)
{
    out[0] = 0;
    if (!p->found || p->type != -1 || p->ndims < 1)
        return;
    size_t len = (size_t)p->dims[0], n = p->ndims >= 2 ? (size_t)p->dims[1] : 1;
    if ((size_t)k >= n)
        return;
    size_t o = p->val + (size_t)k * len, w = len < out_size - 1 ? len : out_size - 1;
    if (o + w > c->size)
        return;
    memcpy(out, c->d + o, w);
    out[w] = 0;
    for (size_t i = 0; i < w; i++)
        if ((unsigned char)out[i] < 32 || (unsigned char)out[i] > 126)
            out[i] = '?';
    for (long i = (long)w - 1; i >= 0 && (out[i] == ' ' || out[i] == 0); i--)
        out[i] = 0;
}

enum { P_USED, P_FRAMES, P_SCALE, P_RATE, P_DATA_START, P_UNITS, P_LABELS, P_LABELS2, P_COUNT };
static const char *const pnames[P_COUNT] = {"USED", "FRAMES", "SCALE", "RATE", "DATA_START", "UNITS", "LABELS",
                                            "LABELS2"};

/* walks the parameter records from ps to end and fills the POINT group's */
static void read_params(const c3d *c, size_t ps, size_t end, param *pp)
{
    int point_id = 0;
    size_t q = ps + 4;
    for (int records = 0; q + 4 <= end && records < 100000; records++) {
        int nch = abs((int8_t)c->d[q]), id = (int8_t)c->d[q + 1];
        if (nch == 0 || q + 2 + (size_t)nch + 2 > end)
            return;
        char name[129]; /* nch is at most 128: abs of a signed byte */
        memcpy(name, c->d + q + 2, (size_t)nch);
        name[nch] = 0;
        size_t off_at = q + 2 + (size_t)nch;
        int off = u16(c, off_at);
        if (id < 0 && !strcmp(name, "POINT")) {
            point_id = -id;
        } else if (id > 0 && id == point_id && off_at + 4 <= end) {
            param p = {0};
            p.type = (int8_t)c->d[off_at + 2];
            p.ndims = c->d[off_at + 3];
            if (p.ndims <= 7 && off_at + 4 + (size_t)p.ndims <= end) {
                for (int i = 0; i < p.ndims; i++)
                    p.dims[i] = c->d[off_at + 4 + i];
                p.val = off_at + 4 + (size_t)p.ndims;
                p.found = (p.type == -1 || p.type == 1 || p.type == 2 || p.type == 4) && p.val + param_len(&p) <= end;
                for (int k = 0; p.found && k < P_COUNT; k++)
                    if (!strcmp(name, pnames[k]))
                        pp[k] = p;
            }
        }
        if (off == 0)
            return;
        q = off_at + (size_t)off;
    }
}

static int read_all(const char *path, unsigned char **d, size_t *size, icv_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return icv_err_set(err, ICV_EIO, "%s: cannot open", path);
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return icv_err_set(err, ICV_EIO, "%s: cannot read", path);
    }
    *d = malloc(n > 0 ? (size_t)n : 1);
    if (!*d) {
        fclose(f);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory (%ld bytes)", path, n);
    }
    size_t got = fread(*d, 1, (size_t)n, f);
    fclose(f);
    if (got != (size_t)n) {
        free(*d);
        return icv_err_set(err, ICV_EIO, "%s: cannot read", path);
    }
    *size = (size_t)n;
    return 0;
}

int icv_marker_file_read_c3d(const char *path, icv_marker_file *m, icv_err *err)
{
    memset(m, 0, sizeof *m);
    m->format = ICV_MARKERS_C3D;
    unsigned char *d = NULL;
    size_t size = 0;
    int rc = read_all(path, &d, &size, err);
    if (rc)
        return rc;
    c3d c = {d, size, PROC_INTEL};
    if (size < 2 * BLOCK || d[1] != 0x50 || d[0] < 2) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: not a C3D file (%zu bytes, no key 0x50 in a 512-byte header)", path,
                         size);
        goto out;
    }
    size_t ps = (size_t)(d[0] - 1) * BLOCK;
    if (ps + 4 > size || d[ps + 3] < PROC_INTEL || d[ps + 3] > PROC_MIPS) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: the parameter section (block %d) is %s", path, d[0],
                         ps + 4 > size ? "past the end of the file" : "not marked Intel, DEC or MIPS (byte 4: 84-86)");
        goto out;
    }
    c.proc = d[ps + 3];
    size_t end = ps + (size_t)(d[ps + 2] ? d[ps + 2] : 1) * BLOCK;
    if (end > size)
        end = size;
    param pp[P_COUNT] = {{0}};
    read_params(&c, ps, end, pp);

    /* the header's values, replaced by the POINT group's where it has them (the
       header's 16-bit frame numbers overflow past 65535 frames) */
    long n_points = u16(&c, 2), analog = u16(&c, 4), first = u16(&c, 6), last = u16(&c, 8);
    double scale = f32(&c, 12), rate = f32(&c, 20);
    long data_block = u16(&c, 16);
    long n_frames = last - first + 1;
    if (pp[P_USED].found)
        n_points = lround(param_num(&c, &pp[P_USED], 1));
    if (pp[P_FRAMES].found) {
        double v = param_num(&c, &pp[P_FRAMES], 1);
        if (v >= 1 && v <= ICV_MAX_FRAME_NUMBER)
            n_frames = lround(v);
    }
    if (pp[P_SCALE].found)
        scale = param_num(&c, &pp[P_SCALE], 0);
    if (pp[P_RATE].found)
        rate = param_num(&c, &pp[P_RATE], 0);
    if (pp[P_DATA_START].found)
        data_block = u16(&c, pp[P_DATA_START].val);
    if (n_points < 1 || n_points > ICV_MAX_FILE_MARKERS) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: POINT:USED is %ld: expected 1 to %d 3D points", path, n_points,
                         ICV_MAX_FILE_MARKERS);
        goto out;
    }
    if (!(rate > 0) || rate > ICV_MAX_FPS) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: POINT:RATE is %g Hz: expected (0, %g]", path, rate, ICV_MAX_FPS);
        goto out;
    }
    if (!isfinite(scale) || scale == 0) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: POINT:SCALE is %g: not a C3D scale", path, scale);
        goto out;
    }
    if (data_block < 2 || (size_t)(data_block - 1) * BLOCK >= size) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: the data start at block %ld, past the file's %zu bytes", path,
                         data_block, size);
        goto out;
    }
    size_t word = scale < 0 ? 4 : 2, data = (size_t)(data_block - 1) * BLOCK;
    size_t stride = ((size_t)n_points * 4 + (size_t)analog) * word;
    long fit = (long)((size - data) / stride);
    if (n_frames < 1 || n_frames > fit) {
        if (fit < 1) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s: not one frame of %ld points fits the file from block %ld", path,
                             n_points, data_block);
            goto out;
        }
        icv_warn("%s: the header states %ld frames; the file holds %ld: those are read", path, n_frames, fit);
        n_frames = fit;
    }
    char unit[ICV_MARKER_LABEL_LEN] = "";
    param_text(&c, &pp[P_UNITS], 0, unit, sizeof unit);
    m->unit_m = unit[0] ? icv_marker_unit_m(unit) : 1e-3; /* the specification's default is mm */
    snprintf(m->units, sizeof m->units, "%s", unit[0] ? unit : "mm");
    if (!(m->unit_m > 0)) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: POINT:UNITS '%s' is not a length unit this reader knows (mm, cm, m)",
                         path, unit);
        goto out;
    }
    if ((rc = icv_marker_file_alloc(m, (int)n_frames, (int)n_points, path, err)))
        goto out;
    m->format = ICV_MARKERS_C3D;
    m->rate_hz = rate;
    m->first_frame = (int)first;
    int n1 = pp[P_LABELS].found && pp[P_LABELS].ndims >= 2 ? pp[P_LABELS].dims[1] : 0;
    for (int k = 0; k < m->n_markers; k++) {
        if (k < n1)
            param_text(&c, &pp[P_LABELS], k, m->labels[k], sizeof m->labels[k]);
        else
            param_text(&c, &pp[P_LABELS2], k - n1, m->labels[k], sizeof m->labels[k]);
        if (!m->labels[k][0])
            snprintf(m->labels[k], sizeof m->labels[k], "point%d", k + 1);
    }
    double s = scale < 0 ? 1 : scale;
    for (long i = 0; i < n_frames && !rc; i++) {
        m->frame[i] = (int)i;
        m->t[i] = (double)i / rate;
        for (long k = 0; k < n_points; k++) {
            size_t o = data + (size_t)i * stride + (size_t)k * 4 * word;
            double x, y, z, r;
            if (word == 4)
                x = f32(&c, o), y = f32(&c, o + 4), z = f32(&c, o + 8), r = f32(&c, o + 12);
            else
                x = i16(&c, o), y = i16(&c, o + 2), z = i16(&c, o + 4), r = i16(&c, o + 6);
            size_t j = (size_t)i * (size_t)n_points + (size_t)k;
            if (r < 0 || !isfinite(x) || !isfinite(y) || !isfinite(z))
                continue; /* invalid in this frame */
            icv_vec3 p = icv_v3(x * s * m->unit_m, y * s * m->unit_m, z * s * m->unit_m);
            if (fabs(p.x) > ICV_MAX_COORD_M || fabs(p.y) > ICV_MAX_COORD_M || fabs(p.z) > ICV_MAX_COORD_M) {
                rc = icv_err_set(err, ICV_EFORMAT,
                                 "%s: frame %ld, point '%s': [%g, %g, %g] %s is beyond %g m from the origin", path,
                                 i + first, m->labels[k], x * s, y * s, z * s, m->units, ICV_MAX_COORD_M);
                break;
            }
            m->pos[j] = p;
            m->seen[j] = 1;
        }
    }
    if (rc)
        icv_marker_file_free(m);
out:
    free(d);
    return rc;
}
