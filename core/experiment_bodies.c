/* experiment_bodies.c: experiment.yaml's `body:` (one body) or `bodies:` (several,
 * each the keys of `body` plus a `name`) and `joints:` (bodies pinned into a chain),
 * with one line for every bad value (docs/experiment.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/experiment_internal.h"

static int read_shape(icv_ynode body, icv_body *b, icv_err *err)
{
    icv_shape *sh = &b->shape;
    icv_ynode s = icv_ynode_get(body, "shape");
    if (!icv_ynode_exists(s)) {
        /* default: the markers themselves are the points that can touch */
        sh->type = ICV_SHAPE_POINTS;
        sh->n_points = b->n_markers;
        memcpy(sh->points, b->markers, sizeof(icv_vec3) * (size_t)b->n_markers);
        return 0;
    }
    if (!icv_ynode_is_map(s))
        return icv_ynode_fail(s, err, ICV_EINVAL, "expected {type: capsule|cylinder|box|sphere|points, ..}");
    char type[32];
    TRY(icv_yread_str(s, "type", 1, type, sizeof type, err));
    icv_ynode tn = icv_ynode_get(s, "type");
    if (!strcmp(type, "capsule") || !strcmp(type, "cylinder")) {
        sh->type = type[1] == 'a' ? ICV_SHAPE_CAPSULE : ICV_SHAPE_CYLINDER;
        sh->axis = icv_v3(0, 1, 0);
        TRY(icv_yread_vec3(s, "axis", 0, &sh->axis, err));
        if (!(icv_v3_norm(sh->axis) > 1e-12))
            return icv_ynode_fail(icv_ynode_get(s, "axis"), err, ICV_EINVAL, "the axis must not be zero");
        sh->axis = icv_v3_unit(sh->axis);
        TRY(icv_yread_double(s, "length", 1, &sh->length, err));
        TRY(icv_yread_double(s, "radius", 1, &sh->radius, err));
        if (!(sh->length > 0))
            return icv_ynode_fail(icv_ynode_get(s, "length"), err, ICV_EINVAL, "must be > 0 (metres)");
        if (!(sh->radius > 0))
            return icv_ynode_fail(icv_ynode_get(s, "radius"), err, ICV_EINVAL, "must be > 0 (metres)");
    } else if (!strcmp(type, "box")) {
        sh->type = ICV_SHAPE_BOX;
        TRY(icv_yread_vec3(s, "size", 1, &sh->size, err));
        if (!(sh->size.x > 0 && sh->size.y > 0 && sh->size.z > 0))
            return icv_ynode_fail(icv_ynode_get(s, "size"), err, ICV_EINVAL, "edge lengths must be > 0 (metres)");
    } else if (!strcmp(type, "sphere")) {
        sh->type = ICV_SHAPE_SPHERE;
        TRY(icv_yread_double(s, "radius", 1, &sh->radius, err));
        if (!(sh->radius > 0))
            return icv_ynode_fail(icv_ynode_get(s, "radius"), err, ICV_EINVAL, "must be > 0 (metres)");
    } else if (!strcmp(type, "points")) {
        sh->type = ICV_SHAPE_POINTS;
        icv_ynode pts = icv_ynode_get(s, "points");
        if (!icv_ynode_is_seq(pts) || icv_ynode_len(pts) < 1 || icv_ynode_len(pts) > ICV_MAX_SHAPE_POINTS)
            return icv_ynode_fail(icv_ynode_exists(pts) ? pts : s, err, ICV_EINVAL,
                                  "points: expected a list of 1 to %d points [x, y, z] (metres, body frame)",
                                  ICV_MAX_SHAPE_POINTS);
        sh->n_points = (int)icv_ynode_len(pts);
        for (int i = 0; i < sh->n_points; i++) {
            double p[3];
            icv_ynode pi = icv_ynode_at(pts, (size_t)i);
            if (!icv_ynode_is_seq(pi) || icv_ynode_len(pi) != 3)
                return icv_ynode_fail(pi, err, ICV_EINVAL, "expected a point [x, y, z]");
            for (size_t k = 0; k < 3; k++)
                TRY(icv_ynode_double(icv_ynode_at(pi, k), &p[k], err));
            sh->points[i] = icv_v3_from_array(p);
        }
    } else {
        return icv_ynode_fail(tn, err, ICV_EINVAL, "unknown shape '%s' (capsule | cylinder | box | sphere | points)",
                              type);
    }
    return 0;
}

