/* bodies_chain.c: two bodies pinned at a joint. The joint's constraint checked on
 * the tracks (the distance between the two bodies' joint points, frame by frame,
 * against what the pose fits' noise alone gives a perfect pin), and the chain's
 * impact with the surface: each link's states on each side (POLY: the joint pulls
 * each link, neither flies freely), its kinetic energies and Akhan's energetic
 * coefficient e = sqrt(T_after / T_before) (his eq. 4.1) per link and for the
 * chain, with 1-sigma by Monte Carlo over the fits and the instant; each of its
 * impacts, a bounce's flight up the next impact's flight down. */
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bodies_internal.h"

/* m^2: the variance (trace) of a body-frame point x from a pose fit of template t
 * with isotropic marker sigma s: the centroid's s^2 / n per axis and the rotation's
 * s^2 M^-1 about it, M = sum (|m|^2 I - m m^T) over the markers about their centroid */
static double point_variance(const analysis_template *t, icv_vec3 x, double s)
{
    int n = t->n_markers;
    if (n < 1)
        return NAN;
    icv_vec3 c = icv_v3(0, 0, 0);
    for (int k = 0; k < n; k++)
        c = icv_v3_add(c, t->markers[k]);
    c = icv_v3_scale(c, 1.0 / n);
    double var = 3 * s * s / n;
    if (n < 2)
        return var;
    icv_mat3 M = {{{0}}}, Mi;
    for (int k = 0; k < n; k++) {
        icv_vec3 m = icv_v3_sub(t->markers[k], c);
        icv_mat3 S = icv_m3_skew(m);
        M = icv_m3_add(M, icv_m3_mul(icv_m3_transpose(S), S));
    }
    if (icv_m3_inverse(M, &Mi) != 0)
        return var; /* collinear: the spin about the line is not fitted */
    icv_mat3 S = icv_m3_skew(icv_v3_sub(x, c)), C = icv_m3_mul(icv_m3_mul(S, Mi), icv_m3_transpose(S));
    return var + s * s * (C.m[0][0] + C.m[1][1] + C.m[2][2]);
}

int analysis_joint_residual_measure(const analysis_body_track *bodies, int n_bodies, const analysis_joint *j,
                                    const analysis_params *prm, analysis_joint_residual *out, double *per_frame,
                                    icv_err *err)
{
    memset(out, 0, sizeof *out);
    if (j->body[0] < 0 || j->body[1] < 0 || j->body[0] >= n_bodies || j->body[1] >= n_bodies ||
        j->body[0] == j->body[1])
        return icv_err_set(err, ICV_EINVAL, "joint: bodies %d and %d of %d", j->body[0], j->body[1], n_bodies);
    const analysis_body_track *A = &bodies[j->body[0]], *B = &bodies[j->body[1]];
    int nf = A->tracks->n_frames;
    if (B->tracks->n_frames != nf)
        return icv_err_set(err, ICV_EINVAL, "joint: the two bodies' tracks have %d and %d frames", nf,
                           B->tracks->n_frames);
    body_pose *pose = malloc(sizeof *pose * 2 * (size_t)nf);
    if (!pose)
        return icv_err_set(err, ICV_ENOMEM, "joint: out of memory for %d frames", nf);
    bodies_poses(A, prm, pose);
    bodies_poses(B, prm, pose + nf);
    double ss = 0;
    icv_vec3 sum = icv_v3(0, 0, 0);
    for (int i = 0; i < nf; i++) {
        if (per_frame)
            per_frame[i] = NAN;
        if (!pose[i].ok || !pose[nf + i].ok)
            continue;
        icv_vec3 xa = icv_v3_add(icv_m3_apply(pose[i].R, j->at[0]), pose[i].p);
        icv_vec3 xb = icv_v3_add(icv_m3_apply(pose[nf + i].R, j->at[1]), pose[nf + i].p);
        icv_vec3 d = icv_v3_sub(xb, xa);
        double dist = icv_v3_norm(d);
        if (per_frame)
            per_frame[i] = dist;
        ss += dist * dist;
        sum = icv_v3_add(sum, d);
        if (dist > out->max) {
            out->max = dist;
            out->t_max = A->tracks->t[i];
        }
        out->n_frames++;
    }
    free(pose);
    if (out->n_frames == 0)
        return icv_err_set(err, ICV_ENOTFOUND, "joint %s-%s: no frame where both bodies have a pose",
                           A->name ? A->name : "a", B->name ? B->name : "b");
    out->rms = sqrt(ss / out->n_frames);
    out->mean = icv_v3_scale(sum, 1.0 / out->n_frames);
    double s = prm->pos_sigma > 0 ? prm->pos_sigma : 3e-4;
    out->expected_rms = sqrt(point_variance(&A->body->tmpl, j->at[0], s) + point_variance(&B->body->tmpl, j->at[1], s));
    return 0;
}

