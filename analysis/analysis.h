/* analysis.h: from 3D marker tracks to the numbers of an impact.
 *
 * Poses per frame (weighted Kabsch/Horn), gravity, impacts, ballistic and
 * torque-free fits over automatic windows, the measured quantities with their
 * uncertainty (the fits', the estimated gravity's and the calibration's where
 * known), Houbolt's method for comparison, the model comparison, results.json and
 * fits.csv, `impactcv analyze`, the joint fit and validation table (docs/analysis.md).
 *
 * Frames and units are the contract's (docs/conventions.md): positions in metres
 * in the surface frame, times in seconds on the experiment clock. */
#ifndef ICV_ANALYSIS_H
#define ICV_ANALYSIS_H

#include "core/core.h"
#include "solver/impact.h"

/* ---- 3D marker tracks (tracks3d.csv) ------------------------------------ */

/* Marker positions per frame of the reference camera. Arrays are indexed
 * [i * n_markers + k] for frame row i and marker k. */
typedef struct {
    int n_frames, n_markers;
    int *frame;          /* frame number of the reference camera (from 0) */
    double *t;           /* s, experiment clock (docs/conventions.md) */
    icv_vec3 *pos;       /* m, surface frame */
    unsigned char *seen; /* 1 where the marker was triangulated */
    double *sigma;       /* m, isotropic 1-sigma per point, or NULL when unknown */
} analysis_tracks;

/* Allocates empty tracks (positions unseen, sigma NULL unless with_sigma). */
int analysis_tracks_alloc(analysis_tracks *tr, int n_frames, int n_markers, int with_sigma, icv_err *err);
void analysis_tracks_free(analysis_tracks *tr);
/* Markers first..first+n-1 of all (one body's, of several bodies' tracks) as tracks of
 * their own in out (allocated; sigma copied when all has it). */
int analysis_tracks_take(const analysis_tracks *all, int first, int n, analysis_tracks *out, icv_err *err);
/* Rows row_first..row_last of all (every marker) as tracks of their own in out
 * (allocated; sigma copied when all has it). */
int analysis_tracks_rows(const analysis_tracks *all, int row_first, int row_last, analysis_tracks *out, icv_err *err);

/* Reads the contract's tracks3d.csv: `frame,time_s,` then m<k>_x,m<k>_y,m<k>_z
 * per marker (metres, surface frame), empty where not seen. The number of markers
 * comes from the header; rows must have increasing times. */
int analysis_tracks_read_csv(const char *path, analysis_tracks *tr, icv_err *err);

/* The tracks `analyze` reads for experiment e: a C3D or TRC file (by its first
 * bytes; the body's markers by body.marker_labels, else the file's in order; units
 * from the file), else the contract's tracks3d.csv. Without cameras (e->n_cameras
 * 0) the tracks are in their own frame and are mapped to the surface frame of
 * surface.plane (tracks_import.c). */
int analysis_tracks_read_for(const icv_experiment *e, const char *path, analysis_tracks *tr, icv_err *err);

/* Reads the track stage's tracks3d_quality.csv (`frame,time_s,marker,residual_px,
 * cov_xx_m2,cov_xy_m2,cov_xz_m2,cov_yy_m2,cov_yz_m2,cov_zz_m2,flags`, rows in frame
 * order) into tr->sigma: each point's isotropic 1-sigma sqrt(trace(cov)/3) (m);
 * points it does not list get the median. The pose fit's weights, and the noise level every fit's sigma starts from. */
int analysis_tracks_read_quality(const char *path, analysis_tracks *tr, icv_err *err);

/* ---- the body's marker template --------------------------------------- */

typedef struct {
    int n_markers;
    icv_vec3 markers[ICV_MAX_MARKERS]; /* m, body frame, centre of mass at the origin */
    int point;      /* 1: a single marker (a ball): only the position is measured,
                       no rotation at all */
    int collinear;  /* 1: all markers on one line; the spin about it cannot be seen */
    icv_vec3 axis;  /* unit, body frame: that line's direction (when collinear) */
    int planar;     /* 1: one-camera (planar) mode: the tracks are the markers' places
                       in the motion plane (z written 0) and the body turns about z
                       only; markers[] hold the body's markers with z left out */
} analysis_template;

/* Checks the template (1 marker, or >= 2 distinct ones) and finds whether it is collinear
 * (every marker within 1e-6 of the line through the two farthest apart, relative
 * to their distance). */
