/* report.h: report.html, plots, exports.
 * Not built yet: issue #10. Nothing here pretends to work; the CLI commands that need
 * this module exit with "not implemented yet" (status 2). */
#ifndef ICV_REPORT_H
#define ICV_REPORT_H

#include "core/core.h"

#endif
