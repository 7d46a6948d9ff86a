/* assess.c: whether a calibration is good enough to measure with, and why not.
 * Coverage of the image by the board (a grid of cells hit by some used view's
 * board outline), reprojection error, parameter uncertainty and board tilt,
 * turned into plain reasons a user can act on. */
#include <string.h>

#include "calib/calib_internal.h"

static void add(calib_camera *cam, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(calib_camera *cam, const char *fmt, ...)
{
    size_t len = strlen(cam->verdict);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cam->verdict + len, sizeof cam->verdict - len, fmt, ap);
    va_end(ap);
    len = strlen(cam->verdict);
    if (len + 1 < sizeof cam->verdict) {
        cam->verdict[len] = '\n';
        cam->verdict[len + 1] = '\0';
    }
}

/* Is p inside the quadrilateral a b c d (either orientation)? */
static int in_quad(calib_pt2 p, const calib_pt2 q[4])
{
    int pos = 0, neg = 0;
    for (int i = 0; i < 4; i++) {
        calib_pt2 a = q[i], b = q[(i + 1) % 4];
        double c = (b.u - a.u) * (p.v - a.v) - (b.v - a.v) * (p.u - a.u);
        pos += c > 0;
        neg += c < 0;
    }
    return pos == 0 || neg == 0;
}

