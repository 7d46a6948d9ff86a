/* analysis_internal.h: what the files of analysis/ share and nobody else sees. */
#ifndef ICV_ANALYSIS_INTERNAL_H
#define ICV_ANALYSIS_INTERNAL_H

#include "analysis/analysis.h"

/* a frame with a pose */
typedef struct {
    int row;            /* row in the tracks */
    double t;           /* s */
    analysis_pose pose;
    double gap;         /* m, lowest point of the shape above the surface */
} posed_frame;

/* one side's flight fitted over a window of posed frames, states at t_ref */
typedef struct {
    int first, last;    /* posed-frame indices of the window */
    double t_ref;       /* s */
    double t_first, t_last; /* s, the window's first and last frame */
    icv_vec3 p, p_sd, v, v_sd;
    double chi2_dof;
    /* m^2/s^2 per axis: the markers' slow drift over the window, in v and no
       residual (marker_drift.c); it moves p at t by v's error times t - t_mid */
    icv_vec3 drift_v_var;
    double t_mid;       /* s, the window's mean frame time */
    /* the rotation, fitted over frames rot_first..rot_last with states at t_rot
     * (fitted once and refitted only when the window changes: it is the costly
     * part, and the impact instant's iterations need only the ballistic fit) */
    int rot_valid, rot_first, rot_last;
    double t_rot;
    icv_mat3 R;
    icv_vec3 omega, omega_sd;
    double cov_rot[6][6];   /* covariance of (attitude perturbation, omega) at t_rot */
    int spin_observable;
    int fixed;              /* 1: states at t_ref as they are, not carried to the
                               impact instant (Houbolt, as the seeds report them) */
    /* s^2, s: the fitted p and v at t_ref move by these times an error (m/s^2) in the
       acceleration the fit was given (the window's least-squares lever, given g) */
    double g_lever_p, g_lever_v;
} side_fit;

/* The factor (1 + rho) / (1 - rho) by which the variance of a fitted state grows
 * when its residuals r[0..n-1] (3 series, one per axis, in time order) have the
 * lag-1 correlation rho (an AR(1) series: fewer independent samples than frames;
 * the same correction as the track stage's sync sigma). rho is pooled over the
 * axes and clipped to [0, 0.9]: 1 for white noise. */
double analysis_correlation_inflation(const icv_vec3 *r, int n);

/* What analysis_gravity_from_flight used: the posed frames the kept phases span
 * (first of the first phase, last of the last, after the trimming), and those phases'
 * ends before it: [first_untrimmed, first) and (last, last_untrimmed] were left out as
 * off the flight (a throw, a release or a catch at the clip's ends). */
typedef struct {
    int first, last;
    int first_untrimmed, last_untrimmed;
} analysis_gravity_info;

/* gravity: auto. g (m/s^2, surface frame), its covariance g_cov (m^2/s^4) and
 * 1-sigma per axis g_sd (its diagonal's roots) from the free-flight frames of
 * pf[0..n-1], those not within one frame of a contact candidate cand[0..nc-1]
 * (phases of 4 frames or more), fitted jointly (analysis_ballistic_fit, centre sigma
 * `sigma`, m), a first or last frame off the fit left out while it is; g_cov from
 * g's weights under the noise each phase's residuals show (flight_noise.c).
 * info may be NULL. Fails (ICV_EINVAL) without a phase of 4 frames. impact_find.c. */
int analysis_gravity_from_flight(const posed_frame *pf, int n, const int *cand, int nc, double sigma, icv_vec3 *g,
                                 icv_vec3 *g_sd, double g_cov[3][3], analysis_gravity_info *info, icv_err *err);

/* Every frame of the tracks that has enough markers for a pose (weights from
 * prm->pos_sigma), with its gap; *n: how many (pf holds tr->n_frames). impact_find.c. */
int analysis_pose_frames(const analysis_tracks *tr, const analysis_body *b, const analysis_params *prm,
                         posed_frame *pf, int *n);

