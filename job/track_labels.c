/* track_labels.c: the body marker of each 2D point. The 3D labelling names a 2D track
 * in the frames where it labelled the track's point; elsewhere (a coasted point, a frame
 * where the other camera lost the marker) the track lends its label from nearby frames
 * or from most of its life. A lent label never duplicates a marker in a frame: a glint's
 * track labelled in two frames would otherwise carry that marker through the whole clip
 * beside the marker's own track. */
#include <stdlib.h>

#include "job/job_track_internal.h"

/* Whether a 2D track other than id holds label l in frame f itself. */
static int label_held_by_other(const job_track_camera *c, long f, int id, int l)
{
    const int *row = c->label + f * c->n_ids;
    for (int k = 0; k < c->n_ids; k++)
        if (k != id && row[k] == l)
            return 1;
    return 0;
}

/* The label of the nearest labelled frame within 3 of f, -1 none. */
static int label_near(const job_track_camera *c, long f, int id)
{
    for (long d = 1; d <= 3; d++) {
        if (f - d >= 0 && c->label[(f - d) * c->n_ids + id] >= 0)
            return c->label[(f - d) * c->n_ids + id];
        if (f + d < c->frames && c->label[(f + d) * c->n_ids + id] >= 0)
            return c->label[(f + d) * c->n_ids + id];
    }
    return -1;
}

/* The label track id carries most often, -1 none; *votes its frames. */
static int label_most(const job_track_camera *c, int id, int *votes)
{
    int v[ICV_MAX_MARKERS] = {0}, best = -1, bv = 0;
    for (long g = 0; g < c->frames; g++) {
        int l = c->label[g * c->n_ids + id];
        if (l >= 0 && l < ICV_MAX_MARKERS && ++v[l] > bv)
            bv = v[l], best = l;
    }
    *votes = bv;
    return best;
}

int job_track_label_2d(const job_track_camera *c, long f, int id)
{
    int l = c->label[f * c->n_ids + id], votes;
    if (l >= 0)
        return l;
    if ((l = label_near(c, f, id)) < 0)
        l = label_most(c, id, &votes);
    return l >= 0 && label_held_by_other(c, f, id, l) ? -1 : l;
}

int job_track_labels_2d(const job_track_camera *c, int *marker, icv_err *err)
{
    int *most = malloc(sizeof *most * (size_t)(c->n_ids ? c->n_ids : 1));
    int *most_votes = malloc(sizeof *most_votes * (size_t)(c->n_ids ? c->n_ids : 1));
    if (!most || !most_votes) {
        free(most);
        free(most_votes);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    for (int id = 0; id < c->n_ids; id++)
        most[id] = label_most(c, id, &most_votes[id]);
    /* raw is in frame order: each frame's lent labels go to the strongest claim, a
       nearby frame's (priority above any vote count) before a track's most frequent */
    for (long i0 = 0, i1; i0 < c->n_raw; i0 = i1) {
        long f = c->raw[i0].frame;
        for (i1 = i0; i1 < c->n_raw && c->raw[i1].frame == f; i1++)
            ;
        long best_pri[ICV_MAX_MARKERS];
        long best_i[ICV_MAX_MARKERS];
        for (int l = 0; l < ICV_MAX_MARKERS; l++)
            best_pri[l] = -1, best_i[l] = -1;
        for (long i = i0; i < i1; i++) {
            int id = c->raw[i].id, l = c->label[f * c->n_ids + id];
            marker[i] = l;
            if (l >= 0)
                continue;
            long pri;
            if ((l = label_near(c, f, id)) >= 0)
                pri = c->frames + 1;
            else
                l = most[id], pri = most_votes[id];
            if (l >= 0 && l < ICV_MAX_MARKERS && !label_held_by_other(c, f, id, l) && pri > best_pri[l])
                best_pri[l] = pri, best_i[l] = i;
        }
        for (int l = 0; l < ICV_MAX_MARKERS; l++)
            if (best_i[l] >= 0)
                marker[best_i[l]] = l;
    }
    free(most);
    free(most_votes);
    return 0;
}
