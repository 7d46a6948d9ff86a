/* look.c: what the markers look like (track_look): the names, the motion look's still
 * background (a per-pixel median over frames spread over the clip) and `auto`, which
 * tries each look on a few frames and keeps the first that finds the body's markers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "track/detect_internal.h"

const char *track_look_name(track_look look)
{
    switch (look) {
    case TRACK_LOOK_BRIGHT:
        return "bright";
    case TRACK_LOOK_DARK:
        return "dark";
    case TRACK_LOOK_COLOR:
        return "color";
    case TRACK_LOOK_MOTION:
        return "motion";
    }
    return "?";
}

int track_motion_background(const track_frame *frames, int n, void *out, int out_stride, icv_err *err)
{
    enum { MAXN = 63 };
    if (!frames || n < 1 || n > MAXN || !out)
        return icv_err_set(err, ICV_EINVAL, "track motion background: %d frames (1 to %d needed)", n, MAXN);
    const track_frame *f0 = &frames[0];
    for (int i = 0; i < n; i++)
        if (frames[i].width != f0->width || frames[i].height != f0->height || frames[i].depth != f0->depth ||
            (f0->depth != 8 && f0->depth != 16) || !frames[i].data)
            return icv_err_set(err, ICV_EINVAL,
                               "track motion background: frame %d is %dx%d depth %d, frame 0 %dx%d depth %d (8 or 16 "
                               "bit, one size)",
                               i, frames[i].width, frames[i].height, frames[i].depth, f0->width, f0->height,
                               f0->depth);
    int v[MAXN];
    for (int y = 0; y < f0->height; y++)
        for (int x = 0; x < f0->width; x++) {
            for (int i = 0; i < n; i++) { /* insertion sort: n is small */
                int p = (int)pix(&frames[i], x, y), j = i - 1;
                for (; j >= 0 && v[j] > p; j--)
                    v[j + 1] = v[j];
                v[j + 1] = p;
            }
            int med = v[n / 2];
            unsigned char *row = (unsigned char *)out + (size_t)y * (size_t)out_stride;
            if (f0->depth == 8)
                row[x] = (unsigned char)med;
            else
                ((uint16_t *)(void *)row)[x] = (uint16_t)med;
        }
    return 0;
}

/* What one look found over the frames. */
typedef struct {
    int tried;
    int n_exact;       /* frames with n_expected blobs kept */
    int n_min, n_max;  /* blobs kept per frame */
    int pairs, steady; /* consecutive exact frames; those whose blobs stayed near */
    track_blob best;   /* the blob standing out most (peak over its background) */
    int has_best;
    double brightest;  /* the detector's brightest measured blob (kept or not) */
    int components;    /* most components in a frame */
    /* summed over the frames: why the components were not kept, and the area limits */
    long rej_area, rej_contrast, rej_shape, rej_edge, rej_overflow;
    double min_area, max_area;
} look_score;

static void describe_score(const look_score *s, track_look look, int depth, char *buf, size_t n)
{
    double top = depth == 16 ? 65535 : 255;
    if (!s->tried) {
        snprintf(buf, n, "%s not tried (no still background)", track_look_name(look));
        return;
    }
    if (!s->has_best) {
        /* what became of the components, summed over the frames, so a person sees which
           limit to change (a ball larger than marker_diameter: rejected by area) */
        if (s->components == 0) {
            snprintf(buf, n, "%s kept no blob (nothing stood out)", track_look_name(look));
            return;
        }
        char why[160] = "";
        size_t k = 0;
        const long cnt[5] = {s->rej_area, s->rej_contrast, s->rej_shape, s->rej_edge, s->rej_overflow};
        const char *name[5] = {"area", "contrast", "shape", "edge", "cap"};
        for (int r = 0; r < 5 && k < sizeof why; r++)
            if (cnt[r] > 0) {
                k += (size_t)snprintf(why + k, sizeof why - k, "%s %ld %s", k ? "," : "", cnt[r], name[r]);
                if (r == 0 && k < sizeof why)
                    k += (size_t)snprintf(why + k, sizeof why - k, " [%.0f, %.0f] px", s->min_area, s->max_area);
            }
        char seen[48] = "";
        if (s->brightest > 0)
            snprintf(seen, sizeof seen, "; %s %.0f",
                     look == TRACK_LOOK_DARK ? "darkest" : look == TRACK_LOOK_MOTION ? "most moved" : "brightest",
                     look == TRACK_LOOK_DARK ? top - s->brightest : s->brightest);
        snprintf(buf, n, "%s kept no blob (up to %d components; rejected:%s%s)", track_look_name(look),
                 s->components, why, seen);
        return;
    }
    const track_blob *b = &s->best;
    double peak = look == TRACK_LOOK_DARK ? top - b->peak : b->peak;
    double bg = look == TRACK_LOOK_DARK ? top - b->background : b->background;
    const char *what = look == TRACK_LOOK_DARK ? "darkest" : look == TRACK_LOOK_MOTION ? "moving" : "brightest";
    snprintf(buf, n, "%s kept %d-%d blobs a frame (%s: %s %.0f over %.0f, %.0f px at %.0f, %.0f)",
             track_look_name(look), s->n_min, s->n_max, what, look == TRACK_LOOK_MOTION ? "difference" : "level",
             peak, bg, b->area, b->u, b->v);
}

