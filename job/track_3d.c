/* track_3d.c: the track stage's 3D pass. Per reference frame: undistort, associate
 * across cameras by epipolar distance, interpolate the other cameras inside one flight
 * segment, triangulate (DLT + Gauss-Newton, Hartley & Zisserman 12.2, 12.5) or meet the
 * motion plane (one camera), to the surface frame; outliers; one camera's scale; the
 * template check; identity from body.markers (identity.c) and the ray pose of markers
 * one camera alone sees (ray_pose.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "job/job_track_internal.h"

static int usable_point(const track_sync_point *p)
{
    return !(p->flags & (TRACK_FLAG_COASTED | TRACK_FLAG_MERGED | TRACK_FLAG_OUTLIER));
}

/* The views of camera b at the reference camera's experiment time t_exp: its tracks
 * interpolated inside one flight segment, or extrapolated by less than a frame past its
 * clip's ends (flags: TRACK_FLAG_INTERPOLATED / _EXTRAPOLATED of each view). */
static void other_views(const job_track_camera *b, const job_track_options *opt, double t_exp, track_view *vb, int *idb,
                        unsigned *flags, int *nb)
{
    double tc = t_exp + b->off_s;
    long fb = (long)floor((tc - b->tcam[0]) * b->pc.fps);
    *nb = 0;
    for (long g = fb; g <= fb + 1; g++) {
        if (g < 0 || g >= b->frames)
            continue;
        for (long i = b->frame_start[g]; i < b->frame_start[g + 1] && *nb < TRACK_MAX_TRACKS; i++) {
            int id = b->pts[i].id, dup = 0;
            for (int k = 0; k < *nb; k++)
                dup |= idb[k] == id;
            if (dup)
                continue;
            double u, v, s;
            int interp;
            if (track_sync_interpolate(&b->pc, id, tc, &u, &v, &s, &interp) == 0)
                flags[*nb] = interp ? TRACK_FLAG_INTERPOLATED : 0;
            else if (track_sync_extrapolate(&b->pc, id, tc, opt->extrapolate_frames, &u, &v, &s) == 0)
                flags[*nb] = TRACK_FLAG_EXTRAPOLATED;
            else
                continue;
            vb[*nb] = b->pc.view;
            vb[*nb].u = u, vb[*nb].v = v, vb[*nb].sigma = s;
            idb[(*nb)++] = id;
        }
    }
}

/* The ray of a view's pixel, in the surface frame (for the identity: a point one camera
 * alone sees). */
static void view_ray(const track_view *v, const calib_surface *s, int cam, int track, double sigma_floor_px,
                     track_identity_ray *r)
{
    r->cam = cam;
    r->track = track;
    r->f_px = sqrt(v->K[0][0] * v->K[1][1]);
    r->sigma_rad = hypot(v->sigma, sigma_floor_px) / r->f_px;
    double y = (v->v - v->K[1][2]) / v->K[1][1], x = (v->u - v->K[0][2] - v->K[0][1] * y) / v->K[0][0];
    double dc[3] = {x, y, 1}, d[3], c[3];
    for (int i = 0; i < 3; i++) { /* the reference camera's frame: R^T (.), centre -R^T t */
        d[i] = c[i] = 0;
        for (int k = 0; k < 3; k++) {
            d[i] += v->R[k][i] * dc[k];
            c[i] -= v->R[k][i] * v->t[k];
        }
    }
    icv_mat3 Rt = icv_m3_transpose(s->R);
    r->o = icv_m3_apply(Rt, icv_v3_sub(icv_v3_from_array(c), s->t));
    r->d = icv_m3_apply(Rt, icv_v3_from_array(d));
    r->d = icv_v3_scale(r->d, 1.0 / icv_v3_norm(r->d));
}

/* Candidates of reference frame f: triangulated from every camera whose view of the
 * reference camera's detection lies on its epipolar line (two or more cameras), or on
 * the motion plane (one camera). rays: the views no candidate took (two or more
 * cameras; up to TRACK_IDENTITY_MAX_RAYS), for the identity. */
