/* bodies_html.c: report.html of several bodies: the bodies, each body-body impact's
 * numbers and momentum balance, a chain's energies as in Akhan's Fig. 4.9 with its
 * joint residual and energetic e, per-body plots of the motion with the side fits,
 * and every number that no real collision gives flagged beside it with its likely
 * cause. The one-body page's style (html.c): one file, inline CSS, PLplot SVG as
 * data URIs, no script, nothing fetched. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report_internal.h"

enum { NS = 40, MAX_FLAGS = 64, MAX_SIDES = 2 * (ANALYSIS_MAX_IMPACTS + ANALYSIS_MAX_CHAIN_IMPACTS) };

/* chi^2 on 3 dof beyond which the two bodies' impulses disagree (p = 0.001) */
#define MISMATCH_CHI2_3DOF 16.27

typedef struct {
    FILE *f;
    char svg[ICV_PATH_MAX]; /* scratch SVG path */
    const report_bodies_inputs *in;
    int n_flags;
    char flags[MAX_FLAGS][512]; /* every flagged number, for the summary and the warnings */
    analysis_body_series series[ICV_MAX_BODIES]; /* each body's, rows as its tracks' */
    int has_series[ICV_MAX_BODIES];
    int half_rows[ICV_MAX_BODIES];               /* of its local fits */
    char series_why[ICV_MAX_BODIES][ICV_ERR_MSG_MAX];
} bpage;

static const char *body_name(const report_bodies_inputs *in, int k)
{
    return k >= 0 && k < in->exp->n_bodies ? in->exp->bodies[k].name : "?";
}

/* ---- the checks: what no real collision gives, with its likely cause ---------- */

/* e above 1 beyond 2 sigma */
static int check_e(double e, double sd, char *why, size_t n)
{
    why[0] = 0;
    if (isfinite(e) && e - 2 * (isfinite(sd) ? sd : 0) > 1)
        snprintf(why, n,
                 "e = %.3g ± %.2g is above 1 beyond 2σ: likely the common normal (the shapes in experiment.yaml), a "
                 "fit window holding the contact, or markers swapped between the bodies",
                 e, sd);
    return why[0] != 0;
}

/* energy gained beyond 2 sigma: lost (J) below 0 */
static int check_gain(double lost, double lost_sd, char *why, size_t n)
{
    why[0] = 0;
    if (isfinite(lost) && lost + 2 * (isfinite(lost_sd) ? lost_sd : 0) < 0)
        snprintf(why, n,
                 "energy gained, %.3g ± %.2g J, beyond 2σ: likely a mass or an inertia wrong in experiment.yaml, or "
                 "a spin mis-measured (a collinear template does not see its spin about its line)",
                 -lost, lost_sd);
    return why[0] != 0;
}

/* a balance's axis that changes beyond 3 sigma; what: "momentum" or "angular momentum" */
static int check_balance(const char *what, const char *axis, double pre, double pre_sd, double post, double post_sd,
                         char *why, size_t n)
{
    why[0] = 0;
    double d = post - pre, s = hypot(pre_sd, post_sd);
    if (isfinite(d) && isfinite(s) && fabs(d) > 3 * s)
        snprintf(why, n,
                 "%s along %s not conserved: it changes by %.3g ± %.2g (%.1fσ): likely an outside impulse (the "
                 "table's friction, a string, the surface), a mass wrong in experiment.yaml, or markers swapped "
                 "between the bodies",
                 what, axis, d, s, d / s);
    return why[0] != 0;
}

static int check_mismatch(double chi2, char *why, size_t n)
{
    why[0] = 0;
    if (isfinite(chi2) && chi2 > MISMATCH_CHI2_3DOF)
        snprintf(why, n,
                 "the two bodies' impulses disagree: χ² = %.1f on 3 dof (p < 0.001): likely a mass wrong, an outside "
                 "impulse during the contact, or the tracking (markers swapped or lost near the contact)",
                 chi2);
    return why[0] != 0;
}

/* a joint's points apart by more than 3 times the poses' noise */
/* m: what the poses' noise alone gives a joint, NaN when the poses do not fix the
 * joint's points (a collinear template's spin about its line moves a point off it) */
static double joint_noise(const analysis_joint_residual *r)
{
    return isfinite(r->expected_rms) && r->expected_rms < 0.1 ? r->expected_rms : NAN;
}

static int check_joint(const analysis_joint_residual *r, char *why, size_t n)
{
    why[0] = 0;
    if (r->n_frames > 0 && isfinite(r->rms) && r->rms > 3 * joint_noise(r))
        snprintf(why, n,
                 "the joint's points are %.2f mm apart (RMS), %.1f times the %.2f mm the poses' noise gives: likely "
                 "the joint's `at` points a little off, the templates' marker positions, or play in the pin",
                 1e3 * r->rms, r->rms / r->expected_rms, 1e3 * r->expected_rms);
    return why[0] != 0;
}

static void add_flag(bpage *bp, const char *where, const char *why)
{
    if (why[0] && bp->n_flags < MAX_FLAGS)
        snprintf(bp->flags[bp->n_flags++], sizeof bp->flags[0], "%s: %s", where, why);
}

static const char *const XYZ[3] = {"x", "y", "z"};