int track_look_choose(const track_frame *frames, int n, const void *motion_bg, int motion_bg_stride, int n_expected,
                      double diameter_px, const track_detector *like, track_look *look, char *why, size_t n_why,
                      icv_err *err)
{
    if (!frames || n < 1)
        return icv_err_set(err, ICV_EINVAL, "track.markers auto: no frame to decide from");
    const track_look order[3] = {TRACK_LOOK_BRIGHT, TRACK_LOOK_DARK, TRACK_LOOK_MOTION};
    look_score sc[3];
    memset(sc, 0, sizeof sc);
    /* px: how far a marker may move between two of the frames and still be "the same" */
    double near = fmax(40, 4 * diameter_px);
    int need = (int)ceil(0.6 * n);
    enum { MAXB = 64 };
    track_blob *prev = malloc(sizeof *prev * MAXB), *cur = malloc(sizeof *cur * MAXB);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return icv_err_set(err, ICV_ENOMEM, "track.markers auto: out of memory");
    }
    /* every look is weighed, the best kept: bright blobs are there in most scenes (a
       white rod between dark bands, a lit poster), so the first look that passes is not
       the one that explains the markers best */
    int chosen = -1, rc = 0;
    for (int li = 0; li < 3 && !rc; li++) {
        if (order[li] == TRACK_LOOK_MOTION && !motion_bg)
            continue;
        track_detector *d = track_detector_alloc(frames[0].width, frames[0].height, err);
        if (!d) {
            rc = ICV_ENOMEM;
            break;
        }
        if (like) {
            memcpy(d->roi, like->roi, sizeof d->roi);
            d->mask = like->mask;
            d->mask_stride = like->mask_stride;
            d->threshold_fraction = like->threshold_fraction;
            d->min_circularity = like->min_circularity;
            d->min_area_px = like->min_area_px;
            d->max_area_px = like->max_area_px;
        }
        if (diameter_px > 0)
            track_detector_set_marker_size(d, diameter_px, d->max_streak_px);
        d->static_frames = 0; /* a still body's markers are still markers here */
        d->n_markers = n_expected > 0 ? n_expected : 0;
        d->look = order[li];
        d->motion_background = motion_bg;
        d->motion_background_stride = motion_bg_stride;
        look_score *s = &sc[li];
        s->tried = 1;
        s->n_min = MAXB;
        int prev_n = -1;
        for (int i = 0; i < n; i++) {
            int nb = 0;
            rc = track_detector_detect(d, &frames[i], NULL, 0, cur, MAXB, &nb, err);
            if (rc)
                break;
            if (d->stats.n_components > s->components)
                s->components = d->stats.n_components;
            s->rej_area += d->stats.n_rejected_area;
            s->rej_contrast += d->stats.n_rejected_contrast;
            s->rej_shape += d->stats.n_rejected_shape;
            s->rej_edge += d->stats.n_rejected_edge;
            s->rej_overflow += d->stats.n_overflow;
            s->min_area = d->min_area_px;
            s->max_area = d->max_area_px;
            s->brightest = fmax(s->brightest, d->stats.brightest);
            s->n_min = nb < s->n_min ? nb : s->n_min;
            s->n_max = nb > s->n_max ? nb : s->n_max;
            for (int k = 0; k < nb; k++)
                if (!s->has_best || cur[k].peak - cur[k].background > s->best.peak - s->best.background) {
                    s->best = cur[k];
                    s->has_best = 1;
                }
            int exact = n_expected > 0 ? nb == n_expected : nb > 0;
            s->n_exact += exact;
            if (exact && prev_n == nb) {
                int ok = 1;
                for (int k = 0; k < nb && ok; k++) {
                    double dmin = INFINITY;
                    for (int j = 0; j < prev_n; j++)
                        dmin = fmin(dmin, hypot(cur[k].u - prev[j].u, cur[k].v - prev[j].v));
                    ok = dmin <= near;
                }
                s->pairs++;
                s->steady += ok;
            }
            prev_n = exact ? nb : -1;
            track_blob *t = prev;
            prev = cur, cur = t;
        }
        track_detector_free(d);
        if (!rc && s->n_exact >= need && (s->pairs == 0 || s->steady * 5 >= s->pairs * 3) &&
            (chosen < 0 || s->n_exact > sc[chosen].n_exact ||
             (s->n_exact == sc[chosen].n_exact && s->steady > sc[chosen].steady)))
            chosen = li;
    }
    free(prev);
    free(cur);
    if (rc)
        return rc;
    int depth = frames[0].depth;
    if (chosen >= 0) {
        *look = order[chosen];
        char d0[200];
        describe_score(&sc[chosen], order[chosen], depth, d0, sizeof d0);
        snprintf(why, n_why, "track.markers auto: %s (%d of %d frames with the %d markers expected; %s)",
                 track_look_name(order[chosen]), sc[chosen].n_exact, n, n_expected, d0);
        return 0;
    }
    char a[400], b[400], c[400];
    describe_score(&sc[0], order[0], depth, a, sizeof a);
    describe_score(&sc[1], order[1], depth, b, sizeof b);
    describe_score(&sc[2], order[2], depth, c, sizeof c);
    return icv_err_set(err, ICV_ENOTFOUND,
                       "track.markers auto: no look finds the %d markers in %d of %d frames: %s; %s; %s; set "
                       "track.markers (bright, dark, motion or {color: [r, g, b], tolerance: t}), cameras[].roi or "
                       "cameras[].mask",
                       n_expected, need, n, a, b, c);
}
