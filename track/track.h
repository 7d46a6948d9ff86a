/* track.h: marker detection on gray frames, multi-target tracking per camera,
 * the tracks2d file, and triangulation of 2D points into 3D.
 *
 * track/ is a library: it works on frames, points and arrays it is handed, and never
 * opens a video or a folder (the track stage that does, `impactcv track`, is job/'s:
 * job_track_run; tests/job/test_layering.c checks who opens videos).
 *
 * Pixels follow docs/conventions.md: the centre of the top-left pixel is (0, 0),
 * u to the right, v down. Frames are caller-owned gray buffers (8 or 16 bit, with
 * a stride); the library never keeps a pointer to them after a call returns.
 * Objects follow the AprilTag style (../shared/spec/style.md): `_alloc` gives an
 * object with sensible defaults in plain, documented struct fields; change them
 * before the first frame. Workspaces are sized at `_alloc`: the per-frame path
 * (detect, step) allocates nothing.
 *
 * Flags vocabulary (a bit set per point; names as written in tracks2d files, joined
 * by '|', empty when none):
 *   coasted       no detection this frame: the marker was predicted, not measured
 *                 (u, v, area are empty in the file; nothing is smoothed)
 *   interpolated  the position was interpolated in time between two measurements of
 *                 one flight phase (sub-frame sync; never across an impact)
 *   merged        two markers' blobs touch: the blob is not used as a position
 *   saturated     at least one pixel of the blob reached the saturation level
 *   blurred       the blob is a motion streak (its centroid is the mid-exposure
 *                 position; see track_blob)
 *   outlier       rejected after the fact (e.g. a large triangulation residual)
 *   extrapolated  a 3D point whose second view was extrapolated by less than a frame
 *                 past the end of that camera's clip (it started later or stopped
 *                 earlier), from two measurements of one flight phase; its sigma
 *                 carries the longer lever arm (an impact inside that fraction of a
 *                 frame would not be seen)
 */
#ifndef ICV_TRACK_H
#define ICV_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

enum {
    TRACK_FLAG_COASTED = 1 << 0,
    TRACK_FLAG_INTERPOLATED = 1 << 1,
    TRACK_FLAG_MERGED = 1 << 2,
    TRACK_FLAG_SATURATED = 1 << 3,
    TRACK_FLAG_BLURRED = 1 << 4,
    TRACK_FLAG_OUTLIER = 1 << 5,
    TRACK_FLAG_EXTRAPOLATED = 1 << 6,
    TRACK_FLAG_ONE_VIEW = 1 << 7, /* a 3D position on one camera's ray, from the body's pose */
};

/* Writes the flag names joined by '|' into out ("" for none); returns out. */
const char *track_flags_format(unsigned flags, char *out, size_t n);

/* ---- a gray frame (caller-owned) --------------------------------------- */

typedef struct {
    const void *data; /* first pixel (top-left); caller owns */
    int width, height; /* px */
    int stride;        /* bytes from one row to the next */
    int depth;         /* bits per pixel: 8 (uint8_t) or 16 (uint16_t, native endian) gray,
                          or 24: packed R, G, B bytes (the colour look only) */
} track_frame;

/* ---- detection ---------------------------------------------------------- */

typedef enum {
    TRACK_THRESHOLD_AUTO,  /* from the frame: background + max(k_sigma * noise,
                              fraction * (marker peak - background)); see threshold_* */
    TRACK_THRESHOLD_FIXED, /* threshold_level, an absolute gray level */
} track_threshold_mode;

/* What a marker looks like against its surroundings (experiment.yaml track.markers).
 * Every look turns the frame into a gray plane the bright detector reads (the
 * detector's workspace; only the windows' neighbourhoods when tracking), so every
 * threshold and centroid below is in that plane's gray levels. */
typedef enum {
    TRACK_LOOK_BRIGHT, /* brighter than what surrounds it (the frame as it is) */
    TRACK_LOOK_DARK,   /* darker than its surroundings: with a marker size given
                          (track_detector_set_marker_size, diameter d px) the black
                          top-hat closing(I) - I by an octagon of radius d, how much
                          darker a pixel is than the brightest ring round it (a dark
                          band on a light rod over a floor as dark as the band); else
                          the frame inverted (max - I) */
    TRACK_LOOK_COLOR,  /* near color_rgb: 255 (1 - distance / color_tolerance), RGB frames */
    TRACK_LOOK_MOTION, /* away from the still background: |I - motion_background| */
} track_look;

/* The look's name as experiment.yaml writes it ("bright", "dark", "color", "motion"). */
const char *track_look_name(track_look look);

