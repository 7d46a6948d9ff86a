/* detect_internal.h (private to track/): the detector's workspace and the pieces of
 * blob detection shared by its files: labelling (label_runs.c), background and
 * threshold (background.c), measurement and shape (blob_measure.c). */
#ifndef ICV_TRACK_DETECT_INTERNAL_H
#define ICV_TRACK_DETECT_INTERNAL_H

#include <stddef.h>

#include "track/static_model_internal.h"
#include "track/track.h"

typedef struct {
    int y, x0, x1; /* px, inclusive */
} run;

typedef struct {
    int area;
    int x0, y0, x1, y1;
} comp;

/* A binned plane's detection state between frames, swapped into the workspace while
 * the detector runs on it: its static blobs, learnt peak, noise and full scans. */
typedef struct {
    track_static_model statics;
    double peak_ref, noise;
    long full_scans;
} track_bin_state;

struct track_detector_ws {
    int width, height;
    int max_runs;
    run *runs;
    int *parent; /* union-find over runs */
    int *label;  /* component of each run */
    comp *comps;
    unsigned *hist; /* 65536 bins */
    track_static_model statics;
    int rects[TRACK_MAX_TRACKS][4]; /* px: the regions searched this frame */
    double peak_ref;     /* gray levels above background: the markers' typical peak */
    int size_given;      /* track_detector_set_marker_size was called: tiles sized by it */
    int tile_learnt;     /* px: the tile side the markers found ask for (0: none yet) */
    double noise;        /* gray levels: last full-scan noise estimate (0 = none yet) */
    long n_full_scans;
    int rx0, ry0, rx1, ry1; /* px: the frame clipped to the roi, this frame */
    unsigned char *cov_class; /* coverage centroid (blob_coverage.c): pixel classes, */
    int *cov_near;            /* each pixel's nearest outer pixel, */
    double *cov_grad;         /* the outer pixels' sigma terms; TRACK_COV_MAX_PX each */
    /* local background (full scan): one level and one integer threshold per tile */
    int tile, ntx, nty;       /* px per tile side (0: one level for the frame); tiles */
    int max_tiles;
    double *tile_level;       /* gray levels */
    double *tile_noise;       /* gray levels: 1.4826 MAD of the tile's sample (texture) */
    int *tile_t;              /* gray levels, integer: pixels above it are marker */
    unsigned char *tile_lit;  /* 1: the tile holds a pixel above its tile_t (the labelling's) */
    void *col_max;            /* a band of tiles' largest pixel in each column: w pixels, 16-bit at most */
    int *samp;                /* TRACK_SPLIT_SAMPLES: a split component's level */
    void *plane;              /* a look's gray plane (dark, colour, motion): w x h, 16-bit */
    /* the dark look's black top-hat (black_tophat.c), with a marker size given: the
       closing's two frame-sized planes padded by TRACK_TOPHAT_MAX_R on every side and
       TRACK_TOPHAT_ROWS rows of the same pitch, pixels of 16 bits at most */
    int tophat_r;             /* px: the square's half side (0: the plain inversion max - I) */
    int white_tophat_r;       /* px: the bright look's white top-hat octagon (bright_tophat; 0: none) */
    int morph_pitch;          /* pixels: width + 2 TRACK_TOPHAT_MAX_R */
    int tophat_baseline;      /* 1: the 8-bit passes without AVX2 even where the CPU has it (tests) */
    void *morph_a, *morph_b, *morph_rows;
    void *still;              /* the learnt still background (track_detector_learn_background) */
    void *planes;             /* the block holding plane, still, morph_a and morph_b */
    double key_ycc[3];        /* the colour look's key in track_rgb_to_ycc's space */
    /* large markers (track_detector_set_marker_size): also looked for in the frame binned
       bin x bin (each pixel the mean of its block: a ball 50 px across standing 20 gray
       levels off a plate under noise 6 is under the 6-sigma threshold pixel by pixel, and
       far over it binned by 6 when the noise is white), measured at full resolution */
    int bin;                  /* 1: none */
    int in_bin;               /* the detection inside the binned frame is running */
    void *binned;             /* (w / 2) x (h / 2) pixels, 16-bit at most */
    void *binned_tophat;      /* the binned frame's white top-hat, the same size */
    int bin_tophat_r;         /* binned px: its octagon's radius, the binned marker's diameter */
    track_bin_state bin_raw;  /* the binned frame's own detection state */
    track_bin_state bin_th;   /* its top-hat's (full scans only) */
    /* look.c: `auto`'s trial detections on this detector's camera (passed as det_like),
       replayed by a later call on the same frames with the same settings; freed with it */
    struct look_memo *look_memo;
    /* look.c: the trial detector of `auto`'s looks on this camera, renewed for each
       trial: its buffers' pages are touched once, not at every trial (docs/track.md,
       "Session 30"); freed with it */
    track_detector *look_trial;
};

/* The detector as track_detector_alloc(its width, height) returns it, its workspace's
 * buffers kept (no allocation; their pages stay touched) */
void track_detector_renew(track_detector *d);

