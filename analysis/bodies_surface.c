/* bodies_surface.c: each body's impacts with the surface in an experiment of several
 * bodies, measured as one body's are in the stretches of its flight between its
 * contacts with the other bodies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "analysis/bodies.h"

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* the surface impacts found and not measured, named, until they join res->skipped */
typedef struct {
    int n;
    char why[ANALYSIS_MAX_IMPACTS][ICV_ERR_MSG_MAX];
} unmeasured;

static void skip_surface(unmeasured *u, const char *name, const analysis_tracks *tr, int lo, int hi, const char *why)
{
    if (u->n < ANALYSIS_MAX_IMPACTS)
        snprintf(u->why[u->n], sizeof u->why[0], "%s's impact with the surface in frames %d-%d: not measured: %s",
                 name, tr->frame[lo], tr->frame[hi], why);
    u->n++;
}

/* One stretch, rows lo..hi of body k: its surface impacts appended to res. */
static int stretch_measure(const analysis_body_track *bt, int k, int lo, int hi, const icv_vec3 *g,
                           const analysis_params *prm, analysis_result *one, analysis_bodies_result *res,
                           unmeasured *u, icv_err *err)
{
    analysis_tracks part;
    int rc = analysis_tracks_rows(bt->tracks, lo, hi, &part, err);
    if (rc)
        return rc;
    icv_err e1 = {0};
    rc = analysis_impacts_measure(&part, bt->body, g, prm, one, &e1);
    analysis_tracks_free(&part);
    if (rc == ICV_ENOMEM) {
        *err = e1;
        return rc;
    }
    if (rc == ICV_ENOTFOUND)
        return 0; /* no impact with the surface in this stretch */
    if (rc) {
        skip_surface(u, bt->name, bt->tracks, lo, hi, e1.msg);
        return 0;
    }
    for (int i = 0; i < one->n_impacts && res->n_surface < ANALYSIS_MAX_IMPACTS; i++)
        res->surface[res->n_surface++] = (analysis_surface_impact){k, bt->tracks->frame[lo], bt->tracks->frame[hi],
                                                                   one->impacts[i]};
    return 0;
}

/* The body-body impacts measured again with their windows ending at the surface
 * impacts; res's surface impacts kept. */
static int pairs_again(const analysis_body_track *bodies, int n_bodies, const icv_vec3 *g, const analysis_params *prm,
                       analysis_bodies_result *res, icv_err *err)
{
    analysis_body_bounds *b = calloc(1, sizeof *b);
    analysis_bodies_result *again = malloc(sizeof *again);
    int rc = 0;
    if (!b || !again)
        rc = icv_err_set(err, ICV_ENOMEM, "surface impacts: out of memory");
    for (int i = 0; i < res->n_surface && !rc; i++) {
        int k = res->surface[i].body;
        if (b->n[k] < ANALYSIS_MAX_IMPACTS)
            b->t[k][b->n[k]++] = res->surface[i].im.t;
    }
    if (!rc && (rc = analysis_body_impacts_measure_bounded(bodies, n_bodies, g, prm, b, again, err)) == 0) {
        again->n_surface = res->n_surface;
        memcpy(again->surface, res->surface, sizeof *res->surface * (size_t)res->n_surface);
        *res = *again;
    }
    free(b);
    free(again);
    return rc;
}

int analysis_bodies_surface_measure(const analysis_body_track *bodies, int n_bodies, const icv_vec3 *g,
                                    const analysis_params *prm, analysis_bodies_result *res, icv_err *err)
{
    res->n_surface = 0;
    res->n_surface_unmeasured = 0;
    analysis_result *one = malloc(sizeof *one);
    unmeasured *u = calloc(1, sizeof *u);
    int rc = 0;
    if (!one || !u)
        rc = icv_err_set(err, ICV_ENOMEM, "surface impacts: out of memory");
    for (int k = 0; k < n_bodies && k < ANALYSIS_MAX_BODIES && !rc; k++) {
        const analysis_body_track *bt = &bodies[k];
        const analysis_tracks *tr = bt->tracks;
        if (bt->motion != ANALYSIS_MOTION_FLIGHT || tr->n_frames < 2)
            continue; /* on a table, on a string or in a chain: not a flight onto the surface */
        int ne = res->n_body_events[k];
        double ev[ANALYSIS_MAX_IMPACTS + 1];
        memcpy(ev, res->body_event_t[k], sizeof *ev * (size_t)ne);
        qsort(ev, (size_t)ne, sizeof *ev, by_value);
        ev[ne] = INFINITY;
        /* a contact lasts up to a frame: the rows within one frame interval of it are
           neither side's free flight */
        double guard = analysis_tracks_row_interval(tr);
        int row = 0;
        for (int s = 0; s <= ne && !rc; s++) {
            double from = s ? ev[s - 1] + guard : -INFINITY, to = ev[s] - guard;
            while (row < tr->n_frames && !(tr->t[row] > from))
                row++;
            int lo = row, hi = lo - 1;
            while (hi + 1 < tr->n_frames && tr->t[hi + 1] < to)
                hi++;
            if (hi >= lo)
                rc = stretch_measure(bt, k, lo, hi, g, prm, one, res, u, err);
            row = hi + 1 > row ? hi + 1 : row;
        }
    }
    int pairs = res->n_impacts + res->n_rows + res->n_unmeasured + res->n_several;
    if (!rc && res->n_surface > 0 && pairs > 0)
        rc = pairs_again(bodies, n_bodies, g, prm, res, err);
    for (int i = 0; !rc && u && i < u->n; i++) {
        if (res->n_skipped < ANALYSIS_MAX_IMPACTS && i < ANALYSIS_MAX_IMPACTS)
            memcpy(res->skipped[res->n_skipped], u->why[i], sizeof u->why[i]);
        res->n_skipped++;
        res->n_surface_unmeasured++;
    }
    free(one);
    free(u);
    return rc;
}
