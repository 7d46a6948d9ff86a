/* test_truth.c: truth.json holds every key of the contract's impactcv-truth-1 schema
 * and its derived quantities obey their definitions (contract.md, results.json
 * "Meanings"); read from the committed first sample. */
#include <jansson.h>
#include <math.h>

#include "tests/harness.h"

static double vget(json_t *o, const char *k, int i) { return json_number_value(json_array_get(json_object_get(o, k), i)); }

TEST(test_truth_has_every_contract_key_and_consistent_impact_quantities)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sample_videos/01_rod_slope45_stereo/truth.json", th_root());
    json_error_t je;
    json_t *t = json_load_file(path, 0, &je);
    ASSERT(t, "%s: %s", path, je.text);
    const char *top[] = {"schema", "restitution", "mu", "e_n", "gravity", "cameras", "impacts", "markers_3d", "markers_2d"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        ASSERT(json_object_get(t, top[i]), "missing %s", top[i]);
    ASSERT_STR_CONTAINS(json_string_value(json_object_get(t, "schema")), "impactcv-truth-1");
    const char *cam[] = {"id", "width", "height", "fps", "exposure_s", "start_offset_frames", "K", "dist", "R", "t"};
    json_t *c0 = json_array_get(json_object_get(t, "cameras"), 0);
    for (size_t i = 0; i < sizeof cam / sizeof *cam; i++)
        ASSERT(json_object_get(c0, cam[i]), "cameras[0] misses %s", cam[i]);
    json_t *im = json_array_get(json_object_get(t, "impacts"), 0);
    ASSERT(im, "no impact");
    const char *ik[] = {"time_s", "pre", "post", "contact_point", "impulse", "e_kinematic", "impulse_ratio", "energy"};
    for (size_t i = 0; i < sizeof ik / sizeof *ik; i++)
        ASSERT(json_object_get(im, ik[i]), "impacts[0] misses %s", ik[i]);
    json_t *pre = json_object_get(im, "pre"), *post = json_object_get(im, "post");
    const char *sk[] = {"v", "omega", "euler213", "contact_velocity"};
    for (size_t i = 0; i < 4; i++)
        ASSERT(json_object_get(pre, sk[i]) && json_object_get(post, sk[i]), "pre/post miss %s", sk[i]);
    /* impulse = m (v_post - v_pre), m = 0.169 kg (the scenario's rod); %.15g output */
    for (int i = 0; i < 3; i++)
        ASSERT_NEAR(vget(im, "impulse", i), 0.169 * (vget(post, "v", i) - vget(pre, "v", i)), 1e-12);
    /* e_kinematic = -u_post.y / u_pre.y; impulse_ratio = |P_xz| / P_y */
    ASSERT_NEAR(json_number_value(json_object_get(im, "e_kinematic")),
                -vget(post, "contact_velocity", 1) / vget(pre, "contact_velocity", 1), 1e-12);
    ASSERT_NEAR(json_number_value(json_object_get(im, "impulse_ratio")),
                hypot(vget(im, "impulse", 0), vget(im, "impulse", 2)) / vget(im, "impulse", 1), 1e-12);
    /* a sliding impact (mu 0.15): the contact slides throughout, so the ratio is mu up to
     * the slip direction turning during the impact (3D): within 0.1 % below mu */
    double ratio = json_number_value(json_object_get(im, "impulse_ratio"));
    ASSERT(ratio <= 0.15 + 1e-12 && ratio > 0.15 * 0.999, "impulse ratio %.9g for mu 0.15", ratio);
    json_t *en = json_object_get(im, "energy");
    double Epre = json_number_value(json_object_get(en, "pre_J")), Epost = json_number_value(json_object_get(en, "post_J"));
    ASSERT_NEAR(json_number_value(json_object_get(en, "loss_fraction")), 1 - Epost / Epre, 1e-12);
    /* the contact point is on the surface y = 0 */
    ASSERT_NEAR(vget(im, "contact_point", 1), 0.0, 1e-9);
    /* 45-degree slope: gravity 9.81 (sin, -cos, 0) in the scenario's frame; the truth is
     * in the frame the detector finds from the board on the surface (synth_surface_frame),
     * whose x turns sign when the reference camera sees the board from its far end */
    double sx = json_object_get(t, "surface_frame_note") ? -1 : 1;
    ASSERT_NEAR(vget(t, "gravity", 0), sx * 9.81 * sqrt(0.5), 1e-12);
    ASSERT_NEAR(vget(t, "gravity", 1), -9.81 * sqrt(0.5), 1e-12);
    /* markers_3d at the reference camera's frame times: t = n / 240 */
    json_t *m3 = json_array_get(json_object_get(t, "markers_3d"), 10);
    ASSERT_NEAR(json_number_value(json_object_get(m3, "time_s")), 10 / 240.0, 1e-15);
    ASSERT_EQ_INT(json_array_size(json_object_get(m3, "positions")), 3);
    json_decref(t);
}
