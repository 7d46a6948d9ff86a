/* pipeline.c: `impactcv track` as one call. experiment.yaml -> calibration and surface
 * frame -> each camera's video decoded once (brightness for the flash on the way) ->
 * detector + Kalman tracker per camera -> sync (flash / offsets / none, then the
 * sub-frame offset from the motion, subframe_sync.c) -> undistort, associate across
 * cameras by epipolar distance, interpolate the second camera inside one flight
 * segment, triangulate (DLT + Gauss-Newton, Hartley & Zisserman 12.2, 12.5) or meet the
 * motion plane (one camera) -> surface frame -> identity from body.markers
 * (identity.c) -> files, written only when every stage has succeeded. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calib/calib.h"
#include "capture/capture.h"
#include "track/pipeline_internal.h"
#include "track/track_pipeline.h"

void track_pipeline_options_default(track_pipeline_options *o)
{
    memset(o, 0, sizeof *o);
    o->refine_offset = 1;
    o->refine_range = 1.5;
    o->epipolar_max_px = 6;
    o->template_tol_m = 0.003;
    o->template_tol_rel = 0.03;
    o->max_coast_error = 1;
    o->blob_excess = 8;
    o->threshold_fraction = 0.5;
    o->min_circularity = 0.01;
    o->sigma_floor_px = 0.03;
    o->extrapolate_frames = 1;
    o->band_correction = 1;
    o->ray_pose = 1;
    o->band_coverage = 0;
    o->debug_frames = 0;
    o->centroid_margin_px = 1;
}

typedef struct {
    const icv_camera_spec *spec;
    capture_source *src;
    const capture_info *info;
    track_detector *det;
    track_tracker *tr;
    uint8_t *mask;
    raw_point *raw;
    long n_raw, cap_raw;
    track_pipe_point *pts;
    long *frame_start;
    long frames;
    long first;         /* cameras[].frames' first: the frames before it are not read */
    double *tcam;       /* s, camera clock */
    double *bright;     /* gray levels per frame */
    long *dup;          /* frames whose pixels equal their predecessor's (found with the brightness) */
    size_t n_dup;
    long *repeat;       /* frames repeating the picture before them, dropped from the tracks */
    size_t n_repeat;
    double stored_times; /* pictures per new picture while the scene moves (1: none repeats) */
    int moves;           /* some track moved over the clip (beyond noise) */
    double off_s;       /* s: this camera's sync offset (capture convention) */
    calib_intrinsics in;
    track_pipe_camera pc;
    int *label;         /* frames x n_ids: body marker of (frame, 2D id), -1 none */
    pl_gap *gaps;       /* the markers' gaps (camera_check) */
    size_t n_gaps, cap_gaps;
    int n_ids;
    /* detection statistics over all frames, for error messages */
    long full_scans, crowded_scans;
    double brightest, last_threshold;
    int max_components;
    double blob_limit;  /* components per full scan beyond which a frame is crowded */
    double t_mean, t_step; /* s: brightness and detect+track, for -v */
    double t_decode;       /* s: reading frames (capture_source_read) */
    int want_brightness;   /* sync by flash: the per-frame brightness is needed */
    int primed;            /* the detector has seen the first frame once */
    int debug_frames;      /* log the detector's line for every frame (-v) */
    double dpx;            /* px: the markers' expected image diameter, 0 unknown */
} pl_camera;


