/* prediction_study.c: measured planar impacts (the CSV layout of
 * ../shared/data/mcube_planar_impact/derived/impacts_summary.csv) against the models:
 * fit one (mu, e_n) per model to the whole set, then the distribution of the prediction
 * errors of the post-impact velocities and of the kinetic-energy ratio, against the
 * frictionless baseline with the set's median Newton ratio. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/impact.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the q-quantile (linear interpolation) of v[0..n-1], sorted in place */
static double quantile(double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    double f = pos - (double)i;
    return i + 1 < n ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

int impact_planar_csv_load(const char *path, double mass, double inertia_zz, impact_observation **obs, size_t *n,
                           icv_err *err)
{
    *obs = NULL;
    *n = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return icv_err_set(err, ICV_EIO, "%s: cannot open", path);
    char line[4096];
    enum { VXI, VYI, WI, VXF, VYF, WF, NX, NY, NTH, DX, DY, DTH, NCOL };
    static const char *names[NCOL] = {"vx_i", "vy_i", "w_i", "vx_f", "vy_f", "w_f",
                                      "n_x",  "n_y",  "n_th", "d_x", "d_y", "d_th"};
    int col[NCOL];
    for (int k = 0; k < NCOL; k++)
        col[k] = -1;
    if (!fgets(line, sizeof line, fp)) {
        fclose(fp);
        return icv_err_set(err, ICV_EFORMAT, "%s:1: empty file", path);
    }
    line[strcspn(line, "\r\n")] = 0;
    int c = 0;
    for (char *tok = strtok(line, ","); tok; tok = strtok(NULL, ","), c++)
        for (int k = 0; k < NCOL; k++)
            if (!strcmp(tok, names[k]))
                col[k] = c;
    for (int k = 0; k < NCOL; k++)
        if (col[k] < 0) {
            fclose(fp);
            return icv_err_set(err, ICV_EFORMAT, "%s:1: column %s missing", path, names[k]);
        }
    size_t cap = 0;
    int lineno = 1, rc = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        if (line[0] == '\n' || line[0] == 0)
            continue;
        double val[64];
        int nv = 0;
        char *p = line;
        while (nv < 64) {
            char *end;
            val[nv++] = strtod(p, &end);
            if (end == p) {
                rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: column %d: not a number", path, lineno, nv);
                goto out;
            }
            p = end;
            if (*p != ',')
                break;
            p++;
        }
        double v[NCOL];
        for (int k = 0; k < NCOL; k++) {
            if (col[k] >= nv) {
                rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: %s: missing value", path, lineno, names[k]);
                goto out;
            }
            v[k] = val[col[k]];
        }
        /* a horizontal surface: n = (0, 1, r_x), d = (1, 0, -r_y) (vn = vy + w r_x, vt = vx - w r_y) */
        if (fabs(v[NX]) > 1e-6 || fabs(v[NY] - 1) > 1e-6 || fabs(v[DX] - 1) > 1e-6 || fabs(v[DY]) > 1e-6) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s:%d: contact Jacobian rows n, d are not those of a horizontal surface",
                             path, lineno);
            goto out;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            impact_observation *t = realloc(*obs, cap * sizeof **obs);
            if (!t) {
                rc = icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
                goto out;
            }
            *obs = t;
        }
        impact_observation *o = &(*obs)[(*n)++];
        memset(o, 0, sizeof *o); /* every component of omega measured */
        impact_case_init(&o->pre);
        o->pre.mass = mass;
        o->pre.inertia = icv_m3_diag(inertia_zz, inertia_zz, inertia_zz);
        o->pre.inertia_is_world = 1;
        o->pre.planar = 1;
        o->pre.r = icv_v3(v[NTH], -v[DTH], 0);
        o->pre.v = icv_v3(v[VXI], v[VYI], 0);
        o->pre.omega = icv_v3(0, 0, v[WI]);
        o->v_post = icv_v3(v[VXF], v[VYF], 0);
        o->omega_post = icv_v3(0, 0, v[WF]);
    }
out:
    fclose(fp);
    if (rc < 0) {
        free(*obs);
        *obs = NULL;
        *n = 0;
    }
    return rc;
}

static double ke(const impact_case *c, icv_vec3 v, icv_vec3 w)
{
    return impact_kinetic_energy(c->mass, c->inertia, v, w);
}

