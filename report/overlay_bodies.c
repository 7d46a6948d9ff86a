/* overlay_bodies.c: one overlay image of several bodies (report.h): each body in its
 * own colour, its detections, the markers and outline of its fitted pose at the
 * frame's time, projected through the camera model the tracks were made with; cropped
 * round all of them as one body's image is. */
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

/* The side state of body b at impact `impact` (results.json's index), NULL when b is
 * not one of its bodies; *t_impact its instant. */
static const analysis_body_state *side_of(const analysis_bodies_result *res, int impact, int b, double t,
                                          double *t_impact)
{
    for (int slot = 0; slot < 2; slot++) {
        if (impact >= 0 && impact < res->n_impacts && res->impacts[impact].body[slot] == b) {
            const analysis_body_impact *im = &res->impacts[impact];
            *t_impact = im->t;
            return t >= im->t ? &im->post[slot] : &im->pre[slot];
        }
        int k = impact - res->n_impacts;
        if (k >= 0 && k < res->n_chain && res->chain_links[slot] == b) {
            const analysis_chain_impact *c = &res->chain[k];
            *t_impact = c->t;
            return t >= c->t ? &c->post[slot] : &c->pre[slot];
        }
    }
    return NULL;
}

/* Body b's pose at experiment time t near impact i: its side's state carried to t,
 * or the template fitted to its tracks row within half a frame of t. 0, or -1 none. */
static int body_pose(const report_overlay_bodies_scene *s, int b, int impact, double t, icv_mat3 *R, icv_vec3 *p)
{
    double ti = 0;
    const analysis_body_state *st = side_of(s->res, impact, b, t, &ti);
    if (st && st->n_frames > 0) {
        analysis_body_state at;
        double energy;
        analysis_body_state_at(&s->body[b], st, t - ti, &at, &energy);
        if (isfinite(at.p.x) && isfinite(at.p.y) && isfinite(at.p.z)) {
            *R = at.R;
            *p = at.p;
            return 0;
        }
    }
    return report_overlay_row_pose(&s->tracks[b], &s->body[b].tmpl, t, R, p);
}

/* the body whose markers hold global marker index m; -1 none */
static int body_of_marker(const icv_experiment *e, int m)
{
    for (int b = 0; b < e->n_bodies; b++) {
        int first = icv_experiment_first_marker(e, b);
        if (m >= first && m < first + e->bodies[b].n_markers)
            return b;
    }
    return -1;
}

