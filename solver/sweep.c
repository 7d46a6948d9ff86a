/* sweep.c: the solver over one or two parameters of a case (Euler angles, mu, e_n,
 * velocities, the slip ratio V/U), for the parameter studies of the source documents
 * (energy dissipation and case maps: HS Figs 3.12-3.19, SB Figs 3-13). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/impact.h"

static const char *const param_names[] = {"theta1", "theta2", "theta3", "mu", "mu_s", "mu_k",
                                          "e_n",    "vx",     "vy",     "vz", "ratio"};

static const char *const case_labels[] = {"0", "1", "2", "2a", "2b", "2c", "3", "4", "4a", "4b", "4c", "5", "6"};

int impact_case_index(const char *label)
{
    for (int i = 0; i < IMPACT_N_CASES; i++)
        if (!strcmp(label, case_labels[i]))
            return i;
    return -1;
}

const char *impact_case_name(int index) { return index >= 0 && index < IMPACT_N_CASES ? case_labels[index] : "?"; }

int impact_sweep_param_parse(const char *spec, impact_sweep_param *p, icv_err *err)
{
    memset(p, 0, sizeof *p);
    const char *eq = strchr(spec, '=');
    size_t len = eq ? (size_t)(eq - spec) : 0;
    int known = 0;
    for (size_t i = 0; i < sizeof param_names / sizeof *param_names; i++)
        known |= len == strlen(param_names[i]) && !strncmp(spec, param_names[i], len);
    if (!eq || !known)
        return icv_err_set(err, ICV_EINVAL,
                           "--param '%s': expected NAME=FROM:TO:N with NAME one of theta1 theta2 theta3 (rad), mu, "
                           "mu_s, mu_k, e_n, vx, vy, vz (m/s), ratio (V/U)",
                           spec);
    memcpy(p->name, spec, len);
    char *end;
    p->from = strtod(eq + 1, &end);
    if (*end != ':')
        goto bad;
    p->to = strtod(end + 1, &end);
    if (*end != ':')
        goto bad;
    long n = strtol(end + 1, &end, 10);
    if (*end || n < 1 || n > 100000)
        goto bad;
    p->n = (int)n;
    return 0;
bad:
    return icv_err_set(err, ICV_EINVAL, "--param '%s': expected NAME=FROM:TO:N (N from 1 to 100000)", spec);
}

double impact_sweep_value(const impact_sweep_param *p, int i)
{
    return p->n == 1 ? p->from : p->from + (p->to - p->from) * i / (p->n - 1);
}

/* the case with one parameter set; the contact point stays fixed in the body */
static void apply(impact_case *c, icv_vec3 contact_body, icv_vec3 *euler, const char *name, double v)
{
    if (!strcmp(name, "theta1") || !strcmp(name, "theta2") || !strcmp(name, "theta3")) {
        if (name[5] == '1')
            euler->x = v;
        else if (name[5] == '2')
            euler->y = v;
        else
            euler->z = v;
        c->R = icv_euler213_to_matrix(*euler);
        c->r = icv_m3_apply(c->R, contact_body);
    } else if (!strcmp(name, "mu")) {
        c->mu_s = c->mu_k = v;
    } else if (!strcmp(name, "mu_s")) {
        c->mu_s = v;
    } else if (!strcmp(name, "mu_k")) {
        c->mu_k = v;
    } else if (!strcmp(name, "e_n")) {
        c->e_n = v;
    } else if (!strcmp(name, "vx")) {
        c->v.x = v;
    } else if (!strcmp(name, "vy")) {
        c->v.y = v;
    } else if (!strcmp(name, "vz")) {
        c->v.z = v;
    }
}

