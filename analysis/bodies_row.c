/* bodies_row.c: an impact of a row of bodies at once (a cradle's balls in contact,
 * the incoming one's push passed along the row within a frame). No pair's ratio is
 * in the states before and after, but the momentum is: each body's change m dv, the
 * impulse passed from each body to the next (minus the summed changes of the bodies
 * before it in the row), the group's momentum before and after (their difference is
 * zero for bodies pushed only by each other, a check on the tracking), and the
 * energy. Every body fitted on each side as in a pair impact (bodies_side.c, the
 * pendulum's equation for a body on a string); the instant where the first pair's
 * pre-impact motions touch. The sigmas of these sums follow to first order from the
 * bodies' fits, with two terms no fit sees: bodies that stay touching trade velocity in
 * re-contacts between the instant and the frames either side (row_exchange_var; it
 * cancels in the row's momentum), and touching bodies are one blob in the image, their
 * centres' errors correlated frame by frame (row_blob_correlation). */
#include <stdlib.h>
#include <string.h>

#include "analysis/bodies_internal.h"

static double sq(double x) { return x * x; }

/* variance of m dv per axis */
static icv_vec3 change_var(double m, const analysis_body_state *a, const analysis_body_state *b)
{
    icv_vec3 r;
    for (int k = 0; k < 3; k++)
        icv_v3_set(&r, k, m * m * (sq(icv_v3_get(a->v_sd, k)) + sq(icv_v3_get(b->v_sd, k))));
    return r;
}

static icv_vec3 v3_sqrt(icv_vec3 v) { return icv_v3(sqrt(v.x), sqrt(v.y), sqrt(v.z)); }

/* Neighbours whose velocities along the normal differ by less than this fraction of
   the side's largest neighbour difference stay touching: the row's push parts a pair
   at e times the closing speed, the bodies it leaves together differ by (1 - e) / 2 of
   it and less, below a quarter for e above 0.5. */
#define ROW_TOGETHER 0.25

/* The velocity each body of a run that stays touching may trade unseen, per side (v
   along the row's normal n, its sigma s, k bodies in row order; post: the side after
   the instant). run[]: each body's run's first, the bodies moving together. After the
   instant, neighbours of a run that close on each other (or cannot be told to part)
   meet again before the side's first frame, and equal bodies in contact trade their
   velocities (an elastic pair swaps them); a body taking another's velocity of the run
   changes by twice the run's variance of them on average, the variance less the
   sigmas' own (mean square). Before the instant, neighbours that close meet in the
   impact itself, which the side's states precede: no exchange is unseen there. */
static void row_exchange_var(const double *v, const double *s, int k, int post, double *var_out, int *run)
{
    double big = 0;
    for (int r = 0; r + 1 < k; r++)
        big = fmax(big, fabs(v[r + 1] - v[r]));
    for (int a = 0; a < k;) {
        int b = a;
        while (b + 1 < k && fabs(v[b + 1] - v[b]) < ROW_TOGETHER * big)
            b++;
        for (int r = a; r <= b; r++)
            run[r] = a, var_out[r] = 0;
        /* the run's stretches of neighbours closing or not seen to part (2 sigma) */
        for (int c = a; post && c <= b;) {
            int d = c;
            while (d + 1 <= b && v[d] - v[d + 1] > -2 * sqrt(s[d] * s[d] + s[d + 1] * s[d + 1]))
                d++;
            double mean = 0, var = 0, noise = 0;
            for (int r = c; r <= d; r++)
                mean += v[r] / (d - c + 1), noise += s[r] * s[r] / (d - c + 1);
            for (int r = c; r <= d; r++)
                var += sq(v[r] - mean) / (d > c ? d - c : 1);
            for (int r = c; r <= d; r++)
                var_out[r] = d > c ? 2 * fmax(0, var - noise) : 0;
            c = d + 1;
        }
        a = b + 1;
    }
}

/* Bodies touching in a camera's image are one blob split into discs: their centres'
   errors in a frame move together. Their correlation along n over frames f..l, from
   the centres' second differences (the motion's own, a dt^2 at most 4 um for a swinging
   ball at 30 fps, is below the centres' noise), pooled over the run's pairs (a side of
   8 frames gives a pair 6 differences); none below 0 taken (the split shares the blob's
   error, it does not oppose it), 0 with fewer than 3 differences. p[r]: body r's poses
   (row order), run[r] its run. */
