/* track_open.c: the track stage's first step: the experiment and its `track:` keys,
 * the calibration and surface frame (from calibration.file, the board images, or a
 * nominal pinhole with motion_plane.scale), and each camera's video opened with its
 * detector and tracker set up: the markers' look (track.markers), their expected image
 * size, gravity in the image. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calib/calib.h"
#include "capture/capture.h"
#include "job/job_track_internal.h"

/* track.markers (core's icv_track_keys) holds track_look's values */
_Static_assert((int)ICV_TRACK_MARKERS_BRIGHT == (int)TRACK_LOOK_BRIGHT &&
                   (int)ICV_TRACK_MARKERS_DARK == (int)TRACK_LOOK_DARK &&
                   (int)ICV_TRACK_MARKERS_COLOR == (int)TRACK_LOOK_COLOR &&
                   (int)ICV_TRACK_MARKERS_MOTION == (int)TRACK_LOOK_MOTION,
               "track.markers' values are track_look's");

void job_track_camera_free(job_track_camera *c)
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
static void plane_facing_camera(track_calibration *cal, double z0)
{
    memset(&cal->plane, 0, sizeof cal->plane);
    /* columns x = (1, 0, 0), y = the normal towards the camera (0, 0, -1), z = x cross y */
    cal->plane.R = (icv_mat3){{{1, 0, 0}, {0, 0, 1}, {0, -1, 0}}};
    cal->plane.t = icv_v3(0, 0, z0);
}

static int plane_from_scale_points(const icv_experiment *exp, track_calibration *cal, icv_err *err)
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

int job_track_calibration_read(const icv_experiment *exp, track_calibration *cal, icv_err *err)
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
                    job_track_info_keep_stereo(cal, &st); /* the quality of the reference pair */
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
                job_track_info_keep_camera(cal, &cam);
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
           outline before the template check needs metres (gravity_scale.c, track_size_scale.c) */
        plane_facing_camera(cal, TRACK_GRAVITY_DEPTH0);
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

/* ---- per camera: open, the look, the marker size ------------------------- */

/* Up to n frames of the source into tf[] (*got of them read): the first n in order, or
 * spread over the clip (by seek); the source is left at frame 0. A kept frame is read in
 * place (capture_source_read_view), others into frames[] (allocated here, their pages
 * touched only then). */
static int read_frames(job_track_camera *c, int n, int spread, long start, capture_frame *frames, track_frame *tf,
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
        capture_frame v;
        if (!rc)
            rc = capture_source_read_view(c->src, &frames[k], &v, err);
        if (!rc)
            tf[(*got)++] = (track_frame){v.data, v.width, v.height, (int)v.stride, v.bytes_per_sample * 8};
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
static int camera_look(job_track_camera *c, const icv_track_keys *keys, int n_markers, double dpx, icv_err *err)
{
    enum { N_FIRST = 6, N_READ = 9, N_SPREAD = 15 };
    capture_frame fr[N_SPREAD], first[N_READ];
    track_frame tf[N_SPREAD], tf1[N_READ];
    memset(fr, 0, sizeof fr);
    memset(first, 0, sizeof first);
    track_detector *d = c->det;
    d->bright_tophat = 0; /* an explicit bright reads I itself */
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
    int tophat = 0; /* auto: bright read as the white top-hat */
    if (keys->markers < 0) {
        rc = read_frames(c, span >= 10 * N_FIRST ? N_FIRST : N_READ, 0, start, first, tf1, &n1, err);
        if (!rc && n1 > 0)
            rc = track_look_choose(tf1, n1, NULL, 0, n_markers, dpx, d, &look, &tophat, &undecided, why, sizeof why,
                                   err);
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
                                   n_markers, dpx, d, &look, &tophat, NULL, why, sizeof why, err);
    }
    if (!rc && keys->markers < 0 && n1 > 0) {
        /* bright, the common look, at -v only (as before auto weighed the looks) */
        c->look_note_level = look == TRACK_LOOK_BRIGHT && !tophat ? ICV_LOG_DEBUG : ICV_LOG_INFO;
        snprintf(c->look_note, sizeof c->look_note, "camera '%s': %s", c->spec->id, why);
    }
    if (!rc) {
        d->look = look;
        d->bright_tophat = tophat;
    }
    for (int k = 0; k < N_SPREAD; k++)
        capture_frame_free(&fr[k]);
    for (int k = 0; k < N_READ; k++)
        capture_frame_free(&first[k]);
    return rc ? icv_err_prefix(err, "camera '%s' (%s): ", c->spec->id, c->spec->video) : 0;
}

