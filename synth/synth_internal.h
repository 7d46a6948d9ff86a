/* synth_internal.h: helpers shared by synth/'s files only (not a public header). */
#ifndef ICV_SYNTH_INTERNAL_H
#define ICV_SYNTH_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "synth/synth.h"

#define SYNTH_TRY(x)           \
    do {                       \
        int rc_ = (x);         \
        if (rc_)               \
            return rc_;        \
    } while (0)

/* splitmix64 (Steele, Lea, Flood 2014): a tiny, fast, seedable generator; every
 * random choice of synth derives from the scenario seed through it, so output is
 * deterministic and independent of the order things are rendered in. */
static inline uint64_t synth_mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* uniform in [0, 1) */
static inline double synth_uniform(uint64_t *s) { return (double)(synth_mix64(s) >> 11) * (1.0 / 9007199254740992.0); }
/* A seed for a named stream (camera, frame, purpose) of the scenario seed. */
static inline uint64_t synth_stream(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t s = seed ^ (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full);
    synth_mix64(&s);
    return s;
}


/* ---- the renderer's insides, shared by render.c and board.c -------------- */

#define SYNTH_TILE 8
#define SYNTH_MAX_PRIMS (2 * ICV_MAX_MARKERS + 2 * ICV_MAX_BODIES + 2) /* bodies, strings, a ball and a post per marker */
#define SYNTH_GAUSS_N 65536
#define SYNTH_PRIM_WORDS ((SYNTH_MAX_PRIMS + 63) / 64)

enum { PRIM_SPHERE, PRIM_CAPSULE, PRIM_CYLINDER, PRIM_BOX, PRIM_DISC };
/* ids in the id buffer: 0 nothing (background), 1 the body, 2 + k marker k */
#define SYNTH_ID_BODY 1
#define SYNTH_ID_MARKER0 2
#define SYNTH_ID_OCCLUDER 255

/* A primitive in the camera frame (m). */
typedef struct {
    int kind, id;
    icv_vec3 a, b;   /* sphere/disc centre a; capsule/cylinder axis a..b; disc normal b */
    double r;        /* m */
    icv_mat3 Rb;     /* box: box axes (columns) in the camera frame; centre a */
    icv_vec3 half;   /* box half sizes, m */
    icv_vec3 ba;     /* capsule/cylinder: b - a, and the ray-independent products */
    double baba, baoa, oaoa, rr;
    icv_vec3 bound_c; /* a sphere holding the primitive (m): rays clear of it miss it */
    double bound_rr;  /* its radius squared, m^2 */
} synth_prim;

struct synth_renderer {
    const synth_scenario *sc;
    int cam;
    synth_camera_model m;
    int W, H;
    float *corner;   /* (W+1)(H+1) x 2: normalised ray (x/z, y/z) of each pixel corner */
    float *centre;   /* W H x 2: normalised ray of each pixel centre */
    float *bg;       /* W H: static background, linear gray */
    float *gain;     /* W H: vignetting gain */
    float *bg_gain;  /* W H: bg x gain, the static signal */
    float *bg_sigma; /* W H: its shot + read noise sigma (gray levels) */
    float *acc;      /* W H: sum over sub-frames of (value - background) x weight */
    uint8_t *id;     /* W H: ids of the current sub-frame's pixel centres */
    float *val;      /* W H: values at the pixel centres of the current sub-frame */
    int tw, th;      /* tiles across, down */
    uint8_t *tile_on, *tile_dirty;
    int *tiles, n_tiles;       /* active tiles of the current sub-frame */
    uint64_t (*tile_prims)[SYNTH_PRIM_WORDS]; /* per tile: the primitives whose footprint
                                                 touches it (bit i: prims[i]) */
    int marking;               /* the primitive mark_tile records */
    int *dirty, n_dirty;       /* tiles touched in the current frame */
    int only_ty;               /* >= 0: mark tiles of this tile row only (rolling shutter) */
    int *row_start;            /* th + 1: where each tile row's tiles start in tiles */
    float *flash_rows;         /* H: flash gray added to each row */
    double mom[ICV_MAX_MARKERS][3]; /* per marker, this frame: area (px^2) and its u, v moments */
    float *gauss;              /* SYNTH_GAUSS_N standard normal quantiles */
    int n_prims;
    synth_prim prims[SYNTH_MAX_PRIMS];
    uint64_t box_prims[SYNTH_PRIM_WORDS]; /* bit i: prims[i] is a box (render_cast4.c casts none) */
    int cast4;                 /* cast four rays at once (render_cast4.c); 0: one at a time */
    int mark_every;            /* tests: every tile holds every primitive (what footprints must match) */
    int has_occluder;
    synth_prim occluder;       /* the static reference object (camera frame) */
    double band_s[ICV_MAX_MARKERS]; /* band markers: axial position along the rod axis, m */
    double sticker_eps;        /* m: a sticker wins over the body surface this close behind */
    int board_in_view;         /* the static scene shows the board lying on the surface */
    float light;               /* this frame's mean scene light (mains flicker; 1 = steady) */
};

