/* report.h: report.html, plots, overlay images and exports, drawn from what the
 * caller gives (the jobs read the files: job.h); the plotting helpers (report/plot.c)
 * also serve `impactcv sweep`. */
#ifndef ICV_REPORT_H
#define ICV_REPORT_H

#include "analysis/analysis.h"
#include "analysis/bodies.h"
#include "calib/calib.h"
#include "capture/capture.h"
#include "core/core.h"

/* ---- plots (report/plot.c): small SVG plots through PLplot's "svg" device ----------
 * Written atomically (a temporary name, renamed when PLplot has finished). Labels are
 * what a person reads: put units (and degrees, where used) in them. */

/* Line plot of n_series curves y[s][0..n-1] against x[0..n-1]; labels[s] names each
 * curve in a legend (NULL: no legend). NaN points are left out. */
int report_plot_lines(const char *path, const char *title, const char *xlabel, const char *ylabel, int n,
                      const double *x, int n_series, const double *const *y, const char *const *labels,
                      icv_err *err);

/* A map of z[j * nx + i] over the grid x in [x0, x1] (nx columns) and y in [y0, y1]
 * (ny rows). Continuous (a colour bar labelled zlabel), or with n_classes > 0 discrete:
 * z holds class indices 0..n_classes-1 (NaN: none) drawn in distinct colours with a
 * legend of class_labels (a case map). */
int report_plot_map(const char *path, const char *title, const char *xlabel, const char *ylabel, int nx, int ny,
                    double x0, double x1, double y0, double y1, const double *z, const char *zlabel, int n_classes,
                    const char *const *class_labels, icv_err *err);

/* ---- more plots (report/plot_xy.c) ---------------------------------------- */

/* One series of an x-y plot: points (markers) or a line; NaN points are left out. */
typedef struct {
    int n;
    const double *x, *y;
    int points;          /* 1: a marker per point, 0: a line through finite runs */
    int color;           /* palette index 0..12 */
    const char *label;   /* legend text, or NULL: not in the legend */
} report_series;

/* An x-y plot of n_series series with vertical dashed lines at vlines[0..n_v-1]
 * (e.g. impact instants) to SVG, atomically. */
int report_plot_xy(const char *path, const char *title, const char *xlabel, const char *ylabel,
                   const report_series *s, int n_series, const double *vlines, int n_v, icv_err *err);

/* A bar chart: heights y[0..n-1] at positions 1..n, bar i coloured color[i]
 * (palette index; NULL: all 0), to SVG, atomically. */
int report_plot_bars(const char *path, const char *title, const char *xlabel, const char *ylabel, int n,
                     const double *y, const int *color, icv_err *err);

/* Before and after of n quantities (a momentum's x, y, z): in the left panel, at
 * position i + 1, the "before" value (palette 0) and the "after" value (palette 1)
 * side by side, each with its +-1 sigma error bar, labels[i] under the pair; in the
 * right panel the change after - before with its +-1 sigma bar (sigma: the two
 * sigmas in quadrature) against a line at 0, so that a change far beyond its bar
 * shows where the values' scale hides it. NaN values are left out. To SVG,
 * atomically (report/bodies_plot.c). */
int report_plot_before_after(const char *path, const char *title, const char *ylabel, int n,
                             const char *const *labels, const double *pre, const double *pre_sd, const double *post,
                             const double *post_sd, icv_err *err);

/* ---- overlay images (report/overlay.c) ------------------------------------- */

/* A point drawn over a frame: px with the top-left pixel's centre at (0, 0). */
typedef struct {
    double u, v;   /* px */
    int id;        /* marker identity: its colour (palette index mod 13); < 0: white */
    int predicted; /* 1: a tracker's predicted position: a magenta cross (id unused) */
} report_point2d;

/* A polyline drawn over a frame (the projected body outline), px. */
typedef struct {
    int n;
    const double *uv;  /* 2n values u0 v0 u1 v1 ... */
    int closed;        /* 1: the last point joins the first */
} report_polyline;

