/* corner_symmetry.c: sub-pixel refinement of chessboard corners by point symmetry,
 * and the repair of corners the detector misplaced.
 * A checker corner is symmetric under a half turn about itself (two straight
 * edges crossing, whatever their angle), so the corner is where the image, smoothed
 * by a Gaussian of 1.6 px (which removes bilinear interpolation's phase bias),
 * best matches itself turned by 180 degrees. A three-level grid search finds it.
 * On rendered tilted boards this brings cornerSubPix's 0.05 px rms (0.12 px worst)
 * to 0.008 px rms (tests/synth/test_board.c). */
#include <math.h>
#include <stdlib.h>

#include "calib/calib.h"

#define SIGMA 1.6
#define KR 6 /* kernel radius, px: about 4 sigma */

#define H_MAX 4 /* px: the largest half window (sym_ws_init) */

/* Sum of squared differences between the patch and itself turned about (cu, cv).
 * Every sample, at (cu + dx, cv + dy) for integer offsets, shares the candidate's
 * fractional part: one set of bilinear weights, each sample computed once, and the
 * pair (dx, dy), (-dx, -dy) counted twice (the sum is symmetric). The same corners
 * as sampling each point on its own (to the last of 9 decimals on every calibration
 * set measured) in a quarter of the time: this search was 60% of a board image's
 * detection time (docs/calib.md). */
static double asym(const float *p, int w, int h, double cu, double cv)
{
    double g[(2 * H_MAX + 1) * (2 * H_MAX + 1)];
    int x = (int)floor(cu), y = (int)floor(cv), n = 2 * h + 1;
    double fx = cu - x, fy = cv - y;
    for (int j = 0; j < n; j++) {
        const float *q = p + (size_t)(y - h + j) * w + (x - h);
        for (int i = 0; i < n; i++)
            g[j * n + i] =
                (1 - fy) * ((1 - fx) * q[i] + fx * q[i + 1]) + fy * ((1 - fx) * q[i + w] + fx * q[i + w + 1]);
    }
    /* g[k] is the sample at offset (dx, dy); g[n*n - 1 - k] the one at (-dx, -dy) */
    double s = 0;
    for (int k = 0; k < n * n / 2; k++) {
        double a = g[k] - g[n * n - 1 - k];
        s += a * a;
    }
    return 2 * s;
}

/* Refines one corner from *p within +-0.62 px (three grid levels); *score gets the
 * mean squared asymmetry (gray levels^2) at the result. Returns 1 when moved, 0 when
 * the patch leaves the image or the best point is more than 1 px away (*p kept). */
static int refine_one(const calib_image *img, calib_pt2 *p, int h, float *raw, float *tmp, float *sm,
                      const double *k, double sk, double *score)
{
    int P = h + 2; /* search +-0.5 px, bilinear +1 */
    int w = 2 * P + 1, wb = w + 2 * KR;
    int x0 = (int)lround(p->u) - P - KR, y0 = (int)lround(p->v) - P - KR;
    *score = INFINITY;
    if (x0 < 0 || y0 < 0 || x0 + wb > img->width || y0 + wb > img->height)
        return 0; /* too near the edge: keep cornerSubPix's */
    for (int y = 0; y < wb; y++)
        for (int x = 0; x < wb; x++)
            raw[y * wb + x] = img->data[(size_t)(y0 + y) * img->stride + x0 + x];
    for (int y = 0; y < wb; y++) /* separable Gaussian: rows, then columns */
        for (int x = 0; x < w; x++) {
            double a = 0;
            for (int i = -KR; i <= KR; i++)
                a += k[i + KR] * raw[y * wb + x + KR + i];
            tmp[y * w + x] = (float)(a / sk);
        }
    for (int y = 0; y < w; y++)
        for (int x = 0; x < w; x++) {
            double a = 0;
            for (int i = -KR; i <= KR; i++)
                a += k[i + KR] * tmp[(y + KR + i) * w + x];
            sm[y * w + x] = (float)(a / sk);
        }
    /* the corner in patch coordinates */
    double bu = p->u - (x0 + KR), bv = p->v - (y0 + KR), step = 0.05, best = INFINITY;
    double u0 = bu, v0 = bv;
    for (int level = 0; level < 3; level++, step /= 5) {
        double cu = bu, cv = bv;
        for (int j = -10; j <= 10; j++)
            for (int i = -10; i <= 10; i++) {
                double a = asym(sm, w, h, cu + i * step, cv + j * step);
                if (a < best) {
                    best = a;
                    bu = cu + i * step;
                    bv = cv + j * step;
                }
            }
    }
    *score = best / ((2 * h + 1) * (2 * h + 1));
    if (hypot(bu - u0, bv - v0) > 1.0)
        return 0; /* not a clean corner here: keep cornerSubPix's */
    p->u = bu + x0 + KR;
    p->v = bv + y0 + KR;
    return 1;
}

