/* export_c3d.c: 3D marker tracks as C3D and back. The layout follows the C3D
 * specification (C3D.org, "The C3D File Format User Guide"): 512-byte blocks; block
 * 1 the header (parameter block pointer, key 0x50, points, frames, scale, data
 * start, rate); from block 2 the parameter section (4-byte head, then group and
 * parameter records linked by byte offsets); then the data, per frame X Y Z and a
 * residual word per point. We write Intel byte order and float data (SCALE < 0).
 * Debian packages no C3D library, hence this small writer and reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

enum { BLOCK = 512, LABEL_LEN = 8, DESC_LEN = 48, PROC_INTEL = 84 };

typedef struct {
    unsigned char *d;
    size_t n, cap;
    int fail;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    if (b->fail)
        return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? 2 * b->cap : 1024;
        while (c < b->n + n)
            c *= 2;
        unsigned char *d = realloc(b->d, c);
        if (!d) {
            b->fail = 1;
            return;
        }
        b->d = d;
        b->cap = c;
    }
    memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void put8(buf *b, int v) { unsigned char c = (unsigned char)(int8_t)v; put(b, &c, 1); }
static void put16(buf *b, int v) /* little-endian: Intel order whatever the host */
{
    uint16_t u = (uint16_t)(int16_t)v;
    unsigned char c[2] = {(unsigned char)(u & 255), (unsigned char)(u >> 8)};
    put(b, c, 2);
}
static void putf(buf *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    unsigned char c[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
    put(b, c, 4);
}

static void group(buf *b, int id, const char *name, const char *desc)
{
    put8(b, (int)strlen(name));
    put8(b, -id); /* groups carry a negative id */
    put(b, name, strlen(name));
    put16(b, 2 + 1 + (int)strlen(desc)); /* to the next record, from this word */
    put8(b, (int)strlen(desc));
    put(b, desc, strlen(desc));
}

/* a parameter record; last: its offset word is 0, which ends the section */
static void param(buf *b, int gid, const char *name, int type, int ndims, const int *dims, const void *data,
                  const char *desc, int last)
{
    size_t count = 1;
    for (int i = 0; i < ndims; i++)
        count *= (size_t)dims[i];
    size_t elem = type < 0 ? 1 : (size_t)type, len = count * elem;
    put8(b, (int)strlen(name));
    put8(b, gid);
    put(b, name, strlen(name));
    put16(b, last ? 0 : (int)(2 + 1 + 1 + ndims + len + 1 + strlen(desc)));
    put8(b, type);
    put8(b, ndims);
    for (int i = 0; i < ndims; i++)
        put8(b, dims[i]);
    if (type == 2)
        for (size_t i = 0; i < count; i++)
            put16(b, ((const int *)data)[i]);
    else if (type == 4)
        for (size_t i = 0; i < count; i++)
            putf(b, ((const float *)data)[i]);
    else
        put(b, data, len);
    put8(b, (int)strlen(desc));
    put(b, desc, strlen(desc));
}

static void pad_block(buf *b)
{
    static const unsigned char z[BLOCK];
    if (b->n % BLOCK)
        put(b, z, BLOCK - b->n % BLOCK);
}

int report_export_c3d(const char *path, const analysis_tracks *tr, icv_err *err)
{
    return report_export_c3d_labelled(path, tr, NULL, err);
}

int report_export_c3d_labelled(const char *path, const analysis_tracks *tr, const report_marker_label *names,
                               icv_err *err)
{
    int np = tr->n_markers, nf = tr->n_frames;
    if (nf < 1 || np < 1)
        return icv_err_set(err, ICV_EINVAL, "%s: no tracks to export", path);
    if (nf > 65535 || np > 255)
        return icv_err_set(err, ICV_EINVAL, "%s: %d frames of %d markers: C3D's 16-bit header holds at most 65535 frames",
                           path, nf, np);
    float rate = (float)report_tracks_rate(tr);
    /* the parameter section, built first to know its length in blocks */
    buf p = {0};
    unsigned char head[4] = {1, 0x50, 0, PROC_INTEL}; /* [2] = blocks, set below */
    put(&p, head, 4);
    group(&p, 1, "POINT", "3D marker positions, surface frame");
    /* labels and descriptions as long as the longest (C3D's first dimension), at
       least the 8 and 48 characters of one body's */
    int label_len = LABEL_LEN, desc_len = DESC_LEN;
    for (int k = 0; names && k < np; k++) {
        int a = (int)strlen(names[k].label), b = (int)strlen(names[k].desc);
        label_len = a > label_len ? a : label_len;
        desc_len = b > desc_len ? b : desc_len;
    }
    int dims2[2] = {label_len, np};
    param(&p, 1, "USED", 2, 0, NULL, &np, "markers", 0);
    int frames16 = nf > 32767 ? nf - 65536 : nf; /* read as unsigned by readers past 32767 */
    param(&p, 1, "FRAMES", 2, 0, NULL, &frames16, "frames", 0);
    int data_start_pos = (int)p.n; /* patched below: its value word */
    int zero = 0;
    param(&p, 1, "DATA_START", 2, 0, NULL, &zero, "first block of the data", 0);
    float scale = -1.0f, fz = 0;
    param(&p, 1, "SCALE", 4, 0, NULL, &scale, "negative: float data", 0);
    param(&p, 1, "RATE", 4, 0, NULL, &rate, "frames per second", 0);
    int du[1] = {2};
    param(&p, 1, "UNITS", -1, 1, du, "mm", "positions in millimetres", 0);
    char *labels = calloc((size_t)np, (size_t)label_len);
    if (!labels) {
        free(p.d);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    for (int k = 0; k < np; k++) {
        char nm[LABEL_LEN + 1];
        report_marker_name(k, nm, sizeof nm);
        const char *l = names ? names[k].label : nm;
        memset(labels + (size_t)k * (size_t)label_len, ' ', (size_t)label_len); /* C3D pads labels with spaces */
        memcpy(labels + (size_t)k * (size_t)label_len, l, strlen(l));
    }
    param(&p, 1, "LABELS", -1, 2, dims2, labels, "marker names", 0);
    free(labels);
    /* POINT:DESCRIPTIONS, one per label (C3D User Guide: readers show it beside the label) */
    char *descs = calloc((size_t)np, (size_t)desc_len);
    if (!descs) {
        free(p.d);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    for (int k = 0; k < np; k++) {
        char ds[DESC_LEN + 1];
        int n = snprintf(ds, sizeof ds, "marker %d of body.markers, surface frame", k);
        const char *d = names ? names[k].desc : ds;
        n = names ? (int)strlen(d) : (n < DESC_LEN ? n : DESC_LEN);
        memset(descs + (size_t)k * (size_t)desc_len, ' ', (size_t)desc_len);
        memcpy(descs + (size_t)k * (size_t)desc_len, d, (size_t)n);
    }
    int dimsd[2] = {desc_len, np};
    param(&p, 1, "DESCRIPTIONS", -1, 2, dimsd, descs, "what each point is", 0);
    free(descs);
    group(&p, 2, "ANALOG", "no analog channels");
    param(&p, 2, "USED", 2, 0, NULL, &zero, "analog channels", 0);
    param(&p, 2, "RATE", 4, 0, NULL, &fz, "", 1);
    pad_block(&p);
    if (p.fail) {
        free(p.d);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    int nblocks = (int)(p.n / BLOCK), data_start = 2 + nblocks;
    p.d[2] = (unsigned char)nblocks;
    /* DATA_START's value: after nchars, id, name (10), offset (2), type, ndims */
    size_t at = (size_t)data_start_pos + 2 + 10 + 2 + 1 + 1;
    p.d[at] = (unsigned char)(data_start & 255);
    p.d[at + 1] = (unsigned char)(data_start >> 8);

    buf h = {0};
    unsigned char w1[2] = {2, 0x50}; /* parameters start in block 2; the C3D key */
    put(&h, w1, 2);
    put16(&h, np);
    put16(&h, 0);                    /* analog measurements per frame */
    put16(&h, 1);                    /* first frame */
    put16(&h, nf > 32767 ? nf - 65536 : nf); /* last frame */
    put16(&h, 10);                   /* largest interpolation gap (frames) */
    putf(&h, scale);
    put16(&h, data_start);
    put16(&h, 0);                    /* analog samples per frame */
    putf(&h, rate);
    pad_block(&h);

    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc) {
        free(p.d);
        free(h.d);
        return rc;
    }
    fwrite(h.d, 1, h.n, af.fp);
    fwrite(p.d, 1, p.n, af.fp);
    free(h.d);
    free(p.d);
    buf d = {0};
    for (int i = 0; i < nf; i++)
        for (int k = 0; k < np; k++) {
            int j = i * np + k;
            if (tr->seen[j]) {
                putf(&d, (float)(1e3 * tr->pos[j].x));
                putf(&d, (float)(1e3 * tr->pos[j].y));
                putf(&d, (float)(1e3 * tr->pos[j].z));
                putf(&d, 0.0f); /* residual 0: measured, cameras unknown */
            } else {
                putf(&d, 0.0f);
                putf(&d, 0.0f);
                putf(&d, 0.0f);
                putf(&d, -1.0f); /* -1: the point is invalid in this frame */
            }
        }
    pad_block(&d);
    if (d.fail) {
        free(d.d);
        icv_atomic_abort(&af);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    fwrite(d.d, 1, d.n, af.fp);
    free(d.d);
    return icv_atomic_commit(&af, err);
}

/* ---- reading ----------------------------------------------------------- */

static int get16(const unsigned char *p) { return (int16_t)(uint16_t)(p[0] | p[1] << 8); }
static float getf(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

void report_c3d_free(report_c3d *c)
{
    free(c->labels);
    free(c->descriptions);
    free(c->xyzr);
    c->labels = NULL;
    c->descriptions = NULL;
    c->xyzr = NULL;
}

int report_c3d_read(const char *path, report_c3d *c, icv_err *err)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "rb");
    if (!f)
        return icv_err_set(err, ICV_EIO, "%s: cannot open", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = size > 0 ? malloc((size_t)size) : NULL;
    if (!d || fread(d, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        free(d);
        return icv_err_set(err, ICV_EIO, "%s: cannot read", path);
    }
    fclose(f);
    int rc = 0;
    if (size < 2 * BLOCK || d[1] != 0x50) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: not a C3D file (no key 0x50 in the header)", path);
        goto out;
    }
    size_t ps = (size_t)(d[0] - 1) * BLOCK;
    if (ps + 4 > (size_t)size || d[ps + 3] != PROC_INTEL) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: only Intel byte order is read (processor type %d)", path,
                         ps + 4 <= (size_t)size ? d[ps + 3] : -1);
        goto out;
    }
    c->n_points = get16(d + 2);
    c->first_frame = get16(d + 6);
    c->n_frames = (uint16_t)get16(d + 8) - c->first_frame + 1;
    c->scale = getf(d + 12);
    c->data_start_block = get16(d + 16);
    c->rate = getf(d + 20);
    /* walk the parameter records; the POINT group's id is found by name */
    size_t end = ps + (size_t)d[ps + 2] * BLOCK, q = ps + 4;
    if (end > (size_t)size)
        end = (size_t)size;
    int point_id = 0, label_len = 0, n_labels = 0;
    const unsigned char *labels = NULL, *descs = NULL;
    int desc_len = 0, n_descs = 0;
    while (q + 4 < end) {
        int nch = abs((int8_t)d[q]), id = (int8_t)d[q + 1];
        if (nch == 0)
            break;
        char name[128] = "";
        memcpy(name, d + q + 2, (size_t)nch < sizeof name - 1 ? (size_t)nch : sizeof name - 1);
        size_t off_at = q + 2 + (size_t)nch;
        int off = get16(d + off_at);
        if (id < 0) {
            if (!strcmp(name, "POINT"))
                point_id = -id;
        } else if (id == point_id) {
            const unsigned char *v = d + off_at + 2;
            int type = (int8_t)v[0], nd = v[1];
            const unsigned char *val = v + 2 + nd;
            if (!strcmp(name, "USED") && type == 2)
                c->n_points = get16(val);
            else if (!strcmp(name, "FRAMES") && type == 2)
                c->n_frames = (uint16_t)get16(val);
            else if (!strcmp(name, "DATA_START") && type == 2)
                c->data_start_block = get16(val);
            else if (!strcmp(name, "SCALE") && type == 4)
                c->scale = getf(val);
            else if (!strcmp(name, "RATE") && type == 4)
                c->rate = getf(val);
            else if (!strcmp(name, "UNITS") && type == -1 && nd == 1) {
                int n = v[2] < (int)sizeof c->units - 1 ? v[2] : (int)sizeof c->units - 1;
                memcpy(c->units, val, (size_t)n);
                c->units[n] = 0;
            } else if (!strcmp(name, "LABELS") && type == -1 && nd == 2) {
                label_len = v[2];
                n_labels = v[3];
                labels = val;
            } else if (!strcmp(name, "DESCRIPTIONS") && type == -1 && nd == 2) {
                desc_len = v[2];
                n_descs = v[3];
                descs = val;
            }
        }
        if (off == 0)
            break;
        q = off_at + (size_t)off;
    }
    if (c->scale >= 0) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: integer C3D data (SCALE %g) is not read, only float", path, c->scale);
        goto out;
    }
    size_t need = (size_t)(c->data_start_block - 1) * BLOCK + (size_t)c->n_frames * (size_t)c->n_points * 16;
    if (c->n_points < 1 || c->n_frames < 1 || c->data_start_block < 2 || need > (size_t)size) {
        rc = icv_err_set(err, ICV_EFORMAT, "%s: %d points x %d frames from block %d do not fit the file's %ld bytes",
                         path, c->n_points, c->n_frames, c->data_start_block, size);
        goto out;
    }
    c->labels = calloc((size_t)c->n_points, sizeof *c->labels);
    c->xyzr = malloc(sizeof *c->xyzr * (size_t)c->n_frames * (size_t)c->n_points * 4);
    if (!c->labels || !c->xyzr) {
        report_c3d_free(c);
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (int k = 0; k < c->n_points && k < n_labels && labels; k++) {
        int n = label_len < 31 ? label_len : 31;
        memcpy(c->labels[k], labels + (size_t)k * (size_t)label_len, (size_t)n);
        for (int i = n - 1; i >= 0 && c->labels[k][i] == ' '; i--)
            c->labels[k][i] = 0;
    }
    if (descs && (size_t)(descs - d) + (size_t)desc_len * (size_t)n_descs > (size_t)size)
        descs = NULL; /* runs past the file's end: left out */
    if (descs && n_descs > 0) {
        c->descriptions = calloc((size_t)c->n_points, sizeof *c->descriptions);
        if (!c->descriptions) {
            report_c3d_free(c);
            rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
            goto out;
        }
        for (int k = 0; k < c->n_points && k < n_descs; k++) {
            int n = desc_len < 63 ? desc_len : 63;
            memcpy(c->descriptions[k], descs + (size_t)k * (size_t)desc_len, (size_t)n);
            for (int i = n - 1; i >= 0 && c->descriptions[k][i] == ' '; i--)
                c->descriptions[k][i] = 0;
        }
    }
    const unsigned char *x = d + (size_t)(c->data_start_block - 1) * BLOCK;
    for (size_t i = 0; i < (size_t)c->n_frames * (size_t)c->n_points * 4; i++)
        c->xyzr[i] = getf(x + 4 * i);
out:
    free(d);
    return rc;
}