/* Draws points (circles of radius radius_px in their marker's colour; predicted
 * positions as magenta crosses of half-width 1.5 radius_px, under the circles) and
 * polylines (yellow, 2 px, under both) over an 8-bit gray frame (pixel (u, v) at
 * gray[v * stride + u]) and encodes the result as PNG with libavcodec's png
 * encoder. *png is malloc'd (caller frees), *png_len its size in bytes. */
int report_overlay_png(const unsigned char *gray, int width, int height, int stride, const report_point2d *pts,
                       int n_pts, const report_polyline *lines, int n_lines, double radius_px, unsigned char **png,
                       size_t *png_len, icv_err *err);

/* The RGB colour (0..255) of palette index i (mod 13): markers in overlays and
 * plot series share it. */
void report_palette(int i, unsigned char rgb[3]);

/* Decodes a PNG (libavcodec) into RGB24 rows of 3 * width bytes; *rgb malloc'd.
 * For tests and for checking overlays. */
int report_png_decode_rgb(const unsigned char *png, size_t len, unsigned char **rgb, int *width, int *height,
                          icv_err *err);

/* ---- the body's outline for overlays (report/outline.c) ------------------- */

#define REPORT_OUTLINE_MAX_LINES 16
#define REPORT_OUTLINE_MAX_PTS 320

/* Wire-frame polylines of a body's shape (experiment.yaml's body.shape) at a pose,
 * in the surface frame (m). Line l has len[l] points, stored one line after the
 * other in pts. */
typedef struct {
    int n_lines;
    int len[REPORT_OUTLINE_MAX_LINES];
    int closed[REPORT_OUTLINE_MAX_LINES];
    icv_vec3 pts[REPORT_OUTLINE_MAX_PTS];
} report_outline;

/* The outline at pose x_surface = R x_body + p: box, its 12 edges (two closed
 * faces and four side edges); capsule and cylinder, the circles where the
 * cylinder meets the caps (or ends), four lines along the axis, and for a
 * capsule the caps' arcs in two planes; sphere, three great circles; points,
 * the points joined in order. */
void report_outline_of_shape(const icv_shape *s, icv_mat3 R, icv_vec3 p, report_outline *o);

/* Projects an outline into a camera (x_cam = Rc x_surface + tc, m; pixels by
 * calib_project with the lens distortion) for report_overlay_png: uv holds
 * 2 * REPORT_OUTLINE_MAX_PTS values, lines REPORT_OUTLINE_MAX_LINES entries
 * pointing into uv. A point behind the camera (z <= 0) becomes NaN (its
 * segments are not drawn). Returns the number of lines. */
int report_outline_project(const report_outline *o, const calib_intrinsics *in, icv_mat3 Rc, icv_vec3 tc,
                           double *uv, report_polyline *lines);

/* ---- report.html (report/html.c) ------------------------------------------- */

/* One row of fits.csv (analysis_fits_write): a frame used in a side's fit. */
typedef struct {
    int impact, post;       /* post: 0 pre-impact side, 1 post-impact side */
    int frame;
    double t;               /* s, experiment clock */
    icv_vec3 measured, fit; /* m, surface frame, centre of mass */
    double residual;        /* m */
} report_fit_row;

/* An overlay image of one camera (made by the caller with report_overlay_png). */
typedef struct {
    char camera[ICV_ID_MAX];
    int frame;                  /* the frame drawn */
    const unsigned char *png;   /* caller owns */
    size_t png_len;
    char label[160];            /* caption after "frame N: ", e.g. "the frame at impact 1"; "" none */
} report_overlay;

/* ---- what the track stage left for the report (report/track_info_read.c) -- */

/* DIR/track_info.json (schema impactcv-track-info-1, docs/pipeline.md) read back:
 * the structs report_write's calibration, sync and timing sections take, the camera
 * models the overlays project through, and the track stage's warnings. */
