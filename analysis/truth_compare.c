/* truth_compare.c: measured impacts against a synth experiment's truth.json, with
 * the stated tolerances (docs/analysis.md): what `impactcv analyze --truth` and
 * `make demo` use to say whether the pipeline got the physics right. */
#include <jansson.h>
#include <string.h>

#include "analysis/analysis.h"

static int vec_of(json_t *a, icv_vec3 *v)
{
    if (!json_is_array(a) || json_array_size(a) != 3)
        return -1;
    *v = icv_v3(json_number_value(json_array_get(a, 0)), json_number_value(json_array_get(a, 1)),
                json_number_value(json_array_get(a, 2)));
    return 0;
}

typedef struct {
    const char *what;
    double measured, truth, tol;
} row;

int analysis_truth_compare(const char *truth_path, const analysis_result *res, const analysis_body *b, double frame_s,
                           FILE *out, icv_err *err)
{
    json_error_t je;
    json_t *root = json_load_file(truth_path, 0, &je);
    if (!root)
        return icv_err_set(err, ICV_EIO, "%s: %s", truth_path, je.text);
    int rc = 0;
    json_t *imps = json_object_get(root, "impacts");
    size_t nt = json_array_size(imps);
    row rows[32];
    char names[32][48];
    int nr = 0;
    icv_vec3 gt;
    if (res->g_estimated && vec_of(json_object_get(root, "gravity"), &gt) == 0) {
        rows[nr++] = (row){"|g| m/s^2", icv_v3_norm(res->g), icv_v3_norm(gt), 0.005 * icv_v3_norm(gt)};
    }
    for (int i = 0; i < res->n_impacts && rc == 0; i++) {
        const analysis_impact *im = &res->impacts[i];
        /* the truth impact nearest in time */
        json_t *best = NULL;
        double bd = INFINITY;
        for (size_t k = 0; k < nt; k++) {
            double t = json_number_value(json_object_get(json_array_get(imps, k), "time_s"));
            if (fabs(t - im->t) < bd) {
                bd = fabs(t - im->t);
                best = json_array_get(imps, k);
            }
        }
        if (!best) {
            rc = icv_err_set(err, ICV_EINVAL, "impact %d at t = %.4f s: truth has no impact", i, im->t);
            break;
        }
        icv_vec3 vp, vq, wp, wq;
        json_t *pre = json_object_get(best, "pre"), *post = json_object_get(best, "post");
        if (vec_of(json_object_get(pre, "v"), &vp) || vec_of(json_object_get(post, "v"), &vq) ||
            vec_of(json_object_get(pre, "omega"), &wp) || vec_of(json_object_get(post, "omega"), &wq)) {
            rc = icv_err_set(err, ICV_EFORMAT, "%s: an impact lacks pre/post v or omega", truth_path);
            break;
        }
        json_t *ten = json_object_get(best, "energy");
        double loss_t = json_number_value(json_object_get(ten, "loss_fraction"));
        if (!im->spin_observable) { /* compare the measured part only */
            icv_vec3 a = b->tmpl.point ? icv_v3(0, 0, 0) : icv_m3_apply(im->pre.R, b->tmpl.axis);
            if (b->tmpl.point)
                wp = wq = icv_v3(0, 0, 0);
            wp = icv_v3_sub(wp, icv_v3_scale(a, icv_v3_dot(wp, a)));
            wq = icv_v3_sub(wq, icv_v3_scale(a, icv_v3_dot(wq, a)));
            /* the energies count only that part too (analysis_energy_scope): the
             * truth's spin the markers cannot see (a synth ball's 5%) is not the
             * measurement's error; the truth's attitude at the instant turns I */
            icv_vec3 e213;
            icv_mat3 R = im->pre.R;
            if (vec_of(json_object_get(pre, "euler213"), &e213) == 0)
                R = icv_euler213_to_matrix(e213);
            icv_mat3 Iw = icv_m3_rotate_tensor(R, b->inertia);
            double e0 = 0.5 * b->mass * icv_v3_dot(vp, vp) + 0.5 * icv_v3_dot(wp, icv_m3_apply(Iw, wp));
            double e1 = 0.5 * b->mass * icv_v3_dot(vq, vq) + 0.5 * icv_v3_dot(wq, icv_m3_apply(Iw, wq));
            loss_t = e0 > 0 ? 1 - e1 / e0 : NAN;
        }
        double speed = icv_v3_norm(vp);
        int n0 = nr;
        rows[nr++] = (row){"time s", im->t, json_number_value(json_object_get(best, "time_s")), 0.2 * frame_s};
        const char *ax = "xyz";
        for (int a = 0; a < 3; a++) {
            snprintf(names[nr], sizeof names[0], "v_pre.%c m/s", ax[a]);
            rows[nr] = (row){names[nr], icv_v3_get(im->pre.v, a), icv_v3_get(vp, a), 0.005 * speed};
            nr++;
            snprintf(names[nr], sizeof names[0], "v_post.%c m/s", ax[a]);
            rows[nr] = (row){names[nr], icv_v3_get(im->post.v, a), icv_v3_get(vq, a), 0.005 * speed};
            nr++;
        }
        if (!b->tmpl.point) {
            rows[nr++] = (row){"|omega_pre - truth| rad/s", icv_v3_norm(icv_v3_sub(im->pre.omega, wp)), 0,
                               fmax(0.02 * icv_v3_norm(wp), 0.1)};
            rows[nr++] = (row){"|omega_post - truth| rad/s", icv_v3_norm(icv_v3_sub(im->post.omega, wq)), 0,
                               fmax(0.02 * icv_v3_norm(wq), 0.1)};
        }
        rows[nr++] = (row){"e_kinematic", im->e_kinematic, json_number_value(json_object_get(best, "e_kinematic")),
                           0.01};
        rows[nr++] = (row){"impulse_ratio", im->impulse_ratio,
                           json_number_value(json_object_get(best, "impulse_ratio")), 0.01};
        rows[nr++] = (row){im->energy_rotation == ANALYSIS_ROTATION_ALL    ? "loss_fraction"
                           : im->energy_rotation == ANALYSIS_ROTATION_NONE ? "loss_fraction (translation)"
                                                                           : "loss_fraction (no line spin)",
                           im->loss_fraction, loss_t, 0.01};
        (void)n0;
    }
    if (out && !rc) {
        fprintf(out, "%-28s %12s %12s %10s  %s\n", "quantity", "measured", "truth", "tolerance", "");
        for (int i = 0; i < nr; i++)
            fprintf(out, "%-28s %12.5g %12.5g %10.3g  %s\n", rows[i].what, rows[i].measured, rows[i].truth, rows[i].tol,
                    fabs(rows[i].measured - rows[i].truth) <= rows[i].tol ? "ok" : "OUT");
    }
    for (int i = 0; i < nr && !rc; i++)
        if (!(fabs(rows[i].measured - rows[i].truth) <= rows[i].tol))
            rc = icv_err_set(err, ICV_EINVAL, "%s: measured %.5g, truth %.5g: off by %.3g, beyond %.3g", rows[i].what,
                             rows[i].measured, rows[i].truth, fabs(rows[i].measured - rows[i].truth), rows[i].tol);
    if (!rc && res->n_impacts != (int)nt)
        rc = icv_err_set(err, ICV_EINVAL, "%d impacts measured, truth has %zu", res->n_impacts, nt);
    json_decref(root);
    return rc;
}
