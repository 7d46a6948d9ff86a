/* synth.h: synthetic impact experiments with exact ground truth.
 *
 * A scenario (SCENARIO.yaml, scenario.c) describes a rigid body, its release, the
 * surface, the impact law and the cameras; mb_*.c make scenes of several bodies
 * (two balls or pucks colliding, a pinned two-link chain, Newton's cradle). flight.c integrates the torque-free
 * flight on the rotation group, contact.c finds each contact with the surface plane
 * y = 0 to < 1e-7 s, impact.c hands the impact to the solver's exact method,
 * camera.c is the OpenCV camera model, render.c draws frames (antialiasing, motion
 * blur, noise, flash), board.c draws calibration shots, encode.c writes videos
 * through libavcodec, truth.c writes truth.json (impactcv-truth-1) and synth.c a
 * whole experiment folder. Frames, units and the clock: docs/conventions.md; the
 * surface frame is the world frame of every scenario. */
#ifndef ICV_SYNTH_H
#define ICV_SYNTH_H

#include <stdint.h>

#include "core/core.h"

/* ---- the camera model (camera.c) ---------------------------------------- */

/* OpenCV's pinhole camera with k1 k2 p1 p2 k3 distortion. Pixel centres are at
 * integer coordinates (the top-left pixel's centre is (0, 0)). */
typedef struct {
    int width, height;      /* px */
    double fx, fy, cx, cy;  /* px */
    double dist[5];         /* k1 k2 p1 p2 k3 (OpenCV order) */
    icv_mat3 R;             /* x_cam = R x_surface + t */
    icv_vec3 t;             /* m */
} synth_camera_model;

/* Projects a surface-frame point (m) to pixels. Returns 0, or -1 when the point is
 * not in front of the camera (z_cam <= 1e-9 m); uv is then untouched. */
int synth_camera_project(const synth_camera_model *c, icv_vec3 x_surface, double uv[2]);
/* Normalised image coordinates (x/z, y/z) to distorted pixels (OpenCV's model). */
void synth_camera_distort(const synth_camera_model *c, double xn, double yn, double uv[2]);
/* Inverse of synth_camera_distort by Newton's method: the undistorted normalised
 * coordinates of pixel (u, v). Returns 0, or -1 when it does not converge to
 * 1e-12 (a pixel outside the model's invertible zone). */
int synth_camera_undistort(const synth_camera_model *c, double u, double v, double xn[2]);
/* The camera centre in the surface frame, m: -R^T t. */
icv_vec3 synth_camera_center(const synth_camera_model *c);
/* A pose looking from `eye` at `target` (surface frame, m) with `up` (surface frame)
 * appearing up in the image (towards -v). */
int synth_camera_look_at(synth_camera_model *c, icv_vec3 eye, icv_vec3 target, icv_vec3 up, icv_err *err);

/* ---- the scenario (scenario.c) ------------------------------------------ */

/* sphere: a bright ball at the marker; sticker: a flat disc on a face; band: a ring of
 * a rod's surface; post: a ball standing off the body on a thin post (body-coloured) */
typedef enum { SYNTH_MARKER_SPHERE, SYNTH_MARKER_STICKER, SYNTH_MARKER_BAND, SYNTH_MARKER_POST } synth_marker_style;
typedef enum { SYNTH_CODEC_H264, SYNTH_CODEC_MJPEG, SYNTH_CODEC_FFV1, SYNTH_CODEC_PNG } synth_codec;

typedef struct {
    char id[ICV_ID_MAX];
    synth_camera_model model;
    double fps;                 /* Hz, capture rate */
    double exposure_s;          /* s, <= 1/fps */
    double start_offset_frames; /* frames of this camera: row 0 of its frame n is at
                                   mid-exposure at experiment time t = (n + start_offset_frames)
                                   / fps; the reference camera (the first) has 0 */
    double line_delay_s;        /* rolling shutter: row y is exposed y line_delay_s later than
                                   row 0 (0: global shutter), s */
    int n_frames;               /* frames recorded */
} synth_camera;

