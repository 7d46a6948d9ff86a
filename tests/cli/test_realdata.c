/* test_realdata.c: the real clips of examples/real/ (issue #19 item 8, issue #22 item
 * 6), read from ../shared/data as a user's experiment.yaml names them; skipped, saying
 * so, when ../shared/data is absent. Of the figures for the green ball, e per
 * bounce within 2 sigma of sqrt(h2/h1) holds and is asserted; |g| within 2% does not
 * (9.565, -2.5%, with the phone's pitch from the poster's edges; docs/experiment.md). The clips of
 * several bodies: docs/realdata.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multifit.h>
#include <jansson.h>

#include "tests/harness.h"

TEST(test_realdata_green_ball_experiment_checks_every_frame)
{
    /* `check` opens the video and decodes its first and last frames: the AVI's B-frames
       once numbered frames 2 late, and frame 0 could not be decoded */
    if (!th_shared("data/real/ball_bounce_green_30fps/original/bounceAmeen.avi"))
        SKIP("../shared/data is absent: the real clip is not here");
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/real/green_ball/experiment.yaml", th_root());
    th_proc p;
    ASSERT(th_run_cli(&p, "-q check '%s'", path) == 0, "check: %s", p.err);
}

/* the clips of two bodies, each with its first and last frames decoded and its mask
   found (a wrong path or value, a first frame beyond the clip, fail here) */
static const char *const several[] = {"carom_headon", "carom_big_collision", "carom_rotation",
                                      "carom_rotation_transfer", "collision_pucks", "two_carts"};

TEST(test_realdata_several_bodies_experiments_check)
{
    if (!th_shared("data/real/physlab_phystrack_240fps/original/SampleVideos/CaromPuck/HeadOn.MP4") ||
        !th_shared("data/real/tracker_osp_samples/original/docs/HPU/clip_3_two-carts/two-carts.mp4"))
        SKIP("../shared/data is absent: the real clips are not here");
    for (size_t i = 0; i < sizeof several / sizeof *several; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/examples/real/%s/experiment.yaml", th_root(), several[i]);
        th_proc p;
        ASSERT(th_run_cli(&p, "check '%s'", path) == 0, "%s: %s", several[i], p.err);
        ASSERT_STR_CONTAINS(p.out, "ok");
    }
}

TEST(test_realdata_green_ball_tracked_and_scaled_by_its_size)
{
    /* `impactcv track` on the author's frames 62-116 (10 s of 1080p decoding: make
       accuracy). Asserted: the ball found (the marker size measured with the depth
       provisional: before, no look kept an 85 px ball) in at least 40 of the 55 frames
       (45 now: held in the hand 62-66 and lost near the first apex 80-84 by the 2D
       tracker; 0 before),
       and scale: size gives an outline 80-100 px across (the author's threshold gave
       85 px; the edge profiles of frame 97 give 89-90 px). Not asserted (not met):
       |g| within 2% (9.565, -2.5%, with the pitch from the poster's edges at the nominal
       focal length; docs/experiment.md, real clips); e per bounce: the test below. */
    if (!th_shared("data/real/ball_bounce_green_30fps/original/bounceAmeen.avi"))
        SKIP("../shared/data is absent: the real clip is not here");
    if (!th_accuracy())
        SKIP("10 s of 1080p decoding: make accuracy runs it");
    char path[1200], out[1200];
    snprintf(path, sizeof path, "%s/examples/real/green_ball/experiment.yaml", th_root());
    snprintf(out, sizeof out, "%s/green", th_tmpdir());
    th_proc p;
    ASSERT(th_run_cli(&p, "-q track '%s' -o '%s'", path, out) == 0, "track: %s", p.err);
    snprintf(path, sizeof path, "%s/tracks3d.csv", out);
    const char *csv = th_read_file(path);
    ASSERT_TRUE(csv != NULL);
    long n = 0;
    for (const char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        long f;
        double x;
        if (sscanf(l + 1, "%ld,%*[^,],%lf", &f, &x) == 2)
            n++;
    }
    snprintf(path, sizeof path, "%s/track_info.json", out);
    const char *ti = th_read_file(path);
    const char *d = ti ? strstr(ti, "\"diameter_px\":") : NULL;
    double dpx = d ? atof(d + strlen("\"diameter_px\":")) : 0;
    printf("    green ball: %ld positions in frames 62-116; the ball %.2f px across\n", n, dpx);
    ASSERT(n >= 40, "%ld positions of 55 frames", n);
    ASSERT(dpx > 80 && dpx < 100, "diameter %.2f px", dpx);
}