/* One bright blob: its intensity-weighted centroid, size and shape. */
typedef struct {
    double u, v;          /* px: centroid of (I - background) over the blob dilated by
                             centroid_margin_px. For a streak (marker moving during the
                             exposure) this is the time average of the position over the
                             exposure = the position at mid-exposure for a constant
                             velocity (a constant acceleration a adds a*T^2/24, T the
                             exposure time: below 0.01 px for free flight at 240 fps
                             and 4 ms, larger during an impact) */
    double sigma;         /* px: 1-sigma uncertainty of u and of v (the RMS of the two),
                             first-order propagation of pixel noise and background error
                             through the centroid (Savin & Doyle 2005 static error; the
                             formula is in blob_measure.c and docs/track.md) */
    double area;          /* px: pixels above the threshold */
    double mass;          /* gray levels * px: sum of (I - background) */
    double peak;          /* gray levels: brightest pixel (absolute) */
    double background;    /* gray levels: local background under the blob */
    double mxx, myy, mxy; /* px^2: intensity-weighted second central moments */
    double major, minor;  /* px: sqrt of the moment eigenvalues (RMS extents) */
    double angle;         /* rad: direction of the major axis from +u towards +v */
    double streak_px;     /* px: streak length sqrt(12 (major^2 - minor^2)) (a disc moved
                             by L has major^2 = minor^2 + L^2/12); ~0 for a still marker */
    int n_saturated;      /* pixels at or above saturation_level */
    int x0, y0, x1, y1;   /* px: bounding box of the thresholded pixels, inclusive */
    unsigned flags;       /* TRACK_FLAG_SATURATED, TRACK_FLAG_BLURRED */
} track_blob;

/* A search window (px, inclusive corners; clipped to the frame and roi) and the
 * streak length the tracker expects there, which relaxes the circularity test along
 * the blob's major axis. */
typedef struct {
    int x0, y0, x1, y1;
    double blur_px;    /* px: expected streak length, 0 if unknown */
} track_window;

/* Statistics of the last frame, kept for a person asking why a frame failed. */
typedef struct {
    int full_scan;        /* 1: the whole frame was scanned */
    int n_windows;        /* windows searched */
    long n_pixels;        /* pixels compared with the threshold */
    int n_components;     /* connected components found */
    int n_rejected_area;  /* rejected: area outside [min_area_px, max_area_px] */
    int n_rejected_shape; /* rejected: circularity */
    int n_rejected_contrast; /* rejected: peak above the blob's own ring by less than the
                             threshold's height (a bump on textured or lit background) */
    int n_rejected_static;/* rejected: matches a learnt static blob */
    int n_clipped;        /* rejected: cut by a window's edge (search a larger window) */
    int n_rejected_edge;  /* rejected: touches the frame's edge (partly out of view) */
    int n_rejected_mask;  /* rejected: centroid on a masked-out pixel */
    int n_candidates;     /* blobs that passed the area, roi/frame edge, window edge and mask
                             tests (kept or rejected later by shape or as static): the
                             count to compare with the markers expected */
    int n_split;          /* components thresholded again inside their own box (too large,
                             or not standing out from their ring: a marker on a lit plate) */
    int n_overflow;       /* components beyond max_blobs, not measured */
    int n_blobs;          /* blobs returned */
    double threshold;     /* gray levels: the frame background + the height above it (full
                             scan; each tile uses its own level + that height, each window
                             its own background + that height), at most saturation - 1 */
    double background;    /* gray levels: frame background (full scan: the median tile
                             level, or the median pixel when background_tile_px is 0) */
    double noise;         /* gray levels: pixel noise sigma (1.4826 MAD about each tile's
                             level, full scan) */
    double brightest;     /* gray levels: brightest peak of the blobs measured (those that
                             passed the area and edge tests), kept or not */
} track_detect_stats;

