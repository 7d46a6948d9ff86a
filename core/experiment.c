/* experiment.c: experiment.yaml (../shared/spec/contract.md) into icv_experiment,
 * with the documented defaults (docs/experiment.md) and one clear line, naming the
 * key and the line, for every bad value. Files named are checked separately by
 * icv_experiment_check_files, so `check` can report both kinds of problem. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/experiment_internal.h"

static const char *const known_top[] = {"name", "cameras", "calibration", "surface", "motion_plane", "gravity",
                                        "sync", "body", "bodies", "joints", "model", "track", "experiment", "coefficients",
                                        NULL};

const char *icv_restitution_name(icv_restitution r)
{
    return r == ICV_RESTITUTION_NEWTON ? "newton" : r == ICV_RESTITUTION_POISSON ? "poisson" : "stronge";
}

const char *icv_shape_name(icv_shape_type t)
{
    static const char *const names[] = {"points", "capsule", "cylinder", "box", "sphere"};
    return names[t];
}

static int camera_index(const icv_experiment *e, const char *id)
{
    for (int i = 0; i < e->n_cameras; i++)
        if (strcmp(e->cameras[i].id, id) == 0)
            return i;
    return -1;
}

/* A mapping {camera id: path} into per-camera resolved paths. required_all: every
 * camera must have one; otherwise at least the reference (first) camera. */
static int read_camera_paths(const icv_experiment *e, icv_ynode map, char out[][ICV_PATH_MAX], int required_all,
                             icv_err *err)
{
    if (!icv_ynode_is_map(map))
        return icv_ynode_fail(map, err, ICV_EINVAL, "expected a mapping {camera id: path}");
    for (size_t i = 0; i < icv_ynode_len(map); i++) {
        const char *id;
        icv_ynode v = icv_ynode_pair(map, i, &id);
        int c = id ? camera_index(e, id) : -1;
        if (c < 0)
            return icv_ynode_fail(v, err, ICV_EINVAL, "no camera with id '%s' in cameras", id ? id : "?");
        const char *s = icv_ynode_str(v);
        if (!s || !s[0])
            return icv_ynode_fail(v, err, ICV_EINVAL, "expected a file name or pattern");
        TRY(icv_path_join(out[c], ICV_PATH_MAX, e->dir, s, err));
    }
    for (int c = 0; c < (required_all ? e->n_cameras : 1); c++)
        if (!out[c][0])
            return icv_ynode_fail(map, err, ICV_EINVAL, "missing an entry for camera '%s'", e->cameras[c].id);
    return 0;
}

/* node n as two pixels [[u1, v1], [u2, v2]] */
static int read_pixel_pair(icv_ynode n, double out[2][2], icv_err *err)
{
    if (!icv_ynode_is_seq(n) || icv_ynode_len(n) != 2)
        return icv_ynode_fail(n, err, ICV_EINVAL, "expected two pixels [[u1, v1], [u2, v2]]");
    for (size_t i = 0; i < 2; i++) {
        icv_ynode p = icv_ynode_at(n, i);
        if (!icv_ynode_is_seq(p) || icv_ynode_len(p) != 2)
            return icv_ynode_fail(p, err, ICV_EINVAL, "expected a pixel [u, v]");
        for (size_t j = 0; j < 2; j++)
            TRY(icv_ynode_double(icv_ynode_at(p, j), &out[i][j], err));
    }
    return 0;
}

static int read_points2(icv_ynode map, const char *key, double out[2][2], icv_err *err)
{
    return read_pixel_pair(icv_ynode_get(map, key), out, err);
}

