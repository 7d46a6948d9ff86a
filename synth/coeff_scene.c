/* coeff_scene.c: the coefficient experiments (docs/coefficients.md) as synthetic videos with
 * exact truth. A slide: the body rests on the inclined plate, is released and slides
 * down at the constant acceleration |g| (sin theta - mu_k cos theta) (an analytic
 * motion: no impact physics). A tilt: the plate (the board lying on it) is raised
 * about a horizontal hinge at a constant rate with the body resting on it; the body
 * starts to slide when the angle reaches atan(mu_s), then slides with mu_k while the
 * plate goes on rising. A drop: an ordinary impact scenario whose experiment.yaml says
 * `experiment: drop`. Slides and tilts add level_<camera>.png, the board lying on a
 * level reference (the incline's angle without a given gravity). docs/synth.md. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth_internal.h"

/* ---- scenario keys --------------------------------------------------------- */

static double slide_accel(const synth_scenario *sc, icv_vec3 *downhill);

int synth_coeff_scenario_read(icv_ynode root, synth_scenario *sc, icv_err *err)
{
    char kind[16] = "impact";
    SYNTH_TRY(icv_yread_str(root, "kind", 0, kind, sizeof kind, err));
    static const char *const names[] = {"impact", "slide", "tilt", "drop"};
    sc->kind = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(kind, names[i]))
            sc->kind = i;
    if (sc->kind < 0)
        return icv_ynode_fail(icv_ynode_get(root, "kind"), err, ICV_EINVAL,
                              "unknown kind '%s' (impact | slide | tilt | drop)", kind);
    icv_ynode t = icv_ynode_get(root, "tilt");
    sc->tilt_start = 0;
    sc->tilt_rate = 0.05;
    sc->tilt_time = 0;
    sc->tilt_hinge_x = -sc->render.plate_size[0] / 2;
    if (icv_ynode_exists(t) && sc->kind != SYNTH_KIND_TILT)
        return icv_ynode_fail(t, err, ICV_EINVAL, "tilt is for kind: tilt");
    SYNTH_TRY(icv_yread_double(t, "start", 0, &sc->tilt_start, err));
    SYNTH_TRY(icv_yread_double(t, "rate", 0, &sc->tilt_rate, err));
    SYNTH_TRY(icv_yread_double(t, "time", 0, &sc->tilt_time, err));
    SYNTH_TRY(icv_yread_double(t, "hinge_x", 0, &sc->tilt_hinge_x, err));
    if (sc->kind == SYNTH_KIND_SLIDE) {
        /* a flight before the slide: its landing velocity must lie along downhill in
         * the plane (the kinematic path's condition, slide_land) */
        icv_vec3 d, v = sc->release.v;
        slide_accel(sc, &d);
        icv_vec3 vt = icv_v3(v.x, 0, v.z);
        if (icv_v3_norm(icv_v3_axpy(-icv_v3_dot(vt, d), d, vt)) > 1e-9 * (1 + icv_v3_norm(vt)) || icv_v3_dot(vt, d) < 0)
            return icv_ynode_fail(icv_ynode_get(root, "release"), err, ICV_EINVAL,
                                  "a slide's release.velocity must lie in the plane of y and downhill, its part in "
                                  "the surface plane downhill (friction then stays opposite the motion)");
        if (icv_v3_norm(sc->release.omega) > 0)
            return icv_ynode_fail(icv_ynode_get(root, "release"), err, ICV_EINVAL, "a slide's body does not turn");
    }
    if (sc->kind == SYNTH_KIND_TILT) {
        icv_ynode at = icv_ynode_exists(t) ? t : root;
        double g = icv_v3_norm(sc->gravity);
        if (fabs(sc->gravity.y + g) > 1e-9 * g)
            return icv_ynode_fail(at, err, ICV_EINVAL, "a tilt stands on a level table: slope and gravity stay level");
        if (!(sc->tilt_rate > 0 && sc->tilt_rate < 1))
            return icv_ynode_fail(at, err, ICV_EINVAL, "tilt.rate must be in (0, 1) rad/s (raised slowly)");
        if (!(sc->tilt_start >= 0 && sc->tilt_start < atan(sc->mu_s)))
            return icv_ynode_fail(at, err, ICV_EINVAL,
                                  "tilt.start must be in [0, atan(mu_s) = %.4f rad): the body must rest at first",
                                  atan(sc->mu_s));
        if (!(sc->mu_k < sc->mu_s))
            return icv_ynode_fail(at, err, ICV_EINVAL, "a tilt needs mu_k < mu_s (a sudden start of sliding)");
    }
    return 0;
}

