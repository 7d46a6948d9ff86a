/* test_reference_cases.c: every reference case of solver/reference_cases.c (spec sec.
 * 6-7, R and P verdicts; N entries pinned to the spec's independent prototype, the
 * published value in their reason) within the tolerance its entry states and explains;
 * plus the qualitative case sequences of Han Sun's ch. 3 examples. */
#include <math.h>
#include <string.h>

#include "solver/impact_internal.h"
#include "tests/harness.h"

TEST(test_reference_cases_within_their_tolerances)
{
    int n = impact_reference_count();
    ASSERT(n >= 20, "only %d reference cases", n);
    for (int i = 0; i < n; i++) {
        const impact_reference *ref = impact_reference_at(i);
        double v = NAN;
        icv_err err;
        int rc = impact_reference_compute(i, &v, &err);
        ASSERT(rc == 0, "%s: %s", ref->id, err.msg);
        ASSERT(fabs(v - ref->published) <= ref->tolerance, "%s (%s): computed %.8g, published %.8g, tolerance %g (%s)",
               ref->id, ref->source, v, ref->published, ref->tolerance, ref->why);
    }
}

/* HS Ex 1 on its 0.05 grid (spec 7.1 "R"): case 0 from -2 to -1.50, 4 from -1.45 to -0.75,
 * 2 from -0.70 to -0.05, reverse sliding from rest (6) at 0; the spatial code labels the
 * reversals 4b and 2b (planar sweeps give only b subtypes, spec 2.4). */
TEST(test_hs_example1_case_sequence_on_its_grid)
{
    for (int i = 0; i <= 40; i++) {
        double vx = -2 + 0.05 * i, L = 1, cap = L / 30, R = L / 2;
        double It = cap * cap / 4 + L * L / 12, Ia = cap * cap / 2;
        impact_case c;
        impact_case_init(&c);
        /* rod axis along r = R (cos 2pi/3, -cos 5pi/6, 0) (mirrored in y to n = +y) */
        icv_vec3 r = icv_v3(R * cos(2 * M_PI / 3), -R * cos(5 * M_PI / 6), 0), a = icv_v3_unit(r);
        c.inertia = icv_m3_diag(It, It, It);
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                c.inertia.m[p][q] += (Ia - It) * icv_v3_get(a, p) * icv_v3_get(a, q);
        c.inertia_is_world = 1;
        c.r = r;
        c.v = icv_v3(vx, -1, 0);
        c.e_n = 1;
        c.method = IMPACT_ALGEBRAIC;
        impact_result res;
        icv_err err;
        ASSERT(impact_solve(&c, &res, &err) == 0, "v_x %g: %s", vx, err.msg);
        const char *want = vx < -1.475 ? "0" : vx < -0.725 ? "4b" : vx < -0.025 ? "2b" : "6";
        ASSERT(!strcmp(res.case_label, want), "v_x = %.2f: case %s, Han Sun %s", vx, res.case_label, want);
    }
}

/* HS Ex 3 / Ex 4 (spec 7.1 "R", qualitative): Ex 3 (v_x = -1) goes 4 -> 2 -> 1 as mu grows,
 * independent of e; Ex 4 (v_x = +1) goes 0 -> 3 -> 1. (HS states the orders reversed in mu.) */
static int rod_case(double vx, double mu, double e)
{
    double L = 1, cap = L / 30, R = L / 2, I = cap * cap / 4 + L * L / 12;
    double rx = R * cos(2 * M_PI / 3), ry = -R * cos(5 * M_PI / 6);
    planar_problem pp = {.ktt = 1 + ry * ry / I, .ktn = -rx * ry / I, .knn = 1 + rx * rx / I, .ut0 = vx,
                         .un0 = -1, .mu_s = mu, .mu_k = mu, .e = e, .law = ICV_RESTITUTION_STRONGE};
    planar_solution sol;
    icv_err err;
    if (impact_planar_periods(&pp, &sol, &err) < 0)
        return -1;
    return sol.case_no;
}