static int cmp_raw(const void *a, const void *b)
{
    const raw_point *x = a, *y = b;
    if (x->frame != y->frame)
        return x->frame < y->frame ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static void camera_free(pl_camera *c)
{
    if (c->tr)
        track_tracker_free(c->tr);
    if (c->det)
        track_detector_free(c->det);
    if (c->src)
        capture_source_close(c->src);
    free(c->mask);
    free(c->raw);
    free(c->pts);
    free(c->frame_start);
    free(c->tcam);
    free(c->bright);
    free(c->dup);
    free(c->repeat);
    free(c->label);
    free(c->gaps);
    memset(c, 0, sizeof *c);
}

/* ---- calibration and the surface frame ---------------------------------- */


static int detect_board_in(const char *path, const calib_board *b, calib_pt2 *uv, icv_err *err)
{
    calib_image img;
    int rc = calib_image_read_gray(path, &img, err);
    if (rc)
        return rc;
    calib_detector d;
    calib_detector_defaults(&d);
    d.foreshortened = 1; /* one image that holds the board, maybe turned far from the camera */
    calib_detection info;
    calib_board_detect(&d, &img, b, 0, uv, &info);
    calib_image_free(&img);
    if (!info.found)
        return icv_err_set(err, ICV_ENOTFOUND, "%s: the %dx%d board was not found", path, b->cols, b->rows);
    return 0;
}

/* One camera without a calibration (motion_plane.scale): a pinhole without distortion
 * for the video's size, focal length its larger side (any value gives the same
 * positions on a plane facing the camera; it sets only the marker size expected). */
static int nominal_intrinsics(const icv_experiment *exp, calib_intrinsics *in, icv_err *err)
{
    capture_source *src = NULL;
    capture_options co = {.capture_fps = exp->cameras[0].capture_fps, .want_8bit = 1};
    int rc = capture_source_open(&src, exp->cameras[0].video, &co, err);
    if (rc)
        return icv_err_prefix(err, "camera '%s': ", exp->cameras[0].id);
    const capture_info *info = capture_source_info(src);
    memset(in, 0, sizeof *in);
    in->width = info->width;
    in->height = info->height;
    in->fx = in->fy = info->width > info->height ? info->width : info->height;
    in->cx = 0.5 * (info->width - 1);
    in->cy = 0.5 * (info->height - 1);
    capture_source_close(src);
    return 0;
}

/* One camera, motion_plane.scale.points_px: no board in the plane of motion, so the
 * plane is taken to face the camera (perpendicular to its optical axis: the camera set
 * square to the plane, which the footage must honour) at the depth Z0 where the two
 * pixels' rays are `distance` apart: Z0 = distance / |x1 - x2| for their undistorted
 * normalised coordinates x = ((u - cx) / fx, (v - cy) / fy). A tilt of the plane by a
 * small angle a scales positions along the tilt by ~1 - a^2/2 and skews them. */
/* The motion plane facing the camera (perpendicular to its optical axis) at depth z0 (m) */
static void plane_facing_camera(pl_calib *cal, double z0)
{
    memset(&cal->plane, 0, sizeof cal->plane);
    /* columns x = (1, 0, 0), y = the normal towards the camera (0, 0, -1), z = x cross y */
    cal->plane.R = (icv_mat3){{{1, 0, 0}, {0, 0, 1}, {0, -1, 0}}};
    cal->plane.t = icv_v3(0, 0, z0);
}

static int plane_from_scale_points(const icv_experiment *exp, pl_calib *cal, icv_err *err)
{
    calib_pt2 uv[2] = {{exp->scale_points_px[0][0], exp->scale_points_px[0][1]},
                       {exp->scale_points_px[1][0], exp->scale_points_px[1][1]}};
    int rc = calib_undistort_points(&cal->in[0], uv, 2, 1, uv, err);
    if (rc)
        return icv_err_prefix(err, "motion_plane.scale: ");
    double d = hypot(uv[0].u - uv[1].u, uv[0].v - uv[1].v);
    if (!(d > 1e-6))
        return icv_err_set(err, ICV_EINVAL, "%s: motion_plane.scale.points_px: the two pixels coincide", exp->path);
    double z0 = exp->scale_distance / d;
    plane_facing_camera(cal, z0);
    icv_info("%s: motion plane facing the camera at %.4f m (%.4g m per pixel at the image centre), from "
             "motion_plane.scale",
             exp->path, z0, z0 / cal->in[0].fx);
    return 0;
}

static int load_calibration(const icv_experiment *exp, pl_calib *cal, icv_err *err)
{
    int nc = exp->n_cameras, rc = 0;
    calib_board board = {exp->board_cols, exp->board_rows, exp->board_square};
    int surface_in_file = 0;
    for (int i = 0; i < 3; i++) /* the reference camera from itself */
        cal->R[0][i][i] = 1;
    if (exp->calib_file[0]) {
        snprintf(cal->source, sizeof cal->source, "%s", exp->calib_file);
        if (nc > 2)
            return icv_err_set(err, ICV_EINVAL,
                               "%s: calibration.file holds two cameras (a stereo file) for %d cameras: give "
                               "calibration.images, from which each camera is calibrated with the reference on "
                               "the board shots they share",
                               exp->path, nc);
        if (nc == 2)
            rc = calib_stereo_read(exp->calib_file, &cal->in[0], &cal->in[1], cal->R[1], cal->T[1], err);
        else
            rc = calib_intrinsics_read(exp->calib_file, 0, &cal->in[0], NULL, err);
        if (rc)
            return rc;
        icv_err e2;
        surface_in_file = calib_surface_read(exp->calib_file, &cal->surf, &e2) == 0;
        if (nc == 2 && calib_stereo_cov_read(exp->calib_file, &cal->cov, &e2))
            cal->cov.n = 0; /* another tool's file, or one written before calib kept it */
    } else if (exp->calib_images[0][0]) {
        snprintf(cal->source, sizeof cal->source, "calibration images");
        calib_options o;
        calib_options_defaults(&o);
        char **p[ICV_MAX_CAMERAS] = {NULL};
        size_t n[ICV_MAX_CAMERAS] = {0};
        for (int c = 0; c < nc && !rc; c++) {
            rc = icv_paths_expand(exp->calib_images[c], &p[c], &n[c], err);
            if (!rc && n[c] == 0)
                rc = icv_err_set(err, ICV_ENOTFOUND, "%s: calibration.images: camera '%s': no image matches %s",
                                 exp->path, exp->cameras[c].id, exp->calib_images[c]);
        }
        /* each other camera with the reference, on the shots they share (pairs by sorted
           order); the reference's intrinsics from its pair with the second camera */
        for (int k = 1; k < nc && !rc; k++) {
            calib_stereo st;
            memset(&st, 0, sizeof st);
            rc = calib_stereo_from_images(p[0], n[0], p[k], n[k], &board, &o, &st, err);
            if (!rc) {
                if (k == 1) {
                    cal->in[0] = st.cam[0].in;
                    pl_info_keep_stereo(cal, &st); /* the quality of the reference pair */
                    if (nc == 2)
                        cal->cov = st.cov;
                }
                cal->in[k] = st.cam[1].in;
                memcpy(cal->R[k], st.R, sizeof cal->R[k]);
                memcpy(cal->T[k], st.T, sizeof cal->T[k]);
            } else if (nc > 2) {
                icv_err_prefix(err, "camera '%s' with '%s': ", exp->cameras[0].id, exp->cameras[k].id);
            }
            calib_stereo_free(&st);
        }
        if (!rc && nc == 1) {
            calib_camera cam;
            memset(&cam, 0, sizeof cam);
            rc = calib_camera_from_images(p[0], n[0], &board, &o, &cam, err);
            if (!rc) {
                cal->in[0] = cam.in;
                pl_info_keep_camera(cal, &cam);
            }
            calib_camera_free(&cam);
        }
        for (int c = 0; c < nc; c++)
            if (p[c])
                icv_paths_free(p[c], n[c]);
        if (rc)
            return icv_err_prefix(err, "calibration: ");
    } else if (nc == 1 && (exp->scale_kind == ICV_SCALE_POINTS || exp->scale_kind == ICV_SCALE_GRAVITY ||
                           exp->scale_kind == ICV_SCALE_SIZE)) {
        snprintf(cal->source, sizeof cal->source, "a pinhole without distortion (no calibration given)");
        if ((rc = nominal_intrinsics(exp, &cal->in[0], err)) != 0)
            return rc;
    } else {
        return icv_err_set(err, ICV_EINVAL, "%s: calibration: neither file nor images given", exp->path);
    }

    /* one-camera mode: the motion plane */
    if (nc == 1 && exp->scale_kind == ICV_SCALE_POINTS) {
        if ((rc = plane_from_scale_points(exp, cal, err)) != 0)
            return rc;
    } else if (nc == 1 && (exp->scale_kind == ICV_SCALE_GRAVITY || exp->scale_kind == ICV_SCALE_SIZE)) {
        /* a provisional depth: the job scales the plane from the free flight or the ball's
           outline before the template check needs metres (gravity_scale.c, scale_size.c) */
        plane_facing_camera(cal, PL_GRAVITY_DEPTH0);
    } else if (nc == 1) {
        calib_pt2 *uv = malloc(sizeof *uv * (size_t)board.cols * board.rows);
        if (!uv)
            return icv_err_set(err, ICV_ENOMEM, "out of memory");
        rc = detect_board_in(exp->motion_plane_images[0], &board, uv, err);
        if (!rc)
            rc = calib_motion_plane_from_view(&cal->in[0], &board, uv, &cal->plane, err);
        free(uv);
        if (rc)
            return icv_err_prefix(err, "motion_plane: ");
    }

    switch (exp->surface_kind) {
    case ICV_SURFACE_IMAGES:
        rc = calib_surface_from_images(&cal->in[0], nc >= 2 ? &cal->in[1] : NULL, nc >= 2 ? cal->R[1] : NULL,
                                       nc >= 2 ? cal->T[1] : NULL, &board, exp->surface_images[0],
                                       nc >= 2 ? exp->surface_images[1] : NULL, &cal->surf, err);
        if (!rc && nc == 2 && cal->cov.n > 0) /* the surface frame's sigma with the calibration's part */
            rc = calib_surface_add_calibration_sd(&cal->in[0], &cal->in[1], cal->R[1], cal->T[1], &cal->cov, &board,
                                                  &cal->surf, err);
        break;
    case ICV_SURFACE_PLANE:
        rc = calib_surface_from_plane(exp->plane_point, exp->plane_normal, &cal->surf, err);
        break;
    case ICV_SURFACE_LINE_PX:
        if (nc != 1)
            return icv_err_set(err, ICV_EINVAL, "%s: surface.line_px is for one-camera mode", exp->path);
        rc = calib_surface_from_line_px(&cal->in[0], &cal->plane, exp->line_px, &cal->surf, err);
        break;
    default:
        if (nc == 1 && !surface_in_file) {
            /* one camera: the lowest point reached, placed once the candidates are in
               metres (surface_lowest.c); until then the image's bottom row */
            double bottom[2][2] = {{0, cal->in[0].height - 1.0}, {cal->in[0].width - 1.0, cal->in[0].height - 1.0}};
            rc = calib_surface_from_line_px(&cal->in[0], &cal->plane, bottom, &cal->surf, err);
            cal->surface_lowest = 1;
        } else if (!surface_in_file) {
            return icv_err_set(err, ICV_EINVAL, "%s: surface: no way to find the surface frame given", exp->path);
        }
    }
    if (rc)
        return icv_err_prefix(err, "surface: ");
    icv_debug("surface frame in the reference camera: R [%.4f %.4f %.4f; %.4f %.4f %.4f; %.4f %.4f %.4f], t [%.4f %.4f "
              "%.4f] m",
              cal->surf.R.m[0][0], cal->surf.R.m[0][1], cal->surf.R.m[0][2], cal->surf.R.m[1][0], cal->surf.R.m[1][1],
              cal->surf.R.m[1][2], cal->surf.R.m[2][0], cal->surf.R.m[2][1], cal->surf.R.m[2][2], cal->surf.t.x,
              cal->surf.t.y, cal->surf.t.z);
    return 0;
}

int pl_load_calibration(const icv_experiment *exp, pl_calib *cal, icv_err *err) { return load_calibration(exp, cal, err); }

/* ---- experiment.yaml's `track:` section ------------------------------------ */

/* track: {threshold: gray level (fixed; default automatic), threshold_fraction,
 * min_circularity, max_coast: frames}. Read here: the core experiment model keeps the
 * key reserved for this stage. */
typedef struct {
    double threshold;          /* gray levels, < 0 automatic */
    int max_coast;             /* frames, < 0 the tracker's default */
    int markers;               /* track.markers: -1 auto (default), else a track_look */
    double color[3];           /* 0-255: {color: [r, g, b]} */
    double tolerance;          /* 0-255: its tolerance, <= 0 the detector's default */
} pl_track_keys;

/* track.markers: bright | dark | motion | auto | {color: [r, g, b], tolerance: t}. */
static int read_markers_key(icv_ynode t, pl_track_keys *k, icv_err *err)
{
    icv_ynode m = icv_ynode_get(t, "markers");
    if (!icv_ynode_exists(m))
        return 0;
    const char *want = "bright, dark, motion, auto or {color: [r, g, b], tolerance: t}";
    if (icv_ynode_is_scalar(m)) {
        const char *v = icv_ynode_str(m);
        static const char *const names[] = {"bright", "dark", "color", "motion"};
        for (int i = 0; i < 4; i++)
            if (i != TRACK_LOOK_COLOR && v && !strcmp(v, names[i])) {
                k->markers = i;
                return 0;
            }
        if (v && !strcmp(v, "auto")) {
            k->markers = -1;
            return 0;
        }
        return icv_ynode_fail(m, err, ICV_EINVAL, "'%s' is not a marker look: expected %s", v ? v : "", want);
    }
    if (!icv_ynode_is_map(m))
        return icv_ynode_fail(m, err, ICV_EINVAL, "expected %s", want);
    static const char *const known[] = {"color", "tolerance", NULL};
    icv_ynode_warn_unknown(m, known);
    int rc = icv_yread_doubles(m, "color", 1, k->color, 3, err);
    for (int i = 0; i < 3 && !rc; i++)
        if (!(k->color[i] >= 0 && k->color[i] <= 255))
            rc = icv_ynode_fail(icv_ynode_get(m, "color"), err, ICV_EINVAL,
                                "component %d is %g: each of r, g, b must be in [0, 255]", i, k->color[i]);
    if (!rc)
        rc = icv_yread_double(m, "tolerance", 0, &k->tolerance, err);
    if (!rc && icv_ynode_exists(icv_ynode_get(m, "tolerance")) && !(k->tolerance > 0 && k->tolerance <= 255))
        rc = icv_ynode_fail(icv_ynode_get(m, "tolerance"), err, ICV_EINVAL,
                            "%g is out of range: a colour distance in (0, 255]", k->tolerance);
    if (!rc)
        k->markers = TRACK_LOOK_COLOR;
    return rc;
}

static int read_track_keys(const char *path, track_pipeline_options *opt, pl_track_keys *k, icv_err *err)
{
    k->threshold = -1;
    k->max_coast = -1;
    k->markers = -1;
    k->tolerance = 0;
    icv_yaml *doc = NULL;
    icv_ynode root;
    int rc = icv_yaml_load(path, &doc, &root, err);
    if (rc)
        return rc;
    icv_ynode t = icv_ynode_get(root, "track");
    if (icv_ynode_exists(t)) {
        if (!icv_ynode_is_map(t))
            rc = icv_ynode_fail(t, err, ICV_EINVAL, "expected a mapping {threshold: .., ...}");
        if (!rc)
            rc = icv_yread_double(t, "threshold", 0, &k->threshold, err);
        if (!rc && icv_ynode_exists(icv_ynode_get(t, "threshold")) && !(k->threshold > 0))
            rc = icv_ynode_fail(icv_ynode_get(t, "threshold"), err, ICV_EINVAL, "must be a gray level > 0");
        if (!rc)
            rc = icv_yread_double(t, "threshold_fraction", 0, &opt->threshold_fraction, err);
        if (!rc && !(opt->threshold_fraction > 0 && opt->threshold_fraction < 1))
            rc = icv_ynode_fail(icv_ynode_get(t, "threshold_fraction"), err, ICV_EINVAL, "must be in (0, 1)");
        if (!rc)
            rc = icv_yread_double(t, "min_circularity", 0, &opt->min_circularity, err);
        if (!rc && !(opt->min_circularity > 0 && opt->min_circularity <= 1))
            rc = icv_ynode_fail(icv_ynode_get(t, "min_circularity"), err, ICV_EINVAL, "must be in (0, 1]");
        if (!rc)
            rc = icv_yread_int(t, "max_coast", 0, &k->max_coast, err);
        if (!rc && icv_ynode_exists(icv_ynode_get(t, "max_coast")) && k->max_coast < 0)
            rc = icv_ynode_fail(icv_ynode_get(t, "max_coast"), err, ICV_EINVAL, "must be >= 0 frames");
        if (!rc)
            rc = read_markers_key(t, k, err);
    }
    icv_yaml_free(doc);
    return rc;
}

/* ---- per camera: decode, detect, track ---------------------------------- */

static int push_raw(pl_camera *c, const raw_point *p, icv_err *err)
{
    if (c->n_raw == c->cap_raw) { /* amortised: capacity doubles, rarely after the first guess */
        long cap = c->cap_raw ? 2 * c->cap_raw : 1024;
        raw_point *r = realloc(c->raw, sizeof *r * (size_t)cap);
        if (!r)
            return icv_err_set(err, ICV_ENOMEM, "out of memory");
        c->raw = r;
        c->cap_raw = cap;
    }
    c->raw[c->n_raw++] = *p;
    return 0;
}

/* Up to n frames of the source into frames[] (allocated here; *got of them read): the
 * first n in order, or spread over the clip (by seek); the source is left at frame 0. */
static int read_frames(pl_camera *c, int n, int spread, long start, capture_frame *frames, track_frame *tf,
                       int *got, icv_err *err)
{
    int rc = 0;
    *got = 0;
    if (!spread && start > 0)
        rc = capture_source_seek(c->src, start, err);
    for (int k = 0; k < n && !rc; k++) {
        rc = capture_frame_alloc(&frames[k], c->info, err);
        if (!rc && spread)
            rc = capture_source_seek(c->src, c->first + (long)((double)(c->frames - c->first) * (k + 0.5) / n), err);
        if (!rc)
            rc = capture_source_read(c->src, &frames[k], err);
        if (!rc)
            tf[(*got)++] = (track_frame){frames[k].data, frames[k].width, frames[k].height, (int)frames[k].stride,
                                         frames[k].bytes_per_sample * 8};
    }
    if (rc == CAPTURE_EOF)
        rc = 0;
    if (!rc)
        rc = capture_source_seek(c->src, 0, err);
    return rc;
}

/* track.markers: the look, the motion look's still background (a median of frames
 * spread over the clip), or `auto`: of bright, dark and motion the one that finds the
 * body's markers best in 6 consecutive frames a tenth into the clip, flash frames left
 * out (track_look_choose); none: one line naming what each saw. */
static int camera_look(pl_camera *c, const pl_track_keys *keys, int n_markers, double dpx, icv_err *err)
{
    enum { N_FIRST = 6, N_READ = 9, N_SPREAD = 15 };
    capture_frame fr[N_SPREAD], first[N_READ];
    track_frame tf[N_SPREAD], tf1[N_READ];
    memset(fr, 0, sizeof fr);
    memset(first, 0, sizeof first);
    track_detector *d = c->det;
    if (keys->markers == TRACK_LOOK_BRIGHT || keys->markers == TRACK_LOOK_DARK) {
        d->look = keys->markers;
        return 0;
    }
    if (keys->markers == TRACK_LOOK_COLOR) {
        d->look = TRACK_LOOK_COLOR;
        memcpy(d->color_rgb, keys->color, sizeof d->color_rgb);
        if (keys->tolerance > 0)
            d->color_tolerance = keys->tolerance;
        return 0;
    }
    int n1 = 0, ns = 0, rc = 0;
    /* auto decides on consecutive frames a tenth into the frames used (past a sync
       flash, which lights everything in the first frames); a short clip's from its
       first frame, three more read for its flash frames, which track_look_choose
       leaves out */
    long span = c->frames - c->first, start = c->first + (span >= 10 * N_FIRST ? span / 10 : 0);
    int undecided = 1; /* motion, or auto until the first frames decide alone */
    char why[768];
    track_look look = TRACK_LOOK_MOTION;
    if (keys->markers < 0) {
        rc = read_frames(c, span >= 10 * N_FIRST ? N_FIRST : N_READ, 0, start, first, tf1, &n1, err);
        if (!rc && n1 > 0)
            rc = track_look_choose(tf1, n1, NULL, 0, n_markers, dpx, d, &look, &undecided, why, sizeof why, err);
    }
    if (!rc && undecided) { /* motion, or auto weighing the blobs' motion: the still background */
        rc = read_frames(c, N_SPREAD, 1, 0, fr, tf, &ns, err);
        if (rc && keys->markers < 0) {
            /* auto: a frame that cannot be read is the decoding pass's to report, with
               its frame; the look is weighed on the frames read (none: no motion) */
            rc = capture_source_seek(c->src, 0, err);
            if (ns < 3)
                ns = 0;
        }
        if (!rc && ns > 0)
            rc = track_detector_learn_background(d, tf, ns, err);
        if (!rc && keys->markers < 0 && n1 > 0)
            rc = track_look_choose(tf1, n1, ns > 0 ? d->motion_background : NULL, d->motion_background_stride,
                                   n_markers, dpx, d, &look, NULL, why, sizeof why, err);
    }
    if (!rc && keys->markers < 0 && n1 > 0)
        /* bright, the common look, at -v only (as before auto weighed the looks) */
        icv_log(look == TRACK_LOOK_BRIGHT ? ICV_LOG_DEBUG : ICV_LOG_INFO, "camera '%s': %s", c->spec->id, why);
    if (!rc)
        d->look = look;
    for (int k = 0; k < N_SPREAD; k++)
        capture_frame_free(&fr[k]);
    for (int k = 0; k < N_READ; k++)
        capture_frame_free(&first[k]);
    return rc ? icv_err_prefix(err, "camera '%s' (%s): ", c->spec->id, c->spec->video) : 0;
}

/* The markers' image size when the depth is only provisional (one camera, scale:
 * gravity or size): the detector's size window (diameters 0.5-1.7 x the expected one)
 * is tried at expected diameters of 4 to 512 px, doubling, on 15 frames spread over the
 * clip; of the one that finds exactly the body's marker count in the most frames
 * (fewer blobs on a tie), the blobs' median area gives the size kept. The default window (4 to
 * 2000 px of area) kept codec specks and never an 85 px ball (the green ball clip). */
static int marker_size_measured(pl_camera *c, int n_markers, double *measured_px, icv_err *err)
{
    enum { N = 15 };
    capture_frame fr[N];
    track_frame tf[N];
    track_blob b[64];
    memset(fr, 0, sizeof fr);
    int ns = 0, best_ok = -1, rc = read_frames(c, N, 1, 0, fr, tf, &ns, err);
    double best_mean = INFINITY, min0 = c->det->min_area_px, max0 = c->det->max_area_px;
    double areas[N * 64], best_areas[N * 64];
    int na = 0, best_na = 0;
    for (double d = 4; d <= 512 && !rc; d *= 2) {
        track_detector_set_marker_size(c->det, d, c->det->max_streak_px);
        int ok = 0;
        long total = 0;
        na = 0;
        for (int k = 0; k < ns && !rc; k++) {
            int nb = 0;
            track_detector_reset(c->det);
            rc = track_detector_detect(c->det, &tf[k], NULL, 0, b, 64, &nb, err);
            ok += nb == n_markers;
            total += nb;
            for (int i = 0; i < nb && nb == n_markers; i++)
                areas[na++] = b[i].area;
        }
        double mean = ns ? (double)total / ns : 0;
        if (!rc && (ok > best_ok || (ok == best_ok && mean < best_mean))) {
            best_ok = ok, best_mean = mean, best_na = na;
            memcpy(best_areas, areas, sizeof *areas * (size_t)na);
        }
    }
    track_detector_reset(c->det);
    for (int k = 0; k < N; k++)
        capture_frame_free(&fr[k]);
    if (rc)
        return rc;
    if (best_ok <= 0) { /* nothing fits: the default window, and the check says so */
        c->det->min_area_px = min0, c->det->max_area_px = max0;
        return 0;
    }
    /* the window's own size is within a factor 2: the blobs it kept, measured (their
       median area's disc), centre the window on the marker (a window at 128 px cut an
       89 px ball clipped by the tracking window to under its 3217 px minimum) */
    gsl_sort(best_areas, 1, (size_t)best_na);
    double measured = 2 * sqrt(gsl_stats_median_from_sorted_data(best_areas, 1, (size_t)best_na) / M_PI);
    track_detector_set_marker_size(c->det, measured, c->det->max_streak_px);
    *measured_px = measured;
    icv_info("camera '%s': marker size %.0f px, measured (depth not known yet: the blobs of the size window that finds "
             "exactly %d blob(s) in %d of %d frames)",
             c->spec->id, measured, n_markers, best_ok, ns);
    return 0;
}

/* track.markers auto with two cameras or more that chose different looks alone: the
 * markers are the same objects in every view, so one look for all, from every camera's
 * frames weighed together (track_look_choose_joint; each camera's still background
 * learnt). Random scenes: in 7 of the 41 that failed the template, one camera took
 * bright and the other dark, and one of them tracked the body's other parts. */
static int cameras_look_joint(pl_camera *cams, int nc, int n_markers, icv_err *err)
{
    enum { N_FIRST = 6, N_READ = 9, N_SPREAD = 15 };
    int differ = 0;
    for (int c = 1; c < nc; c++)
        differ |= cams[c].det->look != cams[0].det->look;
    if (!differ)
        return 0;
    capture_frame first[ICV_MAX_CAMERAS][N_READ], fr[N_SPREAD];
    track_frame tf1[ICV_MAX_CAMERAS][N_READ], tf[N_SPREAD];
    const track_frame *fc[ICV_MAX_CAMERAS];
    const void *bg[ICV_MAX_CAMERAS];
    const track_detector *like[ICV_MAX_CAMERAS];
    int n1[ICV_MAX_CAMERAS], bgs[ICV_MAX_CAMERAS], rc = 0;
    double dpx[ICV_MAX_CAMERAS];
    memset(first, 0, sizeof first);
    memset(n1, 0, sizeof n1);
    char was[128] = "";
    size_t wl = 0;
    for (int c = 0; c < nc && !rc; c++) {
        pl_camera *cm = &cams[c];
        wl += (size_t)snprintf(was + wl, wl < sizeof was ? sizeof was - wl : 0, "%s'%s' %s", c ? ", " : "",
                               cm->spec->id, track_look_name(cm->det->look));
        long span = cm->frames - cm->first, start = cm->first + (span >= 10 * N_FIRST ? span / 10 : 0);
        rc = read_frames(cm, span >= 10 * N_FIRST ? N_FIRST : N_READ, 0, start, first[c], tf1[c], &n1[c], err);
        if (!rc && !cm->det->motion_background) {
            int ns = 0;
            memset(fr, 0, sizeof fr);
            rc = read_frames(cm, N_SPREAD, 1, 0, fr, tf, &ns, err);
            if (rc) { /* a frame that cannot be read is the decoding pass's to report */
                rc = capture_source_seek(cm->src, 0, err);
                ns = ns < 3 ? 0 : ns;
            }
            if (!rc && ns > 0)
                rc = track_detector_learn_background(cm->det, tf, ns, err);
            for (int k = 0; k < N_SPREAD; k++)
                capture_frame_free(&fr[k]);
        }
        fc[c] = tf1[c];
        bg[c] = cm->det->motion_background;
        bgs[c] = cm->det->motion_background_stride;
        like[c] = cm->det;
        dpx[c] = cm->dpx;
        if (!rc && n1[c] < 1)
            rc = icv_err_set(err, ICV_EINVAL, "camera '%s': no frame read for track.markers auto", cm->spec->id);
    }
    track_look look = TRACK_LOOK_BRIGHT;
    char why[768];
    icv_err e2;
    if (!rc) { /* no look fitting them all: each camera keeps its own */
        if (track_look_choose_joint(fc, n1, bg, bgs, nc, n_markers, dpx, like, &look, why, sizeof why, &e2) == 0) {
            for (int c = 0; c < nc; c++)
                cams[c].det->look = look;
            icv_info("cameras %s alone; every camera: %s", was, why);
        } else {
            icv_info("cameras %s alone, kept (%s)", was, e2.msg);
        }
    }
    for (int c = 0; c < nc; c++)
        for (int k = 0; k < N_READ; k++)
            capture_frame_free(&first[c][k]);
    return rc;
}

/* Gravity in camera ci's image (px/frame^2) at the surface's origin, for the tracker's
 * initial acceleration and its sigma. Its filter started every track at 0 +- 2
 * px/frame^2: a ball falling at 15 px/frame^2 (15 fps, 340 px/m) was predicted 60 px
 * short by its 9th frame, its blob cut by the window, and lost while plainly in view.
 * size_px > 0: the depth is provisional (one camera, scale gravity or size), the
 * marker's measured diameter gives it (f D / size_px). Left 0 when no depth is known. */
static void set_view(track_view *v, const calib_intrinsics *in, const double R[3][3], const double T[3]);
static void tracker_gravity(const icv_experiment *exp, int ci, const pl_calib *cal, double size_px, pl_camera *c)
{
    const calib_intrinsics *in = &cal->in[ci];
    icv_vec3 o = cal->surf.t;
    icv_mat3 R = cal->surf.R;
    if (ci >= 1) {
        const icv_mat3 *Rc = (const icv_mat3 *)cal->R[ci];
        o = icv_v3_add(icv_m3_apply(*Rc, o), icv_v3_from_array(cal->T[ci]));
        R = icv_m3_mul(*Rc, R);
    }
    if (!(o.z > 0.05))
        return; /* the origin behind or at the camera: no depth to scale by */
    if (size_px > 0)
        o = icv_v3_scale(o, in->fx * exp->marker_diameter / size_px / o.z);
    icv_vec3 g = icv_m3_apply(R, exp->gravity_auto ? icv_v3(0, -9.81, 0) : exp->gravity);
    track_view v;
    set_view(&v, in, NULL, NULL);
    double X[3] = {o.x, o.y, o.z}, gv[3] = {g.x, g.y, g.z}, gu_px, gv_px;
    if (track_gravity_px(&v, X, gv, c->info->capture_fps, &gu_px, &gv_px, NULL))
        return;
    c->tr->gravity_u = gu_px, c->tr->gravity_v = gv_px;
    /* wide enough for a body at rest too (a hand, a glint): both 0 and g lie within 1 sigma */
    c->tr->init_acc_sigma = fmax(c->tr->init_acc_sigma, hypot(gu_px, gv_px));
}

static int camera_open(const icv_experiment *exp, int ci, const pl_calib *cal, const track_pipeline_options *opt,
                       const pl_track_keys *keys, pl_camera *c, icv_err *err)
{
    c->spec = &exp->cameras[ci];
    capture_options co = {.capture_fps = c->spec->capture_fps, .want_8bit = 1,
                          .want_rgb = keys->markers == TRACK_LOOK_COLOR};
    int rc = capture_source_open(&c->src, c->spec->video, &co, err);
    if (rc)
        return icv_err_prefix(err, "camera '%s': ", c->spec->id);
    c->info = capture_source_info(c->src);
    const calib_intrinsics *in = &cal->in[ci];
    if (in->width != c->info->width || in->height != c->info->height)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: calibration image size %dx%d differs from camera '%s' video %s (%dx%d)",
                           cal->source, in->width, in->height, c->spec->id, c->spec->video, c->info->width,
                           c->info->height);
    c->in = *in;
    c->frames = c->info->frames;
    if (opt->max_frames > 0 && c->frames > opt->max_frames)
        c->frames = opt->max_frames;
    if (c->spec->has_frames) { /* cameras[].frames: [first, last] */
        if (c->spec->frames[0] >= c->frames)
            return icv_err_set(err, ICV_EINVAL, "camera '%s': cameras[].frames starts at %ld, but %s has %ld frames",
                               c->spec->id, c->spec->frames[0], c->spec->video, c->frames);
        c->first = c->spec->frames[0];
        if (c->spec->frames[1] + 1 < c->frames)
            c->frames = c->spec->frames[1] + 1;
    }
    c->tcam = calloc((size_t)c->frames + 1, sizeof *c->tcam);
    c->bright = calloc((size_t)c->frames + 1, sizeof *c->bright);
    c->dup = malloc(sizeof *c->dup * ((size_t)c->frames + 1));
    c->frame_start = calloc((size_t)c->frames + 2, sizeof *c->frame_start);
    c->cap_raw = c->frames * (exp->n_markers + 2) + 64;
    c->raw = malloc(sizeof *c->raw * (size_t)c->cap_raw);
    if (!c->tcam || !c->bright || !c->dup || !c->frame_start || !c->raw)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    for (long k = 0; k < c->frames; k++)
        c->tcam[k] = capture_source_time(c->src, k);

    c->det = track_detector_alloc(c->info->width, c->info->height, err);
    if (!c->det)
        return icv_err_prefix(err, "camera '%s': ", c->spec->id);
    c->tr = track_tracker_alloc(err);
    if (!c->tr)
        return icv_err_prefix(err, "camera '%s': ", c->spec->id);
    c->tr->n_expected = exp->n_markers;
    c->det->threshold_fraction = opt->threshold_fraction;
    c->det->n_markers = exp->n_markers; /* the learnt peak is the dimmest marker's */
    c->det->min_circularity = opt->min_circularity;
    c->det->centroid_margin_px = opt->centroid_margin_px;
    pl_band bands;
    pl_band_init(exp, &bands);
    c->det->centroid_coverage = opt->band_coverage && bands.on;
    if (keys->threshold > 0) {
        c->det->threshold_mode = TRACK_THRESHOLD_FIXED;
        c->det->threshold_level = keys->threshold;
    }
    if (keys->max_coast >= 0)
        c->tr->max_coast = keys->max_coast;
    c->blob_limit = opt->blob_excess * exp->n_markers;
    c->want_brightness = exp->sync == ICV_SYNC_FLASH && exp->n_cameras >= 2;
    c->debug_frames = opt->debug_frames;
    if (c->spec->has_roi)
        memcpy(c->det->roi, c->spec->roi, sizeof c->det->roi);
    if (c->spec->mask[0]) {
        calib_image m;
        rc = calib_image_read_gray(c->spec->mask, &m, err);
        if (rc)
            return icv_err_prefix(err, "camera '%s': mask: ", c->spec->id);
        if (m.width != c->info->width || m.height != c->info->height) {
            calib_image_free(&m);
            return icv_err_set(err, ICV_EINVAL, "%s: mask size %dx%d differs from camera '%s' video (%dx%d)",
                               c->spec->mask, m.width, m.height, c->spec->id, c->info->width, c->info->height);
        }
        c->mask = malloc((size_t)m.width * m.height);
        if (!c->mask) {
            calib_image_free(&m);
            return icv_err_set(err, ICV_ENOMEM, "out of memory");
        }
        for (int y = 0; y < m.height; y++)
            memcpy(c->mask + (size_t)y * m.width, m.data + (size_t)y * m.stride, (size_t)m.width);
        calib_image_free(&m);
        c->det->mask = c->mask;
        c->det->mask_stride = c->info->width;
    }
    /* expected marker size: f D / Z at the surface's distance from this camera */
    icv_vec3 o = cal->surf.t;
    if (ci >= 1)
        o = icv_v3_add(icv_m3_apply(*(const icv_mat3 *)cal->R[ci], o), icv_v3_from_array(cal->T[ci]));
    double z = o.z > 0.05 ? o.z : icv_v3_norm(o);
    int depth_known = !(exp->n_cameras == 1 && (exp->scale_kind == ICV_SCALE_GRAVITY ||
                                                exp->scale_kind == ICV_SCALE_SIZE)); /* provisional there */
    double dpx = 0;
    if (exp->marker_diameter > 0 && z > 0.05 && depth_known) {
        dpx = track_marker_diameter_px(exp->marker_diameter, in->fx, z);
        track_detector_set_marker_size(c->det, dpx, c->det->max_streak_px);
    }
    c->dpx = dpx;
    rc = camera_look(c, keys, exp->n_markers, dpx, err);
    if (!rc && !depth_known && exp->marker_diameter > 0)
        rc = marker_size_measured(c, exp->n_markers, &dpx, err);
    if (!rc && (depth_known || dpx > 0))
        tracker_gravity(exp, ci, cal, depth_known ? 0 : dpx, c);
    return rc;
}

