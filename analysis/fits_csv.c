/* fits_csv.c: fits.csv, the measured centre of mass against each side's fitted
 * flight, per frame of the fit windows: what the report plots to show whether
 * the fits can be trusted. Columns: impact,side,frame,time_s, measured x,y,z,
 * fitted x,y,z (m, surface frame), residual (m). */
#include <string.h>

#include "analysis/analysis.h"

int analysis_fits_write(const char *path, const analysis_tracks *tr, const analysis_body *b,
                        const analysis_result *res, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc)
        return rc;
    fprintf(af.fp, "impact,side,frame,time_s,x_m,y_m,z_m,fit_x_m,fit_y_m,fit_z_m,residual_m\n");
    for (int i = 0; i < res->n_impacts; i++) {
        const analysis_impact *im = &res->impacts[i];
        for (int sd = 0; sd < 2; sd++) {
            const analysis_side *s = sd ? &im->post : &im->pre;
            for (int f = 0; f < tr->n_frames; f++) {
                double t = tr->t[f];
                if (t < s->t_first - 1e-9 || t > s->t_last + 1e-9)
                    continue;
                analysis_pose pose;
                if (analysis_pose_fit_frame(tr, f, &b->tmpl, 0, NULL, &pose, NULL))
                    continue;
                double tau = t - im->t;
                icv_vec3 fit = icv_v3_add(icv_v3_add(s->p, icv_v3_scale(s->v, tau)), icv_v3_scale(res->g, 0.5 * tau * tau));
                fprintf(af.fp, "%d,%s,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.4g\n", i, sd ? "post" : "pre",
                        tr->frame[f], t, pose.p.x, pose.p.y, pose.p.z, fit.x, fit.y, fit.z,
                        icv_v3_norm(icv_v3_sub(pose.p, fit)));
            }
        }
    }
    return icv_atomic_commit(&af, err);
}
