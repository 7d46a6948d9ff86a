/* truth.c: truth.json, schema impactcv-truth-1 (../shared/spec/contract.md): what a
 * perfect pipeline would report. Impacts at the exact contact instant; each camera's
 * true model; marker positions at the reference camera's frame times and each
 * camera's projections at mid-exposure of its frames (null where hidden). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth_internal.h"

json_t *synth_json_vec(icv_vec3 v) { return json_pack("[fff]", v.x, v.y, v.z); }

json_t *synth_json_mat(icv_mat3 m)
{
    json_t *a = json_array();
    for (int i = 0; i < 3; i++)
        json_array_append_new(a, json_pack("[fff]", m.m[i][0], m.m[i][1], m.m[i][2]));
    return a;
}

/* the contract's surface frame (synth_surface_frame): x' = Q (x - C) */
static icv_mat3 Q;
static icv_vec3 C;
static icv_vec3 tp(icv_vec3 x) { return icv_m3_apply(Q, icv_v3_sub(x, C)); }
static icv_vec3 tv(icv_vec3 v) { return icv_m3_apply(Q, v); }

static icv_vec3 contact_velocity(const synth_state *s, icv_vec3 point)
{
    return icv_v3_add(s->v, icv_v3_cross(s->omega, icv_v3_sub(point, s->p)));
}

static json_t *jside(const synth_state *s, icv_vec3 point)
{
    icv_vec3 e;
    icv_euler213_from_matrix(icv_m3_mul(Q, s->R), &e);
    return json_pack("{s:o,s:o,s:o,s:o}", "v", synth_json_vec(tv(s->v)), "omega", synth_json_vec(tv(s->omega)),
                     "euler213", synth_json_vec(e), "contact_velocity", synth_json_vec(tv(contact_velocity(s, point))));
}

static json_t *jimpact(const synth_scenario *sc, const synth_impact *im)
{
    icv_vec3 cpre = contact_velocity(&im->pre, im->contact_point);
    icv_vec3 cpost = contact_velocity(&im->post, im->contact_point);
    double e_kin = cpre.y != 0 ? -cpost.y / cpre.y : 0;
    double ratio = im->impulse.y != 0 ? hypot(im->impulse.x, im->impulse.z) / im->impulse.y : 0;
    double Epre = synth_state_energy(&sc->body, &im->pre), Epost = synth_state_energy(&sc->body, &im->post);
    json_t *o = json_object();
    json_object_set_new(o, "time_s", json_real(im->time_s));
    json_object_set_new(o, "pre", jside(&im->pre, im->contact_point));
    json_object_set_new(o, "post", jside(&im->post, im->contact_point));
    json_object_set_new(o, "contact_point", synth_json_vec(tp(im->contact_point)));
    json_object_set_new(o, "impulse", synth_json_vec(tv(im->impulse)));
    json_object_set_new(o, "e_kinematic", json_real(e_kin));
    json_object_set_new(o, "impulse_ratio", json_real(ratio));
    json_object_set_new(o, "energy", json_pack("{s:f,s:f,s:f}", "pre_J", Epre, "post_J", Epost, "loss_fraction",
                                               Epre > 0 ? 1 - Epost / Epre : 0.0));
    json_object_set_new(o, "case", json_string(im->case_name));
    return o;
}

static json_t *jcamera(const synth_camera *c)
{
    const synth_camera_model *m = &c->model;
    icv_mat3 K = {{{m->fx, 0, m->cx}, {0, m->fy, m->cy}, {0, 0, 1}}};
    return json_pack("{s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:o,s:[fffff],s:o,s:o}", "id", c->id, "width", m->width, "height",
                     m->height, "fps", c->fps, "exposure_s", c->exposure_s, "start_offset_frames",
                     c->start_offset_frames, "line_delay_s", c->line_delay_s, "K", synth_json_mat(K), "dist",
                     m->dist[0], m->dist[1], m->dist[2], m->dist[3], m->dist[4], "R",
                     synth_json_mat(icv_m3_mul(m->R, Q)), "t", synth_json_vec(icv_v3_add(icv_m3_apply(m->R, C), m->t)));
}

