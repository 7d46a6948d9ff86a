/* bodies_internal.h: what the several-body files (bodies_*.c) share. */
#ifndef ICV_BODIES_INTERNAL_H
#define ICV_BODIES_INTERNAL_H

#include <gsl/gsl_rng.h>

#include "analysis/analysis_internal.h"
#include "analysis/bodies.h"

/* a body's pose in one row of the tracks */
typedef struct {
    int ok;      /* 1: enough markers for a pose, and they fit the template */
    icv_mat3 R;
    icv_vec3 p;
    double rms;  /* m: the markers' RMS distance from the fitted template */
} body_pose;

/* Poses of body bt in every row (out: tracks' n_frames entries). */
void bodies_poses(const analysis_body_track *bt, const analysis_params *prm, body_pose *out);

/* The state s carried dt (s) along its motion model: the centre with its constant
 * acceleration, the attitude by exp(omega dt + alpha dt^2 / 2), omega + alpha dt
 * (dt a fraction of a frame: second order). */
void bodies_state_advance(analysis_body_state *s, double dt);
/* Where a body's pre and post motions (states at t) meet: t plus the shift that
 * brings their centres closest (s, *tm), its sigma from their p_sd (*sd); both NaN
 * when the velocity does not change. bodies_impact.c. */
void bodies_meet(const analysis_body_state *pre, const analysis_body_state *post, double t, double *tm, double *sd);

/* Kinetic energy (J) of body b in a state: translation and rotation as measured. */
double bodies_kinetic(const analysis_body *b, icv_mat3 R, icv_vec3 v, icv_vec3 w);

/* One Monte Carlo draw of a state from its covariances (p, v per axis; attitude and
 * omega jointly: L the lower-triangular factor of s->cov_rot). */
void bodies_state_draw(gsl_rng *rng, const analysis_body_state *s, const double L[6][6], analysis_body_state *out);

/* The rows of the pre (post 0) or post window of an impact at t_star: rows within
 * (lo_row, hi_row) at least excl (s) from t_star, the max_frames nearest it.
 * Returns how many rows; *first, *last. */
int bodies_window(const analysis_tracks *tr, double t_star, double excl, int lo_row, int hi_row, int post,
                  int max_frames, int *first, int *last);

/* The frame period (s): the median step of the tracks' times. */
double bodies_frame_period(const analysis_tracks *tr);

/* bodies_group.c. The index of pair (a, b) among n bodies' n (n - 1) / 2 pairs. */
int bodies_pair_index(int a, int b, int n);

/* The bodies in contact with pair (ia, ib) at row `row` (a bit per body: the pair,
 * and every body within reach of one in the set at the row or a neighbouring row,
 * grown until no more join). within: per pair (bodies_pair_index), nf flags, 1 where
 * the pair's gap is within reach of contact. */
unsigned bodies_contact_group(const unsigned char *within, int n_bodies, int nf, int ia, int ib, int row);

/* Whether body bt's velocity changes across row `row` (the pre and post windows as
 * an impact's, between rows lo_row and hi_row exclusive): 1 beyond 5 of its sigmas,
 * 0 not, -1 when a side has too few poses to tell. jump, jump_sd: m/s. */
int bodies_takes_part(const analysis_body_track *bt, int row, int lo_row, int hi_row, const icv_vec3 *g,
                      const analysis_params *prm, double *jump, double *jump_sd);

/* bodies_impact.c. Where (s, from the states' instant, in [lo, hi]) two bodies'
 * states carried along their motions first touch, or come closest (a graze). */
double bodies_touch_offset(const analysis_body *ba, const analysis_body_state *a, const analysis_body *bb,
                           const analysis_body_state *b, double lo, double hi);

/* bodies_pendulum.c. A body hung on a string of bt->pendulum_length: its fixed
 * pivot, the point all its posed centres keep that distance from (damped
 * Gauss-Newton from above its lowest centre, against g), the centres' noise across
 * the string (robust), and the pivot's 1-sigma along the two horizontal axes the
 * swings are measured about (bodies_pendulum.c). m, surface frame. */
typedef struct {
    icv_vec3 pivot;
    double noise;
    double lateral_sd[2];
} bodies_pendulum;
int bodies_pendulum_pivot(const analysis_body_track *bt, const icv_vec3 *g, const analysis_params *prm,
                          bodies_pendulum *out, icv_err *err);

/* One side's centre (p, v, a and their sigmas, cov_pv) at t_ref from its n centres
 * p at times t: the pendulum's equation fitted to the swing about the pivot, the
 * sigmas from the side's residuals but never below the clip's noise, and the
 * pivot's own. */
int bodies_pendulum_side(const analysis_body_track *bt, const bodies_pendulum *pend, const double *t,
                         const icv_vec3 *p, int n, double t_ref, const icv_vec3 *g, analysis_body_state *out,
                         icv_err *err);

/* Running sums for the Monte Carlo's sigmas. */
typedef struct {
    int n;
    double s1[64], s2[64];
} bodies_stats;
void bodies_stats_add(bodies_stats *st, const double *x, const double *nominal, int k);
double bodies_stats_sd(const bodies_stats *st, int i);

#endif
