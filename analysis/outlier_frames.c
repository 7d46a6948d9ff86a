/* outlier_frames.c: a single frame off the body's motion ("a single
 * outlier frame does not move the result"). A frame whose markers all moved
 * together (a glitch in one camera's image, a mismatched pair the 3D check let
 * through, a frame from the wrong instant) fits the template as well as any other,
 * so the pose fit's per-marker check cannot see it; the motion can. Each frame's
 * centre and attitude are predicted from the two frames before it and from the two
 * after it; a frame off both predictions the same way, by far more than the
 * predictions scatter, is an outlier. So is a frame off one side's prediction
 * whose next frame on the other side is back on it (the frames beside an impact,
 * where the other side's prediction crosses the impact).
 *
 * An impact is not an outlier: its kink makes the two predictions miss in
 * opposite directions (position is continuous, the velocity jumps), and the frame
 * after a kink is further off the prediction than the frame itself, never back
 * on it. Frames between two frames in contact with the surface (sliding, rolling,
 * a blurred contact) are not judged against free flight at all. */
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"

/* Off both predictions by more than this many of their robust sigmas (normalised
 * per axis): for Gaussian noise a clean frame gets there with probability ~1e-7,
 * twice over much less; a dropped good frame costs only its information. */
#define OUTLIER_SIGMAS 6.0
/* "back on track" and "the same way": within this fraction of the frame's miss */
#define AGREE 0.5
/* the noise scale from the frames this many either side (an outlier spoils the
   deviations of three frames of the 25) */
#define SCALE_HALF 12
#define SCALE_STRIDE 4

enum { POS, ATT, N_KIND };

/* The deviations of one kind (centre or attitude) at each posed frame: off the
 * prediction from the two frames before (l), from the two after (r), and the
 * next frames' deviations from those same predictions (el: frame i + 1 from
 * i - 2, i - 1; er: frame i - 1 from i + 1, i + 2). w: (1 + sum of the
 * prediction's squared weights) for l and r, the noise variance in units of a
 * frame's. */
typedef struct {
    icv_vec3 l, r, el, er;
    double wl, wr;
    unsigned char has_l, has_r, has_el, has_er;
    icv_vec3 s;                  /* the misses' robust sigma here, per axis */
    unsigned char far_l, far_r;  /* l, r beyond OUTLIER_SIGMAS of it */
} frame_dev;

/* the centre's miss at pf[i].t of the ballistic path through frames a and b, g given */
static icv_vec3 centre_dev(const posed_frame *pf, int i, int a, int b, icv_vec3 g)
{
    double h = pf[b].t - pf[a].t, tau = pf[i].t - pf[a].t, s = tau / h;
    icv_vec3 pred = icv_v3_add(icv_v3_add(icv_v3_scale(pf[a].pose.p, 1 - s), icv_v3_scale(pf[b].pose.p, s)),
                               icv_v3_scale(g, 0.5 * tau * (tau - h)));
    return icv_v3_sub(pf[i].pose.p, pred);
}

/* What the predictions know of the body: g (m/s^2, surface frame) for the
 * centre, the template and the inertia (body frame) for the attitude. */
typedef struct {
    icv_vec3 g;
    const analysis_template *tm;
    icv_mat3 I, I_inv;
    int torque_free; /* 0: the inertia is singular, the rate taken as constant */
} motion;

static void motion_init(motion *mo, const analysis_body *b, icv_vec3 g)
{
    mo->g = g;
    mo->tm = &b->tmpl;
    mo->I = b->inertia;
    mo->torque_free = icv_m3_inverse(b->inertia, &mo->I_inv) == 0;
}

/* the attitude at pf[i].t from frames a and b: the body-frame rate between them
 * (at their midpoint) carried by Euler's torque-free equations to the midpoint of
 * b and i (a constant rate would miss by the gyroscopic w' dt^2, tens of noise
 * sigmas for a box spinning at 20 rad/s filmed at 120 fps), as the body-frame
 * rotation vector from that prediction to the frame's attitude; a collinear
 * template's spin about its line (not measured) left out */