typedef struct {
    /* Tunable parameters: plain fields, defaults from track_detector_alloc. */
    track_threshold_mode threshold_mode; /* default AUTO. FIXED when the lighting is
                                            controlled and the auto level fails. */
    double threshold_level;   /* gray levels, absolute (FIXED mode; experiment.yaml
                                 track.threshold). Default 128 (8 bit). */
    double threshold_k_sigma; /* AUTO: minimum threshold above background in units of the
                                 pixel noise. Default 6: a false pixel per ~1e9. Lower it for
                                 faint markers in a clean image. */
    double threshold_fraction;/* AUTO: threshold at this fraction of (marker peak -
                                 background) above background, once markers are seen.
                                 Default 0.25: low enough that a 15 px streak (peak
                                 ~half of a still marker's) stays whole. */
    int n_markers;            /* AUTO: the markers expected in view (body.markers' count), 0
                                 unknown (default). The peak the threshold takes its
                                 fraction of is the n-th strongest blob's, and a frame
                                 finding fewer lowers it; unknown: the median blob's. */
    int centroid_margin_px;   /* px: the centroid sums over the blob's box grown by this,
                                 so that the faint rim below threshold is not cut (cutting
                                 it biases the centroid with the noise). Default 2. Raise
                                 for very soft (defocused) markers. */
    int centroid_window;      /* 1 (default): a peaked, compact blob (a Gaussian-like spot,
                                 not a streak nor a flat disc) gets a Gaussian-windowed
                                 centroid matched to its size (blob_measure.c), which
                                 weighs down the coding noise far from the centre; 0: the
                                 box centroid for every blob */
    int centroid_coverage;    /* 1: the area centroid from each pixel's coverage against
                                 what lies behind it (blob_coverage.c), for flat markers
                                 on an uneven background (bands on a dark rod in front
                                 of a lit plate: the box centroid moved 0.05-0.15 px with
                                 the box's integer edges); 0 (default): the box centroid.
                                 Peaked blobs still get the windowed centroid after it. */
    double min_area_px;       /* px: smaller blobs are noise. Default 4. */
    double slender_min_area_px; /* px: a blob under min_area_px is kept when it covers this
                                 and its box's diagonal reaches slender_extent_px (a flat
                                 marker seen edge-on keeps its whole width one way; a
                                 speck of noise is small every way). Default 0: off;
                                 set with the marker's size. */
    double slender_extent_px; /* px: see slender_min_area_px; the box's diagonal up to 1.3
                                 times this over 0.8 (a sticker's width, not an edge's) */
    int markers_round;        /* 1: the markers are balls or beads, never seen edge-on:
                                 no slender blobs (set before the marker's size) */
    double max_area_px;       /* px: larger blobs are the board, reflections. Default 2000.
                                 Set from the marker diameter, calibration and distance. */
    double min_circularity;   /* minor^2 / major^2 after removing the expected blur, in
                                 (0, 1]: 1 a disc. Default 0.4. Lower for stickers seen at
                                 a grazing angle. */
    double max_streak_px;     /* px: longest streak accepted in a full scan (no blur
                                 prediction there). Default 40. */
    double blurred_px;        /* px: a blob whose streak_px exceeds this is flagged blurred.
                                 Default 2. */
    double saturation_level;  /* gray levels: pixels at or above this are saturated.
                                 Default 0: the largest value of the frame's depth (255 or
                                 65535); set it for 10/12-bit data in 16-bit words. */
    double noise_floor;       /* gray levels: the smallest pixel noise the sigma uses. Default 0
                                 (raw frames: the ring's noise is the noise). Video coding
                                 wipes the noise from flat areas (the ring then reads ~0)
                                 while it moves the marker's edges by several levels: set 8
                                 for H.264 at CRF ~18 (fitted on discs, spots and streaks in
                                 tests/track/test_h264.c). */
    double gain;              /* gray levels per photo-electron, for shot noise in sigma:
                                 var = noise^2 + gain*(I - background). Default 0 (read
                                 noise only); set from the camera's datasheet. */
    int static_frames;        /* frames (that searched its place: full scans, or windows
                                 over it) a blob must stay within static_radius_px to be
                                 learnt as static (background model, static_model.c) and
                                 ignored. Default 50; 0 disables. A body resting longer
                                 than this is learnt too: its markers come back (as new
                                 tracks) once they move. */
    double static_radius_px;  /* px: how still a static blob is. Default 0.5. */
    int max_blobs;            /* components of a marker's area (min_area_px to max_area_px)
                                 measured per region (frame or window) at most; the rest
                                 are counted in stats.n_overflow. Default 256. */
    int roi[4];               /* px: x, y, w, h where markers may be (experiment.yaml
                                 cameras[].roi); w or h 0 = the whole frame (default). Full
                                 scans search only here; windows are clipped to it. */
    const uint8_t *mask;      /* optional, caller owns: one byte per frame pixel (the whole
                                 frame), row-major, rows mask_stride bytes apart; a blob
                                 whose centroid pixel is 0 is ignored (cameras[].mask:
                                 glints, the board). Default NULL. */
    int mask_stride;          /* bytes per mask row */
    int debug;                /* 1: write the threshold image of each full scan as PGM to
                                 debug_dir (for a human to look at). Default 0. */
    const char *debug_dir;    /* caller owns; default "." */

    track_look look;          /* what the markers look like; default TRACK_LOOK_BRIGHT */
    int bright_tophat;        /* 1: the bright look reads the white top-hat I - opening(I) by
                                 the dark look's octagon (radius the marker's diameter, with
                                 a size under 16 px given: track_detector_set_marker_size;
                                 else I itself), so a bright band on a dark rod over a light
                                 plate is not one region with the plate. Default 0: I (auto
                                 sets it: track_look_choose) */
    double color_rgb[3];      /* 0-255: the colour look's key colour (R, G, B) */
    double color_tolerance;   /* 0-255 (luma-weighted YCbCr distance): the colour look reads
                                 0 this far from the key. Default 60 */
    const void *motion_background; /* the motion look's still background: one plane of the
                                 frame's size and depth (8 or 16), caller owns
                                 (track_motion_background makes it). Default NULL */
    int motion_background_stride; /* bytes per row of motion_background */
    int background_tile_px;   /* px: a full scan's background is the median of each tile of
                                 this side (8-256), so a lit plate or a gradient is not marker;
                                 track_detector_set_marker_size raises it to 4 diameters
                                 (without it, a kept blob covering a quarter of a tile does);
                                 the threshold is each tile's level + the height above it.
                                 Default 32; 0: one level for the frame (the global-threshold
                                 detector, kept to compare) */
    int split_components;     /* 1 (default): a component larger than max_area_px, failing
                                 the shape test or whose ring is a quarter above its level is
                                 thresholded again in its own box, between its own level
                                 and its peaks (a marker fused to a plate or an edge comes
                                 apart); 0: rejected as before */

    double marker_aspect;     /* a marker's image extent across over its size (1, default:
                                 round). A band round a rod is as long as the rod is wide
                                 and marker_diameter wide: 2 r / d. Set it before
                                 track_detector_set_marker_size, whose background tile
                                 and auto's likeness then expect that stripe, not a disc
                                 (the area ceiling stays a disc's; the floor follows
                                 marker_fill: docs/track.md) */
    double marker_fill;       /* the least part of its disc a marker's image covers (1,
                                 default). A band wider than its rod is thick shows a
                                 stripe along the rod, 2 r / d of the disc: the area floor
                                 follows it. Set it before track_detector_set_marker_size */
    double disc_outline_px;   /* px: the diameter of markers that may be balls; a blob
                                 showing a disc of it with one segment cut away (a ball
                                 partly behind its body or post) is placed at the circle
                                 of its arc, not at its centroid, and a whole one 30 px
                                 across or more at its outline's circle where clutter
                                 at its rim pulls the centroid off it (disc_outline.c).
                                 0 (default): off */
    double disc_split_px;     /* px: the diameter of markers that are whole discs (balls lit
                                 alike, a cradle's); a blob of about k > 1.5 of their areas,
                                 elongated and with a waist where its parts meet is k
                                 touching discs, split into k blobs (disc_split.c). 0
                                 (default): off. A streak has no waist: not split */

    track_detect_stats stats; /* of the last frame (read only) */
    long n_allocs;            /* heap allocations made by this object (all in _alloc) */
    struct track_detector_ws *ws; /* private workspace */
} track_detector;