void calib_camera_assess(calib_camera *cam, const calib_observations *obs)
{
    memset(cam->coverage_map, 0, sizeof cam->coverage_map);
    cam->verdict[0] = '\0';
    int np = obs->n_points;
    /* The outline: the four extreme corners of the grid; found from the board
     * points so that any board layout works. */
    double max_tilt = 0;
    for (int v = 0; v < obs->n_views; v++) {
        if (cam->views[v].status != CALIB_VIEW_USED)
            continue;
        const icv_vec3 *X = calib_obs_board(obs, v);
        int cols = 1;
        while (cols < np && X[cols].y == X[0].y)
            cols++;
        int rows = np / cols;
        int idx[4] = {0, cols - 1, np - 1, (rows - 1) * cols};
        const calib_pt2 *uv = obs->uv + (size_t)v * np;
        calib_pt2 q[4] = {uv[idx[0]], uv[idx[1]], uv[idx[2]], uv[idx[3]]};
        for (int r = 0; r < CALIB_COV_ROWS; r++)
            for (int c = 0; c < CALIB_COV_COLS; c++) {
                calib_pt2 p = {(c + 0.5) * obs->width / CALIB_COV_COLS - 0.5,
                               (r + 0.5) * obs->height / CALIB_COV_ROWS - 0.5};
                if (in_quad(p, q))
                    cam->coverage_map[r][c]++;
            }
        icv_mat3 R = icv_rot_from_axis_angle(icv_v3_from_array(cam->views[v].rvec));
        double tilt = acos(fabs(R.m[2][2])) * 180 / M_PI; /* deg between board normal and optical axis */
        if (tilt > max_tilt)
            max_tilt = tilt;
    }
    int hit = 0;
    for (int r = 0; r < CALIB_COV_ROWS; r++)
        for (int c = 0; c < CALIB_COV_COLS; c++)
            hit += cam->coverage_map[r][c] > 0;
    cam->coverage = (double)hit / (CALIB_COV_ROWS * CALIB_COV_COLS);

    int bad = 0;
    /* Thresholds: a sharp board at this resolution gives 0.1-0.3 px (the Bouguet
     * set: 0.19 px); above 1 px something is wrong with the corners. */
    if (cam->rms > 1.0) {
        bad = 1;
        add(cam, "bad: reprojection RMS %.2f px is above 1 px: blurred or misdetected corners, a bent board or "
                 "a wrong square size",
            cam->rms);
    } else if (cam->rms > 0.5) {
        add(cam, "warning: reprojection RMS %.2f px is above 0.5 px: check focus and motion blur", cam->rms);
    }
    if (cam->coverage < 0.5) {
        /* Which thirds of the image were never covered. */
        static const char *where[3][3] = {{"top-left", "top", "top-right"},
                                          {"left", "centre", "right"},
                                          {"bottom-left", "bottom", "bottom-right"}};
        char empty[200] = "";
        for (int R = 0; R < 3; R++)
            for (int C = 0; C < 3; C++) {
                int any = 0;
                for (int r = R * CALIB_COV_ROWS / 3; r < (R + 1) * CALIB_COV_ROWS / 3; r++)
                    for (int c = C * CALIB_COV_COLS / 3; c < (C + 1) * CALIB_COV_COLS / 3; c++)
                        any |= cam->coverage_map[r][c] > 0;
                if (!any) {
                    size_t len = strlen(empty);
                    snprintf(empty + len, sizeof empty - len, "%s%s", len ? ", " : "", where[R][C]);
                }
            }
        if (cam->coverage < 0.3)
            bad = 1;
        add(cam, "%s: the board covered %.0f%% of the image: add views near the edges and corners%s%s%s",
            cam->coverage < 0.3 ? "bad" : "warning", 100 * cam->coverage, empty[0] ? " (never covered: " : "",
            empty, empty[0] ? ")" : "");
    }
    if (cam->n_used < 8)
        add(cam, "warning: only %d views used: 10-20 views at varied tilts give stable intrinsics", cam->n_used);
    if (max_tilt < 15)
        add(cam, "warning: every board faces the camera (largest tilt %.0f deg): tilt it 20-45 deg so the focal "
                 "length is well determined",
            max_tilt);
    /* Uncertainty: 1% of the focal length is ~1% of every distance measured. */
    double rf = cam->std.fx / cam->in.fx, rf2 = cam->std.fy / cam->in.fy;
    if (rf2 > rf)
        rf = rf2;
    if (rf > 0.01) {
        bad = 1;
        add(cam, "bad: focal length uncertain: +-%.1f px (%.1f%%); add tilted views", cam->std.fx, 100 * rf);
    } else if (rf > 0.003) {
        add(cam, "warning: focal length +-%.1f px (%.2f%%)", cam->std.fx, 100 * rf);
    }
    double pp = cam->std.cx > cam->std.cy ? cam->std.cx : cam->std.cy;
    if (pp > 0.02 * cam->in.width)
        add(cam, "warning: principal point uncertain: +-%.1f px; add views filling the image corners", pp);
    if (fabs(cam->in.dist[0]) > 0.02 && cam->std.dist[0] > 0.25 * fabs(cam->in.dist[0]))
        add(cam, "warning: k1 uncertainty large: %.3f +- %.3f; add views with the board near the image edges",
            cam->in.dist[0], cam->std.dist[0]);
    int n_out = 0;
    for (int v = 0; v < cam->n_views; v++)
        n_out += cam->views[v].status == CALIB_VIEW_OUTLIER;
    if (n_out) {
        char list[300] = "";
        size_t len = 0;
        for (int v = 0; v < cam->n_views && len + 40 < sizeof list; v++)
            if (cam->views[v].status == CALIB_VIEW_OUTLIER)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s (%.2f px)", len ? ", " : "",
                                        cam->views[v].name, cam->views[v].rms);
        add(cam, "note: %d view%s dropped for an error far above the median: %s", n_out, n_out > 1 ? "s" : "", list);
    }
    cam->verdict_ok = !bad;
    if (!bad) {
        char tmp[CALIB_VERDICT_MAX];
        snprintf(tmp, sizeof tmp, "good: RMS %.2f px over %d views, board covered %.0f%% of the image, fx +-%.2f px\n%s",
                 cam->rms, cam->n_used, 100 * cam->coverage, cam->std.fx, cam->verdict);
        memcpy(cam->verdict, tmp, sizeof tmp);
    }
}
