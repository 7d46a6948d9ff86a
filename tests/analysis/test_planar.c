/* test_planar.c: one-camera (planar) mode of the analysis (issue #9 item 7): a
 * ball filmed at 240 fps with nothing to scale by (scale: gravity) and a rod moving
 * in the motion plane. Tracks have z = 0, as the contract says of planar mode. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "analysis/analysis.h"
#include "tests/harness.h"

/* a ball launched from (0, 0.4) at v0, bouncing on y = 0 with Newton ratio e and
 * no friction (v_x unchanged); sampled at fps in `units` per metre with noise */
static int ball_tracks(icv_vec3 v0, double e, double r, double fps, double t_end, double units, double sigma_units,
                       unsigned long seed, analysis_tracks *tr, double *t_imp, icv_vec3 *v_imp)
{
    double g = 9.81, y0 = 0.4;
    /* first contact: y0 - r + v0y t - g t^2 / 2 = 0 */
    double a = 0.5 * g, bb = -v0.y, c = -(y0 - r);
    double t1 = (-bb + sqrt(bb * bb - 4 * a * c)) / (2 * a);
    *t_imp = t1;
    *v_imp = icv_v3(v0.x, v0.y - g * t1, 0);
    int n = (int)(t_end * fps) + 1;
    icv_err err;
    analysis_tracks_alloc(tr, n, 1, 0, &err);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    for (int i = 0; i < n; i++) {
        double t = i / fps;
        icv_vec3 p;
        if (t < t1)
            p = icv_v3(v0.x * t, y0 + v0.y * t - 0.5 * g * t * t, 0);
        else {
            double tau = t - t1, vy = -e * v_imp->y;
            p = icv_v3(v0.x * t, r + vy * tau - 0.5 * g * tau * tau, 0);
        }
        tr->frame[i] = i;
        tr->t[i] = t;
        tr->pos[i] = icv_v3(p.x * units + gsl_ran_gaussian(rng, sigma_units),
                            p.y * units + gsl_ran_gaussian(rng, sigma_units), 0);
        tr->seen[i] = 1;
    }
    gsl_rng_free(rng);
    return 0;
}

