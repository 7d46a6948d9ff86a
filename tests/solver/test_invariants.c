/* test_invariants.c: physical invariants of every model over random cases (random
 * shapes, inertia, orientations, velocities, mu in [0, 1], e_n in [0, 1]; issue #3):
 * no NaN, u_n' >= 0, impulse in the friction cone, Stronge/exact never create energy,
 * frictionless Newton ratio = e_n; planar cases by the spatial code = planar code; no
 * change of sliding direction -> algebraic = exact to 1e-9. 100 000 cases per model in
 * the plain build; 10 000 under ASan+UBSan (about 5x slower, th_sanitized()). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/impact.h"
#include "tests/harness.h"

static unsigned long long rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (rng >> 11) * (1.0 / 9007199254740992.0);
}
static double urange(double a, double b) { return a + (b - a) * urand(); }

/* make accuracy: a million per model */
static int n_cases(void) { return th_accuracy() ? 1000000 : th_sanitized() ? 10000 : 100000; }

/* a random body (box of random edges, random mass), attitude, contact point and an
 * approaching pre-impact state */
static void random_case(impact_case *c, int planar)
{
    impact_case_init(c);
    c->mass = urange(0.05, 5);
    double a = urange(0.01, 1), b = urange(0.01, 1), d = urange(0.01, 1), m = c->mass;
    c->inertia = icv_m3_diag(m * (b * b + d * d) / 12, m * (a * a + d * d) / 12, m * (a * a + b * b) / 12);
    if (planar) {
        c->R = icv_rot_z(urange(-M_PI, M_PI));
        double th = urange(-M_PI, M_PI), L = urange(0.02, 0.8);
        c->r = icv_v3(L * sin(th), -L * cos(th), 0);
        c->v = icv_v3(urange(-3, 3), urange(-3, 0), 0);
        c->omega = icv_v3(0, 0, urange(-20, 20));
    } else {
        icv_quat q = {urange(-1, 1), urange(-1, 1), urange(-1, 1), urange(-1, 1)};
        double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
        q.w /= n, q.x /= n, q.y /= n, q.z /= n;
        c->R = icv_quat_to_matrix(q);
        c->r = icv_v3_scale(icv_v3_unit(icv_v3(urange(-1, 1), urange(-1, 0.2), urange(-1, 1))), urange(0.02, 0.8));
        c->v = icv_v3(urange(-3, 3), urange(-3, 0), urange(-3, 3));
        c->omega = icv_v3(urange(-20, 20), urange(-20, 20), urange(-20, 20));
    }
    /* make the contact approach: u_y in [-3, -0.01] m/s */
    icv_vec3 u = icv_v3_add(c->v, icv_v3_cross(c->omega, c->r));
    c->v.y += -urange(0.01, 3) - u.y;
    c->mu_k = urange(0, 1);
    c->mu_s = urand() < 0.5 ? c->mu_k : urange(c->mu_k, 1);
    c->e_n = urange(0, 1);
    c->law = (icv_restitution)(int)(urand() * 3);
}

static void check_model(impact_method method, int planar)
{
    int n = n_cases(), painleve = 0;
    rng = 88172645463325252ull;
    for (int k = 0; k < n; k++) {
        impact_case c;
        random_case(&c, planar);
        c.method = method;
        c.planar = planar;
        impact_result r;
        icv_err err;
        int rc = impact_solve(&c, &r, &err);
        if (rc == ICV_ENUMERIC && strstr(err.msg, "Painleve")) {
            painleve++;
            continue;
        }
        ASSERT(rc == 0, "case %d: %s", k, err.msg);
        double un0 = -r.contact_velocity_pre.y;
        ASSERT(isfinite(r.v.x + r.v.y + r.v.z + r.omega.x + r.omega.y + r.omega.z), "case %d: NaN", k);
        /* 1e-9 of the approach speed: rounding of the event arithmetic */
        ASSERT(r.contact_velocity.y >= -1e-9 * un0, "case %d: u_n' = %g < 0", k, r.contact_velocity.y);
        double pt = hypot(r.impulse.x, r.impulse.z);
        ASSERT(r.impulse.y >= 0 && pt <= c.mu_s * r.impulse.y * (1 + 1e-9) + 1e-12,
               "case %d: impulse (%g, %g) outside the cone mu_s = %g", k, pt, r.impulse.y, c.mu_s);
        if (c.law == ICV_RESTITUTION_STRONGE && (planar || method == IMPACT_EXACT))
            ASSERT(r.energy_post <= r.energy_pre * (1 + 1e-9), "case %d (%s): energy %g -> %g", k,
                   r.case_label, r.energy_pre, r.energy_post);
        /* frictionless: Newton's ratio at the contact is e_n for every law */
        c.mu_s = c.mu_k = 0;
        ASSERT(impact_solve(&c, &r, &err) == 0, "case %d frictionless: %s", k, err.msg);
        ASSERT_NEAR(-r.contact_velocity.y / r.contact_velocity_pre.y, c.e_n, 1e-9); /* rounding */
    }
    /* Painleve-type inconsistencies need a slender body and large mu: a minority */
    ASSERT(painleve < n / 10, "%d Painleve cases of %d", painleve, n);
    if (th_accuracy())
        printf("invariants, %s %s: %d random cases, %d without a solution (Painleve-type), all others pass\n",
               planar ? "planar" : "spatial", impact_method_name(method), n, painleve);
}

