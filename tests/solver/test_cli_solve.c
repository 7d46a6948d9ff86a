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
