/* impact_internal.h: the contact-space problem shared by the solver's models (private
 * to solver/). Contact frame = surface frame: tangential components (x, z) are index
 * 0 and 1 of the 2-vectors, the normal is y (spec sec. 0: K = [[B, d], [d^T, w]]). */
#ifndef ICV_IMPACT_INTERNAL_H
#define ICV_IMPACT_INTERNAL_H

#include "solver/impact.h"

/* The problem in contact space: u = u0 + K P, with P = (p_t, p_n). */
typedef struct {
    double B[2][2];    /* tangential block of K (x, z), 1/kg */
    double d[2];       /* K_tn (x, z), 1/kg */
    double w;          /* K_nn, 1/kg */
    double ut0[2];     /* initial slip (x, z), m/s */
    double un0;        /* initial normal contact velocity, m/s, < 0 (approach) */
    double mu_s, mu_k, e;
    icv_restitution law;
    double tol;        /* exact model: integrator tolerance (scaled units); 0 = 1e-12 */
} contact_problem;

/* The state along the impulse path. */
typedef struct {
    double ut[2], un;  /* contact velocity now */
    double pt[2], pn;  /* accumulated impulse */
    double wc, wr;     /* works of the normal impulse in compression and restitution, J */
    double wf;         /* work of the friction impulse, J */
    double pnc;        /* normal impulse at the end of compression */
    char stage;        /* 'c' or 'r' */
} contact_state;

enum { LIN_STOP = 1, LIN_ENDC = 2, LIN_ENDR = 4 }; /* event bits */

void impact_contact_state_start(const contact_problem *pr, contact_state *st);

/* The normal-impulse length left in the current stage if the rates stay du_n/dp_n =
 * rn from now on (+inf if the stage would never end). */
double impact_contact_stage_remaining(const contact_problem *pr, const contact_state *st, double rn);

/* Advances along constant friction ratio phi = dp_t/dp_n (2-vector) for at most
 * dp_stop (the slip-arrest length, or +inf), stopping at the end of the stage
 * first. Returns the events that happened as LIN_* bits (an arrest that ties with
 * the stage boundary gives both, spec sec. 8.7), or ICV_ENUMERIC through *err when the
 * stage never ends (Painleve-type inconsistency or no restitution root). */
int impact_contact_advance(const contact_problem *pr, contact_state *st, const double phi[2], double dp_stop,
                           double *dp_taken, icv_err *err);

/* ||B^-1 d||: the friction coefficient needed to stick (spec sec. 2.3, 3.4). */
double impact_contact_stick_ratio(const contact_problem *pr);

/* Appends the period from the state before (pt0, pn0) to st (nothing if empty). */
void impact_period_record(impact_result *res, char stage, impact_mode mode, const double pt0[2], double pn0,
                          const contact_state *st);

/* Sets res->case_label: "0".."6" with the a/b/c subtype of reverse sliding (HS Table
 * 3.1) from the resumed slip direction g against the initial slip: a = x same, z
 * flipped; b = x flipped, z same; c = both flipped. */
void impact_case_label(const contact_problem *pr, int start_slip, char stop_stage, int stick_ok, const double g[2],
                       impact_result *res);

/* Solves the exact (impulse-integration) and the spatial algebraic models in contact
 * space; fill st (final), the case label and periods (caller's result). */
int impact_exact_solve(const contact_problem *pr, contact_state *st, impact_result *res, icv_err *err);
int impact_sb_solve(const contact_problem *pr, contact_state *st, impact_result *res, icv_err *err);

/* Planar model (2-D): K entries on (t = x, n = y), slip ut0 along x. */
typedef struct {
    double ktt, ktn, knn;
    double ut0, un0;
    double mu_s, mu_k, e;
    icv_restitution law;
    int hs_mass_scaled; /* HS 3.50 variant of Stronge's law: p_r = sqrt(2 m e^2 |W_c|) */
    double hs_mass;     /* the mass m of that variant */
} planar_problem;

typedef struct {
    double pt, pn, pnc;
    double wc, wr, wf;
    int case_no;        /* 0..6 */
    int n_periods;
    impact_period periods[IMPACT_MAX_PERIODS]; /* impulses in (x, y) */
} planar_solution;

int impact_planar_periods(const planar_problem *pp, planar_solution *sol, icv_err *err);

/* Sun & Baruh's closed-form mode criteria (spec sec. 1.5) with t along the initial
 * slip: R1 (sliding survives compression iff V/U > R1), R2 = -k_tn/k_tt (signed, the
 * impulse ratio that keeps sticking), R3 = (1 + e) R1. */
void impact_planar_criteria(const planar_problem *pp, double *r1, double *r2, double *r3);
/* The case the decision table of spec sec. 1.5 predicts. */
int impact_planar_case_predicted(const planar_problem *pp);
/* HS (2.33): the friction coefficient at which the Newton sliding solution ends with
 * u_t' = 0, i.e. the V/U = R3 boundary solved for mu. */
double impact_planar_mu_sliding(const planar_problem *pp);

/* Sun & Baruh's 3-D rod in our frame (reference_cases.c), for tests. */
impact_case impact_reference_sb_rod(double theta1, double theta2);

/* CASE.yaml pieces shared by case_file.c and case_file_multi.c. */
struct json_t;
int impact_case_read_body(icv_ynode map, impact_body *b, icv_err *err);
int impact_case_read_model(icv_ynode root, double *mu_s, double *mu_k, double *e_n, icv_restitution *law,
                           impact_method *method, int *planar, icv_err *err);
int impact_case_check_keys(icv_ynode map, const char *const *known, size_t n_known, icv_err *err);
int impact_case_read(icv_ynode root, impact_case *c, icv_err *err);
struct json_t *impact_result_json_object(const impact_result *r);
char *impact_json_dump(struct json_t *root); /* dumps and frees root; NULL if root is */

/* Multi-body reference adapters (reference_multibody.c). */
int impact_reference_cradle(double exponent, double v[5], icv_err *err);
impact_chain_case impact_reference_akhan_chain(int case_no, double e_n, int as_printed);
void impact_reference_akhan_outputs(const impact_chain_result *r, double out[9]);
int impact_reference_akhan_fit_e(int case_no, int as_printed, double vty_after, double *e_n, icv_err *err);

#endif