/* marker_labels: which markers of a C3D or TRC file are the body's, in the order of
 * its markers (a lab's file holds many more) */
static int read_marker_labels(icv_ynode node, icv_body *b, const char *key, icv_err *err)
{
    icv_ynode l = icv_ynode_get(node, "marker_labels");
    if (!icv_ynode_exists(l))
        return 0;
    if (!icv_ynode_is_seq(l) || icv_ynode_len(l) != (size_t)b->n_markers)
        return icv_ynode_fail(l, err, ICV_EINVAL, "expected a list of %d labels, one per %s.markers entry",
                              b->n_markers, key);
    for (int i = 0; i < b->n_markers; i++) {
        const char *t = icv_ynode_str(icv_ynode_at(l, (size_t)i));
        if (!t || !t[0] || strlen(t) >= sizeof b->marker_labels[i])
            return icv_ynode_fail(icv_ynode_at(l, (size_t)i), err, ICV_EINVAL, "expected a label of 1 to %zu characters",
                                  sizeof b->marker_labels[i] - 1);
        snprintf(b->marker_labels[i], sizeof b->marker_labels[i], "%s", t);
        for (int j = 0; j < i; j++)
            if (!strcmp(b->marker_labels[i], b->marker_labels[j]))
                return icv_ynode_fail(icv_ynode_at(l, (size_t)i), err, ICV_EINVAL, "label '%s' is given twice", t);
    }
    return 0;
}

/* marker_shape: band (default) | sphere */
static int read_marker_shape(icv_ynode node, icv_body *b, icv_err *err)
{
    b->marker_shape = ICV_MARKER_BAND;
    icv_ynode n = icv_ynode_get(node, "marker_shape");
    if (!icv_ynode_exists(n))
        return 0;
    const char *v = icv_ynode_is_scalar(n) ? icv_ynode_str(n) : NULL;
    if (v && !strcmp(v, "band"))
        return 0;
    if (v && !strcmp(v, "sphere")) {
        b->marker_shape = ICV_MARKER_SPHERE;
        return 0;
    }
    return icv_ynode_fail(n, err, ICV_EINVAL, "'%s' is not a marker shape (band | sphere)", v ? v : "");
}