/* errors of one model at (mu, e) over the set */
static void model_errors(const impact_observation *obs, size_t n, double mu, double e, impact_study_row *row,
                         double *work)
{
    double *ex = work, *ey = work + n, *ew = work + 2 * n, *ek = work + 3 * n;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        double r[6];
        impact_result res;
        icv_err err;
        if (impact_observation_residual(&obs[i], mu, e, r, &res, &err) < 0) {
            row->n_failed++;
            continue;
        }
        const impact_case *c = &obs[i].pre;
        double k0 = ke(c, c->v, c->omega);
        ex[m] = fabs(r[0]);
        ey[m] = fabs(r[1]);
        ew[m] = fabs(res.omega.z - obs[i].omega_post.z);
        ek[m] = fabs(res.energy_post / k0 - ke(c, obs[i].v_post, obs[i].omega_post) / k0);
        m++;
    }
    row->median[0] = quantile(ex, m, 0.5);
    row->p90[0] = quantile(ex, m, 0.9);
    row->median[1] = quantile(ey, m, 0.5);
    row->p90[1] = quantile(ey, m, 0.9);
    row->median[2] = quantile(ew, m, 0.5);
    row->p90[2] = quantile(ew, m, 0.9);
    row->median[3] = quantile(ek, m, 0.5);
    row->p90[3] = quantile(ek, m, 0.9);
}

int impact_planar_study(const impact_observation *obs, size_t n, int with_exact, impact_study_row *rows, int *n_rows,
                        icv_err *err)
{
    double *work = malloc(4 * n * sizeof *work);
    impact_observation *tmp = malloc(n * sizeof *tmp);
    if (!work || !tmp) {
        free(work);
        free(tmp);
        return icv_err_set(err, ICV_ENOMEM, "study: out of memory");
    }
    memcpy(tmp, obs, n * sizeof *tmp);
    int k = 0;
    /* baseline: frictionless, e_n = the set's median Newton ratio at the contact */
    for (size_t i = 0; i < n; i++) {
        const impact_case *c = &obs[i].pre;
        double un0 = c->v.y + c->omega.z * c->r.x, un1 = obs[i].v_post.y + obs[i].omega_post.z * c->r.x;
        work[i] = -un1 / un0;
    }
    double e_med = quantile(work, n, 0.5);
    impact_study_row *b = &rows[k++];
    memset(b, 0, sizeof *b);
    snprintf(b->model, sizeof b->model, "frictionless, median e");
    b->mu = 0;
    b->e_n = e_med;
    b->mu_se = b->e_n_se = NAN;
    for (size_t i = 0; i < n; i++)
        tmp[i].pre.law = ICV_RESTITUTION_NEWTON;
    model_errors(tmp, n, 0, e_med, b, work);
    {
        double r[6], ss = 0;
        impact_result res;
        icv_err e2;
        for (size_t i = 0; i < n; i++)
            if (impact_observation_residual(&tmp[i], 0, e_med, r, &res, &e2) == 0)
                for (int j = 0; j < 6; j++)
                    ss += r[j] * r[j];
        b->rms = sqrt(ss / (6.0 * n));
    }
    static const struct {
        const char *name;
        icv_restitution law;
        int planar;
    } models[] = {{"newton, planar", ICV_RESTITUTION_NEWTON, 1},
                  {"poisson, planar", ICV_RESTITUTION_POISSON, 1},
                  {"stronge, planar", ICV_RESTITUTION_STRONGE, 1},
                  {"stronge, exact 3-D code", ICV_RESTITUTION_STRONGE, 0}};
    int rc = 0;
    for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
        if (!models[m].planar && !with_exact)
            continue;
        for (size_t i = 0; i < n; i++) {
            tmp[i].pre.law = models[m].law;
            tmp[i].pre.planar = models[m].planar;
            tmp[i].pre.method = models[m].planar ? IMPACT_ALGEBRAIC : IMPACT_EXACT;
        }
        impact_fit_result fr;
        rc = impact_fit(tmp, n, 0.2, e_med, &fr, err);
        if (rc < 0)
            break;
        impact_study_row *row = &rows[k++];
        memset(row, 0, sizeof *row);
        snprintf(row->model, sizeof row->model, "%s", models[m].name);
        row->mu = fr.mu;
        row->e_n = fr.e_n;
        row->mu_se = fr.mu_se;
        row->e_n_se = fr.e_n_se;
        row->rms = fr.rms;
        model_errors(tmp, n, fr.mu, fr.e_n, row, work);
    }
    *n_rows = k;
    free(work);
    free(tmp);
    return rc;
}
