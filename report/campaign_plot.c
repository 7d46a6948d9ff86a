/* campaign_plot.c: a campaign's parameter plot: the measured
 * Newton ratio e at the contact and the impulse ratio |P_t| / P_n of every impact
 * against its impact angle and its slip ratio, with the model's value at each
 * measured state and the model's curve, drawn with PLplot (report_plot_xy).
 *
 * Impact angle: the angle between the line from the contact point to the centre of
 * mass and the surface normal before impact (0: a central impact, the centre of mass
 * straight above the contact). Slip ratio: |u_t| / |u_n| of the contact point's
 * velocity before impact (the tangent of the incidence angle). The model's curve
 * sweeps one of them from the first impact's state: the slip ratio by adding a
 * tangential velocity along the measured slip direction, the impact angle by turning
 * the body about the axis normal x (centre of mass - contact), the contact point
 * following the shape (icv_shape_lowest_point); everything else stays as measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define N_SWEEP 61

static const icv_vec3 normal = {0, 1, 0}; /* the surface frame's y (conventions.md) */

static double angle_of(icv_vec3 contact, icv_vec3 com)
{
    icv_vec3 arm = icv_v3_sub(com, contact);
    double n = icv_v3_norm(arm);
    return n > 0 ? acos(fmax(-1.0, fmin(1.0, arm.y / n))) * 180 / M_PI : 0;
}

/* e = -u'_n / u_n and |P_t| / P_n (contract: results.json's e_kinematic, impulse_ratio) */
static void ratios(icv_vec3 u_pre, icv_vec3 u_post, icv_vec3 impulse, double *e, double *ratio)
{
    *e = -u_post.y / u_pre.y;
    *ratio = hypot(impulse.x, impulse.z) / impulse.y;
}

void report_campaign_row_kinematics(report_campaign_row *w)
{
    const analysis_impact *im = w->im;
    icv_vec3 u = im->pre.contact_velocity, r = icv_v3_sub(im->contact_point, im->pre.p);
    w->angle_deg = angle_of(im->contact_point, im->pre.p);
    w->slip = hypot(u.x, u.z) / fabs(u.y);
    w->e_model = w->ratio_model = NAN;
    if (im->model.done)
        ratios(u, icv_v3_add(im->model.v, icv_v3_cross(im->model.omega, r)),
               icv_v3_scale(icv_v3_sub(im->model.v, im->pre.v), w->job->body.mass), &w->e_model, &w->ratio_model);
}

/* The model on the first row's state with attitude R, centre-of-mass velocity v. */
static void model_at(const report_campaign_row *w, icv_mat3 R, icv_vec3 v, double *angle, double *slip, double *e,
                     double *ratio)
{
    const analysis_impact *im = w->im;
    const analysis_body *b = &w->job->body;
    icv_vec3 contact = icv_shape_lowest_point(&b->shape, R, im->pre.p, normal);
    impact_case c = {.mass = b->mass, .inertia = b->inertia, .R = R, .r = icv_v3_sub(contact, im->pre.p), .v = v,
                      .omega = im->pre.omega, .mu_s = im->model.mu, .mu_k = im->model.mu, .e_n = im->model.e_n,
                      .law = im->model.law, .method = IMPACT_EXACT};
    impact_result res;
    *angle = angle_of(contact, im->pre.p);
    *e = *ratio = *slip = NAN;
    if (impact_solve(&c, &res, NULL) == 0) {
        icv_vec3 u = res.contact_velocity_pre;
        *slip = hypot(u.x, u.z) / fabs(u.y);
        ratios(u, res.contact_velocity, res.impulse, e, ratio);
    }
}

static void sweep_slip(const report_campaign_row *w, double s_max, double *x, double *e, double *ratio)
{
    const analysis_impact *im = w->im;
    icv_vec3 u = im->pre.contact_velocity, t = icv_v3(u.x, 0, u.z);
    double tn = icv_v3_norm(t), angle;
    icv_vec3 d = tn > 1e-9 ? icv_v3_scale(t, 1 / tn) : icv_v3(1, 0, 0);
    for (int i = 0; i < N_SWEEP; i++) {
        double s = s_max * i / (N_SWEEP - 1);
        icv_vec3 v = icv_v3_axpy(s * fabs(u.y) - tn, d, im->pre.v);
        model_at(w, im->pre.R, v, &angle, &x[i], &e[i], &ratio[i]);
    }
}

