/* tracks2d_write.c: DIR/tracks2d_<camera>.csv exactly as the contract gives it
 * (../shared/spec/contract.md: frame,time_s,marker,u_px,v_px,area_px,flags), written
 * atomically. Coasted and merged rows carry no measurement: u, v, area are empty. */
#include <math.h>

#include "track/track.h"

int track_tracks2d_write(const char *path, const track_row2d *rows, size_t n, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc != 0)
        return rc;
    fputs("frame,time_s,marker,u_px,v_px,area_px,flags\n", af.fp);
    for (size_t i = 0; i < n; i++) {
        const track_row2d *r = &rows[i];
        char flags[128];
        track_flags_format(r->flags, flags, sizeof flags);
        int measured = !(r->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED));
        if (measured && !(isfinite(r->u_px) && isfinite(r->v_px) && isfinite(r->area_px))) {
            icv_atomic_abort(&af);
            return icv_err_set(err, ICV_EINVAL, "%s: frame %ld marker %d: position is not finite", path, r->frame,
                               r->marker);
        }
        /* 4 decimals of a pixel: 1e-4 px, far below the centroid noise (~0.02 px) */
        if (measured)
            fprintf(af.fp, "%ld,%.9f,%d,%.4f,%.4f,%.0f,%s\n", r->frame, r->time_s, r->marker, r->u_px, r->v_px,
                    r->area_px, flags);
        else
            fprintf(af.fp, "%ld,%.9f,%d,,,,%s\n", r->frame, r->time_s, r->marker, flags);
    }
    if (ferror(af.fp)) {
        icv_atomic_abort(&af);
        return icv_err_set(err, ICV_EIO, "%s: write failed", path);
    }
    return icv_atomic_commit(&af, err);
}
