/* html.c: report.html, the page a person reads (issue #10 item 2): the measured
 * quantities with their uncertainties beside the model, overlays, the plots of
 * the motion with the fits and the impact instants (PLplot SVG), calibration
 * quality, sync, timing, and every warning. One file: CSS inline, plots as SVG
 * and overlays as PNG data URIs, no script, nothing fetched. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report_internal.h"

static void note(FILE *f, const char *text)
{
    fputs("<p class=note>", f);
    icv_fput_html(f, text);
    fputs("</p>\n", f);
}

/* ---- the measured motion, per frame --------------------------------------- */

typedef struct {
    int n;            /* frames with a pose */
    double *t;        /* s */
    double *p[3];     /* mm, centre of mass */
    double *e[3];     /* deg, euler213 (unwrapped) */
    double *h;        /* mm, contact point's height above the surface */
    double *tm;       /* s, midpoints of consecutive poses */
    double *v[3];     /* m/s, finite differences */
    double *w[3];     /* rad/s, surface frame, from R_{i+1} R_i^T */
    double *mem;
} motion;

static double unwrap_deg(double prev, double a)
{
    if (!isfinite(prev))
        return a;
    while (a - prev > 180)
        a -= 360;
    while (a - prev < -180)
        a += 360;
    return a;
}

static int motion_measure(const analysis_tracks *tr, const analysis_body *b, motion *m)
{
    memset(m, 0, sizeof *m);
    size_t n = (size_t)tr->n_frames;
    m->mem = calloc(n * 20 + 1, sizeof(double));
    if (!m->mem)
        return -1;
    double *q = m->mem;
    m->t = q, q += n;
    m->h = q, q += n;
    m->tm = q, q += n;
    for (int k = 0; k < 3; k++) {
        m->p[k] = q, q += n;
        m->e[k] = q, q += n;
        m->v[k] = q, q += n;
        m->w[k] = q, q += n;
    }
    icv_mat3 Rprev = icv_m3_identity();
    double eprev[3] = {NAN, NAN, NAN};
    for (int i = 0; i < tr->n_frames; i++) {
        analysis_pose ps;
        if (analysis_pose_fit_frame(tr, i, &b->tmpl, 0, NULL, &ps, NULL))
            continue;
        int j = m->n;
        m->t[j] = tr->t[i];
        double pe[3] = {ps.p.x, ps.p.y, ps.p.z}, ee[3] = {ps.euler213.x, ps.euler213.y, ps.euler213.z};
        for (int k = 0; k < 3; k++) {
            m->p[k][j] = 1e3 * pe[k];
            m->e[k][j] = eprev[k] = unwrap_deg(eprev[k], ee[k] * 180 / M_PI);
        }
        m->h[j] = 1e3 * icv_shape_lowest_point(&b->shape, ps.R, ps.p, icv_v3(0, 1, 0)).y;
        if (j > 0) {
            double dt = m->t[j] - m->t[j - 1];
            m->tm[j - 1] = 0.5 * (m->t[j] + m->t[j - 1]);
            icv_vec3 w = icv_v3_scale(icv_rot_to_axis_angle(icv_m3_mul(ps.R, icv_m3_transpose(Rprev))), 1 / dt);
            double wv[3] = {w.x, w.y, w.z};
            for (int k = 0; k < 3; k++) {
                m->v[k][j - 1] = 1e-3 * (m->p[k][j] - m->p[k][j - 1]) / dt;
                m->w[k][j - 1] = wv[k];
            }
        }
        Rprev = ps.R;
        m->n++;
    }
    return 0;
}

/* the fitted flights of every impact's sides, sampled over each window up to the
 * impact instant: position (mm), velocity (m/s), euler (deg), omega (rad/s),
 * contact height (mm) */
enum { NS = 48 };
typedef struct {
    int n;               /* curves: 2 per impact */
    double t[2 * ANALYSIS_MAX_IMPACTS][NS];
    double p[3][2 * ANALYSIS_MAX_IMPACTS][NS], v[3][2 * ANALYSIS_MAX_IMPACTS][NS];
    double e[3][2 * ANALYSIS_MAX_IMPACTS][NS], w[3][2 * ANALYSIS_MAX_IMPACTS][NS];
    double h[2 * ANALYSIS_MAX_IMPACTS][NS];
} fitted;

