/* report.h: report.html, plots, exports.
 * report.html and the exports are issue #10; the plotting helpers below (report/plot.c)
 * are in place (used by `impactcv sweep`). */
#ifndef ICV_REPORT_H
#define ICV_REPORT_H

#include "core/core.h"

/* ---- plots (report/plot.c): small SVG plots through PLplot's "svg" device ----------
 * Written atomically (a temporary name, renamed when PLplot has finished). Labels are
 * what a person reads: put units (and degrees, where used) in them. */

/* Line plot of n_series curves y[s][0..n-1] against x[0..n-1]; labels[s] names each
 * curve in a legend (NULL: no legend). NaN points are left out. */
int report_plot_lines(const char *path, const char *title, const char *xlabel, const char *ylabel, int n,
                      const double *x, int n_series, const double *const *y, const char *const *labels,
                      icv_err *err);

/* A map of z[j * nx + i] over the grid x in [x0, x1] (nx columns) and y in [y0, y1]
 * (ny rows). Continuous (a colour bar labelled zlabel), or with n_classes > 0 discrete:
 * z holds class indices 0..n_classes-1 (NaN: none) drawn in distinct colours with a
 * legend of class_labels (a case map). */
int report_plot_map(const char *path, const char *title, const char *xlabel, const char *ylabel, int nx, int ny,
                    double x0, double x1, double y0, double y1, const double *z, const char *zlabel, int n_classes,
                    const char *const *class_labels, icv_err *err);

#endif