static int frame_candidates(job_track_camera *cams, int nc, const track_calibration *cal, const job_track_options *opt,
                            double sphere_r, long f, double t_exp, track_candidate *cand, int *n_cand,
                            track_identity_ray *rays, int *n_rays, icv_err *err)
{
    job_track_camera *a = &cams[0];
    *n_cand = 0;
    *n_rays = 0;
    track_view va[TRACK_MAX_TRACKS];
    int ida[TRACK_MAX_TRACKS], na = 0;
    for (long i = a->frame_start[f]; i < a->frame_start[f + 1] && na < TRACK_MAX_TRACKS; i++) {
        const track_sync_point *p = &a->pts[i];
        if (!usable_point(p))
            continue;
        va[na] = a->pc.view;
        va[na].u = p->u, va[na].v = p->v, va[na].sigma = p->sigma;
        ida[na++] = p->id;
    }
    if (nc == 1) {
        double p0[3], nrm[3];
        icv_v3_to_array(cal->plane.t, p0);
        for (int k = 0; k < 3; k++)
            nrm[k] = cal->plane.R.m[k][1];
        for (int i = 0; i < na && *n_cand < TRACK_MAX_CAND; i++) {
            track_point3d X;
            if (track_ray_plane_sphere(&va[i], p0, nrm, sphere_r, &X, NULL) != 0)
                continue;
            track_candidate *c = &cand[(*n_cand)++];
            track_to_surface(&cal->surf, X.X, X.cov, c);
            c->X.z = 0; /* planar mode: z is the motion plane's normal (contract) */
            c->residual = 0;
            c->chi2 = 0;
            c->flags = 0;
            c->nv = 1;
            c->cam[0] = 0;
            c->id[0] = ida[i];
            c->v[0] = va[i];
        }
        return 0;
    }
    if (na == 0)
        return 0;
    /* each other camera: its views at this time, matched to the reference's detections */
    track_view vb[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS];
    int idb[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS], nb[ICV_MAX_CAMERAS], match[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS];
    unsigned fb[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS];
    for (int k = 1; k < nc; k++) {
        other_views(&cams[k], opt, t_exp, vb[k], idb[k], fb[k], &nb[k]);
        for (int i = 0; i < na; i++)
            match[k][i] = -1;
        if (nb[k] == 0)
            continue;
        int rc = track_epipolar_match(va, na, vb[k], nb[k], opt->epipolar_max_px, match[k], err);
        if (rc)
            return rc;
        if (opt->debug_frames && icv_log_get_level() >= ICV_LOG_DEBUG)
            for (int i = 0; i < na; i++)
                icv_debug("frame %ld: camera 0 track %d (%.2f, %.2f) px matched camera %d track %d", f, ida[i],
                          va[i].u, va[i].v, k, match[k][i] >= 0 ? idb[k][match[k][i]] : -1);
    }
    int took[ICV_MAX_CAMERAS][TRACK_MAX_TRACKS]; /* view used by a candidate */
    memset(took, 0, sizeof took);
    for (int i = 0; i < na && *n_cand < TRACK_MAX_CAND; i++) {
        track_candidate c;
        unsigned vflag[ICV_MAX_CAMERAS] = {0}; /* each view's interpolated / extrapolated */
        memset(&c, 0, sizeof c);
        c.v[0] = va[i];
        c.cam[0] = 0;
        c.id[0] = ida[i];
        c.nv = 1;
        for (int k = 1; k < nc; k++) {
            int m = match[k][i];
            if (m < 0)
                continue;
            c.v[c.nv] = vb[k][m];
            c.cam[c.nv] = k;
            c.id[c.nv] = idb[k][m];
            vflag[c.nv] = fb[k][m];
            c.nv++;
        }
        if (c.nv < 2)
            continue;
        for (int k = 0; k < c.nv; k++)
            c.v[k].sigma = hypot(c.v[k].sigma, opt->sigma_floor_px);
        track_point3d X;
        int ok = track_triangulate(c.v, c.nv, &X, NULL) == 0;
        /* three or more views: one whose reprojection misses by more than the association
           limit is a wrong match in that camera (each pair was matched on its own): it is
           dropped and the point triangulated again from the others */
        while (ok && c.nv > 2) {
            int worst = -1;
            for (int k = 1; k < c.nv; k++)
                if (X.residual[k] > opt->epipolar_max_px && (worst < 0 || X.residual[k] > X.residual[worst]))
                    worst = k;
            if (worst < 0)
                break;
            for (int k = worst; k + 1 < c.nv; k++) {
                c.v[k] = c.v[k + 1];
                c.cam[k] = c.cam[k + 1];
                c.id[k] = c.id[k + 1];
                vflag[k] = vflag[k + 1];
            }
            c.nv--;
            ok = track_triangulate(c.v, c.nv, &X, NULL) == 0;
        }
        if (!ok)
            continue;
        for (int k = 0; k < c.nv; k++)
            c.flags |= vflag[k];
        c.chi2 = X.chi2;
        track_to_surface(&cal->surf, X.X, X.cov, &c);
        c.residual = X.residual_px;
        cand[(*n_cand)++] = c;
        took[0][i] = 1;
        for (int w = 1; w < c.nv; w++)
            if (match[c.cam[w]][i] >= 0)
                took[c.cam[w]][match[c.cam[w]][i]] = 1;
    }
    for (int i = 0; i < na && *n_rays < TRACK_IDENTITY_MAX_RAYS; i++)
        if (!took[0][i])
            view_ray(&va[i], &cal->surf, 0, ida[i], opt->sigma_floor_px, &rays[(*n_rays)++]);
    for (int k = 1; k < nc; k++)
        for (int m = 0; m < nb[k] && *n_rays < TRACK_IDENTITY_MAX_RAYS; m++)
            if (!took[k][m] && !(fb[k][m] & TRACK_FLAG_EXTRAPOLATED))
                view_ray(&vb[k][m], &cal->surf, k, idb[k][m], opt->sigma_floor_px, &rays[(*n_rays)++]);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The centroids' sigmas hold the noise, not the model error of a marker whose visible
 * part differs between the cameras (a band round a rod): the triangulations' median
 * chi-square against that of a chi-square of their degrees of freedom (0.455 for two
 * views) scales the sigmas (never down), so the covariance stays honest; a point beyond
 * the 99.9% limit at that scale is an outlier and is dropped. */
static int flag_outliers(track_candidate *cand, int *cand_n, long F, job_track_camera *ref, const calib_surface *surf,
                         track_identity_ray *rays, const int *rays_n, int *rays_extra, long *n_out, double *scale,
                         icv_err *err)
{
    for (long f = 0; f < F; f++)
        rays_extra[f] = 0;
    long n = 0;
    for (long f = 0; f < F; f++)
        n += cand_n[f];
    *scale = 1;
    if (n == 0)
        return 0;
    double *c2 = malloc(sizeof *c2 * (size_t)n);
    if (!c2)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    /* each point's chi-square over the median of a chi-square of its 2 nv - 3 degrees of
       freedom (0.455 for two views): the median of that ratio is the sigmas' scale^2 */
    double med_dof[ICV_MAX_CAMERAS + 1], lim_dof[ICV_MAX_CAMERAS + 1];
    for (int v = 2; v <= ICV_MAX_CAMERAS; v++) {
        med_dof[v] = track_chi2_median(2 * v - 3);
        lim_dof[v] = track_chi2_limit(2 * v - 3);
    }
    long k = 0;
    for (long f = 0; f < F; f++)
        for (int i = 0; i < cand_n[f]; i++) {
            const track_candidate *c = &cand[f * TRACK_MAX_CAND + i];
            c2[k++] = c->chi2 / med_dof[c->nv];
        }
    qsort(c2, (size_t)n, sizeof *c2, cmp_double);
    double med = c2[n / 2];
    free(c2);
    double s2 = med > 1 ? med : 1;
    *scale = sqrt(s2);
    for (long f = 0; f < F; f++) {
        track_candidate *c = cand + f * TRACK_MAX_CAND;
        int m = 0;
        for (int i = 0; i < cand_n[f]; i++) {
            if (c[i].chi2 > s2 * lim_dof[c[i].nv]) {
                (*n_out)++;
                /* the reference camera's point is flagged in tracks2d (the others' were
                   interpolated between two of their points: left as measured) */
                for (long r = ref->frame_start[f]; r < ref->frame_start[f + 1]; r++)
                    if (ref->raw[r].id == c[i].id[0])
                        ref->raw[r].flags |= TRACK_FLAG_OUTLIER;
                /* each view on its own is a ray for the ray pose (one of them may be
                   right: a marker half hidden from one camera); after the identity's
                   rays, which it does not see */
                for (int w = 0; w < c[i].nv && rays_n[f] + rays_extra[f] < TRACK_IDENTITY_MAX_RAYS; w++)
                    view_ray(&c[i].v[w], surf, c[i].cam[w], c[i].id[w], 0,
                             &rays[f * TRACK_IDENTITY_MAX_RAYS + rays_n[f] + rays_extra[f]++]);
                continue;
            }
            c[m] = c[i];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    c[m].cov[a][b] *= s2;
            m++;
        }
        cand_n[f] = m;
    }
    return 0;
}

/* One-camera mode: a marker off the body's plane of motion (body z != 0, e.g. a sticker
 * on a bar's front face) moves in the plane parallel to the motion plane at that
 * offset along the surface z (the body's z stays the motion plane's normal in planar
 * motion). Its ray meets that plane; z is then written 0 (contract, planar mode). */
void job_track_planar_marker_plane(const track_calibration *cal, double dz, track_candidate *c)
{
    double p0[3], nrm[3];
    for (int k = 0; k < 3; k++) {
        nrm[k] = cal->plane.R.m[k][1];
        p0[k] = icv_v3_get(cal->plane.t, k) + dz * cal->surf.R.m[k][2];
    }
    track_point3d X;
    if (track_ray_plane(&c->v[0], p0, nrm, &X, NULL) != 0)
        return;
    track_to_surface(&cal->surf, X.X, X.cov, c);
    c->X.z = 0;
}

/* One camera with markers off the motion plane (some body z != 0): candidate i's
 * position as marker j (its ray meets that marker's plane) into Xm[i * nm + j], for the
 * template's identity; 0 when every marker is on the plane (the candidates' own X then). */
static int planar_per_marker(const track_calibration *cal, const icv_experiment *exp, const track_candidate *cf, int n,
                             icv_vec3 *Xm)
{
    int off = 0;
    for (int j = 0; j < exp->n_markers; j++)
        off |= exp->markers[j].z != 0;
    if (!off || exp->n_cameras != 1)
        return 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < exp->n_markers; j++) {
            track_candidate c = cf[i];
            if (exp->markers[j].z != 0)
                job_track_planar_marker_plane(cal, exp->markers[j].z, &c);
            Xm[i * exp->n_markers + j] = c.X;
        }
    return 1;
}

