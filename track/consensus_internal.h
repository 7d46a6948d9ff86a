/* consensus_internal.h: one quantity measured several ways (track/consensus.c). */
#ifndef ICV_TRACK_CONSENSUS_INTERNAL_H
#define ICV_TRACK_CONSENSUS_INTERNAL_H

typedef struct {
    double x;     /* the estimate (any unit, the same for all) */
    double sigma; /* its statistical 1-sigma, > 0 */
    int kept;     /* out: 1 when it agreed with the consensus */
} track_estimate;

/* The consensus of n estimates, each off by its own systematic error of a common spread
 * tau beyond its statistical sigma, and of a prior x0 +- sigma0 (sigma0 <= 0: none).
 * Random effects: tau from the estimates' scatter about their weighted mean
 * (DerSimonian-Laird, the prior included in the scatter but its own weight never
 * widened), the weighted median with weights 1 / (sigma_i^2 + tau^2) and 1 / sigma0^2;
 * estimates beyond 3 sqrt(sigma_i^2 + tau^2) of it are dropped and the rest combined
 * again (at most three times). Fills *x, *sigma = 1 / sqrt(sum of the kept weights) and
 * *tau; returns the number of estimates kept (the prior not counted), or -1 when there
 * is neither an estimate nor a prior. */
int track_consensus(track_estimate *e, int n, double x0, double sigma0, double *x, double *sigma, double *tau);

#endif
