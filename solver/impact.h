/* impact.h: the rigid-body impact solver with friction (a library of its own; depends on
 * core only). One body against a fixed surface, or two bodies, at a single contact,
 * built from u = u0 + K P (../shared/spec/solver.md sec. 0) with the contract's surface
 * frame: n = +y is the outward normal, x-z the tangent plane; a falling body has
 * v_y < 0. Also Wang's frictionless balls in a row and a pinned two-link chain.
 *
 * Models: the planar algebraic model (Han Sun ch. 2, Sun & Baruh 2022 sec. 2: periods,
 * seven cases), the spatial algebraic model (Sun & Baruh sec. 3: friction direction
 * from the frictionless solution, eleven cases), and the exact model (Wang ch. 2,
 * Stronge: impulse integration of the slip hodograph). Restitution: Newton, Poisson,
 * Stronge (energetic). Every quantity is SI and in the surface frame. */
#ifndef ICV_IMPACT_H
#define ICV_IMPACT_H

#include "core/core.h"

typedef enum {
    IMPACT_EXACT = 0,     /* impulse integration (the reference; what synth uses) */
    IMPACT_ALGEBRAIC = 1, /* planar: exact period splitting; spatial: Sun & Baruh */
} impact_method;

/* One impact problem. Fill with impact_case_init, then set what differs. */
typedef struct {
    double mass;          /* kg, > 0 */
    icv_mat3 inertia;     /* kg m^2 about the centre of mass: body frame (rotated by R)
                             unless inertia_is_world, then surface frame */
    icv_mat3 R;           /* body -> surface rotation (x_surface = R x_body + p) */
    int inertia_is_world; /* 1: inertia is already in the surface frame; R is ignored */
    icv_vec3 r;           /* m, contact point minus centre of mass, surface frame */
    icv_vec3 v;           /* m/s, centre-of-mass velocity before impact, surface frame */
    icv_vec3 omega;       /* rad/s, angular velocity before impact, surface frame */
    double mu_s;          /* static friction (stick test), >= mu_k */
    double mu_k;          /* kinetic friction (every sliding period), >= 0 */
    double e_n;           /* coefficient of restitution in [0, 1] (law's own meaning) */
    icv_restitution law;  /* ICV_RESTITUTION_NEWTON | _POISSON | _STRONGE (core.h) */
    impact_method method;
    int planar;           /* 1: planar model: motion in x-y, rotation about z; uses
                             r.x, r.y, v.x, v.y, omega.z and the surface-frame I_zz;
                             the z components of the result are 0 */
} impact_case;

/* Sliding mode of a period. */
typedef enum { IMPACT_SLIDE = 0, IMPACT_STICK = 1, IMPACT_RSLIDE = 2 } impact_mode;

#define IMPACT_MAX_PERIODS 8

/* A period of constant mode (algebraic models) or of one event interval (exact). */
typedef struct {
    char stage;           /* 'c' compression, 'r' restitution */
    impact_mode mode;
    icv_vec3 impulse;     /* N s, impulse applied in this period, surface frame */
} impact_period;

typedef struct {
    icv_vec3 v;                   /* m/s, centre-of-mass velocity after impact, surface */
    icv_vec3 omega;               /* rad/s, angular velocity after impact, surface */
    icv_vec3 contact_velocity;    /* m/s, contact-point velocity after impact, surface */
    icv_vec3 contact_velocity_pre;/* m/s, contact-point velocity before impact, surface */
    icv_vec3 impulse;             /* N s, total impulse the surface gave the body, surface */
    double p_nc;                  /* N s, normal impulse at the end of compression */
    char case_label[8];           /* "0".."6", spatial "2a","2b","2c","4a","4b","4c" */
    double work_compression;      /* J, W_c = int u_n dp_n over compression (<= 0) */
    double work_restitution;      /* J, W_r over restitution (>= 0) */
    double work_friction;         /* J, int u_t . dp_t (<= 0; the spatial algebraic model's
                                     frozen friction direction can rarely make it > 0) */
    double energy_pre;            /* J, 0.5 m v.v + 0.5 w.I w before */
    double energy_post;           /* J, after */
    double loss_fraction;         /* 1 - post/pre (0 when pre is 0) */
    int n_periods;
    impact_period periods[IMPACT_MAX_PERIODS];
    int n_steps;                  /* exact method: integrator steps taken (0 otherwise) */
} impact_result;