/* Each reference-camera 2D track's travel over the clip (m), for the identity of points
 * the template cannot tell apart (a ball beside the reference cylinder): per surface axis
 * the spread of its candidates' positions from the 10th to the 90th percentile (a wrong
 * frame or two left out), their norm. travel[0..n_ids): 0 for a track with no candidate,
 * and for one seen in fewer than 10 frames (a quarter of a shorter clip): a few noise
 * blobs the tracker linked 40 px apart are no flight, and outran a ball that moved 25 px
 * in 139 frames (random scene 5148, 3000 fps). */
static int track_travels(const track_candidate *cand, const int *cand_n, long F, int n_ids, double *travel,
                         icv_err *err)
{
    long n = 0;
    for (long f = 0; f < F; f++)
        n += cand_n[f];
    long *start = calloc((size_t)n_ids + 2, sizeof *start), *fill = calloc((size_t)n_ids + 1, sizeof *fill);
    double *v = malloc(sizeof *v * (size_t)(3 * n + 1));
    if (!start || !fill || !v) {
        free(start);
        free(fill);
        free(v);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    for (long f = 0; f < F; f++)
        for (int i = 0; i < cand_n[f]; i++) {
            int id = cand[f * TRACK_MAX_CAND + i].id[0];
            if (id >= 0 && id < n_ids)
                start[id + 1]++;
        }
    for (int k = 0; k < n_ids; k++)
        start[k + 1] += start[k];
    for (long f = 0; f < F; f++)
        for (int i = 0; i < cand_n[f]; i++) {
            const track_candidate *c = &cand[f * TRACK_MAX_CAND + i];
            int id = c->id[0];
            if (id < 0 || id >= n_ids)
                continue;
            long at = start[id] + fill[id]++;
            for (int a = 0; a < 3; a++)
                v[a * n + at] = icv_v3_get(c->X, a);
        }
    double min_seen = fmin(10, 0.25 * (double)F);
    for (int k = 0; k < n_ids; k++) {
        long m = start[k + 1] - start[k];
        double s2 = 0;
        if ((double)m < min_seen) {
            travel[k] = 0;
            continue;
        }
        for (int a = 0; a < 3 && m > 0; a++) {
            double *x = v + a * n + start[k];
            qsort(x, (size_t)m, sizeof *x, cmp_double);
            double d = x[(m - 1) * 9 / 10] - x[(m - 1) / 10];
            s2 += d * d;
        }
        travel[k] = sqrt(s2);
    }
    free(start);
    free(fill);
    free(v);
    return 0;
}

/* Whether the template's markers with have[] set fix a pose: 2 on a line template, else
 * 3 not on one line (as analysis's pose fit asks). have NULL: whether the template is a
 * line (all its markers then fix it only as a line's 2 would). */
static int pose_determined(const icv_vec3 *tmpl, int nm, const int *have)
{
    int idx[ICV_MAX_MARKERS], n = 0, line = 1;
    for (int k = 0; k < nm; k++)
        if (!have || have[k])
            idx[n++] = k;
    for (int a = 0; a < nm && line; a++)
        for (int b = a + 1; b < nm && line; b++)
            for (int c = b + 1; c < nm && line; c++)
                line = icv_v3_norm(icv_v3_cross(icv_v3_sub(tmpl[b], tmpl[a]), icv_v3_sub(tmpl[c], tmpl[a]))) <=
                       1e-9;
    if (line)
        return have ? n >= 2 : 1;
    if (!have)
        return 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            for (int c = b + 1; c < n; c++)
                if (icv_v3_norm(icv_v3_cross(icv_v3_sub(tmpl[idx[b]], tmpl[idx[a]]),
                                             icv_v3_sub(tmpl[idx[c]], tmpl[idx[a]]))) > 1e-9)
                    return 1;
    return 0;
}

/* The frame's rays as markers of the body, in a frame whose labelled points (two at
 * least, one on a line) do not fix its pose: a ray whose 2D track was labelled a marker
 * not in the frame is that marker. The pose from the points and those rays (ray_pose.c;
 * failing that, the best without one ray) places each such marker on its ray: written to
 * xyz (this frame's nm x 3) and qrows, flag one_view, its 2D track labelled. prior /
 * prior_f: the last frame's pose (updated). Returns the positions added. */
int job_track_ray_pose_frame(job_track_camera *cams, const track_identity *ident, const icv_vec3 *tmpl, int nm, int off,
                             const icv_vec3 *X, const track_candidate *cf, const int *lab, int n_cand, long f, double t,
                             const track_identity_ray *rays, int n_rays, double sigma_scale, track_pose *prior,
                             long *prior_f, double *xyz, track_quality3d *qrows, long *nq)
{
    if (nm < 2)
        return 0;
    track_pose_obs obs[TRACK_POSE_MAX_OBS];
    int n = 0, have[ICV_MAX_MARKERS] = {0}, ray_of[TRACK_POSE_MAX_OBS];
    long g_of[TRACK_POSE_MAX_OBS];
    for (int i = 0; i < n_cand && n < TRACK_POSE_MAX_OBS; i++)
        if (lab[i] >= 0 && !have[lab[i]]) {
            have[lab[i]] = 1;
            obs[n] = (track_pose_obs){.marker = lab[i], .X = cf[i].X};
            memcpy(obs[n].cov, cf[i].cov, sizeof obs[n].cov);
            ray_of[n++] = -1;
        }
    const track_pose *pr = *prior_f >= f - 3 && *prior_f < f ? prior : NULL;
    track_pose pose;
    if (pose_determined(tmpl, nm, have)) { /* posed without rays: the next frame's prior */
        if (track_ray_pose_fit(tmpl, nm, obs, n, pr, &pose, NULL) == 0)
            *prior = pose, *prior_f = f;
        return 0;
    }
    /* two points at least (one on a line): rays alone fix the depth poorly (docs/track.md,
       "A marker one camera alone sees") */
    int n_pt = n;
    if (n_pt < (pose_determined(tmpl, nm, NULL) ? 1 : 2))
        return 0;
    for (int r = 0; r < n_rays && n < TRACK_POSE_MAX_OBS; r++) {
        const track_identity_ray *ry = &rays[r];
        job_track_camera *cm = &cams[ry->cam];
        long g = f;
        if (ry->cam >= 1)
            g = lround((t + cm->off_s - cm->tcam[0]) * cm->pc.fps);
        if (g < 0 || g >= cm->frames || ry->track < 0 || ry->track >= cm->n_ids)
            continue;
        int m = job_track_label_2d(cm, g, ry->track), by_tmpl = 0;
        if (m >= 0)
            m -= off; /* another body's marker: below 0 or from nm on */
        else if (ident) { /* a track never labelled: the one marker the template's distances
                             from the frame's points leave it (a marker one camera alone
                             sees); a glint crossing the template's circle by chance is
                             left to the pose's fit to refuse */
            m = track_identity_ray_marker(ident, X, lab, n_cand, ry);
            by_tmpl = 1;
        }
        if (m >= nm)
            continue;
        if (m < 0 || have[m] == 1 || (by_tmpl && have[m])) /* not this body's, or of a marker in 3D */
            continue;
        have[m] = 2;
        obs[n] = (track_pose_obs){.marker = m, .is_ray = 1, .o = ry->o, .d = ry->d,
                                  .sigma_rad = ry->sigma_rad * sigma_scale};
        g_of[n] = g;
        ray_of[n++] = r;
    }
    icv_err e2 = {0};
    int fit = n > n_pt && track_ray_pose_fit(tmpl, nm, obs, n, pr, &pose, &e2) == 0;
    if (!fit && n - n_pt >= 2) { /* one ray may be wrong (a marker half hidden): the best fit without one */
        track_pose_obs o2[TRACK_POSE_MAX_OBS];
        track_pose best;
        int out = -1;
        for (int k = n_pt; k < n; k++) {
            int m = 0;
            for (int i = 0; i < n; i++)
                if (i != k)
                    o2[m++] = obs[i];
            if (track_ray_pose_fit(tmpl, nm, o2, m, pr, &pose, NULL) == 0 && (out < 0 || pose.chi2 < best.chi2)) {
                best = pose;
                out = k;
            }
        }
        if (out >= 0) {
            for (int i = out; i + 1 < n; i++) {
                obs[i] = obs[i + 1];
                g_of[i] = g_of[i + 1];
                ray_of[i] = ray_of[i + 1];
            }
            n--;
            pose = best;
            fit = 1;
        }
    }
    if (!fit) {
        icv_debug("frame %ld: ray pose: %d points, %d rays of %d: %s", f, n_pt, n - n_pt, n_rays,
                  n == n_pt ? "no ray is a marker" : e2.msg);
        return 0;
    }
    *prior = pose;
    *prior_f = f;
    icv_debug("frame %ld: ray pose from %d points and %d rays, chi-square %.1f of %d", f, n_pt, n - n_pt, pose.chi2,
              pose.dof);
    int added = 0;
    for (int i = n_pt; i < n; i++) {
        const track_identity_ray *ry = &rays[ray_of[i]];
        int m = obs[i].marker;
        double *o = xyz + (size_t)m * 3;
        if (isfinite(o[0])) /* two rays of one marker: one position */
            continue;
        icv_vec3 Y;
        track_quality3d *q = &qrows[(*nq)++];
        track_ray_pose_marker(&pose, tmpl[m], &Y, q->cov);
        o[0] = Y.x, o[1] = Y.y, o[2] = Y.z;
        icv_vec3 e = icv_v3_sub(Y, ry->o);
        double s = icv_v3_dot(e, ry->d);
        q->frame = f;
        q->time_s = t;
        q->marker = off + m;
        q->residual_px = ry->f_px * icv_v3_norm(icv_v3_axpy(-s, ry->d, e)) / s;
        q->flags = TRACK_FLAG_ONE_VIEW;
        cams[ry->cam].label[g_of[i] * cams[ry->cam].n_ids + ry->track] = off + m;
        added++;
    }
    return added;
}


/* The per-frame arrays of the 3D pass, F reference frames. */
static int alloc_3d(job_track *j, icv_err *err)
{
    long F = j->F;
    int nm = j->exp.n_markers;
    j->cand = malloc(sizeof *j->cand * (size_t)(F * TRACK_MAX_CAND + 1));
    j->rays = malloc(sizeof *j->rays * (size_t)(F * TRACK_IDENTITY_MAX_RAYS + 1));
    j->rays_n = calloc((size_t)F + 1, sizeof *j->rays_n);
    j->rays_extra = calloc((size_t)F + 1, sizeof *j->rays_extra);
    j->cand_n = calloc((size_t)F + 1, sizeof *j->cand_n);
    j->fr3 = malloc(sizeof *j->fr3 * (size_t)(F + 1));
    j->t3 = malloc(sizeof *j->t3 * (size_t)(F + 1));
    j->xyz = malloc(sizeof *j->xyz * (size_t)(F * nm * 3 + 1));
    j->qrows = malloc(sizeof *j->qrows * (size_t)(F * nm + 1));
    j->axes = malloc(sizeof *j->axes * (size_t)(F + 1));
    if (!j->cand || !j->cand_n || !j->rays || !j->rays_n || !j->rays_extra || !j->fr3 || !j->t3 || !j->xyz ||
        !j->qrows || !j->axes)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    return 0;
}

/* The second pass with band markers: both cameras' points moved to the rod's axis
 * (undistorted), the labels cleared, the offset refined again from them, and the
 * first pass's counts reset. */
static void band_pass_prepare(job_track *j)
{
    job_track_result *res = &j->res;
    job_track_camera *cams = j->cams;
    int nc = j->exp.n_cameras, nm = j->exp.n_markers;
    for (int c = 0; c < nc; c++) {
        job_track_camera *cm = &cams[c];
        for (long i = 0; i < cm->n_raw; i++) {
            track_sync_point *pp = &cm->pts[i];
            int l = job_track_label_2d(cm, pp->frame, pp->id);
            if (l >= 0 && j->band.band[l] && usable_point(pp))
                track_band_shift_2d(&j->band, c, &j->cal, &cm->pc.view, cams[0].tcam, cams[0].off_s, cams[0].pc.fps,
                                    j->F, j->xyz, j->axes, nm, l, cm->tcam[pp->frame] - cm->off_s, &pp->u, &pp->v);
        }
        for (long i = 0; i < cm->frames * (cm->n_ids ? cm->n_ids : 1); i++)
            cm->label[i] = -1;
    }
    j->corrected = 1;
    for (int k = 1; k < nc; k++) {
        double off, sig, rms;
        icv_err e2;
        if (res->offset_refined_each[k] &&
            job_track_refine_offset(j, k, &off, &sig, &rms, &e2) == 0) {
            res->offset_frames[k] = off;
            res->offset_sigma_each[k] = sig;
            res->offset_residual_each_px[k] = rms;
            cams[k].off_s = off / j->fps[k];
        }
    }
    res->offset_sigma_frames = res->offset_sigma_each[1];
    res->offset_residual_px = res->offset_residual_each_px[1];
    track_identity_free(j->ident);
    j->ident = NULL;
    res->outliers3d = res->points3d = res->interpolated3d = res->extrapolated3d = res->band_corrected =
        res->swaps_repaired = res->one_view3d = 0;
    memset(res->points3d_by_views, 0, sizeof res->points3d_by_views);
    j->nq = 0;
    j->band.t_axis = -INFINITY;
}

/* A sphere whose one marker is its centre: its rays are corrected for the sphere's
 * outline (track_ray_plane_sphere) once the motion plane is in metres. */
static int ball_is_its_marker(const icv_experiment *exp)
{
    const icv_shape *sh = &exp->shape;
    return exp->n_cameras == 1 && exp->n_markers == 1 && sh->type == ICV_SHAPE_SPHERE && sh->radius > 0 &&
           icv_v3_norm(exp->markers[0]) < 1e-9;
}

/* Every reference frame's candidates (frame_candidates). */
static int candidates_all(job_track *j, icv_err *err)
{
    job_track_camera *cams = j->cams;
    for (long f = 0; f < j->F; f++) {
        double t = cams[0].tcam[f] - cams[0].off_s;
        int rc = frame_candidates(cams, j->exp.n_cameras, &j->cal, &j->opt, j->sphere_r, f, t,
                                  j->cand + f * TRACK_MAX_CAND, &j->cand_n[f], j->rays + f * TRACK_IDENTITY_MAX_RAYS,
                                  &j->rays_n[f], err);
        if (rc)
            return rc;
    }
    return 0;
}

/* One camera: the motion plane in metres, before the template needs them: from the
 * free flight (scale: gravity), the ball's outline (scale: size; the free flight
 * measured beside it), or the known length (points_px; the free flight beside it);
 * with no surface key, the surface at the lowest point reached. */
static int plane_scale(job_track *j, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    track_calibration *cal = &j->cal;
    job_track_result *res = &j->res;
    job_track_camera *cams = j->cams;
    long F = j->F;
    int rc;
    /* a ball that is its own marker: its image's centre lies (r/D)^2 farther from the
       principal point than its centre's projection (0.05 mm low at a plate for a 41 mm
       ball at 1.2 m: the instant early, e high at 120-240 fps); corrected with D once
       the plane is in metres, every ray met again (the provisional depth's D is not the
       ball's) */
    const icv_shape *sh = &exp->shape;
    int ball = ball_is_its_marker(exp) && !(j->sphere_r > 0); /* else set from the start */
    if (exp->scale_kind == ICV_SCALE_GRAVITY) {
        for (long f = 0; f < F; f++)
            j->t3[f] = cams[0].tcam[f] - cams[0].off_s;
        if ((rc = track_gravity_scale_apply(exp, cal, j->cand, j->cand_n, F, j->t3, err)) != 0)
            return rc;
        icv_v3_to_array(cal->surf.t, res->surface_t);
        res->gravity_scale = cal->gravity.factor;
        res->gravity_scale_sd = cal->gravity.factor_sd;
    }
    if (ball) {
        j->sphere_r = sh->radius;
        if (exp->scale_kind != ICV_SCALE_SIZE && (rc = candidates_all(j, err)) != 0)
            return rc;
    }
    if (exp->scale_kind == ICV_SCALE_SIZE) {
        if ((rc = job_track_size_scale_apply(exp, cal, j->cand, j->cand_n, F, err)) != 0)
            return rc;
        /* the plane turned to the tilt the sizes show (or a ball's centre to correct):
           every ray met with it again */
        if ((cal->size.tilted || ball) && (rc = candidates_all(j, err)) != 0)
            return rc;
        memcpy(res->surface_R, cal->surf.R.m, sizeof res->surface_R);
        for (long f = 0; f < F; f++)
            j->t3[f] = cams[0].tcam[f] - cams[0].off_s;
        icv_err e2;
        if (track_gravity_scale_check(exp, cal, j->cand, j->cand_n, F, j->t3, &e2) == 0)
            track_gravity_scale_compare(
                exp, cal, "the ball's size", cal->size.factor_sd / cal->size.factor,
                "a wrong capture rate (cameras[].capture_fps: a slowed-down clip), a wrong ball "
                "diameter, a camera pitched to the plane of motion (the plane is taken to face "
                "it: vertical lines in view that converge show the pitch, and the fall comes "
                "out short), or a blurred, shadowed outline");
        else
            icv_info("%s: motion_plane.scale: size: no check by gravity (%s)", exp->path, e2.msg);
        icv_v3_to_array(cal->surf.t, res->surface_t);
    }
    if (exp->scale_kind == ICV_SCALE_POINTS && !exp->kind[0]) {
        for (long f = 0; f < F; f++)
            j->t3[f] = cams[0].tcam[f] - cams[0].off_s;
        icv_err e2;
        /* the two pixels' relative 1-sigma: half a pixel at each end */
        double dpx = hypot(exp->scale_points_px[1][0] - exp->scale_points_px[0][0],
                           exp->scale_points_px[1][1] - exp->scale_points_px[0][1]);
        if (track_gravity_scale_check(exp, cal, j->cand, j->cand_n, F, j->t3, &e2) == 0)
            track_gravity_scale_compare(
                exp, cal, "the known length (points_px)", dpx > 0 ? M_SQRT1_2 / dpx : 0,
                "the length out of the ball's plane (a ruler behind it), a wrong distance, or a "
                "wrong capture rate (cameras[].capture_fps)");
    }
    if (cal->surface_lowest) {
        if ((rc = track_surface_lowest_apply(exp, cal, j->cand, j->cand_n, F, err)) != 0)
            return rc;
        memcpy(res->surface_R, cal->surf.R.m, sizeof res->surface_R);
        icv_v3_to_array(cal->surf.t, res->surface_t);
    }
    return 0;
}

/* The template must fit: median of each measured inter-marker distance (one camera:
 * the distances in the motion plane, a marker's body z along its normal). Allocates
 * the identity (j->ident) on the way. */
static int identity_alloc(job_track *j, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    icv_vec3 tmpl[ICV_MAX_MARKERS];
    for (int k = 0; k < exp->n_markers; k++) {
        tmpl[k] = exp->markers[k];
        if (exp->n_cameras == 1)
            tmpl[k].z = 0;
    }
    j->ident = track_identity_alloc(exp->n_markers, tmpl, j->opt.template_tol_m, j->opt.template_tol_rel, err);
    return j->ident ? 0 : err ? err->code : ICV_EINVAL;
}

/* Frames posed (posed[f] = 1) as "a-b, c, ..." into buf; the first few ranges. */
static void posed_ranges(const unsigned char *posed, long F, char *buf, size_t n)
{
    size_t len = 0;
    int k = 0;
    buf[0] = 0;
    for (long f = 0; f < F; f++) {
        if (!posed[f] || (f > 0 && posed[f - 1]))
            continue;
        long e = f;
        while (e + 1 < F && posed[e + 1])
            e++;
        if (++k > 6) {
            snprintf(buf + len, n - len, ", ...");
            return;
        }
        if (len < n)
            len += (size_t)(e > f ? snprintf(buf + len, n - len, "%s%ld-%ld", len ? ", " : "", f, e)
                                  : snprintf(buf + len, n - len, "%s%ld", len ? ", " : "", f));
        if (len >= n)
            return;
    }
}

/* The template against the points (track_template_check) and its verdict for the run
 * (track_template_verdict): a rigid misfit refused, points standing in for a missing
 * marker refused only when the body is posed in too few frames, else a warning. */
static int template_check(job_track *j, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    const track_calibration *cal = &j->cal;
    int nm = exp->n_markers;
    long F = j->F;
    int rc = identity_alloc(j, err);
    if (rc)
        return rc;
    int npair = nm * (nm - 1) / 2, per = 0;
    icv_vec3 *Xa = malloc(sizeof *Xa * (size_t)(F * TRACK_MAX_CAND + 1));
    icv_vec3 *Xm = malloc(sizeof *Xm * (size_t)(F * TRACK_MAX_CAND * nm + 1));
    track_template_result *pairs = malloc(sizeof *pairs * (size_t)(npair + 1));
    unsigned char *posed = malloc((size_t)F + 1);
    if (!Xa || !Xm || !pairs || !posed) {
        free(Xa);
        free(Xm);
        free(pairs);
        free(posed);
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    }
    for (long f = 0; f < F; f++) {
        for (int i = 0; i < j->cand_n[f]; i++)
            Xa[f * TRACK_MAX_CAND + i] = j->cand[f * TRACK_MAX_CAND + i].X;
        per |= planar_per_marker(cal, exp, j->cand + f * TRACK_MAX_CAND, j->cand_n[f], Xm + f * TRACK_MAX_CAND * nm);
    }
    int *n_rays = exp->n_cameras >= 2 && !per && j->opt.ray_pose ? malloc(sizeof *n_rays * (size_t)F) : NULL;
    for (long f = 0; n_rays && f < F; f++)
        n_rays[f] = j->rays_n[f] + j->rays_extra[f];
    int bad = track_template_check_rays(j->ident, per ? NULL : Xa, per ? Xm : NULL, j->cand_n, F, TRACK_MAX_CAND,
                                        n_rays ? j->rays : NULL, n_rays, TRACK_IDENTITY_MAX_RAYS, pairs, posed, err);
    free(n_rays);
    free(Xa);
    free(Xm);
    if (bad < 0) {
        free(pairs);
        free(posed);
        return bad;
    }
    long n_posed = 0, n_posed_pts = 0;
    for (long f = 0; f < F; f++) {
        n_posed += posed[f] != 0;
        n_posed_pts += posed[f] == 1;
    }
    unsigned stood_in = 0;
    int verdict = track_template_verdict(pairs, npair, n_posed, &stood_in);
    char msg[ICV_ERR_MSG_MAX] = "";
    size_t len = 0;
    double ss = 0;
    long nss = 0;
    for (int q = 0, nb = 0; q < npair; q++) {
        const track_template_result *r = &pairs[q];
        if (r->n == 0)
            continue;
        ss += (r->measured - r->D) * (r->measured - r->D);
        nss++;
        /* the first pairs that fail, up to a third of a message: the rest must fit */
        if (!r->fits && len < 170)
            len += (size_t)snprintf(msg + len, sizeof msg - len, "%sm%d-m%d %.4f m measured vs %.4f m (%+.1f mm)",
                                    nb++ ? ", " : "", r->j, r->k, r->measured, r->D, 1e3 * (r->measured - r->D));
        else if (!r->fits && !strstr(msg, ", ..."))
            len += (size_t)snprintf(msg + len, sizeof msg - len, ", ...");
    }
    char why[64] = ""; /* the markers other points stood in for */
    for (int m = 0, wl = 0; m < nm && m < 32 && wl < (int)sizeof why - 8; m++)
        if (stood_in >> m & 1u)
            wl += snprintf(why + wl, sizeof why - (size_t)wl, "%sm%d", wl ? ", " : "", m);
    char frames[96];
    posed_ranges(posed, F, frames, sizeof frames);
    double scale, lo, hi;
    int one_scale = track_template_one_scale(pairs, npair, &scale, &lo, &hi);
    free(pairs);
    free(posed);
    j->res.template_rms_m = nss ? sqrt(ss / nss) : 0;
    /* let through only by frames a ray poses: should the run fail later (the labelling
       finds nothing), the other looks are tried as for a misfit (a look's clutter can
       meet a ray by chance) */
    j->template_misfit = (verdict != TRACK_TEMPLATE_FITS && verdict != TRACK_TEMPLATE_STOOD_IN) ||
                         (verdict == TRACK_TEMPLATE_STOOD_IN && n_posed_pts < TRACK_TEMPLATE_MIN_POSED);
    const char *posed_what = nm >= 3 ? "3 markers or more fitting together" : "both markers fitting";
    if (verdict == TRACK_TEMPLATE_FITS)
        return 0;
    if (verdict == TRACK_TEMPLATE_STOOD_IN) {
        icv_warn("%s: body.markers: %s, where other points stood in for %s (not detected: the pairs scatter, stand "
                 "still or come in few frames); the body is posed (%s) in %ld of %ld frames (%s): labelled there",
                 exp->path, msg, why, posed_what, n_posed, F, frames);
        return 0;
    }
    /* a wrong scale stretches every pair alike; a misplaced marker, or points that are
       not the markers (the detector's, on the tuning scenes: posts' feet where the balls
       do not show, a rod's pieces between bands), do not */
    if (verdict == TRACK_TEMPLATE_WRONG && one_scale == 0)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: body.markers do not fit the triangulated points: %s; not one scale of the template "
                           "(x%.2f-%.2f), so not the calibration's: a marker misplaced in body.markers, or points "
                           "other than the markers taken (posts' feet, a rod's pieces, markers partly hidden)",
                           exp->path, msg, lo, hi);
    if (verdict == TRACK_TEMPLATE_WRONG)
        return icv_err_set(err, ICV_EINVAL,
                           "%s: body.markers do not fit the triangulated points: %s (wrong markers in experiment.yaml, "
                           "or a wrong calibration scale%s)",
                           exp->path, msg, one_scale == 1 ? ": every pair about one scale of the template" : "");
    return icv_err_set(err, ICV_EINVAL,
                       "%s: body.markers do not fit the triangulated points: %s; other points stood in for %s (not "
                       "detected in a camera, hidden or out of view: the pairs scatter, stand still or come in few "
                       "frames); the body is posed (%s) in %ld of %ld frames%s%s%s, %d needed (check the detection, "
                       "track.markers, body.markers)",
                       exp->path, msg, why, posed_what, n_posed, F, n_posed ? " (" : "", frames, n_posed ? ")" : "",
                       TRACK_TEMPLATE_MIN_POSED);
}

