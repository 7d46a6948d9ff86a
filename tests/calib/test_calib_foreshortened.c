/* test_calib_foreshortened.c: a board lying on the surface, seen from a camera
 * 12-15 deg above it, turned in its plane and (on a slope) rolled in the image:
 * squares ~20 px one way and 4-7 px the other, as parallelograms. OpenCV's
 * detectors miss it; the detector's `foreshortened` pass (a copy warped along the
 * image's two strongest edge directions) finds it, and the corners lie where the
 * board projects. */
#include <math.h>

#include "calib/calib.h"
#include "tests/calib/board_render.h"
#include "tests/harness.h"

#define W 640
#define H 480
#define F 600.0

typedef struct {
    double elevation_deg, yaw_deg, roll_deg;
} view;

/* Renders the 7x5 board at 0.5 m lying at the view's elevation (its yaw, the image
 * rolled); fills the true corners (px). */
static int render(const char *path, const calib_board *b, const view *v, calib_pt2 *truth)
{
    double rv[3], tv[3];
    board_pose_lying(b, 0.5, v->elevation_deg, v->yaw_deg, v->roll_deg, W, H, F, rv, tv, truth);
    return board_render_pgm(path, W, H, F, b, rv, tv);
}

/* the narrowest square across (px): the smaller singular value of its two sides */
static double narrowest(const calib_board *b, const calib_pt2 *p)
{
    double m = INFINITY;
    for (int r = 0; r + 1 < b->rows; r++)
        for (int c = 0; c + 1 < b->cols; c++) {
            const calib_pt2 *o = &p[r * b->cols + c], *a = o + 1, *d = o + b->cols;
            double ax = a->u - o->u, ay = a->v - o->v, dx = d->u - o->u, dy = d->v - o->v;
            double A = ax * ax + ay * ay, B = dx * dx + dy * dy, C = ax * dx + ay * dy;
            double tr = A + B, det = A * B - C * C;
            m = fmin(m, sqrt(fmax(tr / 2 - sqrt(fmax(tr * tr / 4 - det, 0)), 0)));
        }
    return m;
}

TEST(test_calib_foreshortened_board_on_the_surface_is_found)
{
    calib_board b = {7, 5, 0.025};
    static const view views[] = {{12, 30, 0}, {15, -20, 20}, {12, 60, -10}};
    for (size_t k = 0; k < sizeof views / sizeof views[0]; k++) {
        calib_pt2 truth[35], uv[35];
        ASSERT_EQ_INT(render(th_tmp("fs.pgm"), &b, &views[k], truth), 0);
        calib_image img;
        icv_err err = {0};
        ASSERT(calib_image_read_gray(th_tmp("fs.pgm"), &img, &err) == 0, "%s", err.msg);
        calib_detector d;
        calib_detector_defaults(&d);
        calib_detection plain, fs;
        calib_board_detect(&d, &img, &b, 0, uv, &plain);
        d.foreshortened = 1;
        calib_board_detect(&d, &img, &b, 0, uv, &fs);
        calib_image_free(&img);
        double thin = narrowest(&b, truth);
        /* the case is one OpenCV misses: squares under 8 px across */
        ASSERT(thin < 8 && !plain.found, "view %zu: squares %.1f px across, found without the pass %d", k, thin,
               plain.found);
        ASSERT(fs.found, "view %zu (elevation %g deg, yaw %g, roll %g): not found", k, views[k].elevation_deg,
               views[k].yaw_deg, views[k].roll_deg);
        /* corner 0 is the end nearer the top-left either way */
        if (truth[0].u + truth[0].v > truth[34].u + truth[34].v)
            for (int i = 0; i < 17; i++) {
                calib_pt2 s = truth[i];
                truth[i] = truth[34 - i];
                truth[34 - i] = s;
            }
        double ss = 0, worst = 0;
        for (int i = 0; i < 35; i++) {
            double e = hypot(uv[i].u - truth[i].u, uv[i].v - truth[i].v);
            ss += e * e;
            worst = fmax(worst, e);
        }
        if (th_accuracy())
            printf("    view %zu: squares %.1f px across, corners %.3f px rms, worst %.3f px (%.2f s)\n", k, thin,
                   sqrt(ss / 35), worst, fs.seconds);
        /* noiseless 3x3-supersampled rendering: sub-pixel corners */
        ASSERT(sqrt(ss / 35) < 0.2 && worst < 0.6, "view %zu: corners %.3f px rms, worst %.3f px", k,
               sqrt(ss / 35), worst);
    }
}
