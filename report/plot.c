/* plot.c: line plots and maps (continuous, or discrete classes such as impact cases)
 * as SVG through PLplot's "svg" device, written to a temporary name and renamed. */
#include <math.h>
#include <plplot.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

/* 13 distinct colours (cmap0 1..13 and cmap1 0..12 for the class maps) */
static const PLINT pal_r[] = {31, 255, 44, 214, 148, 140, 227, 127, 188, 23, 174, 255, 152};
static const PLINT pal_g[] = {119, 127, 160, 39, 103, 86, 119, 127, 189, 190, 199, 187, 223};
static const PLINT pal_b[] = {180, 14, 44, 40, 189, 75, 194, 127, 34, 207, 232, 120, 138};
enum { NPAL = 13 };

int report_plot_open(const char *path, int width_px, int height_px, icv_atomic_file *af, icv_err *err)
{
    int rc = icv_atomic_open(af, path, err);
    if (rc < 0)
        return rc;
    plsdev("svg");
    plsfnam(af->tmp);
    plspage(0, 0, width_px, height_px, 0, 0);
    plscolbg(255, 255, 255); /* white page, black ink */
    plscol0(15, 0, 0, 0);
    plinit();
    plfont(1);
    return 0;
}

/* plend1, not plend: plend unloads the svg driver and frees PLplot's driver table,
 * so every plot loaded it again (dlopen, relocation, the driver files read): half of
 * a report's time for its eleven plots. */
void report_plot_finish(void) { plend1(); }

int report_plot_close(icv_atomic_file *af, icv_err *err)
{
    report_plot_finish();
    return icv_atomic_commit(af, err);
}

int report_plot_lines(const char *path, const char *title, const char *xlabel, const char *ylabel, int n,
                      const double *x, int n_series, const double *const *y, const char *const *labels,
                      icv_err *err)
{
    if (n < 2 || n_series < 1)
        return icv_err_set(err, ICV_EINVAL, "%s: nothing to plot", path);
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int i = 0; i < n; i++) {
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
        for (int s = 0; s < n_series; s++)
            if (isfinite(y[s][i])) {
                ymin = fmin(ymin, y[s][i]);
                ymax = fmax(ymax, y[s][i]);
            }
    }
    if (!isfinite(ymin))
        ymin = 0, ymax = 1;
    if (ymax - ymin < 1e-12)
        ymin -= 0.5, ymax += 0.5;
    double pad = 0.05 * (ymax - ymin);
    icv_atomic_file af;
    int rc = report_plot_open(path, 800, 600, &af, err);
    if (rc < 0)
        return rc;
    plcol0(15);
    plenv(xmin, xmax, ymin - pad, ymax + pad, 0, 0);
    pllab(xlabel, ylabel, title);
    PLFLT *xs = malloc(2 * (size_t)n * sizeof *xs), *ys = xs ? xs + n : NULL;
    if (!xs) {
        report_plot_finish();
        icv_atomic_abort(&af);
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    }
    for (int s = 0; s < n_series; s++) {
        plscol0(1 + s % NPAL, pal_r[s % NPAL], pal_g[s % NPAL], pal_b[s % NPAL]);
        plcol0(1 + s % NPAL);
        plwidth(2);
        int m = 0;
        for (int i = 0; i <= n; i++) { /* draw each finite run */
            if (i < n && isfinite(y[s][i])) {
                xs[m] = x[i];
                ys[m++] = y[s][i];
                continue;
            }
            if (m > 1)
                plline(m, xs, ys);
            else if (m == 1)
                plpoin(1, xs, ys, 1);
            m = 0;
        }
    }
    free(xs);
    if (labels) {
        PLINT opt[NPAL], tc[NPAL], lc[NPAL], ls[NPAL];
        PLFLT lw[NPAL];
        int nl = n_series < NPAL ? n_series : NPAL;
        for (int s = 0; s < nl; s++) {
            opt[s] = PL_LEGEND_LINE;
            tc[s] = 15;
            lc[s] = 1 + s;
            ls[s] = 1;
            lw[s] = 2;
        }
        PLFLT lwid, lhei;
        plwidth(1);
        pllegend(&lwid, &lhei, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, PL_POSITION_TOP | PL_POSITION_RIGHT |
                 PL_POSITION_INSIDE, 0.02, 0.02, 0.1, 0, 15, 1, 0, 0, nl, opt, 1.0, 0.8, 2.0, 0, tc,
                 (const char *const *)labels, NULL, NULL, NULL, NULL, lc, ls, lw, NULL, NULL, NULL, NULL);
    }
    return report_plot_close(&af, err);
}

