/* test_cli_solve.c: `impactcv solve` on the contract's CASE.yaml example, on bad input
 * (one line naming file:line:key) and with --reference. */
#include <jansson.h>
#include <math.h>

#include "tests/harness.h"

static const char *contract_case =
    "mass: 0.169\n"
    "inertia: [[1.312e-3,0,0],[0,7.7e-6,0],[0,0,1.312e-3]]\n"
    "orientation: {euler213: [0.0, 0.785, 0.0]}\n"
    "contact: [0, -0.1524, 0]\n"
    "v: [0.0, -1.9, 0.0]\n"
    "omega: [0.0, 0.0, 0.0]\n"
    "mu: 0.25\n"
    "e_n: 0.3\n"
    "restitution: stronge\n"
    "method: exact\n"
    "planar: false\n";

TEST(test_cli_solve_prints_the_contract_json)
{
    const char *path = th_tmp("case.yaml");
    ASSERT_TRUE(th_write_file(path, contract_case) == 0);
    th_proc p;
    int st = th_run_cli(&p, "solve '%s'", path);
    ASSERT(st == 0, "status %d: %s", st, p.err);
    json_error_t jerr;
    json_t *j = json_loads(p.out, 0, &jerr);
    ASSERT(j != NULL, "not JSON: %s", jerr.text);
    json_t *cu = json_object_get(json_object_get(j, "post"), "contact_velocity");
    double un0 = -1.9, un1 = json_real_value(json_array_get(cu, 1));
    const char *cs = json_string_value(json_object_get(j, "case"));
    double loss = json_real_value(json_object_get(json_object_get(j, "energy"), "loss_fraction"));
    double wc = json_real_value(json_object_get(json_object_get(j, "work"), "compression_J"));
    double wr = json_real_value(json_object_get(json_object_get(j, "work"), "restitution_J"));
    int has_impulse = json_array_size(json_object_get(j, "impulse")) == 3;
    json_decref(j);
    ASSERT_TRUE(has_impulse);
    ASSERT_TRUE(cs != NULL);
    ASSERT(un1 >= 0 && un1 <= -un0, "u_n' = %g", un1);
    ASSERT(loss > 0 && loss < 1, "loss %g", loss);
    ASSERT_NEAR(wr, -0.3 * 0.3 * wc, 1e-12); /* Stronge's law W_r = -e^2 W_c, exact in the output */
}

TEST(test_cli_solve_bad_value_names_file_line_and_key)
{
    const char *path = th_tmp("bad.yaml");
    char text[1024];
    snprintf(text, sizeof text, "%s", contract_case);
    char *e = strstr(text, "e_n: 0.3");
    memcpy(e, "e_n: 1.3", 8);
    ASSERT_TRUE(th_write_file(path, text) == 0);
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", path), 1);
    ASSERT_STR_CONTAINS(p.err, "bad.yaml:8: e_n:");
    ASSERT_TRUE(strchr(p.err, '\n') == p.err + strlen(p.err) - 1); /* one line */

    snprintf(text, sizeof text, "%s", contract_case);
    memcpy(strstr(text, "method: exact"), "method: exakt", 13);
    ASSERT_TRUE(th_write_file(path, text) == 0);
    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", path), 1);
    ASSERT_STR_CONTAINS(p.err, ":10: method:");

    ASSERT_TRUE(th_write_file(path, "mass: 1\nmas: 2\n") == 0);
    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", path), 1);
    ASSERT_STR_CONTAINS(p.err, "mas: unknown key");

    ASSERT_EQ_INT(th_run_cli(&p, "solve"), 2);
}

TEST(test_cli_solve_reference_table_all_within_tolerance)
{
    th_proc p;
    int st = th_run_cli(&p, "solve --reference");
    ASSERT(st == 0, "status %d: %s%s", st, p.out, p.err);
    ASSERT_STR_CONTAINS(p.out, "FW-icosa-Ir-z");
    ASSERT_STR_CONTAINS(p.out, "within their tolerance");
}

TEST(test_cli_solve_no_approach_names_the_file)
{
    const char *path = th_tmp("up.yaml");
    ASSERT_TRUE(th_write_file(path, "mass: 1\ninertia: [[1,0,0],[0,1,0],[0,0,1]]\ncontact: [0,-1,0]\n"
                                    "v: [0,1,0]\nmu: 0.3\ne_n: 0.5\n") == 0);
    th_proc p;
    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", path), 1);
    ASSERT_STR_CONTAINS(p.err, "up.yaml: impact: normal contact velocity u_y = 1 m/s: no approach");
}

static double jnum(json_t *j) { return json_number_value(j); }

/* the three multi-body kinds of CASE.yaml: values checked against the solver's own
 * analytic properties (momentum of the pair, Wang's cradle row, the chain's e) */
