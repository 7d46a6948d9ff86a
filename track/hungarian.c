/* hungarian.c: minimum-cost rectangular assignment (Kuhn-Munkres) with row and
 * column potentials and shortest augmenting paths, O(n^2 m) for n <= m rows
 * (Jonker & Volgenant 1987; the formulation of Burkard, Dell'Amico & Martello,
 * "Assignment Problems", sec. 4.4). The tracker calls it once per frame with a cost
 * matrix padded with non-assignment costs; it works in caller-given memory. */
#include <math.h>
#include <string.h>

#include "track/track.h"

size_t track_hungarian_work_size(int n_rows, int n_cols)
{
    size_t n = (size_t)(n_rows < n_cols ? n_rows : n_cols), m = (size_t)(n_rows < n_cols ? n_cols : n_rows);
    /* u[n+1], v[m+1], minv[m+1], p[m+1], way[m+1], used[m+1] (ints kept in doubles'
     * space), a transposed copy when rows > cols, and the per-row result. */
    return (n + 1) + 5 * (m + 1) + (size_t)n_rows * (size_t)n_cols + m + 1;
}

/* Solves for a cost a (n x m, n <= m, row-major); rowcol[i] = column of row i. */
static double solve_wide(const double *a, int n, int m, int *rowcol, double *work)
{
    double *u = work, *v = u + n + 1, *minv = v + m + 1;
    int *p = (int *)(minv + m + 1), *way = (int *)(minv + 2 * (m + 1)), *used = (int *)(minv + 3 * (m + 1));
    for (int i = 0; i <= n; i++)
        u[i] = 0;
    for (int j = 0; j <= m; j++) {
        v[j] = 0;
        p[j] = 0;
        way[j] = 0;
    }
    /* 1-based rows and columns; column 0 is the virtual start of each path. */
    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= m; j++) {
            minv[j] = INFINITY;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            double delta = INFINITY;
            for (int j = 1; j <= m; j++) {
                if (used[j])
                    continue;
                double cur = a[(size_t)(i0 - 1) * m + (j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int j = 0; j <= m; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    double total = 0;
    for (int i = 0; i < n; i++)
        rowcol[i] = -1;
    for (int j = 1; j <= m; j++)
        if (p[j] != 0) {
            rowcol[p[j] - 1] = j - 1;
            total += a[(size_t)(p[j] - 1) * m + (j - 1)];
        }
    return total;
}

double track_hungarian_solve(const double *cost, int n_rows, int n_cols, int *assign, double *work)
{
    if (n_rows <= 0 || n_cols <= 0) {
        for (int r = 0; r < n_rows; r++)
            assign[r] = -1;
        return 0;
    }
    if (n_rows <= n_cols)
        return solve_wide(cost, n_rows, n_cols, assign, work);
    /* More rows than columns: solve the transpose, then invert the matching. */
    int n = n_cols, m = n_rows;
    size_t core = (size_t)(n + 1) + 5 * (size_t)(m + 1);
    double *t = work + core;
    for (int r = 0; r < n_rows; r++)
        for (int c = 0; c < n_cols; c++)
            t[(size_t)c * m + r] = cost[(size_t)r * n_cols + c];
    int *colrow = (int *)(t + (size_t)n_rows * n_cols);
    double total = solve_wide(t, n, m, colrow, work);
    for (int r = 0; r < n_rows; r++)
        assign[r] = -1;
    for (int c = 0; c < n_cols; c++)
        if (colrow[c] >= 0)
            assign[colrow[c]] = c;
    return total;
}
