/* calib_internal.h: helpers shared by the calib/ C files; private to calib/. */
#ifndef ICV_CALIB_INTERNAL_H
#define ICV_CALIB_INTERNAL_H

#include "calib/calib.h"

/* K (row-major 3x3) and dist <-> calib_intrinsics */
void calib_intrinsics_to_k(const calib_intrinsics *in, double K[9]);
/* The image file undistorted with K, dist (the same K for the output), colour kept,
 * encoded in the format of ext (".png", ".jpg"); *buf malloc'd. */
int calib_undistort_image_encoded(const double K[9], const double dist[5], const char *image, const char *ext,
                                  unsigned char **buf, size_t *len, icv_err *err);
void calib_intrinsics_from_k(calib_intrinsics *in, const double K[9], const double dist[5], int w, int h);

/* The board detected in every image of a list, all images of one size. */
typedef struct {
    size_t n;
    int width, height;           /* px */
    int n_points;
    calib_pt2 *uv;               /* n * n_points */
    calib_detection *det;        /* n */
    char **names;                /* n, borrowed from the caller's paths */
} calib_detections;

/* Reads and detects every image, detector->threads at once (0: calib_cores(), at
 * most CALIB_MAX_THREADS); the same corners, in the same order, whatever the number
 * of threads. Fails on the first image (in the list's order) that cannot be read or
 * whose size differs from the first image's. */
int calib_detections_run(char *const *paths, size_t n, const calib_board *b, const calib_detector *d,
                         const char *label, calib_detections *ds, icv_err *err);
void calib_detections_free(calib_detections *ds);
/* The cores this process may run on (its CPU affinity: taskset, a Slurm task's
 * cpus), at least 1. */
int calib_cores(void);
enum { CALIB_MAX_THREADS = 64 }; /* each thread holds one image and OpenCV's copies of it */
/* One line for "no board found": names the images (first few) and a board of
 * another size when one was seen. */
int calib_detections_fail_none(const calib_detections *ds, const calib_board *b, const char *label,
                               icv_err *err);
/* Comma-separated list of names (basename), cut to fit n. */
void calib_names_join(char *out, size_t n, char *const *names, const int *pick, size_t count);
const char *calib_basename(const char *path);

/* An OpenCV FileStorage file's text (YAML, or XML <opencv_storage>; n bytes, path for
 * messages) read by libyaml or libxml2 (storage_read.c): its top-level values by name. */
typedef struct calib_store calib_store;
int calib_store_open(const char *text, size_t n, const char *path, calib_store **s, icv_err *err);
void calib_store_close(calib_store *s);
/* A matrix (OpenCV's !!opencv-matrix, read as rows x (cols * channels); a {rows, cols,
 * data} map as ROS writes; or a sequence of numbers, a column) named name: fills up
 * to max values row by row, sets rows, cols. 0, -1 absent, -2 not a matrix of numbers. */
int calib_store_mat(const calib_store *s, const char *name, int *rows, int *cols, double *data, int max);
/* A number: 0, -1 absent, -2 not a number. */
int calib_store_real(const calib_store *s, const char *name, double *v);
/* A string, copied into buf (cut to n bytes): 0, -1 absent, -2 not a string. */
int calib_store_str(const calib_store *s, const char *name, char *buf, size_t n);
/* A sequence of strings (one string alone: a sequence of one): the first max copied
 * into buf, each in `each` bytes (cut); *count = the sequence's length. 0, -1 absent,
 * -2 not strings. */
int calib_store_strs(const calib_store *s, const char *name, char *buf, size_t each, int max, int *count);

/* Opens a calibration file for reading (at most ICV_YAML_MAX_BYTES); the error says
 * whether it is missing or not a calibration file. */
int calib_file_open_reader(const char *path, calib_store **s, icv_err *err);

/* Fills coverage_map, coverage and the verdict of a calibrated camera. */
void calib_camera_assess(calib_camera *cam, const calib_observations *obs);

/* RMS (px) of a board seen through a pose and intrinsics. */
double calib_view_rms(const calib_intrinsics *in, const double rvec[3], const double tvec[3],
                      const icv_vec3 *X, const calib_pt2 *uv, int n);

/* Standard errors of the joint stereo solution (stereo_uncertainty.c). */
int calib_stereo_uncertainty(const calib_observations *o1, const calib_observations *o2, const int *use,
                             int fix_k3, calib_stereo *st, icv_err *err);

/* The board pose (rvec, tvec in camera 1) minimising the reprojection error in
 * both cameras of a calibrated rig, by Gauss-Newton from pose (in/out). */
int calib_board_pose_stereo(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                            const double T[3], const icv_vec3 *X, const calib_pt2 *uv1, const calib_pt2 *uv2, int np,
                            double pose[6], icv_err *err);

/* calib_surface_from_stereo, with its sigmas (turn_sd, offset_sd from the corners'
 * scatter) only when with_sd: the calibration's part finds the frame again ~50
 * times from noiseless pixels and needs the frame alone. */
int calib_surface_stereo_frame(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                               const double T[3], const calib_board *b, const calib_pt2 *uv1, const calib_pt2 *uv2,
                               int with_sd, calib_surface *s, icv_err *err);

/* The stereo surface frame s's standard errors (s->turn_sd, s->offset_sd) from the
 * corners' reprojection scatter: Xs the corners in the surface frame (m), uv1, uv2
 * as detected. 0, or -1 (s unchanged) when J^T J is singular or out of memory. */
int calib_surface_sd_stereo(const calib_intrinsics *in1, const calib_intrinsics *in2, const double R[3][3],
                            const double T[3], const icv_vec3 *Xs, const calib_pt2 *uv1, const calib_pt2 *uv2, int np,
                            calib_surface *s);

/* Midpoint of the closest points of the rays through normalised (undistorted)
 * points n1 of camera 1 and n2 of camera 2 (x2 = R x1 + T): X in camera 1 (m).
 * -1 when the rays are parallel. */
int calib_triangulate_midpoint(const double R[3][3], const double T[3], calib_pt2 n1, calib_pt2 n2, icv_vec3 *X);

/* The small similarity (1 + k)(I + [w]x) x + o mapping points xt onto xs best
 * (linear least squares, small angles; w rad, o m): 0, or -1 with fewer than 3
 * points or a singular fit. */
int calib_similarity_fit(const icv_vec3 *xt, const icv_vec3 *xs, size_t n, icv_vec3 *w, double *k, icv_vec3 *o);

#endif
