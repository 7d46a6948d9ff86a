/* black_tophat_template_internal.h: the black top-hat's passes over one pixel type, included by
 * black_tophat.c once per type (8-bit frames: bytes, 16 a vector step with SSE2's
 * byte min / max; 16-bit frames: uint16_t) with PIXEL, PIXEL_MAX and FN(name) defined.
 * Deliberately without an include guard.
 *
 * The planes are padded by TRACK_TOPHAT_MAX_R on every side (pitch ws->morph_pitch
 * pixels, plane(x, y) at [(y + B) pitch + x + B]) and the region's band of that width
 * holds the pass's identity (0 for the dilation, PIXEL_MAX for the erosion): a pixel
 * off the region then counts for nothing, which is the region's clipping, with no test
 * at the edges. Each 1D extremum over a window of L = 2h + 1 pixels along a line is two
 * overlapping extrema over P pixels (P the largest power of two <= L), built by
 * doubling: m_2q(p) = ext(m_q(p), m_q(p + q d)); log2 P + 1 comparisons a pixel, every
 * one along a row. */

static inline __attribute__((always_inline)) PIXEL FN(ext)(PIXEL a, PIXEL b, int is_max)
{
    return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

/* o[x] = ext(p[x], q[x]) for x in [lo, hi] */
static inline __attribute__((always_inline)) void FN(ext_row)(PIXEL *restrict o, const PIXEL *restrict p,
                                                               const PIXEL *restrict q, int lo, int hi, int is_max)
{
    for (int x = lo; x <= hi; x++)
        o[x] = FN(ext)(p[x], q[x], is_max);
}

/* row y of a padded plane, indexed by x (from -B) */
static inline PIXEL *FN(prow)(const struct track_detector_ws *ws, void *plane, int y)
{
    return (PIXEL *)plane + (long)(y + TRACK_TOPHAT_MAX_R) * ws->morph_pitch + TRACK_TOPHAT_MAX_R;
}

/* Fills the band of width B round [x0, x1] x [y0, y1] of a padded plane with v. */
static void FN(fill_band)(const struct track_detector_ws *ws, void *plane, int x0, int y0, int x1, int y1, PIXEL v)
{
    const int B = TRACK_TOPHAT_MAX_R;
    for (int y = y0 - B; y <= y1 + B; y++) {
        PIXEL *row = FN(prow)(ws, plane, y);
        int inside = y >= y0 && y <= y1;
        for (int x = x0 - B; x <= (inside ? x0 - 1 : x1 + B); x++)
            row[x] = v;
        for (int x = x1 + 1; inside && x <= x1 + B; x++)
            row[x] = v;
    }
}

/* The extremum along each row over |i| <= h: dst(x, y) = ext of src(x + i, y), for the
 * region's pixels; the doubling in two row buffers. */
static inline __attribute__((always_inline)) void FN(row_pass)(struct track_detector_ws *ws, void *src, void *dst,
                                                                int x0, int y0, int x1, int y1, int h, int is_max)
{
    int p = 1;
    while (2 * p <= 2 * h + 1)
        p *= 2;
    PIXEL *buf[2] = {FN(prow)(ws, ws->morph_rows, -TRACK_TOPHAT_MAX_R),
                     FN(prow)(ws, ws->morph_rows, 1 - TRACK_TOPHAT_MAX_R)};
    for (int y = y0; y <= y1; y++) {
        const PIXEL *m = FN(prow)(ws, src, y);
        /* m_q over [x0 - h, x1 + h - q + 1] */
        for (int q = 1, b = 0; q < p; q *= 2, b ^= 1) {
            FN(ext_row)(buf[b], m, m + q, x0 - h, x1 + h - 2 * q + 1, is_max);
            m = buf[b];
        }
        FN(ext_row)(FN(prow)(ws, dst, y), m - h, m + h - p + 1, x0, x1, is_max);
    }
}

/* Row i of the level-q extrema of a line pass: src's own row for q = 1, else the
 * level's ring of 2q rows, at row 2q - 4 of ws->morph_rows on */
static inline PIXEL *FN(level_row)(const struct track_detector_ws *ws, void *src, int q, int i)
{
    if (q == 1)
        return FN(prow)(ws, src, i);
    return FN(prow)(ws, ws->morph_rows, 2 * q - 4 + ((i + TRACK_TOPHAT_MAX_R) & (2 * q - 1)) - TRACK_TOPHAT_MAX_R);
}

/* The extremum along the lines of direction (dx, 1), dx -1, 0 or 1, over |i| <= h:
 * dst(x, y) = ext of src(x + dx i, y + i), for the region's pixels. Rows go down the
 * frame once: the row of m_2q that starts at row i needs m_q's rows i and i + q, so
 * each level keeps its last 2q rows. */
static inline __attribute__((always_inline)) void FN(line_pass)(struct track_detector_ws *ws, void *src, void *dst,
                                                                 int x0, int y0, int x1, int y1, int h, int dx,
                                                                 int is_max)
{
    int p = 1;
    while (2 * p <= 2 * h + 1)
        p *= 2;
    int ax = dx != 0 ? h : 0;
    for (int j = y0 - h; j <= y1 + h; j++) {
        /* level 2q's row i = j - 2q + 1, now that its last source row j has come */
        for (int q = 1; q < p; q *= 2) {
            int i = j - 2 * q + 1;
            if (i < y0 - h)
                break;
            /* its columns: those the window's two ends read, and those these need */
            int lo = x0 - ax + (dx < 0 ? 2 * q - 1 : 0), hi = x1 + ax - (dx > 0 ? 2 * q - 1 : 0);
            FN(ext_row)(FN(level_row)(ws, src, 2 * q, i), FN(level_row)(ws, src, q, i),
                        FN(level_row)(ws, src, q, i + q) + q * dx, lo, hi, is_max);
        }
        /* the window of row y: its first p pixels from row y - h, its last p from row
           y + h - p + 1 */
        int y = j - h;
        if (y >= y0)
            FN(ext_row)(FN(prow)(ws, dst, y), FN(level_row)(ws, src, p, y - h) - dx * h,
                        FN(level_row)(ws, src, p, y + h - p + 1) + dx * (h - p + 1), x0, x1, is_max);
    }
}

/* src's extremum over each pixel and its four neighbours, for the region's pixels */
static inline __attribute__((always_inline)) void FN(cross_pass)(struct track_detector_ws *ws, void *src, void *dst,
                                                                  int x0, int y0, int x1, int y1, int is_max)
{
    for (int y = y0; y <= y1; y++) {
        const PIXEL *restrict c = FN(prow)(ws, src, y), *restrict up = FN(prow)(ws, src, y - 1),
                              *restrict dn = FN(prow)(ws, src, y + 1);
        PIXEL *restrict o = FN(prow)(ws, dst, y);
        for (int x = x0; x <= x1; x++)
            o[x] = FN(ext)(FN(ext)(FN(ext)(c[x - 1], c[x + 1], is_max), FN(ext)(up[x], dn[x], is_max), is_max), c[x],
                           is_max);
    }
}

/* Dilation or erosion of the plane *cur by the octagon: the square of half side sq
 * (rows, then columns), then the diamond of radius 2k + 1 (the diagonal segments
 * {(i, i)} and {(i, -i)}, |i| <= k, whose sum is the diamond's even points, then the
 * cross, which fills its odd ones). Each pass goes from *cur to *oth and swaps them
 * (a pass over one pixel is none). */
static inline __attribute__((always_inline)) void FN(octagon)(struct track_detector_ws *ws, void **cur, void **oth,
                                                               int x0, int y0, int x1, int y1, int sq, int k,
                                                               int is_max)
{
    PIXEL id = is_max ? 0 : PIXEL_MAX;
    FN(fill_band)(ws, *cur, x0, y0, x1, y1, id);
    FN(fill_band)(ws, *oth, x0, y0, x1, y1, id);
    void *t;
    if (sq > 0) {
        FN(row_pass)(ws, *cur, *oth, x0, y0, x1, y1, sq, is_max);
        t = *cur, *cur = *oth, *oth = t;
        FN(line_pass)(ws, *cur, *oth, x0, y0, x1, y1, sq, 0, is_max);
        t = *cur, *cur = *oth, *oth = t;
    }
    if (k > 0) {
        FN(line_pass)(ws, *cur, *oth, x0, y0, x1, y1, k, 1, is_max);
        t = *cur, *cur = *oth, *oth = t;
        FN(line_pass)(ws, *cur, *oth, x0, y0, x1, y1, k, -1, is_max);
        t = *cur, *cur = *oth, *oth = t;
    }
    FN(cross_pass)(ws, *cur, *oth, x0, y0, x1, y1, is_max);
    t = *cur, *cur = *oth, *oth = t;
}

/* closing(f) - f over [x0, x1] x [y0, y1] into ws->plane, the closing of the region
 * [gx0, gx1] x [gy0, gy1] (sq, k: the octagon's square half side and diagonal half
 * length) */
static void FN(black_tophat)(struct track_detector_ws *ws, const track_frame *f, int sq, int k, int x0, int y0,
                             int x1, int y1, int gx0, int gy0, int gx1, int gy1)
{
    void *cur = ws->morph_a, *oth = ws->morph_b;
    for (int y = gy0; y <= gy1; y++) {
        const PIXEL *row = (const PIXEL *)(const void *)((const unsigned char *)f->data + (size_t)y * (size_t)f->stride);
        memcpy(FN(prow)(ws, cur, y) + gx0, row + gx0, sizeof(PIXEL) * (size_t)(gx1 - gx0 + 1));
    }
    FN(octagon)(ws, &cur, &oth, gx0, gy0, gx1, gy1, sq, k, 1); /* dilation */
    FN(octagon)(ws, &cur, &oth, gx0, gy0, gx1, gy1, sq, k, 0); /* closing */
    for (int y = y0; y <= y1; y++) {
        const PIXEL *row = (const PIXEL *)(const void *)((const unsigned char *)f->data + (size_t)y * (size_t)f->stride);
        const PIXEL *c = FN(prow)(ws, cur, y);
        PIXEL *o = (PIXEL *)ws->plane + (size_t)y * (size_t)f->width;
        for (int x = x0; x <= x1; x++) /* 0 where the clipped closing fell below f */
            o[x] = (PIXEL)(c[x] > row[x] ? c[x] - row[x] : 0);
    }
}

/* f - opening(f) over [x0, x1] x [y0, y1] into out (a plane of f's width), the opening
 * of the region [gx0, gx1] x [gy0, gy1]: the white top-hat, the bright mirror */
static void FN(white_tophat)(struct track_detector_ws *ws, const track_frame *f, int sq, int k, int x0, int y0,
                             int x1, int y1, int gx0, int gy0, int gx1, int gy1, void *out)
{
    void *cur = ws->morph_a, *oth = ws->morph_b;
    for (int y = gy0; y <= gy1; y++) {
        const PIXEL *row = (const PIXEL *)(const void *)((const unsigned char *)f->data + (size_t)y * (size_t)f->stride);
        memcpy(FN(prow)(ws, cur, y) + gx0, row + gx0, sizeof(PIXEL) * (size_t)(gx1 - gx0 + 1));
    }
    FN(octagon)(ws, &cur, &oth, gx0, gy0, gx1, gy1, sq, k, 0); /* erosion */
    FN(octagon)(ws, &cur, &oth, gx0, gy0, gx1, gy1, sq, k, 1); /* opening */
    for (int y = y0; y <= y1; y++) {
        const PIXEL *row = (const PIXEL *)(const void *)((const unsigned char *)f->data + (size_t)y * (size_t)f->stride);
        const PIXEL *c = FN(prow)(ws, cur, y);
        PIXEL *o = (PIXEL *)out + (size_t)y * (size_t)f->width;
        for (int x = x0; x <= x1; x++)
            o[x] = (PIXEL)(row[x] - c[x]);
    }
}