static void fitted_sample(const analysis_result *res, const analysis_body *b, fitted *F)
{
    F->n = 2 * res->n_impacts;
    for (int i = 0; i < res->n_impacts; i++) {
        const analysis_impact *im = &res->impacts[i];
        for (int sd = 0; sd < 2; sd++) {
            const analysis_side *s = sd ? &im->post : &im->pre;
            int c = 2 * i + sd;
            double a = sd ? im->t : s->t_first, z = sd ? s->t_last : im->t;
            if (!isfinite(a) || !isfinite(z))
                a = z = im->t;
            double eprev[3] = {NAN, NAN, NAN};
            for (int j = 0; j < NS; j++) {
                double t = a + (z - a) * j / (NS - 1), tau = t - im->t;
                F->t[c][j] = t;
                icv_vec3 p = icv_v3_add(icv_v3_add(s->p, icv_v3_scale(s->v, tau)), icv_v3_scale(res->g, 0.5 * tau * tau));
                icv_vec3 v = icv_v3_add(s->v, icv_v3_scale(res->g, tau));
                icv_mat3 R;
                icv_vec3 w, e;
                /* 2e-2 rad steps: ~1e-9 rad per radian turned (geom.h), far below a plot's pixel */
                icv_rigid_rotate_steps(s->R, s->omega, b->inertia, tau, 2e-2, &R, &w);
                icv_euler213_from_matrix(R, &e);
                double pv[3] = {p.x, p.y, p.z}, vv[3] = {v.x, v.y, v.z}, ev[3] = {e.x, e.y, e.z},
                       wv[3] = {w.x, w.y, w.z};
                for (int k = 0; k < 3; k++) {
                    F->p[k][c][j] = 1e3 * pv[k];
                    F->v[k][c][j] = vv[k];
                    F->e[k][c][j] = eprev[k] = unwrap_deg(eprev[k], ev[k] * 180 / M_PI);
                    F->w[k][c][j] = wv[k];
                }
                F->h[c][j] = isfinite(p.x) ? 1e3 * icv_shape_lowest_point(&b->shape, R, p, icv_v3(0, 1, 0)).y : NAN;
            }
        }
    }
}

/* aligns the fitted euler curves' branches with the measured angles nearest them */
static void fitted_align_euler(fitted *F, const motion *m)
{
    for (int c = 0; c < F->n; c++)
        for (int k = 0; k < 3; k++) {
            double t0 = F->t[c][0], best = INFINITY, ref = NAN;
            for (int j = 0; j < m->n; j++)
                if (fabs(m->t[j] - t0) < best)
                    best = fabs(m->t[j] - t0), ref = m->e[k][j];
            if (!isfinite(ref))
                continue;
            double shift = 360 * round((ref - F->e[k][c][0]) / 360);
            for (int j = 0; j < NS; j++)
                F->e[k][c][j] += shift;
        }
}

/* ---- embedding ------------------------------------------------------------ */

typedef struct {
    FILE *f;
    char svg[ICV_PATH_MAX]; /* scratch SVG path */
    int failed;
    char why[ICV_ERR_MSG_MAX];
} page;

static void embed_file(page *pg, const char *file, const char *mime, const char *id, const char *alt)
{
    FILE *s = fopen(file, "rb");
    if (!s)
        return;
    fseek(s, 0, SEEK_END);
    long n = ftell(s);
    fseek(s, 0, SEEK_SET);
    unsigned char *d = n > 0 ? malloc((size_t)n) : NULL;
    if (d && fread(d, 1, (size_t)n, s) == (size_t)n) {
        fprintf(pg->f, "<img id=\"%s\" class=plot alt=\"", id);
        icv_fput_html(pg->f, alt);
        fprintf(pg->f, "\" src=\"data:%s;base64,", mime);
        icv_fput_base64(pg->f, d, (size_t)n);
        fputs("\">\n", pg->f);
    }
    free(d);
    fclose(s);
    unlink(file);
}

/* a plot's figure: the SVG made by rc (0) embedded, or the reason it is missing */
static void figure(page *pg, int rc, icv_err *e, const char *id, const char *caption)
{
    fprintf(pg->f, "<figure>");
    if (rc == 0)
        embed_file(pg, pg->svg, "image/svg+xml", id, caption);
    else {
        fprintf(pg->f, "<p id=\"%s\" class=note>plot not drawn: ", id);
        icv_fput_html(pg->f, e->msg);
        fputs("</p>", pg->f);
    }
    fputs("<figcaption>", pg->f);
    icv_fput_html(pg->f, caption);
    fputs("</figcaption></figure>\n", pg->f);
}

