/* bodies_impact.c: impacts between two bodies. Found where the gap between their
 * shapes (bodies_gap.c) has a minimum within reach of zero; measured from each
 * body's fits on each side (bodies_side.c) at the instant where the two
 * pre-impact motions' shapes touch: Newton's ratio along the common normal, the
 * impulse ratio, each body's impulse m dv (the two must cancel: their sum against
 * its sigma checks the tracking), momentum and angular momentum before and after,
 * energies. 1-sigma by Monte Carlo over the four fitted states, the instant (and
 * with it the normal and the contact point) found again in each draw. */
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bodies_internal.h"

/* the four states: pre a, pre b, post a, post b */
enum { PA, PB, QA, QB };

/* the derived quantities, flat for the Monte Carlo's sums */
enum {
    D_E, D_RATIO, D_UNJUMP, D_J = 3, D_JA = 6, D_JB = 9, D_MIS = 12, D_PPRE = 15, D_PPOST = 18, D_LPRE = 21,
    D_LPOST = 24, D_DL = 27, D_EPRE = 30, D_EPOST, D_ELOST, D_LOSS, D_T, D_N
};

static void put3(double *x, int i, icv_vec3 v)
{
    x[i] = v.x;
    x[i + 1] = v.y;
    x[i + 2] = v.z;
}

static icv_vec3 get3(const double *x, int i) { return icv_v3(x[i], x[i + 1], x[i + 2]); }

/* b's contact point's velocity relative to a's */
static icv_vec3 relative_velocity(const analysis_body_state *a, const analysis_body_state *b, icv_vec3 c)
{
    icv_vec3 ua = icv_v3_add(a->v, icv_v3_cross(a->omega, icv_v3_sub(c, a->p)));
    icv_vec3 ub = icv_v3_add(b->v, icv_v3_cross(b->omega, icv_v3_sub(c, b->p)));
    return icv_v3_sub(ub, ua);
}

/* angular momentum of a body about point c */
static icv_vec3 angmom(const analysis_body *b, const analysis_body_state *s, icv_vec3 c)
{
    icv_vec3 lin = icv_v3_cross(icv_v3_sub(s->p, c), icv_v3_scale(s->v, b->mass));
    return icv_v3_add(lin, icv_m3_apply(icv_m3_rotate_tensor(s->R, b->inertia), s->omega));
}

static void derive(const analysis_body *ba, const analysis_body *bb, const analysis_body_state st[4],
                   const analysis_shapes_gap *c, double t, double *x, icv_vec3 *u_pre, icv_vec3 *u_post)
{
    icv_vec3 n = c->normal;
    *u_pre = relative_velocity(&st[PA], &st[PB], c->point);
    *u_post = relative_velocity(&st[QA], &st[QB], c->point);
    double un0 = icv_v3_dot(*u_pre, n), un1 = icv_v3_dot(*u_post, n);
    icv_vec3 Ja = icv_v3_scale(icv_v3_sub(st[QA].v, st[PA].v), ba->mass);
    icv_vec3 Jb = icv_v3_scale(icv_v3_sub(st[QB].v, st[PB].v), bb->mass);
    icv_vec3 J = icv_v3_scale(icv_v3_sub(Jb, Ja), 0.5);
    double jn = icv_v3_dot(J, n);
    icv_vec3 jt = icv_v3_axpy(-jn, n, J);
    x[D_E] = un0 != 0 ? -un1 / un0 : NAN;
    x[D_RATIO] = jn != 0 ? icv_v3_norm(jt) / jn : NAN;
    x[D_UNJUMP] = un1 - un0;
    put3(x, D_J, J);
    put3(x, D_JA, Ja);
    put3(x, D_JB, Jb);
    put3(x, D_MIS, icv_v3_add(Ja, Jb));
    icv_vec3 P0 = icv_v3_add(icv_v3_scale(st[PA].v, ba->mass), icv_v3_scale(st[PB].v, bb->mass));
    icv_vec3 P1 = icv_v3_add(icv_v3_scale(st[QA].v, ba->mass), icv_v3_scale(st[QB].v, bb->mass));
    put3(x, D_PPRE, P0);
    put3(x, D_PPOST, P1);
    icv_vec3 L0 = icv_v3_add(angmom(ba, &st[PA], c->point), angmom(bb, &st[PB], c->point));
    icv_vec3 L1 = icv_v3_add(angmom(ba, &st[QA], c->point), angmom(bb, &st[QB], c->point));
    put3(x, D_LPRE, L0);
    put3(x, D_LPOST, L1);
    put3(x, D_DL, icv_v3_sub(L1, L0));
    double e0 = bodies_kinetic(ba, st[PA].R, st[PA].v, st[PA].omega) +
                bodies_kinetic(bb, st[PB].R, st[PB].v, st[PB].omega);
    double e1 = bodies_kinetic(ba, st[QA].R, st[QA].v, st[QA].omega) +
                bodies_kinetic(bb, st[QB].R, st[QB].v, st[QB].omega);
    x[D_EPRE] = e0;
    x[D_EPOST] = e1;
    x[D_ELOST] = e0 - e1;
    x[D_LOSS] = e0 > 0 ? 1 - e1 / e0 : NAN;
    x[D_T] = t;
}