static int read_cameras(icv_ynode root, icv_experiment *e, icv_err *err)
{
    icv_ynode cams = icv_ynode_get(root, "cameras");
    if (!icv_ynode_exists(cams))
        return icv_ynode_fail(root, err, ICV_EINVAL, "cameras: missing (required)");
    if (!icv_ynode_is_seq(cams) || icv_ynode_len(cams) < 1)
        return icv_ynode_fail(cams, err, ICV_EINVAL, "expected a list of one or more cameras");
    if (icv_ynode_len(cams) > ICV_MAX_CAMERAS)
        return icv_ynode_fail(cams, err, ICV_EINVAL, "at most %d cameras are supported", ICV_MAX_CAMERAS);
    e->n_cameras = (int)icv_ynode_len(cams);
    for (int i = 0; i < e->n_cameras; i++) {
        icv_ynode c = icv_ynode_at(cams, (size_t)i);
        icv_camera_spec *cs = &e->cameras[i];
        if (!icv_ynode_is_map(c))
            return icv_ynode_fail(c, err, ICV_EINVAL, "expected a camera {id: .., video: ..}");
        TRY(icv_yread_str(c, "id", 1, cs->id, sizeof cs->id, err));
        if (camera_index(e, cs->id) != i)
            return icv_ynode_fail(icv_ynode_get(c, "id"), err, ICV_EINVAL, "camera id '%s' is used twice", cs->id);
        char video[ICV_PATH_MAX];
        TRY(icv_yread_str(c, "video", 1, video, sizeof video, err));
        TRY(icv_path_join(cs->video, sizeof cs->video, e->dir, video, err));
        TRY(icv_yread_double(c, "capture_fps", 0, &cs->capture_fps, err));
        if (cs->capture_fps < 0)
            return icv_ynode_fail(icv_ynode_get(c, "capture_fps"), err, ICV_EINVAL, "must be > 0 (Hz)");
        if (cs->capture_fps > ICV_MAX_FPS)
            return icv_ynode_fail(icv_ynode_get(c, "capture_fps"), err, ICV_EINVAL,
                                  "%g Hz is above the limit of %g Hz", cs->capture_fps, ICV_MAX_FPS);
        TRY(icv_yread_double(c, "exposure", 0, &cs->exposure_s, err));
        if (cs->exposure_s < 0 || cs->exposure_s > 1)
            return icv_ynode_fail(icv_ynode_get(c, "exposure"), err, ICV_EINVAL,
                                  "the exposure time must be in (0, 1] s, got %g", cs->exposure_s);
        if (icv_ynode_exists(icv_ynode_get(c, "roi"))) {
            double r[4];
            icv_ynode rn = icv_ynode_get(c, "roi");
            TRY(icv_yread_doubles(c, "roi", 1, r, 4, err));
            char as_written[160]; /* the roi as the user wrote it, for the messages */
            size_t k = 0;
            for (int j = 0; j < 4 && k < sizeof as_written; j++) {
                char shown[48];
                k += (size_t)snprintf(as_written + k, sizeof as_written - k, "%s%s", j ? ", " : "[",
                                      icv_printable(icv_ynode_str(icv_ynode_at(rn, (size_t)j)), 20, shown, sizeof shown));
            }
            if (k < sizeof as_written)
                snprintf(as_written + k, sizeof as_written - k, "]");
            if (r[2] <= 0 || r[3] <= 0 || r[0] < 0 || r[1] < 0)
                return icv_ynode_fail(rn, err, ICV_EINVAL,
                                      "%s: expected [x, y, w, h] with x, y >= 0 and w, h > 0 (pixels)", as_written);
            if (r[0] + r[2] > ICV_MAX_IMAGE_SIDE || r[1] + r[3] > ICV_MAX_IMAGE_SIDE)
                return icv_ynode_fail(rn, err, ICV_EINVAL,
                                      "%s: x + w and y + h must be at most %d px (the largest image side read)",
                                      as_written, ICV_MAX_IMAGE_SIDE);
            cs->has_roi = 1;
            for (int k = 0; k < 4; k++)
                cs->roi[k] = (int)r[k];
        }
        if (icv_ynode_exists(icv_ynode_get(c, "frames"))) {
            double fr[2];
            TRY(icv_yread_doubles(c, "frames", 1, fr, 2, err));
            if (!(fr[0] >= 0 && fr[1] >= fr[0] && fr[1] <= 1e8 && fr[0] == floor(fr[0]) && fr[1] == floor(fr[1])))
                return icv_ynode_fail(icv_ynode_get(c, "frames"), err, ICV_EINVAL,
                                      "expected [first, last]: frame numbers from 0, first <= last <= 10^8");
            cs->has_frames = 1;
            cs->frames[0] = (long)fr[0], cs->frames[1] = (long)fr[1];
        }
        char mask[ICV_PATH_MAX] = "";
        TRY(icv_yread_str(c, "mask", 0, mask, sizeof mask, err));
        if (mask[0])
            TRY(icv_path_join(cs->mask, sizeof cs->mask, e->dir, mask, err));
    }
    return 0;
}

static int read_board(icv_ynode cal, icv_experiment *e, icv_err *err)
{
    icv_ynode b = icv_ynode_get(cal, "board");
    if (!icv_ynode_is_map(b))
        return icv_ynode_fail(icv_ynode_exists(b) ? b : cal, err, ICV_EINVAL,
                              "%s", icv_ynode_exists(b) ? "expected {cols: .., rows: .., square: ..}"
                                                        : "board: missing (required with images)");
    TRY(icv_yread_int(b, "cols", 1, &e->board_cols, err));
    TRY(icv_yread_int(b, "rows", 1, &e->board_rows, err));
    TRY(icv_yread_double(b, "square", 1, &e->board_square, err));
    if (e->board_cols < 2 || e->board_rows < 2)
        return icv_ynode_fail(b, err, ICV_EINVAL, "cols and rows count inner corners: at least 2 each");
    if (e->board_cols > ICV_MAX_BOARD_SIDE || e->board_rows > ICV_MAX_BOARD_SIDE)
        return icv_ynode_fail(b, err, ICV_EINVAL, "%dx%d inner corners: cols and rows are at most %d each",
                              e->board_cols, e->board_rows, ICV_MAX_BOARD_SIDE);
    if (!(e->board_square > 0) || e->board_square > 1)
        return icv_ynode_fail(icv_ynode_get(b, "square"), err, ICV_EINVAL,
                              "square is the square size in metres: expected 0 < square <= 1, got %g",
                              e->board_square);
    return 0;
}

static int read_calibration(icv_ynode root, icv_experiment *e, int optional, icv_err *err)
{
    icv_ynode cal = icv_ynode_get(root, "calibration");
    if (!icv_ynode_exists(cal)) {
        if (optional)
            return 0;
        return icv_ynode_fail(root, err, ICV_EINVAL, "calibration: missing (required)");
    }
    if (!icv_ynode_is_map(cal))
        return icv_ynode_fail(cal, err, ICV_EINVAL, "expected {board: .., images: ..} or {file: ..}");
    e->has_calibration = 1;
    icv_ynode imgs = icv_ynode_get(cal, "images");
    char file[ICV_PATH_MAX] = "";
    TRY(icv_yread_str(cal, "file", 0, file, sizeof file, err));
    if (file[0] && icv_ynode_exists(imgs))
        return icv_ynode_fail(cal, err, ICV_EINVAL, "give either images or file, not both");
    if (file[0]) {
        TRY(icv_path_join(e->calib_file, sizeof e->calib_file, e->dir, file, err));
        if (icv_ynode_exists(icv_ynode_get(cal, "board")))
            TRY(read_board(cal, e, err));
        return 0;
    }
    if (!icv_ynode_exists(imgs))
        return icv_ynode_fail(cal, err, ICV_EINVAL, "expected images {camera: pattern} or file");
    TRY(read_board(cal, e, err));
    return read_camera_paths(e, imgs, e->calib_images, 1, err);
}

