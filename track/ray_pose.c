/* ray_pose.c: the body's pose in one frame from its triangulated markers and the
 * rays of markers one camera alone sees: a frame with two markers in 3D
 * and a third on one camera's ray still fixes the pose. Maximum likelihood over the
 * pose's 6 parameters (5 for markers on one line, whose roll is not seen): each point
 * whitened by its triangulation covariance, each ray by its pixel sigma (the
 * point-to-ray distance over the depth is the reprojection error over the focal
 * length, to first order), solved by Levenberg-Marquardt from the previous frame's pose
 * and from every depth on each ray at which the template's distances to the points
 * hold; the covariance is (J^T J)^-1 at the optimum (Hartley & Zisserman sec. 5.2.3).
 * Allocates nothing. */
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "track/track_3d.h"

#define MAX_PAR 6
#define MAX_INIT 16
#define DEPTH_STEPS 400

typedef struct {
    const icv_vec3 *tmpl;
    const track_pose_obs *obs;
    int n;
    int collinear;
    icv_vec3 axis; /* body frame: the line of a collinear template */
} fit_ctx;

/* Orthonormal e1, e2 perpendicular to unit d. */
static void perp_basis(icv_vec3 d, icv_vec3 *e1, icv_vec3 *e2)
{
    icv_vec3 a = fabs(d.x) < 0.6 ? icv_v3(1, 0, 0) : icv_v3(0, 1, 0);
    *e1 = icv_v3_unit(icv_v3_cross(d, a));
    *e2 = icv_v3_cross(d, *e1);
}

/* The rotation increment's basis (world frame): 3 axes, or for a line the 2 axes
 * perpendicular to it (its roll moves no marker). Returns how many. */
static int rot_basis(const fit_ctx *c, icv_mat3 R, icv_vec3 B[3])
{
    if (!c->collinear) {
        B[0] = icv_v3(1, 0, 0), B[1] = icv_v3(0, 1, 0), B[2] = icv_v3(0, 0, 1);
        return 3;
    }
    perp_basis(icv_v3_unit(icv_m3_apply(R, c->axis)), &B[0], &B[1]);
    return 2;
}

/* Whitened residuals and their Jacobian rows (np parameters) at pose (R, p); returns
 * the number of residuals. r, J sized 3 n. */
static int residuals(const fit_ctx *c, icv_mat3 R, icv_vec3 p, const icv_vec3 *B, int nw, double *r,
                     double (*J)[MAX_PAR])
{
    int m = 0;
    for (int i = 0; i < c->n; i++) {
        const track_pose_obs *o = &c->obs[i];
        icv_vec3 Rb = icv_m3_apply(R, c->tmpl[o->marker]), Y = icv_v3_add(Rb, p);
        /* dY/dparams: rotation w (Y += w x Rb) then translation */
        icv_vec3 dY[MAX_PAR];
        for (int k = 0; k < nw; k++)
            dY[k] = icv_v3_cross(B[k], Rb);
        dY[nw] = icv_v3(1, 0, 0), dY[nw + 1] = icv_v3(0, 1, 0), dY[nw + 2] = icv_v3(0, 0, 1);
        int np = nw + 3;
        if (!o->is_ray) {
            icv_vec3 e = icv_v3_sub(Y, o->X);
            /* L^-1 e with cov = L L^T (Cholesky of the 3x3, lower) */
            double L[3][3] = {{0}};
            const double(*S)[3] = o->cov;
            L[0][0] = sqrt(S[0][0]);
            L[1][0] = S[1][0] / L[0][0];
            L[1][1] = sqrt(S[1][1] - L[1][0] * L[1][0]);
            L[2][0] = S[2][0] / L[0][0];
            L[2][1] = (S[2][1] - L[2][0] * L[1][0]) / L[1][1];
            L[2][2] = sqrt(S[2][2] - L[2][0] * L[2][0] - L[2][1] * L[2][1]);
            if (!(L[0][0] > 0 && L[1][1] > 0 && L[2][2] > 0)) { /* not positive definite: its mean variance */
                double sd = sqrt(fmax((S[0][0] + S[1][1] + S[2][2]) / 3, 1e-18));
                memset(L, 0, sizeof L);
                L[0][0] = L[1][1] = L[2][2] = sd;
            }
            double v[3] = {e.x, e.y, e.z};
            for (int k = 0; k < np; k++) {
                double g[3] = {dY[k].x, dY[k].y, dY[k].z}, y[3];
                for (int a = 0; a < 3; a++) {
                    y[a] = g[a];
                    for (int b = 0; b < a; b++)
                        y[a] -= L[a][b] * y[b];
                    y[a] /= L[a][a];
                }
                for (int a = 0; a < 3; a++)
                    J[m + a][k] = y[a];
            }
            for (int a = 0; a < 3; a++) {
                double y = v[a];
                for (int b = 0; b < a; b++)
                    y -= L[a][b] * r[m + b];
                r[m + a] = y / L[a][a];
            }
            m += 3;
        } else {
            icv_vec3 q = icv_v3_sub(Y, o->o), e1, e2;
            double s = icv_v3_dot(q, o->d);
            if (!(s > 0))
                s = 1e-9; /* behind the camera: a huge residual, never a fit */
            perp_basis(o->d, &e1, &e2);
            icv_vec3 e[2] = {e1, e2};
            for (int a = 0; a < 2; a++) {
                double num = icv_v3_dot(e[a], q), den = o->sigma_rad * s;
                r[m + a] = num / den;
                icv_vec3 g = icv_v3_axpy(-num / (den * s), o->d, icv_v3_scale(e[a], 1.0 / den));
                for (int k = 0; k < np; k++)
                    J[m + a][k] = icv_v3_dot(g, dY[k]);
            }
            m += 2;
        }
    }
    return m;
}

