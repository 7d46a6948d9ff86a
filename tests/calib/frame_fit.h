/* frame_fit.h: how a surface frame errs as the tracks measured in it see it, for
 * the surface-frame tests: pixels are triangulated with a (calibrated) rig and put
 * into the found frame; calib_similarity_fit (calib_internal.h) then gives the
 * frame's turn and offset against the true points. */
#ifndef ICV_TEST_FRAME_FIT_H
#define ICV_TEST_FRAME_FIT_H

#include "calib/calib.h"

/* The pixels px[i][0..1] (distorted, as detected) triangulated with the rig
 * (in1, in2, x2 = R x1 + T; midpoint of the rays) and put in the surface frame s:
 * xs[i] (m). A point that does not triangulate gets NaN. */
void ff_triangulate_to_surface(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                               const double T[3], const calib_surface *s, const calib_pt2 (*px)[2], size_t n,
                               icv_vec3 *xs);

#endif
