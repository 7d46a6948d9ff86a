/* bead_backdrop.c: how much of a bead's disc beside the rod the detector's plane keeps.
 * A bead threaded on a rod stands out over the rod's image from the rod behind it, and
 * beside the rod from the backdrop. A plane made from the frame pixel by pixel (the frame
 * itself, inverted, a colour's closeness, the difference from the still background)
 * weighs a uniform bead alike wherever it lies. A top-hat plane does not: it is the
 * frame less a morphological estimate of what lies round each pixel (an opening, or a
 * closing for dark markers, wider than the marker), which beside the rod's image reaches
 * the backdrop, so there the bead keeps only its height over the backdrop, max(0, I -
 * backdrop) (dark: backdrop - I), while over the rod it keeps its height over the rod.
 * A bead on a backdrop as light as itself then shows only over the rod, and its centroid
 * is that part's: the visible disc's offset over that part's area alone (bead_marker.c,
 * track_bead_factor's beside). The share read here is that height over the plane's
 * value at the blob's centroid (which lies over the rod's image), the backdrop the median
 * of a circle round the bead: the rod crosses such a circle in two arcs, together under
 * half of it for a bead wider than the rod (at 1.4 radii, 2 asin(rho / 1.4) / pi, 0.36
 * at 2r/d 0.77, synth's narrowest bead). */
#include <gsl/gsl_sort.h>
#include <math.h>

#include "track/detect_internal.h"

/* samples on the circle round the bead: the median of 32 is the backdrop's level when the
   rod's two arcs hold fewer than 16 of them */
#define BESIDE_SAMPLES 32

double track_detector_bead_beside(const track_detector *d, const track_frame *f, double u, double v, double radius_px)
{
    const struct track_detector_ws *w = d->ws;
    int bright = d->look == TRACK_LOOK_BRIGHT && d->bright_tophat && w->white_tophat_r > 0;
    int dark = d->look == TRACK_LOOK_DARK && w->tophat_r > 0;
    if (!bright && !dark)
        return 1; /* a plane pixel by pixel: the bead weighs alike on and beside the rod */
    if (!(radius_px > 0) || f->width > w->width || f->height > w->height)
        return -1;
    double rr = 1.4 * radius_px + 1;
    int x = (int)floor(u + 0.5), y = (int)floor(v + 0.5), reach = (int)ceil(rr) + 1;
    if (x - reach < 0 || y - reach < 0 || x + reach >= f->width || y + reach >= f->height)
        return -1;
    /* the plane the detector read this frame (look_fill), row pitch the frame's width */
    track_frame plane = {w->plane, f->width, f->height, f->width * (f->depth / 8), f->depth};
    double level = 0, height = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            level += pix(f, x + dx, y + dy) / 9;
            height += pix(&plane, x + dx, y + dy) / 9;
        }
    double ring[BESIDE_SAMPLES];
    for (int k = 0; k < BESIDE_SAMPLES; k++) {
        double a = 2 * M_PI * k / BESIDE_SAMPLES;
        ring[k] = pix(f, (int)floor(u + rr * cos(a) + 0.5), (int)floor(v + rr * sin(a) + 0.5));
    }
    gsl_sort(ring, 1, BESIDE_SAMPLES);
    double backdrop = 0.5 * (ring[BESIDE_SAMPLES / 2 - 1] + ring[BESIDE_SAMPLES / 2]);
    /* a height under three noise sigmas reads no share */
    if (!(height > 3 * fmax(w->noise, 1)))
        return -1;
    double over = bright ? level - backdrop : backdrop - level;
    return fmin(fmax(over / height, 0), 1);
}