static int read_surface(icv_ynode root, icv_experiment *e, int optional, icv_err *err)
{
    icv_ynode s = icv_ynode_get(root, "surface");
    if (!icv_ynode_exists(s)) {
        if (optional)
            return 0; /* one-camera mode: the lowest point reached is the surface */
        return icv_ynode_fail(root, err, ICV_EINVAL, "surface: missing (required)");
    }
    if (!icv_ynode_is_map(s))
        return icv_ynode_fail(s, err, ICV_EINVAL, "expected one of images, plane or line_px");
    int given = icv_ynode_exists(icv_ynode_get(s, "images")) + icv_ynode_exists(icv_ynode_get(s, "plane")) +
                icv_ynode_exists(icv_ynode_get(s, "line_px"));
    if (given != 1)
        return icv_ynode_fail(s, err, ICV_EINVAL, "give exactly one of images, plane or line_px (got %d)", given);
    if (icv_ynode_exists(icv_ynode_get(s, "images"))) {
        e->surface_kind = ICV_SURFACE_IMAGES;
        return read_camera_paths(e, icv_ynode_get(s, "images"), e->surface_images, 0, err);
    }
    if (icv_ynode_exists(icv_ynode_get(s, "plane"))) {
        icv_ynode p = icv_ynode_get(s, "plane");
        e->surface_kind = ICV_SURFACE_PLANE;
        TRY(icv_yread_vec3(p, "point", 1, &e->plane_point, err));
        TRY(icv_yread_vec3(p, "normal", 1, &e->plane_normal, err));
        double n = icv_v3_norm(e->plane_normal);
        if (!(n > 1e-12))
            return icv_ynode_fail(icv_ynode_get(p, "normal"), err, ICV_EINVAL, "the normal must not be zero");
        e->plane_normal = icv_v3_scale(e->plane_normal, 1.0 / n);
        return 0;
    }
    if (e->n_cameras != 1)
        return icv_ynode_fail(icv_ynode_get(s, "line_px"), err, ICV_EINVAL,
                              "line_px is for one-camera mode only; with %d cameras give images or plane",
                              e->n_cameras);
    e->surface_kind = ICV_SURFACE_LINE_PX;
    TRY(read_points2(s, "line_px", e->line_px, err));
    if (e->line_px[0][0] == e->line_px[1][0] && e->line_px[0][1] == e->line_px[1][1])
        return icv_ynode_fail(icv_ynode_get(s, "line_px"), err, ICV_EINVAL, "the two pixels must differ");
    return 0;
}

/* No cameras: 3D tracks measured by another system (Vicon, OptiTrack, DLTdv), read by
 * `impactcv analyze EXP --tracks FILE`. The surface is a plane in the tracks' own
 * frame; a calibration or a motion plane would have nothing to act on. */
static int read_without_cameras(icv_ynode root, icv_experiment *e, icv_err *err)
{
    static const char *const camera_only[] = {"calibration", "motion_plane"};
    for (size_t i = 0; i < sizeof camera_only / sizeof camera_only[0]; i++)
        if (icv_ynode_exists(icv_ynode_get(root, camera_only[i])))
            return icv_ynode_fail(icv_ynode_get(root, camera_only[i]), err, ICV_EINVAL,
                                  "%s: an experiment without cameras (tracks from another system, analyze --tracks) "
                                  "has no %s; leave it out",
                                  camera_only[i], camera_only[i]);
    icv_ynode s = icv_ynode_get(root, "surface");
    if (!icv_ynode_exists(s) || !icv_ynode_is_map(s) || !icv_ynode_exists(icv_ynode_get(s, "plane")) ||
        icv_ynode_len(s) != 1)
        return icv_ynode_fail(icv_ynode_exists(s) ? s : root, err, ICV_EINVAL,
                              "surface: without cameras give plane {point: [x, y, z], normal: [x, y, z]} in the "
                              "tracks' frame (metres; the normal points to the body's side)");
    e->n_cameras = 0;
    return 0;
}

/* motion_plane.verticals_px: 2 to ICV_MAX_VERTICALS segments, each two distinct pixels */
static int read_verticals(icv_ynode mp, icv_experiment *e, icv_err *err)
{
    icv_ynode v = icv_ynode_get(mp, "verticals_px");
    e->n_verticals = 0;
    if (!icv_ynode_exists(v))
        return 0;
    if (!icv_ynode_is_seq(v) || icv_ynode_len(v) < 2 || icv_ynode_len(v) > ICV_MAX_VERTICALS)
        return icv_ynode_fail(v, err, ICV_EINVAL,
                              "expected 2 to %d segments of lines vertical in the world, each [[u1, v1], [u2, v2]]",
                              ICV_MAX_VERTICALS);
    for (size_t k = 0; k < icv_ynode_len(v); k++) {
        icv_ynode seg = icv_ynode_at(v, k);
        double(*q)[2] = e->verticals_px[k];
        TRY(read_pixel_pair(seg, q, err));
        double len = hypot(q[1][0] - q[0][0], q[1][1] - q[0][1]);
        if (!(len >= 20))
            return icv_ynode_fail(seg, err, ICV_EINVAL,
                                  "segment %zu is %.1f px long: a line's direction needs 20 px or more", k + 1, len);
    }
    e->n_verticals = (int)icv_ynode_len(v);
    return 0;
}