typedef struct {
    double mass;                  /* kg */
    icv_mat3 inertia;             /* kg m^2, body frame, about the centre of mass */
    int n_markers;
    icv_vec3 markers[ICV_MAX_MARKERS];        /* m, body frame */
    icv_vec3 marker_normals[ICV_MAX_MARKERS]; /* stickers: unit outward normal, body frame */
    double marker_diameter;       /* m: sphere diameter, sticker diameter or band width */
    synth_marker_style marker_style;
    icv_shape shape;              /* the contact shape, also drawn (points: not drawn) */
    double body_gray, marker_gray;/* reflectance 0..1 (a marker above 1: retro-reflective) */
    double post_length;           /* m, post markers: from the ball's centre inwards along -normal */
    double post_radius;           /* m, post markers */
    double string_radius;         /* m: > 0 draws a string (body-coloured) from string_pivot to
                                     the centre of mass (a cradle's ball); 0: none */
    icv_vec3 string_pivot;        /* m, surface frame, fixed */
} synth_body;

/* A rigid-body state in the surface frame. */
typedef struct {
    icv_mat3 R;      /* body to surface, x_surface = R x_body + p */
    icv_vec3 p;      /* m, centre of mass */
    icv_vec3 v;      /* m/s, centre-of-mass velocity */
    icv_vec3 omega;  /* rad/s, angular velocity, surface frame */
} synth_state;

#define SYNTH_MAX_GLINTS 16

typedef struct {
    int supersample;       /* S: edge pixels are sampled S x S (1 = none) */
    int blur_subframes;    /* sub-frame renders averaged over the exposure (1 = no blur) */
    int noise;             /* 1: shot + read noise */
    double full_well_e;    /* electrons at gray level 1.0 (shot noise) */
    double read_noise_e;   /* electrons rms */
    double vignetting;     /* relative fall-off at the image corner (0 = none) */
    double flash_time_s;   /* experiment time the flash starts */
    double flash_duration_s; /* 0 = no flash */
    double flash_gain;     /* gray level added while the exposure sees the whole flash */
    double background_gray;/* mean of the dark textured background */
    double texture;        /* contrast of the textures, 0 (flat) .. 1 (default) */
    double plate_gray;     /* the impact plate */
    double plate_size[2];  /* m: plate extent along surface x and z, centred on the origin */
    int reference_object;  /* 1: a static bright upright cylinder on the plate */
    icv_vec3 reference_position; /* m, surface frame, centre of its base */
    double reference_radius, reference_height; /* m */
    /* mains flicker: the scene's light times 1 + depth sin(2 pi hz t + phase), averaged
       over each exposure (the flash is not modulated); depth 0 = none */
    double flicker_hz, flicker_depth, flicker_phase; /* Hz, 0..1, rad */
    int n_glints;          /* static bright spots lying on the surface plane */
    double glints[SYNTH_MAX_GLINTS][4]; /* x, z (m, surface frame), radius (m), gray */
    int board_in_view;     /* 1: the board lies on the surface during the video too */
} synth_render_opts;

typedef struct {
    int cols, rows;        /* inner corners along a row, along a column */
    double square;         /* m */
    double margin;         /* m of white around the outer squares */
    int n_views;           /* calibration shots per camera */
    double max_tilt;       /* rad, largest board tilt from facing the cameras */
    double distance;       /* m, board centre from the reference camera (0 = auto) */
    int partial_every;     /* every n-th view partly out of view (default 4; 0 = none) */
} synth_board_opts;

