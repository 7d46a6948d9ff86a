/* synth.c: a whole synthetic experiment folder (impactcv synth): the flight with its
 * impacts, each camera's video, calibration shots, the surface (or motion-plane)
 * board image, experiment.yaml exactly per the contract (paths relative), truth.json
 * and a copy of the scenario. Deterministic for a given seed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth_internal.h"

static void yvec(FILE *fp, icv_vec3 v) { fprintf(fp, "[%.17g, %.17g, %.17g]", v.x, v.y, v.z); }

void synth_body_yaml(FILE *fp, const synth_body *b, const char *in)
{
    fprintf(fp, "%smass: %.17g\n%sinertia: [", in, b->mass, in);
    for (int i = 0; i < 3; i++)
        fprintf(fp, "%s[%.17g, %.17g, %.17g]", i ? ", " : "", b->inertia.m[i][0], b->inertia.m[i][1],
                b->inertia.m[i][2]);
    fprintf(fp, "]\n%smarkers: [", in);
    for (int k = 0; k < b->n_markers; k++) {
        fprintf(fp, "%s", k ? ", " : "");
        yvec(fp, b->markers[k]);
    }
    fprintf(fp, "]\n%smarker_diameter: %.17g\n", in, b->marker_diameter);
    const icv_shape *sh = &b->shape;
    /* on a rod, a band or a sphere (a bead where it sits on the axis) shows its centroid
       off its centre by a different shift: say which */
    int rod = sh->type == ICV_SHAPE_CAPSULE || sh->type == ICV_SHAPE_CYLINDER;
    if (rod && b->marker_style == SYNTH_MARKER_BAND)
        fprintf(fp, "%smarker_shape: band\n", in);
    else if (rod && (b->marker_style == SYNTH_MARKER_SPHERE || b->marker_style == SYNTH_MARKER_POST))
        fprintf(fp, "%smarker_shape: sphere\n", in);
    fprintf(fp, "%sshape: {type: %s", in, icv_shape_name(sh->type));
    if (sh->type == ICV_SHAPE_CAPSULE || sh->type == ICV_SHAPE_CYLINDER) {
        fprintf(fp, ", axis: ");
        yvec(fp, sh->axis);
        fprintf(fp, ", length: %.17g, radius: %.17g", sh->length, sh->radius);
    } else if (sh->type == ICV_SHAPE_BOX) {
        fprintf(fp, ", size: ");
        yvec(fp, sh->size);
    } else if (sh->type == ICV_SHAPE_SPHERE) {
        fprintf(fp, ", radius: %.17g", sh->radius);
    } else {
        fprintf(fp, ", points: [");
        for (int k = 0; k < sh->n_points; k++) {
            fprintf(fp, "%s", k ? ", " : "");
            yvec(fp, sh->points[k]);
        }
        fprintf(fp, "]");
    }
    fprintf(fp, "}\n");
}

static int write_experiment(const synth_scenario *sc, const char *dir, icv_err *err)
{
    char path[ICV_PATH_MAX];
    SYNTH_TRY(icv_path_join(path, sizeof path, dir, "experiment.yaml", err));
    icv_atomic_file af;
    SYNTH_TRY(icv_atomic_open(&af, path, err));
    FILE *fp = af.fp;
    const synth_body *b = &sc->body;
    fprintf(fp, "# Written by impactcv synth from scenario '%s' (seed %lu); the truth is in truth.json.\n",
            sc->name, sc->seed);
    fprintf(fp, "name: %s\ncameras:\n", sc->name);
    for (int i = 0; i < sc->n_cameras; i++) {
        const synth_camera *c = &sc->cameras[i];
        if (sc->codec == SYNTH_CODEC_PNG)
            fprintf(fp, "  - id: %s\n    video: \"%s/*.png\"\n    capture_fps: %.17g\n", c->id, c->id, c->fps);
        else
            fprintf(fp, "  - id: %s\n    video: %s%s\n", c->id, c->id, synth_codec_ext(sc->codec));
    }
    fprintf(fp, "calibration:\n  board: {cols: %d, rows: %d, square: %.17g}\n  images: {", sc->board.cols,
            sc->board.rows, sc->board.square);
    for (int i = 0; i < sc->n_cameras; i++)
        fprintf(fp, "%s%s: \"calib/%s_*.png\"", i ? ", " : "", sc->cameras[i].id, sc->cameras[i].id);
    fprintf(fp, "}\n");
    if (sc->planar) {
        double a[2] = {0, 0}, c2[2] = {0, 0};
        synth_camera_project(&sc->cameras[0].model, icv_v3(0, 0, 0), a);
        synth_camera_project(&sc->cameras[0].model, icv_v3(0.2, 0, 0), c2);
        fprintf(fp, "surface:\n  line_px: [[%.17g, %.17g], [%.17g, %.17g]]\n", a[0], a[1], c2[0], c2[1]);
        fprintf(fp, "motion_plane:\n  images: {%s: plane_%s.png}\n", sc->cameras[0].id, sc->cameras[0].id);
    } else {
        fprintf(fp, "surface:\n  images: {");
        for (int i = 0; i < sc->n_cameras; i++)
            fprintf(fp, "%s%s: surface_%s.png", i ? ", " : "", sc->cameras[i].id, sc->cameras[i].id);
        fprintf(fp, "}\n");
    }
    if (sc->experiment_gravity_given) {
        icv_mat3 Q;
        icv_vec3 c;
        synth_surface_frame(sc, &Q, &c); /* the frame the board on the surface gives */
        fprintf(fp, "gravity: ");
        yvec(fp, icv_m3_apply(Q, sc->gravity));
        fprintf(fp, "\n");
    } else {
        fprintf(fp, "gravity: auto\n");
    }
    if (sc->render.flash_duration_s > 0 && sc->render.flash_gain > 0) {
        fprintf(fp, "sync: {method: flash}\n");
    } else if (sc->n_cameras > 1) {
        /* capture's convention: an event at time t is at frame t * fps + offset, while
         * synth's frame n is at t = (n + start_offset_frames) / fps: opposite signs */
        fprintf(fp, "sync: {offsets: {");
        for (int i = 0; i < sc->n_cameras; i++)
            fprintf(fp, "%s%s: %.17g", i ? ", " : "", sc->cameras[i].id, -sc->cameras[i].start_offset_frames);
        fprintf(fp, "}}\n");
    } else {
        fprintf(fp, "sync: {method: none}\n");
    }
    if (sc->n_bodies >= 1) {
        synth_mb_experiment_keys(sc, fp);
    } else {
        fprintf(fp, "body:\n");
        synth_body_yaml(fp, b, "  ");
    }
    fprintf(fp, "model:\n  restitution: %s\n  mu: measured\n  e_n: measured\n",
            icv_restitution_name(sc->restitution));
    synth_coeff_experiment_keys(sc, fp);
    return icv_atomic_commit(&af, err);
}

