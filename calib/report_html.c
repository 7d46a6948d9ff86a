/* report_html.c: calib_report.html, a self-contained page a person reads to judge
 * a calibration: verdict, parameters with standard errors, the per-view error bar
 * chart, the coverage map, the boards seen from above (camera frame x-z), and an
 * example image before and after undistortion. Inline SVG, images as data URIs. */
#include <stdlib.h>
#include <string.h>

#include "calib/calib_internal.h"
#include "calib/cv_bridge_internal.h"

static void verdict(FILE *f, const char *v, int ok)
{
    fprintf(f, "<h2>Verdict: <span class=%s>%s</span></h2><ul>", ok ? "ok" : "bad", ok ? "usable" : "not usable");
    icv_fput_html_items(f, v);
    fputs("</ul>\n", f);
}

static void params(FILE *f, const calib_intrinsics *in, const calib_intrinsics *sd, const char *title)
{
    fprintf(f, "<h3>%s</h3><table><tr><th>parameter</th><th>value</th><th>standard error</th></tr>", title);
    const char *nm[9] = {"fx (px)", "fy (px)", "cx (px)", "cy (px)", "k1", "k2", "p1", "p2", "k3"};
    double v[9] = {in->fx, in->fy, in->cx, in->cy, in->dist[0], in->dist[1], in->dist[2], in->dist[3], in->dist[4]};
    double s[9] = {sd->fx, sd->fy, sd->cx, sd->cy, sd->dist[0], sd->dist[1], sd->dist[2], sd->dist[3], sd->dist[4]};
    for (int i = 0; i < 9; i++)
        fprintf(f, "<tr><td>%s</td><td>%.6g</td><td>%s%.3g</td></tr>", nm[i], v[i], i == 8 && s[i] == 0 ? "fixed " : "",
                s[i]);
    fputs("</table>\n", f);
}

/* Bar chart of per-view RMS (used views blue, dropped red, missing grey). */
static void bars(FILE *f, const calib_camera *cam, const char *title)
{
    int n = cam->n_views, W = 640, H = 220, L = 50, B = 60;
    double mx = 0.1;
    for (int v = 0; v < n; v++)
        mx = fmax(mx, cam->views[v].rms);
    mx *= 1.1;
    fprintf(f, "<h3>%s</h3><svg width=%d height=%d><rect width=%d height=%d fill=#fff />", title, W, H + B, W, H + B);
    double bw = (double)(W - L - 10) / (n ? n : 1);
    for (int v = 0; v < n; v++) {
        const calib_view *vw = &cam->views[v];
        double h = (H - 20) * vw->rms / mx, x = L + v * bw;
        const char *c = vw->status == CALIB_VIEW_USED ? "#3b6fb6" : vw->status == CALIB_VIEW_OUTLIER ? "#c0392b" : "#aaa";
        fprintf(f, "<rect x=%.1f y=%.1f width=%.1f height=%.1f fill='%s'><title>%s %.3f px</title></rect>", x + 1,
                H - h, bw - 2, h, c, vw->name, vw->rms);
        fprintf(f, "<text x=%.1f y=%d font-size=10 transform='rotate(60 %.1f %d)'>", x + bw / 2, H + 12, x + bw / 2,
                H + 12);
        icv_fput_html(f, vw->name);
        fputs("</text>", f);
    }
    double ym = H - (H - 20) * cam->rms / mx;
    fprintf(f, "<line x1=%d x2=%d y1=%.1f y2=%.1f stroke=#000 stroke-dasharray=4 />"
               "<text x=%d y=%.1f font-size=11>overall RMS %.3f px</text>",
            L, W - 10, ym, ym, L + 4, ym - 3, cam->rms);
    fprintf(f, "<line x1=%d x2=%d y1=%d y2=%d stroke=#000 /><line x1=%d x2=%d y1=20 y2=%d stroke=#000 />"
               "<text x=4 y=24 font-size=11>%.2f px</text><text x=4 y=%d font-size=11>0</text></svg>\n",
            L, W - 10, H, H, L, L, H, mx, H);
}

