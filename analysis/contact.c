/* contact.c: the frames where the body touches the surface without flying:
 * sliding, rolling, rocking or resting. Free flight cannot stay within
 * a band of height 2 c about the surface for longer than 2 sqrt(2 (2 c) / g) (a
 * parabola with its apex in the band); a run of posed frames whose gap stays within
 * c = 5 marker sigmas for longer is held there by the surface: its acceleration is
 * not g. Those frames are neither a flight for gravity nor a side's window. On real
 * cubes tossed onto a table the frames where they slid, rocked and
 * tumbled were taken as free flight: |g| 2-8.6 m/s^2. */
#include <math.h>

#include "analysis/analysis_internal.h"

int analysis_contact_find(const posed_frame *pf, int n, double sigma, double com_sigma, const analysis_tracks *tr,
                          unsigned char *contact, analysis_result *res)
{
    const double c = 5 * sigma, t_max = 2 * sqrt(2 * (2 * c) / 9.81);
    int k = 0;
    res->n_contacts = 0;
    for (int i = 0; i < n; i++)
        contact[i] = 0;
    while (k < n) {
        if (!(fabs(pf[k].gap) <= c)) {
            k++;
            continue;
        }
        int a = k;
        while (k + 1 < n && fabs(pf[k + 1].gap) <= c)
            k++;
        int b = k++;
        if (b - a + 1 < 3 || !(pf[b].t - pf[a].t > t_max))
            continue;
        for (int i = a; i <= b; i++)
            contact[i] = 1;
        if (res->n_contacts >= ANALYSIS_MAX_CONTACTS)
            continue;
        analysis_contact *s = &res->contacts[res->n_contacts++];
        s->frame_first = tr->frame[pf[a].row];
        s->frame_last = tr->frame[pf[b].row];
        s->t_first = pf[a].t;
        s->t_last = pf[b].t;
        /* moving on the surface (sliding, rolling, rocking) or still: the centre's
         * largest excursion from its first frame against the still rule's limit
         * (analysis_still_ends), or a turn */
        double moved = 0, turned = 0;
        for (int i = a + 1; i <= b; i++) {
            moved = fmax(moved, icv_v3_norm(icv_v3_sub(pf[i].pose.p, pf[a].pose.p)));
            turned = fmax(turned, icv_v3_norm(icv_rot_to_axis_angle(
                                      icv_m3_mul(pf[i].pose.R, icv_m3_transpose(pf[a].pose.R)))));
        }
        const double size = 0.05; /* m: a turn counts by its travel at 5 cm from the centre */
        s->sliding = moved > 4 * sqrt(2.0) * com_sigma || turned * size > 4 * sqrt(2.0) * com_sigma;
    }
    return res->n_contacts;
}