static int copy_scenario(const synth_scenario *sc, const char *dir, icv_err *err)
{
    if (!sc->path[0] && sc->random) { /* a drawn scene: its seed says it all */
        char path[ICV_PATH_MAX], text[512];
        int n = snprintf(text, sizeof text, "# %s\nrandom: %lu\n", sc->random_desc, sc->random_seed);
        SYNTH_TRY(icv_path_join(path, sizeof path, dir, "scenario.yaml", err));
        return icv_atomic_write(path, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, err);
    }
    if (!sc->path[0] && sc->n_bodies >= 1) { /* a several-body scene: its kind and draw */
        static const char *kinds[] = {"", "collision", "chain", "cradle", "table"};
        char path[ICV_PATH_MAX], text[160], after[48] = "";
        if (sc->mb_after_s > 0)
            snprintf(after, sizeof after, ", after: %.17g", sc->mb_after_s);
        int n = snprintf(text, sizeof text, "multibody: {kind: %s, draw: %d%s%s}\n", kinds[sc->mb_kind], sc->mb_draw,
                         sc->mb_sparse ? ", set_up: sparse" : "", after);
        SYNTH_TRY(icv_path_join(path, sizeof path, dir, "scenario.yaml", err));
        return icv_atomic_write(path, text, (size_t)n, err);
    }
    if (!sc->path[0])
        return 0;
    FILE *f = fopen(sc->path, "rb");
    if (!f)
        return icv_err_set(err, ICV_EIO, "%s: cannot read the scenario again", sc->path);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", sc->path);
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    fclose(f);
    char path[ICV_PATH_MAX];
    int rc = icv_path_join(path, sizeof path, dir, "scenario.yaml", err);
    if (!rc)
        rc = icv_atomic_write(path, buf, n, err);
    free(buf);
    return rc;
}