static double second_difference(const body_pose *p, int i, icv_vec3 n)
{
    return icv_v3_dot(icv_v3_add(icv_v3_sub(p[i + 1].p, icv_v3_scale(p[i].p, 2)), p[i - 1].p), n);
}

static void row_blob_correlation(body_pose *const *p, const int *run, int k, int f, int l, icv_vec3 n,
                                 double rho[ANALYSIS_MAX_BODIES][ANALYSIS_MAX_BODIES])
{
    for (int a = 0; a < k; a++) {
        if (run[a] != a)
            continue;
        double sab = 0, saa = 0, sbb = 0;
        int m = 0, b = a;
        while (b + 1 < k && run[b + 1] == a)
            b++;
        for (int r = a; r <= b; r++)
            for (int q = r + 1; q <= b; q++)
                for (int i = f + 1; i < l; i++) {
                    const body_pose *pa = p[r], *pb = p[q];
                    if (!pa[i - 1].ok || !pa[i].ok || !pa[i + 1].ok || !pb[i - 1].ok || !pb[i].ok || !pb[i + 1].ok)
                        continue;
                    double da = second_difference(pa, i, n), db = second_difference(pb, i, n);
                    sab += da * db, saa += da * da, sbb += db * db, m++;
                }
        double c = m >= 3 && saa > 0 && sbb > 0 ? fmin(1, fmax(0, sab / sqrt(saa * sbb))) : 0;
        for (int r = a; r <= b; r++)
            for (int q = a; q <= b; q++)
                rho[r][q] = r == q ? 0 : c;
    }
}

/* The row's bodies idx[0..n-1] fitted on each side of the instant (the pre-impact
 * fits moved it to where bodies ia and ib (pre[*pa], pre[*pb]) touch, a few times
 * over); *t_star: the row's time in, the instant out; the windows' rows f0..l0 before
 * and f1..l1 after. 0 or an error code. */
static int row_sides_fit(const analysis_body_track *bodies, const int *idx, int n, int ia, int ib, int row,
                         int lo_row, int hi_row, const icv_vec3 *g, const analysis_params *prm, double *t_star_io,
                         analysis_body_state *pre, analysis_body_state *post, int *pa, int *pb, int fl[4],
                         icv_err *err)
{
    const analysis_tracks *tr = bodies[ia].tracks;
    const char *na = bodies[ia].name ? bodies[ia].name : "a", *nb = bodies[ib].name ? bodies[ib].name : "b";
    double dt = bodies_frame_period(tr), excl = prm->exposure_s > 0 ? prm->exposure_s : dt;
    double t_star = *t_star_io;
    int rc = 0, f0 = 0, l0 = 0, f1 = 0, l1 = 0;
    for (int it = 0; it < 8; it++) {
        if (bodies_window(tr, t_star, excl, lo_row, hi_row, 0, prm->max_side_frames, &f0, &l0) == 0 ||
            bodies_window(tr, t_star, excl, lo_row, hi_row, 1, prm->max_side_frames, &f1, &l1) == 0)
            return icv_err_set(err, ICV_EINVAL, "row impact %s-%s at frame %d: no frames on one side", na, nb,
                               tr->frame[row]);
        for (int k = 0; k < n; k++) {
            if ((rc = analysis_body_side_fit(&bodies[idx[k]], f0, l0, t_star, g, prm, &pre[k], err)))
                return rc;
            if (idx[k] == ia)
                *pa = k;
            if (idx[k] == ib)
                *pb = k;
        }
        double off = bodies_touch_offset(bodies[ia].body, &pre[*pa], bodies[ib].body, &pre[*pb],
                                         tr->t[l0] - t_star, tr->t[f1] - t_star);
        if (fabs(off) < 1e-9 * dt || it == 7)
            break;
        t_star += off;
    }
    for (int k = 0; k < n; k++)
        if ((rc = analysis_body_side_fit(&bodies[idx[k]], f1, l1, t_star, g, prm, &post[k], err)))
            return rc;
    *t_star_io = t_star;
    fl[0] = f0, fl[1] = l0, fl[2] = f1, fl[3] = l1;
    return 0;
}