/* Mean gray level of an 8-bit frame for the flash: every eighth row (a flash lights
 * every row; a rolling shutter's row structure is kept at 8-row resolution; 115,000
 * pixels of a 1280x720 frame average the noise far below a flash's step), summed in 32-bit integers a
 * row at a time so the compiler vectorises it; capture_frame_mean (doubles, every
 * pixel) cost 0.24 ms of a 1280x720 frame, a quarter of its decoding. */
static double frame_brightness(const capture_frame *f)
{
    if (f->bytes_per_sample != 1 || f->width > (1 << 23))
        return capture_frame_mean(f);
    uint64_t sum = 0;
    long n = 0;
    for (int y = 0; y < f->height; y += 8) {
        const uint8_t *row = (const uint8_t *)f->data + (size_t)y * f->stride;
        uint32_t s = 0;
        for (int x = 0; x < f->width; x++)
            s += row[x];
        sum += s;
        n += f->width;
    }
    return n ? (double)sum / n : 0;
}

/* What the cameras' concurrent passes share (cameras_track): the progress bar, drawn
 * under the lock, and a failure, which stops the other cameras at their next frame. */
typedef struct {
    pthread_mutex_t lock;
    icv_progress *pg;
    long done;         /* frames tracked by every camera (under lock) */
    atomic_int stop;   /* a camera failed: the others stop */
} pl_pass_shared;

static void pass_frame_done(pl_pass_shared *sh)
{
    pthread_mutex_lock(&sh->lock);
    icv_progress_update(sh->pg, ++sh->done);
    pthread_mutex_unlock(&sh->lock);
}

/* One decoding pass over a camera's frames: brightness, duplicated frames, detector
 * and tracker. The previous frame stays in the second of two buffers (swapped, not
 * copied) for the duplicate test: two identical frames have the same brightness to the
 * bit, so only a frame whose brightness equals its predecessor's is compared pixel by
 * pixel (capture_frame_equal; while the body is still, a few per clip). Found only with
 * the brightness (want_brightness), where the sidecar reports them. */