/* Frames whose detections track_look_choose replayed from like's memo so far (tests) */
long track_look_memo_replayed(const track_detector *like);
/* px: markers this large or larger are found in the binned frame (bin = diameter / 8:
   a binned marker is 8 px across or more) */
#define TRACK_BIN_MIN_DIAMETER 16
/* the largest bin (a ball 64 px or more across stays 8 px or more binned) */
#define TRACK_BIN_MAX 8
#define TRACK_SPLIT_SAMPLES 4096
/* px: the largest tile side (the tile's sample sits on the stack) */
#define TRACK_TILE_MAX 256
/* px: the tiles' sample grid: 16 pixels of a 32 px tile. Selecting the median of 64
   (a 4 px grid) cost 0.6 ms of a 1280x720 frame, twice the rest of the scan. */
#define TRACK_TILE_STEP 8
/* the most samples a tile holds */
#define TRACK_TILE_SAMPLES ((TRACK_TILE_MAX / TRACK_TILE_STEP + 1) * (TRACK_TILE_MAX / TRACK_TILE_STEP + 1))
/* deepest re-thresholding of a component too large or not standing out */
#define TRACK_SPLIT_MAX_DEPTH 3
/* px: the largest patch (blob box grown by 2) the coverage centroid measures; larger
   blobs keep the box centroid */
#define TRACK_COV_MAX_PX 16384

/* px: the largest radius of the dark look's top-hat octagon (markers of 16 px or more keep max - I) */
#define TRACK_TOPHAT_MAX_R 16
/* px: the largest marker the bright look's white top-hat reads (its octagon's radius
   TRACK_TOPHAT_MAX_R from 16 px on: 33 px across, a third wider than the marker) */
#define TRACK_WHITE_TOPHAT_MAX_D 24
/* the top-hat's row buffers: a window of up to 2 TRACK_TOPHAT_MAX_R + 1 pixels is built
   from powers of two up to 32, the rows of level q (2q of them) kept for 2 <= q <= 32 */
#define TRACK_TOPHAT_ROWS 124

/* The dark look's plane over [x0, x1] x [y0, y1]: closing(I) - I with a square of side
 * 2r + 1 (r at most TRACK_TOPHAT_MAX_R), the frame read up to 2r beyond the region. */
void track_black_tophat(struct track_detector_ws *ws, const track_frame *f, int r, int x0, int y0, int x1, int y1);
/* The bright mirror, I - opening(I) by the same octagon, into out (a plane of f's
 * width and depth): what stands out from its surroundings within the octagon's reach,
 * whatever lies at its own level beyond that (a ball over a floor, beside a wall as
 * light as the ball). */
void track_white_tophat(struct track_detector_ws *ws, const track_frame *f, int r, int x0, int y0, int x1, int y1,
                        void *out);

/* How much a kept blob looks like one of the body's markers, 0 to 1: it moved (the
 * look's plane differs from the still background's at its centre by more than 8 levels
 * and a third of its contrast: a glint, a board square or the reference cylinder does
 * not; the plane, not the frame: a dark band on a light rod over a black floor is the
 * floor's level in the frame, and stands out only in the dark look's top-hat, whose
 * still background there is the floor's nothing), it is round (major / minor RMS extent
 * up to 1.5: a rod's piece between two bands is long; a band's stripe up to 1.5 times
 * its aspect) and of a marker's area (exp(-|ln(area / disc)|), disc pi d^2 / 4, a band's
 * stripe aspect d^2; d unknown: 1). No background: every blob
 * moved. d: the detector that found the blob (its look). */
double track_marker_likeness(const track_detector *d, const track_blob *b, const track_frame *f, const void *motion_bg,
                             int motion_bg_stride, double diameter_px);

/* The mean over the 3x3 pixels round (x, y) (clipped) of |look(f) - look(bg)|, the
 * detector's look plane made from frame f and from bg (the frames themselves for
 * bright): the plane's pixels there are overwritten. */
double track_look_diff3(const track_detector *d, const track_frame *f, const track_frame *bg, int x, int y);

/* A gamma-encoded RGB pixel (0-255) to luma-weighted YCbCr (BT.601, 0-255 scale): the
 * colour look's distance weighs luma by half, so shading changes it less than hue. */
static inline void track_rgb_to_ycc(double r, double g, double b, double *y, double *cb, double *cr)
{
    *y = 0.299 * r + 0.587 * g + 0.114 * b;
    *cb = 0.564 * (b - *y);
    *cr = 0.713 * (r - *y);
}

static inline double pix(const track_frame *f, int x, int y)
{
    const unsigned char *row = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
    return f->depth == 8 ? row[x] : ((const uint16_t *)(const void *)row)[x];
}

/* Labels the pixels > t (an integer level) of [x0, x1] x [y0, y1] into 8-connected
 * components in w->comps (area and box); returns their count. Runs beyond the
 * workspace are dropped and counted in *overflow. */
int track_label_region(struct track_detector_ws *w, const track_frame *f, int x0, int y0, int x1, int y1, int t,
                       int *overflow);
