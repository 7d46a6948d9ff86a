/* coefficients.c: mu_s, mu_k and e_n from their own experiments (Han
 * Sun sec. 4.4 did these with an angle ruler, two frames read by eye and hand
 * arithmetic). Slide: a fit of the motion along the slope instead of two
 * displacements (eqs. 4.35-4.38); tilt: tan of the angle at which sliding began
 * (4.32); drop: Newton's ratio at the contact point (4.44). */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/coefficients_internal.h"

static void warn(analysis_coefficient *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(analysis_coefficient *c, const char *fmt, ...)
{
    if (c->n_warnings >= ANALYSIS_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->warnings[c->n_warnings++], sizeof c->warnings[0], fmt, ap);
    va_end(ap);
}

/* Least-squares polynomial s = sum c_k tau^k / k! (k < deg, tau = t - t0) with the
 * noise taken from the fit itself (analysis_coef_ar1_noise: its variance and its correlation
 * between neighbouring frames f, from the residuals); the coefficients' 1-sigma from
 * that. A noise assumed beforehand would have to be right: the default 0.3 mm per
 * marker made the sigma of mu_k 5 times the error on synth's stereo slides. given:
 * the noise found by a smaller fit of the same samples, or NULL. Returns 0, or -1
 * when the fit fails; *nz: the noise used (m^2). */
static int poly_fit(const double *t, const double *s, const int *f, int n, double t0, int deg, const coef_noise *given,
                    double *c, double *c_sd, coef_noise *nz)
{
    gsl_matrix *X = gsl_matrix_alloc((size_t)n, (size_t)deg), *cov = gsl_matrix_alloc((size_t)deg, (size_t)deg);
    gsl_vector *y = gsl_vector_alloc((size_t)n), *cv = gsl_vector_alloc((size_t)deg);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)n, (size_t)deg);
    int rc = -1;
    double chisq;
    if (n > deg && X && cov && y && cv && ws) {
        for (int i = 0; i < n; i++) {
            double tau = t[i] - t0, p = 1;
            for (int k = 0; k < deg; k++) {
                gsl_matrix_set(X, (size_t)i, (size_t)k, p);
                p *= tau / (k + 1);
            }
            gsl_vector_set(y, (size_t)i, s[i]);
        }
        if (!gsl_multifit_linear(X, y, cv, cov, &chisq, ws)) {
            gsl_blas_dgemv(CblasNoTrans, -1, X, cv, 1, y); /* y: the residuals */
            rc = analysis_coef_ar1_noise(X, y->data, f, n, 0.95, given, nz);
        }
    }
    if (!rc) {
        for (int k = 0; k < deg; k++) {
            c[k] = gsl_vector_get(cv, (size_t)k);
            c_sd[k] = sqrt(fmax(0, nz->cov[k][k]));
        }
    }
    gsl_multifit_linear_free(ws);
    gsl_vector_free(cv);
    gsl_vector_free(y);
    gsl_matrix_free(cov);
    gsl_matrix_free(X);
    return rc;
}

int analysis_coefficient_slide(const analysis_tracks *tr, const analysis_body *b, icv_vec3 g, double marker_sigma,
                               analysis_coefficient *out, icv_err *err)
{
    return analysis_coefficient_slide_after(tr, b, g, NULL, marker_sigma, -INFINITY, out, err);
}

/* theta = atan2(|g_t|, -g_y) and |g| from g (surface frame), first order: their
 * gradients J (rows) with g's covariance, J cov J^T: the sigmas of both and their
 * covariance (g's axes are correlated: the flight's path is not along an axis) */
