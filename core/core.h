/* core.h: what every impactcv module shares.
 *
 * Errors (icv_err), logging to stderr with a verbosity level, a terminal progress
 * bar, atomic output files, and the experiment model read from experiment.yaml
 * (docs/conventions.md and ../shared/spec/contract.md define its keys, units and
 * frames). Small vector and rotation maths is in geom.h, included here.
 *
 * Conventions (docs/conventions.md): fallible functions return 0 or a negative
 * ICV_E* code and fill a caller-provided icv_err; library code never prints
 * (except through icv_log, which the CLI configures) and never exits. */
#ifndef ICV_CORE_H
#define ICV_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "core/geom.h"

#define ICV_VERSION "0.1.0"
/* Versions of the libraries core links, as loaded (version.c). */
const char *icv_gsl_version(void);
const char *icv_libyaml_version(void);
const char *icv_jansson_version(void);

/* ---- errors ------------------------------------------------------------ */

enum {
    ICV_OK = 0,
    ICV_EINVAL = -1,    /* bad input: a value, key or argument is wrong */
    ICV_EIO = -2,       /* a file cannot be read or written */
    ICV_ENOMEM = -3,    /* out of memory */
    ICV_ENOTIMPL = -4,  /* not implemented yet */
    ICV_ENOTFOUND = -5, /* something looked for is not there (file, board, impact) */
    ICV_EFORMAT = -6,   /* a file is not in the expected format */
    ICV_ENUMERIC = -7,  /* a numerical method failed (no convergence, singular) */
};

#define ICV_ERR_MSG_MAX 512

/* An error: a code and one line that names the file, frame, camera or key and the
 * reason. Filled by the function that failed; the CLI prints msg. */
typedef struct {
    int code;
    char msg[ICV_ERR_MSG_MAX];
} icv_err;

/* Sets *err (which may be NULL) and returns code, so that a failure reads
 * `return icv_err_set(err, ICV_EINVAL, "%s: mass must be > 0", path);`. */
