/* render.h: test frames with markers whose true centroid is known exactly.
 * Gaussian spots are integrated exactly over each pixel (products of erf
 * differences); discs are supersampled 16 x 16 per pixel; streaks integrate the
 * moving marker over the exposure in fine time steps. Noise is Gaussian from a
 * fixed-seed generator (Box-Muller on a 64-bit LCG), then the value is rounded and
 * clipped to the 8-bit (or 16-bit) range like a camera's ADC. */
#ifndef ICV_TEST_TRACK_RENDER_H
#define ICV_TEST_TRACK_RENDER_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t s;
} rn_rng;

static inline double rn_uniform(rn_rng *r)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((r->s >> 11) + 0.5) / 9007199254740992.0;
}

static inline double rn_gauss(rn_rng *r)
{
    double a = rn_uniform(r), b = rn_uniform(r);
    return sqrt(-2 * log(a)) * cos(2 * M_PI * b);
}

/* A float image the markers are added to, before noise and quantization. */
typedef struct {
    int w, h;
    double *px;
} rn_img;

static inline rn_img rn_new(int w, int h, double level)
{
    rn_img im = {w, h, malloc(sizeof(double) * (size_t)w * h)};
    for (int i = 0; i < w * h; i++)
        im.px[i] = level;
    return im;
}

static inline void rn_gauss_spot(rn_img *im, double u, double v, double sigma, double peak, double weight)
{
    int r = (int)ceil(6 * sigma) + 1, x0 = (int)floor(u) - r, y0 = (int)floor(v) - r;
    double a = peak * 2 * M_PI * sigma * sigma * weight, k = 1 / (sqrt(2) * sigma);
    for (int y = y0; y <= y0 + 2 * r + 1; y++) {
        if (y < 0 || y >= im->h)
            continue;
        double py = 0.5 * (erf((y + 0.5 - v) * k) - erf((y - 0.5 - v) * k));
        for (int x = x0; x <= x0 + 2 * r + 1; x++) {
            if (x < 0 || x >= im->w)
                continue;
            double px = 0.5 * (erf((x + 0.5 - u) * k) - erf((x - 0.5 - u) * k));
            im->px[y * im->w + x] += a * px * py;
        }
    }
}

/* The share of pixel (x, y) a disc at (u, v) of radius covers (16 x 16 samples). */
static inline double rn_disc_coverage(int x, int y, double u, double v, double radius)
{
    int in = 0;
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 16; i++) {
            double dx = x - 0.5 + (i + 0.5) / 16 - u, dy = y - 0.5 + (j + 0.5) / 16 - v;
            in += dx * dx + dy * dy <= radius * radius;
        }
    return in / 256.0;
}

static inline void rn_disc(rn_img *im, double u, double v, double radius, double level, double weight)
{
    int x0 = (int)floor(u - radius) - 1, x1 = (int)ceil(u + radius) + 1;
    int y0 = (int)floor(v - radius) - 1, y1 = (int)ceil(v + radius) + 1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            if (x >= 0 && y >= 0 && x < im->w && y < im->h)
                im->px[y * im->w + x] += level * weight * rn_disc_coverage(x, y, u, v, radius);
}

/* An opaque disc of the given level over what im holds: level where it covers a pixel,
 * what was behind over the rest. */
static inline void rn_disc_opaque(rn_img *im, double u, double v, double radius, double level)
{
    for (int y = (int)floor(v - radius) - 1; y <= (int)ceil(v + radius) + 1; y++)
        for (int x = (int)floor(u - radius) - 1; x <= (int)ceil(u + radius) + 1; x++)
            if (x >= 0 && y >= 0 && x < im->w && y < im->h) {
                double a = rn_disc_coverage(x, y, u, v, radius);
                im->px[y * im->w + x] = level * a + im->px[y * im->w + x] * (1 - a);
            }
}

/* A disc moving with constant velocity from (u0, v0) to (u1, v1) during the exposure:
 * the time average of the moving disc, 8 steps per pixel of travel. */
