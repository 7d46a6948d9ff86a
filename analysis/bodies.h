/* bodies.h: several bodies (a clearly named part of analysis/): body-body impacts and
 * a pinned chain hitting the surface. Given each body's 3D marker tracks in memory (no video, no experiment.yaml: the
 * caller builds the bodies), per body its poses and, on each side of an impact,
 * its centre-of-mass and angular-velocity fits (the one-body fits per body:
 * analysis_pose_fit_frame, analysis_ballistic_fit, analysis_rotation_fit), kinetic
 * energies, and per body-body impact Newton's ratio along the common normal, the
 * impulse ratio, each body's impulse, the momentum and angular momentum balances
 * and the energy lost, with 1-sigma by Monte Carlo over the fits (bodies_*.c,
 * docs/analysis.md "Several bodies"). Surface frame and SI units as analysis.h's. */
#ifndef ICV_ANALYSIS_BODIES_H
#define ICV_ANALYSIS_BODIES_H

#include "analysis/analysis.h"

#define ANALYSIS_MAX_BODIES 8

/* How a body moves on one side of an impact. */
enum {
    ANALYSIS_MOTION_FLIGHT = 0, /* free flight: centre p + v tau + g tau^2 / 2 with the g
                                   given, torque-free rotation (analysis_rotation_fit) */
    ANALYSIS_MOTION_POLY = 1,   /* a puck or cart on a table, or a link pulled by its joint:
                                   the centre and the rotation vector each quadratic in
                                   time with the side's own constant acceleration (Coulomb
                                   sliding in a straight line decelerates at a constant mu g;
                                   a free roll or a cart: ~0). analysis_ballistic_fit with
                                   the acceleration fitted */
    ANALYSIS_MOTION_PENDULUM = 2 /* hung on a string of pendulum_length from a fixed pivot
                                   (a cradle's ball): the pivot fitted from all the body's
                                   poses, each side the pendulum's equation under the g
                                   given (bodies_pendulum.c); the rotation as POLY's */
};

/* One body as the several-body analysis takes it. Every body's tracks have the
 * same rows (frame numbers and times). */
typedef struct {
    const analysis_body *body;
    const analysis_tracks *tracks; /* its own markers, in its template's order */
    const char *name;              /* for results.json and messages */
    int motion;                    /* ANALYSIS_MOTION_* */
    double pendulum_length;        /* m, pivot to centre of mass (ANALYSIS_MOTION_PENDULUM) */
    int on_surface;                /* 1: POLY because it slides on the surface (its height
                                      steady), not for want of g: its rotation may be
                                      taken about the surface normal (spin_about_normal) */
} analysis_body_track;

/* One body's state on one side of an impact, at the impact instant. */
typedef struct {
    icv_vec3 p, p_sd;          /* m, centre of mass, surface frame, 1-sigma */
    icv_vec3 v, v_sd;          /* m/s */
    icv_vec3 a, a_sd;          /* m/s^2: g (sd 0) for FLIGHT, the side's fitted one for POLY */
    double cov_pv[3];          /* m^2/s: covariance of p and v, per axis */
    icv_mat3 R;                /* body -> surface */
    icv_vec3 omega, omega_sd;  /* rad/s, surface frame */
    icv_vec3 alpha;            /* rad/s^2: fitted (POLY) or Euler's torque-free (FLIGHT) */
    double cov_rot[6][6];      /* covariance of (attitude perturbation, omega) at t */
    int spin_observable;       /* 0: one marker (no rotation measured) or a rod's spin */
    int spin_about_normal;     /* 1 (POLY): a body sliding flat, its tilt rates within
                                  noise: omega and alpha about the surface normal (y)
                                  alone, the tilt rates 0 with the free fit's sigmas */
    double energy, energy_sd;  /* J, kinetic: translation and the measured rotation */
    int n_frames;              /* poses in the window */
    double t_first, t_last;    /* s, the window */
    double chi2_dof;           /* of the centre's fit (residual-scaled: its sigmas) */
} analysis_body_state;

/* Fits body bt's poses in rows row_first..row_last of its tracks (rows without a
 * pose skipped) with its motion model, states at t (s). g: m/s^2, surface frame
 * (FLIGHT's; POLY ignores it). The sigmas are the fits' (scaled by their residuals,
 * grown by the residuals' lag-1 correlation, analysis_correlation_inflation).
 * Needs prm->min_side_frames poses (and >= 4). */
int analysis_body_side_fit(const analysis_body_track *bt, int row_first, int row_last, double t, const icv_vec3 *g,
                           const analysis_params *prm, analysis_body_state *out, icv_err *err);

