/* export_pose.c: the body's pose per frame as CSV (centre of mass, attitude
 * quaternion, euler213 of the contract), from the weighted Kabsch fit of the
 * marker template to each frame's 3D markers (analysis_pose_fit). */
#include "report/report.h"

int report_export_pose_csv(const char *path, const analysis_tracks *tr, const analysis_body *b, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc)
        return rc;
    fprintf(af.fp, "frame,time_s,x_m,y_m,z_m,qw,qx,qy,qz,theta1_rad,theta2_rad,theta3_rad,rms_m\n");
    for (int i = 0; i < tr->n_frames; i++) {
        analysis_pose p;
        if (analysis_pose_fit_frame(tr, i, &b->tmpl, 0, NULL, &p, NULL))
            continue; /* too few markers seen: no pose in this frame */
        icv_quat q = icv_quat_from_matrix(p.R);
        if (q.w < 0) /* one of the two equal quaternions, always the same one */
            q = (icv_quat){-q.w, -q.x, -q.y, -q.z};
        fprintf(af.fp, "%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.4g\n", tr->frame[i], tr->t[i],
                p.p.x, p.p.y, p.p.z, q.w, q.x, q.y, q.z, p.euler213.x, p.euler213.y, p.euler213.z, p.rms);
    }
    return icv_atomic_commit(&af, err);
}

int report_exports_write(const char *dir, const analysis_tracks *tr, const analysis_body *b, icv_err *err)
{
    char p[ICV_PATH_MAX];
    int rc;
    if ((rc = icv_path_join(p, sizeof p, dir, "tracks3d.trc", err)) || (rc = report_export_trc(p, tr, err)))
        return rc;
    if ((rc = icv_path_join(p, sizeof p, dir, "tracks3d.c3d", err)) || (rc = report_export_c3d(p, tr, err)))
        return rc;
    if ((rc = icv_path_join(p, sizeof p, dir, "pose.csv", err)) || (rc = report_export_pose_csv(p, tr, b, err)))
        return rc;
    return 0;
}