static inline void rn_disc_streak(rn_img *im, double u0, double v0, double u1, double v1, double radius, double level)
{
    double len = hypot(u1 - u0, v1 - v0);
    int n = (int)ceil(8 * len) + 1;
    for (int k = 0; k < n; k++) {
        double s = (k + 0.5) / n; /* midpoints: the average of the n steps is the mid-exposure */
        rn_disc(im, u0 + s * (u1 - u0), v0 + s * (v1 - v0), radius, level, 1.0 / n);
    }
}

/* Noise, rounding and clipping into an 8-bit buffer (stride = w). */
/* The level of a point of a rod's frame: a along the rod, c across it (px from its
 * centre), user: the shape's parameters */
typedef double (*rn_rod_level)(double a, double c, const void *user);

/* Every pixel of im set to level's mean over 4 x 4 points of it, in the frame of a rod
 * centred at (cu, cv) px at angle th (rad) */
static inline void rn_rod_coverage(rn_img *im, double cu, double cv, double th, rn_rod_level level, const void *user)
{
    double cx = cos(th), sy = sin(th);
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            double sum = 0;
            for (int j = 0; j < 4; j++)
                for (int i = 0; i < 4; i++) {
                    double px = x + (i + 0.5) / 4 - 0.5 - cu, py = y + (j + 0.5) / 4 - 0.5 - cv;
                    sum += level(px * cx + py * sy, -px * sy + py * cx, user);
                }
            im->px[y * im->w + x] = sum / 16;
        }
}

typedef struct {
    double half_w, rod_level, band_level, bg_level;
} rn_banded_rod_shape;

static inline double rn_banded_rod_level(double a, double c, const void *user)
{
    const rn_banded_rod_shape *r = user;
    const double half_l = 100, band_half = 4, at[3] = {-60, 0, 60};
    if (!(fabs(c) < r->half_w && fabs(a) < half_l))
        return r->bg_level;
    for (int k = 0; k < 3; k++)
        if (fabs(a - at[k]) < band_half)
            return r->band_level;
    return r->rod_level;
}

/* A rod of level rod_level, 2 half_w wide and 200 px long, centred at (cu, cv) at angle
 * th, with three bands 8 px long across its whole width at band_level, at -60, 0 and 60
 * px along it, over whatever im holds: 4 x 4 supersampled coverage (pixels outside the
 * rod keep bg_level). The bands' centres into bu[3], bv[3]. */
static inline void rn_banded_rod(rn_img *im, double cu, double cv, double th, double half_w, double rod_level,
                                 double band_level, double bg_level, double *bu, double *bv)
{
    const double at[3] = {-60, 0, 60};
    rn_banded_rod_shape shape = {half_w, rod_level, band_level, bg_level};
    rn_rod_coverage(im, cu, cv, th, rn_banded_rod_level, &shape);
    for (int k = 0; k < 3; k++) {
        bu[k] = cu + at[k] * cos(th);
        bv[k] = cv + at[k] * sin(th);
    }
}

static inline void rn_to_u8(const rn_img *im, double noise, rn_rng *rng, uint8_t *out)
{
    for (int i = 0; i < im->w * im->h; i++) {
        double p = im->px[i] + (noise > 0 ? noise * rn_gauss(rng) : 0);
        p = floor(p + 0.5);
        out[i] = (uint8_t)(p < 0 ? 0 : p > 255 ? 255 : p);
    }
}

static inline void rn_to_u16(const rn_img *im, double noise, rn_rng *rng, uint16_t *out)
{
    for (int i = 0; i < im->w * im->h; i++) {
        double p = im->px[i] + (noise > 0 ? noise * rn_gauss(rng) : 0);
        p = floor(p + 0.5);
        out[i] = (uint16_t)(p < 0 ? 0 : p > 65535 ? 65535 : p);
    }
}

static inline void rn_free(rn_img *im)
{
    free(im->px);
    im->px = NULL;
}

#endif