/* A detector for frames up to width x height px. Returns NULL (and fills err) when
 * out of memory or the size is not positive. Free with track_detector_free. */
track_detector *track_detector_alloc(int width, int height, icv_err *err);
void track_detector_free(track_detector *det);

/* Forgets what was learnt (auto threshold, static blobs). */
void track_detector_reset(track_detector *det);

/* The settings for a body's markers in a filmed scene, where track_detector_alloc's
 * defaults are for an isolated spot: threshold_fraction 0.5 (0.25 joins a band to a
 * lit plate behind its rod), min_circularity 0.01 (a band round a rod is ~2:1 from the
 * side, a thin crescent from above its end), centroid_margin_px 1 (2 takes in the rod
 * and the lit plate round a band). The track stage applies them before the
 * experiment's track: keys; the figures are in docs/pipeline.md, "The stage's
 * settings, measured". */
void track_detector_set_scene_markers(track_detector *det);

/* Sets min_area_px and max_area_px from the marker's expected image diameter (px):
 * min = 0.25 x the disc's area (a marker seen obliquely, or thresholded at its
 * shoulder), down to a third of that for a blob 0.8-1.3 diameters across its box (a
 * sticker seen within ~5 degrees of edge-on; markers of 12 px or more that are not
 * round, det->markers_round), max = 3 x the area of the disc swept by
 * max_streak_px (halo, saturation);
 * the background tile 4 diameters (times det->marker_aspect) across.
 * diameter_px comes from track_marker_diameter_px. */
void track_detector_set_marker_size(track_detector *det, double diameter_px, double max_streak_px);

/* 1 when bright_tophat would make the bright look read the white top-hat (a marker size
 * up to TRACK_WHITE_TOPHAT_MAX_D, 24 px, was given), 0 when bright reads I itself
 * whatever bright_tophat says. */
int track_detector_tophat_usable(const track_detector *det);

/* bead_backdrop.c: for a bead threaded on a rod, found by the last detection at (u, v)
 * in frame f (the plane the detector read is still this frame's there), the weight the
 * detector's plane gives the bead's disc beside the rod's image over the weight on it
 * (0-1; track_bead_factor's beside): 1 for planes made pixel by pixel, the bead's height
 * over the backdrop (the median of a circle of 1.4 radius_px + 1) over the plane's
 * value at (u, v) for a top-hat. -1 when it cannot tell (near the frame's edge, the
 * plane there under three noise sigmas). */