static int camera_track(pl_camera *c, pl_pass_shared *sh, icv_err *err)
{
    capture_frame buf[2];
    memset(buf, 0, sizeof buf);
    int rc = capture_frame_alloc(&buf[0], c->info, err);
    if (!rc)
        rc = capture_frame_alloc(&buf[1], c->info, err);
    if (rc) {
        capture_frame_free(&buf[0]);
        return rc;
    }
    capture_frame *cur = &buf[0], *prev = &buf[1];
    long prev_index = -1; /* the frame in prev; -1 none */
    enum { MAXP = TRACK_MAX_TRACKS * 4 };
    track_point out[MAXP];
    double last_b = 0;
    long k = 0;
    if (c->first > 0 && (rc = capture_source_seek(c->src, c->first, err)) != 0)
        icv_err_prefix(err, "camera '%s': cameras[].frames: ", c->spec->id);
    for (; !rc;) {
        if (atomic_load_explicit(&sh->stop, memory_order_relaxed))
            break; /* another camera failed: the job fails with its error */
        double t0 = icv_now();
        rc = capture_source_read(c->src, cur, err);
        c->t_decode += icv_now() - t0;
        const capture_frame fr = *cur; /* the frame's fields, read-only below */
        if (rc == CAPTURE_EOF) {
            rc = 0;
            break;
        }
        if (rc) {
            icv_err_prefix(err, "camera '%s': ", c->spec->id);
            break;
        }
        if (fr.index >= c->frames)
            break;
        for (; k < fr.index; k++) /* lost frames: brightness held */
            c->bright[k] = last_b;
        if (c->want_brightness) {
            double tm = icv_now();
            double b = frame_brightness(cur);
            /* only against the frame just before: after a lost frame, prev is not it */
            if (prev_index >= 0 && prev_index == fr.index - 1 && b == last_b && capture_frame_equal(cur, prev))
                c->dup[c->n_dup++] = fr.index;
            last_b = c->bright[fr.index] = b;
            c->t_mean += icv_now() - tm;
        }
        k = fr.index + 1;
        track_frame tf = {fr.data, fr.width, fr.height, (int)fr.stride, fr.bytes_per_sample * 8};
        int np = 0;
        if (!c->primed) {
            /* one full scan first: the automatic threshold learns the markers' peak, so
               the tracker's first frame is not thresholded at the noise floor (which
               joins a band to a lit plate behind it and loses that frame) */
            track_blob blobs[64];
            int nb = 0;
            rc = track_detector_detect(c->det, &tf, NULL, 0, blobs, 64, &nb, err);
            if (rc) {
                icv_err_prefix(err, "camera '%s': frame %ld: ", c->spec->id, fr.index);
                break;
            }
            c->primed = 1;
        }
        double ts = icv_now();
        rc = track_tracker_step(c->tr, c->det, &tf, out, MAXP, &np, err);
        c->t_step += icv_now() - ts;
        if (rc) {
            icv_err_prefix(err, "camera '%s': frame %ld: ", c->spec->id, fr.index);
            break;
        }
        const track_detect_stats *st = &c->det->stats;
        if (c->debug_frames && icv_log_get_level() >= ICV_LOG_DEBUG) {
            char line[512];
            icv_debug("camera '%s' frame %ld: %d points; %s", c->spec->id, fr.index, np,
                      track_detector_describe(c->det, line, sizeof line));
        }
        if (st->full_scan) {
            c->full_scans++;
            c->last_threshold = st->threshold;
            if (st->n_candidates > c->max_components)
                c->max_components = st->n_candidates;
        }
        if (st->brightest > c->brightest)
            c->brightest = st->brightest;
        c->crowded_scans += st->full_scan && st->n_candidates > c->blob_limit;
        for (int i = 0; i < np; i++) {
            raw_point p = {fr.index + out[i].frame_offset, out[i].marker, out[i].u, out[i].v, out[i].sigma,
                           out[i].area, out[i].flags, out[i].pred_u, out[i].pred_v};
            if (p.frame < 0)
                continue;
            if ((rc = push_raw(c, &p, err)) != 0)
                break;
        }
        if (rc)
            break;
        pass_frame_done(sh);
        prev_index = fr.index;
        capture_frame *t = prev;
        prev = cur, cur = t;
    }
    for (; k < c->frames; k++)
        c->bright[k] = last_b;
    capture_frame_free(&buf[0]);
    capture_frame_free(&buf[1]);
    if (!rc) { /* frames the decoder lost: the capture's error, not markers "not found" */
        const long *lost;
        size_t n_lost;
        capture_source_lost(c->src, &lost, &n_lost);
        if (n_lost)
            rc = icv_err_set(err, ICV_EFORMAT,
                             "camera '%s': %s: truncated or corrupt stream: %zu of %ld frames lost (from frame %ld; "
                             "impactcv probe lists them)",
                             c->spec->id, c->spec->video, n_lost, c->frames, lost[0]);
    }
    return rc;
}

typedef struct {
    pl_camera *cam;
    pl_pass_shared *sh;
    int rc;
    icv_err err;
} pl_pass;

static void *camera_pass_run(void *arg)
{
    pl_pass *p = arg;
    p->rc = camera_track(p->cam, p->sh, &p->err);
    if (p->rc)
        atomic_store(&p->sh->stop, 1);
    return NULL;
}

/* 2D: every camera's frames once, the cameras concurrently (each camera's state is its
 * own: source, detector, tracker, points): camera 0 in the calling thread, each other
 * in a thread of its own (or after camera 0 when a thread cannot be made). The first
 * failure stops the others at their next frame; the error returned is that of the
 * first camera, in experiment.yaml's order, that failed rather than stopped. */
static int cameras_track(pl_camera *cams, int nc, icv_progress *pg, icv_err *err)
{
    pl_pass_shared sh = {.pg = pg};
    atomic_init(&sh.stop, 0);
    if (pthread_mutex_init(&sh.lock, NULL))
        return icv_err_set(err, ICV_ENOMEM, "cannot make a mutex for the cameras' decoding passes");
    pl_pass pass[ICV_MAX_CAMERAS];
    for (int c = 0; c < nc; c++)
        pass[c] = (pl_pass){&cams[c], &sh, 0, {0}};
    icv_run_each(camera_pass_run, pass, sizeof *pass, nc); /* core/run_each.c */
    pthread_mutex_destroy(&sh.lock);
    for (int c = 0; c < nc; c++)
        if (pass[c].rc) {
            *err = pass[c].err;
            return pass[c].rc;
        }
    return 0;
}

/* The first point of frame f in raw (sorted by frame then identity). */
static long raw_frame_start(const pl_camera *c, long f)
{
    long lo = 0, hi = c->n_raw;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (c->raw[mid].frame < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int push_gap(pl_camera *c, const pl_gap *g, icv_err *err)
{
    if (c->n_gaps == c->cap_gaps) {
        size_t cap = c->cap_gaps ? 2 * c->cap_gaps : 16;
        pl_gap *p = realloc(c->gaps, sizeof *p * cap);
        if (!p)
            return icv_err_set(err, ICV_ENOMEM, "out of memory");
        c->gaps = p;
        c->cap_gaps = cap;
    }
    c->gaps[c->n_gaps++] = *g;
    return 0;
}

/* Why track id had no blob in frames g->first..g->last, from where it should have been:
 * (u0, v0) at frame f0 to (u1, v1) at f1, linearly (px). Out of the image when that lies
 * within 10 px of an edge in any frame of the gap; occluded when another track was
 * measured within 3 marker diameters (15 px at least) of it; else not found. */
static pl_gap_kind gap_kind(const pl_camera *c, const pl_gap *g, long n_merged, double diameter, long f0,
                            double u0, double v0, long f1, double u1, double v1)
{
    if (n_merged == g->last - g->first + 1)
        return PL_GAP_MERGED;
    double margin = 10, R = fmax(15, 3 * diameter);
    int occluded = 0;
    for (long f = g->first; f <= g->last; f++) {
        double w = f1 > f0 ? fmin(1, (double)(f - f0) / (double)(f1 - f0)) : 0;
        double u = u0 + w * (u1 - u0), v = v0 + w * (v1 - v0);
        if (u < margin || v < margin || u > c->info->width - 1 - margin || v > c->info->height - 1 - margin)
            return PL_GAP_OUT_OF_IMAGE;
        for (long i = raw_frame_start(c, f); i < c->n_raw && c->raw[i].frame == f && !occluded; i++) {
            const raw_point *p = &c->raw[i];
            occluded = p->id != g->track && !(p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED)) &&
                       hypot(p->u - u, p->v - v) < R;
        }
    }
    return occluded ? PL_GAP_OCCLUDED : PL_GAP_NOT_FOUND;
}

/* The gaps of every moving track (a still one, moved < 2 px in its life, is a glint the
 * static model learnt): frames between two measurements, and from the last one to the
 * clip's end, with why (gap_kind). The tracker never ends a lost track, so a marker
 * found again has its identity across the gap. */
static int camera_gaps(pl_camera *c, icv_err *err)
{
    qsort(c->raw, (size_t)c->n_raw, sizeof *c->raw, cmp_raw);
    int n_ids = 0;
    for (long i = 0; i < c->n_raw; i++)
        if (c->raw[i].id + 1 > n_ids)
            n_ids = c->raw[i].id + 1;
    c->n_gaps = 0;
    for (int id = 0; id < n_ids; id++) {
        long n = 0, n_merged = 0;
        const raw_point *l0 = NULL, *l1 = NULL, *last_any = NULL;
        double umin = INFINITY, umax = -INFINITY, vmin = INFINITY, vmax = -INFINITY, area = 0;
        for (long i = 0; i < c->n_raw; i++) {
            const raw_point *p = &c->raw[i];
            if (p->id != id || p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED))
                continue;
            umin = fmin(umin, p->u), umax = fmax(umax, p->u), vmin = fmin(vmin, p->v), vmax = fmax(vmax, p->v);
            area += p->area;
            n++;
        }
        if (n < 3 || (umax - umin < 2 && vmax - vmin < 2))
            continue;
        double diameter = 2 * sqrt(area / n / M_PI);
        for (long i = 0; i < c->n_raw; i++) {
            const raw_point *p = &c->raw[i];
            if (p->id != id)
                continue;
            last_any = p;
            if (p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED)) {
                n_merged += (p->flags & TRACK_FLAG_MERGED) != 0;
                continue;
            }
            if (l1 && p->frame > l1->frame + 1) {
                pl_gap g = {id, id, l1->frame + 1, p->frame - 1, 0, PL_GAP_NOT_FOUND};
                g.kind = gap_kind(c, &g, n_merged, diameter, l1->frame, l1->u, l1->v, p->frame, p->u, p->v);
                if (push_gap(c, &g, err))
                    return err ? err->code : ICV_ENOMEM;
            }
            n_merged = 0;
            l0 = l1;
            l1 = p;
        }
        if (l1 && l1->frame < c->frames - 1) {
            /* to the clip's end: where the flight from the last two measurements (or the
               tracker's last prediction) takes it */
            pl_gap g = {id, id, l1->frame + 1, c->frames - 1, 1, PL_GAP_NOT_FOUND};
            double vu = 0, vv = 0, u1 = l1->u, v1 = l1->v;
            long f1 = l1->frame;
            if (last_any && last_any->frame > l1->frame) {
                f1 = last_any->frame, u1 = last_any->pred_u, v1 = last_any->pred_v;
            } else if (l0 && l1->frame > l0->frame) {
                vu = (l1->u - l0->u) / (double)(l1->frame - l0->frame);
                vv = (l1->v - l0->v) / (double)(l1->frame - l0->frame);
                f1 = l1->frame + 1, u1 = l1->u + vu, v1 = l1->v + vv;
            }
            /* beyond f1 the estimate stays there: a flight's continuation guessed over
               many frames would call every long loss out of the image */
            pl_gap_kind k = gap_kind(c, &g, n_merged, diameter, l1->frame, l1->u, l1->v, f1, u1, v1);
            g.kind = k;
            if (push_gap(c, &g, err))
                return err ? err->code : ICV_ENOMEM;
        }
    }
    return 0;
}

/* Bad input seen in the 2D stage: nothing found, far too many blobs; then the markers'
 * gaps (never a failure). */
static int camera_check(const icv_experiment *exp, const track_pipeline_options *opt, pl_camera *c, icv_err *err)
{
    long measured = 0;
    for (long i = 0; i < c->n_raw; i++)
        measured += !(c->raw[i].flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED));
    if (c->full_scans > 0 && c->crowded_scans == c->full_scans) {
        /* only fixes that would work: the noise threshold cannot be raised usefully
           (it already leaves the noise out), a fixed one can be; a size filter only
           when the marker's size is not known */
        const track_detector *d = c->det;
        char fix[256];
        snprintf(fix, sizeof fix, "%s%s%s",
                 d->threshold_mode == TRACK_THRESHOLD_FIXED ? "a higher track.threshold (or none: the automatic one), "
                                                            : "",
                 exp->marker_diameter > 0 ? "" : "body.marker_diameter (a size filter), ",
                 d->look == TRACK_LOOK_BRIGHT ? "track.markers (dark, motion or a colour, if the markers are not "
                                                "the brightest things), "
                                              : "another track.markers, ");
        return icv_err_set(err, ICV_EINVAL,
                           "camera '%s' (%s): more than %.0f %s blobs of a marker's size in every frame scanned "
                           "(up to %d, inside roi and mask) for %d markers: set %scameras[].roi or cameras[].mask",
                           c->spec->id, c->spec->video, c->blob_limit, track_look_name(d->look), c->max_components,
                           exp->n_markers, fix);
    }
    if (measured == 0) {
        if (c->brightest > 0)
            return icv_err_set(err, ICV_ENOTFOUND,
                               "camera '%s' (%s): no marker found in any of %ld frames (threshold %.1f gray levels; "
                               "brightest blob seen %.1f, none kept as a marker)",
                               c->spec->id, c->spec->video, c->frames, c->last_threshold, c->brightest);
        return icv_err_set(err, ICV_ENOTFOUND,
                           "camera '%s' (%s): no marker found in any of %ld frames (threshold %.1f gray levels; "
                           "brightest blob: none above it; check the lighting, or set track.threshold)",
                           c->spec->id, c->spec->video, c->frames, c->last_threshold);
    }
    (void)opt;
    return camera_gaps(c, err);
}

/* Sorts the points, indexes them by frame, undistorts them. */
/* Each picture once, at its first frame's time: the points of frames that repeat the
 * picture before them leave the tracks (their times are a frame late, and a
 * duplicated picture counted twice pulls every fit toward it). */
static int camera_drop_repeats(pl_camera *c, icv_err *err)
{
    qsort(c->raw, (size_t)c->n_raw, sizeof *c->raw, cmp_raw);
    c->repeat = malloc(sizeof *c->repeat * ((size_t)c->frames + 1));
    if (!c->repeat)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    int rc = pl_repeated_pictures(c->raw, c->n_raw, c->frames, 1.0, c->repeat, &c->n_repeat, &c->stored_times, err);
    if (rc)
        return rc;
    if ((rc = pl_anything_moves(c->raw, c->n_raw, 1.0, &c->moves, err)) != 0)
        return rc;
    long k = 0;
    size_t r = 0;
    for (long i = 0; i < c->n_raw; i++) {
        while (r < c->n_repeat && c->repeat[r] < c->raw[i].frame)
            r++;
        if (!(r < c->n_repeat && c->repeat[r] == c->raw[i].frame))
            c->raw[k++] = c->raw[i];
    }
    c->n_raw = k;
    return 0;
}