static void incline_from_g_cov(icv_vec3 g, const double cov[3][3], double *theta_sd, double *g_norm_sd,
                               double *cov_theta_g)
{
    double gt = hypot(g.x, g.z), gn = icv_v3_norm(g);
    const double J[2][3] = {{-g.y * g.x / (gt * gn * gn), gt / (gn * gn), -g.y * g.z / (gt * gn * gn)},
                            {g.x / gn, g.y / gn, g.z / gn}};
    double C[2][2] = {{0}};
    for (int r = 0; r < 2; r++)
        for (int q = 0; q < 2; q++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    C[r][q] += J[r][i] * cov[i][j] * J[q][j];
    *theta_sd = sqrt(fmax(0, C[0][0]));
    *g_norm_sd = sqrt(fmax(0, C[1][1]));
    *cov_theta_g = C[0][1];
}

static void slide_sd(analysis_coefficient *c, double g, double cov_theta_g);

int analysis_coefficient_slide_after(const analysis_tracks *tr, const analysis_body *b, icv_vec3 g,
                                     const double g_cov[3][3], double marker_sigma, double t_from,
                                     analysis_coefficient *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->coefficient, sizeof out->coefficient, "mu_k");
    snprintf(out->kind, sizeof out->kind, "slide");
    snprintf(out->method, sizeof out->method,
             "incline slide: fit s0 + v0 t + a t^2/2, mu_k = tan(theta) - a/(g cos(theta)) (Han Sun eq. 4.35)");
    double gt = hypot(g.x, g.z), gn = icv_v3_norm(g);
    if (gt < 1e-3 * gn)
        return icv_err_set(err, ICV_EINVAL, "slide: gravity is normal to the surface (a level surface): no slope");
    icv_vec3 d = icv_v3(g.x / gt, 0, g.z / gt); /* downhill, in the surface plane */
    out->theta = atan2(gt, -g.y);
    out->g_norm = gn;
    out->incline_first = out->incline_last = -1;
    snprintf(out->incline_method, sizeof out->incline_method, "given");
    double cov_theta_g = 0;
    if (g_cov) /* theta and |g| from g's components, first order */
        incline_from_g_cov(g, g_cov, &out->theta_sd, &out->g_norm_sd, &cov_theta_g);
    int n = tr->n_frames, m = 0;
    double *t = malloc(sizeof *t * (size_t)(n ? n : 1)), *s = malloc(sizeof *s * (size_t)(n ? n : 1));
    int *fr = malloc(sizeof *fr * (size_t)(n ? n : 1));
    if (!t || !s || !fr) {
        free(t);
        free(s);
        free(fr);
        return icv_err_set(err, ICV_ENOMEM, "slide: out of memory");
    }
    for (int i = 0; i < n; i++) {
        analysis_pose pose;
        if (tr->t[i] < t_from || analysis_pose_fit_frame(tr, i, &b->tmpl, 0, NULL, &pose, NULL))
            continue;
        t[m] = tr->t[i];
        s[m] = icv_v3_dot(pose.p, d);
        fr[m] = tr->frame[i];
        m++;
    }
    /* the centre's noise as expected beforehand: only for finding the sliding frames
     * (the fit takes its own from its residuals) */
    double sigma = marker_sigma / sqrt((double)b->tmpl.n_markers);
    int rc = 0, i0 = -1, i1 = -1;
    if (m >= 6 && isfinite(t_from)) {
        i0 = 0; /* landed: sliding from its first frame */
    } else if (m >= 6) {
        /* at rest first: the motion starts where s leaves the first frames' level by
         * 5 sigma for good (3 frames in a row); it ends where s stops increasing */
        double rest = s[0];
        for (int i = 1; i < 3 && i < m; i++)
            rest = fmin(rest, s[i]);
        for (int i = 0; i + 2 < m; i++)
            if (s[i] - rest > 5 * sigma && s[i + 1] - rest > 5 * sigma && s[i + 2] - rest > 5 * sigma) {
                i0 = i;
                break;
            }
    }
    if (i0 >= 0) {
        /* (once it moves by more than 4 sigma a frame: a slow start is no stop) */
        int fast = i0;
        while (fast + 1 < m && s[fast + 1] - s[fast] <= 4 * sigma)
            fast++;
        i1 = m - 1;
        for (int i = fast; i + 2 < m; i++)
            if (s[i + 1] - s[i] < 2 * sigma && s[i + 2] - s[i + 1] < 2 * sigma) {
                i1 = i;
                break;
            }
    }
    double moved = 0;
    for (int i = 0; i < m; i++)
        moved = fmax(moved, fabs(s[i] - s[0]));
    if (i0 < 0 || i1 - i0 + 1 < 6) {
        rc = icv_err_set(err, ICV_ENOTFOUND,
                         "slide: no motion found along the slope (the body moved at most %.1f mm over %d frames)",
                         moved * 1e3, m);
    } else {
        double c[4], csd[4], c3[4], csd3[4], tm = 0.5 * (t[i0] + t[i1]);
        int k = i1 - i0 + 1;
        /* the noise from the cubic's residuals where there are frames for it: a jerk
         * the quadratic leaves out would pass for slow, correlated noise there and
         * hide itself (speed-dependent friction went unflagged) */
        coef_noise nz3, nz;
        int cubic = k >= 8 && poly_fit(t + i0, s + i0, fr + i0, k, tm, 4, NULL, c3, csd3, &nz3) == 0;
        if (poly_fit(t + i0, s + i0, fr + i0, k, tm, 3, cubic ? &nz3 : NULL, c, csd, &nz))
            rc = icv_err_set(err, ICV_ENUMERIC, "slide: the fit of the motion along the slope failed");
        else {
            out->a = c[2];
            out->a_sd = csd[2];
            out->noise = sqrt(nz.s2);
            out->noise_rho = nz.rho;
            out->first_frame = fr[i0];
            out->last_frame = fr[i1];
            out->value = tan(out->theta) - out->a / (gn * cos(out->theta));
            slide_sd(out, gn, cov_theta_g);
            if (cubic) {
                out->jerk = c3[3];
                out->jerk_sd = csd3[3];
                if (fabs(c3[3]) > 4 * csd3[3])
                    warn(out,
                         "the acceleration along the slope is not constant (jerk %.3g +- %.2g m/s^3): mu depends on "
                         "speed, or the body rolls or rocks",
                         c3[3], csd3[3]);
            }
            if (out->value < 0)
                warn(out, "mu_k < 0: the body accelerates faster than frictionless sliding allows (check gravity)");
        }
    }
    free(t);
    free(s);
    free(fr);
    return rc;
}