int analysis_template_init(analysis_template *t, const icv_vec3 *markers, int n, icv_err *err);

/* The template of a one-camera (planar) experiment (contract: the body moves in the
 * motion plane, turning about its normal z; the tracks' z is written 0). The track
 * stage already placed each marker at its own depth (its body z) off the plane, so
 * the tracks are the markers' in-plane places: the template keeps x and y, z is left
 * out, and analysis_pose_fit turns it about z only. A 3D fit of the template with its
 * z to those points tilts the body out of the plane to flatten the markers' depths
 * (balls on posts 7 mm apart in z: 0.06 rad), which moves its lowest point and the
 * instant the pre-impact flight meets the surface (0.35 frame at 3000 fps). */
int analysis_template_init_planar(analysis_template *t, const icv_vec3 *markers, int n, icv_err *err);

/* ---- pose per frame ---------------------------------------------------- */

typedef struct {
    icv_mat3 R;          /* body -> surface rotation: x_surface = R x_body + p */
    icv_vec3 p;          /* m, centre of mass, surface frame */
    icv_vec3 euler213;   /* rad, [t1, t2, t3] of R (contract) */
    int singular;        /* 1 when t2 = +-pi/2 (t3 set to 0, see geom.h) */
    double rms;          /* m, RMS distance of the used markers from the fitted template */
    double residual[ICV_MAX_MARKERS]; /* m, per marker; negative when not used */
    icv_vec3 residual_v[ICV_MAX_MARKERS]; /* m, the marker minus its fitted template place (0 when not used) */
    int used[ICV_MAX_MARKERS];        /* 1: marker used in the fit */
    int n_used;
    int n_rejected;      /* markers dropped as outliers */
} analysis_pose;

typedef struct {
    double outlier_sigma; /* a marker farther than this many sigma from the fitted
                             template is dropped and the pose refitted (default 5) */
} analysis_pose_params;

/* Fits the template to one frame's points (surface frame, m). valid[k] says
 * whether marker k was seen; sigma[k] (m, isotropic 1-sigma, may be NULL for
 * equal weights) weights it by 1/sigma^2. Needs >= 3 non-collinear markers, or >= 2
 * for a collinear template; for a collinear template the rotation about its line
 * is the smallest rotation taking the template's line onto the measured one (the
 * spin is not observable and is reported as such by the caller). A planar template
 * is turned about z only (the in-plane Procrustes angle), and two of its markers
 * fix that when they are at least a quarter of its span apart. Outliers are dropped
 * one at a time while three markers (two on a line) stay and fix the pose. */
int analysis_pose_fit(const analysis_template *t, const icv_vec3 *points, const int *valid, const double *sigma,
                      const analysis_pose_params *params, analysis_pose *pose, icv_err *err);

/* The pose in row i of the tracks, from the markers seen there. sigma > 0: weights
 * from the tracks' sigmas when they carry them, else sigma (m) for every marker;
 * sigma <= 0: equal weights. Fails (ICV_ENOTFOUND) when too few markers are seen. */
int analysis_pose_fit_frame(const analysis_tracks *tr, int i, const analysis_template *t, double sigma,
                            const analysis_pose_params *params, analysis_pose *pose, icv_err *err);

/* ---- ballistic fit of the centre of mass ------------------------------- */

#define ANALYSIS_MAX_PHASES 16

/* One flight phase's samples of the centre of mass. */
typedef struct {
    int n;                 /* number of samples */
    const double *t;       /* s, experiment clock */
    const icv_vec3 *p;     /* m, surface frame */
    const double *sigma;   /* m, isotropic 1-sigma per sample (NULL: all equal, the
                              scale is then estimated from the residuals) */
    double t_ref;          /* s: p0 and v are reported at this instant */
} analysis_flight;

typedef struct {
    icv_vec3 p0[ANALYSIS_MAX_PHASES];  /* m, position at t_ref of each phase */
    icv_vec3 v[ANALYSIS_MAX_PHASES];   /* m/s, velocity at t_ref of each phase */
    icv_vec3 p0_sd[ANALYSIS_MAX_PHASES], v_sd[ANALYSIS_MAX_PHASES]; /* 1-sigma, per axis */
    double cov_pv[ANALYSIS_MAX_PHASES][3]; /* m^2/s: covariance of p0 and v, per axis */
    icv_vec3 g;            /* m/s^2, surface frame: fitted, or the one given */
    icv_vec3 g_sd;         /* 1-sigma per axis (0 when given) */
    double chi2_dof;       /* reduced chi^2 of the fit (1 when sigma is honest) */
    double rms;            /* m, RMS residual over all samples */
} analysis_ballistic;

