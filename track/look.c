/* look.c: what the markers look like (track_look): the names and `auto`, which tries
 * each look on a few frames and keeps the first that finds the body's markers (the
 * motion look's still background: motion_background.c). */
#include <math.h>
#include <stdint.h>
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

/* What one look found over the frames. */
typedef struct {
    int tried;
    int n_exact;       /* frames with n_expected blobs kept */
    int n_some;        /* frames with at least one blob kept */
    int n_enough;      /* frames with n_expected blobs kept or more */
    int n_enough_moving; /* the same counting only blobs that differ from the still
                            background (all of them when there is none) */
    double likeness;   /* summed over the frames: the track_marker_likeness of the frame's
                          n_expected most marker-like blobs */
    double shape;      /* the same with no still background: shape and area alone */
    int n_min, n_max;  /* blobs kept per frame */
    int pairs, steady; /* consecutive exact frames; those whose blobs stayed near */
    track_blob best;   /* the blob standing out most (peak over its background) */
    int has_best;
    int tophat;        /* dark read as the black top-hat, or bright as the white one (a
                          marker size given): the blobs' levels are depths under, or
                          heights over, their surroundings */
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
    if (look == TRACK_LOOK_BRIGHT && s->tophat) {
        snprintf(buf, n, "bright top-hat kept %d-%d blobs a frame (brightest: %.0f levels over what surrounds it, %.0f "
                 "px at %.0f, %.0f)",
                 s->n_min, s->n_max, b->peak - b->background, b->area, b->u, b->v);
        return;
    }
    if (look == TRACK_LOOK_DARK && s->tophat) {
        snprintf(buf, n, "%s kept %d-%d blobs a frame (darkest: %.0f levels under what surrounds it, %.0f px at %.0f, "
                 "%.0f)",
                 track_look_name(look), s->n_min, s->n_max, b->peak - b->background, b->area, b->u, b->v);
        return;
    }
    double peak = look == TRACK_LOOK_DARK ? top - b->peak : b->peak;
    double bg = look == TRACK_LOOK_DARK ? top - b->background : b->background;
    const char *what = look == TRACK_LOOK_DARK ? "darkest" : look == TRACK_LOOK_MOTION ? "moving" : "brightest";
    snprintf(buf, n, "%s kept %d-%d blobs a frame (%s: %s %.0f over %.0f, %.0f px at %.0f, %.0f)",
             track_look_name(look), s->n_min, s->n_max, what, look == TRACK_LOOK_MOTION ? "difference" : "level",
             peak, bg, b->area, b->u, b->v);
}

/* px^2: a marker's expected image area, diameter_px wide: a disc, or for aspect > 1 a
 * band's stripe aspect times as long as it is wide (track_detector.marker_aspect) */
static double marker_area_px(double diameter_px, double aspect)
{
    return aspect > 1 ? aspect * diameter_px * diameter_px : M_PI * diameter_px * diameter_px / 4;
}

/* track_marker_likeness: detect_internal.h */
double track_marker_likeness(const track_detector *d, const track_blob *b, const track_frame *f, const void *motion_bg,
                             int motion_bg_stride, double diameter_px)
{
    double w = 1;
    if (motion_bg) {
        track_frame bg = {motion_bg, f->width, f->height, motion_bg_stride, f->depth};
        double diff = track_look_diff3(d, f, &bg, (int)lround(b->u), (int)lround(b->v));
        double level = f->depth == 16 ? 256 : 1; /* 8 levels of an 8-bit frame */
        if (diff <= fmax(8 * level, fabs(b->peak - b->background) / 3))
            return 0;
    }
    /* a band's stripe is aspect times as long as it is wide, and as much larger */
    double aspect = fmax(1, d->marker_aspect), elong = b->minor > 0 ? b->major / b->minor : 1e9;
    w *= fmin(1, 1.5 * aspect / elong);
    if (diameter_px > 0 && b->area > 0)
        w *= exp(-fabs(log(b->area / marker_area_px(diameter_px, aspect))));
    return w;
}