TEST(test_realdata_tracker_ball_toss_centres_within_1_5_px_of_the_hand_track)
{
    /* Tracker's BallToss (../shared/data/real/tracker_osp_samples): its video is inside
       the .trz (a deflated zip, which impactcv cannot read in place: no example in
       examples/real), so the test extracts it into its own folder. The ball's 2D centres
       against Tracker's hand track (derived/BallToss_pointmass_pixels.csv), Tracker's
       pixel centres at +0.5 taken out: within 1.5 px (the figure) in every
       frame where impactcv labels the ball, and that in at least 6 of the 11 hand-tracked
       frames (now 6-11: in 2-5 the ball is at the hand or on the metre stick, in 12 at
       the image's edge). Not asserted (not reachable): g within 3% with Tracker's scale,
       398.709 px/m: the hand track itself falls at 10.27 m/s^2 with it (+5%). */
    char t[1024], c[1024]; /* th_shared's answer lasts until its next call */
    const char *trz = th_shared("data/real/tracker_osp_samples/original/examples/BallToss.trz");
    snprintf(t, sizeof t, "%s", trz ? trz : "");
    const char *csvp = th_shared("data/real/tracker_osp_samples/derived/BallToss_pointmass_pixels.csv");
    snprintf(c, sizeof c, "%s", csvp ? csvp : "");
    if (!trz || !csvp)
        SKIP("../shared/data is absent: the real clip is not here");
    const char *dir = th_tmpdir();
    th_proc p;
    if (th_run_sh(&p, "command -v unzip >/dev/null") != 0)
        SKIP("unzip is not installed: the clip is inside a zip");
    ASSERT(th_run_sh(&p, "unzip -p '%s' videos/BallToss_new_BallToss.mp4 > '%s/BallToss.mp4'", t, dir) == 0,
           "unzip: %s", p.err);
    char path[1200], out[1200];
    snprintf(path, sizeof path, "%s/experiment.yaml", dir);
    ASSERT_EQ_INT(th_write_file(path, "name: Tracker ball toss\n"
                                      "cameras:\n  - {id: cam, video: BallToss.mp4}\n"
                                      "motion_plane:\n  scale: {points_px: [[0, 0], [398.709, 0]], distance: 1.0}\n"
                                      "surface:\n  line_px: [[0, 479], [639, 479]]\n"
                                      "body:\n  mass: 0.2\n  inertia: [[1e-5, 0, 0], [0, 1e-5, 0], [0, 0, 1e-5]]\n"
                                      "  markers: [[0, 0, 0]]\n  marker_diameter: 0.02\n"
                                      "  shape: {type: sphere, radius: 0.01}\n"),
                  0);
    snprintf(out, sizeof out, "%s/out", dir);
    ASSERT(th_run_cli(&p, "-q track '%s' -o '%s'", path, out) == 0, "track: %s", p.err);
    double hu[16], hv[16];
    for (int f = 0; f < 16; f++)
        hu[f] = hv[f] = -1;
    const char *hand = th_read_file(c);
    ASSERT_TRUE(hand != NULL);
    for (const char *l = strchr(hand, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        int f;
        double u, v;
        if (sscanf(l + 1, "ball,%*[^,],%d,%*[^,],%lf,%lf", &f, &u, &v) == 3 && f >= 0 && f < 16)
            hu[f] = u - 0.5, hv[f] = v - 0.5;
    }
    snprintf(path, sizeof path, "%s/tracks2d_cam.csv", out);
    const char *ours = th_read_file(path);
    ASSERT_TRUE(ours != NULL);
    int near = 0;
    double worst = 0;
    for (const char *l = strchr(ours, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        long f;
        int m;
        double u, v;
        if (sscanf(l + 1, "%ld,%*[^,],%d,%lf,%lf", &f, &m, &u, &v) != 4 || m != 0 || f < 0 || f >= 16 || hu[f] < 0)
            continue;
        double d = hypot(u - hu[f], v - hv[f]);
        if (d < 10) /* the ball (the others are the hand, the stick) */
            near++, worst = fmax(worst, d);
    }
    printf("    ball toss: %d of 11 hand-tracked frames with the ball labelled, worst %.2f px from the hand track\n",
           near, worst);
    ASSERT(near >= 6, "the ball labelled in %d frames", near);
    ASSERT(worst < 1.5, "a centre %.2f px from the hand track", worst);
}

/* A flight's height y(t) = c0 + c1 t + c2 t^2 (least squares, GSL; cov residual-scaled) */
typedef struct {
    double c[3], cov[3][3];
} parabola;

static int parabola_fit(const double *t, const double *y, int n, parabola *pb)
{
    gsl_matrix *X = gsl_matrix_alloc((size_t)n, 3), *cov = gsl_matrix_alloc(3, 3);
    gsl_vector *yv = gsl_vector_alloc((size_t)n), *c = gsl_vector_alloc(3);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc((size_t)n, 3);
    double chisq;
    for (int i = 0; i < n; i++) {
        gsl_matrix_set(X, (size_t)i, 0, 1);
        gsl_matrix_set(X, (size_t)i, 1, t[i]);
        gsl_matrix_set(X, (size_t)i, 2, t[i] * t[i]);
        gsl_vector_set(yv, (size_t)i, y[i]);
    }
    int rc = gsl_multifit_linear(X, yv, c, cov, &chisq, w);
    for (int i = 0; i < 3; i++) {
        pb->c[i] = gsl_vector_get(c, (size_t)i);
        for (int j = 0; j < 3; j++)
            pb->cov[i][j] = gsl_matrix_get(cov, (size_t)i, (size_t)j);
    }
    gsl_matrix_free(X), gsl_matrix_free(cov), gsl_vector_free(yv), gsl_vector_free(c);
    gsl_multifit_linear_free(w);
    return rc;
}

/* sqrt(h_after / h_before) at the bounce between flights a and b: both apexes' heights
   above the point where the two parabolas meet (the root nearest t_guess) */
static double height_ratio(const parabola *a, const parabola *b, double t_guess)
{
    double A = a->c[2] - b->c[2], B = a->c[1] - b->c[1], D = a->c[0] - b->c[0], disc = B * B - 4 * A * D;
    if (!(disc >= 0) || A == 0)
        return NAN;
    double r1 = (-B + sqrt(disc)) / (2 * A), r2 = (-B - sqrt(disc)) / (2 * A);
    double tm = fabs(r1 - t_guess) < fabs(r2 - t_guess) ? r1 : r2;
    double ym = a->c[0] + a->c[1] * tm + a->c[2] * tm * tm;
    double ha = a->c[0] - a->c[1] * a->c[1] / (4 * a->c[2]) - ym, hb = b->c[0] - b->c[1] * b->c[1] / (4 * b->c[2]) - ym;
    return sqrt(hb / ha);
}

TEST(test_realdata_green_ball_e_agrees_with_the_bounce_heights)
{
    /* Issue #19, measured: e of each of the first three bounces within 2 sigma of
       sqrt(h_after / h_before) of the same flights, and in 0.6-0.8. The heights are
       computed here, apart from the analysis: tracks3d.csv's height cut into flights at
       its local minima (each minimum and its two neighbours left out: the ball touches
       or squashes there), a parabola per flight with its own curvature, the two
       parabolas' meeting point at each bounce, each apex's height above it. The two
       sigmas are combined (both are measured). On the old e sigma (+- 0.0005-0.0008:
       each side extrapolated with the shared g as if exact, while the flights fall at
       9.19, 9.06 and 8.94 m/s^2 on their own) bounces 0-2 were 1.6, 0.25 and 0.4
       combined sigma off with the new sigma, and 5.1, 3.1 and 3.9 with the old.
       `impactcv run` on 1080p, 10 s: make accuracy, as the track test above. */
    if (!th_shared("data/real/ball_bounce_green_30fps/original/bounceAmeen.avi"))
        SKIP("../shared/data is absent: the real clip is not here");
    if (!th_accuracy())
        SKIP("10 s of 1080p decoding, analysis and report: make accuracy runs it");
    char path[1200], out[1200];
    snprintf(path, sizeof path, "%s/examples/real/green_ball/experiment.yaml", th_root());
    snprintf(out, sizeof out, "%s/green_e", th_tmpdir());
    th_proc p;
    ASSERT(th_run_cli(&p, "-q run '%s' -o '%s'", path, out) == 0, "run: %s", p.err);
    /* the heights: frame, t, x, y (m, y up from the surface) */
    enum { MAXF = 512 };
    static long fr[MAXF];
    static double t[MAXF], y[MAXF];
    int n = 0;
    snprintf(path, sizeof path, "%s/tracks3d.csv", out);
    const char *csv = th_read_file(path);
    ASSERT_TRUE(csv != NULL);
    for (const char *l = strchr(csv, '\n'); l && l[1] && n < MAXF; l = strchr(l + 1, '\n'))
        if (sscanf(l + 1, "%ld,%lf,%*[^,],%lf", &fr[n], &t[n], &y[n]) == 3)
            n++;
    ASSERT(n >= 30, "%d positions", n);
    /* local minima (consecutive frames), the last frame when it is lower than the one before */
    static unsigned char out_of_flight[MAXF];
    memset(out_of_flight, 0, sizeof out_of_flight);
    for (int i = 1; i < n; i++) {
        int prev_ok = fr[i - 1] == fr[i] - 1, next_ok = i + 1 < n && fr[i + 1] == fr[i] + 1;
        if (prev_ok && y[i] < y[i - 1] && (i + 1 == n || (next_ok && y[i] < y[i + 1])))
            for (int k = i - 1; k <= i + 1 && k < n; k++)
                out_of_flight[k] = 1;
    }
    parabola pb[16];
    double t0[16], t1[16];
    int nf = 0;
    for (int i = 0; i < n && nf < 16;) {
        if (out_of_flight[i]) {
            i++;
            continue;
        }
        int j = i;
        while (j + 1 < n && !out_of_flight[j + 1])
            j++;
        if (j - i + 1 >= 5) { /* 3 coefficients and 2 degrees of freedom */
            ASSERT_EQ_INT(parabola_fit(t + i, y + i, j - i + 1, &pb[nf]), 0);
            t0[nf] = t[i], t1[nf] = t[j];
            nf++;
        }
        i = j + 1;
    }
    ASSERT(nf >= 4, "%d flights of 5 frames or more", nf);
    snprintf(path, sizeof path, "%s/results.json", out);
    json_t *res = json_load_file(path, 0, NULL);
    json_t *imps = json_object_get(res, "impacts");
    ASSERT(json_array_size(imps) >= 3, "%zu impacts", json_array_size(imps));
    for (int k = 0; k < 3; k++) {
        json_t *im = json_array_get(imps, (size_t)k);
        double e = json_number_value(json_object_get(im, "e_kinematic"));
        double se = json_number_value(json_object_get(json_object_get(im, "uncertainty"), "e_kinematic"));
        double ti = json_number_value(json_object_get(im, "time_s"));
        int a = -1; /* the flight that ends before this impact */
        for (int f = 0; f + 1 < nf; f++)
            if (t1[f] < ti && t0[f + 1] > ti)
                a = f;
        ASSERT(a >= 0, "impact %d at %.4f s: no flight on each side", k, ti);
        double tg = 0.5 * (t1[a] + t0[a + 1]), eh = height_ratio(&pb[a], &pb[a + 1], tg);
        /* e_h's sigma: its gradient in both parabolas' coefficients through their covariances */
        double var = 0;
        for (int s = 0; s < 2; s++) {
            double gr[3];
            for (int i = 0; i < 3; i++) {
                parabola q[2] = {pb[a], pb[a + 1]};
                double h = 1e-7 * fmax(1e-3, fabs(q[s].c[i]));
                q[s].c[i] += h;
                gr[i] = (height_ratio(&q[0], &q[1], tg) - eh) / h;
            }
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    var += gr[i] * pb[a + s].cov[i][j] * gr[j];
        }
        double sc = sqrt(se * se + var);
        printf("    bounce %d: e %.4f +- %.4f, sqrt(h2/h1) %.4f +- %.4f: %.2f combined sigma apart\n", k, e, se, eh,
               sqrt(var), fabs(e - eh) / sc);
        ASSERT(e > 0.6 && e < 0.8, "bounce %d: e %.4f", k, e);
        ASSERT(fabs(e - eh) < 2 * sc, "bounce %d: e %.4f +- %.4f vs sqrt(h2/h1) %.4f +- %.4f", k, e, se, eh,
               sqrt(var));
    }
    json_decref(res);
}

/* The velocity at T of a polynomial of degree 1 or 2 fitted to x(t) (least squares) */
static double poly_velocity(const double *t, const double *x, int n, int deg, double T)
{
    int nc = deg + 1;
    gsl_matrix *X = gsl_matrix_alloc((size_t)n, (size_t)nc), *cov = gsl_matrix_alloc((size_t)nc, (size_t)nc);
    gsl_vector *xv = gsl_vector_alloc((size_t)n), *c = gsl_vector_alloc((size_t)nc);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc((size_t)n, (size_t)nc);
    double chisq;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < nc; j++)
            gsl_matrix_set(X, (size_t)i, (size_t)j, pow(t[i], j));
        gsl_vector_set(xv, (size_t)i, x[i]);
    }
    gsl_multifit_linear(X, xv, c, cov, &chisq, w);
    double v = gsl_vector_get(c, 1) + (deg == 2 ? 2 * gsl_vector_get(c, 2) * T : 0);
    gsl_matrix_free(X), gsl_matrix_free(cov), gsl_vector_free(xv), gsl_vector_free(c);
    gsl_multifit_linear_free(w);
    return v;
}

