/* bodies_files.h: the files the several-body tests hand to impactcv (bodies_files.c). */
#ifndef ICV_TESTS_BODIES_FILES_H
#define ICV_TESTS_BODIES_FILES_H

#include <jansson.h>

#include "core/core.h"

/* synth's experiment e without its cameras (tracks from another system, in the truth's
 * surface frame: gravity g, m/s^2), each body's markers labelled <name>_<k>, its
 * joints; body scale_body's mass multiplied by mass_scale (-1: none). 0 or -1. */
int bodies_write_experiment(const icv_experiment *e, const double g[3], const char *path, int scale_body,
                            double mass_scale);
/* The same with each body's markers labelled as impactcv's exports name them,
 * <name>_m<k> (k from 0), and every mass as given. */
int bodies_write_experiment_exported(const icv_experiment *e, const double g[3], const char *path);
/* truth.json's markers_3d (frames: every body's markers in order, m) with Gaussian
 * noise of noise_m (m) per coordinate, seeded, as a TRC file in metres. 0 or -1. */
int bodies_write_trc(const icv_experiment *e, json_t *frames, unsigned long seed, double noise_m, const char *path);

#endif
