/* test_pipeline_parts.c: the pieces of `impactcv track` on their own: interpolation of a
 * camera's track inside one flight segment (never across a gap or an impact),
 * extrapolation by less than a frame past a clip's ends, the
 * body-template identity (a symmetric rod, shuffled points, a stray point), and the
 * sub-frame offset recovered from drawn projections of a falling point set. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "track/track_3d.h"

enum { NFR = 40 };

/* One track (id 0) moving along u at 4 px/frame whose velocity turns to -4 px/frame at
 * frame 20.5 (an impact between frames 20 and 21), frame 30 missing. */
static void make_track(track_sync_point *pts, long *n, long *start, double *t, double fps)
{
    long k = 0;
    for (long f = 0; f < NFR; f++) {
        start[f] = k;
        t[f] = f / fps;
        if (f == 30)
            continue;
        double u = f <= 20 ? 100 + 4.0 * f : 182 - 4.0 * (f - 20.5);
        pts[k++] = (track_sync_point){f, 0, u, 50 + 0.1 * f * f, 0.05, 0, 0};
    }
    start[NFR] = k;
    *n = k;
}

TEST(test_interpolation_stays_inside_one_flight_segment)
{
    track_sync_point pts[NFR];
    long n, start[NFR + 1];
    double t[NFR], fps = 240;
    make_track(pts, &n, start, t, fps);
    /* px/frame^2: the pipeline's kink limit */
    track_sync_mark_breaks(pts, n, start, NFR, 2.0);
    track_sync_camera c = {.pts = pts, .n_pts = n, .frame_start = start, .frames = NFR, .cam_time_s = t, .fps = fps};
    double u, v, s;
    int interp;
    /* inside free flight: linear between frames 5 and 6 (u exact: linear in time) */
    ASSERT_EQ_INT(track_sync_interpolate(&c, 0, 5.25 / fps, &u, &v, &s, &interp), 0);
    ASSERT_EQ_INT(interp, 1);
    ASSERT_NEAR(u, 121, 1e-9); /* exact: u is linear in time there */
    /* v = 50 + 0.1 f^2 is not linear: the chord's error is 0.1 * 0.25 * 0.75 at w = 0.25 */
    ASSERT_NEAR(v, 50 + 0.1 * 5.25 * 5.25 + 0.1 * 0.25 * 0.75, 1e-9);
    ASSERT(s < 0.05 && s > 0.03, "interpolated sigma %g", s); /* sqrt(0.75^2 + 0.25^2) * 0.05 */
    /* on a frame: the point itself, not flagged */
    ASSERT_EQ_INT(track_sync_interpolate(&c, 0, 7.0 / fps, &u, &v, &s, &interp), 0);
    ASSERT_EQ_INT(interp, 0);
    ASSERT_NEAR(u, 128, 1e-12);
    /* across the impact between frames 20 and 21: refused */
    ASSERT_EQ_INT(track_sync_interpolate(&c, 0, 20.5 / fps, &u, &v, &s, &interp), -1);
    /* across the missing frame 30: refused on both sides */
    ASSERT_EQ_INT(track_sync_interpolate(&c, 0, 29.5 / fps, &u, &v, &s, &interp), -1);
    ASSERT_EQ_INT(track_sync_interpolate(&c, 0, 30.5 / fps, &u, &v, &s, &interp), -1);
    /* after the impact, inside the new segment: accepted again */
    ASSERT_EQ_INT(track_sync_interpolate(&c, 0, 24.5 / fps, &u, &v, &s, &interp), 0);
    /* outside the clip, or another identity: refused */
    ASSERT_EQ_INT(track_sync_interpolate(&c, 0, -0.5 / fps, &u, &v, &s, &interp), -1);
    ASSERT_EQ_INT(track_sync_interpolate(&c, 1, 5.5 / fps, &u, &v, &s, &interp), -1);
    /* coasted points are not positions */
    pts[start[6]].flags = TRACK_FLAG_COASTED;
    ASSERT_EQ_INT(track_sync_interpolate(&c, 0, 5.5 / fps, &u, &v, &s, &interp), -1);
}

