/* capture.h: video input with exact frame timing, and camera sync.
 * Not built yet: issue #4. Nothing here pretends to work; the CLI commands that need
 * this module exit with "not implemented yet" (status 2). */
#ifndef ICV_CAPTURE_H
#define ICV_CAPTURE_H

#include "core/core.h"

#endif