/* Defaults: unit mass, unit inertia (body frame), R = identity, zero vectors,
 * mu = 0, e_n = 0, Stronge, exact, spatial. */
void impact_case_init(impact_case *c);

/* Solves one impact. Errors (ICV_EINVAL, one line naming the field): mass <= 0, an
 * inertia that is not symmetric positive definite, mu_k < 0, mu_s < mu_k, e_n outside
 * [0, 1], a non-finite input, no approach (u_n >= 0 at the contact); ICV_ENUMERIC:
 * a Painleve-type inconsistency (du_n/dp_n <= 0 while compressing: the compression
 * never ends; or a restitution stage that cannot end) or an integration that does not
 * converge. Thread-safe; allocates nothing after a thread's first exact solve (the
 * exact model keeps one integrator workspace per thread, freed when the thread ends). */
int impact_solve(const impact_case *c, impact_result *res, icv_err *err);

/* Labels. */
const char *impact_method_name(impact_method m);
/* "exact" | "algebraic" -> method; returns 0 or ICV_EINVAL. */
int impact_method_parse(const char *s, impact_method *m);
/* "newton" | "poisson" | "stronge" -> law; returns 0 or ICV_EINVAL. */
int impact_law_parse(const char *s, icv_restitution *law);

/* Kinetic energy 0.5 m v.v + 0.5 w.I w (J); I in the surface frame. */
double impact_kinetic_energy(double mass, icv_mat3 inertia_world, icv_vec3 v, icv_vec3 omega);

/* The contact matrix K = E/m - [r]x I^-1 [r]x (m/(N s) = 1/kg), surface frame, so that
 * the contact velocity is u = u0 + K P. I in the surface frame. */
icv_mat3 impact_contact_matrix(double mass, icv_mat3 inertia_world, icv_vec3 r);

/* ---- the contact-space problem and two bodies (solver/two_body.c) ------------------
 * Two rigid bodies a and b touching at one point, in the contact frame: the surface
 * frame above with body b in the place of the surface, so n = +y points from b into a
 * and x-z is the common tangent plane. Wang ch. 2 (spec sec. 0): W = K_a + K_b, the
 * relative contact velocity u = (v_a + w_a x r_a) - (v_b + w_b x r_b) = u0 + W P, body a
 * receives the impulse P and body b -P. */

/* One impact given directly in contact space (Wang's W and v-). */
typedef struct {
    icv_mat3 K;           /* 1/kg, W = K_a + K_b, symmetric positive definite, contact frame */
    icv_vec3 u0;          /* m/s, relative contact velocity before impact (a minus b), u0.y < 0 */
    double mu_s, mu_k, e_n;
    icv_restitution law;
    impact_method method;
    int planar;           /* 1: the x-y block of K and u0 only (the z parts are ignored) */
} impact_contact_case;

/* Fills res's contact quantities: impulse (on a), p_nc, case_label, works, periods,
 * n_steps, contact_velocity_pre = u0 and contact_velocity = u0 + K P; v, omega and the
 * energies are left 0. Errors as impact_solve. */
int impact_contact_solve(const impact_contact_case *c, impact_result *res, icv_err *err);

/* The planar contact matrix of one body (x-y block; rotation about z with moment izz,
 * kg m^2): 1/m + r_y^2/izz, -r_x r_y/izz, 1/m + r_x^2/izz. 0 for mass = INFINITY. */
icv_mat3 impact_planar_contact_matrix(double mass, double izz, icv_vec3 r);

