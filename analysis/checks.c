/* checks.c: does the measurement fit the experiment's description? The marker
 * template against the measured inter-marker distances, an estimated gravity
 * against 9.81 m/s^2 (a wrong capture rate or scale shows up there first), a given
 * gravity against the free flights' own acceleration, and each
 * impact against what a real collision can give (e above 1, energy gained). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "track/track_3d.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double analysis_median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return x[n / 2];
}

int analysis_template_check(const analysis_tracks *tr, const analysis_template *t, double sigma, icv_err *err)
{
    int nm = t->n_markers < tr->n_markers ? t->n_markers : tr->n_markers;
    if (tr->n_markers != t->n_markers)
        return icv_err_set(err, ICV_EINVAL, "the tracks have %d markers and body.markers %d", tr->n_markers,
                           t->n_markers);
    double *d = malloc(sizeof *d * (size_t)(tr->n_frames > 0 ? tr->n_frames : 1));
    if (!d)
        return icv_err_set(err, ICV_ENOMEM, "template check: out of memory");
    int rc = 0;
    for (int i = 0; i < nm && !rc; i++)
        for (int j = i + 1; j < nm && !rc; j++) {
            int n = 0;
            for (int f = 0; f < tr->n_frames; f++)
                if (tr->seen[f * nm + i] && tr->seen[f * nm + j])
                    d[n++] = icv_v3_norm(icv_v3_sub(tr->pos[f * nm + i], tr->pos[f * nm + j]));
            if (n == 0)
                continue;
            double med = analysis_median(d, n), want = icv_v3_norm(icv_v3_sub(t->markers[i], t->markers[j]));
            /* the track stage's tolerance, which these points already passed: a ball
               half hidden by its post or the rod is seen off its centre by a few mm (a
               known bias, not a wrong template); a wrong scale of 10% is still out */
            double tol = fmax(5 * sigma, TRACK_TEMPLATE_TOL_M + TRACK_TEMPLATE_TOL_REL * want);
            if (fabs(med - want) > tol)
                rc = icv_err_set(err, ICV_EINVAL,
                                 "the tracks do not fit body.markers: markers %d and %d are %.1f mm apart, the "
                                 "template says %.1f mm (wrong markers in experiment.yaml, or a wrong scale)",
                                 i, j, med * 1e3, want * 1e3);
        }
    free(d);
    return rc;
}

int analysis_gravity_flight_disagrees(const analysis_result *res, double *diff, double *sigma, double *tol)
{
    *diff = *sigma = *tol = NAN;
    if (res->g_estimated || !res->g_flight_fit)
        return 0;
    icv_vec3 d = icv_v3_sub(res->g_flight, res->g), s = res->g_flight_sd;
    *diff = icv_v3_norm(d);
    *tol = ANALYSIS_G_FLIGHT_TOL * icv_v3_norm(res->g);
    /* the sigma along the difference (per-axis sigmas: the axes' correlation is not
       kept in results.json, and the report judges from there too) */
    double u2 = *diff > 0 ? 1 / (*diff * *diff) : 0;
    *sigma = sqrt(u2 * (d.x * d.x * s.x * s.x + d.y * d.y * s.y * s.y + d.z * d.z * s.z * s.z) +
                  res->g_flight_sys * res->g_flight_sys);
    return *diff > 3 * *sigma && *diff > *tol;
}

double analysis_gravity_magnitude_sd(const analysis_result *res)
{
    double g = icv_v3_norm(res->g);
    if (!(g > 0))
        return NAN;
    icv_vec3 u = icv_v3_scale(res->g, 1 / g), s = res->g_sd;
    double flights2 = u.x * u.x * s.x * s.x + u.y * u.y * s.y * s.y + u.z * u.z * s.z * s.z;
    double scale = res->calib.scale_rel > 0 ? res->calib.scale_rel * g : 0;
    return sqrt(flights2 + scale * scale);
}

int analysis_gravity_check(const analysis_result *res, icv_err *err)
{
    double diff, sigma, tol;
    if (analysis_gravity_flight_disagrees(res, &diff, &sigma, &tol)) {
        /* a given g is not refitted, so every number below is computed with it, on
           tracks that do not fall at it: kept, flagged, with what to look at */
        icv_vec3 m = res->g_flight, g = res->g;
        icv_err_set(err, ICV_OK,
                    "the free flights fall at g = (%.2f, %.2f, %.2f) m/s^2 (|g| = %.2f, +- %.2f along the "
                    "difference), the given gravity is (%.2f, %.2f, %.2f) (|g| = %.2f): %.2f m/s^2 apart, %.0f sigma "
                    "and over the %.0f%% tolerance: physically implausible, the impacts below are off with it (kept, "
                    "flagged); likely causes: tracks of something other than the body's markers (see the "
                    "overlays), a wrong scale (board square size) or capture rate, or a gravity vector given in "
                    "another frame than the surface's",
                    m.x, m.y, m.z, icv_v3_norm(m), sigma, g.x, g.y, g.z, icv_v3_norm(g), diff, diff / sigma,
                    100 * ANALYSIS_G_FLIGHT_TOL);
        return 1;
    }
    if (!res->g_estimated)
        return 0;
    double g = icv_v3_norm(res->g), off = g / 9.81 - 1;
    if (fabs(off) <= 0.02)
        return 0;
    const char *cause = "check the capture rate (a slow-motion clip tagged at its playback rate), the scale "
                        "(the board's square size; one camera: the ball's diameter, the ruler's length, the "
                        "plane's pitch) and the sync";
    double sd = analysis_gravity_magnitude_sd(res);
    char sdtxt[64] = "", nsig[32] = "";
    if (sd > 0) {
        snprintf(sdtxt, sizeof sdtxt, " +- %.2f", sd);
        snprintf(nsig, sizeof nsig, " (%.1f sigma%s)", fabs(g - 9.81) / sd,
                 res->calib.scale_rel > 0 ? ", the scale's in it" : "");
    }
    /* beyond 10% no speed or energy can be right, but the numbers are kept, flagged:
       a run that stops gives the user nothing to look at for the cause */
    if (fabs(off) > 0.10)
        icv_err_set(err, ICV_OK,
                    "free flight falls at |g| = %.2f%s m/s^2, %+.0f%% from 9.81%s: physically implausible, every "
                    "speed and energy below is off with it (kept, flagged): %s",
                    g, sdtxt, 100 * off, nsig, cause);
    else
        icv_err_set(err, ICV_OK, "free flight falls at |g| = %.2f%s m/s^2, %.1f%% from 9.81%s: %s", g, sdtxt,
                    100 * off, nsig, cause);
    return 1;
}

int analysis_impact_plausibility(const analysis_impact *im, char *why, size_t n)
{
    double se = isfinite(im->sd.e_kinematic) ? im->sd.e_kinematic : 0;
    double sl = isfinite(im->sd.loss_fraction) ? im->sd.loss_fraction : 0;
    why[0] = 0;
    if (im->e_kinematic - 2 * se > 1)
        snprintf(why, n, "e = %.3f +- %.3f is above 1 by more than 2 sigma", im->e_kinematic, se);
    else if (im->e_kinematic + 2 * se < 0)
        snprintf(why, n,
                 "e = %.3f +- %.3f is below 0 by more than 2 sigma: the contact point would still close on the "
                 "surface after the impact",
                 im->e_kinematic, se);
    else if (im->loss_fraction + 2 * sl < 0)
        snprintf(why, n, "the energy after (%.4g J) exceeds the energy before (%.4g J) by more than 2 sigma",
                 im->energy_post, im->energy_pre);
    return why[0] != 0;
}
