/* experiment_internal.h (private to core/): what experiment.c's parts share. */
#ifndef ICV_CORE_EXPERIMENT_INTERNAL_H
#define ICV_CORE_EXPERIMENT_INTERNAL_H

#include "core/core.h"

/* Returns from the reader on the first failing read. */
#define TRY(x)                 \
    do {                       \
        int rc_ = (x);         \
        if (rc_)               \
            return rc_;        \
    } while (0)

/* `body:` or `bodies:` (and `joints:`) into e->bodies, the first body also into e's
 * one-body fields (experiment_bodies.c). Needs e->n_cameras. */
int icv_experiment_bodies_read(icv_ynode root, icv_experiment *e, icv_err *err);

#endif