/* Mean level of a frame over every eighth row and fourth pixel (a flash lights them
 * all); an RGB frame's bytes as they come. */
static double frame_mean(const track_frame *f)
{
    double sum = 0;
    long cnt = 0;
    for (int y = 0; y < f->height; y += 8) {
        const uint8_t *row = (const uint8_t *)f->data + (size_t)y * (size_t)f->stride;
        for (int x = 0; x < f->width; x += 4, cnt++)
            sum += f->depth == 16 ? ((const uint16_t *)(const void *)row)[x] / 256.0 : row[x * (f->depth / 8)];
    }
    return cnt ? sum / cnt : 0;
}

/* ---- the trials' detections kept for the next call ------------------------ */

/* auto is called again on the same frames once the still background is learnt (the
 * undecided first call; the joint look after): bright's and dark's detections do not
 * read the background, so each camera's are kept in its detector (det_like) and
 * replayed where the frames (their pixels' hash) and the trial detector's settings are
 * the same: the same blobs, statistics and detector fields, the frames not scanned
 * again (docs/track.md, "Session 29"). */
enum { MEMO_F = 16, MEMO_B = 64 };
typedef struct {
    int valid;                    /* 1: complete, for the key below */
    track_detector conf;          /* the trial detector as set up (memo_conf) */
    double diameter_px;
    int n_expected, n;
    int width[MEMO_F], height[MEMO_F], depth[MEMO_F];
    uint64_t hash[MEMO_F];        /* the frames used, in order */
    int nb[MEMO_F];
    track_detector after[MEMO_F]; /* the detector after each frame's detection */
    track_blob blob[MEMO_F][MEMO_B];
} memo_look;
struct look_memo {
    memo_look look[4]; /* by the looks' order in choose_many; motion's unused */
    long replayed;     /* frames replayed, every look (track_look_memo_replayed) */
};

long track_look_memo_replayed(const track_detector *like)
{
    return like && like->ws->look_memo ? like->ws->look_memo->replayed : 0;
}

/* A frame's pixels (its rows, not the padding between them), hashed four words at a time */
static uint64_t frame_hash(const track_frame *f)
{
    size_t row = (size_t)f->width * (size_t)(f->depth / 8);
    uint64_t h[4] = {0x243f6a8885a308d3u, 0x13198a2e03707344u, 0xa4093822299f31d0u, 0x082efa98ec4e6c89u};
    const uint64_t m = 0x9e3779b97f4a7c15u;
    for (int y = 0; y < f->height; y++) {
        const unsigned char *p = (const unsigned char *)f->data + (size_t)y * (size_t)f->stride;
        size_t x = 0;
        for (; x + 32 <= row; x += 32)
            for (int k = 0; k < 4; k++) {
                uint64_t w;
                memcpy(&w, p + x + 8 * k, 8);
                h[k] = (h[k] ^ w) * m;
                h[k] ^= h[k] >> 29;
            }
        for (; x < row; x++)
            h[0] = (h[0] ^ p[x]) * m;
    }
    return h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7);
}

/* The trial detector's settings: itself without its workspace, background and outputs */
static void memo_conf(const track_detector *d, track_detector *conf)
{
    memcpy(conf, d, sizeof *conf);
    conf->ws = NULL;
    conf->motion_background = NULL;
    conf->motion_background_stride = 0;
    memset(&conf->stats, 0, sizeof conf->stats);
}

/* The memo of look li on like's camera for frames[use[0..n-1]] and the trial detector
 * d as set up: *replay 1 when it holds their detections; else emptied and keyed to
 * record them. NULL: none (no like, too many frames, out of memory). */