typedef struct {
    double mass;          /* kg, > 0, or INFINITY: a fixed body (K = 0; keeps its v, omega) */
    icv_mat3 inertia;     /* kg m^2 about the centre of mass: body frame (rotated by R)
                             unless inertia_is_world; ignored for an infinite mass */
    icv_mat3 R;           /* body -> contact frame rotation */
    int inertia_is_world;
    icv_vec3 r;           /* m, contact point minus centre of mass, contact frame */
    icv_vec3 v;           /* m/s, centre-of-mass velocity before impact, contact frame */
    icv_vec3 omega;       /* rad/s, angular velocity before impact, contact frame */
} impact_body;

typedef struct {
    impact_body a, b;     /* n = +y points from b into a */
    double mu_s, mu_k, e_n;
    icv_restitution law;
    impact_method method;
    int planar;           /* as impact_case.planar, for both bodies */
} impact_pair_case;

typedef struct {
    impact_result contact;    /* the contact's quantities (impulse on a, relative contact
                                 velocities, case, works, periods); its v, omega are a's,
                                 its energies the pair's */
    icv_vec3 v[2], omega[2];  /* after impact, [0] = a, [1] = b, contact frame */
    double energy_pre[2], energy_post[2];   /* J per body (0 for an infinite mass) */
    icv_vec3 momentum_pre, momentum_post;   /* N s, total linear momentum (finite masses) */
    icv_vec3 angular_momentum_pre, angular_momentum_post; /* kg m^2/s, about the contact
                                 point (finite masses) */
} impact_pair_result;

/* Defaults: two bodies as impact_case_init's, b at rest. */
void impact_pair_case_init(impact_pair_case *c);
/* An impact_case as body a against a fixed b (mass INFINITY, at rest). */
impact_pair_case impact_pair_from_case(const impact_case *c);
/* Solves one two-body impact. Errors (ICV_EINVAL, one line naming the body): a mass
 * not > 0 (both infinite is an error too), an inertia not SPD, non-finite input, no
 * approach; otherwise as impact_solve. With b of infinite mass it is impact_solve. */
int impact_pair_solve(const impact_pair_case *c, impact_pair_result *res, icv_err *err);
/* W = K_a + K_b in the contact frame (spatial). */
icv_mat3 impact_pair_contact_matrix(const impact_body *a, const impact_body *b);

/* ---- n balls in a row, frictionless (solver/nbody_row.c) ---------------------------
 * Wang ch. 3 sec. 3.2, Algorithm 2: one virtual spring per contact between neighbours,
 * force F = k x^exponent on the overlap x; at the end of its compression a spring keeps
 * e^2 of its energy and stiffens to k e^(-2 exponent) (force continuous; Wang's k/e^2 for
 * the linear spring); it leaves when its energy is spent and re-enters when its balls
 * approach again. Wang integrates the impulses over the largest ("primary") impulse with
 * ratios rho = F_ij/F_pq; this integrates the same equations over time (any monotone
 * parameter gives the same path), GSL rk8pd with located events, which is the limit of
 * her steps as delta -> 0. Only stiffness ratios matter for power-law springs. */
#define IMPACT_ROW_MAX 16
typedef struct {
    int n;                                   /* balls, 2..IMPACT_ROW_MAX, in order along +x */
    double mass[IMPACT_ROW_MAX];             /* kg */
    double v[IMPACT_ROW_MAX];                /* m/s along +x, before the impact */
    double stiffness[IMPACT_ROW_MAX - 1];    /* N/m^exponent of the contact between ball
                                                i and i+1 (> 0) */
    double e[IMPACT_ROW_MAX - 1];            /* energetic restitution of that contact, [0, 1] */
    double exponent;                         /* 1: linear spring (Wang 3.5); 1.5: Hertz */
} impact_row_case;

typedef struct {
    double v[IMPACT_ROW_MAX];                /* m/s along +x, after */
    double energy_pre, energy_post;          /* J */
    double momentum_pre, momentum_post;      /* N s */
    double duration;                         /* s, first touch to last separation */
    double max_force[IMPACT_ROW_MAX - 1];    /* N, per contact */
    int n_compressions;                      /* compression phases started (re-contacts too) */
    int n_steps;                             /* integrator steps */
} impact_row_result;