static double sumsq(const double *r, int m)
{
    double s = 0;
    for (int i = 0; i < m; i++)
        s += r[i] * r[i];
    return s;
}

/* Levenberg-Marquardt from (R, p). Returns chi-square; the pose in place; cov (np x np)
 * of the last basis when cov is given. */
static double refine(const fit_ctx *c, icv_mat3 *R, icv_vec3 *p, double cov[MAX_PAR][MAX_PAR], int *np_out)
{
    double r[3 * TRACK_POSE_MAX_OBS], J[3 * TRACK_POSE_MAX_OBS][MAX_PAR], rt[3 * TRACK_POSE_MAX_OBS];
    double Jt[3 * TRACK_POSE_MAX_OBS][MAX_PAR];
    icv_vec3 B[3];
    int nw = rot_basis(c, *R, B), np = nw + 3;
    int m = residuals(c, *R, *p, B, nw, r, J);
    double cost = sumsq(r, m), lambda = 1e-3;
    int converged = 0;
    for (int it = 0; it < 50 && !converged; it++) {
        double A[MAX_PAR * MAX_PAR], g[MAX_PAR], dx[MAX_PAR];
        for (int a = 0; a < np; a++) {
            g[a] = 0;
            for (int i = 0; i < m; i++)
                g[a] += J[i][a] * r[i];
            for (int b = 0; b < np; b++) {
                double s = 0;
                for (int i = 0; i < m; i++)
                    s += J[i][a] * J[i][b];
                A[a * np + b] = s;
            }
        }
        int accepted = 0;
        for (int tries = 0; tries < 10 && !accepted; tries++) {
            double Ad[MAX_PAR * MAX_PAR];
            memcpy(Ad, A, sizeof A);
            for (int a = 0; a < np; a++)
                Ad[a * np + a] += lambda * (A[a * np + a] > 0 ? A[a * np + a] : 1);
            gsl_matrix_view Av = gsl_matrix_view_array(Ad, (size_t)np, (size_t)np);
            gsl_vector_view gv = gsl_vector_view_array(g, (size_t)np), xv = gsl_vector_view_array(dx, (size_t)np);
            int bad = gsl_linalg_cholesky_decomp1(&Av.matrix) ||
                      gsl_linalg_cholesky_solve(&Av.matrix, &gv.vector, &xv.vector);
            if (bad) {
                lambda *= 10;
                continue;
            }
            icv_vec3 w = icv_v3(0, 0, 0);
            for (int k = 0; k < nw; k++)
                w = icv_v3_axpy(-dx[k], B[k], w);
            icv_mat3 Rn = icv_rot_orthonormalize(icv_m3_mul(icv_rot_from_axis_angle(w), *R));
            icv_vec3 pn = icv_v3_sub(*p, icv_v3(dx[nw], dx[nw + 1], dx[nw + 2]));
            int mt = residuals(c, Rn, pn, B, nw, rt, Jt);
            double ct = sumsq(rt, mt);
            if (ct <= cost) {
                double step = icv_v3_norm(w) + icv_v3_norm(icv_v3(dx[nw], dx[nw + 1], dx[nw + 2]));
                converged = cost - ct <= 1e-10 * (1 + cost) || step < 1e-12;
                *R = Rn;
                *p = pn;
                cost = ct;
                lambda = lambda > 1e-9 ? lambda / 10 : lambda;
                nw = rot_basis(c, *R, B);
                m = residuals(c, *R, *p, B, nw, r, J);
                accepted = 1;
            } else
                lambda *= 10;
        }
        if (!accepted)
            break;
    }
    if (cov) {
        double A[MAX_PAR * MAX_PAR];
        for (int a = 0; a < np; a++)
            for (int b = 0; b < np; b++) {
                double s = 0;
                for (int i = 0; i < m; i++)
                    s += J[i][a] * J[i][b];
                A[a * np + b] = s;
            }
        gsl_matrix_view Av = gsl_matrix_view_array(A, (size_t)np, (size_t)np);
        int bad = gsl_linalg_cholesky_decomp1(&Av.matrix) || gsl_linalg_cholesky_invert(&Av.matrix);
        for (int a = 0; a < np; a++)
            for (int b = 0; b < np; b++)
                cov[a][b] = bad ? NAN : A[a * np + b];
    }
    *np_out = np;
    return cost;
}