/* A body held before release, or at rest after the last landing: runs of 3 or more
 * posed frames at the start or the end of pf[0..n-1] whose centre moves less than
 * 4 sigma per frame (com_sigma, m, the centre's 1-sigma). *lo: the first frame of the
 * motion (the last still one: the release comes after it), 0 without a hold; *hi
 * likewise at the end (n - 1 without a rest). impact_find.c. */
void analysis_still_ends(const posed_frame *pf, int n, double com_sigma, int *lo, int *hi);

/* 1 when the run pf[a..b] (8 frames or more) the still rule calls still moves at
 * its own noise: a quadratic path per axis explains its centre far better than a
 * rest (F test, p < 1e-6) and travels more than the still limit at the noise left
 * about it. still_run.c. */
int analysis_run_moves(const posed_frame *pf, int a, int b);

/* Leaves out of pf[0..*n-1] (compacted in place, *n updated) every frame off the
 * body's motion: its centre or attitude off the predictions from the two frames
 * before it and from the two after it the same way, or off one with the next
 * frame on the other side back on it, by more than 6 robust sigmas of those
 * predictions (com_sigma, m, the nominal centre sigma, floors them). Frames
 * between two frames within contact_gap (m) of the surface are not judged. rows:
 * the dropped frames' rows in the tracks (the first max_rows). Returns how many
 * were dropped, -1 out of memory. outlier_frames.c. */
int analysis_outlier_frames(posed_frame *pf, int *n, const analysis_body *b, double com_sigma, double contact_gap,
                            int *rows, int max_rows);

/* 1 when the frame of window first..last next to the impact (last before it, or
 * with post the first after) is off the rest of the window's flight (centre, g
 * given) or attitude by more than 6 robust sigmas. outlier_frames.c. */
int analysis_near_end_outlier(const posed_frame *pf, int first, int last, int post, const icv_vec3 *g,
                              const analysis_body *b, double com_sigma);

/* The lag-1 correlation of residuals r[0..n-1] (3 series, one per axis, in time
 * order), pooled over the axes and clipped to [0, 0.9]. */
double analysis_lag1_correlation(const icv_vec3 *r, int n);

/* One principal direction of the track noise: unit direction d (surface frame),
 * variance var per frame (m^2), lag-1 correlation rho from frame to frame (an
 * AR(1) series). */
typedef struct {
    icv_vec3 d;
    double var, rho;
} analysis_noise_mode;

/* The principal directions of the residuals r[0..n-1] of a fit with dof degrees
 * of freedom per axis (GSL gsl_eigen_symmv on their scatter / dof), each with its
 * variance and the lag-1 correlation of the residuals along it, as they are (not
 * corrected for what the fit takes up: flight_noise.c does that). 0 when dof <
 * min_dof (too noisy a scatter) or out of memory. */
int analysis_residual_modes(const icv_vec3 *r, int n, int dof, int min_dof, analysis_noise_mode mode[3]);

/* The track noise that gravity's and the sides' fits share (flight_noise.c): h_g
 * (n posed frames) the estimated g's weights, g_hat = sum_i h_g[i] p_i per axis
 * (all zero when g is given); seg[i] each frame's flight phase, whose centres'
 * errors have the modes mode[seg] (independent between phases). */
typedef struct {
    int n;
    double *h_g;
    int *seg;
    int n_seg;
    analysis_noise_mode mode[ANALYSIS_MAX_PHASES][3];
    int n_modes[ANALYSIS_MAX_PHASES];
    /* each phase's residuals and times, kept (n entries: the phases' frames in the
       order added) for the phases too short for modes of their own, which take
       their pooled scatter (analysis_flight_noise_close) */
    icv_vec3 *r_keep;
    double *t_keep;
    int n_keep, keep_off[ANALYSIS_MAX_PHASES], keep_m[ANALYSIS_MAX_PHASES], keep_par[ANALYSIS_MAX_PHASES];
    int own_modes[ANALYSIS_MAX_PHASES]; /* 1: the phase's modes from its own residuals */
    /* m/s^2: how far the phases' own accelerations along g scatter beyond their noise
       (a random effect, DerSimonian-Laird's tau; 0 when they agree, g given or one
       phase): each flight's own acceleration differs from the shared g by about this
       much, and a side extrapolated to its impact with the shared g errs by it */
    double g_spread;
    /* the sides' whole flights (posed frames; lo > hi: none) and the g they were
       fitted with, when analysis_flight_noise_from_sides made the noise */
    int flight_lo[2], flight_hi[2];
    icv_vec3 flight_g;
} analysis_flight_noise;

