/* campaign_table.c: a campaign's validation table in the layout of Han Sun's Tables
 * 4.6 and 4.9 (per impact: the measured post-impact v and omega, the model's, the
 * impact case, the energy dissipation measured and computed), with each measured
 * value's 1-sigma, Newton's e and the impulse ratio beside the model's, and where the
 * model's mu and e_n came from: DIR/validation.csv (one row per impact, SI),
 * DIR/validation.md and DIR/campaign.html (self-contained: inline CSS, the parameter
 * plots as SVG data URIs, links to each experiment's report.html). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

void report_campaign_result_free(report_campaign_result *r)
{
    free(r->exps);
    r->exps = NULL;
    r->n = 0;
}

static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_vec(FILE *f, icv_vec3 v) { fprintf(f, ",%.6g,%.6g,%.6g", v.x, v.y, v.z); }

/* "(0.550 ± 0.002, ...)"; sd NULL: without sigma; prec decimals */
static void fmt_vec(char *out, size_t n, icv_vec3 v, const icv_vec3 *sd, int prec)
{
    if (sd)
        snprintf(out, n, "(%.*f ± %.*f, %.*f ± %.*f, %.*f ± %.*f)", prec, v.x, prec, sd->x, prec, v.y, prec, sd->y,
                 prec, v.z, prec, sd->z);
    else
        snprintf(out, n, "(%.*f, %.*f, %.*f)", prec, v.x, prec, v.y, prec, v.z);
}

static const char *case_of(const report_campaign_row *w) { return w->im->model.done ? w->im->model.case_label : "none"; }

static void coefficients_line(FILE *f, const report_campaign_result *r, const report_campaign_row *rows)
{
    if (r->joint)
        fprintf(f, "One mu = %.3f +- %.3f and e_n = %.3f +- %.3f (%s restitution) fitted jointly to the %d impacts%s",
                r->fit.mu, r->fit.mu_se, r->fit.e_n, r->fit.e_n_se, icv_restitution_name(rows[0].im->model.law),
                r->fit.n_obs, r->fit.mu_identifiable ? "." : "; they stick, so mu is only a lower bound.");
    else
        fprintf(f, "Each impact compared with its experiment's model (its mu and e_n and their source on each row).");
}

int report_campaign_tables_write(const char *dir, const report_campaign_result *r, const report_campaign_row *rows, int n,
                          icv_err *err)
{
    char cp[ICV_PATH_MAX], mp[ICV_PATH_MAX];
    icv_atomic_file csv, md;
    int rc = icv_path_join(cp, sizeof cp, dir, "validation.csv", err);
    if (rc || (rc = icv_path_join(mp, sizeof mp, dir, "validation.md", err)) || (rc = icv_atomic_open(&csv, cp, err)))
        return rc;
    if ((rc = icv_atomic_open(&md, mp, err))) {
        icv_atomic_abort(&csv);
        return rc;
    }
    fputs("experiment,impact,report,time_s,vx,vy,vz,vx_sd,vy_sd,vz_sd,wx,wy,wz,wx_sd,wy_sd,wz_sd,model_vx,model_vy,"
          "model_vz,model_wx,model_wy,model_wz,case,e,e_sd,model_e,impulse_ratio,impulse_ratio_sd,"
          "model_impulse_ratio,loss,loss_sd,model_loss,loss_difference,impact_angle_deg,slip_ratio,restitution,mu,"
          "mu_source,e_n,e_n_source\n",
          csv.fp);
    fprintf(md.fp, "# Validation: %s\n\n", r->name);
    coefficients_line(md.fp, r, rows);
    fputs("\n\nMeasured values +- 1 sigma; v in m/s, omega in rad/s, surface frame (y the normal).\n\n"
          "| experiment | | post-impact v (m/s) | post-impact omega (rad/s) | case | e | impulse ratio "
          "| energy dissipation | mu | e_n |\n|---|---|---|---|---|---|---|---|---|---|\n",
          md.fp);
    for (int k = 0; k < n; k++) {
        const report_campaign_row *w = &rows[k];
        const analysis_impact *im = w->im;
        FILE *f = csv.fp;
        char link[sizeof w->exp->name + 16];
        snprintf(link, sizeof link, "%s/report.html", w->exp->name);
        csv_str(f, w->exp->name);
        fprintf(f, ",%d,", w->impact);
        csv_str(f, link);
        fprintf(f, ",%.6f", im->t);
        csv_vec(f, im->post.v);
        csv_vec(f, im->post.v_sd);
        csv_vec(f, im->post.omega);
        csv_vec(f, im->post.omega_sd);
        csv_vec(f, im->model.done ? im->model.v : icv_v3(NAN, NAN, NAN));
        csv_vec(f, im->model.done ? im->model.omega : icv_v3(NAN, NAN, NAN));
        fprintf(f, ",%s,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.3f,%.5f,%s,%.5f,", case_of(w),
                im->e_kinematic, im->sd.e_kinematic, w->e_model, im->impulse_ratio, im->sd.impulse_ratio,
                w->ratio_model, im->loss_fraction, im->sd.loss_fraction,
                im->model.done ? im->model.loss_fraction : NAN,
                im->model.done ? im->model.loss_fraction - im->loss_fraction : NAN, w->angle_deg, w->slip,
                icv_restitution_name(im->model.law), im->model.mu);
        csv_str(f, w->mu_source);
        fprintf(f, ",%.5f,", im->model.e_n);
        csv_str(f, w->e_n_source);
        fputc('\n', f);

        char v[160], o[160];
        fmt_vec(v, sizeof v, im->post.v, &im->post.v_sd, 3);
        fmt_vec(o, sizeof o, im->post.omega, &im->post.omega_sd, 2);
        fprintf(md.fp,
                "| [%s](%s/report.html) #%d | measured | %s | %s | %s | %.3f ± %.3f | %.3f ± %.3f "
                "| %.1f%% ± %.1f%% | | |\n",
                w->exp->name, w->exp->name, w->impact, v, o, case_of(w), im->e_kinematic, im->sd.e_kinematic,
                im->impulse_ratio, im->sd.impulse_ratio, 100 * im->loss_fraction, 100 * im->sd.loss_fraction);
        fmt_vec(v, sizeof v, im->model.v, NULL, 3);
        fmt_vec(o, sizeof o, im->model.omega, NULL, 2);
        fprintf(md.fp, "| | model | %s | %s | | %.3f | %.3f | %.1f%% (%+.1f%%) | %.3f: %s | %.3f: %s |\n", v, o,
                w->e_model, w->ratio_model, 100 * im->model.loss_fraction,
                100 * (im->model.loss_fraction - im->loss_fraction), im->model.mu, w->mu_source, im->model.e_n,
                w->e_n_source);
    }
    if ((rc = icv_atomic_commit(&csv, err))) {
        icv_atomic_abort(&md);
        return rc;
    }
    return icv_atomic_commit(&md, err);
}