typedef struct synth_scenario {
    char path[ICV_PATH_MAX];  /* the SCENARIO.yaml it came from ("" when built in code) */
    char name[128];
    unsigned long seed;       /* every random choice (textures, noise, board poses) */
    icv_vec3 gravity;         /* m/s^2, surface frame */
    synth_body body;
    icv_restitution restitution;
    double mu_s, mu_k, e_n;
    double release_time_s;    /* experiment time of release; before it the body is held still */
    synth_state release;      /* state at release */
    int max_impacts;          /* impacts simulated; after the last the body flies on */
    int planar;               /* one-camera (planar) mode */
    int n_cameras;
    synth_camera cameras[ICV_MAX_CAMERAS];
    synth_render_opts render;
    synth_board_opts board;
    synth_codec codec;
    int crf;                  /* H.264 constant rate factor */
    char preset[32];          /* x264 preset */
    int mjpeg_q;              /* MJPEG qscale 2..31 */
    int experiment_gravity_given; /* 1: experiment.yaml gives the true gravity, 0: auto */
    /* a coefficient experiment (synth/coeff_scene.c, docs/synth.md) */
    int kind;                 /* SYNTH_KIND_IMPACT (0), _SLIDE, _TILT or _DROP */
    double tilt_start;        /* rad: the plate's angle before it is raised (tilt) */
    double tilt_rate;         /* rad/s: how fast it is raised, from tilt_time on */
    double tilt_time;         /* s, experiment clock */
    double tilt_hinge_x;      /* m: the hinge, the plate-frame line x = hinge_x, y = 0 */
    /* drawn by synth_scenario_random (random_scene.c): its seed and what it drew */
    int random;               /* 1: this scenario came from synth_scenario_random */
    unsigned long random_seed;
    char random_desc[320];    /* one line: body, markers, cameras, fps, ... */
    /* several bodies (mb_scene.c; docs/synth.md "Several bodies"): n_bodies 0 is the
       one body `body` (everything above); n_bodies >= 1 draws bodies[] instead, each
       with its own markers and shape and the look (grays, marker style) of body,
       which is then a copy of bodies[0]. Markers are numbered body after body. */
    int n_bodies;
    synth_body bodies[ICV_MAX_BODIES];
    char body_names[ICV_MAX_BODIES][ICV_ID_MAX];
    int n_joints;
    icv_joint joints[ICV_MAX_BODIES]; /* pins (the chain), body-frame points, m */
    synth_state releases[ICV_MAX_BODIES]; /* every body's state at release_time_s */
    int mb_kind;              /* SYNTH_MB_COLLISION, _CHAIN, _CRADLE or _TABLE (n_bodies >= 1) */
    int mb_draw;              /* 0: the nominal set-up; >= 1: a seeded draw of it */
    int mb_sparse;            /* 1: the first set-up kept as a harder case (collision: 3 and 4
                                 beads on the cameras' half, two cameras; table: the short clip) */
    double mb_e, mb_mu;       /* the bodies' Newton restitution and Coulomb friction */
    double mb_after_s;        /* s, the chain's clip after its spin-free impact (0: 15 ms) */
    double cradle_length;     /* m, pivot to ball centre */
    double cradle_angle;      /* rad, ball 1's release angle */
    double cradle_gap;        /* m, between neighbouring balls at rest (0: touching) */
} synth_scenario;

enum { SYNTH_MB_COLLISION = 1, SYNTH_MB_CHAIN, SYNTH_MB_CRADLE, SYNTH_MB_TABLE };

enum { SYNTH_KIND_IMPACT = 0, SYNTH_KIND_SLIDE, SYNTH_KIND_TILT, SYNTH_KIND_DROP };

/* Markers of all bodies (body's for one body): sum over bodies of n_markers. */
int synth_n_markers(const synth_scenario *sc);
/* The body (index) and its own marker index of marker k (numbered body after body). */
const synth_body *synth_marker_body(const synth_scenario *sc, int k, int *body, int *local);
/* Every default, as documented in docs/synth.md and the scenario files. */
void synth_scenario_defaults(synth_scenario *sc);
/* Reads SCENARIO.yaml over the defaults; one line naming file:line: key on error. */
int synth_scenario_load(const char *path, synth_scenario *sc, icv_err *err);
/* Checks the consistency of a scenario built in code (load calls it). */
int synth_scenario_validate(const synth_scenario *sc, icv_err *err);
/* Experiment time of frame n's mid-exposure of camera c (row 0), s. */
double synth_camera_frame_time(const synth_camera *c, int n);

/* ---- random scenes (random_scene.c) -------------------------------------- */

/* What synth_scenario_random may draw; zeroed fields take the defaults below. */
typedef struct {
    int cameras;          /* 0: draw (one, planar, or two), 1 or 2: that many */
    int min_side_frames;  /* frames of free flight before and after each impact (default 10) */
    int max_frames;       /* longest clip per camera, frames (default 600) */
} synth_random_opts;

