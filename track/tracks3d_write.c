/* tracks3d_write.c: DIR/tracks3d.csv exactly as the contract gives it (one row per
 * time, m<k>_x,m<k>_y,m<k>_z per marker in metres, empty where not seen) and the side
 * file tracks3d_quality.csv with each point's reprojection residual and covariance.
 * Both written atomically. */
#include <math.h>

#include "track/track.h"

int track_tracks3d_write(const char *path, int n_markers, size_t n_rows, const long *frame, const double *time_s,
                         const double *xyz, icv_err *err)
{
    if (n_markers <= 0)
        return icv_err_set(err, ICV_EINVAL, "%s: no markers to write", path);
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc != 0)
        return rc;
    fputs("frame,time_s", af.fp);
    for (int k = 0; k < n_markers; k++)
        fprintf(af.fp, ",m%d_x,m%d_y,m%d_z", k, k, k);
    fputc('\n', af.fp);
    for (size_t r = 0; r < n_rows; r++) {
        fprintf(af.fp, "%ld,%.9f", frame[r], time_s[r]);
        for (int k = 0; k < n_markers; k++) {
            const double *p = xyz + (r * (size_t)n_markers + (size_t)k) * 3;
            if (isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]))
                /* 1e-7 m: far below the 0.2 mm accuracy */
                fprintf(af.fp, ",%.7f,%.7f,%.7f", p[0], p[1], p[2]);
            else
                fputs(",,,", af.fp);
        }
        fputc('\n', af.fp);
    }
    if (ferror(af.fp)) {
        icv_atomic_abort(&af);
        return icv_err_set(err, ICV_EIO, "%s: write failed", path);
    }
    return icv_atomic_commit(&af, err);
}

int track_quality3d_write(const char *path, const track_quality3d *rows, size_t n, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc != 0)
        return rc;
    fputs("frame,time_s,marker,residual_px,cov_xx_m2,cov_xy_m2,cov_xz_m2,cov_yy_m2,cov_yz_m2,cov_zz_m2,flags\n", af.fp);
    for (size_t i = 0; i < n; i++) {
        const track_quality3d *q = &rows[i];
        char flags[128];
        track_flags_format(q->flags, flags, sizeof flags);
        fprintf(af.fp, "%ld,%.9f,%d,%.4f,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%s\n", q->frame, q->time_s, q->marker,
                q->residual_px, q->cov[0][0], q->cov[0][1], q->cov[0][2], q->cov[1][1], q->cov[1][2], q->cov[2][2],
                flags);
    }
    if (ferror(af.fp)) {
        icv_atomic_abort(&af);
        return icv_err_set(err, ICV_EIO, "%s: write failed", path);
    }
    return icv_atomic_commit(&af, err);
}
