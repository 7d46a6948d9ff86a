/* geom.c: 3x3 matrices, rotations, euler213 and quaternions (geom.h).
 * euler213 follows the contract: R = Ry(t1) Rx(t2) Rz(t3), whose entries are
 *   R[0] = [c1c3 + s1s2s3, -c1s3 + s1s2c3, s1c2]
 *   R[1] = [c2s3,           c2c3,          -s2 ]
 *   R[2] = [-s1c3 + c1s2s3, s1s3 + c1s2c3,  c1c2]
 * (Han Sun eq. 4.19 prints the transpose, body axes as rows). */
#include "core/geom.h"

double icv_m3_det(icv_mat3 a)
{
    const double(*m)[3] = a.m;
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

int icv_m3_inverse(icv_mat3 a, icv_mat3 *out)
{
    double d = icv_m3_det(a);
    if (!(fabs(d) > 1e-300))
        return -1;
    const double(*m)[3] = a.m;
    icv_mat3 r;
    r.m[0][0] = (m[1][1] * m[2][2] - m[1][2] * m[2][1]) / d;
    r.m[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / d;
    r.m[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / d;
    r.m[1][0] = (m[1][2] * m[2][0] - m[1][0] * m[2][2]) / d;
    r.m[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / d;
    r.m[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / d;
    r.m[2][0] = (m[1][0] * m[2][1] - m[1][1] * m[2][0]) / d;
    r.m[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / d;
    r.m[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / d;
    *out = r;
    return 0;
}

int icv_m3_is_spd(icv_mat3 a, double rel_tol)
{
    double big = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            if (!isfinite(a.m[i][j]))
                return 0;
            big = fmax(big, fabs(a.m[i][j]));
        }
    if (big == 0)
        return 0;
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (fabs(a.m[i][j] - a.m[j][i]) > rel_tol * big)
                return 0;
    double m1 = a.m[0][0];
    double m2 = a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0];
    return m1 > 0 && m2 > 0 && icv_m3_det(a) > 0;
}

icv_mat3 icv_m3_rotate_tensor(icv_mat3 r, icv_mat3 a)
{
    return icv_m3_mul(icv_m3_mul(r, a), icv_m3_transpose(r));
}

icv_mat3 icv_rot_x(double a)
{
    double c = cos(a), s = sin(a);
    icv_mat3 r = {{{1, 0, 0}, {0, c, -s}, {0, s, c}}};
    return r;
}

icv_mat3 icv_rot_y(double a)
{
    double c = cos(a), s = sin(a);
    icv_mat3 r = {{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}};
    return r;
}

icv_mat3 icv_rot_z(double a)
{
    double c = cos(a), s = sin(a);
    icv_mat3 r = {{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}};
    return r;
}

icv_mat3 icv_rot_from_axis_angle(icv_vec3 aa)
{
    double th = icv_v3_norm(aa);
    icv_mat3 k = icv_m3_skew(aa);
    icv_mat3 k2 = icv_m3_mul(k, k);
    double a, b;
    if (th < 1e-6) { /* Taylor series: sin(t)/t and (1-cos t)/t^2 */
        a = 1 - th * th / 6;
        b = 0.5 - th * th / 24;
    } else {
        a = sin(th) / th;
        b = (1 - cos(th)) / (th * th);
    }
    return icv_m3_add(icv_m3_identity(), icv_m3_add(icv_m3_scale(k, a), icv_m3_scale(k2, b)));
}

icv_vec3 icv_rot_to_axis_angle(icv_mat3 r)
{
    /* Through the quaternion: stable at every angle, including pi. */
    icv_quat q = icv_quat_from_matrix(r);
    if (q.w < 0)
        q = (icv_quat){-q.w, -q.x, -q.y, -q.z};
    double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (s < 1e-300)
        return icv_v3(0, 0, 0);
    double th = 2 * atan2(s, q.w);
    return icv_v3(q.x * th / s, q.y * th / s, q.z * th / s);
}

icv_mat3 icv_rot_orthonormalize(icv_mat3 a)
{
    /* Through the quaternion of the matrix (Bar-Itzhack's method would be exact
     * for the least-squares problem; this is enough to remove rounding drift). */
    icv_quat q = icv_quat_from_matrix(a);
    return icv_quat_to_matrix(q);
}

icv_mat3 icv_euler213_to_matrix(icv_vec3 e)
{
    return icv_m3_mul(icv_m3_mul(icv_rot_y(e.x), icv_rot_x(e.y)), icv_rot_z(e.z));
}

int icv_euler213_from_matrix(icv_mat3 r, icv_vec3 *e)
{
    double s2 = -r.m[1][2];
    double c2 = hypot(r.m[1][0], r.m[1][1]);
    double t2 = atan2(s2, c2);
    if (c2 < 1e-9) {
        /* Singular: t1 and t3 both turn about the same axis; put it all in t1.
         * With t3 = 0: R[0][0] = c1 and R[0][1] = s1 s2. */
        double sgn = s2 >= 0 ? 1.0 : -1.0;
        *e = icv_v3(atan2(r.m[0][1] * sgn, r.m[0][0]), t2, 0.0);
        return 1;
    }
    *e = icv_v3(atan2(r.m[0][2], r.m[2][2]), t2, atan2(r.m[1][0], r.m[1][1]));
    return 0;
}

icv_quat icv_quat_from_matrix(icv_mat3 a)
{
    /* Shepperd's method: take the largest of the four squared components. */
    const double(*m)[3] = a.m;
    double tr = m[0][0] + m[1][1] + m[2][2];
    icv_quat q;
    if (tr > m[0][0] && tr > m[1][1] && tr > m[2][2]) {
        double s = 2 * sqrt(1 + tr);
        q = (icv_quat){0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s};
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = 2 * sqrt(1 + m[0][0] - m[1][1] - m[2][2]);
        q = (icv_quat){(m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s};
    } else if (m[1][1] > m[2][2]) {
        double s = 2 * sqrt(1 + m[1][1] - m[0][0] - m[2][2]);
        q = (icv_quat){(m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s};
    } else {
        double s = 2 * sqrt(1 + m[2][2] - m[0][0] - m[1][1]);
        q = (icv_quat){(m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s};
    }
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    q.w /= n; q.x /= n; q.y /= n; q.z /= n;
    if (q.w < 0) /* one sign for one rotation */
        q = (icv_quat){-q.w, -q.x, -q.y, -q.z};
    return q;
}

icv_mat3 icv_quat_to_matrix(icv_quat q)
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    double n = w * w + x * x + y * y + z * z;
    double s = n > 0 ? 2.0 / n : 0;
    icv_mat3 r = {{{1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)},
                   {s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x)},
                   {s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y)}}};
    return r;
}