/* h_g zero, no phases; -1 out of memory */
int analysis_flight_noise_alloc(analysis_flight_noise *nz, int n);
/* no phases (h_g kept) */
void analysis_flight_noise_reset(analysis_flight_noise *nz);
void analysis_flight_noise_free(analysis_flight_noise *nz);

/* A phase: posed frames frames[0..m-1] at times t (s) with their fit's residuals r
 * (a polynomial in t of n_par <= 3 coefficients per axis): its modes, the
 * scatter's principal directions, each an AR(1) series whose variance and lag-1
 * correlation make the fit's expected residual sums (lags 0 and 1) the observed
 * ones. With fewer than 10 degrees of freedom per axis, the phase's modes are set
 * by analysis_flight_noise_close from the pooled residuals of all such phases
 * (of every phase when they have fewer than 4 together); com_sigma isotropic
 * with the residuals' lag-1 correlation only when even those are fewer. */
void analysis_flight_noise_add(analysis_flight_noise *nz, const int *frames, const double *t, const icv_vec3 *r, int m,
                               int n_par, double com_sigma);

/* The short phases' modes from their pooled residuals (above); then every frame
 * in no phase joins the nearest one. */
void analysis_flight_noise_close(analysis_flight_noise *nz);

/* g given: the phases are the whole flights on each side of an impact, posed
 * frames lo[k]..hi[k] (k = 0 before, 1 after; each holding that side's fit
 * window), their residuals each flight's own straight line given g. The whole
 * flight, not the side's window: a window of 10-40 frames takes up in its line
 * most of a slow track error, which then neither shows in its residuals nor
 * leaves the side's v (docs/analysis.md, session 17). -1 out of memory. */
int analysis_flight_noise_from_sides(const posed_frame *pf, const int lo[2], const int hi[2], const icv_vec3 *g,
                                     double com_sigma, analysis_flight_noise *nz);

/* analysis_gravity_from_flight, also filling noise (allocated for n frames by
 * analysis_flight_noise_alloc; may be NULL): g's weights (every other frame's
 * zero) and the noise of its phases, from which g_cov is computed. contact (n
 * flags, or NULL): frames in contact with the surface, left out (a phase is split
 * there). */
int analysis_gravity_from_flight_noise(const posed_frame *pf, int n, const unsigned char *contact, const int *cand,
                                       int nc, double sigma,
                                       icv_vec3 *g, icv_vec3 *g_sd, double g_cov[3][3], analysis_gravity_info *info,
                                       analysis_flight_noise *noise, icv_err *err);

/* analysis_gravity_from_flight_noise, its phases also split before every frame i
 * with cut[i] (n flags, or NULL): a flight begins there (after frames without a
 * pose that probably hold an impact). */
int analysis_gravity_from_flight_cut(const posed_frame *pf, int n, const unsigned char *contact,
                                     const unsigned char *cut, const int *cand, int nc, double sigma, icv_vec3 *g,
                                     icv_vec3 *g_sd, double g_cov[3][3], analysis_gravity_info *info,
                                     analysis_flight_noise *noise, icv_err *err);

/* g's covariance (m/s^2)^2 under nz (zero when g is given). -1 out of memory. */
int analysis_flight_noise_g_cov(const analysis_flight_noise *nz, double g_cov[3][3]);

