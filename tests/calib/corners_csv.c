/* corners_csv.c: see corners_csv.h. */
#include <stdio.h>
#include <string.h>

#include "tests/calib/corners_csv.h"

int corners_csv_load(const char *path, int width, int height, corners_file *cf)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512], img[32], cur[32] = "";
    int nv = -1, np = 0, per = -1;
    memset(&cf->obs, 0, sizeof cf->obs);
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        int pt;
        double u, v, X, Y, Z;
        if (sscanf(line, "%31[^,],%d,%lf,%lf,%lf,%lf,%lf", img, &pt, &u, &v, &X, &Y, &Z) != 7)
            continue;
        if (strcmp(img, cur)) {
            if (nv >= 0 && per < 0)
                per = np;
            if (nv >= 0 && np != per) {
                fclose(f);
                return -1;
            }
            if (++nv >= 64) {
                fclose(f);
                return -1;
            }
            snprintf(cur, sizeof cur, "%s", img);
            snprintf(cf->names[nv], sizeof cf->names[nv], "%s", img);
            cf->name_ptr[nv] = cf->names[nv];
            np = 0;
        }
        size_t k = (size_t)nv * (per > 0 ? per : 0) + np;
        if (per < 0)
            k = np;
        if (k >= 64 * 64) {
            fclose(f);
            return -1;
        }
        cf->board[k] = icv_v3(X / 1000, Y / 1000, Z / 1000);
        cf->uv[k] = (calib_pt2){u, v};
        np++;
    }
    fclose(f);
    if (nv < 0)
        return -1;
    if (per < 0)
        per = np;
    cf->obs.n_points = per;
    cf->obs.board = cf->board;
    cf->obs.board_per_view = 1;
    cf->obs.n_views = nv + 1;
    cf->obs.uv = cf->uv;
    cf->obs.names = cf->name_ptr;
    cf->obs.width = width;
    cf->obs.height = height;
    return 0;
}