typedef struct {
    int n_cameras;
    char camera[ICV_MAX_CAMERAS][ICV_ID_MAX];
    calib_intrinsics in[ICV_MAX_CAMERAS];    /* px: the calibration the tracks were made with */
    icv_mat3 R[ICV_MAX_CAMERAS];             /* camera pose: x_cam = R x_surface + t */
    icv_vec3 t[ICV_MAX_CAMERAS];             /* m */
    capture_probe probe[ICV_MAX_CAMERAS];    /* info (frames, rates, where the capture rate came
                                                from), timing (VFR, dropped), lost and duplicated
                                                frames, flicker, flash; brightness (gray levels)
                                                for every frame, NaN outside the window kept
                                                around the flash (NULL: not measured) */
    int duplicates_checked[ICV_MAX_CAMERAS]; /* 0: the track stage did not look for them */
    long duplicates_moving[ICV_MAX_CAMERAS]; /* of probe[].n_duplicates, those while the markers
                                                move (the others: a still scene's skipped
                                                blocks); -1 unknown (an older sidecar) */
    int flicker_checked[ICV_MAX_CAMERAS];    /* 0: no brightness series to look in */
    capture_sync sync[ICV_MAX_CAMERAS];      /* the offsets used (capture's convention) */
    double offset_initial_frames[ICV_MAX_CAMERAS]; /* frames: the flash's (whole frame), as given,
                                                      or 0, before the refinement */
    char sync_source[16];                    /* "flash", "sync.offsets" or "none" */
    int offset_refined;                      /* 1: the second camera's offset refined from the motion */
    double offset_sigma_frames;              /* frames: its 1-sigma */
    double offset_residual_px;               /* px: RMS epipolar distance at it */
    char calib_source[ICV_PATH_MAX];         /* "board images", or the calibration file */
    int has_mono, has_stereo;                /* which calibration quality is given */
    calib_camera mono;                       /* NaN rms / coverage, verdict_ok -1: unknown */
    calib_stereo stereo;
    int n_warnings;
    char (*warnings)[600];                   /* the track stage's warnings */
    double gravity_scale, gravity_scale_sd;  /* one camera, scale: gravity: the factor applied
                                                to the plane's metres and its 1-sigma (NaN:
                                                not that scale) */
    double size_scale, size_scale_sd;        /* one camera, scale: size: the same from the
                                                ball's fitted outline (NaN: not that scale) */
    double size_diameter_px;                 /* px: the ball's fitted outline, median */
    int size_tilt_fitted;                    /* 1: the ball's sizes were fitted for a tilt */
    int size_tilted;                         /* 1: the plane turned to the tilt they show;
                                                0: one scale */
    double size_tilt_deg, size_tilt_sd_deg;  /* deg: that tilt to the camera, 1-sigma */
    double size_pitch_deg, size_pitch_sd_deg;/* deg: its part looking down at the plane */
    int size_tilt_from_verticals;            /* 1: the tilt from motion_plane.verticals_px's
                                                vanishing point, the sizes giving the depth */
    double size_focal_rel_sd;                /* the scale's relative 1-sigma from a nominal
                                                focal length (0: calibrated; NAN: not read) */
} report_track_info;

/* Reads DIR/track_info.json; free with report_track_info_free. */
int report_track_info_read(const char *path, report_track_info *ti, icv_err *err);
void report_track_info_free(report_track_info *ti);

/* What report_write needs. Every pointer except exp may be NULL: the section it
 * feeds is then left out with a note saying why. Nothing is owned. */
typedef struct {
    const icv_experiment *exp;          /* name, body (shape, inertia), model; required */
    const analysis_result *result;      /* impacts, gravity: analysis's in memory, or read
                                           from results.json (report_results_read) */
    const analysis_tracks *tracks;      /* tracks3d: measured poses for the plots */
    const report_fit_row *fits;         /* fits.csv rows (residual plot) */
    int n_fits;
    const report_overlay *overlays;     /* per camera */
    int n_overlays;
    const calib_camera *calib_cameras;  /* mono calibrations, n_calib_cameras of them */
    int n_calib_cameras;
    const calib_stereo *calib_stereo;   /* a stereo calibration */
    const capture_probe *probes;        /* per camera (exp->cameras order): timing, flash */
    int n_probes;
    const capture_sync *sync;           /* per camera: offsets found */
    int n_sync;
    const char *const *warnings;        /* every warning of the run, one line each */
    int n_warnings;
    const report_track_info *track;     /* the track stage's findings: the sync's source, the
                                           refined offset and its sigma, which checks were made,
                                           the calibration's origin (NULL: not shown) */
} report_inputs;