static icv_vec3 attitude_dev(const posed_frame *pf, int i, int a, int b, const motion *mo)
{
    double h = pf[b].t - pf[a].t;
    icv_mat3 Rb = pf[b].pose.R;
    icv_vec3 rate = icv_v3_scale(icv_rot_to_axis_angle(icv_m3_mul(icv_m3_transpose(pf[a].pose.R), Rb)), 1 / h);
    double step = pf[i].t - pf[b].t;
    if (mo->torque_free) {
        icv_vec3 dw = icv_m3_apply(mo->I_inv, icv_v3_cross(icv_m3_apply(mo->I, rate), rate));
        rate = icv_v3_axpy(0.5 * (pf[i].t + pf[b].t) - 0.5 * (pf[a].t + pf[b].t), dw, rate);
    }
    icv_mat3 pred = icv_m3_mul(Rb, icv_rot_from_axis_angle(icv_v3_scale(rate, step)));
    icv_vec3 d = icv_rot_to_axis_angle(icv_m3_mul(icv_m3_transpose(pred), pf[i].pose.R));
    if (mo->tm->collinear)
        d = icv_v3_sub(d, icv_v3_scale(mo->tm->axis, icv_v3_dot(d, mo->tm->axis)));
    return d;
}

/* frame i's miss of one kind from frames a and b; w (may be NULL): the miss's
 * noise variance in frames' (1 + the prediction's squared weights, linear in time) */
static icv_vec3 kind_dev(int kind, const posed_frame *pf, int i, int a, int b, const motion *mo, double *w)
{
    if (w) {
        double s = (pf[i].t - pf[a].t) / (pf[b].t - pf[a].t);
        *w = 1 + (1 - s) * (1 - s) + s * s;
    }
    return kind == POS ? centre_dev(pf, i, a, b, mo->g) : attitude_dev(pf, i, a, b, mo);
}

/* the floor of the attitude's misses (rad): a tenth of the nominal centre miss
 * sqrt(6) com_sigma over the template's RMS radius; 0 when the template has no
 * attitude (one marker) */
static double attitude_floor(const analysis_body *b, double com_sigma)
{
    double r2 = 0;
    for (int k = 0; k < b->tmpl.n_markers; k++)
        r2 += icv_v3_dot(b->tmpl.markers[k], b->tmpl.markers[k]);
    return b->tmpl.point || !(r2 > 0) ? 0 : 0.1 * sqrt(6.0) * com_sigma / sqrt(r2 / b->tmpl.n_markers);
}

/* g for the predictions: the per-axis median of the centre's second divided
 * differences. Each is noisy (sigma / dt^2) but what the predictions need is g dt^2
 * against the noise, which the median over the clip gives; impacts and outliers
 * are a few frames of many. */
static icv_vec3 median_acceleration(const posed_frame *pf, int n, double *buf)
{
    icv_vec3 g = {0, 0, 0};
    for (int ax = 0; ax < 3; ax++) {
        int m = 0;
        for (int i = 1; i + 1 < n; i++) {
            double h0 = pf[i].t - pf[i - 1].t, h1 = pf[i + 1].t - pf[i].t;
            double s0 = (icv_v3_get(pf[i].pose.p, ax) - icv_v3_get(pf[i - 1].pose.p, ax)) / h0;
            double s1 = (icv_v3_get(pf[i + 1].pose.p, ax) - icv_v3_get(pf[i].pose.p, ax)) / h1;
            buf[m++] = 2 * (s1 - s0) / (h0 + h1);
        }
        icv_v3_set(&g, ax, analysis_median(buf, m));
    }
    return g;
}

/* per axis: 1.4826 x the median absolute value of the l and r deviations of
 * frames lo..hi (the normal sigma of a one-frame-ahead prediction's miss there),
 * at least floor */
static icv_vec3 robust_scale(const frame_dev *d, int lo, int hi, double floor, double *buf)
{
    icv_vec3 s = {0, 0, 0};
    for (int ax = 0; ax < 3; ax++) {
        int m = 0;
        for (int i = lo; i <= hi; i++) {
            if (d[i].has_l)
                buf[m++] = fabs(icv_v3_get(d[i].l, ax));
            if (d[i].has_r)
                buf[m++] = fabs(icv_v3_get(d[i].r, ax));
        }
        /* GSL's quickselect: one scale per frame and axis, so no sort */
        double v = m ? 1.4826 * gsl_stats_median(buf, 1, (size_t)m) : 0;
        icv_v3_set(&s, ax, fmax(v, floor));
    }
    return s;
}

static double scaled_norm(icv_vec3 v, icv_vec3 s)
{
    return icv_v3_norm(icv_v3(v.x / s.x, v.y / s.y, v.z / s.z));
}

/* Marks frame d's misses far: beyond OUTLIER_SIGMAS of the prediction's own
 * sigma (its scale s per axis, from the evenly spaced frames: w / 6 is this
 * prediction's variance against theirs). */