int synth_truth_write(const char *path, const synth_scenario *sc, const synth_flight *f,
                      const double *const *centroids, icv_err *err)
{
    /* x_cam = R x + t = (R Q) x' + (R C + t) for x = Q x' + C (Q = Q^T = Q^-1) */
    int flipped = synth_surface_frame(sc, &Q, &C);
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("impactcv-truth-1"));
    if (flipped)
        json_object_set_new(root, "surface_frame_note",
                            json_string("the simulation's frame turned half a turn about the normal, origin at the "
                                        "board's last corner: the frame the detector finds (docs/synth.md)"));
    json_object_set_new(root, "scenario", json_string(sc->name));
    json_object_set_new(root, "restitution", json_string(icv_restitution_name(sc->restitution)));
    json_object_set_new(root, "mu", json_real(sc->mu_k));
    json_object_set_new(root, "mu_s", json_real(sc->mu_s));
    json_object_set_new(root, "mu_k", json_real(sc->mu_k));
    json_object_set_new(root, "e_n", json_real(sc->e_n));
    json_object_set_new(root, "gravity", synth_json_vec(tv(sc->gravity)));
    json_object_set_new(root, "release_time_s", json_real(sc->release_time_s));
    if (synth_flight_note(f)[0])
        json_object_set_new(root, "note", json_string(synth_flight_note(f)));
    if (sc->n_bodies >= 1 && synth_mb_note(f)[0])
        json_object_set_new(root, "note", json_string(synth_mb_note(f)));
    json_t *cams = json_array();
    for (int i = 0; i < sc->n_cameras; i++)
        json_array_append_new(cams, jcamera(&sc->cameras[i]));
    json_object_set_new(root, "cameras", cams);
    json_t *imps = json_array();
    for (int i = 0; i < synth_flight_n_impacts(f); i++)
        json_array_append_new(imps, jimpact(sc, synth_flight_impact(f, i)));
    json_object_set_new(root, "impacts", imps);

    int nm = synth_n_markers(sc);
    json_t *m3 = json_array();
    const synth_camera *c0 = &sc->cameras[0];
    for (int n = 0; n < c0->n_frames; n++) {
        double t = synth_camera_frame_time(c0, n);
        synth_state s[ICV_MAX_BODIES];
        synth_flight_states_at(f, t, s);
        json_t *pos = json_array();
        for (int k = 0; k < nm; k++) {
            int bi, kl;
            const synth_body *b = synth_marker_body(sc, k, &bi, &kl);
            json_array_append_new(pos, synth_json_vec(tp(icv_v3_add(icv_m3_apply(s[bi].R, b->markers[kl]), s[bi].p))));
        }
        json_array_append_new(m3, json_pack("{s:i,s:f,s:o}", "frame", n, "time_s", t, "positions", pos));
    }
    json_object_set_new(root, "markers_3d", m3);

    json_t *m2 = json_object();
    synth_renderer geo;
    for (int ci = 0; ci < sc->n_cameras; ci++) {
        const synth_camera *c = &sc->cameras[ci];
        memset(&geo, 0, sizeof geo);
        synth_render_geometry_init(&geo, sc, ci);
        json_t *frames = json_array();
        for (int n = 0; n < c->n_frames; n++) {
            json_t *uv = json_array();
            for (int k = 0; k < nm; k++) {
                double p[2];
                if (synth_marker_frame_uv(&geo, f, n, k, p))
                    json_array_append_new(uv, json_pack("[ff]", p[0], p[1]));
                else
                    json_array_append_new(uv, json_null());
            }
            json_array_append_new(frames, json_pack("{s:i,s:o}", "frame", n, "uv", uv));
        }
        json_object_set_new(m2, c->id, frames);
    }
    json_object_set_new(root, "markers_2d", m2);
    if (centroids) {
        json_t *mc = json_object();
        for (int ci = 0; ci < sc->n_cameras; ci++) {
            const synth_camera *c = &sc->cameras[ci];
            json_t *frames = json_array();
            for (int n = 0; n < c->n_frames; n++) {
                json_t *uv = json_array();
                for (int k = 0; k < nm; k++) {
                    const double *p = centroids[ci] + 2 * ((size_t)n * nm + k);
                    json_array_append_new(uv, isnan(p[0]) ? json_null() : json_pack("[ff]", p[0], p[1]));
                }
                json_array_append_new(frames, json_pack("{s:i,s:o}", "frame", n, "uv", uv));
            }
            json_object_set_new(mc, c->id, frames);
        }
        json_object_set_new(root, "markers_2d_centroid", mc);
    }

    synth_coeff_truth(sc, root);
    if (sc->n_bodies >= 1)
        synth_mb_truth(sc, f, root, Q, C);
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(15));
    json_decref(root);
    if (!text)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    int rc = icv_atomic_write(path, text, strlen(text), err);
    free(text);
    return rc;
}