/* A whole random impact scene from a seed (docs/synth.md, "Random scenes"): body
 * (rod, bar or ball), markers, surface, lighting, cameras, frame rate, blur, noise,
 * compression, clutter. Physically valid: every impact inside the clip with at least
 * min_side_frames frames of flight on each side, no further contact before the clip
 * ends, the body in view, most markers seen. Deterministic for (seed, opts). Fails
 * (ICV_EINVAL) only when no valid scene is found in 200 draws. o may be NULL. */
int synth_scenario_random(unsigned long seed, const synth_random_opts *o, synth_scenario *sc, icv_err *err);

/* ---- flight (flight.c), contact (contact.c), impacts (impact.c) ---------- */

/* One step of the torque-free rigid-body flight under gravity g: the centre of mass
 * exactly ballistic, the rotation by Munthe-Kaas RK4 on SO(3) (Euler's equations in
 * the body frame). h may be any size; accuracy O(h^4 |omega|^5). */
void synth_flight_step(const icv_mat3 *inertia, const icv_mat3 *inertia_inv, icv_vec3 g, const synth_state *s,
                       double h, synth_state *out);
/* Kinetic energy 0.5 m v.v + 0.5 w.(R I R^T) w, J. */
double synth_state_energy(const synth_body *b, const synth_state *s);
/* Angular momentum about the centre of mass, surface frame, kg m^2/s. */
icv_vec3 synth_state_angular_momentum(const synth_body *b, const synth_state *s);

typedef struct {
    double time_s;          /* experiment time of first contact, s */
    synth_state pre, post;  /* at time_s */
    icv_vec3 contact_body;  /* contact point relative to the centre of mass, body frame, m */
    icv_vec3 contact_point; /* contact point, surface frame, m */
    icv_vec3 impulse;       /* N s, the surface on the body, m (v_post - v_pre) */
    char case_name[16];     /* the solver's impact case */
} synth_impact;

#define SYNTH_MAX_IMPACTS 8

/* The whole trajectory: segments of free flight between impacts, stored as
 * checkpoints every `step` seconds from which any instant is one step away. */
typedef struct synth_flight synth_flight;

/* Integrates from release to t_end (s), finding contacts and solving impacts.
 * Fails (ICV_ENOTIMPL) if an impact is needed and the solver is not available. */
int synth_flight_run(const synth_scenario *sc, double t_end, synth_flight **out, icv_err *err);
void synth_flight_free(synth_flight *f);
/* The state at experiment time t (before release: held at the release pose, still). */
void synth_flight_state_at(const synth_flight *f, double t, synth_state *s);
int synth_flight_n_impacts(const synth_flight *f);
/* A trajectory given by a function instead of integrated (the coefficient
 * experiments' slides and tilts, synth/coeff_*.c): state_at(t) is motion(t, s, user);
 * no impacts. user must outlive the flight. */
typedef void (*synth_motion_fn)(double t, synth_state *s, void *user);
int synth_flight_analytic(synth_motion_fn motion, void *user, synth_flight **out, icv_err *err);
const synth_impact *synth_flight_impact(const synth_flight *f, int i);
/* Several bodies: states[i] of every body at t; fn fills sc->n_bodies states. The
 * flight owns user (freed by user_free at synth_flight_free). One-body flights fill
 * states[0]; synth_flight_state_at of a several-body flight gives body 0. */
typedef void (*synth_states_fn)(double t, synth_state *states, void *user);
int synth_flight_bodies(int n_bodies, synth_states_fn fn, void *user, void (*user_free)(void *), synth_flight **out,
                        icv_err *err);
void synth_flight_states_at(const synth_flight *f, double t, synth_state *states);
int synth_flight_n_bodies(const synth_flight *f); /* 1 for a one-body flight */
void *synth_flight_user(const synth_flight *f);
/* Set when the simulation stopped early: the time and why ("" when it ran to t_end). */
const char *synth_flight_note(const synth_flight *f);

/* The lowest point of the shape (surface frame) and its height above y = 0 (the gap,
 * m, negative when penetrating); *contact_body is that point relative to the centre
 * of mass in the body frame. */