static void sequence(double vx, double e, char *out)
{
    int last = -2, n = 0;
    for (int i = 1; i <= 40; i++) { /* mu > 0: at mu = 0 the slip never arrests */
        int c = rod_case(vx, 0.025 * i, e);
        if (c != last && c >= 0) {
            out[n++] = (char)('0' + c);
            last = c;
        }
    }
    out[n] = 0;
}

TEST(test_hs_examples_3_and_4_case_sequences_over_mu)
{
    char s[64];
    for (int k = 1; k <= 8; k++) {
        double e = 0.125 * k;
        sequence(-1, e, s);
        /* at small e and mu the slip outlasts the impact first (case 0, V/U > R3): the
         * stated part of the sequence is its end */
        size_t n = strlen(s);
        ASSERT(n >= 3 && !strcmp(s + n - 3, "421"), "Ex 3, e = %g: sequence %s, expected ...421", e, s);
        sequence(1, e, s);
        ASSERT(!strcmp(s, "031"), "Ex 4, e = %g: sequence %s, expected 031", e, s);
    }
}

/* HS Table 2.5 A and C are verdict N (spec 7.1): not targets. Pinned to our numbers,
 * which equal the spec's independent prototype (73.4 % and 78.5 %, case 0, every law):
 * the stated 52.3 % (A) and 69.8/77.2/68.6 % (C, "case 2") come from inconsistent inputs
 * (A's gamma = 7pi/12 is not the 15-degree slope its text describes; C's p should be -1
 * for a vertical rod, and its "Stronge" 77.2 % is HS's printed full-stick matrix). */
TEST(test_hs_table_2_5_a_and_c_pinned_not_targets)
{
    static const struct {
        double p, g, e, want;
    } rows[2] = {{0.258, 7 * M_PI / 12, 0.395, 73.4}, {1, 5 * M_PI / 4, 0.264, 78.5}};
    for (int k = 0; k < 2; k++)
        for (int law = 0; law < 3; law++) {
            double rx = -sin(rows[k].g), ry = -cos(rows[k].g), a = 1.0 / 3;
            planar_problem pp = {.ktt = 1 + ry * ry / a, .ktn = -rx * ry / a, .knn = 1 + rx * rx / a,
                                 .ut0 = rows[k].p, .un0 = -1, .mu_s = 0.195, .mu_k = 0.195, .e = rows[k].e,
                                 .law = (icv_restitution)law};
            planar_solution sol;
            icv_err err;
            ASSERT_TRUE(impact_planar_periods(&pp, &sol, &err) == 0);
            double vx = pp.ut0 + sol.pt, vy = -1 + sol.pn, w = (rx * sol.pn - ry * sol.pt) / a;
            double pct = 100 * (vx * vx + vy * vy + a * w * w) / (pp.ut0 * pp.ut0 + 1);
            ASSERT_EQ_INT(sol.case_no, 0);
            ASSERT_NEAR(pct, rows[k].want, 0.05); /* the spec prints one decimal */
        }
}

/* SB sec. 6.2 (spec): the spatial results are symmetric in +-theta2 (v'_z flips, v'_x and
 * v'_y stay) for both spatial models; rounding only (1e-12 m/s). */
TEST(test_sb_rod_symmetric_in_theta2)
{
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 5; k++) {
            double t1 = (-20 + 10 * k) * M_PI / 180, t2 = 15 * M_PI / 180;
            impact_case a = impact_reference_sb_rod(t1, t2), b = impact_reference_sb_rod(t1, -t2);
            a.method = b.method = m ? IMPACT_EXACT : IMPACT_ALGEBRAIC;
            impact_result ra, rb;
            icv_err err;
            ASSERT_TRUE(impact_solve(&a, &ra, &err) == 0 && impact_solve(&b, &rb, &err) == 0);
            ASSERT_NEAR(ra.v.x, rb.v.x, 1e-9); /* the exact model's accuracy target */
            ASSERT_NEAR(ra.v.y, rb.v.y, 1e-9);
            ASSERT_NEAR(ra.v.z, -rb.v.z, 1e-9);
        }
}