TEST(test_realdata_two_carts_velocities_within_3_percent_of_the_hand_track)
{
    /* Issue #22, measured: Tracker's two-carts, each cart's velocity within 3% of the
       hand track's. The same fit to both: cart 2 runs uniformly (a line over frames
       1-14), cart 1 speeds up steadily after its push (a parabola over frames 2-14, its
       velocity at their middle, 1.6 s). The hand track's pixels are Tracker's, in an image
       642 px wide, at Tracker's 613.5 px/m; ours are this file's (656 px wide) at the
       checkered metre's 626 px (examples/real/two_carts). Plain dot centroids through these
       fits gave +0.08% and -0.05%; the several-body track stage +0.12% and +0.15%. */
    char c[1024];
    const char *csvp = th_shared("data/real/tracker_osp_samples/derived/two-carts_pointmass_pixels.csv");
    snprintf(c, sizeof c, "%s", csvp ? csvp : "");
    if (!csvp || !th_shared("data/real/tracker_osp_samples/original/docs/HPU/clip_3_two-carts/two-carts.mp4"))
        SKIP("../shared/data is absent: the real clip is not here");
    char path[1200], out[1200];
    snprintf(path, sizeof path, "%s/examples/real/two_carts/experiment.yaml", th_root());
    snprintf(out, sizeof out, "%s/carts", th_tmpdir());
    th_proc p;
    ASSERT(th_run_cli(&p, "-q track '%s' -o '%s'", path, out) == 0, "track: %s", p.err);
    snprintf(path, sizeof path, "%s/tracks3d.csv", out);
    const char *o = th_read_file(path); /* th_read_file's buffer lasts until its next call */
    char *ours = o ? strdup(o) : NULL;
    const char *hand = th_read_file(c);
    ASSERT_TRUE(ours != NULL && hand != NULL);
    static const struct {
        const char *body, *track;
        int first, last, deg;
    } cart[2] = {{"cart1", "cart 1", 2, 14, 2}, {"cart2", "cart 2", 1, 14, 1}};
    const double pxm = 613.5, T = 1.6;
    for (int k = 0; k < 2; k++) {
        double ht[32], hx[32], ot[32], ox[32];
        int nh = 0, no = 0;
        for (const char *l = strchr(hand, '\n'); l && l[1] && nh < 32; l = strchr(l + 1, '\n')) {
            char name[32];
            int f;
            double t, x;
            if (sscanf(l + 1, "%31[^,],%*[^,],%d,%lf,%lf", name, &f, &t, &x) == 4 && !strcmp(name, cart[k].track) &&
                f >= cart[k].first && f <= cart[k].last)
                ht[nh] = t, hx[nh++] = x / pxm;
        }
        /* our column: tracks3d.csv holds the bodies' markers body after body, one each
           here, in the order of bodies: (cart1, cart2) */
        char want[16];
        snprintf(want, sizeof want, "m%d_x", k);
        int col = -1, i = 0;
        for (const char *h = ours; *h && *h != '\n'; i++) {
            size_t len = strcspn(h, ",\n");
            if (col < 0 && len == strlen(want) && !strncmp(h, want, len))
                col = i;
            h += len + (h[len] == ',');
        }
        ASSERT(col >= 2, "tracks3d.csv has no column %s", want);
        for (const char *l = strchr(ours, '\n'); l && l[1] && no < 32; l = strchr(l + 1, '\n')) {
            const char *f = l + 1;
            long fr = strtol(f, NULL, 10);
            double t = atof(strchr(f, ',') + 1);
            for (int j = 0; j < col && f; j++) {
                f = strpbrk(f, ",\n");
                f = f && *f == ',' ? f + 1 : NULL;
            }
            if (f && *f != ',' && *f != '\n' && fr >= cart[k].first && fr <= cart[k].last)
                ot[no] = t, ox[no++] = atof(f);
        }
        ASSERT(nh == cart[k].last - cart[k].first + 1, "%s: %d hand-tracked frames", cart[k].track, nh);
        double vh = poly_velocity(ht, hx, nh, cart[k].deg, T);
        double vo = no > cart[k].deg + 1 ? poly_velocity(ot, ox, no, cart[k].deg, T) : NAN;
        printf("    %s: v at %.1f s %.4f m/s over %d frames, hand track %.4f m/s: %+.2f%%\n", cart[k].body, T, vo, no,
               vh, 100 * (vo / vh - 1));
        ASSERT(no >= nh - 2, "%s: %d positions of %d frames", cart[k].body, no, nh);
        if (!(fabs(vo / vh - 1) < 0.03))
            free(ours);
        ASSERT(fabs(vo / vh - 1) < 0.03, "%s: %.4f m/s against the hand track's %.4f", cart[k].body, vo, vh);
    }
    free(ours);
}