TEST(test_extrapolation_reaches_less_than_a_frame_past_the_clip_inside_one_flight_phase)
{
    track_sync_point pts[NFR];
    long n, start[NFR + 1];
    double t[NFR], fps = 240;
    make_track(pts, &n, start, t, fps);
    track_sync_mark_breaks(pts, n, start, NFR, 2.0); /* px/frame^2: the pipeline's kink limit */
    track_sync_camera c = {.pts = pts, .n_pts = n, .frame_start = start, .frames = NFR, .cam_time_s = t, .fps = fps};
    double u, v, s;
    /* 0.37 frame before frame 0 (a camera that started 0.37 frame late): w = -0.37 on the
       chord from frame 0 to 1; u is linear (exact), v = 50 + 0.1 f^2 misses the chord by
       0.1 w (w - 1) */
    ASSERT_EQ_INT(track_sync_extrapolate(&c, 0, -0.37 / fps, 1.0, &u, &v, &s), 0);
    ASSERT_NEAR(u, 100 - 4 * 0.37, 1e-9);
    ASSERT_NEAR(v, 50 + 0.1 * 0.37 * 0.37 - 0.1 * 0.37 * 1.37, 1e-9);
    /* sigma: (1 - w)^2 s0^2 + w^2 s1^2 and the chord term w (1 - w) a / 2, a = 0.2 px/frame^2
       (v's second difference): the term equals the chord's true miss here */
    double w = -0.37, want = sqrt(1.37 * 1.37 * 0.0025 + w * w * 0.0025 + pow(0.5 * w * (w - 1) * 0.2, 2));
    ASSERT_NEAR(s, want, 1e-9);
    ASSERT(s > 0.05, "an extrapolated sigma %g must exceed a measured one (0.05)", s);
    /* past the last frame (39), on the chord 38 -> 39 at w = 1.4 */
    ASSERT_EQ_INT(track_sync_extrapolate(&c, 0, 39.4 / fps, 1.0, &u, &v, &s), 0);
    ASSERT_NEAR(u, 182 - 4 * (39.4 - 20.5), 1e-9);
    ASSERT_NEAR(v, 50 + 0.1 * 39.4 * 39.4 - 0.1 * 1.4 * 0.4, 1e-9);
    /* a frame or more away, inside the clip (interpolation's business), max_frames 0: no */
    ASSERT_EQ_INT(track_sync_extrapolate(&c, 0, -1.2 / fps, 1.0, &u, &v, &s), -1);
    ASSERT_EQ_INT(track_sync_extrapolate(&c, 0, 5.5 / fps, 1.0, &u, &v, &s), -1);
    ASSERT_EQ_INT(track_sync_extrapolate(&c, 0, -0.37 / fps, 0.0, &u, &v, &s), -1);
    /* an impact between frames 1 and 2: the first two frames are not one flight phase
       with the third, and nothing says the fraction before frame 0 is: refused */
    for (long i = 0; i < n; i++)
        if (pts[i].frame >= 2)
            pts[i].u = 106 - 4.0 * (pts[i].frame - 1.5); /* +4 px/frame turns to -4 at 1.5 */
    track_sync_mark_breaks(pts, n, start, NFR, 2.0);
    ASSERT_EQ_INT(track_sync_extrapolate(&c, 0, -0.37 / fps, 1.0, &u, &v, &s), -1);
    /* a coasted end frame is not a position */
    ASSERT_EQ_INT(track_sync_extrapolate(&c, 0, 39.4 / fps, 1.0, &u, &v, &s), 0);
    pts[start[39]].flags = TRACK_FLAG_COASTED;
    ASSERT_EQ_INT(track_sync_extrapolate(&c, 0, 39.4 / fps, 1.0, &u, &v, &s), -1);
}

TEST(test_identity_labels_a_symmetric_rod_by_continuity_whatever_the_point_order)
{
    icv_vec3 M[3] = {{0, 0.127, 0}, {0, 0, 0}, {0, -0.127, 0}};
    /* m: tolerances of the pipeline's defaults */
    track_identity *id = track_identity_alloc(3, M, 0.003, 0.03, NULL);
    ASSERT(id != NULL, "alloc");
    unsigned seed = 3;
    int wrong = 0;
    for (int f = 0; f < 60; f++) {
        double t = f / 240.0, ang = 0.3 + 0.04 * f; /* rad: the rod turns 2.4 rad, ends swap heights */
        icv_vec3 c = {0.01 * f, 0.3 - 0.002 * f * f * 0.1, 0};
        icv_vec3 P[4];
        int truth[4], n = 3;
        for (int k = 0; k < 3; k++)
            P[k] = icv_v3_add(c, icv_v3(-sin(ang) * M[k].y, cos(ang) * M[k].y, 0));
        truth[0] = 0, truth[1] = 1, truth[2] = 2;
        if (f % 7 == 3) { /* a stray point far from the template (a glint) */
            P[3] = icv_v3(0.5, 0.5, 0.5);
            truth[3] = -1;
            n = 4;
        }
        /* shuffle: 2D track identities mean nothing to the template */
        for (int i = n - 1; i > 0; i--) {
            seed = seed * 1103515245u + 12345u;
            int j = (int)((seed >> 16) % (unsigned)(i + 1));
            icv_vec3 tp = P[i];
            P[i] = P[j];
            P[j] = tp;
            int tt = truth[i];
            truth[i] = truth[j];
            truth[j] = tt;
        }
        int lab[4];
        track_identity_label(id, P, n, t, lab);
        for (int i = 0; i < n; i++)
            wrong += lab[i] != truth[i];
    }
    track_identity_free(id);
    /* at first sight (0.3 rad from upright) marker 0 is the higher end; continuity keeps
       it through the half turn, the glint is never labelled */
    ASSERT_EQ_INT(wrong, 0);
}

