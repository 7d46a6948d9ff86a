/* coefficients_flight.c: a slide's incline from the free flight of the same clip
 * (the third way, docs/coefficients.md): the body is dropped or tossed onto the incline, so
 * the frames before it lands show gravity in the surface frame (the board lying on
 * the incline) and the angle between -g and the surface's normal (its y axis) is the
 * incline. The fit is `gravity: auto`'s (analysis_gravity_from_flight). */
#include <stdlib.h>

#include "analysis/coefficients.h"
#include "analysis/analysis_internal.h"

int analysis_slide_flight_gravity(const analysis_tracks *tr, const analysis_body *b, double marker_sigma,
                                  analysis_slide_flight *out, icv_err *err)
{
    posed_frame *pf = malloc(sizeof *pf * (size_t)(tr->n_frames ? tr->n_frames : 1));
    if (!pf)
        return icv_err_set(err, ICV_ENOMEM, "slide: out of memory");
    analysis_params prm;
    analysis_params_default(&prm);
    prm.pos_sigma = marker_sigma;
    int n = 0, rc = 0;
    analysis_pose_frames(tr, b, &prm, pf, &n);
    double com_sigma = marker_sigma / sqrt((double)b->tmpl.n_markers);
    /* a hold before the drop is not flight */
    int lo = 0, hi = n - 1;
    analysis_still_ends(pf, n, com_sigma, &lo, &hi);
    if (lo > 0) {
        /* held: that rule stops a frame or more early or late on noise (a 3D step of 4
         * sigma), and a held frame in the parabola pulls g (0.3 mm off it a frame before
         * the release): the flight starts where the centre leaves the hold's place (the
         * first 3 frames') by 5 sigma for good (3 frames in a row) */
        icv_vec3 hold = icv_v3_scale(icv_v3_add(icv_v3_add(pf[0].pose.p, pf[1].pose.p), pf[2].pose.p), 1.0 / 3);
        int run = 0;
        for (lo = 0; lo < n && run < 3; lo++)
            run = icv_v3_norm(icv_v3_sub(pf[lo].pose.p, hold)) > 5 * com_sigma ? run + 1 : 0;
        lo -= run;
    }
    /* the landing: the first frame whose lowest point is within 5 marker sigmas of the
     * surface (the gap is that point's height, the shape's and the pose's errors in it) */
    int land = -1;
    double min_gap = INFINITY;
    /* tossed off the incline: the flight starts at the first frame off it */
    while (lo < n && pf[lo].gap <= 5 * marker_sigma)
        lo++;
    for (int i = lo; i < n && land < 0; i++) {
        min_gap = fmin(min_gap, pf[i].gap);
        if (pf[i].gap <= 5 * marker_sigma)
            land = i;
    }
    /* flight: lo .. land - 2 (the frame before the landing may have its exposure
     * across it; the fit leaves out a last frame off the parabola too) */
    int n_flight = land - 1 - lo;
    if (n == 0) {
        rc = icv_err_set(err, ICV_ENOTFOUND, "slide: incline from flight: no frame has enough markers for a pose");
    } else if (lo == n) {
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "slide: incline from flight: no free flight: the body is on the incline in every frame");
    } else if (land < 0) {
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "slide: incline from flight: the body never lands on the incline (its lowest point stays "
                         "%.1f mm above it or more)",
                         min_gap * 1e3);
    } else if (n_flight < ANALYSIS_MIN_FLIGHT_FRAMES) {
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "slide: incline from flight: no free flight long enough before the body lands on the "
                         "incline at frame %d: %d frames of flight%s, needs %d",
                         tr->frame[pf[land].row], n_flight > 0 ? n_flight : 0,
                         lo > 0 ? " after it is released" : "", ANALYSIS_MIN_FLIGHT_FRAMES);
    } else {
        analysis_gravity_info info;
        /* g's covariance from the flight's residuals and their correlation between
         * frames (gravity: auto's, flight_noise.c), not from the 0.3 mm per
         * marker the fit weights by; all of it, the covariance between axes too, goes
         * into theta's and |g|'s first-order sigmas (docs/coefficients.md) */
        if ((rc = analysis_gravity_from_flight(pf + lo, n_flight, NULL, 0, com_sigma, &out->g, &out->g_sd, out->g_cov,
                                               &info, err))) {
            icv_err_prefix(err, "slide: incline from flight: ");
        } else {
            out->first_frame = tr->frame[pf[lo + info.first].row];
            out->last_frame = tr->frame[pf[lo + info.last].row];
            out->landing_frame = tr->frame[pf[land].row];
            /* the frame on the incline may have its exposure across the landing */
            out->t_slide = land + 1 < n ? pf[land + 1].t : INFINITY;
        }
    }
    free(pf);
    return rc;
}