/* every check of the page, in the order the page shows the numbers */
static void collect_flags(bpage *bp)
{
    const report_bodies_inputs *in = bp->in;
    const analysis_bodies_result *r = in->res;
    char why[400], where[160];
    for (int i = 0; i < r->n_impacts; i++) {
        const analysis_body_impact *im = &r->impacts[i];
        snprintf(where, sizeof where, "impact %d ('%s' and '%s')", i + 1, body_name(in, im->body[0]),
                 body_name(in, im->body[1]));
        check_e(im->e_newton, im->e_newton_sd, why, sizeof why);
        add_flag(bp, where, why);
        check_gain(im->energy_lost, im->energy_lost_sd, why, sizeof why);
        add_flag(bp, where, why);
        check_mismatch(im->impulse_mismatch_chi2, why, sizeof why);
        add_flag(bp, where, why);
        for (int a = 0; a < 3; a++) {
            check_balance("momentum", XYZ[a], icv_v3_get(im->momentum_pre, a), icv_v3_get(im->momentum_pre_sd, a),
                          icv_v3_get(im->momentum_post, a), icv_v3_get(im->momentum_post_sd, a), why, sizeof why);
            add_flag(bp, where, why);
        }
        for (int a = 0; a < 3; a++) {
            check_balance("angular momentum", XYZ[a], icv_v3_get(im->angmom_pre, a), icv_v3_get(im->angmom_pre_sd, a),
                          icv_v3_get(im->angmom_post, a), icv_v3_get(im->angmom_post_sd, a), why, sizeof why);
            add_flag(bp, where, why);
        }
    }
    for (int i = 0; i < r->n_rows; i++) {
        const analysis_row_impact *w = &r->rows[i];
        snprintf(where, sizeof where, "row impact %d ('%s' to '%s')", i + 1, body_name(in, w->body[0]),
                 body_name(in, w->body[w->n - 1]));
        check_gain(w->energy_lost, w->energy_lost_sd, why, sizeof why);
        add_flag(bp, where, why);
        check_mismatch(w->momentum_change_chi2, why, sizeof why);
        add_flag(bp, where, why);
    }
    for (int i = 0; i < r->n_surface; i++) {
        const analysis_surface_impact *sf = &r->surface[i];
        snprintf(where, sizeof where, "surface impact %d ('%s')", i + 1, body_name(in, sf->body));
        add_flag(bp, where, sf->im.implausible);
    }
    for (int i = 0; i < r->n_chain; i++) {
        const analysis_chain_impact *c = &r->chain[i];
        for (int k = 0; k < 3; k++) {
            snprintf(where, sizeof where, "the chain's impact %d, e of %s", i + 1,
                     k < 2 ? body_name(in, r->chain_links[k]) : "the chain");
            check_e(k < 2 ? c->e_link[k] : c->e_chain, k < 2 ? c->e_link_sd[k] : c->e_chain_sd, why, sizeof why);
            add_flag(bp, where, why);
        }
        check_gain(c->energy_pre - c->energy_post, hypot(c->energy_pre_sd, c->energy_post_sd), why, sizeof why);
        snprintf(where, sizeof where, "the chain's impact %d", i + 1);
        add_flag(bp, where, why);
    }
    for (int k = 0; k < in->n_joints; k++) {
        const icv_joint *j = &in->exp->joints[k];
        snprintf(where, sizeof where, "joint %d ('%s'-'%s')", k + 1, body_name(in, j->body[0]),
                 body_name(in, j->body[1]));
        check_joint(&in->joints[k], why, sizeof why);
        add_flag(bp, where, why);
    }
}

/* a flag beside a number: the text with its cause, or nothing */
static void flag_cell(FILE *f, const char *why)
{
    fputs("<td>", f);
    if (why[0]) {
        fputs("<span class=\"bad flag\">&#9888; ", f);
        icv_fput_html(f, why);
        fputs("</span>", f);
    }
    fputs("</td>", f);
}

/* ---- table rows ------------------------------------------------------------- */

static void row1(FILE *f, const char *q, double v, double sd, const char *why)
{
    fprintf(f, "<tr><td>%s</td><td>", q);
    report_num_or_dash(f, "%.4g", v);
    fputs("</td><td>", f);
    report_num_or_dash(f, "%.2g", sd);
    fputs("</td>", f);
    flag_cell(f, why ? why : "");
    fputs("</tr>\n", f);
}

static void vec(FILE *f, icv_vec3 v, double scale)
{
    fputs("[", f);
    for (int a = 0; a < 3; a++) {
        report_num_or_dash(f, "%.4g", scale * icv_v3_get(v, a));
        fputs(a < 2 ? ", " : "]", f);
    }
}

static void row3(FILE *f, const char *q, icv_vec3 v, icv_vec3 sd, int has_sd, const char *why)
{
    fprintf(f, "<tr><td>%s</td><td>", q);
    vec(f, v, 1);
    fputs("</td><td>", f);
    if (has_sd)
        vec(f, sd, 1);
    fputs("</td>", f);
    flag_cell(f, why ? why : "");
    fputs("</tr>\n", f);
}

/* a quantity named after a body: "<q> of 'name'" escaped */
static void named(char *out, size_t n, const char *q, const char *name)
{
    char esc[160];
    size_t j = 0;
    for (const char *s = name; *s && j + 7 < sizeof esc; s++) { /* names are ids; escape what HTML needs */
        const char *r = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" : NULL;
        if (r)
            j += (size_t)snprintf(esc + j, sizeof esc - j, "%s", r);
        else
            esc[j++] = *s;
    }
    esc[j] = 0;
    snprintf(out, n, q, esc);
}

/* A body's v and omega before and after an impact, with their 1-sigma. */
static void state_rows(FILE *f, const char *name, const analysis_body_state *pre, const analysis_body_state *post)
{
    char q[256];
    named(q, sizeof q, "v of %s before (m/s)", name);
    row3(f, q, pre->v, pre->v_sd, 1, NULL);
    named(q, sizeof q, "v of %s after (m/s)", name);
    row3(f, q, post->v, post->v_sd, 1, NULL);
    named(q, sizeof q, "&omega; of %s before (rad/s)", name);
    row3(f, q, pre->omega, pre->omega_sd, 1, NULL);
    named(q, sizeof q, "&omega; of %s after (rad/s)", name);
    row3(f, q, post->omega, post->omega_sd, 1, NULL);
}

/* ---- sections ------------------------------------------------------------------ */