/* Fits p(t) = p0_k + v_k (t - t_ref_k) + g (t - t_ref_k)^2 / 2 to every phase k
 * jointly, by weighted linear least squares per axis (GSL multifit_wlinear).
 * g_given: a gravity vector to use as is (m/s^2, surface frame), or NULL to fit one
 * g shared by all phases. Needs >= 2 samples per phase (3 when g is fitted and
 * there is one phase) and enough in all to leave >= 1 degree of freedom. */
int analysis_ballistic_fit(const analysis_flight *phases, int n_phases, const icv_vec3 *g_given,
                           analysis_ballistic *out, icv_err *err);

/* ---- rotation in free flight ------------------------------------------ */

typedef struct {
    icv_mat3 R;             /* body -> surface at t_ref */
    icv_vec3 omega;         /* rad/s, surface frame, at t_ref */
    icv_vec3 omega_sd;      /* 1-sigma per axis (surface frame) */
    icv_vec3 attitude_sd;   /* rad, 1-sigma of the small rotation about each surface axis at t_ref */
    double cov[6][6];       /* covariance of (attitude perturbation, omega) */
    double rms;             /* rad, RMS angular residual of the measured attitudes */
    double chi2_dof;        /* reduced chi^2 (1 when sigma_angle is honest) */
    int spin_observable;    /* 0 for a collinear template: omega's component along
                               the body axis is fixed at 0 and not reported */
    int iterations;
    int n_used;             /* poses fitted */
    int n_left_out;         /* poses off the motion (beyond 6 of the fit's median
                               residual, at least 0.02 rad), or beyond the widest
                               window about t_ref whose fit converged */
} analysis_rotation;

/* Fits torque-free rigid rotation (core's icv_free_rotation with the body's inertia) to
 * measured attitudes R_meas[i] at times t[i] of one flight phase: the attitude and
 * angular velocity at t_ref, by nonlinear least squares (GSL multifit_nlinear,
 * trust region). sigma_angle (rad, 1-sigma of each measured attitude about each
 * axis; <= 0: estimate from the residuals). A collinear template (collinear = 1,
 * axis = the rod's line in the body frame) constrains only where that line points:
 * the residual is then the line's direction and omega is fitted perpendicular to
 * it. Needs >= 3 attitudes (4 when sigma is estimated). */
int analysis_rotation_fit(const double *t, const icv_mat3 *R_meas, int n, double t_ref, icv_mat3 inertia_body,
                          int collinear, icv_vec3 axis_body, double sigma_angle, analysis_rotation *out,
                          icv_err *err);

#define ANALYSIS_G_STANDARD 9.81 /* m/s^2: |g| where the experiment gives only its direction
                                    (a level board): the contract's and synth's */

/* ---- impacts --------------------------------------------------------- */

/* What the analysis needs of the body (from experiment.yaml's body). */
typedef struct {
    double mass;          /* kg */
    icv_mat3 inertia;     /* kg m^2, body frame, about the centre of mass */
    icv_shape shape;      /* body frame */
    analysis_template tmpl;
} analysis_body;

/* What is known of the calibration's uncertainty, as 1-sigma errors of the
 * surface frame the tracks are in (0: unknown, left out of the propagation).
 * calib_sd.c propagates them into every measured quantity's sigma. */
typedef struct {
    double scale_rel;     /* relative, of every length (stereo: baseline_std / baseline;
                             one camera: the ruler's clicks, or scale: gravity's fit,
                             and but for gravity's, the marker centroids' image
                             scale in quadrature, calib_sd.c) */
    double tilt;          /* rad, of the surface normal's direction about each in-plane
                             axis (x and z; independent) */
    double heading;       /* rad, of the surface's x and z axes about the normal */
    double offset;        /* m, of the surface plane along its normal */
} analysis_calib_sd;