/* ---- the motions ----------------------------------------------------------- */

/* the slide's downhill direction and acceleration along it while it slides, m/s^2:
 * |g| sin(theta) - mu_k |g| cos(theta), negative when friction slows it */
static double slide_accel(const synth_scenario *sc, icv_vec3 *downhill)
{
    icv_vec3 g = sc->gravity;
    double gt = hypot(g.x, g.z);
    *downhill = gt > 0 ? icv_v3(g.x / gt, 0, g.z / gt) : icv_v3(1, 0, 0);
    return gt - sc->mu_k * -g.y;
}

/* A slide may start with a free flight (the incline from the flight): the
 * body released above the plate (release.position's lowest point above y = 0) or with
 * release.velocity flies ballistically under g without turning until its lowest point
 * reaches the plate at t_land; there its normal velocity is removed (a perfectly
 * plastic landing, no impact physics) and it slides on at the constant acceleration
 * along downhill. A valid kinematic path because the landing velocity's part in the
 * plane is along downhill (gravity's part is, and release.velocity's must be: checked
 * when read), so friction stays opposite the motion; it stops where that speed runs
 * out when friction wins. Without a flight: t_land = release.time, at rest. */
typedef struct {
    double t_land; /* s */
    icv_vec3 p;    /* m, surface frame: the centre at t_land */
    double v;      /* m/s: the speed along downhill just after the landing */
} slide_landing;

static slide_landing slide_land(const synth_scenario *sc)
{
    icv_vec3 cb, v0 = sc->release.v, d, g = sc->gravity;
    slide_accel(sc, &d);
    double gap = synth_contact_gap(&sc->body.shape, &sc->release.R, sc->release.p, &cb), tau = 0;
    if (gap > 0 || icv_v3_norm(v0) > 0) /* (g.y / 2) tau^2 + v0.y tau + gap = 0, g.y < 0 */
        tau = (-v0.y - sqrt(v0.y * v0.y - 2 * g.y * fmax(gap, 0))) / g.y;
    slide_landing L = {.t_land = sc->release_time_s + tau,
                       .p = icv_v3_add(icv_v3_axpy(tau, v0, sc->release.p), icv_v3_scale(g, 0.5 * tau * tau)),
                       .v = icv_v3_dot(icv_v3_axpy(tau, g, v0), d)};
    L.p.y -= synth_contact_gap(&sc->body.shape, &sc->release.R, L.p, &cb); /* exactly on the plate */
    return L;
}

static void slide_motion(double t, synth_state *s, void *user)
{
    const synth_scenario *sc = user;
    icv_vec3 d;
    double a = slide_accel(sc, &d), tau = t - sc->release_time_s;
    slide_landing L = slide_land(sc);
    *s = sc->release;
    s->omega = icv_v3(0, 0, 0);
    if (tau <= 0) {
        s->v = icv_v3(0, 0, 0);
    } else if (t < L.t_land) { /* in flight */
        s->p = icv_v3_add(icv_v3_axpy(tau, sc->release.v, sc->release.p), icv_v3_scale(sc->gravity, 0.5 * tau * tau));
        s->v = icv_v3_axpy(tau, sc->gravity, sc->release.v);
    } else { /* on the plate: sliding until it stops (or at rest: friction holds it) */
        double u = t - L.t_land, stop = a < 0 ? -L.v / a : INFINITY;
        if (L.v <= 0 && a <= 0)
            stop = 0;
        u = fmin(u, stop);
        s->p = icv_v3_axpy(L.v * u + 0.5 * a * u * u, d, L.p);
        s->v = icv_v3_scale(d, t - L.t_land < stop ? L.v + a * u : 0);
    }
}

double synth_tilt_angle(const synth_scenario *sc, double t)
{
    return sc->tilt_start + sc->tilt_rate * fmax(0, t - sc->tilt_time);
}

double synth_tilt_onset(const synth_scenario *sc)
{
    return sc->tilt_time + (atan(sc->mu_s) - sc->tilt_start) / sc->tilt_rate;
}

/* s'' = g (sin theta - mu_k cos theta) with theta = theta_s + w tau from the onset,
 * integrated in closed form (the plate turns slowly: its centrifugal and Coriolis
 * terms, w^2 r and 2 w s', are below 0.1% of s'' and left out of the motion) */
