/* detect_images.c: reads a list of board images (one camera), checks they share a
 * size, finds the board in each, and words the failures a user can act on. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"

const char *calib_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void calib_names_join(char *out, size_t n, char *const *names, const int *pick, size_t count)
{
    size_t len = 0, shown = 0, total = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (pick && !pick[i])
            continue;
        total++;
        if (shown == 6 || len + strlen(calib_basename(names[i])) + 16 >= n)
            continue;
        len += (size_t)snprintf(out + len, n - len, "%s%s", shown ? ", " : "", calib_basename(names[i]));
        shown++;
    }
    if (total > shown)
        snprintf(out + len, n - len, " and %zu more", total - shown);
}

int calib_detections_run(char *const *paths, size_t n, const calib_board *b, const calib_detector *d,
                         const char *label, calib_detections *ds, icv_err *err)
{
    memset(ds, 0, sizeof *ds);
    if (b->cols < 2 || b->rows < 2 || b->cols > ICV_MAX_BOARD_SIDE || b->rows > ICV_MAX_BOARD_SIDE)
        return icv_err_set(err, ICV_EINVAL, "%s: a %dx%d board: inner corners must be 2..%d along each side", label,
                           b->cols, b->rows, ICV_MAX_BOARD_SIDE);
    ds->n = n;
    ds->n_points = b->cols * b->rows;
    ds->uv = calloc(n * (size_t)ds->n_points + 1, sizeof *ds->uv);
    ds->det = calloc(n + 1, sizeof *ds->det);
    ds->names = (char **)paths;
    if (!ds->uv || !ds->det) {
        calib_detections_free(ds);
        return icv_err_set(err, ICV_ENOMEM, "out of memory for %zu images", n);
    }
    icv_progress bar;
    icv_progress_begin(&bar, label, (long)n);
    for (size_t i = 0; i < n; i++) {
        calib_image img;
        int rc = calib_image_read_gray(paths[i], &img, err);
        if (rc) {
            icv_progress_end(&bar);
            calib_detections_free(ds);
            return rc;
        }
        if (i == 0) {
            ds->width = img.width;
            ds->height = img.height;
        } else if (img.width != ds->width || img.height != ds->height) {
            int w = img.width, h = img.height;
            calib_image_free(&img);
            icv_progress_end(&bar);
            calib_detections_free(ds);
            return icv_err_set(err, ICV_EINVAL,
                               "%s: image is %dx%d but %s is %dx%d: all board images of a camera must have one size",
                               paths[i], w, h, calib_basename(paths[0]), ds->width, ds->height);
        }
        calib_board_detect(d, &img, b, 0, ds->uv + i * (size_t)ds->n_points, &ds->det[i]);
        icv_debug("%s: board %s (%s, %.2f s, sharpness %.2f px)", paths[i], ds->det[i].found ? "found" : "not found",
                  ds->det[i].method == CALIB_DETECT_SB        ? "SB"
                  : ds->det[i].method == CALIB_DETECT_CLASSIC ? "classic"
                                                              : "-",
                  ds->det[i].seconds, ds->det[i].sharpness);
        calib_image_free(&img);
        icv_progress_update(&bar, (long)i + 1);
    }
    icv_progress_end(&bar);
    return 0;
}

void calib_detections_free(calib_detections *ds)
{
    free(ds->uv);
    free(ds->det);
    ds->uv = NULL;
    ds->det = NULL;
}

int calib_detections_fail_none(const calib_detections *ds, const calib_board *b, const char *label,
                               icv_err *err)
{
    char list[300];
    calib_names_join(list, sizeof list, ds->names, NULL, ds->n);
    /* Look (in a few images) for a board of another size: the commonest mistake is
     * counting squares instead of inner corners. */
    for (size_t i = 0; i < ds->n && i < 3; i++) {
        calib_image img;
        icv_err e2 = {0};
        if (calib_image_read_gray(ds->names[i], &img, &e2))
            continue;
        calib_detection info;
        calib_pt2 *tmp = calloc((size_t)b->cols * b->rows, sizeof *tmp);
        if (tmp) {
            calib_board_detect(NULL, &img, b, 1, tmp, &info);
            free(tmp);
        } else {
            info.probe_cols = 0;
        }
        calib_image_free(&img);
        if ((info.probe_cols >= info.probe_rows) != (b->cols >= b->rows)) { /* say it in the user's order */
            int t = info.probe_cols;
            info.probe_cols = info.probe_rows;
            info.probe_rows = t;
        }
        if (info.probe_cols > 0 && (info.probe_cols != b->cols || info.probe_rows != b->rows))
            return icv_err_set(err, ICV_ENOTFOUND,
                               "%s: no %dx%d board found in any of %zu images (%s); %s shows a board of %dx%d "
                               "inner corners: check --board (inner corners, not squares)",
                               label, b->cols, b->rows, ds->n, list, calib_basename(ds->names[i]),
                               info.probe_cols, info.probe_rows);
    }
    return icv_err_set(err, ICV_ENOTFOUND, "%s: no %dx%d board found in any of %zu images (%s)", label, b->cols,
                       b->rows, ds->n, list);
}