/* The gap between two bodies' shapes in given poses. */
typedef struct {
    double gap;       /* m: distance between the shapes; < 0 overlap (its depth along
                         normal: exact for sphere/capsule pairs, approximate else) */
    icv_vec3 normal;  /* unit, surface frame: the common normal, from body a to body b */
    icv_vec3 point;   /* m: the contact point, midway between the nearest points */
    int exact;        /* 1: closed form (spheres, capsules and their pairs; sphere-box);
                         0: the largest support gap over directions, searched from
                         the centres' line (docs/analysis.md "Several bodies") */
} analysis_shapes_gap;

void analysis_shapes_gap_at(const icv_shape *a, icv_mat3 Ra, icv_vec3 pa, const icv_shape *b, icv_mat3 Rb,
                            icv_vec3 pb, analysis_shapes_gap *out);

/* One body-body impact. Vectors in the surface frame; "a" and "b" are body[0] and
 * body[1]; the impulse J acts on b (-J on a). */
typedef struct {
    int body[2];              /* indices into the bodies given */
    long frame;               /* the frame of the smallest gap */
    double t, t_sd;           /* s: where the pre-impact motions' shapes touch */
    double t_meet[2], t_meet_sd[2]; /* s: where each body's pre and post motions meet
                                 (centres closest; NaN when it does not change velocity) */
    analysis_shapes_gap contact; /* at t, from the pre-impact motions */
    analysis_body_state pre[2], post[2];
    icv_vec3 u_pre, u_post;   /* m/s: b's contact point's velocity relative to a's */
    double e_newton, e_newton_sd;             /* -u_post.n / u_pre.n */
    double normal_jump, normal_jump_sd;       /* m/s: u_post.n - u_pre.n (> 0 in an impact) */
    double impulse_ratio, impulse_ratio_sd;   /* |J tangential| / J.n */
    icv_vec3 impulse, impulse_sd;             /* N s: (J_b - J_a) / 2, the two's mean */
    icv_vec3 impulse_body[2], impulse_body_sd[2]; /* N s: m dv of a and of b */
    icv_vec3 impulse_mismatch, impulse_mismatch_sd; /* N s: J_a + J_b (= P_post - P_pre):
                                 0 in a two-body impact; off it, the tracking is */
    double impulse_mismatch_chi2; /* its chi^2 on 3 dof against its covariance */
    icv_vec3 momentum_pre, momentum_pre_sd, momentum_post, momentum_post_sd; /* N s */
    icv_vec3 angmom_pre, angmom_pre_sd, angmom_post, angmom_post_sd; /* N m s, about
                                 the contact point at t (the impulse has no moment there) */
    icv_vec3 angmom_change, angmom_change_sd;
    double energy_pre, energy_pre_sd, energy_post, energy_post_sd; /* J, both bodies */
    double energy_lost, energy_lost_sd, loss_fraction, loss_fraction_sd;
} analysis_body_impact;

/* Measures the impact between bodies ia and ib (normal from ia to ib) near row
 * `row` of the tracks (the smallest gap): each side's window leaves out the frames
 * whose exposure overlaps the impact (prm->exposure_s, default one frame period)
 * and stops at rows lo_row / hi_row (exclusive; -1 / n_frames: the clip's ends);
 * the instant is where the two pre-impact motions' shapes touch (Brent on the
 * gap), iterated with the windows; 1-sigma by Monte Carlo (prm->mc_samples draws,
 * seeded) with the instant found again in every draw. */
int analysis_body_impact_measure(const analysis_body_track *bodies, int n_bodies, int ia, int ib, int row, int lo_row,
                                 int hi_row, const icv_vec3 *g, const analysis_params *prm,
                                 analysis_body_impact *out, icv_err *err);

/* A pin joint: body-frame points of two bodies that stay together. */
typedef struct {
    int body[2];
    icv_vec3 at[2];           /* m, each body's frame */
} analysis_joint;

/* The joint's constraint on the tracks: the distance between the two bodies'
 * joint points (surface frame) in every frame where both have a pose. */
typedef struct {
    int n_frames;
    double rms, max, t_max;   /* m, m, s */
    icv_vec3 mean;            /* m, mean of (point of body[1] - point of body[0]) */
    double expected_rms;      /* m: the RMS the pose fits' noise alone gives a perfect
                                 pin (both joint points' propagated sigmas) */
} analysis_joint_residual;