static void tilt_slide(const synth_scenario *sc, double t, double *s, double *v)
{
    double tau = t - synth_tilt_onset(sc);
    *s = *v = 0;
    if (!(tau > 0))
        return;
    double g = icv_v3_norm(sc->gravity), w = sc->tilt_rate, mk = sc->mu_k;
    double ts = atan(sc->mu_s), th = ts + w * tau;
    *v = g / w * ((cos(ts) - cos(th)) - mk * (sin(th) - sin(ts)));
    *s = g / w * (tau * cos(ts) - (sin(th) - sin(ts)) / w - mk * ((cos(ts) - cos(th)) / w - tau * sin(ts)));
}

double synth_tilt_displacement(const synth_scenario *sc, double t)
{
    double s, v;
    tilt_slide(sc, t, &s, &v);
    return s;
}

void synth_tilt_plate_pose(const synth_scenario *sc, double t, icv_mat3 *R, icv_vec3 *p)
{
    /* about the hinge line (hinge_x, 0, z): x rises towards +x, so downhill is -x */
    icv_vec3 h = icv_v3(sc->tilt_hinge_x, 0, 0);
    *R = icv_rot_z(synth_tilt_angle(sc, t));
    *p = icv_v3_sub(h, icv_m3_apply(*R, h));
}

static void tilt_motion(double t, synth_state *s, void *user)
{
    const synth_scenario *sc = user;
    icv_mat3 Rp;
    icv_vec3 pp;
    synth_tilt_plate_pose(sc, t, &Rp, &pp);
    double d, v;
    tilt_slide(sc, t, &d, &v);
    icv_vec3 on_plate = icv_v3_add(sc->release.p, icv_v3(-d, 0, 0));
    s->R = icv_m3_mul(Rp, sc->release.R);
    s->p = icv_v3_add(icv_m3_apply(Rp, on_plate), pp);
    s->omega = icv_v3(0, 0, t > sc->tilt_time ? sc->tilt_rate : 0);
    icv_vec3 h = icv_v3(sc->tilt_hinge_x, 0, 0);
    s->v = icv_v3_add(icv_v3_cross(s->omega, icv_v3_sub(s->p, h)), icv_m3_apply(Rp, icv_v3(-v, 0, 0)));
}

int synth_coeff_flight(const synth_scenario *sc, synth_flight **out, icv_err *err)
{
    return synth_flight_analytic(sc->kind == SYNTH_KIND_TILT ? tilt_motion : slide_motion, (void *)sc, out, err);
}

/* ---- the tilt's plate in every frame --------------------------------------- */

struct synth_coeff_camera {
    float *table; /* the static scene without the plate (linear gray) */
};

int synth_coeff_camera_open(const synth_scenario *sc, synth_renderer *r, synth_coeff_camera **out, icv_err *err)
{
    *out = NULL;
    if (sc->kind != SYNTH_KIND_TILT)
        return 0;
    synth_coeff_camera *c = calloc(1, sizeof *c);
    size_t np = (size_t)r->W * r->H;
    if (c)
        c->table = malloc(sizeof(float) * np);
    if (!c || !c->table) {
        synth_coeff_camera_close(c, NULL);
        return icv_err_set(err, ICV_ENOMEM, "synth: out of memory");
    }
    memcpy(c->table, r->bg, sizeof(float) * np);
    *out = c;
    return 0;
}


/* the background's signal and noise, as synth_renderer_alloc makes them */
static void update_signal(synth_renderer *r)
{
    const synth_render_opts *o = &r->sc->render;
    float fw = (float)o->full_well_e, rn2 = (float)(o->read_noise_e * o->read_noise_e);
    for (size_t i = 0; i < (size_t)r->W * r->H; i++) {
        float sg = r->bg[i] * r->gain[i];
        r->bg_gain[i] = sg;
        r->bg_sigma[i] = sqrtf((sg > 0 ? sg * fw : 0) + rn2) * (1.0f / fw);
    }
}

/* the plate in the camera frame: origin o, axes ex, ey (normal), ez */
typedef struct {
    icv_vec3 o, ex, ey, ez;
    const synth_scenario *sc;
} plate_cam;