TEST(test_ball_with_scale_from_gravity_gives_the_speed_within_1_percent)
{
    /* Issue #9: `scale: gravity` on a ball bounce gives the launch speed within 1%.
     * The tracks are in 1250 units per metre (as if pixels at 0.8 mm each) with 0.3
     * units of noise; the scale must come back within 1% and, applied, the speed at
     * impact within 1% and e within 0.01. */
    analysis_tracks tr;
    double t_imp;
    icv_vec3 v_imp;
    const double units = 1250;
    ball_tracks(icv_v3(1.2, 2.0, 0), 0.7, 0.02, 240, 0.95, units, 0.3, 1, &tr, &t_imp, &v_imp);
    analysis_body b = {0};
    icv_err err = {0};
    const icv_vec3 mk = {0, 0, 0};
    b.mass = 0.0027;
    b.inertia = icv_m3_diag(7.2e-7, 7.2e-7, 7.2e-7);
    b.shape.type = ICV_SHAPE_SPHERE;
    b.shape.radius = 0.02;
    ASSERT(analysis_template_init(&b.tmpl, &mk, 1, &err) == 0, "%s", err.msg);
    double scale, sd;
    ASSERT(analysis_scale_from_gravity(&tr, &b, &scale, &sd, &err) == 0, "%s", err.msg);
    ASSERT_NEAR(scale * units, 1.0, 0.01);
    for (int i = 0; i < tr.n_frames; i++)
        tr.pos[i] = icv_v3_scale(tr.pos[i], scale);
    analysis_result res;
    const icv_vec3 g = {0, -9.81, 0};
    int rc = analysis_impacts_measure(&tr, &b, &g, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT(res.n_impacts >= 1, "no impact");
    const analysis_impact *im = &res.impacts[0];
    double speed = icv_v3_norm(v_imp);
    printf("     scale %.6g m/unit (truth %.6g, sd %.2g); speed at impact %.4f m/s (truth %.4f); e %.4f (truth 0.7)\n",
           scale, 1 / units, sd, icv_v3_norm(im->pre.v), speed, im->e_kinematic);
    ASSERT_NEAR(icv_v3_norm(im->pre.v), speed, 0.01 * speed);
    ASSERT_NEAR(im->e_kinematic, 0.7, 0.01);
    ASSERT_NEAR(im->pre.v.z, 0, 1e-9); /* planar: z stays 0 */
    ASSERT_EQ_INT(im->spin_observable, 0);
}

#include "tests/analysis/impact_scenario.h"

TEST(test_rod_in_the_motion_plane_meets_the_3d_tolerances)
{
    /* Issue #9: a one-camera (planar) experiment meets the same velocity and
     * restitution tolerances: the contract's rod moving and turning in the x-y plane
     * (rotation about z only, slip along x), tracks with z = 0, 0.2 mm noise. */
    scenario s;
    make_scenario(&s, 1);
    s.R = icv_rot_z(0.25);
    s.v_pre = icv_v3(0.5, -2.2, 0);
    s.w_pre = icv_v3(0, 0, -4.0);
    scenario_finish(&s);
    analysis_tracks tr;
    sample(&s, 0.35, 2e-4, 11, &tr);
    for (int i = 0; i < tr.n_frames * tr.n_markers; i++)
        tr.pos[i].z = 0; /* the plane of motion: z = 0 */
    analysis_result res;
    icv_err err = {0};
    int rc = analysis_impacts_measure(&tr, &s.body, &G, NULL, &res, &err);
    analysis_tracks_free(&tr);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(res.n_impacts, 1);
    const analysis_impact *im = &res.impacts[0];
    double speed = icv_v3_norm(s.v_pre);
    ASSERT_NEAR(im->t, s.t_star, 0.2 / 120);
    ASSERT_NEAR(im->pre.v.x, s.v_pre.x, 0.005 * speed);
    ASSERT_NEAR(im->pre.v.y, s.v_pre.y, 0.005 * speed);
    ASSERT_NEAR(im->post.v.x, s.v_post.x, 0.005 * speed);
    ASSERT_NEAR(im->post.v.y, s.v_post.y, 0.005 * speed);
    ASSERT_NEAR(im->pre.v.z, 0, 1e-6);
    ASSERT_NEAR(im->pre.omega.z, s.w_pre.z, fmax(0.02 * fabs(s.w_pre.z), 0.1));
    ASSERT_NEAR(im->post.omega.z, s.w_post.z, fmax(0.02 * fabs(s.w_post.z), 0.1));
    ASSERT_NEAR(im->e_kinematic, s.e, 0.01);
    ASSERT_NEAR(im->impulse_ratio, s.ratio, 0.01);
}

/* Seed 1149's capsule, its three markers on posts and its state before the impact
 * (its truth; g along -y). */
static void capsule_1149(scenario *s)
{
    make_scenario(s, 1);
    s->body.mass = 0.2265;
    s->body.inertia = icv_m3_diag(1.1053e-3, 1.858e-5, 1.1053e-3);
    s->body.shape.length = 0.24097;
    s->body.shape.radius = 0.012809;
    s->markers[0] = icv_v3(0.048586, -0.096412, 0.0022219);
    s->markers[1] = icv_v3(-0.048128, 0.016680, 0.0070162);
    s->markers[2] = icv_v3(0.048587, 0.089747, -0.0022139);
    s->R = icv_rot_z(-1.0106);
    s->v_pre = icv_v3(0.894, -2.644, 0);
    s->w_pre = icv_v3(0, 0, -4.668);
    scenario_finish(s);
}

/* The analysis' body of s's three markers as a one-camera experiment gives it (the
 * planar template). */
static int one_camera_body(const scenario *s, analysis_body *b, icv_err *err)
{
    icv_experiment *e = calloc(1, sizeof *e);
    if (!e)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    e->n_cameras = 1;
    e->mass = s->body.mass;
    e->inertia = s->body.inertia;
    e->shape = s->body.shape;
    e->n_markers = 3;
    memcpy(e->markers, s->markers, sizeof s->markers[0] * 3);
    int rc = analysis_body_from_experiment(e, b, err);
    free(e);
    return rc;
}

/* s's impacts measured from 60 ms of its markers round the impact at fps, noise
 * (m) per coordinate, in the motion plane (z = 0, as the track stage writes one
 * camera's places), with the default 0.3 mm sigma; hide_middle: marker 1 unseen in
 * every frame before the impact. */
static int measure_in_plane(const scenario *s, double fps, double noise, unsigned long seed, int hide_middle,
                            analysis_result *res, icv_err *err)
{
    analysis_tracks tr;
    sample_at(s, s->t_star - 0.03, s->t_star + 0.03, fps, noise, seed, &tr);
    for (int i = 0; i < tr.n_frames; i++) {
        for (int k = 0; k < tr.n_markers; k++)
            tr.pos[i * tr.n_markers + k].z = 0;
        if (hide_middle && tr.t[i] < s->t_star)
            tr.seen[i * tr.n_markers + 1] = 0;
    }
    analysis_body b;
    int rc = one_camera_body(s, &b, err);
    if (!rc)
        rc = analysis_impacts_measure(&tr, &b, &G, NULL, res, err);
    analysis_tracks_free(&tr);
    return rc;
}

TEST(test_planar_rod_with_markers_off_the_motion_plane_is_posed_in_the_plane)
{
    /* Random scene 1149 (issue #18): balls on posts 48 mm beside a capsule's axis and
     * 2-7 mm apart in body z, one camera at 3000 fps. The track stage places each
     * marker at its own depth and writes its in-plane place with z = 0 (contract); a
     * 3D fit of the template with its z to those points tilted the rod 0.06 rad out of
     * the plane, which moved its lowest point and the instant where the pre-impact
     * flight meets the surface by -0.35 frame (issue #9's tolerance: 0.2) on the
     * truth's own tracks. Here that capsule, its markers and its state before the
     * impact (seed 1149's truth; g along -y), 10 um of noise, the default 0.3 mm
     * sigma: the instant within 0.05 frame (measured 0.004; -0.350 before), the
     * attitude turned about z only (within 1e-3 rad: the tilt was 0.06), the contact
     * point on the plane (0.1 mm: it was 6.2 mm off it) and omega_z within issue
     * #9's 2%. */
    scenario s;
    capsule_1149(&s);
    const double fps = 3000;
    analysis_result res;
    icv_err err = {0};
    int rc = measure_in_plane(&s, fps, 1e-5, 3, 0, &res, &err);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(res.n_impacts, 1);
    const analysis_impact *im = &res.impacts[0];
    ASSERT_NEAR((im->t - s.t_star) * fps, 0, 0.05);
    ASSERT_NEAR(im->pre.euler213.x, 0, 1e-3);
    ASSERT_NEAR(im->pre.euler213.y, 0, 1e-3);
    ASSERT_NEAR(im->contact_point.z, 0, 1e-4);
    ASSERT_NEAR(im->pre.omega.z, s.w_pre.z, fmax(0.02 * fabs(s.w_pre.z), 0.1));
}

TEST(test_planar_body_with_one_marker_hidden_before_the_impact_is_measured)
{
    /* One camera sees two of three markers before the impact (random scene 1090: a
     * rod's middle sticker too dim to detect until the bounce). In the motion plane
     * two markers apart fix the pose, so the pre-impact flight is posed from them and
     * the impact measured; before, no frame before it was posed and the analysis
     * stopped ("only 0 posed frames before it"). Seed 1149's capsule and state (as
     * above), 3000 fps, 0.1 mm of noise, the default 0.3 mm sigma: issue #9's
     * tolerances, the instant within 0.2 frame, v within 0.5% of the impact speed,
     * e within 0.01, omega_z within 2% (or 0.1 rad/s). */
    scenario s;
    capsule_1149(&s);
    const double fps = 3000;
    analysis_result res;
    icv_err err = {0};
    int rc = measure_in_plane(&s, fps, 1e-4, 5, 1, &res, &err);
    ASSERT(rc == 0, "%s", err.msg);
    ASSERT_EQ_INT(res.n_impacts, 1);
    const analysis_impact *im = &res.impacts[0];
    double speed = icv_v3_norm(s.v_pre);
    printf("     instant %+.3f frame; v_pre error (%.4f, %.4f) m/s, sd (%.4f, %.4f); e %.4f (truth %.4f)\n",
           (im->t - s.t_star) * fps, im->pre.v.x - s.v_pre.x, im->pre.v.y - s.v_pre.y, im->pre.v_sd.x, im->pre.v_sd.y,
           im->e_kinematic, s.e);
    ASSERT_NEAR((im->t - s.t_star) * fps, 0, 0.2);
    ASSERT_NEAR(im->pre.v.x, s.v_pre.x, 0.005 * speed);
    ASSERT_NEAR(im->pre.v.y, s.v_pre.y, 0.005 * speed);
    ASSERT_NEAR(im->post.v.x, s.v_post.x, 0.005 * speed);
    ASSERT_NEAR(im->post.v.y, s.v_post.y, 0.005 * speed);
    ASSERT_NEAR(im->e_kinematic, s.e, 0.01);
    ASSERT_NEAR(im->pre.omega.z, s.w_pre.z, fmax(0.02 * fabs(s.w_pre.z), 0.1));
}