/* Reference frame f's candidates labelled with the body's markers: the band markers
 * moved to the rod's axis (first pass), one camera's markers met with their own
 * planes, the 2D tracks labelled (a label that changes is a swap repaired), the
 * positions into xyz and the quality rows, then the ray pose's one-view markers.
 * *rss: the squared residuals summed. */
static void label_frame(job_track *j, long f, const double *travel, int n_ids0, track_pose *ray_prior,
                        long *ray_prior_f, double *rss)
{
    const icv_experiment *exp = &j->exp;
    const track_calibration *cal = &j->cal;
    job_track_result *res = &j->res;
    job_track_camera *cams = j->cams;
    track_band *band = &j->band;
    int nc = exp->n_cameras, nm = exp->n_markers, off = j->marker_offset;
    double t = cams[0].tcam[f] - cams[0].off_s;
    double *xyz_f = j->xyz + ((size_t)f * (size_t)j->xyz_stride + (size_t)off) * 3;
    j->fr3[f] = f;
    j->t3[f] = t;
    for (long i = 0; i < (long)nm * 3; i++)
        xyz_f[i] = NAN;
    track_candidate *cf = j->cand + f * TRACK_MAX_CAND;
    int n_cand = j->cand_n[f];
    icv_vec3 X[TRACK_MAX_CAND], Xm[TRACK_MAX_CAND * ICV_MAX_MARKERS];
    int lab[TRACK_MAX_CAND];
    for (int i = 0; i < n_cand; i++)
        X[i] = cf[i].X;
    track_identity_hint hint[TRACK_MAX_CAND];
    for (int i = 0; i < n_cand; i++) {
        int id = cf[i].id[0];
        hint[i] = (track_identity_hint){id, id >= 0 && id < n_ids0 ? travel[id] : 0};
    }
    int per = planar_per_marker(cal, exp, cf, n_cand, Xm);
    /* each point's covariance, where it holds the point's error: not for a position
       made rather than measured (coasted, extrapolated), a merged blob's or a saturated
       or blurred one's centroid. An interpolated point (a camera's view between two of
       its frames, as every point of unsynchronised cameras) is kept: the interpolation
       misses by tens of micrometres outside an impact */
    double cov[TRACK_MAX_CAND][3][3];
    const unsigned made =
        TRACK_FLAG_COASTED | TRACK_FLAG_EXTRAPOLATED | TRACK_FLAG_MERGED | TRACK_FLAG_SATURATED | TRACK_FLAG_BLURRED;
    for (int i = 0; i < n_cand; i++) {
        memcpy(cov[i], cf[i].cov, sizeof cov[i]);
        if ((cf[i].flags & made) || cf[i].nv < 2)
            cov[i][0][0] = cov[i][1][1] = cov[i][2][2] = NAN;
    }
    track_identity_label_tracks(j->ident, X, per ? Xm : NULL, (const double(*)[3][3])cov, n_cand, t, hint,
                                j->rays + f * TRACK_IDENTITY_MAX_RAYS, j->rays_n[f], lab);
    if (j->cand_lab)
        memcpy(j->cand_lab + f * TRACK_MAX_CAND, lab, sizeof *lab * (size_t)n_cand);
    j->axes[f] = icv_v3(NAN, NAN, NAN);
    if (band->on && j->opt.band_correction) {
        icv_vec3 ax;
        if (track_band_axis(band, cal, cf, lab, n_cand, &ax) == 0) {
            band->axis = ax;
            band->t_axis = t;
        }
        if (t - band->t_axis < 0.05) /* s: the axis turns little in that time */
            j->axes[f] = band->axis;
        if (t - band->t_axis < 0.05 && !j->corrected)
            for (int i = 0; i < n_cand; i++)
                if (lab[i] >= 0 && band->band[lab[i]]) {
                    track_band_correct(band, cal, nc, band->axis, &cf[i]);
                    X[i] = cf[i].X;
                    res->band_corrected++;
                }
    }
    if (nc == 1) /* one camera: each marker meets its own plane */
        for (int i = 0; i < n_cand; i++)
            if (lab[i] >= 0 && exp->markers[lab[i]].z != 0) {
                job_track_planar_marker_plane(cal, exp->markers[lab[i]].z, &cf[i]);
                X[i] = cf[i].X;
            }
    for (int i = 0; i < n_cand; i++) {
        int m = lab[i];
        if (m < 0)
            continue;
        /* a 2D track that changes marker is a swap the template repaired */
        for (int w = 0; w < cf[i].nv; w++) {
            int c = cf[i].cam[w], id = cf[i].id[w];
            if (id < 0)
                continue;
            job_track_camera *cm = &cams[c];
            long g = f;
            if (c >= 1) { /* that camera's frame nearest the reference time */
                g = lround((t + cm->off_s - cm->tcam[0]) * cm->pc.fps);
                if (g < 0 || g >= cm->frames)
                    continue;
            }
            int prev = -1;
            for (long h = g - 1; h >= 0 && h >= g - 3 && prev < 0; h--)
                prev = cm->label[h * cm->n_ids + id];
            if (prev >= 0 && prev != off + m && c == 0)
                res->swaps_repaired++;
            cm->label[g * cm->n_ids + id] = off + m;
        }
        double *o = xyz_f + (size_t)m * 3;
        o[0] = X[i].x, o[1] = X[i].y, o[2] = X[i].z;
        track_quality3d *q = &j->qrows[j->nq++];
        q->frame = f;
        q->time_s = t;
        q->marker = off + m;
        q->residual_px = cf[i].residual;
        memcpy(q->cov, cf[i].cov, sizeof q->cov);
        q->flags = cf[i].flags;
        res->points3d++;
        res->points3d_by_views[cf[i].nv < ICV_MAX_CAMERAS ? cf[i].nv : ICV_MAX_CAMERAS]++;
        res->band_corrected += j->corrected && band->band[m];
        res->interpolated3d += (cf[i].flags & TRACK_FLAG_INTERPOLATED) != 0;
        res->extrapolated3d += (cf[i].flags & TRACK_FLAG_EXTRAPOLATED) != 0;
        *rss += cf[i].residual * cf[i].residual;
    }
    if (nc >= 2 && j->opt.ray_pose) {
        int k = job_track_ray_pose_frame(cams, j->ident, exp->markers, nm, off, X, cf, lab, n_cand, f, t,
                               j->rays + f * TRACK_IDENTITY_MAX_RAYS, j->rays_n[f] + j->rays_extra[f], res->sigma_scale,
                               ray_prior, ray_prior_f, xyz_f, j->qrows, &j->nq);
        res->one_view3d += k;
        res->points3d += k;
    }
}