static void coverage(FILE *f, const calib_camera *cam)
{
    int W = 480, H = W * cam->in.height / (cam->in.width ? cam->in.width : 1);
    double cw = (double)W / CALIB_COV_COLS, ch = (double)H / CALIB_COV_ROWS;
    int mx = 1;
    for (int r = 0; r < CALIB_COV_ROWS; r++)
        for (int c = 0; c < CALIB_COV_COLS; c++)
            mx = cam->coverage_map[r][c] > mx ? cam->coverage_map[r][c] : mx;
    fprintf(f, "<h3>Coverage: %.0f%% of the image (cells crossed by a used board; darker = more views)</h3>"
               "<svg width=%d height=%d><rect width=%d height=%d fill=#fee stroke=#000 />",
            100 * cam->coverage, W, H, W, H);
    for (int r = 0; r < CALIB_COV_ROWS; r++)
        for (int c = 0; c < CALIB_COV_COLS; c++)
            if (cam->coverage_map[r][c])
                fprintf(f, "<rect x=%.1f y=%.1f width=%.1f height=%.1f fill=#2e8b57 fill-opacity=%.2f />", c * cw,
                        r * ch, cw, ch, 0.25 + 0.75 * cam->coverage_map[r][c] / mx);
    fputs("</svg>\n", f);
}

/* Boards seen from above: camera frame x (right) and z (forward), metres. */
static void poses(FILE *f, const calib_camera *cam, const double *C2)
{
    int W = 480, H = 360;
    double xmin = -0.05, xmax = 0.05, zmax = 0.1;
    icv_vec3 c4[64][4];
    int nb = 0;
    double sx = (cam->board.cols - 1) * cam->board.square, sy = (cam->board.rows - 1) * cam->board.square;
    icv_vec3 corner[4] = {{0, 0, 0}, {sx, 0, 0}, {sx, sy, 0}, {0, sy, 0}};
    for (int v = 0; v < cam->n_views && nb < 64; v++) {
        if (cam->views[v].status != CALIB_VIEW_USED && cam->views[v].status != CALIB_VIEW_OUTLIER)
            continue;
        icv_mat3 R = icv_rot_from_axis_angle(icv_v3_from_array(cam->views[v].rvec));
        for (int k = 0; k < 4; k++) {
            icv_vec3 p = icv_v3_add(icv_m3_apply(R, corner[k]), icv_v3_from_array(cam->views[v].tvec));
            c4[nb][k] = p;
            xmin = fmin(xmin, p.x), xmax = fmax(xmax, p.x), zmax = fmax(zmax, p.z);
        }
        nb++;
    }
    if (C2) {
        xmin = fmin(xmin, C2[0] - 0.02), xmax = fmax(xmax, C2[0] + 0.02);
    }
    double s = fmin((W - 40) / (xmax - xmin), (H - 40) / zmax);
#define PX(x) (20 + ((x) - xmin) * s)
#define PZ(z) (H - 20 - (z) * s)
    fprintf(f, "<h3>Board poses seen from above (camera frame: x right, z forward; %.0f mm grid)</h3>"
               "<svg width=%d height=%d><rect width=%d height=%d fill=#fff stroke=#000 />",
            100.0, W, H, W, H);
    for (double g = 0; g <= zmax; g += 0.1)
        fprintf(f, "<line x1=0 x2=%d y1=%.1f y2=%.1f stroke=#eee />", W, PZ(g), PZ(g));
    for (int b = 0; b < nb; b++) {
        fputs("<polygon fill=#3b6fb6 fill-opacity=0.2 stroke=#3b6fb6 points='", f);
        for (int k = 0; k < 4; k++)
            fprintf(f, "%.1f,%.1f ", PX(c4[b][k].x), PZ(c4[b][k].z));
        fputs("' />", f);
    }
    fprintf(f, "<polygon points='%.1f,%.1f %.1f,%.1f %.1f,%.1f' fill=#000><title>camera 1</title></polygon>", PX(0),
            PZ(0), PX(0) - 8, PZ(0) + 12, PX(0) + 8, PZ(0) + 12);
    if (C2) /* camera 2's centre in camera 1's frame */
        fprintf(f, "<polygon points='%.1f,%.1f %.1f,%.1f %.1f,%.1f' fill=#c0392b><title>camera 2</title></polygon>",
                PX(C2[0]), PZ(C2[2]), PX(C2[0]) - 8, PZ(C2[2]) + 12, PX(C2[0]) + 8, PZ(C2[2]) + 12);
    fputs("</svg>\n", f);
#undef PX
#undef PZ
}

static void example(FILE *f, const calib_intrinsics *in, char *const *paths, size_t n, const calib_camera *cam)
{
    const char *img = NULL;
    for (size_t i = 0; i < n && (int)i < cam->n_views; i++)
        if (cam->views[i].status == CALIB_VIEW_USED) {
            img = paths[i];
            break;
        }
    if (!img)
        return;
    double K[9];
    calib_intrinsics_to_k(in, K);
    double zero[5] = {0, 0, 0, 0, 0};
    unsigned char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    icv_err err = {0};
    if (calib_undistort_image_encoded(K, zero, img, ".jpg", &a, &na, &err) ||
        calib_undistort_image_encoded(K, in->dist, img, ".jpg", &b, &nb, &err)) {
        free(a), free(b);
        return;
    }
    fputs("<h3>Example: as recorded (left) and undistorted (right): straight edges must look straight</h3>", f);
    fputs("<img width=480 src='data:image/jpeg;base64,", f);
    icv_fput_base64(f, a, na);
    fputs("'> <img width=480 src='data:image/jpeg;base64,", f);
    icv_fput_base64(f, b, nb);
    fprintf(f, "'><p>%s</p>\n", calib_basename(img));
    free(a), free(b);
}