double track_detector_bead_beside(const track_detector *d, const track_frame *f, double u, double v, double radius_px);

/* Image diameter (px) of a marker of diameter_m (m) at distance_m (m, along the optical
 * axis) through a focal length focal_px (px): the pinhole scale f D / Z. */
double track_marker_diameter_px(double diameter_m, double focal_px, double distance_m);

/* One line on the last frame for a person (and for error messages): the threshold
 * and how it was set, components found, blobs kept and why the others were rejected,
 * the brightest blob seen. Returns buf. */
const char *track_detector_describe(const track_detector *det, char *buf, size_t n);

/* Detects blobs in the whole frame (windows == NULL or n_windows == 0) or inside the
 * given windows, which must not overlap (a blob in two windows would be found twice:
 * the tracker merges overlapping windows into one). Writes at most max_out blobs to
 * out (caller owns) and their count to *n_out. The frame must not exceed the size
 * given to _alloc. Allocates nothing (the debug image aside). */
int track_detector_detect(track_detector *det, const track_frame *frame,
                          const track_window *windows, int n_windows,
                          track_blob *out, int max_out, int *n_out, icv_err *err);

/* The motion look's background: the per-pixel median of n (1 to 63) frames spread over
 * the clip (the moving body is elsewhere in most of them), written into out (w x h,
 * the frames' depth, rows out_stride bytes apart; caller owns). Frames: 8 or 16 bit,
 * one size. */
int track_motion_background(const track_frame *frames, int n, void *out, int out_stride, icv_err *err);

/* track_motion_background into the detector's own buffer (sized at _alloc), and
 * motion_background pointed at it: for a caller that does not keep the frames. */
int track_detector_learn_background(track_detector *det, const track_frame *frames, int n, icv_err *err);

/* `auto` look: which look finds the body's markers. Runs a full scan with each look in
 * turn (bright, dark, then motion when motion_bg is given) over the n frames (a few,
 * from the clip's start), with the area limits of a marker of diameter_px (0 unknown)
 * and the roi/mask of det_like (may be NULL). Bright or dark fits when it keeps blobs
 * in half the frames or more, not over 8 a marker in every frame, and the markers'
 * number, where kept in consecutive frames, stays near; both fitting, dark is kept when
 * its blobs look like markers (moved from motion_bg, round, of a marker's size) by half
 * again as much as bright's. Motion fits when neither does and it keeps n_expected
 * blobs in 60% of the frames. With bright_tophat given (may be NULL: not weighed), bright
 * read as the white top-hat (track_detector.bright_tophat) is weighed too where every
 * marker is under 16 px and plain bright keeps the n_expected (2 or more) markers'
 * number in under 60% of the frames and fewer blobs than markers in over half: it
 * stands in for plain bright when it keeps as many blobs as markers or more in half the
 * frames or more and its blobs look like markers by half again as much as plain
 * bright's; *bright_tophat is 1 when bright so read is chosen. Writes the look to *look
 * and why into why (one line, for icv_info). motion_bg NULL and undecided given: when bright and dark both fit or
 * neither does, sets *undecided to 1 and returns 0 (call again with the background);
 * else sets it to 0. None fits: fails (ICV_ENOTFOUND) with one line naming what was
 * tried and what the brightest, darkest and moving blobs looked like. */
int track_look_choose(const track_frame *frames, int n, const void *motion_bg, int motion_bg_stride, int n_expected,
                      double diameter_px, const track_detector *det_like, track_look *look, int *bright_tophat,
                      int *undecided, char *why, size_t n_why, icv_err *err);
/* `auto` for cameras filming the same markers: the looks' scores of every camera's
 * frames (each camera's own motion background, marker diameter in px and detector
 * settings, as for track_look_choose) added, then the same rules. The markers are the
 * same objects in every view: where cameras decide alone they may disagree (random
 * scenes: 7 of 41 stereo failures), one of them tracking the body's other parts. */
int track_look_choose_joint(const track_frame *const *frames, const int *n, const void *const *motion_bg,
                            const int *motion_bg_stride, int n_cameras, int n_expected, const double *diameter_px,
                            const track_detector *const *det_like, track_look *look, int *bright_tophat, char *why,
                            size_t n_why, icv_err *err);

/* ---- assignment --------------------------------------------------------- */

/* Minimum-cost assignment of rows to columns of an n_rows x n_cols cost matrix
 * (row-major, finite costs) by the Hungarian algorithm (Kuhn-Munkres, O(n^3), with
 * potentials as in Jonker & Volgenant). assign[r] = the column of row r, or -1 when
 * n_rows > n_cols leaves it out. work must hold track_hungarian_work_size(n_rows,
 * n_cols) doubles (caller owns; no allocation). Returns the total cost. */
