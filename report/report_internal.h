/* report_internal.h: helpers shared by report/'s files (not public). */
#ifndef ICV_REPORT_INTERNAL_H
#define ICV_REPORT_INTERNAL_H

#include "report/report.h"

/* Hz: 1 / the median interval between the tracks' frames (0 when unknown). */
double report_tracks_rate(const analysis_tracks *tr);

/* base64 of n bytes to f (RFC 4648, with padding) */
void report_base64(FILE *f, const unsigned char *d, size_t n);

#endif