int report_plot_map(const char *path, const char *title, const char *xlabel, const char *ylabel, int nx, int ny,
                    double x0, double x1, double y0, double y1, const double *z, const char *zlabel, int n_classes,
                    const char *const *class_labels, icv_err *err)
{
    if (nx < 1 || ny < 1)
        return icv_err_set(err, ICV_EINVAL, "%s: empty map", path);
    PLFLT **g = NULL;
    plAlloc2dGrid(&g, nx, ny);
    if (!g)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    double zmin = INFINITY, zmax = -INFINITY;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double v = z[(size_t)j * nx + i];
            g[i][j] = v;
            if (isfinite(v)) {
                zmin = fmin(zmin, v);
                zmax = fmax(zmax, v);
            }
        }
    if (n_classes > 0) /* class k -> cmap1 position k/(n-1): exactly colour k */
        zmin = 0, zmax = n_classes - 1;
    if (!isfinite(zmin))
        zmin = 0, zmax = 1;
    if (zmax - zmin < 1e-12)
        zmax = zmin + 1;
    /* NaN cells (no solution): below the range, drawn in the background */
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            if (!isfinite(g[i][j]))
                g[i][j] = zmin - 1e30;
    icv_atomic_file af;
    int rc = report_plot_open(path, 800, 600, &af, err);
    if (rc < 0) {
        plFree2dGrid(g, nx, ny);
        return rc;
    }
    /* half a cell beyond the first and last centres */
    double dx = nx > 1 ? (x1 - x0) / (nx - 1) : 1, dy = ny > 1 ? (y1 - y0) / (ny - 1) : 1;
    double ax0 = x0 - dx / 2, ax1 = x1 + dx / 2, ay0 = y0 - dy / 2, ay1 = y1 + dy / 2;
    plcol0(15);
    pladv(0);
    if (n_classes > 0) {
        int nc = n_classes < NPAL ? n_classes : NPAL;
        plscmap1(pal_r, pal_g, pal_b, nc);
        plvpor(0.1, 0.75, 0.1, 0.9);
    } else {
        /* dark blue -> yellow, in HLS */
        PLFLT pos[2] = {0, 1}, h[2] = {240, 60}, l[2] = {0.3, 0.6}, s[2] = {0.8, 0.9};
        plscmap1l(0, 2, pos, h, l, s, NULL);
        plvpor(0.1, 0.8, 0.1, 0.9);
    }
    plwind(ax0, ax1, ay0, ay1);
    plimage((PLFLT_MATRIX)g, nx, ny, ax0, ax1, ay0, ay1, zmin, zmax, ax0, ax1, ay0, ay1);
    plcol0(15);
    plbox("bcnst", 0, 0, "bcnstv", 0, 0);
    pllab(xlabel, ylabel, title);
    if (n_classes > 0 && class_labels) {
        int nc = n_classes < NPAL ? n_classes : NPAL;
        PLINT opt[NPAL], tc[NPAL], bc[NPAL], bp[NPAL];
        PLFLT bs[NPAL], bw[NPAL];
        for (int k = 0; k < nc; k++) {
            plscol0(1 + k, pal_r[k], pal_g[k], pal_b[k]);
            opt[k] = PL_LEGEND_COLOR_BOX;
            tc[k] = 15;
            bc[k] = 1 + k;
            bp[k] = 0;
            bs[k] = 0.8;
            bw[k] = 1;
        }
        PLFLT lwid, lhei;
        pllegend(&lwid, &lhei, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, PL_POSITION_RIGHT | PL_POSITION_OUTSIDE,
                 0.03, 0, 0.05, 0, 15, 1, 0, 0, nc, opt, 1.0, 0.9, 1.8, 0, tc, (const char *const *)class_labels,
                 bc, bp, bs, bw, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    } else if (n_classes == 0) {
        PLFLT cw, ch;
        PLINT lopt[1] = {PL_COLORBAR_LABEL_RIGHT}, nvals[1] = {2}, sub[1] = {0};
        const char *lab[1] = {zlabel ? zlabel : ""}, *axo[1] = {"bcvtm"};
        PLFLT ticks[1] = {0}, vals_row[2] = {zmin, zmax};
        const PLFLT *vals[1] = {vals_row};
        plcolorbar(&cw, &ch, PL_COLORBAR_IMAGE, PL_POSITION_RIGHT, 0.03, 0, 0.04, 0.8, 0, 15, 1, 0, 0, 0, 0, 1,
                   lopt, lab, 1, axo, ticks, sub, nvals, (PLFLT_MATRIX)vals);
    }
    rc = report_plot_close(&af, err);
    plFree2dGrid(g, nx, ny);
    return rc;
}