/* The workspace of one refinement run. */
typedef struct {
    int h;
    float *raw, *tmp, *sm;
    double k[2 * KR + 1], sk;
} sym_ws;

static int sym_ws_init(sym_ws *ws, double half_window_px)
{
    ws->h = (int)floor(half_window_px);
    if (ws->h > H_MAX)
        ws->h = H_MAX;
    ws->raw = ws->tmp = ws->sm = NULL;
    if (ws->h < 2)
        return 0;
    int P = ws->h + 2, w = 2 * P + 1, wb = w + 2 * KR;
    ws->raw = malloc(sizeof(float) * (size_t)wb * wb);
    ws->tmp = malloc(sizeof(float) * (size_t)w * wb);
    ws->sm = malloc(sizeof(float) * (size_t)w * w);
    ws->sk = 0;
    for (int i = -KR; i <= KR; i++)
        ws->sk += ws->k[i + KR] = exp(-i * i / (2 * SIGMA * SIGMA));
    return ws->raw && ws->tmp && ws->sm;
}

static void sym_ws_free(sym_ws *ws)
{
    free(ws->raw);
    free(ws->tmp);
    free(ws->sm);
}

int calib_corners_refine_symmetry(const calib_image *img, calib_pt2 *uv, int n, double half_window_px)
{
    calib_symmetry_ws *ws = calib_symmetry_ws_alloc(half_window_px);
    int moved = calib_corners_refine_symmetry_ws(ws, img, uv, n);
    calib_symmetry_ws_free(ws);
    return moved;
}

/* the workspace kept for a caller that refines corners in every frame */
struct calib_symmetry_ws {
    sym_ws w;
};

calib_symmetry_ws *calib_symmetry_ws_alloc(double half_window_px)
{
    calib_symmetry_ws *ws = malloc(sizeof *ws);
    if (ws && !sym_ws_init(&ws->w, half_window_px)) {
        sym_ws_free(&ws->w);
        free(ws);
        return NULL;
    }
    return ws;
}

void calib_symmetry_ws_free(calib_symmetry_ws *ws)
{
    if (!ws)
        return;
    sym_ws_free(&ws->w);
    free(ws);
}

int calib_corners_refine_symmetry_ws(calib_symmetry_ws *ws, const calib_image *img, calib_pt2 *uv, int n)
{
    int moved = 0;
    for (int c = 0; ws && c < n; c++) {
        double score;
        moved += refine_one(img, &uv[c], ws->w.h, ws->w.raw, ws->w.tmp, ws->w.sm, ws->w.k, ws->w.sk, &score);
    }
    return moved;
}

/* The position of corner (r, c) its grid neighbours predict: along each grid
 * direction the midpoint of the two neighbours, or at the board's edge the linear
 * extrapolation from the two next ones; the mean over the directions. The error is
 * the grid's second difference (perspective and distortion): tenths of a pixel. */