/* The chain's motion before an impact, for the hit link's pose: only gravity and the
 * pin's internal force act, so the chain's centre of mass flies a parabola (the
 * links' quadratic centres weighted by mass are the least-squares parabola of the
 * centre of mass itself, on the same frames), and the hit link's centre is that
 * point plus the pin's geometry from both links' attitudes. A link's own centre
 * turns about the centre of mass and is no parabola: its own quadratic drifts off
 * as the chain spins and its window grows (a straight chain spinning at 20 rad/s,
 * 120 frames a side at 6000 fps: 0.06 frame), the pair's does not. Each body's
 * frame origin is its centre of mass, as its energies take it. */
typedef struct {
    const analysis_body *b[2]; /* the hit link, the other */
    analysis_body_state s[2];  /* their pre-impact states */
    icv_vec3 joint[2];         /* the pin's point in each one's frame */
} chain_motion;

static void chain_hit_pose(const chain_motion *m, double dt, icv_mat3 *R, icv_vec3 *p)
{
    analysis_body_state h = m->s[0], o = m->s[1];
    bodies_state_advance(&h, dt);
    bodies_state_advance(&o, dt);
    double mh = m->b[0]->mass, mo = m->b[1]->mass, w = mh + mo > 0 ? mo / (mh + mo) : 0;
    /* p_h - p_o from the pin: p_h + R_h j_h = p_o + R_o j_o */
    icv_vec3 rel = icv_v3_sub(icv_m3_apply(o.R, m->joint[1]), icv_m3_apply(h.R, m->joint[0]));
    icv_vec3 com = icv_v3_add(icv_v3_scale(h.p, 1 - w), icv_v3_scale(o.p, w));
    *R = h.R;
    *p = icv_v3_axpy(w, rel, com);
}

/* the hit link's lowest point's height above the surface, dt after the states */
static double chain_gap_after(double dt, void *data)
{
    const chain_motion *m = data;
    icv_mat3 R;
    icv_vec3 p;
    chain_hit_pose(m, dt, &R, &p);
    return analysis_gap_at(m->b[0], R, p);
}

enum { C_E0, C_E1, C_EC, C_T0PRE, C_T1PRE, C_T0POST, C_T1POST, C_TPRE, C_TPOST, C_T, C_TMEET, C_N };

/* Where the chain's centre of mass before and after meet (it does not jump in an
 * impact): t plus the shift that brings the post-impact centre closest to the
 * pre-impact one, the links' states at t. NaN when the velocity does not change. A
 * common error of every position (a surface placed a few tens of um off, the
 * motion plane's pose) leaves it where it is, unlike the instant from the surface. */