size_t track_hungarian_work_size(int n_rows, int n_cols);
double track_hungarian_solve(const double *cost, int n_rows, int n_cols, int *assign, double *work);

/* ---- tracking (one camera) ---------------------------------------------- */

#define TRACK_MAX_TRACKS 32

/* A marker's state in one frame, as the tracker reports it. */
typedef struct {
    int marker;         /* track identity (0, 1, ...; stable while the track lives) */
    double u, v;        /* px: the measured centroid (never smoothed); the prediction
                           when coasted or merged */
    double sigma;       /* px: 1-sigma of u and v (detection; prediction when coasted) */
    double area;        /* px: blob area (0 when coasted) */
    double pred_u, pred_v; /* px: the filter's prediction for this frame */
    unsigned flags;     /* TRACK_FLAG_* */
    int frame_offset;   /* 0: this frame. -k: a detection made k frames ago, before its
                           track was confirmed, reported now that it is (write it at
                           frame - k) */
} track_point;

typedef struct {
    /* Tunable parameters (defaults from track_tracker_alloc). */
    int n_expected;         /* markers expected in view: full scans run while fewer tracks
                               are confirmed. 0 = unknown: a full scan every frame. */
    double gate_chi2;       /* Mahalanobis gate (chi-square, 2 dof). Default 13.8 (99.9%).
                               Also the cost (+ ln|S|) of leaving a track unassigned. */
    double accel_noise;     /* px/frame^2: 1-sigma change of acceleration per frame (white
                               jerk of the constant-acceleration model). Default 0.5.
                               Raise for impacts that change velocity within a frame. */
    double gravity_u, gravity_v; /* px/frame^2: known image-plane gravity (from
                               track_gravity_px), the initial acceleration of new and
                               restarted tracks. Default 0 (unknown). */
    double init_vel_sigma;  /* px/frame: prior velocity sigma of a new track. Default 20. */
    double init_acc_sigma;  /* px/frame^2: prior acceleration sigma of a new track. Default 2. */
    int max_coast;          /* frames an unseen confirmed track is reported as coasted points
                               (flag coasted). Default 6. It is not ended then: it stays lost,
                               searched for in a window that grows by lost_grow_px per frame,
                               then over the whole roi, and keeps its identity when found
                               (only a still track, moved < 2 px in its life: a glint the
                               static model learnt, ends after max_coast). */
    double lost_grow_px;    /* px per frame unseen: a lost track's search window (and the reach
                               of its reacquisition) is reacquire_px plus this times the frames
                               missed. Default 4: a marker 15 frames behind the body is looked
                               for 90 px round where the other markers put it */
    int lost_window_frames; /* frames a lost track is searched in windows; beyond, the whole roi
                               is scanned every frame until it is found. Default 10 */
    int confirm_hits;       /* detections in consecutive frames before a new track is
                               confirmed (1 to 4; its earlier detections are then reported
                               with frame_offset < 0). Default 2. */
    double window_min_px;   /* px: smallest half-size of a search window. Default 12. */
    double window_sigmas;   /* search windows reach this many predicted sigmas. Default 4. */
    double merge_area_ratio;/* a blob claimed by two tracks and larger than this times
                               their mean area is a merge. Default 1.5. */
    double exposure_frac;   /* exposure time / frame interval, for the expected streak
                               length (relaxes circularity). Default 1 (unknown: longest). */
    int full_scan_every;    /* frames between periodic full scans (new markers, static
                               model); 0 = only when tracks are missing. Default 0. */
    double reacquire_px;    /* px: how far from its prediction (or from its last position: the
                               flight stopped at a surface) a confirmed track the gate left
                               out (an impact turned the marker within a frame) may find its
                               blob again, keeping its identity. The tracks are matched
                               together by the body's configuration: one displacement, or one
                               2D similarity from two tracks' blobs (tracker.c, reacquire).
                               Default 30: a 25 px jump at impact. */
    double sigma_floor_px;  /* px: smallest measurement sigma the filter uses (the model
                               error of a constant-acceleration path). Default 0.1. */
    int opposite_look;      /* 1: a confirmed track no blob was given this frame is looked for
                               again round its prediction read in the opposite look (bright
                               as dark, dark as bright): a ball that is the whole marker is
                               seen against what lies behind it, lighter than a dark room and
                               darker than a lit plate. Only its gate (reacquire_px at most),
                               a blob half to twice its last area; the detector's learnt
                               state is put back after. Default 0; the track stage sets it
                               when every body is a sphere whose one marker is as wide */
    int independent_markers;/* 1: every marker is a body of its own (one-marker bodies:
                               a cradle's balls, pucks with one dot), so no configuration ties the tracks and
                               reacquire is not used (it took a row of balls shifted by
                               one for the row when the momentum passed down it), and a
                               marker stopping dead is not a blip of its flight (the
                               flight before it went on: a ball stopped by the row was
                               predicted 30 px on for frames, then took a far blob).
                               Default 0 */

    int n_tracks;           /* live tracks, confirmed or not (read only) */
    long n_frames;          /* frames processed (read only) */
    int n_identities;       /* identities given so far (read only) */
    int n_lost;             /* confirmed tracks unseen for more than max_coast frames (read
                               only) */
    int last_lost_marker;   /* identity of the last of them, -1 none (read only) */
    long last_lost_frame;   /* the frame it was last measured in (read only) */
    int n_recovered;        /* of them, found again with their identity (read only) */
    long n_config_matches;  /* frames where the body's configuration (reacquire) gave a track
                               its blob: after a loss, an impact, or instead of an assignment
                               that broke the configuration (a swap) (read only) */
    long n_allocs;          /* heap allocations made by this object (all in _alloc) */
    struct track_tracker_ws *ws; /* private */
} track_tracker;

