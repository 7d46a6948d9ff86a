/* summary.c: the plain-text summary `impactcv calib` prints: parameters with
 * their standard errors, per-view errors, skipped views and the verdict. */
#include <string.h>

#include "calib/calib_internal.h"

static void intrinsics(const calib_intrinsics *in, const calib_intrinsics *sd, FILE *out)
{
    fprintf(out, "  fx %.3f +- %.3f px   fy %.3f +- %.3f px\n", in->fx, sd->fx, in->fy, sd->fy);
    fprintf(out, "  cx %.3f +- %.3f px   cy %.3f +- %.3f px\n", in->cx, sd->cx, in->cy, sd->cy);
    static const char *nm[5] = {"k1", "k2", "p1", "p2", "k3"};
    fprintf(out, " ");
    for (int i = 0; i < 5; i++) {
        if (i == 4 && in->dist[4] == 0 && sd->dist[4] == 0)
            fprintf(out, " k3 0 (fixed)");
        else
            fprintf(out, " %s %.5f +- %.5f", nm[i], in->dist[i], sd->dist[i]);
    }
    fprintf(out, "\n");
}

static const char *status(calib_view_status s)
{
    static const char *n[] = {"", "  (dropped: outlier)", "  (no full board)", "  (blurred)", "  (unpaired)"};
    return s >= 0 && s <= 4 ? n[s] : "";
}

static void verdict(const char *v, FILE *out)
{
    fprintf(out, "verdict:\n");
    while (*v) {
        const char *nl = strchr(v, '\n');
        int len = nl ? (int)(nl - v) : (int)strlen(v);
        fprintf(out, "  %.*s\n", len, v);
        v += len + (nl != NULL);
    }
}

static void surface(const calib_surface *s, FILE *out)
{
    fprintf(out,
            "surface frame (camera 1): origin [%.2f, %.2f, %.2f] mm, normal y [%.4f, %.4f, %.4f], x [%.4f, %.4f, "
            "%.4f]; plane RMS %.3f mm, board reprojection %.3f px\n",
            1e3 * s->t.x, 1e3 * s->t.y, 1e3 * s->t.z, s->R.m[0][1], s->R.m[1][1], s->R.m[2][1], s->R.m[0][0],
            s->R.m[1][0], s->R.m[2][0], 1e3 * s->plane_rms, s->reproj_rms);
}

void calib_camera_summary(const calib_camera *cam, FILE *out)
{
    fprintf(out, "camera %dx%d px, board %dx%d @ %.4g m, %d of %d views used, RMS %.4f px\n", cam->in.width,
            cam->in.height, cam->board.cols, cam->board.rows, cam->board.square, cam->n_used, cam->n_views, cam->rms);
    intrinsics(&cam->in, &cam->std, out);
    fprintf(out, "per-view RMS (px):\n");
    for (int v = 0; v < cam->n_views; v++)
        fprintf(out, "  %-24s %7.4f%s\n", cam->views[v].name, cam->views[v].rms, status(cam->views[v].status));
    fprintf(out, "board coverage: %.0f%% of the image\n", 100 * cam->coverage);
    if (cam->has_surface)
        surface(&cam->surface, out);
    verdict(cam->verdict, out);
}

void calib_stereo_summary(const calib_stereo *st, FILE *out)
{
    for (int c = 0; c < 2; c++) {
        fprintf(out, "camera %d (joint solution) %dx%d px:\n", c + 1, st->cam[c].in.width, st->cam[c].in.height);
        intrinsics(&st->cam[c].in, &st->cam[c].std, out);
    }
    fprintf(out, "T = [%.3f, %.3f, %.3f] mm +- [%.3f, %.3f, %.3f]  (x2 = R x1 + T)\n", 1e3 * st->T[0], 1e3 * st->T[1],
            1e3 * st->T[2], 1e3 * st->T_std[0], 1e3 * st->T_std[1], 1e3 * st->T_std[2]);
    fprintf(out, "baseline %.3f +- %.3f mm, RMS %.4f px, mean epipolar error %.4f px, %d of %d pairs used\n",
            1e3 * st->baseline, 1e3 * st->baseline_std, st->rms, st->epipolar, st->n_used, st->n_pairs);
    fprintf(out, "per-pair RMS camera 1, camera 2, epipolar (px):\n");
    for (int i = 0; i < st->n_pairs; i++) {
        const calib_pair *p = &st->pairs[i];
        if (p->status == CALIB_VIEW_USED)
            fprintf(out, "  %-20s %-20s %7.4f %7.4f %7.4f\n", p->name1, p->name2, p->rms1, p->rms2, p->epipolar);
        else
            fprintf(out, "  %-20s %-20s skipped%s\n", p->name1, p->name2, status(p->status));
    }
    if (st->has_surface)
        surface(&st->surface, out);
    verdict(st->verdict, out);
}