/* Identity frame by frame: the rows of tracks3d and its quality file. */
static int label_frames(job_track *j, icv_err *err)
{
    job_track_result *res = &j->res;
    int n_ids0 = j->cams[0].n_ids ? j->cams[0].n_ids : 1;
    double *travel = malloc(sizeof *travel * (size_t)n_ids0);
    if (!travel)
        return icv_err_set(err, ICV_ENOMEM, "out of memory");
    int rc = track_travels(j->cand, j->cand_n, j->F, n_ids0, travel, err);
    if (rc) {
        free(travel);
        return rc;
    }
    double rss = 0;
    track_pose ray_prior;
    long ray_prior_f = -10;
    /* one body: each candidate's label kept for carry_labels */
    int *own_lab = NULL;
    if (!j->cand_lab && j->opt.carry_labels) {
        own_lab = malloc(sizeof *own_lab * (size_t)(j->F * TRACK_MAX_CAND));
        if (!own_lab) {
            free(travel);
            return icv_err_set(err, ICV_ENOMEM, "out of memory");
        }
        j->cand_lab = own_lab;
    }
    for (long f = 0; f < j->F; f++)
        label_frame(j, f, travel, n_ids0, &ray_prior, &ray_prior_f, &rss);
    free(travel);
    if (own_lab) {
        j->cand_lab = NULL;
        rc = job_track_carry_labels(j, own_lab, &rss, err);
        free(own_lab);
        if (rc)
            return rc;
    }
    res->rows3d = j->F;
    res->residual_rms_px = res->points3d ? sqrt(rss / res->points3d) : 0;
    return 0;
}

