/* impact.h: the rigid-body impact solver with friction (a library of its own; depends on
 * core only). One body against a fixed surface, single contact, built from
 * u = u0 + K P (../shared/spec/solver.md sec. 0) with the contract's surface frame:
 * n = +y is the outward normal, x-z the tangent plane; a falling body has v_y < 0.
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
    double work_friction;         /* J, int u_t . dp_t (<= 0) */
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
 * never ends) or an integration that does not converge. */
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

/* ---- CASE.yaml and the result JSON (contract.md, "CASE.yaml") -------------------- */

/* Reads CASE.yaml: mass (kg), inertia (kg m^2, body frame), orientation {euler213: [rad]
 * | matrix: body->surface rotation} (default identity), contact (m, body frame, from the
 * centre of mass), v (m/s) and omega (rad/s, default 0) in the surface frame, mu or mu_s
 * and mu_k, e_n, restitution (default stronge), method (default exact), planar (default
 * false). A bad value or an unknown key fails with "FILE:LINE: key: reason". */
int impact_case_load(const char *path, impact_case *c, icv_err *err);

/* The contract's output JSON ({"post": {"v", "omega", "contact_velocity"}, "impulse",
 * "case", "work": {"compression_J", "restitution_J", "friction_J"}, "energy": {"pre_J",
 * "post_J", "loss_fraction"}}) as a malloc'd string (free()), NULL if out of memory. */
char *impact_result_json(const impact_result *r);

/* ---- reference cases (../shared/spec/solver.md sec. 6-7) ---------------------------
 * One published number per entry, with the source, the spec's verdict (R reproduced,
 * P partially) and the tolerance our test uses. Shared by the tests and `impactcv solve
 * --reference` (make demo). */
typedef struct {
    const char *id;        /* short name, e.g. "TT-rod-7-exact-vx" */
    const char *source;    /* document and place, e.g. "Titovich 2.9; spec 7.1" */
    const char *verdict;   /* "R" or "P" (spec sec. 7.1) */
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