TEST(test_identity_leaves_an_ambiguous_pair_unlabelled_at_first_sight)
{
    icv_vec3 M[3] = {{0, 0.127, 0}, {0, 0, 0}, {0, -0.127, 0}};
    track_identity *id = track_identity_alloc(3, M, 0.003, 0.03, NULL);
    ASSERT(id != NULL, "alloc");
    icv_vec3 P[2] = {{0, 0.3, 0}, {0, 0.173, 0}}; /* m0-m1 or m1-m2: nothing tells */
    int lab[2];
    ASSERT_EQ_INT(track_identity_label(id, P, 2, 0, lab), 0);
    ASSERT_EQ_INT(lab[0], -1);
    ASSERT_EQ_INT(lab[1], -1);
    /* the whole rod once: then the pair is told apart by continuity */
    icv_vec3 Q[3] = {{0, 0.3, 0}, {0, 0.173, 0}, {0, 0.046, 0}};
    int lq[3];
    ASSERT_EQ_INT(track_identity_label(id, Q, 3, 1 / 240.0, lq), 3);
    ASSERT_EQ_INT(lq[0], 0);
    ASSERT_EQ_INT(track_identity_label(id, P, 2, 2 / 240.0, lab), 2);
    ASSERT_EQ_INT(lab[0], 0);
    ASSERT_EQ_INT(lab[1], 1);
    track_identity_free(id);
}

/* Two pinhole cameras 0.5 m apart looking at a falling, drifting point cloud; camera b
 * starts 0.37 frame late. Its frames are drawn exactly (no noise), the offset is
 * searched around 0 (a flash a frame off would be -1..1). */
static void project_pt(const track_view *v, const double X[3], double *u, double *w)
{
    double x[3];
    for (int i = 0; i < 3; i++)
        x[i] = v->R[i][0] * X[0] + v->R[i][1] * X[1] + v->R[i][2] * X[2] + v->t[i];
    *u = v->K[0][0] * x[0] / x[2] + v->K[0][2];
    *w = v->K[1][1] * x[1] / x[2] + v->K[1][2];
}

static void point_at(int k, double t, double X[3])
{
    /* m: three markers 0.1 m apart, falling from rest under gravity with a sideways drift */
    X[0] = -0.1 + 0.1 * k + 0.3 * t;
    X[1] = -0.2 + 4.9 * t * t;
    X[2] = 1.0 + 0.05 * k;
}

/* camera a at the origin looking along z; camera b at C = (0.5, 0, 0), turned about y
 * to look at (0, 0, 1.05): x_cam = R (X - C); both 1000 px focal, 1280x720 */
static void two_views(track_view *va, track_view *vb)
{
    memset(va, 0, sizeof *va);
    va->K[0][0] = va->K[1][1] = 1000, va->K[0][2] = 640, va->K[1][2] = 360, va->K[2][2] = 1;
    *vb = *va;
    for (int i = 0; i < 3; i++)
        va->R[i][i] = 1;
    double a = atan2(-0.5, 1.05), C[3] = {0.5, 0, 0};
    vb->R[0][0] = cos(a), vb->R[0][2] = -sin(a), vb->R[1][1] = 1, vb->R[2][0] = sin(a), vb->R[2][2] = cos(a);
    for (int i = 0; i < 3; i++)
        vb->t[i] = -(vb->R[i][0] * C[0] + vb->R[i][1] * C[1] + vb->R[i][2] * C[2]);
}

TEST(test_subframe_offset_recovered_from_the_motion_within_0_01_frame)
{
    enum { F = 60, NK = 3 };
    double fps = 240, delay = 0.37; /* frames: camera b's frame k is at (k + delay) / fps */
    track_view va, vb;
    two_views(&va, &vb);
    track_sync_point pa[F * NK], pb[F * NK];
    long sa[F + 1], sb[F + 1];
    double ta[F], tb[F];
    for (int f = 0; f < F; f++) {
        sa[f] = sb[f] = f * NK;
        ta[f] = tb[f] = f / fps; /* each camera's own clock */
        for (int k = 0; k < NK; k++) {
            double X[3], u, w;
            point_at(k, f / fps, X);
            project_pt(&va, X, &u, &w);
            pa[f * NK + k] = (track_sync_point){f, k, u, w, 0.05, 0, 0};
            point_at(k, (f + delay) / fps, X);
            project_pt(&vb, X, &u, &w);
            pb[f * NK + k] = (track_sync_point){f, 10 + k, u, w, 0.05, 0, 0};
        }
    }
    sa[F] = sb[F] = F * NK;
    track_sync_camera ca = {pa, F * NK, sa, F, ta, fps, va}, cb = {pb, F * NK, sb, F, tb, fps, vb};
    double off, sig, rms;
    icv_err err;
    ASSERT(track_subframe_offset(&ca, &cb, 0.0, 1.5, 0, 6.0, &off, &sig, &rms, &err) == 0, "%s", err.msg);
    /* capture's convention: camera b sees experiment time t at its frame t*fps - delay.
       0.01 frame: noiseless drawing, the linear interpolation's error (a/8 per frame^2
       of acceleration, a few hundredths of a px) is the only error */
    ASSERT_NEAR(off, -delay, 0.01);
    ASSERT(rms < 0.05, "epipolar RMS %g px at the optimum", rms);
}

/* The same scene with five markers, one of them drawn in camera b 1.5 frames later than
 * the others (a slow error of its own, as a calibration's in one part of the image or
 * a sphere's centroid off its centre gives a pair): that pair's own minimum is 1.5
 * frames off, and the offset follows the four that agree with each other and with the
 * flash's whole frame (0 +- 0.41), not the average. (With three markers, one wrong
 * pair widens the pairs' systematic spread until the flash outweighs the other two.) */