/* What the row trades unseen: its bodies in order along the normal (ord), the
 * velocity each of a touching run may exchange per side (xv, m^2/s^2) and the runs'
 * centres' correlation frame by frame (rho[side][r][q]) over the windows fl (rows
 * f0, l0, f1, l1). 0 or an error code. */
static int row_exchange(const analysis_body_track *bodies, const int *idx, int n, const analysis_params *prm,
                        const analysis_body_state *pre, const analysis_body_state *post, icv_vec3 normal,
                        const int fl[4], int *ord, double xv[2][ANALYSIS_MAX_BODIES],
                        double rho[2][ANALYSIS_MAX_BODIES][ANALYSIS_MAX_BODIES])
{
    /* row order: along the normal */
    for (int k = 0; k < n; k++)
        ord[k] = k;
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && icv_v3_dot(pre[ord[b]].p, normal) < icv_v3_dot(pre[ord[b - 1]].p, normal); b--) {
            int x = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = x;
        }
    /* the re-contacts' exchange along the normal, each side */
    double vn[2][ANALYSIS_MAX_BODIES] = {{0}}, sn[2][ANALYSIS_MAX_BODIES] = {{0}};
    for (int r = 0; r < n; r++)
        for (int sd = 0; sd < 2; sd++) {
            const analysis_body_state *st = sd ? &post[ord[r]] : &pre[ord[r]];
            vn[sd][r] = icv_v3_dot(st->v, normal);
            sn[sd][r] = 0;
            for (int a = 0; a < 3; a++)
                sn[sd][r] += sq(icv_v3_get(normal, a) * icv_v3_get(st->v_sd, a));
            sn[sd][r] = sqrt(sn[sd][r]);
        }
    int run[2][ANALYSIS_MAX_BODIES] = {{0}};
    row_exchange_var(vn[0], sn[0], n, 0, xv[0], run[0]);
    row_exchange_var(vn[1], sn[1], n, 1, xv[1], run[1]);
    /* the touching runs' centres correlated frame by frame: rho[side][r][q] */
    size_t stride = 1;
    for (int r = 0; r < n; r++)
        if ((size_t)bodies[idx[r]].tracks->n_frames + 1 > stride)
            stride = (size_t)bodies[idx[r]].tracks->n_frames + 1;
    body_pose *pose = malloc(sizeof *pose * (size_t)n * stride), *pp[ANALYSIS_MAX_BODIES] = {0};
    if (!pose)
        return ICV_ENOMEM;
    for (int r = 0; r < n; r++)
        bodies_poses(&bodies[idx[ord[r]]], prm, pp[r] = pose + (size_t)r * stride);
    row_blob_correlation(pp, run[0], n, fl[0], fl[1], normal, rho[0]);
    row_blob_correlation(pp, run[1], n, fl[2], fl[3], normal, rho[1]);
    free(pose);
    return 0;
}

/* The row's sums into out: each body's states (their sigmas with the instant's
 * sigma ts and the exchange xv) and impulse in row order ord, the impulses between
 * neighbours, the momentum before, after and its change, and the energy, each with
 * its sigma (correlated centres rho counted twice per pair). */
