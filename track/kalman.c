/* kalman.c: a constant-acceleration Kalman filter for a marker's image position,
 * the predictor the tracker uses to associate detections (never to smooth written
 * positions). Discrete white-jerk process noise (Bar-Shalom, Li & Kirubarajan,
 * "Estimation with Applications to Tracking and Navigation", sec. 6.3.3). */
#include "track/kalman_internal.h"

void track_kalman_init(track_kalman *k, double u, double v, double pos_sigma, double vel_sigma, double acc_u,
                       double acc_v, double acc_sigma)
{
    k->xu[0] = u;
    k->xu[1] = 0;
    k->xu[2] = acc_u;
    k->xv[0] = v;
    k->xv[1] = 0;
    k->xv[2] = acc_v;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            k->P[i][j] = 0;
    k->P[0][0] = pos_sigma * pos_sigma;
    k->P[1][1] = vel_sigma * vel_sigma;
    k->P[2][2] = acc_sigma * acc_sigma;
}

void track_kalman_predict(track_kalman *k, double q)
{
    static const double F[3][3] = {{1, 1, 0.5}, {0, 1, 1}, {0, 0, 1}};
    /* white jerk, dt = 1: Q = q^2 [[1/20 1/8 1/6] [1/8 1/3 1/2] [1/6 1/2 1]] */
    const double Q[3][3] = {{1.0 / 20, 1.0 / 8, 1.0 / 6}, {1.0 / 8, 1.0 / 3, 0.5}, {1.0 / 6, 0.5, 1}};
    double xu[3], xv[3], FP[3][3];
    for (int i = 0; i < 3; i++) {
        xu[i] = xv[i] = 0;
        for (int j = 0; j < 3; j++) {
            xu[i] += F[i][j] * k->xu[j];
            xv[i] += F[i][j] * k->xv[j];
            FP[i][j] = 0;
            for (int l = 0; l < 3; l++)
                FP[i][j] += F[i][l] * k->P[l][j];
        }
    }
    for (int i = 0; i < 3; i++) {
        k->xu[i] = xu[i];
        k->xv[i] = xv[i];
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int l = 0; l < 3; l++)
                s += FP[i][l] * F[j][l];
            k->P[i][j] = s + q * q * Q[i][j];
        }
    }
}

double track_kalman_innovation_var(const track_kalman *k, double r)
{
    return k->P[0][0] + r;
}

void track_kalman_update(track_kalman *k, double u, double v, double r)
{
    /* H = [1 0 0]: the gain is P's first column over S */
    double S = k->P[0][0] + r, K[3];
    for (int i = 0; i < 3; i++)
        K[i] = k->P[i][0] / S;
    double iu = u - k->xu[0], iv = v - k->xv[0];
    for (int i = 0; i < 3; i++) {
        k->xu[i] += K[i] * iu;
        k->xv[i] += K[i] * iv;
    }
    double P0[3];
    for (int j = 0; j < 3; j++)
        P0[j] = k->P[0][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            k->P[i][j] -= K[i] * P0[j];
}