/* A tracker; it feeds its windows to det (caller still owns det). */
track_tracker *track_tracker_alloc(icv_err *err);
void track_tracker_free(track_tracker *tr);

/* Processes one frame: predicts every track (a lost one from where the body's other
 * tracks put it), detects (windows around predictions, or the whole frame while
 * acquiring or when a track is lost for long), assigns detections to the tracks seen
 * last frame (Hungarian, gated), then gives lost tracks, and tracks the gate left out
 * or that the assignment put out of the body's configuration, their blobs by that
 * configuration (reacquire), updates, coasts, starts tracks and ends tentative ones. Writes the confirmed tracks' points of
 * this frame to out (at most max_out; caller owns) and their count to *n_out,
 * ordered by frame_offset then identity. When a track is
 * confirmed, its earlier detections come too, with frame_offset < 0: size out for
 * confirm_hits points per track. Allocates nothing. */
int track_tracker_step(track_tracker *tr, track_detector *det, const track_frame *frame,
                       track_point *out, int max_out, int *n_out, icv_err *err);

/* ---- tracks2d file ------------------------------------------------------ */

/* One row of DIR/tracks2d_<camera>.csv (contract: frame,time_s,marker,u_px,v_px,
 * area_px,flags). Coasted and merged rows are written with u, v and area empty. */
typedef struct {
    long frame;        /* frame number of this camera, from 0 */
    double time_s;     /* s, experiment clock (docs/conventions.md) */
    int marker;        /* marker index (track identity until body identity is known) */
    double u_px, v_px; /* px, pixel-centre convention */
    double area_px;    /* px */
    unsigned flags;    /* TRACK_FLAG_* */
} track_row2d;

/* Writes rows to path atomically (a failure leaves no partial file). */
int track_tracks2d_write(const char *path, const track_row2d *rows, size_t n, icv_err *err);

/* ---- tracks3d file and its quality side file ---------------------------- */

/* Writes DIR/tracks3d.csv (contract: frame,time_s, then m<k>_x,m<k>_y,m<k>_z per
 * marker, metres, surface frame, empty where a marker is not seen) atomically. Row r
 * has frame[r], time_s[r] (s) and, for marker k, xyz[(r * n_markers + k) * 3 + c]
 * (m); a NaN in any component means not seen. */
int track_tracks3d_write(const char *path, int n_markers, size_t n_rows, const long *frame, const double *time_s,
                         const double *xyz, icv_err *err);

/* One triangulated point's quality: the side file tracks3d_quality.csv, columns
 * frame,time_s,marker,residual_px,cov_xx_m2,cov_xy_m2,cov_xz_m2,cov_yy_m2,cov_yz_m2,
 * cov_zz_m2,flags (covariance in the frame of tracks3d.csv). */
typedef struct {
    long frame;
    double time_s;       /* s */
    int marker;
    double residual_px;  /* px: RMS reprojection residual over the views */
    double cov[3][3];    /* m^2 */
    unsigned flags;      /* TRACK_FLAG_* (outlier, interpolated) */
} track_quality3d;

int track_quality3d_write(const char *path, const track_quality3d *rows, size_t n, icv_err *err);

/* ---- triangulation ------------------------------------------------------ */

/* One camera's view of one point: P = K [R | t] (x_cam = R x + t), and the point's
 * undistorted pixel with its 1-sigma (isotropic) uncertainty. */
typedef struct {
    double K[3][3];    /* px: intrinsic matrix (fx, skew, cx; 0, fy, cy; 0, 0, 1) */
    double R[3][3];    /* rotation, world to camera */
    double t[3];       /* m: translation, world to camera */
    double u, v;       /* px: undistorted pixel of the point */
    double sigma;      /* px: 1-sigma of u and of v */
} track_view;