/* the gap between a and b in their pre-impact states carried to t0 + dt */
typedef struct {
    const analysis_body *ba, *bb;
    analysis_body_state a, b;
} gap_motion;

static double gap_after(double dt, void *data)
{
    const gap_motion *m = data;
    analysis_body_state a = m->a, b = m->b;
    bodies_state_advance(&a, dt);
    bodies_state_advance(&b, dt);
    analysis_shapes_gap g;
    analysis_shapes_gap_at(&m->ba->shape, a.R, a.p, &m->bb->shape, b.R, b.p, &g);
    return g.gap;
}

/* where the gap f(dt) (dt from the states' instant) first crosses zero in [lo, hi],
 * or is smallest there (a grazing contact). The pre-impact motions carried on pass
 * through each other: over a wide bracket a sphere's gap goes below zero and back
 * up, so the ends alone can miss the touch (a cradle's ball carried 2 frames on);
 * the first sign change among 64 samples brackets it then. */
static double touch_offset(double (*f)(double, void *), void *data, double lo, double hi)
{
    double flo = f(lo, data), fhi = f(hi, data);
    if ((flo > 0) == (fhi > 0) && flo > 0)
        for (int i = 1; i <= 64; i++) {
            double x0 = lo + (hi - lo) * (i - 1) / 64.0, x = lo + (hi - lo) * i / 64.0, fx = f(x, data);
            if (!(fx > 0)) {
                lo = x0, hi = x;
                break;
            }
        }
    return analysis_root_or_min(f, data, lo, hi, 1e-12, 0);
}

double bodies_touch_offset(const analysis_body *ba, const analysis_body_state *a, const analysis_body *bb,
                           const analysis_body_state *b, double lo, double hi)
{
    gap_motion gm = {ba, bb, *a, *b};
    return touch_offset(gap_after, &gm, lo, hi);
}

void bodies_meet(const analysis_body_state *pre, const analysis_body_state *post, double t, double *tm,
                        double *sd)
{
    icv_vec3 dp = icv_v3_sub(pre->p, post->p), dv = icv_v3_sub(pre->v, post->v);
    double w2 = icv_v3_dot(dv, dv);
    if (!(w2 > 0)) {
        *tm = *sd = NAN;
        return;
    }
    double tau = -icv_v3_dot(dp, dv) / w2;
    icv_vec3 u = icv_v3_scale(dv, 1 / sqrt(w2)), sa = pre->p_sd, sb = post->p_sd;
    double var = u.x * u.x * (sa.x * sa.x + sb.x * sb.x) + u.y * u.y * (sa.y * sa.y + sb.y * sb.y) +
                 u.z * u.z * (sa.z * sa.z + sb.z * sb.z);
    *tm = t + tau;
    *sd = sqrt(var / w2);
}

/* the nominal contact point moved with the drawn bodies (the mean of where each
 * body's drawn pose takes it) */
static icv_vec3 carried_point(const analysis_shapes_gap *c, const analysis_body_state *a0,
                              const analysis_body_state *b0, const analysis_body_state *a1,
                              const analysis_body_state *b1)
{
    icv_vec3 ra = icv_m3_apply(icv_m3_transpose(a0->R), icv_v3_sub(c->point, a0->p));
    icv_vec3 rb = icv_m3_apply(icv_m3_transpose(b0->R), icv_v3_sub(c->point, b0->p));
    icv_vec3 xa = icv_v3_add(icv_m3_apply(a1->R, ra), a1->p), xb = icv_v3_add(icv_m3_apply(b1->R, rb), b1->p);
    return icv_v3_scale(icv_v3_add(xa, xb), 0.5);
}