/* Writes report.html: one self-contained page (inline CSS, plots as SVG data URIs,
 * overlays as PNG data URIs; nothing fetched). Sections, in this order and with
 * these ids: summary, overlays, plots (plot-com-position, plot-com-velocity,
 * plot-euler, plot-omega, plot-contact-height, plot-fit-residuals), calibration,
 * sync, timing, warnings (docs/report.md). Atomic. */
int report_write(const report_inputs *in, const char *path, icv_err *err);

/* ---- report.html of several bodies (report/bodies_html.c) ------------------ */

/* What report_bodies_write draws: the several-body analysis in memory (analysis/
 * bodies.h, as job_analyze_bodies leaves it). Nothing is owned. */
typedef struct {
    const icv_experiment *exp;              /* name, bodies (names, masses), joints; required */
    const analysis_body_track *bodies;      /* n_bodies, exp->bodies' order, each with its
                                               tracks (the same rows); required */
    int n_bodies;
    const analysis_bodies_result *res;      /* body-body impacts and the chain's surface impacts
                                               (res->n_chain); required */
    const analysis_joint_residual *joints;  /* per exp->joints entry, n_joints (may be 0) */
    int n_joints;
    const char *const *stage_warnings;      /* what the stages warned ("stage: message": a
                                               marker's gap, bodies that never met), listed
                                               in the summary and the warnings; may be NULL */
    int n_stage_warnings;
} report_bodies_inputs;

/* Writes report.html of several bodies: one self-contained page in the one-body
 * report's style (inline CSS, PLplot SVG plots as data URIs, no script, nothing
 * fetched). Sections and ids: summary (the bodies; summary-checks: every flagged
 * number with its likely cause), impacts (per body-body impact i: impact-i, its
 * numbers with 1-sigma; impact-i-momentum, the balances per axis; the plots
 * plot-impact-i-momentum, plot-impact-i-angmom), chain (when res->n_chain > 0,
 * per impact: chain-impact, Akhan's e per link and for the chain, the joint's residual;
 * plot-chain-energy, T1, T2 and T against time in ms from the impact as in Akhan's
 * Fig. 4.9; the second impact's ids end in -2, and so on), joints, plots (per body k: plot-body-k-position in mm,
 * plot-body-k-velocity in m/s, plot-body-k-energy in mJ, against time in s: the
 * tracked rows as points, each impact side's fit as lines, the instants dashed),
 * warnings. Quantities in the surface frame (y the normal, up), SI in the tables
 * but where labelled (mm, mJ). docs/report.md "Several bodies". Atomic. */
int report_bodies_write(const report_bodies_inputs *in, const char *path, icv_err *err);

/* report.html of several bodies with the run's overlay images: the page at `page`
 * (report_bodies_write's) with a section `overlays` before `impacts`: a legend of the
 * bodies' colours and one strip per camera of ov[0..n-1] (report_overlays_index_read:
 * job_overlays_write_bodies's images), as PNG data URIs; n = 0: a note that there is
 * no impact to show. Written to path, atomically. */
int report_bodies_page_add_overlays(const char *page, const char *path, const icv_experiment *exp,
                                    const report_overlay *ov, int n, icv_err *err);

/* Reads results.json (schema impactcv-results-1) into res: gravity, impacts with
 * both sides' v, omega, euler213 (R from it), contact velocities, windows,
 * contact point, impulse, coefficients, energies, uncertainties and the model.
 * Side positions are not in results.json: report_fits_apply sets them. */
int report_results_read(const char *path, analysis_result *res, icv_err *err);

/* Reads fits.csv; *rows malloc'd (caller frees). */
int report_fits_read(const char *path, report_fit_row **rows, int *n, icv_err *err);

/* Sets each side's centre of mass at the impact (pre.p, post.p) from its fitted
 * curve in fits.csv: p = fit - v tau - g tau^2 / 2, tau = t - t_impact. */