typedef struct {
    double pos_sigma;     /* m, 1-sigma of a marker position when the tracks carry
                             none (default 3e-4: sub-millimetre stereo) */
    double exposure_s;    /* s, exposure time; frames whose exposure overlaps the
                             impact are left out of both fits (default: one frame
                             period, the safe choice when unknown) */
    int min_side_frames;  /* fewest frames on each side to fit (default 4) */
    int max_side_frames;  /* longest window on each side for finding and timing
                             an impact (default 40) */
    int extend_windows;   /* 1 (default): with g given, each side's window for
                             the velocities and the rotation grows from there over
                             its flight while the ballistic fit holds; the instant
                             stays the near windows'. 0: max_side_frames only */
    double jump_sigmas;   /* a velocity change along the normal larger than this
                             many sigma confirms an impact (default 10) */
    int mc_samples;       /* Monte Carlo draws for derived uncertainties (default 400) */
    int method;           /* ANALYSIS_FIT (default) or ANALYSIS_HOUBOLT */
    int keep_outlier_frames; /* 1: no frame is left out as an outlier (default 0:
                             a frame off the motion on both sides is, see
                             analysis_impacts_measure) */
    analysis_calib_sd calib; /* the calibration's uncertainty where known (default
                             all 0: unknown) */
} analysis_params;

/* How the states at the impact are measured. FIT: ballistic and torque-free fits
 * over automatic windows, carried to the impact instant. HOUBOLT: the seeds'
 * method (Han Sun sec. 4.3, with solver.md sec. 5's corrections): third-order
 * backward differences over the 4 frames before the impact and forward over the 4
 * after, states at those frames (not carried to the instant), omega from the
 * euler213 rates. For comparison with published numbers; noisier. */
enum { ANALYSIS_FIT = 0, ANALYSIS_HOUBOLT = 1 };

void analysis_params_default(analysis_params *p);

/* The state on one side of an impact, extrapolated to the impact instant. */
typedef struct {
    icv_vec3 p;           /* m, centre of mass, surface frame */
    icv_vec3 v, v_sd;     /* m/s, centre-of-mass velocity, surface frame, 1-sigma */
    icv_vec3 omega, omega_sd; /* rad/s, surface frame, 1-sigma */
    icv_mat3 R;           /* body -> surface */
    icv_vec3 euler213;    /* rad */
    int singular;         /* euler213 at theta2 = +-pi/2 */
    icv_vec3 contact_velocity; /* m/s, v + omega x r at the contact point */
    int n_frames;         /* poses in the fit window */
    double t_first, t_last; /* s, the window */
    double chi2_dof;      /* of the ballistic fit */
} analysis_side;

/* analysis_impact.energy_rotation: a one-marker ball's spin is not measured, nor a
 * rod's about its line; the energies count only what was measured. */
enum { ANALYSIS_ROTATION_ALL = 0, ANALYSIS_ROTATION_ACROSS_LINE, ANALYSIS_ROTATION_NONE };

typedef struct {
    double t, t_sd;       /* s, impact instant: t_line, or t_meet where the two
                             disagree beyond their sigmas (t_from_meet) */
    double t_line, t_line_sd; /* s: where the pre-impact flight brings the contact
                             point onto the surface (or nearest it, when it never
                             reaches it), and its 1-sigma (with the surface's
                             offset sigma where known) */
    double t_meet, t_meet_sd; /* s: where the flights on the two sides meet (their
                             centres of mass closest: needs no surface), 1-sigma */
    int t_from_meet;      /* 1: t is t_meet (the surface line disagreed, see
                             analysis_impacts_measure's warning) */
    double meet_gap;      /* m: the contact point's height above the surface at
                             t_meet on the pre-impact flight (how far the surface is off) */
    char implausible[160]; /* "" or why no real collision gives these numbers (e
                             above 1 or below 0, or energy gained, beyond 2 sigma) */
    analysis_side pre, post;
    icv_vec3 contact_point;   /* m, surface frame, the shape's lowest point at t */
    icv_vec3 impulse;         /* N s, m (v_post - v_pre) */
    double e_kinematic;       /* -u_post.y / u_pre.y at the contact point */
    double impulse_ratio;     /* |impulse in x-z| / impulse.y */
    double energy_pre, energy_post, loss_fraction; /* J, J, 1 - post/pre */
    struct {
        double e_kinematic, impulse_ratio, loss_fraction;
    } sd;                     /* 1-sigma: Monte Carlo over the fit covariances, and
                                 the calibration's part (sd_calib) where known */
    int spin_observable;      /* 0: collinear markers: omega about the body's line
                                 is not measured (set to 0, left out of energies) */
    int energy_rotation;      /* what energy_pre/post count besides translation
                                 (ANALYSIS_ROTATION_*): the measured rotation only */
    icv_vec3 spin_change_implied; /* rad/s, surface frame: the unmeasured part of the
                                 spin change the measured impulse gives the body at
                                 the contact point (I^-1 r x J; no other torque);
                                 0 when the spin is measured */
    double spin_energy_implied; /* J, 1/2 dw.I dw of that change: what it adds to a body
                                 that did not spin that way before (an assumption) */
    char energy_note[240];    /* "" or what the energies leave out, for the reader */
    struct {
        int done;             /* 1 when analysis_model_compare ran on this impact */
        icv_restitution law;
        double mu, e_n;       /* given, or fitted to this impact */
        int mu_fitted, e_n_fitted;
        int mu_identifiable;  /* 0: a sticking impact: mu only has a lower bound */
        double mu_lower_bound;
        char case_label[8];   /* the solver's impact case */
        icv_vec3 v, omega;    /* predicted post-impact state, surface frame */
        double loss_fraction; /* predicted */
        char note[240];       /* what a reader must know (identifiability, failures) */
    } model;
    struct {
        icv_vec3 v_pre, v_post, omega_pre, omega_post;
        double e_kinematic, impulse_ratio, loss_fraction, t;
    } sd_calib;               /* the calibration's part of each 1-sigma above (already
                                 in them, added in quadrature); 0 when unknown */
} analysis_impact;

