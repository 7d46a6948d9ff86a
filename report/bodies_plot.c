/* bodies_plot.c: the several-body report's balance plot: values before and after
 * an impact with their error bars, and their change against zero, as SVG through
 * PLplot's "svg" device, written to a temporary name and renamed (report/plot.c). */
#include <math.h>
#include <plplot.h>
#include <stdlib.h>

#include "report/report_internal.h"

enum { INK = 15, BEFORE = 1, AFTER = 2 };

static double sd_or_0(const double *sd, int i) { return sd && isfinite(sd[i]) ? sd[i] : 0; }

/* the range of v +- sd over i, grown to hold 0 and padded */
static void range(int n, const double *a, const double *asd, const double *b, const double *bsd, double *lo,
                  double *hi)
{
    *lo = 0, *hi = 0;
    for (int i = 0; i < n; i++)
        for (int s = 0; s < 2; s++) {
            const double *v = s ? b : a, *sd = s ? bsd : asd;
            if (!v || !isfinite(v[i]))
                continue;
            *lo = fmin(*lo, v[i] - sd_or_0(sd, i));
            *hi = fmax(*hi, v[i] + sd_or_0(sd, i));
        }
    if (*hi - *lo < 1e-300)
        *lo = -1, *hi = 1;
    double pad = 0.08 * (*hi - *lo);
    *lo -= pad, *hi += pad;
}

/* one point with its vertical error bar, in colour col */
static void point_bar(double x, double y, double sd, int col)
{
    if (!isfinite(y))
        return;
    PLFLT px[1] = {x}, py[1] = {y}, lo[1] = {y - sd}, hi[1] = {y + sd};
    plcol0(col);
    plwidth(2);
    plerry(1, px, lo, hi);
    plpoin(1, px, py, 17); /* a filled dot */
}

/* the pairs' labels under the axis, at positions 1..n */
static void pair_labels(int n, const char *const *labels, double x0, double x1)
{
    plcol0(INK);
    for (int i = 0; i < n; i++)
        plmtex("b", 1.5, (i + 1 - x0) / (x1 - x0), 0.5, labels[i]);
}

int report_plot_before_after(const char *path, const char *title, const char *ylabel, int n,
                             const char *const *labels, const double *pre, const double *pre_sd, const double *post,
                             const double *post_sd, icv_err *err)
{
    if (n < 1)
        return icv_err_set(err, ICV_EINVAL, "%s: nothing to plot", path);
    double *d = malloc(sizeof *d * 2 * (size_t)n), *dsd = d ? d + n : NULL;
    if (!d)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    for (int i = 0; i < n; i++) {
        d[i] = post[i] - pre[i];
        dsd[i] = hypot(sd_or_0(pre_sd, i), sd_or_0(post_sd, i));
    }
    icv_atomic_file af;
    int rc = report_plot_open(path, 860, 400, &af, err);
    if (rc < 0) {
        free(d);
        return rc;
    }
    for (int i = 0; i < 3; i++) {
        unsigned char c[3];
        report_palette(i, c);
        plscol0(1 + i, c[0], c[1], c[2]);
    }
    double x0 = 0.4, x1 = n + 0.6, lo, hi;
    pladv(0);
    plcol0(INK);
    plschr(0, 0.9);
    plvpor(0, 1, 0, 1); /* the whole page, for the title */
    plwind(0, 1, 0, 1);
    plmtex("t", -1.5, 0.5, 0.5, title);
    /* left: the values */
    range(n, pre, pre_sd, post, post_sd, &lo, &hi);
    plvpor(0.1, 0.5, 0.14, 0.84);
    plwind(x0, x1, lo, hi);
    plcol0(INK);
    plwidth(1);
    plbox("bc", 0, 0, "bcnstv", 0, 0);
    plmtex("l", 5.0, 0.5, 0.5, ylabel);
    plmtex("t", 0.8, 0.5, 0.5, "before and after, +-1 sigma");
    pair_labels(n, labels, x0, x1);
    PLFLT zx[2] = {x0, x1}, zy[2] = {0, 0};
    pllsty(2);
    plline(2, zx, zy);
    pllsty(1);
    for (int i = 0; i < n; i++) {
        point_bar(i + 1 - 0.15, pre[i], sd_or_0(pre_sd, i), BEFORE);
        point_bar(i + 1 + 0.15, post[i], sd_or_0(post_sd, i), AFTER);
    }
    PLINT opt[2] = {PL_LEGEND_SYMBOL, PL_LEGEND_SYMBOL}, tc[2] = {INK, INK}, sc[2] = {BEFORE, AFTER}, sn[2] = {1, 1};
    PLFLT ss[2] = {1, 1}, lwid, lhei;
    const char *text[2] = {"before", "after"}, *sym[2] = {"●", "●"};
    plcol0(INK);
    pllegend(&lwid, &lhei, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, PL_POSITION_TOP | PL_POSITION_LEFT |
             PL_POSITION_INSIDE, 0.02, 0.02, 0.05, 0, INK, 1, 0, 0, 2, opt, 1.0, 0.8, 2.0, 0, tc, text, NULL, NULL,
             NULL, NULL, NULL, NULL, NULL, sc, ss, sn, sym);
    /* right: the change with its sigma */
    range(n, d, dsd, NULL, NULL, &lo, &hi);
    plvpor(0.6, 0.98, 0.14, 0.84);
    plwind(x0, x1, lo, hi);
    plcol0(INK);
    plbox("bc", 0, 0, "bcnstv", 0, 0);
    plmtex("t", 0.8, 0.5, 0.5, "change, after - before, +-1 sigma");
    pair_labels(n, labels, x0, x1);
    pllsty(2);
    plline(2, zx, zy);
    pllsty(1);
    for (int i = 0; i < n; i++)
        point_bar(i + 1, d[i], dsd[i], 3);
    free(d);
    return report_plot_close(&af, err);
}