/* 0 the table, 1 white, 2 black (the board), 3 the bare plate */
static int plate_cell(const plate_cam *pc, double xn, double yn)
{
    icv_vec3 d = icv_v3(xn, yn, 1);
    double dn = icv_v3_dot(d, pc->ey);
    if (dn >= -1e-12) /* the plate's top faces the camera */
        return 0;
    double t = icv_v3_dot(pc->o, pc->ey) / dn;
    if (t <= 0)
        return 0;
    icv_vec3 q = icv_v3_sub(icv_v3_scale(d, t), pc->o);
    double x = icv_v3_dot(q, pc->ex), z = icv_v3_dot(q, pc->ez);
    int cell = synth_board_cell(&pc->sc->board, x, z); /* board x = plate x, board y = plate z */
    if (cell)
        return cell;
    const double *ps = pc->sc->render.plate_size;
    return fabs(x) <= ps[0] / 2 && fabs(z) <= ps[1] / 2 ? 3 : 0;
}

static double cell_value(const synth_scenario *sc, int cell, float table)
{
    return cell == 0 ? table : cell == 3 ? sc->render.plate_gray : synth_board_gray(cell);
}

/* The plate at time t into the renderer's background (and its signal and noise), its
 * edges supersampled 8 x 8 (the board's corners are what the angle is measured from).
 * The plate turns ~0.03 deg during an exposure: its motion blur is left out. */
static void draw_plate(synth_coeff_camera *c, synth_renderer *r, double t)
{
    const synth_scenario *sc = r->sc;
    icv_mat3 Rp;
    icv_vec3 pp;
    synth_tilt_plate_pose(sc, t, &Rp, &pp);
    icv_mat3 Rc = icv_m3_mul(r->m.R, Rp);
    plate_cam pc = {icv_v3_add(icv_m3_apply(r->m.R, pp), r->m.t), icv_v3(Rc.m[0][0], Rc.m[1][0], Rc.m[2][0]),
                    icv_v3(Rc.m[0][1], Rc.m[1][1], Rc.m[2][1]), icv_v3(Rc.m[0][2], Rc.m[1][2], Rc.m[2][2]), sc};
    int W = r->W, H = r->H, S = 8;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            size_t i = (size_t)y * W + x;
            const float *c00 = r->corner + 2 * ((size_t)y * (W + 1) + x), *c10 = c00 + 2;
            const float *c01 = c00 + 2 * (W + 1), *c11 = c01 + 2;
            int a = plate_cell(&pc, c00[0], c00[1]), b = plate_cell(&pc, c10[0], c10[1]);
            int cc = plate_cell(&pc, c01[0], c01[1]), d = plate_cell(&pc, c11[0], c11[1]);
            if (a == b && a == cc && a == d) {
                r->bg[i] = (float)cell_value(sc, a, c->table[i]);
                continue;
            }
            double sum = 0;
            for (int k = 0; k < S * S; k++) {
                double fx = (k % S + 0.5) / S, fy = (k / S + 0.5) / S;
                double xn = (1 - fy) * ((1 - fx) * c00[0] + fx * c10[0]) + fy * ((1 - fx) * c01[0] + fx * c11[0]);
                double yn = (1 - fy) * ((1 - fx) * c00[1] + fx * c10[1]) + fy * ((1 - fx) * c01[1] + fx * c11[1]);
                sum += cell_value(sc, plate_cell(&pc, xn, yn), c->table[i]);
            }
            r->bg[i] = (float)(sum / (S * S));
        }
    update_signal(r);
}

void synth_coeff_camera_close(synth_coeff_camera *c, synth_renderer *r)
{
    if (!c)
        return;
    if (r) { /* the table again, for the still images drawn after the video */
        memcpy(r->bg, c->table, sizeof(float) * (size_t)r->W * r->H);
        update_signal(r);
    }
    free(c->table);
    free(c);
}

void synth_coeff_frame(synth_coeff_camera *c, synth_renderer *r, const synth_flight *f, int n, uint8_t *gray)
{
    if (c)
        draw_plate(c, r, synth_camera_frame_time(&r->sc->cameras[r->cam], n));
    synth_renderer_frame(r, f, n, gray);
}

/* ---- the level reference ---------------------------------------------------- */

