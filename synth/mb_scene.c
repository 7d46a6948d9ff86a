/* mb_scene.c: several-body scenes (docs/synth.md "Several bodies"): the marker
 * numbering across bodies, the `multibody:` scenario key and the kinds' scenes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "synth/mb_internal.h"
#include "synth/synth_internal.h"

int synth_n_markers(const synth_scenario *sc)
{
    if (sc->n_bodies < 1)
        return sc->body.n_markers;
    int n = 0;
    for (int i = 0; i < sc->n_bodies; i++)
        n += sc->bodies[i].n_markers;
    return n;
}

const synth_body *synth_marker_body(const synth_scenario *sc, int k, int *body, int *local)
{
    if (sc->n_bodies < 1) {
        *body = 0;
        *local = k;
        return &sc->body;
    }
    for (int i = 0; i < sc->n_bodies; i++) {
        if (k < sc->bodies[i].n_markers) {
            *body = i;
            *local = k;
            return &sc->bodies[i];
        }
        k -= sc->bodies[i].n_markers;
    }
    *body = *local = 0;
    return &sc->bodies[0];
}

void mb_camera(synth_scenario *sc, int i, const char *id, int w, int h, double fx, double fps, double exposure,
               int frames, icv_vec3 eye, icv_vec3 target)
{
    synth_camera *c = &sc->cameras[i];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    c->model.width = w;
    c->model.height = h;
    c->model.fx = c->model.fy = fx;
    c->model.cx = (w - 1) / 2.0;
    c->model.cy = (h - 1) / 2.0;
    icv_err e;
    synth_camera_look_at(&c->model, eye, target, icv_v3(0, 1, 0), &e); /* eye != target: cannot fail */
    c->fps = fps;
    c->exposure_s = exposure;
    c->n_frames = frames;
}

static const char *kind_name(int kind)
{
    static const char *names[] = {"", "collision", "chain", "cradle", "table"};
    return names[kind];
}

int synth_mb_scenario(int kind, int draw, synth_scenario *sc, icv_err *err)
{
    return synth_mb_scenario_set_up(kind, draw, 0, 0, sc, err);
}

int synth_mb_scenario_set_up(int kind, int draw, int sparse, double after_s, synth_scenario *sc, icv_err *err)
{
    if (kind < SYNTH_MB_COLLISION || kind > SYNTH_MB_TABLE || draw < 0)
        return icv_err_set(err, ICV_EINVAL, "synth: multibody: unknown kind %d or draw %d", kind, draw);
    if (after_s != 0 && (kind != SYNTH_MB_CHAIN || !(after_s > 0 && after_s <= 1)))
        return icv_err_set(err, ICV_EINVAL, "synth: multibody: after %g s: only a chain takes it, in (0, 1] s",
                           after_s);
    synth_scenario_defaults(sc);
    sc->mb_after_s = after_s;
    sc->mb_kind = kind;
    sc->mb_draw = draw;
    sc->mb_sparse = sparse && (kind == SYNTH_MB_COLLISION || kind == SYNTH_MB_TABLE);
    snprintf(sc->name, sizeof sc->name, "%s_%d%s", kind_name(kind), draw, sc->mb_sparse ? "_sparse" : "");
    sc->seed = 7000 + 10 * (unsigned long)draw + (unsigned long)kind;
    uint64_t rng = synth_stream(0x6d756c7469ull + (uint64_t)draw, (uint64_t)kind, 0);
    sc->release_time_s = 0;
    sc->max_impacts = SYNTH_MAX_IMPACTS; /* contact instants (a cradle's has several pairs) */
    if (kind == SYNTH_MB_COLLISION)
        mb_collision_scene(&rng, draw, sc);
    else if (kind == SYNTH_MB_TABLE)
        mb_table_scene(&rng, draw, sc);
    else if (kind == SYNTH_MB_CHAIN)
        mb_chain_scene(&rng, draw, sc);
    else
        mb_cradle_scene(&rng, draw, sc);
    /* pendulums, pucks held by the table and pinned links show no body in free flight:
       experiment.yaml gives the true gravity; the balls' lab gives it too (a careful
       experimentalist levels the plate and knows g: each side's fit then has the
       parabola's known curvature); their sparse set-up leaves it to be found (auto) */
    sc->experiment_gravity_given = kind != SYNTH_MB_COLLISION || !sc->mb_sparse;
    sc->body = sc->bodies[0]; /* the look, and what one-body code reads */
    sc->release = sc->releases[0];
    sc->planar = sc->n_cameras == 1;
    sc->e_n = sc->mb_e;
    sc->mu_s = sc->mu_k = sc->mb_mu;
    sc->restitution = ICV_RESTITUTION_NEWTON;
    return synth_scenario_validate(sc, err);
}

int synth_mb_scenario_read(icv_ynode root, synth_scenario *sc, int *found, icv_err *err)
{
    icv_ynode mb = icv_ynode_get(root, "multibody");
    *found = icv_ynode_exists(mb);
    if (!*found)
        return 0;
    if (!icv_ynode_is_map(mb))
        return icv_ynode_fail(mb, err, ICV_EINVAL,
                              "expected {kind: collision | table | chain | cradle, draw: N, set_up: lab | sparse, "
                              "after: s}");
    char k[32] = "", su[32] = "lab";
    int draw = 0;
    double after = 0;
    SYNTH_TRY(icv_yread_str(mb, "kind", 1, k, sizeof k, err));
    SYNTH_TRY(icv_yread_int(mb, "draw", 0, &draw, err));
    SYNTH_TRY(icv_yread_str(mb, "set_up", 0, su, sizeof su, err));
    SYNTH_TRY(icv_yread_double(mb, "after", 0, &after, err));
    if (strcmp(su, "lab") && strcmp(su, "sparse"))
        return icv_ynode_fail(icv_ynode_get(mb, "set_up"), err, ICV_EINVAL, "unknown set_up '%s' (lab | sparse)", su);
    int kind = !strcmp(k, "collision") ? SYNTH_MB_COLLISION
               : !strcmp(k, "chain")   ? SYNTH_MB_CHAIN
               : !strcmp(k, "cradle")  ? SYNTH_MB_CRADLE
               : !strcmp(k, "table")   ? SYNTH_MB_TABLE
                                       : 0;
    if (!kind)
        return icv_ynode_fail(icv_ynode_get(mb, "kind"), err, ICV_EINVAL, "unknown kind '%s' (collision | table | "
                              "chain | cradle)", k);
    if (draw < 0)
        return icv_ynode_fail(icv_ynode_get(mb, "draw"), err, ICV_EINVAL, "must be >= 0, got %d", draw);
    if (icv_ynode_exists(icv_ynode_get(mb, "after")) && (kind != SYNTH_MB_CHAIN || !(after > 0 && after <= 1)))
        return icv_ynode_fail(icv_ynode_get(mb, "after"), err, ICV_EINVAL,
                              "the clip after the impact: only a chain takes it, in (0, 1] s, got %g", after);
    return synth_mb_scenario_set_up(kind, draw, !strcmp(su, "sparse"), after, sc, err);
}