#define TRACK_MAX_VIEWS 16

typedef struct {
    double X[3];          /* m: the point, world frame */
    double cov[3][3];     /* m^2: its covariance from the 2D sigmas (Gauss-Newton) */
    double residual_px;   /* px: RMS reprojection residual over the views */
    double residual[TRACK_MAX_VIEWS]; /* px: reprojection distance per view */
    double chi2;          /* sum of (residual / sigma)^2 over u and v of every view: a
                             chi-square with 2n - 3 degrees of freedom when the sigmas are
                             right; above track_chi2_limit(2n - 3) the point is an
                             outlier */
    int iterations;       /* Gauss-Newton iterations used */
} track_point3d;

/* Triangulates one point seen in n >= 2 views (at most TRACK_MAX_VIEWS): linear DLT
 * in normalized coordinates (Hartley & Zisserman sec. 12.2), then Gauss-Newton on the
 * sigma-weighted reprojection error (H&Z sec. 12.5, the maximum-likelihood estimate),
 * covariance (J^T W J)^-1 at the optimum. Fails (ICV_ENUMERIC) for a point behind a
 * camera or a degenerate geometry (parallel rays). Allocates nothing. */
int track_triangulate(const track_view *views, int n, track_point3d *out, icv_err *err);

/* The 99.9% point of a chi-square with dof degrees of freedom (GSL's
 * gsl_cdf_chisq_Pinv): the limit of track_point3d.chi2 with dof = 2n - 3 beyond which
 * a point is flagged outlier. */
double track_chi2_limit(int dof);
/* The median of a chi-square with dof degrees of freedom (0.455 for 1): what
 * track_point3d.chi2 reads for half of the points when the sigmas are right. */
double track_chi2_median(int dof);

/* Gravity's image-plane acceleration (px/frame^2) at the world point X (m) for the
 * tracker's gravity_u/v: the projection's Jacobian at X applied to g (m/s^2, world
 * frame) divided by fps^2 (first order: exact for the acceleration at X). */
int track_gravity_px(const track_view *view, const double X[3], const double g[3], double fps, double *gu,
                     double *gv, icv_err *err);

/* One-camera (planar) mode: the point where the ray of an undistorted pixel meets a
 * plane (point p0, normal nrm, world frame, m), with its 3x3 covariance from the
 * pixel's sigma (first-order). Fails (ICV_ENUMERIC) when the ray is parallel to the
 * plane or meets it behind the camera. residual and chi2 are 0. */
int track_ray_plane(const track_view *view, const double p0[3], const double nrm[3], track_point3d *out,
                    icv_err *err);

/* track_ray_plane for a sphere of radius r (m) whose centre lies on the plane, the
 * view's pixel the centroid of its image. That image is an ellipse whose centre
 * lies farther from the principal point than the centre's projection: the ray at
 * angle theta from the optical axis shows the sphere's outline from theta - a to
 * theta + a (sin a = r / D, D the centre's distance), centred at tan m = tan theta
 * / (1 - sin^2 a / cos^2 theta) (about (r / D)^2 farther out: a 41 mm ball at
 * 1.2 m is 0.05 mm low 0.18 m below the axis, where it meets a surface). The
 * pixel is moved back to the centre's projection (D from the plane, twice) before
 * the ray meets the plane. r <= 0: track_ray_plane. */
int track_ray_plane_sphere(const track_view *view, const double p0[3], const double nrm[3], double r,
                           track_point3d *out, icv_err *err);

/* The fundamental matrix F = K_b^-T [t]x R K_a^-1 of two views' relative pose
 * (Hartley & Zisserman eq. 9.6): x_b^T F x_a = 0 for one point seen in both. Returns
 * 0, or -1 when a camera matrix is singular. */
int track_fundamental(const track_view *a, const track_view *b, icv_mat3 *F);

/* Distance (px, in view b) from the pixel (ub, vb) to the epipolar line of the pixel
 * (ua, va) of view a: how well two undistorted detections can be the same point. */
double track_epipolar_distance(const track_view *a, const track_view *b);

/* Associates detections of two views (their u, v; every a[i] carries camera a's
 * K R t and every b[j] camera b's; n_a and n_b of them, at most TRACK_MAX_TRACKS each) by a minimum-cost assignment on the symmetric epipolar
 * distance, leaving a pair out when that exceeds max_px. match[i] = the index in b of
 * a's detection i, or -1. Works on the stack (~60 KB); allocates nothing. */
int track_epipolar_match(const track_view *a, int n_a, const track_view *b, int n_b, double max_px, int *match,
                         icv_err *err);

#endif