int analysis_body_impact_measure(const analysis_body_track *bodies, int n_bodies, int ia, int ib, int row, int lo_row,
                                 int hi_row, const icv_vec3 *g, const analysis_params *prm,
                                 analysis_body_impact *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    if (ia < 0 || ib < 0 || ia >= n_bodies || ib >= n_bodies || ia == ib)
        return icv_err_set(err, ICV_EINVAL, "body impact: bodies %d and %d of %d", ia, ib, n_bodies);
    const analysis_body_track *A = &bodies[ia], *B = &bodies[ib];
    const analysis_tracks *tr = A->tracks;
    if (B->tracks->n_frames != tr->n_frames)
        return icv_err_set(err, ICV_EINVAL, "body impact: %s has %d frames, %s %d: the tracks must share rows",
                           A->name ? A->name : "a", tr->n_frames, B->name ? B->name : "b", B->tracks->n_frames);
    if (row < 0 || row >= tr->n_frames)
        return icv_err_set(err, ICV_EINVAL, "body impact: row %d of %d", row, tr->n_frames);
    double dt = bodies_frame_period(tr);
    double excl = prm->exposure_s > 0 ? prm->exposure_s : dt;
    double t_star = tr->t[row];
    analysis_body_state st[4];
    int rc = 0;
    /* the instant and the windows, iterated: each window leaves out the frames the
     * impact's exposure overlaps, and the instant comes from the pre-impact fits */
    for (int it = 0; it < 8; it++) {
        int f0, l0, f1, l1;
        if (bodies_window(tr, t_star, excl, lo_row, hi_row, 0, prm->max_side_frames, &f0, &l0) == 0 ||
            bodies_window(tr, t_star, excl, lo_row, hi_row, 1, prm->max_side_frames, &f1, &l1) == 0)
            return icv_err_set(err, ICV_EINVAL, "body impact %s-%s at frame %d: no frames on one side",
                               A->name ? A->name : "a", B->name ? B->name : "b", tr->frame[row]);
        if ((rc = analysis_body_side_fit(A, f0, l0, t_star, g, prm, &st[PA], err)) ||
            (rc = analysis_body_side_fit(B, f0, l0, t_star, g, prm, &st[PB], err)))
            return rc;
        gap_motion gm = {A->body, B->body, st[PA], st[PB]};
        double lo = tr->t[l0] - t_star, hi = tr->t[f1] - t_star;
        double off = touch_offset(gap_after, &gm, lo, hi);
        double t_new = t_star + off;
        if (fabs(off) < 1e-9 * dt || it == 7) {
            if ((rc = analysis_body_side_fit(A, f1, l1, t_star, g, prm, &st[QA], err)) ||
                (rc = analysis_body_side_fit(B, f1, l1, t_star, g, prm, &st[QB], err)))
                return rc;
            break;
        }
        t_star = t_new;
    }
    double t = t_star;
    out->body[0] = ia;
    out->body[1] = ib;
    out->frame = tr->frame[row];
    out->t = t;
    memcpy(out->pre, st, 2 * sizeof st[0]);
    memcpy(out->post, st + 2, 2 * sizeof st[0]);
    analysis_shapes_gap_at(&A->body->shape, st[PA].R, st[PA].p, &B->body->shape, st[PB].R, st[PB].p, &out->contact);
    double x[D_N];
    derive(A->body, B->body, st, &out->contact, t, x, &out->u_pre, &out->u_post);
    for (int k = 0; k < 2; k++)
        bodies_meet(&st[k], &st[2 + k], t, &out->t_meet[k], &out->t_meet_sd[k]);

    /* Monte Carlo: each state drawn from its fit's covariance, the instant moved by
     * one Newton step on the drawn pre-impact gap (a small fraction of a frame), all
     * four states carried to it */
    gap_motion gm = {A->body, B->body, st[PA], st[PB]};
    double h = 1e-3 * dt, rate = (gap_after(h, &gm) - gap_after(-h, &gm)) / (2 * h);
    double L[4][6][6];
    for (int k = 0; k < 4; k++)
        analysis_cholesky(&st[k].cov_rot[0][0], 6, &L[k][0][0]);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        return icv_err_set(err, ICV_ENOMEM, "body impact: out of memory");
    gsl_rng_set(rng, 12345);
    int m = prm->mc_samples > 10 ? prm->mc_samples : 10;
    bodies_stats sts = {0};
    double mis_cov[3][3] = {{0}};
    /* boxes and point sets touch with flat faces; a round side (sphere, capsule,
     * a cylinder's side) moves its contact point continuously with the poses and
     * is found again in each draw (re-found, a spinning puck's point stays on the
     * line of centres; carried, it turned with the drawn attitude: e's RMS pull
     * 0.86 against 0.93 over 200 seeds) */
    int flat = 0;
    for (int k = 0; k < 2; k++) {
        icv_shape_type ty = bodies[k ? ib : ia].body->shape.type;
        flat |= ty == ICV_SHAPE_BOX || ty == ICV_SHAPE_POINTS;
    }
    for (int k = 0; k < m; k++) {
        analysis_body_state d[4];
        for (int s = 0; s < 4; s++)
            bodies_state_draw(rng, &st[s], L[s], &d[s]);
        analysis_shapes_gap c;
        analysis_shapes_gap_at(&A->body->shape, d[PA].R, d[PA].p, &B->body->shape, d[PB].R, d[PB].p, &c);
        double step = rate < 0 ? -c.gap / rate : 0;
        for (int s = 0; s < 4; s++)
            bodies_state_advance(&d[s], step);
        analysis_shapes_gap_at(&A->body->shape, d[PA].R, d[PA].p, &B->body->shape, d[PB].R, d[PB].p, &c);
        if (flat) /* a flat face's support point jumps between its corners with
                     noise-level tilts: the nominal point carried with the bodies */
            c.point = carried_point(&out->contact, &st[PA], &st[PB], &d[PA], &d[PB]);
        double y[D_N];
        icv_vec3 u0, u1;
        derive(A->body, B->body, d, &c, t + step, y, &u0, &u1);
        if (!isfinite(y[D_E]) || !isfinite(y[D_RATIO]))
            continue;
        bodies_stats_add(&sts, y, x, D_N);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                mis_cov[i][j] += (y[D_MIS + i] - x[D_MIS + i]) * (y[D_MIS + j] - x[D_MIS + j]);
    }
    gsl_rng_free(rng);
    double sd[D_N];
    for (int i = 0; i < D_N; i++)
        sd[i] = bodies_stats_sd(&sts, i);
    out->t_sd = sd[D_T];
    out->e_newton = x[D_E];
    out->e_newton_sd = sd[D_E];
    out->impulse_ratio = x[D_RATIO];
    out->impulse_ratio_sd = sd[D_RATIO];
    out->impulse = get3(x, D_J);
    out->impulse_sd = get3(sd, D_J);
    out->impulse_body[0] = get3(x, D_JA);
    out->impulse_body_sd[0] = get3(sd, D_JA);
    out->impulse_body[1] = get3(x, D_JB);
    out->impulse_body_sd[1] = get3(sd, D_JB);
    out->impulse_mismatch = get3(x, D_MIS);
    out->impulse_mismatch_sd = get3(sd, D_MIS);
    out->momentum_pre = get3(x, D_PPRE);
    out->momentum_pre_sd = get3(sd, D_PPRE);
    out->momentum_post = get3(x, D_PPOST);
    out->momentum_post_sd = get3(sd, D_PPOST);
    out->angmom_pre = get3(x, D_LPRE);
    out->angmom_pre_sd = get3(sd, D_LPRE);
    out->angmom_post = get3(x, D_LPOST);
    out->angmom_post_sd = get3(sd, D_LPOST);
    out->angmom_change = get3(x, D_DL);
    out->angmom_change_sd = get3(sd, D_DL);
    out->energy_pre = x[D_EPRE];
    out->energy_pre_sd = sd[D_EPRE];
    out->energy_post = x[D_EPOST];
    out->energy_post_sd = sd[D_EPOST];
    out->energy_lost = x[D_ELOST];
    out->energy_lost_sd = sd[D_ELOST];
    out->loss_fraction = x[D_LOSS];
    out->loss_fraction_sd = sd[D_LOSS];
    /* the mismatch's chi^2 against its covariance (3 dof; pseudo-inverse-free:
     * a tiny diagonal load keeps a degenerate axis, e.g. motion in a plane, finite) */
    {
        icv_mat3 C, Ci;
        double big = 0, nd = sts.n > 0 ? sts.n : 1;
        for (int i = 0; i < 3; i++)
            big = fmax(big, mis_cov[i][i]);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                C.m[i][j] = mis_cov[i][j] / nd + (i == j ? 1e-9 * big / nd + 1e-300 : 0);
        icv_vec3 dm = out->impulse_mismatch;
        out->impulse_mismatch_chi2 = icv_m3_inverse(C, &Ci) == 0 ? icv_v3_dot(dm, icv_m3_apply(Ci, dm)) : NAN;
    }
    out->normal_jump = x[D_UNJUMP];
    out->normal_jump_sd = sd[D_UNJUMP];
    return 0;
}
