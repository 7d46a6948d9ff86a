/* static_model_internal.h (private to track/): the blob-level background model that learns
 * bright objects that do not move (static_model.c). */
#ifndef ICV_TRACK_STATIC_MODEL_INTERNAL_H
#define ICV_TRACK_STATIC_MODEL_INTERNAL_H

#define TRACK_STATIC_MAX 64

typedef struct {
    double u, v; /* px: where it was first seen */
    int count;   /* consecutive searched frames it was seen there */
    int seen;    /* seen in the current frame */
} track_static_blob;

typedef struct {
    track_static_blob blobs[TRACK_STATIC_MAX];
    int n;
} track_static_model;

/* Starts a frame. */
void track_static_begin(track_static_model *m);
/* Records a blob at (u, v) in this frame; returns 1 when it has stayed within radius
 * for at least frames searched frames (a static object to ignore). */
int track_static_observe(track_static_model *m, double u, double v, double radius, int frames);
/* Ends a frame: entries inside a searched rectangle ([x0, y0, x1, y1] each) that were
 * not seen are forgotten (the object moved or went). */
void track_static_end(track_static_model *m, const int (*rects)[4], int n_rects);

#endif
