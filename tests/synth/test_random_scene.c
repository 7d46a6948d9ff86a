/* test_random_scene.c: synth_scenario_random (synth/random_scene.c) without rendering:
 * deterministic per seed, every draw inside the documented ranges (docs/synth.md,
 * "Random scenes"), every scene a valid experiment (its impacts inside the clip with
 * 10 frames of flight on each side), and the draws covering what they should. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth.h"
#include "tests/harness.h"

TEST(test_random_scene_same_seed_same_scene)
{
    if (th_sanitized()) /* three draws, 9 s there */
        SKIP("in the plain pass: the draws run sanitized in test_random_scene_draws_in_range_and_valid");
    static synth_scenario a, b;
    icv_err err = {0};
    ASSERT(synth_scenario_random(1234, NULL, &a, &err) == 0, "%s", err.msg);
    ASSERT(synth_scenario_random(1234, NULL, &b, &err) == 0, "%s", err.msg);
    /* defaults memset the whole struct: padding included, equal bytes mean equal scenes */
    ASSERT(memcmp(&a, &b, sizeof a) == 0, "seed 1234 drew two different scenes");
    ASSERT(synth_scenario_random(1235, NULL, &b, &err) == 0, "%s", err.msg);
    ASSERT(memcmp(&a, &b, sizeof a) != 0, "seeds 1234 and 1235 drew the same scene");
    ASSERT_EQ_INT(a.random, 1);
    ASSERT_EQ_INT(a.random_seed, 1234);
    /* a scenario file `random: 1234` is the same scene (but for the path it came from) */
    const char *path = th_tmp("random.yaml");
    ASSERT(th_write_file(path, "random: 1234\n") == 0, "cannot write %s", path);
    ASSERT(synth_scenario_load(path, &b, &err) == 0, "%s", err.msg);
    ASSERT(!strcmp(b.path, path), "path '%s'", b.path);
    memset(b.path, 0, sizeof b.path);
    ASSERT(memcmp(&a, &b, sizeof a) == 0, "random: 1234 in a file drew another scene");
}

/* The draw of seed, kept for seeds 1000-1059 (the plain pass's three studies below
 * read the same 60 draws, half a second each: drawn once, 55 s saved). */
static const synth_scenario *random_draw(int seed, icv_err *err)
{
    enum { FIRST = 1000, N_KEPT = 60 };
    static synth_scenario kept[N_KEPT], other;
    static int have[N_KEPT];
    int i = seed - FIRST;
    synth_scenario *sc = i >= 0 && i < N_KEPT ? &kept[i] : &other;
    if (sc != &other && have[i])
        return sc;
    if (synth_scenario_random((unsigned long)seed, NULL, sc, err) != 0)
        return NULL;
    if (sc != &other)
        have[i] = 1;
    return sc;
}