/* per_frame (may be NULL): tracks' n_frames distances (m), NaN without poses. */
int analysis_joint_residual_measure(const analysis_body_track *bodies, int n_bodies, const analysis_joint *j,
                                    const analysis_params *prm, analysis_joint_residual *out, double *per_frame,
                                    icv_err *err);

/* A two-link chain hitting the surface (y = 0). */
typedef struct {
    long frame;               /* the frame of the smallest gap */
    int link_hit;             /* 0 or 1: the link whose shape touches */
    double t, t_sd;           /* s: where that link touches, its pose from the chain's
                                 pre-impact motion (both attitudes, the pin and the
                                 centre of mass's parabola) */
    double t_line, t_line_sd; /* s: that instant from the surface alone */
    double t_meet, t_meet_sd; /* s: where the chain's centre of mass before and after
                                 meet (NaN: its velocity did not change) */
    int from_meet;            /* 1: t is t_meet (the surface's instant lay beyond 3
                                 combined sigmas of it); 0: t is t_line, its sigma
                                 grown by their distance beyond both sigmas */
    icv_vec3 contact_point;   /* m */
    analysis_body_state pre[2], post[2]; /* each link (POLY motion: the joint pulls) */
    double e_link[2], e_link_sd[2];      /* Akhan's sqrt(T_after / T_before) per link */
    double e_chain, e_chain_sd;          /* and for the chain (T = T1 + T2) */
    double energy_pre, energy_pre_sd, energy_post, energy_post_sd; /* J, the chain */
    analysis_joint_residual joint;       /* the joint's constraint on the tracks */
} analysis_chain_impact;

/* An impact of several bodies at once: a row of bodies in contact (a cradle's balls)
 * whose velocities all change at one instant. No pair's Newton's ratio is in the
 * states before and after (each body's momentum change is the sum of its neighbours'
 * impulses); what they give is each body's momentum change, the impulse passed
 * between neighbours along the row, the group's momentum before and after, and the
 * energy. Vectors in the surface frame. */
#define ANALYSIS_MAX_ROWS 8
#define ANALYSIS_MAX_CHAIN_IMPACTS 8
typedef struct {
    int n;                     /* bodies in the row */
    int body[ANALYSIS_MAX_BODIES]; /* indices into the bodies given, in order along normal */
    long frame;                /* the frame of the first pair's smallest gap */
    double t, t_sd;            /* s: where the first pair's pre-impact motions touch;
                                  its 1-sigma (the gap's over the closing speed) */
    icv_vec3 normal;           /* unit: the first pair's common normal there (the row's
                                  direction, from body[0]'s end) */
    analysis_body_state pre[ANALYSIS_MAX_BODIES], post[ANALYSIS_MAX_BODIES]; /* at t, row order */
    icv_vec3 impulse_body[ANALYSIS_MAX_BODIES], impulse_body_sd[ANALYSIS_MAX_BODIES]; /* N s: m dv */
    icv_vec3 impulse_between[ANALYSIS_MAX_BODIES - 1], impulse_between_sd[ANALYSIS_MAX_BODIES - 1];
                               /* N s: the net impulse on body k + 1 from body k (row
                                  order): minus the momentum change of bodies 0..k */
    icv_vec3 momentum_pre, momentum_pre_sd, momentum_post, momentum_post_sd; /* N s */
    icv_vec3 momentum_change, momentum_change_sd; /* N s: 0 for bodies pushed only by each
                                  other; off it, the tracking or an outside force */
    double momentum_change_chi2; /* on 3 dof, the axes' variances */
    double energy_pre, energy_pre_sd, energy_post, energy_post_sd; /* J, the row's bodies */
    double energy_lost, energy_lost_sd, loss_fraction, loss_fraction_sd;
} analysis_row_impact;

/* Measures the row impact at row `row` of the tracks between rows lo_row and
 * hi_row (exclusive): ia, ib the pair whose gap has its minimum there (the normal
 * from ia to ib), group the bodies in contact (a bit per body, the pair's among
 * them). Each body's sides as a pair impact's; the instant where the pair's
 * pre-impact motions touch. Sigmas first order (the instant's sigma moves every state
 * along its acceleration, and the sums together), with the velocity touching bodies
 * may trade unseen near the instant, and their centres' frame-by-frame correlation in
 * the sums (bodies_row.c). */
int analysis_row_impact_measure(const analysis_body_track *bodies, int n_bodies, unsigned group, int ia, int ib,
                                int row, int lo_row, int hi_row, const icv_vec3 *g, const analysis_params *prm,
                                analysis_row_impact *out, icv_err *err);

/* One body's impact with the surface (kind "surface"), measured as one body's are
 * (analysis_impacts_measure) in a stretch of its tracks between its contacts with
 * other bodies. */