static double chain_meet(const analysis_body *b0, const analysis_body *b1, const analysis_body_state st[4], double t)
{
    double m0 = b0->mass, m1 = b1->mass, w = m0 + m1 > 0 ? m1 / (m0 + m1) : 0.5, tm, sd;
    analysis_body_state c[2];
    memset(c, 0, sizeof c);
    for (int side = 0; side < 2; side++) {
        c[side].p = icv_v3_add(icv_v3_scale(st[2 * side].p, 1 - w), icv_v3_scale(st[2 * side + 1].p, w));
        c[side].v = icv_v3_add(icv_v3_scale(st[2 * side].v, 1 - w), icv_v3_scale(st[2 * side + 1].v, w));
    }
    bodies_meet(&c[0], &c[1], t, &tm, &sd); /* its sigma: the Monte Carlo's, below */
    return tm;
}

static void chain_derive(const analysis_body *b0, const analysis_body *b1, const analysis_body_state st[4], double t,
                         double *x)
{
    x[C_T0PRE] = bodies_kinetic(b0, st[0].R, st[0].v, st[0].omega);
    x[C_T1PRE] = bodies_kinetic(b1, st[1].R, st[1].v, st[1].omega);
    x[C_T0POST] = bodies_kinetic(b0, st[2].R, st[2].v, st[2].omega);
    x[C_T1POST] = bodies_kinetic(b1, st[3].R, st[3].v, st[3].omega);
    x[C_TPRE] = x[C_T0PRE] + x[C_T1PRE];
    x[C_TPOST] = x[C_T0POST] + x[C_T1POST];
    x[C_E0] = x[C_T0PRE] > 0 ? sqrt(fmax(x[C_T0POST], 0) / x[C_T0PRE]) : NAN;
    x[C_E1] = x[C_T1PRE] > 0 ? sqrt(fmax(x[C_T1POST], 0) / x[C_T1PRE]) : NAN;
    x[C_EC] = x[C_TPRE] > 0 ? sqrt(fmax(x[C_TPOST], 0) / x[C_TPRE]) : NAN;
    x[C_T] = t;
    x[C_TMEET] = chain_meet(b0, b1, st, t);
}

/* A run of frames within reach of the surface: its first and last rows, its lowest
 * row and the link lowest there. */
typedef struct {
    int first, last, row, hit;
} chain_run;

/* The gap's noise (m) from its second differences over consecutive posed frames
 * (their MAD; a flight's curvature is far below it frame to frame), at least sigma:
 * the lowest point swings with the attitude's noise times its lever. */
static double gap_sigma(const double *gap, int nf, double sigma)
{
    double *d2 = malloc(sizeof *d2 * (size_t)(nf > 0 ? nf : 1));
    if (!d2)
        return sigma;
    int n = 0;
    for (int i = 1; i + 1 < nf; i++)
        if (isfinite(gap[i - 1]) && isfinite(gap[i]) && isfinite(gap[i + 1]))
            d2[n++] = fabs(gap[i + 1] - 2 * gap[i] + gap[i - 1]);
    double s = sigma;
    if (n >= 8) /* a second difference of white noise has sigma sqrt(6) times the noise's */
        s = fmax(sigma, 1.4826 * analysis_median(d2, n) / sqrt(6.0));
    free(d2);
    return s;
}

/* Every run of frames where either link comes within reach of the surface (5 sigma
 * plus the gap's change to the nearest posed frames times the frames to them: the
 * links' markers hide as they hit, and a frame's travel alone leaves the last frames
 * before the gap out of reach), at most max. A chain leaving the surface slowly
 * crosses that reach back and forth in the noise: a run begins anew only after a
 * flight between, min_side frames out of reach at least and rising 20 of the gap's
 * own sigmas (gap_sigma) above the run's lowest gap. */