/* A pose through three or more points with known template positions: the triad of the
 * three spanning the largest template triangle, or for a line its two farthest. */
static int pose_from_points(const fit_ctx *c, const int *mk, const icv_vec3 *X, int n, icv_mat3 *R, icv_vec3 *p)
{
    int ia = -1, ib = -1, ic = -1;
    double best = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double d = icv_v3_norm(icv_v3_sub(c->tmpl[mk[a]], c->tmpl[mk[b]]));
            if (c->collinear && d > best)
                best = d, ia = a, ib = b;
            for (int k = b + 1; k < n && !c->collinear; k++) {
                double ar = icv_v3_norm(icv_v3_cross(icv_v3_sub(c->tmpl[mk[b]], c->tmpl[mk[a]]),
                                                     icv_v3_sub(c->tmpl[mk[k]], c->tmpl[mk[a]])));
                if (ar > best)
                    best = ar, ia = a, ib = b, ic = k;
            }
        }
    if (ia < 0)
        return -1;
    if (c->collinear) {
        icv_vec3 tb = icv_v3_unit(icv_v3_sub(c->tmpl[mk[ib]], c->tmpl[mk[ia]]));
        icv_vec3 xb = icv_v3_unit(icv_v3_sub(X[ib], X[ia]));
        icv_vec3 ax = icv_v3_cross(tb, xb);
        double s = icv_v3_norm(ax), co = icv_v3_dot(tb, xb);
        *R = s > 1e-12 ? icv_rot_from_axis_angle(icv_v3_scale(ax, atan2(s, co) / s)) : icv_m3_identity();
        if (s <= 1e-12 && co < 0)
            return -1;
    } else {
        icv_mat3 Fb, Fx;
        const icv_vec3 *P[2][3] = {{&c->tmpl[mk[ia]], &c->tmpl[mk[ib]], &c->tmpl[mk[ic]]}, {&X[ia], &X[ib], &X[ic]}};
        for (int w = 0; w < 2; w++) {
            icv_vec3 e1 = icv_v3_unit(icv_v3_sub(*P[w][1], *P[w][0]));
            icv_vec3 e3 = icv_v3_unit(icv_v3_cross(e1, icv_v3_sub(*P[w][2], *P[w][0])));
            icv_vec3 e2 = icv_v3_cross(e3, e1);
            icv_mat3 *F = w ? &Fx : &Fb;
            for (int i = 0; i < 3; i++) {
                F->m[i][0] = icv_v3_get(e1, i);
                F->m[i][1] = icv_v3_get(e2, i);
                F->m[i][2] = icv_v3_get(e3, i);
            }
        }
        *R = icv_m3_mul(Fx, icv_m3_transpose(Fb));
    }
    *p = icv_v3_sub(X[ia], icv_m3_apply(*R, c->tmpl[mk[ia]]));
    return 0;
}

/* The depths on ray obs[ir] at which the template's distances to the points best hold
 * (local minima of their squared misfit over a span around the points' depth); how
 * many, at most max. */
