/* true_stereo.h: a stereo calibration file made from synth's truth.json (its
 * cameras' K, dist, R, t), for tests that track with the true calibration. Test
 * code only: static, included by the tests that use it. */
#ifndef ICV_TESTS_TRUE_STEREO_H
#define ICV_TESTS_TRUE_STEREO_H

#include <jansson.h>
#include <stdio.h>

static double ts_jnum(json_t *a, size_t i) { return json_number_value(json_array_get(a, i)); }

static void ts_write_matrix(FILE *fp, const char *name, int rows, int cols, const double *v)
{
    fprintf(fp, "%s: !!opencv-matrix\n   rows: %d\n   cols: %d\n   dt: d\n   data: [", name, rows, cols);
    for (int i = 0; i < rows * cols; i++)
        fprintf(fp, "%s%.17g", i ? ", " : "", v[i]);
    fprintf(fp, "]\n");
}

/* dir/true.yaml from the truth's first two cameras (x2 = R x1 + T: R = R2 R1^T,
 * T = t2 - R t1), images width x height; off[c] each camera's
 * start_offset_frames. 0, or -1 when the file cannot be written. */
static int ts_write_true_stereo(json_t *truth, const char *dir, int width, int height, double off[2])
{
    json_t *cams = json_object_get(truth, "cameras");
    double K[2][9], D[2][5], R[2][3][3], t[2][3], Rs[9], T[3];
    for (int c = 0; c < 2; c++) {
        json_t *cam = json_array_get(cams, (size_t)c);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                K[c][i * 3 + j] = ts_jnum(json_array_get(json_object_get(cam, "K"), (size_t)i), (size_t)j);
                R[c][i][j] = ts_jnum(json_array_get(json_object_get(cam, "R"), (size_t)i), (size_t)j);
            }
            t[c][i] = ts_jnum(json_object_get(cam, "t"), (size_t)i);
        }
        for (int i = 0; i < 5; i++)
            D[c][i] = ts_jnum(json_object_get(cam, "dist"), (size_t)i);
        off[c] = json_number_value(json_object_get(cam, "start_offset_frames"));
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            Rs[i * 3 + j] = 0;
            for (int k = 0; k < 3; k++)
                Rs[i * 3 + j] += R[1][i][k] * R[0][j][k];
        }
    for (int i = 0; i < 3; i++) {
        T[i] = t[1][i];
        for (int k = 0; k < 3; k++)
            T[i] -= Rs[i * 3 + k] * t[0][k];
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/true.yaml", dir);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return -1;
    fprintf(fp, "%%YAML:1.0\n---\nimage_width: %d\nimage_height: %d\n", width, height);
    ts_write_matrix(fp, "M1", 3, 3, K[0]);
    ts_write_matrix(fp, "D1", 1, 5, D[0]);
    ts_write_matrix(fp, "M2", 3, 3, K[1]);
    ts_write_matrix(fp, "D2", 1, 5, D[1]);
    ts_write_matrix(fp, "R", 3, 3, Rs);
    ts_write_matrix(fp, "T", 3, 1, T);
    return fclose(fp) ? -1 : 0;
}

/* dir/true.yaml (ts_write_true_stereo) and dir/yaml_name, the contract's rod as
 * experiment `name` with that calibration and the truth's offsets (sync.offsets):
 * videos <media>left.<ext> and <media>right.<ext>, surface images
 * <media>surface_left.png and <media>surface_right.png (media "" for dir's own
 * files, else a folder ending in '/'); *yaml that file's path. 0, or -1. */
static int ts_write_true_experiment(json_t *truth, const char *dir, int width, int height, const char *name,
                                    const char *media, const char *ext, const char *yaml_name, char *yaml, size_t n)
{
    double off[2];
    if (ts_write_true_stereo(truth, dir, width, height, off))
        return -1;
    snprintf(yaml, n, "%s/%s", dir, yaml_name);
    FILE *fp = fopen(yaml, "w");
    if (!fp)
        return -1;
    /* synth: camera c's frame k is at t = (k + start_offset)/fps; capture's offset is
       the camera's fractional frame of experiment time 0: -start_offset */
    fprintf(fp,
            "name: %s\n"
            "cameras:\n  - {id: left, video: %sleft.%s}\n  - {id: right, video: %sright.%s}\n"
            "calibration: {board: {cols: 9, rows: 6, square: 0.023}, file: true.yaml}\n"
            "surface: {images: {left: %ssurface_left.png, right: %ssurface_right.png}}\n"
            "sync: {offsets: {left: %.17g, right: %.17g}}\n"
            "body:\n  mass: 0.169\n  inertia: [[1.312e-3,0,0],[0,7.7e-6,0],[0,0,1.312e-3]]\n"
            "  markers: [[0,0.127,0],[0,0,0],[0,-0.127,0]]\n  marker_diameter: 0.012\n"
            "  shape: {type: capsule, axis: [0,1,0], length: 0.3048, radius: 0.009525}\n",
            name, media, ext, media, ext, media, media, -off[0], -off[1]);
    return fclose(fp) ? -1 : 0;
}

#endif
