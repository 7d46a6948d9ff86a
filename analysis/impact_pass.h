/* impact_pass.h: what the steps of analysis_impacts_measure share: the state kept over
 * its passes (impact_find.c), the measuring of one candidate (impact_candidate.c) and
 * what the final pass measured and left out, said (impact_outcome.c). */
#ifndef ICV_IMPACT_PASS_H
#define ICV_IMPACT_PASS_H

#include <stddef.h>

#include "analysis/analysis_internal.h"

/* The surface is one plane for the whole clip, so its error is common to every
 * impact: an impact whose flights meet with the contact point further from the
 * surface than the clip's best-placed impact by more than OFF_SURFACE_M plus 5 of
 * their combined sigmas touched nothing there (a jump of the tracks centimetres
 * above the surface, taken as a kink; a surface drawn centimetres off moves every
 * impact alike and drops none). The margin is above the tracks' slow height errors
 * (a few millimetres, docs/analysis.md). */
#define OFF_SURFACE_M 0.02

/* One measurement of one body's impacts. A pass measures every candidate; a frame
 * beside an impact found an outlier, a candidate found off the surface or a weak jump
 * found consistent starts the next pass, which measures every impact again. */
typedef struct {
    /* given */
    const analysis_tracks *tr;
    const analysis_body *b;
    const icv_vec3 *gravity; /* NULL: gravity from the free flights */
    analysis_params prm;
    analysis_result *res;
    /* the posed frames pf[0..n-1] (held ends and outliers left out), which of them
       touch the surface, and which rows of the tracks were posed at all */
    posed_frame *pf;
    int n;
    unsigned char *contact, *posed_row;
    analysis_flight_noise noise;
    double sigma;     /* m, a marker's */
    double com_sigma; /* m, the centre of mass's (the mean of several markers) */
    double period;    /* s, one frame */
    double excl;      /* s, left out on each side of an impact (half an exposure) */
    /* cut[i]: a flight begins at pf[i], the first posed frame after frames without a
       pose that probably hold an impact (analysis_unposed_impacts): no flight, side
       or gravity phase spans them. Kept over every pass as rows (cut_row). */
    unsigned char *cut;
    int cut_row[ANALYSIS_MAX_IMPACTS], n_cut;
    /* gravity: auto's phases: the frames it left out at the clip's ends as off the
       flight (a throw, a release, a catch) are no flight's either; none with g given */
    analysis_gravity_info g_trim;
    /* the rest trimmed off the clip's end, a contact */
    int have_rest_end;
    analysis_contact rest_end;

    /* kept over every pass: candidates found off the surface (off_surface_impact),
       kept out of every pass after, and what was said of the first; candidates of a
       weak jump accepted when no impact lies at them */
    int off_row[ANALYSIS_MAX_IMPACTS], n_off;
    char off_msg[ICV_ERR_MSG_MAX];
    int ok_row[ANALYSIS_MAX_IMPACTS], n_ok;

    /* the pass's contact candidates (posed-frame indices) */
    int cand[ANALYSIS_MAX_IMPACTS * 2], nc;
    double t_prev; /* s: the last impact measured plus excl, the next pre-impact window's start */
    /* candidates whose side would not fit (a rotation fit that does not converge on a
       stretch of bad poses): the first one's reason, and how many */
    char unfit_msg[ICV_ERR_MSG_MAX];
    int n_unfit;
    /* candidates whose flights meet inside a side's frames (flights_meet_between):
       the first one's reason, and how many */
    char apart_msg[ICV_ERR_MSG_MAX];
    int n_apart;
    /* candidates of a weak jump (weak_jump_consistent) found in this pass */
    int weak_row[ANALYSIS_MAX_IMPACTS], n_weak;
    double weak_t[ANALYSIS_MAX_IMPACTS], weak_sd[ANALYSIS_MAX_IMPACTS];
    /* per impact measured: its row, and its contact point's gap sigma where the
       flights meet */
    int imp_row[ANALYSIS_MAX_IMPACTS];
    double imp_gap_sd[ANALYSIS_MAX_IMPACTS];
    /* candidates with too few frames on a side (the last said), and landings the body
       stays on the surface after */
    int have_short;
    char short_msg[ICV_ERR_MSG_MAX];
    /* the candidates of the pass with too few frames on a side whose short side
       leaves the other's flight (a bounce seen, not measurable): said, at t (s);
       short_kinks: the last candidate's test */
    int n_short, short_kinks;
    char short_all[ANALYSIS_MAX_IMPACTS][ICV_ERR_MSG_MAX];
    double short_t[ANALYSIS_MAX_IMPACTS];
    int n_landed, landed_frame[ANALYSIS_MAX_IMPACTS];
    double landed_t[ANALYSIS_MAX_IMPACTS];
    char landed_msg[ICV_ERR_MSG_MAX];
} impact_pass;

/* Measures candidate ps->cand[c] in this pass: an impact with a real velocity jump is
 * added to ps->res; one that is not is counted in ps (unfit, apart, weak, short,
 * landed). *restart: 1 when a frame beside it turned out an outlier and was left out
 * of ps->pf (every impact is to be measured again). 0 or an error code (err).
 * impact_candidate.c. */
int analysis_impact_candidate(impact_pass *ps, int c, int *restart, icv_err *err);

/* After the final pass: says what was measured and left out, fits the flights
 * (analysis_flights_fit) and fails, saying why, when no impact was measured and no
 * flight stands for the result. 0 or an error code (err). impact_outcome.c. */
int analysis_impacts_outcome(impact_pass *ps, icv_err *err);

/* 1 when posed frame pf[i] (neither end) is at the surface as far as its gap tells:
 * within 5 sigma (m, a marker's) plus the larger gap change to a neighbour frame and
 * g dt^2 (a fast body is seen a frame's travel away). A candidate found by the
 * kink of its centre's height alone may lie anywhere. impact_find.c. */
int analysis_gap_at_surface(const posed_frame *pf, int n, double sigma, int i);

/* Keeps the frame numbers of frames left out as outliers (rows of tr) and says so.
 * impact_find.c. */
void analysis_note_outlier_frames(const analysis_tracks *tr, analysis_result *res, const int *rows, int k,
                                  const char *why);

/* Appends to buf (cap bytes, len used): the new length, at most cap - 1 (a message cut
 * short, never written past its buffer). impact_candidate.c. */
size_t analysis_appendf(char *buf, size_t cap, size_t len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* One side of an impact that has too few posed frames (npost, pf[first..last]),
 * appended to buf: "only 2 posed frames after it (frames 41-42; markers 1, 2 missing
 * in 7 frames 43-49: marker 1 in 7, 2 in 3)". The side's frames are those with t in
 * (t_lo, t_hi), after t_star when post, else before it. impact_candidate.c. */
size_t analysis_side_describe(const analysis_tracks *tr, const posed_frame *pf, int n, int npost, int first, int last,
                              double t_star, double t_lo, double t_hi, int post, char *buf, size_t cap, size_t len);

#endif
