/* mono_calibrate.c: one camera from board views. OpenCV's calibrateCamera
 * (Zhang's method, then Levenberg-Marquardt over intrinsics and poses) with its
 * stdDeviationsIntrinsics, i.e. sqrt(diag((J^T J)^-1) * SSR/(2N - p)) at the
 * solution, as MATLAB's estimationErrors; then outlier views are dropped (error
 * far above the median) and the camera re-calibrated. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"
#include "calib/cv_bridge_internal.h"

void calib_options_defaults(calib_options *o)
{
    o->fix_k3 = 1;
    o->outlier_factor = 3.0;
    o->min_views = 4;
    calib_detector_defaults(&o->detector);
    o->video.max_examined = 150;
    o->video.max_views = 25;
    o->video.min_change = 0.02;
    o->video.offset = 0;
}

void calib_intrinsics_to_k(const calib_intrinsics *in, double K[9])
{
    double k[9] = {in->fx, 0, in->cx, 0, in->fy, in->cy, 0, 0, 1};
    memcpy(K, k, sizeof k);
}

void calib_intrinsics_from_k(calib_intrinsics *in, const double K[9], const double dist[5], int w, int h)
{
    in->width = w;
    in->height = h;
    in->fx = K[0];
    in->fy = K[4];
    in->cx = K[2];
    in->cy = K[5];
    memcpy(in->dist, dist, 5 * sizeof *dist);
}

double calib_view_rms(const calib_intrinsics *in, const double rvec[3], const double tvec[3], const icv_vec3 *X,
                      const calib_pt2 *uv, int n)
{
    double ss = 0;
    for (int i = 0; i < n; i++) {
        calib_pt2 p;
        calib_project_pose(in, rvec, tvec, &X[i], 1, &p);
        ss += (p.u - uv[i].u) * (p.u - uv[i].u) + (p.v - uv[i].v) * (p.v - uv[i].v);
    }
    return n ? sqrt(ss / n) : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One calibrateCamera over the views with use[v] set. */
static int run_once(const calib_observations *obs, const int *use, int fix_k3, calib_camera *cam, icv_err *err)
{
    int nu = 0, np = obs->n_points;
    for (int v = 0; v < obs->n_views; v++)
        nu += use[v] != 0;
    int nb = obs->board_per_view ? nu : 1;
    double *obj = malloc(sizeof(double) * 3 * (size_t)np * (size_t)nb);
    double *uv = malloc(sizeof(double) * 2 * (size_t)np * (size_t)nu);
    double *pv = malloc(sizeof(double) * (size_t)nu * 7);
    if (!obj || !uv || !pv) {
        free(obj), free(uv), free(pv);
        return icv_err_set(err, ICV_ENOMEM, "out of memory calibrating %d views", nu);
    }
    double *rv = pv + nu, *tv = pv + 4 * nu;
    for (int v = 0, k = 0; v < obs->n_views; v++) {
        if (!use[v])
            continue;
        if (k < nb)
            for (int i = 0; i < np; i++)
                icv_v3_to_array(calib_obs_board(obs, v)[i], obj + 3 * ((size_t)k * np + i));
        memcpy(uv + 2 * (size_t)np * k++, obs->uv + (size_t)v * np, sizeof(double) * 2 * np);
    }
    double K[9], D[5], sd[9], rms;
    char msg[300];
    int rc = cvb_calibrate_camera(nu, np, obj, obs->board_per_view, uv, obs->width, obs->height, fix_k3, K, D, sd, pv, rv, tv, &rms, msg,
                                  sizeof msg);
    if (rc) {
        free(obj), free(uv), free(pv);
        return icv_err_set(err, ICV_ENUMERIC, "calibrateCamera failed on %d views: %s", nu, msg);
    }
    calib_intrinsics_from_k(&cam->in, K, D, obs->width, obs->height);
    memset(&cam->std, 0, sizeof cam->std);
    cam->std.fx = sd[0], cam->std.fy = sd[1], cam->std.cx = sd[2], cam->std.cy = sd[3];
    memcpy(cam->std.dist, sd + 4, 5 * sizeof(double));
    cam->rms = rms;
    for (int v = 0, k = 0; v < obs->n_views; v++) {
        if (!use[v])
            continue;
        cam->views[v].rms = pv[k];
        memcpy(cam->views[v].rvec, rv + 3 * k, sizeof(double) * 3);
        memcpy(cam->views[v].tvec, tv + 3 * k, sizeof(double) * 3);
        k++;
    }
    free(obj), free(uv), free(pv);
    return 0;
}