/* The variance per surface axis (m^2/s^2) of a side's v that the markers' slow
 * drift over its window pf[first..last] adds and no residual of the centre shows:
 * the mean over the markers of their pose-fit residuals' slope squared beyond its
 * noise (marker_drift.c). 0 with fewer than 5 frames or one marker; of a longer
 * window, the last ANALYSIS_DRIFT_MAX_FRAMES frames. */
#define ANALYSIS_DRIFT_MAX_FRAMES 256
void analysis_marker_drift_var(const posed_frame *pf, int first, int last, double var[3]);

/* The covariance of (g, pre p, pre v, post p, post v) (3 each, surface frame; m/s^2,
 * m, m/s; the sides' states at their t_ref, each given the estimated g) under the
 * noise model nz: the OLS sandwich, exact for that model. -1 out of memory. */
int analysis_flight_covariance(const posed_frame *pf, const analysis_flight_noise *nz, const side_fit *pre,
                               const side_fit *post, double cov[15][15]);

/* Lower-triangular L (n x n, row-major, n <= 15) with L L^T = cov, tolerant of a
 * rank deficit (a collinear rod's unobservable spin: a diagonal load of 1e-12 of
 * the largest variance keeps Cholesky defined without changing any value
 * measurably); the diagonal's roots if it still fails. GSL's Cholesky. */
void analysis_cholesky(const double *cov, int n, double *L);

/* The median of x[0..n-1], n >= 1 (the upper one for even n); sorts x. */
double analysis_median(double *x, int n);

/* The lowest point's height above the surface for a pose (m). */
double analysis_gap_at(const analysis_body *b, icv_mat3 R, icv_vec3 p);

/* Fits the centre of mass (given g) over frames first..last, states at t_ref,
 * shortening the window from its far end while the fit is inconsistent with the
 * noise (reduced chi^2 beyond 3 of its sigmas); then fits the rotation over the
 * final window unless *out already holds a rotation fitted over that window. */
#define ANALYSIS_SIDE_MAX_FRAMES 256

/* The part of two estimates' distance d that neither sigma explains,
 * sqrt(d^2 - sd_a^2 - sd_b^2), 0 when they explain it: an error of one of them that
 * no residual shows (impact_instant.c). */
double analysis_unexplained_sd(double d, double sd_a, double sd_b);
/* bead_bound.c (docs/analysis.md, "Session 31: two-body sigmas"): a rate's bound for
 * markers half hidden behind their body's limb, per axis, from the frames t[0..n-1]
 * (n <= ANALYSIS_SIDE_MAX_FRAMES) whose pose misfit (rms, m, over nu markers) stands
 * out of the window's (analysis_bead_find_misfits); shift[i], read at those frames only:
 * the frame's move when its worst marker is left out (NaN: the misfit's excess instead,
 * times lever); fit_a: the fit has tau^2 / 2 too. */
typedef struct {
    double w2;                                    /* the markers' white noise per axis (m^2); NaN: too few frames */
    int n_flagged;                                /* frames misfitting beyond it */
    unsigned char flag[ANALYSIS_SIDE_MAX_FRAMES]; /* 1: frame i misfits */
} analysis_bead_misfits;
void analysis_bead_find_misfits(const double *rms, const int *nu, int n, analysis_bead_misfits *m);
icv_vec3 analysis_bead_step_sd(const analysis_bead_misfits *m, const double *t, const double *rms, const int *nu,
                               const icv_vec3 *shift, int n, double t_ref, int fit_a, double lever);
/* The centre's move (m) and the attitude's turn (*turn, rad) when tracks row's pose is
 * refitted without its worst marker (NaN with under four markers). */
icv_vec3 analysis_worst_left_out(const analysis_tracks *tr, int row, const analysis_template *tmpl, double sigma,
                                 const analysis_pose *pose, icv_vec3 *turn);
/* the template markers' rms distance from the centre (m) */
double analysis_template_radius(const analysis_template *tmpl);
/* The bound's variance per surface axis (m^2/s^2) on the v of a one-body side fitted
 * (a line given g) over pf[first..last]; 0 for a one-marker body. */