static void mark_far(frame_dev *d, icv_vec3 s)
{
    d->s = s;
    d->far_l = d->has_l && scaled_norm(d->l, s) > OUTLIER_SIGMAS * sqrt(d->wl / 6);
    d->far_r = d->has_r && scaled_norm(d->r, s) > OUTLIER_SIGMAS * sqrt(d->wr / 6);
}

/* How convincingly frame i of d[0..n-1] is an outlier: the smallest of the ratios
 * that make it one (the other side's prediction's disagreement, or the next
 * frame's miss, over the frame's own miss; below AGREE), INFINITY when it is
 * none. A side's prediction counts only when its nearer frame is on the
 * prediction from the two beyond it: next to an outlier the prediction through it
 * is spoilt, and beside an impact the spoilt one and the kink can agree. */
static double outlier_ratio(const frame_dev *d, int i, int n)
{
    const frame_dev *f = &d[i];
    icv_vec3 s = f->s;
    int trust_l = !(i >= 1 && d[i - 1].far_l), trust_r = !(i + 1 < n && d[i + 1].far_r);
    int far_l = f->far_l && trust_l, far_r = f->far_r && trust_r;
    double nl = scaled_norm(f->l, s), nr = scaled_norm(f->r, s), best = INFINITY, q;
    if (far_l && far_r &&
        (q = scaled_norm(icv_v3_sub(f->l, f->r), s) / scaled_norm(icv_v3_add(f->l, f->r), s)) < AGREE)
        best = fmin(best, q);
    if (far_l && f->has_el && (q = scaled_norm(f->el, s) / nl) < AGREE)
        best = fmin(best, q);
    if (far_r && f->has_er && (q = scaled_norm(f->er, s) / nr) < AGREE)
        best = fmin(best, q);
    return best;
}

/* Fills d[0..n-1] with one kind's deviations. */
static void deviations(int kind, const posed_frame *pf, int n, const motion *mo, frame_dev *d)
{
    memset(d, 0, sizeof *d * (size_t)n);
    for (int i = 0; i < n; i++) {
        frame_dev *f = &d[i];
        if (i >= 2) {
            f->l = kind_dev(kind, pf, i, i - 2, i - 1, mo, &f->wl);
            f->has_l = 1;
            if (i + 1 < n) {
                f->el = kind_dev(kind, pf, i + 1, i - 2, i - 1, mo, NULL);
                f->has_el = 1;
            }
        }
        if (i + 2 < n) {
            f->r = kind_dev(kind, pf, i, i + 2, i + 1, mo, &f->wr);
            f->has_r = 1;
            if (i >= 1) {
                f->er = kind_dev(kind, pf, i - 1, i + 2, i + 1, mo, NULL);
                f->has_er = 1;
            }
        }
    }
}

int analysis_outlier_frames(posed_frame *pf, int *n_io, const analysis_body *b, double com_sigma,
                            double contact_gap, int *rows, int max_rows)
{
    int n = *n_io;
    frame_dev *d = malloc(sizeof *d * (size_t)(n > 0 ? n : 1));
    double *buf = malloc(sizeof *buf * (size_t)(n > 0 ? 2 * n : 1));
    if (!d || !buf) {
        free(d);
        free(buf);
        return -1;
    }
    /* floors: a tenth of the nominal sigma of a one-frame-ahead miss (sqrt(6) frames'
       noise), so that noise-free tracks do not make every rounding an outlier */
    double floor[N_KIND] = {0.1 * sqrt(6.0) * com_sigma, attitude_floor(b, com_sigma)};
    int kinds = floor[ATT] > 0 ? N_KIND : 1;
    /* One frame at a time, the most convincing first, then everything judged
     * again without it: an outlier spoils its neighbours' predictions too, and
     * beside an impact that can look like an outlier pattern of its own. */
    int dropped = 0;
    while (n >= 5 && dropped < *n_io / 4) {
        motion mo;
        motion_init(&mo, b, median_acceleration(pf, n, buf));
        int worst = -1;
        double best = INFINITY;
        for (int kind = 0; kind < kinds; kind++) {
            deviations(kind, pf, n, &mo, d);
            /* the noise where the frame is: a spinning body's blurred markers
               after an impact scatter more than before it (a clip-wide scale
               called a synth video rod's post-impact frame an outlier) */
            icv_vec3 sc = {0, 0, 0};
            for (int i = 0; i < n; i++) {
                if (i % SCALE_STRIDE == 0) /* it changes slowly: every few frames */
                    sc = robust_scale(d, i > SCALE_HALF ? i - SCALE_HALF : 0,
                                      i + SCALE_HALF < n ? i + SCALE_HALF : n - 1, floor[kind], buf);
                mark_far(&d[i], sc);
            }
            for (int i = 0; i < n; i++) {
                int in_contact = i >= 1 && i + 1 < n && fabs(pf[i - 1].gap) <= contact_gap &&
                                 fabs(pf[i + 1].gap) <= contact_gap;
                double q = in_contact ? INFINITY : outlier_ratio(d, i, n);
                if (q < best) {
                    best = q;
                    worst = i;
                }
            }
        }
        if (worst < 0)
            break;
        if (dropped < max_rows)
            rows[dropped] = pf[worst].row;
        dropped++;
        memmove(pf + worst, pf + worst + 1, sizeof *pf * (size_t)(n - worst - 1));
        n--;
    }
    *n_io = n;
    free(d);
    free(buf);
    return dropped;
}