#define ANALYSIS_MAX_IMPACTS 16
#define ANALYSIS_MAX_FLIGHTS (ANALYSIS_MAX_IMPACTS + 1)

#define ANALYSIS_MAX_CONTACTS 16

/* A stretch of frames in contact with the surface without flying (docs/analysis.md):
 * the gap within 5 marker sigmas for longer than free flight can stay there. */
typedef struct {
    long frame_first, frame_last;
    double t_first, t_last; /* s */
    int sliding;            /* 1: moving on the surface (sliding, rolling, rocking); 0: resting */
} analysis_contact;

/* One free flight: the stretch between impacts (or the clip's
 * ends) where nothing touches, its launch state at its first frame. */
typedef struct {
    double t_start, t_end;   /* s, its first and last frame used */
    long frame_first, frame_last;
    int n_frames;
    icv_vec3 p, v, v_sd;     /* m, m/s: centre of mass and its velocity at t_start, 1-sigma */
    double speed, speed_sd;  /* m/s, |v| */
    double angle_deg, angle_sd_deg; /* degrees: v above the plane square to g (up positive) */
    icv_vec3 g, g_sd;        /* m/s^2, this flight's own fit of g (0 sd: too short to
                                fit its own; the gravity used then) */
    double chi2_dof;         /* of its fit, residual-scaled: 1 */
    double rms;              /* m, RMS residual */
} analysis_flight_summary;
#define ANALYSIS_MAX_OUTLIER_FRAMES 32

typedef struct {
    int n_poses;              /* frames with a pose */
    int held_frames;          /* poses left out as a body at rest at the clip's start
                                 or end (held before release, or landed) */
    int n_outlier_frames;     /* frames left out as outliers (a single frame off the
                                 motion), the first ANALYSIS_MAX_OUTLIER_FRAMES of
                                 them by frame number in outlier_frame */
    long outlier_frame[ANALYSIS_MAX_OUTLIER_FRAMES];
    icv_vec3 g, g_sd;         /* m/s^2, surface frame: the gravity used */
    int g_estimated;          /* 1: from free flight (gravity: auto) */
    int n_impacts;
    analysis_impact impacts[ANALYSIS_MAX_IMPACTS];
    double min_gap;           /* m, the smallest gap seen (for "no impact" errors) */
    double min_gap_t;         /* s, when */
    analysis_calib_sd calib;  /* the calibration uncertainty propagated (all 0: none known) */
    double g_cov[3][3];       /* (m/s^2)^2, surface frame: g's covariance when estimated
                                 (g_sd its diagonal's roots), else 0 */
    int n_contacts;           /* stretches in contact with the surface without flying */
    analysis_contact contacts[ANALYSIS_MAX_CONTACTS];
    int n_flights;            /* free flights between the impacts and the clip's ends */
    analysis_flight_summary flights[ANALYSIS_MAX_FLIGHTS];
    int g_flight_fit;         /* 1: g was given and the free flights' own acceleration
                                 was fitted as a check of it (g_flight below) */
    icv_vec3 g_flight, g_flight_sd; /* m/s^2, surface frame: that fit, by gravity: auto's
                                 estimator on the same flight frames, its 1-sigma per axis */
    double g_flight_spread;   /* m/s^2: the flights' own accelerations' spread beyond
                                 their noise (0: they agree) */
    double g_flight_sys;      /* m/s^2: g_flight's systematic 1-sigma from the centre's
                                 bias (ANALYSIS_G_FLIGHT_BIAS_M) over the longest flight */
    int n_not_measured;       /* impacts seen and not measured (too few frames on a side,
                                 a landing, in frames without a pose), each named with its
                                 frames and why in not_measured[] (the first
                                 ANALYSIS_MAX_IMPACTS); results.json's impacts_not_measured */
    char not_measured[ANALYSIS_MAX_IMPACTS][ICV_ERR_MSG_MAX];
} analysis_result;

