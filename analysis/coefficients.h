/* coefficients.h: friction and restitution coefficients from their own experiments
 * (docs/coefficients.md): mu_s from a tilted plate, mu_k from a slide down an incline,
 * e_n from a central drop, repeats combined, coefficients.json. The analysis of the
 * tracks is analysis.h's; `impactcv coefficients` is job_coefficients_run (job.h);
 * the level board and the plate's tilt from video are the track stage's
 * (job/level_gravity.c, job/tilt_track.c). */
#ifndef ICV_ANALYSIS_COEFFICIENTS_H
#define ICV_ANALYSIS_COEFFICIENTS_H

#include "analysis/analysis.h"

#define ANALYSIS_MAX_WARNINGS 4

/* A measured coefficient: mu_s (tilt), mu_k (incline slide) or e_n (drop). */
typedef struct {
    char coefficient[8];  /* "mu_s", "mu_k" or "e_n" */
    char kind[8];         /* "tilt", "slide" or "drop" */
    double value, sd;     /* the coefficient and its 1-sigma */
    char method[96];      /* how it was measured, with the equation */
    int first_frame, last_frame; /* frames used (-1 when none, e.g. a ruler angle) */
    double theta, theta_sd;      /* rad: incline angle (tilt, slide) */
    double a, a_sd;              /* m/s^2: acceleration along the slope (slide) */
    double jerk, jerk_sd;        /* m/s^3: the cubic term of the slide fit (constancy test) */
    double onset_s, onset_sd;    /* s: the onset of sliding (tilt from video), 1-sigma */
    double noise, noise_rho;     /* m: the slide fit's residual 1-sigma (the centre's position
                                    noise along the slope), and the residuals' correlation
                                    between neighbouring frames (its sigmas allow for it) */
    int n_warnings;
    char warnings[ANALYSIS_MAX_WARNINGS][200];
    /* the slide's incline: where it came from ("given", "level board" or "flight"), the
     * flight's frames (-1 unless from flight), and |g| (m/s^2) with its 1-sigma (0 unless
     * fitted to the flight: a given or standard |g| is exact) */
    char incline_method[16];
    int incline_first, incline_last;
    double g_norm, g_norm_sd;
} analysis_coefficient;

/* mu_k from a body sliding down the surface (Han Sun eqs. 4.35-4.38, done by a
 * fit): the centre of mass along the downhill direction (gravity's part in the
 * surface plane, g in the surface frame, m/s^2, taken as exact) is fitted by
 * s0 + v0 t + a t^2/2 over the sliding frames, chosen
 * automatically (from the start of motion until it stops or the track ends), and
 * mu_k = tan(theta) - a / (|g| cos(theta)) with theta the incline angle from g.
 * The fit's sigmas come from its residuals (their scatter and their correlation
 * between neighbouring frames); marker_sigma (m, one marker's expected 1-sigma) only
 * sets the thresholds that find the sliding frames. A significant cubic term is a
 * warning: the acceleration is not constant (mu depends on speed, or the body rolls
 * or rocks). Fails when no motion is found. */
int analysis_coefficient_slide(const analysis_tracks *tr, const analysis_body *b, icv_vec3 g, double marker_sigma,
                               analysis_coefficient *out, icv_err *err);

/* The same over the frames from t_from on (s, experiment clock): the body is sliding
 * there already (it landed on the incline just before), so the sliding frames start
 * at the first of them and end where it stops or the track ends. -INFINITY: as
 * analysis_coefficient_slide (from rest). g_cov, g's covariance ((m/s^2)^2, surface
 * frame; NULL: g exact): theta's and |g|'s sigmas and their covariance by first order
 * (J g_cov J^T), and mu_k's sigma from them (g from one flight has
 * correlated axes; the acceleration and gravity from different frames, independent). */
int analysis_coefficient_slide_after(const analysis_tracks *tr, const analysis_body *b, icv_vec3 g,
                                     const double g_cov[3][3], double marker_sigma, double t_from,
                                     analysis_coefficient *out, icv_err *err);