TEST(test_subframe_offset_follows_the_pairs_that_agree_not_one_with_its_own_error)
{
    enum { F = 60, NK = 5 };
    double fps = 240, delay = 0.37, own = 1.5;
    track_view va, vb;
    two_views(&va, &vb);
    track_sync_point pa[F * NK], pb[F * NK], pa2[F], pb2[F];
    long sa[F + 1], sb[F + 1], sa2[F + 1];
    double ta[F], tb[F];
    for (int f = 0; f < F; f++) {
        sa[f] = sb[f] = f * NK;
        sa2[f] = f;
        ta[f] = tb[f] = f / fps;
        for (int k = 0; k < NK; k++) {
            double X[3], u, w;
            point_at(k, f / fps, X);
            project_pt(&va, X, &u, &w);
            pa[f * NK + k] = (track_sync_point){f, k, u, w, 0.05, 0, 0};
            if (k == 2)
                pa2[f] = pa[f * NK + k];
            point_at(k, (f + delay + (k == 2 ? own : 0)) / fps, X);
            project_pt(&vb, X, &u, &w);
            pb[f * NK + k] = (track_sync_point){f, 10 + k, u, w, 0.05, 0, 0};
            if (k == 2)
                pb2[f] = pb[f * NK + k];
        }
    }
    sa[F] = sb[F] = F * NK;
    sa2[F] = F;
    track_sync_camera ca = {pa, F * NK, sa, F, ta, fps, va}, cb = {pb, F * NK, sb, F, tb, fps, vb};
    track_sync_camera ca2 = {pa2, F, sa2, F, ta, fps, va}, cb2 = {pb2, F, sa2, F, tb, fps, vb};
    double off, sig, rms;
    icv_err err;
    /* the pair with its own error, alone and without the prior: 1.5 frames further */
    ASSERT(track_subframe_offset(&ca2, &cb2, 0.0, 5.0, 0, 6.0, &off, &sig, &rms, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(off, -delay - own, 0.01);
    /* all three with the flash's prior: the two that agree (0.01: noiseless drawing, as
       above); the disagreement shows in the sigma, at least the prior's share */
    ASSERT(track_subframe_offset(&ca, &cb, 0.0, 5.0, 0.41, 6.0, &off, &sig, &rms, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(off, -delay, 0.01);
    ASSERT(sig > 0.1 && sig <= 0.41, "sigma %g frame", sig);
}

/* The template check of one pair: a marker missing in half the frames has a glint or
 * the board's corner labelled in its place; the pair's own distances still gather at
 * the template's, a wrong template's do not. */
TEST(test_template_pair_fits_through_points_labelled_in_a_missing_markers_place)
{
    double D = 0.031, tol = 0.003 + 0.03 * D, d[20], med;
    unsigned seed = 7;
    for (int trial = 0; trial < 3; trial++) {
        for (int i = 0; i < 20; i++) {
            seed = seed * 1103515245u + 12345u;
            double r = (double)((seed >> 8) % 1000) / 1000.0;
            /* 10 frames: the pair itself (+-0.5 mm); 10: a point 40-140 mm away */
            d[i] = i < 10 ? D + 0.001 * (r - 0.5) : 0.04 + 0.1 * r;
        }
        ASSERT_EQ_INT(track_template_pair(d, 20, D, tol, &med), 1);
        ASSERT(fabs(med - D) <= 0.0005, "trial %d: distance %.4f m, template %.4f m", trial, med, D);
    }
    /* the same frames against a template 25% longer: nothing gathers at it */
    for (int i = 0; i < 20; i++)
        d[i] = i < 10 ? 0.8 * 0.0388 : 0.04 + 0.005 * i;
    ASSERT_EQ_INT(track_template_pair(d, 20, 0.0388, 0.003 + 0.03 * 0.0388, &med), 0);
    /* a sixth near D by chance (clutter alone) is not a fit; its median is reported */
    for (int i = 0; i < 18; i++)
        d[i] = i < 3 ? D : 0.1 + 0.01 * i;
    ASSERT_EQ_INT(track_template_pair(d, 18, D, tol, &med), 0);
    ASSERT(med > 0.15, "median %.4f m", med);
    /* nothing measured */
    ASSERT_EQ_INT(track_template_pair(d, 0, D, tol, &med), 0);
    ASSERT(isnan(med), "median of nothing %.4f", med);
}

/* Points of a 3-marker body falling and turning about y (speed: 1 the scene's, 0.1 ten
 * times slower), m2 seen in frames [lo, hi) only, and a still glint at g: S a frame. */
static void hidden_marker_frames(const icv_vec3 *M, double speed, long lo, long hi, icv_vec3 g, icv_vec3 *X, int *n,
                                 long F, int S)
{
    unsigned seed = 3;
    for (long f = 0; f < F; f++) {
        double a = 0.03 * speed * (double)f, c = cos(a), s = sin(a);
        icv_vec3 p = {0.05 + 0.002 * speed * (double)f, 0.3 - 0.003 * speed * (double)f, 0.01};
        n[f] = 0;
        for (int j = 0; j < 3; j++) {
            if (j == 2 && !(f >= lo && f < hi))
                continue;
            seed = seed * 1103515245u + 12345u;
            double e = 0.0004 * ((double)((seed >> 8) % 1000) / 1000.0 - 0.5);
            X[f * S + n[f]++] = icv_v3(p.x + c * M[j].x + s * M[j].z + e, p.y + M[j].y, p.z - s * M[j].x + c * M[j].z);
        }
        X[f * S + n[f]++] = g;
    }
}

/* A marker hidden most of the clip (a sticker on a bar's side face, random scenes 1012
 * and 1031; a ball on a post over a light wall, 1037) has a still glint labelled in its
 * place by the distances-alone fit, so the pairs it enters scatter. Where it is seen
 * with the others (ten frames) the three fit together: the body is posed there, and
 * those frames are the pairs' distances (the check failed on the glint's before). Seen
 * in two frames only, there is no such evidence: the pairs are judged on every frame,
 * fail and are told scattered. A template 25% too long (or a wrong scale) gives steady
 * distances that travel with the body and no frame posed. */
TEST(test_template_check_poses_a_marker_seen_in_a_few_frames_and_tells_a_wrong_template)
{
    enum { F = 100, S = 4 };
    const icv_vec3 M[3] = {{0, 0, 0}, {0.1, 0, 0}, {0.03, 0.05, 0}};
    icv_vec3 X[F * S];
    int n[F];
    unsigned char posed[F];
    hidden_marker_frames(M, 1.0, 40, 50, icv_v3(0.21, 0.02, 0.08), X, n, F, S);
    icv_err err;
    track_template_result r[3];
    track_identity *id = track_identity_alloc(3, M, 0.003, 0.03, &err);
    ASSERT(id != NULL, "%s", err.msg);
    int bad = track_template_check(id, X, NULL, n, F, S, r, posed, &err);
    for (int q = 0; q < 3; q++)
        printf("    m2 in 10 frames: m%d-m%d fits %d, %ld frames (%ld posed), %.4f m vs %.4f m\n", r[q].j, r[q].k,
               r[q].fits, r[q].n, r[q].n_gated, r[q].measured, r[q].D);
    ASSERT_EQ_INT(bad, 0);
    /* posed exactly where m2 is seen; every pair within 1 mm of the template there (the
       points' noise is 0.2 mm) */
    for (long f = 0; f < F; f++)
        ASSERT(posed[f] == (f >= 40 && f < 50), "frame %ld posed %d", f, posed[f]);
    for (int q = 0; q < 3; q++) {
        ASSERT(r[q].n_gated == 10, "m%d-m%d posed in %ld frames", r[q].j, r[q].k, r[q].n_gated);
        ASSERT(fabs(r[q].measured - r[q].D) < 0.001, "m%d-m%d: %.4f m vs %.4f m", r[q].j, r[q].k, r[q].measured,
               r[q].D);
    }
    /* m2 in two frames: no three posed together often enough to tell */
    hidden_marker_frames(M, 1.0, 40, 42, icv_v3(0.21, 0.02, 0.08), X, n, F, S);
    bad = track_template_check(id, X, NULL, n, F, S, r, posed, &err);
    track_identity_free(id);
    int scattered = 0;
    for (int q = 0; q < 3; q++) {
        printf("    m2 in 2 frames: m%d-m%d fits %d, %ld frames, %.4f m vs %.4f m, steady %.2f, travel %.3f m\n",
               r[q].j, r[q].k, r[q].fits, r[q].n, r[q].measured, r[q].D, r[q].steady, r[q].travel);
        scattered += !r[q].fits && (r[q].steady < 0.5 || r[q].travel < 3 * r[q].tol);
    }
    ASSERT(bad >= 1 && scattered >= 1, "%d pairs rejected, %d of them scattered", bad, scattered);
    /* every marker seen, the template 25% too long: steady, travelling, not fitting */
    icv_vec3 W[3];
    for (int j = 0; j < 3; j++)
        W[j] = icv_v3_scale(M[j], 1.25);
    hidden_marker_frames(M, 1.0, 40, 50, icv_v3(0.21, 0.02, 0.08), X, n, F, S);
    for (long f = 0; f < F; f++) /* the glint's slot: m2 where frames 40-49 have it */
        if (n[f] == 3) {
            double a = 0.03 * (double)f, c = cos(a), s = sin(a);
            X[f * S + 2] = icv_v3(0.05 + 0.002 * (double)f + c * M[2].x + s * M[2].z, 0.3 - 0.003 * (double)f + M[2].y,
                                  0.01 - s * M[2].x + c * M[2].z);
        }
    id = track_identity_alloc(3, W, 0.003, 0.03, &err);
    ASSERT(id != NULL, "%s", err.msg);
    bad = track_template_check(id, X, NULL, n, F, S, r, posed, &err);
    track_identity_free(id);
    for (int q = 0; q < 3; q++)
        printf("    25%% too long: m%d-m%d fits %d, %.4f m vs %.4f m, steady %.2f, travel %.3f m\n", r[q].j, r[q].k,
               r[q].fits, r[q].measured, r[q].D, r[q].steady, r[q].travel);
    ASSERT_EQ_INT(bad, 3);
    for (long f = 0; f < F; f++)
        ASSERT(!posed[f], "frame %ld posed against a template 25%% too long", f);
    for (int q = 0; q < 3; q++)
        ASSERT(r[q].steady > 0.95 && r[q].travel > 3 * r[q].tol, "m%d-m%d: steady %.2f travel %.3f m", r[q].j,
               r[q].k, r[q].steady, r[q].travel);
}

/* Points of a 4-marker body falling and turning about y, m0 seen in frames 40-49 only
 * (m1-m3 in every frame), a still glint at g and a second one moving slowly: S a frame.
 * The template's marker positions M; the points are made from P (M, or another body). */
static void three_seen_frames(const icv_vec3 *P, icv_vec3 g, icv_vec3 *X, int *n, long F, int S)
{
    unsigned seed = 5;
    for (long f = 0; f < F; f++) {
        double a = 0.03 * (double)f, c = cos(a), s = sin(a);
        icv_vec3 p = {0.05 + 0.002 * (double)f, 0.3 - 0.003 * (double)f, 0.01};
        n[f] = 0;
        for (int j = 0; j < 4; j++) {
            if (j == 0 && !(f >= 40 && f < 50))
                continue;
            seed = seed * 1103515245u + 12345u;
            double e = 0.0004 * ((double)((seed >> 8) % 1000) / 1000.0 - 0.5);
            X[f * S + n[f]++] = icv_v3(p.x + c * P[j].x + s * P[j].z + e, p.y + P[j].y, p.z - s * P[j].x + c * P[j].z);
        }
        X[f * S + n[f]++] = g;
        X[f * S + n[f]++] = icv_v3(-0.15 + 0.0005 * (double)f, 0.05, 0.12);
    }
}

/* A marker missing from most frames while the other three are seen (random scene 1193:
 * a ball on a post the detector found in 11 of 308 frames, m1-m3 in 150-300, the board's
 * squares triangulated beside them): the distances-alone fit put clutter in m0's place
 * in every frame without it, and the check failed on m0's pairs. Three markers whose
 * every pair fits are the body: their frames are labelled so, and m0's pairs measured
 * where it is seen. A template 25% too long still fails every pair (no three fit). */
TEST(test_template_check_passes_three_markers_fitting_while_the_fourth_is_mostly_missing)
{
    enum { F = 100, S = 6 };
    const icv_vec3 M[4] = {{0, 0, 0}, {0.1, 0, 0}, {0.03, 0.05, 0}, {0.06, 0.12, 0.01}};
    icv_vec3 X[F * S];
    int n[F];
    three_seen_frames(M, icv_v3(0.21, 0.02, 0.08), X, n, F, S);
    icv_err err;
    track_template_result r[6];
    track_identity *id = track_identity_alloc(4, M, 0.003, 0.03, &err);
    ASSERT(id != NULL, "%s", err.msg);
    int bad = track_template_check(id, X, NULL, n, F, S, r, NULL, &err);
    track_identity_free(id);
    for (int q = 0; q < 6; q++)
        printf("    m0 seen in 10 of 100: m%d-m%d fits %d, %ld frames, %.4f m vs %.4f m\n", r[q].j, r[q].k, r[q].fits,
               r[q].n, r[q].measured, r[q].D);
    ASSERT_EQ_INT(bad, 0);
    /* every pair measured within its tolerance (3 mm + 3%: the check's own), m0's in the
       ten frames it is seen */
    for (int q = 0; q < 6; q++) {
        ASSERT(fabs(r[q].measured - r[q].D) <= r[q].tol, "m%d-m%d: %.4f m vs %.4f m", r[q].j, r[q].k, r[q].measured,
               r[q].D);
        if (r[q].j == 0)
            ASSERT(r[q].n == 10, "m0-m%d measured in %ld frames (10 show m0)", r[q].k, r[q].n);
    }
    /* the same points against a template 25% too long: no three fit, so the ungated fit
       as before, and the check fails (4 of 6 pairs: the fit can place the two clutter
       points where two of the scaled distances hold) */
    icv_vec3 W[4];
    for (int j = 0; j < 4; j++)
        W[j] = icv_v3_scale(M[j], 1.25);
    id = track_identity_alloc(4, W, 0.003, 0.03, &err);
    ASSERT(id != NULL, "%s", err.msg);
    bad = track_template_check(id, X, NULL, n, F, S, r, NULL, &err);
    track_identity_free(id);
    printf("    25%% too long: %d of 6 pairs rejected\n", bad);
    ASSERT(bad >= 4, "%d of 6 pairs rejected against a template 25%% too long", bad);
}

/* The check's pairs as tuning scenes refused as a rigid misfit gave them (main at
 * 8e793b5, their first look). 1187 and 1146: balls on posts that do not show against
 * what is behind them, the posts' feet detected in their place (each 2D point 8-26 px
 * from its ball in truth.json's markers_2d); 1174: a light rod's pieces between dark
 * bands. Each has a pair that fits beside pairs 25-45% short: no one scale makes them
 * (the median ratio puts the short pairs 7-13 mm off, tolerances 3.9-6.4 mm). 1104
 * (30 mm balls partly hidden by their black box, the visible centroid 2.5 px off the
 * centre) measures every pair 1.00-1.06 times the template: one scale within
 * tolerance, as a wrong calibration scale would. The same 1174 pairs with every
 * measured distance 0.8 times the template: one scale. */
TEST(test_template_one_scale_tells_a_scale_from_other_points_of_the_body)
{
    /* j, k, D, tol, measured, n, n_gated, steady, travel, fits */
    const track_template_result s1187[3] = {
        {0, 1, 0.0560, 0.0047, 0.0408, 214, 0, 1.00, 0.026, 0},
        {0, 2, 0.0314, 0.0039, 0.0314, 214, 0, 1.00, 0.026, 1},
        {1, 2, 0.0615, 0.0048, 0.0480, 214, 0, 1.00, 0.026, 0},
    };
    const track_template_result s1146[3] = {
        {0, 1, 0.1142, 0.0064, 0.0640, 285, 0, 0.70, 0.202, 0},
        {0, 2, 0.1173, 0.0065, 0.1232, 284, 0, 0.98, 0.145, 1},
        {1, 2, 0.1208, 0.0066, 0.0825, 284, 0, 0.95, 0.134, 0},
    };
    track_template_result s1174[3] = {
        {0, 1, 0.1125, 0.0064, 0.0847, 86, 0, 1.00, 0.318, 0},
        {0, 2, 0.2343, 0.0100, 0.2032, 86, 0, 0.88, 0.222, 0},
        {1, 2, 0.1218, 0.0067, 0.1179, 87, 1, 0.89, 0.182, 1},
    };
    const track_template_result s1104[3] = {
        {0, 1, 0.1215, 0.0066, 0.1292, 145, 0, 1.00, 0.103, 0},
        {0, 2, 0.0929, 0.0058, 0.0933, 145, 0, 1.00, 0.112, 1},
        {1, 2, 0.1181, 0.0065, 0.1245, 145, 0, 1.00, 0.115, 1},
    };
    double sc, lo, hi;
    unsigned stood_in;
    ASSERT_EQ_INT(track_template_verdict(s1187, 3, 0, &stood_in), TRACK_TEMPLATE_WRONG);
    ASSERT_EQ_INT(track_template_one_scale(s1187, 3, &sc, &lo, &hi), 0);
    /* the ratios 0.729, 0.780, 1.000 to 1e-3 (the distances' 0.1 mm rounding) */
    ASSERT(fabs(lo - 0.729) < 1e-3 && fabs(hi - 1.0) < 1e-3 && fabs(sc - 0.780) < 1e-3, "1187: x%.3f-%.3f, %.3f", lo,
           hi, sc);
    ASSERT_EQ_INT(track_template_verdict(s1146, 3, 0, &stood_in), TRACK_TEMPLATE_WRONG);
    ASSERT_EQ_INT(track_template_one_scale(s1146, 3, &sc, &lo, &hi), 0);
    ASSERT(fabs(lo - 0.560) < 1e-3 && fabs(hi - 1.050) < 1e-3, "1146: x%.3f-%.3f", lo, hi);
    ASSERT_EQ_INT(track_template_verdict(s1174, 3, 1, &stood_in), TRACK_TEMPLATE_WRONG);
    ASSERT_EQ_INT(track_template_one_scale(s1174, 3, &sc, &lo, &hi), 0);
    ASSERT_EQ_INT(track_template_one_scale(s1104, 3, &sc, &lo, &hi), 1);
    ASSERT(fabs(sc - 1.054) < 1e-3, "1104: x%.3f", sc);
    for (int q = 0; q < 3; q++)
        s1174[q].measured = 0.8 * s1174[q].D;
    ASSERT_EQ_INT(track_template_one_scale(s1174, 3, &sc, &lo, &hi), 1);
    ASSERT(fabs(sc - 0.8) < 1e-9, "x%.3f", sc);
    /* two pairs measured (a marker never labelled): too few to tell */
    s1174[2].n = 0;
    ASSERT_EQ_INT(track_template_one_scale(s1174, 3, &sc, &lo, &hi), -1);
}

/* The check's pairs of random scene 1037 (four balls on posts, two cameras; the upper
 * two over a light wall, undetected until frame 62): m3 is measured in 9 of 94 frames,
 * a point 0.41 m from m0 standing in for it, while m0-m2 fit together in 15 frames.
 * That is a marker not detected, not a wrong template: the run goes on, labelled where
 * the markers fit (it was refused as "wrong markers or scale"). The same misfit
 * measured as often as the best pair is a marker at another distance, and with the body
 * posed in 5 frames there is too little to go on. */
TEST(test_template_verdict_refuses_a_rigid_misfit_and_lets_a_marker_stood_in_for_pass)
{
    /* j, k, D, tol, measured, n, n_gated, steady, travel, fits: as the check gave them */
    track_template_result r[6] = {
        {0, 1, 0.1089, 0.0063, 0.1113, 18, 15, 1.00, 0.022, 1},
        {0, 2, 0.1665, 0.0080, 0.1689, 16, 15, 0.94, 0.155, 1},
        {0, 3, 0.2086, 0.0093, 0.4106, 9, 1, 0.67, 0.308, 0},
        {1, 2, 0.1000, 0.0060, 0.1001, 55, 15, 1.00, 0.045, 1},
        {1, 3, 0.1627, 0.0079, 0.1629, 1, 1, 1.00, 0.000, 1},
        {2, 3, 0.1117, 0.0064, 0.1114, 9, 1, 0.89, 0.153, 1},
    };
    unsigned stood_in = 0;
    ASSERT_EQ_INT(track_template_verdict(r, 6, 15, &stood_in), TRACK_TEMPLATE_STOOD_IN);
    ASSERT(stood_in == (1u << 0 | 1u << 3), "stood in for mask 0x%x, m0 and m3 expected", stood_in);
    ASSERT_EQ_INT(track_template_verdict(r, 6, TRACK_TEMPLATE_MIN_POSED - 1, &stood_in),
                  TRACK_TEMPLATE_TOO_FEW_POSED);
    /* m0-m3 steady in 50 frames, as often as m1-m2's 55 / 2 or more: a wrong m3 */
    r[2].n = 50;
    ASSERT_EQ_INT(track_template_verdict(r, 6, 15, &stood_in), TRACK_TEMPLATE_WRONG);
    /* scattered (under half within tolerance of their median) in as many frames: stood in */
    r[2].steady = 0.3;
    ASSERT_EQ_INT(track_template_verdict(r, 6, 15, &stood_in), TRACK_TEMPLATE_STOOD_IN);
    /* still (midpoints within 3 tolerances: two pieces of clutter): stood in */
    r[2].steady = 0.67, r[2].travel = 0.02;
    ASSERT_EQ_INT(track_template_verdict(r, 6, 15, &stood_in), TRACK_TEMPLATE_STOOD_IN);
    r[2].fits = 1;
    ASSERT_EQ_INT(track_template_verdict(r, 6, 0, &stood_in), TRACK_TEMPLATE_FITS);
    ASSERT_EQ_INT((int)stood_in, 0);
}

/* A marker one camera alone sees (a sticker turned away from the other camera, random
 * scenes 1123 1154): every frame has the two other markers triangulated and m2's ray
 * from a camera 1 m away. The points alone never pose the body (two markers); with the
 * rays every frame is posed and m2's ray is labelled m2. A ray 2 cm off m2 (a glint
 * beside it; the tolerance is 3 mm + 3%) poses nothing and is no marker. */
TEST(test_template_check_poses_frames_with_a_marker_one_camera_alone_sees)
{
    enum { F = 20, S = 4 };
    const icv_vec3 M[3] = {{0, 0, 0}, {0.1, 0, 0}, {0.03, 0.05, 0}};
    icv_vec3 X[F * S];
    int n[F], nr[F];
    unsigned char posed[F];
    track_identity_ray rays[F * TRACK_IDENTITY_MAX_RAYS];
    icv_err err;
    track_template_result r[3];
    track_identity *id = track_identity_alloc(3, M, 0.003, 0.03, &err);
    ASSERT(id != NULL, "%s", err.msg);
    for (int off = 0; off < 2; off++) {
        for (long f = 0; f < F; f++) {
            icv_vec3 p = icv_v3(0.2 + 0.004 * f, 0.1 - 0.002 * f, 0.05);
            X[f * S + 0] = icv_v3_add(p, M[0]);
            X[f * S + 1] = icv_v3_add(p, M[1]);
            X[f * S + 2] = icv_v3(0.6, 0.4, 0.0); /* a still glint, 40 cm away */
            n[f] = 3;
            icv_vec3 o = icv_v3(0.2, 0.1, 1.0), Y = icv_v3_add(p, M[2]);
            if (off)
                Y.x += 0.02;
            icv_vec3 d = icv_v3_sub(Y, o);
            rays[f * TRACK_IDENTITY_MAX_RAYS] =
                (track_identity_ray){.o = o, .d = icv_v3_scale(d, 1 / icv_v3_norm(d)), .sigma_rad = 1e-4, .f_px = 1000};
            nr[f] = 1;
        }
        long n_posed = 0, n_plain = 0, n_m2 = 0;
        ASSERT(track_template_check(id, X, NULL, n, F, S, r, posed, &err) >= 0, "%s", err.msg);
        for (long f = 0; f < F; f++)
            n_plain += posed[f];
        ASSERT(track_template_check_rays(id, X, NULL, n, F, S, rays, nr, TRACK_IDENTITY_MAX_RAYS, r, posed, &err) >= 0,
               "%s", err.msg);
        int lab[3] = {0, 1, -1};
        for (long f = 0; f < F; f++) {
            n_posed += posed[f] == 2;
            n_m2 += track_identity_ray_marker(id, X + f * S, lab, 3, &rays[f * TRACK_IDENTITY_MAX_RAYS]) == 2;
        }
        printf("    ray %s: posed %ld of %d frames (%ld without rays), ray labelled m2 in %ld\n",
               off ? "2 cm off m2" : "of m2", n_posed, F, n_plain, n_m2);
        ASSERT(n_plain == 0, "posed without rays in %ld frames", n_plain);
        ASSERT(n_posed == (off ? 0 : F), "ray %d: posed in %ld frames", off, n_posed);
        ASSERT(n_m2 == (off ? 0 : F), "ray %d: labelled m2 in %ld frames", off, n_m2);
    }
    track_identity_free(id);
}
