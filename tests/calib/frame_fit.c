/* frame_fit.c: see frame_fit.h. */
#include "tests/calib/frame_fit.h"
#include "calib/calib_internal.h"

void ff_triangulate_to_surface(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                               const double T[3], const calib_surface *s, const calib_pt2 (*px)[2], size_t n,
                               icv_vec3 *xs)
{
    icv_mat3 RsT = icv_m3_transpose(s->R);
    for (size_t i = 0; i < n; i++) {
        calib_pt2 n1, n2;
        icv_vec3 X;
        icv_err e;
        if (calib_undistort_points(in1, &px[i][0], 1, 1, &n1, &e) || calib_undistort_points(in2, &px[i][1], 1, 1, &n2, &e) ||
            calib_triangulate_midpoint(R, T, n1, n2, &X))
            xs[i] = icv_v3(NAN, NAN, NAN);
        else
            xs[i] = icv_m3_apply(RsT, icv_v3_sub(X, s->t));
    }
}