static void summary(bpage *bp)
{
    FILE *f = bp->f;
    const report_bodies_inputs *in = bp->in;
    fputs("<section id=summary><h2>Bodies</h2>\n<table id=summary-bodies><tr><th>body</th><th>mass (kg)</th>"
          "<th>shape</th><th>markers</th><th>motion fitted on each side</th><th>rows with a pose</th></tr>\n",
          f);
    for (int k = 0; k < in->n_bodies; k++) {
        const icv_body *b = &in->exp->bodies[k];
        const analysis_tracks *tr = in->bodies[k].tracks;
        int posed = 0, link = in->res->n_chain > 0 && (in->res->chain_links[0] == k || in->res->chain_links[1] == k);
        for (int i = 0; bp->has_series[k] && i < bp->series[k].n; i++)
            posed += isfinite(bp->series[k].p[0][i]);
        fputs("<tr><td>", f);
        icv_fput_html(f, b->name);
        fprintf(f, "</td><td>%.4g</td><td>%s</td><td>%d</td><td>%s</td><td>%d of %d</td></tr>\n", b->mass,
                icv_shape_name(b->shape.type), b->n_markers,
                link ? "a chain's link: constant acceleration and angular acceleration (the joint pulls)"
                : in->bodies[k].motion == ANALYSIS_MOTION_FLIGHT
                    ? "free flight (the given g, torque-free rotation)"
                : in->bodies[k].motion == ANALYSIS_MOTION_PENDULUM
                    ? "a pendulum (its string's length given, the pivot fitted)"
                    : "constant acceleration and angular acceleration (a table)",
                posed, tr->n_frames);
    }
    fputs("</table>\n", f);
    const analysis_bodies_result *r = in->res;
    fprintf(f, "<p>%d body-body impact%s found", r->n_impacts, r->n_impacts == 1 ? "" : "s");
    if (r->n_chain)
        fprintf(f, ", and %d impact%s of the chain with the surface", r->n_chain, r->n_chain == 1 ? "" : "s");
    else
        fprintf(f, ", and %d impact%s of a body with the surface", r->n_surface, r->n_surface == 1 ? "" : "s");
    if (isfinite(r->min_gap))
        fprintf(f, "; the smallest gap between two bodies %.2f mm at t = %.5f s", 1e3 * r->min_gap, r->min_gap_t);
    fputs(".</p>\n<div id=summary-checks>", f);
    if (in->n_stage_warnings > 0) {
        fprintf(f, "<p class=bad>%d warning%s from the stages (also under Warnings):</p><ul>\n", in->n_stage_warnings,
                in->n_stage_warnings == 1 ? "" : "s");
        for (int i = 0; i < in->n_stage_warnings; i++) {
            fputs("<li class=bad>", f);
            icv_fput_html(f, in->stage_warnings[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    if (bp->n_flags == 0)
        fputs("<p class=ok>No warning: every impact's e, energy and momentum balance, and every joint's residual, "
              "passed their checks.</p>\n",
              f);
    else {
        fprintf(f, "<p class=bad>%d number%s below that no real collision gives (flagged &#9888; beside %s):</p><ul>\n",
                bp->n_flags, bp->n_flags == 1 ? "" : "s", bp->n_flags == 1 ? "it" : "each");
        for (int i = 0; i < bp->n_flags; i++) {
            fputs("<li class=bad>", f);
            icv_fput_html(f, bp->flags[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    fputs("</div></section>\n", f);
}

/* kinetic energy before and after (J) of `whose`, the energy lost (flagged when
   gained) and the loss fraction, each with its 1-sigma */
static void energy_rows(FILE *f, const char *whose, double pre, double pre_sd, double post, double post_sd,
                        double lost, double lost_sd, double frac, double frac_sd)
{
    char q[160], why[400];
    snprintf(q, sizeof q, "kinetic energy before, %s (J)", whose);
    row1(f, q, pre, pre_sd, NULL);
    snprintf(q, sizeof q, "kinetic energy after, %s (J)", whose);
    row1(f, q, post, post_sd, NULL);
    check_gain(lost, lost_sd, why, sizeof why);
    row1(f, "energy lost (J)", lost, lost_sd, why);
    row1(f, "energy loss fraction", frac, frac_sd, NULL);
}

/* one balance (momentum or angular momentum) per axis: before, after, change, in sigma */
static void balance_rows(FILE *f, const char *what, const char *unit, icv_vec3 pre, icv_vec3 pre_sd, icv_vec3 post,
                         icv_vec3 post_sd)
{
    char why[400];
    for (int a = 0; a < 3; a++) {
        double p0 = icv_v3_get(pre, a), s0 = icv_v3_get(pre_sd, a), p1 = icv_v3_get(post, a),
               s1 = icv_v3_get(post_sd, a), d = p1 - p0, s = hypot(s0, s1);
        fprintf(f, "<tr><td>%s %s (%s)</td><td>", what, XYZ[a], unit);
        report_num_or_dash(f, "%.5g", p0);
        fputs(" &plusmn; ", f);
        report_num_or_dash(f, "%.2g", s0);
        fputs("</td><td>", f);
        report_num_or_dash(f, "%.5g", p1);
        fputs(" &plusmn; ", f);
        report_num_or_dash(f, "%.2g", s1);
        fputs("</td><td>", f);
        report_num_or_dash(f, "%.3g", d);
        fputs(" &plusmn; ", f);
        report_num_or_dash(f, "%.2g", s);
        fputs("</td><td>", f);
        report_num_or_dash(f, "%.2f", s > 0 ? d / s : NAN);
        fputs("</td>", f);
        check_balance(what, XYZ[a], p0, s0, p1, s1, why, sizeof why);
        flag_cell(f, why);
        fputs("</tr>\n", f);
    }
}

static void plot_balance(bpage *bp, const char *id, const char *title, const char *ylabel, icv_vec3 pre,
                         icv_vec3 pre_sd, icv_vec3 post, icv_vec3 post_sd, const char *caption)
{
    double a[3], as[3], b[3], bs[3];
    for (int k = 0; k < 3; k++)
        a[k] = icv_v3_get(pre, k), as[k] = icv_v3_get(pre_sd, k), b[k] = icv_v3_get(post, k),
        bs[k] = icv_v3_get(post_sd, k);
    icv_err e = {0};
    int rc = report_plot_before_after(bp->svg, title, ylabel, 3, XYZ, a, as, b, bs, &e);
    report_figure(bp->f, bp->svg, rc, &e, id, caption);
}

/* each body's impacts with the surface, measured as one body's are (the one-body
 * report's quantities) in the stretch between its contacts with the others */
static void surface_impacts(bpage *bp)
{
    FILE *f = bp->f;
    const report_bodies_inputs *in = bp->in;
    const analysis_bodies_result *r = in->res;
    if (r->n_surface == 0)
        return;
    fputs("<section id=surface-impacts><h2>Impacts with the surface</h2>\n<p class=note>Each measured as one body's "
          "impact is, in the frames between its contacts with the other bodies (so that no side's fit spans one).</p>\n",
          f);
    for (int i = 0; i < r->n_surface; i++) {
        const analysis_surface_impact *sf = &r->surface[i];
        const analysis_impact *im = &sf->im;
        fprintf(f, "<h3>Surface impact %d: ", i + 1);
        icv_fput_html(f, body_name(in, sf->body));
        fprintf(f, " at t = %.5f s (frames %ld-%ld measured)</h3>\n<table class=summary id=surface-impact-%d><tr><th>"
                   "quantity (surface frame)</th><th>measured</th><th>&plusmn;1&sigma;</th><th>check</th></tr>\n",
                im->t, sf->frame_first, sf->frame_last, i);
        row1(f, "impact instant t (s)", im->t, im->t_sd, NULL);
        row1(f, "e, kinematic (contact point's normal velocity ratio)", im->e_kinematic, im->sd.e_kinematic,
             im->implausible);
        row1(f, "impulse ratio |J<sub>tangential</sub>| / J<sub>normal</sub>", im->impulse_ratio,
             im->sd.impulse_ratio, NULL);
        row1(f, "energy lost, fraction", im->loss_fraction, im->sd.loss_fraction, NULL);
        row3(f, "v before (m/s)", im->pre.v, im->pre.v_sd, 1, NULL);
        row3(f, "v after (m/s)", im->post.v, im->post.v_sd, 1, NULL);
        row3(f, "&omega; before (rad/s)", im->pre.omega, im->pre.omega_sd, 1, NULL);
        row3(f, "&omega; after (rad/s)", im->post.omega, im->post.omega_sd, 1, NULL);
        fputs("</table>\n", f);
    }
    fputs("</section>\n", f);
}

static void impacts(bpage *bp)
{
    FILE *f = bp->f;
    const report_bodies_inputs *in = bp->in;
    const analysis_bodies_result *r = in->res;
    fputs("<section id=impacts><h2>Body-body impacts</h2>\n", f);
    if (r->n_impacts == 0)
        fputs("<p class=note>No body-body impact was found in the tracks.</p>\n", f);
    for (int i = 0; i < r->n_impacts; i++) {
        const analysis_body_impact *im = &r->impacts[i];
        const char *na = body_name(in, im->body[0]), *nb = body_name(in, im->body[1]);
        fprintf(f, "<h3>Impact %d: ", i + 1);
        icv_fput_html(f, na);
        fputs(" and ", f);
        icv_fput_html(f, nb);
        fprintf(f, " at t = %.5f s</h3>\n<table class=summary id=impact-%d><tr><th>quantity (surface frame)</th>"
                   "<th>measured</th><th>&plusmn;1&sigma;</th><th>check</th></tr>\n",
                im->t, i);
        char why[400], q[256];
        row1(f, "impact instant t (s)", im->t, im->t_sd, NULL);
        named(q, sizeof q, "common normal, from %s", na);
        row3(f, q, im->contact.normal, im->contact.normal, 0, NULL);
        row3(f, "contact point (m)", im->contact.point, im->contact.point, 0, NULL);
        check_e(im->e_newton, im->e_newton_sd, why, sizeof why);
        row1(f, "e, Newton's ratio along the common normal", im->e_newton, im->e_newton_sd, why);
        row1(f, "impulse ratio |J<sub>tangential</sub>| / J<sub>normal</sub>", im->impulse_ratio, im->impulse_ratio_sd,
             NULL);
        for (int k = 0; k < 2; k++) {
            named(q, sizeof q, "impulse on %s, its momentum change (N s)", k ? nb : na);
            row3(f, q, im->impulse_body[k], im->impulse_body_sd[k], 1, NULL);
        }
        named(q, sizeof q, "impulse J on %s, the two's mean (N s)", nb);
        row3(f, q, im->impulse, im->impulse_sd, 1, NULL);
        row3(f, "impulse mismatch J<sub>a</sub> + J<sub>b</sub> (N s; 0 in a two-body impact)", im->impulse_mismatch,
             im->impulse_mismatch_sd, 1, NULL);
        check_mismatch(im->impulse_mismatch_chi2, why, sizeof why);
        row1(f, "its &chi;&sup2; on 3 dof (mean 3)", im->impulse_mismatch_chi2, NAN, why);
        energy_rows(f, "both bodies", im->energy_pre, im->energy_pre_sd, im->energy_post, im->energy_post_sd,
                    im->energy_lost, im->energy_lost_sd, im->loss_fraction, im->loss_fraction_sd);
        for (int k = 0; k < 2; k++)
            state_rows(f, k ? nb : na, &im->pre[k], &im->post[k]);
        fputs("</table>\n", f);
        fprintf(f, "<h4>Momentum balance</h4>\n<table class=summary id=impact-%d-momentum><tr><th>total, both "
                   "bodies</th><th>before &plusmn;1&sigma;</th><th>after &plusmn;1&sigma;</th><th>change "
                   "&plusmn;1&sigma;</th><th>change / &sigma;</th><th>check (3&sigma;)</th></tr>\n",
                i);
        balance_rows(f, "momentum", "N s", im->momentum_pre, im->momentum_pre_sd, im->momentum_post,
                     im->momentum_post_sd);
        balance_rows(f, "angular momentum", "N m s", im->angmom_pre, im->angmom_pre_sd, im->angmom_post,
                     im->angmom_post_sd);
        fputs("</table>\n<p class=note>Angular momentum about the contact point at the instant (the impulse has no "
              "moment there). The sigmas are the fits' (Monte Carlo over both bodies' sides).</p>\n",
              f);
        char id[64];
        snprintf(id, sizeof id, "plot-impact-%d-momentum", i);
        plot_balance(bp, id, "Total momentum", "momentum (N s)", im->momentum_pre, im->momentum_pre_sd,
                     im->momentum_post, im->momentum_post_sd,
                     "Total momentum of both bodies per axis before and after the impact, each with its 1-sigma bar "
                     "(left), and its change with the change's 1-sigma against 0 (right): conserved when the change "
                     "lies within a few of its sigmas.");
        snprintf(id, sizeof id, "plot-impact-%d-angmom", i);
        plot_balance(bp, id, "Total angular momentum about the contact point", "angular momentum (N m s)",
                     im->angmom_pre, im->angmom_pre_sd, im->angmom_post, im->angmom_post_sd,
                     "Total angular momentum about the contact point per axis, before and after (left) and its "
                     "change (right), with 1-sigma bars.");
    }
    fputs("</section>\n", f);
}

/* impacts of a row of bodies at once (a cradle): each body's velocity along the row
   before and after, the impulses passed down it, the row's momentum and energy */
static void rows(bpage *bp)
{
    FILE *f = bp->f;
    const report_bodies_inputs *in = bp->in;
    const analysis_bodies_result *r = in->res;
    if (r->n_rows == 0)
        return;
    fputs("<section id=row-impacts><h2>Impacts of a row of bodies at once</h2>\n<p class=note>Bodies in contact in a "
          "row whose velocities all change at one instant (a cradle's balls): no pair's Newton's ratio is in the "
          "states before and after, since each body's momentum change is the sum of its neighbours' impulses. What "
          "they give: each body's velocity along the row, the impulse passed from each body to the next, and the "
          "row's momentum, conserved when the bodies push only each other.</p>\n",
          f);
    for (int i = 0; i < r->n_rows; i++) {
        const analysis_row_impact *w = &r->rows[i];
        fprintf(f, "<h3>Row impact %d: ", i + 1);
        for (int k = 0; k < w->n; k++) {
            fputs(k ? ", " : "", f);
            icv_fput_html(f, body_name(in, w->body[k]));
        }
        fprintf(f, " at t = %.5f s</h3>\n<table class=summary id=row-%d><tr><th>quantity (surface frame)</th>"
                   "<th>measured</th><th>&plusmn;1&sigma;</th><th>check</th></tr>\n",
                w->t, i);
        char why[400], q[256];
        row1(f, "instant t (s)", w->t, w->t_sd, NULL);
        row3(f, "the row's direction (unit)", w->normal, w->normal, 0, NULL);
        for (int k = 0; k < w->n; k++) {
            const char *nm = body_name(in, w->body[k]);
            double vs0 = 0, vs1 = 0;
            for (int a = 0; a < 3; a++) {
                vs0 += icv_v3_get(w->normal, a) * icv_v3_get(w->normal, a) * icv_v3_get(w->pre[k].v_sd, a) *
                       icv_v3_get(w->pre[k].v_sd, a);
                vs1 += icv_v3_get(w->normal, a) * icv_v3_get(w->normal, a) * icv_v3_get(w->post[k].v_sd, a) *
                       icv_v3_get(w->post[k].v_sd, a);
            }
            named(q, sizeof q, "%s: velocity along the row before (m/s)", nm);
            row1(f, q, icv_v3_dot(w->pre[k].v, w->normal), sqrt(vs0), NULL);
            named(q, sizeof q, "%s: velocity along the row after (m/s)", nm);
            row1(f, q, icv_v3_dot(w->post[k].v, w->normal), sqrt(vs1), NULL);
        }
        for (int k = 0; k + 1 < w->n; k++) {
            snprintf(q, sizeof q, "impulse passed from %s to %s (N s)", body_name(in, w->body[k]),
                     body_name(in, w->body[k + 1]));
            char esc[256];
            named(esc, sizeof esc, "%s", q);
            row3(f, esc, w->impulse_between[k], w->impulse_between_sd[k], 1, NULL);
        }
        row3(f, "the row's momentum before (N s)", w->momentum_pre, w->momentum_pre_sd, 1, NULL);
        row3(f, "the row's momentum after (N s)", w->momentum_post, w->momentum_post_sd, 1, NULL);
        row3(f, "its change (N s; 0 for bodies that push only each other)", w->momentum_change,
             w->momentum_change_sd, 1, NULL);
        check_mismatch(w->momentum_change_chi2, why, sizeof why);
        row1(f, "its &chi;&sup2; on 3 dof (mean 3)", w->momentum_change_chi2, NAN, why);
        energy_rows(f, "the row", w->energy_pre, w->energy_pre_sd, w->energy_post, w->energy_post_sd, w->energy_lost,
                    w->energy_lost_sd, w->loss_fraction, w->loss_fraction_sd);
        fputs("</table>\n", f);
    }
    fputs("</section>\n", f);
}

/* ---- fitted curves and measured series ------------------------------------------ */

/* one side of an impact as a body's plots draw it */
typedef struct {
    const analysis_body_state *s;
    double t_impact;
    int post;
} side;

/* the sides of every impact body k takes part in, and their instants */
static int body_sides(const report_bodies_inputs *in, int k, side *sd, double *vl, int *nv)
{
    const analysis_bodies_result *r = in->res;
    int n = 0;
    *nv = 0;
    for (int i = 0; i < r->n_impacts; i++)
        for (int j = 0; j < 2; j++)
            if (r->impacts[i].body[j] == k) {
                vl[(*nv)++] = r->impacts[i].t;
                sd[n++] = (side){&r->impacts[i].pre[j], r->impacts[i].t, 0};
                sd[n++] = (side){&r->impacts[i].post[j], r->impacts[i].t, 1};
            }
    for (int i = 0; i < r->n_chain; i++)
        for (int j = 0; j < 2; j++)
            if (r->chain_links[j] == k) {
                const analysis_chain_impact *c = &r->chain[i];
                vl[(*nv)++] = c->t;
                sd[n++] = (side){&c->pre[j], c->t, 0};
                sd[n++] = (side){&c->post[j], c->t, 1};
            }
    return n;
}

/* a side's fit sampled over its window up to the instant: t (s), p (mm), v (m/s), T (mJ) */
typedef struct {
    double t[NS], p[3][NS], v[3][NS], energy[NS];
} fit_curve;

static void sample_side(const analysis_body *b, const side *sd, fit_curve *c)
{
    double a = sd->post ? sd->t_impact : sd->s->t_first, z = sd->post ? sd->s->t_last : sd->t_impact;
    if (!isfinite(a) || !isfinite(z))
        a = z = sd->t_impact;
    for (int j = 0; j < NS; j++) {
        double t = a + (z - a) * j / (NS - 1), energy;
        analysis_body_state st;
        analysis_body_state_at(b, sd->s, t - sd->t_impact, &st, &energy);
        c->t[j] = t;
        for (int k = 0; k < 3; k++) {
            c->p[k][j] = 1e3 * icv_v3_get(st.p, k);
            c->v[k][j] = icv_v3_get(st.v, k);
        }
        c->energy[j] = 1e3 * energy;
    }
}

/* rows either side of the plotted velocities' fits: about 1 ms, at least 2 */
static int half_rows(const analysis_tracks *tr)
{
    double rate = report_tracks_rate(tr);
    int h = rate > 0 ? (int)lround(1e-3 * rate) : 2;
    return h < 2 ? 2 : h;
}

static void body_plots(bpage *bp, int k)
{
    FILE *f = bp->f;
    const report_bodies_inputs *in = bp->in;
    const analysis_body_track *bt = &in->bodies[k];
    side sd[MAX_SIDES];
    double vl[ANALYSIS_MAX_IMPACTS + ANALYSIS_MAX_CHAIN_IMPACTS];
    int nv, nsd = body_sides(in, k, sd, vl, &nv);
    fputs("<h3>", f);
    icv_fput_html(f, bt->name);
    fputs("</h3>\n", f);
    icv_err e = {0};
    int hr = bp->half_rows[k];
    if (!bp->has_series[k]) {
        fputs("<p class=note>", f);
        icv_fput_html(f, bp->series_why[k]);
        fputs("</p>\n", f);
        return;
    }
    const analysis_body_series s = bp->series[k];
    fit_curve *c = malloc(sizeof *c * (size_t)(nsd + 1));
    double *pmm = malloc(sizeof *pmm * 4 * (size_t)(s.n + 1)), *emj = pmm ? pmm + 3 * (s.n + 1) : NULL;
    if (!c || !pmm) {
        free(c);
        free(pmm);
        fputs("<p class=note>out of memory for the plots</p>\n", f);
        return;
    }
    for (int i = 0; i < nsd; i++)
        sample_side(bt->body, &sd[i], &c[i]);
    for (int i = 0; i < s.n; i++) {
        for (int a = 0; a < 3; a++)
            pmm[a * (s.n + 1) + i] = 1e3 * s.p[a][i];
        emj[i] = 1e3 * s.energy[i];
    }
    report_series ser[3 + 3 * MAX_SIDES];
    char lab[6][64], id[64], cap[512];
    for (int q = 0; q < 2; q++) { /* position, velocity */
        int ns = 0;
        for (int a = 0; a < 3; a++) {
            snprintf(lab[a], sizeof lab[a], "%s tracked", XYZ[a]);
            ser[ns++] = (report_series){s.n, q ? s.tv : s.t, q ? s.v[a] : pmm + a * (s.n + 1), 1, a, lab[a]};
        }
        for (int a = 0; a < 3; a++)
            for (int i = 0; i < nsd; i++) {
                snprintf(lab[3 + a], sizeof lab[3 + a], "%s fitted", XYZ[a]);
                ser[ns++] = (report_series){NS, c[i].t, q ? c[i].v[a] : c[i].p[a], 0, a, i == 0 ? lab[3 + a] : NULL};
            }
        snprintf(id, sizeof id, "plot-body-%d-%s", k, q ? "velocity" : "position");
        char title[96];
        snprintf(title, sizeof title, "%s: centre of mass %s", bt->name, q ? "velocity" : "position");
        int rc = report_plot_xy(bp->svg, title, "time (s)", q ? "velocity (m/s)" : "position (mm)", ser, ns, vl, nv, &e);
        if (q)
            snprintf(cap, sizeof cap,
                     "%s: centre-of-mass velocity in the surface frame: the slope of a straight line through "
                     "%d tracked poses, moved rather than cut to stay off the impacts and inside the clip, at "
                     "their mean time (circles), and each side's fit (lines); impact instants dashed.",
                     bt->name, 2 * hr + 1);
        else
            snprintf(cap, sizeof cap,
                     "%s: centre of mass in the surface frame (y: the surface normal): each row's pose (circles), "
                     "each impact side's fit (lines), impact instants (dashed).",
                     bt->name);
        report_figure(f, bp->svg, rc, &e, id, cap);
    }
    int ns = 0;
    ser[ns++] = (report_series){s.n, s.tv, emj, 1, 3, "tracked"};
    for (int i = 0; i < nsd; i++)
        ser[ns++] = (report_series){NS, c[i].t, c[i].energy, 0, 3, i == 0 ? "fitted" : NULL};
    snprintf(id, sizeof id, "plot-body-%d-energy", k);
    char title[96];
    snprintf(title, sizeof title, "%s: kinetic energy", bt->name);
    int rc = report_plot_xy(bp->svg, title, "time (s)", "kinetic energy (mJ)", ser, ns, vl, nv, &e);
    snprintf(cap, sizeof cap,
             "%s: kinetic energy, translation and the rotation seen (a collinear template's spin about its line is "
             "not), from the local fits (circles: the noise of their slopes lifts them by m sigma_v^2 / 2, the same "
             "all along) and each side's fit (lines).",
             bt->name);
    report_figure(f, bp->svg, rc, &e, id, cap);
    free(c);
    free(pmm);
}

static void plots(bpage *bp)
{
    fputs("<section id=plots><h2>Each body's motion against time</h2>\n", bp->f);
    for (int k = 0; k < bp->in->n_bodies; k++)
        body_plots(bp, k);
    fputs("</section>\n", bp->f);
}

/* ---- the chain ------------------------------------------------------------------ */

/* T1, T2 and T against time in ms from impact i, as Akhan's Fig. 4.9; id the figure's */
static void chain_energy_plot(bpage *bp, int i_impact, const char *id)
{
    const report_bodies_inputs *in = bp->in;
    const analysis_bodies_result *r = in->res;
    const analysis_chain_impact *c = &r->chain[i_impact];
    int l0 = r->chain_links[0], l1 = r->chain_links[1];
    icv_err e = {0};
    if (!bp->has_series[l0] || !bp->has_series[l1]) {
        icv_err_set(&e, ICV_EINVAL, "%s", bp->series_why[bp->has_series[l0] ? l1 : l0]);
        report_figure(bp->f, bp->svg, -1, &e, id, "T1, T2 and T against time");
        return;
    }
    const analysis_body_series *s0 = &bp->series[l0], *s1 = &bp->series[l1];
    int n = s0->n;
    double *ms = malloc(sizeof *ms * 4 * (size_t)(n + 1)), *T[3];
    static double ft[2][NS], fT[3][2][NS];
    if (!ms) {
        icv_err_set(&e, ICV_ENOMEM, "out of memory");
        report_figure(bp->f, bp->svg, -1, &e, id, "T1, T2 and T against time");
        return;
    }
    for (int q = 0; q < 3; q++)
        T[q] = ms + (size_t)(q + 1) * (n + 1);
    for (int i = 0; i < n; i++) {
        /* T2 and T where the links' slopes belong to the same time (their rows posed alike) */
        ms[i] = 1e3 * (s0->tv[i] - c->t);
        T[0][i] = 1e3 * s0->energy[i];
        T[1][i] = i < s1->n && fabs(s1->tv[i] - s0->tv[i]) < 1e-9 ? 1e3 * s1->energy[i] : NAN;
        T[2][i] = T[0][i] + T[1][i];
    }
    for (int ps = 0; ps < 2; ps++) {
        fit_curve fc[2];
        analysis_body_state st[2] = {ps ? c->post[0] : c->pre[0], ps ? c->post[1] : c->pre[1]};
        /* both links over the window they share, so that T1 + T2 adds equal times */
        st[0].t_first = st[1].t_first = fmax(st[0].t_first, st[1].t_first);
        st[0].t_last = st[1].t_last = fmin(st[0].t_last, st[1].t_last);
        for (int j = 0; j < 2; j++) {
            side sd = {&st[j], c->t, ps};
            sample_side(in->bodies[r->chain_links[j]].body, &sd, &fc[j]);
        }
        for (int i = 0; i < NS; i++) {
            ft[ps][i] = 1e3 * (fc[0].t[i] - c->t);
            fT[0][ps][i] = fc[0].energy[i];
            fT[1][ps][i] = fc[1].energy[i];
            fT[2][ps][i] = fc[0].energy[i] + fc[1].energy[i];
        }
    }
    char lab[3][96];
    snprintf(lab[0], sizeof lab[0], "T1");
    snprintf(lab[1], sizeof lab[1], "T2");
    snprintf(lab[2], sizeof lab[2], "T");
    static const int col[3] = {0, 1, 3};
    report_series ser[9];
    int ns = 0;
    for (int q = 0; q < 3; q++) {
        ser[ns++] = (report_series){n, ms, T[q], 1, col[q], NULL};
        for (int ps = 0; ps < 2; ps++)
            ser[ns++] = (report_series){NS, ft[ps], fT[q][ps], 0, col[q], ps == 0 ? lab[q] : NULL};
    }
    double zero[1] = {0};
    int rc = report_plot_xy(bp->svg, "Kinetic energies of the links and the chain", "time from the impact (ms)",
                            "kinetic energy (mJ)", ser, ns, zero, 1, &e);
    char cap[600];
    snprintf(cap, sizeof cap,
             "The links' kinetic energies T1 (%s) and T2 (%s) and the chain's T = T1 + T2 against time from the "
             "impact (dashed), in the layout of Akhan's Fig. 4.9: from the tracked poses' local fits (circles) and "
             "each side's fit (lines). Akhan's e per link and for the chain is sqrt(T after / T before) at the "
             "impact.",
             body_name(in, l0), body_name(in, l1));
    report_figure(bp->f, bp->svg, rc, &e, id, cap);
    free(ms);
}

/* impact i of the chain: its table and its energies (ids chain-impact and
 * plot-chain-energy for the first, with -2, -3... for the next) */
static void chain_impact(bpage *bp, int i)
{
    FILE *f = bp->f;
    const report_bodies_inputs *in = bp->in;
    const analysis_bodies_result *r = in->res;
    const analysis_chain_impact *c = &r->chain[i];
    const char *n0 = body_name(in, r->chain_links[0]), *n1 = body_name(in, r->chain_links[1]);
    char suffix[16] = "", id[48];
    if (i > 0)
        snprintf(suffix, sizeof suffix, "-%d", i + 1);
    if (r->n_chain > 1)
        fprintf(f, "<h3>Impact %d of %d</h3>\n", i + 1, r->n_chain);
    fprintf(f, "<table class=summary id=chain-impact%s><tr><th>quantity (surface frame)</th><th>measured</th>"
               "<th>&plusmn;1&sigma;</th><th>check</th></tr>\n", suffix);
    char q[256], why[400];
    row1(f, "impact instant t (s)", c->t, c->t_sd, NULL);
    named(q, sizeof q, "link that touches: %s", c->link_hit ? n1 : n0);
    fprintf(f, "<tr><td>%s</td><td></td><td></td><td></td></tr>\n", q);
    row3(f, "contact point (m)", c->contact_point, c->contact_point, 0, NULL);
    for (int k = 0; k < 2; k++) {
        const char *nk = k ? n1 : n0;
        named(q, sizeof q, k ? "T2, %s, before (J)" : "T1, %s, before (J)", nk);
        row1(f, q, c->pre[k].energy, c->pre[k].energy_sd, NULL);
        named(q, sizeof q, k ? "T2, %s, after (J)" : "T1, %s, after (J)", nk);
        row1(f, q, c->post[k].energy, c->post[k].energy_sd, NULL);
    }
    row1(f, "T, the chain, before (J)", c->energy_pre, c->energy_pre_sd, NULL);
    check_gain(c->energy_pre - c->energy_post, hypot(c->energy_pre_sd, c->energy_post_sd), why, sizeof why);
    row1(f, "T, the chain, after (J)", c->energy_post, c->energy_post_sd, why);
    for (int k = 0; k < 2; k++) {
        named(q, sizeof q, "Akhan's e = sqrt(T after / T before) of %s", k ? n1 : n0);
        check_e(c->e_link[k], c->e_link_sd[k], why, sizeof why);
        row1(f, q, c->e_link[k], c->e_link_sd[k], why);
    }
    check_e(c->e_chain, c->e_chain_sd, why, sizeof why);
    row1(f, "Akhan's e of the chain (T = T1 + T2)", c->e_chain, c->e_chain_sd, why);
    check_joint(&c->joint, why, sizeof why);
    row1(f, "joint residual, RMS over the clip (mm)", 1e3 * c->joint.rms, NAN, why);
    row1(f, "joint residual the poses' noise alone gives (mm; &ndash;: the poses do not fix the joint's points)",
         1e3 * joint_noise(&c->joint), NAN, NULL);
    row1(f, "joint residual, largest (mm)", 1e3 * c->joint.max, NAN, NULL);
    row1(f, "&hellip; at t (s)", c->joint.t_max, NAN, NULL);
    for (int k = 0; k < 2; k++)
        state_rows(f, k ? n1 : n0, &c->pre[k], &c->post[k]);
    fputs("</table>\n", f);
    snprintf(id, sizeof id, "plot-chain-energy%s", suffix);
    chain_energy_plot(bp, i, id);
}

static void chain(bpage *bp)
{
    const analysis_bodies_result *r = bp->in->res;
    if (!r->n_chain)
        return;
    fprintf(bp->f, "<section id=chain><h2>The chain's impact%s with the surface</h2>\n", r->n_chain > 1 ? "s" : "");
    for (int i = 0; i < r->n_chain; i++)
        chain_impact(bp, i);
    fputs("</section>\n", bp->f);
}

static void joints(bpage *bp)
{
    FILE *f = bp->f;
    const report_bodies_inputs *in = bp->in;
    if (in->n_joints == 0)
        return;
    fputs("<section id=joints><h2>Joints on the tracks</h2>\n<table id=joints-table><tr><th>joint</th><th>frames</th>"
          "<th>RMS apart (mm)</th><th>the noise alone (mm)</th><th>largest (mm)</th><th>check</th></tr>\n",
          f);
    char why[400];
    for (int k = 0; k < in->n_joints; k++) {
        const icv_joint *j = &in->exp->joints[k];
        const analysis_joint_residual *r = &in->joints[k];
        fprintf(f, "<tr><td>%d: ", k + 1);
        icv_fput_html(f, body_name(in, j->body[0]));
        fputs(" &ndash; ", f);
        icv_fput_html(f, body_name(in, j->body[1]));
        fprintf(f, "</td><td>%d</td><td>%.3f</td><td>", r->n_frames, 1e3 * r->rms);
        report_num_or_dash(f, "%.3f", 1e3 * joint_noise(r));
        fprintf(f, "</td><td>%.3f</td>", 1e3 * r->max);
        check_joint(r, why, sizeof why);
        flag_cell(f, why);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n<p class=note>The distance between the two bodies' joint points (experiment.yaml "
          "joints[].at) on the tracks, each frame's poses; a pin keeps it within the poses' noise. The noise's share is "
          "not known (&ndash;) where a body's markers lie on one line that misses the joint point: its spin about "
          "that line is not seen, nor where the point lies.</p></section>\n",
          f);
}

static void warnings(bpage *bp)
{
    FILE *f = bp->f;
    fputs("<section id=warnings><h2>Warnings</h2><ul>\n", f);
    for (int i = 0; i < bp->n_flags; i++) {
        fputs("<li class=bad>", f);
        icv_fput_html(f, bp->flags[i]);
        fputs("</li>\n", f);
    }
    for (int i = 0; i < bp->in->n_stage_warnings; i++) {
        fputs("<li class=bad>", f);
        icv_fput_html(f, bp->in->stage_warnings[i]);
        fputs("</li>\n", f);
    }
    if (bp->n_flags == 0 && bp->in->n_stage_warnings == 0)
        fputs("<li class=none>none</li>\n", f);
    fputs("</ul><p class=note>Not measured here: each body's own impacts with the surface (a chain's first one "
          "aside).</p></section>\n",
          f);
}

int report_bodies_write(const report_bodies_inputs *in, const char *path, icv_err *err)
{
    if (!in || !in->exp || !in->bodies || !in->res || in->n_bodies < 1 || in->n_bodies > ICV_MAX_BODIES)
        return icv_err_set(err, ICV_EINVAL, "%s: the report needs the experiment, its bodies and the result", path);
    const char *tmp = getenv("TMPDIR");
    char dir[ICV_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/icv_report_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return icv_err_set(err, ICV_EIO, "%s: cannot make a scratch folder for the plots", dir);
    bpage *bp = calloc(1, sizeof *bp);
    if (!bp) {
        rmdir(dir);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc) {
        free(bp);
        rmdir(dir);
        return rc;
    }
    bp->f = af.fp;
    bp->in = in;
    snprintf(bp->svg, sizeof bp->svg, "%s/plot.svg", dir);
    analysis_params prm;
    analysis_params_default(&prm);
    for (int k = 0; k < in->n_bodies && k < ICV_MAX_BODIES; k++) {
        side sd[MAX_SIDES];
        double vl[ANALYSIS_MAX_IMPACTS + ANALYSIS_MAX_CHAIN_IMPACTS];
        int nv;
        body_sides(in, k, sd, vl, &nv);
        bp->half_rows[k] = half_rows(in->bodies[k].tracks);
        icv_err e = {0};
        bp->has_series[k] = analysis_body_series_measure(&in->bodies[k], vl, nv, bp->half_rows[k], &prm,
                                                         &bp->series[k], &e) == 0;
        if (!bp->has_series[k])
            snprintf(bp->series_why[k], sizeof bp->series_why[k], "%s", e.msg);
    }
    collect_flags(bp);
    FILE *f = af.fp;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>impactcv report: ", f);
    icv_fput_html(f, in->exp->name);
    fprintf(f, "</title><style>%s.flag{font-size:.9em}</style></head><body>\n<h1>impactcv report: ", report_css);
    icv_fput_html(f, in->exp->name);
    fprintf(f, " (%d bodies)</h1>\n<p>Surface frame: y the surface normal (up), z = x &times; y; vectors [x, y, z]. "
               "Times on the tracks' clock. Tables in SI units; the plots in millimetres and millijoules where "
               "labelled. Each 1&sigma; is the fits' (Monte Carlo over the sides' fits).</p>\n",
            in->n_bodies);
    summary(bp);
    impacts(bp);
    surface_impacts(bp);
    rows(bp);
    chain(bp);
    joints(bp);
    plots(bp);
    warnings(bp);
    fprintf(f, "<p class=note>impactcv %s</p></body></html>\n", ICV_VERSION);
    unlink(bp->svg);
    rmdir(dir);
    for (int k = 0; k < in->n_bodies && k < ICV_MAX_BODIES; k++)
        if (bp->has_series[k])
            analysis_body_series_free(&bp->series[k]);
    free(bp);
    return icv_atomic_commit(&af, err);
}

/* The overlays section of several bodies: a legend of the bodies' colours, then the
 * strips. */
static void bodies_overlays(FILE *f, const icv_experiment *exp, const report_overlay *ov, int n)
{
    fputs("<section id=overlays><h2>The bodies over the video at each impact</h2>\n", f);
    if (n == 0) {
        fputs("<p class=note>No overlay images: the bodies never met (no impact to show).</p></section>\n", f);
        return;
    }
    fputs("<p class=legend>Over each video frame, each body in its colour (", f);
    for (int b = 0; b < exp->n_bodies; b++) {
        unsigned char c[3];
        report_palette(b, c);
        fprintf(f, "%s<span style=\"color:#%02x%02x%02x\">&#9679;</span>&nbsp;", b ? " " : "", c[0], c[1], c[2]);
        icv_fput_html(f, exp->bodies[b].name);
    }
    fputs("): its detections as rings, the markers of its fitted pose as diagonal crosses and its outline there "
          "(the impact's side fitted on the tracks, carried to the frame's time); white: a 2D track no body "
          "labelled; magenta crosses: the tracker's predicted positions. Impacts are numbered as in results.json "
          "from 1.</p>\n",
          f);
    report_overlay_strips(f, ov, n);
    fputs("</section>\n", f);
}

int report_bodies_page_add_overlays(const char *page, const char *path, const icv_experiment *exp,
                                    const report_overlay *ov, int n, icv_err *err)
{
    FILE *in = fopen(page, "rb");
    if (!in)
        return icv_err_set(err, ICV_ENOTFOUND, "%s: cannot open: %s", page, strerror(errno));
    char *text = NULL;
    long len = -1;
    if (fseek(in, 0, SEEK_END) == 0 && (len = ftell(in)) > 0 && fseek(in, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)len + 1)) && fread(text, 1, (size_t)len, in) != (size_t)len) {
        free(text);
        text = NULL;
    }
    fclose(in);
    if (!text)
        return icv_err_set(err, ICV_EIO, "%s: cannot read", page);
    text[len] = '\0';
    static const char mark[] = "<section id=impacts>";
    const char *at = strstr(text, mark);
    if (!at) {
        free(text);
        return icv_err_set(err, ICV_EFORMAT, "%s: not a report of several bodies (no %s)", page, mark);
    }
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (!rc) {
        fwrite(text, 1, (size_t)(at - text), af.fp);
        bodies_overlays(af.fp, exp, ov, n);
        fputs(at, af.fp);
        rc = icv_atomic_commit(&af, err);
    }
    free(text);
    return rc;
}
