/* mb_truth.c: a several-body scene's keys of truth.json (`bodies`, `joints`,
 * `body_states`, `body_impacts`: docs/synth.md "Several bodies") and of
 * experiment.yaml (`bodies:`, `joints:`: docs/experiment.md). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "synth/synth_internal.h"

static icv_mat3 Q;
static icv_vec3 C;
static icv_vec3 tp(icv_vec3 x) { return icv_m3_apply(Q, icv_v3_sub(x, C)); }
static icv_vec3 tv(icv_vec3 v) { return icv_m3_apply(Q, v); }

static json_t *jstate(const synth_scenario *sc, int i, const synth_state *s)
{
    icv_vec3 e;
    icv_euler213_from_matrix(icv_m3_mul(Q, s->R), &e);
    return json_pack("{s:s,s:o,s:o,s:o,s:o,s:f}", "name", sc->body_names[i], "p", synth_json_vec(tp(s->p)), "v",
                     synth_json_vec(tv(s->v)), "omega", synth_json_vec(tv(s->omega)), "euler213", synth_json_vec(e),
                     "energy_J", synth_state_energy(&sc->bodies[i], s));
}

/* momentum, angular momentum about the truth frame's origin, kinetic energy */
static json_t *jtotals(const synth_scenario *sc, const synth_state *s)
{
    icv_vec3 p = icv_v3(0, 0, 0), L = icv_v3(0, 0, 0);
    double T = 0;
    for (int i = 0; i < sc->n_bodies; i++) {
        const synth_body *b = &sc->bodies[i];
        icv_vec3 pi = icv_v3_scale(tv(s[i].v), b->mass);
        p = icv_v3_add(p, pi);
        L = icv_v3_add(L, icv_v3_add(icv_v3_cross(tp(s[i].p), pi), tv(synth_state_angular_momentum(b, &s[i]))));
        T += synth_state_energy(b, &s[i]);
    }
    return json_pack("{s:o,s:o,s:f}", "momentum", synth_json_vec(p), "angular_momentum", synth_json_vec(L), "energy_J",
                     T);
}

static icv_vec3 point_velocity(const synth_state *s, icv_vec3 x)
{
    return icv_v3_add(s->v, icv_v3_cross(s->omega, icv_v3_sub(x, s->p)));
}

static json_t *jimpact(const synth_scenario *sc, const synth_mb_impact *im)
{
    json_t *o = json_object();
    json_object_set_new(o, "time_s", json_real(im->time_s));
    json_object_set_new(o, "bodies", json_pack("[ss]", sc->body_names[im->a], im->b < 0 ? "surface" :
                                                                                   sc->body_names[im->b]));
    json_object_set_new(o, "contact_point", synth_json_vec(tp(im->contact_point)));
    json_object_set_new(o, "normal", synth_json_vec(tv(im->normal)));
    json_object_set_new(o, "impulse", synth_json_vec(tv(im->impulse)));
    if (sc->n_joints > 0)
        json_object_set_new(o, "joint_impulse", synth_json_vec(tv(im->joint_impulse)));
    /* what Newton's ratio and the impulse ratio come to along the normal */
    icv_vec3 upre = point_velocity(&im->pre[im->a], im->contact_point);
    icv_vec3 upost = point_velocity(&im->post[im->a], im->contact_point);
    if (im->b >= 0) {
        upre = icv_v3_sub(point_velocity(&im->pre[im->b], im->contact_point), upre);
        upost = icv_v3_sub(point_velocity(&im->post[im->b], im->contact_point), upost);
    }
    double unpre = icv_v3_dot(upre, im->normal), unpost = icv_v3_dot(upost, im->normal);
    if (im->b >= 0) { /* b relative to a along n from a: approaching is negative */
        unpre = -unpre;
        unpost = -unpost;
    }
    double Pn = fabs(icv_v3_dot(im->impulse, im->normal));
    double Pt = icv_v3_norm(icv_v3_axpy(-icv_v3_dot(im->impulse, im->normal), im->normal, im->impulse));
    json_object_set_new(o, "e", json_real(im->e));
    json_object_set_new(o, "e_kinematic", json_real(unpre != 0 ? -unpost / unpre : 0));
    json_object_set_new(o, "mu", json_real(im->mu));
    json_object_set_new(o, "impulse_ratio", json_real(Pn > 0 ? Pt / Pn : 0));
    json_object_set_new(o, "case", json_string(im->case_name));
    json_t *pre = json_array(), *post = json_array();
    for (int i = 0; i < sc->n_bodies; i++) {
        json_array_append_new(pre, jstate(sc, i, &im->pre[i]));
        json_array_append_new(post, jstate(sc, i, &im->post[i]));
    }
    json_object_set_new(o, "pre", pre);
    json_object_set_new(o, "post", post);
    json_object_set_new(o, "totals",
                        json_pack("{s:o,s:o}", "pre", jtotals(sc, im->pre), "post", jtotals(sc, im->post)));
    return o;
}