/* a three-component plot: measured points and fitted curves per component */
static void plot3(page *pg, const char *id, const char *title, const char *ylabel, const char *const names[3],
                  int nm, const double *mt, double *const my[3], const fitted *F, const double (*fy)[2 * ANALYSIS_MAX_IMPACTS][NS],
                  const double *vl, int nv, const char *caption)
{
    report_series s[3 + 3 * 2 * ANALYSIS_MAX_IMPACTS];
    char lab[6][48];
    int ns = 0;
    for (int k = 0; k < 3; k++) {
        snprintf(lab[k], sizeof lab[k], "%s measured", names[k]);
        s[ns++] = (report_series){nm, mt, my[k], 1, k, lab[k]};
    }
    for (int k = 0; F && k < 3; k++)
        for (int c = 0; c < F->n; c++) {
            snprintf(lab[3 + k], sizeof lab[3 + k], "%s fitted", names[k]);
            s[ns++] = (report_series){NS, F->t[c], fy[k][c], 0, k, c == 0 ? lab[3 + k] : NULL};
        }
    icv_err e = {0};
    int rc = report_plot_xy(pg->svg, title, "time (s)", ylabel, s, ns, vl, nv, &e);
    figure(pg, rc, &e, id, caption);
}

/* ---- sections --------------------------------------------------------------- */

static void vec_cell(FILE *f, icv_vec3 v, double scale, const char *fmt)
{
    double x[3] = {v.x, v.y, v.z};
    if (!isfinite(x[0]) && !isfinite(x[1]) && !isfinite(x[2])) {
        fputs("<td></td>", f); /* not measured (no sigma, no model value) */
        return;
    }
    fputs("<td>[", f);
    for (int i = 0; i < 3; i++) {
        if (isfinite(x[i]))
            fprintf(f, fmt, scale * x[i]);
        else
            fputs("&ndash;", f);
        fputs(i < 2 ? ", " : "]", f);
    }
    fputs("</td>", f);
}

static void row3(FILE *f, const char *q, icv_vec3 v, icv_vec3 sd, int has_model, icv_vec3 model, double scale,
                 const char *fmt)
{
    fprintf(f, "<tr><td>%s</td>", q);
    vec_cell(f, v, scale, fmt);
    vec_cell(f, sd, scale, fmt);
    if (has_model)
        vec_cell(f, model, scale, fmt);
    else
        fputs("<td></td>", f);
    fputs("</tr>\n", f);
}

static void row1(FILE *f, const char *q, double v, double sd, const char *model)
{
    fprintf(f, "<tr><td>%s</td><td>%.4g</td><td>", q, v);
    if (isfinite(sd))
        fprintf(f, "%.2g", sd);
    fprintf(f, "</td><td>%s</td></tr>\n", model ? model : "");
}

static void summary(FILE *f, const report_inputs *in)
{
    fputs("<section id=summary><h2>Measured quantities and the model</h2>\n", f);
    const analysis_result *r = in->result;
    if (!r) {
        note(f, "No analysis result was given: nothing was measured.");
        fputs("</section>\n", f);
        return;
    }
    fprintf(f, "<p>Gravity used: [%.4g, %.4g, %.4g] m/s&sup2; (surface frame, %s). %d impact%s found.</p>\n", r->g.x,
            r->g.y, r->g.z, r->g_estimated ? "estimated from free flight" : "as given", r->n_impacts,
            r->n_impacts == 1 ? "" : "s");
    for (int i = 0; i < r->n_impacts; i++) {
        const analysis_impact *im = &r->impacts[i];
        fprintf(f, "<h3>Impact %d at t = %.5f s</h3>\n<table class=summary id=summary-impact-%d>"
                   "<tr><th>quantity (surface frame)</th><th>measured</th><th>&plusmn;1&sigma;</th><th>model (%s)</th></tr>\n",
                i + 1, im->t, i, icv_restitution_name(im->model.law));
        char m1[96];
        row1(f, "impact instant t (s)", im->t, im->t_sd, NULL);
        snprintf(m1, sizeof m1, "e_n = %.4g%s", im->model.e_n, im->model.e_n_fitted ? " (fitted)" : " (given)");
        row1(f, "restitution e (Newton's ratio at the contact)", im->e_kinematic, im->sd.e_kinematic,
             im->model.done ? m1 : NULL);
        if (im->model.mu_fitted && !im->model.mu_identifiable)
            snprintf(m1, sizeof m1, "&mu; &ge; %.3g (sticking: lower bound)", im->model.mu_lower_bound);
        else
            snprintf(m1, sizeof m1, "&mu; = %.4g%s", im->model.mu, im->model.mu_fitted ? " (fitted)" : " (given)");
        row1(f, "impulse ratio |J<sub>xz</sub>| / J<sub>y</sub>", im->impulse_ratio, im->sd.impulse_ratio,
             im->model.done ? m1 : NULL);
        snprintf(m1, sizeof m1, "%.4g", im->model.loss_fraction);
        row1(f, "energy loss fraction", im->loss_fraction, im->sd.loss_fraction, im->model.done ? m1 : NULL);
        row1(f, "kinetic energy before (J)", im->energy_pre, NAN, NULL);
        row1(f, "kinetic energy after (J)", im->energy_post, NAN, NULL);
        icv_vec3 nan3 = icv_v3(NAN, NAN, NAN);
        row3(f, "v before (m/s)", im->pre.v, im->pre.v_sd, 0, nan3, 1, "%.4g");
        row3(f, "v after (m/s)", im->post.v, im->post.v_sd, im->model.done, im->model.v, 1, "%.4g");
        row3(f, "&omega; before (rad/s)", im->pre.omega, im->pre.omega_sd, 0, nan3, 1, "%.4g");
        row3(f, "&omega; after (rad/s)", im->post.omega, im->post.omega_sd, im->model.done, im->model.omega, 1, "%.4g");
        row3(f, "euler213 before (deg)", im->pre.euler213, nan3, 0, nan3, 180 / M_PI, "%.2f");
        row3(f, "euler213 after (deg)", im->post.euler213, nan3, 0, nan3, 180 / M_PI, "%.2f");
        row3(f, "contact velocity before (m/s)", im->pre.contact_velocity, nan3, 0, nan3, 1, "%.4g");
        row3(f, "contact velocity after (m/s)", im->post.contact_velocity, nan3, 0, nan3, 1, "%.4g");
        row3(f, "contact point (mm)", im->contact_point, nan3, 0, nan3, 1e3, "%.2f");
        row3(f, "impulse J (N s)", im->impulse, nan3, 0, nan3, 1, "%.4g");
        fprintf(f, "<tr><td>impact case</td><td></td><td></td><td>%s</td></tr>\n",
                im->model.done ? im->model.case_label : "&ndash;");
        fprintf(f, "<tr><td>fit windows (frames)</td><td>%d before, %d after</td><td></td><td></td></tr>\n",
                im->pre.n_frames, im->post.n_frames);
        fputs("</table>\n", f);
        if (im->model.note[0])
            note(f, im->model.note);
    }
    fputs("</section>\n", f);
}

