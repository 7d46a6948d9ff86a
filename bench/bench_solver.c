/* bench_solver.c: solves per second of each impact model on one core, against the
 * issue's goals (2e6/s planar algebraic, 5e5/s spatial algebraic, 1e5/s exact spatial),
 * over 4096 random cases (random box bodies, attitudes, velocities, mu, e_n, laws). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "solver/impact.h"

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
    double sink = 0, t0 = icv_now(), t;
    do {
        for (int i = 0; i < NCASE; i++) {
            if (impact_solve(&cases[i], &r, &err) < 0)
                failed++;
            sink += r.v.x;
            steps += r.n_steps;
        }
        n += NCASE;
        t = icv_now() - t0;
    } while (t < 1.0);
    double rate = n / t;
    printf("%-22s %12.0f solves/s   goal %9.0f   ratio %6.2f   (%ld solves, %.1f%% Painleve-type, %.1f steps/solve%s)\n", name,
           rate, goal, rate / goal, n, 100.0 * failed / n, (double)steps / n, sink == 12345.678 ? "!" : "");
}

int main(void)
{
    printf("impact solver, one core, random cases (bench/bench_solver.c)\n");
    run("planar algebraic", 1, IMPACT_ALGEBRAIC, 2e6);
    run("spatial algebraic", 0, IMPACT_ALGEBRAIC, 5e5);
    run("exact spatial", 0, IMPACT_EXACT, 1e5);
    return 0;
}
