/* bodies_files.c: the files the several-body tests hand to impactcv: synth's
 * experiment without its cameras (another system's tracks) and its true markers as a
 * TRC. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>

#include "tests/job/bodies_files.h"

static void write_shape(FILE *f, const icv_shape *s)
{
    switch (s->type) {
    case ICV_SHAPE_SPHERE:
        fprintf(f, "    shape: {type: sphere, radius: %.17g}\n", s->radius);
        break;
    case ICV_SHAPE_CAPSULE:
    case ICV_SHAPE_CYLINDER:
        fprintf(f, "    shape: {type: %s, axis: [%.17g, %.17g, %.17g], length: %.17g, radius: %.17g}\n",
                icv_shape_name(s->type), s->axis.x, s->axis.y, s->axis.z, s->length, s->radius);
        break;
    case ICV_SHAPE_BOX:
        fprintf(f, "    shape: {type: box, size: [%.17g, %.17g, %.17g]}\n", s->size.x, s->size.y, s->size.z);
        break;
    default:
        fprintf(f, "    shape: {type: points, points: [");
        for (int i = 0; i < s->n_points; i++)
            fprintf(f, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", s->points[i].x, s->points[i].y, s->points[i].z);
        fprintf(f, "]}\n");
    }
}

/* synth's experiment without its cameras (tracks from another system, in the truth's
 * surface frame), each body's markers labelled <name>_<k>, its joints; body
 * `scale_body`'s mass multiplied by mass_scale */
static int write_experiment(const icv_experiment *e, const double g[3], const char *path, int scale_body,
                            double mass_scale, int exported)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "name: %s\nsurface: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}\ngravity: [%.17g, %.17g, %.17g]\n"
               "bodies:\n",
            e->name, g[0], g[1], g[2]);
    for (int k = 0; k < e->n_bodies; k++) {
        const icv_body *b = &e->bodies[k];
        fprintf(f, "  - name: %s\n    mass: %.17g\n    inertia: [", b->name, b->mass * (k == scale_body ? mass_scale : 1));
        for (int i = 0; i < 3; i++)
            fprintf(f, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", b->inertia.m[i][0], b->inertia.m[i][1],
                    b->inertia.m[i][2]);
        fprintf(f, "]\n    markers: [");
        for (int m = 0; m < b->n_markers; m++)
            fprintf(f, "%s[%.17g, %.17g, %.17g]", m ? ", " : "", b->markers[m].x, b->markers[m].y, b->markers[m].z);
        fprintf(f, "]\n    marker_labels: [");
        for (int m = 0; m < b->n_markers; m++)
            fprintf(f, exported ? "%s%s_m%d" : "%s%s_%d", m ? ", " : "", b->name, exported ? m : m + 1);
        fprintf(f, "]\n");
        write_shape(f, &b->shape);
        if (b->pendulum_length > 0)
            fprintf(f, "    pendulum: {length: %.17g}\n", b->pendulum_length);
    }
    if (e->n_joints > 0)
        fprintf(f, "joints:\n");
    for (int k = 0; k < e->n_joints; k++) {
        const icv_joint *j = &e->joints[k];
        const char *a = e->bodies[j->body[0]].name, *b = e->bodies[j->body[1]].name;
        fprintf(f, "  - {type: pin, bodies: [%s, %s], at: {%s: [%.17g, %.17g, %.17g], %s: [%.17g, %.17g, %.17g]}}\n", a,
                b, a, j->at[0].x, j->at[0].y, j->at[0].z, b, j->at[1].x, j->at[1].y, j->at[1].z);
    }
    return fclose(f);
}

int bodies_write_experiment(const icv_experiment *e, const double g[3], const char *path, int scale_body,
                            double mass_scale)
{
    return write_experiment(e, g, path, scale_body, mass_scale, 0);
}

int bodies_write_experiment_exported(const icv_experiment *e, const double g[3], const char *path)
{
    return write_experiment(e, g, path, -1, 1, 1);
}

/* truth.json's markers_3d (every body's markers in order) with noise, as a TRC in m */
int bodies_write_trc(const icv_experiment *e, json_t *frames, unsigned long seed, double noise_m, const char *path)
{
    size_t nf = json_array_size(frames);
    if (nf < 2)
        return -1;
    double dt = json_real_value(json_object_get(json_array_get(frames, 1), "time_s")) -
                json_real_value(json_object_get(json_array_get(frames, 0), "time_s"));
    int nm = 0;
    for (int k = 0; k < e->n_bodies; k++)
        nm += e->bodies[k].n_markers;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "PathFileType\t4\t(X/Y/Z)\tbodies.trc\nDataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\t"
               "OrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n%.6f\t%.6f\t%zu\t%d\tm\t%.6f\t1\t%zu\nFrame#\tTime",
            1 / dt, 1 / dt, nf, nm, 1 / dt, nf);
    for (int k = 0; k < e->n_bodies; k++)
        for (int m = 0; m < e->bodies[k].n_markers; m++)
            fprintf(f, "\t%s_%d\t\t", e->bodies[k].name, m + 1);
    fprintf(f, "\n\t");
    for (int i = 0; i < nm; i++)
        fprintf(f, "\tX%d\tY%d\tZ%d", i + 1, i + 1, i + 1);
    fprintf(f, "\n\n");
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    for (size_t i = 0; i < nf; i++) {
        json_t *fr = json_array_get(frames, i), *pos = json_object_get(fr, "positions");
        fprintf(f, "%zu\t%.9f", i + 1, json_real_value(json_object_get(fr, "time_s")));
        for (int m = 0; m < nm; m++)
            for (int a = 0; a < 3; a++)
                fprintf(f, "\t%.8f", json_real_value(json_array_get(json_array_get(pos, (size_t)m), (size_t)a)) +
                                         gsl_ran_gaussian(rng, noise_m));
        fprintf(f, "\n");
    }
    gsl_rng_free(rng);
    return fclose(f);
}