static void overlays(FILE *f, const report_inputs *in)
{
    fputs("<section id=overlays><h2>Detections over the video at the impact</h2>\n", f);
    if (in->n_overlays == 0)
        note(f, "No overlay images: they need the video frames and the tracking stage (impactcv run).");
    for (int i = 0; i < in->n_overlays; i++) {
        const report_overlay *o = &in->overlays[i];
        fputs("<figure><img class=overlay id=\"overlay-", f);
        icv_fput_html(f, o->camera);
        fputs("\" alt=\"overlay\" src=\"data:image/png;base64,", f);
        icv_fput_base64(f, o->png, o->png_len);
        fputs("\"><figcaption>camera ", f);
        icv_fput_html(f, o->camera);
        fprintf(f, ", frame %d: markers in their identity's colour, the fitted body outline in yellow</figcaption></figure>\n",
                o->frame);
    }
    if (in->n_overlays > 0) {
        fputs("<p class=legend>markers:", f);
        for (int k = 0; k < in->exp->n_markers; k++) {
            unsigned char c[3];
            report_palette(k, c);
            fprintf(f, " <span style=\"color:#%02x%02x%02x\">&#9679;</span>&nbsp;m%d", c[0], c[1], c[2], k);
        }
        fputs("</p>\n", f);
    }
    fputs("</section>\n", f);
}