static int read_motion_plane(icv_ynode root, icv_experiment *e, icv_err *err)
{
    icv_ynode mp = icv_ynode_get(root, "motion_plane");
    if (e->n_cameras > 1) {
        if (icv_ynode_exists(mp))
            return icv_ynode_fail(mp, err, ICV_EINVAL, "motion_plane is for one-camera mode only (%d cameras given)",
                                  e->n_cameras);
        return 0;
    }
    if (!icv_ynode_exists(mp))
        return icv_ynode_fail(root, err, ICV_EINVAL, "motion_plane: missing (required with one camera)");
    if (!icv_ynode_is_map(mp))
        return icv_ynode_fail(mp, err, ICV_EINVAL, "expected {images: ..} or {scale: ..}");
    icv_ynode imgs = icv_ynode_get(mp, "images"), sc = icv_ynode_get(mp, "scale");
    if (icv_ynode_exists(imgs) == icv_ynode_exists(sc))
        return icv_ynode_fail(mp, err, ICV_EINVAL, "give exactly one of images or scale");
    TRY(read_verticals(mp, e, err));
    if (icv_ynode_exists(imgs)) {
        e->scale_kind = ICV_SCALE_BOARD;
        return read_camera_paths(e, imgs, e->motion_plane_images, 1, err);
    }
    const char *s = icv_ynode_str(sc);
    const char *want = "'gravity', 'size', {size: m} or {points_px: .., distance: ..}";
    if (s) {
        if (strcmp(s, "gravity") != 0 && strcmp(s, "size") != 0)
            return icv_ynode_fail(sc, err, ICV_EINVAL, "expected %s, got '%s'", want, s);
        e->scale_kind = s[0] == 'g' ? ICV_SCALE_GRAVITY : ICV_SCALE_SIZE;
        return 0; /* size: the diameter from body.shape, checked in icv_experiment_load */
    }
    if (!icv_ynode_is_map(sc))
        return icv_ynode_fail(sc, err, ICV_EINVAL, "expected %s", want);
    if (icv_ynode_exists(icv_ynode_get(sc, "size"))) {
        e->scale_kind = ICV_SCALE_SIZE;
        TRY(icv_yread_double(sc, "size", 1, &e->scale_size, err));
        if (!(e->scale_size > 0 && e->scale_size <= 10))
            return icv_ynode_fail(icv_ynode_get(sc, "size"), err, ICV_EINVAL, "must be in (0, 10] (metres)");
        return 0;
    }
    e->scale_kind = ICV_SCALE_POINTS;
    TRY(read_points2(sc, "points_px", e->scale_points_px, err));
    TRY(icv_yread_double(sc, "distance", 1, &e->scale_distance, err));
    if (!(e->scale_distance > 0))
        return icv_ynode_fail(icv_ynode_get(sc, "distance"), err, ICV_EINVAL, "must be > 0 (metres)");
    return 0;
}

static int read_gravity(icv_ynode root, icv_experiment *e, icv_err *err)
{
    icv_ynode g = icv_ynode_get(root, "gravity");
    e->gravity_auto = 1;
    if (!icv_ynode_exists(g))
        return 0;
    const char *s = icv_ynode_str(g);
    if (s) {
        if (strcmp(s, "auto") != 0)
            return icv_ynode_fail(g, err, ICV_EINVAL, "expected auto or [gx, gy, gz] (m/s^2), got '%s'", s);
        return 0;
    }
    TRY(icv_yread_vec3(root, "gravity", 1, &e->gravity, err));
    double n = icv_v3_norm(e->gravity);
    if (n < 1 || n > 100)
        return icv_ynode_fail(g, err, ICV_EINVAL, "|g| = %g m/s^2 is not a gravity vector in m/s^2", n);
    e->gravity_auto = 0;
    return 0;
}

static int read_sync(icv_ynode root, icv_experiment *e, icv_err *err)
{
    e->sync = e->n_cameras > 1 ? ICV_SYNC_FLASH : ICV_SYNC_NONE;
    icv_ynode s = icv_ynode_get(root, "sync");
    if (!icv_ynode_exists(s))
        return 0;
    if (!icv_ynode_is_map(s))
        return icv_ynode_fail(s, err, ICV_EINVAL, "expected {method: flash|none} or {offsets: {camera: frames}}");
    icv_ynode offs = icv_ynode_get(s, "offsets");
    if (icv_ynode_exists(offs)) {
        if (!icv_ynode_is_map(offs))
            return icv_ynode_fail(offs, err, ICV_EINVAL, "expected {camera id: offset in frames}");
        for (size_t i = 0; i < icv_ynode_len(offs); i++) {
            const char *id;
            icv_ynode v = icv_ynode_pair(offs, i, &id);
            int c = id ? camera_index(e, id) : -1;
            if (c < 0)
                return icv_ynode_fail(v, err, ICV_EINVAL, "no camera with id '%s' in cameras", id ? id : "?");
            TRY(icv_ynode_double(v, &e->sync_offsets[c], err));
            if (fabs(e->sync_offsets[c]) > ICV_MAX_FRAME_NUMBER)
                return icv_ynode_fail(v, err, ICV_EINVAL, "offset %g frames is beyond the limit of %d frames",
                                      e->sync_offsets[c], ICV_MAX_FRAME_NUMBER);
        }
        e->sync = ICV_SYNC_OFFSETS;
        return 0;
    }
    char m[32] = "flash";
    TRY(icv_yread_str(s, "method", 0, m, sizeof m, err));
    if (strcmp(m, "flash") == 0)
        e->sync = ICV_SYNC_FLASH;
    else if (strcmp(m, "none") == 0)
        e->sync = ICV_SYNC_NONE;
    else
        return icv_ynode_fail(icv_ynode_get(s, "method"), err, ICV_EINVAL, "unknown sync method '%s' (flash | none)",
                              m);
    return 0;
}