/* A clip in which nothing moves (one picture stored as a video, or only still things
 * tracked) has no motion to measure: said here, where it is known, rather than as "too
 * few posed frames" or "no impact" later. */
static int camera_check_motion(const pl_camera *c, icv_err *err)
{
    if (c->moves || c->frames < 3)
        return 0;
    return icv_err_set(err, ICV_EINVAL,
                       "camera '%s' (%s): nothing tracked moves in any of its %ld frames: every frame repeats the "
                       "first picture (one picture stored as a video?), or only still things are found (check "
                       "track.markers and cameras[].frames)",
                       c->spec->id, c->spec->video, c->frames);
}

static int camera_index(pl_camera *c, icv_err *err)
{
    qsort(c->raw, (size_t)c->n_raw, sizeof *c->raw, cmp_raw);
    c->pts = calloc((size_t)c->n_raw + 1, sizeof *c->pts);
    calib_pt2 *uv = malloc(sizeof *uv * ((size_t)c->n_raw + 1));
    if (!c->pts || !uv) {
        free(uv);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    for (long i = 0; i < c->n_raw; i++)
        uv[i] = (calib_pt2){c->raw[i].u, c->raw[i].v};
    int rc = c->n_raw ? calib_undistort_points(&c->in, uv, (int)c->n_raw, 0, uv, err) : 0;
    if (rc) {
        free(uv);
        return rc;
    }
    long f = 0;
    c->n_ids = 0;
    for (long i = 0; i < c->n_raw; i++) {
        const raw_point *r = &c->raw[i];
        c->pts[i] = (track_pipe_point){r->frame, r->id, uv[i].u, uv[i].v, r->sigma, r->flags, 0};
        while (f <= r->frame)
            c->frame_start[f++] = i;
        if (r->id + 1 > c->n_ids)
            c->n_ids = r->id + 1;
    }
    while (f <= c->frames)
        c->frame_start[f++] = c->n_raw;
    free(uv);
    /* px/frame^2: a kink the linear interpolation cannot follow (its error is a/8 for an
       acceleration a, 0.25 px here); free flight at 240 fps bends tracks by ~0.2 */
    track_pipe_mark_breaks(c->pts, c->n_raw, c->frame_start, c->frames, 2.0);
    c->label = malloc(sizeof *c->label * ((size_t)c->frames * (c->n_ids ? c->n_ids : 1)));
    if (!c->label)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    for (long i = 0; i < c->frames * (c->n_ids ? c->n_ids : 1); i++)
        c->label[i] = -1;
    c->pc = (track_pipe_camera){.pts = c->pts, .n_pts = c->n_raw, .frame_start = c->frame_start,
                                .frames = c->frames, .cam_time_s = c->tcam, .fps = c->info->capture_fps};
    return 0;
}

static void set_view(track_view *v, const calib_intrinsics *in, const double R[3][3], const double T[3])
{
    memset(v, 0, sizeof *v);
    v->K[0][0] = in->fx, v->K[0][2] = in->cx, v->K[1][1] = in->fy, v->K[1][2] = in->cy, v->K[2][2] = 1;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            v->R[i][j] = R ? R[i][j] : (i == j);
        v->t[i] = T ? T[i] : 0;
    }
}


/* to the surface frame: x_s = Rs^T (x_cam - ts), cov_s = Rs^T cov Rs */
void pl_to_surface(const calib_surface *s, const double X[3], const double cov[3][3], pl_cand *out)
{
    icv_mat3 Rt = icv_m3_transpose(s->R), C;
    out->X = icv_m3_apply(Rt, icv_v3_sub(icv_v3_from_array(X), s->t));
    memcpy(C.m, cov, sizeof C.m);
    C = icv_m3_mul(icv_m3_mul(Rt, C), s->R);
    memcpy(out->cov, C.m, sizeof out->cov);
}

static int usable_point(const track_pipe_point *p)
{
    return !(p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED | TRACK_FLAG_OUTLIER));
}

/* The views of camera b at the reference camera's experiment time t_exp: its tracks
 * interpolated inside one flight segment, or extrapolated by less than a frame past its
 * clip's ends (flags: TRACK_FLAG_INTERPOLATED / _EXTRAPOLATED of each view). */
static void other_views(const pl_camera *b, const track_pipeline_options *opt, double t_exp, track_view *vb, int *idb,
                        unsigned *flags, int *nb)
{
    double tc = t_exp + b->off_s;
    long fb = (long)floor((tc - b->tcam[0]) * b->pc.fps);
    *nb = 0;
    for (long g = fb; g <= fb + 1; g++) {
        if (g < 0 || g >= b->frames)
            continue;
        for (long i = b->frame_start[g]; i < b->frame_start[g + 1] && *nb < TRACK_MAX_TRACKS; i++) {
            int id = b->pts[i].id, dup = 0;
            for (int k = 0; k < *nb; k++)
                dup |= idb[k] == id;
            if (dup)
                continue;
            double u, v, s;
            int interp;
            if (track_pipe_interpolate(&b->pc, id, tc, &u, &v, &s, &interp) == 0)
                flags[*nb] = interp ? TRACK_FLAG_INTERPOLATED : 0;
            else if (track_pipe_extrapolate(&b->pc, id, tc, opt->extrapolate_frames, &u, &v, &s) == 0)
                flags[*nb] = TRACK_FLAG_EXTRAPOLATED;
            else
                continue;
            vb[*nb] = b->pc.view;
            vb[*nb].u = u, vb[*nb].v = v, vb[*nb].sigma = s;
            idb[(*nb)++] = id;
        }
    }
}

/* The ray of a view's pixel, in the surface frame (for the identity: a point one camera
 * alone sees). */
static void view_ray(const track_view *v, const calib_surface *s, int cam, int track, double sigma_floor_px,
                     track_identity_ray *r)
{
    r->cam = cam;
    r->track = track;
    r->f_px = sqrt(v->K[0][0] * v->K[1][1]);
    r->sigma_rad = hypot(v->sigma, sigma_floor_px) / r->f_px;
    double y = (v->v - v->K[1][2]) / v->K[1][1], x = (v->u - v->K[0][2] - v->K[0][1] * y) / v->K[0][0];
    double dc[3] = {x, y, 1}, d[3], c[3];
    for (int i = 0; i < 3; i++) { /* the reference camera's frame: R^T (.), centre -R^T t */
        d[i] = c[i] = 0;
        for (int k = 0; k < 3; k++) {
            d[i] += v->R[k][i] * dc[k];
            c[i] -= v->R[k][i] * v->t[k];
        }
    }
    icv_mat3 Rt = icv_m3_transpose(s->R);
    r->o = icv_m3_apply(Rt, icv_v3_sub(icv_v3_from_array(c), s->t));
    r->d = icv_m3_apply(Rt, icv_v3_from_array(d));
    r->d = icv_v3_scale(r->d, 1.0 / icv_v3_norm(r->d));
}

/* Candidates of reference frame f: triangulated from every camera whose view of the
 * reference camera's detection lies on its epipolar line (two or more cameras), or on
 * the motion plane (one camera). rays: the views no candidate took (two or more
 * cameras; up to TRACK_IDENTITY_MAX_RAYS), for the identity. */
static int frame_candidates(pl_camera *cams, int nc, const pl_calib *cal, const track_pipeline_options *opt,
                            long f, double t_exp, pl_cand *cand, int *n_cand, track_identity_ray *rays,
                            int *n_rays, icv_err *err)
{
    pl_camera *a = &cams[0];
    *n_cand = 0;
    *n_rays = 0;
    track_view va[TRACK_MAX_TRACKS];
    int ida[TRACK_MAX_TRACKS], na = 0;
    for (long i = a->frame_start[f]; i < a->frame_start[f + 1] && na < TRACK_MAX_TRACKS; i++) {
        const track_pipe_point *p = &a->pts[i];
        if (!usable_point(p))
            continue;
        va[na] = a->pc.view;
        va[na].u = p->u, va[na].v = p->v, va[na].sigma = p->sigma;
        ida[na++] = p->id;
    }
    if (nc == 1) {
        double p0[3], nrm[3];
        icv_v3_to_array(cal->plane.t, p0);
        for (int k = 0; k < 3; k++)
            nrm[k] = cal->plane.R.m[k][1];
        for (int i = 0; i < na && *n_cand < PL_MAX_CAND; i++) {
            track_point3d X;
            if (track_ray_plane(&va[i], p0, nrm, &X, NULL) != 0)
                continue;
            pl_cand *c = &cand[(*n_cand)++];
            pl_to_surface(&cal->surf, X.X, X.cov, c);
            c->X.z = 0; /* planar mode: z is the motion plane's normal (contract) */
            c->residual = 0;
            c->chi2 = 0;
            c->flags = 0;
            c->nv = 1;
            c->cam[0] = 0;
            c->id[0] = ida[i];
            c->v[0] = va[i];
        }
        return 0;
    }
    if (na == 0)
        return 0;
    /* each other camera: its views at this time, matched to the reference's detections */
    track_view vb[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS];
    int idb[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS], nb[ICV_MAX_CAMERAS], match[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS];
    unsigned fb[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS];
    for (int k = 1; k < nc; k++) {
        other_views(&cams[k], opt, t_exp, vb[k], idb[k], fb[k], &nb[k]);
        for (int i = 0; i < na; i++)
            match[k][i] = -1;
        if (nb[k] == 0)
            continue;
        int rc = track_epipolar_match(va, na, vb[k], nb[k], opt->epipolar_max_px, match[k], err);
        if (rc)
            return rc;
        if (opt->debug_frames && icv_log_get_level() >= ICV_LOG_DEBUG)
            for (int i = 0; i < na; i++)
                icv_debug("frame %ld: camera 0 track %d (%.2f, %.2f) px matched camera %d track %d", f, ida[i],
                          va[i].u, va[i].v, k, match[k][i] >= 0 ? idb[k][match[k][i]] : -1);
    }
    int took[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS]; /* view used by a candidate */
    memset(took, 0, sizeof took);
    for (int i = 0; i < na && *n_cand < PL_MAX_CAND; i++) {
        pl_cand c;
        unsigned vflag[ICV_MAX_CAMERAS] = {0}; /* each view's interpolated / extrapolated */
        memset(&c, 0, sizeof c);
        c.v[0] = va[i];
        c.cam[0] = 0;
        c.id[0] = ida[i];
        c.nv = 1;
        for (int k = 1; k < nc; k++) {
            int m = match[k][i];
            if (m < 0)
                continue;
            c.v[c.nv] = vb[k][m];
            c.cam[c.nv] = k;
            c.id[c.nv] = idb[k][m];
            vflag[c.nv] = fb[k][m];
            c.nv++;
        }
        if (c.nv < 2)
            continue;
        for (int k = 0; k < c.nv; k++)
            c.v[k].sigma = hypot(c.v[k].sigma, opt->sigma_floor_px);
        track_point3d X;
        int ok = track_triangulate(c.v, c.nv, &X, NULL) == 0;
        /* three or more views: one whose reprojection misses by more than the association
           limit is a wrong match in that camera (each pair was matched on its own): it is
           dropped and the point triangulated again from the others */
        while (ok && c.nv > 2) {
            int worst = -1;
            for (int k = 1; k < c.nv; k++)
                if (X.residual[k] > opt->epipolar_max_px && (worst < 0 || X.residual[k] > X.residual[worst]))
                    worst = k;
            if (worst < 0)
                break;
            for (int k = worst; k + 1 < c.nv; k++) {
                c.v[k] = c.v[k + 1];
                c.cam[k] = c.cam[k + 1];
                c.id[k] = c.id[k + 1];
                vflag[k] = vflag[k + 1];
            }
            c.nv--;
            ok = track_triangulate(c.v, c.nv, &X, NULL) == 0;
        }
        if (!ok)
            continue;
        for (int k = 0; k < c.nv; k++)
            c.flags |= vflag[k];
        c.chi2 = X.chi2;
        pl_to_surface(&cal->surf, X.X, X.cov, &c);
        c.residual = X.residual_px;
        cand[(*n_cand)++] = c;
        took[0][i] = 1;
        for (int w = 1; w < c.nv; w++)
            if (match[c.cam[w]][i] >= 0)
                took[c.cam[w]][match[c.cam[w]][i]] = 1;
    }
    for (int i = 0; i < na && *n_rays < TRACK_IDENTITY_MAX_RAYS; i++)
        if (!took[0][i])
            view_ray(&va[i], &cal->surf, 0, ida[i], opt->sigma_floor_px, &rays[(*n_rays)++]);
    for (int k = 1; k < nc; k++)
        for (int m = 0; m < nb[k] && *n_rays < TRACK_IDENTITY_MAX_RAYS; m++)
            if (!took[k][m] && !(fb[k][m] & TRACK_FLAG_EXTRAPOLATED))
                view_ray(&vb[k][m], &cal->surf, k, idb[k][m], opt->sigma_floor_px, &rays[(*n_rays)++]);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The centroids' sigmas hold the noise, not the model error of a marker whose visible
 * part differs between the cameras (a band round a rod): the triangulations' median
 * chi-square against that of a chi-square of their degrees of freedom (0.455 for two
 * views) scales the sigmas (never down), so the covariance stays honest; a point beyond
 * the 99.9% limit at that scale is an outlier and is dropped. */
static int flag_outliers(pl_cand *cand, int *cand_n, long F, pl_camera *ref, const calib_surface *surf,
                         track_identity_ray *rays, const int *rays_n, int *rays_extra, long *n_out, double *scale,
                         icv_err *err)
{
    for (long f = 0; f < F; f++)
        rays_extra[f] = 0;
    long n = 0;
    for (long f = 0; f < F; f++)
        n += cand_n[f];
    *scale = 1;
    if (n == 0)
        return 0;
    double *c2 = malloc(sizeof *c2 * (size_t)n);
    if (!c2)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    /* each point's chi-square over the median of a chi-square of its 2 nv - 3 degrees of
       freedom (0.455 for two views): the median of that ratio is the sigmas' scale^2 */
    double med_dof[ICV_MAX_CAMERAS + 1], lim_dof[ICV_MAX_CAMERAS + 1];
    for (int v = 2; v <= ICV_MAX_CAMERAS; v++) {
        med_dof[v] = track_chi2_median(2 * v - 3);
        lim_dof[v] = track_chi2_limit(2 * v - 3);
    }
    long k = 0;
    for (long f = 0; f < F; f++)
        for (int i = 0; i < cand_n[f]; i++) {
            const pl_cand *c = &cand[f * PL_MAX_CAND + i];
            c2[k++] = c->chi2 / med_dof[c->nv];
        }
    qsort(c2, (size_t)n, sizeof *c2, cmp_double);
    double med = c2[n / 2];
    free(c2);
    double s2 = med > 1 ? med : 1;
    *scale = sqrt(s2);
    for (long f = 0; f < F; f++) {
        pl_cand *c = cand + f * PL_MAX_CAND;
        int m = 0;
        for (int i = 0; i < cand_n[f]; i++) {
            if (c[i].chi2 > s2 * lim_dof[c[i].nv]) {
                (*n_out)++;
                /* the reference camera's point is flagged in tracks2d (the others' were
                   interpolated between two of their points: left as measured) */
                for (long r = ref->frame_start[f]; r < ref->frame_start[f + 1]; r++)
                    if (ref->raw[r].id == c[i].id[0])
                        ref->raw[r].flags |= TRACK_FLAG_OUTLIER;
                /* each view on its own is a ray for the ray pose (one of them may be
                   right: a marker half hidden from one camera); after the identity's
                   rays, which it does not see */
                for (int w = 0; w < c[i].nv && rays_n[f] + rays_extra[f] < TRACK_IDENTITY_MAX_RAYS; w++)
                    view_ray(&c[i].v[w], surf, c[i].cam[w], c[i].id[w], 0,
                             &rays[f * TRACK_IDENTITY_MAX_RAYS + rays_n[f] + rays_extra[f]++]);
                continue;
            }
            c[m] = c[i];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    c[m].cov[a][b] *= s2;
            m++;
        }
        cand_n[f] = m;
    }
    return 0;
}

/* One-camera mode: a marker off the body's plane of motion (body z != 0, e.g. a sticker
 * on a bar's front face) moves in the plane parallel to the motion plane at that
 * offset along the surface z (the body's z stays the motion plane's normal in planar
 * motion). Its ray meets that plane; z is then written 0 (contract, planar mode). */
static void planar_marker_plane(const pl_calib *cal, double dz, pl_cand *c)
{
    double p0[3], nrm[3];
    for (int k = 0; k < 3; k++) {
        nrm[k] = cal->plane.R.m[k][1];
        p0[k] = icv_v3_get(cal->plane.t, k) + dz * cal->surf.R.m[k][2];
    }
    track_point3d X;
    if (track_ray_plane(&c->v[0], p0, nrm, &X, NULL) != 0)
        return;
    pl_to_surface(&cal->surf, X.X, X.cov, c);
    c->X.z = 0;
}

/* One camera with markers off the motion plane (some body z != 0): candidate i's
 * position as marker j (its ray meets that marker's plane) into Xm[i * nm + j], for the
 * template's identity; 0 when every marker is on the plane (the candidates' own X then). */
static int planar_per_marker(const pl_calib *cal, const icv_experiment *exp, const pl_cand *cf, int n, icv_vec3 *Xm)
{
    int off = 0;
    for (int j = 0; j < exp->n_markers; j++)
        off |= exp->markers[j].z != 0;
    if (!off || exp->n_cameras != 1)
        return 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < exp->n_markers; j++) {
            pl_cand c = cf[i];
            if (exp->markers[j].z != 0)
                planar_marker_plane(cal, exp->markers[j].z, &c);
            Xm[i * exp->n_markers + j] = c.X;
        }
    return 1;
}