void analysis_bead_v_var(const analysis_tracks *tr, const analysis_body *b, double sigma, const posed_frame *pf,
                         int first, int last, double var[3]);
/* Whether b's markers can go half behind it: a round body (a limb to pass behind) or
 * a marker standing off its surface (a ball on a post); a box's face markers cannot. */
int analysis_markers_can_hide(const analysis_body *b);
int analysis_side_fit(const posed_frame *pf, int first, int last, double t_ref, const icv_vec3 *g,
                      const analysis_body *b, double com_sigma, int post, side_fit *out, icv_err *err);

/* Grows side s's window (fitted by analysis_side_fit) from its far end over its
 * flight pf[flight_first..flight_last], doubling it (to at most
 * ANALYSIS_SIDE_MAX_FRAMES frames) while the longer window's ballistic fit is
 * consistent over all of it; its drift variance the largest of its windows', its
 * rotation refitted over the final window. side_extend.c. 0, or the fit's error
 * code (not for a window that does not fit: s stays). */
int analysis_side_extend(const posed_frame *pf, int flight_first, int flight_last, const icv_vec3 *g,
                         const analysis_body *b, double com_sigma, int post, side_fit *s, icv_err *err);

/* Replaces a side's states by the seeds' Houbolt differences at posed frame k
 * (the last before the impact, or with post the first after), using frames
 * k, k-1, k-2, k-3 (or k..k+3). houbolt.c. */
void analysis_houbolt_side(const posed_frame *pf, int k, int post, double marker_sigma, const analysis_body *b,
                           side_fit *s);

/* A side's window of frames a..b cut to the max_frames nearest the impact: the last
 * ones before it, or with post the first ones after it. */
static inline void analysis_window_nearest(int post, int max_frames, int *a, int *b)
{
    if (*b - *a + 1 > max_frames) {
        if (post)
            *b = *a + max_frames - 1;
        else
            *a = *b - max_frames + 1;
    }
}

/* The root of the gap f(t) in [lo, hi] by Brent's method (GSL) to tol (the units
 * of t), when f's signs at lo and hi differ; else where |f| is smallest of 65
 * samples over [lo, hi] (a grazing contact), fallback when f is nowhere a number
 * (root_or_min.c). */
double analysis_root_or_min(double (*f)(double, void *), void *data, double lo, double hi, double tol,
                            double fallback);

/* The instant in [lo, hi] where a side's flight puts the contact point on the
 * surface (root of the gap), or where the gap is smallest when it does not cross. */
double analysis_contact_instant(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t_guess,
                                double lo, double hi);

/* A side's contact point's height above the surface at t (m), and its rate (m/s,
 * central difference over +-h s). */
double analysis_contact_gap(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t);
/* The 1-sigma of that height (m) from the side's attitude alone (cov_rot's
 * attitude block: the lowest point's lever about the centre); 0 for fixed states. */
double analysis_contact_gap_attitude_sd(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t);
double analysis_contact_rate(const analysis_body *b, const side_fit *s, const icv_vec3 *g, double t, double h);

/* A stretch of frames without a pose (too few markers seen) in which the flight
 * beside it, carried on with gravity, reaches the surface: an impact there is
 * probable and cannot be measured (unposed_impact.c). Frames and times of the
 * stretch; t_pre (s) where the flight before it, carried on, meets the surface,
 * t_post where the flight after it, carried back, does, each with its 1-sigma
 * (s); NAN for a side that does not meet it there. */
typedef struct {
    long frame_first, frame_last;
    double t_first, t_last;     /* s */
    double t_pre, t_pre_sd, t_post, t_post_sd;
} unposed_impact;

/* A stretch shorter than this (frames) is the ordinary dropout a side's fit spans. */
#define UNPOSED_MIN_FRAMES 4

