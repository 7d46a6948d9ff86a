/* coefficients_internal.h: what the coefficient files share inside analysis/: the
 * noise of a fit from its residuals, correlated between frames (coefficients_noise.c). */
#ifndef ICV_ANALYSIS_COEFFICIENTS_INTERNAL_H
#define ICV_ANALYSIS_COEFFICIENTS_INTERNAL_H

#include <gsl/gsl_matrix.h>

#include "analysis/coefficients.h"

#define COEF_MAX_P 4 /* parameters of the fits: a cubic at most */

typedef struct {
    double rho;                        /* the noise's correlation between neighbouring frames */
    double s2;                         /* its variance (units of the fitted samples, squared) */
    double cov[COEF_MAX_P][COEF_MAX_P]; /* the least-squares coefficients' covariance under it */
} coef_noise;

/* The noise of the least-squares fit with design X (n x p, p <= COEF_MAX_P) whose
 * residuals are r, samples at frames f (increasing), as AR(1) with rho in
 * [0, max_rho], by the method of moments on the residuals (the fit's own take of the
 * noise allowed for), and the coefficients' covariance (X'X)^-1 X' S X (X'X)^-1.
 * given (may be NULL): rho and s2 taken from it instead (r unused): a smaller fit of
 * the same samples under the noise the full model's residuals showed.
 * Returns 0, or -1 (n <= p, p too large, a singular design, out of memory). */
int analysis_coef_ar1_noise(const gsl_matrix *X, const double *r, const int *f, int n, double max_rho,
                            const coef_noise *given, coef_noise *out);

#endif