/* Finds every impact in the tracks and measures each.
 * gravity: a given vector (m/s^2, surface frame) or NULL to estimate it from the
 * free-flight phases. Fails with ICV_ENOTFOUND naming the smallest gap when there
 * is no impact, and ICV_EINVAL when an impact has too few frames on a side.
 * A single frame off the motion (all its markers moved together: the pose fit
 * cannot see it) is left out with a warning and listed in res->outlier_frame:
 * off the predictions from the two frames before it and the two after it the
 * same way, or off one of them with the next frame back on it, or, beside an
 * impact, off its side's flight fitted without it (outlier_frames.c). */
int analysis_impacts_measure(const analysis_tracks *tr, const analysis_body *body, const icv_vec3 *gravity,
                             const analysis_params *params, analysis_result *res, icv_err *err);

/* One-camera footage without a board (motion_plane: {scale: gravity}): the factor
 * that makes the free flight of the tracks (in any length unit, surface frame of
 * the motion plane) fall at 9.81 m/s^2, from every free-flight phase jointly.
 * Multiply the positions by it. *sd is its 1-sigma. */
int analysis_scale_from_gravity(const analysis_tracks *tr, const analysis_body *b, double *scale, double *sd,
                                icv_err *err);

/* What an experiment's calibration file says of its uncertainty (all 0 where it
 * says nothing): the relative scale error from a stereo file's baseline_std /
 * baseline; with surface.images, the surface frame's tilt, heading and offset
 * from the plane scatter of the board on the surface (found again from those
 * images with that calibration, as the track stage finds it). Calibration from
 * images (done by the track stage) hands no uncertainty on, and a file that is
 * absent (tracks analysed alone) says nothing: all 0. What cannot be read is
 * left out with a warning; never fails. One camera scaled by a ruler in the image
 * (motion_plane.scale.points_px): the scale's relative sigma from the clicks,
 * sqrt(2) x 0.5 px over the two points' separation in pixels (calib_sd.c). */
int analysis_calib_sd_from_experiment(const icv_experiment *e, analysis_calib_sd *out, icv_err *err);

/* Fills what *out leaves unknown (0) from the track stage's sidecar
 * DIR/track_info.json (docs/pipeline.md) at path: the stereo calibration's
 * baseline_sd_m / baseline_m (also when the track stage calibrated from board
 * images) and the surface frame's sigmas from calibration.surface.plane_rms_m
 * (with the experiment's board, as analysis_calib_sd_from_experiment). A missing
 * or unreadable sidecar leaves *out as it is. Returns 1 when it filled anything.
 * One camera with motion_plane.scale: gravity: the scale's relative sigma
 * scale_from_gravity.factor_sd / factor. One camera otherwise: adds in quadrature
 * the image scale by which a lens's fall-off of light draws every marker
 * centroid towards the principal point: (R / rho_c)^2 0.25 / 2, R = f a the
 * marker's radius in px (a its radius over the camera's distance, cameras[0].pose.t),
 * rho_c the image corner's distance from the principal point (calib_sd.c). */
int analysis_calib_sd_from_track_info(const char *path, const icv_experiment *e, analysis_calib_sd *out);

/* ---- the fitted and measured motion, for plots and overlays ------------ */

