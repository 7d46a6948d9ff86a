/* body.c: the body of an experiment as the analysis needs it (mass, inertia, shape,
 * the markers' template: planar with one camera). */
#include <string.h>

#include "analysis/analysis.h"

int analysis_body_from_experiment(const icv_experiment *e, analysis_body *b, icv_err *err)
{
    memset(b, 0, sizeof *b);
    b->mass = e->mass;
    b->inertia = e->inertia;
    b->shape = e->shape;
    int rc = e->n_cameras == 1 ? analysis_template_init_planar(&b->tmpl, e->markers, e->n_markers, err)
                               : analysis_template_init(&b->tmpl, e->markers, e->n_markers, err);
    if (rc)
        icv_err_prefix(err, "%s: ", e->path);
    return rc;
}