void report_fits_apply(const report_fit_row *rows, int n, analysis_result *res);



/* ---- the run's pictures (report/overlay_frame.c, rows2d_read.c, html.c) ---- */

/* One row of tracks2d_<camera>.csv (id: the marker column) or of
 * predicted2d_<camera>.csv (id: the track column; u, v the predicted position). */
typedef struct {
    long frame;
    int id;
    double u, v; /* px; NaN where the file has none (a coasted or merged point) */
} report_row2d;

/* Reads DIR/tracks2d_<camera>.csv (predicted 0) or DIR/predicted2d_<camera>.csv
 * (predicted 1); *rows malloc'd (caller frees). */
int report_rows2d_read(const char *path, int predicted, report_row2d **rows, long *n, icv_err *err);

/* What one camera's overlay images draw over its frames. */
typedef struct {
    const icv_experiment *exp;
    const analysis_result *res;    /* the impacts, each side's fitted flight */
    const analysis_body *body;
    const analysis_tracks *tracks; /* NULL: no fallback pose where a side's position is unknown */
    const report_track_info *ti;   /* the camera models the tracks were made with */
    int k;                         /* the camera's index in ti */
    const report_row2d *det, *pred; /* its detections (tracks2d) and predictions (predicted2d) */
    long n_det, n_pred;
} report_overlay_scene;

/* One overlay image of a decoded 8-bit frame (gray_frame: width x height, stride
 * bytes a row), frame number `frame` at experiment time t (s) near impact `impact`:
 * the frame's detections in their marker's colour (white: a 2D track no 3D point
 * labelled), the predictions as magenta crosses and the body's outline at the side's
 * fitted pose of time t (or the template fitted to the tracks3d row within half a
 * frame), projected through camera k. The image is the part of the frame round the
 * body (a margin of 40 px plus 15%, at least 240 px a side; the whole frame when
 * nothing is drawn): crop[4] = x0, y0, width, height in the frame's pixels. PNG bytes
 * in *png (malloc'd). */
int report_overlay_frame_png(const report_overlay_scene *s, const unsigned char *gray_frame, int width, int height,
                             int stride, long frame, int impact, double t, unsigned char **png, size_t *len,
                             int crop[4], icv_err *err);

/* What one camera's overlay images of several bodies draw over its frames. */
typedef struct {
    const icv_experiment *exp;          /* bodies (names, shapes) */
    const analysis_body *body;          /* per body, exp->bodies' order */
    const analysis_tracks *tracks;      /* per body: its own markers (the same rows) */
    const analysis_bodies_result *res;  /* impacts (body-body, then the chain's), sides */
    const report_track_info *ti;        /* the camera models the tracks were made with */
    int k;                              /* the camera's index in ti */
    const report_row2d *det, *pred;     /* its detections (tracks2d: the marker column is
                                           the global index, body after body) and predictions */
    long n_det, n_pred;
} report_overlay_bodies_scene;

/* One overlay image of several bodies, as report_overlay_frame_png's, near impact
 * `impact` (results.json's index: the body-body impacts, then the chain's), one
 * colour per body (report_palette(b)): body b's detections as rings, the markers of
 * its fitted pose at time t as diagonal crosses and its outline there. The fitted
 * pose: for the impact's bodies (a chain's links) their side's state carried to t
 * along its motion (analysis_body_state_at); for any other body, and where that is
 * not finite, the template fitted to the body's tracks row within half a frame of t.
 * A detection of no body's marker is white, the predictions magenta crosses. */
int report_overlay_bodies_frame_png(const report_overlay_bodies_scene *s, const unsigned char *gray_frame, int width,
                                    int height, int stride, long frame, int impact, double t, unsigned char **png,
                                    size_t *len, int crop[4], icv_err *err);

/* The images listed in overlays_dir/index.json (schema impactcv-overlays-1, written
 * by job_overlays_write), in its order; *pngs holds their bytes (free each, then the
 * array). No index.json: none, not an error. */
int report_overlays_index_read(const char *overlays_dir, report_overlay **ov, unsigned char ***pngs, int *n,
                               icv_err *err);