static int chain_runs(const analysis_params *prm, int nf, const double *gap, const int *low, chain_run *runs, int max)
{
    double sigma = prm->pos_sigma > 0 ? prm->pos_sigma : 3e-4, away_max = 0, rise = 20 * gap_sigma(gap, nf, sigma);
    int n = 0, in_run = 0, away = 0, need = prm->min_side_frames > 4 ? prm->min_side_frames : 4;
    for (int i = 0; i < nf; i++) {
        if (!isfinite(gap[i]))
            continue;
        int p = i - 1, q = i + 1, reach = 1;
        while (p >= 0 && !isfinite(gap[p]))
            p--;
        while (q < nf && !isfinite(gap[q]))
            q++;
        double rate = 0;
        if (p >= 0)
            rate = fmax(rate, fabs(gap[i] - gap[p]) / (i - p)), reach = i - p > reach ? i - p : reach;
        if (q < nf)
            rate = fmax(rate, fabs(gap[q] - gap[i]) / (q - i)), reach = q - i > reach ? q - i : reach;
        if (!(gap[i] < 5 * sigma + rate * reach)) {
            away++;
            away_max = fmax(away_max, gap[i]);
            if (in_run && away >= need && away_max > gap[runs[n - 1].row] + rise)
                in_run = 0;
            continue;
        }
        away = 0, away_max = 0;
        if (!in_run) {
            if (n == max)
                break;
            runs[n++] = (chain_run){i, i, i, low[i]};
            in_run = 1;
        }
        chain_run *r = &runs[n - 1];
        r->last = i;
        if (gap[i] < gap[r->row])
            r->row = i, r->hit = low[i];
    }
    return n;
}

/* The surface's instant against the centre's meeting, as a single body's
 * (impact_instant.c): the surface's is kept while they agree within 3 combined
 * sigmas, and then what their distance says beyond both sigmas is an error of the
 * surface's height that no residual shows (the motion plane's or the surface
 * line's pose: tens of um), taken into its sigma; beyond, the meeting, which a
 * common offset of every point leaves where it is. */
static void chain_instant_choose(double t_meet, double t_meet_sd, analysis_chain_impact *out)
{
    out->t_line = out->t;
    out->t_line_sd = out->t_sd;
    out->t_meet = t_meet;
    out->t_meet_sd = t_meet_sd;
    out->from_meet = 0;
    if (!isfinite(t_meet) || !(t_meet_sd > 0))
        return;
    double d = out->t - t_meet, lim = 3 * hypot(out->t_sd, t_meet_sd);
    icv_debug("chain instant: surface %.7f +- %.2g s, centre meets %.7f +- %.2g s", out->t, out->t_sd, t_meet,
              t_meet_sd);
    if (fabs(d) > lim) {
        out->t = t_meet;
        out->t_sd = t_meet_sd;
        out->from_meet = 1;
        return;
    }
    out->t_sd = hypot(out->t_sd, analysis_unexplained_sd(d, out->t_sd, t_meet_sd));
}

/* The impact of run r: each link fitted on each side within rows (lo_row, hi_row),
 * the instant where the hit link's pre-impact motion as the chain's (chain_motion)
 * touches, energies and e with their Monte Carlo sigmas. */
