/* track.h: marker detection, tracking, sub-frame sync and triangulation.
 * Not built yet: issue #8. Nothing here pretends to work; the CLI commands that need
 * this module exit with "not implemented yet" (status 2). */
#ifndef ICV_TRACK_H
#define ICV_TRACK_H

#include "core/core.h"

#endif