void synth_mb_truth(const synth_scenario *sc, const synth_flight *f, json_t *root, icv_mat3 q, icv_vec3 c)
{
    Q = q;
    C = c;
    json_t *bodies = json_array();
    for (int i = 0, k0 = 0; i < sc->n_bodies; i++) {
        const synth_body *b = &sc->bodies[i];
        json_array_append_new(bodies, json_pack("{s:s,s:f,s:o,s:i,s:i,s:s}", "name", sc->body_names[i], "mass",
                                                b->mass, "inertia", synth_json_mat(b->inertia), "first_marker", k0,
                                                "n_markers", b->n_markers, "shape", icv_shape_name(b->shape.type)));
        k0 += b->n_markers;
    }
    json_object_set_new(root, "bodies", bodies);
    json_t *joints = json_array();
    for (int j = 0; j < sc->n_joints; j++) {
        const icv_joint *jt = &sc->joints[j];
        json_array_append_new(joints, json_pack("{s:s,s:[ss],s:[oo]}", "type", "pin", "bodies",
                                                sc->body_names[jt->body[0]], sc->body_names[jt->body[1]], "at",
                                                synth_json_vec(jt->at[0]), synth_json_vec(jt->at[1])));
    }
    json_object_set_new(root, "joints", joints);
    json_t *states = json_array();
    const synth_camera *c0 = &sc->cameras[0];
    for (int n = 0; n < c0->n_frames; n++) {
        double t = synth_camera_frame_time(c0, n);
        synth_state s[ICV_MAX_BODIES];
        synth_flight_states_at(f, t, s);
        json_t *bs = json_array();
        for (int i = 0; i < sc->n_bodies; i++)
            json_array_append_new(bs, jstate(sc, i, &s[i]));
        json_array_append_new(states, json_pack("{s:i,s:f,s:o,s:o}", "frame", n, "time_s", t, "bodies", bs, "totals",
                                                jtotals(sc, s)));
    }
    json_object_set_new(root, "body_states", states);
    json_t *imps = json_array();
    for (int i = 0; i < synth_mb_n_impacts(f); i++)
        json_array_append_new(imps, jimpact(sc, synth_mb_impact_at(f, i)));
    json_object_set_new(root, "body_impacts", imps);
}

void synth_mb_experiment_keys(const synth_scenario *sc, FILE *fp)
{
    fprintf(fp, "bodies:\n");
    for (int i = 0; i < sc->n_bodies; i++) {
        fprintf(fp, "  - name: %s\n", sc->body_names[i]);
        synth_body_yaml(fp, &sc->bodies[i], "    ");
        if (sc->cradle_length > 0) /* each ball hangs from its own pivot */
            fprintf(fp, "    pendulum: {length: %.17g}\n", sc->cradle_length);
    }
    if (sc->n_joints < 1)
        return;
    fprintf(fp, "joints:\n");
    for (int j = 0; j < sc->n_joints; j++) {
        const icv_joint *jt = &sc->joints[j];
        const char *a = sc->body_names[jt->body[0]], *b = sc->body_names[jt->body[1]];
        fprintf(fp, "  - {type: pin, bodies: [%s, %s], at: {%s: [%.17g, %.17g, %.17g], %s: [%.17g, %.17g, %.17g]}}\n",
                a, b, a, jt->at[0].x, jt->at[0].y, jt->at[0].z, b, jt->at[1].x, jt->at[1].y, jt->at[1].z);
    }
}
