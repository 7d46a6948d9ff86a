/* bead_marker.c: markers that are spheres threaded on a rod (beads). The part of the
 * bead's disc the camera sees is the disc less what the rod in front of it covers: the
 * rod runs out of the bead towards the camera on one side of the image, so the visible
 * centroid moves the other way, by a fraction of a band's shift (band_marker.c).
 *
 * Model (orthographic, the view along +z towards the camera): a unit sphere, a rod of
 * radius rho through its centre along a = (sin, 0, cos). A ray at (x, y) meets the rod
 * only where |y| < rho, first at depth (x cos + s) / sin with s = sqrt(rho^2 - y^2); it
 * is hidden where that is nearer the camera than the sphere's surface sqrt(1 - x^2 -
 * y^2). On a row |y| < rho the boundary solves x^2 + 2 s cos x + s^2 - sin^2 (1 - y^2)
 * = 0, x = -s cos -/+ sin q with q = sqrt(1 - rho^2), so each row's visible part is one
 * interval [lo, hi]: its area and moment are exact; the rows beyond rho are whole
 * chords (the moment 0, the area in closed form). Only the rows are summed, at fixed
 * angles y = rho sin(phi) (smooth in phi where s has its square-root edge at rho). */
#include <math.h>

#include "track/track_3d.h"

/* rows of the strip |y| < rho: the factor converges to 1e-5 by 64 */
#define BEAD_ROWS 64

double track_bead_factor(double rho, double cos_view)
{
    if (!(rho > 0) || rho >= 1)
        return 1; /* the bead no wider than the rod: only a band of it shows */
    double c = fmin(fmax(fabs(cos_view), 1e-3), 1); /* the ratio's limit as cos -> 0 */
    double sn = sqrt(fmax(1 - c * c, 0)), q = sqrt(1 - rho * rho);
    /* rows |y| >= rho, both sides: 2 int_rho^1 2 sqrt(1 - y^2) dy */
    double area = 2 * (M_PI / 2 - rho * q - asin(rho)), moment = 0;
    double dphi = M_PI / 2 / BEAD_ROWS;
    for (int i = 0; i < BEAD_ROWS; i++) {
        double phi = (i + 0.5) * dphi;
        double y = rho * sin(phi), s = rho * cos(phi), chord = sqrt(1 - y * y);
        double w = 2 * s * dphi; /* dy = rho cos(phi) dphi, both signs of y */
        double hi = -s * c + sn * q;
        /* the nearer root is a crossing only where the rod there is in front (x cos + s
           >= 0); else the rod is behind the bead all the way to the disc's edge */
        double lo = s * sn >= c * q ? -s * c - sn * q : -chord;
        if (hi > lo) {
            area += w * (hi - lo);
            moment += w * (hi * hi - lo * lo) / 2;
        }
    }
    /* the band's shift along the same image line: -(pi rho / 4) cos */
    return moment / area / (-(M_PI * rho / 4) * c);
}