/* ---- campaign.html ------------------------------------------------------ */

static const char css[] =
    "body{font-family:sans-serif;max-width:1300px;margin:1em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:1.5em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
    "th{background:#f0f0f0}tr.model td{color:#1f4e9c}.note{color:#666;font-style:italic}.ok{color:#1a7f37}"
    ".bad{color:#c0392b}img.plot{width:760px;max-width:100%;border:1px solid #eee}figure{margin:1em 0}";

static void cell(FILE *f, const char *text)
{
    fputs("<td>", f);
    icv_fput_html(f, text);
    fputs("</td>", f);
}

static void experiments_section(FILE *f, const report_campaign_result *r)
{
    fprintf(f, "<section id=experiments><h2>Experiments</h2><p>%d ran, %d up to date (not run again), %d failed.</p>"
               "<table><tr><th>experiment</th><th>status</th><th>run (s)</th><th>impacts</th><th>file</th></tr>\n",
            r->n_ran, r->n_up_to_date, r->n_failed);
    for (int i = 0; i < r->n; i++) {
        const report_campaign_experiment *x = &r->exps[i];
        fputs("<tr><td>", f);
        if (x->status != REPORT_EXP_FAILED) {
            fputs("<a href=\"", f);
            icv_fput_html(f, x->name);
            fputs("/report.html\">", f);
            icv_fput_html(f, x->name);
            fputs("</a>", f);
        } else {
            icv_fput_html(f, x->name);
        }
        fputs("</td>", f);
        if (x->status == REPORT_EXP_FAILED) {
            fputs("<td class=bad>failed: ", f);
            icv_fput_html(f, x->error);
            fputs("</td><td></td><td></td>", f);
        } else {
            fprintf(f, "<td class=ok>%s</td><td>%.1f</td><td>%d</td>",
                    x->status == REPORT_EXP_RAN ? "ran" : "up to date", x->seconds, x->n_impacts);
        }
        cell(f, x->path);
        fputs("</tr>\n", f);
    }
    fputs("</table></section>\n", f);
}