double synth_contact_gap(const icv_shape *shape, const icv_mat3 *R, icv_vec3 p, icv_vec3 *contact_body);
/* First time in (t0, t1] the gap of the trajectory crosses zero, to tol_s, by
 * bracketing on samples every dt and refining with GSL's Brent solver. Returns 1
 * and *t_contact when found, 0 when the gap stays positive, negative on error. */
typedef double (*synth_gap_fn)(double t, void *user);
int synth_contact_find(synth_gap_fn gap, void *user, double t0, double t1, double dt, double tol_s,
                       double *t_contact, icv_err *err);

/* The single place where synth calls the impact solver (solver/impact.h, exact
 * method). pre is the state at contact; fills post, impulse and case. */
int synth_impact_solve(const synth_scenario *sc, const synth_state *pre, icv_vec3 contact_body, synth_impact *out,
                       icv_err *err);

/* ---- rendering (render.c), boards (board.c) ----------------------------- */

/* A per-camera renderer: the static background pre-rendered once, rays of every
 * pixel corner, and the scratch buffers; rendering a frame allocates nothing. */
typedef struct synth_renderer synth_renderer;

int synth_renderer_alloc(const synth_scenario *sc, int camera, synth_renderer **out, icv_err *err);
void synth_renderer_free(synth_renderer *r);
/* Frame n of the camera: blur sub-frames over the exposure, flash, vignetting,
 * noise; 8-bit gray, width*height bytes, row stride width (caller-owned). */
void synth_renderer_frame(synth_renderer *r, const synth_flight *f, int n, uint8_t *gray);
/* The body at one state, no blur, flash, vignetting or noise, in linear gray
 * (0..1, floats, width*height, caller-owned). For tests. */
void synth_renderer_state(synth_renderer *r, const synth_state *s, float *out);
/* The centroid (px) of the area marker k covered in the last frame rendered, averaged
 * over the exposure (blur included), occlusions and perspective as drawn: what a
 * perfect blob detector would measure. Returns 0 when less than half a pixel of it was
 * seen. For bands and spheres it is not the projection of the marker's centre. */
int synth_renderer_marker_centroid(const synth_renderer *r, int k, double uv[2]);
/* The static background (linear gray, width*height), owned by the renderer. */
const float *synth_renderer_background(const synth_renderer *r);
/* Whether marker k's centre is seen from the camera at state s (in the image, in
 * front, not hidden by the body, a sticker facing the camera). Several bodies: s is
 * every body's state (sc->n_bodies) and k numbers all markers. */
int synth_marker_visible(const synth_renderer *r, const synth_state *s, int k, double uv[2]);
/* Marker k's true projection in frame n at its mid-exposure (with a rolling shutter:
 * when its row is exposed); returns whether it is seen (synth_marker_visible). */
int synth_marker_frame_uv(const synth_renderer *r, const synth_flight *f, int n, int k, double uv[2]);

/* A chessboard in the surface frame: x_surface = R x_board + t, board x along its
 * rows (inner corner (c, r) at (c square, r square, 0)), board z into the board. */
typedef struct {
    icv_mat3 R;
    icv_vec3 t;
} synth_board_pose;

/* Renders the board (with the static background behind it) into 8-bit gray, fully
 * supersampled at checker edges, with the scenario's noise (seeded by `seed`). */
void synth_board_render(synth_renderer *r, const synth_board_opts *b, const synth_board_pose *pose,
                        unsigned long seed, uint8_t *gray);
/* The scenario's calibration poses: n_views boards in front of the cameras, tilted,
 * some partly out of view. poses has room for b->n_views. */
void synth_board_views(const synth_scenario *sc, synth_board_pose *poses);
/* The calibration shots a careful user takes: n_views poses, each showing every inner
 * corner to every camera with a margin, chosen to reach every edge and corner of each
 * image, tilted up to max_tilt (board_views.c). Returns n_views; or 0 when the
 * cameras share too little view for n_views such poses, which are then
 * synth_board_views' layout. */
int synth_board_views_careful(const synth_scenario *sc, synth_board_pose *poses);
/* The board lying on the surface (its frame is then the surface frame). */
synth_board_pose synth_board_on_surface(void);