TEST(test_random_scene_draws_in_range_and_valid)
{
    static const double fps_list[] = {30, 60, 120, 240, 500, 1000, 2000, 3000, 6000};
    /* sanitized: 4 seeds (3 s each there) exercise the same code; the draws' spread is
       the plain pass's */
    int n_seeds = th_sanitized() ? 4 : th_accuracy() ? 200 : 60;
    int planar = 0, kinds[3] = {0}, styles[4] = {0}, two_impacts = 0;
    int flicker = 0, light_bg = 0, dark_markers = 0, glints = 0, board = 0;
    for (int seed = 1000; seed < 1000 + n_seeds; seed++) {
        icv_err err = {0};
        const synth_scenario *sc = random_draw(seed, &err);
        ASSERT(sc != NULL, "seed %d: %s", seed, err.msg);
        ASSERT(synth_scenario_validate(sc, &err) == 0, "seed %d: %s", seed, err.msg);
        ASSERT(sc->n_cameras == 1 || sc->n_cameras == 2, "seed %d: %d cameras", seed, sc->n_cameras);
        ASSERT_EQ_INT(sc->planar, sc->n_cameras == 1);
        planar += sc->planar;
        const synth_body *b = &sc->body;
        kinds[b->shape.type == ICV_SHAPE_BOX ? 1 : b->shape.type == ICV_SHAPE_SPHERE ? 2 : 0]++;
        ASSERT(b->shape.type != ICV_SHAPE_SPHERE || sc->planar, "seed %d: a ball with two cameras", seed);
        ASSERT(b->shape.type == ICV_SHAPE_SPHERE ? b->n_markers == 1 : b->n_markers == 3 || b->n_markers == 4,
               "seed %d: %d markers on a %s", seed, b->n_markers, icv_shape_name(b->shape.type));
        styles[b->marker_style]++;
        dark_markers += b->marker_gray < b->body_gray;
        for (int c = 0; c < sc->n_cameras; c++) {
            const synth_camera *cam = &sc->cameras[c];
            int known = 0;
            for (size_t i = 0; i < sizeof fps_list / sizeof fps_list[0]; i++)
                known |= cam->fps == fps_list[i];
            ASSERT(known, "seed %d: %g fps is not one of the drawn rates", seed, cam->fps);
            /* high rates go with small frames, as on real high-speed cameras */
            ASSERT(cam->fps < 1000 || cam->model.width * cam->model.height <= 640 * 480, "seed %d: %dx%d at %g fps",
                   seed, cam->model.width, cam->model.height, cam->fps);
            ASSERT(cam->exposure_s > 0 && cam->exposure_s <= 1 / cam->fps, "seed %d: exposure %g s at %g fps", seed,
                   cam->exposure_s, cam->fps);
            icv_vec3 cc = synth_camera_center(&cam->model);
            ASSERT(cc.y > 0, "seed %d: camera %d below the surface", seed, c);
            ASSERT(cam->n_frames <= 600, "seed %d: %d frames", seed, cam->n_frames); /* synth_random_opts default */
        }
        double levels = sc->render.read_noise_e * 255 / sc->render.full_well_e;
        ASSERT(levels >= 1 - 1e-9 && levels <= 8 + 1e-9, "seed %d: read noise %.2f gray levels", seed, levels);
        ASSERT(sc->crf >= 14 && sc->crf <= 30, "seed %d: crf %d", seed, sc->crf);
        ASSERT(sc->max_impacts == 1 || sc->max_impacts == 2, "seed %d: max_impacts %d", seed, sc->max_impacts);
        two_impacts += sc->max_impacts == 2;
        flicker += sc->render.flicker_depth > 0;
        light_bg += sc->render.background_gray > 0.4;
        glints += sc->render.n_glints > 0;
        board += sc->render.board_in_view;

        /* the experiment is valid: every impact in the clip, 10 frames of flight each side */
        const synth_camera *c0 = &sc->cameras[0];
        double t_end = synth_camera_frame_time(c0, c0->n_frames - 1) + c0->exposure_s;
        synth_flight *f;
        ASSERT(synth_flight_run(sc, t_end, &f, &err) == 0, "seed %d: %s", seed, err.msg);
        int ni = synth_flight_n_impacts(f);
        double t1 = ni ? synth_flight_impact(f, 0)->time_s : 0, tl = ni ? synth_flight_impact(f, ni - 1)->time_s : 0;
        int note = synth_flight_note(f)[0] != 0;
        synth_flight_free(f);
        ASSERT(ni == sc->max_impacts, "seed %d: %d impacts in the clip, drawn %d", seed, ni, sc->max_impacts);
        ASSERT(!note, "seed %d: the body comes to rest in the clip", seed);
        /* min_side_frames, the generator's default: README asks 8-10 frames each side */
        ASSERT(t1 * c0->fps >= 10, "seed %d: first impact after %.1f frames", seed, t1 * c0->fps);
        ASSERT(c0->n_frames - 1 - tl * c0->fps >= 10, "seed %d: %.1f frames after the last impact", seed,
               c0->n_frames - 1 - tl * c0->fps);
    }
    /* every kind of scene the issue lists turns up in 60 seeds (fixed: each is drawn with
     * 9-70%, so each appears ~3 times or more; 1 is a floor, not a figure) */
    if (!th_sanitized()) {
        ASSERT(planar > 0 && planar < n_seeds, "one-camera scenes %d of %d", planar, n_seeds);
        ASSERT(kinds[0] && kinds[1] && kinds[2], "rods %d, bars %d, balls %d", kinds[0], kinds[1], kinds[2]);
        ASSERT(styles[SYNTH_MARKER_SPHERE] && styles[SYNTH_MARKER_STICKER] && styles[SYNTH_MARKER_BAND] &&
                   styles[SYNTH_MARKER_POST],
               "marker styles: sphere %d, sticker %d, band %d, post %d", styles[0], styles[1], styles[2], styles[3]);
        ASSERT(two_impacts && flicker && light_bg && dark_markers && glints && board,
               "two impacts %d, flicker %d, light background %d, dark markers %d, glints %d, board in view %d",
               two_impacts, flicker, light_bg, dark_markers, glints, board);
    }
}

/* the smallest singular value of the projected sides of the board's squares (px) */
static double squares_across(const synth_scenario *sc, int ci)
{
    const synth_board_opts *b = &sc->board;
    synth_board_pose p = sc->planar ? synth_board_in_motion_plane(sc) : synth_board_on_surface();
    double least = INFINITY;
    for (int r = 0; r + 1 < b->rows; r++)
        for (int k = 0; k + 1 < b->cols; k++) {
            double q[3][2];
            for (int j = 0; j < 3; j++) {
                icv_vec3 x = icv_v3((k + (j == 1)) * b->square, (r + (j == 2)) * b->square, 0);
                if (synth_camera_project(&sc->cameras[ci].model, icv_v3_add(icv_m3_apply(p.R, x), p.t), q[j]))
                    return 0;
            }
            double ax = q[1][0] - q[0][0], ay = q[1][1] - q[0][1], dx = q[2][0] - q[0][0], dy = q[2][1] - q[0][1];
            /* singular values of [a d]: sqrt of the eigenvalues of its Gram matrix */
            double A = ax * ax + ay * ay, B = dx * dx + dy * dy, C = ax * dx + ay * dy;
            double m = 0.5 * (A + B), dev = sqrt(fmax(m * m - (A * B - C * C), 0));
            least = fmin(least, sqrt(fmax(m - dev, 0)));
        }
    return least;
}

