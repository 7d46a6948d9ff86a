/* experiment_digest.c: the parts of the parsed experiment model each stage of
 * `impactcv run` reads, into a stage's key. The model, not the file's text: comments,
 * layout and the spelling of a number do not count, and paths count relative to the
 * experiment's folder (a moved or copied folder keeps its cache; the files' bytes are
 * hashed by run.c). */
#include <string.h>

#include "job/job_internal.h"

static void hash_path(job_hash *h, const icv_experiment *e, const char *path)
{
    size_t n = strlen(e->dir);
    if (n && !strncmp(path, e->dir, n) && path[n] == '/')
        path += n + 1;
    job_hash_str(h, path);
}

static void hash_vec3(job_hash *h, icv_vec3 v)
{
    job_hash_double(h, v.x);
    job_hash_double(h, v.y);
    job_hash_double(h, v.z);
}

static void hash_doubles(job_hash *h, const double *x, int n)
{
    for (int i = 0; i < n; i++)
        job_hash_double(h, x[i]);
}

static void hash_shape(job_hash *h, const icv_shape *s)
{
    job_hash_int(h, s->type);
    hash_vec3(h, s->axis);
    job_hash_double(h, s->length);
    job_hash_double(h, s->radius);
    hash_vec3(h, s->size);
    job_hash_int(h, s->n_points);
    for (int i = 0; i < s->n_points; i++)
        hash_vec3(h, s->points[i]);
}

static void hash_cameras(job_hash *h, const icv_experiment *e)
{
    job_hash_str(h, "cameras");
    job_hash_int(h, e->n_cameras);
    for (int k = 0; k < e->n_cameras; k++) {
        const icv_camera_spec *c = &e->cameras[k];
        job_hash_str(h, c->id);
        hash_path(h, e, c->video);
        job_hash_double(h, c->capture_fps);
        job_hash_double(h, c->exposure_s);
        job_hash_int(h, c->has_roi);
        for (int i = 0; i < 4; i++)
            job_hash_int(h, c->roi[i]);
        hash_path(h, e, c->mask);
        job_hash_int(h, c->has_frames);
        job_hash_int(h, c->frames[0]);
        job_hash_int(h, c->frames[1]);
    }
}

/* calibration, surface, motion_plane, sync */
static void hash_geometry(job_hash *h, const icv_experiment *e)
{
    job_hash_str(h, "calibration");
    job_hash_int(h, e->has_calibration);
    job_hash_int(h, e->board_cols);
    job_hash_int(h, e->board_rows);
    job_hash_double(h, e->board_square);
    for (int k = 0; k < ICV_MAX_CAMERAS; k++)
        hash_path(h, e, e->calib_images[k]);
    hash_path(h, e, e->calib_file);
    job_hash_str(h, "surface");
    job_hash_int(h, e->surface_kind);
    for (int k = 0; k < ICV_MAX_CAMERAS; k++)
        hash_path(h, e, e->surface_images[k]);
    hash_vec3(h, e->plane_point);
    hash_vec3(h, e->plane_normal);
    hash_doubles(h, &e->line_px[0][0], 4);
    job_hash_str(h, "motion_plane");
    job_hash_int(h, e->scale_kind);
    for (int k = 0; k < ICV_MAX_CAMERAS; k++)
        hash_path(h, e, e->motion_plane_images[k]);
    hash_doubles(h, &e->scale_points_px[0][0], 4);
    job_hash_double(h, e->scale_distance);
    job_hash_double(h, e->scale_size);
    job_hash_str(h, "sync");
    job_hash_int(h, e->sync);
    hash_doubles(h, e->sync_offsets, ICV_MAX_CAMERAS);
}

static void hash_track_keys(job_hash *h, const icv_track_keys *t)
{
    job_hash_str(h, "track");
    job_hash_double(h, t->threshold);
    job_hash_double(h, t->threshold_fraction);
    job_hash_double(h, t->min_circularity);
    job_hash_int(h, t->max_coast);
    job_hash_int(h, t->markers);
    hash_doubles(h, t->color, 3);
    job_hash_double(h, t->tolerance);
}