static void plots(page *pg, const report_inputs *in)
{
    FILE *f = pg->f;
    fputs("<section id=plots><h2>Motion against time</h2>\n", f);
    if (!in->tracks) {
        note(f, "No 3D tracks were given: the motion is not plotted.");
        fputs("</section>\n", f);
        return;
    }
    analysis_body b;
    icv_err e = {0};
    motion m;
    if (analysis_body_from_experiment(in->exp, &b, &e)) {
        note(f, e.msg);
        fputs("</section>\n", f);
        return;
    }
    if (motion_measure(in->tracks, &b, &m)) {
        pg->failed = 1;
        snprintf(pg->why, sizeof pg->why, "out of memory measuring the poses");
        fputs("</section>\n", f);
        return;
    }
    fitted *F = NULL;
    double vl[ANALYSIS_MAX_IMPACTS];
    int nv = 0, have_p = 0;
    if (in->result) {
        F = malloc(sizeof *F);
        for (int i = 0; i < in->result->n_impacts; i++) {
            vl[nv++] = in->result->impacts[i].t;
            have_p += isfinite(in->result->impacts[i].pre.p.x) && isfinite(in->result->impacts[i].post.p.x);
        }
        if (F) {
            fitted_sample(in->result, &b, F);
            fitted_align_euler(F, &m);
        }
    }
    if (F && in->result->n_impacts > 0 && have_p < in->result->n_impacts)
        note(f, "The sides' positions at the impact are unknown (no fits.csv): position and contact-height fits are "
                "not drawn.");
    static const char *const xyz[3] = {"x", "y", "z"}, *const th[3] = {"#gh#d1", "#gh#d2", "#gh#d3"};
    plot3(pg, "plot-com-position", "Centre of mass position", "position (mm)", xyz, m.n, m.t, m.p, F,
          F ? (const double (*)[2 * ANALYSIS_MAX_IMPACTS][NS])F->p : NULL, vl, nv,
          "Centre of mass in the surface frame (y: the surface normal): measured (circles), ballistic fits on each "
          "side (lines), impact instants (dashed).");
    plot3(pg, "plot-com-velocity", "Centre of mass velocity", "velocity (m/s)", xyz, m.n > 0 ? m.n - 1 : 0, m.tm, m.v,
          F, F ? (const double (*)[2 * ANALYSIS_MAX_IMPACTS][NS])F->v : NULL, vl, nv,
          "Velocity: finite differences of consecutive poses (circles) and the fitted flights (lines).");
    plot3(pg, "plot-euler", "Euler angles (2-1-3)", "angle (deg)", th, m.n, m.t, m.e, F,
          F ? (const double (*)[2 * ANALYSIS_MAX_IMPACTS][NS])F->e : NULL, vl, nv,
          "euler213 [theta1 about y, theta2 about the new x, theta3 about the new z] of the body-to-surface rotation, "
          "measured and from the torque-free fits. theta1 and theta3 jumping by 180 deg together is the same attitude "
          "(theta2 passing +-90 deg).");
    static const char *const om[3] = {"#gw#dx", "#gw#dy", "#gw#dz"};
    plot3(pg, "plot-omega", "Angular velocity", "angular velocity (rad/s)", om, m.n > 0 ? m.n - 1 : 0, m.tm, m.w, F,
          F ? (const double (*)[2 * ANALYSIS_MAX_IMPACTS][NS])F->w : NULL, vl, nv,
          "Angular velocity in the surface frame: from consecutive attitudes (circles) and the torque-free fits (lines).");
    {
        report_series s[1 + 2 * ANALYSIS_MAX_IMPACTS];
        int ns = 0;
        s[ns++] = (report_series){m.n, m.t, m.h, 1, 3, "measured"};
        for (int c = 0; F && c < F->n; c++)
            s[ns++] = (report_series){NS, F->t[c], F->h[c], 0, 0, c == 0 ? "fitted" : NULL};
        double zx[2] = {m.n ? m.t[0] : 0, m.n ? m.t[m.n - 1] : 1}, zy[2] = {0, 0};
        s[ns++] = (report_series){2, zx, zy, 0, 7, "surface"};
        int rc = report_plot_xy(pg->svg, "Contact point height", "time (s)", "height above the surface (mm)", s, ns,
                                vl, nv, &e);
        figure(pg, rc, &e, "plot-contact-height",
               "Height above the surface of the body's lowest point (its shape in experiment.yaml): it reaches 0 at "
               "the impact.");
    }
    {
        int n = in->n_fits;
        double *t = malloc(sizeof *t * (size_t)(n + 1) * 2), *r = t ? t + n + 1 : NULL;
        if (t && n > 0) {
            for (int i = 0; i < n; i++) {
                t[i] = in->fits[i].t;
                r[i] = 1e3 * in->fits[i].residual;
            }
            report_series s = {n, t, r, 1, 4, "residual"};
            int rc = report_plot_xy(pg->svg, "Ballistic fit residuals", "time (s)", "residual (mm)", &s, 1, vl, nv, &e);
            figure(pg, rc, &e, "plot-fit-residuals",
                   "Distance of each measured centre of mass from its side's fitted flight (fits.csv): a trend "
                   "means the window holds contact or the rate is wrong.");
        } else {
            fputs("<p id=plot-fit-residuals class=note>No fits.csv rows were given: residuals are not plotted.</p>\n", f);
        }
        free(t);
    }
    free(F);
    free(m.mem);
    fputs("</section>\n", f);
}

static void verdict_list(FILE *f, int ok, const char *v)
{
    fprintf(f, "<p>Verdict: <b class=%s>%s</b></p><ul>", ok ? "ok" : "bad", ok ? "usable" : "not usable");
    while (v && *v) {
        const char *nl = strchr(v, '\n');
        size_t len = nl ? (size_t)(nl - v) : strlen(v);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, v);
        fputs("<li>", f);
        icv_fput_html(f, line);
        fputs("</li>", f);
        v += len + (nl != NULL);
    }
    fputs("</ul>\n", f);
}

