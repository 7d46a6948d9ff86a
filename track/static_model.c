/* static_model.c: a blob-level background model. A bright blob seen within a small
 * radius of the same place in every searched frame for N frames (the reference
 * cylinder, glints on the plate, the board) is learnt and then ignored; an entry is
 * forgotten as soon as a frame searches its place and does not find it there. Kept at
 * blob level, not per pixel, so that windowed frames cost nothing for it. */
#include "track/static_model_internal.h"

void track_static_begin(track_static_model *m)
{
    for (int i = 0; i < m->n; i++)
        m->blobs[i].seen = 0;
}

int track_static_observe(track_static_model *m, double u, double v, double radius, int frames)
{
    double r2 = radius * radius;
    for (int i = 0; i < m->n; i++) {
        track_static_blob *s = &m->blobs[i];
        double du = u - s->u, dv = v - s->v;
        if (du * du + dv * dv > r2)
            continue;
        if (!s->seen) {
            s->seen = 1;
            s->count++;
        }
        return s->count >= frames;
    }
    if (m->n < TRACK_STATIC_MAX)
        m->blobs[m->n++] = (track_static_blob){u, v, 1, 1};
    return frames <= 1;
}

void track_static_end(track_static_model *m, const int (*rects)[4], int n_rects)
{
    int k = 0;
    for (int i = 0; i < m->n; i++) {
        const track_static_blob *s = &m->blobs[i];
        int searched = 0;
        for (int r = 0; r < n_rects && !searched; r++)
            searched = s->u >= rects[r][0] && s->u <= rects[r][2] && s->v >= rects[r][1] && s->v <= rects[r][3];
        if (s->seen || !searched)
            m->blobs[k++] = *s;
    }
    m->n = k;
}