typedef struct {
    int body;           /* index into the bodies given */
    long frame_first;   /* the stretch of frames it was measured in */
    long frame_last;
    analysis_impact im; /* surface frame, SI units, as analysis.h's */
} analysis_surface_impact;

typedef struct {
    int n_impacts;
    analysis_body_impact impacts[ANALYSIS_MAX_IMPACTS];
    int n_body_events[ANALYSIS_MAX_BODIES]; /* each body's contacts with another body that
                                 changed, or may have changed, its velocity: the
                                 impacts measured, and those skipped */
    double body_event_t[ANALYSIS_MAX_BODIES][ANALYSIS_MAX_IMPACTS]; /* s: their instants */
    int n_surface;            /* each body's impacts with the surface, time order per body */
    analysis_surface_impact surface[ANALYSIS_MAX_IMPACTS];
    int n_surface_unmeasured; /* surface impacts found and not measured (in skipped[]) */
    int n_rows;               /* impacts of a row of bodies at once (n_several's), measured */
    analysis_row_impact rows[ANALYSIS_MAX_ROWS];
    int n_near_misses;        /* gap minima within reach that changed no velocity */
    int n_unmeasured;         /* gap minima whose measurement failed (too few poses) */
    int n_resting;            /* pairs in contact from their first posed frame on, not
                                 arriving: at rest together, not an impact */
    int n_several;            /* pair impacts where a third body in contact takes part
                                 (its velocity changes too): not measured as pairs */
    int n_skipped;            /* the impacts not measured (n_unmeasured, n_several and
                                 n_surface_unmeasured), each named in skipped[] (the first
                                 ANALYSIS_MAX_IMPACTS) for the caller's warnings */
    char skipped[ANALYSIS_MAX_IMPACTS][ICV_ERR_MSG_MAX];
    double min_gap;           /* m, the smallest gap between any two bodies, and when */
    double min_gap_t;
    int n_chain;              /* a two-link chain's impacts with the surface in chain[]
                                 (analysis_chain_impacts_measure; analysis_body_impacts_measure
                                 clears it) */
    int chain_links[2];       /* its links: indices into the bodies given (set by the caller) */
    analysis_chain_impact chain[ANALYSIS_MAX_CHAIN_IMPACTS];
} analysis_bodies_result;

/* Every body-body impact in the tracks: per pair, per frame where both have a pose,
 * the gap between their shapes; candidates at its minima within 5 sigma
 * (prm->pos_sigma) plus a frame's change of gap; an impact when the normal
 * relative velocity jumps by more than prm->jump_sigmas of its sigma. Impacts in
 * time order. Fails (ICV_ENOTFOUND) naming the smallest gap when there is none. */
int analysis_body_impacts_measure(const analysis_body_track *bodies, int n_bodies, const icv_vec3 *g,
                                  const analysis_params *prm, analysis_bodies_result *res, icv_err *err);

/* Instants per body (s) that end its flight besides its contacts with other bodies:
 * its impacts with the surface. */
typedef struct {
    int n[ANALYSIS_MAX_BODIES];
    double t[ANALYSIS_MAX_BODIES][ANALYSIS_MAX_IMPACTS];
} analysis_body_bounds;

/* analysis_body_impacts_measure with each side's window of an impact also ending one
 * row interval short of its bodies' instants in bounds (NULL: none). */
int analysis_body_impacts_measure_bounded(const analysis_body_track *bodies, int n_bodies, const icv_vec3 *g,
                                          const analysis_params *prm, const analysis_body_bounds *bounds,
                                          analysis_bodies_result *res, icv_err *err);

/* Each body's impacts with the surface (y = 0), after analysis_body_impacts_measure
 * filled res: every body in free flight (motion FLIGHT) is measured as one body is
 * (analysis_impacts_measure, g as given or NULL to fit) in each stretch of its tracks
 * between its contacts with other bodies (res->body_event_t; the rows within one
 * frame interval of a contact left out), so that a body-body impact is never taken
 * for a surface impact and never falls inside a side's window. A stretch with no
 * impact adds nothing; one whose impact cannot be measured is named in
 * res->skipped[]. When a surface impact is found, the body-body impacts are measured
 * again with their windows ending at it (analysis_body_impacts_measure_bounded; res
 * then holds that pass's). Fails out of memory, or as that pass fails. */
int analysis_bodies_surface_measure(const analysis_body_track *bodies, int n_bodies, const icv_vec3 *g,
                                    const analysis_params *prm, analysis_bodies_result *res, icv_err *err);