static void calib_cam(page *pg, const calib_camera *c, const char *who, int idx)
{
    FILE *f = pg->f;
    fprintf(pg->f, "<h3>%s</h3><p>RMS reprojection error %.3f px over %d of %d views; coverage %.0f%% of the image.</p>\n",
            who, c->rms, c->n_used, c->n_views, 100 * c->coverage);
    if (c->n_views > 0) {
        double *y = malloc(sizeof *y * (size_t)c->n_views);
        int *col = malloc(sizeof *col * (size_t)c->n_views);
        if (y && col) {
            for (int v = 0; v < c->n_views; v++) {
                y[v] = c->views[v].rms;
                col[v] = c->views[v].status == CALIB_VIEW_USED ? 0 : c->views[v].status == CALIB_VIEW_OUTLIER ? 3 : 7;
            }
            icv_err e = {0};
            char id[64], cap[160];
            snprintf(id, sizeof id, "plot-calib-views-%d", idx);
            snprintf(cap, sizeof cap, "%s: reprojection RMS per view (blue used, red dropped as outlier, grey no "
                                      "board/blurred)", who);
            int rc = report_plot_bars(pg->svg, "Reprojection error per view", "view", "RMS error (px)", c->n_views, y,
                                      col, &e);
            figure(pg, rc, &e, id, cap);
        }
        free(y);
        free(col);
    }
    double z[CALIB_COV_ROWS * CALIB_COV_COLS];
    for (int j = 0; j < CALIB_COV_ROWS; j++)
        for (int i = 0; i < CALIB_COV_COLS; i++) /* row 0 at the image's top: drawn at the plot's top */
            z[(CALIB_COV_ROWS - 1 - j) * CALIB_COV_COLS + i] = c->coverage_map[j][i];
    icv_err e = {0};
    char id[64], cap[160];
    snprintf(id, sizeof id, "plot-calib-coverage-%d", idx);
    snprintf(cap, sizeof cap, "%s: board corners per cell of a %dx%d grid over the image (top of the image at the top)",
             who, CALIB_COV_COLS, CALIB_COV_ROWS);
    int rc = report_plot_map(pg->svg, "Coverage", "image column cell", "image row cell (from the bottom)",
                             CALIB_COV_COLS, CALIB_COV_ROWS, 0, CALIB_COV_COLS - 1, 0, CALIB_COV_ROWS - 1, z,
                             "corners", 0, NULL, &e);
    figure(pg, rc, &e, id, cap);
    verdict_list(f, c->verdict_ok, c->verdict);
}

static void calibration(page *pg, const report_inputs *in)
{
    FILE *f = pg->f;
    fputs("<section id=calibration><h2>Calibration quality</h2>\n", f);
    if (!in->calib_stereo && in->n_calib_cameras == 0)
        note(f, "No calibration was given to the report (a ready calibration file, or a report built from files): "
                "its per-view errors, coverage and verdict are in the calib_report.html that impactcv calib writes.");
    for (int c = 0; c < in->n_calib_cameras; c++) {
        char who[96];
        snprintf(who, sizeof who, "camera %s", in->exp && c < in->exp->n_cameras ? in->exp->cameras[c].id : "?");
        calib_cam(pg, &in->calib_cameras[c], who, c);
    }
    if (in->calib_stereo) {
        const calib_stereo *s = in->calib_stereo;
        fprintf(f, "<h3>Stereo</h3><p>RMS %.3f px over %d of %d pairs; mean epipolar distance %.3f px; baseline "
                   "%.2f &plusmn; %.2f mm.</p>\n",
                s->rms, s->n_used, s->n_pairs, s->epipolar, 1e3 * s->baseline, 1e3 * s->baseline_std);
        verdict_list(f, s->verdict_ok, s->verdict);
        for (int c = 0; c < 2; c++) {
            char who[96];
            snprintf(who, sizeof who, "stereo camera %d (%s)", c + 1,
                     in->exp && c < in->exp->n_cameras ? in->exp->cameras[c].id : "?");
            calib_cam(pg, &s->cam[c], who, 10 + c);
        }
    }
    fputs("</section>\n", f);
}

static const char *cam_id(const report_inputs *in, int c)
{
    return in->exp && c < in->exp->n_cameras ? in->exp->cameras[c].id : "?";
}

