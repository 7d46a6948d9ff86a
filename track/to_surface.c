/* to_surface.c: a point and its covariance from the reference camera's frame into the
 * surface frame, for the 3D pass's candidates. */
#include <string.h>

#include "track/track_3d.h"


/* to the surface frame: x_s = Rs^T (x_cam - ts), cov_s = Rs^T cov Rs */
void track_to_surface(const calib_surface *s, const double X[3], const double cov[3][3], track_candidate *out)
{
    icv_mat3 Rt = icv_m3_transpose(s->R), C;
    out->X = icv_m3_apply(Rt, icv_v3_sub(icv_v3_from_array(X), s->t));
    memcpy(C.m, cov, sizeof C.m);
    C = icv_m3_mul(icv_m3_mul(Rt, C), s->R);
    memcpy(out->cov, C.m, sizeof out->cov);
}