/* 1: several bodies of one marker each (a cradle's balls, pucks with one dot): no
 * configuration ties their tracks, which the tracker's configuration would assume (one
 * rigid body), and one stopping dead (the momentum passed on) is no blip of its flight. */
static int bodies_of_one_marker(const icv_experiment *e)
{
    if (e->n_bodies < 2)
        return 0;
    for (int k = 0; k < e->n_bodies; k++)
        if (e->bodies[k].n_markers != 1)
            return 0;
    return 1;
}

/* a sphere whose marker is as wide as it: the ball is its own marker */
static int ball_is_its_marker(const icv_shape *shape, double marker_diameter)
{
    return shape->type == ICV_SHAPE_SPHERE && marker_diameter >= 1.8 * shape->radius;
}

/* 1: several bodies, each one marker that is the whole ball (a sphere whose marker is
 * as wide as it: a cradle's polished balls), so that touching balls are touching discs
 * of the marker's size (track/disc_split.c). The split is gated on such scenes: one
 * body's outputs stay as they were. */
static int balls_are_markers(const icv_experiment *e)
{
    if (!bodies_of_one_marker(e))
        return 0;
    for (int k = 0; k < e->n_bodies; k++)
        if (!ball_is_its_marker(&e->bodies[k].shape, e->bodies[k].marker_diameter))
            return 0;
    return 1;
}

/* 1: the markers are balls seen whole (a ball that is its own marker, beads on a rod),
 * which no view shows edge-on (the detector's slender blobs are then off) */
static int markers_round(const icv_experiment *e)
{
    if (e->marker_shape == ICV_MARKER_SPHERE || balls_are_markers(e))
        return 1;
    return e->n_markers == 1 && ball_is_its_marker(&e->shape, e->marker_diameter);
}

/* The markers' image size when the depth is only provisional (one camera, scale:
 * gravity or size): the detector's size window (diameters 0.5-1.7 x the expected one)
 * is tried at expected diameters of 4 to 512 px, doubling, on 15 frames spread over the
 * clip; of the one that finds exactly the body's marker count in the most frames
 * (fewer blobs on a tie), the blobs' median area gives the size kept. The default window
 * keeps codec specks and misses a large ball (docs/pipeline.md, "The stage's settings,
 * measured"). */
static int marker_size_measured(job_track_camera *c, int n_markers, double *measured_px, icv_err *err)
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
       median area's disc), centre the window on the marker (a window off by that factor
       cuts a ball clipped by the tracking window) */
    gsl_sort(best_areas, 1, (size_t)best_na);
    double measured = 2 * sqrt(gsl_stats_median_from_sorted_data(best_areas, 1, (size_t)best_na) / M_PI);
    track_detector_set_marker_size(c->det, measured, c->det->max_streak_px);
    *measured_px = measured;
    icv_info("camera '%s': marker size %.0f px, measured (depth not known yet: the blobs of the size window that finds "
             "exactly %d blob(s) in %d of %d frames)",
             c->spec->id, measured, n_markers, best_ok, ns);
    return 0;
}

/* 1: auto's joint look has cameras to weigh together (their looks differ; cameras_look_joint) */
static int looks_differ(const job_track_camera *cams, int nc)
{
    int differ = 0;
    for (int c = 1; c < nc; c++)
        differ |=
            cams[c].det->look != cams[0].det->look || cams[c].det->bright_tophat != cams[0].det->bright_tophat;
    return differ;
}

/* track.markers auto with two cameras or more that chose different looks alone: the
 * markers are the same objects in every view, so one look for all, from every camera's
 * frames weighed together (track_look_choose_joint; each camera's still background
 * learnt): cameras that chose apart track different things (docs/track.md, "auto" with
 * several cameras). */