/* The unposed stretches of tr (posed_row[r]: row r had a pose, before any frame was
 * trimmed) where a side's flight (min_side..max_side posed frames pf[0..n-1] in
 * flight, contact[] from analysis_contact_find, fitted with res->g; its edge frame
 * within UNPOSED_MIN_FRAMES of the stretch and above the contact band, 5 marker
 * sigmas `sigma`, m) meets the surface between the posed frames around it, widened
 * by 3 of the extrapolated instant's sigmas (at the clip's ends: not past them);
 * none where a measured impact of res lies there. Up to max in out; their count. Measures nothing, changes
 * nothing in res. */
int analysis_unposed_impacts(const analysis_tracks *tr, const analysis_body *b, const posed_frame *pf, int n,
                             const unsigned char *contact, const unsigned char *cut, const unsigned char *posed_row,
                             const analysis_result *res, double sigma, double com_sigma, int min_side, int max_side,
                             double period, unposed_impact *out, int max);
/* "the body is not posed in frames 48-80 (t = ...), and its flight before them,
 * carried on, meets the surface near t = 0.4750 +- 0.0012 s" into buf; its length. */
size_t analysis_unposed_describe(const unposed_impact *u, char *buf, size_t cap);

/* The impact instant from both sides' flights (impact_instant.c): where the
 * pre-impact flight reaches the surface (t_line) and where the flights meet
 * (t_meet), each with its 1-sigma; t is t_line unless the meeting lies between the
 * windows (lo, hi: the pre-impact window's last frame and the post-impact one's
 * first, s; margin s) and the two disagree by more than 3 combined sigmas, or the
 * flight crosses the surface outside [lo, hi] by more than 3 of t_line's sigmas
 * (t_line is then that crossing), then t_meet (from_meet 1): the surface line is the
 * likelier to be off (a line drawn a few pixels off, a surface offset), the flights'
 * meeting needs no surface.
 * line_gap: the contact point's height above the surface at t_meet (m).
 * offset_sd (s): when t is t_line, the part of t_line - t_meet that their sigmas do
 * not explain, sqrt(max(0, d^2 - sd_line^2 - sd_meet^2)): a height error common to
 * both flights (the tracks' slow bias, the surface's offset) moves the surface's
 * instant by height / approach speed and the meeting not at all, and the flights'
 * residuals cannot show it. 0 when the meeting is used or unknown. */
typedef struct {
    double t, t_line, t_line_sd, t_meet, t_meet_sd, line_gap, offset_sd;
    double t_line_lever_sd; /* s: t_line_sd without the centre's stated sigma (the
                               surface's, the attitude's lever and the drift) */
    double line_gap_sd;     /* m: line_gap's 1-sigma (the meeting's sigma times the
                               contact point's rate, and the line's height sigma) */
    int from_meet, meet_ok;
} impact_instant;
void analysis_impact_instant(const analysis_body *b, const side_fit *pre, const side_fit *post, const icv_vec3 *g,
                             double t_guess, double lo, double hi, double margin, double offset_sd,
                             impact_instant *out);

/* The reported instant's 1-sigma from the one measured_sd (s) the Monte Carlo and
 * the meeting's check give: when the surface line's instant is kept, not below its
 * own sigma t_line_sd (the contact point's height error over its approach speed);
 * with g estimated (g_estimated 1) not below t_line_lever_sd, the parts of it that
 * are not the centre's stated sigma. */
double analysis_impact_instant_sd(const impact_instant *in, double measured_sd, int g_estimated);

/* The free flights (flights.c) between res's impacts and the clip's ends: the posed
 * frames pf[0..n-1] more than excl (s) from every impact instant and not in contact
 * (contact[i], or NULL), split before every frame i with cut[i] (n flags, or NULL: a
 * flight begins there, analysis_gravity_from_flight_cut), runs of at least
 * min_frames, each fitted as a parabola with the gravity used (its launch state at
 * its first frame) and on its own for g, weighted by com_sigma (m; sigmas grown by
 * sqrt(chi^2/dof) where that is above 1). Fills
 * res->flights; returns how many runs were too short (their count of frames in
 * *short_frames, the longest). */