/* render_cast4.c: casts the rays (x[i], y[i], 1), i < 4, at the primitives in mask as
 * render.c's cast does, ids and values (0 where nothing is hit) bit for bit the same;
 * returns 0 (nothing done) when mask holds a box. Call only when
 * synth_cast4_available() (the CPU has AVX2, and ICV_SYNTH_SCALAR is not set). */
int synth_cast4(const synth_renderer *r, const uint64_t *mask, const double *x, const double *y, int *ids,
                float *values);
int synth_cast4_available(void);

/* Gray of the scene's static parts seen along a camera-frame ray d (not unit). */
double synth_static_shade(const synth_renderer *r, icv_vec3 d, double *t_hit);
/* Sensor model: vignetting, flash, shot + read noise, 8-bit quantisation, of the
 * linear image lin (+ acc) into gray; flash: gray added per row (NULL: none); noise
 * drawn from the stream `seed`. */
void synth_sensor_apply(const synth_renderer *r, const float *lin, const float *acc, const float *flash,
                        uint64_t seed, uint8_t *gray);
/* Sets the renderer's geometry only (camera, occluder, bands, stickers): enough for
 * synth_marker_visible on a renderer that owns no buffers. */
void synth_render_geometry_init(synth_renderer *r, const synth_scenario *sc, int camera);

/* Draws the static scene again with (on = 1) or without the board lying on the
 * surface (render.board_in_view): the video shows it, the calibration shots not. */
void synth_renderer_board_in_view(synth_renderer *r, int on);

/* board.c: the cell of board point (bx, by) (m, board frame): 0 outside, 1 the white
 * margin or a white square, 2 a black square; and a cell's reflectance */
int synth_board_cell(const synth_board_opts *b, double bx, double by);
double synth_board_gray(int cell);

/* ---- coeff_scene.c: what synth.c and truth.c call for coefficient experiments */

/* Per camera: a tilt's plate (with the board on it) drawn into each frame's
 * background; NULL (and every call a plain synth_renderer_frame) for other kinds. */
typedef struct synth_coeff_camera synth_coeff_camera;
int synth_coeff_camera_open(const synth_scenario *sc, synth_renderer *r, synth_coeff_camera **out, icv_err *err);
/* Frees c and puts the static scene back into r's background (r may be NULL). */
void synth_coeff_camera_close(synth_coeff_camera *c, synth_renderer *r);
void synth_coeff_frame(synth_coeff_camera *c, synth_renderer *r, const synth_flight *f, int n, uint8_t *gray);
/* level_<camera>.png: the board lying on a level reference (slide, tilt; else nothing) */
int synth_coeff_level_image(const synth_scenario *sc, synth_renderer *r, int ci, const char *dir, uint8_t *img,
                            icv_err *err);
/* experiment.yaml's `experiment:` and `coefficients:` keys (nothing for an impact) */
void synth_coeff_experiment_keys(const synth_scenario *sc, FILE *fp);
/* truth.json's `coefficient_experiment` key (nothing for an impact) */
struct json_t;
void synth_coeff_truth(const synth_scenario *sc, struct json_t *root);

/* ---- mb_truth.c: truth.json's and experiment.yaml's several-body keys */

/* `bodies` and `body_impacts` (docs/synth.md "Several bodies"), written in the
 * contract's surface frame x' = Q (x - c) */
/* truth.json's vectors and matrices: [x, y, z] and rows of three (truth.c). */
struct json_t *synth_json_vec(icv_vec3 v);
struct json_t *synth_json_mat(icv_mat3 m);
void synth_mb_truth(const synth_scenario *sc, const synth_flight *f, struct json_t *root, icv_mat3 Q, icv_vec3 c);
/* experiment.yaml's `bodies:` and `joints:` */
void synth_mb_experiment_keys(const synth_scenario *sc, FILE *fp);
/* experiment.yaml's keys of one body (the lines after `body:` or `- name:`), indented */
void synth_body_yaml(FILE *fp, const synth_body *b, const char *indent);

/* synth_flight_run without the states after the last of sc->max_impacts impacts:
 * its impacts and note are those of synth_flight_run, its states past the last
 * impact are not (the draws look up how many impacts a clip holds: stepping to
 * a 30 fps clip's 20 s cap after them took most of a draw's time). */
int synth_flight_impacts_run(const synth_scenario *sc, double t_end, synth_flight **out, icv_err *err);

#endif