/* No marker position labelled in any frame: why, from the candidates. */
int job_track_3d_nothing_labelled(const job_track *j, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    int nc = exp->n_cameras, nm = exp->n_markers;
    long n_cand = 0, f_cand = 0;
    int most = 0;
    for (long f = 0; f < j->F; f++) {
        n_cand += j->cand_n[f];
        f_cand += j->cand_n[f] > 0;
        most = j->cand_n[f] > most ? j->cand_n[f] : most;
    }
    if (n_cand > 0) /* positions were made; the template labelled none (e.g. 2 of 3
                       markers, a pair that fits either way round) */
        return icv_err_set(err, ICV_ENOTFOUND,
                           "%s: no marker position could be labelled with body.markers in any frame: %ld points %s "
                           "in %ld frames, at most %d together, %s (check that every marker is detected: "
                           "track.markers, the lighting)",
                           exp->path, n_cand, nc >= 2 ? "triangulated" : "placed on the motion plane", f_cand, most,
                           nm == 1 ? "none on a track that moves apart from the others"
                                   : "never enough markers to tell which is which");
    return icv_err_set(err, ICV_ENOTFOUND, "%s: no marker position could be %s in any frame", exp->path,
                       nc >= 2 ? "triangulated (no detection of one camera lies on the other's epipolar "
                                 "lines: check the calibration and sync)"
                               : "placed on the motion plane");
}