int impact_sweep_run(const impact_case *base, const impact_sweep_param *params, int n_params,
                     impact_sweep_point *out, icv_err *err)
{
    if (n_params < 1 || n_params > 2)
        return icv_err_set(err, ICV_EINVAL, "sweep: give one or two parameters");
    if (base->inertia_is_world)
        for (int k = 0; k < n_params; k++)
            if (!strncmp(params[k].name, "theta", 5))
                return icv_err_set(err, ICV_EINVAL, "sweep: %s needs a body-frame inertia", params[k].name);
    icv_vec3 contact_body = icv_m3_apply(icv_m3_transpose(base->R), base->r), euler0;
    icv_euler213_from_matrix(base->R, &euler0);
    int n0 = params[0].n, n1 = n_params > 1 ? params[1].n : 1;
    for (int j = 0; j < n1; j++)
        for (int i = 0; i < n0; i++) {
            impact_sweep_point *pt = &out[(size_t)j * n0 + i];
            memset(pt, 0, sizeof *pt);
            impact_case c = *base;
            icv_vec3 euler = euler0;
            pt->p[0] = impact_sweep_value(&params[0], i);
            apply(&c, contact_body, &euler, params[0].name, pt->p[0]);
            if (n_params > 1) {
                pt->p[1] = impact_sweep_value(&params[1], j);
                apply(&c, contact_body, &euler, params[1].name, pt->p[1]);
            }
            /* the slip ratio last: it depends on the attitude and omega */
            for (int k = 0; k < n_params; k++)
                if (!strcmp(params[k].name, "ratio")) {
                    icv_vec3 w = icv_v3_cross(c.omega, c.r);
                    double un = c.v.y + w.y;
                    c.v.x = pt->p[k] * fabs(un) - w.x;
                }
            impact_result r;
            icv_err e2 = {0};
            if (impact_solve(&c, &r, &e2) < 0) {
                pt->ok = 0;
                pt->case_index = -1;
                pt->loss_fraction = NAN;
                snprintf(pt->error, sizeof pt->error, "%s", e2.msg);
                continue;
            }
            pt->ok = 1;
            snprintf(pt->case_label, sizeof pt->case_label, "%s", r.case_label);
            pt->case_index = impact_case_index(r.case_label);
            pt->loss_fraction = r.loss_fraction;
            pt->v = r.v;
            pt->omega = r.omega;
            pt->impulse = r.impulse;
        }
    return 0;
}

int impact_sweep_write_csv(const char *path, const impact_sweep_param *params, int n_params,
                           const impact_sweep_point *pts, icv_err *err)
{
    icv_atomic_file af;
    int rc = icv_atomic_open(&af, path, err);
    if (rc < 0)
        return rc;
    fprintf(af.fp, "%s,", params[0].name);
    if (n_params > 1)
        fprintf(af.fp, "%s,", params[1].name);
    fprintf(af.fp, "case,loss_fraction,v_x,v_y,v_z,omega_x,omega_y,omega_z,P_x,P_y,P_z,error\n");
    size_t n = (size_t)params[0].n * (n_params > 1 ? params[1].n : 1);
    for (size_t k = 0; k < n; k++) {
        const impact_sweep_point *p = &pts[k];
        fprintf(af.fp, "%.10g,", p->p[0]);
        if (n_params > 1)
            fprintf(af.fp, "%.10g,", p->p[1]);
        if (p->ok)
            fprintf(af.fp, "%s,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,\n", p->case_label,
                    p->loss_fraction, p->v.x, p->v.y, p->v.z, p->omega.x, p->omega.y, p->omega.z, p->impulse.x,
                    p->impulse.y, p->impulse.z);
        else {
            /* the one-line reason, without commas or quotes that would break the CSV */
            char msg[sizeof p->error];
            snprintf(msg, sizeof msg, "%s", p->error);
            for (char *q = msg; *q; q++)
                if (*q == ',' || *q == '"' || *q == '\n')
                    *q = ';';
            fprintf(af.fp, ",,,,,,,,,,,%s\n", msg);
        }
    }
    return icv_atomic_commit(&af, err);
}