/* The contract's surface frame is the one a detector finds from the board on the
 * surface: calib numbers corner 0 as the end nearer the reference camera's image
 * top-left (docs/calib.md). When camera 0 sees the board's last corner nearer
 * its top-left, the detected frame is the simulation's turned half a turn about the
 * normal, with its origin at that corner: truth and experiment.yaml are then
 * written in it, x' = Q (x - c) with Q = diag(-1, 1, -1). Returns 1 then (filling
 * Q and c), else 0 (Q = identity, c = 0). One-camera (line_px) scenes: 0. */
int synth_surface_frame(const synth_scenario *sc, icv_mat3 *Q, icv_vec3 *c);
/* One-camera mode: the board held in the motion plane z = 0, above the surface. */
synth_board_pose synth_board_in_motion_plane(const synth_scenario *sc);

/* ---- encoding (encode.c) ------------------------------------------------- */

typedef struct synth_encoder synth_encoder;

/* Opens a video (H.264 CRF via libx264 in .mp4, MJPEG in .avi, FFV1 in .mkv) or,
 * for SYNTH_CODEC_PNG, a folder of PNG frames frame_NNNNNN.png. Frames are 8-bit
 * gray; the video is written to a temporary name and renamed by _close. */
int synth_encoder_open(const char *path, synth_codec codec, int width, int height, double fps, int crf,
                       const char *preset, int mjpeg_q, synth_encoder **out, icv_err *err);
int synth_encoder_write(synth_encoder *e, const uint8_t *gray, icv_err *err);
/* Flushes and commits; frees e in every case. */
int synth_encoder_close(synth_encoder *e, icv_err *err);
/* Frees e and removes what it wrote. */
void synth_encoder_abort(synth_encoder *e);
/* One 8-bit gray PNG, written atomically (libavcodec's PNG encoder). */
int synth_png_write(const char *path, const uint8_t *gray, int width, int height, icv_err *err);
/* The file extension of a codec's video (".mp4", ".avi", ".mkv", "" for PNG). */
const char *synth_codec_ext(synth_codec c);

/* ---- truth (truth.c) and the experiment folder (synth.c) ----------------- */

/* Writes truth.json (schema impactcv-truth-1, contract.md) atomically. centroids, when
 * not NULL, holds per camera n_frames x n_markers x 2 pixel coordinates of each marker's
 * drawn centroid (synth_renderer_marker_centroid; NaN when not seen): written as the
 * extra key markers_2d_centroid. */
int synth_truth_write(const char *path, const synth_scenario *sc, const synth_flight *f,
                      const double *const *centroids, icv_err *err);

/* Writes the experiment folder: experiment.yaml, videos, calib/, surface (or
 * motion-plane) images, truth.json, scenario.yaml (a copy). Deterministic for a seed. */
int synth_experiment_write(const synth_scenario *sc, const char *dir, icv_err *err);

/* ---- coefficient experiments (coeff_scene.c) ------------------------------ */

/* The scenario keys `kind` (impact | slide | tilt | drop) and `tilt`, read over sc. */
int synth_coeff_scenario_read(icv_ynode root, synth_scenario *sc, icv_err *err);
/* The analytic trajectory of a slide (at rest until release.time, then constant
 * acceleration |g| (sin theta - mu_k cos theta) down the surface, or no motion when
 * that is <= 0) or a tilt (the plate turned about its hinge by synth_tilt_angle, the
 * body at rest on it until the angle reaches atan(mu_s), then sliding with mu_k);
 * sc must outlive it. */
int synth_coeff_flight(const synth_scenario *sc, synth_flight **out, icv_err *err);
/* Tilt: the plate's angle at experiment time t (rad), the onset of sliding (s; +inf
 * when the plate never reaches atan(mu_s)), and the body's displacement down the
 * plate (m, plate frame) at t. */
double synth_tilt_angle(const synth_scenario *sc, double t);
double synth_tilt_onset(const synth_scenario *sc);
double synth_tilt_displacement(const synth_scenario *sc, double t);
/* The plate's pose in the world (table) frame at t: x_world = R x_plate + p. */
void synth_tilt_plate_pose(const synth_scenario *sc, double t, icv_mat3 *R, icv_vec3 *p);

