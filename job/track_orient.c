/* track_orient.c: which way round a nearly symmetric template is, from the whole clip.
 * The identity labels each frame by the template's distances and continuity, so the
 * frame where the body is first seen decides between labellings the distances hardly
 * tell apart (a rod's four markers 70.9, 47.5 and 71.3 mm apart read the same backwards
 * within the frame's noise), and continuity keeps that choice. Over the clip the
 * template's small asymmetry decides: the permutation of the markers whose positions fit
 * the template's distances best relabels the whole clip when it fits better in most
 * frames. An exactly symmetric template fits such a permutation equally in every frame
 * and keeps its labels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_track_internal.h"

/* markers up to this many: every permutation is tried (720) */
#define ORIENT_MAX_MARKERS 6
/* frames read per permutation at most (evenly spread): the cost stays a fraction of a
   second on long clips */
#define ORIENT_MAX_FRAMES 2000
/* the permutation must fit better in this share of the frames where the two differ, and
   in this many frames at least */
#define ORIENT_SHARE 0.75
#define ORIENT_MIN_FRAMES 10

/* Sum over the frames' labelled pairs of (distance - template distance)^2 with the
 * columns read through perm; *pairs counts them. With other (not NULL): *better counts
 * the frames whose pairs fit better read through perm than through other, *compared
 * those where the two differ. */
static double misfit(const job_track *j, const int *perm, const int *other, const double (*D)[ICV_MAX_MARKERS],
                     long *pairs, long *better, long *compared)
{
    int nm = j->exp.n_markers;
    double s = 0;
    *pairs = 0;
    if (other)
        *better = *compared = 0;
    long step = j->F > ORIENT_MAX_FRAMES ? (j->F + ORIENT_MAX_FRAMES - 1) / ORIENT_MAX_FRAMES : 1;
    for (long f = 0; f < j->F; f += step) {
        const double *x = j->xyz + (size_t)f * (size_t)j->xyz_stride * 3;
        double sf = 0, so = 0;
        for (int a = 0; a < nm; a++)
            for (int b = a + 1; b < nm; b++) {
                const double *p = x + 3 * a, *q = x + 3 * b;
                if (isnan(p[0]) || isnan(q[0]))
                    continue;
                double d = sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                                (p[2] - q[2]) * (p[2] - q[2]));
                /* the points labelled a and b read as markers perm[a] and perm[b] */
                sf += (d - D[perm[a]][perm[b]]) * (d - D[perm[a]][perm[b]]);
                if (other)
                    so += (d - D[other[a]][other[b]]) * (d - D[other[a]][other[b]]);
                (*pairs)++;
            }
        s += sf;
        if (other && fabs(sf - so) > 1e-12 * (sf + so)) {
            (*compared)++;
            *better += sf < so;
        }
    }
    return s;
}

/* The next permutation in lexicographic order; 0 after the last. */
static int next_perm(int *p, int n)
{
    int i = n - 2;
    while (i >= 0 && p[i] >= p[i + 1])
        i--;
    if (i < 0)
        return 0;
    int k = n - 1;
    while (p[k] <= p[i])
        k--;
    int t = p[i];
    p[i] = p[k], p[k] = t;
    for (int a = i + 1, b = n - 1; a < b; a++, b--)
        t = p[a], p[a] = p[b], p[b] = t;
    return 1;
}

void job_track_orient_template(job_track *j)
{
    const icv_experiment *exp = &j->exp;
    int nm = exp->n_markers;
    if (nm < 2 || nm > ORIENT_MAX_MARKERS || exp->n_bodies > 1)
        return;
    double D[ICV_MAX_MARKERS][ICV_MAX_MARKERS];
    icv_vec3 tmpl[ICV_MAX_MARKERS];
    for (int k = 0; k < nm; k++) {
        tmpl[k] = exp->markers[k];
        if (exp->n_cameras == 1) /* as the labelling: distances in the motion plane */
            tmpl[k].z = 0;
    }
    for (int a = 0; a < nm; a++)
        for (int b = 0; b < nm; b++)
            D[a][b] = icv_v3_norm(icv_v3_sub(tmpl[a], tmpl[b]));
    const double(*Dc)[ICV_MAX_MARKERS] = (const double(*)[ICV_MAX_MARKERS])D;
    int id[ICV_MAX_MARKERS], perm[ICV_MAX_MARKERS], best[ICV_MAX_MARKERS];
    for (int k = 0; k < nm; k++)
        id[k] = perm[k] = best[k] = k;
    long n_id, n, better = 0, compared = 0;
    double s_id = misfit(j, id, NULL, Dc, &n_id, NULL, NULL), s_best = s_id;
    if (n_id == 0)
        return;
    while (next_perm(perm, nm)) {
        /* one camera places each marker on its own body z's plane: only markers of one
           plane (within a millimetre) trade places without moving */
        int same_plane = 1;
        for (int k = 0; k < nm && same_plane; k++)
            same_plane = exp->n_cameras >= 2 || fabs(exp->markers[k].z - exp->markers[perm[k]].z) < 1e-3;
        if (!same_plane)
            continue;
        double s = misfit(j, perm, NULL, Dc, &n, NULL, NULL);
        if (s < s_best) {
            s_best = s;
            memcpy(best, perm, sizeof best);
        }
    }
    if (s_best < s_id)
        misfit(j, best, id, Dc, &n, &better, &compared);
    icv_debug("orientation: labels' RMS misfit %.3f mm, the best permutation's %.3f mm over %ld pairs, better in %ld "
              "of %ld frames",
              1e3 * sqrt(s_id / n_id), 1e3 * sqrt(s_best / n_id), n_id, better, compared);
    /* a sign test over the frames: the template's asymmetry shows in most of them, a
       systematic error (a scale, a blurred marker) in the sum but not frame by frame */
    if (!(s_best < s_id && compared >= ORIENT_MIN_FRAMES && better >= ORIENT_SHARE * compared))
        return;
    /* the point labelled a is marker best[a]: relabel xyz, the quality rows and the 2D
       labels */
    double row[ICV_MAX_MARKERS * 3];
    for (long f = 0; f < j->F; f++) {
        double *x = j->xyz + (size_t)f * (size_t)j->xyz_stride * 3;
        for (int a = 0; a < nm; a++)
            memcpy(row + 3 * best[a], x + 3 * a, 3 * sizeof *row);
        memcpy(x, row, (size_t)nm * 3 * sizeof *row);
    }
    for (long q = 0; q < j->nq; q++)
        if (j->qrows[q].marker >= 0 && j->qrows[q].marker < nm)
            j->qrows[q].marker = best[j->qrows[q].marker];
    for (int c = 0; c < exp->n_cameras; c++) {
        job_track_camera *cm = &j->cams[c];
        for (long i = 0; i < cm->frames * (long)cm->n_ids; i++)
            if (cm->label[i] >= 0 && cm->label[i] < nm)
                cm->label[i] = best[cm->label[i]];
    }
    char map[160] = "";
    size_t len = 0;
    for (int a = 0; a < nm && len < sizeof map; a++)
        if (best[a] != a)
            len += (size_t)snprintf(map + len, sizeof map - len, "%sm%d -> m%d", len ? ", " : "", a, best[a]);
    icv_info("%s: body.markers fit the positions better relabelled %s in %ld of %ld frames (RMS misfit %.2f mm "
             "against %.2f mm): relabelled; the first frames chose between nearly symmetric labellings by their noise",
             exp->path, map, better, compared, 1e3 * sqrt(s_best / n_id), 1e3 * sqrt(s_id / n_id));
}