/* The chain's impacts with the surface, into res->chain[0..n_chain-1]: each run of
 * frames where either link's shape comes within y = 0 by 5 sigma plus the gap's rate
 * to the nearest posed frames times the frames to them (markers hide as the links
 * hit), its frame the nearest; each link fitted on each side (POLY, whatever
 * links[].motion says) within the runs beside it, states at the instant; energies
 * and e with 1-sigma by Monte Carlo; the joint's residual (the same in each). An
 * impact that cannot be measured is named in res->skipped; fails when none can. */
int analysis_chain_impacts_measure(const analysis_body_track links[2], const analysis_joint *j,
                                   const analysis_params *prm, analysis_bodies_result *res, icv_err *err);

/* results.json's entry for a body-body impact (docs/analysis.md "Several bodies":
 * kind "body_body", bodies [name a, name b], ...): a jansson object (json_t *) the
 * caller appends to "impacts" and owns; NULL out of memory. */
struct json_t;
struct json_t *analysis_body_impact_json(const analysis_body_impact *im, const char *name_a, const char *name_b);
/* A row impact's entry (kind "row", bodies in row order; results.json's
 * "row_impacts"). names[k]: body k's. */
struct json_t *analysis_row_impact_json(const analysis_row_impact *im, const char *const *names);
/* The chain's entry (kind "chain_surface", bodies [link 1, link 2]). */
struct json_t *analysis_chain_impact_json(const analysis_chain_impact *im, const char *name_a, const char *name_b);
/* A body's surface impact's entry: one body's impact entry (analysis_impact_json) with
 * kind "surface", bodies [name] and frames [first, last] of the stretch measured. */
struct json_t *analysis_surface_impact_json(const analysis_surface_impact *s, const char *name);

/* results.json of several bodies (docs/analysis.md "Several bodies"): schema,
 * experiment, program, "bodies" (the names), "impacts" (analysis_body_impact_json
 * each, then the chain's analysis_chain_impact_json for each of res->n_chain, then each
 * surface impact's analysis_surface_impact_json), "row_impacts" (analysis_row_impact_json
 * each), "min_gap_m"; written atomically. names[k] is body k's. */
int analysis_bodies_results_write(const char *path, const char *experiment, const char *const *names, int n_bodies,
                                  const analysis_bodies_result *res, icv_err *err);

/* ---- frame by frame, for plots (bodies_series.c) ------------------------- */

/* A body's motion in every row of its tracks: the centre from the row's pose, and
 * velocity, angular velocity and kinetic energy from a straight-line fit of the poses
 * (centre; rotation vector log(R_j R_r^T) about the posed row r nearest the window's
 * middle) over 2 half_rows + 1 rows round the row, moved (not cut) to stay on the
 * row's side of every instant in breaks[0..n_breaks-1] (the impacts: a fit across one
 * would blur the jump) and inside the clip; the slope is the velocity at the rows'
 * mean time tv (exact for a constant acceleration, and for a constant angular
 * acceleration about a fixed axis), so beside a break and at the clip's ends the
 * points sit at their windows' middles. A row whose window is the row before's gets
 * NaN (its point is there); fewer than 3 poses, NaN. A collinear template's spin
 * about its line is left out (not seen), a one-marker body has no rotation. Surface
 * frame, SI. Arrays of n values in one block. The energy of a noisy slope is biased
 * up by m sigma_v^2 / 2 (and the rotation's likewise); every row's window has the
 * same length so that the bias is the same all along. */
typedef struct {
    int n;            /* the tracks' rows */
    double *t;        /* s, each row's time (p's) */
    double *p[3];     /* m, centre of mass; NaN: no pose in the row */
    double *tv;       /* s, where v, w and energy belong: the mean time of their rows */
    double *v[3];     /* m/s */
    double *w[3];     /* rad/s */
    double *energy;   /* J, kinetic: translation and the seen rotation */
    double *mem;
} analysis_body_series;

int analysis_body_series_measure(const analysis_body_track *bt, const double *breaks, int n_breaks, int half_rows,
                                 const analysis_params *prm, analysis_body_series *s, icv_err *err);
void analysis_body_series_free(analysis_body_series *s);

/* A side's fitted motion dt (s) from its instant: state s carried along its motion
 * model (the centre with its constant acceleration, omega + alpha dt, the attitude
 * turned by omega dt + alpha dt^2 / 2), and body b's kinetic energy there (J). */
void analysis_body_state_at(const analysis_body *b, const analysis_body_state *s, double dt,
                            analysis_body_state *out, double *energy);

#endif