static int ray_depths(const fit_ctx *c, int ir, double *s_out, int max)
{
    const track_pose_obs *r = &c->obs[ir];
    double s0 = 0, reach = 0;
    int npt = 0;
    for (int j = 0; j < c->n; j++)
        if (!c->obs[j].is_ray) {
            s0 += icv_v3_dot(icv_v3_sub(c->obs[j].X, r->o), r->d);
            double D = icv_v3_norm(icv_v3_sub(c->tmpl[c->obs[j].marker], c->tmpl[r->marker]));
            reach = D > reach ? D : reach;
            npt++;
        }
    if (npt == 0 || reach <= 0)
        return 0;
    s0 /= npt;
    double lo = s0 - 1.5 * reach, step = 3 * reach / DEPTH_STEPS, prev2 = INFINITY, prev1 = INFINITY;
    int n = 0;
    for (int k = 0; k <= DEPTH_STEPS + 1 && n < max; k++) {
        double s = lo + step * k, g = 0;
        icv_vec3 Y = icv_v3_axpy(s, r->d, r->o);
        for (int j = 0; j < c->n; j++)
            if (!c->obs[j].is_ray) {
                double D = icv_v3_norm(icv_v3_sub(c->tmpl[c->obs[j].marker], c->tmpl[r->marker]));
                double e = icv_v3_norm(icv_v3_sub(Y, c->obs[j].X)) - D;
                g += e * e;
            }
        if (k >= 2 && prev1 < prev2 && prev1 <= g && lo + step * (k - 1) > 0)
            s_out[n++] = lo + step * (k - 1);
        prev2 = prev1;
        prev1 = g;
    }
    return n;
}

static int template_collinear(const icv_vec3 *tmpl, int nm, icv_vec3 *axis)
{
    int a = 0, b = 0;
    double best = 0;
    for (int i = 0; i < nm; i++)
        for (int j = i + 1; j < nm; j++) {
            double d = icv_v3_norm(icv_v3_sub(tmpl[i], tmpl[j]));
            if (d > best)
                best = d, a = i, b = j;
        }
    if (best <= 0)
        return 1;
    *axis = icv_v3_unit(icv_v3_sub(tmpl[b], tmpl[a]));
    for (int k = 0; k < nm; k++)
        if (icv_v3_norm(icv_v3_cross(icv_v3_sub(tmpl[k], tmpl[a]), *axis)) > 1e-6 * best)
            return 0;
    return 1;
}