/* Defaults: n balls of 1 kg at rest, stiffness 1, e = 1, linear springs. */
void impact_row_case_init(impact_row_case *c, int n);
/* Solves the collision. Errors (ICV_EINVAL): n outside 2..IMPACT_ROW_MAX, a mass,
 * stiffness or exponent not > 0, e outside [0, 1], no neighbours approaching;
 * ICV_ENUMERIC: the integration or the contact events do not finish; ICV_ENOMEM.
 * Thread-safe; allocates its integrator per call (not for a per-frame path). */
int impact_row_solve(const impact_row_case *c, impact_row_result *res, icv_err *err);
/* Wang's release of a pendulum ball (ch. 3 sec. 3.2.3, small-angle solution): the
 * speed at the bottom, theta0 sqrt(g l) (m/s), for string length l (m) and angle (rad). */
double impact_row_pendulum_speed(double length, double theta0, double g);

/* ---- a two-link chain hitting the surface (solver/chain_impact.c) -----------------
 * Two planar links (motion in x-y, rotation about z) joined by a pin, link 0 touching
 * the surface (n = +y) at one point, Coulomb friction and the three restitution laws.
 * Impulse-momentum with the pin as a constraint: the chain's contact matrix is
 * K = J A J^T with A = M^-1 - M^-1 G^T (G M^-1 G^T)^-1 G M^-1 (G: the pin's velocity
 * constraint, J: the contact point's velocity), then the planar model of impact_solve
 * (exact in 2-D). Akhan (Auburn 2019) sec. 2, 4 in rigid form. */
typedef struct {
    double mass[2];        /* kg, link 0 (touching) and link 1 */
    double inertia[2];     /* kg m^2 about each centre of mass, axis z */
    icv_vec3 centre[2];    /* m, centres of mass, surface frame (z ignored) */
    icv_vec3 joint;        /* m, the pin */
    icv_vec3 contact;      /* m, link 0's point touching the surface */
    icv_vec3 v[2];         /* m/s, centre velocities before (z ignored) */
    double omega[2];       /* rad/s about +z, before; the pin's two velocities must agree */
    double mu_s, mu_k, e_n;
    icv_restitution law;
} impact_chain_case;

typedef struct {
    impact_result contact;   /* impulse of the surface on link 0, contact velocities before
                                and after, case, works, periods; v, omega: link 0's */
    icv_vec3 v[2];           /* m/s, centre velocities after */
    double omega[2];         /* rad/s about +z, after */
    icv_vec3 joint_impulse;  /* N s, the pin's impulse on link 1 (link 0 gets minus it) */
    double energy_pre[2], energy_post[2]; /* J per link */
    double e_energetic[3];   /* Akhan's eq. 4.1 sqrt(E'/E): link 0, link 1, chain */
} impact_chain_result;

/* Errors (ICV_EINVAL): a mass or inertia not > 0, the pin's two velocities differ by
 * more than 1e-9 of the speeds, no approach at the contact; otherwise as impact_solve. */
int impact_chain_solve(const impact_chain_case *c, impact_chain_result *res, icv_err *err);

/* ---- CASE.yaml and the result JSON (contract.md, "CASE.yaml") -------------------- */

/* Reads CASE.yaml: mass (kg), inertia (kg m^2, body frame), orientation {euler213: [rad]
 * | matrix: body->surface rotation} (default identity), contact (m, body frame, from the
 * centre of mass), v (m/s) and omega (rad/s, default 0) in the surface frame, mu or mu_s
 * and mu_k, e_n, restitution (default stronge), method (default exact), planar (default
 * false). A bad value or an unknown key fails with "FILE:LINE: key: reason". */
int impact_case_load(const char *path, impact_case *c, icv_err *err);

