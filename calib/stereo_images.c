/* stereo_images.c: stereo calibration from two image lists paired by sorted
 * order. Pairs where either view lacks the full board are skipped and listed. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"

int calib_stereo_from_images(char *const *p1, size_t n1, char *const *p2, size_t n2, const calib_board *b,
                             const calib_options *opt, calib_stereo *st, icv_err *err)
{
    calib_options def;
    if (!opt) {
        calib_options_defaults(&def);
        opt = &def;
    }
    memset(st, 0, sizeof *st);
    if (n1 == 0 || n2 == 0)
        return icv_err_set(err, ICV_ENOTFOUND, "stereo: no images for camera %d", n1 == 0 ? 1 : 2);
    if (n1 != n2)
        return icv_err_set(err, ICV_EINVAL,
                           "stereo: camera 1 has %zu images (%s...) but camera 2 has %zu (%s...): pairs are formed "
                           "by sorted name",
                           n1, calib_basename(p1[0]), n2, calib_basename(p2[0]));
    size_t n = n1;
    calib_detections ds[2];
    int rc = calib_detections_run(p1, n, b, &opt->detector, "detecting board, camera 1", &ds[0], err);
    if (rc)
        return rc;
    rc = calib_detections_run(p2, n, b, &opt->detector, "detecting board, camera 2", &ds[1], err);
    if (rc) {
        calib_detections_free(&ds[0]);
        return rc;
    }
    int np = ds[0].n_points, nf = 0;
    int *pick = calloc(n, sizeof *pick), *skip = calloc(n, sizeof *skip);
    calib_pt2 *uv1 = malloc(sizeof *uv1 * (size_t)np * n), *uv2 = malloc(sizeof *uv2 * (size_t)np * n);
    icv_vec3 *X = malloc(sizeof *X * (size_t)np);
    const char **nm1 = malloc(sizeof *nm1 * n), **nm2 = malloc(sizeof *nm2 * n);
    if (!pick || !skip || !uv1 || !uv2 || !X || !nm1 || !nm2) {
        rc = icv_err_set(err, ICV_ENOMEM, "stereo: out of memory");
        goto out;
    }
    int any1 = 0, any2 = 0;
    for (size_t i = 0; i < n; i++) {
        int f1 = ds[0].det[i].found && ds[0].det[i].sharpness <= opt->detector.max_sharpness;
        int f2 = ds[1].det[i].found && ds[1].det[i].sharpness <= opt->detector.max_sharpness;
        any1 |= ds[0].det[i].found;
        any2 |= ds[1].det[i].found;
        if (!f1 || !f2) {
            skip[i] = 1;
            icv_info("pair %zu skipped (%s, %s): no usable full board in %s", i + 1, calib_basename(p1[i]),
                     calib_basename(p2[i]), !f1 && !f2 ? "either view" : !f1 ? "camera 1's view" : "camera 2's view");
            continue;
        }
        pick[i] = 1;
        memcpy(uv1 + (size_t)nf * np, ds[0].uv + i * np, sizeof *uv1 * np);
        memcpy(uv2 + (size_t)nf * np, ds[1].uv + i * np, sizeof *uv2 * np);
        nm1[nf] = p1[i];
        nm2[nf] = p2[i];
        nf++;
    }
    if (!any1 || !any2) {
        char dir[ICV_PATH_MAX];
        icv_path_dirname(dir, sizeof dir, any1 ? p2[0] : p1[0]);
        rc = calib_detections_fail_none(&ds[any1 ? 1 : 0], b, dir, err);
        goto out;
    }
    if (nf < 5 || nf < opt->min_views) {
        char list[300];
        calib_names_join(list, sizeof list, p1, skip, n);
        rc = icv_err_set(err, ICV_EINVAL,
                         "%s: only %d of %zu pairs show the full %dx%d board in both views (need at least %d); "
                         "skipped: %s",
                         p1[0], nf, n, b->cols, b->rows, opt->min_views > 5 ? opt->min_views : 5, list);
        goto out;
    }
    if (ds[0].width != ds[1].width || ds[0].height != ds[1].height) {
        rc = icv_err_set(err, ICV_EINVAL, "stereo: camera 1 images are %dx%d but camera 2's (%s) are %dx%d", ds[0].width,
                         ds[0].height, p2[0], ds[1].width, ds[1].height);
        goto out;
    }
    calib_board_points(b, X);
    calib_observations o1 = {np, X, nf, uv1, nm1, ds[0].width, ds[0].height, 0};
    calib_observations o2 = {np, X, nf, uv2, nm2, ds[1].width, ds[1].height, 0};
    calib_stereo s1;
    rc = calib_stereo_calibrate(&o1, &o2, opt, &s1, err);
    if (rc)
        goto out;
    /* pairs for every pair given, in order */
    *st = s1;
    st->pairs = calloc(n, sizeof *st->pairs);
    if (!st->pairs) {
        calib_stereo_free(&s1);
        rc = icv_err_set(err, ICV_ENOMEM, "stereo: out of memory");
        goto out;
    }
    st->n_pairs = (int)n;
    for (size_t i = 0, k = 0; i < n; i++) {
        calib_pair *p = &st->pairs[i];
        if (pick[i]) {
            *p = s1.pairs[k++];
        } else {
            snprintf(p->name1, CALIB_NAME_MAX, "%s", calib_basename(p1[i]));
            snprintf(p->name2, CALIB_NAME_MAX, "%s", calib_basename(p2[i]));
            p->status = ds[0].det[i].found && ds[1].det[i].found ? CALIB_VIEW_BLURRED : CALIB_VIEW_NO_BOARD;
        }
    }
    free(s1.pairs);
    int n_skip = 0;
    for (size_t i = 0; i < n; i++)
        n_skip += skip[i];
    if (n_skip) {
        char list[300];
        calib_names_join(list, sizeof list, p1, skip, n);
        size_t len = strlen(st->verdict);
        snprintf(st->verdict + len, sizeof st->verdict - len,
                 "note: %d of %zu pairs skipped (no full board in one or both views): %s\n", n_skip, n, list);
    }
out:
    free(pick), free(skip), free(uv1), free(uv2), free(X), free(nm1), free(nm2);
    calib_detections_free(&ds[0]);
    calib_detections_free(&ds[1]);
    return rc;
}