int analysis_near_end_outlier(const posed_frame *pf, int first, int last, int post, const icv_vec3 *g,
                              const analysis_body *b, double com_sigma)
{
    /* The frame next to the impact has no frame beyond it (the other side's
     * prediction crosses the impact), so analysis_outlier_frames cannot judge it:
     * it is judged by the rest of its side's window alone. Its centre against that
     * flight fitted without it (scale: the fit's residuals, robustly), its attitude
     * against the prediction from its two neighbours (scale: the same prediction's
     * misses inside the window). Off by more than OUTLIER_SIGMAS,
     * it is no frame to extrapolate from, whether an outlier or already touched. */
    int m = last - first; /* the window without the frame */
    if (m < 5 || m > 255)
        return 0;
    int k = post ? first : last, a = post ? first + 1 : first;
    double t[256], buf[256];
    icv_vec3 p[256];
    for (int i = 0; i < m; i++) {
        t[i] = pf[a + i].t;
        p[i] = pf[a + i].pose.p;
    }
    analysis_flight ph = {m, t, p, NULL, pf[k].t};
    analysis_ballistic bf;
    if (analysis_ballistic_fit(&ph, 1, g, &bf, NULL))
        return 0;
    icv_vec3 s = {0, 0, 0};
    for (int ax = 0; ax < 3; ax++) {
        for (int i = 0; i < m; i++) {
            double tau = t[i] - pf[k].t;
            buf[i] = fabs(icv_v3_get(p[i], ax) -
                          (icv_v3_get(bf.p0[0], ax) + icv_v3_get(bf.v[0], ax) * tau + 0.5 * icv_v3_get(*g, ax) * tau * tau));
        }
        /* one step beyond the window, the fit's own error adds about 4 / m frames' */
        icv_v3_set(&s, ax, fmax(1.4826 * analysis_median(buf, m), 0.1 * com_sigma) * sqrt(1 + 4.0 / m));
    }
    if (scaled_norm(icv_v3_sub(pf[k].pose.p, bf.p0[0]), s) > OUTLIER_SIGMAS)
        return 1;
    double floor = attitude_floor(b, com_sigma);
    if (!(floor > 0))
        return 0;
    /* the attitude: each frame from the two before it in the direction of the impact */
    int st = post ? -1 : 1; /* towards the impact */
    motion mo;
    motion_init(&mo, b, *g);
    icv_vec3 d[256];
    int nd = 0;
    for (int j = post ? last - 2 : first + 2; post ? j >= first + 1 : j <= last - 1; j += st)
        d[nd++] = attitude_dev(pf, j, j - 2 * st, j - st, &mo);
    if (nd < 4)
        return 0;
    icv_vec3 med = {0, 0, 0}, sc = {0, 0, 0};
    for (int ax = 0; ax < 3; ax++) {
        for (int i = 0; i < nd; i++)
            buf[i] = icv_v3_get(d[i], ax);
        double md = analysis_median(buf, nd);
        for (int i = 0; i < nd; i++)
            buf[i] = fabs(icv_v3_get(d[i], ax) - md);
        icv_v3_set(&med, ax, md);
        icv_v3_set(&sc, ax, fmax(1.4826 * analysis_median(buf, nd), floor));
    }
    icv_vec3 dk = icv_v3_sub(attitude_dev(pf, k, k - 2 * st, k - st, &mo), med);
    return scaled_norm(dk, sc) > OUTLIER_SIGMAS;
}