/* Each reference-camera 2D track's travel over the clip (m), for the identity of points
 * the template cannot tell apart (a ball beside the reference cylinder): per surface axis
 * the spread of its candidates' positions from the 10th to the 90th percentile (a wrong
 * frame or two left out), their norm. travel[0..n_ids): 0 for a track with no candidate. */
static int track_travels(const pl_cand *cand, const int *cand_n, long F, int n_ids, double *travel, icv_err *err)
{
    long n = 0;
    for (long f = 0; f < F; f++)
        n += cand_n[f];
    long *start = calloc((size_t)n_ids + 2, sizeof *start), *fill = calloc((size_t)n_ids + 1, sizeof *fill);
    double *v = malloc(sizeof *v * (size_t)(3 * n + 1));
    if (!start || !fill || !v) {
        free(start);
        free(fill);
        free(v);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    for (long f = 0; f < F; f++)
        for (int i = 0; i < cand_n[f]; i++) {
            int id = cand[f * PL_MAX_CAND + i].id[0];
            if (id >= 0 && id < n_ids)
                start[id + 1]++;
        }
    for (int k = 0; k < n_ids; k++)
        start[k + 1] += start[k];
    for (long f = 0; f < F; f++)
        for (int i = 0; i < cand_n[f]; i++) {
            const pl_cand *c = &cand[f * PL_MAX_CAND + i];
            int id = c->id[0];
            if (id < 0 || id >= n_ids)
                continue;
            long at = start[id] + fill[id]++;
            for (int a = 0; a < 3; a++)
                v[a * n + at] = icv_v3_get(c->X, a);
        }
    for (int k = 0; k < n_ids; k++) {
        long m = start[k + 1] - start[k];
        double s2 = 0;
        for (int a = 0; a < 3 && m > 0; a++) {
            double *x = v + a * n + start[k];
            qsort(x, (size_t)m, sizeof *x, cmp_double);
            double d = x[(m - 1) * 9 / 10] - x[(m - 1) / 10];
            s2 += d * d;
        }
        travel[k] = sqrt(s2);
    }
    free(start);
    free(fill);
    free(v);
    return 0;
}

/* The body marker of 2D point (frame f, id): the label given at f or the nearest frame. */
static int label_2d(const pl_camera *c, long f, int id)
{
    for (long d = 0; d <= 3; d++) { /* frames: a coasted or unmatched point near a labelled one */
        if (f - d >= 0 && c->label[(f - d) * c->n_ids + id] >= 0)
            return c->label[(f - d) * c->n_ids + id];
        if (f + d < c->frames && c->label[(f + d) * c->n_ids + id] >= 0)
            return c->label[(f + d) * c->n_ids + id];
    }
    /* else the label the track carries most often */
    int votes[ICV_MAX_MARKERS] = {0}, best = -1, bv = 0;
    for (long g = 0; g < c->frames; g++) {
        int l = c->label[g * c->n_ids + id];
        if (l >= 0 && ++votes[l] > bv)
            bv = votes[l], best = l;
    }
    return best;
}

/* Whether the template's markers with have[] set fix a pose: 2 on a line template, else
 * 3 not on one line (as analysis's pose fit asks). have NULL: whether the template is a
 * line (all its markers then fix it only as a line's 2 would). */
static int pose_determined(const icv_vec3 *tmpl, int nm, const int *have)
{
    int idx[ICV_MAX_MARKERS], n = 0, line = 1;
    for (int k = 0; k < nm; k++)
        if (!have || have[k])
            idx[n++] = k;
    for (int a = 0; a < nm && line; a++)
        for (int b = a + 1; b < nm && line; b++)
            for (int c = b + 1; c < nm && line; c++)
                line = icv_v3_norm(icv_v3_cross(icv_v3_sub(tmpl[b], tmpl[a]), icv_v3_sub(tmpl[c], tmpl[a]))) <=
                       1e-9;
    if (line)
        return have ? n >= 2 : 1;
    if (!have)
        return 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            for (int c = b + 1; c < n; c++)
                if (icv_v3_norm(icv_v3_cross(icv_v3_sub(tmpl[idx[b]], tmpl[idx[a]]),
                                             icv_v3_sub(tmpl[idx[c]], tmpl[idx[a]]))) > 1e-9)
                    return 1;
    return 0;
}

/* The frame's rays as markers of the body, in a frame whose labelled points (two at
 * least, one on a line) do not fix its pose: a ray whose 2D track was labelled a marker
 * not in the frame is that marker. The pose from the points and those rays (ray_pose.c;
 * failing that, the best without one ray) places each such marker on its ray: written to
 * xyz (this frame's nm x 3) and qrows, flag one_view, its 2D track labelled. prior /
 * prior_f: the last frame's pose (updated). Returns the positions added. */
static int ray_pose_frame(pl_camera *cams, const icv_vec3 *tmpl, int nm, const pl_cand *cf, const int *lab,
                          int n_cand, long f, double t, const track_identity_ray *rays, int n_rays,
                          double sigma_scale, track_pose *prior, long *prior_f, double *xyz, track_quality3d *qrows,
                          long *nq)
{
    if (nm < 2)
        return 0;
    track_pose_obs obs[TRACK_POSE_MAX_OBS];
    int n = 0, have[ICV_MAX_MARKERS] = {0}, ray_of[TRACK_POSE_MAX_OBS];
    long g_of[TRACK_POSE_MAX_OBS];
    for (int i = 0; i < n_cand && n < TRACK_POSE_MAX_OBS; i++)
        if (lab[i] >= 0 && !have[lab[i]]) {
            have[lab[i]] = 1;
            obs[n] = (track_pose_obs){.marker = lab[i], .X = cf[i].X};
            memcpy(obs[n].cov, cf[i].cov, sizeof obs[n].cov);
            ray_of[n++] = -1;
        }
    const track_pose *pr = *prior_f >= f - 3 && *prior_f < f ? prior : NULL;
    track_pose pose;
    if (pose_determined(tmpl, nm, have)) { /* posed without rays: the next frame's prior */
        if (track_ray_pose_fit(tmpl, nm, obs, n, pr, &pose, NULL) == 0)
            *prior = pose, *prior_f = f;
        return 0;
    }
    /* two points at least (one on a line): rays alone fix the depth poorly (random scenes
       1027, 1042: 5-15 mm off where two points and a ray give 0.1-0.5 mm) */
    int n_pt = n;
    if (n_pt < (pose_determined(tmpl, nm, NULL) ? 1 : 2))
        return 0;
    for (int r = 0; r < n_rays && n < TRACK_POSE_MAX_OBS; r++) {
        const track_identity_ray *ry = &rays[r];
        pl_camera *cm = &cams[ry->cam];
        long g = f;
        if (ry->cam >= 1)
            g = lround((t + cm->off_s - cm->tcam[0]) * cm->pc.fps);
        if (g < 0 || g >= cm->frames || ry->track < 0 || ry->track >= cm->n_ids)
            continue;
        int m = label_2d(cm, g, ry->track);
        if (m >= nm)
            continue;
        if (m < 0 || have[m] == 1) /* a track never labelled (a glint, a new track: taken as
                                       a marker wherever it crossed the template's circle,
                                       scenes 1028, 1036), or of a marker in 3D */
            continue;
        have[m] = 2;
        obs[n] = (track_pose_obs){.marker = m, .is_ray = 1, .o = ry->o, .d = ry->d,
                                  .sigma_rad = ry->sigma_rad * sigma_scale};
        g_of[n] = g;
        ray_of[n++] = r;
    }
    icv_err e2 = {0};
    int fit = n > n_pt && track_ray_pose_fit(tmpl, nm, obs, n, pr, &pose, &e2) == 0;
    if (!fit && n - n_pt >= 2) { /* one ray may be wrong (a marker half hidden): the best fit without one */
        track_pose_obs o2[TRACK_POSE_MAX_OBS];
        track_pose best;
        int out = -1;
        for (int k = n_pt; k < n; k++) {
            int m = 0;
            for (int i = 0; i < n; i++)
                if (i != k)
                    o2[m++] = obs[i];
            if (track_ray_pose_fit(tmpl, nm, o2, m, pr, &pose, NULL) == 0 && (out < 0 || pose.chi2 < best.chi2)) {
                best = pose;
                out = k;
            }
        }
        if (out >= 0) {
            for (int i = out; i + 1 < n; i++) {
                obs[i] = obs[i + 1];
                g_of[i] = g_of[i + 1];
                ray_of[i] = ray_of[i + 1];
            }
            n--;
            pose = best;
            fit = 1;
        }
    }
    if (!fit) {
        icv_debug("frame %ld: ray pose: %d points, %d rays of %d: %s", f, n_pt, n - n_pt, n_rays,
                  n == n_pt ? "no ray is a marker" : e2.msg);
        return 0;
    }
    *prior = pose;
    *prior_f = f;
    icv_debug("frame %ld: ray pose from %d points and %d rays, chi-square %.1f of %d", f, n_pt, n - n_pt, pose.chi2,
              pose.dof);
    int added = 0;
    for (int i = n_pt; i < n; i++) {
        const track_identity_ray *ry = &rays[ray_of[i]];
        int m = obs[i].marker;
        double *o = xyz + (size_t)m * 3;
        if (isfinite(o[0])) /* two rays of one marker: one position */
            continue;
        icv_vec3 Y;
        track_quality3d *q = &qrows[(*nq)++];
        track_ray_pose_marker(&pose, tmpl[m], &Y, q->cov);
        o[0] = Y.x, o[1] = Y.y, o[2] = Y.z;
        icv_vec3 e = icv_v3_sub(Y, ry->o);
        double s = icv_v3_dot(e, ry->d);
        q->frame = f;
        q->time_s = t;
        q->marker = m;
        q->residual_px = ry->f_px * icv_v3_norm(icv_v3_axpy(-s, ry->d, e)) / s;
        q->flags = TRACK_FLAG_ONE_VIEW;
        cams[ry->cam].label[g_of[i] * cams[ry->cam].n_ids + ry->track] = m;
        added++;
    }
    return added;
}

static void remove_written(char paths[][ICV_PATH_MAX], int n)
{
    for (int i = 0; i < n; i++)
        unlink(paths[i]);
}

int track_pipeline_run(const char *experiment_path, const char *out_dir, const track_pipeline_options *opt_in,
                       track_pipeline_result *res_out, icv_err *err)
{
    double t_start = icv_now();
    track_pipeline_options opt;
    if (opt_in)
        opt = *opt_in;
    else
        track_pipeline_options_default(&opt);
    track_pipeline_result res;
    memset(&res, 0, sizeof res);
    icv_experiment *exp = calloc(1, sizeof *exp);
    pl_calib *cal = calloc(1, sizeof *cal);
    pl_camera cams[ICV_MAX_CAMERAS];
    memset(cams, 0, sizeof cams);
    track_identity *ident = NULL;
    pl_cand *cand = NULL;
    int *cand_n = NULL;
    track_identity_ray *rays = NULL; /* per reference frame: the views no candidate took */
    int *rays_n = NULL;
    int *rays_extra = NULL; /* per reference frame: rays after those, the views of outliers */
    track_row2d *rows2d = NULL;
    track_quality3d *qrows = NULL;
    long *fr3 = NULL;
    double *t3 = NULL, *xyz = NULL;
    icv_vec3 *axes = NULL; /* per reference frame: the rod's axis (camera frame), x = NaN unknown */
    int rc = 0;
    if (!exp || !cal) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = icv_experiment_load(experiment_path, exp, err)) != 0)
        goto done;
    pl_track_keys keys;
    if ((rc = read_track_keys(exp->path, &opt, &keys, err)) != 0)
        goto done;
    int nc = exp->n_cameras, nm = exp->n_markers;
    res.n_cameras = nc;
    res.n_markers = nm;
    res.planar = nc == 1;
    if (opt.calibration) /* loaded once by the caller (track_calibration_load) */
        *cal = *opt.calibration;
    else if ((rc = load_calibration(exp, cal, err)) != 0)
        goto done;
    memcpy(res.surface_R, cal->surf.R.m, sizeof res.surface_R);
    icv_v3_to_array(cal->surf.t, res.surface_t);

    long total = 0;
    for (int c = 0; c < nc; c++) {
        if ((rc = camera_open(exp, c, cal, &opt, &keys, &cams[c], err)) != 0)
            goto done;
        total += cams[c].frames;
        snprintf(res.camera_id[c], ICV_ID_MAX, "%s", exp->cameras[c].id);
    }
    if (nc >= 2 && keys.markers < 0 && (rc = cameras_look_joint(cams, nc, nm, err)) != 0)
        goto done;
    for (int c = 0; c < nc; c++)
        set_view(&cams[c].pc.view, &cams[c].in, cal->R[c], cal->T[c]);

    icv_debug("timing: setup (experiment, calibration, surface, opening videos) %.3f s", icv_now() - t_start);
    double t_2d = icv_now();
    /* 2D: every camera's frames once, the cameras concurrently */
    icv_progress pg;
    icv_progress_begin(&pg, "track", total);
    rc = cameras_track(cams, nc, &pg, err);
    icv_progress_end(&pg);
    for (int c = 0; c < nc; c++)
        res.decode_seconds += cams[c].t_decode;
    if (rc)
        goto done;
    for (int c = 0; c < nc; c++) {
        if ((rc = camera_check(exp, &opt, &cams[c], err)) != 0)
            goto done;
        if ((rc = camera_drop_repeats(&cams[c], err)) != 0)
            goto done;
        /* a coefficient experiment's still body is its result (friction holds: "no
           motion found along the slope", said by the analysis) */
        if (!exp->kind[0] && (rc = camera_check_motion(&cams[c], err)) != 0)
            goto done;
        track_view keep = cams[c].pc.view;
        if ((rc = camera_index(&cams[c], err)) != 0)
            goto done;
        cams[c].pc.view = keep;
        res.frames[c] = cams[c].frames;
        res.identities[c] = cams[c].tr->n_identities;
    }

    double t_mean = 0, t_step = 0;
    for (int c = 0; c < nc; c++)
        t_mean += cams[c].t_mean, t_step += cams[c].t_step;
    icv_debug("timing: 2D %.3f s (reading frames %.3f s, brightness %.3f s, detect+track %.3f s)", icv_now() - t_2d,
              res.decode_seconds, t_mean, t_step);
    double t_sync = icv_now();
    /* sync */
    double fps[ICV_MAX_CAMERAS] = {0};
    for (int c = 0; c < nc; c++)
        fps[c] = cams[c].pc.fps;
    capture_sync sync[ICV_MAX_CAMERAS];
    memset(sync, 0, sizeof sync);
    if (exp->sync == ICV_SYNC_FLASH && nc >= 2) {
        capture_flash fl[ICV_MAX_CAMERAS];
        for (int c = 0; c < nc; c++) {
            res.has_flash[c] = capture_flash_detect(cams[c].bright, cams[c].tcam, cams[c].frames, 0, &fl[c]);
            if (!res.has_flash[c]) {
                rc = icv_err_set(err, ICV_ENOTFOUND,
                                 "%s: camera '%s' (%s): no flash found for sync (set sync.offsets or sync: none)",
                                 exp->path, exp->cameras[c].id, exp->cameras[c].video);
                goto done;
            }
        }
        if ((rc = capture_sync_offsets(nc, fl, fps, NULL, sync, err)) != 0)
            goto done;
    } else if (exp->sync == ICV_SYNC_OFFSETS) {
        if ((rc = capture_sync_offsets(nc, NULL, fps, exp->sync_offsets, sync, err)) != 0)
            goto done;
    }
    snprintf(res.sync_source, sizeof res.sync_source, "%s",
             exp->sync == ICV_SYNC_FLASH ? "flash" : exp->sync == ICV_SYNC_OFFSETS ? "sync.offsets" : "none");
    for (int c = 0; c < nc; c++) {
        cams[c].off_s = sync[c].offset_s;
        res.offset_initial_frames[c] = res.offset_frames[c] = sync[c].offset_frames;
    }
    /* each other camera's sub-frame offset from the motion against the reference */
    for (int k = 1; k < nc && opt.refine_offset && exp->sync != ICV_SYNC_OFFSETS; k++) {
        double range = exp->sync == ICV_SYNC_NONE ? fmax(opt.refine_range, 5.0) : opt.refine_range;
        double off, sig, rms;
        icv_err e2;
        if (track_subframe_offset(&cams[0].pc, &cams[k].pc, sync[k].offset_frames, range, opt.epipolar_max_px,
                                  &off, &sig, &rms, &e2) == 0) {
            res.offset_refined_each[k] = 1;
            res.offset_frames[k] = off;
            res.offset_sigma_each[k] = sig;
            res.offset_residual_each_px[k] = rms;
            cams[k].off_s = off / fps[k];
        } else {
            icv_warn("%s: camera '%s': sub-frame offset not refined (%s); using %.3f frames", exp->path,
                     exp->cameras[k].id, e2.msg, sync[k].offset_frames);
        }
    }
    res.offset_refined = res.offset_refined_each[1];
    res.offset_sigma_frames = res.offset_sigma_each[1];
    res.offset_residual_px = res.offset_residual_each_px[1];

    for (int c = 0; c < nc; c++)
        icv_debug("camera '%s': %ld frames, %ld points, %d identities, offset %.4f frames (%.6f s)",
                  exp->cameras[c].id, cams[c].frames, cams[c].n_raw, cams[c].n_ids, res.offset_frames[c],
                  cams[c].off_s);
    icv_debug("timing: sync %.3f s", icv_now() - t_sync);
    double t_3d = icv_now();
    /* 3D: candidates per reference frame */
    long F = cams[0].frames;
    cand = malloc(sizeof *cand * (size_t)(F * PL_MAX_CAND + 1));
    rays = malloc(sizeof *rays * (size_t)(F * TRACK_IDENTITY_MAX_RAYS + 1));
    rays_n = calloc((size_t)F + 1, sizeof *rays_n);
    rays_extra = calloc((size_t)F + 1, sizeof *rays_extra);
    cand_n = calloc((size_t)F + 1, sizeof *cand_n);
    fr3 = malloc(sizeof *fr3 * (size_t)(F + 1));
    t3 = malloc(sizeof *t3 * (size_t)(F + 1));
    xyz = malloc(sizeof *xyz * (size_t)(F * nm * 3 + 1));
    qrows = malloc(sizeof *qrows * (size_t)(F * nm + 1));
    axes = malloc(sizeof *axes * (size_t)(F + 1));
    if (!cand || !cand_n || !rays || !rays_n || !rays_extra || !fr3 || !t3 || !xyz || !qrows || !axes) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto done;
    }
    pl_band band;
    pl_band_init(exp, &band);
    /* Two passes when there are band markers: the first labels the markers and finds
       the rod's axis; the second starts from centroids moved to the axis (both cameras'
       points, undistorted), refines the offset again from them and triangulates. */
    int corrected = 0, n_pass = band.on && opt.band_correction ? 2 : 1;
    long nq = 0;
    for (int pass = 0; pass < n_pass; pass++) {
    if (pass == 1) {
        for (int c = 0; c < nc; c++) {
            pl_camera *cm = &cams[c];
            for (long i = 0; i < cm->n_raw; i++) {
                track_pipe_point *pp = &cm->pts[i];
                int l = label_2d(cm, pp->frame, pp->id);
                if (l >= 0 && band.band[l] && usable_point(pp))
                    pl_band_shift_2d(&band, cal, &cm->pc.view, cams[0].tcam, cams[0].off_s, cams[0].pc.fps, F, xyz,
                                  axes, nm, l, cm->tcam[pp->frame] - cm->off_s, &pp->u, &pp->v);
            }
            for (long i = 0; i < cm->frames * (cm->n_ids ? cm->n_ids : 1); i++)
                cm->label[i] = -1;
        }
        corrected = 1;
        for (int k = 1; k < nc; k++) {
            double off, sig, rms;
            icv_err e2;
            if (res.offset_refined_each[k] &&
                track_subframe_offset(&cams[0].pc, &cams[k].pc, res.offset_frames[k], 0.5, opt.epipolar_max_px, &off,
                                      &sig, &rms, &e2) == 0) {
                res.offset_frames[k] = off;
                res.offset_sigma_each[k] = sig;
                res.offset_residual_each_px[k] = rms;
                cams[k].off_s = off / fps[k];
            }
        }
        res.offset_sigma_frames = res.offset_sigma_each[1];
        res.offset_residual_px = res.offset_residual_each_px[1];
        track_identity_free(ident);
        ident = NULL;
        res.outliers3d = res.points3d = res.interpolated3d = res.extrapolated3d = res.band_corrected =
            res.swaps_repaired = res.one_view3d = 0;
        memset(res.points3d_by_views, 0, sizeof res.points3d_by_views);
        nq = 0;
        band.t_axis = -INFINITY;
    }
    for (long f = 0; f < F; f++) {
        double t = cams[0].tcam[f] - cams[0].off_s;
        if ((rc = frame_candidates(cams, nc, cal, &opt, f, t, cand + f * PL_MAX_CAND, &cand_n[f],
                                   rays + f * TRACK_IDENTITY_MAX_RAYS, &rays_n[f], err)) != 0)
            goto done;
    }
    for (long r = 0; r < cams[0].n_raw; r++) /* this pass's outliers only */
        cams[0].raw[r].flags &= ~(unsigned)TRACK_FLAG_OUTLIER;
    if (nc >= 2 && (rc = flag_outliers(cand, cand_n, F, &cams[0], &cal->surf, rays, rays_n, rays_extra, &res.outliers3d,
                                          &res.sigma_scale, err)) != 0)
        goto done;
    /* one camera, scale: gravity: metres from the free flight, before the template needs them */
    if (pass == 0 && nc == 1 && exp->scale_kind == ICV_SCALE_GRAVITY) {
        for (long f = 0; f < F; f++)
            t3[f] = cams[0].tcam[f] - cams[0].off_s;
        if ((rc = pl_gravity_scale_apply(exp, cal, cand, cand_n, F, t3, err)) != 0)
            goto done;
        icv_v3_to_array(cal->surf.t, res.surface_t);
        res.gravity_scale = cal->gravity.factor;
        res.gravity_scale_sd = cal->gravity.factor_sd;
    }
    /* scale: size: metres from the ball's outline; the free flight measured beside it */
    if (pass == 0 && nc == 1 && exp->scale_kind == ICV_SCALE_SIZE) {
        if ((rc = pl_size_scale_apply(exp, cal, cand, cand_n, F, err)) != 0)
            goto done;
        /* the plane turned to the tilt the sizes show: every ray met with it again */
        for (long f = 0; f < F && cal->size.tilted; f++) {
            double t = cams[0].tcam[f] - cams[0].off_s;
            if ((rc = frame_candidates(cams, nc, cal, &opt, f, t, cand + f * PL_MAX_CAND, &cand_n[f],
                                       rays + f * TRACK_IDENTITY_MAX_RAYS, &rays_n[f], err)) != 0)
                goto done;
        }
        memcpy(res.surface_R, cal->surf.R.m, sizeof res.surface_R);
        for (long f = 0; f < F; f++)
            t3[f] = cams[0].tcam[f] - cams[0].off_s;
        icv_err e2;
        if (pl_gravity_scale_check(exp, cal, cand, cand_n, F, t3, &e2) == 0)
            pl_gravity_scale_compare(exp, cal, "the ball's size", cal->size.factor_sd / cal->size.factor,
                                     "a wrong capture rate (cameras[].capture_fps: a slowed-down clip), a wrong ball "
                                     "diameter, a camera pitched to the plane of motion (the plane is taken to face "
                                     "it: vertical lines in view that converge show the pitch, and the fall comes "
                                     "out short), or a blurred, shadowed outline");
        else
            icv_info("%s: motion_plane.scale: size: no check by gravity (%s)", exp->path, e2.msg);
        icv_v3_to_array(cal->surf.t, res.surface_t);
    }
    /* scale.points_px: the free flight measured beside the known length */
    if (pass == 0 && nc == 1 && exp->scale_kind == ICV_SCALE_POINTS && !exp->kind[0]) {
        for (long f = 0; f < F; f++)
            t3[f] = cams[0].tcam[f] - cams[0].off_s;
        icv_err e2;
        /* the two pixels' relative 1-sigma: half a pixel at each end */
        double dpx = hypot(exp->scale_points_px[1][0] - exp->scale_points_px[0][0],
                           exp->scale_points_px[1][1] - exp->scale_points_px[0][1]);
        if (pl_gravity_scale_check(exp, cal, cand, cand_n, F, t3, &e2) == 0)
            pl_gravity_scale_compare(exp, cal, "the known length (points_px)", dpx > 0 ? M_SQRT1_2 / dpx : 0,
                                     "the length out of the ball's plane (a ruler behind it), a wrong distance, or a "
                                     "wrong capture rate (cameras[].capture_fps)");
    }
    /* one camera, no surface key: the surface at the lowest point reached, in metres */
    if (pass == 0 && nc == 1 && cal->surface_lowest) {
        if ((rc = pl_surface_lowest_apply(exp, cal, cand, cand_n, F, err)) != 0)
            goto done;
        memcpy(res.surface_R, cal->surf.R.m, sizeof res.surface_R);
        icv_v3_to_array(cal->surf.t, res.surface_t);
    }

    /* the template must fit: median of each measured inter-marker distance. One camera:
       the distances in the motion plane (a marker's body z is along its normal) */
    icv_vec3 tmpl[ICV_MAX_MARKERS];
    for (int j = 0; j < nm; j++) {
        tmpl[j] = exp->markers[j];
        if (nc == 1)
            tmpl[j].z = 0;
    }
    ident = track_identity_alloc(nm, tmpl, opt.template_tol_m, opt.template_tol_rel, err);
    if (!ident) {
        rc = err ? err->code : ICV_EINVAL;
        goto done;
    }
    {
        int npair = nm * (nm - 1) / 2, per = 0;
        icv_vec3 *Xa = malloc(sizeof *Xa * (size_t)(F * PL_MAX_CAND + 1));
        icv_vec3 *Xm = malloc(sizeof *Xm * (size_t)(F * PL_MAX_CAND * nm + 1));
        track_template_result *pairs = malloc(sizeof *pairs * (size_t)(npair + 1));
        if (!Xa || !Xm || !pairs) {
            free(Xa);
            free(Xm);
            free(pairs);
            rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
            goto done;
        }
        for (long f = 0; f < F; f++) {
            for (int i = 0; i < cand_n[f]; i++)
                Xa[f * PL_MAX_CAND + i] = cand[f * PL_MAX_CAND + i].X;
            per |= planar_per_marker(cal, exp, cand + f * PL_MAX_CAND, cand_n[f], Xm + f * PL_MAX_CAND * nm);
        }
        int bad = track_template_check(ident, per ? NULL : Xa, per ? Xm : NULL, cand_n, F, PL_MAX_CAND, pairs, err);
        free(Xa);
        free(Xm);
        if (bad < 0) {
            free(pairs);
            rc = bad;
            goto done;
        }
        char msg[ICV_ERR_MSG_MAX] = "";
        size_t len = 0;
        double ss = 0;
        long nss = 0;
        for (int q = 0, nb = 0; q < npair; q++) {
            const track_template_result *r = &pairs[q];
            if (r->n == 0)
                continue;
            ss += (r->measured - r->D) * (r->measured - r->D);
            nss++;
            if (!r->fits && len < sizeof msg - 80)
                len += (size_t)snprintf(msg + len, sizeof msg - len, "%sm%d-m%d %.4f m measured vs %.4f m (%+.1f mm)",
                                        nb++ ? ", " : "", r->j, r->k, r->measured, r->D, 1e3 * (r->measured - r->D));
        }
        /* a failing pair whose distances are steady is a rigid distance unlike the
           template's (wrong markers or scale); scattered ones are other points labelled
           in place of a marker the cameras did not give (random scenes: 10 of 12 such
           failures were markers not detected, or seen by one camera only) */
        char why[ICV_ERR_MSG_MAX] = "";
        size_t wl = 0;
        for (int m = 0; m < nm && wl < sizeof why - 40; m++) {
            int scattered = 0;
            for (int q = 0; q < npair; q++)
                scattered |= !pairs[q].fits && pairs[q].n > 0 &&
                             (pairs[q].steady < 0.5 || pairs[q].travel < 3 * pairs[q].tol) &&
                             (pairs[q].j == m || pairs[q].k == m);
            if (scattered)
                wl += (size_t)snprintf(why + wl, sizeof why - wl, "%sm%d", wl ? ", " : "", m);
        }
        char tail[ICV_ERR_MSG_MAX];
        if (wl)
            snprintf(tail, sizeof tail,
                     " (the pairs of %s scatter from frame to frame or stand still: other points were labelled in place "
                     "of a marker not detected in a camera, hidden or out of its view; check the detection and "
                     "track.markers, or body.markers)",
                     why);
        else
            snprintf(tail, sizeof tail, " (wrong markers in experiment.yaml, or a wrong calibration scale)");
        free(pairs);
        res.template_rms_m = nss ? sqrt(ss / nss) : 0;
        if (bad) {
            rc = icv_err_set(err, ICV_EINVAL, "%s: body.markers do not fit the triangulated points: %s%s", exp->path,
                             msg, tail);
            goto done;
        }
    }

    /* identity frame by frame; the rows of tracks3d and its quality file */
    int n_ids0 = cams[0].n_ids ? cams[0].n_ids : 1;
    double *travel = malloc(sizeof *travel * (size_t)n_ids0);
    if (!travel) {
        rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = track_travels(cand, cand_n, F, n_ids0, travel, err)) != 0) {
        free(travel);
        goto done;
    }
    double rss = 0;
    track_pose ray_prior;
    long ray_prior_f = -10;
    for (long f = 0; f < F; f++) {
        double t = cams[0].tcam[f] - cams[0].off_s;
        fr3[f] = f;
        t3[f] = t;
        for (long i = 0; i < (long)nm * 3; i++)
            xyz[f * nm * 3 + i] = NAN;
        pl_cand *cf = cand + f * PL_MAX_CAND;
        icv_vec3 X[PL_MAX_CAND], Xm[PL_MAX_CAND * ICV_MAX_MARKERS];
        int lab[PL_MAX_CAND];
        for (int i = 0; i < cand_n[f]; i++)
            X[i] = cf[i].X;
        track_identity_hint hint[PL_MAX_CAND];
        for (int i = 0; i < cand_n[f]; i++) {
            int id = cf[i].id[0];
            hint[i] = (track_identity_hint){id, id >= 0 && id < n_ids0 ? travel[id] : 0};
        }
        int per = planar_per_marker(cal, exp, cf, cand_n[f], Xm);
        track_identity_label_tracks(ident, X, per ? Xm : NULL, cand_n[f], t, hint, rays + f * TRACK_IDENTITY_MAX_RAYS,
                                    rays_n[f], lab);
        axes[f] = icv_v3(NAN, NAN, NAN);
        if (band.on && opt.band_correction) {
            icv_vec3 ax;
            if (pl_band_axis(&band, cal, cf, lab, cand_n[f], &ax) == 0) {
                band.axis = ax;
                band.t_axis = t;
            }
            if (t - band.t_axis < 0.05) /* s: the axis turns little in that time */
                axes[f] = band.axis;
            if (t - band.t_axis < 0.05 && !corrected)
                for (int i = 0; i < cand_n[f]; i++)
                    if (lab[i] >= 0 && band.band[lab[i]]) {
                        pl_band_correct(&band, cal, nc, band.axis, &cf[i]);
                        X[i] = cf[i].X;
                        res.band_corrected++;
                    }
        }
        if (nc == 1) /* one camera: each marker meets its own plane */
            for (int i = 0; i < cand_n[f]; i++)
                if (lab[i] >= 0 && exp->markers[lab[i]].z != 0) {
                    planar_marker_plane(cal, exp->markers[lab[i]].z, &cf[i]);
                    X[i] = cf[i].X;
                }
        for (int i = 0; i < cand_n[f]; i++) {
            int j = lab[i];
            if (j < 0)
                continue;
            /* a 2D track that changes marker is a swap the template repaired */
            for (int w = 0; w < cf[i].nv; w++) {
                int c = cf[i].cam[w], id = cf[i].id[w];
                if (id < 0)
                    continue;
                pl_camera *cm = &cams[c];
                long g = f;
                if (c >= 1) { /* that camera's frame nearest the reference time */
                    g = lround((t + cm->off_s - cm->tcam[0]) * cm->pc.fps);
                    if (g < 0 || g >= cm->frames)
                        continue;
                }
                int prev = -1;
                for (long h = g - 1; h >= 0 && h >= g - 3 && prev < 0; h--)
                    prev = cm->label[h * cm->n_ids + id];
                if (prev >= 0 && prev != j && c == 0)
                    res.swaps_repaired++;
                cm->label[g * cm->n_ids + id] = j;
            }
            double *o = xyz + (f * nm + j) * 3;
            o[0] = X[i].x, o[1] = X[i].y, o[2] = X[i].z;
            track_quality3d *q = &qrows[nq++];
            q->frame = f;
            q->time_s = t;
            q->marker = j;
            q->residual_px = cf[i].residual;
            memcpy(q->cov, cf[i].cov, sizeof q->cov);
            q->flags = cf[i].flags;
            res.points3d++;
            res.points3d_by_views[cf[i].nv < ICV_MAX_CAMERAS ? cf[i].nv : ICV_MAX_CAMERAS]++;
            res.band_corrected += corrected && band.band[j];
            res.interpolated3d += (cf[i].flags & TRACK_FLAG_INTERPOLATED) != 0;
            res.extrapolated3d += (cf[i].flags & TRACK_FLAG_EXTRAPOLATED) != 0;
            rss += cf[i].residual * cf[i].residual;
        }
        if (nc >= 2 && opt.ray_pose) {
            int k = ray_pose_frame(cams, exp->markers, nm, cf, lab, cand_n[f], f, t,
                                   rays + f * TRACK_IDENTITY_MAX_RAYS, rays_n[f] + rays_extra[f], res.sigma_scale,
                                   &ray_prior, &ray_prior_f, xyz + f * nm * 3, qrows, &nq);
            res.one_view3d += k;
            res.points3d += k;
        }
    }
    free(travel);
    res.rows3d = F;
    res.residual_rms_px = res.points3d ? sqrt(rss / res.points3d) : 0;
    if (res.points3d == 0) {
        long n_cand = 0, f_cand = 0;
        int most = 0;
        for (long f = 0; f < F; f++) {
            n_cand += cand_n[f];
            f_cand += cand_n[f] > 0;
            most = cand_n[f] > most ? cand_n[f] : most;
        }
        if (n_cand > 0) /* positions were made; the template labelled none (random scene 1103:
                           2 of 3 markers, a pair that fits either way round) */
            rc = icv_err_set(err, ICV_ENOTFOUND,
                             "%s: no marker position could be labelled with body.markers in any frame: %ld points %s "
                             "in %ld frames, at most %d together, %s (check that every marker is detected: "
                             "track.markers, the lighting)",
                             exp->path, n_cand, nc >= 2 ? "triangulated" : "placed on the motion plane", f_cand,
                             most,
                             nm == 1 ? "none on a track that moves apart from the others"
                                     : "never enough markers to tell which is which");
        else
            rc = icv_err_set(err, ICV_ENOTFOUND, "%s: no marker position could be %s in any frame", exp->path,
                             nc >= 2 ? "triangulated (no detection of one camera lies on the other's epipolar "
                                       "lines: check the calibration and sync)"
                                     : "placed on the motion plane");
        goto done;
    }
    } /* passes */

    /* the gaps named by the marker column of tracks2d, logged as warnings (the same text
       goes to track_info.json's warnings, run_info.c) */
    for (int c = 0; c < nc; c++) {
        pl_camera *cm = &cams[c];
        for (size_t i = 0; i < cm->n_gaps; i++) {
            pl_gap *g = &cm->gaps[i];
            int l = label_2d(cm, g->first > 0 ? g->first - 1 : g->last + 1, g->track);
            g->marker = l >= 0 ? l : nm + g->track;
            char line[512];
            icv_warn("%s: %s", exp->path, pl_gap_format(exp->cameras[c].id, g, line, sizeof line));
            res.gaps[c]++;
            res.gap_frames[c] += g->last - g->first + 1;
        }
    }
    icv_debug("timing: 3D and identity %.3f s", icv_now() - t_3d);
    pl_info_camera info_cams[ICV_MAX_CAMERAS];
    for (int c = 0; c < ICV_MAX_CAMERAS; c++)
        info_cams[c] = (pl_info_camera){cams[c].src, cams[c].want_brightness ? cams[c].bright : NULL, cams[c].raw,
                                        cams[c].n_raw, cams[c].dup, cams[c].n_dup, cams[c].gaps, cams[c].n_gaps,
                                        cams[c].repeat, cams[c].n_repeat, cams[c].stored_times};
    /* write everything, only now that every stage has succeeded */
    if ((rc = icv_mkdirs(out_dir, err)) != 0)
        goto done;
    char written[ICV_MAX_CAMERAS + 2][ICV_PATH_MAX];
    int n_written = 0;
    for (int c = 0; c < nc && !rc; c++) {
        pl_camera *cm = &cams[c];
        free(rows2d);
        rows2d = malloc(sizeof *rows2d * ((size_t)cm->n_raw + 1));
        if (!rows2d) {
            rc = icv_err_set(err, ICV_ENOMEM, "out of memory");
            break;
        }
        for (long i = 0; i < cm->n_raw; i++) {
            const raw_point *p = &cm->raw[i];
            int l = label_2d(cm, p->frame, p->id);
            /* a 2D track no 3D point labelled (a glint, a marker one camera alone saw):
               written with an index past the body's markers */
            rows2d[i] = (track_row2d){p->frame, cm->tcam[p->frame] - cm->off_s, l >= 0 ? l : nm + p->id, p->u,
                                      p->v, p->area, p->flags};
            if (l >= 0 && band.on && opt.band_correction && band.band[l] &&
                !(p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED)))
                pl_band_shift_2d(&band, cal, &cm->pc.view, cams[0].tcam, cams[0].off_s, cams[0].pc.fps, F, xyz, axes, nm,
                              l, rows2d[i].time_s, &rows2d[i].u_px, &rows2d[i].v_px);
        }
        res.points2d[c] = cm->n_raw;
        char name[ICV_ID_MAX + 32];
        snprintf(name, sizeof name, "tracks2d_%s.csv", exp->cameras[c].id);
        if ((rc = icv_path_join(written[n_written], ICV_PATH_MAX, out_dir, name, err)) != 0)
            break;
        if ((rc = track_tracks2d_write(written[n_written], rows2d, (size_t)cm->n_raw, err)) == 0)
            n_written++;
    }
    if (!rc && (rc = icv_path_join(written[n_written], ICV_PATH_MAX, out_dir, "tracks3d.csv", err)) == 0 &&
        (rc = track_tracks3d_write(written[n_written], nm, (size_t)F, fr3, t3, xyz, err)) == 0)
        n_written++;
    if (!rc && (rc = icv_path_join(written[n_written], ICV_PATH_MAX, out_dir, "tracks3d_quality.csv", err)) == 0 &&
        (rc = track_quality3d_write(written[n_written], qrows, (size_t)nq, err)) == 0)
        n_written++;
    if (!rc) /* what the report needs: DIR/track_info.json, DIR/predicted2d_<camera>.csv (run_info.c) */
        rc = pl_info_write(out_dir, exp, cal, &res, info_cams, err);
    if (rc)
        remove_written(written, n_written);

done:
    res.seconds = icv_now() - t_start;
    if (res_out)
        *res_out = res;
    for (int c = 0; c < ICV_MAX_CAMERAS; c++)
        camera_free(&cams[c]);
    track_identity_free(ident);
    free(cand);
    free(cand_n);
    free(rays);
    free(rays_n);
    free(rays_extra);
    free(rows2d);
    free(qrows);
    free(fr3);
    free(t3);
    free(xyz);
    free(axes);
    free(cal);
    free(exp);
    return rc;
}
