/* analysis.h: from 3D marker tracks to the numbers of an impact (issue #9).
 *
 * Built so far: the body's pose per frame from its marker template (weighted
 * Kabsch/Horn fit) and the ballistic fit of the centre of mass with gravity shared
 * between flight phases. Not built yet: impact detection, rotation fits, the
 * measured quantities and their uncertainty, the model comparison, the command.
 *
 * Frames and units are the contract's (docs/conventions.md): positions in metres
 * in the surface frame, times in seconds on the experiment clock. */
#ifndef ICV_ANALYSIS_H
#define ICV_ANALYSIS_H

#include "core/core.h"

/* ---- the body's marker template --------------------------------------- */

typedef struct {
    int n_markers;
    icv_vec3 markers[ICV_MAX_MARKERS]; /* m, body frame, centre of mass at the origin */
    int collinear;  /* 1: all markers on one line; the spin about it cannot be seen */
    icv_vec3 axis;  /* unit, body frame: that line's direction (when collinear) */
} analysis_template;

/* Checks the template (>= 2 distinct markers) and finds whether it is collinear
 * (every marker within 1e-6 of the line through the two farthest apart, relative
 * to their distance). */
int analysis_template_init(analysis_template *t, const icv_vec3 *markers, int n, icv_err *err);

/* ---- pose per frame ---------------------------------------------------- */

typedef struct {
    icv_mat3 R;          /* body -> surface rotation: x_surface = R x_body + p */
    icv_vec3 p;          /* m, centre of mass, surface frame */
    icv_vec3 euler213;   /* rad, [t1, t2, t3] of R (contract) */
    int singular;        /* 1 when t2 = +-pi/2 (t3 set to 0, see geom.h) */
    double rms;          /* m, RMS distance of the used markers from the fitted template */
    double residual[ICV_MAX_MARKERS]; /* m, per marker; negative when not used */
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
 * spin is not observable and is reported as such by the caller). Outliers are
 * dropped one at a time while the pose stays determined. */
int analysis_pose_fit(const analysis_template *t, const icv_vec3 *points, const int *valid, const double *sigma,
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
} analysis_rotation;

/* Fits torque-free rigid rotation (icv_rigid_rotate with the body's inertia) to
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

#endif
