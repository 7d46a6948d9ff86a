/* test_track_orient.c: a nearly symmetric template's orientation from the whole clip
 * (job/track_orient.c). Held-out scene 5067: a rod's four markers 70.9, 47.5 and
 * 71.3 mm apart were labelled back to front in the first frame (by its noise) and kept
 * so by continuity: every 3D point 125 mm from its marker. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_track_internal.h"
#include "tests/harness.h"

enum { F = 200, NM = 4, IDS = 4 };

/* the rod along x, markers at body y = -0.0909, -0.0200, 0.0275, 0.0988 m, moving;
 * written into xyz back to front (column k holds marker NM-1-k) when reversed, with
 * Gaussian noise of sd metres per coordinate */
static void clip(job_track *j, double *xyz, int *label, track_quality3d *q, int reversed, double sd)
{
    static const double y[NM] = {-0.0909, -0.0200, 0.0275, 0.0988};
    memset(j, 0, sizeof *j);
    j->exp.n_markers = NM;
    j->exp.n_cameras = 1;
    j->exp.n_bodies = 1;
    for (int k = 0; k < NM; k++)
        j->exp.markers[k] = icv_v3(0, y[k], 0);
    j->F = F;
    j->xyz = xyz;
    j->xyz_stride = NM;
    j->qrows = q;
    j->cams[0].label = label;
    j->cams[0].frames = F;
    j->cams[0].n_ids = IDS;
    uint64_t s = 12345;
    for (long f = 0; f < F; f++)
        for (int k = 0; k < NM; k++) {
            int m = reversed ? NM - 1 - k : k;
            double p[3] = {0.3 + 0.001 * f + y[m], 0.2 - 0.0005 * f, 0};
            for (int a = 0; a < 3; a++) { /* Box-Muller from a 64-bit LCG */
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                double u1 = ((s >> 11) + 0.5) / 9007199254740992.0;
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                double u2 = ((s >> 11) + 0.5) / 9007199254740992.0;
                xyz[(f * NM + k) * 3 + a] = p[a] + sd * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
            }
            label[f * IDS + k] = k; /* 2D track k carries the point labelled k */
            q[j->nq++] = (track_quality3d){.frame = f, .marker = k};
        }
}

/* m: the largest x error of a labelled point against its marker's truth */
static double worst_error(const job_track *j)
{
    static const double y[NM] = {-0.0909, -0.0200, 0.0275, 0.0988};
    double worst = 0;
    for (long f = 0; f < F; f++)
        for (int k = 0; k < NM; k++)
            worst = fmax(worst, fabs(j->xyz[(f * NM + k) * 3] - (0.3 + 0.001 * f + y[k])));
    return worst;
}

TEST(test_track_orient_a_nearly_symmetric_rod_labelled_back_to_front_is_turned)
{
    job_track *j = malloc(sizeof *j);
    double *xyz = malloc(sizeof *xyz * F * NM * 3);
    int *label = malloc(sizeof *label * F * IDS);
    track_quality3d *q = malloc(sizeof *q * F * NM);
    ASSERT(j && xyz && label && q, "out of memory");
    /* 0.2 mm noise a coordinate: each frame's misfit of the wrong way round is ~0.4 mm
       on four of the six pairs, the noise ~0.3 mm, so a frame alone often cannot tell */
    clip(j, xyz, label, q, 1, 0.0002);
    job_track_orient_template(j);
    /* turned: within 5 noise sigmas of the truth in every frame, the 2D tracks and the
       quality rows renamed with them */
    double w = worst_error(j);
    ASSERT(w < 0.001, "worst x error after orienting %.4f m", w);
    ASSERT_EQ_INT(label[0], NM - 1);
    ASSERT_EQ_INT(label[NM - 1], 0);
    ASSERT_EQ_INT(q[0].marker, NM - 1);
    /* the right way round stays */
    clip(j, xyz, label, q, 0, 0.0002);
    job_track_orient_template(j);
    ASSERT(worst_error(j) < 0.001, "a right labelling was turned");
    ASSERT_EQ_INT(label[0], 0);
    /* an exactly symmetric template (evenly spaced) keeps its labels either way */
    clip(j, xyz, label, q, 1, 0.0002);
    for (int k = 0; k < NM; k++)
        j->exp.markers[k] = icv_v3(0, -0.075 + 0.05 * k, 0);
    job_track_orient_template(j);
    ASSERT_EQ_INT(label[0], 0);
    free(j), free(xyz), free(label), free(q);
}