static int chain_impact_at(const analysis_body_track links[2], const analysis_joint *j, const analysis_params *prm,
                           const chain_run *r, int lo_row, int hi_row, analysis_chain_impact *out, icv_err *err)
{
    const analysis_tracks *tr = links[0].tracks;
    int row = r->row, hit = r->hit, other = 1 - hit, rc;
    icv_vec3 joint_hit = j->body[0] == hit ? j->at[0] : j->at[1], joint_other = j->body[0] == hit ? j->at[1] : j->at[0];
    chain_motion cm;
    memset(&cm, 0, sizeof cm);
    cm.b[0] = links[hit].body, cm.b[1] = links[other].body;
    cm.joint[0] = joint_hit, cm.joint[1] = joint_other;
    double dt = bodies_frame_period(tr), excl = prm->exposure_s > 0 ? prm->exposure_s : dt, t_star = tr->t[row];
    analysis_body_state st[4];
    for (int it = 0; it < 8; it++) {
        int f0, l0, f1, l1;
        if (bodies_window(tr, t_star, excl, lo_row, hi_row, 0, prm->max_side_frames, &f0, &l0) == 0 ||
            bodies_window(tr, t_star, excl, lo_row, hi_row, 1, prm->max_side_frames, &f1, &l1) == 0)
            return icv_err_set(err, ICV_EINVAL, "chain: impact at frame %d has no frames on one side", tr->frame[row]);
        if ((rc = analysis_body_side_fit(&links[0], f0, l0, t_star, NULL, prm, &st[0], err)) ||
            (rc = analysis_body_side_fit(&links[1], f0, l0, t_star, NULL, prm, &st[1], err)))
            return rc;
        cm.s[0] = st[hit], cm.s[1] = st[other];
        double off = analysis_root_or_min(chain_gap_after, &cm, tr->t[l0] - t_star, tr->t[f1] - t_star, 1e-13, 0);
        if (fabs(off) < 1e-9 * dt || it == 7) {
            if ((rc = analysis_body_side_fit(&links[0], f1, l1, t_star, NULL, prm, &st[2], err)) ||
                (rc = analysis_body_side_fit(&links[1], f1, l1, t_star, NULL, prm, &st[3], err)))
                return rc;
            break;
        }
        t_star += off;
    }
    out->frame = tr->frame[row];
    out->link_hit = hit;
    out->t = t_star;
    icv_mat3 R_hit;
    icv_vec3 p_hit;
    cm.s[0] = st[hit], cm.s[1] = st[other];
    chain_hit_pose(&cm, 0, &R_hit, &p_hit);
    out->contact_point = icv_shape_lowest_point(&links[hit].body->shape, R_hit, p_hit, icv_v3(0, 1, 0));
    memcpy(out->pre, st, 2 * sizeof st[0]);
    memcpy(out->post, st + 2, 2 * sizeof st[0]);
    double x[C_N];
    chain_derive(links[0].body, links[1].body, st, t_star, x);
    /* Monte Carlo as for two bodies: the states drawn, the instant moved by one
     * Newton step on the hit link's drawn gap */
    double h = 1e-3 * dt, rate = (chain_gap_after(h, &cm) - chain_gap_after(-h, &cm)) / (2 * h);
    double L[4][6][6];
    for (int k = 0; k < 4; k++)
        analysis_cholesky(&st[k].cov_rot[0][0], 6, &L[k][0][0]);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        return icv_err_set(err, ICV_ENOMEM, "chain: out of memory");
    gsl_rng_set(rng, 12345);
    int m = prm->mc_samples > 10 ? prm->mc_samples : 10;
    bodies_stats sts = {0};
    for (int k = 0; k < m; k++) {
        analysis_body_state d[4];
        for (int s = 0; s < 4; s++)
            bodies_state_draw(rng, &st[s], L[s], &d[s]);
        chain_motion dm = cm;
        dm.s[0] = d[hit], dm.s[1] = d[other];
        double step = rate < 0 ? -chain_gap_after(0, &dm) / rate : 0;
        for (int s = 0; s < 4; s++)
            bodies_state_advance(&d[s], step);
        double y[C_N];
        chain_derive(links[0].body, links[1].body, d, t_star + step, y);
        if (isfinite(y[C_EC]) && isfinite(y[C_TMEET]))
            bodies_stats_add(&sts, y, x, C_N);
    }
    gsl_rng_free(rng);
    out->t_sd = bodies_stats_sd(&sts, C_T);
    chain_instant_choose(x[C_TMEET], bodies_stats_sd(&sts, C_TMEET), out);
    out->e_link[0] = x[C_E0];
    out->e_link[1] = x[C_E1];
    out->e_link_sd[0] = bodies_stats_sd(&sts, C_E0);
    out->e_link_sd[1] = bodies_stats_sd(&sts, C_E1);
    out->e_chain = x[C_EC];
    out->e_chain_sd = bodies_stats_sd(&sts, C_EC);
    out->energy_pre = x[C_TPRE];
    out->energy_pre_sd = bodies_stats_sd(&sts, C_TPRE);
    out->energy_post = x[C_TPOST];
    out->energy_post_sd = bodies_stats_sd(&sts, C_TPOST);
    return 0;
}