/* The gaps named by the marker column of tracks2d, the first JOB_TRACK_GAPS_WARNED of
 * each camera logged as warnings and the rest counted in one line (track_info.json's
 * warnings say the same, track_info.c; its gaps list every one): a clip whose markers
 * hide again and again would otherwise bury the numbers under hundreds of lines. */
void job_track_3d_gaps_name(job_track *j)
{
    const icv_experiment *exp = &j->exp;
    for (int c = 0; c < exp->n_cameras; c++) {
        job_track_camera *cm = &j->cams[c];
        long more_frames = 0;
        for (size_t i = 0; i < cm->n_gaps; i++) {
            job_track_gap *g = &cm->gaps[i];
            int l = job_track_label_2d(cm, g->first > 0 ? g->first - 1 : g->last + 1, g->track);
            g->marker = l >= 0 ? l : exp->n_markers + g->track;
            char line[512];
            if (i < JOB_TRACK_GAPS_WARNED)
                icv_warn("%s: %s", exp->path, job_track_gap_format(exp->cameras[c].id, g, line, sizeof line));
            else
                more_frames += g->last - g->first + 1;
            j->res.gaps[c]++;
            j->res.gap_frames[c] += g->last - g->first + 1;
        }
        if (cm->n_gaps > JOB_TRACK_GAPS_WARNED)
            icv_warn("%s: camera '%s': %zu more gaps in the markers' tracks (%ld frames; track_info.json "
                     "cameras[].gaps lists each)",
                     exp->path, exp->cameras[c].id, cm->n_gaps - JOB_TRACK_GAPS_WARNED, more_frames);
    }
}