/* One body's keys; key names it in messages ("body" or "bodies[k]"). */
static int read_body(icv_ynode node, const char *key, int n_cameras, icv_body *b, icv_err *err)
{
    if (!icv_ynode_is_map(node))
        return icv_ynode_fail(node, err, ICV_EINVAL, "expected {mass: .., inertia: .., markers: ..}");
    TRY(icv_yread_double(node, "mass", 1, &b->mass, err));
    if (!(b->mass > 0))
        return icv_ynode_fail(icv_ynode_get(node, "mass"), err, ICV_EINVAL, "must be > 0 (kg), got %g", b->mass);
    TRY(icv_yread_mat3(node, "inertia", 1, &b->inertia, err));
    if (!icv_m3_is_spd(b->inertia, 1e-9))
        return icv_ynode_fail(icv_ynode_get(node, "inertia"), err, ICV_EINVAL,
                              "must be symmetric positive definite (kg m^2, about the centre of mass)");
    icv_ynode m = icv_ynode_get(node, "markers");
    if (!icv_ynode_exists(m))
        return icv_ynode_fail(node, err, ICV_EINVAL, "%s.markers: missing (required)", key);
    if (!icv_ynode_is_seq(m))
        return icv_ynode_fail(m, err, ICV_EINVAL, "expected a list of marker centres [x, y, z] (metres, body frame)");
    size_t n = icv_ynode_len(m);
    int need = n_cameras > 1 ? 3 : 1;
    if (n < (size_t)need)
        return icv_ynode_fail(m, err, ICV_EINVAL, "a 3D body (%d cameras) needs at least 3 markers, got %zu",
                              n_cameras, n);
    if (n > ICV_MAX_MARKERS)
        return icv_ynode_fail(m, err, ICV_EINVAL, "at most %d markers are supported, got %zu", ICV_MAX_MARKERS, n);
    b->n_markers = (int)n;
    for (size_t i = 0; i < n; i++) {
        icv_ynode p = icv_ynode_at(m, i);
        double v[3];
        if (!icv_ynode_is_seq(p) || icv_ynode_len(p) != 3)
            return icv_ynode_fail(p, err, ICV_EINVAL, "expected a marker centre [x, y, z] (metres)");
        for (size_t k = 0; k < 3; k++)
            TRY(icv_ynode_double(icv_ynode_at(p, k), &v[k], err));
        b->markers[i] = icv_v3_from_array(v);
        for (size_t j = 0; j < i; j++)
            if (icv_v3_norm(icv_v3_sub(b->markers[i], b->markers[j])) < 1e-6)
                return icv_ynode_fail(p, err, ICV_EINVAL, "marker %zu is at the same place as marker %zu", i, j);
    }
    TRY(read_marker_labels(node, b, key, err));
    b->marker_diameter = 0.01;
    TRY(icv_yread_double(node, "marker_diameter", 0, &b->marker_diameter, err));
    if (!(b->marker_diameter > 0) || b->marker_diameter > 1)
        return icv_ynode_fail(icv_ynode_get(node, "marker_diameter"), err, ICV_EINVAL,
                              "must be in (0, 1] metres, got %g", b->marker_diameter);
    TRY(read_marker_shape(node, b, err));
    b->pendulum_length = 0;
    icv_ynode pend = icv_ynode_get(node, "pendulum");
    if (icv_ynode_exists(pend)) {
        if (!icv_ynode_is_map(pend))
            return icv_ynode_fail(pend, err, ICV_EINVAL,
                                  "expected {length: l} (metres, from the string's pivot to the centre of mass)");
        TRY(icv_yread_double(pend, "length", 1, &b->pendulum_length, err));
        if (!(b->pendulum_length > 0) || b->pendulum_length > 100)
            return icv_ynode_fail(icv_ynode_get(pend, "length"), err, ICV_EINVAL,
                                  "must be in (0, 100] metres (pivot to centre of mass), got %g", b->pendulum_length);
    }
    return read_shape(node, b, err);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* m: a body's inter-marker distances, sorted; returns how many */
static int template_distances(const icv_body *b, double *d)
{
    int n = 0;
    for (int i = 0; i < b->n_markers; i++)
        for (int j = i + 1; j < b->n_markers; j++)
            d[n++] = icv_v3_norm(icv_v3_sub(b->markers[i], b->markers[j]));
    qsort(d, (size_t)n, sizeof *d, cmp_double);
    return n;
}

/* Two bodies of two or more markers whose templates (their inter-marker distances)
 * agree within what the track stage tells apart (3 mm + 3%: track_3d.h's template
 * tolerance) have markers no template can assign to one body or the other. One-marker
 * bodies (balls, pucks, a cradle's beads) have no template: their tracks tell them
 * apart. */
static int check_templates_differ(icv_ynode list, const icv_experiment *e, icv_err *err)
{
    double da[ICV_MAX_MARKERS * ICV_MAX_MARKERS / 2], db[ICV_MAX_MARKERS * ICV_MAX_MARKERS / 2];
    for (int a = 0; a < e->n_bodies; a++)
        for (int b = a + 1; b < e->n_bodies; b++) {
            const icv_body *A = &e->bodies[a], *B = &e->bodies[b];
            if (A->n_markers < 2 || A->n_markers != B->n_markers)
                continue;
            int n = template_distances(A, da);
            template_distances(B, db);
            double worst = 0;
            int same = 1;
            for (int k = 0; k < n && same; k++) {
                double diff = fabs(da[k] - db[k]);
                same = diff <= 0.003 + 0.03 * fmax(da[k], db[k]);
                worst = fmax(worst, diff);
            }
            if (same)
                return icv_ynode_fail(icv_ynode_at(list, (size_t)b), err, ICV_EINVAL,
                                      "bodies '%s' and '%s' have the same marker template (their inter-marker "
                                      "distances differ by at most %.1f mm): their markers cannot be told apart; "
                                      "place one body's markers at other spacings (more than 3 mm + 3%% apart)",
                                      A->name, B->name, 1e3 * worst);
        }
    return 0;
}

static int body_index(const icv_experiment *e, const char *name)
{
    for (int k = 0; k < e->n_bodies; k++)
        if (!strcmp(e->bodies[k].name, name))
            return k;
    return -1;
}

/* joints: [{type: pin, bodies: [a, b], at: {a: [x, y, z], b: [x, y, z]}}] */
static int read_joints(icv_ynode root, icv_experiment *e, icv_err *err)
{
    icv_ynode js = icv_ynode_get(root, "joints");
    if (!icv_ynode_exists(js))
        return 0;
    if (e->n_bodies < 2)
        return icv_ynode_fail(js, err, ICV_EINVAL, "joints tie bodies together: give two or more in bodies:");
    if (!icv_ynode_is_seq(js) || icv_ynode_len(js) > ICV_MAX_BODIES)
        return icv_ynode_fail(js, err, ICV_EINVAL,
                              "expected a list of at most %d {type: pin, bodies: [a, b], at: {a: [x, y, z], b: "
                              "[x, y, z]}}",
                              ICV_MAX_BODIES);
    e->n_joints = (int)icv_ynode_len(js);
    for (int k = 0; k < e->n_joints; k++) {
        icv_ynode j = icv_ynode_at(js, (size_t)k);
        icv_joint *jt = &e->joints[k];
        if (!icv_ynode_is_map(j))
            return icv_ynode_fail(j, err, ICV_EINVAL, "expected {type: pin, bodies: [a, b], at: {a: .., b: ..}}");
        char type[16];
        TRY(icv_yread_str(j, "type", 1, type, sizeof type, err));
        if (strcmp(type, "pin") != 0)
            return icv_ynode_fail(icv_ynode_get(j, "type"), err, ICV_EINVAL, "unknown joint type '%s' (pin)", type);
        jt->type = ICV_JOINT_PIN;
        icv_ynode bs = icv_ynode_get(j, "bodies"), at = icv_ynode_get(j, "at");
        if (!icv_ynode_is_seq(bs) || icv_ynode_len(bs) != 2)
            return icv_ynode_fail(icv_ynode_exists(bs) ? bs : j, err, ICV_EINVAL,
                                  "bodies: expected the two bodies' names [a, b]");
        if (!icv_ynode_is_map(at))
            return icv_ynode_fail(icv_ynode_exists(at) ? at : j, err, ICV_EINVAL,
                                  "at: expected {a: [x, y, z], b: [x, y, z]}, the joint in each body's frame "
                                  "(metres)");
        for (int s = 0; s < 2; s++) {
            const char *name = icv_ynode_str(icv_ynode_at(bs, (size_t)s));
            jt->body[s] = name ? body_index(e, name) : -1;
            if (jt->body[s] < 0)
                return icv_ynode_fail(icv_ynode_at(bs, (size_t)s), err, ICV_EINVAL,
                                      "'%s' is not the name of a body in bodies:", name ? name : "");
            TRY(icv_yread_vec3(at, name, 1, &jt->at[s], err));
        }
        if (jt->body[0] == jt->body[1])
            return icv_ynode_fail(bs, err, ICV_EINVAL, "a joint ties two different bodies");
    }
    return 0;
}

void icv_experiment_use_body(icv_experiment *e, int k)
{
    const icv_body *b = &e->bodies[k];
    e->mass = b->mass;
    e->inertia = b->inertia;
    e->n_markers = b->n_markers;
    memcpy(e->markers, b->markers, sizeof e->markers);
    memcpy(e->marker_labels, b->marker_labels, sizeof e->marker_labels);
    e->marker_diameter = b->marker_diameter;
    e->marker_shape = b->marker_shape;
    e->shape = b->shape;
}

void icv_experiment_use_all_bodies(icv_experiment *e)
{
    e->n_markers = 0;
    e->mass = 0;
    e->marker_diameter = 0;
    for (int k = 0; k < e->n_bodies; k++) {
        const icv_body *b = &e->bodies[k];
        for (int j = 0; j < b->n_markers && e->n_markers < ICV_MAX_MARKERS; j++) {
            e->markers[e->n_markers] = b->markers[j];
            memcpy(e->marker_labels[e->n_markers], b->marker_labels[j], sizeof e->marker_labels[0]);
            e->n_markers++;
        }
        e->mass += b->mass;
        e->marker_diameter = fmax(e->marker_diameter, b->marker_diameter);
    }
    memset(&e->shape, 0, sizeof e->shape);
    e->shape.type = ICV_SHAPE_POINTS;
}

int icv_experiment_first_marker(const icv_experiment *e, int k)
{
    int n = 0;
    for (int i = 0; i < k && i < e->n_bodies; i++)
        n += e->bodies[i].n_markers;
    return n;
}

int icv_experiment_bodies_read(icv_ynode root, icv_experiment *e, icv_err *err)
{
    icv_ynode one = icv_ynode_get(root, "body"), list = icv_ynode_get(root, "bodies");
    if (icv_ynode_exists(one) && icv_ynode_exists(list))
        return icv_ynode_fail(list, err, ICV_EINVAL, "give body: (one body) or bodies: (several), not both");
    if (icv_ynode_exists(one)) {
        e->n_bodies = 1;
        snprintf(e->bodies[0].name, sizeof e->bodies[0].name, "body");
        TRY(read_body(one, "body", e->n_cameras, &e->bodies[0], err));
    } else if (icv_ynode_exists(list)) {
        if (!icv_ynode_is_seq(list) || icv_ynode_len(list) < 1 || icv_ynode_len(list) > ICV_MAX_BODIES)
            return icv_ynode_fail(list, err, ICV_EINVAL,
                                  "expected a list of 1 to %d bodies, each {name: .., mass: .., inertia: .., "
                                  "markers: ..}",
                                  ICV_MAX_BODIES);
        e->n_bodies = (int)icv_ynode_len(list);
        for (int k = 0; k < e->n_bodies; k++) {
            icv_ynode bn = icv_ynode_at(list, (size_t)k);
            icv_body *b = &e->bodies[k];
            char key[32];
            snprintf(key, sizeof key, "bodies[%d]", k);
            if (icv_ynode_is_map(bn))
                TRY(icv_yread_str(bn, "name", 1, b->name, sizeof b->name, err));
            if (!b->name[0] && icv_ynode_is_map(bn))
                return icv_ynode_fail(icv_ynode_get(bn, "name"), err, ICV_EINVAL, "a body's name must not be empty");
            TRY(read_body(bn, key, e->n_cameras, b, err));
            for (int j = 0; j < k; j++)
                if (!strcmp(e->bodies[j].name, b->name))
                    return icv_ynode_fail(icv_ynode_get(bn, "name"), err, ICV_EINVAL,
                                          "body name '%s' is given twice", b->name);
        }
        int total = 0;
        for (int k = 0; k < e->n_bodies; k++)
            total += e->bodies[k].n_markers;
        if (total > ICV_MAX_MARKERS)
            return icv_ynode_fail(list, err, ICV_EINVAL, "the bodies have %d markers together; at most %d are tracked",
                                  total, ICV_MAX_MARKERS);
        TRY(check_templates_differ(list, e, err));
    } else {
        return icv_ynode_fail(root, err, ICV_EINVAL, "body: missing (required; or bodies: for several)");
    }
    TRY(read_joints(root, e, err));
    icv_experiment_use_body(e, 0);
    return 0;
}

int icv_experiment_one_body(const icv_experiment *e, const char *stage, icv_err *err)
{
    if (e->n_bodies <= 1)
        return 0;
    return icv_err_set(err, ICV_EINVAL,
                       "%s: bodies: %d bodies ('%s', '%s'%s); the %s stage follows one body (body:) so far "
                       "(several bodies are analysed from another system's tracks: analyze --tracks)",
                       e->path, e->n_bodies, e->bodies[0].name, e->bodies[1].name, e->n_bodies > 2 ? ", .." : "",
                       stage);
}