/* {from: coefficients.json}: the value measured by `impactcv coefficients`
 * (docs/coefficients.md). want: the coefficients that may stand here. */
static int read_from_file(const icv_experiment *e, icv_ynode n, const char *const want[], double *value,
                          char *from, icv_err *err)
{
    char rel[ICV_PATH_MAX];
    TRY(icv_yread_str(n, "from", 1, rel, sizeof rel, err));
    TRY(icv_path_join(from, ICV_PATH_MAX, e->dir, rel, err));
    json_error_t je;
    json_t *root = json_load_file(from, 0, &je);
    if (!root)
        return icv_ynode_fail(icv_ynode_get(n, "from"), err, ICV_EIO, "%s: %s", from, je.text);
    const char *coef = json_string_value(json_object_get(root, "coefficient"));
    json_t *v = json_object_get(root, "value");
    int ok = 0;
    for (int i = 0; coef && want[i]; i++)
        ok |= !strcmp(coef, want[i]);
    int rc = 0;
    if (!ok)
        rc = icv_ynode_fail(n, err, ICV_EINVAL, "%s holds %s, not %s", from, coef ? coef : "no coefficient",
                            want[0]);
    else if (!json_is_number(v))
        rc = icv_ynode_fail(n, err, ICV_EFORMAT, "%s: no numeric value", from);
    else
        *value = json_number_value(v);
    json_decref(root);
    return rc;
}

/* mu: measured | number | {from: file}; mu_s, mu_k: number | {from: file};
 * e_n: measured | number | {from: file}. */
int icv_experiment_model_read(icv_ynode m, icv_experiment *e, icv_err *err)
{
    e->restitution = ICV_RESTITUTION_STRONGE;
    e->mu_measured = 1;
    e->e_n_measured = 1;
    e->mu_s_from[0] = e->mu_k_from[0] = e->e_n_from[0] = '\0';
    if (!icv_ynode_exists(m))
        return 0;
    if (!icv_ynode_is_map(m))
        return icv_ynode_fail(m, err, ICV_EINVAL, "expected {restitution: .., mu: .., e_n: ..}");
    char r[32] = "stronge";
    TRY(icv_yread_str(m, "restitution", 0, r, sizeof r, err));
    if (!strcmp(r, "newton"))
        e->restitution = ICV_RESTITUTION_NEWTON;
    else if (!strcmp(r, "poisson"))
        e->restitution = ICV_RESTITUTION_POISSON;
    else if (!strcmp(r, "stronge"))
        e->restitution = ICV_RESTITUTION_STRONGE;
    else
        return icv_ynode_fail(icv_ynode_get(m, "restitution"), err, ICV_EINVAL,
                              "unknown restitution model '%s' (newton | poisson | stronge)", r);

    icv_ynode mu = icv_ynode_get(m, "mu");
    int has_ms = icv_ynode_exists(icv_ynode_get(m, "mu_s")), has_mk = icv_ynode_exists(icv_ynode_get(m, "mu_k"));
    if (icv_ynode_exists(mu) && (has_ms || has_mk))
        return icv_ynode_fail(mu, err, ICV_EINVAL, "give either mu or mu_s and mu_k, not both");
    if (icv_ynode_is_map(mu)) {
        static const char *const w[] = {"mu_k", "mu_s", NULL};
        TRY(read_from_file(e, mu, w, &e->mu_k, e->mu_k_from, err));
        e->mu_s = e->mu_k;
        snprintf(e->mu_s_from, sizeof e->mu_s_from, "%s", e->mu_k_from);
        e->mu_measured = 0;
    } else if (icv_ynode_exists(mu)) {
        const char *s = icv_ynode_str(mu);
        if (!(s && !strcmp(s, "measured"))) {
            double v;
            if (icv_ynode_double(mu, &v, NULL))
                return icv_ynode_fail(mu, err, ICV_EINVAL, "expected measured or a number >= 0");
            e->mu_s = e->mu_k = v;
            e->mu_measured = 0;
        }
    } else if (has_ms || has_mk) {
        if (has_ms != has_mk)
            return icv_ynode_fail(m, err, ICV_EINVAL, "give both mu_s and mu_k (or mu for both)");
        static const char *const ws[] = {"mu_s", NULL}, *const wk[] = {"mu_k", NULL};
        icv_ynode ns = icv_ynode_get(m, "mu_s"), nk = icv_ynode_get(m, "mu_k");
        if (icv_ynode_is_map(ns))
            TRY(read_from_file(e, ns, ws, &e->mu_s, e->mu_s_from, err));
        else
            TRY(icv_yread_double(m, "mu_s", 1, &e->mu_s, err));
        if (icv_ynode_is_map(nk))
            TRY(read_from_file(e, nk, wk, &e->mu_k, e->mu_k_from, err));
        else
            TRY(icv_yread_double(m, "mu_k", 1, &e->mu_k, err));
        if (e->mu_s < e->mu_k)
            return icv_ynode_fail(icv_ynode_get(m, "mu_s"), err, ICV_EINVAL,
                                  "static friction mu_s = %g must be >= kinetic mu_k = %g", e->mu_s, e->mu_k);
        e->mu_measured = 0;
    }
    if (!e->mu_measured && (e->mu_k < 0 || e->mu_s > 10))
        return icv_ynode_fail(icv_ynode_exists(mu) ? mu : m, err, ICV_EINVAL, "friction must be in [0, 10], got %g",
                              e->mu_k < 0 ? e->mu_k : e->mu_s);

    icv_ynode en = icv_ynode_get(m, "e_n");
    if (icv_ynode_is_map(en)) {
        static const char *const w[] = {"e_n", NULL};
        TRY(read_from_file(e, en, w, &e->e_n, e->e_n_from, err));
        if (e->e_n < 0 || e->e_n > 1)
            return icv_ynode_fail(en, err, ICV_EINVAL, "%s gives e_n = %g, outside [0, 1]", e->e_n_from, e->e_n);
        e->e_n_measured = 0;
    } else if (icv_ynode_exists(en)) {
        const char *s = icv_ynode_str(en);
        if (!(s && !strcmp(s, "measured"))) {
            if (icv_ynode_double(en, &e->e_n, NULL))
                return icv_ynode_fail(en, err, ICV_EINVAL, "expected measured or a number in [0, 1]");
            if (e->e_n < 0 || e->e_n > 1)
                return icv_ynode_fail(en, err, ICV_EINVAL, "must be in [0, 1], got %g", e->e_n);
            e->e_n_measured = 0;
        }
    }
    return 0;
}