/* A slide's incline from the free flight before the body lands on it (the body
 * dropped or tossed onto the incline): the frames from the release (a hold in the air
 * before it left out; tossed off the incline: from the first frame off it) to two
 * frames before the landing (the next frame whose lowest point is within 5 marker
 * sigmas of the surface, the surface frame's y = 0; the frame before may have its
 * exposure across the landing) fitted by a parabola (analysis_gravity_from_flight, as
 * `gravity: auto`); g's 1-sigma per axis the roots of its covariance from the
 * residuals' scatter and their correlation between frames. t_slide: the slide starts there (the frame after the landing
 * frame). Fails (ICV_ENOTFOUND) with one line when the body never lands, or flies for
 * fewer than ANALYSIS_MIN_FLIGHT_FRAMES frames before it does. */
#define ANALYSIS_MIN_FLIGHT_FRAMES 8
typedef struct {
    icv_vec3 g, g_sd;            /* m/s^2, surface frame; 1-sigma per axis from the
                                    residuals (the incline: the angle between -g and the
                                    surface's y axis, its normal, up) */
    int first_frame, last_frame; /* the flight frames fitted (frame numbers) */
    int landing_frame;           /* the first frame on the incline */
    double t_slide;              /* s: the first frame of the slide */
    double g_cov[3][3];          /* (m/s^2)^2, surface frame: g's full covariance
                                    (g_sd its diagonal's roots) */
} analysis_slide_flight;
int analysis_slide_flight_gravity(const analysis_tracks *tr, const analysis_body *b, double marker_sigma,
                                  analysis_slide_flight *out, icv_err *err);

/* mu_s = tan(theta) from the incline angle at which sliding began, measured with a
 * ruler (Han Sun eq. 4.32): angle and its 1-sigma in degrees. */
void analysis_coefficient_tilt_angle(double angle_deg, double angle_sd_deg, analysis_coefficient *out);

/* The incline's 1-sigma (rad) from elsewhere (a level reference board): sets theta_sd
 * and adds it to the slide's sigma (g: |g|, m/s^2; c->g_norm_sd's part too). */
void analysis_coefficient_slide_incline_sd(analysis_coefficient *c, double g, double theta_sd);

/* mu_s from a filmed tilt: per frame, t (s), the plate's angle from level (rad) and the
 * body's displacement down the plate (m), NaN where not measured (job_tilt_run).
 * The onset of sliding is where the displacement leaves its rest line (the markers'
 * parallax drifts slowly as the plate turns) for good, refined by fitting the rest
 * line plus the slide's a tau^2/2 and its growth as the plate goes on rising (g:
 * ANALYSIS_G_STANDARD); mu_s = tan(angle at t0), its sigma from the angle's line fit
 * near t0, t0's sigma along it, and the level board's own view: one frame's angle
 * scatter times level_noise_ratio (its corners' noise over a frame's, e.g. the PnP
 * residuals' ratio; <= 0: 1). Fails (ICV_ENOTFOUND) when the body never slides. */
int analysis_coefficient_tilt_video(const double *t, const double *angle, const double *s, long n,
                                    double level_noise_ratio, analysis_coefficient *out, icv_err *err);

/* e_n = -v'_y / v_y at the contact point (Han Sun eq. 4.44) from the first impact of
 * an analysed drop, with warnings when the drop is not central (rotation before or
 * after, or a horizontal velocity above 5% of the vertical). */
int analysis_coefficient_drop(const analysis_result *res, analysis_coefficient *out, icv_err *err);

/* Several repeats of one coefficient: the weighted mean, its standard error, and a
 * chi^2 test of their spread against their sigmas (a warning below p = 0.01). */
void analysis_coefficient_combine(const analysis_coefficient *reps, int n, analysis_coefficient *out,
                                  double *chi2, double *p_value);


/* coefficients.json (schema impactcv-coefficients-1, docs/coefficients.md). */
int analysis_coefficient_write(const char *path, const analysis_coefficient *c, const analysis_coefficient *repeats,
                               int n_repeats, icv_err *err);

#endif