int calib_camera_calibrate(const calib_observations *obs, const calib_options *opt, calib_camera *cam,
                           icv_err *err)
{
    calib_options def;
    if (!opt) {
        calib_options_defaults(&def);
        opt = &def;
    }
    memset(cam, 0, sizeof *cam);
    if (obs->n_views < opt->min_views)
        return icv_err_set(err, ICV_EINVAL, "only %d usable views of the board (need at least %d)", obs->n_views,
                           opt->min_views);
    if (obs->n_points < 4)
        return icv_err_set(err, ICV_EINVAL, "a board needs at least 4 corners (got %d)", obs->n_points);
    cam->n_views = obs->n_views;
    /* the board's size from its points (row-major grid, X along a row) */
    cam->board.cols = 1;
    while (cam->board.cols < obs->n_points && obs->board[cam->board.cols].y == obs->board[0].y)
        cam->board.cols++;
    cam->board.rows = obs->n_points / cam->board.cols;
    cam->board.square = icv_v3_norm(icv_v3_sub(obs->board[1], obs->board[0]));
    cam->views = calloc((size_t)obs->n_views, sizeof *cam->views);
    int *use = malloc(sizeof(int) * (size_t)obs->n_views);
    double *tmp = malloc(sizeof(double) * (size_t)obs->n_views);
    if (!cam->views || !use || !tmp) {
        free(use), free(tmp);
        calib_camera_free(cam);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    for (int v = 0; v < obs->n_views; v++) {
        use[v] = 1;
        snprintf(cam->views[v].name, CALIB_NAME_MAX, "%s",
                 obs->names ? calib_basename(obs->names[v]) : "");
        if (!obs->names)
            snprintf(cam->views[v].name, CALIB_NAME_MAX, "view%02d", v);
    }
    int rc = run_once(obs, use, opt->fix_k3, cam, err);
    /* Outlier views: a view whose error is several times the median has a
     * misdetected corner, motion blur or a bent board; it would pull the solution.
     * Drop them all at once and re-calibrate, at most twice. */
    for (int round = 0; rc == 0 && round < 2 && opt->outlier_factor > 0; round++) {
        int n = 0;
        for (int v = 0; v < obs->n_views; v++)
            if (use[v])
                tmp[n++] = cam->views[v].rms;
        qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
        double med = n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
        double lim = opt->outlier_factor * med;
        if (lim < med + 0.1)
            lim = med + 0.1; /* px: never reject views that are all good */
        int drop = 0;
        for (int v = 0; v < obs->n_views; v++)
            drop += use[v] && cam->views[v].rms > lim;
        if (!drop || n - drop < opt->min_views)
            break;
        for (int v = 0; v < obs->n_views; v++)
            if (use[v] && cam->views[v].rms > lim) {
                use[v] = 0;
                cam->views[v].status = CALIB_VIEW_OUTLIER;
                icv_warn("%s: view dropped: reprojection RMS %.3f px is above %.3f px (%.1f x the median %.3f px)",
                         cam->views[v].name, cam->views[v].rms, lim, opt->outlier_factor, med);
            }
        rc = run_once(obs, use, opt->fix_k3, cam, err);
    }
    if (rc) {
        free(use), free(tmp);
        calib_camera_free(cam);
        return rc;
    }
    /* Dropped views: their pose and error under the final model, for the report. */
    for (int v = 0; v < obs->n_views; v++) {
        if (use[v]) {
            cam->n_used++;
            continue;
        }
        double K[9];
        char msg[200];
        calib_intrinsics_to_k(&cam->in, K);
        if (cvb_solve_pnp(obs->n_points, (const double *)calib_obs_board(obs, v), (const double *)(obs->uv + (size_t)v * obs->n_points),
                          K, cam->in.dist, cam->views[v].rvec, cam->views[v].tvec, msg, sizeof msg) == 0)
            cam->views[v].rms = calib_view_rms(&cam->in, cam->views[v].rvec, cam->views[v].tvec, calib_obs_board(obs, v),
                                               obs->uv + (size_t)v * obs->n_points, obs->n_points);
    }
    free(use), free(tmp);
    calib_camera_assess(cam, obs);
    return 0;
}

void calib_camera_free(calib_camera *cam)
{
    free(cam->views);
    cam->views = NULL;
    cam->n_views = 0;
}

int calib_camera_from_images(char *const *paths, size_t n, const calib_board *b, const calib_options *opt,
                             calib_camera *cam, icv_err *err)
{
    calib_options def;
    if (!opt) {
        calib_options_defaults(&def);
        opt = &def;
    }
    memset(cam, 0, sizeof *cam);
    if (n == 0)
        return icv_err_set(err, ICV_ENOTFOUND, "no images given");
    calib_detections ds;
    int rc = calib_detections_run(paths, n, b, &opt->detector, "detecting board", &ds, err);
    if (rc)
        return rc;
    int np = ds.n_points, nf = 0, nb = 0;
    int *pick = calloc(n, sizeof *pick), *miss = calloc(n, sizeof *miss);
    calib_pt2 *uv = malloc(sizeof *uv * (size_t)np * n);
    icv_vec3 *X = malloc(sizeof *X * (size_t)np);
    const char **names = malloc(sizeof *names * n);
    if (!pick || !miss || !uv || !X || !names) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (!ds.det[i].found) {
            miss[i] = 1;
            continue;
        }
        if (ds.det[i].sharpness > opt->detector.max_sharpness) {
            nb++;
            icv_warn("%s: view rejected as blurred: board edges %.1f px wide (limit %.1f px)", paths[i],
                     ds.det[i].sharpness, opt->detector.max_sharpness);
            continue;
        }
        pick[i] = 1;
        memcpy(uv + (size_t)nf * np, ds.uv + i * np, sizeof *uv * np);
        names[nf++] = paths[i];
    }
    if (nf == 0 && nb == 0) {
        char dir[ICV_PATH_MAX];
        icv_path_dirname(dir, sizeof dir, paths[0]);
        rc = calib_detections_fail_none(&ds, b, dir, err);
        goto out;
    }
    if (nf < opt->min_views) {
        char list[300];
        calib_names_join(list, sizeof list, (char *const *)paths, miss, n);
        rc = icv_err_set(err, ICV_EINVAL,
                         "%s: only %d of %zu images give a usable %dx%d board (need at least %d)%s%s%s", ds.names[0], nf,
                         n, b->cols, b->rows, opt->min_views, list[0] ? "; not found in: " : "", list,
                         nb ? "; some were too blurred" : "");
        goto out;
    }
    calib_board_points(b, X);
    calib_observations obs = {np, X, nf, uv, names, ds.width, ds.height, 0};
    calib_camera c1;
    rc = calib_camera_calibrate(&obs, opt, &c1, err);
    if (rc)
        goto out;
    /* Views for every image given, in the given order. */
    *cam = c1;
    cam->views = calloc(n, sizeof *cam->views);
    if (!cam->views) {
        calib_camera_free(&c1);
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto out;
    }
    cam->n_views = (int)n;
    for (size_t i = 0, k = 0; i < n; i++) {
        calib_view *v = &cam->views[i];
        if (pick[i]) {
            *v = c1.views[k++];
        } else {
            snprintf(v->name, CALIB_NAME_MAX, "%s", calib_basename(paths[i]));
            v->status = miss[i] ? CALIB_VIEW_NO_BOARD : CALIB_VIEW_BLURRED;
        }
        v->sharpness = ds.det[i].sharpness;
        v->method = ds.det[i].method;
    }
    calib_camera_free(&c1);
    int n_miss = 0;
    for (size_t i = 0; i < n; i++)
        n_miss += miss[i];
    if (n_miss || nb) {
        char list[300];
        calib_names_join(list, sizeof list, (char *const *)paths, miss, n);
        size_t len = strlen(cam->verdict);
        snprintf(cam->verdict + len, sizeof cam->verdict - len, "note: %d of %zu images were not used:%s%s%s\n",
                 n_miss + nb, n, n_miss ? " no full board in " : "", list, nb ? " (and blurred views)" : "");
    }
out:
    free(pick), free(miss), free(uv), free(X), free(names);
    calib_detections_free(&ds);
    return rc;
}