static memo_look *memo_for(const track_detector *like, int li, const track_detector *d, double diameter_px,
                           int n_expected, const track_frame *frames, const int *use, int n, const uint64_t *hash,
                           int *replay)
{
    *replay = 0;
    if (!like || n > MEMO_F || li < 0 || li >= 4)
        return NULL;
    if (!like->ws->look_memo) { /* a detector's workspace, written through the const settings */
        like->ws->look_memo = malloc(sizeof *like->ws->look_memo);
        if (!like->ws->look_memo)
            return NULL;
        for (int k = 0; k < 4; k++)
            like->ws->look_memo->look[k].valid = 0;
        like->ws->look_memo->replayed = 0;
    }
    memo_look *m = &like->ws->look_memo->look[li];
    track_detector conf;
    memo_conf(d, &conf);
    int same = m->valid && m->n == n && m->n_expected == n_expected && m->diameter_px == diameter_px &&
               memcmp(&m->conf, &conf, sizeof conf) == 0;
    for (int k = 0; k < n && same; k++) {
        const track_frame *f = &frames[use[k]];
        same = m->width[k] == f->width && m->height[k] == f->height && m->depth[k] == f->depth && m->hash[k] == hash[k];
    }
    if (same) {
        *replay = 1;
        like->ws->look_memo->replayed += n;
        return m;
    }
    m->valid = 0;
    m->conf = conf;
    m->diameter_px = diameter_px;
    m->n_expected = n_expected;
    m->n = n;
    for (int k = 0; k < n; k++) {
        const track_frame *f = &frames[use[k]];
        m->width[k] = f->width, m->height[k] = f->height, m->depth[k] = f->depth, m->hash[k] = hash[k];
    }
    return m;
}

/* A trial's detector, as track_detector_alloc returns it: like's camera's own, kept in
 * its workspace and renewed, so that the trials' scans (the top-hat's planes above all)
 * touch its buffers' pages once a camera, not once a trial (docs/track.md, "Session
 * 30"); else one of this trial's own (*own 1). */
static track_detector *trial_detector(const track_detector *like, int width, int height, int *own, icv_err *err)
{
    *own = !like || like->ws->width != width || like->ws->height != height;
    if (*own)
        return track_detector_alloc(width, height, err);
    if (like->ws->look_trial)
        track_detector_renew(like->ws->look_trial);
    else
        like->ws->look_trial = track_detector_alloc(width, height, err);
    return like->ws->look_trial;
}

/* The look for nc cameras filming the same markers (nc 1: track_look_choose): each
 * camera's frames scored with its own detector settings, the scores added. */