TEST(test_random_scene_board_squares_and_flash_show_in_every_camera)
{
    /* a careful user's surface (motion-plane) board shows squares at least 6 px
     * across, and each camera catches at least half the flash in one frame */
    int n_seeds = th_sanitized() ? 4 : 40, flashes = 0;
    double thinnest = INFINITY, least_seen = INFINITY;
    for (int seed = 1000; seed < 1000 + n_seeds; seed++) {
        icv_err err = {0};
        const synth_scenario *sc = random_draw(seed, &err);
        ASSERT(sc != NULL, "seed %d: %s", seed, err.msg);
        const synth_render_opts *o = &sc->render;
        flashes += o->flash_duration_s > 0;
        for (int c = 0; c < sc->n_cameras; c++) {
            double across = squares_across(sc, c);
            ASSERT(across >= 6 - 1e-6, "seed %d camera %d: board squares %.2f px across", seed, c, across);
            thinnest = fmin(thinnest, across);
            if (!(o->flash_duration_s > 0))
                continue;
            const synth_camera *cam = &sc->cameras[c];
            double best = 0, e = cam->exposure_s;
            for (int n = 0; n < cam->n_frames; n++) {
                double t = synth_camera_frame_time(cam, n);
                double a = fmax(t - e / 2, o->flash_time_s), b = fmin(t + e / 2, o->flash_time_s + o->flash_duration_s);
                best = fmax(best, b > a ? (b - a) / o->flash_duration_s : 0);
            }
            ASSERT(best >= 0.5, "seed %d camera %d: at most %.0f%% of the flash in a frame", seed, c, 100 * best);
            least_seen = fmin(least_seen, best);
        }
    }
    ASSERT(flashes > 0, "no flash in %d seeds", n_seeds);
    if (th_accuracy())
        printf("    thinnest squares %.2f px across; least flash seen in one frame %.0f%% (%d flashes)\n", thinnest,
               100 * least_seen, flashes);
}

static int inside_quad(const double q[4][2], double u, double v)
{
    int pos = 0, neg = 0;
    for (int i = 0; i < 4; i++) {
        const double *a = q[i], *b = q[(i + 1) % 4];
        double c = (b[0] - a[0]) * (v - a[1]) - (b[1] - a[1]) * (u - a[0]);
        pos += c > 0, neg += c < 0;
    }
    return !pos || !neg;
}

TEST(test_random_scene_cylinder_leaves_the_surface_board_in_the_open)
{
    /* two cameras with the cylinder (seeds 1000-1059 hold 2 such scenes: at least one
     * must be checked, or the test checks nothing):
     * the board lies on the surface, and anything in front of it appears
     * over it in the image. No sample of the reference cylinder's surface projects
     * inside the board's outline (white margin included) in any camera. */
    if (th_sanitized())
        SKIP("60 scenes' geometry (89 s sanitized): the plain pass covers it, the draws run sanitized above");
    int n_seeds = 60, checked = 0;
    for (int seed = 1000; seed < 1000 + n_seeds; seed++) {
        icv_err err = {0};
        const synth_scenario *sc = random_draw(seed, &err);
        ASSERT(sc != NULL, "seed %d: %s", seed, err.msg);
        const synth_render_opts *o = &sc->render;
        if (sc->planar || !o->reference_object)
            continue;
        checked++;
        const synth_board_opts *b = &sc->board;
        for (int c = 0; c < sc->n_cameras; c++) {
            double q[4][2];
            for (int k = 0; k < 4; k++) {
                double x = (k == 1 || k == 2 ? b->cols + 1 : -2) * b->square, z = (k >= 2 ? b->rows + 1 : -2) * b->square;
                ASSERT(synth_camera_project(&sc->cameras[c].model, icv_v3(x, 0, z), q[k]) == 0, "seed %d", seed);
            }
            for (int i = 0; i < 64; i++)
                for (int j = 0; j <= 16; j++) {
                    double a = 2 * M_PI * i / 64, uv[2];
                    icv_vec3 p = icv_v3_add(o->reference_position,
                                            icv_v3(o->reference_radius * cos(a), o->reference_height * j / 16,
                                                   o->reference_radius * sin(a)));
                    if (synth_camera_project(&sc->cameras[c].model, p, uv))
                        continue;
                    ASSERT(!inside_quad(q, uv[0], uv[1]), "seed %d camera %d: the cylinder covers the board at (%.0f, %.0f) px",
                           seed, c, uv[0], uv[1]);
                }
        }
    }
    ASSERT(checked >= 1, "no two-camera scene with the cylinder in %d seeds", n_seeds);
}