TEST(test_invariants_planar_model_random_cases) { check_model(IMPACT_ALGEBRAIC, 1); }
TEST(test_invariants_spatial_algebraic_random_cases) { check_model(IMPACT_ALGEBRAIC, 0); }
TEST(test_invariants_exact_random_cases) { check_model(IMPACT_EXACT, 0); }

/* Planar problems solved by the spatial code (both methods) equal the planar code
 * (spec 7.1 "SB 2-D/3-D equivalence": machine precision for the algebraic model; the
 * exact model integrates nothing in a planar problem either, the slip cannot curve). */
TEST(test_planar_cases_by_spatial_code_equal_planar_code)
{
    int n = n_cases() / 2;
    rng = 88172645463325252ull;
    for (int k = 0; k < n; k++) {
        impact_case c;
        random_case(&c, 1);
        c.planar = 1;
        impact_result rp, rs;
        icv_err err;
        int rc = impact_solve(&c, &rp, &err);
        if (rc < 0)
            continue;
        c.planar = 0;
        /* a planar body: inertia axes along z so that the spatial code stays planar */
        for (int m = 0; m < 2; m++) {
            c.method = m ? IMPACT_EXACT : IMPACT_ALGEBRAIC;
            ASSERT(impact_solve(&c, &rs, &err) == 0, "case %d: %s", k, err.msg);
            double scale = icv_v3_norm(c.v) + icv_v3_norm(icv_v3_cross(c.omega, c.r)) + 1;
            /* 1e-9 of the speed scale: the agreement target */
            ASSERT(icv_v3_norm(icv_v3_sub(rs.v, rp.v)) <= 1e-9 * scale, "case %d method %d: v %g %g vs %g %g (%s %s)",
                   k, m, rs.v.x, rs.v.y, rp.v.x, rp.v.y, rs.case_label, rp.case_label);
            ASSERT(fabs(rs.omega.z - rp.omega.z) * icv_v3_norm(c.r) <= 1e-9 * scale, "case %d: omega", k);
            ASSERT(rs.case_label[0] == rp.case_label[0], "case %d: case %s vs %s", k, rs.case_label, rp.case_label);
        }
    }
}

/* A planar problem turned about the normal by a random angle is a 3-D problem whose slip
 * keeps its direction: the spatial algebraic and the exact model agree to 1e-9. */
TEST(test_straight_slip_algebraic_equals_exact_in_3d)
{
    int n = n_cases() / 2;
    rng = 88172645463325252ull;
    for (int k = 0; k < n; k++) {
        impact_case c;
        random_case(&c, 1);
        icv_mat3 q = icv_rot_y(urange(-M_PI, M_PI));
        c.R = icv_m3_mul(q, c.R);
        c.r = icv_m3_apply(q, c.r);
        c.v = icv_m3_apply(q, c.v);
        c.omega = icv_m3_apply(q, c.omega);
        impact_result ra, re;
        icv_err err;
        c.method = IMPACT_ALGEBRAIC;
        if (impact_solve(&c, &ra, &err) < 0)
            continue;
        c.method = IMPACT_EXACT;
        ASSERT(impact_solve(&c, &re, &err) == 0, "case %d: %s", k, err.msg);
        double scale = icv_v3_norm(c.v) + icv_v3_norm(icv_v3_cross(c.omega, c.r)) + 1;
        ASSERT(icv_v3_norm(icv_v3_sub(ra.v, re.v)) <= 1e-9 * scale, "case %d: |dv| = %g (%s vs %s)", k,
               icv_v3_norm(icv_v3_sub(ra.v, re.v)), ra.case_label, re.case_label);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The spatial algebraic model against the exact one on random 3-D Stronge cases (spec 2.3:
 * the frozen friction direction errs by ~5 % in sliding cases). Bounds: median relative
 * error of the post-impact contact velocity below 1e-2 and energy created in under 1 % of
 * the cases (measured: 1.7e-3 and 0.30 %, docs/solver.md) guard against regressions. */
TEST(test_spatial_algebraic_against_exact_study)
{
    int n = th_accuracy() ? 100000 : th_sanitized() ? 2000 : 20000, m = 0, gain = 0;
    double *rel = malloc(n * sizeof *rel);
    ASSERT_TRUE(rel != NULL);
    rng = 88172645463325252ull;
    for (int k = 0; k < n; k++) {
        impact_case c;
        random_case(&c, 0);
        c.law = ICV_RESTITUTION_STRONGE;
        impact_result a, e;
        icv_err err;
        c.method = IMPACT_ALGEBRAIC;
        if (impact_solve(&c, &a, &err) < 0)
            continue;
        c.method = IMPACT_EXACT;
        if (impact_solve(&c, &e, &err) < 0)
            continue;
        gain += a.energy_post > a.energy_pre * (1 + 1e-9);
        rel[m++] = icv_v3_norm(icv_v3_sub(a.contact_velocity, e.contact_velocity)) / icv_v3_norm(a.contact_velocity_pre);
    }
    qsort(rel, m, sizeof *rel, cmp_double);
    double med = rel[m / 2], p90 = rel[m * 9 / 10], p99 = rel[m * 99 / 100];
    free(rel);
    if (th_accuracy())
        printf("spatial algebraic vs exact, %d Stronge cases: |du'|/|u0| median %.3g, 90%% %.3g, 99%% %.3g; "
               "energy created in %.2f%%\n", m, med, p90, p99, 100.0 * gain / m);
    ASSERT(med < 1e-2, "median %g", med);
    ASSERT(gain < m / 100, "%d of %d create energy", gain, m);
}