static void sync_section(page *pg, const report_inputs *in)
{
    FILE *f = pg->f;
    fputs("<section id=sync><h2>Sync</h2>\n", f);
    if (in->n_sync == 0 && in->n_probes == 0) {
        note(f, "No sync or capture results were given (a report built from files): offsets and the flash are not "
                "shown.");
        fputs("</section>\n", f);
        return;
    }
    fputs("<table><tr><th>camera</th><th>flash frame</th><th>onset (frame)</th><th>exposed fraction</th>"
          "<th>baseline / plateau (gray)</th><th>offset (frames)</th><th>offset (ms)</th><th>from</th></tr>\n",
          f);
    int n = in->n_sync > in->n_probes ? in->n_sync : in->n_probes;
    for (int c = 0; c < n; c++) {
        fputs("<tr><td>", f);
        icv_fput_html(f, cam_id(in, c));
        fputs("</td>", f);
        const capture_probe *p = c < in->n_probes ? &in->probes[c] : NULL;
        if (p && p->has_flash)
            fprintf(f, "<td>%ld</td><td>%.3f</td><td>%.3f</td><td>%.1f / %.1f</td>", p->flash.frame,
                    p->flash.onset_frame, p->flash.ratio, p->flash.baseline, p->flash.plateau);
        else
            fputs("<td colspan=4>no flash found</td>", f);
        if (c < in->n_sync)
            fprintf(f, "<td>%.3f</td><td>%.3f</td><td>%s</td></tr>\n", in->sync[c].offset_frames,
                    1e3 * in->sync[c].offset_s, in->sync[c].manual ? "experiment.yaml" : "flash");
        else
            fputs("<td></td><td></td><td></td></tr>\n", f);
    }
    fputs("</table>\n", f);
    /* each camera's mean brightness around its flash */
    report_series s[ICV_MAX_CAMERAS];
    double *buf = malloc(sizeof *buf * 2 * 41 * ICV_MAX_CAMERAS);
    int ns = 0;
    char lab[ICV_MAX_CAMERAS][ICV_ID_MAX];
    for (int c = 0; buf && c < in->n_probes && c < ICV_MAX_CAMERAS; c++) {
        const capture_probe *p = &in->probes[c];
        if (!p->has_flash || !p->brightness)
            continue;
        double *x = buf + 82 * ns, *y = x + 41;
        int m = 0;
        for (long k = p->flash.frame - 20; k <= p->flash.frame + 20; k++)
            if (k >= 0 && k < p->frames_decoded) {
                x[m] = (double)(k - p->flash.frame);
                y[m++] = p->brightness[k];
            }
        snprintf(lab[ns], sizeof lab[ns], "%s", cam_id(in, c));
        s[ns] = (report_series){m, x, y, 0, ns, lab[ns]};
        ns++;
    }
    if (ns > 0) {
        icv_err e = {0};
        int rc = report_plot_xy(pg->svg, "Brightness around the flash", "frame from the first flash frame",
                                "mean gray level", s, ns, NULL, 0, &e);
        figure(pg, rc, &e, "plot-flash", "Each camera's mean brightness around its flash; the sub-frame onset comes "
                                         "from the first flash frame's exposed fraction.");
    }
    free(buf);
    fputs("</section>\n", f);
}

