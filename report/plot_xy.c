/* plot_xy.c: the report's x-y plots (measured points, fitted curves, impact
 * instants as dashed vertical lines) and bar charts, as SVG through PLplot's "svg"
 * device, written to a temporary name and renamed (as report/plot.c does). */
#include <math.h>
#include <plplot.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

enum { NPAL = 13, INK = 15 };

static int begin(const char *path, icv_atomic_file *af, icv_err *err)
{
    int rc = report_plot_open(path, 720, 400, af, err);
    if (rc < 0)
        return rc;
    for (int i = 0; i < NPAL; i++) {
        unsigned char c[3];
        report_palette(i, c);
        plscol0(1 + i, c[0], c[1], c[2]);
    }
    return 0;
}

int report_plot_xy(const char *path, const char *title, const char *xlabel, const char *ylabel,
                   const report_series *s, int n_series, const double *vlines, int n_v, icv_err *err)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    int nmax = 0;
    for (int k = 0; k < n_series; k++) {
        nmax = s[k].n > nmax ? s[k].n : nmax;
        for (int i = 0; i < s[k].n; i++)
            if (isfinite(s[k].x[i]) && isfinite(s[k].y[i])) {
                x0 = fmin(x0, s[k].x[i]);
                x1 = fmax(x1, s[k].x[i]);
                y0 = fmin(y0, s[k].y[i]);
                y1 = fmax(y1, s[k].y[i]);
            }
    }
    if (!isfinite(x0))
        return icv_err_set(err, ICV_EINVAL, "%s: nothing to plot", path);
    if (x1 - x0 < 1e-12)
        x0 -= 0.5, x1 += 0.5;
    if (y1 - y0 < 1e-12)
        y0 -= 0.5, y1 += 0.5;
    double py = 0.06 * (y1 - y0);
    PLFLT *xs = malloc(2 * (size_t)(nmax + 1) * sizeof *xs);
    if (!xs)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    PLFLT *ys = xs + nmax + 1;
    icv_atomic_file af;
    int rc = begin(path, &af, err);
    if (rc < 0) {
        free(xs);
        return rc;
    }
    plcol0(INK);
    pladv(0);
    plvpor(0.09, 0.78, 0.12, 0.9); /* room on the right for the legend */
    plwind(x0, x1, y0 - py, y1 + py);
    plbox("bcnst", 0, 0, "bcnstv", 0, 0);
    pllab(xlabel, ylabel, title);
    for (int k = 0; k < n_series; k++) {
        plcol0(1 + s[k].color % NPAL);
        plwidth(s[k].points ? 1 : 2);
        int m = 0;
        for (int i = 0; i <= s[k].n; i++) {
            if (i < s[k].n && isfinite(s[k].x[i]) && isfinite(s[k].y[i])) {
                xs[m] = s[k].x[i];
                ys[m++] = s[k].y[i];
                if (!s[k].points)
                    continue;
            }
            if (s[k].points && m > 0)
                plpoin(m, xs, ys, 4); /* PLplot symbol 4: an open circle */
            else if (m > 1)
                plline(m, xs, ys);
            m = 0;
        }
    }
    plcol0(INK);
    plwidth(1);
    pllsty(2); /* dashed */
    for (int i = 0; i < n_v; i++) {
        PLFLT lx[2] = {vlines[i], vlines[i]}, ly[2] = {y0 - py, y1 + py};
        plline(2, lx, ly);
    }
    pllsty(1);
    free(xs);
    int nl = 0;
    PLINT opt[NPAL + 1], tc[NPAL + 1], lc[NPAL + 1], ls[NPAL + 1], sc[NPAL + 1], sn[NPAL + 1];
    PLFLT lw[NPAL + 1], ss[NPAL + 1];
    const char *text[NPAL + 1], *sym[NPAL + 1];
    for (int k = 0; k < n_series && nl < NPAL; k++)
        if (s[k].label) {
            opt[nl] = s[k].points ? PL_LEGEND_SYMBOL : PL_LEGEND_LINE;
            tc[nl] = INK;
            lc[nl] = sc[nl] = 1 + s[k].color % NPAL;
            ls[nl] = 1;
            lw[nl] = 2;
            ss[nl] = 1;
            sn[nl] = 1;
            sym[nl] = "○"; /* the open circle plpoin's symbol 4 draws */
            text[nl++] = s[k].label;
        }
    if (n_v > 0 && nl < NPAL + 1) {
        opt[nl] = PL_LEGEND_LINE;
        tc[nl] = INK;
        lc[nl] = sc[nl] = INK;
        ls[nl] = 2;
        lw[nl] = 1;
        ss[nl] = 1;
        sn[nl] = 1;
        sym[nl] = "";
        text[nl++] = "impact";
    }
    if (nl > 0) {
        PLFLT lwid, lhei;
        pllegend(&lwid, &lhei, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
                 PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.02, 0.0, 0.06, 0, INK, 1, 0, 0, nl, opt,
                 1.0, 0.9, 2.2, 0, tc, text, NULL, NULL, NULL, NULL, lc, ls, lw, sc, ss, sn, sym);
    }
    return report_plot_close(&af, err);
}

int report_plot_bars(const char *path, const char *title, const char *xlabel, const char *ylabel, int n,
                     const double *y, const int *color, icv_err *err)
{
    if (n < 1)
        return icv_err_set(err, ICV_EINVAL, "%s: no bars", path);
    double ymax = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(y[i]))
            ymax = fmax(ymax, y[i]);
    if (ymax <= 0)
        ymax = 1;
    icv_atomic_file af;
    int rc = begin(path, &af, err);
    if (rc < 0)
        return rc;
    plcol0(INK);
    plenv(0.5, n + 0.5, 0, 1.1 * ymax, 0, 0);
    pllab(xlabel, ylabel, title);
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i]))
            continue;
        PLFLT bx[4] = {i + 1 - 0.4, i + 1 + 0.4, i + 1 + 0.4, i + 1 - 0.4}, by[4] = {0, 0, y[i], y[i]};
        plcol0(1 + (color ? color[i] : 0) % NPAL);
        plfill(4, bx, by);
    }
    return report_plot_close(&af, err);
}