static void row_sums(const analysis_body_track *bodies, const int *idx, int n, const analysis_body_state *pre,
                     const analysis_body_state *post, icv_vec3 normal, double ts, const int *ord,
                     double xv[2][ANALYSIS_MAX_BODIES], double rho[2][ANALYSIS_MAX_BODIES][ANALYSIS_MAX_BODIES],
                     analysis_row_impact *out)
{
    icv_vec3 P0 = {0}, P1 = {0}, V0 = {0}, V1 = {0}, Vc = {0}, J = {0}, VJ = {0}, A0 = {0}, A1 = {0};
    double e0 = 0, e1 = 0, ve0 = 0, ve1 = 0;
    for (int r = 0; r < n; r++) {
        int k = ord[r];
        const analysis_body_track *bt = &bodies[idx[k]];
        double m = bt->body->mass;
        out->body[r] = idx[k];
        out->pre[r] = pre[k];
        out->post[r] = post[k];
        /* each state also moves with the instant: its own acceleration times t's sigma
           (the sums below take that shift as common to all) */
        for (int a = 0; a < 3; a++) {
            double n2 = sq(icv_v3_get(normal, a));
            icv_v3_set(&out->pre[r].v_sd, a,
                       sqrt(sq(icv_v3_get(pre[k].v_sd, a)) + sq(icv_v3_get(pre[k].a, a) * ts) + n2 * xv[0][r]));
            icv_v3_set(&out->post[r].v_sd, a,
                       sqrt(sq(icv_v3_get(post[k].v_sd, a)) + sq(icv_v3_get(post[k].a, a) * ts) + n2 * xv[1][r]));
        }
        A0 = icv_v3_axpy(m, pre[k].a, A0);
        A1 = icv_v3_axpy(m, post[k].a, A1);
        P0 = icv_v3_axpy(m, pre[k].v, P0);
        P1 = icv_v3_axpy(m, post[k].v, P1);
        for (int a = 0; a < 3; a++) {
            icv_v3_set(&V0, a, icv_v3_get(V0, a) + sq(m * icv_v3_get(pre[k].v_sd, a)));
            icv_v3_set(&V1, a, icv_v3_get(V1, a) + sq(m * icv_v3_get(post[k].v_sd, a)));
        }
        icv_vec3 Jk = icv_v3_scale(icv_v3_sub(post[k].v, pre[k].v), m), VJk = change_var(m, &pre[k], &post[k]);
        /* the exchange cancels in the row's sum, not in a body's change or the impulse
           passed to the next */
        icv_vec3 VXk = icv_v3_scale(icv_v3(sq(normal.x), sq(normal.y), sq(normal.z)), m * m * (xv[0][r] + xv[1][r]));
        out->impulse_body[r] = Jk;
        out->impulse_body_sd[r] = v3_sqrt(icv_v3_add(VJk, VXk));
        Vc = icv_v3_add(Vc, VJk);
        J = icv_v3_add(J, Jk);
        VJ = icv_v3_add(VJ, icv_v3_add(VJk, VXk));
        for (int q = 0; q < r; q++) { /* the correlated centres: twice each pair's covariance */
            const analysis_body_state *sq0 = &pre[ord[q]], *sq1 = &post[ord[q]];
            double mq = bodies[idx[ord[q]]].body->mass;
            for (int a = 0; a < 3; a++) {
                double c0 = 2 * m * mq * rho[0][r][q] * icv_v3_get(pre[k].v_sd, a) * icv_v3_get(sq0->v_sd, a);
                double c1 = 2 * m * mq * rho[1][r][q] * icv_v3_get(post[k].v_sd, a) * icv_v3_get(sq1->v_sd, a);
                icv_v3_set(&V0, a, icv_v3_get(V0, a) + c0);
                icv_v3_set(&V1, a, icv_v3_get(V1, a) + c1);
                icv_v3_set(&Vc, a, icv_v3_get(Vc, a) + c0 + c1);
                icv_v3_set(&VJ, a, icv_v3_get(VJ, a) + c0 + c1);
            }
        }
        if (r < n - 1) {
            out->impulse_between[r] = icv_v3_scale(J, -1);
            out->impulse_between_sd[r] = v3_sqrt(VJ);
        }
        e0 += pre[k].energy;
        e1 += post[k].energy;
        ve0 += sq(pre[k].energy_sd);
        ve1 += sq(post[k].energy_sd);
    }
    for (int a = 0; a < 3; a++) { /* the common shift with the instant */
        icv_v3_set(&V0, a, icv_v3_get(V0, a) + sq(icv_v3_get(A0, a) * ts));
        icv_v3_set(&V1, a, icv_v3_get(V1, a) + sq(icv_v3_get(A1, a) * ts));
        icv_v3_set(&Vc, a, icv_v3_get(Vc, a) + sq((icv_v3_get(A1, a) - icv_v3_get(A0, a)) * ts));
    }
    out->momentum_pre = P0;
    out->momentum_pre_sd = v3_sqrt(V0);
    out->momentum_post = P1;
    out->momentum_post_sd = v3_sqrt(V1);
    out->momentum_change = icv_v3_sub(P1, P0);
    out->momentum_change_sd = v3_sqrt(Vc);
    out->momentum_change_chi2 = 0;
    for (int a = 0; a < 3; a++)
        if (icv_v3_get(Vc, a) > 0)
            out->momentum_change_chi2 += sq(icv_v3_get(out->momentum_change, a)) / icv_v3_get(Vc, a);
    out->energy_pre = e0;
    out->energy_pre_sd = sqrt(ve0);
    out->energy_post = e1;
    out->energy_post_sd = sqrt(ve1);
    out->energy_lost = e0 - e1;
    out->energy_lost_sd = sqrt(ve0 + ve1);
    out->loss_fraction = e0 > 0 ? 1 - e1 / e0 : NAN;
    out->loss_fraction_sd = e0 > 0 ? sqrt(ve1 / sq(e0) + sq(e1) * ve0 / sq(sq(e0))) : NAN;
}

