/* bench_solver.c: solves per second of each impact model on one core, against the
 * issue's goals (2e6/s planar algebraic, 5e5/s spatial algebraic, 1e5/s exact spatial),
 * over 4096 random cases (random box bodies, attitudes, velocities, mu, e_n, laws). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <time.h>

#include <gsl/gsl_errno.h>

#include "solver/impact.h"

/* this thread's CPU time (s): a per-core rate that the other jobs sharing the machine's
 * two cores do not distort the way wall time does */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

enum { NCASE = 4096 };

static unsigned long long rng = 88172645463325252ull;
static double urange(double a, double b)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return a + (b - a) * ((rng >> 11) * (1.0 / 9007199254740992.0));
}

static void make_case(impact_case *c, int planar)
{
    impact_case_init(c);
    c->mass = urange(0.05, 5);
    double a = urange(0.01, 1), b = urange(0.01, 1), d = urange(0.01, 1), m = c->mass;
    c->inertia = icv_m3_diag(m * (b * b + d * d) / 12, m * (a * a + d * d) / 12, m * (a * a + b * b) / 12);
    c->R = planar ? icv_rot_z(urange(-M_PI, M_PI))
                  : icv_rot_from_axis_angle(icv_v3(urange(-2, 2), urange(-2, 2), urange(-2, 2)));
    double L = urange(0.02, 0.8), th = urange(-M_PI, M_PI);
    c->r = planar ? icv_v3(L * sin(th), -L * cos(th), 0)
                  : icv_v3_scale(icv_v3_unit(icv_v3(urange(-1, 1), urange(-1, 0.2), urange(-1, 1))), L);
    c->v = icv_v3(urange(-3, 3), urange(-3, 0), planar ? 0 : urange(-3, 3));
    c->omega = planar ? icv_v3(0, 0, urange(-20, 20)) : icv_v3(urange(-20, 20), urange(-20, 20), urange(-20, 20));
    icv_vec3 u = icv_v3_add(c->v, icv_v3_cross(c->omega, c->r));
    c->v.y += -urange(0.01, 3) - u.y;
    c->mu_s = c->mu_k = urange(0, 1);
    c->e_n = urange(0, 1);
    c->law = (icv_restitution)(int)urange(0, 2.999);
    c->planar = planar;
}

static void run(const char *name, int planar, impact_method method, double goal)
{
    static impact_case cases[NCASE];
    for (int i = 0; i < NCASE; i++) {
        make_case(&cases[i], planar);
        cases[i].method = method;
    }
    impact_result r;
    icv_err err;
    long n = 0, failed = 0, steps = 0;
    double sink = 0, t0 = cpu_now(), t;
    do {
        for (int i = 0; i < NCASE; i++) {
            if (impact_solve(&cases[i], &r, &err) < 0)
                failed++;
            sink += r.v.x;
            steps += r.n_steps;
        }
        n += NCASE;
        t = cpu_now() - t0;
    } while (t < 1.0);
    double rate = n / t;
    printf("%-22s %12.0f solves/s   goal %9.0f   ratio %6.2f   (%ld solves, %.1f%% Painleve-type, %.1f steps/solve%s)\n", name,
           rate, goal, rate / goal, n, 100.0 * failed / n, (double)steps / n, sink == 12345.678 ? "!" : "");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the real-impact study (docs/solver.md): one (mu, e_n) per model fitted to the 1718
 * MCube planar impacts, prediction errors against the frictionless baseline */
static void real_impacts(void)
{
    const char *shared = getenv("ICV_SHARED");
    char path[4096];
    snprintf(path, sizeof path, "%s/data/mcube_planar_impact/derived/impacts_summary.csv", shared ? shared : "../shared");
    impact_observation *obs;
    size_t n;
    icv_err err;
    double m = 0.0364, k = 0.0192; /* the data set's README: 36.4 g, radius of gyration 19.2 mm */
    if (impact_planar_csv_load(path, m, m * k * k, &obs, &n, &err) < 0) {
        printf("real impacts: skipped (%s)\n", err.msg);
        return;
    }
    impact_study_row rows[5];
    int nr = 0;
    double t0 = icv_now();
    int rc = impact_planar_study(obs, n, 1, rows, &nr, &err);
    /* one (mu, e_n) per impact (Stronge, planar): how often is each identifiable? */
    double *mus = malloc(n * sizeof *mus), *es = malloc(n * sizeof *es);
    size_t nm = 0, ne = 0, fails = 0;
    for (size_t i = 0; i < n && mus && es; i++) {
        impact_fit_result fr;
        obs[i].pre.law = ICV_RESTITUTION_STRONGE;
        if (impact_fit(&obs[i], 1, 0.2, 0.6, &fr, &err) < 0) {
            fails++;
            continue;
        }
        /* determined: identifiable and a standard error below half the value */
        if (fr.mu_identifiable && fr.mu_se < 0.5 * fr.mu)
            mus[nm++] = fr.mu;
        if (fr.e_n_identifiable && fr.e_n_se < 0.5 * fr.e_n)
            es[ne++] = fr.e_n;
    }
    free(obs);
    if (rc < 0) {
        printf("real impacts: %s\n", err.msg);
        return;
    }
    printf("\nreal planar impacts (MCube ellipse, %zu impacts; one (mu, e_n) per model; |error| median / 90th pct)\n", n);
    printf("| model | mu | e_n | rms m/s | v'x m/s | v'y m/s | w'z rad/s | KE'/KE |\n|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < nr; i++) {
        impact_study_row *r = &rows[i];
        printf("| %s | %.4f (%.4f) | %.4f (%.4f) | %.4f | %.3f / %.3f | %.3f / %.3f | %.2f / %.2f | %.3f / %.3f |\n",
               r->model, r->mu, r->mu_se, r->e_n, r->e_n_se, r->rms, r->median[0], r->p90[0], r->median[1], r->p90[1],
               r->median[2], r->p90[2], r->median[3], r->p90[3]);
    }
    printf("(standard errors in brackets; study time %.2f s)\n", icv_now() - t0);
    if (mus && es && nm > 0 && ne > 0) {
        qsort(mus, nm, sizeof *mus, cmp_double);
        qsort(es, ne, sizeof *es, cmp_double);
        printf("per-impact fits (Stronge, planar; determined = identifiable, s.e. < half the value), %zu impacts:\n"
               "  mu determined in %zu, e_n determined in %zu (median %.3f, IQR %.3f-%.3f), %zu failed\n",
               n, nm, ne, es[ne / 2], es[ne / 4], es[3 * ne / 4], fails);
    }
    free(mus);
    free(es);
}

int main(void)
{
    gsl_set_error_handler_off(); /* the program's policy, as in cli/main.c */
    printf("impact solver, one core (thread CPU time), 4096 random cases (bench/bench_solver.c)\n");
    run("planar algebraic", 1, IMPACT_ALGEBRAIC, 2e6);
    run("spatial algebraic", 0, IMPACT_ALGEBRAIC, 5e5);
    run("exact spatial", 0, IMPACT_EXACT, 1e5);
    real_impacts();
    return 0;
}