/* mu_k's 1-sigma from a's, theta's and |g|'s (c->a_sd, theta_sd, g_norm_sd) and the
 * covariance of theta and |g| (rad m/s^2: both from one flight's g) */
static void slide_sd(analysis_coefficient *c, double g, double cov_theta_g)
{
    double ct = cos(c->theta), st = sin(c->theta);
    double dmu_da = -1 / (g * ct), dmu_dth = 1 / (ct * ct) - c->a * st / (g * ct * ct), dmu_dg = c->a / (g * g * ct);
    /* a independent of theta and |g|: the slide's frames and the flight's (or a board
     * image) are different data */
    c->sd = sqrt(fmax(0, pow(dmu_da * c->a_sd, 2) + pow(dmu_dth * c->theta_sd, 2) + pow(dmu_dg * c->g_norm_sd, 2) +
                             2 * dmu_dth * dmu_dg * cov_theta_g));
}

void analysis_coefficient_slide_incline_sd(analysis_coefficient *c, double g, double theta_sd)
{
    c->theta_sd = theta_sd;
    slide_sd(c, g, 0);
}

void analysis_coefficient_tilt_angle(double angle_deg, double angle_sd_deg, analysis_coefficient *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->coefficient, sizeof out->coefficient, "mu_s");
    snprintf(out->kind, sizeof out->kind, "tilt");
    snprintf(out->method, sizeof out->method, "tilt: mu_s = tan(theta) at the onset of sliding, angle measured by "
                                              "ruler (Han Sun eq. 4.32)");
    out->theta = angle_deg * M_PI / 180;
    out->theta_sd = angle_sd_deg * M_PI / 180;
    out->value = tan(out->theta);
    out->sd = out->theta_sd / (cos(out->theta) * cos(out->theta));
    out->first_frame = out->last_frame = -1;
}

int analysis_coefficient_drop(const analysis_result *res, analysis_coefficient *out, icv_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->coefficient, sizeof out->coefficient, "e_n");
    snprintf(out->kind, sizeof out->kind, "drop");
    snprintf(out->method, sizeof out->method, "drop: e_n = -v'_y / v_y at the contact point (Han Sun eq. 4.44)");
    if (res->n_impacts < 1)
        return icv_err_set(err, ICV_ENOTFOUND, "drop: no impact found");
    const analysis_impact *im = &res->impacts[0];
    out->value = im->e_kinematic;
    out->sd = im->sd.e_kinematic;
    out->first_frame = out->last_frame = -1;
    double vy = fabs(im->pre.v.y);
    double horiz = hypot(im->pre.v.x, im->pre.v.z) / vy;
    double r = icv_v3_norm(icv_v3_sub(im->contact_point, im->pre.p));
    double spin = fmax(icv_v3_norm(im->pre.omega), icv_v3_norm(im->post.omega)) * r / vy;
    if (horiz > 0.3 || spin > 0.3)
        return icv_err_set(err, ICV_EINVAL,
                           "drop: not a drop: the horizontal velocity is %.0f%% and the rotation (omega |r|) %.0f%% of "
                           "the fall speed; e_n needs a central, vertical impact",
                           100 * horiz, 100 * spin);
    if (horiz > 0.05)
        warn(out, "the drop is not vertical: horizontal velocity %.1f%% of the fall speed", 100 * horiz);
    if (spin > 0.05)
        warn(out, "the body rotates (omega |r| = %.1f%% of the fall speed): Newton's ratio is not the material's e_n",
             100 * spin);
    return 0;
}

