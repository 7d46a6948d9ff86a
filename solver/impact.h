/* impact.h: the rigid-body impact solver (a library of its own; depends on core only).
 * Not built yet: issue #3. Nothing here pretends to work; the CLI commands that need
 * this module exit with "not implemented yet" (status 2). */
#ifndef ICV_IMPACT_H
#define ICV_IMPACT_H

#include "core/core.h"

#endif
