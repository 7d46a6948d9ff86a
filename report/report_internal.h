/* report_internal.h: helpers shared by report/'s files (not public). */
#ifndef ICV_REPORT_INTERNAL_H
#define ICV_REPORT_INTERNAL_H

#include "report/report.h"

/* Hz: 1 / the median interval between the tracks' frames (0 when unknown). */
double report_tracks_rate(const analysis_tracks *tr);

#endif
