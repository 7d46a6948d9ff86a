/* kalman_internal.h (private to track/): a constant-acceleration Kalman filter for one
 * marker's image position, per frame (dt = 1 frame). */
#ifndef ICV_TRACK_KALMAN_INTERNAL_H
#define ICV_TRACK_KALMAN_INTERNAL_H

/* State per image axis [position px, velocity px/frame, acceleration px/frame^2].
 * The two axes share one covariance P: their model, prior and measurement noise
 * (isotropic centroid sigma) are the same, so their covariances stay equal. */
typedef struct {
    double xu[3], xv[3];
    double P[3][3];
} track_kalman;

void track_kalman_init(track_kalman *k, double u, double v, double pos_sigma, double vel_sigma, double acc_u,
                       double acc_v, double acc_sigma);
/* x = F x, P = F P F^T + Q with Q the white-jerk model of spectral density q^2. */
void track_kalman_predict(track_kalman *k, double q);
/* The innovation variance of u (= of v) for a measurement of variance r (px^2). */
double track_kalman_innovation_var(const track_kalman *k, double r);
void track_kalman_update(track_kalman *k, double u, double v, double r);

#endif