/* The contract's output JSON ({"post": {"v", "omega", "contact_velocity"}, "impulse",
 * "case", "work": {"compression_J", "restitution_J", "friction_J"}, "energy": {"pre_J",
 * "post_J", "loss_fraction"}}, plus "pre": {"contact_velocity"}, "p_nc" and "periods":
 * [{"stage": "c"|"r", "mode": "slide"|"stick"|"reverse_slide", "impulse"}]) as a malloc'd
 * string (free()), NULL if out of memory. */
char *impact_result_json(const impact_result *r);

/* A CASE.yaml of any kind (docs/solver.md "CASE.yaml"): one body (the keys above), two
 * bodies (`bodies:`), balls in a row (`row:`) or a two-link chain (`chain:`). */
typedef enum { IMPACT_FILE_ONE = 0, IMPACT_FILE_PAIR = 1, IMPACT_FILE_ROW = 2, IMPACT_FILE_CHAIN = 3 } impact_file_kind;
typedef struct {
    impact_file_kind kind;
    impact_case one;
    impact_pair_case pair;
    impact_row_case row;
    impact_chain_case chain;
    char names[2][32];      /* two bodies: their `name` keys (default "a", "b") */
} impact_case_file;

/* Reads any kind; errors as impact_case_load ("FILE:LINE: key: reason"). */
int impact_case_file_load(const char *path, impact_case_file *f, icv_err *err);
/* Solves f and returns its JSON (malloc'd, free()): the one-body JSON above; for two
 * bodies that JSON for the contact (post = body a) plus "bodies": [{"name", "post": {"v",
 * "omega"}, "energy": {"pre_J", "post_J"}}], "momentum" and "angular_momentum" {"pre",
 * "post"}; for a row {"v": [..], "energy", "momentum", "duration_s", "max_force_N",
 * "compressions"}; for a chain the contact's JSON plus "links": [{"v", "omega",
 * "energy", "e_energetic"}], "joint_impulse", "e_energetic" (Akhan 4.1, chain). */
int impact_case_file_solve_json(const impact_case_file *f, char **json, icv_err *err);

/* ---- inverse: (mu, e_n) from measured impacts ---------------------------------- */

typedef struct {
    impact_case pre;     /* the pre-impact state and the model (law, method, planar); its
                            mu_s, mu_k and e_n are ignored */
    icv_vec3 v_post;     /* m/s, measured centre-of-mass velocity after impact, surface */
    icv_vec3 omega_post; /* rad/s, measured angular velocity after impact, surface */
    icv_vec3 omega_unseen; /* unit axis (surface frame) about which omega was not
                              measured (markers on one line: the spin about it), or 0:
                              that component is left out of the comparison */
    int omega_unmeasured;  /* 1: no component of omega was measured (one marker: a
                              ball): omega is left out of the comparison */
} impact_observation;

typedef struct {
    double mu, e_n;       /* fitted (mu_s = mu_k = mu) */
    double mu_se, e_n_se; /* one standard error; NAN when not identifiable */
    int mu_identifiable;  /* 0: the residuals do not depend on mu (e.g. sticking impacts) */
    int e_n_identifiable;
    double mu_lower_bound;/* the largest impulse ratio |P_t|/P_n the fitted model needs:
                             what the data say about mu when it is not identifiable */
    double rms;           /* m/s, RMS of the residuals (angular ones times the radius of
                             gyration) */
    int n_obs, n_failed;  /* observations, and those the model cannot solve at the fit */
    int iterations, converged;
} impact_fit_result;

/* Residuals of one observation at (mu, e_n): predicted minus measured v (m/s) and
 * omega times the radius of gyration (m/s); fills r with the prediction. */
int impact_observation_residual(const impact_observation *o, double mu, double e_n, double res[6],
                                impact_result *r, icv_err *err);

/* Least-squares (mu, e_n) for n observations (n = 1: one impact), from (mu0, e0). */
int impact_fit(const impact_observation *obs, size_t n, double mu0, double e0, impact_fit_result *out,
               icv_err *err);

/* ---- measured planar impacts against the models ---------------------------------- */