static int choose_many(const track_frame *const *frames_c, const int *n_c, const void *const *bg_c,
                       const int *bg_stride_c, int nc, int n_expected, const double *dpx_c,
                       const track_detector *const *like_c, track_look *look, int *bright_tophat, int *undecided,
                       char *why, size_t n_why, icv_err *err)
{
    if (undecided)
        *undecided = 0;
    if (bright_tophat)
        *bright_tophat = 0;
    enum { MAXF = 64, MAXC = 8 };
    if (nc < 1 || nc > MAXC)
        return icv_err_set(err, ICV_EINVAL, "track.markers auto: %d cameras (1 to %d)", nc, MAXC);
    for (int c = 0; c < nc; c++)
        if (!frames_c[c] || n_c[c] < 1)
            return icv_err_set(err, ICV_EINVAL, "track.markers auto: no frame to decide from");
    /* the fourth: bright read as the white top-hat (weighed below, only where plain
       bright does not keep the markers' number) */
    const track_look order[4] = {TRACK_LOOK_BRIGHT, TRACK_LOOK_DARK, TRACK_LOOK_MOTION, TRACK_LOOK_BRIGHT};
    look_score sc[4];
    memset(sc, 0, sizeof sc);
    /* frames lit by a flash (a short clip's sync flash: auto decides from its first
       frames) are left out: brighter than the frames' median by 12% + 2 levels (a flash
       seen half adds 20% or more; a flicker of 20% depth may drop a frame too, which
       costs nothing) */
    int use[MAXC][MAXF], n_use[MAXC], n_flash = 0, n = 0, all_bg = 1, any_bg = 0;
    for (int c = 0; c < nc; c++) {
        const track_frame *frames = frames_c[c];
        int n_all = n_c[c] < MAXF ? n_c[c] : MAXF;
        double mean[MAXF], sorted[MAXF];
        for (int i = 0; i < n_all; i++) {
            sorted[i] = mean[i] = frame_mean(&frames[i]);
            for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) { /* insertion sort: n is small */
                double t = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = t;
            }
        }
        n_use[c] = 0;
        for (int i = 0; i < n_all; i++) {
            if (n_all >= 3 && mean[i] > 1.12 * sorted[n_all / 2] + 2) {
                n_flash++;
                continue;
            }
            use[c][n_use[c]++] = i;
        }
        n += n_use[c];
        all_bg &= bg_c[c] != NULL;
        any_bg |= bg_c[c] != NULL;
    }
    int need = (n + 1) / 2;
    enum { MAXB = MEMO_B };
    uint64_t hash[MAXC][MAXF]; /* the frames used, for the memo (like_c given) */
    for (int c = 0; c < nc; c++)
        for (int ii = 0; ii < n_use[c] && like_c[c] && n_use[c] <= MEMO_F; ii++)
            hash[c][ii] = frame_hash(&frames_c[c][use[c][ii]]);
    track_blob *prev = malloc(sizeof *prev * MAXB), *cur = malloc(sizeof *cur * MAXB);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return icv_err_set(err, ICV_ENOMEM, "track.markers auto: out of memory");
    }
    /* every look is weighed, the best kept: bright blobs are there in most scenes (a
       white rod between dark bands, a lit poster), so the first look that passes is not
       the one that explains the markers best */
    int chosen = -1, rc = 0, n60 = (int)ceil(0.6 * n);
    /* the top-hat needs every camera's marker size, under the binning size (the octagon's
       radius is the diameter), and two markers or more (one blob is anything bright) */
    int th_size = 1;
    for (int c = 0; c < nc; c++)
        th_size &= dpx_c[c] > 0 && dpx_c[c] < TRACK_BIN_MIN_DIAMETER;
    for (int li = 0; li < 4 && !rc; li++) {
        if (order[li] == TRACK_LOOK_MOTION && !all_bg)
            continue;
        if (li == 3 &&
            (!bright_tophat || !th_size || n_expected < 2 || sc[0].n_exact >= n60 || sc[0].n_enough_moving >= need))
            continue;
        look_score *s = &sc[li];
        s->tried = 1;
        s->n_min = MAXB;
        for (int c = 0; c < nc && !rc; c++) {
            const track_frame *frames = frames_c[c];
            const void *motion_bg = bg_c[c];
            int motion_bg_stride = bg_stride_c[c];
            double diameter_px = dpx_c[c];
            const track_detector *like = like_c[c];
            /* px: how far a marker may move between two of the frames and still be "the same" */
            double near = fmax(40, 4 * diameter_px);
            int own = 0;
            track_detector *d = trial_detector(like, frames[0].width, frames[0].height, &own, err);
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
                d->slender_min_area_px = like->slender_min_area_px;
                d->slender_extent_px = like->slender_extent_px;
                d->markers_round = like->markers_round;
                d->max_area_px = like->max_area_px;
                d->marker_aspect = like->marker_aspect;
                d->marker_fill = like->marker_fill;
            }
            if (diameter_px > 0)
                track_detector_set_marker_size(d, diameter_px, d->max_streak_px);
            d->static_frames = 0; /* a still body's markers are still markers here */
            d->n_markers = n_expected > 0 ? n_expected : 0;
            d->look = order[li];
            d->bright_tophat = li == 3;
            s->tophat = (order[li] == TRACK_LOOK_DARK && d->ws->tophat_r > 0) || (li == 3 && d->ws->white_tophat_r > 0);
            d->motion_background = motion_bg;
            d->motion_background_stride = motion_bg_stride;
            int replay = 0;
            memo_look *memo = order[li] == TRACK_LOOK_MOTION ? NULL
                                                             : memo_for(like, li, d, diameter_px, n_expected, frames,
                                                                        use[c], n_use[c], hash[c], &replay);
            int prev_n = -1;
            for (int ii = 0; ii < n_use[c]; ii++) {
                int i = use[c][ii], nb = 0;
                if (replay) { /* as detected before: the blobs and the detector's fields */
                    struct track_detector_ws *ws = d->ws;
                    memcpy(d, &memo->after[ii], sizeof *d);
                    d->ws = ws;
                    d->motion_background = motion_bg;
                    d->motion_background_stride = motion_bg_stride;
                    nb = memo->nb[ii];
                    memcpy(cur, memo->blob[ii], sizeof *cur * (size_t)nb);
                } else {
                    rc = track_detector_detect(d, &frames[i], NULL, 0, cur, MAXB, &nb, err);
                    if (rc)
                        break;
                    if (memo) {
                        memcpy(&memo->after[ii], d, sizeof *d);
                        memo->nb[ii] = nb;
                        memcpy(memo->blob[ii], cur, sizeof *cur * (size_t)nb);
                    }
                }
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
                s->n_some += nb > 0;
                s->n_enough += nb >= n_expected;
                /* the n_expected most marker-like blobs' likeness (all of them, n unknown):
                   insertion into a short sorted list */
                for (int pass = 0; pass < 2; pass++) {
                    const void *bg = pass == 0 ? motion_bg : NULL;
                    if (pass == 1 && !bg && !motion_bg) {
                        s->shape = s->likeness;
                        break;
                    }
                    double top[MAXB], sum = 0;
                    int nt = 0, keep = n_expected > 0 && n_expected < MAXB ? n_expected : MAXB;
                    int n_moving = 0;
                    for (int k = 0; k < nb; k++) {
                        double w = order[li] == TRACK_LOOK_MOTION
                                       ? 0
                                       : track_marker_likeness(d, &cur[k], &frames[i], bg, motion_bg_stride,
                                                               diameter_px);
                        n_moving += w > 0;
                        int j = nt < keep ? nt++ : keep;
                        for (; j > 0 && top[j - 1] < w; j--)
                            if (j < keep)
                                top[j] = top[j - 1];
                        if (j < keep)
                            top[j] = w;
                    }
                    for (int k = 0; k < nt; k++)
                        sum += top[k];
                    if (pass == 0)
                        s->n_enough_moving += (motion_bg ? n_moving : nb) >= n_expected;
                    *(pass == 0 ? &s->likeness : &s->shape) += sum;
                }
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
            if (memo && !rc)
                memo->valid = 1;
            if (own)
                track_detector_free(d);
        }
    }
    /* Bright or dark may be chosen when it keeps blobs in half the frames or more and,
       where it keeps the markers' number in consecutive frames, they stay near in most
       pairs. Both may: a light rod's dark bands leave its light pieces between them as
       bright blobs, a dark rod's light bands its dark pieces, and a board, glints or a
       plate's texture either. Then bright when it alone keeps the markers' number in 60%
       of the frames (today's rods; no still background needed), else dark when its blobs
       look like markers (moving, round, of a marker's size: track_marker_likeness) by half
       again as much as bright's, bright being the common case (the scene study's
       tuning seeds: the look that sees the markers in 223 of 249 cameras, against 209 keeping
       bright whenever it kept blobs); but dark when it keeps the markers' number (two or
       more: one blob is anything dark) in half the frames, bright in none, and its blobs
       look as much like markers (a light rod's dark bands and the four light pieces
       between them: random scene 5003 took the pieces for markers). Motion, whose
       centroids the body's own edges and the background's errors pull, only when neither
       fits and it keeps the markers' number in 60% of the frames. */
    int fits[4];
    for (int li = 0; li < 4; li++) {
        const look_score *s = &sc[li];
        int steady = s->pairs == 0 || s->steady * 5 >= s->pairs * 3;
        fits[li] = !rc && s->tried && steady &&
                   (order[li] == TRACK_LOOK_MOTION ? s->n_exact >= n60 : s->n_some >= need);
    }
    /* Bright read as the white top-hat stands in for plain bright when plain bright does
       not keep the markers' number in 60% of the frames and keeps fewer blobs than
       markers in more than half, the top-hat keeps as many as markers or more in half the
       frames or more, and its blobs look like markers by half again as much: a bright
       band spanning a dark rod over a light plate touches the plate on both sides, and
       plain bright reads band and plate as one region, keeping fewer blobs than markers.
       "As many or more": the top-hat also keeps what is thin and light over a dark
       backdrop (a reference post's top), which does not move. Plain bright keeping
       enough blobs is left to the rules below (random scene 1158: dark stickers, plain
       bright's blobs many, the top-hat's more, dark's the markers). With a still
       background plain bright's count takes only blobs that moved: still glints kept as
       many blobs as markers and ruled the top-hat out (1063: light bands on a dark rod,
       auto took the rod's dark pieces). Standing in for bright, the top-hat wins by the
       markers' count alone, so its blobs must look like markers at least as much as
       dark's (1158 again: the top-hat kept the markers' number in 4 of 6 frames, likeness
       7.1 against dark's 20.2). Then the rules below weigh the top-hat as bright. */
    look_score plain = sc[0];
    int use_th = fits[3] && sc[0].n_enough_moving < need && sc[3].n_enough >= need &&
                 sc[3].likeness > 1.5 * sc[0].likeness && sc[3].likeness >= sc[1].likeness;
    if (use_th) {
        sc[0] = sc[3];
        fits[0] = 1;
    }
    int bright_exact = sc[0].n_exact >= n60 && sc[1].n_exact < n60;
    int dark_exact = !bright_exact && n_expected >= 2 && sc[1].n_exact >= need && sc[0].n_exact == 0 &&
                     sc[1].likeness >= sc[0].likeness;
    int both = fits[0] && fits[1] && !bright_exact && !dark_exact;
    if (!rc && !any_bg && undecided &&
        (both || (!fits[0] && !fits[1]) || (n_expected > 0 && sc[fits[0] ? 0 : 1].n_min > 8 * n_expected))) {
        /* both, neither or a crowded one: the blobs' motion (or the motion look) decides */
        *undecided = 1;
        free(prev);
        free(cur);
        return 0;
    }
    /* no blob of either look moved (a slow ball whose path over the clip is shorter than
       its diameter is part of the still background: random scene 1152, a dark ball 55 px
       across moving 40 px in 85 frames): their shapes and areas alone decide */
    int still = both && sc[0].likeness == 0 && sc[1].likeness == 0 && any_bg;
    if (both)
        chosen = still ? (sc[1].shape > 1.5 * sc[0].shape ? 1 : 0) : sc[1].likeness > 1.5 * sc[0].likeness ? 1 : 0;
    else if (dark_exact && fits[1])
        chosen = 1;
    else
        chosen = fits[0] ? 0 : fits[1] ? 1 : fits[2] ? 2 : -1;
    /* bright or dark keeping more than 8 blobs a marker in every frame (still glints, a
       textured backdrop), which the pipeline refuses when the whole clip is so (its
       blob_excess, 8): the other of the two when it fits, is not crowded and its blobs
       look more like markers (still glints do not move), else motion when it keeps the markers' number in every frame */
    int crowded = chosen >= 0 && chosen < 2 && n_expected > 0 && sc[chosen].n_min > 8 * n_expected;
    if (crowded && fits[1 - chosen] && sc[1 - chosen].n_min <= 8 * n_expected &&
        sc[1 - chosen].likeness > sc[chosen].likeness)
        chosen = 1 - chosen;
    else if (crowded && fits[2] && sc[2].n_exact == n)
        chosen = 2;
    else
        crowded = 0;
    free(prev);
    free(cur);
    if (rc)
        return rc;
    int depth = frames_c[0][0].depth;
    char flash[48] = "";
    if (n_flash)
        snprintf(flash, sizeof flash, ", %d flash frame%s left out", n_flash, n_flash > 1 ? "s" : "");
    if (chosen >= 0) {
        *look = order[chosen];
        if (bright_tophat)
            *bright_tophat = chosen == 0 && use_th;
        char d0[200];
        describe_score(&sc[chosen], order[chosen], depth, d0, sizeof d0);
        /* why, and how far each look fell: a person sees how close the choice was */
        char others[240] = "";
        size_t k = 0;
        if (use_th)
            k += (size_t)snprintf(others, sizeof others, "plain bright %d-%d a frame (likeness %.1f)", plain.n_min,
                                  plain.n_max, plain.likeness);
        for (int li = 0; li < 3 && k < sizeof others; li++) {
            if (li == chosen || !sc[li].tried)
                continue;
            k += (size_t)snprintf(others + k, sizeof others - k, "%s%s%s %d-%d a frame", k ? ", " : "",
                                  track_look_name(order[li]), li == 0 && use_th ? " top-hat" : "", sc[li].n_min,
                                  sc[li].n_max);
            if (order[li] != TRACK_LOOK_MOTION && k < sizeof others)
                k += (size_t)snprintf(others + k, sizeof others - k, " (likeness %.1f)", sc[li].likeness);
        }
        const char *reason = crowded       ? "the look that fitted first keeps over 8 blobs a marker in every frame"
                             : chosen == 2 ? "neither bright nor dark keeps blobs in half the frames"
                             : still ? (chosen ? "no blob moved; dark's are shaped like markers by half again as much as bright's"
                                               : "no blob moved; bright unless dark's are shaped like markers by half again as much")
                             : both      ? (chosen ? "its blobs look like markers by half again as much as bright's"
                                                   : "bright unless dark's blobs look like markers by half again as much")
                             : fits[0] && fits[1] && chosen == 1
                                 ? "dark keeps the markers' number in half the frames, bright in none"
                             : fits[0] && fits[1] ? "bright alone keeps the markers' number in 60% of the frames"
                                                  : "the only look of bright and dark keeping blobs in half the frames";
        char th[200] = "";
        if (chosen == 0 && use_th)
            snprintf(th, sizeof th,
                     "plain bright keeps the markers' number in %d of %d frames, the top-hat in %d, as many or more "
                     "in %d and %d; ",
                     plain.n_exact, n, sc[0].n_exact, plain.n_enough, sc[0].n_enough);
        snprintf(why, n_why,
                 "track.markers auto: %s%s (%s%s; blobs in %d of %d frames, the %d markers expected in %d, likeness "
                 "%.1f; %s; %s%s)",
                 track_look_name(order[chosen]), th[0] ? " read as the white top-hat" : "", th, reason,
                 sc[chosen].n_some, n, n_expected, sc[chosen].n_exact, sc[chosen].likeness, d0, others, flash);
        return 0;
    }
    char a[400], b[400], c[400];
    describe_score(&plain, order[0], depth, a, sizeof a);
    describe_score(&sc[1], order[1], depth, b, sizeof b);
    describe_score(&sc[2], order[2], depth, c, sizeof c);
    return icv_err_set(err, ICV_ENOTFOUND,
                       "track.markers auto: no look finds the %d markers (blobs in %d of %d frames needed%s): %s; %s; %s; set "
                       "track.markers (bright, dark, motion or {color: [r, g, b], tolerance: t}), cameras[].roi or "
                       "cameras[].mask",
                       n_expected, need, n, flash, a, b, c);
}

int track_look_choose(const track_frame *frames, int n, const void *motion_bg, int motion_bg_stride, int n_expected,
                      double diameter_px, const track_detector *like, track_look *look, int *bright_tophat,
                      int *undecided, char *why, size_t n_why, icv_err *err)
{
    if (!frames || n < 1)
        return icv_err_set(err, ICV_EINVAL, "track.markers auto: no frame to decide from");
    return choose_many(&frames, &n, &motion_bg, &motion_bg_stride, 1, n_expected, &diameter_px, &like, look,
                       bright_tophat, undecided, why, n_why, err);
}

int track_look_choose_joint(const track_frame *const *frames, const int *n, const void *const *motion_bg,
                            const int *motion_bg_stride, int n_cameras, int n_expected, const double *diameter_px,
                            const track_detector *const *det_like, track_look *look, int *bright_tophat, char *why,
                            size_t n_why, icv_err *err)
{
    return choose_many(frames, n, motion_bg, motion_bg_stride, n_cameras, n_expected, diameter_px, det_like, look,
                       bright_tophat, NULL, why, n_why, err);
}
