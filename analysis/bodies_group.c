/* bodies_group.c: which other bodies take part in an impact between two. The bodies
 * in contact at the impact are the pair and every body whose gap to one of them is
 * within reach there, and so on through the bodies touching those (a row of balls).
 * One of them takes part when its own velocity changes across the impact; a body at
 * rest touching another that stays at rest is in contact, not in the impact. A pair
 * impact with a third body taking part is an impact of several bodies at once: each
 * one's momentum change is the sum of its neighbours' impulses, so the pair's
 * Newton's ratio and impulse cannot be had from the states before and after. */
#include <string.h>

#include "analysis/bodies_internal.h"

/* a third body's velocity change beyond this many of its sigmas takes part. Below the
   impacts' own jump_sigmas: a partner missed gives the pair a wrong number, a partner
   wrongly seen only leaves the pair unmeasured */
#define PARTNER_SIGMAS 5.0

int bodies_pair_index(int a, int b, int n)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    return a * n - a * (a + 1) / 2 + (b - a - 1);
}

unsigned bodies_contact_group(const unsigned char *within, int n_bodies, int nf, int ia, int ib, int row)
{
    unsigned mask = 1u << ia | 1u << ib;
    for (int grown = 1; grown;) {
        grown = 0;
        for (int x = 0; x < n_bodies; x++) {
            if (mask & 1u << x)
                continue;
            for (int y = 0; y < n_bodies && !(mask & 1u << x); y++) {
                if (!(mask & 1u << y) || y == x)
                    continue;
                const unsigned char *w = within + (size_t)bodies_pair_index(x, y, n_bodies) * (size_t)nf;
                /* the frame or a neighbour: a pose may be missing at the contact */
                for (int i = row - 1; i <= row + 1; i++)
                    if (i >= 0 && i < nf && w[i]) {
                        mask |= 1u << x;
                        grown = 1;
                        break;
                    }
            }
        }
    }
    return mask;
}

int bodies_takes_part(const analysis_body_track *bt, int row, int lo_row, int hi_row, const icv_vec3 *g,
                      const analysis_params *prm, double *jump, double *jump_sd)
{
    const analysis_tracks *tr = bt->tracks;
    double dt = bodies_frame_period(tr), excl = prm->exposure_s > 0 ? prm->exposure_s : dt;
    double t = tr->t[row];
    int f0, l0, f1, l1;
    *jump = *jump_sd = NAN;
    if (bodies_window(tr, t, excl, lo_row, hi_row, 0, prm->max_side_frames, &f0, &l0) == 0 ||
        bodies_window(tr, t, excl, lo_row, hi_row, 1, prm->max_side_frames, &f1, &l1) == 0)
        return -1;
    analysis_body_state pre, post;
    icv_err e1 = {0};
    if (analysis_body_side_fit(bt, f0, l0, t, g, prm, &pre, &e1) ||
        analysis_body_side_fit(bt, f1, l1, t, g, prm, &post, &e1))
        return -1;
    icv_vec3 dv = icv_v3_sub(post.v, pre.v);
    double var = 0;
    for (int k = 0; k < 3; k++) {
        double s0 = icv_v3_get(pre.v_sd, k), s1 = icv_v3_get(post.v_sd, k), d = icv_v3_get(dv, k);
        /* each axis's share of the change's variance along the change */
        double u = icv_v3_norm(dv) > 0 ? d / icv_v3_norm(dv) : 1 / sqrt(3.0);
        var += u * u * (s0 * s0 + s1 * s1);
    }
    *jump = icv_v3_norm(dv);
    *jump_sd = sqrt(var);
    return *jump > PARTNER_SIGMAS * *jump_sd;
}
