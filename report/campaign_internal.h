/* campaign_internal.h: what campaign.c hands its writers (private to report/): one
 * row per impact of the validation table, with the model compared (the joint one,
 * or each experiment's own) and where its coefficients came from. */
#ifndef ICV_REPORT_CAMPAIGN_INTERNAL_H
#define ICV_REPORT_CAMPAIGN_INTERNAL_H

#include "report/report.h"

typedef struct {
    const analysis_job_result *job;  /* the experiment: body, model law, results */
    const report_campaign_experiment *exp;
    int impact;                      /* index in job->res.impacts */
    const analysis_impact *im;       /* measured, and im->model: the model compared */
    double angle_deg;                /* impact angle: between the line from the contact
                                        point to the centre of mass and the surface
                                        normal, before impact (deg; 0 = the centre of
                                        mass straight above the contact) */
    double slip;                     /* slip ratio: |tangential| / |normal| contact-point
                                        velocity before impact */
    double e_model, ratio_model;     /* the model's Newton ratio at the contact and
                                        impulse ratio (NaN when it has no solution) */
    char mu_source[200], e_n_source[200]; /* coefficient provenance */
} campaign_row;

/* The impact angle, slip ratio and the model's e and impulse ratio of row->im
 * (campaign_plot.c). */
void campaign_row_kinematics(campaign_row *row);

/* DIR/validation.csv and DIR/validation.md (campaign_table.c). */
int campaign_tables_write(const char *dir, const report_campaign_result *r, const campaign_row *rows, int n,
                          icv_err *err);

/* DIR/parameters_angle.svg and DIR/parameters_slip.svg: measured e and impulse ratio
 * against the impact angle and the slip ratio, the model's value at each measured
 * state, and, when every row shares one (mu, e_n), the model's curve through the first
 * row's state with that variable swept (campaign_plot.c). note gets the legend's
 * explanation for the page. */
int campaign_plots_write(const char *dir, const campaign_row *rows, int n, char note[ICV_ERR_MSG_MAX], icv_err *err);

/* DIR/campaign.html: self-contained (inline CSS, the plots as SVG data URIs), each
 * experiment's status and report link, the validation table with uncertainties and
 * provenance (campaign_table.c). */
int campaign_html_write(const char *dir, const report_campaign_result *r, const campaign_row *rows, int n,
                        const char *plot_note, icv_err *err);

#endif