int analysis_flights_fit(const posed_frame *pf, int n, const unsigned char *contact, const unsigned char *cut,
                         const analysis_tracks *tr, double com_sigma, double excl, int min_frames,
                         analysis_result *res, int *short_frames);

/* The contact stretches (contact.c): runs of at least 3 posed frames whose gap
 * stays within 5 sigma (m, a marker's) of the surface for longer than free flight
 * can; contact[i] = 1 for their frames, res->contacts filled. Returns how many. */
int analysis_contact_find(const posed_frame *pf, int n, double sigma, double com_sigma, const analysis_tracks *tr,
                          unsigned char *contact, analysis_result *res);


/* Where the two sides' flights meet: the instant at which their centres of mass
 * are closest (the centre does not jump in an impact), from t_guess by Newton's
 * steps on the distance along the velocity jump, and its 1-sigma from the sides'
 * position sigmas along the jump. Needs no surface. Returns 0, or -1 when the
 * flights do not differ (no velocity jump). */
int analysis_flights_meet(const side_fit *pre, const side_fit *post, const icv_vec3 *g, double t_guess, double *t,
                          double *t_sd);

/* The measured quantities at the impact instant t, without their uncertainty. */
void analysis_measure_values(const analysis_body *b, const icv_vec3 *g, const side_fit *pre, const side_fit *post,
                             double t, analysis_impact *imp);

/* What the impact's energies count (imp->energy_rotation) and, when a spin is not
 * measured, the spin change the measured impulse implies about it and a note saying
 * so (imp->spin_change_implied, spin_energy_implied, energy_note). */
void analysis_energy_scope(const analysis_body *b, analysis_impact *imp);

/* A model result's loss fraction of the energy the impact's measurement counts
 * (imp->energy_rotation; r->loss_fraction when it counts all rotation). */
double analysis_model_loss_scoped(const analysis_body *b, const analysis_impact *imp, const impact_result *r);

/* The measured quantities and their uncertainty at the impact instant t; cov15
 * (NULL for Houbolt's states: each side's own sigmas, g exact) the joint covariance of (g, pre
 * p, pre v, post p, post v) (analysis_flight_covariance), whose draws then also
 * give the states' and the instant's sigmas. meet: t is where the flights meet
 * (analysis_flights_meet), found again so in every draw; else where the pre-impact
 * flight reaches the surface. */
/* g_spread (m/s^2, analysis_flight_noise's): each side's own flight accelerates off
 * the shared g by that 1-sigma along g, drawn apart for the two sides (two flights). */
void analysis_measure(const analysis_body *b, const icv_vec3 *g, const side_fit *pre, const side_fit *post, double t,
                      int meet, const analysis_params *prm, const double (*cov15)[15], double g_spread,
                      analysis_impact *imp);

/* Adds the calibration's uncertainty c (where known) and, when g was estimated
 * (g_cov its covariance, (m/s^2)^2; NULL when g's error is already in the Monte
 * Carlo's joint draws), the estimate's, to the impact's sigmas, and
 * fills its sd_calib (the calibration's part), by measuring it again in a surface
 * frame off by each 1-sigma error and with g off by each independent 1-sigma error
 * of g_cov (calib_sd.c). */
int analysis_calib_propagate(const posed_frame *pf, const analysis_body *b, const icv_vec3 *g,
                             const double g_cov[3][3], int g_estimated, const side_fit *pre, const side_fit *post,
                             double com_sigma, const analysis_calib_sd *c, analysis_impact *imp, icv_err *err);

struct json_t;
/* Writes root as indented JSON with a final newline, atomically, and releases root
 * (NULL: out of memory). */
int analysis_json_write(const char *path, struct json_t *root, icv_err *err);
/* results.json's "program": {name, version, libraries} (results_json.c), a jansson
 * object the caller owns. */
struct json_t *analysis_program_json(void);

/* s: the median interval between consecutive rows of tr (over its first 64 steps; a
 * frame dropped now and then does not move it), 0 with fewer than two rows */
double analysis_tracks_row_interval(const analysis_tracks *tr);

#endif