/* The fitted motion of impact i's side (post: 0 before, 1 after) at time t (s,
 * experiment clock): centre of mass p (m) and velocity v (m/s), surface frame, from
 * the ballistic fit with res->g; attitude R (body -> surface) and angular velocity w
 * (rad/s, surface frame) from the torque-free rotation of the side's state at the
 * impact instant (b->inertia). p is NaN when the side's position is unknown
 * (the side's centre of mass not set: report_fits_apply). */
void analysis_side_state(const analysis_result *res, int i, int post, const analysis_body *b, double t, icv_vec3 *p,
                         icv_vec3 *v, icv_mat3 *R, icv_vec3 *w);

/* The measured motion frame by frame, for plots against the fitted curves: each
 * frame's pose by the template fit, and differences of consecutive poses. Arrays of
 * n (t, p, euler213, h) or n - 1 (tm, v, w) values, in one block (mem). */
typedef struct {
    int n;            /* frames with a pose */
    double *t;        /* s, experiment clock */
    double *p[3];     /* m, centre of mass, surface frame */
    double *e[3];     /* rad, euler213, each angle unwrapped across frames */
    double *h;        /* m, the body's lowest point above the surface */
    double *tm;       /* s, midpoints of consecutive poses */
    double *v[3];     /* m/s, surface frame, finite differences */
    double *w[3];     /* rad/s, surface frame, from R_{i+1} R_i^T */
    double *mem;
} analysis_motion_series;

/* Room for n frames in m (m->n = 0): the arrays in one block. */
int analysis_motion_series_alloc(int n, analysis_motion_series *m, icv_err *err);
/* Fills m from every frame of tr with a pose (analysis_pose_fit_frame). Fails only
 * out of memory; free with analysis_motion_series_free. */
int analysis_motion_series_measure(const analysis_tracks *tr, const analysis_body *b, analysis_motion_series *m,
                                   icv_err *err);
void analysis_motion_series_free(analysis_motion_series *m);

/* ---- checks, model, outputs ------------------------------------------- */

/* Checks the tracks against the template's inter-marker distances: fails naming
 * the pair, the measured and template distances when the median measured
 * distance differs by more than max(5 sigma, 2% of the distance) (wrong markers in
 * experiment.yaml, or a wrong scale). sigma: m, marker 1-sigma. */
int analysis_template_check(const analysis_tracks *tr, const analysis_template *t, double sigma, icv_err *err);

/* The estimated gravity's magnitude against 9.81 m/s^2: 0 when within 2%, else a
 * warning (returned 1, message in err), beyond 10% calling the results physically
 * implausible; the results are kept either way. */
int analysis_gravity_check(const analysis_result *res, icv_err *err);

/* m/s^2: an estimated gravity's magnitude's 1-sigma: the flights' (g_sd along g) and
 * the scale's (calib.scale_rel of |g|: g is measured in the scaled lengths) */
double analysis_gravity_magnitude_sd(const analysis_result *res);

/* g given (res->g_flight_fit): the free flights' own acceleration against it. *diff:
 * |g_flight - g| (m/s^2), *sigma: g_flight's 1-sigma along that difference with
 * g_flight_sys in quadrature, *tol:
 * ANALYSIS_G_FLIGHT_TOL of |g|. 1 when diff exceeds both 3 sigma and tol (tracks of
 * something other than the markers, a wrong scale or capture rate, or g given in
 * another frame), else 0; 0 with diff = NAN when no check was made. */
#define ANALYSIS_G_FLIGHT_TOL 0.03
#define ANALYSIS_G_FLIGHT_BIAS_M 0.5e-3
int analysis_gravity_flight_disagrees(const analysis_result *res, double *diff, double *sigma, double *tol);

/* The model the experiment asks for. mu < 0 or e_n < 0: fit it to each impact. */
typedef struct {
    icv_restitution law;
    double mu_s, mu_k, e_n;
    impact_method method;
} analysis_model;

/* Runs the solver on every impact's measured pre-impact state (orientation, v,
 * omega, contact point from the shape) with the model, fitting mu and/or e_n to
 * the impact where asked (the solver's inverse; a sticking impact gives only a
 * lower bound for mu, said in the note). Fills impacts[].model. */
int analysis_model_compare(const analysis_body *b, const analysis_model *m, analysis_result *res, icv_err *err);