/* body.markers, body.marker_diameter, body.marker_shape, body.shape: what the track
 * stage reads of the body (marker_shape only when not the default band, so the digests
 * of experiments written before the key stay as they were) */
static void hash_body_geometry(job_hash *h, const icv_experiment *e)
{
    job_hash_str(h, "body.markers");
    job_hash_int(h, e->n_markers);
    for (int i = 0; i < e->n_markers; i++)
        hash_vec3(h, e->markers[i]);
    job_hash_double(h, e->marker_diameter);
    if (e->marker_shape != ICV_MARKER_BAND)
        job_hash_int(h, e->marker_shape);
    hash_shape(h, &e->shape);
}

static void hash_body(job_hash *h, const icv_experiment *e)
{
    hash_body_geometry(h, e);
    job_hash_str(h, "body");
    job_hash_double(h, e->mass);
    hash_doubles(h, &e->inertia.m[0][0], 9);
    for (int i = 0; i < e->n_markers; i++)
        job_hash_str(h, e->marker_labels[i]);
}

static void hash_gravity(job_hash *h, const icv_experiment *e)
{
    job_hash_str(h, "gravity");
    job_hash_int(h, e->gravity_auto);
    hash_vec3(h, e->gravity);
}

static void hash_coefficients(job_hash *h, const icv_experiment *e)
{
    job_hash_str(h, "experiment");
    job_hash_str(h, e->kind);
    job_hash_int(h, e->has_tilt_angle);
    job_hash_double(h, e->tilt_angle_deg);
    job_hash_double(h, e->tilt_angle_sd_deg);
    for (int k = 0; k < ICV_MAX_CAMERAS; k++)
        hash_path(h, e, e->level_images[k]);
    job_hash_int(h, e->incline_from_flight);
}

/* Several bodies: each one's template, mass, inertia, labels and shape, and the
 * joints (one body's are the one-body fields above: its keys stay as they were). */
static void hash_bodies(job_hash *h, const icv_experiment *e)
{
    if (e->n_bodies <= 1)
        return;
    job_hash_str(h, "bodies");
    job_hash_int(h, e->n_bodies);
    for (int k = 0; k < e->n_bodies; k++) {
        const icv_body *b = &e->bodies[k];
        job_hash_str(h, b->name);
        job_hash_double(h, b->mass);
        hash_doubles(h, &b->inertia.m[0][0], 9);
        job_hash_int(h, b->n_markers);
        for (int i = 0; i < b->n_markers; i++) {
            hash_vec3(h, b->markers[i]);
            job_hash_str(h, b->marker_labels[i]);
        }
        job_hash_double(h, b->marker_diameter);
        if (b->marker_shape != ICV_MARKER_BAND)
            job_hash_int(h, b->marker_shape);
        hash_shape(h, &b->shape);
    }
    job_hash_int(h, e->n_joints);
    for (int k = 0; k < e->n_joints; k++) {
        const icv_joint *j = &e->joints[k];
        job_hash_int(h, j->type);
        job_hash_int(h, j->body[0]);
        job_hash_int(h, j->body[1]);
        hash_vec3(h, j->at[0]);
        hash_vec3(h, j->at[1]);
    }
}

void job_hash_experiment(job_hash *h, const icv_experiment *e, int stage)
{
    hash_bodies(h, e);
    switch (stage) {
    case JOB_STAGE_TRACK:
        hash_cameras(h, e);
        hash_geometry(h, e);
        hash_track_keys(h, &e->track);
        hash_body_geometry(h, e);
        break;
    case JOB_STAGE_ANALYZE:
        hash_body(h, e);
        hash_gravity(h, e);
        break;
    case JOB_STAGE_MODEL:
        job_hash_str(h, e->name);
        hash_body(h, e);
        break;
    case JOB_STAGE_REPORT: /* the report may show any of it (the model's values: run.c) */
        job_hash_str(h, e->name);
        hash_cameras(h, e);
        hash_geometry(h, e);
        hash_track_keys(h, &e->track);
        hash_body(h, e);
        hash_gravity(h, e);
        hash_coefficients(h, e);
        break;
    default: /* overlays, exports */
        hash_body(h, e);
        break;
    }
}