int report_overlay_bodies_frame_png(const report_overlay_bodies_scene *s, const unsigned char *gray_frame, int width,
                                    int height, int stride, long frame, int impact, double t, unsigned char **png,
                                    size_t *len, int crop[4], icv_err *err)
{
    const icv_experiment *e = s->exp;
    const calib_intrinsics *in = &s->ti->in[s->k];
    long n = 0;
    for (long i = 0; i < s->n_det; i++)
        n += s->det[i].frame == frame;
    for (long i = 0; i < s->n_pred; i++)
        n += s->pred[i].frame == frame;
    n += (long)e->n_bodies * ICV_MAX_MARKERS;
    report_mark *mk = malloc(sizeof *mk * (size_t)n);
    double *uv = calloc(2 * REPORT_OUTLINE_MAX_PTS * (size_t)e->n_bodies, sizeof *uv);
    report_polyline *lines = malloc(sizeof *lines * REPORT_OUTLINE_MAX_LINES * (size_t)e->n_bodies);
    unsigned char(*line_rgb)[3] = malloc(sizeof *line_rgb * REPORT_OUTLINE_MAX_LINES * (size_t)e->n_bodies);
    report_outline *o = malloc(sizeof *o);
    int rc = 0;
    if (!mk || !uv || !lines || !line_rgb || !o) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto out;
    }
    static const unsigned char white[3] = {255, 255, 255}, magenta[3] = {255, 0, 255};
    int nm = 0, nl = 0;
    for (long i = 0; i < s->n_pred; i++)
        if (s->pred[i].frame == frame) {
            mk[nm] = (report_mark){s->pred[i].u, s->pred[i].v, {0, 0, 0}, REPORT_MARK_PREDICTED};
            memcpy(mk[nm++].rgb, magenta, 3);
        }
    for (long i = 0; i < s->n_det; i++)
        if (s->det[i].frame == frame) { /* a 2D track no 3D point labelled: white */
            int b = body_of_marker(e, s->det[i].id);
            mk[nm] = (report_mark){s->det[i].u, s->det[i].v, {0, 0, 0}, REPORT_MARK_TRACKED};
            if (b >= 0)
                report_palette(b, mk[nm].rgb);
            else
                memcpy(mk[nm].rgb, white, 3);
            nm++;
        }
    for (int b = 0; b < e->n_bodies; b++) {
        icv_mat3 R;
        icv_vec3 p;
        if (body_pose(s, b, impact, t, &R, &p) != 0)
            continue;
        unsigned char c[3];
        report_palette(b, c);
        const analysis_template *tm = &s->body[b].tmpl;
        for (int k = 0; k < tm->n_markers; k++) {
            icv_vec3 x = icv_v3_add(icv_m3_apply(s->ti->R[s->k], icv_v3_add(icv_m3_apply(R, tm->markers[k]), p)),
                                    s->ti->t[s->k]);
            if (x.z <= 0)
                continue; /* behind the camera */
            calib_pt2 q;
            calib_project(in, &x, 1, &q);
            mk[nm] = (report_mark){q.u, q.v, {c[0], c[1], c[2]}, REPORT_MARK_FITTED};
            nm++;
        }
        report_outline_of_shape(&e->bodies[b].shape, R, p, o);
        int got = report_outline_project(o, in, s->ti->R[s->k], s->ti->t[s->k], uv + 2 * REPORT_OUTLINE_MAX_PTS * b,
                                         lines + nl);
        for (int l = 0; l < got; l++)
            memcpy(line_rgb[nl + l], c, 3);
        nl += got;
    }
    double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < nm; i++)
        report_box_add(box, mk[i].u, mk[i].v, width, height);
    for (int l = 0; l < nl; l++)
        for (int i = 0; i < lines[l].n; i++)
            report_box_add(box, lines[l].uv[2 * i], lines[l].uv[2 * i + 1], width, height);
    report_crop_of_box(box, width, height, crop);
    for (int i = 0; i < nm; i++)
        mk[i].u -= crop[0], mk[i].v -= crop[1];
    for (int b = 0; b < e->n_bodies; b++) /* the lines point into uv: every body's block */
        for (int i = 0; i < 2 * REPORT_OUTLINE_MAX_PTS; i += 2)
            uv[2 * REPORT_OUTLINE_MAX_PTS * b + i] -= crop[0], uv[2 * REPORT_OUTLINE_MAX_PTS * b + i + 1] -= crop[1];
    /* px: a ring round a marker's blob; 8 at 1280 px wide (as one body's) */
    double radius = width / 160.0 > 5 ? width / 160.0 : 5;
    const unsigned char *gray = gray_frame + (size_t)crop[1] * (size_t)stride + (size_t)crop[0];
    /* the bodies' names in their colours, in a strip below the frame's pixels */
    const char *names[ICV_MAX_BODIES];
    unsigned char name_rgb[ICV_MAX_BODIES][3];
    for (int b = 0; b < e->n_bodies && b < ICV_MAX_BODIES; b++) {
        names[b] = e->bodies[b].name;
        report_palette(b, name_rgb[b]);
    }
    rc = report_overlay_marks_png(gray, crop[2], crop[3], stride, mk, nm, lines, (const unsigned char(*)[3])line_rgb,
                                  nl, radius, names, (const unsigned char(*)[3])name_rgb,
                                  e->n_bodies < ICV_MAX_BODIES ? e->n_bodies : ICV_MAX_BODIES, png, len, err);
out:
    free(mk);
    free(uv);
    free(lines);
    free(line_rgb);
    free(o);
    return rc;
}