/* ---- several bodies (mb_*.c; docs/synth.md "Several bodies") ------------- */

/* One impact of a several-body scene: between bodies a and b (b = -1: a with the
 * plate y = 0), at the exact contact instant; pre and post hold every body's state
 * (all bodies, so a chain's other link and a cradle's other balls are there too). */
typedef struct {
    double time_s;
    int a, b;                       /* body indices; b = -1: the plate */
    synth_state pre[ICV_MAX_BODIES], post[ICV_MAX_BODIES];
    icv_vec3 contact_point;         /* m, surface frame */
    icv_vec3 normal;                /* unit, from a towards b (plate: +y, towards a) */
    icv_vec3 impulse;               /* N s: on b by a (plate: on a by the plate) */
    icv_vec3 joint_impulse;         /* N s, chain: on bodies[1] by bodies[0] at the pin */
    double e;                       /* Newton's ratio imposed along the normal */
    double mu;                      /* Coulomb friction */
    char case_name[16];             /* "stick" or "slide" */
} synth_mb_impact;

#define SYNTH_MB_MAX_IMPACTS 64

/* Two rigid bodies in contact at point c (surface frame) with unit normal n from a to
 * b, Newton's restitution e on the normal relative velocity and Coulomb friction mu:
 * the impulse on b (on a: its opposite), algebraic (the contact's 3x3 inverse mass
 * matrix; sticking when the tangential impulse needed lies inside the cone, else
 * sliding along the initial tangential slip with P_t = mu P_n, the slip direction
 * kept fixed: exact for spheres, whose matrix is isotropic in the tangent plane).
 * Fills post states; returns 1 when sticking, 0 sliding, -1 when not approaching. */
int synth_mb_two_body_impulse(const synth_body *ba, const synth_body *bb, const synth_state *sa, const synth_state *sb,
                              icv_vec3 c, icv_vec3 n, double e, double mu, synth_state *pa, synth_state *pb,
                              icv_vec3 *impulse);
/* Total linear momentum (kg m/s), angular momentum about the origin (kg m^2/s) and
 * kinetic energy (J) of the scene's bodies at states s. */
void synth_mb_totals(const synth_scenario *sc, const synth_state *s, icv_vec3 *p, icv_vec3 *L, double *T);

/* The scene of a kind and draw (docs/synth.md "Several bodies"): bodies, joints,
 * release, cameras, look; name "<kind>_<draw>". Draw 0 is the nominal set-up (the
 * chain: Akhan's 512x418 at 6000 fps; the cradle: Wang's Table 3.1); draw >= 1
 * draws masses, speeds and angles from the seed. */
int synth_mb_scenario(int kind, int draw, synth_scenario *sc, icv_err *err);
/* As synth_mb_scenario; sparse 1: the collision's and table's first set-up (mb_sparse);
 * after_s > 0: the chain's clip runs that long after its spin-free impact (s, at most
 * 1; further impacts with the plate in it), 0: 15 ms; only the chain takes it */
int synth_mb_scenario_set_up(int kind, int draw, int sparse, double after_s, synth_scenario *sc, icv_err *err);
/* The scenario key `multibody: {kind: collision | table | chain | cradle, draw: N, set_up: lab |
 * sparse, after: s (chain)}`, read over
 * sc (which it replaces, as `random:` does); 0 when absent. */
int synth_mb_scenario_read(icv_ynode root, synth_scenario *sc, int *found, icv_err *err);
/* The motion of a several-body scene from release to t_end, impacts solved. */
int synth_mb_flight(const synth_scenario *sc, double t_end, synth_flight **out, icv_err *err);
/* Its impacts (a several-body flight only; 0 otherwise). */
int synth_mb_n_impacts(const synth_flight *f);
const synth_mb_impact *synth_mb_impact_at(const synth_flight *f, int i);
/* Why the motion stopped early ("" when it ran to the end). */
const char *synth_mb_note(const synth_flight *f);

/* The kinds' motions (mb_collision.c, mb_chain.c, mb_cradle.c): each fills the flight's
 * user object; see mb_internal.h. */

#endif