/* o[a][b][i], or o[a][i] when b is NULL */
static double vec_at(json_t *o, const char *a, const char *b, int i)
{
    json_t *v = json_object_get(o, a);
    return json_number_value(json_array_get(b ? json_object_get(v, b) : v, (size_t)i));
}

TEST(test_realdata_pucks_momentum_before_and_after_within_2_sigma_or_a_stops)
{
    /* Issue #22, measured: the real pucks' total momentum before and after the collision
       within 2 sigma on each axis, or the difference explained. Where it holds it is
       asserted (bigCollision 0.3 and 0.6 sigma on x and y, Rotation 0.5 and 0.7,
       collision-pucks 0.6 and 0.4); in the two head-on clips the striking puck a nearly
       stops at the contact and the momentum after falls short (HeadOn 7.4 and 1.8 sigma,
       5.5%; rotationTransfer 3.3 and 3.6 sigma, 3.0%: what a keeps, (1 - e) / 2 of its
       speed, lasts a few frames before friction stops it; or the pucks' masses differ
       within the ICF's 5%; docs/realdata.md): there the explanation's premise is asserted,
       a's speed after under 10% of before (1.2% and 8.8%), and the shortfall under 10%.
       Plain threshold centroids computed apart agree on which clips conserve it. Each
       clip: one body-body impact and Newton's ratio in (0.3, 1). */
    static const struct {
        const char *clip;
        int conserved;
    } clip[] = {{"carom_headon", 0},   {"carom_big_collision", 1},     {"carom_rotation", 1},
                {"carom_rotation_transfer", 0}, {"collision_pucks", 1}};
    if (!th_shared("data/real/physlab_phystrack_240fps/original/SampleVideos/CaromPuck/HeadOn.MP4") ||
        !th_shared("data/real/tracker_osp_samples/original/docs/HPU/clip_6_collision-pucks/collision-pucks.mp4"))
        SKIP("../shared/data is absent: the real clips are not here");
    for (size_t c = 0; c < sizeof clip / sizeof *clip; c++) {
        char path[1200], out[1200];
        snprintf(path, sizeof path, "%s/examples/real/%s/experiment.yaml", th_root(), clip[c].clip);
        snprintf(out, sizeof out, "%s/%s", th_tmpdir(), clip[c].clip);
        th_proc p;
        ASSERT(th_run_cli(&p, "-q run '%s' -o '%s'", path, out) == 0, "%s: run: %s", clip[c].clip, p.err);
        snprintf(path, sizeof path, "%s/results.json", out);
        json_t *res = json_load_file(path, 0, NULL);
        ASSERT(res != NULL, "%s: results.json", clip[c].clip);
        json_t *imps = json_object_get(res, "impacts");
        int n = 0;
        json_t *im = NULL;
        for (size_t i = 0; i < json_array_size(imps); i++)
            if (!strcmp(json_string_value(json_object_get(json_array_get(imps, i), "kind")), "body_body"))
                im = json_array_get(imps, i), n++;
        if (n != 1)
            json_decref(res);
        ASSERT(n == 1, "%s: %d body-body impacts", clip[c].clip, n);
        double e = json_number_value(json_object_get(json_object_get(im, "e_newton"), "value"));
        double pull[2], short_by;
        for (int a = 0; a < 2; a++)
            pull[a] = vec_at(im, "impulse_mismatch", "value", a) / vec_at(im, "impulse_mismatch", "sd", a);
        json_t *states = json_object_get(im, "states");
        char first[64]; /* the striking puck: the first body, the leftmost at first */
        snprintf(first, sizeof first, "%s", json_string_value(json_array_get(json_object_get(im, "bodies"), 0)));
        json_t *sa = json_object_get(states, first);
        double vpre = hypot(vec_at(sa, "pre", "v", 0), vec_at(sa, "pre", "v", 1));
        double vpost = hypot(vec_at(sa, "post", "v", 0), vec_at(sa, "post", "v", 1));
        json_t *mom = json_object_get(im, "momentum");
        double pre[2], post[2];
        for (int a = 0; a < 2; a++) /* the table's plane: x, y */
            pre[a] = vec_at(json_object_get(mom, "pre"), "value", NULL, a),
            post[a] = vec_at(json_object_get(mom, "post"), "value", NULL, a);
        short_by = 1 - hypot(post[0], post[1]) / hypot(pre[0], pre[1]);
        printf("    %s: e %.3f, momentum after - before %.1f and %.1f sigma (x, y), %.1f%% short; "
               "%s %.3f -> %.3f m/s\n",
               clip[c].clip, e, pull[0], pull[1], 100 * short_by, first, vpre, vpost);
        json_decref(res);
        ASSERT(e > 0.3 && e < 1, "%s: e %.3f", clip[c].clip, e);
        if (clip[c].conserved) {
            ASSERT(fabs(pull[0]) < 2 && fabs(pull[1]) < 2, "%s: momentum after - before %.1f, %.1f sigma",
                   clip[c].clip, pull[0], pull[1]);
        } else {
            ASSERT(vpost < 0.1 * vpre, "%s: %s at %.3f m/s after, %.3f before", clip[c].clip, first, vpost, vpre);
            ASSERT(short_by > 0 && short_by < 0.1, "%s: momentum %.1f%% short", clip[c].clip, 100 * short_by);
        }
    }
}