static void table_section(FILE *f, const report_campaign_result *r, const report_campaign_row *rows, int n)
{
    fputs("<section id=validation><h2>Validation table</h2><p>", f);
    coefficients_line(f, r, rows);
    fputs(" Measured values ± 1σ (Monte Carlo over the fits); v in m/s, ω in rad/s, surface frame (y the normal); "
          "e is Newton's ratio at the contact point; the layout of Han Sun's Tables 4.6 and 4.9.</p>\n"
          "<table><tr><th>experiment</th><th></th><th>post-impact v (m/s)</th><th>post-impact ω (rad/s)</th>"
          "<th>case</th><th>e</th><th>impulse ratio</th><th>energy dissipation</th><th>μ (source)</th>"
          "<th>e<sub>n</sub> (source)</th></tr>\n",
          f);
    for (int k = 0; k < n; k++) {
        const report_campaign_row *w = &rows[k];
        const analysis_impact *im = w->im;
        char v[160], o[160], t[240];
        fputs("<tr><td rowspan=2><a href=\"", f);
        icv_fput_html(f, w->exp->name);
        fputs("/report.html\">", f);
        icv_fput_html(f, w->exp->name);
        fprintf(f, "</a> #%d<br>t = %.4f s<br>angle %.1f°, slip %.2f</td><td>measured</td>", w->impact, im->t,
                w->angle_deg, w->slip);
        fmt_vec(v, sizeof v, im->post.v, &im->post.v_sd, 3);
        fmt_vec(o, sizeof o, im->post.omega, &im->post.omega_sd, 2);
        cell(f, v);
        cell(f, o);
        fprintf(f, "<td rowspan=2>%s</td><td>%.3f ± %.3f</td><td>%.3f ± %.3f</td><td>%.1f%% ± %.1f%%</td>"
                   "<td rowspan=2>",
                case_of(w), im->e_kinematic, im->sd.e_kinematic, im->impulse_ratio, im->sd.impulse_ratio,
                100 * im->loss_fraction, 100 * im->sd.loss_fraction);
        snprintf(t, sizeof t, "%.3f (%s)", im->model.mu, w->mu_source);
        icv_fput_html(f, t);
        fputs("</td><td rowspan=2>", f);
        snprintf(t, sizeof t, "%.3f (%s)", im->model.e_n, w->e_n_source);
        icv_fput_html(f, t);
        fputs("</td></tr>\n<tr class=model><td>model</td>", f);
        fmt_vec(v, sizeof v, im->model.v, NULL, 3);
        fmt_vec(o, sizeof o, im->model.omega, NULL, 2);
        cell(f, im->model.done ? v : "no solution");
        cell(f, im->model.done ? o : "");
        fprintf(f, "<td>%.3f</td><td>%.3f</td><td>%.1f%% (%+.1f%%)</td></tr>\n", w->e_model, w->ratio_model,
                100 * im->model.loss_fraction, 100 * (im->model.loss_fraction - im->loss_fraction));
        if (im->model.note[0]) {
            fputs("<tr><td></td><td colspan=9 class=note>", f);
            icv_fput_html(f, im->model.note);
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table></section>\n", f);
}

static int embed_svg(FILE *f, const char *dir, const char *file, const char *id, const char *caption, icv_err *err)
{
    char path[ICV_PATH_MAX], *data;
    size_t len;
    int rc = icv_path_join(path, sizeof path, dir, file, err);
    if (rc || (rc = icv_file_read(path, 0, &data, &len, err)))
        return rc;
    fprintf(f, "<figure><img id=\"%s\" class=plot alt=\"", id);
    icv_fput_html(f, caption);
    fputs("\" src=\"data:image/svg+xml;base64,", f);
    icv_fput_base64(f, data, len);
    fputs("\"><figcaption>", f);
    icv_fput_html(f, caption);
    fputs("</figcaption></figure>\n", f);
    free(data);
    return 0;
}

int report_campaign_html_write(const char *dir, const report_campaign_result *r, const report_campaign_row *rows, int n,
                        const char *plot_note, icv_err *err)
{
    char path[ICV_PATH_MAX];
    icv_atomic_file af;
    int rc = icv_path_join(path, sizeof path, dir, "campaign.html", err);
    if (rc || (rc = icv_atomic_open(&af, path, err)))
        return rc;
    FILE *f = af.fp;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>impactcv campaign: ", f);
    icv_fput_html(f, r->name);
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>impactcv campaign: ", css);
    icv_fput_html(f, r->name);
    fputs("</h1>\n", f);
    experiments_section(f, r);
    table_section(f, r, rows, n);
    fputs("<section id=parameters><h2>Parameters</h2><p>Impact angle: between the line from the contact point to the "
          "centre of mass and the surface normal, before impact. Slip ratio: |u<sub>t</sub>| / |u<sub>n</sub>| of "
          "the contact point before impact.</p>\n",
          f);
    fputs("<p>", f);
    icv_fput_html(f, plot_note);
    fputs("</p>\n", f);
    if (!(rc = embed_svg(f, dir, "parameters_angle.svg", "plot-parameters-angle",
                         "Measured e and impulse ratio against the impact angle, with the model", err)))
        rc = embed_svg(f, dir, "parameters_slip.svg", "plot-parameters-slip",
                       "Measured e and impulse ratio against the slip ratio, with the model", err);
    fprintf(f, "</section>\n<p class=note>impactcv %s. Tables: validation.csv, validation.md%s.</p></body></html>\n",
            ICV_VERSION, r->joint ? "; the joint fit's own table (analysis): joint/" : "");
    if (rc) {
        icv_atomic_abort(&af);
        return rc;
    }
    return icv_atomic_commit(&af, err);
}