int job_track_3d_candidates(job_track *j, int pass, icv_err *err)
{
    job_track_camera *cams = j->cams;
    int rc = candidates_all(j, err);
    if (rc)
        return rc;
    for (long r = 0; r < cams[0].n_raw; r++) /* this pass's outliers only */
        cams[0].raw[r].flags &= ~(unsigned)TRACK_FLAG_OUTLIER;
    if (j->exp.n_cameras >= 2 &&
        (rc = flag_outliers(j->cand, j->cand_n, j->F, &cams[0], &j->cal.surf, j->rays, j->rays_n, j->rays_extra,
                            &j->res.outliers3d, &j->res.sigma_scale, err)) != 0)
        return rc;
    if (pass == 0 && j->exp.n_cameras == 1)
        return plane_scale(j, err);
    return 0;
}

int job_track_3d_label_body(job_track *j, int check, icv_err *err)
{
    int rc = check ? template_check(j, err) : identity_alloc(j, err);
    return rc ? rc : label_frames(j, err);
}

/* Refused when the labelled points stand still over the clip (track_labels_still): clutter
 * at the template's distances (glints, a reference object, a board left in view) passes
 * every check of the template, and the analysis would report its "flight" as physics.
 * The other looks are tried then, as for a misfit. Only where the body must move (an
 * impact, a drop): on a slide or a tilt friction may hold it, which the coefficients
 * stage says. */
static int labels_moving(job_track *j, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    double r = j->opt.template_tol_m;
    if (!strcmp(exp->kind, "slide") || !strcmp(exp->kind, "tilt"))
        return 0;
    track_labels_still_result s;
    int still = track_labels_still(j->xyz, j->F, j->xyz_stride, exp->n_markers, r, &s, err);
    if (still <= 0)
        return still;
    j->labels_still = 1;
    return icv_err_set(err, ICV_EINVAL,
                       "%s: the points labelled as body.markers stand still for the whole clip (%ld of %ld within "
                       "%.1f mm of one place each, frames %ld-%ld), as clutter does while the body moves: a glint, "
                       "a reference object or the board taken for the markers? (check that the markers are "
                       "detected: track.markers, the lighting)",
                       exp->path, s.still_points, s.points, 1e3 * r, s.first, s.last);
}

/* 3D: candidates per reference frame, outliers, the scales (one camera), the template,
 * the identity. Two passes when there are band markers: the first labels the markers
 * and finds the rod's axis; the second starts from centroids moved to the axis (both
 * cameras' points, undistorted), refines the offset again from them and triangulates. */
int job_track_pass_3d(job_track *j, icv_err *err)
{
    const icv_experiment *exp = &j->exp;
    int rc;
    job_track_camera *cams = j->cams;
    j->t_3d = icv_now();
    j->F = cams[0].frames;
    if ((rc = alloc_3d(j, err)) != 0)
        return rc;
    j->xyz_stride = exp->n_markers;
    j->marker_offset = 0;
    j->cand_lab = NULL;
    j->corrected = 0;
    j->nq = 0;
    if (exp->n_bodies > 1) {
        memset(&j->band, 0, sizeof j->band);
        rc = job_track_bodies_3d(j, err);
        if (!rc)
            job_track_3d_gaps_name(j);
        icv_debug("timing: 3D and identity %.3f s", icv_now() - j->t_3d);
        return rc;
    }
    track_band_init(exp, &j->band);
    for (int c = 0; c < exp->n_cameras && j->band.sphere; c++) {
        j->band.beside[c] = job_track_beside(&j->cams[c]);
        icv_debug("camera '%s': beads weighed beside the rod %.2f of on it", exp->cameras[c].id, j->band.beside[c]);
    }
    /* a plane in metres from the start (a board in it, or a known length): the ball's
       rays corrected from the first pass; gravity and size scale it later (plane_scale) */
    if (ball_is_its_marker(exp) && (exp->scale_kind == ICV_SCALE_BOARD || exp->scale_kind == ICV_SCALE_POINTS))
        j->sphere_r = exp->shape.radius;
    int n_pass = j->band.on && j->opt.band_correction ? 2 : 1;
    for (int pass = 0; pass < n_pass; pass++) {
        if (pass == 1)
            band_pass_prepare(j);
        if ((rc = job_track_3d_candidates(j, pass, err)) != 0 || (rc = job_track_3d_label_body(j, 1, err)) != 0)
            return rc;
        if (j->res.points3d == 0) {
            j->none_labelled = 1;
            return job_track_3d_nothing_labelled(j, err);
        }
    }
    if ((rc = labels_moving(j, err)) != 0)
        return rc;
    job_track_orient_template(j);
    job_track_3d_gaps_name(j);
    icv_debug("timing: 3D and identity %.3f s", icv_now() - j->t_3d);
    return 0;
}