/* ---- exports (report/export_*.c) ------------------------------------------ */

/* Marker names for exports: "m0", "m1", ... (the tracks3d.csv column prefixes,
 * since experiment.yaml gives markers by position only). */
void report_marker_name(int k, char *out, size_t n);

/* An exported marker's names: its label (TRC's marker name, C3D's POINT:LABELS) and
 * its C3D description (POINT:DESCRIPTIONS). */
#define REPORT_LABEL_MAX 32
typedef struct {
    char label[REPORT_LABEL_MAX];
    char desc[96];
} report_marker_label;

/* The names of every marker of tracks3d.csv's columns for experiment e, into
 * out[0..*n-1] (room for ICV_MAX_BODIES * ICV_MAX_MARKERS). One body: m0, m1, ...
 * ("marker k of body.markers, surface frame"). Several bodies, body after body as
 * tracks3d.csv holds them: <name>_m<k>, k the body's own marker index, "marker k of
 * bodies[b] '<name>', surface frame"; <name> is the body's name with every character
 * other than letters, digits, '_', '-' and '.' made '_' and cut to 24 characters, or
 * body<b> when that is empty or another body's. */
void report_marker_labels(const icv_experiment *e, report_marker_label *out, int *n);

/* TRC (OpenSim's marker file, PathFileType 4): positions in millimetres in the
 * surface frame (y up, the normal, as OpenSim's y-up ground), Frame# from 1, Time
 * in s on the experiment clock; a marker not seen in a frame has empty fields.
 * DataRate = CameraRate = 1 / median frame interval. Atomic. */
int report_export_trc(const char *path, const analysis_tracks *tr, icv_err *err);
/* The same with each marker's label from labels[k] (tr->n_markers of them; NULL:
 * m0, m1, ...). */
int report_export_trc_labelled(const char *path, const analysis_tracks *tr, const report_marker_label *labels,
                               icv_err *err);

/* C3D (the motion-capture standard; Intel byte order, float data, SCALE -1):
 * header block, a parameter section with groups POINT (USED, FRAMES, DATA_START,
 * SCALE, RATE, UNITS "mm", LABELS) and ANALOG (USED 0, RATE), then per frame
 * X Y Z residual per marker in mm (residual -1: not seen). Atomic. */
int report_export_c3d(const char *path, const analysis_tracks *tr, icv_err *err);
/* The same with labels[k]'s label and description (NULL: one body's); LABELS and
 * DESCRIPTIONS are then as long as the longest (at least 8 and 48 characters). */
int report_export_c3d_labelled(const char *path, const analysis_tracks *tr, const report_marker_label *labels,
                               icv_err *err);

/* A C3D file read back (report_c3d_read). */
typedef struct {
    int n_points, n_frames, first_frame, data_start_block;
    double rate, scale;          /* Hz; scale < 0: float data */
    char units[8];
    char (*labels)[32];          /* n_points, malloc'd */
    char (*descriptions)[64];    /* n_points, malloc'd; NULL when POINT:DESCRIPTIONS is absent */
    float *xyzr;                 /* n_frames * n_points * 4: X Y Z residual, malloc'd */
} report_c3d;

/* Reads a C3D file with float data in Intel byte order from its header and its
 * POINT group (what report_export_c3d writes, and most tools' files). */
int report_c3d_read(const char *path, report_c3d *c, icv_err *err);
void report_c3d_free(report_c3d *c);

/* Pose per frame as CSV: frame,time_s,x_m,y_m,z_m,qw,qx,qy,qz,theta1_rad,
 * theta2_rad,theta3_rad,rms_m (surface frame; quaternion of R body->surface,
 * w >= 0; euler213 per the contract); frames without a pose are left out. Atomic. */
int report_export_pose_csv(const char *path, const analysis_tracks *tr, const analysis_body *b, icv_err *err);

/* All three exports into dir: tracks3d.trc, tracks3d.c3d and pose.csv (what
 * `impactcv run` leaves beside tracks3d.csv). */
int report_exports_write(const char *dir, const analysis_tracks *tr, const analysis_body *b, icv_err *err);

