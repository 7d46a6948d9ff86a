/* synth.h: synthetic experiments with exact ground truth.
 * Not built yet: issue #5. Nothing here pretends to work; the CLI commands that need
 * this module exit with "not implemented yet" (status 2). */
#ifndef ICV_SYNTH_H
#define ICV_SYNTH_H

#include "core/core.h"

#endif