/* What results.json says about the calibration (rms_px per camera, stereo rms). */
typedef struct {
    int n_cameras;
    char id[ICV_MAX_CAMERAS][ICV_ID_MAX];
    double rms_px[ICV_MAX_CAMERAS];   /* < 0: unknown */
    double stereo_rms_px;             /* < 0: unknown */
} analysis_calibration_info;

/* The calibration's RMS values for results.json from the track stage's sidecar
 * (DIR/track_info.json: calibration.mono or calibration.stereo, from board images
 * or the calibration file), cameras named as in e; unknown values < 0. Returns 1
 * when one was found, 0 otherwise (no file: all unknown). */
int analysis_calibration_info_read(const char *track_info_path, const icv_experiment *e,
                                   analysis_calibration_info *out);

/* impactcv's version and those of the libraries it runs on, as linked: name and
 * version pairs ("impactcv", "FFmpeg", "OpenCV", "GSL", "libyaml", "jansson");
 * returns their count (ANALYSIS_N_VERSIONS). */
#define ANALYSIS_N_VERSIONS 7
int analysis_program_versions(const char *names[ANALYSIS_N_VERSIONS], const char *versions[ANALYSIS_N_VERSIONS]);

/* The impact case's meaning in words ("slip stops in compression, then reverse
 * sliding with the slip's x flipped"); "" for an unknown label. */
const char *analysis_case_words(const char *label, char *out, size_t n);

/* Why no real collision gives im's measured values and sigmas, into why (n bytes; the
 * analysis keeps it in im->implausible, the report asks again for results read back):
 * e above 1 or below 0 (the contact point still closing on the surface after the
 * impact), or the energy after above the energy before, each beyond 2 sigma. Returns 1
 * when implausible, else 0 with why "". */
int analysis_impact_plausibility(const analysis_impact *im, char *why, size_t n);

/* One impact's entry of results.json's "impacts" (the contract's keys and the added
 * ones): a jansson object (json_t *) the caller owns; NULL out of memory. */
struct json_t;
struct json_t *analysis_impact_json(const analysis_impact *im);

/* Writes results.json (schema impactcv-results-1, the contract's keys and added
 * ones: program, model.case_words) atomically. calib may be NULL. */
int analysis_results_write(const char *path, const char *experiment, const analysis_calibration_info *calib,
                           const analysis_result *res, icv_err *err);

/* Writes fits.csv atomically: per frame used in a fit, the impact, the side, the
 * measured and fitted centre of mass (m) and the residual (m), for the report. */
int analysis_fits_write(const char *path, const analysis_tracks *tr, const analysis_body *b,
                        const analysis_result *res, icv_err *err);

/* ---- against a synth experiment's truth.json --------------------------- */

/* Compares the measured impacts with truth.json (schema impactcv-truth-1) using
 * the stated tolerances (docs/analysis.md): the instant within 0.2 frame (frame_s,
 * s), velocity components within 0.5% of the impact speed, omega within 2% of |omega| or 0.1
 * rad/s (its part perpendicular to the markers' line when the spin is not
 * measured), e_kinematic, impulse_ratio and loss_fraction within 0.01, |g| within
 * 0.5% when estimated. Writes a table to out (may be NULL). Returns 0 when all
 * agree, ICV_EINVAL naming the first quantity out of tolerance, or an I/O error. */
int analysis_truth_compare(const char *truth_path, const analysis_result *res, const analysis_body *b, double frame_s,
                           FILE *out, icv_err *err);

/* ---- an experiment measured -------------------------------------------- */

/* The body of an experiment as the analysis needs it (body.c). */
int analysis_body_from_experiment(const icv_experiment *e, analysis_body *b, icv_err *err);


typedef struct {
    icv_experiment exp;
    analysis_body body;
    analysis_model model;
    analysis_result res;
    char warning[ICV_ERR_MSG_MAX]; /* "" or a warning the user must see (gravity) */
} analysis_experiment_result; /* what `impactcv analyze` measured (job_analyze) */


/* One (mu, e_n) fitted to every impact of several experiments,
 * then the validation table in the layout of Han Sun's Tables 4.6 and 4.9 written
 * as validation.csv and validation.md into dir. The model law and method are
 * those of the first experiment. Fills the fit's result. */
int analysis_validation_write(const char *dir, analysis_experiment_result *const *jobs, int n_jobs,
                              impact_fit_result *fit, icv_err *err);

#endif