/* Renders and encodes camera ci's video, calibration shots and board image. */
static int write_camera(const synth_scenario *sc, int ci, const synth_flight *f, const char *dir,
                        const synth_board_pose *views, double *centroids, icv_err *err)
{
    const synth_camera *c = &sc->cameras[ci];
    synth_renderer *r;
    SYNTH_TRY(synth_renderer_alloc(sc, ci, &r, err));
    int W = c->model.width, H = c->model.height;
    uint8_t *img = malloc((size_t)W * H);
    char path[ICV_PATH_MAX], name[ICV_PATH_MAX];
    int rc = 0;
    synth_encoder *enc = NULL;
    synth_coeff_camera *cc = NULL;
    if (!img) {
        rc = icv_err_set(err, ICV_ENOMEM, "camera '%s': out of memory", c->id);
        goto out;
    }
    snprintf(name, sizeof name, "%s%s", c->id, synth_codec_ext(sc->codec));
    if ((rc = icv_path_join(path, sizeof path, dir, name, err)))
        goto out;
    if ((rc = synth_encoder_open(path, sc->codec, W, H, c->fps, sc->crf, sc->preset, sc->mjpeg_q, &enc, err)))
        goto out;
    if ((rc = synth_coeff_camera_open(sc, r, &cc, err))) {
        synth_encoder_abort(enc);
        goto out;
    }
    icv_progress pb;
    char label[96];
    snprintf(label, sizeof label, "synth %s", c->id);
    icv_progress_begin(&pb, label, c->n_frames);
    for (int n = 0; n < c->n_frames && !rc; n++) {
        synth_coeff_frame(cc, r, f, n, img);
        for (int k = 0, nm = synth_n_markers(sc); k < nm; k++) {
            double *p = centroids + 2 * ((size_t)n * nm + k);
            if (!synth_renderer_marker_centroid(r, k, p))
                p[0] = p[1] = NAN;
        }
        rc = synth_encoder_write(enc, img, err);
        icv_progress_update(&pb, n + 1);
    }
    icv_progress_end(&pb);
    synth_coeff_camera_close(cc, r);
    cc = NULL;
    if (rc) {
        synth_encoder_abort(enc);
        goto out;
    }
    if ((rc = synth_encoder_close(enc, err)))
        goto out;
    synth_renderer_board_in_view(r, 0); /* the board is held up in the calibration shots */
    for (int v = 0; v < sc->board.n_views && !rc; v++) {
        snprintf(name, sizeof name, "calib/%s_%02d.png", c->id, v);
        if ((rc = icv_path_join(path, sizeof path, dir, name, err)))
            break;
        synth_board_render(r, &sc->board, &views[v], synth_stream(sc->seed, 500 + (uint64_t)ci, (uint64_t)v), img);
        rc = synth_png_write(path, img, W, H, err);
    }
    if (rc)
        goto out;
    synth_board_pose bp;
    if (sc->planar) {
        bp = synth_board_in_motion_plane(sc);
        snprintf(name, sizeof name, "plane_%s.png", c->id);
    } else {
        bp = synth_board_on_surface();
        snprintf(name, sizeof name, "surface_%s.png", c->id);
    }
    if ((rc = icv_path_join(path, sizeof path, dir, name, err)))
        goto out;
    synth_board_render(r, &sc->board, &bp, synth_stream(sc->seed, 600 + (uint64_t)ci, 0), img);
    rc = synth_png_write(path, img, W, H, err);
    if (!rc)
        rc = synth_coeff_level_image(sc, r, ci, dir, img, err);
out:
    synth_coeff_camera_close(cc, NULL);
    free(img);
    synth_renderer_free(r);
    return rc;
}

int synth_experiment_write(const synth_scenario *sc, const char *dir, icv_err *err)
{
    SYNTH_TRY(synth_scenario_validate(sc, err));
    char calib[ICV_PATH_MAX], path[ICV_PATH_MAX];
    SYNTH_TRY(icv_path_join(calib, sizeof calib, dir, "calib", err));
    SYNTH_TRY(icv_mkdirs(calib, err));
    double t_end = 0;
    for (int i = 0; i < sc->n_cameras; i++) {
        const synth_camera *c = &sc->cameras[i];
        double t = synth_camera_frame_time(c, c->n_frames - 1) + c->exposure_s / 2 + c->line_delay_s * c->model.height;
        if (t > t_end)
            t_end = t;
    }
    t_end += 1e-3;
    synth_flight *f;
    if (sc->n_bodies >= 1)
        SYNTH_TRY(synth_mb_flight(sc, t_end, &f, err));
    else if (sc->kind == SYNTH_KIND_SLIDE || sc->kind == SYNTH_KIND_TILT)
        SYNTH_TRY(synth_coeff_flight(sc, &f, err));
    else
        SYNTH_TRY(synth_flight_run(sc, t_end, &f, err));
    if (synth_flight_note(f)[0])
        icv_warn("synth: %s", synth_flight_note(f));
    if (sc->n_bodies >= 1 && synth_mb_note(f)[0])
        icv_warn("synth: %s", synth_mb_note(f));
    synth_board_pose *views = malloc(sizeof *views * (size_t)(sc->board.n_views > 0 ? sc->board.n_views : 1));
    int rc = 0;
    if (!views) {
        rc = icv_err_set(err, ICV_ENOMEM, "synth: out of memory");
        goto out;
    }
    synth_board_views_careful(sc, views);
    double *cent[ICV_MAX_CAMERAS] = {0};
    for (int i = 0; i < sc->n_cameras && !rc; i++) {
        cent[i] = malloc(sizeof(double) * 2 * (size_t)sc->cameras[i].n_frames * (size_t)synth_n_markers(sc));
        if (!cent[i])
            rc = icv_err_set(err, ICV_ENOMEM, "synth: out of memory");
        else
            rc = write_camera(sc, i, f, dir, views, cent[i], err);
    }
    if (!rc)
        rc = icv_path_join(path, sizeof path, dir, "truth.json", err);
    if (!rc)
        rc = synth_truth_write(path, sc, f, (const double *const *)cent, err);
    for (int i = 0; i < sc->n_cameras; i++)
        free(cent[i]);
    if (!rc)
        rc = copy_scenario(sc, dir, err);
    if (!rc)
        rc = write_experiment(sc, dir, err);
out:
    free(views);
    synth_flight_free(f);
    return rc;
}
