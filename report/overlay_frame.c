/* overlay_frame.c: one overlay image of a decoded frame (report.h): the detections in
 * their marker's colour, the tracker's predictions and the body's outline at the fitted
 * pose of the frame's time, projected through the camera model the tracks were made
 * with; the image is the part of the frame round the body, so the markers are seen at
 * full size. */
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

/* The body's pose at experiment time t near impact i: its side's fitted flight, or
 * (the side's position unknown, no fits.csv) the template fitted to the tracks3d row
 * within half a frame of t. 0 found, -1 none. */
static int body_pose(const report_overlay_scene *s, int i, double t, icv_mat3 *R, icv_vec3 *p)
{
    icv_vec3 v, w;
    analysis_side_state(s->res, i, t >= s->res->impacts[i].t, s->body, t, p, &v, R, &w);
    if (isfinite(p->x) && isfinite(p->y) && isfinite(p->z))
        return 0;
    return s->tracks ? report_overlay_row_pose(s->tracks, &s->body->tmpl, t, R, p) : -1;
}

int report_overlay_row_pose(const analysis_tracks *tr, const analysis_template *tmpl, double t, icv_mat3 *R,
                            icv_vec3 *p)
{
    if (tr->n_frames < 2)
        return -1;
    int best = 0;
    for (int r = 1; r < tr->n_frames; r++)
        if (fabs(tr->t[r] - t) < fabs(tr->t[best] - t))
            best = r;
    double half = 0.5 * fabs(tr->t[1] - tr->t[0]);
    analysis_pose ps;
    if (fabs(tr->t[best] - t) > half * 1.01 || analysis_pose_fit_frame(tr, best, tmpl, 0, NULL, &ps, NULL))
        return -1;
    *R = ps.R;
    *p = ps.p;
    return 0;
}

void report_box_add(double b[4], double u, double v, int w, int h)
{
    if (!isfinite(u) || !isfinite(v) || u < 0 || v < 0 || u > w - 1 || v > h - 1)
        return;
    b[0] = fmin(b[0], u), b[1] = fmin(b[1], v), b[2] = fmax(b[2], u), b[3] = fmax(b[3], v);
}

void report_crop_of_box(const double b[4], int w, int h, int c[4])
{
    if (!(b[2] >= b[0])) {
        c[0] = c[1] = 0, c[2] = w, c[3] = h;
        return;
    }
    double m = 40 + 0.15 * fmax(b[2] - b[0], b[3] - b[1]);
    int lim[2] = {w, h};
    for (int a = 0; a < 2; a++) {
        double lo = b[a] - m, hi = b[a + 2] + m, need = 240 - (hi - lo);
        if (need > 0)
            lo -= need / 2, hi += need / 2;
        if (lo < 0)
            hi -= lo, lo = 0;
        if (hi > lim[a] - 1)
            lo -= hi - (lim[a] - 1), hi = lim[a] - 1;
        c[a] = lo < 0 ? 0 : (int)floor(lo);
        c[a + 2] = (int)ceil(hi) + 1 - c[a]; /* width, height */
    }
}

/* The part of the frame an image shows: the body (its outline, detections and
 * predictions) with a margin, report_crop_of_box. */
static void crop_box(const report_point2d *pts, int np, const report_polyline *lines, int nl, int w, int h, int c[4])
{
    double b[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < np; i++)
        report_box_add(b, pts[i].u, pts[i].v, w, h);
    for (int l = 0; l < nl; l++)
        for (int i = 0; i < lines[l].n; i++)
            report_box_add(b, lines[l].uv[2 * i], lines[l].uv[2 * i + 1], w, h);
    report_crop_of_box(b, w, h, c);
}

int report_overlay_frame_png(const report_overlay_scene *s, const unsigned char *gray_frame, int width, int height,
                             int stride, long frame, int impact, double t, unsigned char **png, size_t *len,
                             int crop[4], icv_err *err)
{
    long n = 0;
    for (long i = 0; i < s->n_det; i++)
        n += s->det[i].frame == frame;
    for (long i = 0; i < s->n_pred; i++)
        n += s->pred[i].frame == frame;
    report_point2d *pts = malloc(sizeof *pts * (size_t)(n + 1));
    if (!pts)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    int np = 0;
    for (long i = 0; i < s->n_pred; i++)
        if (s->pred[i].frame == frame)
            pts[np++] = (report_point2d){s->pred[i].u, s->pred[i].v, -1, 1};
    for (long i = 0; i < s->n_det; i++)
        if (s->det[i].frame == frame) /* a 2D track no 3D point labelled: white */
            pts[np++] = (report_point2d){s->det[i].u, s->det[i].v,
                                         s->det[i].id < s->exp->n_markers ? s->det[i].id : -1, 0};
    double uv[2 * REPORT_OUTLINE_MAX_PTS];
    report_polyline lines[REPORT_OUTLINE_MAX_LINES];
    int nl = 0;
    icv_mat3 R;
    icv_vec3 p;
    if (body_pose(s, impact, t, &R, &p) == 0) {
        report_outline o;
        report_outline_of_shape(&s->exp->shape, R, p, &o);
        nl = report_outline_project(&o, &s->ti->in[s->k], s->ti->R[s->k], s->ti->t[s->k], uv, lines);
    }
    crop_box(pts, np, lines, nl, width, height, crop);
    for (int i = 0; i < np; i++)
        pts[i].u -= crop[0], pts[i].v -= crop[1];
    for (int l = 0; l < nl; l++) /* the lines point into uv */
        for (long i = lines[l].uv - uv; i < lines[l].uv - uv + 2 * lines[l].n; i += 2)
            uv[i] -= crop[0], uv[i + 1] -= crop[1];
    /* px: a ring round a marker's blob; 8 at 1280 px wide */
    double radius = width / 160.0 > 5 ? width / 160.0 : 5;
    const unsigned char *gray = gray_frame + (size_t)crop[1] * (size_t)stride + (size_t)crop[0];
    int rc = report_overlay_png(gray, crop[2], crop[3], stride, pts, np, lines, nl, radius, png, len, err);
    free(pts);
    return rc;
}

