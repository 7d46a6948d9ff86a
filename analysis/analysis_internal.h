/* analysis_internal.h: what the files of analysis/ share and nobody else sees. */
#ifndef ICV_ANALYSIS_INTERNAL_H
#define ICV_ANALYSIS_INTERNAL_H

#include "analysis/analysis.h"

/* a frame with a pose */
typedef struct {
    int row;            /* row in the tracks */
    double t;           /* s */
    analysis_pose pose;
    double gap;         /* m, lowest point of the shape above the surface */
} posed_frame;

/* one side's flight fitted over a window of posed frames, states at t_ref */
typedef struct {
    int first, last;    /* posed-frame indices of the window */
    double t_ref;       /* s */
    double t_first, t_last; /* s, the window's first and last frame */
    icv_vec3 p, p_sd, v, v_sd;
    double chi2_dof;
    /* the rotation, fitted over frames rot_first..rot_last with states at t_rot
     * (fitted once and refitted only when the window changes: it is the costly
     * part, and the impact instant's iterations need only the ballistic fit) */
    int rot_valid, rot_first, rot_last;
    double t_rot;
    icv_mat3 R;
    icv_vec3 omega, omega_sd;
    double cov_rot[6][6];   /* covariance of (attitude perturbation, omega) at t_rot */
    int spin_observable;
    int fixed;              /* 1: states at t_ref as they are, not carried to the
                               impact instant (Houbolt, as the seeds report them) */
    double cov_pv[6][6];    /* covariance of (p, v) at t_ref (m, m/s; surface frame):
                               p with v along an axis (the fit's extrapolation), and
                               across axes as the window's residuals correlate */
} side_fit;

/* The factor (1 + rho) / (1 - rho) by which the variance of a fitted state grows
 * when its residuals r[0..n-1] (3 series, one per axis, in time order) have the
 * lag-1 correlation rho (an AR(1) series: fewer independent samples than frames;
 * the same correction as the track stage's sync sigma). rho is pooled over the
 * axes and clipped to [0, 0.9]: 1 for white noise. */
double analysis_correlation_inflation(const icv_vec3 *r, int n);

/* What analysis_gravity_from_flight used: the posed frames the kept phases span
 * (first of the first phase, last of the last, after the trimming). */
typedef struct {
    int first, last;
} analysis_gravity_info;

/* gravity: auto. g (m/s^2, surface frame), its covariance g_cov (m^2/s^4) and
 * 1-sigma per axis g_sd (its diagonal's roots) from the free-flight frames of
 * pf[0..n-1], those not within one frame of a contact candidate cand[0..nc-1]
 * (phases of 4 frames or more), fitted jointly (analysis_ballistic_fit, centre sigma
 * `sigma`, m), a first or last frame off the fit left out while it is; g_cov from the
 * residuals' own scatter and frame-to-frame correlation (analysis_residual_scatter).
 * info may be NULL. Fails (ICV_EINVAL) without a phase of 4 frames. impact_find.c. */
int analysis_gravity_from_flight(const posed_frame *pf, int n, const int *cand, int nc, double sigma, icv_vec3 *g,
                                 icv_vec3 *g_sd, double g_cov[3][3], analysis_gravity_info *info, icv_err *err);

/* Every frame of the tracks that has enough markers for a pose (weights from
 * prm->pos_sigma), with its gap; *n: how many (pf holds tr->n_frames). impact_find.c. */
int analysis_pose_frames(const analysis_tracks *tr, const analysis_body *b, const analysis_params *prm,
                         posed_frame *pf, int *n);

/* A body held before release, or at rest after the last landing: runs of 3 or more
 * posed frames at the start or the end of pf[0..n-1] whose centre moves less than
 * 4 sigma per frame (com_sigma, m, the centre's 1-sigma). *lo: the first frame of the
 * motion (the last still one: the release comes after it), 0 without a hold; *hi
 * likewise at the end (n - 1 without a rest). impact_find.c. */
void analysis_still_ends(const posed_frame *pf, int n, double com_sigma, int *lo, int *hi);

/* The 3x3 covariance per sample of the residuals r[0..n-1] of a fit with dof
 * degrees of freedom per axis, with the frame-to-frame correlation of each of its
 * principal directions: sum_k lambda_k f_k d_k d_k^T (d_k, lambda_k the scatter's
 * eigenvectors and dof-corrected eigenvalues, f_k analysis_correlation_inflation of
 * the residuals along d_k). A fitted parameter's covariance is its design factor
 * (the variance per unit sample variance) times M: track errors are neither
 * isotropic nor equally correlated on every axis (a stereo rig's depth). Returns 0
 * (M zero) when dof < 10 (too noisy a scatter) or out of memory. */
int analysis_residual_scatter(const icv_vec3 *r, int n, int dof, double M[3][3]);

/* Lower-triangular L (n x n, row-major, n <= 6) with L L^T = cov, tolerant of a
 * rank deficit (a collinear rod's unobservable spin: a diagonal load of 1e-12 of
 * the largest variance keeps Cholesky defined without changing any value
 * measurably); the diagonal's roots if it still fails. GSL's Cholesky. */
void analysis_cholesky(const double *cov, int n, double *L);

/* The median of x[0..n-1], n >= 1 (the upper one for even n); sorts x. */
double analysis_median(double *x, int n);

/* The lowest point's height above the surface for a pose (m). */
double analysis_gap_at(const analysis_body *b, icv_mat3 R, icv_vec3 p);

/* Fits the centre of mass (given g) over frames first..last, states at t_ref,
 * shortening the window from its far end while the fit is inconsistent with the
 * noise (reduced chi^2 beyond 3 of its sigmas); then fits the rotation over the
 * final window unless *out already holds a rotation fitted over that window. */
int analysis_side_fit(const posed_frame *pf, int first, int last, double t_ref, const icv_vec3 *g,
                      const analysis_body *b, double com_sigma, int post, side_fit *out, icv_err *err);

/* Replaces a side's states by the seeds' Houbolt differences at posed frame k
 * (the last before the impact, or with post the first after), using frames
 * k, k-1, k-2, k-3 (or k..k+3). houbolt.c. */
void analysis_houbolt_side(const posed_frame *pf, int k, int post, double marker_sigma, const analysis_body *b,
                           side_fit *s);

/* The instant in [lo, hi] where a side's flight puts the contact point on the
 * surface (root of the gap), or where the gap is smallest when it does not cross. */
double analysis_contact_instant(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t_guess,
                                double lo, double hi);

/* The measured quantities at the impact instant t, without their uncertainty. */
void analysis_measure_values(const analysis_body *b, const icv_vec3 *g, const side_fit *pre, const side_fit *post,
                             double t, analysis_impact *imp);

/* The measured quantities and their uncertainty at the impact instant t. */
void analysis_measure(const analysis_body *b, const icv_vec3 *g, const side_fit *pre, const side_fit *post, double t,
                      const analysis_params *prm, analysis_impact *imp);

/* Adds the calibration's uncertainty c (where known) and, when g was estimated
 * (g_cov its covariance, (m/s^2)^2), the estimate's, to the impact's sigmas, and
 * fills its sd_calib (the calibration's part), by measuring it again in a surface
 * frame off by each 1-sigma error and with g off by each independent 1-sigma error
 * of g_cov (calib_sd.c). */
int analysis_calib_propagate(const posed_frame *pf, const analysis_body *b, const icv_vec3 *g,
                             const double g_cov[3][3], int g_estimated, const side_fit *pre, const side_fit *post,
                             double com_sigma, const analysis_calib_sd *c, analysis_impact *imp, icv_err *err);

#endif