int analysis_row_impact_measure(const analysis_body_track *bodies, int n_bodies, unsigned group, int ia, int ib,
                                int row, int lo_row, int hi_row, const icv_vec3 *g, const analysis_params *prm,
                                analysis_row_impact *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    if (ia < 0 || ib < 0 || ia >= n_bodies || ib >= n_bodies || ia == ib || !(group & 1u << ia) ||
        !(group & 1u << ib))
        return icv_err_set(err, ICV_EINVAL, "row impact: bodies %d and %d of %d (group %#x)", ia, ib, n_bodies,
                           group);
    const analysis_tracks *tr = bodies[ia].tracks;
    if (row < 0 || row >= tr->n_frames)
        return icv_err_set(err, ICV_EINVAL, "row impact: row %d of %d", row, tr->n_frames);
    int idx[ANALYSIS_MAX_BODIES], n = 0;
    for (int k = 0; k < n_bodies && k < ANALYSIS_MAX_BODIES; k++)
        if (group & 1u << k)
            idx[n++] = k;
    double t_star = tr->t[row];
    analysis_body_state pre[ANALYSIS_MAX_BODIES], post[ANALYSIS_MAX_BODIES];
    int rc, pa = 0, pb = 0, fl[4] = {0};
    if ((rc = row_sides_fit(bodies, idx, n, ia, ib, row, lo_row, hi_row, g, prm, &t_star, pre, post, &pa, &pb, fl,
                            err)))
        return rc;
    analysis_shapes_gap c;
    analysis_shapes_gap_at(&bodies[ia].body->shape, pre[pa].R, pre[pa].p, &bodies[ib].body->shape, pre[pb].R,
                           pre[pb].p, &c);
    out->normal = c.normal;
    out->frame = tr->frame[row];
    out->t = t_star;
    out->n = n;
    /* the instant's sigma: the pair's gap along the normal over its closing speed */
    double gap_var = 0, closing = fabs(icv_v3_dot(icv_v3_sub(pre[pb].v, pre[pa].v), c.normal));
    for (int a = 0; a < 3; a++)
        gap_var += sq(icv_v3_get(c.normal, a)) * (sq(icv_v3_get(pre[pa].p_sd, a)) + sq(icv_v3_get(pre[pb].p_sd, a)));
    out->t_sd = closing > 0 ? sqrt(gap_var) / closing : NAN;
    double ts = isfinite(out->t_sd) ? out->t_sd : 0;
    int ord[ANALYSIS_MAX_BODIES];
    double xv[2][ANALYSIS_MAX_BODIES] = {{0}}, rho[2][ANALYSIS_MAX_BODIES][ANALYSIS_MAX_BODIES] = {{{0}}};
    if (row_exchange(bodies, idx, n, prm, pre, post, c.normal, fl, ord, xv, rho)) {
        const char *na = bodies[ia].name ? bodies[ia].name : "a", *nb = bodies[ib].name ? bodies[ib].name : "b";
        return icv_err_set(err, ICV_ENOMEM, "row impact %s-%s at frame %d: out of memory", na, nb, tr->frame[row]);
    }
    row_sums(bodies, idx, n, pre, post, c.normal, ts, ord, xv, rho, out);
    return 0;
}