int icv_err_set(icv_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends context ("stage: ") to an error already set, keeping its code. */
int icv_err_prefix(icv_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void icv_err_clear(icv_err *err);

/* Names in err->msg the folder `from` (or a path in it) as `to`: a job's working
 * folder, removed on failure, as the output folder the user named. A name repeated
 * at the start ("P: P: reason") is kept once. */
void icv_err_rename_path(icv_err *err, const char *from, const char *to);

/* A short name for a code ("invalid input", "I/O error", ...). */
const char *icv_err_name(int code);

/* ---- logging ----------------------------------------------------------- */

typedef enum {
    ICV_LOG_ERROR = 0,
    ICV_LOG_WARN = 1,
    ICV_LOG_INFO = 2,  /* shown by default */
    ICV_LOG_DEBUG = 3, /* shown with -v */
} icv_log_level;

/* Messages at or below this level are written. Default ICV_LOG_INFO; the CLI's
 * -q sets ICV_LOG_WARN (warnings still matter to a measurement), -v ICV_LOG_DEBUG. */
void icv_log_set_level(icv_log_level level);
icv_log_level icv_log_get_level(void);

/* Where messages go; NULL restores the default (stderr). Tests capture with it. */
typedef void (*icv_log_sink)(icv_log_level level, const char *line, void *user);
void icv_log_set_sink(icv_log_sink sink, void *user);
/* The sink in use (NULL: stderr), so a caller can tee messages and put it back. */
void icv_log_get_sink(icv_log_sink *sink, void **user);
/* The default output (stderr, "warning: " and "error: " tags): for a sink that tees. */
void icv_log_default_sink(icv_log_level level, const char *line, void *user);

void icv_log(icv_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define icv_warn(...) icv_log(ICV_LOG_WARN, __VA_ARGS__)
#define icv_info(...) icv_log(ICV_LOG_INFO, __VA_ARGS__)
#define icv_debug(...) icv_log(ICV_LOG_DEBUG, __VA_ARGS__)

/* ---- progress ---------------------------------------------------------- */

/* A progress bar for long loops. It draws on stderr only when stderr is a
 * terminal, the log level is at least INFO and CI is not set; otherwise every call
 * is a no-op, so CI logs and pipes stay clean. Redraws at most every 100 ms. */
typedef struct {
    const char *label; /* caller owns; must outlive the bar */
    long total;        /* number of steps, or 0 when unknown */
    long done;
    int active;        /* drawing enabled */
    double t_start;    /* s, monotonic */
    double t_drawn;    /* s, monotonic, last redraw */
} icv_progress;

void icv_progress_begin(icv_progress *p, const char *label, long total);
void icv_progress_update(icv_progress *p, long done);
void icv_progress_end(icv_progress *p);

/* Whether progress bars would draw now (for tests and for callers that want to
 * print something else instead). */
int icv_progress_enabled(void);

/* Monotonic wall clock in seconds. */
double icv_now(void);
/* CPU time of the whole process in seconds, every thread: what a job costs whatever
 * else a shared machine runs (benches). */
double icv_cpu_now(void);

/* ---- atomic output files ----------------------------------------------- */

/* Writes go to a temporary file beside the target ("path.tmp.XXXXXX") which
 * icv_atomic_commit renames over the target, so a reader never sees a partial
 * file and a failure leaves the previous file untouched. */
typedef struct {
    FILE *fp;         /* write here */
    char path[4096];  /* the final name */
    char tmp[4096];   /* the temporary name */
} icv_atomic_file;

int icv_atomic_open(icv_atomic_file *af, const char *path, icv_err *err);
/* Flushes, syncs and renames; closes the file in every case. */
int icv_atomic_commit(icv_atomic_file *af, icv_err *err);
/* Closes and removes the temporary file; safe to call after a commit or twice. */
void icv_atomic_abort(icv_atomic_file *af);

/* Writes a whole buffer atomically. */
int icv_atomic_write(const char *path, const void *data, size_t len, icv_err *err);

/* Creates a directory and its parents (like mkdir -p). */
int icv_mkdirs(const char *path, icv_err *err);

/* ---- text for other tools (text_out.c) -------------------------------- */

/* Base64 of n bytes (for data: URIs in the HTML reports). */
void icv_fput_base64(FILE *f, const void *data, size_t n);

/* fn on each of n items (items + i * item_size) at once: item 0 on the calling thread,
 * each other on a thread of its own (on the calling thread, after, when a thread
 * cannot be made); returns when all are done. run_each.c. */
void icv_run_each(void *(*fn)(void *), void *items, size_t item_size, int n);
/* Text with < > & " escaped for HTML. NULL writes nothing. */
void icv_fput_html(FILE *f, const char *s);
/* Each line of text (lines end at '\n') as an escaped <li> item. NULL writes nothing. */
void icv_fput_html_items(FILE *f, const char *text);

/* ---- text from outside files (text_in.c) -------------------------------- */

/* Limits on numbers read from outside files that become indices or sizes, and on
 * coordinates (docs/experiment.md, "Limits"). */
#define ICV_MAX_FRAME_NUMBER 100000000 /* frames: 4.6 hours at 6000 fps */
#define ICV_MAX_COORD_M 1e4            /* m, a 3D coordinate in tracks */
#define ICV_MAX_COORD_PX 1e6           /* px, a 2D coordinate in tracks */
#define ICV_MAX_IMAGE_SIDE 65536       /* px: a roi's x + w, y + h */
#define ICV_MAX_BOARD_SIDE 100         /* inner corners along a board's side */
#define ICV_MAX_FPS 1e6                /* Hz, cameras[].capture_fps */

/* 1 when a CSV field means "missing": empty, or NaN in any case and sign (DLTdv8,
 * Argus, numpy and pandas write NaN; blanks around it ignored). */
int icv_csv_missing(const char *field);

/* s as it may be shown in a message: at most max_in bytes of it, control and
 * non-ASCII bytes written as \xNN, a quote as \", "..." added when cut. Returns
 * out. */
const char *icv_printable(const char *s, size_t max_in, char *out, size_t out_size);

/* ---- paths ------------------------------------------------------------- */

#define ICV_PATH_MAX 4096

/* out = dir/rel, or rel unchanged when it is absolute. Fails if it does not fit. */
int icv_path_join(char *out, size_t n, const char *dir, const char *rel, icv_err *err);
/* The folder part of path ("." when there is none). */
void icv_path_dirname(char *out, size_t n, const char *path);
int icv_file_exists(const char *path);
/* A whole file into *data (malloc'd, caller frees; NUL-terminated, the NUL not counted
 * in *len). max_bytes > 0: a larger file is refused, naming the limit. */
int icv_file_read(const char *path, size_t max_bytes, char **data, size_t *len, icv_err *err);

/* Expands a glob pattern or a folder (all regular files in it) into a sorted list of
 * paths. *paths is allocated (free with icv_paths_free). Zero matches is not an
 * error here: *count is 0. */
int icv_paths_expand(const char *pattern, char ***paths, size_t *count, icv_err *err);
void icv_paths_free(char **paths, size_t count);

/* ---- output folders that appear whole (atomic_dir.c) ------------------- */

/* Makes an empty working folder beside dir, "<dir>.<tag>.<pid>.XXXXXX" (trailing
 * slashes of dir left out; dir's parent created if needed), its path into work (n
 * bytes), registered for removal on a signal. Refuses "/", "." and ".." (a folder
 * replaced as a whole needs a name). Removes first what a dead process left beside
 * dir (its working folders; its "<dir>.old.<pid>" is put back when dir is missing). */
int icv_workdir_make(const char *dir, const char *tag, char *work, size_t n, icv_err *err);
/* Moves the folder tmp into place as dir: exchanged with dir in one
 * renameat2(RENAME_EXCHANGE) (dir is never missing), then the old one removed; where
 * the filesystem cannot exchange, dir is moved aside and tmp renamed. On failure dir
 * is as it was (tmp is left for the caller to remove). */
int icv_dir_swap(const char *tmp, const char *dir, icv_err *err);
/* Removes a folder and everything in it (best effort; symbolic links not followed). */
void icv_dir_remove(const char *path);
/* Whether `-o dir` may be replaced by a job's results: dir absent, empty, or holding
 * marker_rel (a file the program writes last into its results, e.g.
 * ".impactcv/manifest.json"); anything else fails with one line suggesting --force,
 * unless force. Fails, forced or not, when dir is or holds one of inputs (the
 * experiment's files: n_inputs paths, NULL or "" skipped). (outdir_guard.c) */
int icv_outdir_check(const char *dir, const char *marker_rel, int force, const char *const *inputs, int n_inputs,
                     icv_err *err);
/* Working folders removed on SIGINT, SIGTERM and SIGHUP (cleanup_signals.c):
 * icv_workdir_make registers each, icv_dir_swap and icv_dir_remove unregister it;
 * the program installs the handler once at start (the handler then re-raises). */
void icv_cleanup_register(const char *path);
void icv_cleanup_unregister(const char *path);
void icv_cleanup_signals_install(void);
/* Every file under src hard-linked at the same place under dst (copied where a link
 * cannot be made), subfolders created, symbolic links copied as links: a working
 * folder that starts as DIR was. */
int icv_dir_link_tree(const char *src, const char *dst, icv_err *err);
/* Whether a path relative to the folder walked is left out (1) by icv_dir_link_missing. */
typedef int (*icv_dir_skip_fn)(const char *rel, void *user);
/* Every entry under src that dst lacks, and skip (NULL: none) does not leave out,
 * linked (copied where a link cannot be made) at the same place under dst; what dst
 * already has is kept: the user's own files carried into a job's new results. */
int icv_dir_link_missing(const char *src, const char *dst, icv_dir_skip_fn skip, void *user, icv_err *err);

/* ---- the experiment model (experiment.yaml) ---------------------------- */

#define ICV_MAX_CAMERAS 4
#define ICV_MAX_MARKERS 32
#define ICV_MAX_SHAPE_POINTS 64
#define ICV_ID_MAX 64

typedef struct {
    char id[ICV_ID_MAX];
    char video[ICV_PATH_MAX];       /* resolved against the experiment's folder */
    double capture_fps;             /* Hz; 0 = from the container */
    double exposure_s;              /* s, exposure time; 0 = a full frame period (the
                                       flash's sub-frame onset depends on it) */
    int has_roi;
    int roi[4];                     /* x, y, w, h in pixels */
    char mask[ICV_PATH_MAX];        /* "" = none */
    int has_frames;
    long frames[2];                 /* first, last frame to use (inclusive, from 0) */
} icv_camera_spec;

typedef enum { ICV_SURFACE_NONE, ICV_SURFACE_IMAGES, ICV_SURFACE_PLANE, ICV_SURFACE_LINE_PX } icv_surface_kind;
typedef enum { ICV_SCALE_NONE, ICV_SCALE_BOARD, ICV_SCALE_POINTS, ICV_SCALE_GRAVITY, ICV_SCALE_SIZE } icv_scale_kind;
typedef enum { ICV_SYNC_FLASH, ICV_SYNC_NONE, ICV_SYNC_OFFSETS } icv_sync_method;
typedef enum { ICV_SHAPE_POINTS, ICV_SHAPE_CAPSULE, ICV_SHAPE_CYLINDER, ICV_SHAPE_BOX, ICV_SHAPE_SPHERE } icv_shape_type;
typedef enum { ICV_RESTITUTION_NEWTON, ICV_RESTITUTION_POISSON, ICV_RESTITUTION_STRONGE } icv_restitution;

typedef struct {
    icv_shape_type type;
    icv_vec3 axis;        /* capsule/cylinder axis, body frame, unit */
    double length;        /* m: capsule/cylinder overall length */
    double radius;        /* m: capsule/cylinder/sphere */
    icv_vec3 size;        /* m: box edge lengths along body x, y, z */
    int n_points;
    icv_vec3 points[ICV_MAX_SHAPE_POINTS]; /* m, body frame */
} icv_shape;

/* body.marker_shape: what a marker on a capsule's or cylinder's axis is, which sets
 * the shift from its drawn centroid to its centre (track/band_marker.c): a band round
 * the rod (the default) or a sphere threaded on it (a bead). Markers off the axis take
 * no shift either way. */
typedef enum { ICV_MARKER_BAND, ICV_MARKER_SPHERE } icv_marker_shape;

/* One rigid body of the experiment (`body:`, or an entry of `bodies:`). */
#define ICV_MAX_BODIES 8
typedef struct {
    char name[ICV_ID_MAX];  /* `bodies[].name`; "body" for a single `body:` */
    double mass;            /* kg */
    icv_mat3 inertia;       /* kg m^2, body frame, about the centre of mass */
    int n_markers;
    icv_vec3 markers[ICV_MAX_MARKERS]; /* m, body frame, centre of mass at origin */
    char marker_labels[ICV_MAX_MARKERS][32]; /* in a C3D or TRC file; "" = not given */
    double marker_diameter; /* m */
    icv_marker_shape marker_shape;
    icv_shape shape;
    double pendulum_length; /* m, from its fixed pivot to the centre of mass: a ball on
                               a string (`pendulum: {length: l}`); 0: not hung */
} icv_body;

/* `joints:` entries: bodies tied into a chain. */
typedef enum { ICV_JOINT_PIN } icv_joint_type;
typedef struct {
    icv_joint_type type;
    int body[2];            /* indices into icv_experiment.bodies */
    icv_vec3 at[2];         /* m: the joint's point in each body's frame */
} icv_joint;

/* track.markers: what the markers look like (the values are track.h's track_look). */
enum {
    ICV_TRACK_MARKERS_AUTO = -1, /* of bright, dark and motion, what finds the markers best */
    ICV_TRACK_MARKERS_BRIGHT,
    ICV_TRACK_MARKERS_DARK,
    ICV_TRACK_MARKERS_COLOR,
    ICV_TRACK_MARKERS_MOTION,
};

/* experiment.yaml's `track:` section, the track stage's settings (docs/experiment.md);
 * what is not given keeps the stage's defaults. */
typedef struct {
    double threshold;          /* gray levels: a fixed threshold; < 0 automatic (default) */
    double threshold_fraction; /* in (0, 1); 0: not given */
    double min_circularity;    /* in (0, 1]; 0: not given */
    int max_coast;             /* frames; < 0 the tracker's default */
    int markers;               /* ICV_TRACK_MARKERS_*; AUTO by default */
    double color[3];           /* 0-255: {color: [r, g, b]} */
    double tolerance;          /* 0-255: its tolerance; <= 0 the detector's default */
} icv_track_keys;

typedef struct {
    char path[ICV_PATH_MAX]; /* the experiment.yaml it came from */
    char dir[ICV_PATH_MAX];  /* its folder: relative paths are resolved against it */
    char name[128];

    int n_cameras;           /* 1: planar (one-camera) mode; 2+: 3D mode; 0: 3D tracks from another
                                system (`analyze --tracks`), no calibration */
    icv_camera_spec cameras[ICV_MAX_CAMERAS];

    /* calibration: board images per camera, or a ready file */
    int has_calibration;
    int board_cols, board_rows; /* inner corners along a row, along a column */
    double board_square;        /* m */
    char calib_images[ICV_MAX_CAMERAS][ICV_PATH_MAX]; /* glob per camera, "" = none */
    char calib_file[ICV_PATH_MAX];                    /* "" = none */

    /* the impact surface */
    icv_surface_kind surface_kind;
    char surface_images[ICV_MAX_CAMERAS][ICV_PATH_MAX];
    icv_vec3 plane_point;   /* m, reference camera frame (no cameras: the tracks' frame) */
    icv_vec3 plane_normal;  /* unit, reference camera frame (no cameras: the tracks' frame) */
    double line_px[2][2];   /* reference camera pixels */

    /* one-camera mode: the plane of motion and its scale */
    icv_scale_kind scale_kind;
    char motion_plane_images[ICV_MAX_CAMERAS][ICV_PATH_MAX];
    double scale_points_px[2][2];
    double scale_distance;  /* m */
    double scale_size;      /* m: the ball's diameter for ICV_SCALE_SIZE ({size: d}, or
                               body.shape's sphere diameter) */
    /* motion_plane.verticals_px: image segments of lines vertical in the world (a
       poster's or door's edges), reference camera pixels, each [[u1, v1], [u2, v2]];
       their vanishing point gives the camera's pitch to the vertical plane of motion */
#define ICV_MAX_VERTICALS 8
    double verticals_px[ICV_MAX_VERTICALS][2][2];
    int n_verticals;        /* 0: none given */

    int gravity_auto;       /* 1: estimate from free flight */
    icv_vec3 gravity;       /* m/s^2, surface frame, when not auto */

    icv_sync_method sync;
    double sync_offsets[ICV_MAX_CAMERAS]; /* frames of each camera, ICV_SYNC_OFFSETS */

    /* the body */
    double mass;            /* kg */
    icv_mat3 inertia;       /* kg m^2, body frame, about the centre of mass */
    int n_markers;
    icv_vec3 markers[ICV_MAX_MARKERS]; /* m, body frame, centre of mass at origin */
    /* body.marker_labels: each marker's label in a C3D or TRC file ("" = not given:
       the file's markers in order) */
    char marker_labels[ICV_MAX_MARKERS][32];
    double marker_diameter; /* m */
    icv_marker_shape marker_shape;
    icv_shape shape;

    /* the model compared with the measurement */
    icv_restitution restitution;
    int mu_measured;        /* 1: fit mu to each impact */
    double mu_s, mu_k;      /* static and kinetic friction, when given */
    int e_n_measured;
    double e_n;
    /* where a model value came from: "" (given or measured) or the coefficients.json
     * named by {from: file} (resolved path) */
    char mu_s_from[ICV_PATH_MAX], mu_k_from[ICV_PATH_MAX], e_n_from[ICV_PATH_MAX];

    /* a coefficient experiment: "" for an impact experiment, or
     * "tilt" | "slide" | "drop" (key `experiment`) */
    char kind[8];
    int has_tilt_angle;     /* coefficients.angle_deg given (the ruler method) */
    double tilt_angle_deg;  /* deg, incline angle at the onset of sliding */
    double tilt_angle_sd_deg;
    /* coefficients.level_images: the board lying on a level reference, per camera ("" =
     * none): the vertical for a slide without a given gravity and for a tilt */
    char level_images[ICV_MAX_CAMERAS][ICV_PATH_MAX];
    /* coefficients.incline: flight: a slide's incline from the free flight before the
     * body lands on it, in the same clip (gravity must then be auto) */
    int incline_from_flight;

    icv_track_keys track;   /* track: */

    /* Every body: one for `body:` (then the same as the fields above), or `bodies:`'
     * list, whose first entry the fields above also hold. The stages that follow one
     * body refuse n_bodies > 1 (icv_experiment_one_body). */
    int n_bodies;
    icv_body bodies[ICV_MAX_BODIES];
    int n_joints;
    icv_joint joints[ICV_MAX_BODIES];
} icv_experiment;

/* Reads and validates experiment.yaml. Rejects, with one line naming the key (and
 * line of the file): a missing required key, a wrong type, a negative or zero mass,
 * an inertia that is not symmetric positive definite, fewer than 3 markers for a
 * 3D (two-camera) body, an unknown restitution model or shape, out-of-range values.
 * Does not check that the files it names exist: icv_experiment_check_files does. */
int icv_experiment_load(const char *path, icv_experiment *exp, icv_err *err);

/* Checks that every file the experiment names exists (videos, calibration images
 * matching each glob, the calibration file, surface and plane images). */
int icv_experiment_check_files(const icv_experiment *exp, icv_err *err);
/* Sets the one-body fields (mass, inertia, markers, labels, marker diameter, shape)
 * to bodies[k]'s, for code that follows one body at a time. */
void icv_experiment_use_body(icv_experiment *exp, int k);
/* 0 for an experiment of one body; else fails naming the stage (track, analyze, ..)
 * that follows one body so far. */
int icv_experiment_one_body(const icv_experiment *exp, const char *stage, icv_err *err);
/* Sets the one-body fields to every body's markers together, body after body in the
 * order of `bodies:` (body k's marker j is marker icv_experiment_first_marker(exp, k)
 * + j), for the code that sees markers but not bodies (detection, 2D tracking): the
 * largest marker diameter, the masses summed, a shape of points (no band markers). */
void icv_experiment_use_all_bodies(icv_experiment *exp);
/* The index of body k's first marker among every body's markers. */
int icv_experiment_first_marker(const icv_experiment *exp, int k);

/* Writes a human summary (what check prints). */
void icv_experiment_summary(const icv_experiment *exp, FILE *out);

const char *icv_restitution_name(icv_restitution r);

/* The point of a body's shape lowest along -n (the contact point when the body
 * touches a plane of normal n), in the frame where the body sits at pose (R, p):
 * x = R x_body + p. n is a unit vector (the surface frame's y for the surface).
 * For a face or an edge lying flat on the plane the point returned is its
 * centre, so that it is continuous in the pose. shape.c. */
icv_vec3 icv_shape_lowest_point(const icv_shape *shape, icv_mat3 R, icv_vec3 p, icv_vec3 n);
const char *icv_shape_name(icv_shape_type t);


/* ---- YAML reading (experiment.yaml, CASE.yaml, scenarios, campaigns) ---- */

/* A loaded YAML file (libyaml's document). Nodes are small values naming a node
 * of the document and their key path ("body.markers[2]") for error messages of
 * the form "FILE:LINE: key.path: reason". */
typedef struct icv_yaml icv_yaml;

typedef struct {
    icv_yaml *doc;
    int node;       /* libyaml node index; 0 = absent */
    char key[192];  /* key path from the root, for messages */
} icv_ynode;

/* Limits on every YAML file read (docs/experiment.md, "Limits"): its size, its
 * nesting and the entries of one list or mapping. Duplicate keys and a second
 * document are errors too. */
#define ICV_YAML_MAX_BYTES (4 << 20)
#define ICV_YAML_MAX_DEPTH 64
#define ICV_YAML_MAX_ITEMS 100000
int icv_yaml_load(const char *path, icv_yaml **doc, icv_ynode *root, icv_err *err);
/* Whether text (n bytes, path for messages) is one well-formed YAML document within
 * the limits above, for YAML another parser reads (OpenCV's FileStorage loops for ever
 * on some malformed files). OpenCV's directive "%YAML:1.x" is left out. */
int icv_yaml_check_text(const char *text, size_t n, const char *path, icv_err *err);
/* icv_yaml_load from text already read (n bytes; path for messages), checked as
 * icv_yaml_check_text checks it. */
int icv_yaml_load_text(const char *text, size_t n, const char *path, icv_yaml **doc, icv_ynode *root, icv_err *err);
/* How many bytes of text (n bytes) are blanks (space, tab, CR, LF) before the first
 * other character. */
size_t icv_text_blank_prefix(const char *text, size_t n);
void icv_yaml_free(icv_yaml *doc);
const char *icv_yaml_path(const icv_yaml *doc);

int icv_ynode_exists(icv_ynode n);
int icv_ynode_is_map(icv_ynode n);
int icv_ynode_is_seq(icv_ynode n);
int icv_ynode_is_scalar(icv_ynode n);
int icv_ynode_line(icv_ynode n);          /* 1-based line in the file */
size_t icv_ynode_len(icv_ynode n);        /* items of a sequence or mapping */
icv_ynode icv_ynode_get(icv_ynode map, const char *key); /* absent if missing */
icv_ynode icv_ynode_at(icv_ynode seq, size_t i);
/* i-th pair of a mapping: its value, and its key through *key */
icv_ynode icv_ynode_pair(icv_ynode map, size_t i, const char **key);
const char *icv_ynode_str(icv_ynode n);   /* scalar text, or NULL */
int icv_ynode_quoted(icv_ynode n);        /* a scalar written in quotes (or as a block): a string, never a number */

/* Fails with "FILE:LINE: key: reason". Returns code. */
int icv_ynode_fail(icv_ynode n, icv_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Warns "FILE:LINE: unknown key 'k' is ignored" for each key of map not in known
 * (NULL-terminated). */
void icv_ynode_warn_unknown(icv_ynode map, const char *const *known);

/* Typed reads of map[key]. When the key is absent: with required, an error
 * "FILE:LINE: key: missing (required)"; without, 0 and *out untouched (the caller
 * set the default). A present key of the wrong type is always an error. */
int icv_yread_double(icv_ynode map, const char *key, int required, double *out, icv_err *err);
int icv_yread_int(icv_ynode map, const char *key, int required, int *out, icv_err *err);
int icv_yread_bool(icv_ynode map, const char *key, int required, int *out, icv_err *err);
int icv_yread_str(icv_ynode map, const char *key, int required, char *out, size_t n, icv_err *err);
/* A sequence of exactly n numbers. */
int icv_yread_doubles(icv_ynode map, const char *key, int required, double *out, int n, icv_err *err);
int icv_yread_vec3(icv_ynode map, const char *key, int required, icv_vec3 *out, icv_err *err);
/* [[a,b,c],[d,e,f],[g,h,i]] */
int icv_yread_mat3(icv_ynode map, const char *key, int required, icv_mat3 *out, icv_err *err);
/* Reads a scalar node itself as a number. */
int icv_ynode_double(icv_ynode n, double *out, icv_err *err);

/* Reads a model mapping in experiment.yaml's syntax (restitution; mu, or mu_s and mu_k;
 * e_n: each `measured`, a number or {from: coefficients.json} resolved against
 * exp->dir) into exp's model fields, after setting their defaults (stronge, mu and e_n
 * measured). An absent node leaves the defaults. icv_experiment_load uses it for
 * `model:`, a campaign for its shared `model:`. */
int icv_experiment_model_read(icv_ynode model, icv_experiment *exp, icv_err *err);

#endif