int synth_coeff_level_image(const synth_scenario *sc, synth_renderer *r, int ci, const char *dir, uint8_t *img,
                            icv_err *err)
{
    if (sc->kind != SYNTH_KIND_SLIDE && sc->kind != SYNTH_KIND_TILT)
        return 0;
    /* the surface board turned about its centre until its normal is -g (up) */
    synth_board_pose on = synth_board_on_surface(), pose;
    icv_vec3 up = icv_v3_unit(icv_v3_scale(sc->gravity, -1)), y = icv_v3(0, 1, 0);
    icv_vec3 axis = icv_v3_cross(y, up);
    double s = icv_v3_norm(axis), ang = atan2(s, icv_v3_dot(y, up));
    icv_mat3 T = s > 1e-12 ? icv_rot_from_axis_angle(icv_v3_scale(axis, ang / s)) : icv_m3_identity();
    icv_vec3 mid = icv_v3((sc->board.cols - 1) * sc->board.square / 2, (sc->board.rows - 1) * sc->board.square / 2, 0);
    icv_vec3 centre = icv_v3_add(icv_m3_apply(on.R, mid), on.t);
    pose.R = icv_m3_mul(T, on.R);
    pose.t = icv_v3_sub(centre, icv_m3_apply(pose.R, mid));
    char name[ICV_PATH_MAX], path[ICV_PATH_MAX];
    snprintf(name, sizeof name, "level_%s.png", sc->cameras[ci].id);
    SYNTH_TRY(icv_path_join(path, sizeof path, dir, name, err));
    synth_board_render(r, &sc->board, &pose, synth_stream(sc->seed, 700 + (uint64_t)ci, 0), img);
    return synth_png_write(path, img, r->W, r->H, err);
}

/* ---- experiment.yaml and truth.json ------------------------------------------ */

void synth_coeff_experiment_keys(const synth_scenario *sc, FILE *fp)
{
    static const char *const names[] = {"impact", "slide", "tilt", "drop"};
    if (sc->kind == SYNTH_KIND_IMPACT)
        return;
    fprintf(fp, "experiment: %s\n", names[sc->kind]);
    if (sc->kind == SYNTH_KIND_DROP)
        return;
    fprintf(fp, "coefficients:\n  level_images: {");
    for (int i = 0; i < sc->n_cameras; i++)
        fprintf(fp, "%s%s: level_%s.png", i ? ", " : "", sc->cameras[i].id, sc->cameras[i].id);
    fprintf(fp, "}\n");
    if (sc->kind == SYNTH_KIND_SLIDE && slide_land(sc).t_land > sc->release_time_s)
        fprintf(fp, "  incline: flight\n"); /* a flight before the slide: the incline from it */
}

void synth_coeff_truth(const synth_scenario *sc, json_t *root)
{
    if (sc->kind == SYNTH_KIND_IMPACT)
        return;
    static const char *const names[] = {"impact", "slide", "tilt", "drop"};
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(names[sc->kind]));
    const synth_camera *c0 = &sc->cameras[0];
    if (sc->kind == SYNTH_KIND_SLIDE) {
        icv_vec3 d;
        double a = slide_accel(sc, &d), g = icv_v3_norm(sc->gravity);
        json_object_set_new(o, "incline_rad", json_real(atan2(hypot(sc->gravity.x, sc->gravity.z), -sc->gravity.y)));
        json_object_set_new(o, "acceleration_mps2", json_real(a));
        slide_landing L = slide_land(sc);
        json_object_set_new(o, "release_time_s", json_real(sc->release_time_s));
        json_object_set_new(o, "landing_time_s", json_real(L.t_land)); /* = release_time_s without a flight */
        json_object_set_new(o, "landing_speed_mps", json_real(L.v));
        json_object_set_new(o, "moves", json_boolean(a > 1e-9 * g || L.v > 0));
    } else if (sc->kind == SYNTH_KIND_TILT) {
        double ton = synth_tilt_onset(sc);
        json_object_set_new(o, "onset_time_s", json_real(ton));
        json_object_set_new(o, "onset_angle_rad", json_real(atan(sc->mu_s)));
        json_object_set_new(o, "slides", json_boolean(ton < synth_camera_frame_time(c0, c0->n_frames - 1)));
        json_object_set_new(o, "rate_rad_s", json_real(sc->tilt_rate));
        json_t *ang = json_array(), *disp = json_array();
        for (int n = 0; n < c0->n_frames; n++) {
            double t = synth_camera_frame_time(c0, n);
            json_array_append_new(ang, json_real(synth_tilt_angle(sc, t)));
            json_array_append_new(disp, json_real(synth_tilt_displacement(sc, t)));
        }
        json_object_set_new(o, "angle_rad", ang);               /* per frame of the reference camera */
        json_object_set_new(o, "displacement_m", disp);         /* down the plate, per frame */
    }
    json_object_set_new(root, "coefficient_experiment", o);
}