static int cameras_look_joint(job_track_camera *cams, int nc, int n_markers, icv_err *err)
{
    enum { N_FIRST = 6, N_READ = 9, N_SPREAD = 15 };
    if (!looks_differ(cams, nc))
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
        job_track_camera *cm = &cams[c];
        wl += (size_t)snprintf(was + wl, wl < sizeof was ? sizeof was - wl : 0, "%s'%s' %s%s", c ? ", " : "",
                               cm->spec->id, track_look_name(cm->det->look), cm->det->bright_tophat ? " top-hat" : "");
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
    int tophat = 0;
    char why[768];
    icv_err e2;
    if (!rc) { /* no look fitting them all: each camera keeps its own */
        if (track_look_choose_joint(fc, n1, bg, bgs, nc, n_markers, dpx, like, &look, &tophat, why, sizeof why,
                                    &e2) == 0) {
            for (int c = 0; c < nc; c++) {
                cams[c].det->look = look;
                cams[c].det->bright_tophat = tophat;
            }
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
 * initial acceleration and its sigma: a filter started at 0 predicts a fast fall short
 * and loses it while in view (docs/track.md, "Gravity in the tracker's filter").
 * size_px > 0: the depth is provisional (one camera, scale gravity or size), the
 * marker's measured diameter gives it (f D / size_px). Left 0 when no depth is known. */
static void set_view(track_view *v, const calib_intrinsics *in, const double R[3][3], const double T[3]);
static void tracker_gravity(const icv_experiment *exp, int ci, const track_calibration *cal, double size_px,
                            job_track_camera *c)
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

static int camera_open(const icv_experiment *exp, int ci, const track_calibration *cal, const job_track_options *opt,
                       const icv_track_keys *keys, job_track_camera *c, icv_err *err)
{
    c->spec = &exp->cameras[ci];
    capture_options co = {.capture_fps = c->spec->capture_fps, .want_8bit = 1,
                          .want_rgb = keys->markers == TRACK_LOOK_COLOR, .keep_bytes = JOB_TRACK_KEEP_BYTES};
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
    track_detector_set_scene_markers(c->det);
    if (keys->threshold_fraction > 0)
        c->det->threshold_fraction = keys->threshold_fraction;
    if (keys->min_circularity > 0)
        c->det->min_circularity = keys->min_circularity;
    c->det->n_markers = exp->n_markers; /* the learnt peak is the dimmest marker's */
    c->det->markers_round = markers_round(exp);
    track_band bands;
    track_band_init(exp, &bands);
    c->det->centroid_coverage = opt->band_coverage && bands.on;
    int all_bands = bands.on && exp->marker_diameter > 0;
    for (int k = 0; k < exp->n_markers; k++)
        all_bands &= bands.band[k];
    c->want_beside = all_bands && bands.sphere;
    if (all_bands) { /* the stripe each band shows: the rod's width long, marker_diameter wide */
        c->det->marker_aspect = fmax(1, 2 * bands.r / exp->marker_diameter);
        c->det->marker_fill = fmin(1, 2 * bands.r / exp->marker_diameter);
    }
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
    if (!rc && dpx > 0 && balls_are_markers(exp))
        c->det->disc_split_px = dpx; /* balls touching in a row: one blob each */
    /* markers that may be balls partly hidden; not those on a rod's axis, whose bands'
       and beads' centroids band_marker.c moves (a bead's lit core, a disc 0.6 of its
       size, was fitted 2 px off: tuning scene 1015) */
    if (!rc && dpx > 0 && !bands.on)
        c->det->disc_outline_px = dpx;
    if (!rc && bodies_of_one_marker(exp))
        c->tr->independent_markers = 1; /* each marker a body: no configuration */
    if (!rc && (depth_known || dpx > 0))
        tracker_gravity(exp, ci, cal, depth_known ? 0 : dpx, c);
    return rc;
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

/* One camera's camera_open, for icv_run_each: each camera's source, detector and
 * tracker are its own, and exp, cal and opt are only read. */
typedef struct {
    job_track *j;
    const icv_experiment *exp;
    int ci;
    const track_calibration *cal;
    const job_track_options *opt;
    job_track_camera *cam;
    int rc;
    icv_err err;
} camera_open_job;

/* camera_open, then (unless j->no_early) the camera's 2D pass at once: a camera whose
 * look the first frames decide decodes its clip while another still learns its still
 * background and weighs its looks, instead of waiting for it (docs/track.md, "Session
 * 31"). auto's joint look may still change a camera's look: job_track_open then asks
 * for the stage again without early passes (JOB_TRACK_AGAIN). */
static void *camera_open_run(void *arg)
{
    camera_open_job *o = arg;
    o->rc = camera_open(o->exp, o->ci, o->cal, o->opt, &o->exp->track, o->cam, &o->err);
    int differ = 0;
    if (!o->rc) { /* a look differing from a camera's set before: the stage again, so stop */
        if (o->j->tophat_forced && o->exp->track.markers == TRACK_LOOK_BRIGHT)
            o->cam->det->bright_tophat = 1;
        o->cam->set_look = o->cam->det->look;
        o->cam->set_tophat = o->cam->det->bright_tophat;
        atomic_store(&o->cam->look_set, 1);
        for (int c = 0; c < o->exp->n_cameras; c++)
            differ |= atomic_load(&o->j->cams[c].look_set) &&
                      (o->j->cams[c].set_look != o->cam->set_look || o->j->cams[c].set_tophat != o->cam->set_tophat);
    }
    if (o->rc || differ)
        atomic_store(&o->j->early_stop, 1); /* the job fails or starts again: the early passes stop */
    else if (!o->j->no_early && !atomic_load(&o->j->early_stop))
        job_track_pass_early(o->j, o->cam);
    return NULL;
}

/* The experiment, its `track:` keys, the calibration and surface frame (or the caller's,
 * opt.calibration), and every camera opened with its detector and tracker set up, the
 * cameras concurrently (the auto look's trials decode and scan frames of each). */
int job_track_open(job_track *j, const char *experiment_path, icv_err *err)
{
    icv_experiment *exp = &j->exp;
    track_calibration *cal = &j->cal;
    job_track_result *res = &j->res;
    int rc;
    if ((rc = icv_experiment_load(experiment_path, exp, err)) != 0)
        return rc;
    if (j->look_forced >= 0 && exp->track.markers < 0)
        exp->track.markers = j->look_forced;
    if (exp->n_bodies > 1) /* detection and 2D tracking see every body's markers */
        icv_experiment_use_all_bodies(exp);
    int nc = exp->n_cameras, nm = exp->n_markers;
    res->n_cameras = nc;
    res->n_markers = nm;
    res->planar = nc == 1;
    if (j->opt.calibration) /* loaded once by the caller (job_track_calibration_load) */
        *cal = *j->opt.calibration;
    else if ((rc = job_track_calibration_read(exp, cal, err)) != 0)
        return rc;
    memcpy(res->surface_R, cal->surf.R.m, sizeof res->surface_R);
    icv_v3_to_array(cal->surf.t, res->surface_t);

    camera_open_job open[ICV_MAX_CAMERAS];
    atomic_init(&j->early_stop, 0);
    for (int c = 0; c < nc; c++) {
        atomic_init(&j->cams[c].look_set, 0);
        open[c] = (camera_open_job){j, exp, c, cal, &j->opt, &j->cams[c], 0, {0}};
    }
    icv_run_each(camera_open_run, open, sizeof *open, nc); /* core/run_each.c */
    int opened = 1;
    for (int c = 0; c < nc; c++)
        opened &= open[c].rc == 0;
    int differ = 0;
    for (int c = 1; c < nc && opened; c++)
        differ |= j->cams[c].set_look != j->cams[0].set_look || j->cams[c].set_tophat != j->cams[0].set_tophat;
    if (differ && !j->no_early) {
        /* the joint look may change a camera whose pass has run: the stage again, each
           pass after the joint look, before anything is logged */
        icv_debug("track.markers auto: the cameras' looks differ; the stage again without early passes");
        return JOB_TRACK_AGAIN;
    }
    for (int c = 0; c < nc; c++) { /* the first camera's error, in the experiment's order */
        if (open[c].rc) {
            *err = open[c].err;
            return open[c].rc;
        }
        if (j->cams[c].look_note[0])
            icv_log(j->cams[c].look_note_level, "%s", j->cams[c].look_note);
    }
    j->total = 0;
    for (int c = 0; c < nc; c++) {
        j->total += j->cams[c].frames;
        snprintf(res->camera_id[c], ICV_ID_MAX, "%s", exp->cameras[c].id);
        if (j->tophat_forced && exp->track.markers == TRACK_LOOK_BRIGHT)
            j->cams[c].det->bright_tophat = 1;
    }
    if (nc >= 2 && exp->track.markers < 0 && (rc = cameras_look_joint(j->cams, nc, nm, err)) != 0)
        return rc;
    for (int c = 0; c < nc; c++)
        set_view(&j->cams[c].pc.view, &j->cams[c].in, cal->R[c], cal->T[c]);

    icv_debug("timing: setup (experiment, calibration, surface, opening videos) %.3f s", icv_now() - j->t_start);
    return 0;
}