static void timing(FILE *f, const report_inputs *in)
{
    fputs("<section id=timing><h2>Timing</h2>\n", f);
    if (in->n_probes == 0) {
        note(f, "No capture results were given (a report built from files): capture rate, duplicated and dropped "
                "frames are not shown (impactcv probe VIDEO shows them).");
        fputs("</section>\n", f);
        return;
    }
    fputs("<table><tr><th>camera</th><th>frames</th><th>nominal (fps)</th><th>capture (fps)</th><th>VFR</th>"
          "<th>duplicated</th><th>dropped (missing)</th><th>lost</th><th>flicker</th></tr>\n",
          f);
    for (int c = 0; c < in->n_probes; c++) {
        const capture_probe *p = &in->probes[c];
        fputs("<tr><td>", f);
        icv_fput_html(f, cam_id(in, c));
        fprintf(f, "</td><td>%ld</td><td>%.3f</td><td>%.3f</td><td>%s</td><td>%zu</td><td>%zu (%ld)</td><td>%zu</td>",
                p->info.frames, p->info.nominal_fps, p->info.capture_fps, p->timing.vfr ? "yes" : "no",
                p->n_duplicates, p->timing.n_dropped, p->timing.missing, p->n_lost);
        if (p->flicker.hz > 0)
            fprintf(f, "<td>%.0f Hz (%.1f gray)</td></tr>\n", p->flicker.hz, p->flicker.amplitude);
        else
            fputs("<td>none</td></tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
}

static void warnings(FILE *f, const report_inputs *in)
{
    fputs("<section id=warnings><h2>Warnings</h2><ul>\n", f);
    int n = 0;
    for (int i = 0; i < in->n_warnings; i++, n++) {
        fputs("<li>", f);
        icv_fput_html(f, in->warnings[i]);
        fputs("</li>\n", f);
    }
    const analysis_result *r = in->result;
    for (int i = 0; r && i < r->n_impacts; i++) {
        const analysis_impact *im = &r->impacts[i];
        if (im->model.note[0]) {
            fprintf(f, "<li>impact %d: ", i + 1);
            icv_fput_html(f, im->model.note);
            fputs("</li>\n", f);
            n++;
        }
        if (!im->spin_observable) {
            fprintf(f, "<li>impact %d: the markers are collinear: the spin about the body's line is not measured "
                       "(0 in &omega; and left out of the energies).</li>\n", i + 1);
            n++;
        }
        if (im->pre.singular || im->post.singular) {
            fprintf(f, "<li>impact %d: euler213 is at its singular attitude (&theta;2 = &plusmn;90&deg;): &theta;1 and "
                       "&theta;3 are not separable there.</li>\n", i + 1);
            n++;
        }
    }
    if (n == 0)
        fputs("<li class=none>none</li>\n", f);
    fputs("</ul></section>\n", f);
}

static const char css[] =
    "body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:1.5em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
    "th{background:#f0f0f0}.note{color:#666;font-style:italic}.ok{color:#1a7f37}.bad{color:#c0392b}"
    "img.plot{width:720px;max-width:100%;border:1px solid #eee}img.overlay{max-width:100%}"
    "figure{margin:1em 0}figcaption{color:#555;font-size:.9em;max-width:720px}";

int report_write(const report_inputs *in, const char *path, icv_err *err)
{
    if (!in || !in->exp)
        return icv_err_set(err, ICV_EINVAL, "%s: the report needs the experiment", path);
    const char *tmp = getenv("TMPDIR");
    char dir[ICV_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/icv_report_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return icv_err_set(err, ICV_EIO, "%s: cannot make a scratch folder for the plots", dir);
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc) {
        rmdir(dir);
        return rc;
    }
    page pg = {.f = af.fp};
    snprintf(pg.svg, sizeof pg.svg, "%s/plot.svg", dir);
    FILE *f = af.fp;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>impactcv report: ", f);
    icv_fput_html(f, in->exp->name);
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>impactcv report: ", css);
    icv_fput_html(f, in->exp->name);
    fputs("</h1>\n<p>Surface frame: origin at the board's first inner corner, y the surface normal (up), z = x &times; "
          "y. Times on the reference camera's clock. Files keep SI units; this page shows millimetres and degrees "
          "where labelled.</p>\n",
          f);
    summary(f, in);
    overlays(f, in);
    plots(&pg, in);
    calibration(&pg, in);
    sync_section(&pg, in);
    timing(f, in);
    warnings(f, in);
    fprintf(f, "<p class=note>impactcv %s</p></body></html>\n", ICV_VERSION);
    unlink(pg.svg);
    rmdir(dir);
    if (pg.failed) {
        icv_atomic_abort(&af);
        return icv_err_set(err, ICV_ENOMEM, "%s: %s", path, pg.why);
    }
    return icv_atomic_commit(&af, err);
}

int report_from_dir(const char *dir, const icv_experiment *exp, icv_err *err)
{
    char p[ICV_PATH_MAX];
    analysis_result *res = malloc(sizeof *res);
    if (!res)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", dir);
    report_fit_row *rows = NULL;
    int nrows = 0, rc;
    analysis_tracks tr;
    memset(&tr, 0, sizeof tr);
    int have_tracks = 0;
    if ((rc = icv_path_join(p, sizeof p, dir, "results.json", err)) || (rc = report_results_read(p, res, err)))
        goto out;
    if ((rc = icv_path_join(p, sizeof p, dir, "fits.csv", err)) || (rc = report_fits_read(p, &rows, &nrows, err)))
        goto out;
    report_fits_apply(rows, nrows, res);
    if ((rc = icv_path_join(p, sizeof p, dir, "tracks3d.csv", err)) || (rc = analysis_tracks_read_csv(p, &tr, err)))
        goto out;
    have_tracks = 1;
    report_inputs in = {.exp = exp, .result = res, .tracks = &tr, .fits = rows, .n_fits = nrows};
    if (!(rc = icv_path_join(p, sizeof p, dir, "report.html", err)))
        rc = report_write(&in, p, err);
out:
    if (have_tracks)
        analysis_tracks_free(&tr);
    free(rows);
    free(res);
    return rc;
}