static int read_kind(icv_ynode root, icv_experiment *e, icv_err *err)
{
    icv_ynode k = icv_ynode_get(root, "experiment");
    if (!icv_ynode_exists(k))
        return 0;
    TRY(icv_yread_str(root, "experiment", 1, e->kind, sizeof e->kind, err));
    if (strcmp(e->kind, "tilt") && strcmp(e->kind, "slide") && strcmp(e->kind, "drop"))
        return icv_ynode_fail(k, err, ICV_EINVAL, "unknown experiment '%s' (tilt | slide | drop)", e->kind);
    icv_ynode c = icv_ynode_get(root, "coefficients");
    if (icv_ynode_exists(icv_ynode_get(c, "angle_deg"))) {
        if (strcmp(e->kind, "tilt"))
            return icv_ynode_fail(icv_ynode_get(c, "angle_deg"), err, ICV_EINVAL, "angle_deg is for a tilt experiment");
        TRY(icv_yread_double(c, "angle_deg", 1, &e->tilt_angle_deg, err));
        e->tilt_angle_sd_deg = 0.2; /* a protractor's reading, as Han Sun gives it */
        TRY(icv_yread_double(c, "angle_sd_deg", 0, &e->tilt_angle_sd_deg, err));
        if (!(e->tilt_angle_deg > 0 && e->tilt_angle_deg < 90) || !(e->tilt_angle_sd_deg >= 0))
            return icv_ynode_fail(c, err, ICV_EINVAL, "angle_deg must be in (0, 90) and angle_sd_deg >= 0 (degrees)");
        e->has_tilt_angle = 1;
    }
    icv_ynode lv = icv_ynode_get(c, "level_images");
    if (icv_ynode_exists(lv)) {
        if (strcmp(e->kind, "tilt") && strcmp(e->kind, "slide"))
            return icv_ynode_fail(lv, err, ICV_EINVAL, "level_images are for a slide or a tilt");
        TRY(read_camera_paths(e, lv, e->level_images, 0, err));
    }
    icv_ynode inc = icv_ynode_get(c, "incline");
    if (icv_ynode_exists(inc)) {
        char from[16];
        TRY(icv_yread_str(c, "incline", 1, from, sizeof from, err));
        if (strcmp(from, "flight"))
            return icv_ynode_fail(inc, err, ICV_EINVAL,
                                  "unknown incline '%s' (flight: from the free flight before the body lands on it)",
                                  from);
        if (strcmp(e->kind, "slide"))
            return icv_ynode_fail(inc, err, ICV_EINVAL, "incline: flight is for a slide");
        if (!e->gravity_auto)
            return icv_ynode_fail(inc, err, ICV_EINVAL,
                                  "incline: flight measures gravity from the flight: leave gravity out (or auto)");
        e->incline_from_flight = 1;
    }
    return 0;
}

/* A board is needed only where board images are used: calibration.images, and with
 * a calibration file the surface, motion-plane and level images, which show the
 * board whose size gives the scale. Without one the run found a "0x0 board". */
static int check_board_given(icv_ynode root, const icv_experiment *e, icv_err *err)
{
    if (e->board_cols > 0)
        return 0;
    const char *user = e->surface_kind == ICV_SURFACE_IMAGES ? "surface.images"
                       : e->scale_kind == ICV_SCALE_BOARD     ? "motion_plane.images"
                       : e->level_images[0][0]                ? "coefficients.level_images"
                                                              : NULL;
    if (!user)
        return 0;
    icv_ynode cal = icv_ynode_get(root, "calibration");
    return icv_ynode_fail(icv_ynode_exists(cal) ? cal : root, err, ICV_EINVAL,
                          "needs board: {cols, rows, square} (inner corners, metres) beside file: %s shows the "
                          "board, whose size gives the scale",
                          user);
}