void analysis_coefficient_combine(const analysis_coefficient *reps, int n, analysis_coefficient *out, double *chi2,
                                  double *p_value)
{
    *out = reps[0];
    out->n_warnings = 0;
    out->first_frame = out->last_frame = -1;
    snprintf(out->method, sizeof out->method, "mean of %d repeats (weighted by 1/sigma^2)", n);
    int weighted = 1;
    for (int i = 0; i < n; i++)
        weighted &= reps[i].sd > 0;
    double sw = 0, swx = 0;
    for (int i = 0; i < n; i++) {
        double w = weighted ? 1 / (reps[i].sd * reps[i].sd) : 1;
        sw += w;
        swx += w * reps[i].value;
    }
    out->value = swx / sw;
    double c2 = 0, ss = 0;
    for (int i = 0; i < n; i++) {
        double d = reps[i].value - out->value;
        ss += d * d;
        c2 += weighted ? d * d / (reps[i].sd * reps[i].sd) : 0;
    }
    out->sd = weighted ? 1 / sqrt(sw) : (n > 1 ? sqrt(ss / (n - 1) / n) : 0);
    *chi2 = c2;
    *p_value = weighted && n > 1 ? gsl_cdf_chisq_Q(c2, n - 1) : 1;
    if (weighted && n > 1 && *p_value < 0.01) {
        warn(out, "the %d repeats disagree beyond their sigmas (chi^2 = %.1f for %d degrees of freedom, p = %.2g)", n, c2,
             n - 1, *p_value);
        /* an honest error then: the spread, not the individual sigmas */
        out->sd = fmax(out->sd, sqrt(ss / (n - 1) / n));
    }
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *coef_json(const analysis_coefficient *c)
{
    json_t *w = json_array();
    for (int i = 0; i < c->n_warnings; i++)
        json_array_append_new(w, json_string(c->warnings[i]));
    json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:s, s:o}", "kind", c->kind, "coefficient", c->coefficient, "value",
                          num(c->value), "sigma", num(c->sd), "method", c->method, "warnings", w);
    json_object_set_new(o, "frames", c->first_frame >= 0 ? json_pack("[ii]", c->first_frame, c->last_frame)
                                                         : json_null());
    if (!strcmp(c->kind, "slide") || !strcmp(c->kind, "tilt")) {
        json_object_set_new(o, "incline_rad", num(c->theta));
        json_object_set_new(o, "incline_sigma_rad", num(c->theta_sd));
    }
    if (!strcmp(c->kind, "slide") && c->incline_method[0]) {
        json_object_set_new(o, "incline_method", json_string(c->incline_method));
        json_object_set_new(o, "incline_frames", c->incline_first >= 0
                                                     ? json_pack("[ii]", c->incline_first, c->incline_last)
                                                     : json_null());
        json_object_set_new(o, "gravity_mps2", num(c->g_norm));
        json_object_set_new(o, "gravity_sigma_mps2", num(c->g_norm_sd));
    }
    if (!strcmp(c->kind, "tilt") && c->first_frame >= 0) {
        json_object_set_new(o, "onset_time_s", num(c->onset_s));
        json_object_set_new(o, "onset_sigma_s", num(c->onset_sd));
    }
    if (!strcmp(c->kind, "slide")) {
        json_object_set_new(o, "acceleration_mps2", num(c->a));
        json_object_set_new(o, "acceleration_sigma_mps2", num(c->a_sd));
        json_object_set_new(o, "jerk_mps3", num(c->jerk));
        json_object_set_new(o, "jerk_sigma_mps3", num(c->jerk_sd));
        json_object_set_new(o, "residual_sigma_m", num(c->noise));
        json_object_set_new(o, "residual_lag1_correlation", num(c->noise_rho));
    }
    return o;
}

int analysis_coefficient_write(const char *path, const analysis_coefficient *c, const analysis_coefficient *repeats,
                               int n_repeats, icv_err *err)
{
    json_t *root = coef_json(c);
    json_object_set_new(root, "schema", json_string("impactcv-coefficients-1"));
    if (n_repeats > 1) {
        json_t *arr = json_array();
        for (int i = 0; i < n_repeats; i++)
            json_array_append_new(arr, coef_json(&repeats[i]));
        json_object_set_new(root, "repeats", arr);
    }
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (!text)
        return icv_err_set(err, ICV_ENOMEM, "%s: out of memory", path);
    size_t len = strlen(text);
    text[len] = '\n';
    int rc = icv_atomic_write(path, text, len + 1, err);
    free(text);
    return rc;
}