static const char style[] =
    "<style>body{font-family:sans-serif;max-width:1000px;margin:auto}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}.ok{color:#2e8b57}.bad{color:#c0392b}</style>";

int calib_report_write_camera(const calib_camera *cam, char *const *paths, size_t n, const char *path, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc)
        return rc;
    FILE *f = af.fp;
    fprintf(f, "<!DOCTYPE html><html><head><meta charset=utf-8><title>calibration report</title>%s</head><body>"
               "<h1>Camera calibration</h1><p>%dx%d px, board %dx%d inner corners, %.1f mm squares; %d of %d views "
               "used; RMS %.3f px.</p>\n",
            style, cam->in.width, cam->in.height, cam->board.cols, cam->board.rows, 1e3 * cam->board.square, cam->n_used,
            cam->n_views, cam->rms);
    verdict(f, cam->verdict, cam->verdict_ok);
    params(f, &cam->in, &cam->std, "Intrinsics (standard errors from the Jacobian at the solution)");
    bars(f, cam, "Reprojection error per view (blue used, red dropped as outlier, grey no board)");
    coverage(f, cam);
    poses(f, cam, NULL);
    example(f, &cam->in, paths, n, cam);
    fputs("</body></html>\n", f);
    return icv_atomic_commit(&af, err);
}

int calib_report_write_stereo(const calib_stereo *st, char *const *paths1, size_t n, const char *path, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc)
        return rc;
    FILE *f = af.fp;
    fprintf(f, "<!DOCTYPE html><html><head><meta charset=utf-8><title>stereo calibration report</title>%s</head><body>"
               "<h1>Stereo calibration</h1><p>baseline %.3f &plusmn; %.3f mm; T = [%.3f, %.3f, %.3f] mm "
               "(&plusmn; %.3f, %.3f, %.3f); RMS %.3f px; mean epipolar error %.3f px; %d of %d pairs used.</p>\n",
            style, 1e3 * st->baseline, 1e3 * st->baseline_std, 1e3 * st->T[0], 1e3 * st->T[1], 1e3 * st->T[2],
            1e3 * st->T_std[0], 1e3 * st->T_std[1], 1e3 * st->T_std[2], st->rms, st->epipolar, st->n_used,
            st->n_pairs);
    verdict(f, st->verdict, st->verdict_ok);
    fputs("<h3>Pairs</h3><table><tr><th>camera 1</th><th>camera 2</th><th>RMS 1 (px)</th><th>RMS 2 (px)</th>"
          "<th>epipolar (px)</th></tr>",
          f);
    for (int i = 0; i < st->n_pairs; i++) {
        const calib_pair *p = &st->pairs[i];
        fputs("<tr><td>", f);
        icv_fput_html(f, p->name1);
        fputs("</td><td>", f);
        icv_fput_html(f, p->name2);
        if (p->status == CALIB_VIEW_USED)
            fprintf(f, "</td><td>%.3f</td><td>%.3f</td><td>%.3f</td></tr>", p->rms1, p->rms2, p->epipolar);
        else
            fputs("</td><td colspan=3>skipped</td></tr>", f);
    }
    fputs("</table>\n", f);
    for (int c = 0; c < 2; c++) {
        char t[120];
        snprintf(t, sizeof t, "Camera %d intrinsics (joint solution, standard errors from its Jacobian)", c + 1);
        params(f, &st->cam[c].in, &st->cam[c].std, t);
        snprintf(t, sizeof t, "Camera %d: reprojection error per view (mono calibration)", c + 1);
        bars(f, &st->cam[c], t);
        coverage(f, &st->cam[c]);
    }
    double C2[3]; /* -R^T T */
    for (int i = 0; i < 3; i++)
        C2[i] = -(st->R[0][i] * st->T[0] + st->R[1][i] * st->T[1] + st->R[2][i] * st->T[2]);
    poses(f, &st->cam[0], C2);
    example(f, &st->cam[0].in, paths1, n, &st->cam[0]);
    fputs("</body></html>\n", f);
    return icv_atomic_commit(&af, err);
}