int track_ray_pose_fit(const icv_vec3 *tmpl, int nm, const track_pose_obs *obs, int n, const track_pose *prior,
                       track_pose *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    if (nm < 2 || n < 1 || n > TRACK_POSE_MAX_OBS)
        return icv_err_set(err, ICV_EINVAL,
                           "ray pose: %d markers, %d observations (need 2+ markers, 1-%d observations)", nm, n,
                           TRACK_POSE_MAX_OBS);
    fit_ctx c = {tmpl, obs, n, 0, icv_v3(0, 0, 0)};
    c.collinear = template_collinear(tmpl, nm, &c.axis);
    int nres = 0, npt = 0;
    for (int i = 0; i < n; i++) {
        if (obs[i].marker < 0 || obs[i].marker >= nm)
            return icv_err_set(err, ICV_EINVAL, "ray pose: observation %d names marker %d of %d", i, obs[i].marker, nm);
        nres += obs[i].is_ray ? 2 : 3;
        npt += !obs[i].is_ray;
    }
    int npar = c.collinear ? 5 : 6;
    if (nres <= npar)
        return icv_err_set(err, ICV_ENOTFOUND, "ray pose: %d measured values for %d pose parameters", nres, npar);

    /* starting poses: the prior, and each ray's template depths with the points */
    icv_mat3 R0[MAX_INIT];
    icv_vec3 p0[MAX_INIT];
    int n0 = 0;
    if (prior)
        R0[n0] = prior->R, p0[n0++] = prior->p;
    {
        int mk[TRACK_POSE_MAX_OBS], m = 0;
        icv_vec3 X[TRACK_POSE_MAX_OBS];
        for (int j = 0; j < n; j++)
            if (!obs[j].is_ray)
                mk[m] = obs[j].marker, X[m++] = obs[j].X;
        if (m >= (c.collinear ? 2 : 3) && pose_from_points(&c, mk, X, m, &R0[n0], &p0[n0]) == 0)
            n0++;
    }
    for (int ir = 0; ir < n && n0 < MAX_INIT; ir++) {
        if (!obs[ir].is_ray)
            continue;
        double s[4];
        int ns = ray_depths(&c, ir, s, 4);
        for (int k = 0; k < ns && n0 < MAX_INIT; k++) {
            int mk[TRACK_POSE_MAX_OBS], m = 0;
            icv_vec3 X[TRACK_POSE_MAX_OBS];
            for (int j = 0; j < n; j++)
                if (!obs[j].is_ray)
                    mk[m] = obs[j].marker, X[m++] = obs[j].X;
            mk[m] = obs[ir].marker;
            X[m++] = icv_v3_axpy(s[k], obs[ir].d, obs[ir].o);
            if (pose_from_points(&c, mk, X, m, &R0[n0], &p0[n0]) == 0)
                n0++;
        }
    }
    if (n0 == 0)
        return icv_err_set(err, ICV_ENOTFOUND, "ray pose: no starting pose (%d points, no prior)", npt);

    /* refine each; keep the best, and whether another distinct pose fits as well */
    double lim = track_chi2_limit(nres - npar);
    int best = -1, n_fit = 0;
    double best_chi2 = INFINITY;
    icv_mat3 Rf[MAX_INIT];
    icv_vec3 pf[MAX_INIT];
    double chi[MAX_INIT], cov[MAX_PAR][MAX_PAR];
    int np = npar;
    for (int k = 0; k < n0; k++) {
        Rf[k] = R0[k], pf[k] = p0[k];
        chi[k] = refine(&c, &Rf[k], &pf[k], NULL, &np);
        if (chi[k] < best_chi2)
            best_chi2 = chi[k], best = k;
    }
    /* distinct: some marker more than the template's 1% (at least 1 mm) from the best's */
    double size = 0;
    for (int i = 0; i < nm; i++)
        size = fmax(size, icv_v3_norm(tmpl[i]));
    double apart = fmax(1e-3, 0.01 * size);
    int other = -1;
    for (int k = 0; k < n0; k++) {
        if (!(chi[k] <= lim))
            continue;
        n_fit++;
        for (int i = 0; i < nm && k != best && other < 0; i++) {
            icv_vec3 a = icv_v3_add(icv_m3_apply(Rf[k], tmpl[i]), pf[k]);
            icv_vec3 b = icv_v3_add(icv_m3_apply(Rf[best], tmpl[i]), pf[best]);
            if (icv_v3_norm(icv_v3_sub(a, b)) > apart)
                other = k;
        }
    }
    if (!(best_chi2 <= lim))
        return icv_err_set(err, ICV_ENOTFOUND, "ray pose: chi-square %.1f beyond the %.1f of %d degrees of freedom",
                           best_chi2, lim, nres - npar);
    if (other >= 0) {
        /* two poses fit: the prior's neighbour is taken when it is clearly nearer */
        double db = 0, dk = 0;
        if (prior)
            for (int i = 0; i < nm; i++) {
                icv_vec3 q = icv_v3_add(icv_m3_apply(prior->R, tmpl[i]), prior->p);
                db += icv_v3_norm(icv_v3_sub(icv_v3_add(icv_m3_apply(Rf[best], tmpl[i]), pf[best]), q));
                dk += icv_v3_norm(icv_v3_sub(icv_v3_add(icv_m3_apply(Rf[other], tmpl[i]), pf[other]), q));
            }
        if (!prior || !(db * 3 < dk || dk * 3 < db))
            return icv_err_set(err, ICV_ENOTFOUND, "ray pose: two poses fit the rays (chi-square %.1f and %.1f)",
                               best_chi2, chi[other]);
        if (dk < db)
            best = other;
    }
    out->R = Rf[best];
    out->p = pf[best];
    out->chi2 = refine(&c, &out->R, &out->p, cov, &np);
    out->dof = nres - npar;
    out->n_par = np;
    out->collinear = c.collinear;
    out->axis_world = icv_v3_unit(icv_m3_apply(out->R, c.axis));
    memcpy(out->cov, cov, sizeof cov);
    return 0;
}

void track_ray_pose_marker(const track_pose *pose, icv_vec3 b, icv_vec3 *Y, double cov[3][3])
{
    icv_vec3 Rb = icv_m3_apply(pose->R, b);
    *Y = icv_v3_add(Rb, pose->p);
    /* the parameters as refine left them: rotation basis then translation */
    icv_vec3 B[3];
    int nw = pose->n_par - 3;
    if (nw == 3)
        B[0] = icv_v3(1, 0, 0), B[1] = icv_v3(0, 1, 0), B[2] = icv_v3(0, 0, 1);
    else {
        /* the line's axis in the world is R's image of the template axis: the roll's
           column is the one refine left out; any perpendicular pair spans the rest */
        icv_vec3 a = pose->axis_world;
        perp_basis(a, &B[0], &B[1]);
    }
    double G[3][MAX_PAR];
    for (int k = 0; k < nw; k++) {
        icv_vec3 g = icv_v3_cross(B[k], Rb);
        G[0][k] = g.x, G[1][k] = g.y, G[2][k] = g.z;
    }
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 3; k++)
            G[a][nw + k] = a == k;
    for (int a = 0; a < 3; a++)
        for (int b2 = 0; b2 < 3; b2++) {
            double s = 0;
            for (int i = 0; i < pose->n_par; i++)
                for (int j = 0; j < pose->n_par; j++)
                    s += G[a][i] * pose->cov[i][j] * G[b2][j];
            cov[a][b2] = s;
        }
}