/* The same with the threshold of each tile of w->tile px (w->tile_t, tiles from the
 * frame's origin) instead of one level. */
int track_label_region_tiled(struct track_detector_ws *w, const track_frame *f, int x0, int y0, int x1, int y1,
                             int *overflow);

/* Median and robust sigma (1.4826 MAD) of a 1-in-16 sample of the frame. */
void track_frame_background(struct track_detector_ws *w, const track_frame *f, double *bg, double *noise);
/* Tile levels (median of a 1-in-16 sample of each tile), the frame's background (median
 * of the tile levels) and noise (1.4826 MAD of the samples about their tile's level). */
void track_tile_background(struct track_detector_ws *w, const track_frame *f, double *bg, double *noise);
/* The median (*med, the (n/2)-th smallest from 0) of the n <= TRACK_TILE_SAMPLES values
 * v[] >= 0, and with want_mad the same of |v - *med| (*mad); v is left as it was. */
void track_sample_median_mad(const int *v, int n, int want_mad, int *med, int *mad);
/* Threshold above background (gray levels) in AUTO mode; headroom: the saturation
 * level minus the background. */
double track_auto_threshold(const track_detector *d, double noise, double headroom);
/* The saturation level of a frame: the detector's, or the depth's largest value. */
double track_saturation_level(const track_detector *d, const track_frame *f);
/* Background of a window: the lowest mean of its four sides. */
double track_window_background(const track_frame *f, int x0, int y0, int x1, int y1);

/* disc_split.c: the most discs one blob splits into */
#define TRACK_DISC_SPLIT_MAX 8
/* Blob `whole` (component c above `level`, its background bg) as k touching discs of
 * d->disc_split_px across: k parts (k >= 2) in parts[] along its major axis, each with
 * its own centroid, moments and sigma; 0 when it is not (too small, not elongated, a
 * part not a disc's area, a boundary without a waist: a streak). No allocation. */
int track_disc_split(const track_detector *d, const track_frame *f, const comp *c, double level, double bg,
                     const track_blob *whole, track_blob *parts, int max_parts);

/* disc_outline.c: blob b, of markers diameter_px across (15 px or more) that may be
 * balls: when it shows their disc with one segment cut away (its area under 0.85 of
 * the disc's; the rest of its outline, two fifths of the rays from its centroid or
 * more, on one circle of that diameter within 0.35 px RMS; the outline inside that
 * circle one run of rays along a straight edge, within 0.4 px RMS; the disc so cut
 * with the blob's centroid, within 0.3 px), the circle's centre in (*u, *v) and 1;
 * else 0 (a whole disc, a sticker's ellipse, no disc). No allocation. */
int track_disc_outline_centre(const track_frame *f, const track_blob *b, double diameter_px, double *u, double *v);
/* px: the least 1-sigma of a centre from its arc (on tuning scene 1104: 0.16 px off
   at the median, 0.3-0.5 px at the 90th percentile) */
#define DISC_OUTLINE_SIGMA_PX 0.5
/* disc_outline.c: blob b, a whole ball diameter_px across (30 px or more; its area 0.85
 * of the disc's or more, round within 0.85 in its axes): the centre of the circle its
 * outline at half height follows (three fourths of 72 rays from its centroid or more
 * within 1 px of it, 0.35 px RMS; its radius within 0.3 of the ball's, its centre within
 * 1.5 px of the centroid, and off it by 0.1 px and 3 of their combined sigmas or more:
 * clutter in the box) in (*u, *v), its 1-sigma in *sigma, and 1; else 0. Clutter that
 * touches the ball (a glint) moves only the rays that cross it. No allocation. */
int track_disc_whole_centre(const track_frame *f, const track_blob *b, double diameter_px, double *u, double *v,
                            double *sigma);

/* Measures component c into b; returns 0, or -1 when it has no positive mass. With
 * ring_above, the fraction of the ring's pixels above ring_level goes there; with
 * box_above, the count of the box's pixels above t (the component's and others'). */
int track_blob_measure(const track_detector *d, const track_frame *f, const comp *c, int crowded, double frame_bg,
                       double t, double ring_level, track_blob *b, double *ring_above, int *box_above);
/* The level a component stands on: the median of a sample of its box's pixels above t. */
double track_component_level(struct track_detector_ws *w, const track_frame *f, const comp *c, double t);
/* The coverage (area) centroid of component c (its pixels are those above t, gray
 * levels, in its box), px, with its per-axis variances (px^2); bg, noise: the ring's
 * mean and the pixel noise the sigma uses (gray levels). Returns 0, or -1 (nothing written) when it does not apply: the
 * patch leaves the frame or exceeds TRACK_COV_MAX_PX, or the marker is not brighter
 * than what lies behind it. */
int track_blob_coverage(const track_detector *d, const track_frame *f, const comp *c, double t, double bg,
                        double noise, double *u, double *v, double *varx, double *vary);
/* The circularity test, relaxed along an expected streak of blur_px. */
int track_blob_shape_ok(const track_detector *d, const track_blob *b, double blur_px);

#endif
