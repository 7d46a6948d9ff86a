/* analysis.h: rigid-body kinematics, impacts, measured coefficients.
 * Not built yet: issue #9. Nothing here pretends to work; the CLI commands that need
 * this module exit with "not implemented yet" (status 2). */
#ifndef ICV_ANALYSIS_H
#define ICV_ANALYSIS_H

#include "core/core.h"

#endif
