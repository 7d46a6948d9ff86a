/* mb_internal.h: the several-body motion shared by synth/mb_*.c (not a public header).
 *
 * A motion is a state vector y (generalised coordinates and velocities) that an ODE
 * (GSL's rk8pd, tolerance 1e-13) carries between impacts, in segments stored as
 * checkpoints every h; any instant is integrated from its checkpoint, so the state
 * is a smooth function of t between impacts. Each kind gives the ODE, the bodies'
 * states from y, the gaps whose zero is a contact, and the impact. */
#ifndef ICV_SYNTH_MB_INTERNAL_H
#define ICV_SYNTH_MB_INTERNAL_H

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "synth/synth.h"

#define MB_DIM_MAX 24
#define MB_MAX_GAPS 8
#define MB_MAX_SEG 256
#define MB_MAX_IMPACTS 512

typedef struct mb_motion mb_motion;

typedef struct {
    double t0, h;  /* s */
    int n;         /* checkpoints y[k] at t0 + k h */
    double *y;     /* n x dim */
    synth_state s0[ICV_MAX_BODIES]; /* R and omega at t0 (a sphere turns at constant omega) */
} mb_seg;

typedef struct {
    int dim;
    /* y at release (sc->release and the kind's constants) */
    void (*init)(mb_motion *m, double *y);
    /* dy/dt (autonomous) */
    void (*rhs)(const mb_motion *m, const double *y, double *dy);
    /* every body's state from y at time t of segment sg */
    void (*states)(const mb_motion *m, const mb_seg *sg, double t, const double *y, synth_state *out);
    /* the gaps (m; a contact where one falls to 0): returns how many */
    int (*gaps)(const mb_motion *m, const double *y, double *g);
    /* the impacts at contact gap j, time t: y in, y out, records through mb_record */
    int (*impact)(mb_motion *m, int j, double t, double *y, icv_err *err);
} mb_kind;

struct mb_motion {
    const synth_scenario *sc;
    const mb_kind *kind;
    int nb;
    double t_release;
    double y_release[MB_DIM_MAX];
    int n_seg;
    mb_seg seg[MB_MAX_SEG];
    int n_impacts;
    synth_mb_impact *imp; /* MB_MAX_IMPACTS */
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver *drv;
    char note[256];
    double par[16];       /* the kind's constants */
    synth_state pending[ICV_MAX_BODIES]; /* rotations (R, omega) at the next segment's start */
};

/* y at time t (after release) */
void mb_y_at(const mb_motion *m, double t, double *y);
/* appends an impact record; pre and post every body's states */
synth_mb_impact *mb_record(mb_motion *m);

extern const mb_kind mb_kind_collision, mb_kind_chain, mb_kind_cradle;
/* The kinds' scenes (mb_collision.c, mb_chain.c, mb_cradle.c) and their initial y. */
void mb_collision_scene(uint64_t *rng, int draw, synth_scenario *sc);
void mb_chain_scene(uint64_t *rng, int draw, synth_scenario *sc);
void mb_cradle_scene(uint64_t *rng, int draw, synth_scenario *sc);
void mb_table_scene(uint64_t *rng, int draw, synth_scenario *sc);

/* shared by the scene builders: a camera at eye looking at target, up +y */
void mb_camera(synth_scenario *sc, int i, const char *id, int w, int h, double fx, double fps, double exposure,
               int frames, icv_vec3 eye, icv_vec3 target);

#endif
