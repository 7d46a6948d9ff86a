/* html.c: report.html, the page a person reads: the measured
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

/* The measured motion in the plots' units: an analysis_motion_series whose p and h
 * are in mm and e in degrees (t, tm s; v m/s; w rad/s as measured). */
typedef analysis_motion_series motion;

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

/* m in the plots' units (mm, deg) from the analysis's measured series (SI) */
static int motion_in_plot_units(const analysis_motion_series *s, motion *m)
{
    if (analysis_motion_series_alloc(s->n, m, NULL))
        return -1;
    m->n = s->n;
    for (int j = 0; j < s->n; j++) {
        m->t[j] = s->t[j];
        m->h[j] = 1e3 * s->h[j];
        for (int k = 0; k < 3; k++)
            m->p[k][j] = 1e3 * s->p[k][j], m->e[k][j] = s->e[k][j] * 180 / M_PI;
        if (j + 1 < s->n) {
            m->tm[j] = s->tm[j];
            for (int k = 0; k < 3; k++)
                m->v[k][j] = s->v[k][j], m->w[k][j] = s->w[k][j];
        }
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
                double t = a + (z - a) * j / (NS - 1);
                F->t[c][j] = t;
                icv_mat3 R;
                icv_vec3 p, v, w, e;
                analysis_side_state(res, i, sd, b, t, &p, &v, &R, &w);
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

static void embed_file(FILE *f, const char *file, const char *mime, const char *id, const char *alt)
{
    FILE *s = fopen(file, "rb");
    if (!s)
        return;
    fseek(s, 0, SEEK_END);
    long n = ftell(s);
    fseek(s, 0, SEEK_SET);
    unsigned char *d = n > 0 ? malloc((size_t)n) : NULL;
    if (d && fread(d, 1, (size_t)n, s) == (size_t)n) {
        fprintf(f, "<img id=\"%s\" class=plot alt=\"", id);
        icv_fput_html(f, alt);
        fprintf(f, "\" src=\"data:%s;base64,", mime);
        icv_fput_base64(f, d, (size_t)n);
        fputs("\">\n", f);
    }
    free(d);
    fclose(s);
    unlink(file);
}

void report_figure(FILE *f, const char *svg, int rc, const icv_err *e, const char *id, const char *caption)
{
    fprintf(f, "<figure>");
    if (rc == 0)
        embed_file(f, svg, "image/svg+xml", id, caption);
    else {
        fprintf(f, "<p id=\"%s\" class=note>plot not drawn: ", id);
        icv_fput_html(f, e->msg);
        fputs("</p>", f);
    }
    fputs("<figcaption>", f);
    icv_fput_html(f, caption);
    fputs("</figcaption></figure>\n", f);
}

/* a plot's figure: the SVG made by rc (0) embedded, or the reason it is missing */
static void figure(page *pg, int rc, icv_err *e, const char *id, const char *caption)
{
    report_figure(pg->f, pg->svg, rc, e, id, caption);
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

/* At the top of the summary: what makes the numbers below unsafe to use, each with its
 * likely cause, and every warning of the run that concerns them. */
static void checks(FILE *f, const report_inputs *in)
{
    const analysis_result *r = in->result;
    const report_track_info *t = in->track;
    int bad = 0;
    char why[256];
    fputs("<div id=summary-checks>", f);
    if (t && ((t->has_mono && t->mono.verdict_ok == 0) || (t->has_stereo && t->stereo.verdict_ok == 0))) {
        fputs("<p class=bad><b>The calibration's verdict is &ldquo;not usable&rdquo;</b> (see Calibration): every "
              "length, speed and energy below is scaled by it.</p>\n",
              f);
        bad++;
    }
    if (r && r->g_estimated) {
        double g = icv_v3_norm(r->g), off = g / 9.81 - 1;
        if (fabs(off) > 0.02) {
            double sd = analysis_gravity_magnitude_sd(r);
            fprintf(f, "<p class=bad><b>Free flight falls at |g| = %.3f m/s&sup2;, %+.1f%% from 9.81</b>", g,
                    100 * off);
            if (sd > 0)
                fprintf(f, " (+- %.3f, 1 sigma%s: %.1f sigma)", sd,
                        r->calib.scale_rel > 0 ? ", the scale's in it" : "", fabs(g - 9.81) / sd);
            fputs(": the capture rate (a slow-motion clip tagged at its playback rate), the scale or the sync is "
                  "off, and every speed below is off with it.</p>\n",
                  f);
            bad++;
        }
    }
    double gdiff, gsig, gtol;
    if (r && analysis_gravity_flight_disagrees(r, &gdiff, &gsig, &gtol)) {
        fprintf(f,
                "<p class=bad><b>The free flights fall at |g| = %.3f m/s&sup2;, not at the given gravity (|g| = "
                "%.3f)</b>: %.2f m/s&sup2; apart, %.0f sigma. The likely causes: tracks of something other than the "
                "body's markers (see the overlays), a wrong scale (board square size) or capture rate, or a gravity "
                "vector given in another frame than the surface's; every speed and impact below is off with "
                "it.</p>\n",
                icv_v3_norm(r->g_flight), icv_v3_norm(r->g), gdiff, gdiff / gsig);
        bad++;
    }
    for (int i = 0; r && i < r->n_impacts; i++)
        if (analysis_impact_plausibility(&r->impacts[i], why, sizeof why)) {
            fprintf(f, "<p class=bad><b>Impact %d is physically implausible</b>: ", i + 1);
            icv_fput_html(f, why);
            fputs(". Likely causes: the surface (its line or plane), the scale, duplicated or mistimed frames, a fit "
                  "window holding contact, or tracks of something other than the body's markers (see the "
                  "overlays). The model's fit to it is not shown.</p>\n",
                  f);
            bad++;
        }
    if (in->n_warnings > 0) {
        fprintf(f, "<p>%d warning%s of this run (also listed under Warnings):</p><ul class=summary-warnings>\n",
                in->n_warnings, in->n_warnings == 1 ? "" : "s");
        for (int i = 0; i < in->n_warnings; i++) {
            fputs("<li>", f);
            icv_fput_html(f, in->warnings[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    } else if (!bad)
        fputs("<p class=ok>No warning: the calibration, |g| and every impact passed their checks.</p>\n", f);
    fputs("</div>\n", f);
}

/* One camera: where the metres come from, with its sigma where the run measured one. */
static void scale_source(FILE *f, const report_inputs *in)
{
    const icv_experiment *e = in->exp;
    if (e->n_cameras != 1)
        return;
    const report_track_info *t = in->track;
    switch (e->scale_kind) {
    case ICV_SCALE_BOARD:
        fputs("<p id=scale-source>Scale: the board held in the plane of motion (motion_plane.images).</p>\n", f);
        break;
    case ICV_SCALE_POINTS:
        fprintf(f,
                "<p id=scale-source>Scale: a known length in the plane of motion, %.4g m between two pixels "
                "(motion_plane.scale.points_px); its uncertainty is not given, so it is not in the &sigma;s "
                "below. A ruler in front of or behind the plane of motion scales every length by the ratio of "
                "the distances.</p>\n",
                e->scale_distance);
        break;
    case ICV_SCALE_GRAVITY:
        if (t && isfinite(t->gravity_scale))
            fprintf(f,
                    "<p id=scale-source>Scale: from gravity (the free flight falls at 9.81 m/s&sup2;): factor "
                    "%.5g &plusmn; %.2g (1&sigma;, %.2g%%). |g| below is then 9.81 by construction, not a "
                    "check.</p>\n",
                    t->gravity_scale, t->gravity_scale_sd, 100 * t->gravity_scale_sd / t->gravity_scale);
        else
            fputs("<p id=scale-source>Scale: from gravity (the free flight falls at 9.81 m/s&sup2;); |g| below "
                  "is then 9.81 by construction, not a check.</p>\n",
                  f);
        break;
    case ICV_SCALE_SIZE:
        if (t && isfinite(t->size_scale))
            fprintf(f,
                    "<p id=scale-source>Scale: the ball's own diameter, %.4g m, against its fitted outline of %.4g "
                    "px (motion_plane.scale: size): factor %.5g &plusmn; %.2g (1&sigma;, %.2g%%), in the "
                    "&sigma;s below; |g| below is then a check.</p>\n",
                    e->scale_size, t->size_diameter_px, t->size_scale, t->size_scale_sd,
                    100 * t->size_scale_sd / t->size_scale);
        else
            fputs("<p id=scale-source>Scale: the ball's own diameter (motion_plane.scale: size).</p>\n", f);
        char focal[160] = ".";
        if (t && t->size_focal_rel_sd > 0)
            snprintf(focal, sizeof focal,
                     ". The focal length is nominal (no calibration): the pitch rests on it, and the scale's "
                     "&sigma; holds %.2g%% for it.",
                     100 * t->size_focal_rel_sd);
        if (t && t->size_tilt_fitted && t->size_tilted && t->size_tilt_from_verticals)
            fprintf(f,
                    "<p id=plane-tilt>The camera looks down at the vertical plane of motion by %.1f &plusmn; "
                    "%.1f&deg;, from where the lines given as vertical (motion_plane.verticals_px) meet; the ball's "
                    "apparent size places the plane: positions are mapped to it, not by one scale%s</p>\n",
                    t->size_pitch_deg, t->size_pitch_sd_deg, focal);
        else if (t && t->size_tilt_fitted && t->size_tilted)
            fprintf(f,
                    "<p id=plane-tilt>The plane of motion is tilted to the camera by %.1f &plusmn; %.1f&deg; "
                    "(looking down at it %.1f &plusmn; %.1f&deg;), from the ball's apparent size across the "
                    "image: positions are mapped to that plane, not by one scale.</p>\n",
                    t->size_tilt_deg, t->size_tilt_sd_deg, t->size_pitch_deg, t->size_pitch_sd_deg);
        else if (t && t->size_tilt_fitted)
            fprintf(f,
                    "<p id=plane-tilt>No tilt of the plane to the camera shows in the ball's apparent size "
                    "(looking down at it %.1f &plusmn; %.1f&deg;): one scale, the plane taken to face the "
                    "camera.</p>\n",
                    t->size_pitch_deg, t->size_pitch_sd_deg);
        break;
    default:
        fputs("<p id=scale-source>Scale: from the calibration file.</p>\n", f);
    }
}

/* The run's warnings that concern the numbers just above (those whose text holds
 * `needle`), repeated beside them (where a person reads them). */
static void warnings_near(FILE *f, const report_inputs *in, const char *needle)
{
    int n = 0;
    for (int i = 0; i < in->n_warnings; i++)
        if (in->warnings[i] && strstr(in->warnings[i], needle)) {
            fputs(n++ ? "<li>" : "<ul class=\"near-warnings bad\"><li>", f);
            icv_fput_html(f, in->warnings[i]);
            fputs("</li>\n", f);
        }
    if (n)
        fputs("</ul>\n", f);
}

/* |g|'s 1-sigma from its components' (first order) */
static double norm_sd(icv_vec3 v, icv_vec3 sd)
{
    double n = icv_v3_norm(v);
    return n > 0 ? sqrt(pow(v.x * sd.x, 2) + pow(v.y * sd.y, 2) + pow(v.z * sd.z, 2)) / n : NAN;
}

/* Each free flight (its frames, launch speed and angle at its
 * first frame, its own |g|), and each stretch in contact with the surface. A clip
 * with no impact has its flights as its result, so they come first there. */
static void flights_and_contacts(FILE *f, const report_inputs *in)
{
    const analysis_result *r = in->result;
    if (r->n_flights > 0) {
        fputs(r->n_impacts ? "<h3>Free flights</h3>\n"
                           : "<h3>Free flight: no impact in this clip, the flights are its result</h3>\n",
              f);
        fputs("<table class=summary id=summary-flights><tr><th>flight</th><th>frames (posed)</th><th>t (s)</th>"
              "<th>launch speed (m/s)</th><th>launch angle (deg, above the horizontal)</th><th>own |g| "
              "(m/s&sup2;)</th><th>RMS residual (mm)</th></tr>\n",
              f);
        for (int i = 0; i < r->n_flights; i++) {
            const analysis_flight_summary *fl = &r->flights[i];
            double g = icv_v3_norm(fl->g), gsd = norm_sd(fl->g, fl->g_sd);
            fprintf(f,
                    "<tr id=summary-flight-%d><td>%d</td><td>%ld&ndash;%ld (%d)</td><td>%.5f&ndash;%.5f</td>"
                    "<td>%.4g &plusmn; %.2g</td><td>%.2f &plusmn; %.2g</td>",
                    i, i + 1, fl->frame_first, fl->frame_last, fl->n_frames, fl->t_start, fl->t_end, fl->speed,
                    fl->speed_sd, fl->angle_deg, fl->angle_sd_deg);
            if (gsd > 0)
                fprintf(f, "<td>%.4g &plusmn; %.2g</td>", g, gsd);
            else /* too short for its own fit: the clip's g was used */
                fprintf(f, "<td>&ndash; (too short to fit its own; the clip's %.4g used)</td>", g);
            fprintf(f, "<td>%.3g</td></tr>\n", 1e3 * fl->rms);
        }
        fputs("</table>\n", f);
        fputs("<p class=note>Launch: the centre of mass's velocity at the flight's first frame; 1&sigma; beside "
              "each number. Own |g|: a parabola with g free fitted to that flight alone.</p>\n",
              f);
        warnings_near(f, in, "no impact found");
        warnings_near(f, in, "too short to fit a flight");
    }
    if (r->n_contacts > 0) {
        fputs("<h3>In contact with the surface (not free flight)</h3>\n<table class=summary id=summary-contacts>"
              "<tr><th>stretch</th><th>frames</th><th>t (s)</th><th>kind</th></tr>\n",
              f);
        for (int i = 0; i < r->n_contacts; i++) {
            const analysis_contact *c = &r->contacts[i];
            fprintf(f, "<tr id=summary-contact-%d><td>%d</td><td>%ld&ndash;%ld</td><td>%.4f&ndash;%.4f</td><td>%s</td></tr>\n",
                    i, i + 1, c->frame_first, c->frame_last, c->t_first, c->t_last,
                    c->sliding ? "moving on the surface (sliding, rolling or rocking)" : "resting");
        }
        fputs("</table>\n<p class=note>These frames are left out of gravity's estimate and of every flight's "
              "fit.</p>\n",
              f);
        for (int i = 0; i < r->n_contacts; i++) {
            char at[64];
            snprintf(at, sizeof at, "frames %ld-%ld (t =", r->contacts[i].frame_first, r->contacts[i].frame_last);
            warnings_near(f, in, at);
        }
        warnings_near(f, in, "stays on the surface after it");
    }
}

static void summary(FILE *f, const report_inputs *in)
{
    fputs("<section id=summary><h2>Measured quantities and the model</h2>\n", f);
    checks(f, in);
    const analysis_result *r = in->result;
    if (!r) {
        note(f, "No analysis result was given: nothing was measured.");
        fputs("</section>\n", f);
        return;
    }
    scale_source(f, in);
    fprintf(f, "<p>Gravity used: [%.4g, %.4g, %.4g] m/s&sup2; (surface frame, %s). %d impact%s found.</p>\n", r->g.x,
            r->g.y, r->g.z, r->g_estimated ? "estimated from free flight" : "as given", r->n_impacts,
            r->n_impacts == 1 ? "" : "s");
    warnings_near(f, in, "|g|");
    if (r->n_impacts == 0)
        flights_and_contacts(f, in);
    for (int i = 0; i < r->n_impacts; i++) {
        const analysis_impact *im = &r->impacts[i];
        fprintf(f, "<h3>Impact %d at t = %.5f s</h3>\n<table class=summary id=summary-impact-%d>"
                   "<tr><th>quantity (surface frame)</th><th>measured</th><th>&plusmn;1&sigma;</th><th>model (%s)</th></tr>\n",
                i + 1, im->t, i, icv_restitution_name(im->model.law));
        char m1[96], why[256];
        int show_model = im->model.done && !analysis_impact_plausibility(im, why, sizeof why);
        row1(f, "impact instant t (s)", im->t, im->t_sd, NULL);
        snprintf(m1, sizeof m1, "e_n = %.4g%s", im->model.e_n, im->model.e_n_fitted ? " (fitted)" : " (given)");
        row1(f, "restitution e (Newton's ratio at the contact)", im->e_kinematic, im->sd.e_kinematic,
             show_model ? m1 : NULL);
        if (im->model.mu_fitted && !im->model.mu_identifiable)
            snprintf(m1, sizeof m1, "&mu; &ge; %.3g (sticking: lower bound)", im->model.mu_lower_bound);
        else
            snprintf(m1, sizeof m1, "&mu; = %.4g%s", im->model.mu, im->model.mu_fitted ? " (fitted)" : " (given)");
        row1(f, "impulse ratio |J<sub>xz</sub>| / J<sub>y</sub>", im->impulse_ratio, im->sd.impulse_ratio,
             show_model ? m1 : NULL);
        snprintf(m1, sizeof m1, "%.4g", im->model.loss_fraction);
        /* where the spin is not measured the energies are of the measured motion only */
        const char *scope = im->energy_rotation == ANALYSIS_ROTATION_NONE          ? " (translation only)"
                            : im->energy_rotation == ANALYSIS_ROTATION_ACROSS_LINE ? " (spin about the line left out)"
                                                                                   : "";
        char lab[3][96];
        snprintf(lab[0], sizeof lab[0], "energy loss fraction%s", scope);
        snprintf(lab[1], sizeof lab[1], "kinetic energy before (J)%s", scope);
        snprintf(lab[2], sizeof lab[2], "kinetic energy after (J)%s", scope);
        row1(f, lab[0], im->loss_fraction, im->sd.loss_fraction, show_model ? m1 : NULL);
        row1(f, lab[1], im->energy_pre, NAN, NULL);
        row1(f, lab[2], im->energy_post, NAN, NULL);
        icv_vec3 nan3 = icv_v3(NAN, NAN, NAN);
        row3(f, "v before (m/s)", im->pre.v, im->pre.v_sd, 0, nan3, 1, "%.4g");
        row3(f, "v after (m/s)", im->post.v, im->post.v_sd, show_model, im->model.v, 1, "%.4g");
        row3(f, "&omega; before (rad/s)", im->pre.omega, im->pre.omega_sd, 0, nan3, 1, "%.4g");
        row3(f, "&omega; after (rad/s)", im->post.omega, im->post.omega_sd, show_model, im->model.omega, 1, "%.4g");
        row3(f, "euler213 before (deg)", im->pre.euler213, nan3, 0, nan3, 180 / M_PI, "%.2f");
        row3(f, "euler213 after (deg)", im->post.euler213, nan3, 0, nan3, 180 / M_PI, "%.2f");
        row3(f, "contact velocity before (m/s)", im->pre.contact_velocity, nan3, 0, nan3, 1, "%.4g");
        row3(f, "contact velocity after (m/s)", im->post.contact_velocity, nan3, 0, nan3, 1, "%.4g");
        row3(f, "contact point (mm)", im->contact_point, nan3, 0, nan3, 1e3, "%.2f");
        row3(f, "impulse J (N s)", im->impulse, nan3, 0, nan3, 1, "%.4g");
        fprintf(f, "<tr><td>impact case</td><td></td><td></td><td>%s</td></tr>\n",
                show_model ? im->model.case_label : "&ndash;");
        fprintf(f, "<tr><td>fit windows (frames)</td><td>%d before, %d after</td><td></td><td></td></tr>\n",
                im->pre.n_frames, im->post.n_frames);
        fputs("</table>\n", f);
        if (im->model.note[0])
            note(f, im->model.note);
        char at[64];
        snprintf(at, sizeof at, "impact at t = %.5f", im->t);
        warnings_near(f, in, at);
    }
    if (r->n_impacts > 0)
        flights_and_contacts(f, in);
    fputs("</section>\n", f);
}

static void overlays(FILE *f, const report_inputs *in)
{
    fputs("<section id=overlays><h2>Detections over the video at the impact</h2>\n", f);
    if (in->n_overlays == 0)
        note(f, "No overlay images were given: impactcv run draws them from the videos into DIR/overlays/ "
                "(job_overlays_write); a folder impactcv analyze made alone has none, and a run without an "
                "impact draws none.");
    if (in->n_overlays > 0) {
        fputs("<p class=legend>Over each video frame: the detections in their marker's colour (", f);
        for (int k = 0; k < in->exp->n_markers; k++) {
            unsigned char c[3];
            report_palette(k, c);
            fprintf(f, "%s<span style=\"color:#%02x%02x%02x\">&#9679;</span>&nbsp;m%d", k ? " " : "", c[0], c[1],
                    c[2], k);
        }
        fputs("; white: a 2D track no 3D point labelled), the tracker's predicted positions as magenta crosses, "
              "the body's outline at its fitted pose in yellow.</p>\n",
              f);
    }
    report_overlay_strips(f, in->overlays, in->n_overlays);
    fputs("</section>\n", f);
}

void report_overlay_strips(FILE *f, const report_overlay *ov, int n)
{
    for (int i = 0; i < n; i++) {
        const report_overlay *o = &ov[i];
        int first = i == 0 || strcmp(o->camera, ov[i - 1].camera),
            last = i == n - 1 || strcmp(o->camera, ov[i + 1].camera);
        if (first) { /* one strip per camera: its frames side by side */
            fputs("<h3>camera ", f);
            icv_fput_html(f, o->camera);
            fputs("</h3><div class=strip>\n", f);
        }
        fputs("<figure><img class=overlay id=\"overlay-", f);
        icv_fput_html(f, o->camera);
        fprintf(f, "-%d\" alt=\"overlay\" src=\"data:image/png;base64,", o->frame);
        icv_fput_base64(f, o->png, o->png_len);
        fprintf(f, "\"><figcaption>frame %d", o->frame);
        if (o->label[0]) {
            fputs(": ", f);
            icv_fput_html(f, o->label);
        }
        fputs("</figcaption></figure>\n", f);
        if (last)
            fputs("</div>\n", f);
    }
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
    analysis_motion_series series;
    if (analysis_motion_series_measure(in->tracks, &b, &series, &e)) {
        pg->failed = 1;
        snprintf(pg->why, sizeof pg->why, "%s", e.msg);
        fputs("</section>\n", f);
        return;
    }
    int no_mem = motion_in_plot_units(&series, &m);
    analysis_motion_series_free(&series);
    if (no_mem) {
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
    analysis_motion_series_free(&m);
    fputs("</section>\n", f);
}

static void verdict_list(FILE *f, int ok, const char *v)
{
    if (ok < 0)
        fputs("<p>Verdict: <b>none in the calibration file</b></p><ul>", f);
    else
        fprintf(f, "<p>Verdict: <b class=%s>%s</b></p><ul>", ok ? "ok" : "bad", ok ? "usable" : "not usable");
    icv_fput_html_items(f, v);
    fputs("</ul>\n", f);
}

void report_num_or_dash(FILE *f, const char *fmt, double x)
{
    if (isfinite(x))
        fprintf(f, fmt, x);
    else
        fputs("&ndash;", f);
}

static void calib_cam(page *pg, const calib_camera *c, const char *who, int idx)
{
    FILE *f = pg->f;
    fprintf(f, "<h3>%s</h3><p>RMS reprojection error ", who);
    report_num_or_dash(f, "%.3f px", c->rms);
    fprintf(f, " over %d of %d views; coverage ", c->n_used, c->n_views);
    report_num_or_dash(f, "%.0f%%", 100 * c->coverage);
    fputs(" of the image.</p>\n", f);
    if (c->n_views > 0 && c->views) {
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
    } else if (c->n_views > 0) {
        note(f, "The per-view errors were too many to keep in track_info.json: the counts only.");
    }
    if (isfinite(c->coverage)) {
        double z[CALIB_COV_ROWS * CALIB_COV_COLS];
        for (int j = 0; j < CALIB_COV_ROWS; j++)
            for (int i = 0; i < CALIB_COV_COLS; i++) /* row 0 at the image's top: drawn at the plot's top */
                z[(CALIB_COV_ROWS - 1 - j) * CALIB_COV_COLS + i] = c->coverage_map[j][i];
        icv_err e = {0};
        char id[64], cap[160];
        snprintf(id, sizeof id, "plot-calib-coverage-%d", idx);
        snprintf(cap, sizeof cap,
                 "%s: board corners per cell of a %dx%d grid over the image (top of the image at the top)", who,
                 CALIB_COV_COLS, CALIB_COV_ROWS);
        int rc = report_plot_map(pg->svg, "Coverage", "image column cell", "image row cell (from the bottom)",
                                 CALIB_COV_COLS, CALIB_COV_ROWS, 0, CALIB_COV_COLS - 1, 0, CALIB_COV_ROWS - 1, z,
                                 "corners", 0, NULL, &e);
        figure(pg, rc, &e, id, cap);
    } else {
        note(f, "No coverage map: the calibration file does not hold one.");
    }
    verdict_list(f, c->verdict_ok, c->verdict);
}

static void calibration(page *pg, const report_inputs *in)
{
    FILE *f = pg->f;
    fputs("<section id=calibration><h2>Calibration quality</h2>\n", f);
    if (in->track) {
        fputs("<p>The tracks were made with the calibration from ", f);
        if (!strcmp(in->track->calib_source, "board images"))
            fputs("the board images of experiment.yaml.", f);
        else {
            fputs("the file <code>", f);
            icv_fput_html(f, in->track->calib_source);
            fputs("</code>: what the file holds of its quality is shown.", f);
        }
        fputs("</p>\n", f);
    }
    if (!in->calib_stereo && in->n_calib_cameras == 0)
        note(f, in->track ? "The calibration's quality is not known: the track stage kept none."
                          : "No calibration was given to the report: DIR/track_info.json, which the track stage "
                            "leaves, is absent (a folder impactcv analyze made alone). The per-view errors, coverage "
                            "and verdict are in the calib_report.html that impactcv calib writes.");
    for (int c = 0; c < in->n_calib_cameras; c++) {
        char who[96];
        snprintf(who, sizeof who, "camera %s", in->exp && c < in->exp->n_cameras ? in->exp->cameras[c].id : "?");
        calib_cam(pg, &in->calib_cameras[c], who, c);
    }
    if (in->calib_stereo) {
        const calib_stereo *s = in->calib_stereo;
        fputs("<h3>Stereo</h3><p>RMS ", f);
        report_num_or_dash(f, "%.3f px", s->rms);
        fprintf(f, " over %d of %d pairs; mean epipolar distance ", s->n_used, s->n_pairs);
        report_num_or_dash(f, "%.3f px", s->epipolar);
        fputs("; baseline ", f);
        report_num_or_dash(f, "%.2f", 1e3 * s->baseline);
        fputs(" &plusmn; ", f);
        report_num_or_dash(f, "%.2f", 1e3 * s->baseline_std);
        fputs(" mm.</p>\n", f);
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

/* where camera c's offset came from */
static const char *offset_from(const report_inputs *in, int c)
{
    const report_track_info *t = in->track;
    if (in->sync[c].manual)
        return "experiment.yaml (sync.offsets)";
    if (!t)
        return "flash";
    if (c > 0 && t->offset_refined)
        return !strcmp(t->sync_source, "flash") ? "flash, refined from the motion" : "the motion (no flash)";
    return c == 0 ? "reference camera" : !strcmp(t->sync_source, "none") ? "none (sync: none)" : "flash";
}

static void sync_section(page *pg, const report_inputs *in)
{
    FILE *f = pg->f;
    const report_track_info *t = in->track;
    fputs("<section id=sync><h2>Sync</h2>\n", f);
    if (in->n_sync == 0 && in->n_probes == 0) {
        note(f, "No sync or capture results were given: DIR/track_info.json, which the track stage leaves, is absent "
                "(a folder impactcv analyze made alone): offsets and the flash are not shown.");
        fputs("</section>\n", f);
        return;
    }
    fputs("<table><tr><th>camera</th><th>flash frame</th><th>onset (frame)</th><th>exposed fraction</th>"
          "<th>baseline / plateau (gray)</th>",
          f);
    if (t)
        fputs("<th>offset before refinement (frames)</th>", f);
    fputs("<th>offset used (frames)</th>", f);
    if (t)
        fputs("<th>&plusmn;1&sigma; (frames)</th>", f);
    fputs("<th>offset used (ms)</th><th>from</th></tr>\n", f);
    int n = in->n_sync > in->n_probes ? in->n_sync : in->n_probes;
    for (int c = 0; c < n; c++) {
        fputs("<tr><td>", f);
        icv_fput_html(f, cam_id(in, c));
        fputs("</td>", f);
        const capture_probe *p = c < in->n_probes ? &in->probes[c] : NULL;
        if (p && p->has_flash)
            fprintf(f, "<td>%ld</td><td>%.3f</td><td>%.3f</td><td>%.1f / %.1f</td>", p->flash.frame,
                    p->flash.onset_frame, p->flash.ratio, p->flash.baseline, p->flash.plateau);
        else if (t && strcmp(t->sync_source, "flash"))
            fprintf(f, "<td colspan=4>not looked for (sync: %s)</td>", t->sync_source);
        else if (t && n == 1)
            fputs("<td colspan=4>not looked for (one camera: nothing to sync)</td>", f);
        else
            fputs("<td colspan=4>no flash found</td>", f);
        if (c < in->n_sync) {
            if (t)
                fprintf(f, "<td>%.3f</td>", t->offset_initial_frames[c]);
            fprintf(f, "<td>%.3f</td>", in->sync[c].offset_frames);
            if (t && c > 0 && t->offset_refined)
                fprintf(f, "<td>%.3f</td>", t->offset_sigma_frames);
            else if (t)
                fputs("<td></td>", f);
            fprintf(f, "<td>%.3f</td><td>%s</td></tr>\n", 1e3 * in->sync[c].offset_s, offset_from(in, c));
        } else {
            fprintf(f, "<td colspan=%d></td></tr>\n", t ? 5 : 3);
        }
    }
    fputs("</table>\n", f);
    if (t && t->offset_refined && n > 1)
        fprintf(f, "<p>The flash gives each camera's offset to a frame at best. Camera %s's sub-frame offset was "
                   "refined from the motion (the offset that minimises the epipolar distance of the free-flight "
                   "tracks, docs/pipeline.md): %.3f &plusmn; %.3f frames (1&sigma;), from %.3f frames %s; RMS "
                   "epipolar distance there %.3f px.</p>\n",
                cam_id(in, 1), in->sync[1].offset_frames, t->offset_sigma_frames, t->offset_initial_frames[1],
                !strcmp(t->sync_source, "flash") ? "by the flash" : "(no flash)", t->offset_residual_px);
    else if (t && n > 1 && !in->sync[1].manual)
        note(f, "The sub-frame offset was not refined from the motion: see the warnings.");
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
            if (k >= p->brightness_first && k < p->brightness_first + p->n_brightness) {
                x[m] = (double)(k - p->flash.frame);
                y[m++] = p->brightness[k - p->brightness_first];
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

static const char *rate_from(const capture_info *in)
{
    switch (in->capture_fps_from) {
    case CAPTURE_RATE_USER: return "given (cameras[].capture_fps)";
    case CAPTURE_RATE_METADATA: return "container tag";
    case CAPTURE_RATE_ASSUMED: return "assumed (image sequence)";
    default: return "nominal";
    }
}

static void timing(FILE *f, const report_inputs *in)
{
    const report_track_info *t = in->track;
    fputs("<section id=timing><h2>Timing</h2>\n", f);
    if (in->n_probes == 0) {
        note(f, "No capture results were given: DIR/track_info.json, which the track stage leaves, is absent (a "
                "folder impactcv analyze made alone): capture rate, duplicated and dropped frames are not shown "
                "(impactcv probe VIDEO shows them).");
        fputs("</section>\n", f);
        return;
    }
    fputs("<table><tr><th>camera</th><th>frames</th><th>nominal (fps)</th><th>capture (fps)</th>"
          "<th>capture rate from</th><th>VFR</th><th>duplicated</th><th>dropped (missing)</th><th>lost</th>"
          "<th>flicker</th></tr>\n",
          f);
    int unchecked = 0;
    for (int c = 0; c < in->n_probes; c++) {
        const capture_probe *p = &in->probes[c];
        fputs("<tr><td>", f);
        icv_fput_html(f, cam_id(in, c));
        fprintf(f, "</td><td>%ld</td><td>%.3f</td><td>%.3f</td><td>%s</td><td>%s</td>", p->info.frames,
                p->info.nominal_fps, p->info.capture_fps, rate_from(&p->info), p->timing.vfr ? "yes" : "no");
        if (t && !t->duplicates_checked[c]) {
            fputs("<td>not checked</td>", f);
            unchecked = 1;
        } else {
            if (t && t->duplicates_moving[c] >= 0 && p->n_duplicates)
                fprintf(f, "<td>%zu (%ld while the markers move)</td>", p->n_duplicates, t->duplicates_moving[c]);
            else
                fprintf(f, "<td>%zu</td>", p->n_duplicates);
        }
        fprintf(f, "<td>%zu (%ld)</td><td>%zu</td>", p->timing.n_dropped, p->timing.missing, p->n_lost);
        if (t && !t->flicker_checked[c]) {
            fputs("<td>not measured</td></tr>\n", f);
            unchecked = 1;
        } else if (p->flicker.hz > 0)
            fprintf(f, "<td>%.0f Hz (%.1f gray)</td></tr>\n", p->flicker.hz, p->flicker.amplitude);
        else
            fputs("<td>none</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (unchecked)
        note(f, "Duplicated frames and mains flicker are found from each frame's brightness, which the track stage "
                "keeps only for a flash sync of two cameras: impactcv probe VIDEO checks them.");
    note(f, "A duplicated frame equals the one before it pixel by pixel. It is a timing fault (a repeated picture "
            "whose time is wrong) only while the markers move; a still scene's equal frames are the video "
            "encoder's skipped blocks.");
    fputs("</section>\n", f);
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
            fprintf(f, "<li>impact %d: %s (&omega; is 0 there). ", i + 1,
                    in->exp->n_markers == 1 ? "the body has one marker: its spin is not measured"
                                            : "the markers are collinear: the spin about the body's line is not "
                                              "measured");
            icv_fput_html(f, im->energy_note);
            fputs("</li>\n", f);
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

const char report_css[] =
    "body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:1.5em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
    "th{background:#f0f0f0}.note{color:#666;font-style:italic}.ok{color:#1a7f37}.bad{color:#c0392b}"
    "img.plot{width:720px;max-width:100%;border:1px solid #eee}img.overlay{max-width:100%}"
    ".strip{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}"
    ".strip figure{margin:0;width:min-content}.strip img.overlay{max-width:none}"
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
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>impactcv report: ", report_css);
    icv_fput_html(f, in->exp->name);
    /* the origin as the surface was given (contract: frames) */
    const char *origin = in->exp->surface_kind == ICV_SURFACE_IMAGES ? "origin at the board's first inner corner, "
                         : in->exp->surface_kind == ICV_SURFACE_PLANE ? "origin at the given plane point, "
                         : in->exp->surface_kind == ICV_SURFACE_LINE_PX
                             ? "origin at the first surface.line_px point, x along that line, "
                             : "";
    fprintf(f,
            "</h1>\n<p>Surface frame: %sy the surface normal (up), z = x &times; y. Times on the reference "
            "camera's clock. Files keep SI units; this page shows millimetres and degrees where labelled.</p>\n",
            origin);
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

/* The images of DIR/overlays/index.json (job_overlays_write), in its order;
 * *pngs holds their bytes (free each, then the array). A folder without the index
 * gives none. */
/* An integer of the index in [0, hi] into *out (absent: 0); -1 otherwise: the label's
 * arithmetic must not overflow on an edited or damaged file. */
static int index_int(json_t *v, long hi, long *out)
{
    *out = 0;
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > hi)
        return -1;
    *out = (long)json_integer_value(v);
    return 0;
}

int report_overlays_index_read(const char *dir, report_overlay **ov, unsigned char ***pngs, int *n,
                               icv_err *err)
{
    char p[ICV_PATH_MAX];
    *ov = NULL;
    *pngs = NULL;
    *n = 0;
    int rc = icv_path_join(p, sizeof p, dir, "index.json", err);
    if (rc || !icv_file_exists(p))
        return rc;
    json_t *root, *a, *e;
    if ((rc = report_json_load(p, "impactcv-overlays-1", "overlays", &root, err)))
        return rc;
    a = json_object_get(root, "overlays");
    size_t m = json_array_size(a), i;
    *ov = calloc(m + 1, sizeof **ov);
    *pngs = calloc(m + 1, sizeof **pngs);
    if (!*ov || !*pngs)
        rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", p);
    json_array_foreach(a, i, e)
    {
        if (rc)
            break;
        report_overlay *o = &(*ov)[*n];
        const char *file = json_string_value(json_object_get(e, "file")),
                   *cam = json_string_value(json_object_get(e, "camera")),
                   *role = json_string_value(json_object_get(e, "role"));
        char img[ICV_PATH_MAX];
        if (!file || !cam || snprintf(img, sizeof img, "%s/%s", dir, file) >= (int)sizeof img) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s: entry %zu: no file or camera", p, i);
            break;
        }
        json_t *crop = json_object_get(e, "crop_px");
        long frame = 0, impact = 0, c[4] = {0, 0, 0, 0};
        int bad = index_int(json_object_get(e, "frame"), ICV_MAX_FRAME_NUMBER, &frame) ||
                  index_int(json_object_get(e, "impact"), ANALYSIS_MAX_IMPACTS, &impact);
        for (int k = 0; k < 4; k++)
            bad = bad || index_int(json_array_get(crop, (size_t)k), ICV_MAX_IMAGE_SIDE, &c[k]);
        if (bad) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s: entry %zu: frame, impact or crop_px not a whole number in range", p,
                             i);
            break;
        }
        FILE *f = fopen(img, "rb");
        long len = -1;
        if (f && fseek(f, 0, SEEK_END) == 0)
            len = ftell(f);
        unsigned char *d = len > 0 ? malloc((size_t)len) : NULL;
        if (!f || !d || fseek(f, 0, SEEK_SET) || fread(d, 1, (size_t)len, f) != (size_t)len) {
            free(d);
            if (f)
                fclose(f);
            rc = icv_err_set(err, ICV_EIO, "%s: cannot read the overlay image", img);
            break;
        }
        fclose(f);
        (*pngs)[*n] = d;
        snprintf(o->camera, sizeof o->camera, "%s", cam);
        o->frame = (int)frame;
        o->png = d;
        o->png_len = (size_t)len;
        snprintf(o->label, sizeof o->label, "the frame %s impact %ld, t = %.5f s; pixels %ld-%ld, %ld-%ld of the frame",
                 role ? role : "near", impact + 1, json_number_value(json_object_get(e, "time_s")), c[0],
                 c[0] + c[2] - 1, c[1], c[1] + c[3] - 1);
        (*n)++;
    }
    json_decref(root);
    return rc;
}
