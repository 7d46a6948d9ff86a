/* pipeline_internal.h: types and helpers shared by pipeline.c and band_marker.c (private
 * to track/): the calibration a job uses, one triangulated candidate point, and the band
 * model of markers round a rod (band_marker.c). Frames: docs/conventions.md. */
#ifndef ICV_TRACK_PIPELINE_INTERNAL_H
#define ICV_TRACK_PIPELINE_INTERNAL_H

#include "calib/calib.h"
#include "core/core.h"
#include "track/track.h"

typedef struct {
    calib_intrinsics in[ICV_MAX_CAMERAS];
    double R[ICV_MAX_CAMERAS][3][3], T[ICV_MAX_CAMERAS][3]; /* camera k from the reference:
                                                              x_k = R[k] x_0 + T[k] (m);
                                                              k = 0 the identity */
    calib_surface surf;    /* surface frame in the reference camera's frame */
    calib_surface plane;   /* one-camera mode: the motion plane (y its normal) */
    char source[ICV_PATH_MAX]; /* the calibration file, or "board images" */
} pl_calib;

typedef struct {
    icv_vec3 X;        /* m, surface frame */
    double cov[3][3];  /* m^2, surface frame */
    double residual;   /* px */
    double chi2;       /* of the triangulation, with the sigmas given */
    unsigned flags;
    int nv;                        /* views: 1 in one-camera mode, else >= 2 */
    int cam[ICV_MAX_CAMERAS];      /* camera of each view; view 0 is the reference camera's */
    int id[ICV_MAX_CAMERAS];       /* 2D track identity of each view */
    track_view v[ICV_MAX_CAMERAS]; /* the undistorted views it came from */
} pl_cand;

#define PL_MAX_CAND 16

typedef struct {
    int on;                        /* the body has band markers */
    double r;                      /* m: rod radius */
    double s[ICV_MAX_MARKERS];     /* m: marker position along the axis (body frame) */
    int band[ICV_MAX_MARKERS];     /* 1: marker k is a band */
    icv_vec3 axis;                 /* unit, reference camera frame, last known */
    double t_axis;                 /* s: when it was known; -inf never */
} pl_band;

/* to the surface frame (pipeline.c): x_s = Rs^T (x_cam - ts), cov_s = Rs^T cov Rs */
void pl_to_surface(const calib_surface *s, const double X[3], const double cov[3][3], pl_cand *out);

/* band_marker.c */
void pl_band_init(const icv_experiment *exp, pl_band *b);
/* Moves a labelled band's candidate from the band's visible halves to the rod's axis
 * (axis: unit, reference camera frame) and triangulates again from its c->nv views (or
 * meets the motion plane again with one camera, nc 1). */
void pl_band_correct(const pl_band *b, const pl_calib *cal, int nc, icv_vec3 axis, pl_cand *c);
/* Shifts an undistorted pixel (u, v) of marker j seen at experiment time t (s) by the
 * image of its band offset, from the labelled 3D positions xyz (surface frame, F frames
 * of nm markers) and axes of the nearest reference frame. */
void pl_band_shift_2d(const pl_band *b, const pl_calib *cal, const track_view *view, const double *t0cam, double off0,
                      double fps0, long F, const double *xyz, const icv_vec3 *axes, int nm, int j, double t, double *u,
                      double *v);
/* The rod's axis (unit, reference camera frame) from a frame's labelled bands. */
int pl_band_axis(const pl_band *b, const pl_calib *cal, const pl_cand *cf, const int *lab, int n, icv_vec3 *axis);

#endif