/* track.markers: bright | dark | motion | auto | {color: [r, g, b], tolerance: t}. */
static int read_track_markers(icv_ynode t, icv_track_keys *k, icv_err *err)
{
    icv_ynode m = icv_ynode_get(t, "markers");
    if (!icv_ynode_exists(m))
        return 0;
    const char *want = "bright, dark, motion, auto or {color: [r, g, b], tolerance: t}";
    if (icv_ynode_is_scalar(m)) {
        const char *v = icv_ynode_str(m);
        static const char *const names[] = {"bright", "dark", "color", "motion"};
        for (int i = 0; i < 4; i++)
            if (i != ICV_TRACK_MARKERS_COLOR && v && !strcmp(v, names[i])) {
                k->markers = i;
                return 0;
            }
        if (v && !strcmp(v, "auto")) {
            k->markers = ICV_TRACK_MARKERS_AUTO;
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
        k->markers = ICV_TRACK_MARKERS_COLOR;
    return rc;
}

/* track: {threshold: gray level (fixed; default automatic), threshold_fraction,
 * min_circularity, max_coast: frames, markers}: the track stage's settings. */
static int read_track(icv_ynode root, icv_experiment *e, icv_err *err)
{
    icv_track_keys *k = &e->track;
    icv_ynode t = icv_ynode_get(root, "track");
    if (!icv_ynode_exists(t))
        return 0;
    if (!icv_ynode_is_map(t))
        return icv_ynode_fail(t, err, ICV_EINVAL, "expected a mapping {threshold: .., ...}");
    TRY(icv_yread_double(t, "threshold", 0, &k->threshold, err));
    if (icv_ynode_exists(icv_ynode_get(t, "threshold")) && !(k->threshold > 0))
        return icv_ynode_fail(icv_ynode_get(t, "threshold"), err, ICV_EINVAL, "must be a gray level > 0");
    TRY(icv_yread_double(t, "threshold_fraction", 0, &k->threshold_fraction, err));
    if (icv_ynode_exists(icv_ynode_get(t, "threshold_fraction")) &&
        !(k->threshold_fraction > 0 && k->threshold_fraction < 1))
        return icv_ynode_fail(icv_ynode_get(t, "threshold_fraction"), err, ICV_EINVAL, "must be in (0, 1)");
    TRY(icv_yread_double(t, "min_circularity", 0, &k->min_circularity, err));
    if (icv_ynode_exists(icv_ynode_get(t, "min_circularity")) &&
        !(k->min_circularity > 0 && k->min_circularity <= 1))
        return icv_ynode_fail(icv_ynode_get(t, "min_circularity"), err, ICV_EINVAL, "must be in (0, 1]");
    TRY(icv_yread_int(t, "max_coast", 0, &k->max_coast, err));
    if (icv_ynode_exists(icv_ynode_get(t, "max_coast")) && k->max_coast < 0)
        return icv_ynode_fail(icv_ynode_get(t, "max_coast"), err, ICV_EINVAL, "must be >= 0 frames");
    return read_track_markers(t, k, err);
}

int icv_experiment_load(const char *path, icv_experiment *e, icv_err *err)
{
    memset(e, 0, sizeof *e);
    e->track.threshold = -1;
    e->track.max_coast = -1;
    e->track.markers = ICV_TRACK_MARKERS_AUTO;
    icv_yaml *doc;
    icv_ynode root;
    int rc = icv_yaml_load(path, &doc, &root, err);
    if (rc)
        return rc;
    snprintf(e->path, sizeof e->path, "%s", path);
    icv_path_dirname(e->dir, sizeof e->dir, path);

    icv_ynode_warn_unknown(root, known_top);

    rc = icv_yread_str(root, "name", 1, e->name, sizeof e->name, err);
    /* no cameras: tracks from another system (read_without_cameras) */
    int cameras = icv_ynode_exists(icv_ynode_get(root, "cameras"));
    if (!rc && !cameras)
        rc = read_without_cameras(root, e, err);
    if (!rc && cameras)
        rc = read_cameras(root, e, err);
    if (!rc && cameras)
        rc = read_motion_plane(root, e, err);
    /* One camera with a scale from a known length or from gravity needs no board. */
    int no_board = e->n_cameras == 1 && (e->scale_kind == ICV_SCALE_POINTS || e->scale_kind == ICV_SCALE_GRAVITY ||
                                         e->scale_kind == ICV_SCALE_SIZE);
    if (!rc && cameras)
        rc = read_calibration(root, e, no_board, err);
    if (!rc)
        rc = read_surface(root, e, e->n_cameras == 1, err);
    if (!rc)
        rc = read_gravity(root, e, err);
    if (!rc)
        rc = read_sync(root, e, err);
    if (!rc)
        rc = icv_experiment_bodies_read(root, e, err);
    if (!rc)
        rc = icv_experiment_model_read(icv_ynode_get(root, "model"), e, err);
    if (!rc)
        rc = read_kind(root, e, err);
    if (!rc && e->scale_kind == ICV_SCALE_SIZE && !(e->scale_size > 0)) {
        /* scale: size: the ball's diameter from its sphere shape when not given */
        if (e->shape.type == ICV_SHAPE_SPHERE)
            e->scale_size = 2 * e->shape.radius;
        else
            rc = icv_ynode_fail(icv_ynode_get(icv_ynode_get(root, "motion_plane"), "scale"), err, ICV_EINVAL,
                                "size needs the ball's diameter: body.shape {type: sphere, radius: m} or "
                                "{size: m}");
    }
    if (!rc && e->n_verticals > 0 && e->scale_kind != ICV_SCALE_SIZE)
        /* the plane is turned where the ball's sizes give its depth (job/track_size_scale.c) */
        rc = icv_ynode_fail(icv_ynode_get(icv_ynode_get(root, "motion_plane"), "verticals_px"), err, ICV_EINVAL,
                            "turns the plane of motion found by scale: size; give scale: size or leave it out");
    if (!rc)
        rc = check_board_given(root, e, err);
    if (!rc)
        rc = read_track(root, e, err);
    icv_yaml_free(doc);
    return rc;
}

static int check_file(const char *what, const char *path, icv_err *err)
{
    if (!icv_file_exists(path))
        return icv_err_set(err, ICV_ENOTFOUND, "%s: %s not found", path, what);
    return 0;
}

int icv_experiment_check_files(const icv_experiment *e, icv_err *err)
{
    for (int c = 0; c < e->n_cameras; c++) {
        char what[128];
        snprintf(what, sizeof what, "video of camera '%s'", e->cameras[c].id);
        /* an image-sequence pattern (printf %d or a glob) is checked by capture */
        if (!strchr(e->cameras[c].video, '%') && !strpbrk(e->cameras[c].video, "*?["))
            TRY(check_file(what, e->cameras[c].video, err));
        if (e->cameras[c].mask[0]) {
            snprintf(what, sizeof what, "mask of camera '%s'", e->cameras[c].id);
            TRY(check_file(what, e->cameras[c].mask, err));
        }
        if (e->calib_images[c][0]) {
            char **paths;
            size_t n;
            TRY(icv_paths_expand(e->calib_images[c], &paths, &n, err));
            icv_paths_free(paths, n);
            if (n == 0)
                return icv_err_set(err, ICV_ENOTFOUND, "%s: no calibration images of camera '%s' match",
                                   e->calib_images[c], e->cameras[c].id);
        }
        if (e->surface_images[c][0]) {
            snprintf(what, sizeof what, "surface image of camera '%s'", e->cameras[c].id);
            TRY(check_file(what, e->surface_images[c], err));
        }
        if (e->level_images[c][0]) {
            snprintf(what, sizeof what, "level image of camera '%s'", e->cameras[c].id);
            TRY(check_file(what, e->level_images[c], err));
        }
        if (e->motion_plane_images[c][0]) {
            snprintf(what, sizeof what, "motion-plane image of camera '%s'", e->cameras[c].id);
            TRY(check_file(what, e->motion_plane_images[c], err));
        }
    }
    if (e->calib_file[0])
        TRY(check_file("calibration file", e->calib_file, err));
    return 0;
}

void icv_experiment_summary(const icv_experiment *e, FILE *out)
{
    fprintf(out, "experiment  %s (%s)\n", e->name, e->path);
    if (e->n_cameras == 0)
        fprintf(out, "mode        3D tracks from another system, no cameras (impactcv analyze --tracks FILE)\n");
    else
        fprintf(out, "mode        %s, %d camera%s\n", e->n_cameras > 1 ? "3D" : "planar (one camera)", e->n_cameras,
                e->n_cameras > 1 ? "s" : "");
    for (int c = 0; c < e->n_cameras; c++) {
        fprintf(out, "camera      %-8s %s", e->cameras[c].id, e->cameras[c].video);
        if (e->cameras[c].capture_fps > 0)
            fprintf(out, " (captured at %g fps)", e->cameras[c].capture_fps);
        fprintf(out, "\n");
    }
    if (e->calib_file[0])
        fprintf(out, "calibration file %s\n", e->calib_file);
    else if (e->has_calibration)
        fprintf(out, "calibration board %dx%d inner corners, %.1f mm squares\n", e->board_cols, e->board_rows,
                e->board_square * 1e3);
    else if (e->n_cameras == 0)
        fprintf(out, "calibration none (the tracks' units are read from the file)\n");
    else
        fprintf(out, "calibration none (scale from %s)\n",
                e->scale_kind == ICV_SCALE_GRAVITY ? "gravity"
                : e->scale_kind == ICV_SCALE_SIZE  ? "the ball's apparent size"
                                                   : "a known length");
    static const char *const sk[] = {"lowest point reached", "board images", "plane", "line in the image"};
    fprintf(out, "surface     %s\n", sk[e->surface_kind]);
    if (e->gravity_auto)
        fprintf(out, "gravity     auto (from free flight)\n");
    else
        fprintf(out, "gravity     [%g, %g, %g] m/s^2\n", e->gravity.x, e->gravity.y, e->gravity.z);
    static const char *const sn[] = {"flash", "none", "manual offsets"};
    fprintf(out, "sync        %s\n", sn[e->sync]);
    fprintf(out, "body        %.4g kg, %d markers, shape %s\n", e->mass, e->n_markers, icv_shape_name(e->shape.type));
    fprintf(out, "model       %s, mu ", icv_restitution_name(e->restitution));
    if (e->mu_measured)
        fprintf(out, "measured");
    else if (e->mu_s == e->mu_k)
        fprintf(out, "%g", e->mu_k);
    else
        fprintf(out, "s %g k %g", e->mu_s, e->mu_k);
    if (e->e_n_measured)
        fprintf(out, ", e_n measured\n");
    else
        fprintf(out, ", e_n %g\n", e->e_n);
}