/* Several bodies (report/export_bodies.c): tracks3d.trc and tracks3d.c3d of every
 * body's markers (tr: tracks3d.csv's, body after body in the order of e->bodies),
 * labelled by report_marker_labels, and pose_<name>.csv per body (<name> as in its
 * labels; report_export_pose_csv's columns, its own markers fitted with its
 * template) into dir. */
int report_exports_write_bodies(const char *dir, const analysis_tracks *tr, const icv_experiment *e, icv_err *err);

/* ---- campaigns: what the campaign page shows (campaign_table.c, campaign_plot.c) ----
 * A campaign's experiments and its joint fit, as job_campaign_run (job/job.h) fills
 * them; the writers below draw and write them. */

enum { REPORT_EXP_RAN = 1, REPORT_EXP_UP_TO_DATE = 2, REPORT_EXP_FAILED = 3 };

typedef struct {
    char path[ICV_PATH_MAX];     /* its experiment.yaml */
    char name[128];              /* its name: the folder DIR/<name>/ */
    char out_dir[ICV_PATH_MAX];
    int status;                  /* REPORT_EXP_* */
    char error[ICV_ERR_MSG_MAX]; /* a failed one's line */
    double seconds;              /* s, wall time of its run (0 when up to date) */
    int n_impacts;
} report_campaign_experiment;


typedef struct {
    char name[128];
    int n;                              /* experiments */
    report_campaign_experiment *exps;   /* n, malloc'd (report_campaign_result_free) */
    int n_ran, n_up_to_date, n_failed;
    int joint;                          /* 1: one mu and e_n fitted to every impact */
    impact_fit_result fit;              /* the joint fit (joint) */
    int n_impacts;                      /* rows of the validation table */
    char html_path[ICV_PATH_MAX];       /* DIR/campaign.html */
    double seconds;                     /* s, wall time of the whole campaign */
} report_campaign_result;

void report_campaign_result_free(report_campaign_result *r);

/* One row per impact of the validation table, with the model compared (the joint one,
 * or each experiment's own) and where its coefficients came from. */
typedef struct {
    const analysis_experiment_result *job;  /* the experiment: body, model law, results */
    const report_campaign_experiment *exp;
    int impact;                      /* index in job->res.impacts */
    const analysis_impact *im;       /* measured, and im->model: the model compared */
    double angle_deg;                /* impact angle: between the line from the contact
                                        point to the centre of mass and the surface
                                        normal, before impact (deg; 0 = the centre of
                                        mass straight above the contact) */
    double slip;                     /* slip ratio: |tangential| / |normal| contact-point
                                        velocity before impact */
    double e_model, ratio_model;     /* the model's Newton ratio at the contact and
                                        impulse ratio (NaN when it has no solution) */
    char mu_source[200], e_n_source[200]; /* coefficient provenance */
} report_campaign_row;

/* The impact angle, slip ratio and the model's e and impulse ratio of row->im
 * (campaign_plot.c). */
void report_campaign_row_kinematics(report_campaign_row *row);

/* DIR/validation.csv and DIR/validation.md (campaign_table.c). */
int report_campaign_tables_write(const char *dir, const report_campaign_result *r, const report_campaign_row *rows, int n,
                          icv_err *err);

/* DIR/parameters_angle.svg and DIR/parameters_slip.svg: measured e and impulse ratio
 * against the impact angle and the slip ratio, the model's value at each measured
 * state, and, when every row shares one (mu, e_n), the model's curve through the first
 * row's state with that variable swept (campaign_plot.c). note gets the legend's
 * explanation for the page. */
int report_campaign_plots_write(const char *dir, const report_campaign_row *rows, int n, char note[ICV_ERR_MSG_MAX], icv_err *err);

/* DIR/campaign.html: self-contained (inline CSS, the plots as SVG data URIs), each
 * experiment's status and report link, the validation table with uncertainties and
 * provenance (campaign_table.c). */
int report_campaign_html_write(const char *dir, const report_campaign_result *r, const report_campaign_row *rows, int n,
                        const char *plot_note, icv_err *err);


#endif