/* Reads planar impacts in the layout of mcube_planar_impact/derived/impacts_summary.csv
 * (columns vx_i, vy_i, w_i, vx_f, vy_f, w_f and the contact Jacobian rows n_*, d_* of a
 * horizontal surface, SI) as observations of a body of mass (kg) and moment inertia_zz
 * (kg m^2). *obs is malloc'd (free()). */
int impact_planar_csv_load(const char *path, double mass, double inertia_zz, impact_observation **obs, size_t *n,
                           icv_err *err);

typedef struct {
    char model[48];
    double mu, e_n, mu_se, e_n_se; /* fitted to the whole set (baseline: 0, median e) */
    double rms;                    /* m/s, RMS residual of the fit */
    double median[4], p90[4];      /* |error| of v'_x (m/s), v'_y (m/s), w'_z (rad/s),
                                      KE'/KE (fraction): median and 90th percentile */
    int n_failed;                  /* impacts the model could not solve */
} impact_study_row;

/* Row 0: the frictionless baseline with the set's median Newton ratio; then Newton,
 * Poisson and Stronge (planar), and with with_exact the exact 3-D code (Stronge), each
 * with one (mu, e_n) fitted to the whole set. rows needs 5 entries. */
int impact_planar_study(const impact_observation *obs, size_t n, int with_exact, impact_study_row *rows, int *n_rows,
                        icv_err *err);

/* ---- parameter sweeps (solver/sweep.c) -------------------------------------------- */

#define IMPACT_N_CASES 13
/* "0","1","2","2a","2b","2c","3","4","4a","4b","4c","5","6" <-> 0..12 (-1: unknown) */
int impact_case_index(const char *label);
const char *impact_case_name(int index);

typedef struct {
    char name[16];    /* theta1 theta2 theta3 (euler213, rad; the contact point moves with the
                         body), mu, mu_s, mu_k, e_n, vx vy vz (m/s), ratio (u_x/|u_y| at contact) */
    double from, to;  /* first and last value */
    int n;            /* values, evenly spaced */
} impact_sweep_param;

typedef struct {
    double p[2];          /* the parameter values */
    int ok;               /* 0: no solution (error holds the reason) */
    char case_label[8];
    int case_index;       /* impact_case_index, -1 when !ok */
    double loss_fraction; /* NaN when !ok */
    icv_vec3 v, omega, impulse;
    char error[160];
} impact_sweep_point;

/* "NAME=FROM:TO:N" */
int impact_sweep_param_parse(const char *spec, impact_sweep_param *p, icv_err *err);
double impact_sweep_value(const impact_sweep_param *p, int i);
/* Solves the grid (first parameter fastest): out holds n0 * n1 points. A point without a
 * solution (Painleve-type) is marked, not an error. */
int impact_sweep_run(const impact_case *base, const impact_sweep_param *params, int n_params,
                     impact_sweep_point *out, icv_err *err);
int impact_sweep_write_csv(const char *path, const impact_sweep_param *params, int n_params,
                           const impact_sweep_point *pts, icv_err *err);

/* ---- reference cases (../shared/spec/solver.md sec. 6-7) ---------------------------
 * One published number per entry, with the source, the spec's verdict (R reproduced,
 * P partially, N not: then pinned to the spec's independent prototype, the published
 * number in `why`) and the tolerance our test uses. Shared by the tests and `impactcv solve
 * --reference` (make demo). */
typedef struct {
    const char *id;        /* short name, e.g. "TT-rod-7-exact-vx" */
    const char *source;    /* document and place, e.g. "Titovich 2.9; spec 7.1" */
    const char *verdict;   /* "R", "P" or "N" (spec sec. 7.1) */
    const char *quantity;  /* what is compared, with its unit */
    double published;      /* the published (or the spec's corrected) value */
    double tolerance;      /* |computed - published| allowed */
    const char *why;       /* the reason for that tolerance */
} impact_reference;

int impact_reference_count(void);
const impact_reference *impact_reference_at(int i);
/* Computes entry i with this solver. */
int impact_reference_compute(int i, double *value, icv_err *err);

#endif