int analysis_chain_impacts_measure(const analysis_body_track links_in[2], const analysis_joint *j,
                                   const analysis_params *prm, analysis_bodies_result *res, icv_err *err)
{
    res->n_chain = 0;
    analysis_body_track links[2] = {links_in[0], links_in[1]};
    links[0].motion = links[1].motion = ANALYSIS_MOTION_POLY; /* pulled by the joint */
    links[0].on_surface = links[1].on_surface = 0;
    const analysis_tracks *tr = links[0].tracks;
    int nf = tr->n_frames;
    if (links[1].tracks->n_frames != nf)
        return icv_err_set(err, ICV_EINVAL, "chain: the two links' tracks have %d and %d frames", nf,
                           links[1].tracks->n_frames);
    analysis_joint_residual joint;
    int rc = analysis_joint_residual_measure(links, 2, j, prm, &joint, NULL, err);
    if (rc)
        return rc;
    body_pose *pose = malloc(sizeof *pose * 2 * (size_t)nf);
    double *gap = malloc(sizeof *gap * (size_t)nf);
    int *low = malloc(sizeof *low * (size_t)nf);
    if (!pose || !gap || !low) {
        free(pose), free(gap), free(low);
        return icv_err_set(err, ICV_ENOMEM, "chain: out of memory for %d frames", nf);
    }
    bodies_poses(&links[0], prm, pose);
    bodies_poses(&links[1], prm, pose + nf);
    double min_gap = INFINITY;
    for (int i = 0; i < nf; i++) {
        gap[i] = INFINITY;
        low[i] = 0;
        for (int k = 0; k < 2; k++) {
            const body_pose *p = &pose[k * nf + i];
            if (!p->ok)
                continue;
            double gk = analysis_gap_at(links[k].body, p->R, p->p);
            if (gk < gap[i])
                gap[i] = gk, low[i] = k;
        }
        min_gap = fmin(min_gap, gap[i]);
    }
    chain_run runs[ANALYSIS_MAX_CHAIN_IMPACTS];
    int n_runs = chain_runs(prm, nf, gap, low, runs, ANALYSIS_MAX_CHAIN_IMPACTS);
    free(gap);
    free(low);
    free(pose);
    if (n_runs == 0)
        return icv_err_set(err, ICV_ENOTFOUND, "chain: no impact with the surface: the smallest gap is %.1f mm",
                           1e3 * min_gap);
    /* each impact's sides end where the runs beside it begin: a bounce's flight up is
       the next impact's flight down */
    icv_err first = {0};
    for (int k = 0; k < n_runs; k++) {
        int lo_row = k > 0 ? runs[k - 1].last : -1, hi_row = k + 1 < n_runs ? runs[k + 1].first : nf;
        icv_err e1 = {0};
        analysis_chain_impact *out = &res->chain[res->n_chain];
        memset(out, 0, sizeof *out);
        if ((rc = chain_impact_at(links, j, prm, &runs[k], lo_row, hi_row, out, &e1)) != 0) {
            if (rc == ICV_ENOMEM)
                return icv_err_set(err, rc, "%s", e1.msg);
            if (!first.code)
                first = e1;
            if (res->n_skipped < ANALYSIS_MAX_IMPACTS)
                snprintf(res->skipped[res->n_skipped], sizeof res->skipped[0], "the chain's impact %d of %d not "
                         "measured: %s", k + 1, n_runs, e1.msg);
            res->n_skipped++;
            continue;
        }
        out->joint = joint;
        res->n_chain++;
    }
    if (res->n_chain == 0)
        return icv_err_set(err, first.code, "%s", first.msg);
    return 0;
}