TEST(test_cli_solve_two_bodies_row_and_chain)
{
    char pair[1024], row[1024], chain[1024]; /* th_tmp's buffer is reused */
    snprintf(pair, sizeof pair, "%s", th_tmp("pair.yaml"));
    snprintf(row, sizeof row, "%s", th_tmp("row.yaml"));
    snprintf(chain, sizeof chain, "%s", th_tmp("chain.yaml"));
    ASSERT_TRUE(th_write_file(pair, "bodies:\n"
                                    "  - {name: puck1, mass: 0.02, inertia: [[1e-6,0,0],[0,2e-6,0],[0,0,1e-6]],\n"
                                    "     contact: [0.005, -0.02, 0], v: [0.3, -1.0, 0.1], omega: [0, 5, 0]}\n"
                                    "  - {name: puck2, mass: 0.03, inertia: [[1.5e-6,0,0],[0,3e-6,0],[0,0,1.5e-6]],\n"
                                    "     contact: [0, 0.02, 0], v: [0, 0.2, 0]}\n"
                                    "mu: 0.2\ne_n: 0.8\n") == 0);
    ASSERT_TRUE(th_write_file(row, "row:\n  mass: [0.04, 0.04, 0.04, 0.04, 0.04]\n  v: [0.4908478, 0, 0, 0, 0]\n"
                                   "  e: 0.95\n  contact_law: linear\n") == 0);
    ASSERT_TRUE(th_write_file(chain, "chain:\n  links:\n"
                                     "    - {mass: 0.0357, inertia: 6.91e-5, centre: [0.04898, 0.05075, 0], v: [0, -1.2, 0]}\n"
                                     "    - {mass: 0.0357, inertia: 6.91e-5, centre: [0.17416, 0.10912, 0], v: [0, -1.2, 0]}\n"
                                     "  joint: [0.09796, 0.10912, 0]\n  contact: [0, 0, 0]\nmu: 0.18\ne_n: 1\n"
                                     "restitution: newton\n") == 0);
    th_proc p;
    json_error_t jerr;
    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", pair), 0);
    json_t *j = json_loads(p.out, 0, &jerr);
    ASSERT(j != NULL, "not JSON: %s", jerr.text);
    json_t *m = json_object_get(j, "momentum");
    double dp = json_array_size(json_object_get(m, "pre")) == 3 ? 0 : 1;
    for (int i = 0; i < 3; i++)
        dp += fabs(jnum(json_array_get(json_object_get(m, "pre"), i)) - jnum(json_array_get(json_object_get(m, "post"), i)));
    const char *name = json_string_value(json_object_get(json_array_get(json_object_get(j, "bodies"), 1), "name"));
    int named = name && !strcmp(name, "puck2");
    json_decref(j);
    ASSERT(dp < 1e-15, "momentum changes by %g N s", dp); /* 0.02 N s momenta: rounding */
    ASSERT_TRUE(named);

    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", row), 0);
    j = json_loads(p.out, 0, &jerr);
    ASSERT(j != NULL, "not JSON: %s", jerr.text);
    double v5 = jnum(json_array_get(json_object_get(j, "v"), 4));
    json_decref(j);
    ASSERT_NEAR(v5, 0.8778266 * 0.4908478, 2e-6); /* the Algorithm 2 prototype (test_multibody.c) */

    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", chain), 0);
    j = json_loads(p.out, 0, &jerr);
    ASSERT(j != NULL, "not JSON: %s", jerr.text);
    double e = jnum(json_object_get(j, "e_energetic"));
    double uy = jnum(json_array_get(json_object_get(json_object_get(j, "post"), "contact_velocity"), 1));
    json_decref(j);
    ASSERT_NEAR(uy, 1.2, 1e-12); /* Newton e = 1: the tip leaves as fast as it came */
    ASSERT(e > 0.5 && e <= 1 + 1e-12, "e_energetic %g", e);
}

TEST(test_cli_solve_multibody_bad_input_names_file_line_and_key)
{
    const char *path = th_tmp("badrow.yaml");
    th_proc p;
    ASSERT_TRUE(th_write_file(path, "row:\n  mass: [1, 1, 1]\n  v: [1, 0, 0]\n  e: [0.9, 1.5]\n") == 0);
    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", path), 1);
    ASSERT_STR_CONTAINS(p.err, "badrow.yaml:4: row.e: contact 2-3: must be in [0, 1]");
    ASSERT_TRUE(th_write_file(path, "row:\n  mass: [1, 1, 1]\n  v: [1, 0]\n  e: 0.9\n") == 0);
    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", path), 1);
    ASSERT_STR_CONTAINS(p.err, "badrow.yaml:3: row.v: 2 values, expected 3");
    ASSERT_TRUE(th_write_file(path, "bodies:\n  - {fixed: true}\n  - {fixed: true}\nmu: 0\ne_n: 1\n") == 0);
    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", path), 1);
    ASSERT_STR_CONTAINS(p.err, "both bodies are fixed");
    ASSERT_TRUE(th_write_file(path, "chain:\n  links:\n    - {mass: 1, inertia: 1, centre: [0,1,0], v: [0,-1,0]}\n"
                                    "    - {mass: 1, inertia: 1, centre: [2,2,0], v: [0,-1,0], omega: 3}\n"
                                    "  joint: [1, 2, 0]\n  contact: [0, 0, 0]\nmu: 0.1\ne_n: 0.5\n") == 0);
    ASSERT_EQ_INT(th_run_cli(&p, "solve '%s'", path), 1);
    ASSERT_STR_CONTAINS(p.err, "chain: the pin's velocity on link 0 and on link 1 differ by 3 m/s");
}