static void sweep_angle(const report_campaign_row *w, double *x, double *e, double *ratio)
{
    const analysis_impact *im = w->im;
    icv_vec3 arm = icv_v3_sub(im->pre.p, im->contact_point), a = icv_v3_cross(normal, arm);
    a = icv_v3_norm(a) > 1e-12 ? icv_v3_unit(a) : icv_v3(0, 0, 1);
    double psi0 = angle_of(im->contact_point, im->pre.p) * M_PI / 180, s;
    for (int i = 0; i < N_SWEEP; i++) { /* turning by +delta about normal x arm tilts the arm away from the normal */
        double delta = -psi0 + (85 * M_PI / 180) * i / (N_SWEEP - 1);
        icv_mat3 R = icv_m3_mul(icv_rot_from_axis_angle(icv_v3_scale(a, delta)), im->pre.R);
        model_at(w, R, im->pre.v, &x[i], &s, &e[i], &ratio[i]);
    }
}

/* Whether every row was compared with one model (law, mu, e_n): only then is one
 * curve the model's. */
static int one_model(const report_campaign_row *rows, int n)
{
    for (int i = 0; i < n; i++)
        if (!rows[i].im->model.done || rows[i].im->model.law != rows[0].im->model.law ||
            fabs(rows[i].im->model.mu - rows[0].im->model.mu) > 1e-12 ||
            fabs(rows[i].im->model.e_n - rows[0].im->model.e_n) > 1e-12)
            return 0;
    return 1;
}

static int plot_one(const char *path, const char *title, const char *xlabel, const report_campaign_row *rows, int n,
                    int by_angle, int curve, icv_err *err)
{
    double *buf = malloc(sizeof(double) * (size_t)(5 * n + 3 * N_SWEEP));
    if (!buf)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    double *x = buf, *e = x + n, *ra = e + n, *em = ra + n, *rm = em + n;
    double *sx = rm + n, *se = sx + N_SWEEP, *sr = se + N_SWEEP;
    double s_max = 0.5;
    for (int i = 0; i < n; i++) {
        x[i] = by_angle ? rows[i].angle_deg : rows[i].slip;
        e[i] = rows[i].im->e_kinematic;
        ra[i] = rows[i].im->impulse_ratio;
        em[i] = rows[i].e_model;
        rm[i] = rows[i].ratio_model;
        s_max = fmax(s_max, 1.2 * rows[i].slip);
    }
    if (curve) {
        if (by_angle)
            sweep_angle(&rows[0], sx, se, sr);
        else
            sweep_slip(&rows[0], s_max, sx, se, sr);
    }
    /* short labels: PLplot's legend sits beside the plot; the page says the rest */
    report_series s[6] = {
        {n, x, e, 1, 0, "e"},
        {n, x, ra, 1, 1, "impulse ratio"},
        {n, x, em, 1, 2, "e, model"},
        {n, x, rm, 1, 3, "ratio, model"},
        {N_SWEEP, sx, se, 0, 2, "e, curve"},
        {N_SWEEP, sx, sr, 0, 3, "ratio, curve"},
    };
    int rc = report_plot_xy(path, title, xlabel, "e, impulse ratio (-)", s, curve ? 6 : 4, NULL, 0, err);
    free(buf);
    return rc;
}

int report_campaign_plots_write(const char *dir, const report_campaign_row *rows, int n, char note[ICV_ERR_MSG_MAX], icv_err *err)
{
    char pa[ICV_PATH_MAX], ps[ICV_PATH_MAX];
    int curve = one_model(rows, n);
    const analysis_impact *im = rows[0].im;
    int k = snprintf(note, ICV_ERR_MSG_MAX, "Points: each impact measured (e, impulse ratio) and the model's value "
                                            "at its measured state (model). ");
    if (curve)
        snprintf(note + k, ICV_ERR_MSG_MAX - (size_t)k,
                 "Curves: the model (%s, mu %.3f, e_n %.3f) on the pre-impact state of %s #%d with one variable swept.",
                 icv_restitution_name(im->model.law), im->model.mu, im->model.e_n, rows[0].exp->name, rows[0].impact);
    else
        snprintf(note + k, ICV_ERR_MSG_MAX - (size_t)k,
                 "No model curve: the impacts were compared with different coefficients (each its own fit, or each "
                 "experiment's model).");
    int rc = icv_path_join(pa, sizeof pa, dir, "parameters_angle.svg", err);
    if (!rc)
        rc = icv_path_join(ps, sizeof ps, dir, "parameters_slip.svg", err);
    if (!rc)
        rc = plot_one(pa, "Restitution and impulse ratio against the impact angle",
                      "impact angle: contact-to-centre-of-mass line from the normal (deg)", rows, n, 1, curve, err);
    if (!rc)
        rc = plot_one(ps, "Restitution and impulse ratio against the slip ratio",
                      "slip ratio |u_t| / |u_n| of the contact point before impact (-)", rows, n, 0, curve, err);
    return rc;
}