static calib_pt2 predict(const calib_pt2 *uv, int cols, int rows, int r, int c)
{
    static const int dir[2][2] = {{0, 1}, {1, 0}};
    double su = 0, sv = 0;
    int n = 0;
    for (int d = 0; d < 2; d++) {
        int dr = dir[d][0], dc = dir[d][1];
#define IN(rr, cc) ((rr) >= 0 && (rr) < rows && (cc) >= 0 && (cc) < cols)
#define AT(rr, cc) uv[(rr) * cols + (cc)]
        if (IN(r - dr, c - dc) && IN(r + dr, c + dc)) {
            su += 0.5 * (AT(r - dr, c - dc).u + AT(r + dr, c + dc).u);
            sv += 0.5 * (AT(r - dr, c - dc).v + AT(r + dr, c + dc).v);
        } else if (IN(r - 2 * dr, c - 2 * dc)) {
            su += 2 * AT(r - dr, c - dc).u - AT(r - 2 * dr, c - 2 * dc).u;
            sv += 2 * AT(r - dr, c - dc).v - AT(r - 2 * dr, c - 2 * dc).v;
        } else if (IN(r + 2 * dr, c + 2 * dc)) {
            su += 2 * AT(r + dr, c + dc).u - AT(r + 2 * dr, c + 2 * dc).u;
            sv += 2 * AT(r + dr, c + dc).v - AT(r + 2 * dr, c + 2 * dc).v;
        } else {
            continue;
        }
        n++;
#undef IN
#undef AT
    }
    calib_pt2 p = {su / (n ? n : 1), sv / (n ? n : 1)};
    return p;
}

int calib_corners_repair(const calib_image *img, calib_pt2 *uv, int cols, int rows, double half_window_px)
{
    sym_ws ws;
    int repaired = 0, n = cols * rows;
    if (!sym_ws_init(&ws, half_window_px) || cols < 3 || rows < 3) {
        sym_ws_free(&ws);
        return 0;
    }
    unsigned char *tried = calloc((size_t)n, 1);
    /* worst first: a misplaced corner also spoils its neighbours' predictions */
    for (int round = 0; tried && round < n / 4 + 1; round++) { /* bounded time on large boards */
        int worst = -1;
        double wd = 0;
        for (int i = 0; i < n; i++) {
            calib_pt2 p = predict(uv, cols, rows, i / cols, i % cols);
            int j = i % cols ? i - 1 : i + 1; /* a neighbour along the row: the local spacing */
            double d = hypot(p.u - uv[i].u, p.v - uv[i].v), sp = hypot(uv[j].u - uv[i].u, uv[j].v - uv[i].v);
            /* above the grid's second differences (perspective, distortion), which grow
             * with the spacing: 0.5 px, or 5% of the spacing on large squares (there
             * cornerSubPix's 11 px window reaches a corner that far off anyway) */
            if (!tried[i] && d > fmax(0.5, 0.05 * sp) && d > wd)
                wd = d, worst = i;
        }
        if (worst < 0)
            break;
        tried[worst] = 1;
        calib_pt2 old = uv[worst], cand = predict(uv, cols, rows, worst / cols, worst % cols), keep = old;
        double s_old, s_new;
        /* the corner is where the image is most point-symmetric: take the prediction's
         * refined point only when it is clearly more symmetric than the corner found */
        refine_one(img, &keep, ws.h, ws.raw, ws.tmp, ws.sm, ws.k, ws.sk, &s_old);
        for (int it = 0; it < 3; it++) /* +-0.62 px per pass */
            if (!refine_one(img, &cand, ws.h, ws.raw, ws.tmp, ws.sm, ws.k, ws.sk, &s_new))
                break;
        refine_one(img, &cand, ws.h, ws.raw, ws.tmp, ws.sm, ws.k, ws.sk, &s_new);
        if (s_new < 0.5 * s_old && hypot(cand.u - old.u, cand.v - old.v) > 0.5) {
            uv[worst] = cand;
            repaired++;
        }
    }
    free(tried);
    sym_ws_free(&ws);
    return repaired;
}
